"""The HTTP service over its ASGI app: every endpoint, status code and error path, in English
and German (no server process; Starlette's TestClient drives the app in-process)."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

from canasta_referee import engine
from canasta_referee.engine import api
from canasta_referee.schema import handlers, text
from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.app import ENGINE_ID, RAW_KEY_BYTES, create_app, language
from canasta_referee.service.openapi import COMMITTED
from canasta_referee.service.settings import Settings
from tests.playout import playout
from tests.test_openapi_examples import resolved

DE = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}


def client(**settings: Any) -> TestClient:
    return TestClient(create_app(Settings(log_level="warning", **settings)),
                      raise_server_exceptions=False)


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with client() as c:
        yield c


@pytest.fixture(scope="module")
def dealt(http: TestClient) -> dict[str, Any]:
    r = http.post("/v1/deal", json={"seed": 42, "dealer": 3, "scores": [0, 1600]})
    assert r.status_code == 200
    return r.json()["state"]  # type: ignore[no-any-return]


def is_problem(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = r.json()
    assert body["status"] == status and body["code"] == code, body
    assert body["type"].endswith(code.lower()) and body["title"] and body["detail"]
    return body


# --- catalogue and deal -------------------------------------------------------------------------


def test_variants_and_rule_tables(http: TestClient) -> None:
    r = http.get("/v1/variants")
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    ids = [v["id"] for v in r.json()["variants"]]
    assert {"classic", "german", "family", "canastra"} <= set(ids)
    for vid in ids:
        table = http.get(f"/v1/variants/{vid}").json()
        assert table["id"] == vid and len(table["fingerprint"]) == 16 and table["sections"]
    en = is_problem(http.get("/v1/variants/bridge"), 404, "UNKNOWN_VARIANT")
    assert en["problems"][0]["code"] == "UNKNOWN_VARIANT"


def test_deal(http: TestClient, dealt: dict[str, Any]) -> None:
    r = http.post("/v1/deal", json={"seed": 42, "dealer": 3, "scores": [0, 1600]})
    assert r.json()["state"] == dealt and isinstance(r.json()["events"], list)
    assert "x-cache" not in r.headers  # deals are not cached
    german = http.post("/v1/deal", json={"variant": "german", "options": {"players": 3}}).json()
    assert len(german["state"]["hands"]) == 3
    is_problem(http.post("/v1/deal", json={"variant": "bridge"}), 422, "UNKNOWN_VARIANT")
    is_problem(http.post("/v1/deal", json={"options": {"colour": 1}}), 422, "UNKNOWN_OPTION")
    p = is_problem(http.post("/v1/deal", json={"dealer": 5}), 422, "SEAT_OUT_OF_RANGE")
    assert p["problems"][0]["path"] == "/dealer"


# --- the rules operations -----------------------------------------------------------------------


def test_validate(http: TestClient, dealt: dict[str, Any]) -> None:
    assert http.post("/v1/validate", json={"state": dealt}).json() == {"valid": True,
                                                                      "problems": []}
    broken = copy.deepcopy(dealt)
    broken["hands"][0] = broken["hands"][0][1:]
    en = http.post("/v1/validate", json={"state": broken}).json()
    de = http.post("/v1/validate", json={"state": broken}, headers=DE).json()
    assert en["valid"] is False and de["valid"] is False
    assert [p["path"] for p in en["problems"]] == [p["path"] for p in de["problems"]]
    assert all(p["path"].startswith("/state") for p in en["problems"])
    assert en["problems"][0]["message"] != de["problems"][0]["message"]


def test_legal_actions(http: TestClient, dealt: dict[str, Any]) -> None:
    r = http.post("/v1/legal-actions", json={"state": dealt})
    assert r.status_code == 200
    body = r.json()
    assert body["seat"] == 0 and body["phase"] == "draw"
    assert {"type": "draw", "seat": 0} in body["actions"]


def test_legal_actions_written_as_text_are_the_engine_answer(http: TestClient) -> None:
    """The service writes long action lists as JSON text (``engine.wire.actions_json``): its
    answer is byte for byte the engine's answer as data, serialised (six players, mid-deal,
    where melds with every choice of wild cards make lists of a hundred actions and more)."""
    rules = engine.rules_for("classic", {"players": 6})
    seen = 0
    for state, actions in playout(rules, 7, check=False, eager=True):
        if state.turn.phase != "play" or len(actions) < 20:
            continue
        data = {"state": engine.state_to_data(state)}
        r = http.post("/v1/legal-actions", json=data)
        assert r.status_code == 200 and r.headers["x-cache"] == "miss"
        assert r.content == orjson.dumps(api.legal_actions(data))
        seen += 1
    assert seen >= 5


def test_check_legal_and_illegal_in_both_languages(http: TestClient,
                                                   dealt: dict[str, Any]) -> None:
    ok = http.post("/v1/check", json={"state": dealt, "actions": [{"type": "draw"}]})
    assert ok.status_code == 200 and ok.json() == {"legal": True}
    body = {"state": dealt, "actions": [{"type": "draw"}, {"type": "ask"}, {"type": "ask"}]}
    en = http.post("/v1/check", json={"state": dealt, "actions": [{"type": "discard",
                                                                   "card": "JK"}]})
    de = http.post("/v1/check", json={"state": dealt, "actions": [{"type": "discard",
                                                                   "card": "JK"}]}, headers=DE)
    assert en.status_code == de.status_code == 200  # a legal "no" is an answer
    assert en.json()["legal"] is False and en.json()["index"] == 0
    assert en.json()["reason"]["code"] == de.json()["reason"]["code"] == "WRONG_PHASE"
    assert en.json()["reason"]["message"] != de.json()["reason"]["message"]
    assert en.json()["reason"]["rule"].startswith("docs/variants/classic.md#a-turn (pagat.com")
    assert http.post("/v1/check", json=body).json()["legal"] is False


def test_apply(http: TestClient, dealt: dict[str, Any]) -> None:
    r = http.post("/v1/apply", json={"state": dealt, "actions": [{"type": "draw"}]})
    assert r.status_code == 200 and r.json()["state"]["turn"]["phase"] == "play"
    assert r.json()["events"][0]["type"] == "drew"
    en = is_problem(http.post("/v1/apply", json={"state": dealt, "actions": [{"type": "ask"}]}),
                    422, "ILLEGAL_ACTION")
    de = is_problem(http.post("/v1/apply", json={"state": dealt, "actions": [{"type": "ask"}]},
                              headers=DE), 422, "ILLEGAL_ACTION")
    assert en["index"] == 0 and en["reason"]["code"] == "WRONG_PHASE"
    assert en["detail"] != de["detail"] and en["reason"]["message"] != de["reason"]["message"]


def test_score(http: TestClient, dealt: dict[str, Any]) -> None:
    body = http.post("/v1/score", json={"state": dealt}).json()
    assert set(body) == {"final", "sides", "scores", "game_over", "winner", "next_minimums"}
    assert body["final"] is False  # a fresh deal is not over: a provisional score
    for side in body["sides"]:
        assert side["breakdown"]["total"] == side["total"]
    # the example state hides three hands: scoring needs them
    en = is_problem(http.post("/v1/score", json={"state": EXAMPLE_STATE}), 422,
                    "NEEDS_HIDDEN_INFO")
    de = is_problem(http.post("/v1/score", json={"state": EXAMPLE_STATE}, headers=DE), 422,
                    "NEEDS_HIDDEN_INFO")
    assert en["detail"] != de["detail"]


def test_engine_refusals_of_states(http: TestClient) -> None:
    state = copy.deepcopy(EXAMPLE_STATE)
    state["variant"] = "bridge"
    p = is_problem(http.post("/v1/legal-actions", json={"state": state}), 422,
                   "UNKNOWN_VARIANT")
    assert p["problems"][0]["path"].startswith("/state")
    state = copy.deepcopy(EXAMPLE_STATE)
    state["hands"][0] = state["hands"][0][:-1]
    p = is_problem(http.post("/v1/check", json={"state": state, "actions": [{"type": "draw"}]}),
                   422, "INVALID_STATE")
    assert p["problems"]


# --- malformed requests and limits --------------------------------------------------------------


@pytest.mark.parametrize("op", ["deal", "validate", "legal-actions", "check", "apply", "score"])
def test_bad_json_is_a_problem(http: TestClient, op: str) -> None:
    en = is_problem(http.post(f"/v1/{op}", content=b"{not json"), 422, "MALFORMED_REQUEST")
    de = is_problem(http.post(f"/v1/{op}", content=b"{not json", headers=DE), 422,
                    "MALFORMED_REQUEST")
    assert en["problems"][0]["code"] == "BAD_JSON"
    assert en["detail"] == "The request is malformed." and de["detail"] != en["detail"]
    is_problem(http.post(f"/v1/{op}", content=b""), 422, "MALFORMED_REQUEST")
    is_problem(http.post(f"/v1/{op}", content=b"[1, 2]"), 422, "MALFORMED_REQUEST")


def test_every_field_error_with_its_json_pointer(http: TestClient) -> None:
    state = copy.deepcopy(EXAMPLE_STATE)
    state["hands"][0][3] = "1X"
    state["turn"]["phase"] = "lunch"
    del state["stock"]
    state["colour"] = "red"
    body = {"state": state, "actions": [{"type": "meld", "cards": ["QS", "ZZ"]}, {"type": "fly"}]}
    p = is_problem(http.post("/v1/check", json=body), 422, "MALFORMED_REQUEST")
    found = {(q["code"], q["path"]) for q in p["problems"]}
    assert {("BAD_CARD_CODE", "/state/hands/0/3"), ("MISSING_FIELD", "/state/stock"),
            ("UNKNOWN_FIELD", "/state/colour"), ("BAD_CARD_CODE", "/actions/0/cards/1"),
            ("BAD_VALUE", "/state/turn/phase")} <= found
    assert any(path == "/actions/1" or path.startswith("/actions/1/") for _, path in found)


def test_too_many_actions(http: TestClient) -> None:
    many = {"state": EXAMPLE_STATE, "actions": [{"type": "draw"}] * 201}
    p = is_problem(http.post("/v1/check", json=many), 422, "TOO_MANY_ACTIONS")
    assert p["problems"][0]["path"] == "/actions"
    with client(max_actions=3) as small:
        four = {"state": EXAMPLE_STATE, "actions": [{"type": "draw"}] * 4}
        de = is_problem(small.post("/v1/apply", json=four, headers=DE), 422, "TOO_MANY_ACTIONS")
        assert "3" in de["detail"] and "Aktionen" in de["detail"]
        three = {"state": EXAMPLE_STATE, "actions": [{"type": "discard", "card": "4C"}] * 3}
        assert small.post("/v1/check", json=three).status_code == 200


def test_body_too_large_with_and_without_content_length() -> None:
    with client(max_body_bytes=2048) as small:
        big = b'{"state": "' + b"x" * 4000 + b'"}'
        p = is_problem(small.post("/v1/check", content=big), 413, "BODY_TOO_LARGE")
        assert "2048" in p["detail"]

        def chunks() -> Iterator[bytes]:
            for _ in range(8):
                yield b" " * 512

        de = is_problem(small.post("/v1/legal-actions", content=chunks(), headers=DE), 413,
                        "BODY_TOO_LARGE")
        assert "Bytes" in de["detail"]
        is_problem(small.post("/graphql", content=big, headers={
            "content-type": "application/json"}), 413, "BODY_TOO_LARGE")
        ok = small.post("/v1/legal-actions", json={"state": EXAMPLE_STATE})
        assert ok.status_code == 200


def test_unknown_paths_and_methods(http: TestClient) -> None:
    is_problem(http.get("/v2/anything"), 404, "NOT_FOUND")
    de = is_problem(http.get("/nowhere", headers=DE), 404, "NOT_FOUND")
    assert de["detail"] == "Diesen Endpunkt gibt es nicht."
    # a slash more is another path, not found: no redirect (its Location came from the client's
    # Host header, and POST clients seldom follow one)
    for method, path in (("POST", "/v1/validate/"), ("POST", "/graphql/"), ("GET", "/healthz/"),
                         ("GET", "/v1/variants/classic/")):
        r = http.request(method, path, json={}, headers={"host": "evil.example"},
                         follow_redirects=False)
        is_problem(r, 404, "NOT_FOUND")
        assert "location" not in r.headers
    r = http.get("/v1/check")
    is_problem(r, 405, "METHOD_NOT_ALLOWED")
    assert r.headers["allow"] == "POST"
    is_problem(http.delete("/v1/variants"), 405, "METHOD_NOT_ALLOWED")
    is_problem(http.post("/healthz"), 405, "METHOD_NOT_ALLOWED")


def test_an_unexpected_exception_is_a_logged_problem_500(
        capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(Settings(log_level="info"))

    async def boom(request: Request) -> Any:
        raise RuntimeError("a bug")

    app.router.routes.append(Route("/boom", boom))
    with TestClient(app, raise_server_exceptions=False) as c:
        p = is_problem(c.get("/boom", headers=DE), 500, "INTERNAL_ERROR")
    assert "protokolliert" in p["detail"] and "a bug" not in json.dumps(p)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]
    assert any(line["msg"] == "unexpected error" and "a bug" in line["exc"] for line in lines)


def test_accept_language() -> None:
    assert language(None) == "en" and language("") == "en"
    assert language("de") == "de" and language("de-AT") == "de"
    assert language("fr, de;q=0.5, en;q=0.4") == "de"
    assert language("en;q=0.9, de;q=0.8") == "en"
    assert language("fr") == "en" and language("de;q=x") == "en"
    assert language("de;q=0, en;q=0.1") == "en" and language("de;q=0") == "en"


# --- cache --------------------------------------------------------------------------------------


def test_x_cache_miss_then_hit_and_keys_that_must_differ(dealt: dict[str, Any]) -> None:
    with client() as c:
        body = {"state": dealt}
        first = c.post("/v1/legal-actions", json=body)
        again = c.post("/v1/legal-actions", json=body)
        assert (first.headers["x-cache"], again.headers["x-cache"]) == ("miss", "hit")
        assert first.content == again.content
        # the same request written differently: in process an entry of its own (the key is
        # the exact bytes; Redis shares them, tests/test_service_redis.py), the same answer
        spaced = json.dumps(body, indent=3).replace('"QS"', '"qs"')
        options = dict(reversed(dealt["options"].items()))
        assert len(options) > 1
        turned = json.dumps({"state": dict(reversed({**dealt, "options": options}.items()))})
        for written in (spaced, turned):
            r = c.post("/v1/legal-actions", content=written)
            assert r.headers["x-cache"] == "miss" and r.content == first.content
            r = c.post("/v1/legal-actions", content=written)
            assert r.headers["x-cache"] == "hit" and r.content == first.content
        # another language, operation, view or option set: other entries
        assert c.post("/v1/legal-actions", json=body, headers=DE).headers["x-cache"] == "miss"
        assert c.post("/v1/score", json=body).headers["x-cache"] == "miss"
        view = copy.deepcopy(dealt)
        view["hands"][1] = {"size": len(dealt["hands"][1])}
        assert c.post("/v1/legal-actions", json={"state": view}).headers["x-cache"] == "miss"
        house = copy.deepcopy(dealt)
        house["options"]["natural_majority"] = True
        r = c.post("/v1/legal-actions", json={"state": house})
        assert r.headers["x-cache"] == "miss"
        # refusals are cached too (they are as deterministic as answers)
        ask = {"state": dealt, "actions": [{"type": "ask"}]}
        assert c.post("/v1/apply", json=ask).headers["x-cache"] == "miss"
        assert c.post("/v1/apply", json=ask).headers["x-cache"] == "hit"
        # malformed requests have no canonical form: not cached
        assert "x-cache" not in c.post("/v1/apply", content=b"{").headers
        metrics = c.get("/metrics").text
        assert 'canasta_cache_hits_total{op="legal-actions",tier="local"} 3.0' in metrics
        assert 'canasta_cache_misses_total{op="legal-actions"} 6.0' in metrics


def test_the_in_process_key_is_the_exact_bytes_and_long_ones_their_digest(
        dealt: dict[str, Any]) -> None:
    """In process an answer is kept once, under the request's exact bytes (RAW_KEY_BYTES at
    most; a longer body, here padded with spaces, under its SHA-256): a repeat hits without
    validation, another spelling of the same request is an entry of its own."""
    with client() as c:
        keys = c.app.state.svc.cache.local._data  # type: ignore[attr-defined]
        small = orjson.dumps({"state": dealt})
        first = c.post("/v1/legal-actions", content=small)
        assert first.headers["x-cache"] == "miss"
        assert list(keys) == [("legal-actions", "en", small)]
        assert c.post("/v1/legal-actions", content=small).headers["x-cache"] == "hit"
        data = handlers.request_data("legal-actions", small)
        assert isinstance(data, dict)
        canonical = orjson.dumps(data)
        assert canonical != small
        r = c.post("/v1/legal-actions", content=canonical)
        assert r.headers["x-cache"] == "miss" and r.content == first.content and len(keys) == 2
        big = small[:-1] + b" " * RAW_KEY_BYTES + b"}"
        r = c.post("/v1/legal-actions", content=big)
        assert r.headers["x-cache"] == "miss" and r.content == first.content
        assert list(keys)[-1] == ("legal-actions", "en", hashlib.sha256(big).digest())
        again = c.post("/v1/legal-actions", content=big)
        assert again.headers["x-cache"] == "hit" and len(keys) == 3
        view = copy.deepcopy(dealt)
        view["hands"][0] = {"size": len(dealt["hands"][0])}
        big_view = orjson.dumps({"state": view})[:-1] + b" " * RAW_KEY_BYTES + b"}"
        r = c.post("/v1/legal-actions", content=big_view)
        assert r.headers["x-cache"] == "miss" and r.content != first.content
        assert r.content == c.post("/v1/legal-actions", json={"state": view}).content


def test_long_requests_are_keyed_by_their_digest_in_process(dealt: dict[str, Any]) -> None:
    """A request over RAW_KEY_BYTES (200 actions) is kept in process under its SHA-256, not
    its bytes, and a repeat of it hits."""
    hand = dealt["hands"][dealt["turn"]["seat"]]
    body = {"state": dealt, "actions": [{"type": "meld", "cards": hand, "rank": "K"}] * 200}
    with client() as c:
        keys = c.app.state.svc.cache.local._data  # type: ignore[attr-defined]
        first = c.post("/v1/check", json=body)
        assert first.status_code == 200 and first.headers["x-cache"] == "miss"
        assert [len(k[2]) for k in keys] == [32]
        again = c.post("/v1/check", json=body)
        assert again.headers["x-cache"] == "hit" and again.content == first.content


def test_caching_can_be_turned_off(dealt: dict[str, Any]) -> None:
    with client(cache_size=0) as c:
        r = c.post("/v1/legal-actions", json={"state": dealt})
        assert r.status_code == 200 and r.headers["x-cache"] == "bypass"
    with client(cache_ops=frozenset({"check"})) as c:
        assert c.post("/v1/score", json={"state": dealt}).headers["x-cache"] == "bypass"


def test_a_dead_redis_only_means_computing(dealt: dict[str, Any]) -> None:
    """REDIS_URL naming a closed port: answers stay correct, readyz stays ready (degraded)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ops = frozenset({"legal-actions", "check", "score"})
    with client(redis_url=f"redis://127.0.0.1:{port}/0", redis_ops=ops, cache_size=0) as c:
        for _ in range(5):
            r = c.post("/v1/legal-actions", json={"state": dealt})
            assert r.status_code == 200 and r.headers["x-cache"] == "miss"
        ready = c.get("/readyz")
        assert ready.status_code == 200
        assert ready.json()["ready"] is True and ready.json()["degraded"] is True
        assert ready.json()["cache"]["redis"] == "degraded"
        # a dead Redis fails reads and writes: both breakers open
        assert ready.json()["cache"]["breakers"] == {"read": "open", "write": "open"}
        metrics = c.get("/metrics").text
        assert 'canasta_redis_errors_total{op="legal-actions"}' in metrics
        assert 'canasta_redis_skipped_total{op="legal-actions"}' in metrics  # breaker open
        assert 'canasta_redis_writes_skipped_total{op="legal-actions"}' in metrics
        assert 'canasta_redis_breaker_open{path="read"} 1.0' in metrics
        assert 'canasta_redis_breaker_open{path="write"} 1.0' in metrics


