"""Clients that do not take their answers (``SEND_TIMEOUT``, ``MAX_UNSENT_BYTES``,
``service/protocol.py``), against the real server on a free loopback port.

A client that pipelines requests and reads nothing fills the kernel's socket buffers; past them
the worker keeps the rest of an answer, and uvicorn's flow control makes the connection's next
answer wait for the client, holding its request slot (for audits and batches one of the four
``MAX_BULK_IN_FLIGHT``). Before ``SEND_TIMEOUT`` five such connections shut every other client
out of audits and batches for as long as they stayed. Every attack goes to 127.0.0.1 only,
bounded in count and time; the clients' receive buffers are set small so that the jam does not
depend on how much the kernel would otherwise take."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import suppress
from functools import cache
from pathlib import Path

import httpx
import orjson
import pytest

from canasta_referee.service.budget import MIB, budget, kernel_send_bound, report
from canasta_referee.service.protocol import WRITE_HIGH_WATER
from canasta_referee.service.settings import SettingError, Settings

from .test_connections import (
    MARGIN,
    metric,
    post_head,
    read_answer,
    service,
    until_closed,
    wait_for,
)

#: jammed connections, and batches each pipelines without reading an answer
JAMMED, PIPELINED = 5, 6


@cache
def big_batch() -> bytes:
    """A batch of 150 legal-actions operations on a six-player state (193 actions each): a
    215 KB body answered with about 1.8 MB."""
    from bench.http import bodies

    body, _ = bodies()["legal-actions"]
    state = body["state"]
    return orjson.dumps({"operations": [
        {"op": "legal-actions", "body": {**body, "state": {**state, "scores": [i, 0, 0]}}}
        for i in range(150)]})


def request(body: bytes, path: str = "/v1/batch") -> bytes:
    return post_head(path, len(body)) + body


def jam(port: int) -> list[socket.socket]:
    """``JAMMED`` connections that each send ``PIPELINED`` batches and never read (the sends run
    in threads: the server stops reading a connection while its answers wait)."""
    socks = []
    for _ in range(JAMMED):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window
        s.settimeout(60)
        s.connect(("127.0.0.1", port))
        threading.Thread(target=_send_quietly, args=(s, request(big_batch()) * PIPELINED),
                         daemon=True).start()
        socks.append(s)
    return socks


def _send_quietly(s: socket.socket, data: bytes) -> None:
    with suppress(OSError):  # dropped by the server while sending: what the tests wait for
        s.sendall(data)


@cache
def small_batch() -> bytes:
    """A batch of one operation: it needs a bulk slot as any batch does, but holds it only
    for a moment (the probe of whether one is free)."""
    return orjson.dumps({"operations": orjson.loads(big_batch())["operations"][:1]})


def batch_status(url: str) -> int:
    """The status of a batch sent now: 503 while every bulk slot is held."""
    return httpx.post(url + "/v1/batch", content=small_batch(), timeout=30,
                      headers={"content-type": "application/json"}).status_code


def test_clients_that_do_not_take_their_answers_are_dropped_at_the_send_timeout() -> None:
    # SEND_TIMEOUT long enough that all four slots are held at once even on a loaded machine:
    # the first jammed connection is held while the others' batches are still computed (a
    # timeout of 2 s missed that once, with other tests running beside the suite)
    send_timeout = 8
    with service(SEND_TIMEOUT=str(send_timeout)) as svc:
        socks = jam(svc.port)
        try:
            # every bulk slot is held by a connection whose next answer waits for its client
            wait_for(lambda: batch_status(svc.url) == 503, 30, "the jam")
            jammed_at = time.monotonic()
            wait_for(lambda: metric(svc, "canasta_connections_closed_total",
                                    reason="send_timeout") >= JAMMED,
                     send_timeout + 2 * MARGIN + 20, "the jammed connections dropped")
            assert batch_status(svc.url) == 200
            assert time.monotonic() - jammed_at < send_timeout + 2 * MARGIN + 20
            for s in socks:  # the server closed them: a read ends (after what was sent)
                s.settimeout(10)
                assert len(until_closed(s)) < PIPELINED * 1_800_000, "not everything was sent"
            assert metric(svc, "canasta_connections_open") <= 2
        finally:
            for s in socks:
                s.close()


def test_answers_held_back_stay_within_max_unsent_bytes() -> None:
    # the smallest cap there may be: one of the largest answers (2 MiB)
    with service(SEND_TIMEOUT="600", MAX_UNSENT_BYTES=str(2 * 1024 * 1024)) as svc:
        socks = jam(svc.port)
        try:
            wait_for(lambda: metric(svc, "canasta_connections_closed_total",
                                    reason="unsent_bytes") >= 1, 30, "a connection dropped")
            # long before SEND_TIMEOUT: each held connection keeps more than 1 MB, so at most
            # one stays (with the probe's and /metrics' own)
            wait_for(lambda: metric(svc, "canasta_connections_open") <= 3, 30,
                     "the held connections dropped down to the cap")
            wait_for(lambda: batch_status(svc.url) == 200, 30, "a batch answered")
        finally:
            for s in socks:
                s.close()


def send_queues(port: int) -> list[int]:
    """What each of the server's established connections on ``port`` holds in the kernel:
    bytes written and not yet acknowledged by the client (``/proc/net/tcp``'s ``tx_queue``)."""
    queues = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":  # ESTABLISHED
            queues.append(int(fields[4].split(":")[0], 16))
    return queues


def test_send_buffer_bytes_bounds_what_the_kernel_holds_for_a_client() -> None:
    """With the kernel's own sizing a connection whose client reads nothing queues megabytes
    over loopback (3.5 MiB measured); ``SEND_BUFFER_BYTES`` caps it at about twice the setting
    (Linux's bookkeeping), and the rest of the answer waits in the worker, where
    ``MAX_UNSENT_BYTES`` and ``SEND_TIMEOUT`` see it."""
    size = 64 * 1024
    with service(SEND_BUFFER_BYTES=str(size), SEND_TIMEOUT="600") as svc:
        socks = jam(svc.port)
        try:
            wait_for(lambda: sum(q > 0 for q in send_queues(svc.port)) >= 4, 30,
                     "four jammed connections with answers queued")
            time.sleep(1)  # what the kernel would still take
            queues = send_queues(svc.port)
            assert 0 < max(queues) <= 2 * size, queues
        finally:
            for s in socks:
                s.close()


@pytest.mark.parametrize("send_buffer", ["0", "65536"])
def test_a_client_that_reads_slowly_gets_its_whole_answer(send_buffer: str) -> None:
    """Held back is not dropped: a client reading at most 64 KB every 20 ms (a 1.8 MB answer
    in about 0.6 s, well within SEND_TIMEOUT) gets all four answers it pipelined, also with
    the kernel's buffer bounded (``SEND_BUFFER_BYTES``: nearly all of each answer then waits
    in the worker, within ``MAX_UNSENT_BYTES``)."""
    with service(SEND_TIMEOUT="5", MAX_UNSENT_BYTES=str(2 * 1024 * 1024),
                 SEND_BUFFER_BYTES=send_buffer) as svc:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        s.settimeout(30)
        s.connect(("127.0.0.1", svc.port))
        try:
            threading.Thread(target=_send_quietly, args=(s, request(big_batch()) * 4),
                             daemon=True).start()
            time.sleep(1)  # answers ready: what the kernel does not take waits in the worker
            slow = Slow(s)
            for _ in range(4):
                status, headers, body = read_answer(slow)  # type: ignore[arg-type]
                assert status == 200
                assert len(body) == int(headers["content-length"]) > 1_500_000
                assert orjson.loads(body)["results"][149]["status"] == 200
            assert metric(svc, "canasta_connections_closed_total", reason="send_timeout") == 0
        finally:
            s.close()


class Slow:
    """A socket to ``read_answer`` from at 64 KB per 20 ms."""

    def __init__(self, s: socket.socket) -> None:
        self.s = s

    def recv(self, n: int) -> bytes:
        time.sleep(0.02)
        return self.s.recv(min(n, 65536))


def graphql_batch() -> bytes:
    """``big_batch`` as a GraphQL query (its answer about 1.8 MB too)."""
    operations = [{"op": "LEGAL_ACTIONS", "body": o["body"]}
                  for o in orjson.loads(big_batch())["operations"]]
    body = orjson.dumps({
        "query": "query($ops: [BatchOperation!]!) { batch(operations: $ops) "
                 "{ ... on Batch { results { status body } } ... on Problem { code } } }",
        "variables": {"ops": operations}})
    return request(body, "/graphql")


def test_a_graphql_batch_answer_holds_its_bulk_slot_until_it_is_sent() -> None:
    """The typed answer of a GraphQL batch (18 MiB of objects for 0.9 MB of JSON) lives until
    the whole answer is sent, so its MAX_BULK_IN_FLIGHT slot is held as long: with one slot,
    another batch is refused while a client that does not read has a GraphQL batch answer
    waiting, and answered once that connection is dropped at SEND_TIMEOUT."""
    with service(SEND_TIMEOUT="4", MAX_BULK_IN_FLIGHT="1") as svc:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.settimeout(60)
        s.connect(("127.0.0.1", svc.port))
        try:
            threading.Thread(target=_send_quietly, args=(s, graphql_batch() * PIPELINED),
                             daemon=True).start()
            # the pipelined queries are computed in well under 3 s; the second one's answer then
            # waits for the client, and its slot with it
            time.sleep(3)
            for _ in range(3):
                assert batch_status(svc.url) == 503
                time.sleep(0.3)
            wait_for(lambda: metric(svc, "canasta_connections_closed_total",
                                    reason="send_timeout") == 1, 4 + 2 * MARGIN + 20,
                     "the connection dropped")
            wait_for(lambda: batch_status(svc.url) == 200, 2 * MARGIN, "the slot given back")
        finally:
            s.close()


def test_the_budget_counts_answers_held_back_and_the_settings_are_checked() -> None:
    """``MAX_UNSENT_BYTES`` and every connection's high-water mark are in the memory budget;
    the cap cannot be below the largest answer, nor the deadline zero."""
    b = budget(Settings())
    assert b.unsent == 8 * MIB + 1000 * WRITE_HIGH_WATER
    assert budget(Settings(max_unsent_bytes=16 * MIB, max_connections=10)).unsent == (
        16 * MIB + 10 * WRITE_HIGH_WATER)
    assert b.total == b.baseline + b.cache + b.compute + b.in_flight + b.bulk + b.unsent
    assert "unsent answers" in report(Settings())
    assert "kernel send buffers: not bounded" in report(Settings())
    bounded = Settings(send_buffer_bytes=32 * 1024, max_connections=1000)
    assert kernel_send_bound(bounded) == 1000 * 64 * 1024
    assert "62.5 MiB a worker, outside its memory" in report(bounded)
    assert budget(bounded).total == budget(Settings()).total  # beside the budget, not in it
    with pytest.raises(SettingError, match="MAX_UNSENT_BYTES"):
        Settings.from_env({"MAX_UNSENT_BYTES": str(MIB)})  # below MAX_BULK_ANSWER_BYTES
    assert Settings.from_env({"MAX_UNSENT_BYTES": str(MIB),
                              "MAX_BULK_ANSWER_BYTES": str(MIB)}).max_unsent_bytes == MIB
    with pytest.raises(SettingError, match="SEND_TIMEOUT"):
        Settings.from_env({"SEND_TIMEOUT": "0"})
    for wrong in ("100", str(65 * MIB), "-1"):
        with pytest.raises(SettingError, match="SEND_BUFFER_BYTES"):
            Settings.from_env({"SEND_BUFFER_BYTES": wrong})
    assert Settings.from_env({"SEND_BUFFER_BYTES": "0"}).send_buffer_bytes == 0
