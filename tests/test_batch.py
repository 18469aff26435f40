"""``POST /v1/batch`` over the real ASGI app (and, for the shared cache tier, a real uvicorn and
redis-server): operations answered in order, each with exactly the status and body of its
single request, a bad one failing alone; the cache shared with single requests both ways, in
process and through Redis; the limits; German; GraphQL; the fast way in against the model."""

from __future__ import annotations

import copy
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from starlette.testclient import TestClient

from canasta_referee.engine import rules_for, state_to_data
from canasta_referee.schema import canonical, handlers, models
from canasta_referee.schema.models import (
    EXAMPLE_ACTIONS,
    EXAMPLE_FULL_STATE,
    EXAMPLE_OVER_STATE,
    EXAMPLE_STATE,
)
from canasta_referee.service.settings import Settings
from tests.playout import playout
from tests.servers import RedisServer, Service
from tests.test_canonical import mutate
from tests.test_service_api import client

DE = {"Accept-Language": "de"}


@pytest.fixture
def http() -> Iterator[TestClient]:
    """A fresh app (an empty cache) per test."""
    with client() as c:
        yield c


def text(body: Any) -> bytes:
    return orjson.dumps(body)


def batch_bytes(operations: list[tuple[str, bytes]]) -> bytes:
    """A batch of operations whose bodies are these exact JSON texts."""
    return b'{"operations":[' + b",".join(
        b'{"op":"%s","body":%s}' % (op.encode(), raw) for op, raw in operations) + b"]}"


def tags(r: Any) -> list[str]:
    return [t.strip() for t in r.headers["x-cache"].split(",")]


def states(n: int) -> list[dict[str, Any]]:
    """Full states of a random deal, in phase draw or play."""
    out = []
    for state, _ in playout(rules_for("classic"), 18, check=False):
        if state.turn.phase in ("draw", "play"):
            out.append(state_to_data(state))
    return out[:n]


