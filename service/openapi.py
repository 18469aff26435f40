"""The OpenAPI 3.1 document, built from the pydantic wire models (``/docs`` shows it: ``service.ui``).

``python -m canasta_referee.service.openapi`` writes ``openapi/openapi.json`` and the JSON Schema of a state,
``clients/json-schema/state.schema.json`` (tests fail when either drifts; the TypeScript types in
``clients/typescript`` are generated from the former by ``npm run generate`` there).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from canasta_referee import engine
from canasta_referee.schema import models as m

from . import examples
from .protocol import RETRY_AFTER
from .settings import Settings

REF = "#/components/schemas/{model}"
COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"
STATE_SCHEMA = COMMITTED.parent.parent / "clients" / "json-schema" / "state.schema.json"

#: the error statuses of every POST operation: a body over its limit, a body that is not JSON,
#: a request the referee refuses, a worker with more work than its limits let it take
POSTED = (413, 415, 422, 503)
#: the error statuses of every operation, which the connection's bounds answer before the app
#: sees the request (``service.protocol``): too slow, headers too large
EVERY = (408, 431)

# path, method, operation id, summary, request model, 200 model, cached, error statuses
ROUTES: list[tuple[str, str, str, str, type[BaseModel] | None, type[BaseModel] | None, bool,
                   tuple[int, ...]]] = [
    ("/v1/variants", "get", "variants", "The rulesets the referee knows.", None, m.VariantList,
     False, ()),
    ("/v1/variants/{id}", "get", "variant", "A ruleset's complete rule table.", None,
     m.VariantDetail, False, (404,)),
    ("/v1/deal", "post", "deal", "A fresh deal, fully known, reproducible from seed.",
     m.DealRequest, m.DealResponse, False, POSTED),
    ("/v1/validate", "post", "validate", "Every problem of a state, each with its JSON path.",
     m.StateRequest, m.ValidateResponse, True, POSTED),
    ("/v1/legal-actions", "post", "legal-actions", "The actions the seat to move may take now.",
     m.StateRequest, m.LegalActionsResponse, True, POSTED),
    ("/v1/check", "post", "check", "Whether the actions are legal in order; if not, the first "
     "illegal one and why (a legal 'no' is a 200).", m.ActionsRequest, m.CheckResponse, True,
     POSTED),
    ("/v1/apply", "post", "apply", "The state after the actions, and what happened; an illegal "
     "action is a 422 problem (code ILLEGAL_ACTION) with its index and reason.",
     m.ActionsRequest, m.ApplyResponse, True, POSTED),
    ("/v1/score", "post", "score", "The deal's score per side, the new game scores, whether the "
     "game is over, the winner and the next initial-meld minimums.", m.StateRequest,
     m.ScoreResponse, True, POSTED),
    ("/v1/score/tally", "post", "score-tally", "A finished deal's score from a score pad's "
     "counts per side (points melded and left in hand, canastas by kind, threes, going out, "
     "the variant's penalties), as score scores a state; an impossible tally is a 422 problem "
     "(code INVALID_TALLY) with every problem and its JSON pointer. Not cached.",
     m.TallyRequest, m.ScoreResponse, False, POSTED),
    ("/v1/game", "post", "game", "A game so far from its rounds (tallies or final states): the "
     "running totals and the initial-meld minimums per round, whether the game is over and "
     "the winner; a record that contradicts itself is a 422 problem (code INVALID_LEDGER) "
     "naming each round and why. Not cached.", m.GameRequest, m.GameResponse, False,
     POSTED),
    ("/v1/audit", "post", "audit", "A game log replayed deal by deal: whether every action was "
     "legal (else the first that was not, and why), each deal's final state, events and score, "
     "the game scores carried from deal to deal, and whether the scores the log records agree. "
     "Bodies up to `MAX_AUDIT_BODY_BYTES`, at most `MAX_AUDIT_ACTIONS` actions; an answer "
     "larger than `MAX_BULK_ANSWER_BYTES` is refused (422 `ANSWER_TOO_LARGE`). At most "
     "`MAX_BULK_IN_FLIGHT` audits and batches at once per worker (else 503 `OVERLOADED`).",
     m.AuditRequest, m.AuditResponse, False, POSTED),
    ("/v1/view", "post", "view", "The state as one seat sees it: other hands and the stock by "
     "their size, the pile by its top card, size and whether it is frozen.", m.ViewRequest,
     m.ViewResponse, False, POSTED),
    ("/v1/batch", "post", "batch", "Operations answered in order, each with the status and body "
     "its single request gets, from the same cache (`X-Cache` lists each one's tag, in order: "
     "`hit`, `miss`, `bypass`, or `none` when not cached); a bad operation does not fail the "
     "others. At most `MAX_BATCH` operations, bodies up to `MAX_BATCH_BODY_BYTES`; answers "
     "that together pass `MAX_BULK_ANSWER_BYTES` refuse the batch (422 `ANSWER_TOO_LARGE`, "
     "at the operation that passed it). At most `MAX_BULK_IN_FLIGHT` audits and batches at "
     "once per worker (else 503 `OVERLOADED`).",
     m.BatchRequest, m.BatchResponse, False, POSTED),
]

_STATUS = {200: "The answer.", 404: "No such variant (problem document).",
           408: "The request line and headers did not arrive within `HEADER_TIMEOUT`, or the "
                "body within `BODY_TIMEOUT` of them (problem document `REQUEST_TIMEOUT`, "
                "`Connection: close`; the example is the default header timeout's).",
           431: "The request line and headers are larger than `MAX_HEADER_BYTES` (problem "
                "document `HEADERS_TOO_LARGE`, `Connection: close`; the example is the default "
                "limit's).",
           413: "The body is larger than `{limit}` (problem document; the example is the "
                "default limit's).",
           415: "The body's `Content-Type` is not JSON (`application/json` or another "
                "`application/*+json`; problem document `UNSUPPORTED_MEDIA_TYPE`).",
           422: "Malformed request, or a request the engine cannot answer (problem document; "
                "`code` is stable, `problems` carry JSON pointers).",
           503: "The worker has more requests in flight than `MAX_IN_FLIGHT` (audits and "
                "batches: `MAX_BULK_IN_FLIGHT`): try again after `Retry-After` seconds (problem "
                "document `OVERLOADED`; the body is not read)."}

#: the settings that bound the bodies of the operations not bound by ``MAX_BODY_BYTES``
_BODY_LIMITS = {"audit": "MAX_AUDIT_BODY_BYTES", "batch": "MAX_BATCH_BODY_BYTES"}

DESCRIPTION = """A stateless rules referee for the Canasta family of card games.

