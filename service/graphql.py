"""GraphQL at ``/graphql`` (strawberry): the REST operations as queries with typed results.

A refusal is a member of the result union (``Problem``, ``Illegal``), never a top-level
``errors`` entry. States and events travel as the ``JSON`` scalar (the wire format of
docs/wire-format.md); answers (verdicts, reasons, legal actions, scores) are typed. Every query goes
through the same validation, engine call and cache as REST. A valid ``legalActions`` document
seen before is answered by ``graphql_fast`` (the same bytes, without strawberry's per-field
execution); every other one by strawberry.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, cast

import msgspec
import orjson
import strawberry
from cross_web import HTTPException
from graphql import DocumentNode, GraphQLError, OperationDefinitionNode, Undefined, parse
from starlette.requests import Request as StarletteRequest
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.extensions import SchemaExtension
from strawberry.http import GraphQLRequestData
from strawberry.scalars import JSON
from strawberry.types import ExecutionResult

from canasta_referee.schema import canonical, text

from . import graphql_cost, graphql_fast
from .cache import Entry, Lookup

if TYPE_CHECKING:
    from starlette.requests import Request
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


_MORE = ("How many problems were found beyond those listed (the service lists at most "
         "MAX_PROBLEMS); 0 when `problems` lists them all.")


@strawberry.type(description="A request the referee cannot answer (the REST problem document).")
class Problem:
    type: str = strawberry.field(description="A URI naming the problem, one per code (an "
                                 "identifier, not a page to open).")
    title: str = strawberry.field(description="The code in words, in the request's language.")
    status: int
    code: str
    detail: str
    problems: list[FieldProblem]
    more: int = strawberry.field(description=_MORE)
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


@strawberry.type(description="Every problem found in a state (empty when valid), up to the "
                             "service's MAX_PROBLEMS.")
class Validation:
    valid: bool
    problems: list[FieldProblem]
    more: int = strawberry.field(description=_MORE)


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
    raw: strawberry.Private[bytes]  # the actions' JSON text, as the REST answer writes them

    @functools.cached_property
    def listed(self) -> list[Data]:
        """The actions as data, read once when a query selects them (193: about 70 µs)."""
        listed: list[Data] = orjson.loads(self.raw)
        return listed

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
    detail: JSON | None = strawberry.field(
        default=None, deprecation_reason="Never set (always null): the breakdown has no finer keys.")


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


@strawberry.type(description="One round of a game: the minimums faced, the deal's score, the "
                             "totals after it.")
class RoundScore:
    round: int
    minimums: list[int]
    sides: list[SideScore]
    scores: list[int]


@strawberry.type(description="A game so far: each round scored, the totals, whether and by whom "
                             "it is won.")
class Game:
    rounds: list[RoundScore]
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
GameResult = Annotated[Game | Problem, strawberry.union("GameResult")]
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


@strawberry.enum(description="How a player of the side went out (each variant scores some).")
class GoingOut(Enum):
    PLAIN = "plain"
    CONCEALED = "concealed"
    BLATT = "blatt"
    HAND = "hand"
    FIRST_TURN = "first_turn"


@strawberry.input(description=(
    "One side's counts (as POST /v1/score/tally): a field the variant does not score is left "
    "out (null); the counts it scores are 0 when left out."))
class TallySideInput:
    melded_points: int | None = None
    hand_points: int | None = strawberry.field(default=None, description="<= 0: -45 for 45.")
    went_out: GoingOut | None = None
    red_threes: int | None = None
    black_threes: int | None = None
    red_threes_in_hand: int | None = None
    natural_canastas: int | None = None
    mixed_canastas: int | None = None
    pure_sevens_canastas: int | None = None
    pure_aces_canastas: int | None = None
    wild_canastas: int | None = None
    seven_twos_canastas: int | None = None
    four_jokers_canastas: int | None = None
    real_canastas: int | None = None
    incomplete_pure_sevens_melds: int | None = None
    incomplete_pure_aces_melds: int | None = None
    incomplete_wild_melds: int | None = None
    incomplete_four_jokers_melds: int | None = None
    held_aces_groups: int | None = None
    held_sevens_groups: int | None = None


@strawberry.input(description="A deal's tally: per side its counts (a round of a game).")
class TallyDealInput:
    sides: list[TallySideInput]
    stock_exhausted: bool | None = None


@strawberry.input(description="A finished deal's tally to score (as POST /v1/score/tally).")
class TallyInput:
    variant: str = "classic"
    options: JSON | None = None
    scores: list[int] | None = strawberry.field(default=None, description=(
        "Each side's game score before the deal; null: all 0."))
    sides: list[TallySideInput] = strawberry.field(default_factory=list)
    stock_exhausted: bool | None = None


@strawberry.input(description="A round of a game: its tally, or its final state (JSON), not both.")
class RoundInput:
    tally: TallyDealInput | None = None
    state: JSON | None = None


@strawberry.input(description="A game so far (as POST /v1/game).")
class GameInput:
    variant: str = "classic"
    options: JSON | None = None
    rounds: list[RoundInput] = strawberry.field(default_factory=list)


def _tally_sides(sides: list[TallySideInput]) -> list[Data]:
    out = []
    for side in sides:
        item: Data = {}
        for name, value in vars(side).items():
            if value is not None:
                item[name] = value.value if isinstance(value, Enum) else value
        out.append(item)
    return out


def _tally_body(sides: list[TallySideInput], stock_exhausted: bool | None) -> Data:
    body: Data = {"sides": _tally_sides(sides)}
    if stock_exhausted is not None:
        body["stock_exhausted"] = stock_exhausted
    return body


def _ruleset(body: Data, variant: str, options: JSON | None) -> Data:
    body["variant"] = variant
    if options is not None:
        body["options"] = options
    return body


def _round(r: RoundInput) -> Data:
    out: Data = {}
    if r.tally is not None:
        out["tally"] = _tally_body(r.tally.sides, r.tally.stock_exhausted)
    if r.state is not None:
        out["state"] = r.state
    return out


# --- from answers to types ----------------------------------------------------------------------


def _problems(items: list[Data]) -> list[FieldProblem]:
    return [FieldProblem(code=p["code"], path=p["path"], message=p["message"]) for p in items]


def _reason(r: Data) -> Reason:
    return Reason(code=r["code"], message=r["message"], rule=r["rule"])


def _problem(d: Data) -> Problem:
    return Problem(type=d["type"], title=d["title"], status=d["status"], code=d["code"],
                   detail=d["detail"],
                   problems=_problems(d.get("problems", [])), more=d.get("more", 0),
                   reason=_reason(d["reason"]) if d.get("reason") else None,
                   index=d.get("index"))


def _overloaded(lang: str) -> Problem:
    """OVERLOADED (503) for an audit or a batch past ``MAX_BULK_IN_FLIGHT``: as REST refuses
    one, but as a member of the field's result union."""
    from .app import overloaded

    return _problem(orjson.loads(bytes(overloaded(lang).body)))


