"""The cache's parts: the LRU tier, the circuit breaker, single flight, the Redis client's
configuration (plain and cluster)."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from service.cache import LRU, Breaker, Cache, Entry, redis_client
from service.metrics import Metrics
from service.settings import Settings

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


def test_redis_clients_have_short_timeouts_and_no_retries() -> None:
    plain = redis_client(Settings(redis_url="redis://127.0.0.1:1/0", redis_timeout=0.05))
    assert isinstance(plain, Redis)
    kwargs = plain.connection_pool.connection_kwargs
    assert kwargs["socket_timeout"] == kwargs["socket_connect_timeout"] == 0.05
    assert plain.get_retry() is not None and plain.get_retry().get_retries() == 0  # type: ignore[union-attr]
    for settings in (Settings(redis_url="redis+cluster://127.0.0.1:7000"),
                     Settings(redis_url="redis://127.0.0.1:7000", redis_cluster=True)):
        assert isinstance(redis_client(settings), RedisCluster)
