"""Rough edges an integrator meets (issue 16): a bad setting is one line and exit status 2;
the command line ends quietly on a closed pipe. The command line runs as a real
subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from schema.models import EXAMPLE_STATE
from service.cli import EXIT_BROKEN_PIPE
from service.settings import SettingError, Settings
from tests.servers import ROOT, free_port


def cli(*args: str, env: dict[str, str] | None = None, stdin: bytes = b"",
        stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], input=stdin,
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
])
def test_a_bad_setting_is_one_line_and_exit_status_2(name: str, value: str, words: str) -> None:
    port = str(free_port())  # should a setting slip through, the server would start here
    proc = cli("serve", "--port", port, env={name: value})
    lines = proc.stderr.decode().splitlines()
    assert proc.returncode == 2, proc.stderr.decode()
    assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert lines[0].startswith(f"canasta-referee serve: {name}: ") and words in lines[0], lines
    assert proc.stdout == b""


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
        f"set -o pipefail; {sys.executable} -m service.cli variant classic --pretty | head -c 10",
        shell=True, executable="/bin/bash", capture_output=True, timeout=60, check=False,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout == b'{\n  "id": ' and proc.stderr == b""
    assert proc.returncode in (0, EXIT_BROKEN_PIPE)  # 141 when head left before the write


def test_an_open_pipe_still_gets_the_whole_answer() -> None:
    proc = cli("variants")
    assert proc.returncode == 0 and json.loads(proc.stdout)["variants"]
