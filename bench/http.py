"""HTTP speed of the service, next to a bare JSON echo of the same body on the same uvicorn in
the same run.

    apt-get install wrk redis-server     # the load generator (C, one thread) and Redis
    python bench/http.py                 # a Markdown table
    python bench/http.py --seconds 10 --json
    python bench/http.py --compiled      # the engine compiled with mypyc (as in the image)

It starts, on loopback only: a redis-server on a free port, and two single-worker services
(``canasta-referee serve``, BENCH_ECHO=1, LOG_LEVEL=info as the service and its deployments
run by default: a JSON line per request, to a file): "local" with the default
in-process cache, and "redis" with the in-process tier off (CACHE_SIZE=0) so every cacheable
answer goes through Redis; with ``--tiers none``, one that caches nothing (misses only). For
each operation it measures a cache miss (every request a new state: the scores change) and a
cache hit (the same request again; in a batch, different operations, each seen before), and,
for a batch and its single operation, a varied hit (each request one of as many different
bodies as connections, every one seen before: no two connections share a look-up), with
``wrk -t1 -c32``, and two echoes of the same body (parse the JSON,
answer a small object): the baseline, a bare Starlette app on the same uvicorn with nothing of
ours (bench/bare_echo.py), and the service's own ``POST /v1/echo``, which runs behind the
service's middleware (the gap between the two is that middleware's cost). Ratios are
requests/s over the bare echo's, in the same round; the goals of issue 19 are checked at the
end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# this file is bench/http.py: its folder must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.compiled import ensure_built  # noqa: E402
from canasta_referee.engine import rules_for, state_to_data  # noqa: E402
from tests.playout import playout  # noqa: E402
from tests.servers import RedisServer, Service, free_port  # noqa: E402

LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {{}}
for _, name in ipairs({{{files}}}) do
  local f = io.open(name, "rb")
  bodies[#bodies + 1] = f:read("*a")
  f:close()
end
local body = bodies[1]
local vary = {vary}
local marks = select(2, body:gsub("@N@", ""))
local n = 0
request = function()
  if vary then
    n = n + 1
    local i = 0
    -- every mark its own number (a batch's operations each a new state), every request new ones
    local fresh = body:gsub("@N@", function()
      i = i + 1
      return tostring((n * marks + i) % 999999)
    end)
    return wrk.format(nil, nil, nil, fresh)
  end
  -- one body, or each request the next of several (each connection a different one)
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[n % #bodies + 1])
end
"""

#: with ``--rate``: each connection's pause between requests (wrk's ``delay``, in ms)
PACE_LUA = """
delay = function()
  return {ms}
end
"""
#: with ``--rate``: the requests per second offered in all (``rate``) and each connection's
#: pause (``pause_ms``); empty: wrk sends as fast as the server answers
PACED: dict[str, float] = {}


#: operations in a batch (``--batch``): each an item of ``items/s``
BATCH = 64


def play_state(options: dict[str, Any] | None = None,
               actions: tuple[int, int] = (0, 10_000)) -> dict[str, Any]:
    """A full-information classic state in phase play, mid-deal (side 0 has three melds): the
    first such state of seeded random playouts (six players: about 2 KB as JSON and 193 legal
    actions; four players, with 10 to 20 legal actions as most states have: about 1.3 KB)."""
    rules = rules_for("classic", options if options is not None else {"players": 6})
    for seed in range(100):
        for state, listed in playout(rules, seed, check=False):
            data = state_to_data(state)
            data["scores"] = [0] * rules.sides
            if (data["turn"]["phase"] == "play" and len(data["melds"][0]) >= 3
                    and actions[0] <= len(listed) <= actions[1]):
                return data
    raise RuntimeError("no such state")