def _bulk_slot(info: strawberry.Info) -> bool:
    """One of the ``MAX_BULK_IN_FLIGHT`` slots for an audit or batch field, or False when all
    are taken. It is held until the whole answer is sent (``_View.__call__`` gives it back):
    the field's typed answer, parsed from up to ``MAX_BULK_ANSWER_BYTES`` of JSON (a 0.9 MB
    answer is 18 MiB of objects), lives until then."""
    if not info.context["svc"].bulk_slot():
        return False
    info.context["bulk_held"].append(1)
    return True


def _action(a: Data) -> Action:
    return Action(type=a["type"], seat=a.get("seat"), cards=a.get("cards"), card=a.get("card"),
                  rank=a.get("rank"), allow=a.get("allow"))


def _score(d: Data) -> Score:
    return Score(final=d["final"], sides=_side_scores(d["sides"]), scores=d["scores"],
                 game_over=d["game_over"], winner=d["winner"], next_minimums=d["next_minimums"])


def _side_scores(sides: list[Data]) -> list[SideScore]:
    return [SideScore(side=s["side"], seats=s["seats"], total=s["total"],
                      breakdown=Breakdown(**{k: s["breakdown"].get(k) for k in (
                          "melded_cards", "hand_cards", "canasta_bonus", "bonus_cards",
                          "going_out", "penalties", "total")}))
            for s in sides]


def _game(d: Data) -> Game:
    return Game(rounds=[RoundScore(round=r["round"], minimums=r["minimums"],
                                   sides=_side_scores(r["sides"]), scores=r["scores"])
                        for r in d["rounds"]],
                scores=d["scores"], game_over=d["game_over"], winner=d["winner"],
                next_minimums=d["next_minimums"])


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
    return await _answer(info.context, op, body)


async def _answer(context: dict[str, Any], op: str, body: object) -> tuple[int, Data]:
    """The REST answer (status, body) to ``body`` as a request of ``op``."""
    status, content = await _rendered(context, op, body)
    answer: Data = orjson.loads(content)
    return status, answer


def _unset(value: object) -> None:
    """A variable a JSON literal of the query holds and the request does not set: null, as
    GraphQL reads an unset variable in a list (spec, "Input Coercion"), so the REST reader says
    where it stands instead of the body being refused as a whole."""
    if value is Undefined:
        return None
    raise TypeError(type(value).__name__)


def _body_text(body: object) -> bytes | None:
    """A REST body made of GraphQL arguments, as JSON text; None where it is nested too deep to
    be written. orjson writes it, or, where it refuses an integer past 64 bits, the standard
    library (whose number the REST reader then refuses at its place)."""
    try:
        return orjson.dumps(body, default=_unset)
    except orjson.JSONEncodeError:  # nested past orjson's 254 levels, or a very big integer
        try:
            return json.dumps(body, default=_unset, ensure_ascii=False,
                              separators=(",", ":")).encode()
        except (RecursionError, ValueError):
            return None


async def _rendered(context: dict[str, Any], op: str, body: object) -> tuple[int, bytes]:
    """The REST answer to ``body`` as a request of ``op``: status and JSON text."""
    svc: Service = context["svc"]
    raw = _body_text(body)
    if raw is None:
        from canasta_referee.schema import handlers

        status, problem = handlers.too_deep(context["lang"])
        return status, orjson.dumps(problem)
    status, content, _ = await svc.answer(op, raw, context["lang"])
    return status, content


#: the head of a legal-actions answer as ``engine.api.legal_actions`` writes it: the seat (a
#: GraphQL Int written plainly) and the phase (lower-case letters), then the actions, last
_HEAD = re.compile(rb'\{"seat":(0|[1-9][0-9]{0,8}),"phase":("[a-z][a-z-]*"),"actions":\[')
#: the largest seat ``_HEAD`` reads (nine digits)
_SEAT_MAX = 999_999_999


def _parts(content: bytes) -> dict[str, bytes | memoryview] | None:
    """A legal-actions answer's seat, phase and actions as the JSON texts of the fields of
    ``LegalActions`` that read them, each as orjson writes the value (the actions' text as it
    is: 193 actions cost about 70 µs to read as data, only needed for the typed list); None
    when the answer is not written as ``engine.api.legal_actions`` writes it."""
    head = _HEAD.match(content)
    if head is None or not content.endswith(b"]}"):
        return None
    return {"seat": head[1], "phase": head[2],
            "actions": memoryview(content)[head.end() - 1:-1]}


async def _answered(context: dict[str, Any], state: JSON | graphql_cost.ReadState
                    ) -> tuple[int, bytes]:
    """The REST answer (status, JSON text) to legal-actions of ``state``."""
    if isinstance(state, graphql_cost.ReadState):  # the fast path read it (``_read_body``)
        svc: Service = context["svc"]
        answer = svc.prepare("legal-actions", state.body, context["lang"], state.data)
        status, content, _ = (await svc.looked_up(answer) if isinstance(answer, Lookup)
                              else answer)  # (``svc.answer``, one coroutine less)
        return status, content
    return await _rendered(context, "legal-actions", {"state": state})


