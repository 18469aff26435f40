"""A fresh clone's walk through the README and the API guide: their examples that talk to the
referee run against a real server (``canasta-referee serve`` on a free port, from this checkout)
and answer what the documents show (``tests/doc_examples.py`` says how they are matched). The
install commands themselves are what CI runs (``.ci/run``), so they are checked to agree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_examples import Example, blocks, check, differences, examples, parse_shown, text_differences
from tests.servers import Service

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/api.md")


@pytest.fixture(scope="module")
def server() -> Iterator[Service]:
    service = Service().start()
    try:
        yield service
    finally:
        service.stop()


@pytest.mark.parametrize("document", DOCUMENTS)
def test_examples_answer_what_the_document_shows(document: str, server: Service,
                                                 tmp_path: Path) -> None:
    """Every example, in order, in one folder (later examples read what earlier ones wrote)."""
    assert shutil.which("curl") and shutil.which("jq"), "the examples need curl and jq"
    found = examples(ROOT / document)
    assert found, f"{document} has no examples"
    wrong = [line for example in found for line in check(example, server.url, tmp_path)]
    assert not wrong, "\n".join(wrong)


def test_the_readme_shows_answers_of_the_service() -> None:
    """The README's first screen has a curl request and its answer, and a refusal citing a
    section of docs/."""
    found = examples(ROOT / "README.md")
    curls = [e for e in found if "curl" in e.script and e.shown]
    assert curls, "no curl example with its answer"
    first = parse_shown(curls[0].shown or "")
    assert first["reason"]["rule"].startswith("docs/variants/")


def test_a_wrong_answer_is_caught(server: Service, tmp_path: Path) -> None:
    """The matching fails where the document is wrong: a changed value, a missing item, an
    elision in the wrong place, a failing command."""
    script = "curl -s localhost:8000/v1/variants"
    good = '{"variants": [{"id": "classic", …}, …]}'
    assert not check(Example("x", 1, script, good), server.url, tmp_path)
    for bad in ('{"variants": [{"id": "german", …}, …]}',    # another value
                '{"variants": [{"id": "classic", …}]}',      # more items than shown
                '{"variants": [{"id": "classic"}, …]}',      # more keys than shown
                '{"variants": …, "count": 5}'):              # a key the answer lacks
        assert check(Example("x", 1, script, bad), server.url, tmp_path), bad
    assert check(Example("x", 1, "curl -s localhost:8000/v1/variants | false", None), server.url,
                 tmp_path)
    assert differences(parse_shown('"Der Stapel …"'), "Der Stapel ist eingefroren") == []
    assert differences(parse_shown('"Der Stapel …"'), "Die Karte") != []
    # a text block: line by line, `…` for any text
    headers = "HTTP/1.1 200 OK\r\ndate: Tue, 01 Dec 2026\r\nx-cache: miss\r\n\r\n"
    assert text_differences("HTTP/1.1 200 OK\ndate: …\nx-cache: miss", headers) == []
    assert text_differences("HTTP/1.1 200 OK\n…\nx-cache: miss", headers) == []
    assert text_differences("HTTP/1.1 200 OK\ndate: …\nx-cache: hit", headers) != []
    assert text_differences("HTTP/1.1 200 OK\ndate: …", headers) != []
    assert text_differences("…\nx-cache: miss", headers) == []
    assert text_differences("x-cache: miss\n…", headers) != []
    script = "curl -s -o /dev/null -D - localhost:8000/v1/variants | grep -i '^content-language'"
    assert not check(Example("x", 1, script, "content-language: en", "text"), server.url, tmp_path)
    assert check(Example("x", 1, script, "content-language: de", "text"), server.url, tmp_path)


def test_readme_test_command_is_what_ci_runs() -> None:
    """The README's test command (in a venv) and .ci/run's are the same line."""
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"^pip install -e '\.\[test\]' && .*$", readme, re.M)
    assert command, "the README's test command"
    ci = (ROOT / ".ci" / "run").read_text()
    assert command.group(0) in ci.splitlines(), f".ci/run does not run {command.group(0)!r}"
    assert "python3 -m venv" in readme and "python3 -m venv" in ci


def test_readme_is_a_first_screen() -> None:
    """About 10 KB: what it is, two commands, a first request; the rest is in docs/."""
    readme = (ROOT / "README.md").read_bytes()
    assert len(readme) <= 10 * 1024, len(readme)
    text = readme.decode()
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install . && canasta-referee serve" in text
    for doc in ("docs/api.md", "docs/wire-format.md", "docs/variants/", "docs/operations.md",
                "docs/performance.md"):
        assert f"({doc}" in text, doc


def test_python_examples_run(tmp_path: Path) -> None:
    """The API guide's Python examples run as shown (the engine as a library)."""
    code = [body for _, info, body, _ in blocks((ROOT / "docs" / "api.md").read_text())
            if info == "python"]
    assert code
    for body in code:
        proc = subprocess.run([sys.executable, "-c", body], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "'phase': 'play'" in proc.stdout
