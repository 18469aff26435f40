"""How long a whole game's log takes to audit (``POST /v1/audit``), per action, next to the same
deals dealt and their actions applied by the engine directly, measured in the same run.

    python bench/audit.py                 # a table
    python bench/audit.py --compiled      # the engine compiled with mypyc (build/compiled,
                                          # built by bench/compiled.py when missing)
    python bench/audit.py --json

The logs are games of classic Canasta (four players) by seeded random players
(``tests/games.py``), each deal by its seed, with the scores recorded: "game", a game to 5,000
by eager players (they meld and take the pile whenever they may), and "long", 40 deals of
uniform random play, about 5,000 actions. For each log, the median of ``--repeat`` rounds
of (the stages alternate within a round):

- baseline: ``engine.deal`` and ``engine.apply_actions`` on actions already read, deal by deal;
- engine: ``engine.audit.audit`` on the log already read (reading each action, applying it,
  each event and final state written, each deal scored, recorded scores compared);
- handler: ``schema.handlers.handle("audit", body)``: the body read (msgspec) and audited;
- app: the ASGI app in this process, ``POST /v1/audit`` (the answer rendered too);
- HTTP: a real uvicorn (one worker, this engine) on a free port, ``POST /v1/audit`` over
  loopback: the server's CPU time per request, and the wall time the client sees.

The stages in this process are timed in its CPU time (``time.process_time``), the server's
in its CPU time (/proc), so that other load on a shared machine counts as little as it can.

It also prints each log's size (compact and indented JSON) and its answer's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# this folder holds http.py: it must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))


def timed(run: Callable[[], Any], clock: Callable[[], float], times: int = 1) -> float:
    """Seconds by ``clock`` per run, over ``times`` runs."""
    start = clock()
    for _ in range(times):
        run()
    return (clock() - start) / times


def measure(name: str, log: dict[str, Any], repeat: int, server: Any) -> dict[str, Any]:
    import httpx
    import orjson

    from bench.app import asgi_post
    from bench.http import cpu_seconds
    from canasta_referee import engine
    from canasta_referee.engine.audit import audit
    from canasta_referee.schema import handlers
    from canasta_referee.service.app import create_app

    rules = engine.rules_for(log["variant"], log["options"])
    body = orjson.dumps(log)
    deals = [(d["seed"], d["dealer"], [engine.action_from_data(a) for a in d["actions"]])
             for d in log["deals"]]
    actions = sum(len(a) for _, _, a in deals)

    def baseline() -> None:
        totals = None
        for seed, dealer, acts in deals:
            state, _ = engine.deal(rules, seed, dealer, totals)
            state, _ = engine.apply_actions(state, acts)
            totals = engine.score_deal(state).scores

    answer = audit(log)
    assert answer["legal"] and answer["agrees"], "the log must be legal and its scores right"
    data = json.loads(body)
    app = create_app()

    def in_app() -> None:
        asyncio.run(asgi_post(app, "/v1/audit", body))

    with httpx.Client(base_url=server.url, timeout=60) as client:
        def over_http() -> None:
            r = client.post("/v1/audit", content=body)
            assert r.status_code == 200, r.text[:300]

        def server_cpu() -> float:
            return float(cpu_seconds(server.proc.pid))

        cpu = time.process_time  # this process's CPU time: a shared machine's other load
        stages: dict[str, tuple[Callable[[], Any], Callable[[], float], int]] = {
            "baseline": (baseline, cpu, 1), "engine": (lambda: audit(data), cpu, 1),
            "handler": (lambda: handlers.handle("audit", body), cpu, 1), "app": (in_app, cpu, 1),
            # /proc counts CPU time in ticks of 10 ms: over several requests
            "HTTP, server CPU": (over_http, server_cpu, 5),
            "HTTP, wall time": (over_http, time.perf_counter, 1)}
        runs: dict[str, list[float]] = {stage: [] for stage in stages}
        for run, clock, times in stages.values():
            timed(run, clock, times)  # warm up
        for _ in range(repeat):  # the stages alternate: a slow spell shows in one round
            for stage, (run, clock, times) in stages.items():
                runs[stage].append(timed(run, clock, times))
        seconds = {stage: statistics.median(values) for stage, values in runs.items()}
        answer_bytes = len(client.post("/v1/audit", content=body).content)
    return {"log": name, "deals": len(deals), "actions": actions, "bytes": len(body),
            "bytes_indented": len(json.dumps(log, indent=2)), "answer_bytes": answer_bytes,
            "ms": {k: v * 1e3 for k, v in seconds.items()},
            "us_per_action": {k: v / actions * 1e6 for k, v in seconds.items()},
            "vs_baseline": {k: v / seconds["baseline"] for k, v in seconds.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="rounds of every stage (medians)")
    parser.add_argument("--compiled", action="store_true",
                        help="the engine compiled with mypyc (build/compiled, built by "
                             "bench/compiled.py when missing), here and in the server")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    os.environ["LOG_LEVEL"] = "warning"  # the app made here: no line per request
    cwd = ROOT
    if args.compiled:
        cwd = ROOT / "build" / "compiled"
        if not any(cwd.glob("canasta_referee/engine/*.so")):
            subprocess.run([sys.executable, str(ROOT / "bench" / "compiled.py")], check=True)
        sys.path.insert(0, str(cwd))
    from canasta_referee import engine
    from canasta_referee.engine import rules_for
    from tests.games import game
    from tests.servers import Service

    if args.compiled and engine.BUILD != "compiled":
        print(f"the engine loaded is {engine.BUILD}, not compiled", file=sys.stderr)
        return 1
    rules = rules_for("classic")
    logs = {"game": game(rules, 1).log,
            "long": game(rules, 3, max_deals=40, eager=False, to_the_end=False).log}
    server = Service({"LOG_LEVEL": "warning"}, cwd=cwd).start()
    try:
        rows = [measure(name, log, args.repeat, server) for name, log in logs.items()]
    finally:
        server.stop()
    if args.json:
        print(json.dumps({"build": engine.BUILD, "logs": rows}, indent=2))
        return 0
    print(f"Engine {engine.BUILD}; median of {args.repeat} rounds; CPU time but for the HTTP "
          "wall time; ratio = time over the baseline's (the same deals dealt and their "
          "actions applied by the engine)\n")
    for r in rows:
        print(f"{r['log']}: {r['deals']} deals, {r['actions']:,} actions; log {r['bytes']:,} B "
              f"({r['bytes_indented']:,} B indented), answer {r['answer_bytes']:,} B")
    print("\n| log | stage | ms per log | µs per action | vs baseline |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        for stage, ms in r["ms"].items():
            print(f"| {r['log']} | {stage} | {ms:,.1f} | {r['us_per_action'][stage]:.1f} | "
                  f"{r['vs_baseline'][stage]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