async def _planned_answer(context: dict[str, Any], state: JSON | graphql_cost.ReadState
                         ) -> graphql_fast.Answered:
    """``_answered``, for a plan: where the service computes the answer here and it succeeds,
    the engine's answer, unrendered (``Service.legal_actions``)."""
    if not isinstance(state, graphql_cost.ReadState):
        return await _answered(context, state)
    answer = _answered_now(context, state)
    if isinstance(answer, Lookup):
        status, content, _ = await context["svc"].looked_up(answer)
        return status, content
    return answer


def _answered_now(context: dict[str, Any], state: graphql_cost.ReadState
                  ) -> graphql_fast.Answered | Lookup:
    """``_planned_answer`` of a state read already, as far as it is known without waiting:
    the answer, or the look-up that gives it (``Service.legal_actions``)."""
    answer = context["svc"].legal_actions(state.body, context["lang"], state.data)
    if isinstance(answer, dict):
        return 200, _Unrendered(answer)
    if isinstance(answer, Lookup):
        return answer
    return answer[0], answer[1]


#: a phase's text as ``_HEAD`` reads it, kept for the few phases the engine names
_PHASE = re.compile(r"[a-z][a-z-]*")
_PHASE_TEXTS: dict[str, bytes] = {}
_PHASES_KEPT = 64


def _phase_text(phase: object) -> bytes | None:
    """A phase's JSON text where ``_parts`` would read it from the REST answer, else None."""
    if type(phase) is not str:
        return None
    found = _PHASE_TEXTS.get(phase)
    if found is None and _PHASE.fullmatch(phase):
        found = b'"%b"' % phase.encode()
        if len(_PHASE_TEXTS) < _PHASES_KEPT:
            _PHASE_TEXTS[phase] = found
    return found


class _Unrendered:
    """A successful legal-actions answer as the engine gave it: ``seat``, ``phase`` and
    ``actions`` (``LegalActions``), written as the REST answer would be only where asked
    (``graphql_fast.Unrendered``)."""

    __slots__ = ("answer",)

    def __init__(self, answer: dict[str, Any]) -> None:
        self.answer = answer

    def part(self, name: str) -> bytes | None:
        """The part ``_parts`` would split the REST answer's text into (None where the seat or
        the phase is not one ``_HEAD`` reads: the answer is then written from its text)."""
        answer = self.answer
        if name == "actions":
            return text.actions_json(answer["actions"]).encode()
        seat, phase = answer["seat"], _phase_text(answer["phase"])
        if type(seat) is not int or not 0 <= seat <= _SEAT_MAX or phase is None:
            return None
        return b"%d" % seat if name == "seat" else phase if name == "phase" else None

    def listed(self, name: str, write: graphql_fast.ListWriter) -> bytes | None:
        return write(self.answer["actions"]) if name == "actions" else None

    def text(self) -> bytes:
        return orjson.dumps({**self.answer, "actions": text.fragment(self.answer["actions"])})


def _legal_actions_of(status: int, content: bytes) -> LegalActions | Problem:
    """What ``legalActions`` resolves to, made of its REST answer."""
    if status != 200:
        return _problem(orjson.loads(content))
    parts = _parts(content)
    if parts is None:
        d = orjson.loads(content)
        return LegalActions(seat=d["seat"], phase=d["phase"], raw=orjson.dumps(d["actions"]))
    return LegalActions(seat=int(parts["seat"]), phase=bytes(parts["phase"][1:-1]).decode(),
                        raw=bytes(parts["actions"]))


async def _legal_actions(context: dict[str, Any], state: JSON | graphql_cost.ReadState
                         ) -> LegalActions | Problem:
    return _legal_actions_of(*await _answered(context, state))


@strawberry.type
class Query:
    @strawberry.field(description="The rulesets the referee knows.")
    def variants(self) -> list[VariantSummary]:
        from canasta_referee.engine import api

        return [VariantSummary(**v) for v in api.variants()["variants"]]

    @strawberry.field(description="A ruleset's complete rule table.")
    def variant(self, info: strawberry.Info, id: str) -> VariantResult:
        from canasta_referee.schema import handlers

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
        return Validation(valid=d["valid"], problems=_problems(d["problems"]),
                          more=d.get("more", 0))

    @strawberry.field(description="The actions the seat to move may take now.")
    async def legal_actions(self, info: strawberry.Info, state: JSON) -> LegalActionsResult:
        return await _legal_actions(info.context, state)

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

    @strawberry.field(description="A finished deal's score from a score pad's counts per side, "
                                  "as score scores a state; an impossible tally is a Problem "
                                  "(INVALID_TALLY) with every problem and its path.")
    async def score_tally(self, info: strawberry.Info, input: TallyInput) -> ScoreResult:
        body = _ruleset(_tally_body(input.sides, input.stock_exhausted), input.variant,
                        input.options)
        if input.scores is not None:
            body["scores"] = input.scores
        status, d = await _ask(info, "score-tally", body)
        return _score(d) if status == 200 else _problem(d)

    @strawberry.field(description="A game log replayed deal by deal: whether every action was "
                                  "legal, each deal's final state, events and score, the game "
                                  "scores, and whether the scores the log records agree.")
    async def audit(self, info: strawberry.Info, log: JSON) -> AuditResult:
        if not _bulk_slot(info):
            return _overloaded(info.context["lang"])
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
        raw = _body_text({"operations": [{"op": o.op.value, "body": o.body}
                                         for o in operations]})
        if raw is None:
            from canasta_referee.schema import handlers

            return _problem(handlers.too_deep(lang)[1])
        if not _bulk_slot(info):
            return _overloaded(lang)
        answering = await svc.batch_answers(raw, lang)
        if isinstance(answering, tuple):
            return _problem(answering[1])
        refused = answering.refusal(lang)
        if refused is not None:
            return _problem(refused[1])
        # each body as the REST answer's text, written as it is (orjson): a batch's answer is
        # held as its bytes (at most MAX_BULK_ANSWER_BYTES), not read into objects (~20 times
        # its size)
        return Batch(results=[BatchAnswer(status=status, body=cast(JSON, orjson.Fragment(body)))
                              for status, body in answering.results])


    @strawberry.field(description="A game so far from its rounds (tallies or final states): "
                                  "running totals, minimums, game over and winner; a record "
                                  "that contradicts itself is a Problem (INVALID_LEDGER).")
    async def game(self, info: strawberry.Info, input: GameInput) -> GameResult:
        body = _ruleset({"rounds": [_round(r) for r in input.rounds]}, input.variant,
                        input.options)
        status, d = await _ask(info, "game", body)
        return _game(d) if status == 200 else _problem(d)


