"""GraphQL at ``/graphql`` (strawberry): the REST operations as queries with typed results.

A refusal is a member of the result union (``Problem``, ``Illegal``), never a top-level
``errors`` entry. States and events travel as the ``JSON`` scalar (the wire format of
docs/wire-format.md); answers (verdicts, reasons, legal actions, scores) are typed. Every query goes
through the same validation, engine call and cache as REST.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import orjson
import strawberry
from cross_web import HTTPException
from starlette.requests import Request as StarletteRequest
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.extensions import AddValidationRules, MaxTokensLimiter, ParserCache, ValidationCache
from strawberry.extensions.max_aliases import create_validator
from strawberry.scalars import JSON

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.websockets import WebSocket

    from .app import Service

Data = dict[str, Any]


@strawberry.type(description="One problem with its JSON pointer into the equivalent REST body.")
class FieldProblem:
    code: str
    path: str
    message: str


@strawberry.type(description="Why an action is illegal: stable code, message, rule source.")
class Reason:
    code: str
    message: str
    rule: str


@strawberry.type(description="A request the referee cannot answer (the REST problem document).")
class Problem:
    status: int
    code: str
    detail: str
    problems: list[FieldProblem]
    reason: Reason | None
    index: int | None


@strawberry.type(description="One ruleset in the catalogue.")
class VariantSummary:
    id: str
    title: str
    players: list[int]
    summary: str


@strawberry.type(description="A ruleset's complete rule table (as GET /v1/variants/{id}).")
class Variant:
    id: str
    title: str
    aliases: list[str]
    summary: str
    players: list[int]
    fingerprint: str
    options: JSON
    rules: JSON
    sections: JSON


@strawberry.type(description="A fresh, fully known deal.")
class Deal:
    state: JSON
    events: list[JSON]


@strawberry.type(description="Every problem found in a state (empty when valid).")
class Validation:
    valid: bool
    problems: list[FieldProblem]


@strawberry.type(description="A legal action (fields as in the REST wire format).")
class Action:
    type: str
    seat: int | None
    cards: list[str] | None
    card: str | None
    rank: str | None
    allow: bool | None


@strawberry.type(description="The actions the seat to move may take now.")
class LegalActions:
    seat: int
    phase: str
    listed: strawberry.Private[list[Data]]  # the actions as the REST answer writes them

    @strawberry.field
    def actions(self) -> list[Action]:
        # typed items are built only when a query selects them (193 cost about 100 µs)
        return [_action(a) for a in self.listed]

    @strawberry.field(description=(
        "The same actions in the REST wire format, as one JSON value: for long lists much "
        "cheaper to execute than the typed list (GraphQL resolves every field of every item)."))
    def actions_json(self) -> JSON:
        return cast(JSON, self.listed)


@strawberry.type(description="Every action is legal, in order.")
class Legal:
    legal: bool


@strawberry.type(description="The first illegal action and why.")
class Illegal:
    legal: bool
    index: int
    reason: Reason


@strawberry.type(description="The state after the actions, and what happened.")
class Applied:
    state: JSON
    events: list[JSON]


@strawberry.type(description="One side's deal score; total is the sum of the others.")
class Breakdown:
    melded_cards: int
    hand_cards: int
    canasta_bonus: int
    bonus_cards: int
    going_out: int
    penalties: int
    total: int
    detail: JSON | None


@strawberry.type(description="A side, its seats and its deal score.")
class SideScore:
    side: int
    seats: list[int]
    total: int
    breakdown: Breakdown


@strawberry.type(description="Deal scores per side, the new game scores and what follows.")
class Score:
    final: bool = strawberry.field(description=(
        "True: the deal is over and this is its score. False: the deal is still being played; "
        "the table is scored as it stands, as if the deal ended now with nobody going out, "
        "and every total is provisional."))
    sides: list[SideScore]
    scores: list[int]
    game_over: bool
    winner: int | None
    next_minimums: list[int]


@strawberry.type(description="One deal of a game log, replayed (as in POST /v1/audit).")
class AuditedDeal:
    legal: bool = strawberry.field(description="Every action of the deal is legal.")
    index: int | None = strawberry.field(description="The first illegal action; the replay "
                                         "stops there.")
    reason: Reason | None
    state: JSON = strawberry.field(description="The state after the last legal action.")
    events: list[JSON]
    score: Score = strawberry.field(description="The deal's score; scores are the game scores "
                                    "after it.")
    agrees: bool | None = strawberry.field(description="The scores the log records for the "
                                           "deal agree with the rules; null: it records none.")
    disagreements: list[FieldProblem]


@strawberry.type(description="A game log replayed deal by deal (as POST /v1/audit).")
class Audit:
    legal: bool
    agrees: bool | None
    totals: list[int]
    game_over: bool
    winner: int | None
    deals: list[AuditedDeal]


@strawberry.type(description="A state as one seat sees it (as POST /v1/view).")
class View:
    seat: int
    state: JSON


@strawberry.type(description="One operation's answer: the status and body a single request "
                             "gets (a problem document for a status other than 200).")
class BatchAnswer:
    status: int
    body: JSON


@strawberry.type(description="A batch's answers, in order (as POST /v1/batch).")
class Batch:
    results: list[BatchAnswer]


VariantResult = Annotated[Variant | Problem, strawberry.union("VariantResult")]
DealResult = Annotated[Deal | Problem, strawberry.union("DealResult")]
ValidateResult = Annotated[Validation | Problem, strawberry.union("ValidateResult")]
LegalActionsResult = Annotated[LegalActions | Problem, strawberry.union("LegalActionsResult")]
CheckResult = Annotated[Legal | Illegal | Problem, strawberry.union("CheckResult")]
ApplyResult = Annotated[Applied | Problem, strawberry.union("ApplyResult")]
ScoreResult = Annotated[Score | Problem, strawberry.union("ScoreResult")]
AuditResult = Annotated[Audit | Problem, strawberry.union("AuditResult")]
ViewResult = Annotated[View | Problem, strawberry.union("ViewResult")]
BatchResult = Annotated[Batch | Problem, strawberry.union("BatchResult")]


@strawberry.enum(description="The action types of the wire format.")
class ActionType(Enum):
    DRAW = "draw"
    TAKE_PILE = "take-pile"
    MELD = "meld"
    DISCARD = "discard"
    ASK = "ask"
    ANSWER = "answer"


@strawberry.enum(description="The operations a batch may hold.")
class BatchOp(Enum):
    DEAL = "deal"
    VALIDATE = "validate"
    LEGAL_ACTIONS = "legal-actions"
    CHECK = "check"
    APPLY = "apply"
    SCORE = "score"


@strawberry.input(description="One operation of a batch: its name and its REST request body.")
class BatchOperation:
    op: BatchOp
    body: JSON


@strawberry.input(description="An action: type, plus the fields that type takes.")
class ActionInput:
    type: ActionType
    seat: int | None = None
    cards: list[str] | None = None
    card: str | None = None
    rank: str | None = None
    allow: bool | None = None


@strawberry.input(description="A deal request (as POST /v1/deal).")
class DealInput:
    variant: str = "classic"
    options: JSON | None = None
    seed: int = strawberry.field(default=0, description=(
        "Shuffle seed, an integer (GraphQL Int: 32 bits; POST /v1/deal takes 64)."))
    dealer: int = 0
    scores: list[int] | None = None


# --- from answers to types ----------------------------------------------------------------------


def _problems(items: list[Data]) -> list[FieldProblem]:
    return [FieldProblem(code=p["code"], path=p["path"], message=p["message"]) for p in items]


def _reason(r: Data) -> Reason:
    return Reason(code=r["code"], message=r["message"], rule=r["rule"])


def _problem(d: Data) -> Problem:
    return Problem(status=d["status"], code=d["code"], detail=d["detail"],
                   problems=_problems(d.get("problems", [])),
                   reason=_reason(d["reason"]) if d.get("reason") else None,
                   index=d.get("index"))


def _action(a: Data) -> Action:
    return Action(type=a["type"], seat=a.get("seat"), cards=a.get("cards"), card=a.get("card"),
                  rank=a.get("rank"), allow=a.get("allow"))


def _score(d: Data) -> Score:
    sides = [SideScore(side=s["side"], seats=s["seats"], total=s["total"],
                       breakdown=Breakdown(**{k: s["breakdown"].get(k) for k in (
                           "melded_cards", "hand_cards", "canasta_bonus", "bonus_cards",
                           "going_out", "penalties", "total", "detail")}))
             for s in d["sides"]]
    return Score(final=d["final"], sides=sides, scores=d["scores"], game_over=d["game_over"],
                 winner=d["winner"], next_minimums=d["next_minimums"])


def _audit(d: Data) -> Audit:
    deals = [AuditedDeal(legal=x["legal"], index=x["index"],
                         reason=_reason(x["reason"]) if x["reason"] else None, state=x["state"],
                         events=x["events"], score=_score(x["score"]), agrees=x["agrees"],
                         disagreements=_problems(x["disagreements"])) for x in d["deals"]]
    return Audit(legal=d["legal"], agrees=d["agrees"], totals=d["totals"],
                 game_over=d["game_over"], winner=d["winner"], deals=deals)


def _actions(actions: list[ActionInput]) -> list[Data]:
    out = []
    for a in actions:
        item: Data = {"type": a.type.value}
        for name in ("seat", "cards", "card", "rank", "allow"):
            value = getattr(a, name)
            if value is not None:
                item[name] = value
        out.append(item)
    return out


async def _ask(info: strawberry.Info, op: str, body: object) -> tuple[int, Data]:
    svc: Service = info.context["svc"]
    try:
        raw = orjson.dumps(body)
    except orjson.JSONEncodeError:  # nested deeper than orjson writes (254 levels)
        from schema import handlers

        return handlers.too_deep(info.context["lang"])
    status, content, _ = await svc.answer(op, raw, info.context["lang"])
    answer: Data = orjson.loads(content)
    return status, answer


@strawberry.type
class Query:
    @strawberry.field(description="The rulesets the referee knows.")
    def variants(self) -> list[VariantSummary]:
        from engine import api

        return [VariantSummary(**v) for v in api.variants()["variants"]]

    @strawberry.field(description="A ruleset's complete rule table.")
    def variant(self, info: strawberry.Info, id: str) -> VariantResult:
        from schema import handlers

        status, d = handlers.handle("variant", None, info.context["lang"], id)
        return Variant(**d) if status == 200 else _problem(d)

    @strawberry.field(description="A fresh deal, reproducible from its seed.")
    async def deal(self, info: strawberry.Info, input: DealInput | None = None) -> DealResult:
        body: Data = {}
        if input is not None:
            body = {"variant": input.variant, "seed": input.seed, "dealer": input.dealer}
            if input.options is not None:
                body["options"] = input.options
            if input.scores is not None:
                body["scores"] = input.scores
        status, d = await _ask(info, "deal", body)
        return Deal(state=d["state"], events=d["events"]) if status == 200 else _problem(d)

    @strawberry.field(description="Every problem of a state, each with its path.")
    async def validate(self, info: strawberry.Info, state: JSON) -> ValidateResult:
        status, d = await _ask(info, "validate", {"state": state})
        if status != 200:
            return _problem(d)
        return Validation(valid=d["valid"], problems=_problems(d["problems"]))

    @strawberry.field(description="The actions the seat to move may take now.")
    async def legal_actions(self, info: strawberry.Info, state: JSON) -> LegalActionsResult:
        status, d = await _ask(info, "legal-actions", {"state": state})
        if status != 200:
            return _problem(d)
        return LegalActions(seat=d["seat"], phase=d["phase"], listed=d["actions"])

    @strawberry.field(description="Whether the actions are legal, in order; if not, why.")
    async def check(self, info: strawberry.Info, state: JSON,
                    actions: list[ActionInput]) -> CheckResult:
        status, d = await _ask(info, "check", {"state": state, "actions": _actions(actions)})
        if status != 200:
            return _problem(d)
        if d["legal"]:
            return Legal(legal=True)
        return Illegal(legal=False, index=d["index"], reason=_reason(d["reason"]))

    @strawberry.field(description="The state after the actions; an illegal one is a Problem "
                                  "with code ILLEGAL_ACTION, its index and reason.")
    async def apply(self, info: strawberry.Info, state: JSON,
                    actions: list[ActionInput]) -> ApplyResult:
        status, d = await _ask(info, "apply", {"state": state, "actions": _actions(actions)})
        return Applied(state=d["state"], events=d["events"]) if status == 200 else _problem(d)

    @strawberry.field(description="The deal's score per side and what follows for the game.")
    async def score(self, info: strawberry.Info, state: JSON) -> ScoreResult:
        status, d = await _ask(info, "score", {"state": state})
        return _score(d) if status == 200 else _problem(d)

    @strawberry.field(description="A game log replayed deal by deal: whether every action was "
                                  "legal, each deal's final state, events and score, the game "
                                  "scores, and whether the scores the log records agree.")
    async def audit(self, info: strawberry.Info, log: JSON) -> AuditResult:
        status, d = await _ask(info, "audit", log)
        return _audit(d) if status == 200 else _problem(d)

    @strawberry.field(description="The state as one seat sees it: other hands and the stock by "
                                  "their size, the pile by its top card, size and whether it "
                                  "is frozen.")
    async def view(self, info: strawberry.Info, state: JSON, seat: int) -> ViewResult:
        status, d = await _ask(info, "view", {"state": state, "seat": seat})
        return View(seat=d["seat"], state=d["state"]) if status == 200 else _problem(d)

    @strawberry.field(description="Operations answered in order, each as its REST request "
                                  "would be, from the same cache; a bad operation does not "
                                  "fail the others.")
    async def batch(self, info: strawberry.Info, operations: list[BatchOperation]) -> BatchResult:
        svc: Service = info.context["svc"]
        lang = info.context["lang"]
        try:
            raw = orjson.dumps({"operations": [{"op": o.op.value, "body": o.body}
                                               for o in operations]})
        except orjson.JSONEncodeError:
            from schema import handlers

            return _problem(handlers.too_deep(lang)[1])
        status, content, _ = await svc.batch(raw, lang)
        d: Data = orjson.loads(content)
        if status != 200:
            return _problem(d)
        return Batch(results=[BatchAnswer(status=r["status"], body=r["body"])
                              for r in d["results"]])


# One alias rule class for the process: the validation cache is keyed by the rule classes, so a
# limiter that makes a new class per request (strawberry's MaxAliasesLimiter as a factory) would
# defeat it. No depth limit is needed: no type of this schema contains itself.
_ALIASES = create_validator(8)

schema = strawberry.Schema(
    query=Query,
    extensions=[lambda: MaxTokensLimiter(max_token_count=4000),
                lambda: AddValidationRules([_ALIASES]),
                lambda: ParserCache(maxsize=512), lambda: ValidationCache(maxsize=512)],
)


class _View(GraphQL[dict[str, Any], None]):
    """Strawberry's ASGI view with our context (service, language) and orjson encoding."""

    def __init__(self, svc: Service) -> None:
        super().__init__(schema, graphql_ide="graphiql" if svc.settings.graphql_ide else None)
        self.svc = svc

    async def render_graphql_ide(self, request: StarletteRequest) -> Response:
        """GraphiQL from this process's own files (``service.ui``), not strawberry's CDN page."""
        from . import ui

        return ui.page(ui.graphiql_html())

    async def get_context(self, request: Request | WebSocket,
                          response: Response | WebSocket) -> dict[str, Any]:
        from .app import language

        return {"svc": self.svc, "lang": language(request.headers.get("accept-language"))}

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    def decode_json(self, data: str | bytes) -> object:
        # orjson's JSONDecodeError is json's: strawberry still answers 400 to a body that is
        # not JSON; nesting over 1,024 levels is refused too instead of recursing
        return orjson.loads(data)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strawberry's HTTP handling, with its transport errors (no query, bad JSON, wrong
        content type) as problem documents instead of plain text."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        from .app import LANG_HEADERS, language, status_problem

        request = StarletteRequest(scope=scope, receive=receive)
        lang = language(request.headers.get("accept-language"))
        try:
            response = await self.run(request)
        except HTTPException as exc:
            response = status_problem(exc.status_code, lang, reason=_reason_text(exc.reason, lang))
        else:
            if response.media_type == "application/json":  # not the GraphiQL page
                response.raw_headers.extend(LANG_HEADERS[lang])
        await response(scope, receive, send)


