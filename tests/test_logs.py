"""The request log's own writer (service/logs.py, ``Lines``): the same JSON line the logging
module writes through ``JsonFormatter``, straight to the handler ``setup`` installed, and the
logging module's way whenever the logger is configured otherwise."""

from __future__ import annotations

import asyncio
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
NAMES = ("method", "path", "op", "status", "cache")
VALUES = tuple(FIELDS[name] for name in NAMES)


def request_lines() -> logs.Lines:
    return logs.Lines(logging.getLogger("canasta.http"), "request", NAMES, "ms")


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


def ours_alone(monkeypatch: pytest.MonkeyPatch) -> logs._Handler:
    """The handler ``setup`` installed, alone on the ``canasta`` logger again for this test:
    pytest's log capture adds its handlers to every logger that does not propagate, and with
    them there the request lines take the logging module's way."""
    handler = logs._HANDLER
    assert handler is not None
    monkeypatch.setattr(logging.getLogger("canasta"), "handlers", [handler])
    assert logs._only_handler(logging.getLogger("canasta.http")) is handler
    return handler


def lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_request_line_is_the_line_the_logging_module_writes(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    log = logging.getLogger("canasta.http")
    ours_alone(monkeypatch)
    request_lines().info(VALUES, FIELDS["ms"])
    log.info("request", extra={"fields": FIELDS})
    direct, logged = lines(stream)
    assert list(direct) == ["ts", "level", "logger", "msg", *FIELDS]
    assert {**direct, "ts": None} == {**logged, "ts": None}
    assert direct["level"] == "info" and direct["logger"] == "canasta.http"
    assert direct["msg"] == "request" and direct["ms"] == 0.125


def test_the_timestamp_is_utc_to_the_millisecond() -> None:
    clock = logs._Clock()
    for second in (0, 1_764_656_484, 1_764_656_485, 1_764_656_484, 2_000_000_000):
        for ms in (0, 7, 598, 598, 999, 7):
            for within in (0.0004, 0.0009, 0.0001):  # inside the millisecond: no rounding edge
                t = second + ms / 1000 + within
                want = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                got = clock.ts(t)
                assert got == want, (t, got, want)
    for second in (1_764_656_484, 1_764_656_485, 1_764_656_484):  # the same millisecond
        assert clock.ts(second + 0.5004) == datetime.fromtimestamp(second, UTC).strftime(
            "%Y-%m-%dT%H:%M:%S") + ".500Z"


@pytest.mark.parametrize("values, value", [
    (VALUES, 0.125), (VALUES, 0.0), (VALUES, 12345.678), (VALUES, 1e-3), (VALUES, 2.5e17),
    (("GET", "/v1/variants", "variants", 404, None), 3.0),
    (("POST", "/v1/\u00e9\"quoted\"\n", "check", 500, "bypass"), 0.001),
])
def test_a_line_is_json_line_s_text(values: tuple[object, ...], value: float) -> None:
    """The kept part and the number put together give ``json_line``'s very text, first
    and again (kept)."""
    made = request_lines()
    for created in (1_764_656_484.5004, 1_764_656_484.5004, 1_764_656_485.0001):
        want = logs.json_line(created, "info", "canasta.http", "request",
                              {**dict(zip(NAMES, values, strict=True)), "ms": value})
        assert made.text(created, values, value) == want + "\n"


def test_no_more_parts_are_kept_than_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logs.Lines, "KEPT", 3)
    made = request_lines()
    for i in range(10):  # a path each, as a client asking for random paths sends
        values = ("GET", f"/nowhere/{i}", "other", 404, None)
        assert json.loads(made.text(0.0, values, 1.0))["path"] == f"/nowhere/{i}"
    assert len(made.middles) == 3


def test_a_logger_configured_otherwise_gets_the_record(stream: io.StringIO) -> None:
    log = logging.getLogger("canasta.http")
    seen: list[logging.LogRecord] = []
    extra = logging.Handler()
    extra.emit = seen.append  # type: ignore[method-assign]
    log.addHandler(extra)  # a second handler on the way: the record goes through logging
    try:
        request_lines().info(VALUES, FIELDS["ms"])
    finally:
        log.removeHandler(extra)
    assert [(r.getMessage(), getattr(r, "fields", None)) for r in seen] == [("request", FIELDS)]
    assert [line["msg"] for line in lines(stream)] == ["request"]  # and on to setup's handler