# --- cost: parsed, measured and validated once per document ----------------------------------

#: bytes a parsed and measured token holds in memory, at most (its token, syntax node, position
#: and measure: 430 to 620 measured, tracemalloc)
TOKEN_BYTES = 650
#: memory for parsed documents per process (strawberry's ParserCache bounds entries only: 512
#: documents of 4,000 tokens hold about 900 MB); a document of more than an eighth of it is
#: parsed anew each time
DOCUMENT_BYTES = 8 << 20
#: documents known to be valid (keys of 16 bytes)
VALID_KEYS = 4096


@dataclass
class _Parsed:
    """A query parsed and measured; ``key``: its tokens' digest (comments and spacing left out),
    the validation cache's key; ``size``: its estimated memory; ``plan``: its fast path, made
    once it is known valid (``planned``), None when the fast path does not cover it."""

    document: DocumentNode
    measured: graphql_cost.Measured
    key: bytes | None = None
    size: int = 0
    planned: bool = False
    plan: graphql_fast.Plan | None = None

    def fast(self) -> graphql_fast.Plan | None:
        """The fast path's plan, once the document passed validation (``_valid``)."""
        if self.key is None or self.key not in _valid:
            return None
        if not self.planned:
            self.plan = graphql_fast.plan(schema._schema, self.document, FAST_ROOTS,
                                          _FAST_RESOLVERS, FAST_DICT_TYPES, FAST_VARIABLE_TYPES,
                                          _FAST_TEXTS, PROJECT, _FAST_SPLIT, _FAST_PARTS,
                                          _FAST_TEMPLATES, _list_writers())
            self.planned = True
        return self.plan


class _Documents:
    """Parsed and measured documents by query text, least recently used first, bounded by their
    estimated memory. A document past a limit whatever its variables is not kept."""

    def __init__(self, limits: graphql_cost.Limits, max_tokens: int,
                 budget: int = DOCUMENT_BYTES) -> None:
        self.limits, self.max_tokens, self.budget = limits, max_tokens, budget
        self.entries: OrderedDict[str, _Parsed] = OrderedDict()
        self.size = 0

    def known(self, query: str) -> _Parsed | None:
        """The query's document if it is kept (parsed before), else None."""
        hit = self.entries.get(query)
        if hit is not None:
            self.entries.move_to_end(query)
        return hit

    def get(self, query: str) -> _Parsed:
        """The query parsed and measured; raises ``_Refused`` for a query past the token or
        the field limit found before parsing, and the parser's ``GraphQLError``."""
        hit = self.entries.get(query)
        if hit is not None:
            self.entries.move_to_end(query)
            return hit
        exceeded = graphql_cost.prescan(query, self.max_tokens, self.limits.fields)
        if exceeded:
            raise _Refused(exceeded)
        document = parse(query, max_tokens=self.max_tokens)
        measured = graphql_cost.measure(document, self.limits)
        if measured.static:
            return _Parsed(document, measured)
        text, tokens = graphql_cost.token_key(document)
        key = None if text is None else hashlib.blake2b(text.encode(), digest_size=16).digest()
        parsed = _Parsed(document, measured, key, len(query) + TOKEN_BYTES * tokens)
        if parsed.size <= self.budget // 8:
            self.entries[query] = parsed
            self.size += parsed.size
            while self.size > self.budget:
                _, old = self.entries.popitem(last=False)
                self.size -= old.size
        return parsed


#: digests of documents that passed validation (the schema and the rules are the process's);
#: only passes are kept, as errors carry the positions of the document they were found in
_valid: OrderedDict[bytes, None] = OrderedDict()


class _Prepared(SchemaExtension):
    """Parsing and validation as ``_View`` prepared them: the document it parsed and measured
    (``context["parsed"]``), validated once per token digest, or the syntax error it found
    (``context["syntax_error"]``). Without either, strawberry parses (with the token limit) and
    validates."""

    def _parsed(self) -> _Parsed | None:
        context = self.execution_context.context
        parsed = context.get("parsed") if isinstance(context, dict) else None
        return parsed if isinstance(parsed, _Parsed) else None

    def on_operation(self) -> Iterator[None]:
        context = self.execution_context.context
        if isinstance(context, dict) and "svc" in context:
            max_tokens = context["svc"].settings.graphql_max_tokens
            self.execution_context.parse_options["max_tokens"] = max_tokens
        yield

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context.context
        error = context.get("syntax_error") if isinstance(context, dict) else None
        if isinstance(error, GraphQLError):
            raise error  # strawberry answers it as its own parser's error, without parsing again
        parsed = self._parsed()
        if parsed is not None:
            self.execution_context.graphql_document = parsed.document
        yield

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        parsed = self._parsed()
        key = parsed.key if parsed is not None and ctx.graphql_document is parsed.document else None
        if key is not None and key in _valid and ctx.pre_execution_errors is None:
            _valid.move_to_end(key)
            ctx.pre_execution_errors = []  # strawberry validates only while this is None
        yield
        if key is not None and ctx.pre_execution_errors == [] and key not in _valid:
            _valid[key] = None
            if len(_valid) > VALID_KEYS:
                _valid.popitem(last=False)


schema = strawberry.Schema(query=Query, extensions=[_Prepared])

