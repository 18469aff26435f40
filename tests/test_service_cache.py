"""The cache's parts: the LRU tier (bounded by entries and by bytes, its byte count checked
against what it allocates, through the real app), the circuit breaker, single flight, the Redis
client's configuration (plain and cluster)."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from typing import Any

import orjson
import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from starlette.testclient import TestClient

from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.app import create_app
from canasta_referee.service.cache import (
    ENTRY_OVERHEAD,
    LRU,
    Breaker,
    Cache,
    Entry,
    Lookup,
    redis_client,
)
from canasta_referee.service.metrics import Metrics
from canasta_referee.service.settings import Settings

from .servers import free_port


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_lru_evicts_the_least_recently_used_and_expires() -> None:
    clock = Clock()
    lru = LRU(2, ttl=10, clock=clock)
    a, b, c = Entry(200, b"a"), Entry(200, b"b"), Entry(422, b"c")
    lru.put("a", a)
    lru.put("b", b)
    assert lru.get("a") == a  # a is now the most recent
    lru.put("c", c)
    assert lru.get("b") is None and lru.get("a") == a and lru.get("c") == c and len(lru) == 2
    clock.now = 11
    assert lru.get("a") is None and len(lru) == 1
    off = LRU(0, ttl=10)
    off.put("a", a)
    assert off.get("a") is None


def test_entries_round_trip_through_bytes() -> None:
    e = Entry(422, b'{"code":"X"}')
    assert Entry.decode(e.encode()) == e
    assert Entry.decode(b"garbage") is None


def test_breaker_opens_then_lets_one_trial_through() -> None:
    clock = Clock()
    br = Breaker(threshold=2, seconds=5, clock=clock)
    assert br.allow()
    br.failure()
    assert br.allow() and not br.is_open
    br.failure()
    assert br.is_open and not br.allow()
    clock.now = 6
    assert br.allow()  # the trial
    assert not br.allow()  # only one at a time
    br.failure()
    assert not br.allow()
    clock.now = 12
    assert br.allow()
    br.success()
    assert not br.is_open and br.allow() and br.allow()


def test_concurrent_requests_for_one_canonical_request_are_computed_once() -> None:
    """Two requests for the same canonical request (one Redis key; written differently: two
    in-process keys) arrive while the first waits for Redis (here: a closed port)."""
    settings = Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_ops=frozenset(
        {"check"}), cache_size=0)
    cache = Cache(settings, Metrics())
    computed = []

    def compute() -> Entry:
        computed.append(1)
        return Entry(200, b'{"legal":true}')

    async def both() -> list[tuple[Entry, bool]]:
        try:
            return list(await asyncio.gather(cache.shared("check", "k", "canasta:k", compute),
                                             cache.shared("check", "k2", "canasta:k", compute)))
        finally:
            await cache.close()

    (first, first_hit), (second, second_hit) = asyncio.run(both())
    assert computed == [1] and first == second
    assert (first_hit, second_hit) == (False, True)


def test_a_request_that_comes_while_a_batch_looks_its_answer_up_waits_for_it() -> None:
    """``Cache.fetch`` (a batch's group of look-ups) takes the flights of its keys: a request
    for one of them that comes meanwhile gets the batch's answer (tier ``flight``), computed
    once; a request for a key the batch never reaches (it stopped) computes on its own."""
    settings = Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0", redis_ops=frozenset(
        {"check"}), cache_size=0, redis_timeout=0.05)
    metrics = Metrics()
    cache = Cache(settings, metrics)
    computed: list[str] = []

    def compute(name: str) -> Any:
        def run() -> Entry:
            computed.append(name)
            return Entry(200, b'{"answer":"%s"}' % name.encode())
        return run

    group = [Lookup("check", f"k{n}", f"canasta:{n}", compute(f"batch {n}")) for n in (1, 2)]

    async def run() -> tuple[list[tuple[Entry, bool]], tuple[Entry, bool], tuple[Entry, bool]]:
        try:
            fetching = asyncio.create_task(cache.fetch(group))
            await asyncio.sleep(0)  # the batch's look-ups have begun: their flights are taken
            one = asyncio.create_task(cache.shared("check", "x1", "canasta:1", compute("one")))
            two = asyncio.create_task(cache.shared("check", "x2", "canasta:2", compute("two")))
            fetched = await fetching
            try:
                first = next(fetched.answers())  # the batch stops after its first operation
            finally:
                fetched.close()
            return [first], await one, await two
        finally:
            await cache.close()

    answers, one, two = asyncio.run(run())
    assert answers == [(Entry(200, b'{"answer":"batch 1"}'), False)]
    assert one == (Entry(200, b'{"answer":"batch 1"}'), True)
    assert two == (Entry(200, b'{"answer":"two"}'), False)
    assert computed == ["batch 1", "two"]
    assert metrics.cache_hits.value("check", "flight") == 1


def test_a_batch_waits_for_the_answers_another_batch_is_looking_up() -> None:
    """A group (``Cache.fetch``) whose requests another group is looking up already waits for
    them before it takes flights of its own (so two batches never wait for each other, in
    whatever order their requests come) and reads only the rest from Redis: the answers the
    other reached are hits of tier ``flight``, one it never reached (it stopped) is looked up
    and computed again; each answer computed once, only the computed ones written."""
    from tests.servers import RedisServer

    redis = RedisServer().start()
    try:
        settings = Settings(redis_url=redis.url, redis_ops=frozenset({"check"}), cache_size=0)
        metrics = Metrics()
        cache = Cache(settings, metrics)
        computed: list[str] = []

        def lookups(name: str, keys: list[int]) -> list[Lookup]:
            def compute(n: int) -> Any:
                def run() -> Entry:
                    computed.append(f"{name}{n}")
                    return Entry(200, b'{"%s":%d}' % (name.encode(), n))
                return run
            return [Lookup("check", f"{name}{n}", f"canasta:{n}", compute(n)) for n in keys]

        async def run() -> tuple[list[tuple[Entry, bool]], list[tuple[str, Entry]]]:
            try:
                first = asyncio.create_task(cache.fetch(lookups("a", [1, 2])))
                await asyncio.sleep(0)  # its flights are taken; it waits for Redis
                second = asyncio.create_task(cache.fetch(lookups("b", [2, 1, 3])))
                fetched = await first
                try:
                    next(fetched.answers())  # the first batch stops after its first operation
                finally:
                    fetched.close()
                other = await second
                try:
                    return list(other.answers()), other.writes
                finally:
                    other.close()
            finally:
                await cache.close()

        answers, writes = asyncio.run(run())
        mgets = redis.command("INFO", "commandstats").decode()
        stats = redis.command("INFO", "stats").decode()
    finally:
        redis.stop()
    assert answers == [(Entry(200, b'{"b":2}'), False), (Entry(200, b'{"a":1}'), True),
                       (Entry(200, b'{"b":3}'), False)]
    assert computed == ["a1", "b2", "b3"]
    assert writes == [("canasta:2", Entry(200, b'{"b":2}')), ("canasta:3", Entry(200, b'{"b":3}'))]
    assert metrics.cache_hits.value("check", "flight") == 1
    assert metrics.cache_hits.value("check", "redis") == 0
    assert "cmdstat_mget:calls=2," in mgets
    assert "keyspace_misses:4\r" in stats  # keys 1 and 2, then 2 and 3 only


def test_a_batch_cancelled_while_it_waits_for_another_leaves_the_other_running() -> None:
    """A group that waits for the requests another group is looking up (``Cache.fetch``) and
    is cancelled meanwhile (its client went away) leaves those look-ups running: the other
    group answers them all, and a request that comes afterwards finds no flight left."""
    from tests.servers import RedisServer

    redis = RedisServer().start()
    try:
        settings = Settings(redis_url=redis.url, redis_ops=frozenset({"check"}), cache_size=0)
        cache = Cache(settings, Metrics())

        def lookups(name: str) -> list[Lookup]:
            return [Lookup("check", f"{name}{n}", f"canasta:{n}",
                           lambda n=n: Entry(200, b'{"n":%d}' % n)) for n in (1, 2)]

        async def run() -> tuple[list[tuple[Entry, bool]], bool, dict[str, Any]]:
            try:
                first = asyncio.create_task(cache.fetch(lookups("a")))
                await asyncio.sleep(0)  # its flights are taken; it waits for Redis
                second = asyncio.create_task(cache.fetch(lookups("b")))
                await asyncio.sleep(0)  # it waits for the first's flights
                second.cancel()
                fetched = await first
                try:
                    answers = list(fetched.answers())
                finally:
                    fetched.close()
                try:
                    await second
                except asyncio.CancelledError:
                    cancelled = True
                else:
                    cancelled = False
                return answers, cancelled, dict(cache._flights)
            finally:
                await cache.close()

        answers, cancelled, flights = asyncio.run(run())
    finally:
        redis.stop()
    assert answers == [(Entry(200, b'{"n":1}'), False), (Entry(200, b'{"n":2}'), False)]
    assert cancelled and flights == {}


def test_fetched_answers_in_order_and_counts_what_redis_had_until_it_is_reached() -> None:
    """``Cache.fetch`` on a real Redis holding two of four keys: the answers come in the
    lookups' order (a key twice: computed once, the second a hit), ``unread_*`` count the
    answers read from Redis not yet reached, and only the computed ones are to be written."""
    from tests.servers import RedisServer

    redis = RedisServer().start()
    try:
        settings = Settings(redis_url=redis.url, redis_ops=frozenset({"check"}), cache_size=0)
        cache = Cache(settings, Metrics())
        stored = {n: Entry(200, b'{"stored":%d}' % n) for n in (1, 3)}
        computed: list[int] = []

        def compute(n: int) -> Any:
            def run() -> Entry:
                computed.append(n)
                return Entry(200, b'{"computed":%d}' % n)
            return run

        keys = [0, 1, 0, 2, 3]
        group = [Lookup("check", f"k{n}", f"canasta:{n}", compute(n)) for n in keys]

        async def run() -> list[tuple[Entry, bool, int, int]]:
            try:
                client = cache.redis
                assert client is not None
                for n, entry in stored.items():
                    await client.set(f"canasta:{n}", entry.encode())
                fetched = await cache.fetch(group)
                try:
                    assert (fetched.unread_count, fetched.unread_bytes) == (
                        2, sum(len(e.body) for e in stored.values()))
                    return [(entry, hit, fetched.unread_count, fetched.unread_bytes)
                            for entry, hit in fetched.answers()]
                finally:
                    fetched.close()
                    assert fetched.writes == [("canasta:0", Entry(200, b'{"computed":0}')),
                                              ("canasta:2", Entry(200, b'{"computed":2}'))]
            finally:
                await cache.close()

        answers = asyncio.run(run())
    finally:
        redis.stop()
    three = len(stored[3].body)
    assert answers == [(Entry(200, b'{"computed":0}'), False, 2, len(stored[1].body) + three),
                       (stored[1], True, 1, three),
                       (Entry(200, b'{"computed":0}'), True, 1, three),
                       (Entry(200, b'{"computed":2}'), False, 1, three),
                       (stored[3], True, 0, 0)]
    assert computed == [0, 2]


def test_a_batch_keeps_no_answers_once_they_cannot_fit_beside_those_read_from_redis() -> None:
    """``Answering``: an answer is kept while it, those before it and the later answers
    already read from Redis (``unread``) fit under the cap; past that none is kept (the batch
    will be refused: the unread answers come after), and the batch stops where the answers
    pass the cap."""
    from canasta_referee.schema.handlers import BATCH_FRAME, RESULT_FRAME
    from canasta_referee.service.app import Answering

    cap = BATCH_FRAME + 3 * (100 + RESULT_FRAME) - 1  # three answers exactly (the last: no comma)
    answering = Answering(cap, None)

    def add(unread: int) -> bool:
        return asyncio.run(answering.add(200, b"x" * 100, "miss", unread))

    assert add(unread=2 * (100 + RESULT_FRAME))
    assert len(answering.results) == 1 and not answering.doomed
    assert add(unread=100 + RESULT_FRAME + 1)  # a byte too many beside it: it cannot all fit
    assert answering.results == [] and answering.tags == ["miss"] and answering.doomed
    assert add(unread=0)  # it still fits under the cap, but is not kept
    assert answering.results == []
    assert not add(unread=0)  # the fourth passes the cap
    assert answering.over == 3
    status, body, tags = answering.end("en") or (0, b"", [])
    assert status == 422 and orjson.loads(body)["problems"][0]["path"] == "/operations/3"


def test_redis_clients_have_short_timeouts_and_no_retries() -> None:
    plain = redis_client(Settings(redis_url="redis://127.0.0.1:1/0", redis_timeout=0.05))
    assert isinstance(plain, Redis)
    kwargs = plain.connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == 0.05
    assert plain.get_retry() is not None and plain.get_retry().get_retries() == 0  # type: ignore[union-attr]
    for settings in (Settings(redis_url="redis+cluster://127.0.0.1:7000"),
                     Settings(redis_url="redis://127.0.0.1:7000", redis_cluster=True)):
        assert isinstance(redis_client(settings), RedisCluster)


# --- bounded by bytes (issue 17) ----------------------------------------------------------------


def test_lru_counts_bytes_evicts_by_bytes_and_keeps_nothing_too_large() -> None:
    clock = Clock()
    cost = 100 + 10 + ENTRY_OVERHEAD  # an answer of 100 bytes under a key ending in 10 bytes
    lru = LRU(100, ttl=10, clock=clock, max_bytes=3 * cost)

    def key(n: int) -> tuple[str, str, bytes]:
        return ("check", "en", b"%010d" % n)

    for n in range(3):
        assert lru.put(key(n), Entry(200, b"x" * 100))
    assert lru.bytes == 3 * cost and len(lru) == 3 and lru.evictions == 0
    assert lru.get(key(0)) is not None  # 0 is now the most recent: 1 goes first
    assert lru.put(key(3), Entry(200, b"x" * 100))
    assert lru.get(key(1)) is None and len(lru) == 3 and lru.bytes == 3 * cost
    assert lru.evictions == 1
    # a bigger answer makes room by as many entries as it needs
    assert lru.put(key(4), Entry(200, b"y" * (100 + cost)))
    assert [k[2] for k in lru._data] == [b"%010d" % n for n in (3, 4)]
    assert lru.bytes == 3 * cost + cost - cost  # two entries, one of them costing two
    # replacing an entry counts the new answer, not both
    assert lru.put(key(3), Entry(200, b"z" * 50))
    assert lru.bytes == (50 + 10 + ENTRY_OVERHEAD) + (200 + cost + 10 + ENTRY_OVERHEAD) - 100
    # an entry over the whole bound is not kept, and drops nothing
    before = dict(lru._data)
    assert not lru.put(key(5), Entry(200, b"w" * (3 * cost)))
    assert dict(lru._data) == before and lru.get(key(5)) is None
    # expired entries give their bytes back
    clock.now = 11
    assert lru.get(key(3)) is None and lru.get(key(4)) is None
    assert lru.bytes == 0 and len(lru) == 0


def asgi_post(app: Any, path: str, body: bytes) -> Any:
    """A coroutine POSTing ``body`` to the ASGI app in this thread; it returns (status,
    headers, body)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 50000),
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}
    out: dict[str, Any] = {"body": b""}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = dict(message["headers"])
        else:
            out["body"] += message.get("body", b"")

    async def run() -> tuple[int, dict[bytes, bytes], bytes]:
        await app(scope, receive, send)
        return out["status"], out["headers"], out["body"]

    return run()