def bodies(batch: int = BATCH) -> dict[str, tuple[dict[str, Any], str]]:
    """Per operation: a request body and the path; ``@N@`` marks where misses vary. A batch
    holds ``batch`` operations."""
    state = play_state()
    card = state["hands"][state["turn"]["seat"]][0]
    check = {"state": state, "actions": [{"type": "discard", "card": card}]}
    query = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions "
             "{ seat phase actions { type cards card rank } } ... on Problem { code } } }")
    fast = query.replace("actions { type cards card rank }", "actionsJson")
    four = play_state({}, actions=(10, 20))
    deal = {"variant": "classic", "options": {"players": 6}, "seed": 1, "scores": [0, 0, 0]}
    operations = {"operations": [{"op": "legal-actions", "body": {"state": four}}] * batch}
    return {"legal-actions": ({"state": state}, "/v1/legal-actions"),
            "legal-actions four players": ({"state": four}, "/v1/legal-actions"),
            "batch legal-actions four players": (operations, "/v1/batch"),
            "check": (check, "/v1/check"),
            "score": ({"state": state}, "/v1/score"),
            "apply": (check, "/v1/apply"),
            "validate": ({"state": state}, "/v1/validate"),
            "deal (not cached)": (deal, "/v1/deal"),
            "graphql legal-actions": ({"query": query, "variables": {"s": state}}, "/graphql"),
            "graphql legal-actions actionsJson": ({"query": fast, "variables": {"s": state}},
                                                  "/graphql")}


OPS = ("legal-actions", "legal-actions four players", "batch legal-actions four players",
       "check", "score", "apply", "validate", "deal (not cached)", "graphql legal-actions",
       "graphql legal-actions actionsJson")
def items(op: str, batch: int) -> int:
    """Operations a request of ``op`` answers: its batch's, else one."""
    return batch if op.startswith("batch ") else 1


def marked(body: dict[str, Any]) -> bytes:
    """The body with the first score of each state replaced by the ``@N@`` marker."""
    text = json.dumps(body, separators=(",", ":"))
    return text.replace('"scores":[0,', '"scores":[@N@,').encode()


def numbered(raw: bytes, first: int = 0, step: int = 1) -> bytes:
    """``raw`` with its ``@N@`` markers numbered ``first``, ``first + step``, ... (by default 0,
    1, 2, ...: a single request's hit body, and a batch's whose operations are each a state of
    their own, the same in every request)."""
    parts = raw.split(b"@N@")
    return b"".join(part + (b"%d" % (first + i * step) if i < len(parts) - 1 else b"")
                    for i, part in enumerate(parts))


def varied(raw: bytes, count: int) -> list[bytes]:
    """``count`` bodies of ``raw``, each with its markers numbered apart from every other's
    (and from the misses' and ``numbered``'s: negative scores): a varied hit's bodies."""
    marks = raw.count(b"@N@")
    return [numbered(raw, -(1 + k * marks), -1) for k in range(count)]