#: the root fields the fast path answers (``graphql_fast``), and how it calls them
FAST_ROOTS = frozenset({"legalActions"})
#: the fields with a resolver it reads, the same values read directly; ``actionsJson``
#: as the REST answer's text (orjson writes it as it is: the same bytes as the list read and
#: written again)
_FAST_RESOLVERS: dict[tuple[str, str], graphql_fast.Get] = {
    ("LegalActions", "actions"): lambda source: source.listed,
    ("LegalActions", "actionsJson"): lambda source: orjson.Fragment(source.raw),
}
#: types it reads from the REST answer's dicts (``LegalActions.actions`` lists dicts)
FAST_DICT_TYPES = frozenset({"Action"})
#: the lists of such dicts it can take as the REST answer's text instead: where the native
#: projector is installed (``PROJECT``, schema/_project.c), a typed list is written from that
#: text straight away (193 actions: about 10 µs, against 0.2-0.36 ms read into dicts and completed)
_FAST_TEXTS: dict[tuple[str, str], graphql_fast.Get] = {
    ("LegalActions", "actions"): lambda source: source.raw,
}
PROJECT = text.project
#: the kinds of action the REST answer's list mostly holds (melds and discards): the projector
#: writes these from the texts it would write for each kind (``graphql_fast.typed_templates``),
#: about 400 instructions less an action (193 actions: 11 against 4.7 µs)
_FAST_TEMPLATES = {"Action": text.ACTION_TEMPLATES}
#: schema/_text.c's legal-action lists' writer (``text.typed_writer``), None where not built
ACTIONS_TEXT = text.native_actions


def _list_writers() -> dict[str, graphql_fast.MakeListWriter]:
    """Typed lists of actions written straight from the engine's ``LegalActions`` by the
    native writer given the selection's typed texts (``text.typed_writer``) instead of their
    REST text written and projected (a 193-action typed query on the server: 655.9k → 579.1k
    instructions with the bytes written at once; docs/performance.md)."""
    native = ACTIONS_TEXT
    if native is None:
        return {}
    return {"Action": functools.partial(text.typed_writer, native=native)}


#: a successful legal-actions answer is ``LegalActions``, written from the REST answer's parts
#: (``_parts``) where the selection reads nothing else: the fields that read each part
_FAST_SPLIT: dict[str, tuple[str, graphql_fast.Split]] = {
    "legalActions": ("LegalActions", _parts)}
_FAST_PARTS = {("LegalActions", "seat"): "seat", ("LegalActions", "phase"): "phase",
               ("LegalActions", "actionsJson"): "actions", ("LegalActions", "actions"): "actions"}
#: the variables' types it takes (JSON: any value, as it is)
FAST_VARIABLE_TYPES = frozenset({"JSON"})


class _Variables(msgspec.Struct):
    """What ``_read_body`` reads of a GraphQL body first: its variables' JSON texts."""

    variables: dict[str, msgspec.Raw] | None = None


_VARIABLES = msgspec.json.Decoder(_Variables)
#: the shortest variable text ``_read_body`` searches for and reads apart in a body off the
#: usual layout (a state is longer; a short one costs little either way)
READ_APART = 256
#: the longest body it reads so (a six-player state's is under 2 KB), and the most variables it
#: reads apart in one: each is searched for in the body, so any more are read as before (a body
#: of many long variables costs no more than orjson's reading)
READ_APART_BODY = 65_536
READ_APART_STATES = 4


def _place(raw: bytes, text: bytes) -> int:
    """Where ``text`` stands in ``raw`` when it stands there once, else -1 (more than once, or
    its first bytes stand in more than 8 places). The first bytes are searched for and the
    rest compared where they are: a search for a whole state's text costs several times more."""
    head, place = text[:64], -1
    at = raw.find(head)
    for _ in range(8):
        if at < 0:
            return place
        if raw.startswith(text, at):
            if place >= 0:
                return -1
            place = at
        at = raw.find(head, at + 1)
    return -1


def _read_state(text: bytes) -> graphql_cost.ReadState | None:
    """A variable's JSON text read as a legal-actions request's state by the REST reader, where
    it is one in canonical form (ASCII, and the reader takes it: exactly one object); else
    None. A text holding ``"state"`` is not read: no state has such a key or value, and where
    the text the usual layout split out is a state and a variable more named so, the REST
    request it makes would hold two states, the later one read."""
    if not text.isascii() or b'"state"' in text:
        return None
    rest = b'{"state":' + text + b"}"
    data = canonical.engine_request("legal-actions", rest)
    return None if data is None else graphql_cost.ReadState(rest, data)


#: a JSON string, as it is written: what stands between two '"'. Where a string holds an
#: escaped '"' this ends it early, and what follows it here ('"' and a key, or the body's end)
#: cannot follow inside a string (it would be unescaped): a valid body is then not matched, an
#: invalid one is refused by orjson inside the text matched (the same in the whole and the rest)
_STRING = rb'"[^"]*"'
_MEMBER = rb'"(?:query|operationName)":(?:null|' + _STRING + rb")"
#: the body up to its variables' first value, and from that value's end (the variables' '}')
_USUAL_HEAD = re.compile(rb"\{(?:" + _MEMBER + rb',)*"variables":\{"([_A-Za-z][_0-9A-Za-z]*)":')
_USUAL_TAIL = re.compile(rb"\}(?:," + _MEMBER + rb")*\}")


def _read_usual(raw: bytes) -> Any:
    """``_read_body``'s answer for the body clients mostly send, or None: written compact,
    ``{"query": ..., "variables": {"s": STATE}}``, the operation's name before or after, the
    variables before or after the query, the state the only variable. Such a body is split by
    its layout instead of read by msgspec and searched for the state's text: the head and the
    tail are matched by patterns, the state's text between them is read by the REST reader
    (which takes exactly one object), the rest by orjson with null in its place. Where the text
    is one object and orjson reads the rest, the whole is the JSON the patterns lay out, the
    state the variable's one value; anything else is None (read as before)."""
    head = _USUAL_HEAD.match(raw)
    stop = None if head is None else _usual_stop(raw, head.end())
    if head is None or stop is None:
        return None
    state = _read_state(raw[head.end():stop])
    if state is None:
        return None
    body = orjson.loads(raw[:head.end()] + b"null" + raw[stop:])  # refused where the whole is
    body["variables"][head.group(1).decode()] = state
    return body


