"""The request log's own writer (service/logs.py, ``info``): the same JSON line the logging
module writes through ``JsonFormatter``, straight to the handler ``setup`` installed, and the
logging module's way whenever the logger is configured otherwise."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from canasta_referee.service import logs

FIELDS = {"method": "POST", "path": "/v1/check", "op": "check", "status": 200, "cache": "miss",
          "ms": 0.125}


@pytest.fixture
def stream(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """``logs.setup("info")`` writing to a string; the loggers as they were afterwards."""
    names = ("canasta", "uvicorn", "uvicorn.error")
    saved = [(logging.getLogger(n), logging.getLogger(n).handlers[:], logging.getLogger(n).level,
              logging.getLogger(n).propagate) for n in names]
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    logs.setup("info")
    yield out
    for logger, handlers, level, propagate in saved:
        logger.handlers[:], logger.level, logger.propagate = handlers, level, propagate


def lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_request_line_is_the_line_the_logging_module_writes(stream: io.StringIO) -> None:
    log = logging.getLogger("canasta.http")
    logs.info(log, "request", FIELDS)
    log.info("request", extra={"fields": FIELDS})
    direct, logged = lines(stream)
    assert list(direct) == ["ts", "level", "logger", "msg", *FIELDS]
    assert {**direct, "ts": None} == {**logged, "ts": None}
    assert direct["level"] == "info" and direct["logger"] == "canasta.http"
    assert direct["msg"] == "request" and direct["ms"] == 0.125


def test_the_timestamp_is_utc_to_the_millisecond() -> None:
    clock = logs._Clock()
    for second in (0, 1_764_656_484, 1_764_656_485, 1_764_656_484, 2_000_000_000):
        for ms in (0, 7, 598, 999):
            t = second + ms / 1000 + 0.0004  # inside the millisecond: no float rounding edge
            want = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            assert clock.ts(t) == want, (t, clock.ts(t), want)


def test_a_logger_configured_otherwise_gets_the_record(stream: io.StringIO) -> None:
    log = logging.getLogger("canasta.http")
    seen: list[logging.LogRecord] = []
    extra = logging.Handler()
    extra.emit = seen.append  # type: ignore[method-assign]
    log.addHandler(extra)  # a second handler on the way: the record goes through logging
    try:
        logs.info(log, "request", FIELDS)
    finally:
        log.removeHandler(extra)
    assert [(r.getMessage(), getattr(r, "fields", None)) for r in seen] == [("request", FIELDS)]
    assert [line["msg"] for line in lines(stream)] == ["request"]  # and on to setup's handler


def test_a_filter_is_obeyed(stream: io.StringIO) -> None:
    log = logging.getLogger("canasta.http")
    drop = logging.Filter("somewhere.else")  # lets no record of canasta.http through
    for where in (log, logs._HANDLER):
        assert where is not None
        where.addFilter(drop)
        try:
            logs.info(log, "request", FIELDS)
        finally:
            where.removeFilter(drop)
    assert lines(stream) == []
    logs.info(log, "request", FIELDS)
    assert len(lines(stream)) == 1


def test_a_failing_stream_is_reported_the_logging_way(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    handler = logs._HANDLER
    assert handler is not None
    broken = io.StringIO()
    broken.close()  # writing raises ValueError
    monkeypatch.setattr(handler, "stream", broken)
    errors = io.StringIO()
    monkeypatch.setattr(sys, "stderr", errors)  # where logging's handleError reports
    logs.info(logging.getLogger("canasta.http"), "request", FIELDS)  # does not raise
    assert "Logging error" in errors.getvalue()