def small(n: int) -> bytes:
    """A legal-actions request of about 400 bytes with a short answer, new for each ``n``."""
    return orjson.dumps({"state": {**EXAMPLE_STATE, "scores": [n, 0]}})


def test_through_the_app_answers_over_the_entry_bound_are_not_cached() -> None:
    """CACHE_MAX_ENTRY_BYTES: a 60 KB legal-actions answer is computed every time (a miss
    each time, in neither tier), counted; a small one is still a hit."""
    from .hostile import legal_actions_full_hand

    app = create_app(Settings(log_level="warning", cache_max_entry_bytes=32 * 1024))
    svc = app.state.svc
    path, big = legal_actions_full_hand(1)

    async def scenario() -> list[tuple[int, dict[bytes, bytes], bytes]]:
        async with app.router.lifespan_context(app):
            return [await asgi_post(app, path, body) for body in (big, big, small(1), small(1))]

    (s1, h1, b1), (s2, h2, b2), (_, h3, _), (_, h4, _) = asyncio.run(scenario())
    assert s1 == s2 == 200 and b1 == b2 and len(b1) > 32 * 1024
    assert (h1[b"x-cache"], h2[b"x-cache"], h3[b"x-cache"], h4[b"x-cache"]) == (
        b"miss", b"miss", b"miss", b"hit")
    assert len(svc.cache.local) == 1
    metrics = svc.metrics.render().decode()
    assert 'canasta_cache_too_large_total{op="legal-actions"} 2.0' in metrics


