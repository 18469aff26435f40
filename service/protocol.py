"""uvicorn's httptools protocol with a bound on everything a connection can hold.

``canasta-referee serve`` runs uvicorn with
``http="canasta_referee.service.protocol:RefereeProtocol"``. On top of uvicorn's own handling
(its keep-alive timer, pipelining, flow control) each connection has:

- a size limit for its request line and headers (``MAX_HEADER_BYTES``): httptools keeps a header
  that has not ended in memory, without limit; past the limit the answer is 431 and the
  connection is closed. Counted while the bytes arrive (so memory stays within the limit plus one
  read of the socket) and exactly once the headers are complete;
- a deadline for the request line and headers (``HEADER_TIMEOUT``), from the accept (first
  request) or the request's first byte: uvicorn times out idle keep-alive connections only
  after a first answer, never a connection that sends nothing or a byte a second. A connection
  that sent nothing is closed; one with a part of a request gets 408;
- a deadline for the body (``BODY_TIMEOUT``) from the end of the headers: then 408 (when the app
  has not answered yet; the app sees the client gone; with CORS headers for an allowed
  ``Origin``, as the app would send them) and the connection is closed. So a slow
  upload also holds a stopping server for at most that long;
- ``KEEPALIVE_TIMEOUT`` as uvicorn's idle timeout between requests;
- a deadline for taking an answer (``SEND_TIMEOUT``): an answer goes to the socket at once, and
  the kernel's buffer takes what the client has not read yet; only when that is full does the
  worker keep the rest (``WRITE_HIGH_WATER`` and more: uvicorn's flow control then holds the
  connection's next answer until the client catches up). A client that reads nothing held a
  connection, the answer's memory and, when it pipelined, a request slot (an audit's or
  batch's too) for as long as it liked; now the connection is dropped, with what is left
  unsent, when writing stays held that long, or when a closed connection still has unsent
  bytes that long (uvicorn's close waits for them to go).

And per worker process:

- ``MAX_CONNECTIONS``: past it, the connection idle longest (no request in progress: waiting
  for a first byte, for the rest of its headers, or between requests) is closed to make room.
  When every connection is busy, ``RESERVE`` more are accepted for ``/healthz`` and ``/readyz``
  only (anything else there gets 503 ``OVERLOADED``); past those a new connection gets 503 at
  once and is closed. The limit is kept below the open-file limit (raised to the hard limit
  when it is lower), so accept never fails for want of a descriptor;
- ``MAX_IN_FLIGHT``: a request whose headers arrive while that many are being read, queued or
  answered gets 503 ``OVERLOADED`` with ``Retry-After`` (``/healthz`` and ``/readyz``
  excepted). uvicorn runs each request as a task; tasks wait their turn on the one event loop,
  so the decision is made here, where the count includes the queue, and not inside the app
  (which sees a request only when its turn comes). The answer is written here too, at once and
  without a task (in the request's language, with CORS headers for an allowed ``Origin``); its
  body is read and dropped and the connection stays usable. Only a request pipelined behind
  an answer not yet sent is left to the app, marked (``service.app.Gate`` answers it);
- ``MAX_UNSENT_BYTES``: the answers held back for clients that do not read, together; past it
  the connection held back longest is dropped. A connection not held back keeps less than
  ``WRITE_HIGH_WATER`` (its transport's high-water mark), so a worker keeps at most
  ``MAX_UNSENT_BYTES + MAX_CONNECTIONS × WRITE_HIGH_WATER`` of unsent answers
  (``service.budget``);
- graceful shutdown that says so: once it begins every answer carries ``Connection: close``,
  and a connection idle at that moment is kept ``DRAIN_SECONDS`` for one more request (answered
  with ``Connection: close``) instead of being closed under a client that is sending one.

And per response: its head (status line and headers) and its body go to the socket in one send
(``HeadWithBody``): uvicorn writes them one after the other, two system calls and two TCP
segments where one does, and a client needs two reads for one answer
(tests/test_one_send.py counts the server's write calls). uvicorn's check of each response
header's name and value (a regular expression search) is answered from a table for bytes it
found valid before (``CheckedHeaders``).

The cost per request is a few attribute updates and, for a request whose headers or body span
reads, one timer: about 3 µs of CPU over uvicorn's own protocol (bench/attack_connections.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import resource
import socket
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar, NamedTuple

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http import httptools_impl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from .metrics import CONNECTIONS

log = logging.getLogger("canasta.http")

#: paths that are never shed, and the only ones served on the reserve past MAX_CONNECTIONS
EXEMPT = frozenset({"/healthz", "/readyz"})
EXEMPT_RAW = frozenset(p.encode() for p in EXEMPT)
#: connections past MAX_CONNECTIONS accepted for EXEMPT paths while no connection is idle
RESERVE = 32
#: seconds a connection idle when shutdown begins stays open for one last request
DRAIN_SECONDS = 1.0
#: unsent bytes past which a connection's writing is held (uvicorn's flow control: its next
#: answer waits) and it counts as held back; uvloop's default is 64 KiB
WRITE_HIGH_WATER = 16 * 1024
#: the ``Retry-After`` of a 503 OVERLOADED, in seconds
RETRY_AFTER = 1
#: open files kept for other uses (Redis, logs, the listening socket) below RLIMIT_NOFILE
FD_HEADROOM = 64
#: the scope extension that asks the app to answer 503 OVERLOADED (``service.app.Gate``)
OVERLOADED = "canasta.overloaded"
#: the scope extension that tells the app a body did not arrive in time (``service.app.Observe``)
TIMED_OUT = "canasta.body_timeout"

#: what uvicorn writes to a request that expects it, before the response (never held)
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

#: header names and values kept as checked (``CheckedHeaders``), at most, per check
KEPT_HEADERS = 1024


class CheckedHeaders(dict[bytes, None]):
    """uvicorn's check of each response header name and value (a regular expression search
    per header, ``httptools_impl.HEADER_RE`` and ``HEADER_VALUE_RE``: about 1,000 instructions
    each, 14 per answer of ours) with its answer kept for the bytes found valid: the service's
    headers are a few that repeat (``content-type: application/json``, ``x-cache: miss``). A
    kept one is a dictionary look-up; a new one is searched, and kept while fewer than
    ``KEPT_HEADERS`` are; an invalid one is searched every time, so uvicorn still refuses it."""

    def __init__(self, pattern: re.Pattern[bytes]) -> None:
        super().__init__()
        self.pattern = pattern
        #: what uvicorn calls: None for valid bytes, else the search's match (truthy)
        self.search = self.__getitem__

    def __missing__(self, text: bytes) -> re.Match[bytes] | None:
        found = self.pattern.search(text)
        if found is None and len(self) < KEPT_HEADERS:
            self[text] = None
        return found


def check_headers_once() -> None:
    """Put ``CheckedHeaders`` in place of uvicorn's two header patterns (its ``send`` looks
    them up as module globals on each answer); done once, when this module is imported."""
    for name in ("HEADER_RE", "HEADER_VALUE_RE"):
        pattern = getattr(httptools_impl, name)
        if isinstance(pattern, re.Pattern):
            setattr(httptools_impl, name, CheckedHeaders(pattern))


check_headers_once()

#: problem texts of the answers this module writes itself (the app's: ``service.app``)
TEXT: dict[int, tuple[str, str, str]] = {
    400: ("BAD_HTTP_REQUEST", "The request is not HTTP/1.1 this server reads (its framing, or "
          "an upgrade it does not make); the connection is closed.",
          "Die Anfrage ist kein HTTP/1.1, das dieser Server liest (ihr Aufbau oder ein "
          "Protokollwechsel, den er nicht macht); die Verbindung wird geschlossen."),
    408: ("REQUEST_TIMEOUT", "The request did not arrive within {seconds:g} s.",
          "Die Anfrage kam nicht innerhalb von {seconds:g} s an."),
    431: ("HEADERS_TOO_LARGE", "The request line and headers are larger than {limit} bytes.",
          "Anfragezeile und Kopfzeilen sind größer als {limit} Bytes."),
}


class Limits(NamedTuple):
    """The settings this module uses, read once per worker process."""

    max_header_bytes: int
    header_timeout: float
    body_timeout: float
    keepalive_timeout: float
    send_timeout: float
    max_unsent_bytes: int
    send_buffer_bytes: int
    max_connections: int
    max_in_flight: int
    cors_origins: tuple[str, ...]

    @staticmethod
    def from_env() -> Limits:
        from .settings import Settings

        s = Settings.from_env()
        return Limits(s.max_header_bytes, s.header_timeout, s.body_timeout,
                      s.keepalive_timeout, s.send_timeout, s.max_unsent_bytes,
                      s.send_buffer_bytes, fd_bounded(s.max_connections), s.max_in_flight,
                      s.cors_origins)


def fd_bounded(max_connections: int) -> int:
    """``max_connections`` or less, so that the connections, the reserve and ``FD_HEADROOM``
    fit the open-file limit; the soft limit is first raised as far as the hard one allows."""
    need = max_connections + RESERVE + FD_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < need:
        bounded = max(1, soft - RESERVE - FD_HEADROOM)
        log.warning("MAX_CONNECTIONS lowered to fit the open-file limit", extra={"fields": {
            "max_connections": max_connections, "used": bounded, "nofile": soft}})
        return bounded
    return max_connections


def problem_body(status: int, lang: str, **fmt: Any) -> bytes:
    """The problem document (JSON) of an answer this module writes itself (``TEXT``), or of
    the app's (503)."""
    from .app import render, status_problem

    if status not in TEXT:
        return bytes(status_problem(status, lang, **fmt).body)
    from canasta_referee.schema import handlers

    code, en, de = TEXT[status]
    return render(handlers.problem(status, code, (de if lang == "de" else en).format(**fmt),
                                   lang)[1])