def _usual_stop(raw: bytes, start: int) -> int | None:
    """Where the usual body's variable's text ends (``_read_usual``), its head ending at
    ``start``; None where the tail is not the usual layout's."""
    if raw.endswith(b"}}"):  # the variables last (a string or null member would end '"}', 'l}')
        return len(raw) - 2
    stop = raw.rfind(b'},"', start)  # a '},"' cannot stand in a JSON string: the last one
    if stop < 0 or _USUAL_TAIL.fullmatch(raw, stop) is None:  # ends the variables
        return None
    return stop


class _Lane(NamedTuple):
    """A usual body's head and tail (``_read_usual``) seen before, and what they read as:
    a body of that head, that tail, and between them a state ``_read_state`` reads, is
    the same request with another state, so it is answered without reading the rest again
    (``_View._planned``)."""

    tail: bytes
    variable: str
    query: str
    parsed: _Parsed  # (only while the documents kept hold it: their budget bounds the lanes')
    operation_name: object
    #: the plan's one root field where it is ``legalActions`` of that variable (else None: the
    #: plan writes the answer)
    root: graphql_fast.Root | None


#: the lanes a process keeps (the first made go first), and the longest head and tail kept
LANES_KEPT = 64
LANE_BYTES = 4096


def _read_body(raw: bytes) -> Any:
    """``orjson.loads(raw)``, raising as it does, except that each variable whose value is a
    state in canonical form (ASCII, taken by ``canonical.engine_request`` as a legal-actions
    request) is a ``graphql_cost.ReadState``: read once, into the engine's data, instead of
    into dicts that ``_rendered`` writes again as the REST body, which is read a second time
    (about 55k instructions for a six-player state; docs/performance.md). Such a reader takes
    less than orjson does (no other fields, plain integers, a few levels deep) and reads what
    it takes as orjson would, so the answer is the same. The usual body is split by its layout
    (``_read_usual``); in any other, msgspec finds each variable's text, which must stand once,
    and only once, in the body (else the whole is read as before). The rest of the body is read
    by orjson with each such text replaced by null, so orjson still refuses what it refused, and
    takes the last of equal keys as msgspec does."""
    if len(raw) > READ_APART_BODY:
        return orjson.loads(raw)
    usual = _read_usual(raw)
    if usual is not None:
        return usual
    try:
        variables = _VARIABLES.decode(raw).variables
    except (msgspec.DecodeError, RecursionError):  # not an object, variables not one, or nested
        variables = None  # past msgspec's depth: orjson says what it is
    read: dict[str, graphql_cost.ReadState] = {}
    spans: list[tuple[int, int]] = []
    tried = 0
    for name, value in (variables or {}).items():
        text = bytes(value)
        if len(text) < READ_APART or text[:1] != b"{" or not text.isascii():
            continue
        tried += 1
        if tried > READ_APART_STATES:
            return orjson.loads(raw)
        at = _place(raw, text)
        if at < 0:  # the same text in more places: which one is the value's?
            return orjson.loads(raw)
        state = _read_state(text)
        if state is not None:
            read[name] = state
            spans.append((at, at + len(text)))
    if not read:
        return orjson.loads(raw)
    pieces: list[bytes] = []
    last = 0
    for start, end in sorted(spans):
        pieces += (raw[last:start], b"null")
        last = end
    pieces.append(raw[last:])
    body = orjson.loads(b"".join(pieces))
    held = body.get("variables") if isinstance(body, dict) else None
    if not isinstance(held, dict) or any(held.get(name, 0) is not None for name in read):
        return orjson.loads(raw)  # not the texts msgspec read: read the whole as before
    held.update(read)
    return body


def _fast_value(name: str, answered: tuple[int, bytes]) -> object:
    """What a root field of ``FAST_ROOTS`` resolves to, made of its REST answer."""
    if name == "legalActions":
        return _legal_actions_of(*answered)
    raise graphql_fast.Unsupported(name)


async def _answer_root(context: dict[str, Any], name: str, args: dict[str, Any]
                       ) -> graphql_fast.Answered:
    """A planned root field's REST answer (``graphql_fast.AnswerRoot``)."""
    if name == "legalActions":
        return await _planned_answer(context, args["state"])
    raise graphql_fast.Unsupported(name)


def _laned(root: graphql_fast.Root, answered: graphql_fast.Answered) -> bytes | None:
    """``_planned``'s answer where the plan's one root field is ``legalActions`` (``_Lane.root``)
    answered so: the same text, written without the plan's loop over its roots."""
    out: list[bytes | memoryview] = [b'{"data":{', root.prefix]
    try:
        graphql_fast.Plan.written(root, answered, _fast_value, out)
    except graphql_fast.Unsupported:
        return None
    out.append(b"}}")
    return b"".join(out)


async def _planned(parsed: _Parsed, variables: dict[str, Any] | None, operation_name: object,
                   context: dict[str, Any]) -> bytes | None:
    """The answer (JSON text) to a valid document the fast path covers, by its plan; None:
    strawberry answers it."""
    plan = parsed.fast()
    if plan is None or operation_name not in (None, plan.name):
        return None
    try:
        return await plan.write(variables, _answer_root, _fast_value, context)
    except graphql_fast.Unsupported:
        return None


