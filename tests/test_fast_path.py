"""Issue 19: ``POST`` to an operation's path is answered by ``Referee.operation`` without
Starlette's request machinery or the middleware. Each thing the middleware did for these paths
is shown here on the ASGI app itself (the real server's side: tests/test_connections.py,
tests/test_cors.py, tests/test_service_api.py): refusals (503, 415, 413 by length and by a
chunked body), a client abort, an unexpected error, CORS and the headers of every answer, and
the metrics of each."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.app import Referee, Service, create_app
from canasta_referee.service.protocol import OVERLOADED
from canasta_referee.service.settings import Settings

BODY = orjson.dumps({"state": EXAMPLE_STATE})


def app(**settings: Any) -> Referee:
    made = create_app(Settings(**settings))
    assert isinstance(made, Referee)
    return made


def post(target: Referee, path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]],
         extensions: dict[str, Any] | None = None, disconnect: bool = False,
         root_path: str = "") -> tuple[int | None, dict[bytes, bytes], bytes]:
    """POST ``chunks`` (one ASGI message each) to ``path``: the status (None if nothing was
    sent), the headers and the body of the answer."""
    scope: dict[str, Any] = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                             "method": "POST", "scheme": "http", "path": path,
                             "raw_path": path.encode(), "query_string": b"", "root_path": root_path,
                             "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 5000),
                             "headers": headers, "extensions": extensions or {}}
    messages = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
                for i, c in enumerate(chunks)]
    if disconnect:
        messages[-1]["more_body"] = True
        messages.append({"type": "http.disconnect"})
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(target(scope, receive, send))
    if not sent:
        return None, {}, b""
    return (sent[0]["status"], dict(sent[0]["headers"]),
            b"".join(m.get("body", b"") for m in sent[1:]))


def metrics(target: Referee) -> str:
    svc: Service = target.state.svc
    return svc.metrics.render().decode()


JSON_HEADERS = [(b"content-type", b"application/json")]


def test_an_answer_carries_every_header_and_is_counted() -> None:
    target = app()
    status, headers, body = post(target, "/v1/legal-actions", [BODY],
                                 [*JSON_HEADERS, (b"accept-language", b"de")])
    assert status == 200 and orjson.loads(body)["seat"] == EXAMPLE_STATE["turn"]["seat"]
    assert headers == {b"content-length": str(len(body)).encode(),
                       b"content-type": b"application/json", b"content-language": b"de",
                       b"vary": b"Accept-Language", b"x-content-type-options": b"nosniff",
                       b"x-cache": b"miss"}
    assert post(target, "/v1/legal-actions", [BODY], JSON_HEADERS)[1][b"x-cache"] == b"miss"
    assert post(target, "/v1/legal-actions", [BODY], JSON_HEADERS)[1][b"x-cache"] == b"hit"
    text = metrics(target)
    assert 'canasta_requests_total{op="legal-actions",status="200"} 3.0' in text
    assert 'canasta_request_seconds_count{op="legal-actions"} 3.0' in text
    assert 'canasta_cache_hits_total{op="legal-actions",tier="local"} 1.0' in text


def test_a_body_in_chunks_is_the_same_request() -> None:
    target = app()
    whole = post(target, "/v1/check", [BODY], JSON_HEADERS)
    chunked = post(target, "/v1/check", [BODY[:10], BODY[10:500], BODY[500:]], JSON_HEADERS)
    assert whole[0] == chunked[0] == 422 and whole[2] == chunked[2]  # no actions: a problem


def test_refusals_before_the_body_is_read() -> None:
    limit = len(BODY) * 2 // 3
    target = app(max_body_bytes=limit)
    status, headers, body = post(target, "/v1/check", [BODY], [
        *JSON_HEADERS, (b"accept-language", b"de")], extensions={OVERLOADED: {}})
    assert status == 503 and headers[b"retry-after"] and orjson.loads(body)["code"] == "OVERLOADED"
    assert headers[b"content-language"] == b"de" and headers[b"x-content-type-options"]
    status, headers, body = post(target, "/v1/check", [BODY], [(b"content-type", b"text/plain")])
    assert status == 415 and headers[b"accept"] == b"application/json"
    assert orjson.loads(body)["code"] == "UNSUPPORTED_MEDIA_TYPE"
    status, _, body = post(target, "/v1/check", [BODY], [
        *JSON_HEADERS, (b"content-length", str(len(BODY)).encode())])
    assert status == 413 and orjson.loads(body)["code"] == "BODY_TOO_LARGE"
    status, _, body = post(target, "/v1/check", [BODY[:limit - 10], BODY[limit - 10:]],
                           JSON_HEADERS)
    assert status == 413, "a chunked body is counted as it comes"
    assert post(target, "/v1/check", [BODY], [(b"content-type", b"application/json; charset=utf-8")],
                )[0] == 413
    text = metrics(target)
    for status_ in (503, 415, 413):
        assert f'canasta_requests_total{{op="check",status="{status_}"}}' in text


def test_a_client_that_goes_away_gets_no_answer_and_is_counted() -> None:
    target = app()
    assert post(target, "/v1/validate", [BODY[:100]], JSON_HEADERS, disconnect=True)[0] is None
    text = metrics(target)
    assert 'canasta_client_aborts_total{op="validate",reason="disconnect"} 1.0' in text
    assert 'op="validate",status' not in text


def test_an_unexpected_error_is_a_logged_500(monkeypatch: pytest.MonkeyPatch,
                                            capfd: pytest.CaptureFixture[str]) -> None:
    target = app()

    def broken(*args: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(target.state.svc, "prepare", broken)  # what the route asks first
    status, headers, body = post(target, "/v1/score", [BODY], JSON_HEADERS)
    assert status == 500 and orjson.loads(body)["code"] == "INTERNAL_ERROR"
    assert headers[b"content-type"] == b"application/problem+json"
    logged = [orjson.loads(line) for line in capfd.readouterr().err.splitlines()
              if '"unexpected error"' in line]
    assert len(logged) == 1 and "RuntimeError: boom" in logged[0]["exc"], logged
    assert 'canasta_requests_total{op="score",status="500"} 1.0' in metrics(target)


def test_cors_headers_on_an_operation() -> None:
    origin = (b"origin", b"https://app.example")
    _, headers, _ = post(app(), "/v1/validate", [BODY], [*JSON_HEADERS, origin])
    assert headers[b"access-control-allow-origin"] == b"*"
    assert b"X-Cache" in headers[b"access-control-expose-headers"]
    listed = app(cors_origins=("https://app.example",))
    _, headers, _ = post(listed, "/v1/validate", [BODY], [*JSON_HEADERS, origin])
    assert headers[b"access-control-allow-origin"] == b"https://app.example"
    assert headers[b"vary"] == b"Accept-Language, Origin"
    _, headers, _ = post(listed, "/v1/validate", [BODY], [*JSON_HEADERS,
                                                          (b"origin", b"https://other.example")])
    assert b"access-control-allow-origin" not in headers and headers[b"vary"].endswith(b"Origin")
    _, headers, _ = post(app(cors_origins=()), "/v1/validate", [BODY], [*JSON_HEADERS, origin])
    assert b"access-control-allow-origin" not in headers


def test_other_methods_still_get_405_from_the_routes() -> None:
    from starlette.testclient import TestClient

    with TestClient(app()) as client:
        answer = client.get("/v1/check")
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert answer.json()["code"] == "METHOD_NOT_ALLOWED"


def test_behind_a_root_path_too() -> None:
    """A server started with a root path (uvicorn's ``--root-path``) gives paths with it."""
    target = app()
    status, headers, _ = post(target, "/api/v1/validate", [BODY], JSON_HEADERS,
                              root_path="/api")
    assert status == 200 and headers[b"content-language"] == b"en"
    assert 'canasta_requests_total{op="validate",status="200"} 1.0' in metrics(target)


def test_the_route_itself_answers_as_the_one_pass_path() -> None:
    """Were Starlette to route a POST to an operation (the one-pass path takes them all
    first), the route's app answers it the same way."""
    from starlette.routing import Route

    target = app()
    route = next(r for r in target.routes if isinstance(r, Route) and r.path == "/v1/validate")
    original = target.operations
    target.operations = {}  # every POST goes through Starlette's routing
    try:
        status, headers, body = post(target, "/v1/validate", [BODY], JSON_HEADERS)
    finally:
        target.operations = original
    assert status == 200 and headers[b"x-cache"] == b"miss" and route.name == "validate"
    assert post(target, "/v1/validate", [BODY], JSON_HEADERS)[2] == body


QUERY = ("query($s: JSON!) { legalActions(state: $s) { __typename "
         "... on LegalActions { seat actionsJson } ... on Problem { code } } }")


def test_graphql_a_planned_document_in_one_pass_any_other_through_strawberry() -> None:
    """The first POST of a document goes through strawberry (which validates it) with the
    body read by the one-pass path handed on; later ones are answered from the document's
    plan. Both answers are the same, with the same headers, each counted once."""
    target = app()
    body = orjson.dumps({"query": QUERY, "variables": {"s": EXAMPLE_STATE}})
    headers = [*JSON_HEADERS, (b"accept-language", b"de")]
    first = post(target, "/graphql", [body[:50], body[50:]], headers)
    second = post(target, "/graphql", [body], headers)
    assert first[0] == second[0] == 200 and first[2] == second[2]
    assert first[1] == second[1] and second[1][b"content-language"] == b"de"
    assert orjson.loads(second[2])["data"]["legalActions"]["__typename"] == "LegalActions"
    assert 'canasta_requests_total{op="graphql",status="200"} 2.0' in metrics(target)


def test_graphql_refusals_and_transport_errors() -> None:
    target = app(max_body_bytes=200)
    body = orjson.dumps({"query": QUERY, "variables": {"s": EXAMPLE_STATE}})
    status, _, answer = post(target, "/graphql", [body[:100], body[100:]], JSON_HEADERS)
    assert status == 413 and orjson.loads(answer)["code"] == "BODY_TOO_LARGE"
    target = app()
    status, headers, answer = post(target, "/graphql", [b'{"query": 1}'], JSON_HEADERS)
    assert status == 400 and headers[b"content-type"] == b"application/problem+json"
    status, _, answer = post(target, "/graphql", [body], [(b"content-type", b"text/plain")])
    assert status in (400, 415) and orjson.loads(answer)["code"]
    assert post(target, "/graphql", [body[:10]], JSON_HEADERS, disconnect=True)[0] is None
    assert 'canasta_client_aborts_total{op="graphql",reason="disconnect"} 1.0' in metrics(target)
