"""Each operation from a raw request body to (status, answer): pydantic checks the shape, the
engine answers. Shared by the command line and the HTTP service."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from canasta_referee.engine import api, audit
from canasta_referee.engine.legal import LegalActions
from canasta_referee.engine.rules import RuleSet
from canasta_referee.engine.state import State

from . import canonical, messages, models

Answer = tuple[int, dict[str, Any]]

REQUESTS: dict[str, type[BaseModel] | None] = {
    "variants": None,
    "variant": None,
    "deal": models.DealRequest,
    "validate": models.StateRequest,
    "legal-actions": models.StateRequest,
    "check": models.ActionsRequest,
    "apply": models.ActionsRequest,
    "score": models.StateRequest,
    "score-tally": models.TallyRequest,
    "game": models.GameRequest,
    "audit": models.AuditRequest,
    "view": models.ViewRequest,
    "batch": models.BatchRequest,
}



@dataclass(frozen=True)
class Limits:
    """How much one answer may list (the service's ``MAX_PROBLEMS`` and ``MAX_LEGAL_ACTIONS``;
    None: everything, as the command line answers), and the most actions and batch operations
    a request may hold (``MAX_ACTIONS``, ``MAX_BATCH``: what a refusal names)."""

    problems: int | None = None
    legal_actions: int | None = None
    actions: int = 200
    operations: int = models.MAX_BATCH


UNLIMITED = Limits()

_OPS: dict[str, Callable[[dict[str, Any], str], dict[str, Any]]] = {
    "deal": api.deal, "score-tally": api.score_tally, "game": api.game,
    "audit": audit.audit}
_STATE_OPS: dict[str, Callable[[dict[str, Any], str, RuleSet | None, int | None],
                               dict[str, Any]]] = {
    "validate": api.validate,
    "check": api.check,
    "apply": api.apply,
    "score": api.score,
    "view": api.view,
}

_TITLES = {
    "MALFORMED_REQUEST": ("The request is malformed.", "Die Anfrage ist fehlerhaft."),
}


#: the longest path a problem names (the OpenAPI document's bound on ``path``); a segment
#: longer than ``SEGMENT`` (only a client's own over-long key can be) is cut to its start and
#: "...", so the path still says where the problem is
MAX_PATH, SEGMENT = 256, 64


def pointer(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a JSON pointer (RFC 6901), at most ``MAX_PATH`` long."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in loc]
    parts = [p if len(p) <= SEGMENT else p[:SEGMENT - 3] + "..." for p in parts]
    path = "".join("/" + p for p in parts)
    return path if len(path) <= MAX_PATH else path[:MAX_PATH - 3] + "..."


def _field_code(error_type: str) -> str:
    return {"card_code": "BAD_CARD_CODE", "rank": "BAD_RANK", "json_invalid": "BAD_JSON",
            "missing": "MISSING_FIELD", "extra_forbidden": "UNKNOWN_FIELD"}.get(
        error_type, "BAD_VALUE")


def problem(status: int, code: str, detail: str, lang: str = "en", **extra: Any) -> Answer:
    """An RFC 9457 problem document (its title and ``detail`` in ``lang``)."""
    body: dict[str, Any] = {"type": f"https://canasta-referee.dev/problems/{code.lower()}",
                            "title": messages.title(code, lang), "status": status,
                            "code": code, "detail": detail}
    body.update(extra)
    return status, body


def malformed(exc: ValidationError, lang: str, limit: int | None = None,
              dropped: int = 0) -> Answer:
    """MALFORMED_REQUEST with the first ``limit`` errors (all with None), and ``more``: how
    many are left out, when some are (``dropped``: errors the validation counted without
    keeping them, ``models.ErrorBudget``)."""
    errors = exc.errors(include_url=False)
    shown = errors if limit is None else errors[:max(limit, 1)]
    problems = [{"code": _field_code(e["type"]), "path": pointer(tuple(e["loc"])),
                 "message": messages.field_message(e, lang)} for e in shown]
    en, de = _TITLES["MALFORMED_REQUEST"]
    extra: dict[str, Any] = {"problems": problems}
    if len(errors) - len(shown) + dropped:
        extra["more"] = len(errors) - len(shown) + dropped
    return problem(422, "MALFORMED_REQUEST", de if lang == "de" else en, lang, **extra)


def parse(op: str, body: bytes | str | None, lang: str = "en",
          limits: Limits = UNLIMITED) -> BaseModel | Answer:
    """The request model of a body operation, or the 422 problem of a malformed body."""
    model = REQUESTS[op]
    assert model is not None
    budget = models.ErrorBudget(limits.problems) if limits.problems is not None else None
    try:
        return model.model_validate_json(body or b"", context=budget)
    except ValidationError as exc:
        too_long = {tuple(e["loc"]) for e in exc.errors(include_url=False, include_input=False,
                                                        include_context=False)
                    if e["type"] == "too_long"}
        if ("actions",) in too_long:
            return too_many_actions(lang, limits.actions)
        if ("operations",) in too_long:
            return too_many_operations(lang, limits.operations)
        return malformed(exc, lang, limits.problems, budget.dropped if budget else 0)


def request_data(op: str, body: bytes | str | None, lang: str = "en",
                 limits: Limits = UNLIMITED) -> dict[str, Any] | Answer:
    """The request of a body operation as plain data, or the 422 problem of a malformed body.

    A body already in canonical form is taken as decoded (``schema.canonical``); any other goes
    through the pydantic model, whose dump is its canonical form. Either way every key comes in
    the models' field order and every default is filled in; a state's options stay in the
    sender's order (``canonical_bytes`` sorts them). Read by the native reader, each list of
    cards comes as a tuple of the engine's card numbers (``canonical.engine_request``)."""
    data = canonical.engine_request(op, body)
    if data is None:
        request = parse(op, body, lang, limits)
        if isinstance(request, tuple):
            return request
        data = request.model_dump(mode="json")
    return data