def test_through_the_app_the_tier_is_bounded_by_bytes() -> None:
    """CACHE_MAX_BYTES room for three of these answers: the fourth and fifth evict the least
    recently used; /readyz and /metrics show the bytes and the evictions."""
    probe = create_app(Settings(log_level="warning"))

    async def one_cost() -> int:
        async with probe.router.lifespan_context(probe):
            await asgi_post(probe, "/v1/legal-actions", small(0))
            cost: int = probe.state.svc.cache.local.bytes
            return cost

    cost = asyncio.run(one_cost())
    assert cost > len(small(0)) + ENTRY_OVERHEAD  # the answer counts too
    app = create_app(Settings(log_level="warning", cache_max_bytes=3 * cost + cost // 2))
    local = app.state.svc.cache.local

    async def scenario() -> list[bytes]:
        async with app.router.lifespan_context(app):
            for n in range(5):
                await asgi_post(app, "/v1/legal-actions", small(n))
            assert len(local) == 3 and local.bytes == 3 * cost <= local.max_bytes
            seen = []
            for n in (4, 0):  # the last one is kept; the first was evicted
                status, headers, _ = await asgi_post(app, "/v1/legal-actions", small(n))
                seen.append(headers[b"x-cache"])
            return seen

    assert asyncio.run(scenario()) == [b"hit", b"miss"]
    with TestClient(app) as c:
        ready = c.get("/readyz").json()["cache"]["local"]
        assert ready == {"entries": 3, "size": 4096, "bytes": 3 * cost,
                         "max_bytes": 3 * cost + cost // 2}
        metrics = c.get("/metrics").text
        assert f"canasta_cache_bytes {float(3 * cost)}" in metrics
        assert "canasta_cache_entries 3.0" in metrics
        assert "canasta_cache_evictions_total 3.0" in metrics  # 0, 1 and then 2 (for 0 again)


#: a typed legalActions query the GraphQL route answers from its plan (and keeps in process)
TYPED = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
         "actions { type cards card rank } } } }")


@pytest.mark.parametrize("kind", ["small", "large"])
@pytest.mark.parametrize("path", ["/v1/legal-actions", "/graphql"])
def test_the_counted_bytes_are_what_the_tier_allocates(kind: str, path: str) -> None:
    """The bytes the tier counts are within a quarter of what it really keeps allocated
    (tracemalloc, over 1,000 small or 40 large answers sent through the app): a
    CACHE_MAX_BYTES bound is a bound on memory. Small answers were kept in orjson's 4 KiB
    output buffer each before the tier copied them (about five times what they counted).
    A planned GraphQL query computed here keeps one entry: its own answer, kept as the plan
    made it (``sized``), not the legal-actions answer it was made of (``Service.legal_actions``)."""
    from .hostile import legal_actions_full_hand

    count = 1000 if kind == "small" else 40

    def request(n: int) -> bytes:
        rest = small(n) if kind == "small" else legal_actions_full_hand(n)[1]
        if path == "/graphql":
            return orjson.dumps({"query": TYPED, "variables": {"s": orjson.loads(rest)["state"]}})
        return rest

    app = create_app(Settings(log_level="warning", cache_size=10**6))
    local = app.state.svc.cache.local

    async def scenario() -> tuple[int, int]:
        async with app.router.lifespan_context(app):
            for n in range(5):  # warm up: every lazy import and table (and the plan)
                await asgi_post(app, path, request(500_000 + n))
            counted, held = local.bytes, len(local)
            gc.collect()
            tracemalloc.start()
            try:
                before = tracemalloc.get_traced_memory()[0]
                # each body new bytes of its exact size made while traced, as the server reads
                # it: the tier keeps the very bytes of a body as its key (the app does not copy
                # them; orjson's output, which request() makes, would keep a larger buffer)
                bodies = [memoryview(request(n)).tobytes() for n in range(count)]
                for body in bodies:
                    status, _, answer = await asgi_post(app, path, body)
                    assert status == 200 and b'"errors"' not in answer
                del bodies  # the request bodies the tier keeps as keys are counted: still held
                gc.collect()
                kept = tracemalloc.get_traced_memory()[0] - before
            finally:
                tracemalloc.stop()
            assert len(local) - held == count
            return kept, local.bytes - counted

    kept, counted = asyncio.run(scenario())
    print(f"{kind} {path}: kept {kept} bytes, counted {counted}")
    assert 0.75 * kept <= counted <= 1.25 * kept, (kept, counted)


def test_white_space_around_a_body_shares_its_entry() -> None:
    """The in-process key is the body's text, but for JSON white space around it (docs/api.md,
    batch: a file written by ``jq`` ends with a newline, the same text in a batch does not): the
    same JSON text with a final newline, or spaces and tabs around it, hits the entry of the
    bare text, alone or as a batch's operation; other bytes around it are another request."""
    app = create_app(Settings(log_level="warning"))
    bare = small(7)
    batch = b'{"operations":[{"op":"legal-actions","body":' + bare + b"}]}"

    async def scenario() -> list[tuple[int, dict[bytes, bytes], bytes]]:
        async with app.router.lifespan_context(app):
            return [await asgi_post(app, path, body) for path, body in (
                ("/v1/legal-actions", bare + b"\n"), ("/v1/legal-actions", bare),
                ("/v1/legal-actions", b" \t" + bare + b"\r\n"), ("/v1/batch", batch),
                ("/v1/legal-actions", bare + b"\x0c"))]

    answers = asyncio.run(scenario())
    assert [a[1][b"x-cache"] for a in answers[:4]] == [b"miss", b"hit", b"hit", b"hit"]
    assert answers[0][2] == answers[1][2] == answers[2][2]
    assert answers[4][0] == 422 and b"x-cache" not in answers[4][1]
