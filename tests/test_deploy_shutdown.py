"""Graceful shutdown, with a real server: a request in flight when SIGTERM arrives is answered
in full, then the server exits; a request that never completes is cut after GRACEFUL_TIMEOUT.

Determinism: the request is sent with ``Expect: 100-continue`` and without its body; the
server's ``100 Continue`` proves the app is running it (reading the body) before the signal is
sent. The body follows only once the worker logs that it waits for open connections (and, with
one worker, refuses new ones)."""

from __future__ import annotations

import json
import signal
import socket
import time

import pytest

from canasta_referee.schema.models import EXAMPLE_STATE

from .servers import Service

BODY = json.dumps({"state": EXAMPLE_STATE}).encode()


def start_request(port: int) -> socket.socket:
    """A legal-actions request in flight: headers sent, body not; the app waits for it."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"POST /v1/legal-actions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
              b"\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(BODY))
    assert s.recv(64).startswith(b"HTTP/1.1 100 Continue"), "the app is not reading the body"
    return s


def read_response(s: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"connection closed before a response: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict((k.lower(), v.strip()) for k, v in (h.split(":", 1) for h in lines[1:]))
    while len(body) < int(headers["content-length"]):
        chunk = s.recv(65536)
        assert chunk
        body += chunk
    return int(lines[0].split()[1]), headers, body


def refuses(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


def wait(check: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not (callable(check) and check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.parametrize("workers", [1, 2])
def test_request_in_flight_is_answered_after_sigterm(workers: int) -> None:
    svc = Service({"GRACEFUL_TIMEOUT": "10", "LOG_LEVEL": "info"}, workers=workers).start()
    assert svc.proc is not None
    expected = None
    try:
        import httpx

        expected = httpx.post(svc.url + "/v1/legal-actions", content=BODY, timeout=5).json()
        s = start_request(svc.port)
        svc.proc.send_signal(signal.SIGTERM)
        # the worker holding the request is shutting down and waits for it (uvicorn logs that
        # at info; the supervisor of several workers passes the signal on within ~0.5 s)
        wait(lambda: "Waiting for connections to close" in svc.output(), 10,
             "the worker did not begin a graceful shutdown")
        if workers == 1:  # and accepts no new connections (several: the supervisor's socket)
            wait(lambda: refuses(svc.port), 5, "the server kept accepting after SIGTERM")
        assert svc.proc.poll() is None, "the server exited with a request in flight"
        s.sendall(BODY)
        status, headers, body = read_response(s)
        s.close()
        assert status == 200 and json.loads(body) == expected
        assert headers.get("connection") == "close"
        # uvicorn re-raises the signal it caught once it has shut down (one worker: -15);
        # the supervisor of several workers exits 0
        assert svc.proc.wait(10) in (0, -signal.SIGTERM)
    finally:
        svc.stop()


def test_graceful_timeout_bounds_the_wait() -> None:
    svc = Service({"GRACEFUL_TIMEOUT": "1"}).start()
    assert svc.proc is not None
    try:
        s = start_request(svc.port)  # and its body never comes
        started = time.monotonic()
        svc.proc.send_signal(signal.SIGTERM)
        svc.proc.wait(10)
        waited = time.monotonic() - started
        s.close()
        assert 0.9 <= waited < 5, f"exited after {waited:.2f} s, GRACEFUL_TIMEOUT is 1 s"
    finally:
        svc.stop()