# --- operations, docs ---------------------------------------------------------------------------


def test_health_ready_metrics(http: TestClient) -> None:
    assert http.get("/healthz").json() == {"status": "ok"}
    ready = http.get("/readyz").json()
    assert ready["ready"] is True and ready["degraded"] is False
    assert ready["cache"]["redis"] == "off"
    assert ready["engine"] == {"id": ENGINE_ID, "build": engine.BUILD, "writer": text.WRITER}
    m = http.get("/metrics")
    assert m.status_code == 200 and m.headers["content-type"].startswith("text/plain")
    for name in ("canasta_requests_total", "canasta_request_seconds_bucket",
                 "canasta_cache_hits_total", "canasta_cache_misses_total"):
        assert name in m.text
    assert 'canasta_requests_total{op="healthz",status="200"}' in m.text
    assert (f'canasta_engine_info{{build="{engine.BUILD}",id="{ENGINE_ID}",'
            f'writer="{text.WRITER}"}} 1.0') in m.text



def test_every_metric_has_a_row_in_the_docs(http: TestClient) -> None:
    """docs/operations.md's metrics table names every metric `/metrics` exposes, and no metric
    it does not."""
    from canasta_referee.service.openapi import COMMITTED as doc

    text = (doc.parent.parent / "docs" / "operations.md").read_text()
    table = text.split("\n## Metrics\n", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`((?:canasta|process|python)_[a-z_]+)", table))
    exposed = {line.split()[2] for line in http.get("/metrics").text.splitlines()
               if line.startswith("# TYPE ")}
    # a counter's family is exposed as NAME (its TYPE line) and documented as NAME_total
    exposed = {f"{name}_total" if f"{name}_total" in documented else name for name in exposed}
    assert exposed - documented == set(), "metrics without a row in docs/operations.md"
    assert documented - exposed == set(), "rows for metrics /metrics does not expose"

def test_one_json_log_line_per_request(capsys: pytest.CaptureFixture[str]) -> None:
    with TestClient(create_app(Settings(log_level="info"))) as c:
        capsys.readouterr()
        c.post("/v1/legal-actions", json={"state": EXAMPLE_STATE})
        c.get("/nowhere")
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line]
    requests = [line for line in lines if line["msg"] == "request"]
    assert [(r["path"], r["status"], r["cache"]) for r in requests] == [
        ("/v1/legal-actions", 200, "miss"), ("/nowhere", 404, None)]
    assert requests[0]["op"] == "legal-actions" and requests[0]["ms"] > 0
    assert all(round(r["ms"], 3) == r["ms"] for r in requests)  # to the microsecond
    assert requests[0]["level"] == "info" and requests[0]["ts"].endswith("Z")


def test_openapi_is_served_as_committed(http: TestClient) -> None:
    r = http.get("/openapi.json")
    assert r.status_code == 200 and r.content == COMMITTED.read_bytes(), (
        "run `python -m canasta_referee.service.openapi` to regenerate openapi/openapi.json")
    doc = r.json()
    assert doc["openapi"] == "3.1.0"
    for path, item in doc["paths"].items():
        for method, op in item.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                assert body["examples"], (method, path)
            for status, resp in op["responses"].items():
                for media in resolved(resp, doc)["content"].values():
                    assert media["examples"], (method, path, status)


def test_docs_and_graphiql_pages_load_only_this_service(http: TestClient) -> None:
    """/docs (Swagger UI) and GET /graphql (GraphiQL) name no other host: every script and
    style is one of the service's /static/ assets, which it serves, under a policy that allows
    nothing else (tests/test_browser_docs.py runs them in a browser)."""
    import re

    from canasta_referee.service import ui

    for path, headers in (("/docs", {}), ("/graphql", {"accept": "text/html"})):
        r = http.get(path, headers=headers)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert r.headers["content-security-policy"] == ui.CSP
        assert "http:" not in r.text and "https:" not in r.text and "//" not in r.text
        assets = re.findall(r'(?:src|href)="([^"]+)"', r.text)
        assert assets and all(a.startswith("/static/") or a == "data:," for a in assets), assets
        for asset in assets:
            if asset.startswith("/static/"):
                a = http.get(asset)
                assert a.status_code == 200 and len(a.content) > 100, asset
                assert http.get(asset, headers={"if-none-match": a.headers["etag"]}
                                ).status_code == 304
    assert "default-src 'none'" in ui.CSP and "unsafe" not in ui.CSP
    is_problem(http.get("/static/../service/app.py"), 404, "NOT_FOUND")
    is_problem(http.get("/static/swagger-ui/index.html"), 404, "NOT_FOUND")  # not listed


def test_echo_is_off_by_default(http: TestClient) -> None:
    assert http.post("/v1/echo", content=b"{}").status_code == 404
    with client(bench_echo=True) as c:
        assert c.post("/v1/echo", content=orjson.dumps({"state": EXAMPLE_STATE})).json()["ok"]


# --- settings -----------------------------------------------------------------------------------


def test_settings_from_environment() -> None:
    s = Settings.from_env({"PORT": "9000", "REDIS_URL": "redis://r:6379/1", "CACHE_OPS": "check, score",
                           "GRAPHQL_IDE": "yes", "REDIS_TIMEOUT": "0.2", "LOG_LEVEL": ""})
    assert (s.port, s.redis_url, s.cache_ops, s.graphql_ide, s.redis_timeout, s.log_level) == (
        9000, "redis://r:6379/1", frozenset({"check", "score"}), True, 0.2, "info")
    assert Settings.from_env({}) == Settings()
    for bad in ({"MAX_ACTIONS": "500"}, {"CACHE_OPS": "deal"}, {"LOG_LEVEL": "loud"},
                {"PORT": "eighty"}, {"MAX_BODY_BYTES": "10"},
                {"CACHE_TTL": "0.0005"}):  # Redis keeps entries whole milliseconds
        with pytest.raises(ValueError):
            Settings.from_env(bad)


def test_readme_documents_every_setting() -> None:
    """docs/operations.md holds the configuration table generated from the settings (every
    setting, its default and meaning): `python -m canasta_referee.service.settings --write`."""
    from canasta_referee.service.openapi import COMMITTED as doc
    from canasta_referee.service.settings import DOCS, TABLE_TARGET, table_block

    text = (doc.parent.parent / TABLE_TARGET).read_text()
    assert table_block() in text, (
        f"run `python -m canasta_referee.service.settings --write` to update {TABLE_TARGET}")
    for name in DOCS:
        assert f"| `{name}` |" in text, f"{name} is missing from {TABLE_TARGET}"


def test_huge_but_allowed_inputs_answer_fast() -> None:
    """Bodies near MAX_BODY_BYTES (the most cards and actions the wire allows) answer well
    under a second, with a problem document or an answer, never a 500."""
    import time

    deck = [r + s for r in "AKQJT98765432" for s in "SHDC"] * 2 + ["JK"] * 4
    state = copy.deepcopy(EXAMPLE_STATE)
    state["hands"] = [(deck * 5)[:500] for _ in range(8)]
    state["turn"] = {"seat": 0, "phase": "play", "drawn": True}
    big_meld = {"type": "meld", "cards": (deck * 5)[:500]}
    bodies = {
        "validate": {"state": state},
        "legal-actions": {"state": state},
        "score": {"state": state},
        "check": {"state": EXAMPLE_STATE, "actions": [big_meld] * 40},
        "apply": {"state": EXAMPLE_STATE, "actions": [{"type": "discard", "card": "4C"}] * 200},
    }
    with client() as c:
        for op, body in bodies.items():
            raw = orjson.dumps(body)
            assert len(raw) < Settings().max_body_bytes, (op, len(raw))
            started = time.perf_counter()
            r = c.post(f"/v1/{op}", content=raw)
            assert time.perf_counter() - started < 1.0, op
            assert r.status_code in (200, 422), (op, r.text[:200])


# --- GraphQL ------------------------------------------------------------------------------------


def gql(c: TestClient, query: str, lang: str = "en", **variables: Any) -> dict[str, Any]:
    r = c.post("/graphql", json={"query": query, "variables": variables},
               headers={"Accept-Language": lang})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = r.json()
    assert "errors" not in body or body["errors"] is None, body
    return body["data"]  # type: ignore[no-any-return]


PROBLEM = "... on Problem { status code detail problems { code path message } reason { code } index }"


def test_graphql_catalogue_and_deal(http: TestClient, dealt: dict[str, Any]) -> None:
    d = gql(http, "{ variants { id players } variant(id: \"german\") { __typename ... on Variant "
                  "{ id fingerprint options rules } } nope: variant(id: \"bridge\") { __typename "
                  f"{PROBLEM} }} }}")
    assert "classic" in [v["id"] for v in d["variants"]]
    assert d["variant"]["__typename"] == "Variant" and len(d["variant"]["fingerprint"]) == 16
    assert d["nope"]["__typename"] == "Problem" and d["nope"]["status"] == 404
    d = gql(http, "query($i: DealInput) { deal(input: $i) { __typename ... on Deal { state events } "
                  f"{PROBLEM} }} }}", i={"seed": 42, "dealer": 3, "scores": [0, 1600]})
    assert d["deal"]["state"] == dealt
    d = gql(http, f"{{ deal(input: {{dealer: 6}}) {{ __typename {PROBLEM} }} }}", "de")
    assert d["deal"]["code"] == "SEAT_OUT_OF_RANGE" and d["deal"]["problems"][0]["path"] == "/dealer"


def test_graphql_typed_actions_and_actions_json_are_the_rest_list(http: TestClient) -> None:
    """``legalActions``: the typed list (built only when selected) and ``actionsJson`` give the
    REST answer's actions, on six-player mid-deal states with long lists."""
    q = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions {"
         " %s } } }")
    rules = engine.rules_for("classic", {"players": 6})
    seen = 0
    for state, actions in playout(rules, 3, check=False, eager=True):
        if state.turn.phase != "play" or len(actions) < 30 or seen == 3:
            continue
        data = engine.state_to_data(state)
        rest = http.post("/v1/legal-actions", json={"state": data}).json()["actions"]
        typed = gql(http, q % "actions { type seat cards card rank allow }", s=data)
        listed = [{k: v for k, v in a.items() if v is not None}
                  for a in typed["legalActions"]["actions"]]
        assert listed == rest
        only_json = gql(http, q % "actionsJson", s=data)["legalActions"]
        assert only_json == {"__typename": "LegalActions", "actionsJson": rest}
        seen += 1
    assert seen == 3


def test_graphql_rules_operations(http: TestClient, dealt: dict[str, Any]) -> None:
    q = ("query($s: JSON!) {"
         " validate(state: $s) { __typename ... on Validation { valid problems { code path } } }"
         " legalActions(state: $s) { __typename ... on LegalActions { seat phase"
         "   actions { type seat cards card rank allow } actionsJson } }"
         " ok: check(state: $s, actions: [{type: DRAW}]) { __typename ... on Legal { legal } }"
         " no: check(state: $s, actions: [{type: DISCARD, card: \"JK\"}]) { __typename"
         "   ... on Illegal { legal index reason { code message rule } } }"
         " apply(state: $s, actions: [{type: DRAW}]) { __typename ... on Applied { state events } }"
         " refused: apply(state: $s, actions: [{type: ASK}]) { __typename " + PROBLEM + " }"
         " score(state: $s) { __typename ... on Score { sides { side seats total breakdown {"
         "   meldedCards handCards canastaBonus bonusCards goingOut penalties total } }"
         "   scores gameOver winner nextMinimums } } }")
    en, de = gql(http, q, s=dealt), gql(http, q, "de", s=dealt)
    assert en["validate"] == {"__typename": "Validation", "valid": True, "problems": []}
    la = en["legalActions"]
    assert la["seat"] == 0 and la["phase"] == "draw" and la["actionsJson"][0]["type"] == "draw"
    assert en["ok"] == {"__typename": "Legal", "legal": True}
    assert en["no"]["__typename"] == "Illegal" and en["no"]["reason"]["code"] == "WRONG_PHASE"
    assert en["no"]["reason"]["message"] != de["no"]["reason"]["message"]
    assert en["apply"]["__typename"] == "Applied" and en["apply"]["state"]["turn"]["phase"] == "play"
    assert en["refused"]["code"] == "ILLEGAL_ACTION" and en["refused"]["reason"]["code"] == "WRONG_PHASE"
    assert en["refused"]["index"] == 0
    rest = http.post("/v1/score", json={"state": dealt}).json()
    assert en["score"]["scores"] == rest["scores"] and en["score"]["nextMinimums"] == rest["next_minimums"]
    assert en["score"]["sides"][0]["breakdown"]["total"] == rest["sides"][0]["breakdown"]["total"]


def test_graphql_refusals_are_union_members(http: TestClient) -> None:
    bad = copy.deepcopy(EXAMPLE_STATE)
    bad["hands"][0][0] = "1X"
    d = gql(http, f"query($s: JSON!) {{ legalActions(state: $s) {{ __typename {PROBLEM} }}"
                  f" score(state: {{}}) {{ __typename {PROBLEM} }}"
                  f" check(state: $s, actions: [{{type: MELD, cards: [\"ZZ\"]}}])"
                  f" {{ __typename {PROBLEM} }} }}",
            "de", s=bad)
    assert d["legalActions"]["code"] == "MALFORMED_REQUEST"
    assert d["legalActions"]["detail"] == "Die Anfrage ist fehlerhaft."
    assert {"code": "BAD_CARD_CODE", "path": "/state/hands/0/0"} in [
        {"code": p["code"], "path": p["path"]} for p in d["legalActions"]["problems"]]
    assert d["score"]["code"] == "MALFORMED_REQUEST"
    assert "/actions/0/cards/0" in [p["path"] for p in d["check"]["problems"]]
    d = gql(http, f"{{ score(state: {json.dumps(json.dumps(EXAMPLE_STATE))}) {{ __typename {PROBLEM} }} }}")
    assert d["score"]["code"] == "MALFORMED_REQUEST"  # a string is not a state


def test_graphql_limits_and_transport_errors(http: TestClient) -> None:
    many = "{ " + " ".join(f"a{i}: variants {{ id }}" for i in range(9)) + " }"
    p = is_problem(http.post("/graphql", json={"query": many}), 400, "QUERY_TOO_COMPLEX")
    assert p["problems"][0]["code"] == "TOO_MANY_ALIASES"  # more in tests/test_graphql_cost.py
    assert http.get("/graphql").headers["content-type"].startswith("text/html")  # GraphiQL
    with client(graphql_ide=False) as off:
        is_problem(off.get("/graphql"), 404, "NOT_FOUND")
        is_problem(off.get("/graphql", headers={"accept": "text/html"}), 404, "NOT_FOUND")
    p = is_problem(http.post("/graphql", content=b"{bad", headers={
        "content-type": "application/json", "accept-language": "de"}), 400, "BAD_GRAPHQL_REQUEST")
    assert p["detail"].startswith("Keine GraphQL-Anfrage")
    is_problem(http.post("/graphql", content=b"{}", headers={"content-type": "text/plain"}), 400,
               "BAD_GRAPHQL_REQUEST")
    # a JSON body that is not an object: strawberry looked a query up in it and failed (a 500)
    for body in (b'"x"', b"3", b" null", b"true", b"false", b"-1.5e3", b"x"):
        for lang, said in (("en", "The request body must be a JSON object"),
                           ("de", "der Anfragetext muss ein JSON-Objekt sein")):
            p = is_problem(http.post("/graphql", content=body, headers={
                "content-type": "application/json", "accept-language": lang}), 400,
                "BAD_GRAPHQL_REQUEST")
            assert said in p["detail"], p
    # JSON nested deeper than any parser should recurse (stdlib json raised RecursionError: 500)
    deep = b'{"query": "{ variants { id } }", "variables": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    is_problem(http.post("/graphql", content=deep, headers={"content-type": "application/json"}),
               400, "BAD_GRAPHQL_REQUEST")
    is_problem(http.post("/v1/legal-actions", content=b'{"state": ' + b"[" * 5000 + b"]" * 5000
                         + b"}"), 422, "MALFORMED_REQUEST")
    # nested past msgspec's depth (Python's recursion limit) but within orjson's 1,024 levels:
    # msgspec's RecursionError is not a 500; read as orjson reads it (a member the query does
    # not use: answered) or, for a batch's operation, refused as the models refuse it
    for depth in (990, 1000, 1020):
        deep = b"[" * depth + b"]" * depth
        for body in (b'{"query":"{ variants { id } }","variables":{"x":' + deep + b"}}",
                     b'{"query":"{ variants { id } }","extensions":{"x":' + deep + b"}}",
                     b'{"query":"{ variants { id } }","z":' + deep + b"}"):
            for _ in range(2):  # the second time the document is known: the fast path reads
                r = http.post("/graphql", content=body,
                              headers={"content-type": "application/json"})
                assert r.status_code == 200 and r.json()["data"]["variants"], (depth, r.text)
        is_problem(http.post("/v1/batch", content=b'{"operations":[{"op":"validate","body":'
                             + deep + b"}]}"), 422, "MALFORMED_REQUEST")
    # a JSON variable too deep to pass on as a REST body: a Problem, not a top-level error
    q = "query($s: JSON!) { legalActions(state: $s) { __typename " + PROBLEM + " } }"
    for lang in ("en", "de"):
        deep_state = json.loads("[" * 300 + "]" * 300)
        d = gql(http, q, lang, s=deep_state)["legalActions"]
        assert d["__typename"] == "Problem" and d["code"] == "MALFORMED_REQUEST"
        assert d["problems"][0]["path"] == "" and d["status"] == 422
    # a variable the request does not set, inside a JSON literal: null where it stands, so the
    # problem names its place (it was taken for nesting too deep, at path "")
    unset = ("query($v: Int) { validate(state: {scores: [$v]}) { __typename " + PROBLEM
             + " } }")
    d = gql(http, unset, "en")["validate"]
    assert d["code"] == "MALFORMED_REQUEST"
    assert {"code": "BAD_VALUE", "path": "/state/scores/0"} in [
        {k: p[k] for k in ("code", "path")} for p in d["problems"]]
    # a document of several operations runs the one `operationName` names; without a name it
    # is an error, as the spec's "GetOperation" has it (strawberry ran the first)
    two = "query A { variants { id } } query B { variant(id: \"german\") { __typename } }"
    for _ in range(2):
        r = http.post("/graphql", json={"query": two})
        assert r.status_code == 200 and r.json() == {"data": None, "errors": [{
            "message": "Must provide operation name if query contains multiple operations."}]}
    assert http.post("/graphql", json={"query": two, "operationName": "B"}).json() == {
        "data": {"variant": {"__typename": "Variant"}}}
    is_problem(http.put("/graphql"), 405, "METHOD_NOT_ALLOWED")
    # queries over POST only (issue 17): GET /graphql is the GraphiQL page
    r = http.get("/graphql", params={"query": "{ variants { id } }"})
    assert is_problem(r, 405, "METHOD_NOT_ALLOWED") and r.headers["allow"] == "POST"


def test_the_shared_key_changes_with_every_source_and_limit_of_an_answer(
        tmp_path: Path) -> None:
    """The Redis key's code id covers every source that shapes an answer: the engine, the
    schema's messages and its native writer's C, the service; a file of no answer (a static
    page) leaves it. Replicas cutting answers at other limits (MAX_PROBLEMS,
    MAX_LEGAL_ACTIONS) share no key either."""
    import shutil

    from canasta_referee.service import app as service_app
    from canasta_referee.service.app import Service

    package = Path(service_app.__file__).resolve().parent.parent
    copy_of = tmp_path / "canasta_referee"
    for part in ("engine", "schema", "service"):
        shutil.copytree(package / part, copy_of / part, ignore=shutil.ignore_patterns(
            "__pycache__", "*.so"))
    base = service_app._engine_id(copy_of)
    assert base == service_app._engine_id(copy_of)
    for changed in ("engine/play.py", "schema/messages.py", "schema/_text.c", "service/app.py"):
        path = copy_of / changed
        before = path.read_bytes()
        path.write_bytes(before + b"\n")
        assert service_app._engine_id(copy_of) != base, changed
        path.write_bytes(before)
    page = copy_of / "service" / "static" / "docs.js"
    page.write_bytes(page.read_bytes() + b"\n")
    assert service_app._engine_id(copy_of) == base
    from canasta_referee.engine import rules_for

    keys = {Service(Settings(**limits)).key("legal-actions", "en", b"{}", rules_for("classic"))
            for limits in ({}, {"max_problems": 5}, {"max_legal_actions": 50})}
    assert len(keys) == 3


def test_of_two_accept_language_headers_the_first_counts(http: TestClient) -> None:
    """Every path reads the first ``Accept-Language`` (Starlette and strawberry do): REST, a
    GraphQL query answered by strawberry the first time and by its plan after, the problems of
    the middleware."""
    headers = [("accept-language", "de"), ("accept-language", "en"),
               ("content-type", "application/json")]
    body = json.dumps({"state": {**EXAMPLE_STATE, "scores": [7, 7]}}).encode()
    r = http.post("/v1/legal-actions", content=body, headers=headers)
    assert r.headers["content-language"] == "de"
    query = json.dumps({"query": "query($s: JSON!) { legalActions(state: $s) { __typename } }",
                        "variables": {"s": EXAMPLE_STATE}}).encode()
    for _ in range(3):
        r = http.post("/graphql", content=query, headers=headers)
        assert r.status_code == 200 and r.headers["content-language"] == "de"
    r = http.post("/nowhere", content=b"{}", headers=headers)
    assert r.headers["content-language"] == "de" and r.json()["detail"].startswith("Diesen")


def test_a_graphql_problem_is_the_whole_problem_document(http: TestClient) -> None:
    """docs/api.md, GraphQL: ``Problem`` is the problem document, ``type`` and ``title`` (in
    the request's language) too, the same as REST's, whether strawberry or the plan answers."""
    bad = {**EXAMPLE_STATE, "hands": EXAMPLE_STATE["hands"][:3]}
    rest = http.post("/v1/legal-actions", json={"state": bad}, headers=DE).json()
    query = ("query($s: JSON!) { legalActions(state: $s) { ... on Problem { type title status "
             "code detail } } }")
    for _ in range(3):
        got = gql(http, query, "de", s=bad)["legalActions"]
        assert got == {k: rest[k] for k in ("type", "title", "status", "code", "detail")}
    assert got["title"] == "Ungültiger Spielstand"


def test_an_option_whose_rule_table_allows_null_takes_null(http: TestClient) -> None:
    """CONTRACT.md 'Variant and options' (each option with its allowed values in the rule
    table): where the table lists null (classic ``sides`` and ``target``, german ``target``:
    their defaults follow the player count), a request may send null and gets the default, as
    if it had left the option out: a deal, a state's legal actions (compact, as the native
    reader takes it, and indented, as the models read it). An option whose table does not list
    null refuses it."""
    nullable = [(v["id"], o["name"]) for v in http.get("/v1/variants").json()["variants"]
                for o in http.get(f"/v1/variants/{v['id']}").json()["options"]
                if None in o.get("allowed", ())]
    assert sorted(nullable) == [("classic", "sides"), ("classic", "target"),
                                ("german", "target")]
    for variant, name in nullable:
        for players in ({"classic": (2, 3, 4, 6), "german": (3, 4)}[variant]):
            plain = {"variant": variant, "options": {"players": players}, "seed": 9}
            with_null = {**plain, "options": {"players": players, name: None}}
            dealt = http.post("/v1/deal", json=plain).json()["state"]
            assert http.post("/v1/deal", json=with_null).json()["state"] == dealt
            state = {**dealt, "options": with_null["options"]}
            for body in (json.dumps({"state": state}, separators=(",", ":")).encode(),
                         json.dumps({"state": state}, indent=1).encode()):
                r = http.post("/v1/legal-actions", content=body,
                              headers={"content-type": "application/json"})
                assert r.status_code == 200, r.text
                assert r.json() == http.post("/v1/legal-actions", json={"state": dealt}).json()
    r = http.post("/v1/deal", json={"options": {"ask_partner": None}, "seed": 1})
    assert r.status_code == 422 and r.json()["code"] == "BAD_OPTION_VALUE"
    assert r.json()["problems"][0]["path"] == "/options/ask_partner"


def test_a_request_s_options_may_be_null(http: TestClient) -> None:
    """A deal, a tally, a game and an audit log name their ruleset by ``variant`` and
    ``options``; ``"options": null`` is the defaults, as leaving it out (and as GraphQL's
    ``options: null`` always was): REST refused it as malformed."""
    log_deal = {"seed": 1, "dealer": 0, "actions": []}
    for path, body in (("/v1/deal", {"seed": 3}), ("/v1/score/tally", {"sides": [{}, {}]}),
                       ("/v1/game", {"rounds": []}), ("/v1/audit", {"deals": [log_deal]})):
        plain = http.post(path, json={"variant": "german", **body})
        with_null = http.post(path, json={"variant": "german", "options": None, **body})
        assert plain.status_code == with_null.status_code == 200, with_null.text
        assert with_null.json() == plain.json()
