"""The answer cache: an in-process LRU tier bounded by entries and bytes, then Redis; identical
concurrent requests computed once; short Redis timeouts and a circuit breaker each for reads and
writes, so a slow or dead Redis only means computing, and one that refuses writes still serves
hits. Answers larger than ``CACHE_MAX_ENTRY_BYTES`` are kept in neither tier. A batch's
operations are looked up in Redis in groups (``fetch``: one read, the misses written in one go).

Values are rendered answers (status and JSON bytes), so a hit costs no serialisation. Keys are
built by the caller (``service.app``): in process, the operation, the language and the canonical
request; in Redis, the engine id, the operation, the language, the variant fingerprint and a
hash of the canonical request.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
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
        """An answer as ``encode`` wrote it: a status the service keeps and a JSON object;
        None for anything else (another writer's value, a damaged one): never served."""
        head, sep, body = raw.partition(b":")
        status = KEPT_STATUSES.get(head)
        if status is None or not sep or body[:1] != b"{":
            return None
        return Entry.of(status, body)


#: the statuses of the answers the cache keeps: an answer, or a problem (refusals of a state,
#: an action, a request the engine cannot answer), by their text in a Redis value
KEPT_STATUSES: dict[bytes, int] = {b"200": 200, b"422": 422}


class Lookup(NamedTuple):
    """A cacheable request missed in process, to look up in Redis: its operation, its
    in-process key, its shared (Redis) key, and how to compute its answer."""

    op: str
    local: Hashable
    shared: str
    compute: Callable[[], Entry]


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
        self._writing = 0  # the answers they write
        #: batches waiting for room to write their answers (``stored``)
        self._waiting: deque[tuple[str, list[tuple[str, Entry]],
                                   asyncio.Future[asyncio.Task[None] | None]]] = deque()
        metrics.redis_writes_pending.set_function(lambda: self._writing)
        metrics.cache_bytes.set_function(lambda: self.local.bytes)
        metrics.cache_entries.set_function(lambda: len(self.local))
        metrics.cache_evictions.set_function(lambda: self.local.evictions)

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

    def keep(self, key: Hashable, entry: Entry, sized: bool = False) -> None:
        """``entry`` in the in-process tier (its size already checked; the tier counts evictions).
        The tier keeps a copy of the answer's bytes: orjson's output keeps the buffer it was
        written in (4 KiB for a 100-byte answer, 64 KiB for 5 KB), and each kept answer
        would hold that allocation's touched pages, 4 to 5 times what it counts. ``sized``:
        the bytes were made at their length (a join's), and are kept as they are."""
        self.local.put(key, entry if sized else
                       Entry.of(entry.status, memoryview(entry.body).tobytes()))

    def store(self, op: str, key: Hashable, entry: Entry, sized: bool = False) -> bool:
        """A computed answer, kept in process under ``key`` (``keep``) and counted as a miss;
        whether it was cacheable. Without Redis the caller awaits nothing between its look-up
        and this store, so no identical request can come between them: no single flight is
        needed."""
        self.metrics.cache_misses.inc(op)
        keep = self.cacheable(op, entry)
        if keep:
            self.keep(key, entry, sized)
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
                self.found(op, local, entry)
            else:
                entry = compute()
                if self.store(op, local, entry):
                    self.write(op, [(shared, entry)])
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

    def found(self, op: str, local: Hashable, entry: Entry) -> None:
        """An answer found in Redis: counted as a hit, kept in process under ``local`` (when
        it is small enough by this worker's settings: another's may differ)."""
        self.metrics.cache_hits.inc(op, "redis")
        if len(entry.body) <= self.settings.cache_max_entry_bytes:
            self.keep(local, entry)

    async def fetch(self, lookups: Sequence[Lookup]) -> Fetched:
        """Several lookups at once (a batch's): their Redis answers in one read (``MGET``);
        ``Fetched.answers`` gives each lookup's answer in order, computing the misses as it
        comes to them. Requests that other requests are looking up already are waited for
        first (as ``shared`` waits), and identical requests that come meanwhile wait for these
        lookups."""
        flown = await self._flown(lookups)
        fetched = Fetched(self, lookups, flown)
        try:
            keys = [key for key in dict.fromkeys(look.shared for look in lookups)
                    if key not in flown]
            found = await self._redis_mget("batch", keys) if keys else []
            fetched.read(dict(zip(keys, found, strict=True)), flown)
        except BaseException:
            fetched.close()
            raise
        return fetched

    async def _flown(self, lookups: Sequence[Lookup]) -> dict[str, Entry]:
        """The answers of the requests among ``lookups`` that other requests are looking up
        now, once they have them (those that fail are left out: looked up again). A batch
        waits here holding no lookup of its own, so two batches never wait for each other."""
        flights = self._flights
        others = {look.shared: flights[look.shared] for look in lookups
                  if look.shared in flights}
        if not others:
            return {}
        await asyncio.wait(others.values())  # (cancelled, it leaves the flights running)
        return {key: flight.result() for key, flight in others.items()
                if not flight.cancelled() and flight.exception() is None}

    def write(self, op: str, answers: list[tuple[str, Entry]]) -> asyncio.Task[None] | None:
        """Write ``answers`` (key, entry) to Redis in the background, in one go (the task, or
        None when none is written); past ``redis_max_writes`` answers pending (a slow Redis
        under many misses) the rest are skipped and counted, so neither the answers waiting to
        be written nor the connections writing them grow without bound."""
        room = max(0, self._room())
        if len(answers) > room:
            self.metrics.of(self.metrics.redis_writes_skipped, op).inc(len(answers) - room)
            answers = answers[:room]
        if not answers:
            return None
        count = len(answers)
        self._writing += count
        task = asyncio.get_running_loop().create_task(self._redis_set(op, answers))
        self._tasks.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self._tasks.discard(task)
            self._writing -= count
            self._wake()

        task.add_done_callback(done)
        return task

    async def stored(self, op: str, answers: list[tuple[str, Entry]]) -> None:
        """``write``, waiting for room rather than skipping (a batch's answers: it holds a bulk
        slot, so few wait; first come, first written), then for the write to end; in parts of
        at most ``redis_max_writes`` answers."""
        most = self.settings.redis_max_writes
        for start in range(0, len(answers), most):
            part = answers[start:start + most]
            if self._waiting or self._room() < len(part):
                waiter: asyncio.Future[asyncio.Task[None] | None] = (
                    asyncio.get_running_loop().create_future())
                self._waiting.append((op, part, waiter))
                task = await waiter  # (its write, begun when room came: ``_wake``)
            else:
                task = self.write(op, part)
            if task is not None:
                await task

    def _room(self) -> int:
        return self.settings.redis_max_writes - self._writing

    def _wake(self) -> None:
        """Begin the writes of the batches waiting (``stored``) that the room left holds, in
        order."""
        waiting = self._waiting
        while waiting:
            op, answers, waiter = waiting[0]
            if not waiter.done() and self._room() < len(answers):
                return
            waiting.popleft()
            if not waiter.done():  # (not cancelled)
                waiter.set_result(self.write(op, answers))

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

    async def _command(self, op: str, breaker: Breaker, skipped: Any, count: int,
                       command: Callable[[Redis | RedisCluster], Awaitable[Any]]
                       ) -> tuple[bool, Any]:
        """``command`` run on the Redis client behind ``breaker``, within the timeout:
        (True, its result); (False, None) without Redis, while the breaker is open (``count``
        counted in ``skipped``) or when it fails (counted, and told to the breaker)."""
        client = self.redis
        if client is None:
            return False, None
        if not breaker.allow():
            self.metrics.of(skipped, op).inc(count)
            return False, None
        try:
            async with asyncio.timeout(self.settings.redis_timeout * 2):
                result = await command(client)
        except Exception as exc:
            self._failed(op, breaker, exc)
            return False, None
        self._succeeded(breaker)
        return True, result

    async def _redis_get(self, op: str, key: str) -> Entry | None:
        ok, raw = await self._command(op, self.read_breaker, self.metrics.redis_skipped, 1,
                                      lambda client: client.get(key))
        return self._decoded(op, raw) if ok else None

    def _decoded(self, op: str, raw: Any) -> Entry | None:
        """A value read from Redis as an answer; one that is not an answer the service wrote
        is counted as an error and taken for a miss (the answer computed is written over it)."""
        if raw is None:
            return None
        entry = Entry.decode(raw) if isinstance(raw, bytes) else None
        if entry is None:
            self.metrics.of(self.metrics.redis_errors, op).inc()
        return entry

    async def _redis_mget(self, op: str, keys: list[str]) -> list[Entry | None]:
        """The entries of ``keys`` (None where Redis has none or fails): one ``MGET`` (on a
        cluster, one for each node holding some of them)."""
        def command(client: Redis | RedisCluster) -> Awaitable[list[Any]]:
            if isinstance(client, RedisCluster):
                return client.mget_nonatomic(keys)
            return client.mget(keys)

        ok, raws = await self._command(op, self.read_breaker, self.metrics.redis_skipped,
                                       len(keys), command)
        if not ok:
            return [None] * len(keys)
        return [self._decoded(op, raw) for raw in raws]

    async def _redis_set(self, op: str, answers: list[tuple[str, Entry]]) -> None:
        """``SET`` with the cache's TTL; several answers in one pipeline (one round trip)."""
        px = int(self.settings.cache_ttl * 1000)

        async def command(client: Redis | RedisCluster) -> Any:
            if len(answers) == 1:
                key, entry = answers[0]
                return await client.set(key, entry.encode(), px=px)
            pipe = client.pipeline(transaction=False)
            for key, entry in answers:
                pipe.set(key, entry.encode(), px=px)
            return await pipe.execute()

        await self._command(op, self.write_breaker, self.metrics.redis_writes_skipped,
                            len(answers), command)

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


class Fetched:
    """Lookups whose Redis answers have been fetched at once (``Cache.fetch``)."""

    def __init__(self, cache: Cache, lookups: Sequence[Lookup], flown: dict[str, Entry]
                 ) -> None:
        """The lookups begin: they take the flights of their keys that no other request has
        (``Cache.shared`` waits for them) and that were not answered by another's
        (``flown``)."""
        self.cache, self.lookups, self.flown = cache, lookups, flown
        flights = cache._flights
        loop = asyncio.get_running_loop()
        self.mine: dict[str, asyncio.Future[Entry]] = {}
        for look in lookups:
            if look.shared not in flights and look.shared not in flown:
                self.mine[look.shared] = flights[look.shared] = loop.create_future()
        #: the answers found (in Redis, or by another request: ``flown``), by key, until reached
        self.found: dict[str, Entry | None] = {}
        self.unread_bytes = self.unread_count = 0  # of those found and not yet reached
        self.writes: list[tuple[str, Entry]] = []  # the answers computed, to store

    def read(self, found: dict[str, Entry | None], flown: dict[str, Entry]) -> None:
        """What Redis had for each key (None: nothing), and the answers of other requests."""
        self.found = {**found, **flown}
        entries = [entry for entry in self.found.values() if entry is not None]
        self.unread_count = len(entries)
        self.unread_bytes = sum(len(entry.body) for entry in entries)

    def answers(self) -> Iterator[tuple[Entry, bool]]:
        """Each lookup's answer, in order, and whether it came from Redis (or from an earlier
        lookup of the same request); a miss is computed when it is reached."""
        cache, found, mine = self.cache, self.found, self.mine
        answered: dict[str, Entry] = {}
        for look in self.lookups:
            entry = answered.get(look.shared)
            if entry is not None:
                cache.metrics.cache_hits.inc(look.op, "flight")
                yield entry, True
                continue
            entry = found.pop(look.shared, None)
            hit = entry is not None
            if entry is not None:
                self.unread_bytes -= len(entry.body)
                self.unread_count -= 1
                if look.shared in self.flown:  # (kept in process by the request that found it)
                    cache.metrics.cache_hits.inc(look.op, "flight")
                else:
                    cache.found(look.op, look.local, entry)
            else:
                entry = look.compute()
                if cache.store(look.op, look.local, entry):
                    self.writes.append((look.shared, entry))
            answered[look.shared] = entry
            future = mine.get(look.shared)
            if future is not None:
                future.set_result(entry)
            yield entry, hit

    def close(self) -> None:
        """The lookups end: requests waiting for one never reached compute on their own."""
        flights = self.cache._flights
        for key, future in self.mine.items():
            if not future.done():
                future.set_exception(Unanswered(key))
                future.exception()  # retrieved: waiters compute on their own
            if flights.get(key) is future:
                del flights[key]
        self.mine = {}


class Unanswered(Exception):
    """A lookup of ``Cache.fetch`` that its batch did not reach (it stopped before)."""
