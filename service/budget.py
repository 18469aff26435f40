"""The memory budget of one worker process (docs/operations.md, "Memory budget"): what its
settings let it hold at most, whatever the clients send.

    python -m canasta_referee.service.budget                 # the budget of the settings in use
    python -m canasta_referee.service.budget --in-flight 32  # with another number in flight

    budget = baseline + cache + one computation
             + MAX_IN_FLIGHT × (2 × MAX_BODY_BYTES + largest answer)
             + MAX_BULK_IN_FLIGHT × (2 × the largest audit or batch body + MAX_BULK_ANSWER_BYTES)
             + MAX_UNSENT_BYTES + MAX_CONNECTIONS × WRITE_HIGH_WATER
             + REDIS_MAX_CONNECTIONS / 2 × 2 × CACHE_MAX_ENTRY_BYTES   (with REDIS_URL)

- ``baseline``: a worker after start-up and a first request of each kind (measured 60 MiB,
  Python engine, CPython 3.11, x86-64), with room for the allocator's own growth.
- ``cache``: the in-process tier's bound, ``min(CACHE_MAX_BYTES, CACHE_SIZE × the largest
  entry)``, times the resident memory a counted byte costs (measured 0.97 for 60 KB answers,
  1.13 for 100-byte ones: the tier keeps right-sized copies; ``service.cache.Cache.keep``).
- one computation: requests are answered one at a time in a worker (the engine and the
  validation run on the event loop), so only one request's passing allocations count; the
  largest measured is 17 MiB (a 224 KB state with 44,000 problems; pydantic keeps at most
  MAX_PROBLEMS errors plus one card list's, ``schema.models.ErrorBudget``).
- in flight: each request being received or answered holds its body (twice while Starlette
  joins its chunks) and its answer, the largest of which MAX_PROBLEMS and MAX_LEGAL_ACTIONS
  bound; ``MAX_IN_FLIGHT`` bounds how many (``IN_FLIGHT`` is assumed when it is 0: no limit).
- bulk: audits and batches have bodies of their own limits (``MAX_AUDIT_BODY_BYTES``,
  ``MAX_BATCH_BODY_BYTES``) and answers up to ``MAX_BULK_ANSWER_BYTES`` (a batch of 256
  answers, or an audit's events and states); ``MAX_BULK_IN_FLIGHT`` of them at most are read
  or answered at once.
- unsent: answers written but not yet taken by their clients (the kernel's socket buffers
  full). Those held back (more than ``service.protocol.WRITE_HIGH_WATER`` on a connection)
  stay within ``MAX_UNSENT_BYTES`` together; any other connection keeps less than the
  high-water mark. ``SEND_TIMEOUT`` bounds how long either is kept.
- Redis writes: answers being written to Redis, at most ``REDIS_MAX_CONNECTIONS`` / 2 of them
  (``service.cache.Cache.write``; a batch waits for room), each at most
  ``CACHE_MAX_ENTRY_BYTES`` and held twice (the answer and the bytes sent); none without
  ``REDIS_URL``.

Beside the budget, outside the worker's memory but inside a container's: the kernel's send
buffers of its connections, ``MAX_CONNECTIONS`` x 2 x ``SEND_BUFFER_BYTES`` when that is set
(``kernel_send_bound``; the report prints it).

The constants were measured on the project's 2-core development machine: resident memory from
/proc (``bench/attack.py``), allocations with tracemalloc (``tests/test_service_cache.py`` checks
the cache's count against them). ``tests/test_memory_attack.py`` holds a real server to this
budget under attack, and ``tests/test_deploy_files.py`` holds the Kubernetes memory limit and
request, and Compose's ``mem_limit``, to it.
"""

from __future__ import annotations

import argparse
import sys
from typing import NamedTuple

from .app import RAW_KEY_BYTES
from .cache import ENTRY_OVERHEAD
from .protocol import WRITE_HIGH_WATER
from .settings import SettingError, Settings

MIB = 1024 * 1024
#: a worker after start-up and warm-up (measured 60 MiB), with room for the allocator
BASELINE = 96 * MIB
#: resident bytes per byte the in-process tier counts (measured 0.97 to 1.13)
CACHE_RSS_FACTOR = 1.25
#: the largest passing allocation of one request (measured 17 MiB)
COMPUTE_PEAK = 32 * MIB
#: the most bytes one listed problem writes: a message of up to 2,000 characters (a meld's
#: cards spelled out), its code and its path
ANSWER_PER_PROBLEM = 2_200
#: the most bytes one listed legal action writes (measured 78 to 89 on average)
ANSWER_PER_ACTION = 120
#: any other answer: a valid state (at most 162 cards) and its events, a score, a verdict
OTHER_ANSWER = 16 * 1024
#: requests in flight per worker the budget assumes when MAX_IN_FLIGHT is 0 (no limit)
IN_FLIGHT = 64
#: with WORKERS > 1: uvicorn's supervisor and multiprocessing's helper process (measured 38
#: and 15 MiB)
SUPERVISOR = 64 * MIB