Send a game state (and actions): the referee says whether they are legal and why not (a stable
`code`, a message in English or German by `Accept-Language`, and the rule's source), lists legal
actions, applies actions, validates whole states and scores deals. Errors are RFC 9457 problem
documents (`application/problem+json`) with a stable `code` and the JSON pointer of every field
error.

**States.** A state may show every card (a referee's or a trusted server's *full* state) or be
a player's *view*: other hands and the stock as `{"size": n}`, the pile as `{top, size,
frozen}`. The referee answers whatever the cards shown decide, and refuses the rest with 422
`NEEDS_HIDDEN_INFO` (a draw needs the stock's top card; a score needs every hand).

**Examples.** Each operation's request examples are real requests, and the examples under each
response are the service's own answers to them (the example of the same name). *Try it out*
sends them to this server.

**GraphQL.** The same operations are served as GraphQL at [`/graphql`](/graphql) (GraphiQL in
a browser).

Cacheable answers carry `X-Cache: hit` or `X-Cache: miss`, or `X-Cache: bypass` while caching
is off for the operation. Answers of `/v1/*` and `/graphql` say the language of their messages
in `Content-Language` (`en` or `de`, with `Vary: Accept-Language`). Web pages of other origins
may call the API (CORS, origins set by `CORS_ORIGINS`, default any); `X-Cache`,
`Content-Language`, `Retry-After`, `Allow` and `Accept` are exposed to their scripts.
Operations: `GET /healthz`, `GET /readyz`, `GET /metrics` (Prometheus text format)."""


def _named(values: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    """OpenAPI examples: name -> {summary, value}."""
    return {name: {"summary": summary, "value": value}
            for name, (summary, value) in values.items()}


def _header_param() -> dict[str, Any]:
    return {"name": "Accept-Language", "in": "header", "required": False,
            "description": "`de` for German messages; English otherwise.",
            "schema": {"type": "string", "examples": ["de", "en"]}}


def _responses(op: str, answer_ref: dict[str, Any], problem_ref: dict[str, Any], cached: bool,
               errors: tuple[int, ...]) -> dict[str, Any]:
    """The operation's responses, each with the real answers to its request examples."""
    requests = examples.REQUESTS.get(op, {})
    by_status: dict[int, dict[str, tuple[str, Any]]] = {}
    for name, (status, answer) in examples.answers()[op].items():
        summary = requests[name].summary if name in requests else "The answer"
        by_status.setdefault(status, {})[name] = (summary, answer)
    if 413 in errors:
        by_status[413] = {"bodyTooLarge": ("A body over the limit",
                                           examples.body_too_large(f"/v1/{op}"))}
    assert set(by_status) == {200, *errors} - set(SHARED), (op, sorted(by_status), errors)
    ok: dict[str, Any] = {"description": _STATUS[200], "content": {"application/json": {
        "schema": answer_ref, "examples": _named(by_status[200])}}}
    if cached:
        ok["headers"] = {"X-Cache": {
            "description": "`hit` or `miss`; `bypass` while caching is off for the operation "
                           "(`CACHE_OPS`, `CACHE_SIZE=0` without Redis).",
            "schema": {"type": "string", "enum": ["hit", "miss", "bypass"]}}}
    elif op == "batch":
        ok["headers"] = {"X-Cache": {
            "description": "Each operation's tag, in order, comma-separated: `hit`, `miss`, "
                           "`bypass` (caching off for it), `none` (not cached: a refused "
                           "operation, or one never cached).",
            "schema": {"type": "string", "examples": ["hit, miss, none"]}}}
    responses: dict[str, Any] = {"200": ok}
    for status in errors:
        if status in SHARED:
            responses[str(status)] = {"$ref": f"#/components/responses/{SHARED[status]}"}
            continue
        responses[str(status)] = {"description": _STATUS[status].format(
            limit=_BODY_LIMITS.get(op, "MAX_BODY_BYTES")), "content": {
            "application/problem+json": {"schema": problem_ref,
                                         "examples": _named(by_status[status])}}}
        if cached and status == 422:
            responses["422"]["headers"] = {"X-Cache": {
                "description": "`hit` or `miss` for a refusal the cache keeps (of a state, an "
                               "action, a request the engine cannot answer); none for a "
                               "malformed request or an unknown variant, option or option "
                               "value; `bypass` on every answer while caching is off for the "
                               "operation.",
                "schema": {"type": "string", "enum": ["hit", "miss", "bypass"]}}}
    return responses


#: the answers every POST operation shares, by status: ``components.responses``
SHARED = {408: "RequestTimeout", 415: "NotJson", 431: "HeadersTooLarge", 503: "Overloaded"}


def _shared(problem_ref: dict[str, Any]) -> dict[str, Any]:
    """``components.responses``: the 408, 415, 431 and 503 problems, the same for every
    operation."""
    answers = {408: {"requestTimeout": ("Headers that did not come in time",
                                        examples.request_timeout())},
               415: {"notJson": ("A body sent as text/plain", examples.not_json())},
               431: {"headersTooLarge": ("A header section over the limit",
                                         examples.headers_too_large())},
               503: {"overloaded": ("A worker with too much to do", examples.overloaded())}}
    out = {name: {"description": _STATUS[status], "content": {"application/problem+json": {
        "schema": problem_ref, "examples": _named(answers[status])}}}
        for status, name in SHARED.items()}
    out["Overloaded"]["headers"] = {"Retry-After": {
        "description": "Seconds to wait before trying again.",
        "schema": {"type": "integer", "examples": [RETRY_AFTER]}}}
    return out


def build() -> dict[str, Any]:
    """The OpenAPI 3.1 document."""
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m.ProblemDocument, "serialization")]
    for *_, request, answer, _cached, _errors in ROUTES:
        if request is not None:
            pairs.append((request, "validation"))
        if answer is not None:
            pairs.append((answer, "serialization"))
    refs, defs = models_json_schema(pairs, ref_template=REF)
    # answers' schemas carry no examples of their own: the operations show real answers (and an
    # engine change then alters openapi.json alone, not the generated client types)
    schemas: dict[str, Any] = defs.get("$defs", {})
    paths: dict[str, Any] = {}
    problem_ref = refs[(m.ProblemDocument, "serialization")]
    for path, method, op, summary, request, answer, cached, errors in ROUTES:
        assert answer is not None
        operation: dict[str, Any] = {
            "operationId": op, "summary": summary, "parameters": [_header_param()],
            "responses": _responses(op, refs[(answer, "serialization")], problem_ref, cached,
                                    tuple(sorted((*errors, *EVERY))))}
        requests = _named({n: (e.summary, e.request)
                           for n, e in examples.REQUESTS.get(op, {}).items()})
        if path.endswith("{id}"):
            operation["parameters"].insert(0, {
                "name": "id", "in": "path", "required": True, "description": "Variant id.",
                "schema": {"type": "string", "maxLength": 64}, "examples": requests})
        if request is not None:
            operation["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": refs[(request, "validation")], "examples": requests}}}
        paths.setdefault(path, {})[method] = operation
    paths.update(_operations())
    return {"openapi": "3.1.0",
            "info": {"title": "Canasta Referee", "version": engine.__version__,
                     "description": DESCRIPTION, "license": {"name": "MIT"}},
            "paths": paths, "components": {"schemas": schemas,
                                           "responses": _shared(problem_ref)}}


def _operations() -> dict[str, Any]:
    def get(op: str, summary: str, media: str, schema: dict[str, Any], example: Any,
            note: str = "") -> Any:
        return {"get": {"operationId": op, "summary": summary, "responses": {"200": {
            "description": summary + note, "content": {media: {"schema": schema, "examples": {
                "answer": {"summary": "The answer", "value": example}}}}}}}}

    ready = {"type": "object", "required": ["ready", "degraded", "engine", "cache"], "properties": {
        "ready": {"type": "boolean"}, "degraded": {"type": "boolean", "description":
                                                   "Redis is configured but unreachable, or "
                                                   "refuses writes (`cache.redis`)."},
        "engine": {"type": "object", "required": ["id", "build", "writer"], "properties": {
            "id": {"type": "string", "description": "Version and source digest (in cache keys)."},
            "build": {"type": "string", "enum": ["compiled", "python"], "description":
                      "compiled: the mypyc build that `pip install .` makes; python: sources."},
            "writer": {"type": "string", "enum": ["native", "python"], "description":
                       "What writes legal-action lists and states and reads canonical requests: "
                       "native, the C module that `pip install .` builds; python, the engine's "
                       "writer, the state's data and msgspec (the same answers, slower)."}}},
        "cache": {"type": "object", "required": ["local", "redis", "breaker_open", "breakers"],
                  "properties": {
            "local": {"type": "object", "required": ["entries", "size", "bytes", "max_bytes"],
                      "description": "The in-process tier's entries and bytes, and their bounds "
                                     "(CACHE_SIZE, CACHE_MAX_BYTES).",
                      "properties": {name: {"type": "integer", "minimum": 0}
                                     for name in ("entries", "size", "bytes", "max_bytes")}},
            "redis": {"type": "string", "enum": ["off", "ok", "read-only", "degraded"],
                      "description": "`read-only`: hits are read, writes fail (the write breaker "
                                     "is open); `degraded`: reads fail (the read breaker is "
                                     "open)."},
            "breaker_open": {"type": "boolean", "description": "Either breaker is open."},
            "breakers": {"type": "object", "required": ["read", "write"],
                         "description": "The Redis circuit breakers of reads and of writes.",
                         "properties": {name: {"type": "string", "enum": ["open", "closed"]}
                                        for name in ("read", "write")}}}}}}
    return {
        "/healthz": get("healthz", "Liveness: the process answers.", "application/json",
                        {"type": "object", "required": ["status"],
                         "properties": {"status": {"type": "string", "enum": ["ok"]}}},
                        {"status": "ok"}),
        "/readyz": get("readyz", "Readiness and the cache's state (ready even when Redis is "
                       "down).", "application/json", ready,
                       {"ready": True, "degraded": False,
                        "engine": {"id": "0.1.0-aae53a5fb816", "build": "python",
                                   "writer": "python"}, "cache": {
                           "local": {"entries": 0, "size": Settings().cache_size, "bytes": 0,
                                     "max_bytes": Settings().cache_max_bytes}, "redis": "off",
                           "breaker_open": False,
                           "breakers": {"read": "closed", "write": "closed"}}},
                       " The example is a fresh server's, without Redis: `engine.id` differs "
                       "with each engine, `build` with the installation."),
        "/metrics": get("metrics", "Prometheus metrics (text exposition format).",
                        "text/plain", {"type": "string"},
                        "canasta_requests_total{op=\"check\",status=\"200\"} 1.0\n",
                        " The example is one line of it, after one `check` answered 200."),
    }


@functools.cache
def document_bytes() -> bytes:
    """The document as served at ``/openapi.json`` and committed (2-space JSON, final newline)."""
    return (json.dumps(build(), indent=2, ensure_ascii=False) + "\n").encode()


def state_schema_bytes() -> bytes:
    """The JSON Schema (draft 2020-12) of a request's ``state``, as committed for clients."""
    schema = m.State.model_json_schema(mode="validation")
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                "$comment": "Generated from schema.models.State by "
                            "`python -m canasta_referee.service.openapi`; "
                            "the same as components.schemas.State of openapi/openapi.json.",
                **schema}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def _artifacts() -> dict[Path, bytes]:
    return {COMMITTED: document_bytes(), STATE_SCHEMA: state_schema_bytes()}


def main() -> int:
    """Write (or with ``--check``, compare) ``openapi/openapi.json`` and
    ``clients/json-schema/state.schema.json``."""
    root = COMMITTED.parent.parent
    drifted = 0
    for path, content in _artifacts().items():
        name = path.relative_to(root)
        if "--check" in sys.argv[1:]:
            same = path.exists() and path.read_bytes() == content
            print(f"{name} is up to date" if same else f"{name} drifted")
            drifted += not same
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        print(f"wrote {name}")
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