#: strawberry's reasons for refusing a request as GraphQL, in German
_REASONS_DE = {
    "No GraphQL query found in the request": "sie enthält keine GraphQL-Abfrage",
    "Unable to parse request body as JSON": "der Anfragetext ist kein gültiges JSON",
    "Unsupported content type": "dieser Content-Type wird nicht unterstützt",
    "Batching is not enabled": "mehrere Operationen in einer Anfrage sind nicht vorgesehen",
    "Can't get GraphQL operation type": "die Art der Operation ist nicht zu erkennen",
    "The GraphQL operation's `query` must be a string or null, if provided.":
        "`query` muss eine Zeichenkette oder null sein",
    "The GraphQL operation's `variables` must be an object or null, if provided.":
        "`variables` muss ein Objekt oder null sein",
    "The GraphQL operation's `extensions` must be an object or null, if provided.":
        "`extensions` muss ein Objekt oder null sein",
    "Unable to parse the multipart body": "der Multipart-Text ist nicht lesbar",
    "File(s) missing in form data": "im Formular fehlen Dateien",
}


def _reason_text(reason: str, lang: str) -> str:
    """Strawberry's reason (English) for the problem's detail, in ``lang``; a reason without a
    translation is left out of a German detail rather than mixed into it."""
    if lang != "de":
        return reason.rstrip(".")
    if reason in _REASONS_DE:
        return _REASONS_DE[reason]
    if reason.startswith('Unknown operation named "'):
        return "unbekannte Operation " + reason.removeprefix("Unknown operation named ").rstrip(".")
    return "sie ist so nicht verwendbar"


def graphql_app(svc: Service) -> GraphQL[dict[str, Any], None]:
    """The ASGI app serving ``/graphql`` for this service."""
    return _View(svc)


def sdl() -> str:
    """The schema's SDL, as committed in ``schema/schema.graphql``."""
    return schema.as_str() + "\n"


SDL_FILE = Path(__file__).resolve().parent.parent / "schema" / "schema.graphql"


def main() -> int:
    """Write (or with ``--check``, compare) ``schema/schema.graphql``."""
    if "--check" in sys.argv[1:]:
        same = SDL_FILE.exists() and SDL_FILE.read_text() == sdl()
        print("schema/schema.graphql is up to date" if same else "schema/schema.graphql drifted")
        return 0 if same else 1
    SDL_FILE.write_text(sdl())
    print(f"wrote {SDL_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
