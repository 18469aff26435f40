"""Issue 17, bounded connections and shed load, against the real server (``canasta-referee
serve`` on a free loopback port, ``service/protocol.py``): idle and slow clients are closed on
time while others get answers; an oversized header is refused without memory growth; past
``MAX_CONNECTIONS`` new clients are refused at once while ``/healthz`` answers; past
``MAX_IN_FLIGHT`` a request gets 503 with ``Retry-After``; an aborted upload is one log line and
no 5xx; non-JSON bodies get 415; ``nosniff`` everywhere; ``Connection: close`` from the start
of a shutdown, and a slow upload holds a shutdown no longer than ``BODY_TIMEOUT``.

Raw sockets play the slow and idle clients; every attack goes to 127.0.0.1 only, bounded in
count and time. No speed is asserted: the bounds are the configured limits plus a margin
(speed is bench/attack_connections.py's business)."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import socket
import struct
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpx
import pytest

from canasta_referee.schema.models import EXAMPLE_STATE

from .servers import Service

BODY = json.dumps({"state": EXAMPLE_STATE}).encode()
MARGIN = 2.0  # seconds allowed past a configured limit


@contextmanager
def service(**env: str) -> Iterator[Service]:
    svc = Service(env).start()
    try:
        yield svc
    finally:
        svc.stop()


def connect(port: int, timeout: float = 10) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


#: bytes read past an answer, per socket: the next answer's (pipelined answers can arrive in
#: one read)
_AHEAD: weakref.WeakKeyDictionary[socket.socket, bytes] = weakref.WeakKeyDictionary()


def read_answer(s: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 answer (with Content-Length) from ``s``; what was read past it is kept
    for the next call."""
    data = _AHEAD.pop(s, b"")
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in lines[1:])}
    length = int(headers.get("content-length", 0))
    while len(body) < length:
        chunk = s.recv(65536)
        assert chunk, "closed in the body"
        body += chunk
    if len(body) > length:
        _AHEAD[s] = body[length:]
    return int(lines[0].split()[1]), headers, body[:length]


def until_closed(s: socket.socket) -> bytes:
    """What ``s`` receives until the server closes it (a reset counts as closed)."""
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    return data


def metric(svc: Service, name: str, **labels: str) -> float:
    """A sample of ``/metrics`` (0 when absent)."""
    text = httpx.get(svc.url + "/metrics", timeout=10).text
    want = name + ("{" + ",".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
                   if labels else "")
    for line in text.splitlines():
        key, _, value = line.rpartition(" ")
        if key == want:
            return float(value)
    return 0.0


def server_sockets(svc: Service, local: int = 0, remote: int = 0) -> int:
    """The server process's TCP connections (not listening sockets) on local port ``local``
    or to remote port ``remote``: its descriptors matched with ``/proc/net/tcp``."""
    assert svc.proc is not None
    fd_dir = f"/proc/{svc.proc.pid}/fd"
    inodes = set()
    for fd in os.listdir(fd_dir):
        with suppress(OSError):
            link = os.readlink(f"{fd_dir}/{fd}")
            if link.startswith("socket:["):
                inodes.add(link[8:-1])
    count = 0
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            lport, rport = int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16)
            if fields[9] in inodes and fields[3] != "0A" and (lport == local or rport == remote):
                count += 1
    return count


