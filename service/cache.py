"""The answer cache: an in-process LRU tier bounded by entries and bytes, then Redis; identical
concurrent requests computed once; short Redis timeouts and a circuit breaker each for reads and
writes, so a slow or dead Redis only means computing, and one that refuses writes still serves
hits. Answers larger than ``CACHE_MAX_ENTRY_BYTES`` are kept in neither tier.

Values are rendered answers (status and JSON bytes), so a hit costs no serialisation. Keys are
built by the caller (``service.app``): in process, the operation, the language and the canonical
request; in Redis, the engine id, the operation, the language, the variant fingerprint and a
hash of the canonical request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from .metrics import Metrics
from .settings import Settings

log = logging.getLogger("canasta.cache")


class Entry(NamedTuple):
    """A rendered answer."""

    status: int
    body: bytes

    def encode(self) -> bytes:
        return b"%d:" % self.status + self.body

    @staticmethod
    def of(status: int, body: bytes) -> Entry:
        """``Entry(status, body)`` without running the named tuple's ``__new__`` (Python code)."""
        entry: Entry = tuple.__new__(Entry, (status, body))
        return entry

    @staticmethod
    def decode(raw: bytes) -> Entry | None:
        head, sep, body = raw.partition(b":")
        return Entry(int(head), body) if sep and head.isdigit() else None


#: what an in-process entry costs beyond its answer and key bytes (the entry's tuples, the
#: bytes objects' headers, the expiry float, the ordered dict's slot and link), measured on
#: CPython 3.11 (tests/test_service_cache.py checks it against tracemalloc)
ENTRY_OVERHEAD = 400


def key_bytes(key: Hashable) -> int:
    """The bytes a key holds beyond ``ENTRY_OVERHEAD``: the request bytes (or digest) it ends
    with (``service.app.Service.local_key``)."""
    if isinstance(key, tuple) and key and isinstance(key[-1], bytes):
        return len(key[-1])
    return 0


