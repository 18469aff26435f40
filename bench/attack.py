"""Memory and latency of one worker while a client sends requests with huge answers
(issue 17): the worker's resident memory (RSS from /proc, sampled every 50 ms, and the kernel's
high-water mark VmHWM) and the latency of the attack's requests and of a small ordinary request
sent beside them.

    python bench/attack.py                       # every kind, 200 requests each, a table
    python bench/attack.py --kinds validate-absurd --requests 100 --concurrency 4
    python bench/attack.py --env CACHE_MAX_BYTES=16777216 --json
    python bench/attack.py --compiled            # the engine compiled with mypyc (as in the image)
    git worktree add /tmp/before <commit> && python bench/attack.py --cwd /tmp/before
                                                 # the server runs another checkout's code

It starts one single-worker service (``canasta-referee serve``, LOG_LEVEL=warning, the
settings' defaults unless ``--env`` says else) on a free loopback port and sends only to it.
The kinds (tests/hostile.py): ``validate-absurd`` (a 152 KB state with 30,061 problems, a new
first score each time, so each is a new cache key), ``legal-actions-absurd`` (the same state
for legal-actions: INVALID_STATE), ``legal-actions-big-hand`` (a valid six-player state whose
seat to move holds 150 cards: 1,188 legal actions), ``graphql-validate-absurd``. Figures, not a
test: tests/test_memory_attack.py asserts the bound.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# this folder holds http.py: it must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import orjson  # noqa: E402

from canasta_referee.schema.models import EXAMPLE_STATE  # noqa: E402
from tests.hostile import KINDS, rss_kib  # noqa: E402
from tests.servers import Service  # noqa: E402


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def attack(svc: Service, kind: str, requests: int, concurrency: int,
           start: int) -> dict[str, Any]:
    """``requests`` requests of ``kind`` from ``concurrency`` clients, a sampler of the
    server's RSS and a probe (a small legal-actions, a new state every time: a miss) every
    100 ms."""
    assert svc.proc is not None
    pid = svc.proc.pid
    make = KINDS[kind]
    bodies = [make(start + i) for i in range(requests)]
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    sizes: list[int] = []
    probes: list[float] = []
    samples: list[int] = []
    lock = threading.Lock()
    done = threading.Event()
    queue = list(range(requests))

    def client() -> None:
        with httpx.Client(base_url=svc.url, timeout=120) as c:
            while True:
                with lock:
                    if not queue:
                        return
                    i = queue.pop()
                path, body = bodies[i]
                t = time.perf_counter()
                r = c.post(path, content=body, headers={"content-type": "application/json"})
                dt = time.perf_counter() - t
                with lock:
                    latencies.append(dt)
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                    sizes.append(len(r.content))

    def sampler() -> None:
        while not done.is_set():
            samples.append(rss_kib(pid)["VmRSS"])
            time.sleep(0.05)

    def probe() -> None:
        n = 0
        with httpx.Client(base_url=svc.url, timeout=120) as c:
            while not done.is_set():
                n += 1
                state = {**EXAMPLE_STATE, "scores": [start + n, 1]}
                t = time.perf_counter()
                r = c.post("/v1/legal-actions", content=orjson.dumps({"state": state}))
                assert r.status_code == 200, r.text[:300]
                probes.append(time.perf_counter() - t)
                time.sleep(0.1)

    before = rss_kib(pid)["VmRSS"]
    threads = [threading.Thread(target=client) for _ in range(concurrency)]
    side = [threading.Thread(target=sampler), threading.Thread(target=probe)]
    started = time.perf_counter()
    for t in side + threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    done.set()
    for t in side:
        t.join()
    mem = rss_kib(pid)
    ready = httpx.get(svc.url + "/readyz", timeout=10).json()
    return {"kind": kind, "requests": requests, "concurrency": concurrency,
            "statuses": statuses, "request_bytes": len(bodies[0][1]),
            "answer_bytes_mean": statistics.mean(sizes), "seconds": wall,
            "p50_ms": pct(latencies, 50) * 1000, "p99_ms": pct(latencies, 99) * 1000,
            "max_ms": max(latencies) * 1000,
            "probe_p50_ms": pct(probes, 50) * 1000, "probe_p99_ms": pct(probes, 99) * 1000,
            "probe_max_ms": max(probes, default=float("nan")) * 1000,
            "rss_before_mib": before / 1024, "rss_after_mib": mem["VmRSS"] / 1024,
            "rss_peak_sampled_mib": max(samples, default=0) / 1024,
            "hwm_mib": mem["VmHWM"] / 1024, "cache": ready.get("cache")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="comma-separated, in order (default: all): " + ", ".join(KINDS))
    parser.add_argument("--requests", type=int, default=200, help="per kind")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--env", action="append", default=[],
                        help="a setting for the server, NAME=VALUE (repeatable)")
    parser.add_argument("--compiled", action="store_true",
                        help="serve with the mypyc-compiled engine (build/compiled, built by "
                             "bench/compiled.py when missing)")
    parser.add_argument("--cwd", type=Path,
                        help="serve the code of this checkout instead (it comes first on the "
                             "server's path): a before/after comparison in one run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds: {', '.join(sorted(unknown))}")
    env = dict(e.split("=", 1) for e in args.env)
    cwd = args.cwd.resolve() if args.cwd else ROOT
    if args.compiled:
        cwd = ROOT / "build" / "compiled"
        if not any(cwd.glob("canasta_referee/engine/*.so")):
            subprocess.run([sys.executable, str(ROOT / "bench" / "compiled.py")], check=True)
    svc = Service(env, cwd=cwd).start()
    rows = []
    try:
        assert svc.proc is not None
        with httpx.Client(base_url=svc.url, timeout=60) as c:  # touch every part once
            c.post("/v1/legal-actions", json={"state": EXAMPLE_STATE})
            c.post("/graphql", json={"query": "{ variants { id } }"})
        time.sleep(0.5)
        idle = rss_kib(svc.proc.pid)["VmRSS"] / 1024
        for i, kind in enumerate(kinds):
            rows.append(attack(svc, kind, args.requests, args.concurrency, 1000 * (i + 1)))
    finally:
        svc.stop()
    if args.json:
        print(json.dumps({"idle_rss_mib": idle, "env": env, "rows": rows}, indent=2))
        return 0
    print(f"one uvicorn worker{' (mypyc-compiled engine)' if args.compiled else ''}"
          f"{f' serving {cwd}' if args.cwd else ''}, "
          f"settings: {env or 'defaults'}; {args.requests} requests per kind from "
          f"{args.concurrency} clients, in this order; RSS after start-up and warm-up "
          f"{idle:.0f} MiB\n")
    print("| kind | request bytes | answer bytes (mean) | statuses | seconds | p50 ms | p99 ms "
          "| probe p50 ms | probe p99 ms | probe max ms | RSS before MiB | RSS after MiB "
          "| RSS peak MiB (HWM) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        statuses = ", ".join(f"{k}: {v}" for k, v in sorted(r["statuses"].items()))
        print(f"| {r['kind']} | {r['request_bytes']:,} | {r['answer_bytes_mean']:,.0f} | "
              f"{statuses} | {r['seconds']:.1f} | {r['p50_ms']:.0f} | {r['p99_ms']:.0f} | "
              f"{r['probe_p50_ms']:.1f} | {r['probe_p99_ms']:.1f} | {r['probe_max_ms']:.0f} | "
              f"{r['rss_before_mib']:.0f} | {r['rss_after_mib']:.0f} | {r['hwm_mib']:.0f} |")
    last = rows[-1]["cache"] if rows else None
    print(f"\ncache at the end (/readyz): {json.dumps(last)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