#: the limits' problems: code -> setting, English, German ({found}, {limit}, {schema}, {bulk});
#: where a count stopped at the limit (``Exceeded.at_least``), the second English and German
_LIMITS: dict[str, tuple[str, str, str, str, str]] = {
    "TOO_MANY_TOKENS": ("GRAPHQL_MAX_TOKENS", "", "", "more than {limit} tokens",
                        "mehr als {limit} Tokens"),
    "TOO_DEEP": ("GRAPHQL_MAX_DEPTH", "fields nested {found} deep, at most {limit}",
                 "Felder {found} Ebenen tief verschachtelt, höchstens {limit}",
                 "fields and fragments nested more than {found} deep, fields at most {limit}",
                 "Felder und Fragmente mehr als {found} Ebenen tief verschachtelt, Felder "
                 "höchstens {limit}"),
    "TOO_MANY_FIELDS": ("GRAPHQL_MAX_FIELDS",
                        "{found} field selections (fragments written out), at most {limit}",
                        "{found} Feldauswahlen (Fragmente ausgeschrieben), höchstens {limit}",
                        "more than {limit} field selections",
                        "mehr als {limit} Feldauswahlen"),
    "TOO_MANY_REPEATED_FIELDS": (
        "GRAPHQL_MAX_REPEATED_FIELDS",
        "{found} field selections repeat a name selected beside them, at most {limit}",
        "{found} Feldauswahlen wiederholen einen Namen daneben, höchstens {limit}", "", ""),
    "TOO_MANY_ALIASES": ("GRAPHQL_MAX_ALIASES", "{found} aliases, at most {limit}",
                         "{found} Aliasse, höchstens {limit}", "", ""),
    "TOO_COSTLY": ("GRAPHQL_MAX_COST",
                   "an estimated cost of {found} (per `legalActions`, `check` and `apply`: 1 + "
                   "the cards in the hand to move + a quarter of the actions given; per "
                   "`__schema`: {schema}; per `batch` and `audit`: {bulk}), at most {limit}",
                   "geschätzte Kosten {found} (je `legalActions`, `check` und `apply`: 1 + die "
                   "Karten der Hand am Zug + ein Viertel der übergebenen Aktionen; je "
                   "`__schema`: {schema}; je `batch` und `audit`: {bulk}), höchstens {limit}", "",
                   ""),
}


class _Refused(Exception):
    """A query past the limits, refused before validation: 400 ``QUERY_TOO_COMPLEX``."""

    def __init__(self, exceeded: list[graphql_cost.Exceeded]) -> None:
        super().__init__(exceeded)
        self.exceeded = exceeded

    def response(self, lang: str) -> Response:
        from canasta_referee.schema import handlers

        from .app import _json

        de = lang == "de"
        problems = []
        for e in self.exceeded:
            setting, en_text, de_text, en_more, de_more = _LIMITS[e.code]
            if e.at_least:
                en_text, de_text = en_more, de_more
            text = (de_text if de else en_text).format(found=e.found, limit=e.limit,
                                                       schema=graphql_cost.SCHEMA_COST,
                                                       bulk=graphql_cost.BULK_COST)
            problems.append({"code": e.code, "path": "/query",
                             "message": f"{text[0].upper()}{text[1:]} ({setting})."})
        first = problems[0]["message"]
        detail = (f"Die Abfrage ist zu aufwendig: {first[0].lower()}{first[1:]}" if de
                  else f"The query is too complex: {first[0].lower()}{first[1:]}")
        status, body = handlers.problem(400, "QUERY_TOO_COMPLEX", detail, lang,
                                        problems=problems)
        return _json(body, status, lang)


#: where ``_View.__call__`` leaves the request's language for ``get_context``
LANG_KEY = "canasta.lang"
#: the scope key of the bulk slots a GraphQL request holds until its answer is sent
BULK_HELD = "canasta.bulk_held"
JSON_MEDIA = "application/json"


