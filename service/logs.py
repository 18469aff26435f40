"""Structured logs: one JSON object per line on stderr."""

from __future__ import annotations

import asyncio
import atexit
import logging
import sys
import threading
import time
from typing import Any

import orjson


class _Clock:
    """The ``ts`` of a log line: ``2026-12-02T06:21:24.598Z`` (UTC, milliseconds); the part up
    to the second is formatted once a second, the whole once a millisecond, not on every line.
    Each is kept as one tuple, so a thread never sees half of an update."""

    def __init__(self) -> None:
        self.second: tuple[int, str] = (-1, "")
        self.last: tuple[int, int, str] = (-1, -1, "")

    def ts(self, created: float) -> str:
        second = int(created)
        milli = int((created - second) * 1000)
        last = self.last
        if last[1] == milli and last[0] == second:
            return last[2]
        known = self.second
        if known[0] != second:
            known = self.second = (second, time.strftime("%Y-%m-%dT%H:%M:%S",
                                                          time.gmtime(second)))
        text = f"{known[1]}.{milli:03d}Z"
        self.last = (second, milli, text)
        return text


_CLOCK = _Clock()


def json_line(created: float, level: str, logger: str, msg: str,
              fields: dict[str, Any] | None = None, exc: str | None = None) -> str:
    """One log line (without its newline): ``{"ts", "level", "logger", "msg", ...fields}``,
    and ``exc`` (a traceback) when there is one."""
    out: dict[str, Any] = {"ts": _CLOCK.ts(created), "level": level, "logger": logger,
                           "msg": msg}
    if fields:
        out.update(fields)
    if exc:
        out["exc"] = exc
    return orjson.dumps(out, default=str).decode()


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", ...fields}``; ``extra={"fields": {...}}`` adds keys."""

    def format(self, record: logging.LogRecord) -> str:
        fields = getattr(record, "fields", None)
        return json_line(record.created, record.levelname.lower(), record.name,
                         record.getMessage(), fields if isinstance(fields, dict) else None,
                         self.formatException(record.exc_info) if record.exc_info else None)


class _Pending(threading.local):
    """Request lines written while this thread runs an event loop, not yet on the stream: they
    go out together, one write for all the requests the loop answered in one turn, instead of
    a write (a system call) for each."""

    def __init__(self) -> None:
        self.lines: list[str] = []


_PENDING = _Pending()


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """stderr, ``JsonFormatter``; the pending request lines of this thread are written before
    a record of its own, so that lines keep their order."""

    def emit(self, record: logging.LogRecord) -> None:
        if _PENDING.lines:
            self.write_pending()
        super().emit(record)

    def write_pending(self) -> None:
        """Write this thread's pending lines, if any, in one write."""
        lines = _PENDING.lines
        if not lines:
            return
        text = "".join(lines)
        lines.clear()
        try:
            with self.lock:  # type: ignore[union-attr]  # made by the handler's __init__
                self.stream.write(text)
                self.stream.flush()
        except Exception:  # noqa: BLE001  # a stream that fails: logging reports it its way
            self.handleError(logging.makeLogRecord({"msg": text.rstrip("\n")}))

    def write(self, line: str) -> None:
        """Write ``line`` (ending in a newline): with an event loop running in this thread, at
        the end of the loop's turn, together with the other lines of that turn; else now."""
        lines = _PENDING.lines
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            lines.append(line)
            self.write_pending()
            return
        lines.append(line)
        if len(lines) == 1:
            loop.call_soon(self.write_pending)


#: the handler ``setup`` installed (stderr, ``JsonFormatter``): ``info`` writes to it directly
_HANDLER: _Handler | None = None


def setup(level: str) -> None:
    """Send the ``canasta`` loggers (and uvicorn's) as JSON lines to stderr."""
    global _HANDLER
    handler = _Handler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("canasta", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    _HANDLER = handler


@atexit.register
def _write_pending() -> None:
    """Lines a loop left pending when it stopped (at exit, in the thread that exits)."""
    if _HANDLER is not None:
        _HANDLER.write_pending()


def _only_handler(logger: logging.Logger) -> logging.Handler | None:
    """The one handler a record of ``logger`` reaches, if it reaches one and no filter is on
    its way; else None."""
    at: logging.Logger | None = logger
    while at is not None:
        if at.filters:
            return None
        if at.handlers:
            handler = at.handlers[0]
            return handler if len(at.handlers) == 1 and not at.propagate and not handler.filters \
                else None
        if not at.propagate:
            return None
        at = at.parent
    return None


class Lines:
    """The ``info`` lines of one logger and message whose fields repeat from line to line but
    for the last (a request's method, path, operation, status and cache tag; its duration):
    the line ``logger.info(msg, extra={"fields": {**dict(zip(names, values)), last: value}})``
    writes through ``JsonFormatter``, its repeating part made once and kept."""

    #: the kept parts at most (hostile paths each make one; those past it are made each time)
    KEPT = 1024

    def __init__(self, logger: logging.Logger, msg: str, names: tuple[str, ...], last: str):
        self.logger = logger
        self.msg = msg
        self.names = names
        self.last = last
        self.tail = orjson.dumps(last).decode()
        self.middles: dict[tuple[Any, ...], str] = {}

    def info(self, values: tuple[Any, ...], value: Any) -> None:
        """Log the line of ``values`` (for ``names``) and ``value`` (for ``last``). While the
        logger's one handler is the one ``setup`` installed (no filters, as the service runs),
        the line is written to it directly: a ``LogRecord`` and the logging module's path cost
        about as much as the rest of a small request; and while an event loop runs, the lines
        of one turn of the loop are written together (``_Handler.write``). A logger configured
        otherwise (an embedding application's handlers) gets the record."""
        handler = _HANDLER
        if (handler is not None and _only_handler(self.logger) is handler
                and handler.level <= logging.INFO):
            try:
                line = self.text(time.time(), values, value)
            except Exception:  # noqa: BLE001  # a value orjson refuses: logging reports it its way
                pass
            else:
                handler.write(line)
                return
        self.logger.info(self.msg, extra={"fields": self.fields(values, value)})

    def fields(self, values: tuple[Any, ...], value: Any) -> dict[str, Any]:
        fields = dict(zip(self.names, values, strict=True))
        fields[self.last] = value
        return fields

    def text(self, created: float, values: tuple[Any, ...], value: Any) -> str:
        """``json_line(created, "info", ...)`` of these fields, with its newline."""
        middle = self.middles.get(values)
        if middle is None:
            head = {"level": "info", "logger": self.logger.name, "msg": self.msg}
            head.update(zip(self.names, values, strict=True))
            middle = orjson.dumps(head, default=str).decode()[1:-1]
            if len(self.middles) < self.KEPT:
                self.middles[values] = middle
        number = orjson.dumps(value, default=str).decode()
        return f'{{"ts":"{_CLOCK.ts(created)}",{middle},{self.tail}:{number}}}\n'
