"""Structured logs: one JSON object per line on stderr."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson


class _Clock:
    """The ``ts`` of a log line: ``2026-12-02T06:21:24.598Z`` (UTC, milliseconds); the part up
    to the second is formatted once a second, not on every line."""

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def ts(self, created: float) -> str:
        second = int(created)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self.prefix}.{int((created - second) * 1000):03d}Z"


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


#: the handler ``setup`` installed (stderr, ``JsonFormatter``): ``info`` writes to it directly
_HANDLER: logging.StreamHandler[Any] | None = None


def setup(level: str) -> None:
    """Send the ``canasta`` loggers (and uvicorn's) as JSON lines to stderr."""
    global _HANDLER
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("canasta", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level.upper())
        logger.propagate = False
    _HANDLER = handler


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


def info(logger: logging.Logger, msg: str, fields: dict[str, Any]) -> None:
    """``logger.info(msg, extra={"fields": fields})`` for a logger enabled for ``info``, the
    same line. While the logger's one handler is the one ``setup`` installed (no filters, as
    the service runs), the line is written to it directly: a ``LogRecord`` and the logging
    module's path cost about as much as the rest of a small request (one line per request).
    A logger configured otherwise (an embedding application's handlers) gets the record."""
    handler = _HANDLER
    if handler is not None and _only_handler(logger) is handler and handler.level <= logging.INFO:
        try:
            line = json_line(time.time(), "info", logger.name, msg, fields)
            stream = handler.stream
            with handler.lock:  # type: ignore[union-attr]  # made by the handler's __init__
                stream.write(line + "\n")
                stream.flush()
            return
        except Exception:  # noqa: BLE001  # a stream that fails: logging reports it its way
            pass
    logger.info(msg, extra={"fields": fields})
