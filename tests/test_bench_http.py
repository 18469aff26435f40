"""bench/http.py's goal lines: each goal's median ratio, its rounds' spread, and the p99 line's
reading of closed-loop latency (issue 19). Figures are made up here; the bench measures them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.http import _median_row, app_times, goal_lines


def _run(rps: float, p99: float, base_rps: float, base_p99: float) -> dict[str, Any]:
    return {"rps": rps, "p50_ms": p99 / 2, "p99_ms": p99, "requests": 100, "non_2xx": 0,
            "cpu_us": 1e6 / rps, "ratio": rps / base_rps, "p99_ratio": p99 / base_p99}


def _row(op: str, case: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"op": op, "case": case, "bytes": 1, "items": 1, **_median_row(runs)}


def test_goal_lines_show_the_median_and_the_rounds_spread() -> None:
    runs = [_run(3500, 9.0, 10_000, 4.0), _run(4100, 10.0, 10_000, 4.0),
            _run(4500, 11.0, 10_000, 5.0)]
    lines = goal_lines({"none": [_row("apply", "miss", runs)]})
    assert lines[0] == ("- apply, miss (none): 0.41 of the bare echo (rounds 0.35 to 0.45), "
                        "goal 0.50: NOT met")
    # p99 ratios of the rounds: 2.25, 2.5, 2.2 -> median 2.25; 1 / median rps ratio 0.41
    assert lines[1] == ("- p99 latency, REST, worst (apply, miss, none): 2.25 times the bare "
                        "echo's (rounds 2.20 to 2.50) (1 / its throughput ratio: 2.44), goal "
                        "at most 2: NOT met")


def test_goal_lines_of_one_round_have_no_spread() -> None:
    row = _row("validate", "miss", [_run(6000, 7.0, 10_000, 4.0)])
    lines = goal_lines({"none": [row]})
    assert lines[0] == "- validate, miss (none): 0.60 of the bare echo, goal 0.50: met"
    assert lines[1].endswith("1.75 times the bare echo's (1 / its throughput ratio: 1.67), "
                             "goal at most 2: met")


def test_paced_goal_lines_judge_the_p99_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``--rate`` every route serves the rate offered: no throughput goal is judged, and
    the p99 line says at what load it was taken."""
    from bench import http

    monkeypatch.setattr(http, "PACED", {"rate": 4000.0, "pause_ms": 8.0})
    runs = [_run(3990, 1.9, 4000, 1.5)]
    rest = _row("legal-actions", "miss", runs)
    gql = _row("graphql legal-actions actionsJson", "miss", runs)
    assert goal_lines({"none": [rest, gql]}) == [
        "- p99 latency, REST, worst (legal-actions, miss, none): 1.27 times the bare echo's (at "
        "4,000 requests/s offered), goal at most 2: met",
        "- p99 latency, GraphQL, worst (graphql legal-actions actionsJson, miss, none): 1.27 "
        "times the bare echo's (at 4,000 requests/s offered), goal at most 2: met"]


def test_a_paced_wrk_offers_the_rate_asked() -> None:
    """``PACED``: wrk's connections pause between requests, so a server that could answer
    thousands a second gets about the rate offered."""
    import shutil

    from bench import http

    assert shutil.which("wrk"), "wrk (.ci/run installs it)"
    bare = http.BareEcho().start()
    try:
        fast = http.wrk(bare.url + "/echo", b"{}", 1, False, 2)
        http.PACED.update(rate=100.0, pause_ms=2 * 1000 / 100)
        try:
            paced = http.wrk(bare.url + "/echo", b"{}", 2, False, 2)
        finally:
            http.PACED.clear()
        assert 100 <= paced["requests"] <= 300 < fast["requests"]
    finally:
        bare.stop()


def test_pin_puts_the_servers_and_wrk_on_different_cpus() -> None:
    """``--pin``: a server process runs on one CPU, wrk (started through ``_client_cpus``) on
    the others; on a machine with one CPU the option is refused."""
    import os
    import subprocess
    import sys

    from bench import http

    cpus = sorted(os.sched_getaffinity(0))
    try:
        assert http.pin_cpus() is (len(cpus) >= 2)
        if len(cpus) < 2:
            return
        assert {"server": {cpus[0]}, "client": set(cpus[1:])} == http.PIN
        show = [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"]
        client = subprocess.run(show, capture_output=True, text=True, check=True,
                                preexec_fn=http._client_cpus).stdout
        assert client.strip() == str(cpus[1:])
        server = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                                  stdin=subprocess.PIPE)
        try:
            http.pinned(server.pid)
            assert os.sched_getaffinity(server.pid) == {cpus[0]}
        finally:
            server.communicate(b"")
    finally:
        http.PIN.clear()


def test_app_times_are_the_request_lines_median_and_p99() -> None:
    lines = [f'{{"level":"info","msg":"request","op":"check","status":200,"ms":{ms}}}'
             for ms in range(1, 201)]  # 1 .. 200 ms
    log = "\n".join(['{"level":"info","msg":"starting","ms":999}', *lines]) + "\n"
    assert app_times(log) == (101.0, 199.0)
    assert app_times(log + '{"level":"info","msg":"request","ms":1') == (101.0, 199.0)
    assert app_times('{"level":"info","msg":"starting"}\n') is None