class _View(GraphQL[dict[str, Any], None]):
    """Strawberry's ASGI view with our context (service, language) and orjson encoding."""

    def __init__(self, svc: Service) -> None:
        super().__init__(schema, graphql_ide="graphiql" if svc.settings.graphql_ide else None)
        self.svc = svc
        s = svc.settings
        self.documents = _Documents(graphql_cost.Limits(
            depth=s.graphql_max_depth, fields=s.graphql_max_fields,
            repeated=s.graphql_max_repeated_fields, aliases=s.graphql_max_aliases,
            cost=s.graphql_max_cost), s.graphql_max_tokens)
        #: usual bodies' heads seen before, and how the rest reads (``_Lane``)
        self.lanes: dict[bytes, _Lane] = {}
        #: planned answers cached in process (``planned``): while legal-actions' are
        self.cached = (s.cache_size > 0 and s.cache_max_bytes > 0
                       and "legal-actions" in s.cache_ops)

    async def execute_single(self, request: StarletteRequest, request_adapter: Any,
                             sub_response: Any, context: dict[str, Any], root_value: None,
                             request_data: GraphQLRequestData) -> ExecutionResult:
        """Strawberry's execution, after the document is parsed and measured: past a limit
        (``GRAPHQL_MAX_*``) it is refused, before it is validated or any resolver runs. A
        valid document the fast path covers (``graphql_fast``) is answered by its plan."""
        query = request_data.query
        if isinstance(query, str) and query:
            try:
                parsed = self.documents.get(query)
            except GraphQLError as exc:
                if exc.message.startswith("Syntax Error: Document contains more than"):
                    limit = self.documents.max_tokens
                    raise _Refused([graphql_cost.Exceeded("TOO_MANY_TOKENS", limit + 1, limit,
                                                          at_least=True)]) from None
                context["syntax_error"] = exc  # any other: strawberry reports it
            else:
                exceeded = parsed.measured.exceeded(request_data.variables)
                if exceeded:
                    raise _Refused(exceeded)
                if request_data.operation_name is None and sum(
                        isinstance(d, OperationDefinitionNode)
                        for d in parsed.document.definitions) > 1:
                    # the spec's "GetOperation": strawberry would run the first one
                    return ExecutionResult(data=None, errors=[GraphQLError(
                        "Must provide operation name if query contains multiple operations.")])
                if request.method == "POST":
                    answer = await _planned(parsed, request_data.variables,
                                            request_data.operation_name, context)
                    if answer is not None:  # (a request the one-pass route left to strawberry)
                        return ExecutionResult(data=orjson.loads(answer)["data"], errors=None)
                context["parsed"] = parsed
        return await super().execute_single(
            request=request, request_adapter=request_adapter, sub_response=sub_response,
            context=context, root_value=root_value, request_data=request_data)

    async def render_graphql_ide(self, request: StarletteRequest) -> Response:
        """GraphiQL from this process's own files (``service.ui``), not strawberry's CDN page."""
        from . import ui

        return ui.page(ui.graphiql_html())

    async def get_context(self, request: Request | WebSocket,
                          response: Response | WebSocket) -> dict[str, Any]:
        from .app import language

        lang = request.scope.get(LANG_KEY)  # __call__ read the header already
        if not isinstance(lang, str):
            lang = language(request.headers.get("accept-language"))
        return {"svc": self.svc, "lang": lang, "bulk_held": request.scope[BULK_HELD]}

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)

    async def parse_http_body(self, request: Any) -> Any:
        """Strawberry's, after refusing a JSON body that is neither an object nor an array
        (a string, a number, true, false or null, which strawberry would look up a query in
        and fail on with an error of its own: a 500)."""
        if request.method == "POST" and "application/json" in (request.content_type or ""):
            first = (await request.get_body()).lstrip(b" \t\r\n")[:1]
            if first not in (b"{", b"["):
                raise HTTPException(400, NOT_AN_OBJECT)
        return await super().parse_http_body(request)

    def decode_json(self, data: str | bytes) -> object:
        # orjson's JSONDecodeError is json's: strawberry still answers 400 to a body that is
        # not JSON; nesting over 1,024 levels is refused too instead of recursing
        return orjson.loads(data)

    async def planned(self, raw: bytes, lang: str) -> bytes | None:
        """(``service.app.Referee`` asks, before Starlette and the middleware, for every plain
        JSON POST: strawberry's HTTP handling costs about 0.1 ms a request.) The answer (JSON
        text) to a plain JSON POST's body, if its document was parsed
        before, is valid, and is covered by the fast path; else None. While ``legal-actions``
        is cached in process, so are these answers, under the body's exact bytes: a planned
        document's answer follows from its body and language alone (``legalActions`` is a
        function of the state), so the same body is answered without being read."""
        svc = self.svc
        key = svc.local_key("graphql", lang, raw) if self.cached else None
        if key is not None:
            seen = svc.cache.local.get(key)
            if seen is not None:
                svc.metrics.cache_hits.inc("graphql", "local")
                return seen.body
        answer = await self._planned(raw, lang)
        if key is not None and answer is not None:
            svc.cache.store("graphql", key, Entry.of(200, answer), sized=True)  # (a join's)
        return answer

    async def _planned(self, raw: bytes, lang: str) -> bytes | None:
        context = {"svc": self.svc, "lang": lang}
        head = _USUAL_HEAD.match(raw) if len(raw) <= READ_APART_BODY else None
        start = 0 if head is None else head.end()
        lane = None if head is None else self.lanes.get(raw[:start])
        if lane is not None and self.documents.known(lane.query) is not lane.parsed:
            del self.lanes[raw[:start]]  # its document is no longer kept: read as before
            lane = None
        if lane is not None and raw.endswith(lane.tail):
            state = _read_state(raw[start:len(raw) - len(lane.tail)])
            if state is not None:
                laned = {lane.variable: state}
                if lane.parsed.measured.exceeded(laned):
                    return None
                if lane.root is None:
                    return await _planned(lane.parsed, laned, lane.operation_name, context)
                try:  # (strawberry reports what raises as graphql-core does)
                    answered = _answered_now(context, state)
                    if isinstance(answered, Lookup):
                        status, content, _ = await self.svc.looked_up(answered)
                        answered = status, content
                except Exception:
                    return None
                return _laned(lane.root, answered)
        try:
            body = _read_body(raw)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(body, dict):  # a batch: strawberry refuses it
            return None
        query, variables = body.get("query"), body.get("variables")
        if (not isinstance(query, str) or not isinstance(variables, _OBJECT_OR_NULL)
                or not isinstance(body.get("extensions"), _OBJECT_OR_NULL)):
            return None
        parsed = self.documents.known(query)
        if parsed is None or parsed.measured.exceeded(variables):
            return None
        answer = await _planned(parsed, variables, body.get("operationName"), context)
        if answer is not None and head is not None and lane is None:
            self._add_lane(raw, head, query, parsed, body)
        return answer

    def _add_lane(self, raw: bytes, head: re.Match[bytes], query: str, parsed: _Parsed,
                  body: dict[str, Any]) -> None:
        """Keep the lane of a usual body (``_Lane``) that ``_read_usual`` read and its plan
        answered."""
        start, stop = head.end(), _usual_stop(raw, head.end())
        variables, name = body["variables"], head.group(1).decode()
        if (stop is None or start > LANE_BYTES or len(raw) - stop > LANE_BYTES
                or len(variables) != 1
                or not isinstance(variables.get(name), graphql_cost.ReadState)):
            return
        if len(self.lanes) >= LANES_KEPT:
            del self.lanes[next(iter(self.lanes))]
        root = None if parsed.plan is None else parsed.plan.one_root()
        if root is not None and (root.name != "legalActions"
                                 or root.variables != (("state", name),)):
            root = None
        self.lanes[raw[:start]] = _Lane(raw[stop:], name, query, parsed,
                                        body.get("operationName"), root)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Strawberry's HTTP handling, with its transport errors (no query, bad JSON, wrong
        content type) as problem documents instead of plain text."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        from .app import LANG_HEADERS, language, status_problem

        request = StarletteRequest(scope=scope, receive=receive)
        lang = language(request.headers.get("accept-language"))
        scope[LANG_KEY] = lang
        held: list[int] = []  # the bulk slots its audit and batch fields took (``_bulk_slot``)
        scope[BULK_HELD] = held
        try:
            try:
                response = await self.run(request)
            except HTTPException as exc:
                response = status_problem(exc.status_code, lang,
                                          reason=_reason_text(exc.reason, lang))
            except _Refused as refused:
                response = refused.response(lang)
            else:
                if response.media_type == "application/json":  # not the GraphiQL page
                    response.raw_headers.extend(LANG_HEADERS[lang])
            await response(scope, receive, send)
        finally:
            self.svc.bulk -= len(held)


#: a JSON object or null, as ``isinstance`` takes it (``dict | None`` would make a union a call)
_OBJECT_OR_NULL = (dict, type(None))

#: the reason of a JSON body that is not an object (nor a batch)
NOT_AN_OBJECT = "The request body must be a JSON object"

#: strawberry's reasons (and ours) for refusing a request as GraphQL, in German
_REASONS_DE = {
    NOT_AN_OBJECT: "der Anfragetext muss ein JSON-Objekt sein",
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
