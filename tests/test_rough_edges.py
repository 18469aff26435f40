"""Rough edges an integrator meets (issue 16): a bad setting is one line and exit status 2;
the command line ends quietly on a closed pipe; a seed is an integer only; a score says
whether the deal is over; ``X-Cache: bypass`` while caching is off. The command line runs as
a real subprocess, the service as the real ASGI app (Starlette's TestClient)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from canasta_referee.schema.models import EXAMPLE_STATE, DealRequest, ScoreResponse
from canasta_referee.service.app import create_app
from canasta_referee.service.cli import EXIT_BROKEN_PIPE
from canasta_referee.service.openapi import build
from canasta_referee.service.settings import SettingError, Settings
from tests.servers import ROOT, free_port


def cli(*args: str, env: dict[str, str] | None = None, stdin: bytes = b"",
        stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "canasta_referee.service.cli", *args], input=stdin,
                          stdout=stdout, stderr=subprocess.PIPE, timeout=60, check=False,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


# --- (a) a bad setting: one line naming the variable, exit 2 ------------------------------------


@pytest.mark.parametrize(("name", "value", "words"), [
    ("PORT", "abc", "is not an integer"),
    ("PORT", "70000", "out of range"),
    ("WORKERS", "x", "is not an integer"),
    ("WORKERS", "0", "out of range"),
    ("CACHE_SIZE", "-1", "less than 0"),
    ("CACHE_OPS", "legal-actions,deal", "not cacheable: deal"),
    ("REDIS_OPS", "shuffle", "not cacheable: shuffle"),
    ("CACHE_TTL", "soon", "is not a number"),
    ("GRAPHQL_IDE", "maybe", "is not 1/0"),
    ("LOG_LEVEL", "loud", "is not debug, info"),
    ("CORS_ORIGINS", "https://app.example/", "is not an origin"),
    # a REDIS_URL the client cannot connect by (it started, then /readyz and every cached
    # request answered 500; "redis://" alone connected to localhost); the password stays out
    ("REDIS_URL", "redis://:secret@127.0.0.1:abc/0", "Port could not be cast to integer"),
    ("REDIS_URL", "redis://:secret@127.0.0.1:99999/0", "Port out of range"),
    ("REDIS_URL", "redis://", "names no host"),
    ("REDIS_URL", "rediss://:secret@:6380/0", "names no host"),
    ("REDIS_URL", "redis://127.0.0.1:6379/zero", "database is not a number"),
    ("REDIS_URL", "unix://", "names no socket"),
    ("REDIS_URL", "unix:///", "names no socket"),
    ("REDIS_URL", "redis://:secret@127.0.0.1:6379/0?db=x", "Invalid value for 'db'"),
    ("REDIS_URL", "redis://:secret@127.0.0.1/0?socket_timeout=soon", "socket_timeout"),
    ("REDIS_URL", "redis://:secret@[::1", "Invalid IPv6 URL"),
    ("REDIS_URL", "redis://127.0.0.1:6379/\u00b2", "database is not a number"),
    ("REDIS_URL", "redis+cluster://127.0.0.1:7000/0?db=1", "database 0 only"),
])
def test_a_bad_setting_is_one_line_and_exit_status_2(name: str, value: str, words: str) -> None:
    port = str(free_port())  # should a setting slip through, the server would start here
    proc = cli("serve", "--port", port, env={name: value})
    lines = proc.stderr.decode().splitlines()
    assert proc.returncode == 2, proc.stderr.decode()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert lines[0].startswith(f"canasta-referee serve: {name}: ") and words in lines[0], lines
    assert proc.stdout == b"" and "secret" not in lines[0]


@pytest.mark.parametrize(("flag", "value", "bounds"), [
    ("--port", "70000", "0..65535"), ("--port", "-1", "0..65535"),
    ("--workers", "0", "1..1024"), ("--workers", "5000", "1..1024")])
def test_serve_flags_have_their_variables_bounds(flag: str, value: str, bounds: str) -> None:
    """``serve --port`` and ``--workers`` are bounded as ``PORT`` and ``WORKERS`` are: a port
    past 65535 listened on another port (70000 - 65536), 5,000 workers were spawned."""
    proc = cli("serve", flag, value)
    assert proc.returncode == 2 and proc.stdout == b""
    assert f"{flag}: {value} is out of range ({bounds})" in proc.stderr.decode()


def test_setting_errors_name_their_variable_in_process_too() -> None:
    for env, name in (({"MAX_ACTIONS": "500"}, "MAX_ACTIONS"), ({"PORT": " 8o80"}, "PORT"),
                      ({"REDIS_URL": "http://r"}, "REDIS_URL"),
                      ({"MAX_BODY_BYTES": "10"}, "MAX_BODY_BYTES"),
                      ({"REDIS_TIMEOUT": "0"}, "REDIS_TIMEOUT"),
                      ({"CACHE_TTL": "inf"}, "CACHE_TTL")):
        with pytest.raises(SettingError, match=rf"^{name}: "):
            Settings.from_env(env)
    # good values still read as before
    s = Settings.from_env({"PORT": " 9000 ", "GRAPHQL_IDE": "off", "BENCH_ECHO": "TRUE"})
    assert (s.port, s.graphql_ide, s.bench_echo) == (9000, False, True)
    # an empty list of operations is none of them (it was the default: REDIS_OPS= beside a
    # REDIS_URL still sent legal-actions to Redis); other empty variables are unset
    s = Settings.from_env({"CACHE_OPS": "", "REDIS_OPS": "", "PORT": "", "CACHE_SIZE": ""})
    assert (s.cache_ops, s.redis_ops) == (frozenset(), frozenset())
    assert (s.port, s.cache_size) == (Settings().port, Settings().cache_size)
    for url in ("redis://redis:6379/0", "rediss://:pw@cache.example:6380", "redis://r",
                "unix:///run/redis.sock", "redis+cluster://node:7000", "redis://[::1]:6379/2"):
        assert Settings.from_env({"REDIS_URL": url}).redis_url == url


# --- (b) a closed pipe ends the command line quietly --------------------------------------------


def _closed_pipe() -> int:
    """The write end of a pipe whose reader is already gone."""
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("args", [("variants",), ("variant", "classic", "--pretty")])
def test_a_closed_pipe_ends_quietly(args: tuple[str, ...]) -> None:
    write = _closed_pipe()
    try:
        proc = cli(*args, stdout=write)
    finally:
        os.close(write)
    assert proc.returncode == EXIT_BROKEN_PIPE == 141, proc.stderr.decode()
    assert proc.stderr == b""  # no BrokenPipeError traceback, no "Exception ignored"


def test_a_closed_pipe_after_reading_the_request() -> None:
    write = _closed_pipe()
    try:
        proc = cli("legal-actions", "--lang", "de", stdout=write,
                   stdin=json.dumps({"state": EXAMPLE_STATE}).encode())
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (EXIT_BROKEN_PIPE, b"")


def test_head_in_a_shell_pipeline_sees_no_traceback() -> None:
    proc = subprocess.run(
        f"set -o pipefail; {sys.executable} -m canasta_referee.service.cli variant classic --pretty"
        " | head -c 10",
        shell=True, executable="/bin/bash", capture_output=True, timeout=60, check=False,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout == b'{\n  "id": ' and proc.stderr == b""
    assert proc.returncode in (0, EXIT_BROKEN_PIPE)  # 141 when head left before the write


def test_an_open_pipe_still_gets_the_whole_answer() -> None:
    proc = cli("variants")
    assert proc.returncode == 0 and json.loads(proc.stdout)["variants"]


# --- (c) a seed is an integer -------------------------------------------------------------------


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(log_level="warning")),
                    raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("seed", ["7", "", "seven", True, 1.5, 2**63, -(2**63) - 1, None, [7]])
def test_a_seed_that_is_not_a_64_bit_integer_is_malformed(http: TestClient, seed: Any) -> None:
    r = http.post("/v1/deal", json={"seed": seed})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == "MALFORMED_REQUEST"
    assert [p["path"] for p in body["problems"]] == ["/seed"]


def test_integer_seeds_deal_as_before(http: TestClient) -> None:
    seven = http.post("/v1/deal", json={"seed": 7}).json()["state"]
    assert http.post("/v1/deal", json={"seed": 7.0}).json()["state"] == seven
    assert http.post("/v1/deal", json={"seed": 8}).json()["state"] != seven
    for seed in (2**63 - 1, -(2**63), 0):
        assert http.post("/v1/deal", json={"seed": seed}).status_code == 200


def test_the_documents_say_a_seed_is_an_integer() -> None:
    seed = build()["components"]["schemas"]["DealRequest"]["properties"]["seed"]
    assert seed["type"] == "integer" and "anyOf" not in seed
    assert (seed["minimum"], seed["maximum"]) == (-(2**63), 2**63 - 1)
    assert DealRequest.model_json_schema()["properties"]["seed"]["type"] == "integer"
    from canasta_referee.service.graphql import sdl

    assert "seed: Int! = 0" in sdl()


# --- (d) a score says whether the deal is over --------------------------------------------------


def _over(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with seat 0 gone out: its hand melded away, the deal over."""
    done = copy.deepcopy(state)
    hand = done["hands"][0]
    done["discard"] = [*done["discard"], *hand]  # the cards stay in play (count checks)
    done["hands"][0] = []
    done["turn"] = {"seat": 0, "phase": "over", "went_out": 0}
    return done