def seen(url: str, bodies: list[bytes]) -> None:
    """Send each body once, so that a varied hit finds every answer cached."""
    import urllib.request

    for body in bodies:
        request = urllib.request.Request(url, data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()


def what_runs(url: str) -> str:
    """The engine build and the writer of legal-action lists a service reports (``/readyz``)."""
    import urllib.request

    with urllib.request.urlopen(url + "/readyz", timeout=60) as answer:
        engine = json.load(answer)["engine"]
    return f"engine {engine['build']}, writer {engine['writer']}"


#: with ``--pin``: the CPU the servers run on, and the CPUs left to wrk (Linux affinity)
PIN: dict[str, set[int]] = {}


def pin_cpus() -> bool:
    """Set ``PIN``: the servers on the first CPU this process may use, wrk on the others;
    False when fewer than two are available (or no affinity: not Linux)."""
    if not hasattr(os, "sched_getaffinity"):
        return False
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return False
    PIN.update(server={cpus[0]}, client=set(cpus[1:]))
    return True


def pinned(pid: int) -> None:
    """Keep a server process on ``PIN``'s server CPU (nothing without ``--pin``)."""
    if PIN:
        os.sched_setaffinity(pid, PIN["server"])


def _client_cpus() -> None:  # wrk's, set in the child before it runs
    os.sched_setaffinity(0, PIN["client"])


def wrk(url: str, body: bytes | list[bytes], seconds: float, vary: bool, connections: int
        ) -> dict[str, Any]:
    """wrk's figures; ``body`` is sent by every request, or, a list, each request the next of
    its bodies; ``vary``: each request's ``@N@`` markers numbered anew (misses)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, one in enumerate(body if isinstance(body, list) else [body]):
            files.append(Path(tmp) / f"body{i}.json")
            files[-1].write_bytes(one if vary else one.replace(b"@N@", b"0"))
        script = Path(tmp) / "post.lua"
        script.write_text(LUA.format(files=", ".join(json.dumps(str(f)) for f in files),
                                     vary="true" if vary else "false")
                          + (PACE_LUA.format(ms=PACED["pause_ms"]) if PACED else ""))
        out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency",
                              "-s", str(script), url], capture_output=True, text=True,
                             check=True, preexec_fn=_client_cpus if PIN else None).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def pct(p: str) -> float:
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        assert m, out
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]

    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50_ms": pct("50"), "p99_ms": pct("99"), "requests": total,
            "non_2xx": int(bad.group(1)) if bad else 0}


class BareEcho:
    """bench/bare_echo.py in a subprocess: the baseline, nothing of ours in it."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> BareEcho:
        import httpx

        # -m from the checkout: bench/ first on sys.path would shadow the standard `http`
        self.proc = subprocess.Popen([sys.executable, "-m", "bench.bare_echo", str(self.port)],
                                     cwd=Path(__file__).resolve().parent.parent,
                                     stdout=subprocess.DEVNULL)
        pinned(self.proc.pid)
        for _ in range(200):
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("bench/bare_echo.py did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def app_times(log: str) -> tuple[float, float] | None:
    """The median and p99 of the time the app itself spent on each request (``ms`` of its
    request log lines in ``log``); None without such lines (LOG_LEVEL above info)."""
    times = []
    for line in log[:log.rfind("\n") + 1].splitlines():  # a line still being written: left out
        if '"msg":"request"' in line:
            times.append(float(json.loads(line)["ms"]))
    if not times:
        return None
    times.sort()
    return times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]


def settled(svc: Service, timeout: float = 120) -> None:
    """Wait until the service answers nothing but this look at its metrics: the requests wrk's
    connections left when it stopped run on (a slow batch: up to a second), and would take
    CPU and bulk slots from the next measurement (answered 503 there and counted)."""
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        with urllib.request.urlopen(svc.url + "/metrics", timeout=60) as answer:
            text = answer.read().decode()
        found = re.search(r"^canasta_requests_in_flight ([\d.]+)$", text, re.M)
        if found is None:
            raise RuntimeError("the service's /metrics has no canasta_requests_in_flight")
        if float(found.group(1)) <= 1:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{found.group(1)} requests still in flight after {timeout} s")
        time.sleep(0.05)


def loaded(svc: Service | BareEcho, path: str, body: bytes | list[bytes], seconds: float,
           vary: bool, connections: int) -> dict[str, Any]:
    """``wrk``'s figures plus the server's CPU time per request (one worker: the process) and,
    for the service, the app's own p50 and p99 (``app_p50_ms``, ``app_p99_ms``; None for the
    bare echo or without request log lines)."""
    assert svc.proc is not None
    log = svc.log.fileno() if isinstance(svc, Service) else None
    logged = os.fstat(log).st_size if log is not None else 0
    before = cpu_seconds(svc.proc.pid)
    r = wrk(svc.url + path, body, seconds, vary, connections)
    if isinstance(svc, Service):
        settled(svc)
    r["cpu_us"] = (cpu_seconds(svc.proc.pid) - before) / max(r["requests"], 1) * 1e6
    times = None
    if log is not None:  # what the server logged meanwhile, not the whole log
        times = app_times(os.pread(log, os.fstat(log).st_size - logged, logged)
                          .decode(errors="replace"))
    r["app_p50_ms"], r["app_p99_ms"] = times or (None, None)
    return r


def _median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (the ratios too: the median of the rounds' ratios);
    non-2xx answers: the most in a round; ``ratios`` and ``p99_ratios``: each round's, to show
    the spread."""
    row = {key: None if any(r[key] is None for r in runs)
           else (max if key == "non_2xx" else statistics.median)(r[key] for r in runs)
           for key in runs[0]}
    row["ratios"] = [r["ratio"] for r in runs]
    row["p99_ratios"] = [r["p99_ratio"] for r in runs]
    return row


def _spread(row: dict[str, Any], key: str = "ratio") -> str:
    """`` (rounds 0.35 to 0.45)``: the lowest and highest round's ``ratio`` (or ``p99_ratio``),
    when there were rounds."""
    ratios = row.get(key + "s") or [row[key]]
    if len(ratios) < 2:
        return ""
    return f" (rounds {min(ratios):.2f} to {max(ratios):.2f})"


def measure(svc: Service, bare: BareEcho, seconds: float, connections: int,
            ops: set[str] | None = None, rounds: int = 1,
            cases: tuple[str, ...] = ("miss", "hit"), batch: int = BATCH) -> list[dict[str, Any]]:
    """Bare echo, the app's echo, miss and hit of each operation, in ``rounds`` alternating
    rounds (a slow spell of a shared machine then shows in one round, not in one side of the
    ratio); every ratio is over the bare echo's requests/s of its round (``p99_ratio``: over
    its p99 latency). A batch, and the single operation of a batch measured too, also get a
    varied hit when hits are measured: each request one of ``connections`` different bodies,
    every one seen just before (each connection its own request, none in flight twice)."""
    rows = []
    every = bodies(batch)
    for op, (body, path) in every.items():
        if ops is not None and op not in ops:
            continue
        raw = marked(body)
        batched = op.startswith("batch ") or (f"batch {op}" in every and (
            ops is None or f"batch {op}" in ops))
        op_cases = (*cases, "varied hit") if "hit" in cases and batched else cases
        runs: dict[str, list[dict[str, Any]]] = {
            case: [] for case in ("bare", "echo", *op_cases)}
        fixed = raw.replace(b"@N@", b"0")
        sent: dict[str, bytes | list[bytes]] = {"echo": fixed, "miss": raw, "hit": numbered(raw)}
        if "varied hit" in op_cases:
            sent["varied hit"] = varied(raw, connections)
        for _ in range(rounds):
            base = loaded(bare, "/echo", fixed, seconds, False, connections)
            runs["bare"].append({**base, "ratio": 1.0, "p99_ratio": 1.0})
            for case in ("echo", *op_cases):
                body_sent = sent[case]
                if isinstance(body_sent, list):  # each seen just before (the in-process tier
                    seen(svc.url + path, body_sent)  # may have dropped them since)
                r = loaded(svc, "/v1/echo" if case == "echo" else path, body_sent, seconds,
                           case == "miss", connections)
                runs[case].append({**r, "ratio": r["rps"] / base["rps"],
                                   "p99_ratio": r["p99_ms"] / base["p99_ms"]})
        rows.append({"op": "bare echo", "case": f"same body as {op}", "bytes": len(raw),
                     "items": 1, **_median_row(runs["bare"])})
        rows.append({"op": "app echo", "case": f"same body as {op}", "bytes": len(raw),
                     "items": 1, **_median_row(runs["echo"])})
        for case in op_cases:
            rows.append({"op": op, "case": case, "bytes": len(raw), "items": items(op, batch),
                         **_median_row(runs[case])})
    return rows


def batch_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Each batch's items per second against its operation's single requests, per case."""
    out = []
    for row in rows:
        if not row["op"].startswith("batch "):
            continue
        single = next((r for r in rows if r["op"] == row["op"].removeprefix("batch ")
                       and r["case"] == row["case"]), None)
        if single is None:
            continue
        rate = row["rps"] * row["items"]
        out.append(f"{row['op']} ({row['items']} a batch), {row['case']}: {rate:,.0f} items/s "
                   f"against {single['rps']:,.0f} single requests/s: "
                   f"{rate / single['rps']:.1f} times; server CPU "
                   f"{row['cpu_us'] / row['items']:,.0f} µs an item, {single['cpu_us']:,.0f} µs "
                   "a single request")
    return out


#: (tier, operation, case, least share of the bare echo's requests/s); misses without a cache
GOALS = (("local", "legal-actions four players", "hit", 0.90),
         ("local", "legal-actions", "hit", 0.90),
         ("none", "legal-actions four players", "miss", 0.60),
         ("none", "legal-actions", "miss", 0.45),
         ("none", "check", "miss", 0.50), ("none", "apply", "miss", 0.50),
         ("none", "score", "miss", 0.50), ("none", "validate", "miss", 0.50))


#: the single-request operations the p99 goal is checked on, REST and GraphQL apart
REST_OPS = ("legal-actions", "legal-actions four players", "check", "score", "apply", "validate")
GRAPHQL_OPS = ("graphql legal-actions", "graphql legal-actions actionsJson")


def goal_lines(results: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Each goal of issue 19 the run measured, with its figure and ``met``/``NOT met``."""
    out = []

    def row(tier: str, op: str, case: str) -> dict[str, Any] | None:
        return next((r for r in results.get(tier, ()) if r["op"] == op and r["case"] == case),
                    None)

    for tier, op, case, least in () if PACED else GOALS:  # paced, every route serves the rate
        r = row(tier, op, case)
        if r is not None:
            out.append(f"- {op}, {case} ({tier}): {r['ratio']:.2f} of the bare echo{_spread(r)}, "
                       f"goal {least:.2f}: {'met' if r['ratio'] >= least else 'NOT met'}")
    for kind, ops in (("REST", REST_OPS), ("GraphQL", GRAPHQL_OPS)):
        measured = [(tier, r) for tier, rows in results.items() for r in rows
                    if r["op"] in ops]
        if measured:
            at, worst = max(measured, key=lambda tr: tr[1]["p99_ratio"])
            # wrk keeps every connection busy: a request waits for the ones ahead of it, so
            # latency is about connections / throughput, and a p99 ratio about 1 / rps ratio;
            # paced (--rate), below every route's capacity, it shows the tail instead
            how = (f"at {PACED['rate']:,.0f} requests/s offered" if PACED
                   else f"1 / its throughput ratio: {1 / worst['ratio']:.2f}")
            out.append(f"- p99 latency, {kind}, worst ({worst['op']}, {worst['case']}, {at}): "
                       f"{worst['p99_ratio']:.2f} times the bare echo's"
                       f"{_spread(worst, 'p99_ratio')} ({how}), goal at most 2: "
                       f"{'met' if worst['p99_ratio'] <= 2 else 'NOT met'}")
    for tier in () if PACED else results:
        for case in ("miss", "hit"):
            rest, gql = row(tier, "legal-actions", case), row(
                tier, "graphql legal-actions actionsJson", case)
            if rest is not None and gql is not None:
                share = gql["rps"] / rest["rps"]
                out.append(f"- GraphQL legalActions actionsJson, {case} ({tier}): {share:.2f} of "
                           f"REST legal-actions, goal 0.50: {'met' if share >= 0.5 else 'NOT met'}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4, help="per measurement")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=1,
                        help="alternate echo, miss and hit this many times; print medians")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--compiled", action="store_true",
                        help="serve with the mypyc-compiled engine (build/compiled, built by "
                             "bench/compiled.py when missing), as deploy/Dockerfile does")
    parser.add_argument("--ops", help="comma-separated operations to measure (default: all of "
                        + ", ".join(OPS) + ")")
    parser.add_argument("--batch", type=int, default=BATCH,
                        help=f"operations per batch (default {BATCH}, at most 256)")
    parser.add_argument("--tiers", default="local,redis",
                        help="comma-separated: local, redis (default: both), none (CACHE_SIZE=0 "
                             "and no Redis: nothing cached, misses only)")
    parser.add_argument("--log-level", default="info",
                        help="the services' LOG_LEVEL (default info, the service's default: a "
                             "log line per request; warning: none, to see what the line costs)")
    parser.add_argument("--pin", action="store_true",
                        help="run the servers on one CPU and wrk on the others (Linux), so "
                             "the two do not take turns on the same CPU: less spread between "
                             "rounds on a small machine")
    parser.add_argument("--rate", type=float, default=None,
                        help="offer this many requests per second in all instead of as many as "
                             "the server answers (each connection pauses connections / rate "
                             "seconds between requests): pick one below every measured route's "
                             "capacity, and the p99 shows the service's tail rather than the "
                             "queue at saturation; throughput goals are then not judged")
    args = parser.parse_args()
    if args.rate is not None:
        if args.rate <= 0:
            parser.error("--rate must be positive")
        PACED.update(rate=args.rate, pause_ms=args.connections * 1000 / args.rate)
    if args.pin and not pin_cpus():
        parser.error("--pin needs Linux and at least two CPUs")
    ops = None if not args.ops else {o.strip() for o in args.ops.split(",")}
    if ops is not None and ops - set(OPS):
        parser.error(f"unknown operations: {', '.join(sorted(ops - set(OPS)))}")
    if shutil.which("wrk") is None:
        print("bench/http.py needs wrk: apt-get install wrk", file=sys.stderr)
        return 2
    results: dict[str, list[dict[str, Any]]] = {}
    runs = "no service started"
    root = Path(__file__).resolve().parent.parent
    cwd = root  # first on the server's sys.path: the compiled engine's folder with --compiled
    if args.compiled:
        cwd = ensure_built()
    redis = RedisServer().start()
    bare = BareEcho().start()
    try:
        configs = {"local": {"BENCH_ECHO": "1"},
                   "redis": {"BENCH_ECHO": "1", "CACHE_SIZE": "0", "REDIS_URL": redis.url,
                             "REDIS_OPS": "validate,legal-actions,check,apply,score"},
                   "none": {"BENCH_ECHO": "1", "CACHE_SIZE": "0"}}
        for name, env in configs.items():
            if name not in args.tiers.split(","):
                continue
            # every connection may have a batch in flight (the default MAX_BULK_IN_FLIGHT, 4,
            # would answer most of them 503 OVERLOADED at once and count those as throughput)
            svc = Service({**env, "MAX_BULK_IN_FLIGHT": str(args.connections),
                           "LOG_LEVEL": args.log_level}, cwd=cwd).start()
            assert svc.proc is not None
            pinned(svc.proc.pid)
            try:
                runs = what_runs(svc.url)
                wrk(svc.url + "/v1/echo", b"{}", 1, False, args.connections)  # warm up
                wrk(bare.url + "/echo", b"{}", 1, False, args.connections)
                results[name] = measure(svc, bare, args.seconds, args.connections, ops, args.rounds,
                                        ("miss",) if name == "none" else ("miss", "hit"),
                                        args.batch)
            finally:
                svc.stop()
    finally:
        bare.stop()
        redis.stop()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"wrk -t1 -c{args.connections} -d{args.seconds:g}s, one uvicorn worker"
          f"{' (servers on CPU ' + str(min(PIN['server'])) + ', wrk on the others)' if PIN else ''}"
          f"{f', median of {args.rounds} alternating rounds' if args.rounds > 1 else ''}"
          f"{f', paced: {args.rate:,.0f} requests/s offered' if PACED else ''}"
          f", {runs}, LOG_LEVEL={args.log_level}; "
          "vs bare echo = requests/s over those of a bare Starlette echo of the same body on the "
          "same uvicorn (bench/bare_echo.py), same round\n")
    print("| cache tier | operation | cache | body bytes | requests/s | p50 ms | p99 ms | vs bare "
          "echo | server CPU µs/request | requests per CPU-second | in the app: p50 / p99 ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, rows in results.items():
        for r in rows:
            flag = f" ({r['non_2xx']} non-2xx)" if r["non_2xx"] else ""
            app = ("–" if r.get("app_p99_ms") is None
                   else f"{r['app_p50_ms']:.2f} / {r['app_p99_ms']:.2f}")
            print(f"| {name} | {r['op']} | {r['case']} | {r['bytes']} | {r['rps']:,.0f}{flag} | "
                  f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['ratio']:.0%} | "
                  f"{r['cpu_us']:,.0f} | {1e6 / r['cpu_us']:,.0f} | {app} |")
    goals = goal_lines(results)
    if goals:
        print("\nIssue 19's goals (ratios over the bare echo of the same body, same round):\n")
        print("\n".join(goals))
    lines = [f"- {name}: {line}" for name, rows in results.items() for line in batch_lines(rows)]
    if lines:
        print("\nBatches, items per second against single requests of the same operation, same "
              "server, same run:\n")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
