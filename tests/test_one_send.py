"""Issue 19: an answer's head and body leave the server in one system call
(``service.protocol.HeadWithBody``; uvicorn alone writes them one after the other), and
nothing that depends on the order of writes broke: ``100 Continue`` still comes before the
body is read, a HEAD answer still arrives, pipelined requests are answered in order, and a
connection closed by the server after an answer has the whole answer first.

Against the real server (``canasta-referee serve`` on a free loopback port); the write calls
are counted by the kernel (``syscw`` of ``/proc/PID/io``: write and writev calls of the
process), not by the test."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import weakref
from collections.abc import Iterator
from typing import cast

import pytest

from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.protocol import HeadWithBody

from .servers import Service
from .test_connections import connect, post_head, read_answer, service

BODY = json.dumps({"state": EXAMPLE_STATE}).encode()
QUERY = b'{"query":"{ __typename }"}'
#: write calls the server may make besides the answers (none are expected with LOG_LEVEL=warning)
SLACK = 3


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    with service() as s:
        yield s


def write_calls(svc: Service) -> int:
    """The server process's write system calls so far (all its threads)."""
    assert svc.proc is not None
    with open(f"/proc/{svc.proc.pid}/io") as f:
        fields = dict(line.split(": ") for line in f.read().splitlines())
    return int(fields["syscw"])


REQUESTS = [
    (post_head("/v1/validate", len(BODY)) + BODY, 200),
    (post_head("/v1/legal-actions", len(BODY)) + BODY, 200),
    (post_head("/v1/validate", 2) + b"{}", 422),  # a problem document
    (b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n", 200),
    (b"GET /v1/variants HTTP/1.1\r\nHost: t\r\n\r\n", 200),
    (b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n", 200),
    (b"GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n", 404),
    (post_head("/graphql", len(QUERY)) + QUERY, 200),
]


@pytest.mark.parametrize(("request_bytes", "status"), REQUESTS,
                         ids=[f"{r.split(b' HTTP')[0].decode()} {st}" for r, st in REQUESTS])
def test_each_answer_is_one_write(svc: Service, request_bytes: bytes, status: int) -> None:
    with connect(svc.port) as s:
        s.sendall(request_bytes)  # the first answer on a connection warms it up
        assert read_answer(s)[0] == status
        before = write_calls(svc)
        n = 20
        for _ in range(n):
            s.sendall(request_bytes)
            got, _, body = read_answer(s)
            assert got == status and body
        made = write_calls(svc) - before
    assert n <= made <= n + SLACK, f"{made} write calls for {n} answers"


def test_100_continue_comes_before_the_body_is_sent_and_the_answer_after(svc: Service) -> None:
    with connect(svc.port) as s:
        s.sendall(post_head("/v1/validate", len(BODY), "Expect: 100-continue\r\n"))
        assert s.recv(64) == b"HTTP/1.1 100 Continue\r\n\r\n"
        s.sendall(BODY)
        status, headers, body = read_answer(s)
        assert status == 200 and json.loads(body)["valid"] is True
        assert headers["content-type"].startswith("application/json")


def test_a_head_answer_arrives_without_a_body_and_the_connection_goes_on(svc: Service) -> None:
    with connect(svc.port) as s:
        s.sendall(b"HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            assert chunk, data
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200") and rest == b""
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_answer(s)[0] == 200


def test_pipelined_requests_are_answered_in_order(svc: Service) -> None:
    with connect(svc.port) as s:
        s.sendall(post_head("/v1/validate", 2) + b"{}"
                  + post_head("/v1/validate", len(BODY)) + BODY
                  + b"GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n")
        assert [read_answer(s)[0] for _ in range(3)] == [422, 200, 404]


def test_an_answer_the_server_closes_after_arrives_whole(svc: Service) -> None:
    with connect(svc.port) as s:
        s.sendall(post_head("/v1/validate", len(BODY), "Connection: close\r\n") + BODY)
        status, headers, body = read_answer(s)
        assert status == 200 and headers["connection"] == "close"
        assert json.loads(body)["valid"] is True
        s.settimeout(10)
        assert s.recv(1) == b""  # then closed
    with socket.create_connection(("127.0.0.1", svc.port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")  # HTTP/1.0: closed after the answer
        status, _, body = read_answer(s)
        assert status == 200 and body


def test_a_finished_cycle_is_freed_without_the_cycle_collector() -> None:
    """The held head's transport refers to the cycle's parts, never to the cycle, so the cycle
    (which refers to it) goes when its last reference does: the collector is not needed for
    every request's objects."""

    class Cycle:  # the two attributes of uvicorn's RequestResponseCycle that HeadWithBody uses
        def __init__(self) -> None:
            self.transport: object = None
            self.on_response = lambda: None

    gc.disable()
    try:
        cycle = Cycle()
        HeadWithBody(cast(asyncio.Transport, object()), cycle)
        gone = weakref.ref(cycle)
        del cycle
        assert gone() is None
    finally:
        gc.enable()