class LRU:
    """A least-recently-used map bounded by entries (``size``) and by bytes (``max_bytes``:
    each entry counts its answer, its key's bytes and ``ENTRY_OVERHEAD``); entries expire after
    ``ttl`` seconds. An entry that alone is over ``max_bytes`` is not kept."""

    def __init__(self, size: int, ttl: float, clock: Callable[[], float] = time.monotonic,
                 max_bytes: int | None = None) -> None:
        self.size, self.ttl, self.clock = size, ttl, clock
        self.max_bytes = max_bytes
        self.bytes = 0  # what the entries count, in all
        self.evictions = 0  # entries dropped to make room (not expired ones)
        self._data: OrderedDict[Hashable, tuple[float, Entry, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: Hashable) -> Entry | None:
        item = self._data.get(key)
        if item is None:
            return None
        if item[0] < self.clock():
            del self._data[key]
            self.bytes -= item[2]
            return None
        self._data.move_to_end(key)
        return item[1]

    def put(self, key: Hashable, entry: Entry) -> bool:
        """Keep ``entry`` under ``key``; False when it is not kept (no room at all for it)."""
        cost = len(entry.body) + key_bytes(key) + ENTRY_OVERHEAD
        limit = self.max_bytes
        if self.size <= 0 or limit is not None and cost > limit:
            return False
        data = self._data
        old = data.pop(key, None)  # a new key goes to the end by itself; so does a replaced one
        if old is not None:
            self.bytes -= old[2]
        data[key] = (self.clock() + self.ttl, entry, cost)
        self.bytes += cost
        while len(data) > self.size or limit is not None and self.bytes > limit:
            self.bytes -= data.popitem(last=False)[1][2]
            self.evictions += 1
        return True


class Breaker:
    """Opens after ``threshold`` consecutive failures; after ``seconds`` lets one trial through."""

    def __init__(self, threshold: int, seconds: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold, self.seconds, self.clock = threshold, seconds, clock
        self.failures = 0
        self.open_until = 0.0
        self.trial = False

    @property
    def is_open(self) -> bool:
        return self.failures >= self.threshold

    def allow(self) -> bool:
        if not self.is_open:
            return True
        if self.trial or self.clock() < self.open_until:
            return False
        self.trial = True
        return True

    def success(self) -> None:
        self.failures = 0
        self.trial = False

    def failure(self) -> None:
        self.failures += 1
        self.trial = False
        if self.is_open:
            self.open_until = self.clock() + self.seconds


def redis_client(settings: Settings) -> Redis | RedisCluster:
    """A Redis (or Redis Cluster) client with short timeouts, no retries and at most
    ``REDIS_MAX_CONNECTIONS`` connections (per node of a cluster): a command waits at most
    ``REDIS_TIMEOUT`` for a free one (a cluster's node refuses it at once), then fails."""
    scheme, sep, rest = settings.redis_url.partition("://")
    url = scheme.lower().removesuffix("+cluster") + sep + rest
    cluster = settings.redis_is_cluster
    kwargs: dict[str, Any] = {"socket_timeout": settings.redis_timeout,
                              "socket_connect_timeout": settings.redis_timeout,
                              "retry": Retry(NoBackoff(), 0),
                              "max_connections": settings.redis_max_connections}
    if cluster:
        return RedisCluster.from_url(url, **kwargs)
    return Redis.from_pool(BlockingConnectionPool.from_url(url, timeout=settings.redis_timeout,
                                                           **kwargs))


class Cache:
    """Two tiers and single flight. ``shared`` never raises because of Redis.

    Redis reads and writes have a circuit breaker each: a Redis that refuses writes (out of
    memory under ``noeviction``, a read-only replica) opens the write breaker only, and hits
    are still read; a Redis that is down opens both."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.local = LRU(settings.cache_size, settings.cache_ttl,
                         max_bytes=settings.cache_max_bytes)
        self.read_breaker = Breaker(settings.redis_breaker_failures,
                                    settings.redis_breaker_seconds)
        self.write_breaker = Breaker(settings.redis_breaker_failures,
                                     settings.redis_breaker_seconds)
        self._redis: Redis | RedisCluster | None = None
        self._flights: dict[str, asyncio.Future[Entry]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # the writes to Redis pending
        metrics.redis_writes_pending.set_function(lambda: len(self._tasks))
        metrics.cache_bytes.set_function(lambda: self.local.bytes)
        metrics.cache_entries.set_function(lambda: len(self.local))

    @property
    def redis(self) -> Redis | RedisCluster | None:
        """The Redis client, made on first use (inside the running event loop)."""
        if self._redis is None and self.settings.redis_url:
            self._redis = redis_client(self.settings)
        return self._redis

    @property
    def breaker_open(self) -> bool:
        """Either Redis breaker is open."""
        return self.read_breaker.is_open or self.write_breaker.is_open

    def uses_redis(self, op: str) -> bool:
        return bool(self.settings.redis_url) and op in self.settings.redis_ops

    def cacheable(self, op: str, entry: Entry) -> bool:
        """Whether an answer is small enough to keep (``CACHE_MAX_ENTRY_BYTES``); counts
        those that are not."""
        if len(entry.body) <= self.settings.cache_max_entry_bytes:
            return True
        self.metrics.of(self.metrics.cache_too_large, op).inc()
        return False

    def keep(self, key: Hashable, entry: Entry) -> None:
        """``entry`` in the in-process tier (its size already checked), evictions counted.
        The tier keeps a copy of the answer's bytes: orjson's output keeps the buffer it was
        written in (4 KiB for a 100-byte answer, 64 KiB for 5 KB), and each kept answer
        would hold that allocation's touched pages, 4 to 5 times what it counts."""
        local = self.local
        evictions = local.evictions
        local.put(key, Entry.of(entry.status, memoryview(entry.body).tobytes()))
        if local.evictions != evictions:
            self.metrics.cache_evictions.inc(local.evictions - evictions)

    def store(self, op: str, key: Hashable, entry: Entry) -> bool:
        """A computed answer, kept in process under ``key`` and counted as a miss; whether it
        was cacheable. Without Redis the caller awaits nothing between its look-up and this
        store, so no identical request can come between them: no single flight is needed."""
        self.metrics.cache_misses.inc(op)
        keep = self.cacheable(op, entry)
        if keep:
            self.keep(key, entry)
        return keep

    async def shared(self, op: str, local: Hashable, shared: str,
                     compute: Callable[[], Entry]) -> tuple[Entry, bool]:
        """The answer from Redis (``shared``) and True, else ``compute()``'s and False; kept in
        process under ``local`` either way (the caller has just missed it there). Requests
        for the same canonical request that come while the first waits for Redis get its
        answer."""
        flight = self._flights.get(shared)
        if flight is not None:
            try:
                entry = await asyncio.shield(flight)
            except Exception:  # the first request failed: compute on our own
                entry = None
            if entry is not None:
                self.metrics.cache_hits.inc(op, "flight")
                return entry, True
        future: asyncio.Future[Entry] = asyncio.get_running_loop().create_future()
        self._flights[shared] = future
        try:
            entry = await self._redis_get(op, shared)
            hit = entry is not None
            if entry is not None:
                self.metrics.cache_hits.inc(op, "redis")
                if len(entry.body) <= self.settings.cache_max_entry_bytes:  # other settings
                    self.keep(local, entry)
            else:
                entry = compute()
                if self.store(op, local, entry):
                    self._write(op, shared, entry)
            future.set_result(entry)
            return entry, hit
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
                future.exception()  # retrieved: waiters compute on their own
            raise
        finally:
            if self._flights.get(shared) is future:
                del self._flights[shared]

    def _write(self, op: str, key: str, entry: Entry) -> None:
        """Write ``entry`` to Redis in the background, unless ``redis_max_writes`` writes are
        pending (a slow Redis under many misses): then it is skipped and counted, so neither
        the answers waiting to be written nor the connections writing them grow without
        bound."""
        if len(self._tasks) >= self.settings.redis_max_writes:
            self.metrics.of(self.metrics.redis_writes_skipped, op).inc()
            return
        task = asyncio.get_running_loop().create_task(self._redis_set(op, key, entry))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _failed(self, op: str, breaker: Breaker, exc: BaseException) -> None:
        self.metrics.of(self.metrics.redis_errors, op).inc()
        breaker.failure()
        path = "read" if breaker is self.read_breaker else "write"
        self.metrics.of(self.metrics.breaker_open, path).set(1 if breaker.is_open else 0)
        log.warning("redis error", extra={"fields": {"op": op, "path": path,
                                                     "error": repr(exc)[:200],
                                                     "breaker_open": breaker.is_open}})

    def _succeeded(self, breaker: Breaker) -> None:
        if breaker.failures:
            path = "read" if breaker is self.read_breaker else "write"
            self.metrics.of(self.metrics.breaker_open, path).set(0)
        breaker.success()

    async def _redis_get(self, op: str, key: str) -> Entry | None:
        client = self.redis
        if client is None:
            return None
        if not self.read_breaker.allow():
            self.metrics.of(self.metrics.redis_skipped, op).inc()
            return None
        try:
            async with asyncio.timeout(self.settings.redis_timeout * 2):
                raw = await client.get(key)
        except Exception as exc:
            self._failed(op, self.read_breaker, exc)
            return None
        self._succeeded(self.read_breaker)
        return Entry.decode(raw) if isinstance(raw, bytes) else None

    async def _redis_set(self, op: str, key: str, entry: Entry) -> None:
        client = self.redis
        if client is None:
            return
        if not self.write_breaker.allow():
            self.metrics.of(self.metrics.redis_writes_skipped, op).inc()
            return
        try:
            async with asyncio.timeout(self.settings.redis_timeout * 2):
                await client.set(key, entry.encode(), px=int(self.settings.cache_ttl * 1000))
        except Exception as exc:
            self._failed(op, self.write_breaker, exc)
            return
        self._succeeded(self.write_breaker)

    async def redis_state(self) -> str:
        """``off``; ``ok``; ``read-only`` (reads answer, writes fail: the write breaker is
        open); ``degraded`` (reads fail: the read breaker is open, or a ping through it
        fails)."""
        client = self.redis
        if client is None:
            return "off"
        if not self.read_breaker.allow():
            return "degraded"
        try:
            async with asyncio.timeout(self.settings.redis_timeout * 2):
                await client.ping()
        except Exception as exc:
            self._failed("readyz", self.read_breaker, exc)
            return "degraded"
        self._succeeded(self.read_breaker)
        return "read-only" if self.write_breaker.is_open else "ok"

    async def close(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._redis is not None:
            await self._redis.aclose()
            self._redis = None