#: one operation of every kind, good and bad, with the single request's path
OPERATIONS: list[tuple[str, Any]] = [
    ("legal-actions", {"state": EXAMPLE_STATE}),
    ("check", {"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS}),
    ("check", {"state": EXAMPLE_FULL_STATE, "actions": [{"type": "discard", "card": "AS"}]}),
    ("apply", {"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS}),
    ("apply", {"state": EXAMPLE_FULL_STATE, "actions": [{"type": "draw"},
                                                        {"type": "discard", "card": "AS"}]}),
    ("score", {"state": EXAMPLE_OVER_STATE}),
    ("score", {"state": EXAMPLE_STATE}),  # NEEDS_HIDDEN_INFO
    ("validate", {"state": {**EXAMPLE_STATE, "hands": EXAMPLE_STATE["hands"][:3]}}),
    ("validate", {"state": 5}),  # malformed
    ("check", {"state": EXAMPLE_STATE, "actions": [{"type": "draw"}] * 201}),  # too many
    ("legal-actions", {"state": {**EXAMPLE_STATE, "variant": "bridge"}}),
    ("deal", {"seed": 18, "dealer": 1}),
    ("deal", {"dealer": 9}),
]


def test_each_operation_is_answered_as_its_single_request(http: TestClient) -> None:
    """In order, with the status and the exact body its single request gets, whatever the
    others do; in German too."""
    for headers in ({}, DE):
        r = http.post("/v1/batch", content=batch_bytes([(op, text(body))
                                                        for op, body in OPERATIONS]),
                      headers=headers)
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        results = r.json()["results"]
        assert len(results) == len(OPERATIONS)
        for (op, body), result in zip(OPERATIONS, results, strict=True):
            single = http.post(f"/v1/{op}", content=text(body), headers=headers)
            assert (result["status"], result["body"]) == (single.status_code, single.json()), op
        assert {r["status"] for r in results} == {200, 422}
        assert r.headers["content-language"] == (headers.get("Accept-Language") or "en")
    german = r.json()["results"][6]["body"]
    assert german["code"] == "NEEDS_HIDDEN_INFO" and german["detail"].startswith("Dafür fehlen")


def test_the_cache_is_shared_with_single_requests_both_ways(http: TestClient) -> None:
    """An operation whose body is the JSON text a single request sent finds that request's
    answer, and the other way round; X-Cache lists each operation's tag in order."""
    a, b, c = (text({"state": s}) for s in states(3))
    assert http.post("/v1/legal-actions", content=a).headers["x-cache"] == "miss"
    r = http.post("/v1/batch", content=batch_bytes([("legal-actions", a), ("legal-actions", b),
                                                    ("deal", b'{"seed":1}'),
                                                    ("score", b'{"state":1}'),
                                                    ("legal-actions", b)]))
    assert tags(r) == ["hit", "miss", "none", "none", "hit"]
    single = http.post("/v1/legal-actions", content=b)  # stored by the batch
    assert single.headers["x-cache"] == "hit"
    assert single.json() == r.json()["results"][1]["body"]
    assert http.post("/v1/legal-actions", content=c).headers["x-cache"] == "miss"
    r = http.post("/v1/batch", content=batch_bytes([("legal-actions", c)]))
    assert tags(r) == ["hit"]
    metrics = http.get("/metrics").text  # counted per operation, as single requests are
    assert 'canasta_cache_hits_total{op="legal-actions",tier="local"} 4.0' in metrics
    assert 'canasta_cache_misses_total{op="legal-actions"} 3.0' in metrics
    # the key is the body's text: the same request written otherwise is another entry
    spaced = json.dumps({"state": states(1)[0]}, indent=1).encode()
    r = http.post("/v1/batch", content=batch_bytes([("legal-actions", spaced)]))
    assert tags(r) == ["miss"]


def test_caching_off_says_bypass(http: TestClient) -> None:
    with client(cache_ops=frozenset({"check"})) as c:
        raw = text({"state": EXAMPLE_STATE})
        r = c.post("/v1/batch", content=batch_bytes([("legal-actions", raw), ("check", text(
            {"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS}))] * 2))
        assert tags(r) == ["bypass", "miss", "bypass", "hit"]


def test_through_redis_a_batch_finds_what_another_worker_stored() -> None:
    """Two services without an in-process tier on one Redis: a single request to the first
    is stored in Redis; an operation of a batch to the second finds it there, and a batch's
    operation stored by the second is a single request's hit at the first."""
    redis = RedisServer().start()
    env = {"CACHE_SIZE": "0", "REDIS_URL": redis.url, "REDIS_OPS": "legal-actions"}
    first, second = Service(env).start(), Service(env).start()
    try:
        a, b = (text({"state": s}) for s in states(2))
        with httpx.Client(base_url=first.url) as one, httpx.Client(base_url=second.url) as two:
            assert one.post("/v1/legal-actions", content=a).headers["x-cache"] == "miss"
            assert wait(lambda: tags(two.post("/v1/batch", content=batch_bytes(
                [("legal-actions", a)]))) == ["hit"])
            first_tags = tags(two.post("/v1/batch", content=batch_bytes([("legal-actions", b)])))
            assert first_tags == ["miss"]
            assert wait(lambda: one.post("/v1/legal-actions", content=b).headers[
                "x-cache"] == "hit")
    finally:
        first.stop()
        second.stop()
        redis.stop()


def wait(check: Any, seconds: float = 5.0) -> bool:
    """``check()`` until it holds (Redis is written after the answer)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


# --- through Redis: consecutive operations looked up together --------------------------------


@pytest.fixture(scope="module")
def redis() -> Iterator[RedisServer]:
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.stop()


def on_redis(redis: RedisServer, **settings: Any) -> TestClient:
    """The app with Redis as its only tier (for legal-actions), on a Redis emptied first."""
    assert redis.command("FLUSHALL").startswith(b"+OK")
    assert redis.command("CONFIG", "RESETSTAT").startswith(b"+OK")
    return client(redis_url=redis.url, redis_ops=frozenset({"legal-actions"}), cache_size=0,
                  **settings)


def calls(redis: RedisServer, command: str) -> int:
    """How many times Redis ran ``command`` since its statistics were reset."""
    stats = redis.command("INFO", "commandstats").decode()
    for line in stats.splitlines():
        if line.startswith(f"cmdstat_{command}:"):
            return int(line.split("calls=")[1].split(",")[0])
    return 0


def scored(state: dict[str, Any], n: int) -> bytes:
    """A legal-actions body: ``state`` with its first side's score ``n`` (a request of its own)."""
    return text({"state": {**state, "scores": [n, *state["scores"][1:]]}})


def stored(redis: RedisServer, keys: int) -> None:
    """Wait until Redis holds ``keys`` keys (answers are written after they are sent)."""
    assert wait(lambda: redis.command("DBSIZE") == b":%d\r\n" % keys), redis.command("DBSIZE")


def singly(bodies: list[bytes]) -> list[bytes]:
    """Each body's answer as a single request to an app without Redis."""
    with client(cache_size=0) as c:
        return [c.post("/v1/legal-actions", content=b).content for b in bodies]


def test_a_batch_reads_redis_once_for_each_group_and_finds_what_it_wrote(
        redis: RedisServer) -> None:
    """40 legal-actions operations missing in process: Redis is read with one MGET for each
    group of 16 (by the default cap of answers, 2 MiB, and CACHE_MAX_ENTRY_BYTES, 128 KiB)
    and no GET; the answers are those of single requests, written to Redis; the same batch
    again finds all 40 there."""
    bodies = [scored(EXAMPLE_STATE, n) for n in range(40)]
    batch = batch_bytes([("legal-actions", b) for b in bodies])
    expected = singly(bodies)
    with on_redis(redis) as c:
        r = c.post("/v1/batch", content=batch)
        assert tags(r) == ["miss"] * 40
        assert [orjson.dumps(x["body"]) for x in r.json()["results"]] == expected
        assert (calls(redis, "mget"), calls(redis, "get")) == (3, 0)
        stored(redis, 40)
        assert calls(redis, "set") == 40
        again = c.post("/v1/batch", content=batch)
        assert tags(again) == ["hit"] * 40 and again.content == r.content
        assert (calls(redis, "mget"), calls(redis, "get")) == (6, 0)
        metrics = c.get("/metrics").text
        assert 'canasta_cache_hits_total{op="legal-actions",tier="redis"} 40.0' in metrics
        assert 'canasta_cache_misses_total{op="legal-actions"} 40.0' in metrics


def test_a_group_ends_at_an_operation_not_looked_up_in_redis(redis: RedisServer) -> None:
    """Operations not looked up in Redis (check: not in REDIS_OPS, and no in-process tier), or
    answered without a look-up (a malformed body), are answered in their place between
    groups; the same request twice in one group is computed once (the second a hit, counted
    as ``flight``); a later group finds what an earlier one stored."""
    a, b = scored(EXAMPLE_STATE, 1), scored(EXAMPLE_STATE, 2)
    check = text({"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS})
    operations = [("legal-actions", a), ("legal-actions", b), ("legal-actions", a),
                  ("check", check), ("legal-actions", b), ("legal-actions", b"{}"),
                  ("legal-actions", a)]
    with on_redis(redis) as c:
        single = {raw: c.post(f"/v1/{op}", content=raw) for op, raw in operations}
        assert redis.command("FLUSHALL").startswith(b"+OK")
        assert redis.command("CONFIG", "RESETSTAT").startswith(b"+OK")
        r = c.post("/v1/batch", content=batch_bytes(operations))
        assert tags(r) == ["miss", "miss", "hit", "bypass", "hit", "none", "hit"]
        assert [(x["status"], orjson.dumps(x["body"])) for x in r.json()["results"]] == [
            (single[raw].status_code, single[raw].content) for _, raw in operations]
        # three groups ([a, b, a], [b] after the check, [a] after the malformed body): the
        # last two find what the first wrote (a group's answers are stored before the next)
        assert calls(redis, "mget") == 3 and calls(redis, "set") == 2
        assert 'canasta_cache_hits_total{op="legal-actions",tier="flight"} 1.0' in c.get(
            "/metrics").text


def test_a_batch_through_redis_passes_the_cap_where_it_does_in_process(
        redis: RedisServer) -> None:
    """Four large answers computed (six players, 12.3 KB each, too large to cache under
    CACHE_MAX_ENTRY_BYTES=4096), then eight of 3 KB found in Redis, under a cap of 64 KiB:
    the batch is refused at the same operation as without Redis, and the operations before
    it are answered as without Redis. (From the fourth on, the answers so far and those read
    from Redis cannot fit: the batch keeps none.)"""
    from bench.http import play_state

    big, medium = play_state(), play_state({}, actions=(40, 80))
    found = [scored(medium, n) for n in range(8)]
    mixed = [("legal-actions", scored(big, n)) for n in range(4)] + [
        ("legal-actions", raw) for raw in found]
    limits = {"max_bulk_answer_bytes": 64 * 1024, "cache_max_entry_bytes": 4096}
    with client(cache_size=0, **limits) as c:
        local = c.post("/v1/batch", content=batch_bytes(mixed))
        assert local.status_code == 422 and local.json()["code"] == "ANSWER_TOO_LARGE"
        at = int(local.json()["problems"][0]["path"].removeprefix("/operations/"))
        assert 4 < at < 12
        fits = c.post("/v1/batch", content=batch_bytes(mixed[:at]))
        assert fits.status_code == 200 and len(fits.json()["results"]) == at
    with on_redis(redis, **limits) as c:
        first = c.post("/v1/batch", content=batch_bytes([("legal-actions", b) for b in found]))
        assert tags(first) == ["miss"] * 8
        stored(redis, 8)
        r = c.post("/v1/batch", content=batch_bytes(mixed))
        assert r.status_code == 422 and r.json()["problems"] == local.json()["problems"]
        ok = c.post("/v1/batch", content=batch_bytes(mixed[:at]))
        assert ok.content == fits.content
        assert tags(ok) == ["miss"] * 4 + ["hit"] * (at - 4)


def test_a_batch_on_a_redis_that_is_down_computes_every_answer() -> None:
    """Redis refuses connections: each group's read and its write fail once (counted as op
    ``batch``), every answer is computed and right."""
    from tests.servers import free_port

    bodies = [scored(EXAMPLE_STATE, n) for n in range(20)]
    with client(redis_url=f"redis://127.0.0.1:{free_port()}/0", cache_size=0,
                redis_ops=frozenset({"legal-actions"}), redis_timeout=0.05,
                redis_breaker_failures=100) as c:
        r = c.post("/v1/batch", content=batch_bytes([("legal-actions", b) for b in bodies]))
        assert tags(r) == ["miss"] * 20
        assert [orjson.dumps(x["body"]) for x in r.json()["results"]] == singly(bodies)
        # two groups: each one read and one write (in the background) fail, 40 without groups
        assert wait(lambda: 'canasta_redis_errors_total{op="batch"} 4.0' in c.get(
            "/metrics").text)


def test_a_malformed_batch_is_refused_as_a_whole(http: TestClient) -> None:
    def paths(body: bytes, status: int = 422, code: str = "MALFORMED_REQUEST") -> list[str]:
        r = http.post("/v1/batch", content=body)
        assert r.status_code == status and r.json()["code"] == code, r.text[:300]
        assert r.headers["content-type"] == "application/problem+json"
        assert "x-cache" not in r.headers
        return [p["path"] for p in r.json()["problems"]]

    good = {"op": "validate", "body": {"state": EXAMPLE_STATE}}
    assert paths(b'{"operations": [') == [""]
    assert paths(text({"operations": []})) == ["/operations"]
    assert paths(text({"operations": [good, {"op": "audit", "body": {}}]})) == [
        "/operations/1/op"]
    assert paths(text({"operations": [{"op": "validate", "body": [1]}]})) == [
        "/operations/0/body"]
    assert paths(text({"operations": [{"op": "validate"}]})) == ["/operations/0/body"]
    assert paths(text({"operations": [{**good, "seat": 1}]})) == ["/operations/0/seat"]
    assert paths(text({"operations": [good] * 257}), code="TOO_MANY_OPERATIONS") == [
        "/operations"]


def test_limits() -> None:
    body = text({"operations": [{"op": "validate", "body": {"state": EXAMPLE_STATE}}] * 5})
    with client(max_batch=5) as c:
        assert c.post("/v1/batch", content=body).status_code == 200
    with client(max_batch=4) as c:
        r = c.post("/v1/batch", content=body, headers=DE)
        assert r.status_code == 422 and r.json()["code"] == "TOO_MANY_OPERATIONS"
        assert r.json()["detail"] == "Höchstens 4 Operationen pro Anfrage."
        # past the wire's bound too, the refusal names the setting (it said 256)
        many = text({"operations": [{"op": "deal", "body": {}}] * 257})
        assert c.post("/v1/batch", content=many).json()["detail"] == (
            "At most 4 operations per request.")
    with client(max_actions=50) as c:  # the same for a request's actions (it said 200)
        for n in (51, 201):
            r = c.post("/v1/check", content=text({"state": EXAMPLE_STATE,
                                                  "actions": [{"type": "draw"}] * n}))
            assert r.json()["detail"] == "At most 50 actions per request.", n
    # a batch's body has a limit of its own: 256 four-player states are more than
    # MAX_BODY_BYTES, not more than MAX_BATCH_BODY_BYTES
    full = text({"operations": [{"op": "legal-actions", "body": {"state": s}}
                                for s in (states(64) * 4)]})
    defaults = Settings()
    assert defaults.max_body_bytes < len(full) < defaults.max_batch_body_bytes
    with client() as c:
        r = c.post("/v1/batch", content=full)
        assert r.status_code == 200 and len(r.json()["results"]) == 256
        assert c.post("/v1/legal-actions", content=full).status_code == 413
    with client(max_batch_body_bytes=len(full) - 1) as c:
        r = c.post("/v1/batch", content=full)
        assert r.status_code == 413 and str(len(full) - 1) in r.json()["detail"]


def test_graphql_batches_as_rest_does(http: TestClient) -> None:
    query = """query($ops: [BatchOperation!]!) { batch(operations: $ops) { __typename
        ... on Batch { results { status body } } ... on Problem { code } } }"""
    ops = [{"op": op.upper().replace("-", "_"), "body": body} for op, body in OPERATIONS]
    got = http.post("/graphql", json={"query": query, "variables": {"ops": ops}}).json()
    rest = http.post("/v1/batch", content=text({"operations": [
        {"op": op, "body": body} for op, body in OPERATIONS]})).json()
    assert got["data"]["batch"] == {"__typename": "Batch", **rest}
    bad = http.post("/graphql", json={"query": query, "variables": {"ops": [
        {"op": "SCORE", "body": 5}]}}).json()
    assert bad["data"]["batch"] == {"__typename": "Problem", "code": "MALFORMED_REQUEST"}


def test_the_command_line_answers_a_batch_uncached() -> None:
    body = text({"operations": [{"op": op, "body": b} for op, b in OPERATIONS]})
    status, answer = handlers.handle("batch", body, "en")
    with client() as c:
        assert (status, answer) == (200, c.post("/v1/batch", content=body).json())


def test_batches_read_the_fast_way_are_what_the_model_reads() -> None:
    """``schema.canonical.batch`` takes a batch only when the model does, with the same
    operations and bodies; a batch the service writes itself takes it."""
    rng = random.Random(18)
    full = {"operations": [{"op": op, "body": body} for op, body in OPERATIONS]}
    fast = canonical.batch(text(full))
    assert fast is not None and [(op, json.loads(raw)) for op, raw in fast] == [
        (o["op"], o["body"]) for o in full["operations"]]
    # small bodies, so that the mutations change the batch itself more often than not
    base = {"operations": [{"op": op, "body": {"seed": i}} for i, (op, _) in enumerate(
        OPERATIONS[:4])]}
    taken = refused = 0
    for _ in range(400):
        raw = text(mutate(copy.deepcopy(base), rng))
        fast = canonical.batch(raw)
        try:
            model = models.BatchRequest.model_validate_json(raw)
        except Exception:
            assert fast is None, raw[:300]
            refused += 1
            continue
        if fast is not None:
            taken += 1
            assert [(op, json.loads(b)) for op, b in fast] == [
                (o.op, o.body) for o in model.operations]
    assert taken > 20 and refused > 20, (taken, refused)


def test_an_operation_is_answered_as_its_single_request_at_the_edges() -> None:
    """docs/wire-format.md, batches: each operation gets the status and body its single request
    gets, where that request is an edge: a body over MAX_BODY_BYTES (413, though the batch's
    own limit is larger), a NaN (the model reads it as a number, and an operation written again
    with orjson had it as null: then valid); and the answer of exactly MAX_BULK_ANSWER_BYTES
    fits (each answer but the last counts its comma)."""
    state = {**EXAMPLE_STATE, "scores": [3, 3],
             "turn": {**EXAMPLE_STATE["turn"], "asked": None}}
    small = text({"state": state})
    big = small[:-1] + b" " * 3000 + b"}"
    nan = small.replace(b'"asked":null', b'"asked":NaN')
    assert nan != small
    with client(max_body_bytes=2500) as c:
        singles = [c.post("/v1/validate", content=raw) for raw in (small, big, nan)]
        assert [r.status_code for r in singles] == [200, 413, 422]
        # (a NaN sends the whole batch to the model's reader, which writes each body again)
        for raws, answers in (((small, big), singles[:2]), ((small, nan), singles[::2])):
            r = c.post("/v1/batch", content=batch_bytes([("validate", raw) for raw in raws]))
            assert r.status_code == 200, r.text
            assert [(x["status"], x["body"]) for x in r.json()["results"]] == [
                (s.status_code, s.json()) for s in answers]
    deals = batch_bytes([("deal", text({"seed": i})) for i in range(5)])
    with client() as c:
        size = len(c.post("/v1/batch", content=deals).content)
    with client(max_bulk_answer_bytes=size) as c:
        assert c.post("/v1/batch", content=deals).status_code == 200
    with client(max_bulk_answer_bytes=size - 1) as c:
        r = c.post("/v1/batch", content=deals)
        assert r.status_code == 422 and r.json()["code"] == "ANSWER_TOO_LARGE"


def test_graphql_batch_operations_stand_alone(http: TestClient) -> None:
    """docs/api.md, GraphQL: in a batch a bad operation does not fail the others, where it holds
    an unset variable (null there) or an integer past 64 bits (refused by the REST reader at
    its place), as REST answers them one by one."""
    for query in ("query($v: Int) { batch(operations: [{op: DEAL, body: {seed: 1, dealer: $v}},"
                  " {op: DEAL, body: {seed: 2}}]) { ... on Batch { results { status body } } "
                  "... on Problem { code } } }",
                  "{ batch(operations: [{op: DEAL, body: {seed: 100000000000000000000}}, "
                  "{op: DEAL, body: {seed: 2}}]) { ... on Batch { results { status body } } "
                  "... on Problem { code } } }"):
        r = http.post("/graphql", json={"query": query})
        results = r.json()["data"]["batch"]["results"]
        assert [x["status"] for x in results] == [422, 200], r.text[:300]
        assert results[0]["body"]["code"] == "MALFORMED_REQUEST"
        assert results[1]["body"] == http.post("/v1/deal", json={"seed": 2}).json()
