"""The app's own cost per request, without an HTTP server: the bodies of bench/http.py sent
straight to the ASGI app in this process, echo, miss and hit alternated.

    python bench/app.py                  # a Markdown table
    python bench/app.py --compiled       # the engine compiled with mypyc (build/compiled)
    python bench/app.py --no-cache       # CACHE_SIZE=0: misses only
    python bench/app.py --cold 16        # 16 MB of other memory touched before each request

Beside bench/http.py's server CPU per request it shows what the HTTP server, the kernel and a
CPU whose caches went cold between requests add to each request (docs/performance.md, "Where
a miss goes"): there the echo costs the app's echo plus the server's fixed cost, and a miss far
more than the app's miss plus that same cost.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# this folder holds http.py: it must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

def asgi_post(app: Any, path: str, body: bytes) -> Any:
    """A coroutine that POSTs ``body`` to ``path`` of the ASGI app and drops the answer."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 50000),
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, (path, message["status"])

    return app(scope, receive, send)


#: with ``--cold``: memory written before each request, a byte in each 64-byte line, so that the
#: request finds its code and data out of the CPU's caches, as a server's next request does
COLD = bytearray()


def take_caches() -> None:
    COLD[::64] = b"\1" * len(range(0, len(COLD), 64))


async def per_request(app: Any, path: str, bodies: list[bytes]) -> float:
    """Mean µs per request over ``bodies``, sent one after another (with ``COLD``, each timed
    alone after the caches were taken)."""
    if not COLD:
        start = time.perf_counter()
        for body in bodies:
            await asgi_post(app, path, body)
        return (time.perf_counter() - start) / len(bodies) * 1e6
    spent = 0.0
    for body in bodies:
        take_caches()
        start = time.perf_counter()
        await asgi_post(app, path, body)
        spent += time.perf_counter() - start
    return spent / len(bodies) * 1e6


async def measure(ops: list[str], requests: int, rounds: int) -> list[dict[str, Any]]:
    from bench.http import bodies, marked  # after the path and PYTHONPATH are set
    from canasta_referee.service.app import create_app

    stderr, sys.stderr = sys.stderr, open(os.devnull, "w")  # noqa: SIM115  # the log's stream
    try:
        app = create_app()
    finally:
        sys.stderr = stderr
    rows = []
    async with app.router.lifespan_context(app):
        n = 0
        for op, (body, path) in bodies().items():
            if op not in ops:
                continue
            raw = marked(body)
            same = raw.replace(b"@N@", b"0")
            runs: dict[str, list[float]] = {"echo": [], "miss": [], "hit": []}
            await per_request(app, path, [same] * 50)  # warm up
            for _ in range(rounds):
                runs["echo"].append(await per_request(app, "/v1/echo", [same] * requests))
                fresh = [raw.replace(b"@N@", str(1 + (n + i) % 999_998).encode())  # a score
                         for i in range(requests)]
                n += requests
                runs["miss"].append(await per_request(app, path, fresh))
                runs["hit"].append(await per_request(app, path, [same] * requests))
            echo = statistics.median(runs["echo"])
            for case in ("echo", "miss", "hit"):
                us = statistics.median(runs[case])
                rows.append({"op": op, "case": case, "us": us, "ratio": echo / us})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="per measurement")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternate echo, miss and hit this many times; print medians")
    parser.add_argument("--compiled", action="store_true",
                        help="the engine compiled with mypyc (build/compiled, built by "
                             "bench/compiled.py when missing)")
    parser.add_argument("--no-cache", action="store_true", help="CACHE_SIZE=0: misses only")
    parser.add_argument("--cold", type=int, default=0, metavar="MB",
                        help="write MB of other memory before each request (not timed): the "
                             "request's code and data are then out of the CPU's caches, as on "
                             "a server between requests (default 0: back to back)")
    parser.add_argument("--ops", default="legal-actions four players,legal-actions,check,score",
                        help="comma-separated operations of bench/http.py")
    parser.add_argument("--log-level", default="info",
                        help="LOG_LEVEL (default info, the service's default: a log line per "
                             "request, here written to /dev/null; warning: none)")
    args = parser.parse_args()
    os.environ.update({"BENCH_ECHO": "1", "LOG_LEVEL": args.log_level})
    if args.no_cache:
        os.environ["CACHE_SIZE"] = "0"
    if args.compiled:
        folder = ROOT / "build" / "compiled"
        if not any(folder.glob("canasta_referee/engine/*.so")):
            subprocess.run([sys.executable, str(ROOT / "bench" / "compiled.py")], check=True)
        sys.path.insert(0, str(folder))
    from canasta_referee import engine

    if args.compiled and engine.BUILD != "compiled":
        print(f"the engine loaded is {engine.BUILD}, not compiled", file=sys.stderr)
        return 1
    ops = [o.strip() for o in args.ops.split(",")]
    COLD.extend(bytes(args.cold << 20))
    rows = asyncio.run(measure(ops, args.requests, args.rounds))
    print(f"The ASGI app in one process, no HTTP server: {args.requests} requests per "
          f"measurement, median of {args.rounds} alternating rounds; engine {engine.BUILD}, "
          f"LOG_LEVEL={args.log_level}"
          f"{', CACHE_SIZE=0' if args.no_cache else ''}"
          f"{f', {args.cold} MB written before each request' if args.cold else ''}\n")
    print("| operation | case | µs per request | vs echo |")
    print("|---|---|---:|---:|")
    for r in rows:
        if args.no_cache and r["case"] == "hit":
            continue
        print(f"| {r['op']} | {r['case']} | {r['us']:.1f} | {r['ratio']:.0%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