class Budget(NamedTuple):
    """A worker's memory budget in bytes, by part."""

    baseline: int
    cache: int
    compute: int
    in_flight: int
    bulk: int
    unsent: int
    redis_writes: int

    @property
    def total(self) -> int:
        return (self.baseline + self.cache + self.compute + self.in_flight + self.bulk
                + self.unsent + self.redis_writes)


def largest_answer(settings: Settings) -> int:
    """The most bytes one answer can have with these settings."""
    return max(settings.max_problems * ANSWER_PER_PROBLEM,
               settings.max_legal_actions * ANSWER_PER_ACTION, OTHER_ANSWER) + 1024


def cache_bound(settings: Settings) -> int:
    """The most bytes the in-process tier counts: its byte bound, or its entry bound times the
    largest entry, whichever is less (0 without the tier)."""
    if settings.cache_size <= 0 or settings.cache_max_bytes <= 0:
        return 0
    entry = settings.cache_max_entry_bytes + RAW_KEY_BYTES + ENTRY_OVERHEAD
    return min(settings.cache_max_bytes, settings.cache_size * entry)


def in_flight_of(settings: Settings) -> int:
    """Requests a worker reads or answers at once: ``MAX_IN_FLIGHT``, or ``IN_FLIGHT`` when it
    is 0 (no limit)."""
    return settings.max_in_flight or IN_FLIGHT


def bulk_bound(settings: Settings) -> int:
    """What the audits and batches in flight hold at most: each its body (twice while it is
    joined) and its answer."""
    body = max(settings.max_audit_body_bytes, settings.max_batch_body_bytes)
    return settings.max_bulk_in_flight * (2 * body + settings.max_bulk_answer_bytes)


def unsent_bound(settings: Settings) -> int:
    """What answers not yet taken by their clients hold at most (``service.protocol``)."""
    return settings.max_unsent_bytes + settings.max_connections * WRITE_HIGH_WATER


def redis_writes_bound(settings: Settings) -> int:
    """What answers being written to Redis hold at most (none without Redis)."""
    if not settings.redis_url:
        return 0
    return settings.redis_max_writes * 2 * settings.cache_max_entry_bytes


def kernel_send_bound(settings: Settings) -> int | None:
    """What the kernel's send buffers of one worker's connections hold at most, outside the
    worker's memory (in a container they count towards its limit): ``MAX_CONNECTIONS`` x 2 x
    ``SEND_BUFFER_BYTES`` (Linux keeps twice the ``SO_SNDBUF`` asked for); None while it is 0
    (the kernel's own sizing, up to ``net.ipv4.tcp_wmem``'s maximum per connection)."""
    if not settings.send_buffer_bytes:
        return None
    return settings.max_connections * 2 * settings.send_buffer_bytes


def budget(settings: Settings, in_flight: int | None = None) -> Budget:
    """The memory budget of one worker with these settings (``in_flight``: requests in flight
    instead of ``MAX_IN_FLIGHT``)."""
    per_request = 2 * settings.max_body_bytes + largest_answer(settings)
    if in_flight is None:
        in_flight = in_flight_of(settings)
    return Budget(BASELINE, int(cache_bound(settings) * CACHE_RSS_FACTOR), COMPUTE_PEAK,
                  in_flight * per_request, bulk_bound(settings), unsent_bound(settings),
                  redis_writes_bound(settings))


def for_workers(settings: Settings, in_flight: int | None = None) -> int:
    """The budget of a whole server: ``WORKERS`` workers, and their supervisor when there are
    several."""
    return budget(settings, in_flight).total * settings.workers + (
        SUPERVISOR if settings.workers > 1 else 0)


def report(settings: Settings, in_flight: int | None = None) -> str:
    """The budget as ``python -m canasta_referee.service.budget`` prints it (docs/operations.md
    quotes it)."""
    b = budget(settings, in_flight)
    n = in_flight_of(settings) if in_flight is None else in_flight
    lines = [f"{name:>22}: {value / MIB:6.1f} MiB" for name, value in (
        ("baseline", b.baseline), ("cache", b.cache), ("one computation", b.compute),
        (f"{n} in flight", b.in_flight),
        (f"{settings.max_bulk_in_flight} audits/batches", b.bulk), ("unsent answers", b.unsent),
        ("Redis writes", b.redis_writes), ("a worker", b.total),
        (f"WORKERS={settings.workers}", for_workers(settings, in_flight)))]
    kernel = kernel_send_bound(settings)
    lines.append(f"{'+ kernel send buffers':>22}: " + (
        "not bounded (SEND_BUFFER_BYTES=0)" if kernel is None
        else f"{kernel / MIB:6.1f} MiB a worker, outside its memory"))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m canasta_referee.service.budget",
                                     description="The memory budget of one worker with the "
                                     "settings in the environment.")
    parser.add_argument("--in-flight", type=int, default=None,
                        help="requests in flight per worker (default: MAX_IN_FLIGHT)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except SettingError as exc:
        print(f"python -m canasta_referee.service.budget: {exc}", file=sys.stderr)
        return 2
    print(report(settings, args.in_flight), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