def test_a_filter_is_obeyed(stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    ours_alone(monkeypatch)
    log = logging.getLogger("canasta.http")
    drop = logging.Filter("somewhere.else")  # lets no record of canasta.http through
    for where in (log, logs._HANDLER):
        assert where is not None
        where.addFilter(drop)
        try:
            request_lines().info(VALUES, FIELDS["ms"])
        finally:
            where.removeFilter(drop)
    assert lines(stream) == []
    request_lines().info(VALUES, FIELDS["ms"])
    assert len(lines(stream)) == 1


def test_a_failing_stream_is_reported_the_logging_way(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    handler = ours_alone(monkeypatch)
    broken = io.StringIO()
    broken.close()  # writing raises ValueError
    monkeypatch.setattr(handler, "stream", broken)
    errors = io.StringIO()
    monkeypatch.setattr(sys, "stderr", errors)  # where logging's handleError reports
    request_lines().info(VALUES, FIELDS["ms"])  # does not raise
    assert errors.getvalue().count("Logging error") == 1

    async def in_a_loop() -> None:
        request_lines().info(VALUES, FIELDS["ms"])
        await asyncio.sleep(0)  # the turn's write fails in the loop's callback: reported too

    asyncio.run(in_a_loop())
    assert errors.getvalue().count("Logging error") == 2


class CountingStream(io.StringIO):
    """A stream that counts its writes (a write to stderr is a system call)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_a_loop_s_turn_writes_its_request_lines_at_once(stream: io.StringIO,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """While an event loop runs, the lines of one turn go out in one write, at the end of the
    turn, in order; outside a loop each at once."""
    handler = ours_alone(monkeypatch)
    counted = CountingStream()
    monkeypatch.setattr(handler, "stream", counted)
    made = request_lines()

    async def requests() -> list[tuple[int, int]]:
        seen = []
        for turn in range(3):
            for i in range(5):
                made.info(VALUES, turn * 10 + i)
            seen.append((counted.writes, len(counted.getvalue().splitlines())))
            await asyncio.sleep(0)  # the loop turns
        return seen

    assert asyncio.run(requests()) == [(0, 0), (1, 5), (2, 10)]
    assert counted.writes == 3
    assert [line["ms"] for line in lines(counted)] == [t * 10 + i for t in range(3)
                                                       for i in range(5)]
    made.info(VALUES, 99)  # no loop: written at once
    assert counted.writes == 4 and lines(counted)[-1]["ms"] == 99


def test_a_record_logged_meanwhile_comes_after_the_pending_lines(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    ours_alone(monkeypatch)
    made = request_lines()

    async def request_then_error() -> None:
        made.info(VALUES, 1)
        made.info(VALUES, 2)
        logging.getLogger("canasta.service").error("unexpected error")  # the logging module's way
        made.info(VALUES, 3)

    asyncio.run(request_then_error())
    assert [line.get("ms", line["msg"]) for line in lines(stream)] == [1, 2, "unexpected error", 3]


def test_lines_pending_when_a_loop_stops_are_written_at_exit(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line whose loop stopped before its turn ended is written when the process exits (or
    before the next record)."""
    ours_alone(monkeypatch)
    loop = asyncio.new_event_loop()

    async def one() -> None:
        request_lines().info(VALUES, 7)
        loop.stop()  # the turn ends, the loop stops; the scheduled write never runs

    try:
        loop.create_task(one())
        loop.run_forever()
    finally:
        loop.close()
    written = stream.getvalue()
    logs._write_pending()  # what atexit calls
    assert written == "" and [line["ms"] for line in lines(stream)] == [7]


def test_a_line_orjson_refuses_does_not_raise(stream: io.StringIO,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A value the line cannot hold (a lone surrogate in a path) is reported the logging way;
    the request it belongs to goes on."""
    ours_alone(monkeypatch)
    errors = io.StringIO()
    monkeypatch.setattr(sys, "stderr", errors)  # where logging's handleError reports
    request_lines().info(("GET", "/\udcff", "other", 404, None), 1.0)
    assert "Logging error" in errors.getvalue() and stream.getvalue() == ""
    request_lines().info(VALUES, 2.0)
    assert [line["ms"] for line in lines(stream)] == [2.0]


def test_with_several_workers_the_supervisor_logs_json_too() -> None:
    """docs/operations.md, Logs (one JSON object per line): with ``--workers 2`` uvicorn's
    supervisor, which runs no app, logs a worker that died and was restarted; it logged
    nothing (its records found no handler)."""
    import os
    import re
    import signal

    from tests.servers import Service, _wait

    def started() -> list[str]:
        return re.findall(r"Started server process \[(\d+)\]", service.output())

    service = Service(env={"LOG_LEVEL": "info"}, workers=2).start()
    try:
        _wait(lambda: len(started()) == 2, "two workers", timeout=60)
        pids = started()
        os.kill(int(pids[0]), signal.SIGKILL)
        _wait(lambda: f"Child process [{pids[0]}] died" in service.output(),
              "the supervisor's line", timeout=60)
    finally:
        service.stop()
    died = [line for line in service.output().splitlines() if f"[{pids[0]}] died" in line]
    assert died, service.output()[-2000:]
    assert json.loads(died[0])["logger"] == "uvicorn.error"
