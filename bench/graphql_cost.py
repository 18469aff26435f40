"""What costly GraphQL queries cost the service, and what they do to another client (issue 17).

    python bench/graphql_cost.py                    # before: this code with every limit raised
    python bench/graphql_cost.py --before 2df5fb1   # before: that commit's code (git archive)
    python bench/graphql_cost.py --seconds 8 --json

It starts two single-worker services on loopback, one after the other: "before" (the limits
raised out of reach, or an older commit's code) and "after" (this code, default limits). On each:

1. CPU time per request, read from the server process (/proc), of the issue's costly queries
   (every request with its own comment, as an attacker defeats caches keyed by the text) and of
   a normal query (the README's ``legalActions`` + ``check``, the same text every time);
2. the latency of a normal client sending that query back to back: alone, then while two
   attacker processes send a query back to back: a cheap valid one (what any two such clients
   do to a third on one worker), the costly ones, and the costliest the default limits allow.

Figures drift with the machine and its load (this one is shared): compare the rows of one run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# bench/http.py must not shadow the standard library's `http` (httpx imports it)
ROOT = Path(__file__).resolve().parent.parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from canasta_referee.engine import deal, rules_for, state_to_data  # noqa: E402
from tests.builders import PLAY, table  # noqa: E402
from tests.servers import Service  # noqa: E402

RAISED = {f"GRAPHQL_MAX_{name}": "1000000000"
          for name in ("DEPTH", "FIELDS", "REPEATED_FIELDS", "ALIASES", "COST")}
TYPED = ("legalActions(state: $s) { __typename ... on LegalActions { seat actions { type cards "
         "card } } }")
NORMAL = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
          "phase actions { type cards card } } ... on Problem { code detail } } "
          "check(state: $s, actions: [{type: DISCARD, card: \"JK\"}]) { __typename "
          "... on Illegal { index reason { code message rule } } } }")


def queries() -> dict[str, tuple[str, dict[str, Any]]]:
    """The costly queries (text and variables), and the normal one."""
    big = table(variant="classic", options={"players": 6}, stock=[], rest_to=0, turn=PLAY,
                filler=1)  # the seat to move holds 151 cards: 1,199 legal actions
    dealt = state_to_data(deal(rules_for("classic", {}), seed=42)[0])
    return {
        "997 x variants { id } (16 KB)": ("{ " + " ".join(["variants { id }"] * 997) + " }", {}),
        "8 aliased legalActions, 151-card hand": (
            "query($s: JSON!) { " + " ".join(f"a{i}: {TYPED}" for i in range(8)) + " }",
            {"s": big}),
        "8 aliased __schema": ("{ " + " ".join(
            f"a{i}: __schema {{ types {{ name kind fields {{ name args {{ name type {{ name }} }}"
            " type { name kind ofType { name kind ofType { name } } } } } }" for i in range(8))
            + " }", {}),
        "ofType nested 60 deep": ("{ __schema { types { fields { type { " + "ofType { " * 56
                                  + "name" + " }" * 60 + " }", {}),
        "1 legalActions, 151-card hand (the costliest allowed)": (
            "query($s: JSON!) { " + TYPED + " }", {"s": big}),
        "normal: legalActions + check (README)": (NORMAL, {"s": dealt}),
        "{ __typename } (cheap, valid)": ("{ __typename }", {}),
    }


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def body(query: str, variables: dict[str, Any], n: int | None) -> bytes:
    """The request; ``n``: a comment of its own (a new text for every request)."""
    text = query if n is None else f"# request {n}\n{query}"
    return json.dumps({"query": text, "variables": variables}).encode()


def outcome(r: httpx.Response) -> str:
    if r.headers.get("content-type", "").startswith("application/problem+json"):
        problem = r.json()
        return f"{r.status_code} {problem['code']}: " + ",".join(
            p["code"] for p in problem.get("problems", []))
    answer = r.json()
    if answer.get("errors"):
        return f"{r.status_code} errors: {answer['errors'][0]['message'][:40]}"
    return f"{r.status_code} data, {len(r.content):,} bytes"


def cpu_per_request(svc: Service, query: str, variables: dict[str, Any], budget: float,
                    vary: bool) -> dict[str, Any]:
    """The server's CPU time per request over about ``budget`` seconds (at least 3 requests)."""
    assert svc.proc is not None
    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=svc.url, timeout=120) as c:
        r = c.post("/graphql", content=body(query, variables, 0 if vary else None),
                   headers=headers)  # warm: imports, caches of the unvaried text
        seen = outcome(r)
        before, started, n = cpu_seconds(svc.proc.pid), time.perf_counter(), 0
        while n < 3 or time.perf_counter() - started < budget:
            n += 1
            c.post("/graphql", content=body(query, variables, n if vary else None),
                   headers=headers)
        cpu = cpu_seconds(svc.proc.pid) - before
    return {"answer": seen, "requests": n, "cpu_ms": round(cpu / n * 1000, 2)}