def test_a_score_says_whether_it_is_final(http: TestClient) -> None:
    dealt = http.post("/v1/deal", json={"seed": 3}).json()["state"]
    provisional = http.post("/v1/score", json={"state": dealt})
    assert provisional.status_code == 200 and provisional.json()["final"] is False
    over = _over(dealt)
    assert http.post("/v1/validate", json={"state": over}).json()["valid"], (
        http.post("/v1/validate", json={"state": over}).json())
    final = http.post("/v1/score", json={"state": over})
    assert final.status_code == 200 and final.json()["final"] is True, final.text
    assert list(final.json())[0] == "final"
    ScoreResponse.model_validate(final.json())
    # GraphQL says the same
    query = "query($s: JSON!) { score(state: $s) { ... on Score { final } } }"
    for state, expected in ((dealt, False), (over, True)):
        d = http.post("/graphql", json={"query": query, "variables": {"s": state}}).json()
        assert d["data"]["score"]["final"] is expected, d


def test_the_documents_explain_final() -> None:
    schema = build()["components"]["schemas"]["ScoreResponse"]
    assert "final" in schema["required"] and schema["properties"]["final"]["type"] == "boolean"
    assert "provisional" in schema["properties"]["final"]["description"]
    assert "provisional" in schema["description"]


# --- (e) X-Cache: bypass while caching is off ---------------------------------------------------