def canonical_bytes(data: dict[str, Any]) -> bytes:
    """A request from ``request_data`` as canonical JSON: its keys as they come, a state's
    options sorted by name (the one map whose order is the sender's). Equal requests, however
    written, give equal bytes: the Redis key hashes them. ``data`` is not changed."""
    data = canonical.with_codes(data)
    state = data.get("state")
    if state is not None and len(state["options"]) > 1:
        data = {**data, "state": {**state, "options": dict(sorted(state["options"].items()))}}
    return orjson.dumps(data)


def too_deep(lang: str) -> Answer:
    """The 422 problem of a request nested deeper than it can be written as JSON (GraphQL
    passes JSON variables on as a REST body)."""
    detail = ("Die Anfrage ist zu tief verschachtelt." if lang == "de"
              else "The request is nested too deeply.")
    return problem(422, "MALFORMED_REQUEST", detail, lang,
                   problems=[{"code": "BAD_VALUE", "path": "", "message": detail}])


def too_many_actions(lang: str, limit: int = 200, path: str = "/actions") -> Answer:
    """The 422 problem of a request with more actions than allowed (``path``: where they are;
    an audit's are in ``/deals``)."""
    detail = (f"Höchstens {limit} Aktionen pro Anfrage." if lang == "de"
              else f"At most {limit} actions per request.")
    return problem(422, "TOO_MANY_ACTIONS", detail, lang,
                   problems=[{"code": "TOO_MANY_ACTIONS", "path": path, "message": detail}])


def too_many_operations(lang: str, limit: int = models.MAX_BATCH) -> Answer:
    """The 422 problem of a batch with more operations than allowed."""
    detail = (f"Höchstens {limit} Operationen pro Anfrage." if lang == "de"
              else f"At most {limit} operations per request.")
    return problem(422, "TOO_MANY_OPERATIONS", detail, lang,
                   problems=[{"code": "TOO_MANY_OPERATIONS", "path": "/operations",
                              "message": detail}])


def answer_too_large(lang: str, limit: int, path: str = "") -> Answer:
    """The 422 problem of an audit or a batch whose answer would be larger than ``limit``
    bytes (``MAX_BULK_ANSWER_BYTES``); ``path``: the batch operation that passed it."""
    detail = (f"Die Antwort wäre größer als {limit} Bytes; bitte weniger auf einmal senden."
              if lang == "de" else
              f"The answer would be larger than {limit} bytes; send less at once.")
    return problem(422, "ANSWER_TOO_LARGE", detail, lang,
                   problems=[{"code": "ANSWER_TOO_LARGE", "path": path, "message": detail}])


#: the bytes ``batch_answer`` writes around its results, and around each operation's answer
#: (at most)
BATCH_FRAME = len(b'{"results":[]}')
RESULT_FRAME = len(b'{"status":422,"body":},')