def test_a_batch_hit_holds_different_operations_the_same_in_every_request() -> None:
    """The hit body of a batch: each operation a state of its own (numbered markers), so a hit
    is 64 different answers found, not one answer 64 times; a single request's is score 0."""
    from bench import http

    batch = http.marked(http.bodies(4)["batch legal-actions four players"][0])
    hit = http.numbered(batch)
    assert b"@N@" not in hit and hit == http.numbered(batch)
    scores = [op["body"]["state"]["scores"] for op in json.loads(hit)["operations"]]
    assert [s[0] for s in scores] == [0, 1, 2, 3]
    single = http.marked(http.bodies()["legal-actions"][0])
    assert http.numbered(single) == single.replace(b"@N@", b"0")


def test_a_varied_hit_sends_different_requests_each_seen_before() -> None:
    """A varied hit (a batch against its single operation, issue 19's bench): bodies whose
    states all differ from each other's and from the other cases' (negative scores); wrk
    cycles through them all (on a real server with the in-process cache: every state is a
    miss once, then hits), and ``seen`` sends the same ones (no miss more)."""
    import re
    import shutil

    import httpx

    from bench import http
    from tests.servers import Service

    batch = http.marked(http.bodies(4)["batch legal-actions four players"][0])
    several = http.varied(batch, 3)
    scores = [op["body"]["state"]["scores"][0]
              for body in several for op in json.loads(body)["operations"]]
    assert sorted(scores) == list(range(-12, 0))
    assert shutil.which("wrk"), "wrk (.ci/run installs it)"

    def tally(metrics: str, name: str) -> float:
        found = re.search(rf'^canasta_cache_{name}_total\{{op="legal-actions"[^}}]*\}} (\S+)$',
                          metrics, re.M)
        assert found, metrics
        return float(found.group(1))

    svc = Service({"LOG_LEVEL": "warning"}).start()
    try:
        r = http.loaded(svc, "/v1/batch", several, 1, False, 2)
        after_wrk = httpx.get(svc.url + "/metrics").text
        http.seen(svc.url + "/v1/batch", several)
        after_seen = httpx.get(svc.url + "/metrics").text
    finally:
        svc.stop()
    assert r["requests"] > 10 and r["non_2xx"] == 0
    assert tally(after_wrk, "misses") == 12  # the three bodies' four states, once each
    assert tally(after_wrk, "hits") >= 4 * r["requests"] - 12
    assert tally(after_seen, "misses") == 12
    assert tally(after_seen, "hits") == tally(after_wrk, "hits") + 12


def test_a_measurement_of_the_service_shows_the_apps_own_time() -> None:
    """On a real server (LOG_LEVEL=info) under wrk: the app's own p50 and p99 come from the
    lines logged during that measurement, and no request spends longer in the app than the
    client waited for it; the bare echo has none."""
    import shutil

    from bench import http
    from tests.servers import Service

    assert shutil.which("wrk"), "wrk (.ci/run installs it)"
    body = http.marked({"state": http.play_state({}, actions=(10, 20))})
    svc = Service({"LOG_LEVEL": "info", "CACHE_SIZE": "0"}).start()
    bare = http.BareEcho().start()
    try:
        r = http.loaded(svc, "/v1/legal-actions", body, 1, True, 2)
        assert r["requests"] > 10 and r["non_2xx"] == 0
        assert 0 < r["app_p50_ms"] <= r["app_p99_ms"] <= r["p99_ms"]
        assert r["app_p50_ms"] <= r["p50_ms"]
        echo = http.loaded(bare, "/echo", body.replace(b"@N@", b"0"), 1, False, 2)
        assert echo["app_p50_ms"] is None and echo["app_p99_ms"] is None
        echo["ratio"] = echo["p99_ratio"] = 1.0
        assert _median_row([echo, echo])["app_p99_ms"] is None  # printed as "–"
    finally:
        bare.stop()
        svc.stop()


def test_a_measurement_waits_for_the_requests_wrk_left_behind() -> None:
    """``settled``: a request still in flight when wrk stops (here a body that never comes,
    held until BODY_TIMEOUT) is waited for, so its CPU and bulk slot are not the next
    measurement's; one that never ends is reported, not waited for forever."""
    import socket
    import time

    import pytest

    from bench import http
    from tests.servers import Service

    svc = Service({"BODY_TIMEOUT": "1.5", "LOG_LEVEL": "warning"}).start()
    try:
        with socket.create_connection(("127.0.0.1", svc.port)) as held:
            held.sendall(b"POST /v1/legal-actions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 100\r\n\r\n{")
            time.sleep(0.3)
            with pytest.raises(RuntimeError, match="still in flight"):
                http.settled(svc, timeout=0.2)
            start = time.monotonic()
            http.settled(svc)
            waited = time.monotonic() - start
        assert 0.7 < waited < 10  # until the body timeout ended the request
        http.settled(svc, timeout=0.2)  # nothing in flight now: no wait
    finally:
        svc.stop()
