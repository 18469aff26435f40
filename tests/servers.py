"""Real processes for integration tests and benchmarks: ``redis-server`` and the service
(uvicorn), each on a free loopback port, started from this checkout (not an installed copy)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cluster_port() -> int:
    """A free port for a cluster node whose bus port (the port + 10000) is free too."""
    while True:
        port = free_port()
        if port > 55535:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        return port


def stop_process(proc: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM, ``grace`` seconds to exit, then SIGKILL."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _wait(check: object, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if callable(check) and check():
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not come up in {timeout} s")


class RedisServer:
    """A throw-away ``redis-server`` (no persistence) that can be stopped and started again on
    the same port."""

    def __init__(self, port: int | None = None, extra: tuple[str, ...] = ()) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed")
        self.port = port or free_port()
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--protected-mode", "no", *self.extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(self._pong, f"redis-server on port {self.port}")
        return self

    def _pong(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    def command(self, *args: str) -> bytes:
        """One inline command's raw reply (enough for DBSIZE, FLUSHALL)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
            s.sendall(" ".join(args).encode() + b"\r\n")
            return s.recv(4096)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def kill(self) -> None:
        """Stop at once (SIGKILL), as a crashed node would."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


class RedisCluster:
    """A throw-away Redis Cluster of ``size`` primaries (no replicas) on free loopback ports,
    created with ``redis-cli --cluster create``; node configuration files in a temporary folder.
    ``node_timeout`` (ms) is how long the nodes wait before they declare a silent node failed."""

    def __init__(self, size: int = 3, node_timeout: int = 1000) -> None:
        if shutil.which("redis-cli") is None:
            raise RuntimeError("redis-cli is not installed")
        self.dir = tempfile.TemporaryDirectory()
        self.nodes: list[RedisServer] = []
        for _ in range(size):
            port = cluster_port()
            self.nodes.append(RedisServer(port, (
                "--cluster-enabled", "yes",
                "--cluster-config-file", f"{self.dir.name}/nodes-{port}.conf",
                "--cluster-node-timeout", str(node_timeout), "--dir", self.dir.name)))

    @property
    def url(self) -> str:
        """``REDIS_URL`` naming the cluster by its first node."""
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def start(self) -> RedisCluster:
        try:
            for node in self.nodes:
                node.start()
            subprocess.run(
                ["redis-cli", "--cluster", "create",
                 *(f"127.0.0.1:{n.port}" for n in self.nodes),
                 "--cluster-replicas", "0", "--cluster-yes"],
                check=True, capture_output=True, timeout=60)
            _wait(lambda: all(self.state(n) == "ok" for n in self.nodes), "the cluster")
        except BaseException:
            self.stop()
            raise
        return self

    @staticmethod
    def state(node: RedisServer) -> str:
        """The node's ``cluster_state`` (``ok`` or ``fail``; empty when it does not answer)."""
        out = subprocess.run(["redis-cli", "-p", str(node.port), "cluster", "info"],
                             capture_output=True, text=True, timeout=5, check=False).stdout
        for line in out.splitlines():
            if line.startswith("cluster_state:"):
                return line.split(":", 1)[1].strip()
        return ""

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.dir.cleanup()


class Service:
    """``canasta-referee serve`` in a subprocess, with settings as environment variables.
    ``cwd`` (default: the checkout) comes first on the server's ``sys.path``: a folder with
    the compiled engine there serves with that engine."""

    def __init__(self, env: dict[str, str] | None = None, workers: int = 1,
                 cwd: Path = ROOT) -> None:
        self.port = free_port()
        self.cwd = cwd
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "LOG_LEVEL": "warning",
                    **(env or {})}
        self.workers = workers
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the process)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Service:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "canasta_referee.service.cli", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--workers", str(self.workers)],
            cwd=self.cwd, env=self.env, stdout=subprocess.DEVNULL, stderr=self.log)
        try:
            _wait(lambda: httpx.get(self.url + "/healthz", timeout=1).status_code == 200,
                  f"the service on port {self.port}", timeout=60)
        except RuntimeError:
            self.log.seek(0)
            raise RuntimeError(self.log.read().decode(errors="replace")[-2000:]) from None
        return self

    def output(self) -> str:
        """What the server wrote to stderr so far (read without moving the shared offset)."""
        fd = self.log.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode(errors="replace")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)
            self.proc = None
