"""Latency under many connections, with and without admission control, and what the bounded
protocol (``service/protocol.py``) costs: all against baselines measured in the same run.

    python bench/attack_connections.py                  # a Markdown table (about 2 minutes)
    python bench/attack_connections.py --seconds 5 --json

It starts single-worker services on loopback (``canasta-referee serve``, LOG_LEVEL=warning) and
drives them from this process with asyncio: each of N keep-alive connections sends a request,
reads the answer, and sends the next one (a closed loop; an answer 503 with ``Retry-After``
makes that client wait as asked, times a random 0.5 to 1.5). The request is
``POST /v1/legal-actions`` with a state that changes every time (a cache miss: the engine runs
for every request).

Cases:

- ``baseline``: one connection (the unloaded latency);
- ``256, no admission control``: MAX_IN_FLIGHT=0, every request waits its turn;
- ``256, MAX_IN_FLIGHT=64`` (the default) and ``=16``: a request past the limit gets 503 at once;
- ``32 + 600 idle/slow``: 32 clients while 500 connections send nothing and 100 send a header
  byte a second (HEADER_TIMEOUT closes them; new ones replace them);
- protocol cost, in this process with no network: CPU time per request of
  ``service.protocol.RefereeProtocol`` and of uvicorn's plain ``HttpToolsProtocol`` for the same
  keep-alive requests to a trivial ASGI app (the fastest of several alternating rounds: a shared
  machine adds to a round, never takes away).

Figures: requests/s answered 200, the median and p99 of their latency, p99/median, the share
of 503s and their median latency, the server's CPU time per answered request. The clients run
in this process, on the same machine as the server: compare rows of one run, not machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# bench/http.py must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from canasta_referee.schema.models import EXAMPLE_STATE  # noqa: E402
from tests.servers import Service  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(path: str, body: bytes) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def bodies(n: int) -> list[bytes]:
    """``n`` legal-actions bodies, each a different state (the scores change): all misses."""
    base = json.dumps({"state": {**EXAMPLE_STATE, "scores": [0, 0]}}, separators=(",", ":"))
    head, _, tail = base.partition('"scores":[0,0]')
    return [f'{head}"scores":[{i},0]{tail}'.encode() for i in range(n)]


async def client(port: int, payloads: list[bytes], start: float, stop: float,
                 out: list[tuple[float, float, int]], offset: int) -> None:
    """One keep-alive connection in a closed loop until ``stop``; records (sent at, seconds,
    status) of each answer."""
    i = offset
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.monotonic() < stop:
            payload = payloads[i % len(payloads)]
            i += 7919
            sent = time.monotonic()
            writer.write(payload)
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            status = int(head[9:12])
            length, retry, close = 0, 0.0, False
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                name = name.lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"retry-after":
                    retry = float(value)
                elif name == b"connection" and b"close" in value.lower():
                    close = True
            await reader.readexactly(length)
            if sent >= start:
                out.append((sent, time.monotonic() - sent, status))
            if close:
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            if status == 503 and retry:  # as asked, with jitter (no herd of retries)
                await asyncio.sleep(retry * random.uniform(0.5, 1.5))
    finally:
        writer.close()


async def nuisance(port: int, idle: int, slow: int, stop: float) -> None:
    """``idle`` connections that send nothing and ``slow`` that send a header byte a second,
    each opened anew when the server closes it, until ``stop``."""

    async def one(trickle: bool) -> None:
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            try:
                text = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"x" * 1000
                for byte in text:
                    if time.monotonic() >= stop or reader.at_eof():
                        break
                    if trickle:
                        writer.write(bytes([byte]))
                    try:
                        await asyncio.wait_for(reader.read(1024), 1.0)
                        break  # answered (408) or closed
                    except TimeoutError:
                        pass
            except ConnectionError:
                pass
            finally:
                writer.close()

    await asyncio.gather(*(one(False) for _ in range(idle)), *(one(True) for _ in range(slow)))


async def load(port: int, payloads: list[bytes], connections: int, seconds: float,
               warmup: float, idle: int = 0, slow: int = 0) -> list[tuple[float, float, int]]:
    start = time.monotonic() + warmup
    stop = start + seconds
    out: list[tuple[float, float, int]] = []
    tasks = [client(port, payloads, start, stop, out, k * 104729)
             for k in range(connections)]
    if idle or slow:
        tasks.append(nuisance(port, idle, slow, stop))
    await asyncio.gather(*tasks)
    return out


def figures(samples: list[tuple[float, float, int]], seconds: float) -> dict[str, Any]:
    ok = sorted(s for _, s, status in samples if status == 200)
    shed = sorted(s for _, s, status in samples if status == 503)
    other = sum(1 for _, _, status in samples if status not in (200, 503))

    def pct(values: list[float], p: float) -> float:
        return values[min(len(values) - 1, int(p * len(values)))] * 1000 if values else 0.0

    median = statistics.median(ok) * 1000 if ok else 0.0
    return {"rps": len(ok) / seconds, "p50_ms": median, "p99_ms": pct(ok, 0.99),
            "p99_over_p50": pct(ok, 0.99) / median if median else 0.0,
            "shed_share": len(shed) / max(len(samples), 1),
            "shed_p50_ms": statistics.median(shed) * 1000 if shed else 0.0,
            "other": other, "answered": len(ok)}


def run(svc: Service, payloads: list[bytes], connections: int, seconds: float,
        warmup: float, **nuisance: int) -> dict[str, Any]:
    assert svc.proc is not None
    before = cpu_seconds(svc.proc.pid)
    samples = asyncio.run(load(svc.port, payloads, connections, seconds, warmup, **nuisance))
    cpu = cpu_seconds(svc.proc.pid) - before
    row = figures(samples, seconds)
    row["cpu_us"] = cpu / max(row["answered"], 1) * 1e6
    return row


def protocol_cost(requests: int = 20_000, rounds: int = 9) -> dict[str, float]:
    """CPU µs per keep-alive request through each protocol class, no network (a transport
    that drops what is written), to an app that reads the body and answers ``{}``."""
    import uvloop
    from uvicorn.config import Config
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.server import ServerState

    from canasta_referee.service.protocol import RefereeProtocol

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"{}"})

    class Sink(asyncio.Transport):
        def write(self, data: Any) -> None:
            pass

        def is_closing(self) -> bool:
            return False

        def close(self) -> None:
            pass

        def get_extra_info(self, name: str, default: Any = None) -> Any:
            return {"peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(name, default)

        def pause_reading(self) -> None:
            pass

        def resume_reading(self) -> None:
            pass

    raw = request("/v1/echo", b"{}")

    async def once(cls: Any) -> float:
        config = Config(app, log_level="warning", lifespan="off", log_config=None)
        config.load()
        state = ServerState()
        protocol = cls(config=config, server_state=state, app_state={},
                       _loop=asyncio.get_running_loop())
        protocol.connection_made(Sink())
        started = time.process_time()
        for _ in range(requests):
            protocol.data_received(raw)
            while state.tasks:
                await asyncio.sleep(0)
        protocol.connection_lost(None)
        return (time.process_time() - started) / requests * 1e6

    async def rounds_of() -> dict[str, float]:
        best = {"plain": float("inf"), "bounded": float("inf")}
        for _ in range(rounds):
            best["plain"] = min(best["plain"], await once(HttpToolsProtocol))
            best["bounded"] = min(best["bounded"], await once(RefereeProtocol))
        return best

    result: dict[str, float] = uvloop.run(rounds_of())
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10, help="per measurement")
    parser.add_argument("--warmup", type=float, default=2)
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    n = args.connections
    misses = [request("/v1/legal-actions", b) for b in bodies(50_000)]
    base_env = {"LOG_LEVEL": "warning", "CACHE_SIZE": "0", "MAX_CONNECTIONS": "2000"}
    rows: list[dict[str, Any]] = []

    def case(name: str, env: dict[str, str], connections: int, **nuisance: int) -> None:
        svc = Service({**base_env, **env}).start()
        try:
            row = run(svc, misses, connections, args.seconds, args.warmup, **nuisance)
        finally:
            svc.stop()
        rows.append({"case": name, "connections": connections, **row})
        print(f"  {name}: {row['rps']:.0f}/s p50 {row['p50_ms']:.1f} ms "
              f"p99 {row['p99_ms']:.1f} ms shed {row['shed_share']:.0%}", file=sys.stderr)

    off = {"MAX_IN_FLIGHT": "0"}
    case("baseline: 1 connection", off, 1)
    case(f"{n}, no admission control", off, n)
    case(f"{n}, MAX_IN_FLIGHT=64 (default)", {"MAX_IN_FLIGHT": "64"}, n)
    case(f"{n}, MAX_IN_FLIGHT=16", {"MAX_IN_FLIGHT": "16"}, n)
    case("32, no attack", {}, 32)
    case("32 + 500 idle + 100 slow", {}, 32, idle=500, slow=100)
    cost = protocol_cost()
    if args.json:
        print(json.dumps({"rows": rows, "protocol_cpu_us": cost}, indent=2))
        return 0
    print("| case | conns | answered/s | p50 ms | p99 ms | p99/p50 | 503 share | 503 p50 ms "
          "| server CPU µs/answer |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['case']} | {r['connections']} | {r['rps']:.0f} | {r['p50_ms']:.1f} | "
              f"{r['p99_ms']:.1f} | {r['p99_over_p50']:.1f} | {r['shed_share']:.0%} | "
              f"{r['shed_p50_ms']:.2f} | {r['cpu_us']:.0f} |")
    print(f"\nProtocol CPU per request (in process, trivial app): uvicorn httptools "
          f"{cost['plain']:.1f} µs, service.protocol {cost['bounded']:.1f} µs "
          f"(+{cost['bounded'] - cost['plain']:.1f} µs).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