def problem_bytes(status: int, lang: str, headers: bytes = b"", close: bool = True,
                  body_too: bool = True, cors: Sequence[tuple[bytes, bytes]] = (),
                  **fmt: Any) -> bytes:
    """A whole HTTP/1.1 answer with a problem document (``Connection: close`` unless ``close``
    is False; no body for a HEAD request, ``body_too`` False); ``cors``: the CORS headers to
    add (``Cors.headers``; a ``vary`` joins the answer's own)."""
    from .app import LANG_HEADERS, PROBLEM, Cors

    body = problem_body(status, lang, **fmt)
    reason = {400: b"Bad Request", 408: b"Request Timeout",
              431: b"Request Header Fields Too Large", 503: b"Service Unavailable"}[status]
    head = [b"HTTP/1.1 %d %s" % (status, reason), b"content-type: " + PROBLEM.encode(),
            b"content-length: %d" % len(body), b"x-content-type-options: nosniff",
            *(b"%s: %s" % pair for pair in Cors.merged(LANG_HEADERS[lang], list(cors)))]
    if close:
        head.append(b"connection: close")
    return b"\r\n".join(head) + b"\r\n" + headers + b"\r\n" + (body if body_too else b"")


async def _no_app(scope: Any, receive: Any, send: Any) -> None:  # (Cors wants an app)
    raise NotImplementedError


