"""The OpenAPI 3.1 document, built from the pydantic wire models (``/docs`` shows it: ``service.ui``).

``python -m service.openapi`` writes ``openapi/openapi.json`` (a test fails when it drifts).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

import engine
from schema import models as m

REF = "#/components/schemas/{model}"
COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"

# path, method, operation id, summary, request model, 200 model, cached, error statuses
ROUTES: list[tuple[str, str, str, str, type[BaseModel] | None, type[BaseModel] | None, bool,
                   tuple[int, ...]]] = [
    ("/v1/variants", "get", "variants", "The rulesets the referee knows.", None, m.VariantList,
     False, ()),
    ("/v1/variants/{id}", "get", "variant", "A ruleset's complete rule table.", None,
     m.VariantDetail, False, (404,)),
    ("/v1/deal", "post", "deal", "A fresh deal, fully known, reproducible from seed.",
     m.DealRequest, m.DealResponse, False, (413, 422)),
    ("/v1/validate", "post", "validate", "Every problem of a state, each with its JSON path.",
     m.StateRequest, m.ValidateResponse, True, (413, 422)),
    ("/v1/legal-actions", "post", "legal-actions", "The actions the seat to move may take now.",
     m.StateRequest, m.LegalActionsResponse, True, (413, 422)),
    ("/v1/check", "post", "check", "Whether the actions are legal in order; if not, the first "
     "illegal one and why (a legal 'no' is a 200).", m.ActionsRequest, m.CheckResponse, True,
     (413, 422)),
    ("/v1/apply", "post", "apply", "The state after the actions, and what happened; an illegal "
     "action is a 422 problem (code ILLEGAL_ACTION) with its index and reason.",
     m.ActionsRequest, m.ApplyResponse, True, (413, 422)),
    ("/v1/score", "post", "score", "The deal's score per side, the new game scores, whether the "
     "game is over, the winner and the next initial-meld minimums.", m.StateRequest,
     m.ScoreResponse, True, (413, 422)),
]

_STATUS = {200: "The answer.", 404: "No such variant (problem document).",
           413: "The body is larger than MAX_BODY_BYTES (problem document).",
           422: "Malformed request, or a request the engine cannot answer (problem document; "
                "`code` is stable, `problems` carry JSON pointers)."}

DESCRIPTION = """A stateless rules referee for the Canasta family of card games.

