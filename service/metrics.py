"""Prometheus metrics, one registry per app (per worker process: docs/operations.md, "Metrics")."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric

disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: they double the exposition for nothing

BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Tally:
    """A counter of every request (by its labels) kept as plain integers, which the registry
    reads when ``/metrics`` is scraped: counting costs a dict update, no lock, no child look-up
    (one event loop thread counts)."""

    def __init__(self, name: str, doc: str, labels: tuple[str, ...]) -> None:
        self.name, self.doc, self.labels = name, doc, labels
        self.counts: dict[tuple[str, ...], int] = {}

    def inc(self, *labels: str) -> None:
        self.counts[labels] = self.counts.get(labels, 0) + 1

    def value(self, *labels: str) -> int:
        return self.counts.get(labels, 0)

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.doc, labels=self.labels)
        for labels, count in list(self.counts.items()):
            family.add_metric(labels, count)
        yield family


class Reading:
    """A counter without labels whose value its owner keeps as a plain integer and the registry
    reads when ``/metrics`` is scraped (``set_function``, as a ``Gauge``'s): counting costs the
    owner's ``+= 1``, no lock."""

    def __init__(self, name: str, doc: str) -> None:
        self.name, self.doc = name, doc
        self.read: Callable[[], float] = lambda: 0

    def set_function(self, read: Callable[[], float]) -> None:
        self.read = read

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(self.name, self.doc, value=self.read())


class Timings:
    """A histogram of seconds by operation kept as plain bucket counts (as ``Tally``)."""

    BOUNDS = [*(repr(float(b)) for b in BUCKETS), "+Inf"]  # as prometheus_client writes them

    def __init__(self, name: str, doc: str) -> None:
        self.name, self.doc = name, doc
        self.rows: dict[str, list[float]] = {}  # per op: each bucket's count, then the sum

    def observe(self, op: str, seconds: float) -> None:
        row = self.rows.get(op)
        if row is None:
            row = self.rows[op] = [0.0] * (len(BUCKETS) + 2)
        row[bisect_left(BUCKETS, seconds)] += 1  # le: a bound counts what equals it
        row[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self.name, self.doc, labels=("op",))
        for op, row in list(self.rows.items()):
            cumulative, buckets = 0.0, []
            for bound, count in zip(self.BOUNDS, row[:-1], strict=True):
                cumulative += count
                buckets.append((bound, cumulative))
            family.add_metric((op,), buckets, row[-1])
        yield family


class Metrics:
    """Requests, latency, cache hits and misses, Redis errors: per operation."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        # counted on every request: plain counts (Tally, Timings), the rest prometheus_client's
        self.requests = Tally("canasta_requests", "HTTP requests answered.", ("op", "status"))
        self.latency = Timings("canasta_request_seconds", "Time to answer a request.")
        self.cache_hits = Tally("canasta_cache_hits", "Answers served from a cache tier.",
                                ("op", "tier"))
        self.cache_misses = Tally("canasta_cache_misses", "Answers computed (no tier had it).",
                                  ("op",))
        for collector in (self.requests, self.latency, self.cache_hits, self.cache_misses):
            r.register(collector)
        self.redis_errors = Counter("canasta_redis_errors", "Redis commands that failed or "
                                    "timed out, and values read that are not answers the "
                                    "service wrote.", ("op",), registry=r)
        self.redis_skipped = Counter("canasta_redis_skipped", "Redis lookups skipped while the "
                                     "read circuit breaker was open.", ("op",), registry=r)
        self.redis_writes_skipped = Counter("canasta_redis_writes_skipped", "Redis writes "
                                            "skipped while the write circuit breaker was open, "
                                            "or while REDIS_MAX_CONNECTIONS / 2 were pending "
                                            "(a single request's: a batch waits).",
                                            ("op",), registry=r)
        self.redis_writes_pending = Gauge("canasta_redis_writes_pending", "Answers being "
                                          "written to Redis (at most REDIS_MAX_CONNECTIONS / 2).",
                                          registry=r)
        self.breaker_open = Gauge("canasta_redis_breaker_open", "1 while the Redis circuit "
                                  "breaker of reads (path=read) or of writes (path=write) is "
                                  "open.", ("path",), registry=r)
        for path in ("read", "write"):
            self.breaker_open.labels(path).set(0)
        self.cache_bytes = Gauge("canasta_cache_bytes", "Bytes the in-process cache tier "
                                 "holds (answers, keys, a fixed overhead per entry).", registry=r)
        self.cache_entries = Gauge("canasta_cache_entries", "Entries of the in-process cache "
                                   "tier.", registry=r)
        self.cache_evictions = Reading("canasta_cache_evictions", "Entries the in-process "
                                       "tier dropped for room (CACHE_SIZE, CACHE_MAX_BYTES).")
        r.register(self.cache_evictions)
        self.cache_too_large = Counter("canasta_cache_too_large", "Answers not cached (in "
                                       "either tier): larger than CACHE_MAX_ENTRY_BYTES.",
                                       ("op",), registry=r)
        self.client_aborts = Tally("canasta_client_aborts", "Requests whose client went away "
                                   "before its body arrived or, for a batch, before it was "
                                   "answered (reason `disconnect`), or whose body did not "
                                   "arrive within BODY_TIMEOUT (`timeout`); no answer, not "
                                   "counted in canasta_requests.", ("op", "reason"))
        r.register(self.client_aborts)
        self.engine_info = Gauge("canasta_engine_info", "1, labelled with the engine's cache id, "
                                 "its build (compiled or python) and the writer of legal-action "
                                 "lists and states and reader of requests (native or python).",
                                 ("id", "build", "writer"), registry=r)

        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def of(self, metric: Counter | Gauge | Histogram, *labels: str) -> Any:
        """``metric.labels(*labels)``, kept: the labels are few (operations, statuses, tiers)
        and looking a child up again costs more than counting."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def render(self) -> bytes:
        """The Prometheus text exposition (with the process's connection metrics)."""
        return generate_latest(self.registry) + generate_latest(CONNECTIONS.registry)


class ConnectionMetrics:
    """What the HTTP protocol (``service.protocol``) counts, and the process's own figures
    (``process_*``: CPU, memory, file descriptors; ``python_gc_*``: the garbage collector's
    runs; ``python_info``), read when scraped: one set per process, as the connections are the
    process's, not an app's."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        for collector in (ProcessCollector, GCCollector, PlatformCollector):
            collector(registry=r)
        self.closed = Counter("canasta_connections_closed", "Connections the server closed or "
                              "refused before a request was answered (or before its answer "
                              "was taken), by reason: "
                              "`header_timeout`, `body_timeout`, `headers_too_large`, `evicted` "
                              "(idle, closed for a new one past MAX_CONNECTIONS), `refused` (past "
                              "MAX_CONNECTIONS and its reserve), `send_timeout` (an answer not "
                              "taken within SEND_TIMEOUT), `unsent_bytes` (dropped to keep the "
                              "answers held back within MAX_UNSENT_BYTES).", ("reason",), registry=r)
        self.shed = Counter("canasta_requests_shed", "Requests answered 503 OVERLOADED before "
                            "their body was read, by reason: `in_flight` (MAX_IN_FLIGHT), "
                            "`connections` (past MAX_CONNECTIONS), `bulk_in_flight` (an audit "
                            "or batch past MAX_BULK_IN_FLIGHT).", ("reason",), registry=r)
        self.open = Gauge("canasta_connections_open", "Open HTTP connections of this process.",
                          registry=r)
        self.in_flight = Gauge("canasta_requests_in_flight", "Requests of this process being "
                               "read, queued or answered.", registry=r)
        self._children: dict[tuple[str, str], Any] = {}

    def count(self, metric: Counter, reason: str) -> None:
        key = (metric._name, reason)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(reason)
        child.inc()


CONNECTIONS = ConnectionMetrics()
