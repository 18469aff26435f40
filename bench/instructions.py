"""Instructions a request costs on the server, next to the bare echo's: issue 19's ratios in a
measure that the machine's load does not move.

    python bench/instructions.py --compiled                  # the misses of issue 19's goals
    python bench/instructions.py --compiled --ops check --seconds 5

Each server (the bare echo of bench/http.py, and the service with nothing cached) runs under
valgrind's callgrind; `wrk` sends a few connections' requests, each body new (a miss), and
callgrind counts every user-space instruction of the server process between the start and the
end of each measurement. Per request: that count over the requests wrk completed. The ratio is
the bare echo's count over the service's, as bench/http.py's ratio is the service's requests per
second over the bare echo's.

Counts repeat to within a percent or two from run to run, whatever else the machine does;
requests per second on a shared machine move by ten points. They leave out what the kernel and
the CPU's caches add (a miss touches more memory than an echo), so a miss measures somewhat
slower than its count says (docs/performance.md). Needs valgrind and wrk (apt-get install
valgrind wrk); a server under valgrind runs some fifty times slower, so it takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# this folder holds http.py: it must not shadow the standard library's `http`
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from bench import http  # noqa: E402
from bench.compiled import ensure_built  # noqa: E402
from bench.http import bodies, marked  # noqa: E402
from tests.servers import free_port, stop_process  # noqa: E402

#: the misses issue 19 sets goals for, and each goal (a share of the bare echo)
GOALS = {op: least for _, op, case, least in http.GOALS if case == "miss"}


class Callgrind:
    """A server process under callgrind whose counts are zeroed and dumped on demand."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str], folder: Path):
        self.port = free_port()
        self.out = folder / f"callgrind.{self.port}"
        self.proc = subprocess.Popen(  # the port last: the command ends where it goes
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.out}", *command,
             str(self.port)], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.dumps = 0

    def wait_up(self, path: str, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server under valgrind exited ({self.proc.returncode})")
            ok = subprocess.run(["curl", "-sf", "-o", "/dev/null", f"http://127.0.0.1:{self.port}"
                                 f"{path}"], check=False).returncode == 0
            if ok:
                return
            time.sleep(0.5)
        raise RuntimeError(f"the server under valgrind did not answer {path} in {timeout} s")

    def control(self, option: str) -> None:
        done = subprocess.run(["callgrind_control", option, str(self.proc.pid)],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"callgrind_control {option}: {done.stdout}{done.stderr}")

    def instructions(self) -> int:
        """Dump the counts since the last zeroing and return their total."""
        self.control("-d")
        self.dumps += 1
        dump = Path(f"{self.out}.{self.dumps}")
        for _ in range(100):
            if dump.exists() and re.search(r"^totals: \d+", dump.read_text(), re.M):
                break
            time.sleep(0.1)
        found = re.search(r"^totals: (\d+)", dump.read_text(), re.M)
        if found is None:
            raise RuntimeError(f"no totals in {dump}")
        return int(found.group(1))

    def stop(self) -> None:
        stop_process(self.proc, grace=30)  # a server under valgrind takes its time to exit


@contextmanager
def server(command: list[str], cwd: Path, env: dict[str, str], folder: Path,
           ready: str) -> Iterator[Callgrind]:
    proc = Callgrind(command, cwd, env, folder)
    try:
        proc.wait_up(ready)
        yield proc
    finally:
        proc.stop()


def requests_sent(url: str, body: bytes, seconds: int, connections: int) -> int:
    """Requests completed by bench/http.py's wrk, each body new where it holds the ``@N@``
    mark; every answer must be 200."""
    run = http.wrk(url, body, seconds, True, connections)
    if run["non_2xx"]:
        raise RuntimeError(f"{url}: {run['non_2xx']} answers were not 200")
    requests: int = run["requests"]
    return requests


def per_request(proc: Callgrind, url: str, body: bytes, seconds: int, connections: int) -> float:
    """Instructions per request, after a warm-up of the same."""
    requests_sent(url, body, max(1, seconds // 4), connections)
    proc.control("-z")
    requests = requests_sent(url, body, seconds, connections)
    return proc.instructions() / requests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=",".join(GOALS),
                        help="comma-separated operations of bench/http.py (default: "
                             + ", ".join(GOALS) + ")")
    parser.add_argument("--seconds", type=int, default=10,
                        help="per measurement, in whole seconds (as wrk takes them)")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--compiled", action="store_true",
                        help="serve with the mypyc-compiled engine (build/compiled, built by "
                             "bench/compiled.py when missing), as deploy/Dockerfile does")
    parser.add_argument("--log-level", default="info",
                        help="the service's LOG_LEVEL (default info: a log line per request)")
    args = parser.parse_args()
    known = bodies()
    ops = [o.strip() for o in args.ops.split(",")]
    if set(ops) - set(known):
        parser.error(f"unknown operations: {', '.join(sorted(set(ops) - set(known)))}")
    missing = [tool for tool in ("valgrind", "callgrind_control", "wrk", "curl")
               if shutil.which(tool) is None]
    if missing:
        print(f"bench/instructions.py needs {', '.join(missing)}: apt-get install valgrind wrk "
              "curl", file=sys.stderr)
        return 2
    cwd = ROOT
    if args.compiled:
        cwd = ensure_built()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "BENCH_ECHO": "1", "CACHE_SIZE": "0",
           "LOG_LEVEL": args.log_level}
    rows: dict[str, dict[str, float]] = {op: {} for op in ops}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with server([sys.executable, "-m", "bench.bare_echo"], ROOT, dict(os.environ), folder,
                    "/healthz") as bare:
            for op in ops:
                body = marked(known[op][0])
                rows[op]["bare"] = per_request(bare, f"http://127.0.0.1:{bare.port}/echo",
                                               body, args.seconds, args.connections)
        serve = [sys.executable, "-m", "canasta_referee.service.cli", "serve", "--host",
                 "127.0.0.1", "--workers", "1", "--port"]
        with server(serve, cwd, env, folder, "/healthz") as svc:
            url = f"http://127.0.0.1:{svc.port}"
            runs = http.what_runs(url)
            for op in ops:
                body, path = known[op]
                raw = marked(body)
                rows[op]["echo"] = per_request(svc, url + "/v1/echo", raw, args.seconds,
                                               args.connections)
                rows[op]["miss"] = per_request(svc, url + path, raw, args.seconds,
                                               args.connections)
    print(f"Instructions per request on the server (callgrind, user space), wrk -t1 "
          f"-c{args.connections} -d{args.seconds}s, one uvicorn worker, nothing cached, every "
          f"body new, LOG_LEVEL={args.log_level}, {runs}"
          f"{' (build/compiled)' if args.compiled else ''}\n")
    print("| operation | bare echo | the service's echo | miss | miss vs bare echo | goal |")
    print("|---|---:|---:|---:|---:|---|")
    for op, row in rows.items():
        ratio = row["bare"] / row["miss"]
        goal = GOALS.get(op)
        verdict = "" if goal is None else f"≥ {goal:.2f}: {'met' if ratio >= goal else 'NOT met'}"
        print(f"| {op} | {row['bare'] / 1000:,.1f}k | {row['echo'] / 1000:,.1f}k | "
              f"{row['miss'] / 1000:,.1f}k | {ratio:.3f} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