Send a game state (and actions): the referee says whether they are legal and why not (a stable
`code`, a message in English or German by `Accept-Language`, and the rule's source), lists legal
actions, applies actions, validates whole states and scores deals. Errors are RFC 9457 problem
documents (`application/problem+json`) with a stable `code` and the JSON pointer of every field
error. The same operations are served as GraphQL at `/graphql`.

Cacheable answers carry `X-Cache: hit` or `X-Cache: miss`. Operations: `GET /healthz`,
`GET /readyz`, `GET /metrics` (Prometheus text format)."""


def _examples(model: type[BaseModel]) -> dict[str, Any]:
    extra = model.model_config.get("json_schema_extra")
    examples = extra.get("examples", []) if isinstance(extra, dict) else []
    assert isinstance(examples, list) and examples, f"{model.__name__} has no example"
    return {f"example{i + 1}": {"value": v} for i, v in enumerate(examples)}


def _header_param() -> dict[str, Any]:
    return {"name": "Accept-Language", "in": "header", "required": False,
            "description": "`de` for German messages; English otherwise.",
            "schema": {"type": "string", "examples": ["de", "en"]}}


def build() -> dict[str, Any]:
    """The OpenAPI 3.1 document."""
    pairs: list[tuple[type[BaseModel], JsonSchemaMode]] = [(m.ProblemDocument, "serialization")]
    for *_, request, answer, _cached, _errors in ROUTES:
        if request is not None:
            pairs.append((request, "validation"))
        if answer is not None:
            pairs.append((answer, "serialization"))
    refs, defs = models_json_schema(pairs, ref_template=REF)
    paths: dict[str, Any] = {}
    problem_ref = refs[(m.ProblemDocument, "serialization")]
    for path, method, op, summary, request, answer, cached, errors in ROUTES:
        assert answer is not None
        ok: dict[str, Any] = {"description": _STATUS[200], "content": {"application/json": {
            "schema": refs[(answer, "serialization")], "examples": _examples(answer)}}}
        if cached:
            ok["headers"] = {"X-Cache": {"description": "`hit` or `miss`.", "schema": {
                "type": "string", "enum": ["hit", "miss"]}}}
        responses: dict[str, Any] = {"200": ok}
        for status in errors:
            responses[str(status)] = {"description": _STATUS[status], "content": {
                "application/problem+json": {"schema": problem_ref,
                                             "examples": _examples(m.ProblemDocument)}}}
        operation: dict[str, Any] = {"operationId": op, "summary": summary,
                                     "parameters": [_header_param()], "responses": responses}
        if path.endswith("{id}"):
            operation["parameters"].insert(0, {
                "name": "id", "in": "path", "required": True, "description": "Variant id.",
                "schema": {"type": "string", "maxLength": 64, "examples": ["classic"]}})
        if request is not None:
            operation["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": refs[(request, "validation")], "examples": _examples(request)}}}
        paths.setdefault(path, {})[method] = operation
    paths.update(_operations())
    return {"openapi": "3.1.0",
            "info": {"title": "Canasta Referee", "version": engine.__version__,
                     "description": DESCRIPTION, "license": {"name": "MIT"}},
            "paths": paths, "components": {"schemas": defs.get("$defs", {})}}


def _operations() -> dict[str, Any]:
    def get(op: str, summary: str, media: str, schema: dict[str, Any], example: Any) -> Any:
        return {"get": {"operationId": op, "summary": summary, "responses": {"200": {
            "description": summary, "content": {media: {"schema": schema, "examples": {
                "example1": {"value": example}}}}}}}}

    ready = {"type": "object", "required": ["ready", "degraded", "engine", "cache"], "properties": {
        "ready": {"type": "boolean"}, "degraded": {"type": "boolean", "description":
                                                   "Redis is configured but unreachable."},
        "engine": {"type": "object", "required": ["id", "build"], "properties": {
            "id": {"type": "string", "description": "Version and source digest (in cache keys)."},
            "build": {"type": "string", "enum": ["compiled", "python"], "description":
                      "compiled: the mypyc build that `pip install .` makes; python: sources."}}},
        "cache": {"type": "object"}}}
    return {
        "/healthz": get("healthz", "Liveness: the process answers.", "application/json",
                        {"type": "object", "required": ["status"],
                         "properties": {"status": {"type": "string", "enum": ["ok"]}}},
                        {"status": "ok"}),
        "/readyz": get("readyz", "Readiness and the cache's state (ready even when Redis is "
                       "down).", "application/json", ready,
                       {"ready": True, "degraded": False,
                        "engine": {"id": "0.1.0-aae53a5fb816", "build": "compiled"}, "cache": {
                           "local": {"entries": 12, "size": 4096}, "redis": "ok",
                           "breaker_open": False}}),
        "/metrics": get("metrics", "Prometheus metrics (text exposition format).",
                        "text/plain", {"type": "string"},
                        "canasta_requests_total{op=\"check\",status=\"200\"} 3.0\n"),
    }


@functools.cache
def document_bytes() -> bytes:
    """The document as served at ``/openapi.json`` and committed (2-space JSON, final newline)."""
    return (json.dumps(build(), indent=2, ensure_ascii=False) + "\n").encode()


def main() -> int:
    """Write (or with ``--check``, compare) ``openapi/openapi.json``."""
    if "--check" in sys.argv[1:]:
        same = COMMITTED.exists() and COMMITTED.read_bytes() == document_bytes()
        print("openapi/openapi.json is up to date" if same else "openapi/openapi.json drifted")
        return 0 if same else 1
    COMMITTED.parent.mkdir(exist_ok=True)
    COMMITTED.write_bytes(document_bytes())
    print(f"wrote {COMMITTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