def wait_for(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def post_head(path: str, length: int, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {length}\r\n\r\n").encode()


def held_request(port: int, path: str = "/v1/validate", length: int = len(BODY)) -> socket.socket:
    """A request the app is running, waiting for its body (``100 Continue`` proves it)."""
    s = connect(port)
    s.sendall(post_head(path, length, "Expect: 100-continue\r\n"))
    assert s.recv(64).startswith(b"HTTP/1.1 100 Continue")
    return s


# --- idle and slow clients ----------------------------------------------------------------------


def test_idle_and_slow_connections_are_closed_on_time_while_others_are_answered() -> None:
    header_timeout, keepalive = 3.0, 2.0
    with service(HEADER_TIMEOUT=str(header_timeout), KEEPALIVE_TIMEOUT=str(keepalive)) as svc:
        started = time.monotonic()
        idle = [connect(svc.port) for _ in range(300)]  # send nothing
        slow = [connect(svc.port) for _ in range(100)]  # a header byte a second
        for s in slow:
            s.sendall(b"G")
        kept = connect(svc.port)  # one answer, then idle on a kept-alive connection
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_answer(kept)[0] == 200
        kept_at = time.monotonic()
        rest = b"ET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: " + b"x" * 20
        sel = selectors.DefaultSelector()
        for s in [*idle, *slow, kept]:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        closed: dict[socket.socket, tuple[float, bytes]] = {}
        seen: dict[socket.socket, bytes] = {}
        answered = 0
        sent = 1
        while len(closed) < 401 and time.monotonic() - started < header_timeout + 3 * MARGIN:
            for key, _ in sel.select(timeout=0.1):
                s = key.fileobj
                assert isinstance(s, socket.socket)
                data = until_closed_nonblocking(s, seen)
                if data is not None:
                    closed[s] = (time.monotonic(), data)
                    sel.unregister(s)
            if time.monotonic() - started >= sent and sent < len(rest):  # the next byte
                for s in slow:
                    if s not in closed:
                        with suppress(OSError):
                            s.send(rest[sent - 1:sent])
                sent += 1
            # other clients are answered meanwhile
            r = httpx.post(svc.url + "/v1/validate", content=BODY, timeout=10,
                           headers={"content-type": "application/json"})
            assert r.status_code == 200 and r.json()["valid"] is True
            answered += 1
        assert len(closed) == 401, f"{401 - len(closed)} connections still open"
        assert answered > 10
        for s in idle:
            at, data = closed[s]
            assert data == b"", data[:200]  # nothing came: nothing to say
            assert header_timeout - 0.5 <= at - started <= header_timeout + MARGIN
        for s in slow:
            at, data = closed[s]
            assert header_timeout - 0.5 <= at - started <= header_timeout + MARGIN
            assert data.startswith(b"HTTP/1.1 408 "), data[:200]
            assert b'"code":"REQUEST_TIMEOUT"' in data and b"connection: close" in data
        at, data = closed[kept]
        assert data == b"" and keepalive - 0.5 <= at - kept_at <= keepalive + MARGIN
        assert metric(svc, "canasta_connections_closed_total", reason="header_timeout") == 400
        for s in [*idle, *slow, kept]:
            s.close()


def until_closed_nonblocking(s: socket.socket, seen: dict[socket.socket, bytes]) -> bytes | None:
    """Read what is there on a non-blocking ``s`` (kept in ``seen``); all of it once the server
    has closed ``s`` (a reset counts as closed), else None."""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return seen.pop(s, b"")
            seen[s] = seen.get(s, b"") + chunk
    except BlockingIOError:
        return None
    except ConnectionResetError:
        return seen.pop(s, b"")


def test_a_body_that_trickles_is_cut_at_the_body_timeout() -> None:
    body_timeout = 2.0
    with service(BODY_TIMEOUT=str(body_timeout), LOG_LEVEL="info") as svc:
        s = connect(svc.port)
        # a first request on the connection, then a second whose body comes a byte a second
        s.sendall(post_head("/v1/validate", len(BODY)) + BODY)
        assert read_answer(s)[0] == 200
        s.sendall(post_head("/v1/validate", len(BODY))[:-2] + b"Accept-Language: de\r\n\r\n")
        started = time.monotonic()
        s.settimeout(1)
        data = b""
        for byte in BODY[:20]:
            try:
                s.send(bytes([byte]))
                data += s.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if data:
                break
        waited = time.monotonic() - started
        assert body_timeout - 0.5 <= waited <= body_timeout + MARGIN
        assert data.startswith(b"HTTP/1.1 408 ") and b"connection: close" in data, data
        problem = json.loads(data.partition(b"\r\n\r\n")[2])
        assert problem["code"] == "REQUEST_TIMEOUT" and "innerhalb von 2 s" in problem["detail"]
        assert until_closed(s) == b""
        s.close()
        wait_for(lambda: metric(svc, "canasta_client_aborts_total", op="validate",
                                reason="timeout") == 1, 10, "the abort is not counted")
        assert metric(svc, "canasta_connections_closed_total", reason="body_timeout") == 1
        lines = [json.loads(line) for line in svc.output().splitlines() if '"aborted"' in line]
        assert [(a["op"], a["reason"]) for a in lines] == [("validate", "timeout")]


@pytest.mark.parametrize("origins, origin, allowed, vary", [
    ("*", "https://app.example", "*", "Accept-Language"),
    ("https://app.example", "https://app.example", "https://app.example", "Accept-Language, Origin"),
    ("https://app.example", "https://evil.example", None, "Accept-Language, Origin"),
])
def test_a_body_timeout_carries_the_cors_headers(origins: str, origin: str, allowed: str | None,
                                                 vary: str) -> None:
    """A page whose upload stalls reads the 408 (docs/operations.md, CORS): the answer the
    connection layer writes has the headers the app would have sent, as its 503 does."""
    with service(BODY_TIMEOUT="1", CORS_ORIGINS=origins) as svc:
        s = connect(svc.port)
        s.sendall(post_head("/v1/validate", len(BODY), f"Origin: {origin}\r\n") + BODY[:10])
        status, headers, body = read_answer(s)
        assert status == 408 and json.loads(body)["code"] == "REQUEST_TIMEOUT"
        assert headers.get("access-control-allow-origin") == allowed
        assert ("access-control-expose-headers" in headers) == (allowed is not None)
        assert headers.get("vary") == vary
        assert until_closed(s) == b""
        s.close()


def test_a_body_timeout_without_origin_or_cors_adds_no_cors_headers() -> None:
    for env, extra in (({}, ""), ({"CORS_ORIGINS": ""}, "Origin: https://app.example\r\n")):
        with service(BODY_TIMEOUT="1", **env) as svc:
            s = connect(svc.port)
            s.sendall(post_head("/v1/validate", len(BODY), extra) + BODY[:10])
            status, headers, _ = read_answer(s)
            assert status == 408 and headers["vary"] == "Accept-Language", headers
            assert not [h for h in headers if h.startswith("access-control-")]
            s.close()


# --- oversized headers --------------------------------------------------------------------------


def rss(svc: Service) -> int:
    assert svc.proc is not None
    with open(f"/proc/{svc.proc.pid}/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def test_an_oversized_header_is_refused_and_memory_does_not_grow() -> None:
    with service() as svc:  # MAX_HEADER_BYTES 16384
        httpx.get(svc.url + "/healthz")
        before = rss(svc)
        for _ in range(4):  # an unfinished header of up to 50 MB on each of 4 connections
            s = connect(svc.port)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ")
            sent = 0
            try:
                while sent < 50 * 2**20:
                    s.sendall(b"a" * 2**18)
                    sent += 2**18
            except OSError:  # the server closed it
                pass
            assert sent < 50 * 2**20, "the server took 50 MB of header"
            data = until_closed(s)
            assert data == b"" or data.startswith(b"HTTP/1.1 431 "), data[:100]
            s.close()
        grown = rss(svc) - before
        assert grown < 16 * 2**20, f"the server grew by {grown / 2**20:.0f} MB"
        # complete headers over the limit, sent at once: 431 with a problem document
        s = connect(svc.port)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 17000 + b"\r\n\r\n")
        status, headers, body = read_answer(s)
        assert status == 431 and headers["connection"] == "close"
        assert json.loads(body)["code"] == "HEADERS_TOO_LARGE"
        assert until_closed(s) == b""
        s.close()
        # under the limit: answered
        r = httpx.get(svc.url + "/healthz", headers={"x-big": "a" * 15000})
        assert r.status_code == 200
        assert metric(svc, "canasta_connections_closed_total", reason="headers_too_large") == 5


# --- the connection cap -------------------------------------------------------------------------


def blackhole() -> socket.socket:
    """A listening socket that never accepts: a Redis whose commands never return."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    return s


def test_past_the_connection_cap_new_clients_are_refused_at_once_while_healthz_answers() -> None:
    cap, reserve = 20, 32
    hole = blackhole()
    env = {"MAX_CONNECTIONS": str(cap), "BODY_TIMEOUT": "25", "GRACEFUL_TIMEOUT": "1",
           "REDIS_URL": f"redis://127.0.0.1:{hole.getsockname()[1]}/0", "REDIS_TIMEOUT": "10"}
    with service(**env) as svc:
        # idle connections fill the cap: a new client closes the one idle longest
        idle = [connect(svc.port) for _ in range(cap)]
        wait_for(lambda: server_sockets(svc, local=svc.port) == cap, 10, "not accepted")
        assert httpx.get(svc.url + "/healthz", timeout=5).status_code == 200
        idle[0].settimeout(5)
        assert until_closed(idle[0]) == b""  # evicted
        assert metric(svc, "canasta_connections_closed_total", reason="evicted") >= 1
        for s in idle:
            s.close()
        wait_for(lambda: server_sockets(svc, local=svc.port) == 0, 10, "idle ones not closed")
        # busy connections (requests waiting for their bodies) fill the cap: no room
        busy = [held_request(svc.port) for _ in range(cap)]
        started = time.monotonic()
        r = httpx.get(svc.url + "/v1/variants", timeout=10, headers={"accept-language": "de"})
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.json()["code"] == "OVERLOADED" and r.headers["content-language"] == "de"
        assert r.headers["connection"] == "close"
        assert time.monotonic() - started < MARGIN
        r = httpx.get(svc.url + "/healthz", timeout=10)
        assert r.status_code == 200 and r.headers["connection"] == "close"
        # the reserve full too (/readyz waiting for a Redis that never answers): a new
        # connection is answered 503 at once, before it sends anything
        held = []
        for _ in range(reserve):
            s = connect(svc.port)
            s.sendall(b"GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n")
            held.append(s)
        # each held /readyz has a connection to the Redis open (so its request is running)
        wait_for(lambda: server_sockets(svc, remote=hole.getsockname()[1]) == reserve, 10,
                 "the reserve is not busy")
        started = time.monotonic()
        s = connect(svc.port)
        status, headers, body = read_answer(s)
        assert status == 503 and json.loads(body)["code"] == "OVERLOADED"
        assert headers["retry-after"] == "1" and headers["connection"] == "close"
        assert time.monotonic() - started < MARGIN
        s.close()
        # the busy requests still complete
        for s in busy:
            s.sendall(BODY)
            assert read_answer(s)[0] == 200
            s.close()
        for s in held:
            s.close()
        assert metric(svc, "canasta_connections_closed_total", reason="refused") == 1
        assert metric(svc, "canasta_requests_shed_total", reason="connections") == 1
    hole.close()


# --- requests in flight -------------------------------------------------------------------------


def test_requests_past_the_in_flight_limit_get_503_with_retry_after() -> None:
    limit = 4
    with service(MAX_IN_FLIGHT=str(limit), BODY_TIMEOUT="25") as svc:
        held = [held_request(svc.port) for _ in range(limit)]
        for lang in ("en", "de"):
            started = time.monotonic()
            r = httpx.post(svc.url + "/v1/validate", content=BODY, timeout=10, headers={
                "content-type": "application/json", "accept-language": lang,
                "origin": "https://page.example"})
            assert time.monotonic() - started < MARGIN
            assert r.status_code == 503 and r.headers["retry-after"] == "1"
            assert r.headers["content-type"] == "application/problem+json"
            assert r.headers["access-control-allow-origin"] == "*"  # a page may read it
            problem = r.json()
            assert problem["code"] == "OVERLOADED" and problem["status"] == 503
            assert ("ausgelastet" in problem["detail"]) == (lang == "de")
        # health and readiness are never shed
        assert httpx.get(svc.url + "/healthz", timeout=10).status_code == 200
        assert httpx.get(svc.url + "/readyz", timeout=10).json()["ready"] is True
        # a refused request's body is read and dropped: the connection goes on
        kept = connect(svc.port)
        kept.sendall(post_head("/v1/validate", len(BODY)) + BODY)
        status, headers, _ = read_answer(kept)
        assert status == 503 and "connection" not in headers
        for s in held:  # the held requests are answered
            s.sendall(BODY)
            status, _, body = read_answer(s)
            assert status == 200 and json.loads(body)["valid"] is True
            s.close()
        kept.sendall(post_head("/v1/validate", len(BODY)) + BODY)
        assert read_answer(kept)[0] == 200
        kept.close()
        assert metric(svc, "canasta_requests_shed_total", reason="in_flight") == 3
        # answered by the protocol at once, without a task: not an app request
        assert metric(svc, "canasta_requests_total", op="validate", status="503") == 0


# --- aborted uploads ----------------------------------------------------------------------------


def test_aborted_uploads_are_one_log_line_each_and_no_5xx() -> None:
    n = 300
    with service(LOG_LEVEL="info") as svc:
        before = len(svc.output())
        for i in range(n):
            s = held_request(svc.port, length=100_000)  # the app reads the body ...
            s.sendall(b'{"state": {"hands": [' + b" " * 4000)  # ... which stops here
            if i % 2:  # half of them reset instead of closing
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        wait_for(lambda: metric(svc, "canasta_client_aborts_total", op="validate",
                                reason="disconnect") == n, 20, "aborts not counted")
        text = httpx.get(svc.url + "/metrics").text
        assert not re.search(r'canasta_requests_total\{op="[^"]+",status="5\d\d"\}', text)
        log = svc.output()[before:]
        lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
        aborted = [line for line in lines if line["msg"] == "aborted"]
        assert len(aborted) == n
        assert {(a["op"], a["reason"], a["path"]) for a in aborted} == {
            ("validate", "disconnect", "/v1/validate")}
        assert "Traceback" not in log and not any("exc" in line for line in lines)
        assert not any(line["level"] == "error" for line in lines)
        assert sum(len(line) for line in log.splitlines() if '"aborted"' in line) < n * 250


def test_a_batch_whose_client_went_away_stops_and_frees_its_slot() -> None:
    """A batch is not answered on for a client that is gone: it stops after the operation in
    progress, gives its bulk slot back and is counted as aborted (before, a batch whose
    look-ups each wait 0.2 s for a Redis that never answers held the one slot to its end,
    here 16 groups of 16 operations: 3.2 s, and every other batch got 503)."""
    hole = blackhole()
    operations = [{"op": "legal-actions", "body": {"state": {**EXAMPLE_STATE, "scores": [i, 0]}}}
                  for i in range(256)]
    body = json.dumps({"operations": operations}).encode()
    small = json.dumps({"operations": operations[:1]}).encode()
    env = {"REDIS_URL": f"redis://127.0.0.1:{hole.getsockname()[1]}/0", "REDIS_TIMEOUT": "0.1",
           "REDIS_BREAKER_FAILURES": "100000", "REDIS_OPS": "legal-actions", "CACHE_SIZE": "0",
           "MAX_BULK_IN_FLIGHT": "1", "LOG_LEVEL": "info"}
    with service(**env) as svc:
        before = len(svc.output())
        s = connect(svc.port)
        s.sendall(post_head("/v1/batch", len(body)) + body)
        time.sleep(0.5)  # a few operations in: the slot is taken
        r = httpx.post(svc.url + "/v1/batch", content=small, timeout=10,
                       headers={"content-type": "application/json"})
        assert r.status_code == 503 and r.json()["code"] == "OVERLOADED"
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()  # reset: gone
        gone = time.monotonic()

        def answered() -> bool:
            return httpx.post(svc.url + "/v1/batch", content=small, timeout=10, headers={
                "content-type": "application/json"}).status_code == 200

        wait_for(answered, MARGIN, "the slot was not given back")
        assert time.monotonic() - gone < 1.5  # (the batch alone would take 2.7 s more)
        wait_for(lambda: metric(svc, "canasta_client_aborts_total", op="batch",
                                reason="disconnect") == 1, 10, "the abort not counted")
        lines = [json.loads(line) for line in svc.output()[before:].splitlines()
                 if line.startswith("{")]
        assert [(x["op"], x["reason"]) for x in lines if x["msg"] == "aborted"] == [
            ("batch", "disconnect")]
        assert not any(x["level"] == "error" for x in lines)
    hole.close()


# --- media types, security headers --------------------------------------------------------------


def test_non_json_bodies_get_415_and_every_answer_says_nosniff() -> None:
    with service() as svc:
        h = httpx.Client(base_url=svc.url, timeout=10)
        deal = b'{"seed": 7}'
        for media in ("application/json", "application/json; charset=utf-8",
                      "Application/JSON", "application/merge-patch+json", None):
            headers = {"content-type": media} if media else {}
            r = h.post("/v1/deal", content=deal, headers=headers)
            assert r.status_code == 200, (media, r.text)
        for media in ("application/x-www-form-urlencoded", "text/plain", "multipart/form-data",
                      "application/xml", "application/jsonx"):
            for lang in ("en", "de"):
                r = h.post("/v1/deal", content=deal, headers={"content-type": media,
                                                             "accept-language": lang})
                assert r.status_code == 415 and r.headers["accept"] == "application/json"
                problem = r.json()
                assert problem["code"] == "UNSUPPORTED_MEDIA_TYPE", problem
                assert media in problem["detail"] and r.headers["content-language"] == lang
        # curl -d: form-urlencoded, refused (the README uses --json)
        r = h.post("/v1/legal-actions", data={"state": "x"})
        assert r.status_code == 415
        # GraphQL: POST only; GET /graphql is the GraphiQL page
        r = h.get("/graphql", params={"query": "{ variants { id } }"})
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        assert r.json()["code"] == "METHOD_NOT_ALLOWED"
        page = h.get("/graphql", headers={"accept": "text/html"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        r = h.post("/graphql", json={"query": "{ variants { id } }"})
        assert r.status_code == 200 and r.json()["data"]["variants"]
        # nosniff on every answer; the HTML pages keep their CSP
        answers = [h.get("/healthz"), h.get("/nothing"), h.get("/metrics"), h.get("/docs"),
                   page, h.get("/openapi.json"), r, h.post("/v1/deal", content=b"{")]
        for a in answers:
            assert a.headers["x-content-type-options"] == "nosniff", a.url
            assert a.headers.get_list("x-content-type-options") == ["nosniff"]
        for a in (h.get("/docs"), page):
            assert "default-src 'none'" in a.headers["content-security-policy"]
        h.close()



def test_bytes_that_are_not_http_get_a_problem_document() -> None:
    """Framing the HTTP parser refuses (a bad method, a negative or doubled Content-Length,
    Content-Length beside chunked, a bad chunk size, NUL in a header): 400 BAD_HTTP_REQUEST as
    a problem document (it was plain text), the connection closed; the server answers the next
    client as before."""
    bad = [b"GARBAGE\r\n\r\n",
           b"P@ST /v1/deal HTTP/1.1\r\nHost: x\r\n\r\n",
           b"POST /v1/deal HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
           b"POST /v1/deal HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3"
           b"\r\n\r\n{}",
           b"POST /v1/deal HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n{}",
           b"POST /v1/deal HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"zz\r\n{}\r\n0\r\n\r\n",
           b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n"]
    with service() as svc:
        for raw in bad:
            with connect(svc.port) as s:
                s.sendall(raw)
                status, headers, body = read_answer(s)
                assert status == 400, (raw, status, body)
                assert headers["content-type"] == "application/problem+json", raw
                assert headers["x-content-type-options"] == "nosniff"
                problem = json.loads(body)
                assert (problem["code"], problem["status"]) == ("BAD_HTTP_REQUEST", 400), raw
                assert until_closed(s) == b"", raw
        assert httpx.get(svc.url + "/healthz", timeout=10).status_code == 200

# --- shutdown -----------------------------------------------------------------------------------


def test_keep_alive_clients_get_connection_close_when_shutdown_begins() -> None:
    with service(GRACEFUL_TIMEOUT="5", LOG_LEVEL="info") as svc:
        assert svc.proc is not None
        outcomes: list[tuple[int, str]] = []
        ready = threading.Barrier(9)

        def client() -> None:
            s = connect(svc.port)
            n = 0
            ready.wait()
            try:
                while True:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
                    status, headers, _ = read_answer(s)
                    assert status == 200
                    n += 1
                    if headers.get("connection") == "close":
                        outcomes.append((n, "close"))
                        break
            except (OSError, AssertionError) as exc:
                outcomes.append((n, repr(exc)))
            finally:
                s.close()

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        ready.wait()
        time.sleep(0.5)  # requests flowing on every connection
        svc.proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(15)
        assert len(outcomes) == 8
        assert all(how == "close" and n > 1 for n, how in outcomes), outcomes
        assert svc.proc.wait(10) in (0, -signal.SIGTERM)


def test_a_slow_upload_holds_shutdown_no_longer_than_the_body_timeout() -> None:
    body_timeout = 2.0
    with service(BODY_TIMEOUT=str(body_timeout), GRACEFUL_TIMEOUT="20") as svc:
        assert svc.proc is not None
        s = held_request(svc.port)  # headers in; the body comes a byte at a time
        started = time.monotonic()
        svc.proc.send_signal(signal.SIGTERM)
        s.settimeout(0.5)
        data = b""
        for i in range(40):
            try:
                s.send(BODY[i:i + 1])
                data += s.recv(65536)
                if data:
                    break
            except TimeoutError:
                continue
            except OSError:
                break
        exited = svc.proc.wait(body_timeout + 2 * MARGIN)
        waited = time.monotonic() - started
        assert exited in (0, -signal.SIGTERM)
        assert waited <= body_timeout + MARGIN, f"shutdown took {waited:.1f} s"
        assert data.startswith(b"HTTP/1.1 408 ") and b'"code":"REQUEST_TIMEOUT"' in data, data
        s.close()
