"""The real thing: uvicorn on a free port with a real redis-server on another. A miss, then a
hit from Redis; Redis stopped mid-run: answers stay correct and fast (circuit breaker);
Redis restarted on the same port: hits again."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from canasta_referee.schema.models import EXAMPLE_STATE

from .servers import RedisServer, Service

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None and not os.environ.get(
    "REDIS_URL"), reason="needs redis-server (or REDIS_URL)")

BODY = {"state": EXAMPLE_STATE}
REDIS_ONLY = {"CACHE_SIZE": "0", "REDIS_OPS": "legal-actions,check,score",
              "REDIS_TIMEOUT": "0.05", "REDIS_BREAKER_FAILURES": "2",
              "REDIS_BREAKER_SECONDS": "0.5"}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """``REDIS_URL`` when set (never the machine's default Redis otherwise): a throw-away
    redis-server on a free port."""
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = RedisServer().start()
    try:
        yield server.url
    finally:
        server.stop()


def post(client: httpx.Client, body: Any = BODY) -> httpx.Response:
    r = client.post("/v1/legal-actions", json=body)
    assert r.status_code == 200, r.text
    return r


def wait_for_hit(client: httpx.Client, body: Any, seconds: float = 5.0) -> list[str]:
    """X-Cache values until the first hit (the write to Redis is asynchronous)."""
    seen = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen.append(post(client, body).headers["x-cache"])
        if seen[-1] == "hit":
            return seen
        time.sleep(0.05)
    raise AssertionError(f"no hit within {seconds} s: {seen}")


def test_miss_then_hit_through_redis(redis_url: str) -> None:
    """Redis keys the canonical request: the same request written differently (indented, a
    forgiving card code, the state's fields and options in another order) hits there too."""
    state = {**EXAMPLE_STATE, "scores": [1, 2],  # a key of this test's own
             "options": {**EXAMPLE_STATE["options"], "natural_majority": False}}
    body = {"state": state}
    svc = Service({**REDIS_ONLY, "REDIS_URL": redis_url}).start()
    try:
        with httpx.Client(base_url=svc.url, timeout=5) as c:
            seen = wait_for_hit(c, body)
            assert seen[0] == "miss"
            turned = {**dict(reversed(state.items())),
                      "options": dict(reversed(state["options"].items()))}
            assert len(turned["options"]) > 1
            written = json.dumps({"state": turned}, indent=2).replace('"QS"', '"qs"', 1)
            assert '"qs"' in written
            r = c.post("/v1/legal-actions", content=written)
            assert r.headers["x-cache"] == "hit" and r.content == post(c, body).content
            assert 'canasta_cache_hits_total{op="legal-actions",tier="redis"}' in c.get(
                "/metrics").text
            assert c.get("/readyz").json()["cache"]["redis"] == "ok"
    finally:
        svc.stop()


def test_redis_stopped_and_restarted_mid_run() -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server to stop and restart it")
    redis = RedisServer().start()
    svc = Service({**REDIS_ONLY, "REDIS_URL": redis.url}).start()
    try:
        with httpx.Client(base_url=svc.url, timeout=5) as c:
            seen = wait_for_hit(c, BODY)
            assert seen[0] == "miss"
            expected = post(c).json()

            redis.stop()
            started = time.monotonic()
            for _ in range(30):
                t = time.monotonic()
                r = post(c)
                assert r.json() == expected and r.headers["x-cache"] == "miss"
                assert time.monotonic() - t < 0.5
            assert time.monotonic() - started < 3.0  # the breaker skips Redis: no 30 timeouts
            ready = c.get("/readyz")
            assert ready.status_code == 200 and ready.json()["degraded"] is True
            metrics = c.get("/metrics").text
            assert 'canasta_redis_errors_total{op="legal-actions"}' in metrics
            assert 'canasta_redis_skipped_total{op="legal-actions"}' in metrics

            redis.start()  # same port, empty (no persistence)
            time.sleep(0.6)  # the breaker lets a trial through after REDIS_BREAKER_SECONDS
            seen = wait_for_hit(c, BODY)
            assert "miss" in seen and seen[-1] == "hit"
            assert c.get("/readyz").json()["degraded"] is False
    finally:
        svc.stop()
        redis.stop()


def metric(text: str, series: str) -> float:
    """A sample's value in a Prometheus exposition (0 when the series is absent)."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_a_redis_that_refuses_writes_still_serves_hits() -> None:
    """Answers stored, then Redis out of memory under `noeviction` (`maxmemory` cut to 1
    byte): every write is refused (OOM) and opens the write breaker, and only that one; the
    stored answers are still read and served (X-Cache: hit from Redis: no in-process tier).
    /readyz says `read-only`. With the memory back, writes resume after a breaker period."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server to reconfigure it")
    redis = RedisServer(extra=("--maxmemory-policy", "noeviction")).start()
    svc = Service({**REDIS_ONLY, "REDIS_URL": redis.url, "REDIS_BREAKER_SECONDS": "1"}).start()
    try:
        with httpx.Client(base_url=svc.url, timeout=5) as c:
            seeded = [{"state": {**EXAMPLE_STATE, "scores": [100 + i, 0]}} for i in range(5)]
            expected = []
            for body in seeded:
                wait_for_hit(c, body)
                expected.append(post(c, body).content)
            stored = int(redis.command("DBSIZE").strip().lstrip(b":"))
            assert stored == len(seeded)

            assert redis.command("CONFIG", "SET", "maxmemory", "1").startswith(b"+OK")
            assert redis.command("SET", "probe", "1").startswith(b"-OOM")  # writes refused

            for n in range(20):  # misses whose writes fail, in a row; the stored ones still hit
                for k in range(3):
                    fresh = post(c, {"state": {**EXAMPLE_STATE, "scores": [200 + 3 * n + k, 0]}})
                    assert fresh.headers["x-cache"] == "miss"
                time.sleep(0.02)  # the writes are tried after the answers: let them fail first
                for body, content in zip(seeded, expected, strict=True):
                    r = post(c, body)
                    assert (r.headers["x-cache"], r.content) == ("hit", content), n
            assert int(redis.command("DBSIZE").strip().lstrip(b":")) == stored

            ready = c.get("/readyz").json()
            assert ready["ready"] is True and ready["degraded"] is True
            assert ready["cache"]["redis"] == "read-only"
            assert ready["cache"]["breakers"] == {"read": "closed", "write": "open"}
            metrics = c.get("/metrics").text
            assert metric(metrics, 'canasta_redis_breaker_open{path="write"}') == 1.0
            assert metric(metrics, 'canasta_redis_breaker_open{path="read"}') == 0.0
            assert metric(metrics, 'canasta_redis_errors_total{op="legal-actions"}') >= 2
            assert metric(metrics, 'canasta_redis_writes_skipped_total{op="legal-actions"}') > 0
            assert metric(metrics, 'canasta_redis_skipped_total{op="legal-actions"}') == 0
            assert metric(metrics, 'canasta_cache_hits_total{op="legal-actions",tier="redis"}'
                          ) >= 20 * len(seeded)

            # memory back: after REDIS_BREAKER_SECONDS a write is tried again and succeeds
            assert redis.command("CONFIG", "SET", "maxmemory", "0").startswith(b"+OK")
            time.sleep(1.1)
            seen = wait_for_hit(c, {"state": {**EXAMPLE_STATE, "scores": [300, 0]}})
            assert seen[-1] == "hit"
            ready = c.get("/readyz").json()
            assert ready["cache"]["redis"] == "ok" and ready["degraded"] is False
            assert ready["cache"]["breakers"] == {"read": "closed", "write": "closed"}
    finally:
        svc.stop()
        redis.stop()


@contextmanager
def bounded(why: str) -> Iterator[tuple[RedisServer, Service]]:
    """A redis-server of the test's own, and a service on it with REDIS_MAX_CONNECTIONS=4 (two
    writes at once), patient timeouts and a breaker that stays closed."""
    if shutil.which("redis-server") is None:
        pytest.skip(f"needs redis-server to {why}")
    redis = RedisServer().start()
    svc = Service({**REDIS_ONLY, "REDIS_URL": redis.url, "REDIS_MAX_CONNECTIONS": "4",
                   "REDIS_TIMEOUT": "2", "REDIS_BREAKER_FAILURES": "100"}).start()
    try:
        yield redis, svc
    finally:
        svc.stop()
        redis.stop()


def test_writes_pending_are_bounded_and_the_rest_skipped() -> None:
    """A Redis slow to write (its writes paused: ``CLIENT PAUSE ... WRITE``, reads still
    served): at most REDIS_MAX_CONNECTIONS / 2 answers wait to be written, every other miss's
    write is skipped and counted; once Redis writes again, the pending ones are stored (hits)
    and the skipped ones are not."""
    with bounded("pause it") as (redis, svc), httpx.Client(base_url=svc.url, timeout=10) as c:
        bodies = [{"state": {**EXAMPLE_STATE, "scores": [300 + i, 0]}} for i in range(10)]
        assert redis.command("CLIENT", "PAUSE", "3000", "WRITE").startswith(b"+OK")
        answers = [post(c, body) for body in bodies]
        assert [r.headers["x-cache"] for r in answers] == ["miss"] * 10
        metrics = c.get("/metrics").text
        assert metric(metrics, "canasta_redis_writes_pending") == 2
        assert metric(metrics, 'canasta_redis_writes_skipped_total{op="legal-actions"}') == 8
        assert redis.command("CLIENT", "UNPAUSE").startswith(b"+OK")
        deadline = time.monotonic() + 5
        while metric(c.get("/metrics").text, "canasta_redis_writes_pending") > 0:
            assert time.monotonic() < deadline, "the pending writes did not end"
            time.sleep(0.05)
        again = [post(c, body) for body in bodies]
        assert [r.headers["x-cache"] for r in again] == ["hit"] * 2 + ["miss"] * 8
        assert [r.content for r in again] == [r.content for r in answers]


def test_a_batch_waits_for_room_to_write_its_answers_rather_than_skipping_them() -> None:
    """A batch's answers are written to Redis before it is answered, in parts of at most
    REDIS_MAX_CONNECTIONS / 2, each waiting for room (a single request's write would be
    skipped): with writes paused for a second, a batch of 10 misses waits, and all 10 are
    stored (the same batch again: all hits), none skipped."""
    with bounded("pause it") as (redis, svc), httpx.Client(base_url=svc.url, timeout=10) as c:
        operations = [{"op": "legal-actions", "body": {"state": {**EXAMPLE_STATE,
                                                                 "scores": [500 + i, 0]}}}
                      for i in range(10)]
        assert redis.command("CLIENT", "PAUSE", "1000", "WRITE").startswith(b"+OK")
        started = time.monotonic()
        r = c.post("/v1/batch", json={"operations": operations})
        assert time.monotonic() - started > 0.5
        assert r.status_code == 200 and r.headers["x-cache"] == ", ".join(["miss"] * 10)
        metrics = c.get("/metrics").text
        assert metric(metrics, 'canasta_redis_writes_skipped_total{op="batch"}') == 0
        assert metric(metrics, "canasta_redis_writes_pending") == 0
        again = c.post("/v1/batch", json={"operations": operations})
        assert again.headers["x-cache"] == ", ".join(["hit"] * 10)
        assert again.content == r.content


def test_redis_connections_are_bounded_under_many_misses() -> None:
    """64 requests at once, each a miss that reads Redis and then writes its answer: the
    worker holds at most REDIS_MAX_CONNECTIONS connections to Redis (before: one per request
    and write in progress, about 100 under such a load), and every answer is right."""
    import asyncio

    with bounded("count its clients") as (redis, svc):
        bodies = [{"state": {**EXAMPLE_STATE, "scores": [400 + i, 0]}} for i in range(256)]
        with httpx.Client(base_url=svc.url, timeout=10) as c:
            reference = {i: post(c, bodies[i]).content for i in (0, 255)}
        peak = 0

        async def load() -> list[httpx.Response]:
            nonlocal peak
            async with httpx.AsyncClient(base_url=svc.url, timeout=30, limits=httpx.Limits(
                    max_connections=64)) as client:
                sent = [asyncio.create_task(client.post("/v1/legal-actions", json=b))
                        for b in bodies]
                while not all(t.done() for t in sent):
                    info = redis.command("INFO", "clients").decode()
                    clients = int(info.split("connected_clients:")[1].split()[0])
                    peak = max(peak, clients - 1)  # less the INFO's own connection
                    await asyncio.sleep(0.005)
                return [t.result() for t in sent]

        answers = asyncio.run(load())
        assert all(r.status_code == 200 for r in answers)
        assert answers[0].content == reference[0] and answers[255].content == reference[255]
        assert 1 <= peak <= 4



def test_a_value_in_redis_that_is_not_an_answer_is_never_served() -> None:
    """A value under one of the service's keys that is not an answer it wrote (another
    writer's, a damaged one: another status, no JSON object, a status of 5,000 digits) is
    never served (it dropped the connection or answered 500): the answer is computed (X-Cache:
    miss), the value counted as a Redis error and written over; single requests (GET) and
    batches (MGET) alike."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server of the test's own")
    import redis as redis_py

    redis = RedisServer().start()
    svc = Service({**REDIS_ONLY, "REDIS_URL": redis.url}).start()
    client = redis_py.Redis.from_url(redis.url)
    try:
        with httpx.Client(base_url=svc.url, timeout=5) as c:
            body = {"state": {**EXAMPLE_STATE, "scores": [400, 0]}}
            wait_for_hit(c, body)
            right = post(c, body).content
            (key,) = client.keys("canasta:*legal-actions*")
            bad = [b"200:not json at all", b"200:", b'422:["x"]', b"204:{}", b"999:{}",
                   b"0:{}", b"1" * 5000 + b":{}", b"abc", b'-1:{"a":1}']
            for value in bad:
                client.set(key, value)
                r = post(c, body)
                assert (r.headers["x-cache"], r.content) == ("miss", right), value[:20]
                assert wait_for_hit(c, body)[-1] == "hit"  # written over
                assert client.get(key) != value
                client.set(key, value)
                r = c.post("/v1/batch", json={"operations": [{"op": "legal-actions",
                                                              "body": body}]})
                assert r.status_code == 200 and r.headers["x-cache"] == "miss", value[:20]
                assert r.json()["results"][0]["body"] == json.loads(right), value[:20]
            metrics = c.get("/metrics").text
            assert metric(metrics, 'canasta_redis_errors_total{op="legal-actions"}') == len(bad)
            assert metric(metrics, 'canasta_redis_errors_total{op="batch"}') == len(bad)
    finally:
        client.close()
        svc.stop()
        redis.stop()