def attacker(url: str, raw_query: str, variables: dict[str, Any], stop: Any) -> None:
    """Send the query back to back, each with a comment of its own, until ``stop`` is set."""
    n = 0
    with httpx.Client(base_url=url, timeout=120) as c:
        while not stop.is_set():
            n += 1
            c.post("/graphql", content=body(raw_query, variables, n),
                   headers={"content-type": "application/json"})


def latencies(svc: Service, seconds: float, attack: tuple[str, dict[str, Any]] | None,
              normal: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """The normal client's latencies for ``seconds``, alone or beside two attackers."""
    stop = multiprocessing.Event()
    procs = [multiprocessing.Process(target=attacker, args=(svc.url, *attack, stop))
             for _ in range(2)] if attack else []
    for p in procs:
        p.start()
    if procs:
        time.sleep(0.5)  # the attackers are sending
    times = []
    raw = body(*normal, None)
    with httpx.Client(base_url=svc.url, timeout=120) as c:
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            t = time.perf_counter()
            r = c.post("/graphql", content=raw, headers={"content-type": "application/json"})
            times.append(time.perf_counter() - t)
            assert r.status_code == 200 and "errors" not in r.json(), r.text[:200]
    stop.set()
    for p in procs:
        p.join(30)
    q = statistics.quantiles(times, n=100)
    return {"requests": len(times), "p50_ms": round(statistics.median(times) * 1000, 1),
            "p90_ms": round(q[89] * 1000, 1), "p99_ms": round(q[98] * 1000, 1)}


def checkout(rev: str, dest: Path) -> Path:
    """The files of ``rev`` (git archive) in ``dest``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run(args: argparse.Namespace) -> dict[str, Any]:
    qs = queries()
    normal = qs["normal: legalActions + check (README)"]
    # the first: what any two clients sending back to back do to a third on one worker (the
    # floor; load shedding is another part of issue 17); the last: the costliest query allowed
    attacks = ["{ __typename } (cheap, valid)", "997 x variants { id } (16 KB)",
               "8 aliased legalActions, 151-card hand",
               "1 legalActions, 151-card hand (the costliest allowed)"]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.before:
            old = checkout(args.before, Path(tmp))
            before = Service({"PYTHONPATH": str(old)}, cwd=old)
            label = f"before ({args.before})"
        else:
            before = Service(RAISED)
            label = "before (limits raised)"
        for name, svc in ((label, before), ("after (default limits)", Service())):
            svc.start()
            try:
                cpu = {q: cpu_per_request(svc, *qs[q], args.cpu_seconds,
                                          vary=not q.startswith("normal"))
                       for q in qs}
                lat = {"alone": latencies(svc, args.seconds, None, normal)}
                for a in attacks:
                    lat[f"2 attackers: {a}"] = latencies(svc, args.seconds, qs[a], normal)
                lat["alone, again"] = latencies(svc, args.seconds, None, normal)
            finally:
                svc.stop()
            results[name] = {"cpu": cpu, "latency": lat}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5, help="per latency measurement")
    parser.add_argument("--cpu-seconds", type=float, default=2,
                        help="per CPU measurement (at least 3 requests)")
    parser.add_argument("--before", metavar="REV",
                        help="serve 'before' from this git revision's files (e.g. the commit "
                             "before the limits) instead of this code with the limits raised")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    args = parser.parse_args()
    results = run(args)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, r in results.items():
        print(f"\n## {name}\n")
        print("| query | answer | requests | server CPU per request (ms) |")
        print("|---|---|---:|---:|")
        for q, row in r["cpu"].items():
            print(f"| {q} | {row['answer']} | {row['requests']} | {row['cpu_ms']} |")
        print("\n| normal client (legalActions + check) | requests | p50 ms | p90 ms | p99 ms |")
        print("|---|---:|---:|---:|---:|")
        for case, row in r["latency"].items():
            print(f"| {case} | {row['requests']} | {row['p50_ms']} | {row['p90_ms']} | "
                  f"{row['p99_ms']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