@functools.lru_cache(maxsize=4)
def _cors(origins: tuple[str, ...]) -> Any:
    """The app's ``Cors`` for ``CORS_ORIGINS``, made once (not per answer written here)."""
    from .app import Cors

    return Cors(_no_app, origins)


class HeadWithBody:
    """The transport a request's cycle writes to: the response head, which the cycle writes
    first, is held until the body's first bytes and goes out with them in one send (or alone,
    when the response ends without body bytes, as a HEAD answer does, or the connection closes).
    A ``100 Continue``, which the cycle writes before the response starts, is never held. It
    keeps no reference to the cycle (which refers to it), so a finished request is freed by
    reference counting, not left to the cycle collector."""

    __slots__ = ("transport", "head", "started", "on_response")

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self.transport = transport
        self.head: bytes | None = None
        self.started = False  # the head was written (held or sent)
        self.on_response = cycle.on_response
        cycle.transport = self
        cycle.on_response = self.done

    def write(self, data: bytes) -> None:
        head = self.head
        if head is not None:
            self.head = None
            self.transport.writelines((head, data))
        elif self.started or data == CONTINUE:
            self.transport.write(data)
        else:
            self.started = True
            self.head = data

    def flush(self) -> None:
        head = self.head
        if head is not None:
            self.head = None
            self.transport.write(head)

    def done(self) -> None:
        """The response is complete (the cycle's ``on_response``)."""
        self.flush()
        self.on_response()

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def is_closing(self) -> bool:
        return self.transport.is_closing()