def batch_operations(body: bytes | str | None, lang: str = "en",
                     limit: int = models.MAX_BATCH) -> list[tuple[str, bytes]] | Answer:
    """A batch's operations, each as its name and its body's JSON text (as sent, when the
    batch is read the fast way: a single request with the same bytes shares its cache entry),
    or the 422 problem of a malformed batch or one of more than ``limit`` operations."""
    operations = canonical.batch(body)
    if operations is None:
        request = parse("batch", body, lang, Limits(operations=limit))
        if isinstance(request, tuple):
            return request
        assert isinstance(request, models.BatchRequest)
        # written again as read: NaN and Infinity as such (orjson writes null for them, which a
        # single request's reader would take), integers past 64 bits too; the reader of each
        # operation then refuses what it refuses alone
        try:
            operations = [(o.op, json.dumps(o.body, ensure_ascii=False,
                                            separators=(",", ":")).encode())
                          for o in request.operations]
        except RecursionError:
            return too_deep(lang)
    if len(operations) > limit:
        return too_many_operations(lang, limit)
    return operations


def batch_answer(results: list[tuple[int, bytes]]) -> bytes:
    """A batch's answer as JSON text, from its operations' statuses and rendered answers."""
    return b'{"results":[' + b",".join([b'{"status":%d,"body":%s}' % r for r in results]) + b"]}"


def batch(body: bytes | str | None, lang: str = "en") -> Answer:
    """A batch answered operation by operation, uncached (the service answers through its
    cache: ``service.app.Service.batch``)."""
    operations = batch_operations(body, lang)
    if isinstance(operations, tuple):
        return operations
    results = []
    for op, raw in operations:
        status, answer = handle(op, raw, lang)
        results.append({"status": status, "body": answer})
    return 200, {"results": results}


def too_many_legal_actions(lang: str, count: int, limit: int) -> Answer:
    """The 422 problem of a state with more legal actions than one answer lists."""
    detail = (f"Dieser Spielstand hat {count} erlaubte Aktionen, mehr als die höchstens "
              f"{limit}, die eine Antwort aufzählt; frage mit check nach den Aktionen, die du "
              "erwägst." if lang == "de" else
              f"This state has {count} legal actions, more than the {limit} an answer lists at "
              "most; ask check about the actions you consider.")
    return problem(422, "TOO_MANY_LEGAL_ACTIONS", detail, lang,
                   problems=[{"code": "TOO_MANY_LEGAL_ACTIONS", "path": "/state",
                              "message": detail}])


def run(op: str, data: dict[str, Any], lang: str = "en", rules: RuleSet | None = None,
        as_json: Callable[[LegalActions], object] | None = None,
        limits: Limits = UNLIMITED,
        state_json: Callable[[State], object] | None = None) -> Answer:
    """Answer a body operation on its validated request (``model_dump(mode="json")``);
    ``rules``: the ruleset its state names, when the caller has it already; ``as_json``: see
    ``engine.api.legal_actions``; ``limits``: how much the answer may list; ``state_json``:
    the writer of an ``apply`` or ``view`` answer's state (``engine.api.apply``)."""
    try:
        if op == "legal-actions":
            return 200, api.legal_actions(data, lang, rules, as_json, limits.problems,
                                          limits.legal_actions)
        if state_json is not None and (op == "apply" or op == "view"):
            writes = api.apply if op == "apply" else api.view
            return 200, writes(data, lang, rules, limits.problems, state_json)
        if op in _STATE_OPS:
            return 200, _STATE_OPS[op](data, lang, rules, limits.problems)
        return 200, _OPS[op](data, lang)
    except api.OpError as exc:
        return _op_problem(op, exc, lang, limits.problems)
    except api.TooManyLegalActions as exc:
        return too_many_legal_actions(lang, exc.count, exc.limit)


def _op_problem(op: str, exc: api.OpError, lang: str, max_problems: int | None = None
                ) -> Answer:
    """The problem document of a refused operation: its first ``max_problems`` problems (all
    with None) and ``more``, how many beyond them (a game's ledger or an audit's state lists
    every problem it finds: the answer stays within what ``MAX_PROBLEMS`` allows)."""
    fields = {k: v for k, v in exc.body().items() if k not in ("code", "detail")}
    listed = fields.get("problems", [])
    if max_problems is not None and len(listed) > max_problems:
        fields.update(problems=listed[:max_problems], more=exc.more + len(listed) - max_problems)
    return problem(404 if exc.code == "UNKNOWN_VARIANT" and op == "variant" else 422,
                   exc.code, exc.message, lang, **fields)


def handle(op: str, body: bytes | str | None, lang: str = "en", arg: str | None = None) -> Answer:
    """Answer one operation of docs/wire-format.md; ``arg`` is the variant id for ``variant``."""
    try:
        if op == "variants":
            return 200, api.variants()
        if op == "variant":
            return 200, api.variant(arg or "", lang=lang)
    except api.OpError as exc:
        return _op_problem(op, exc, lang)
    if op == "batch":
        return batch(body, lang)
    request = request_data(op, body, lang)
    if isinstance(request, tuple):
        return request
    return run(op, request, lang)


def to_json(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