@pytest.mark.parametrize("settings", [{"cache_size": 0}, {"cache_ops": frozenset({"check"})},
                                      {"cache_ops": frozenset()}])
def test_x_cache_bypass_while_caching_is_off(settings: dict[str, Any]) -> None:
    body = {"state": EXAMPLE_STATE}
    with TestClient(create_app(Settings(log_level="warning", **settings)),
                    raise_server_exceptions=False) as c:
        for path in ("/v1/validate", "/v1/legal-actions", "/v1/score"):
            for _ in range(2):  # the second time too: nothing was kept
                r = c.post(path, json=body)
                assert r.headers["x-cache"] == "bypass", (path, r.status_code)
        assert c.post("/v1/legal-actions", content=b"{").headers["x-cache"] == "bypass"
        assert "x-cache" not in c.post("/v1/deal", json={}).headers  # deals are never cached
        assert "x-cache" not in c.get("/v1/variants").headers
        check = c.post("/v1/check", json={**body, "actions": [{"type": "draw"}]})
        expected = "miss" if settings.get("cache_ops") == {"check"} else "bypass"
        assert check.headers["x-cache"] == expected


def test_a_working_cache_still_says_miss_then_hit(http: TestClient) -> None:
    state = copy.deepcopy(EXAMPLE_STATE)
    state["dealer"] = 1  # a request no other test sends
    first = http.post("/v1/legal-actions", json={"state": state})
    again = http.post("/v1/legal-actions", json={"state": state})
    assert (first.headers["x-cache"], again.headers["x-cache"]) == ("miss", "hit")