class _Stop(Exception):  # noqa: N818 (not an error: stops httptools mid-feed)
    """Raised in a parser callback once the connection has been answered and is closing."""


class RefereeProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` with the bounds of this module's docstring."""

    limits: ClassVar[Limits | None] = None
    #: shutdown has begun in this process: every answer closes its connection
    draining: ClassVar[bool] = False
    #: connections with no request in progress, longest idle first (the ones to close first)
    idle: ClassVar[OrderedDict[RefereeProtocol, None]] = OrderedDict()
    #: connections whose writing is held (more than WRITE_HIGH_WATER unsent), held longest first
    held: ClassVar[OrderedDict[RefereeProtocol, None]] = OrderedDict()
    _answers: ClassVar[dict[tuple[Any, ...], bytes]] = {}

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        limits = RefereeProtocol.limits
        if limits is None:  # the first connection of this worker process
            limits = RefereeProtocol.limits = Limits.from_env()
            CONNECTIONS.open.set_function(lambda: len(server_state.connections))
            CONNECTIONS.in_flight.set_function(lambda: len(server_state.tasks))
        self.lim = limits
        self.timeout_keep_alive = limits.keepalive_timeout  # type: ignore[assignment]
        self.timer: asyncio.TimerHandle | None = None
        self.timer_at: float | None = None
        self.send_timer: asyncio.TimerHandle | None = None  # SEND_TIMEOUT, while held back
        self.dropped = False
        # the phase of the current request: waiting for or reading its line and headers
        # (``begun`` once a byte of it came), or reading its body (``in_body``). A deadline is
        # set at the end of the read in which its phase began (a read that also ends the phase
        # costs no clock and no timer); the first request's header deadline runs from the
        # accept
        self.begun = False
        self.in_body = False
        self.head_deadline: float | None = None
        self.body_deadline: float | None = None
        # bytes of request line and headers so far: a lower bound, checked against the limit
        # as they come, and an upper bound: while it is within the limit, the exact count at
        # the end of the headers is not needed
        self.head_bytes = 0
        self.head_upper = 0
        self.exact = False  # count the headers exactly at their end (set per read)
        self.completed = False  # a request ended during the current read
        self.probation = False  # past MAX_CONNECTIONS: EXEMPT paths only
        self.closing = False
        self.discarding = False  # answered 503 at once: the body is read and dropped
        self.close_after = False  # ... and then the connection closed

    # --- connection ---------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=WRITE_HIGH_WATER)
        lim = self.lim
        if lim.send_buffer_bytes:  # the kernel's buffer bounded: the rest waits where we count it
            sock = transport.get_extra_info("socket")
            with contextlib.suppress(OSError):  # (a connection already gone: nothing to bound)
                if sock is not None:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, lim.send_buffer_bytes)
        if len(self.connections) > lim.max_connections and not self.evict_one():
            if len(self.connections) > lim.max_connections + RESERVE:
                CONNECTIONS.count(CONNECTIONS.closed, "refused")
                self.answer_and_close(503, "en")
                return
            self.probation = True
        self.idle[self] = None
        self.head_deadline = self.loop.time() + lim.header_timeout
        self.retime()

    def evict_one(self) -> bool:
        """Close the connection idle longest to make room; False when none is idle."""
        while self.idle:
            victim, _ = self.idle.popitem(last=False)
            if victim.transport is not None and not victim.transport.is_closing():
                CONNECTIONS.count(CONNECTIONS.closed, "evicted")
                victim.close()
                return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.idle.pop(self, None)
        self.held.pop(self, None)
        self.cancel_timer()
        if self.send_timer is not None:
            self.send_timer.cancel()
            self.send_timer = None
        super().connection_lost(exc)

    def close(self) -> None:
        self.closing = True
        self.idle.pop(self, None)
        self.cancel_timer()
        self.transport.close()
        self.linger()

    def drop(self, reason: str) -> None:
        """Close at once, dropping what is left unsent (counted by ``reason``)."""
        if self.dropped:
            return
        self.dropped = True
        CONNECTIONS.count(CONNECTIONS.closed, reason)
        self.closing = True
        self.idle.pop(self, None)
        self.held.pop(self, None)
        self.cancel_timer()
        self.transport.abort()

    # --- writing ------------------------------------------------------------------------------

    def pause_writing(self) -> None:
        """More than WRITE_HIGH_WATER unsent: the client has SEND_TIMEOUT to catch up, and the
        answers held back for all clients stay within MAX_UNSENT_BYTES."""
        super().pause_writing()
        self.held[self] = None
        self.start_send_timer()
        total = sum([p.transport.get_write_buffer_size() for p in self.held])
        while total > self.lim.max_unsent_bytes and self.held:
            victim = next(iter(self.held))
            total -= victim.transport.get_write_buffer_size()
            self.held.pop(victim)
            # (not inside the transport's write that called this: at the next turn of the loop)
            self.loop.call_soon(victim.drop, "unsent_bytes")

    def resume_writing(self) -> None:
        super().resume_writing()
        self.held.pop(self, None)
        if self.send_timer is not None and not self.transport.is_closing():
            self.send_timer.cancel()
            self.send_timer = None

    def linger(self) -> None:
        """A closed connection whose client has not taken all of its answer: SEND_TIMEOUT to
        take it (uvicorn's and asyncio's close wait for the unsent bytes to go)."""
        if self.transport.get_write_buffer_size():
            self.start_send_timer()

    def start_send_timer(self) -> None:
        if self.send_timer is None:
            self.send_timer = self.loop.call_later(self.lim.send_timeout, self.send_expired)

    def send_expired(self) -> None:
        self.send_timer = None
        if self.transport.get_write_buffer_size():
            self.drop("send_timeout")

    def timeout_keep_alive_handler(self) -> None:
        super().timeout_keep_alive_handler()
        self.linger()

    def language_and_origin(self) -> tuple[str, bytes | None]:
        """The answer's language (``Accept-Language``) and the ``Origin`` of the request whose
        headers were read, for the answers this module writes itself."""
        from .app import language

        lang, origin = "en", None
        for name, value in self.headers:
            if name == b"accept-language":
                lang = language(value.decode("latin-1"))
            elif name == b"origin":
                origin = value
        return lang, origin

    def cors_headers(self, origin: bytes | None) -> tuple[tuple[bytes, bytes], ...]:
        """The CORS headers the app would add to an answer to a request from ``origin``
        (``CORS_ORIGINS``; none without ``Origin`` or with CORS off), for the answers this
        module writes itself to a request whose headers it read."""
        if origin is None or not self.lim.cors_origins:
            return ()
        cors = _cors(self.lim.cors_origins)
        return tuple(cors.headers(origin, cors.allows(origin)))

    def answer_and_close(self, status: int, lang: str, **fmt: Any) -> None:
        """Write a ready-made problem answer (with ``Connection: close``) and close."""
        self.transport.write(self.ready_answer(status, lang, **fmt))
        self.close()

    def ready_answer(self, status: int, lang: str, **fmt: Any) -> bytes:
        """A problem answer this module writes itself, made once for each status, language
        and parameters."""
        key = (status, lang, *sorted(fmt.items()))
        answer = self._answers.get(key)
        if answer is None:
            extra = b"retry-after: %d\r\n" % RETRY_AFTER if status == 503 else b""
            answer = self._answers[key] = problem_bytes(
                status, lang, extra, **{"seconds": RETRY_AFTER, **fmt})
        return answer

    # --- reading ------------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self.closing:
            return
        self._unset_keepalive_if_required()
        lim = self.lim
        in_head = not self.in_body and (self.begun or self.head_deadline is not None)
        self.exact = self.head_upper + len(data) > lim.max_header_bytes
        self.completed = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            if isinstance(exc.__context__, _Stop):
                return
            self.bad_request()
            return
        except httptools.HttpParserError:
            self.bad_request()
            return
        except httptools.HttpParserUpgrade:  # no WebSocket here (uvicorn runs with ws="none")
            self._unsupported_upgrade_warning()
        if self.closing:
            return
        if self.begun and not self.in_body:  # the read ends inside a request line or headers
            if in_head and not self.completed:  # all of it was: count it
                self.head_bytes += len(data)
                self.head_upper += len(data)
                if self.head_bytes > lim.max_header_bytes:
                    self.too_large()
                    return
            else:  # a part of it (a request ended or a body was read before): at most all
                self.head_upper = len(data)
        self.retime()

    def bad_request(self) -> None:
        msg = "Invalid HTTP request received."
        self.logger.warning(msg)
        self.send_400_response(msg)
        self.closing = True
        self.idle.pop(self, None)
        self.cancel_timer()
        self.linger()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes that are not HTTP/1.1 it reads (a framing error, an
        upgrade it does not make), as a problem document instead of plain text."""
        self.transport.write(self.ready_answer(400, "en"))
        self.transport.close()

    def too_large(self) -> None:
        CONNECTIONS.count(CONNECTIONS.closed, "headers_too_large")
        self.answer_and_close(431, "en", limit=self.lim.max_header_bytes)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._unset_keepalive_if_required()  # (a request after a shed one, in the same read)
        self.begun = True

    def on_headers_complete(self) -> None:
        lim = self.lim
        if self.exact and len(self.url) + sum(
                len(k) + len(v) + 4 for k, v in self.headers) > lim.max_header_bytes:
            self.too_large()
            raise _Stop
        self.head_deadline = None
        self.head_bytes = self.head_upper = 0
        self.in_body = True
        self.idle.pop(self, None)
        reason = None
        if self.probation:
            reason = "connections"
        elif lim.max_in_flight and len(self.tasks) >= lim.max_in_flight:
            reason = "in_flight"
        if reason is not None and httptools.parse_url(self.url).path not in EXEMPT_RAW:
            CONNECTIONS.count(CONNECTIONS.shed, reason)
            if self.cycle is None or self.cycle.response_complete:
                self.shed()  # at once, without a task: the queue is what is too long
                return
            # pipelined behind an answer not yet sent: the app answers 503 in its turn
            super().on_headers_complete()
            self.scope.setdefault("extensions", {})[OVERLOADED] = {"retry_after": RETRY_AFTER}
            self.cycle.keep_alive = False
            return
        before = self.cycle
        super().on_headers_complete()
        if self.cycle is not before:  # (uvicorn makes none for an upgrade it does not serve)
            HeadWithBody(self.transport, self.cycle)
        if self.draining or self.probation:
            self.cycle.keep_alive = False

    def shed(self) -> None:
        """Answer 503 OVERLOADED now, in the request's language (with CORS headers for an
        allowed ``Origin``); its body, if any, is read and dropped. The connection stays open
        unless it is on the reserve, shutdown has begun, or the client asked to close."""
        lang, origin = self.language_and_origin()
        keep = (not self.draining and not self.probation and self.parser.should_keep_alive()
                and self.parser.get_http_version() == "1.1")
        head = self.parser.get_method() == b"HEAD"
        extra = b"retry-after: %d\r\n" % RETRY_AFTER
        cors = self.cors_headers(origin)
        key = (503, lang, keep, head, cors)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._answers[key] = problem_bytes(
                503, lang, extra, close=not keep, body_too=not head, cors=cors,
                seconds=RETRY_AFTER)
            if len(self._answers) > 256:  # (origins vary: keep the table small)
                self._answers.clear()
        self.transport.write(answer)
        self.discarding = True
        self.close_after = not keep

    def on_body(self, body: bytes) -> None:
        if not self.discarding:
            super().on_body(body)

    def on_message_complete(self) -> None:
        self.in_body = self.begun = False
        self.body_deadline = None
        self.completed = True
        if not self.discarding:
            super().on_message_complete()
            return
        self.discarding = False
        if self.close_after:
            self.close()
            raise _Stop
        self.idle[self] = None
        self.timeout_keep_alive_task = self.loop.call_later(
            self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            self.linger()  # (an answer with Connection: close)
        elif self.cycle.response_complete:
            self.idle[self] = None  # (taken out at the headers: so it goes last, idle shortest)

    # --- deadlines ----------------------------------------------------------------------------

    def retime(self) -> None:
        """One timer, at the deadline of the current phase (set now if it began in this read);
        none between requests (uvicorn's keep-alive timer) or while the app answers."""
        at: float | None = None
        if self.in_body:
            if self.body_deadline is None:
                self.body_deadline = self.loop.time() + self.lim.body_timeout
            at = self.body_deadline
        elif self.begun or self.head_deadline is not None:
            if self.head_deadline is None:
                self.head_deadline = self.loop.time() + self.lim.header_timeout
            at = self.head_deadline
        if at == self.timer_at:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.loop.call_at(at, self.expired) if at is not None else None
        self.timer_at = at

    def cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = self.timer_at = None

    def expired(self) -> None:
        self.timer = self.timer_at = None
        if self.closing or self.transport.is_closing():
            return
        if self.in_body:
            self.body_timeout()
        elif self.draining and not self.begun:
            self.close()  # idle through the drain: nothing to say
        else:
            CONNECTIONS.count(CONNECTIONS.closed, "header_timeout")
            if self.begun:  # a part of a request came: say why it ends
                self.answer_and_close(408, "en", seconds=self.lim.header_timeout)
            else:
                self.close()

    def body_timeout(self) -> None:
        CONNECTIONS.count(CONNECTIONS.closed, "body_timeout")
        cycle = self.cycle
        if cycle is None or cycle.response_started or cycle.response_complete:
            self.close()  # answered already (or answering): nothing more to say
            return
        lang, origin = self.language_and_origin()
        cycle.scope.setdefault("extensions", {})[TIMED_OUT] = {"seconds": self.lim.body_timeout}
        cycle.disconnected = True  # the app's receive() gives http.disconnect; its sends are dropped
        cycle.message_event.set()
        # (a page's script reads this 408 only with the CORS headers the app would have sent)
        self.transport.write(problem_bytes(408, lang, cors=self.cors_headers(origin),
                                           seconds=self.lim.body_timeout))
        self.close()

    # --- shutdown -----------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Called by uvicorn once graceful shutdown begins: answers from now on close their
        connection; an idle connection may still send one request within DRAIN_SECONDS."""
        RefereeProtocol.draining = True
        if self.closing or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.keep_alive = False  # in progress: answered with Connection: close
            return
        if self.begun:  # a part of the next request came: its header deadline still holds
            return
        self._unset_keepalive_if_required()
        self.head_deadline = min(self.head_deadline or float("inf"),
                                 self.loop.time() + DRAIN_SECONDS)
        self.retime()
