"""The shell examples of a Markdown document, run as a reader would run them.

A ``sh`` block is an example when it talks to the referee (``curl`` to ``localhost:8000``, or the
command line ``canasta-referee OP``); blocks that install, build or start things are not run
(CI installs; the tests start the server). Each example runs in bash with ``set -eo pipefail``,
in a folder shared by the document's examples (one may write ``deal.json``, the next read it),
against a real server: ``localhost:8000`` becomes the test server's address, and
``canasta-referee`` this checkout's command line.

When a ``json`` block follows the example (nothing but blank lines between), it is the answer
the document shows, and the example's output must match it:

- objects have the same keys and values, lists the same items, in order;
- ``…`` elides: as a value (``"state": …``, ``"…"``) anything goes there; as the last item of a
  list (``[1, 2, …]``) more items may follow; as a member of an object (``{"id": 1, …}``) more
  keys may follow; inside a string (``"Der Stapel ist …"``) any text goes there.

When a ``text`` block follows instead (headers, an exit status: output that is not one JSON
document), the output must be that text, line by line (CR and trailing blanks dropped): ``…``
inside a line stands for any text there (``date: …``), a line of ``…`` alone for any number of
lines.

Without a shown answer the example must succeed and print something.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ELLIPSIS = "…"
#: blocks with these are set-up, not examples
NOT_RUN = ("pip install", "venv", "docker", "kubectl", "redis-server", "canasta-referee serve",
           "pytest", "ruff", "mypy", "bench/", "apt-get", "git ")


@dataclass
class Example:
    document: str
    line: int
    script: str
    shown: str | None
    #: what the shown answer is: ``json`` (compared as JSON) or ``text`` (compared as text)
    kind: str = "json"

    def __str__(self) -> str:
        return f"{self.document}:{self.line}"


def blocks(text: str) -> list[tuple[int, str, str, str]]:
    """Fenced blocks: (line, info string, body, the text between this block and the next)."""
    out: list[tuple[int, str, str, str]] = []
    pattern = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
    matches = list(pattern.finditer(text))
    for i, m in enumerate(matches):
        after = text[m.end():matches[i + 1].start()] if i + 1 < len(matches) else text[m.end():]
        out.append((text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2), after))
    return out


def is_example(script: str) -> bool:
    talks = "localhost:8000" in script or re.search(r"(^|[|;&(]\s*)canasta-referee \w", script,
                                                     re.M)
    return bool(talks) and not any(word in script for word in NOT_RUN)


def examples(path: Path) -> list[Example]:
    found = blocks(path.read_text())
    out = []
    for i, (line, info, body, after) in enumerate(found):
        if info not in ("sh", "bash", "shell") or not is_example(body):
            continue
        shown, kind = None, "json"
        if i + 1 < len(found) and found[i + 1][1] in ("json", "text") and not after.strip():
            shown, kind = found[i + 1][2], found[i + 1][1]
        out.append(Example(str(path.relative_to(ROOT)), line, body, shown, kind))
    return out


def run(example: Example, base_url: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the example against the server at ``base_url`` (``http://host:port``)."""
    host = base_url.split("://", 1)[1]
    script = example.script.replace("localhost:8000", host).replace("127.0.0.1:8000", host)
    prelude = (f'set -eo pipefail\n'
               f'canasta-referee() {{ "{sys.executable}" -m canasta_referee.service.cli "$@"; }}\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(["bash", "-c", prelude + script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


# --- the shown answer -----------------------------------------------------------------------

class Rest:
    """An object member ``…``: more keys may follow."""


REST = Rest()


def _elisions_quoted(text: str) -> str:
    """The shown JSON with every bare ``…`` made a JSON value or member: after ``:`` or in a list
    the string ``"…"``, as an object member ``"…": "…"``."""
    out = []
    stack: list[str] = []
    in_string = escaped = False
    previous = ""
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}":
            stack.pop()
        if ch == ELLIPSIS:
            if previous != ":" and stack and stack[-1] == "{":
                out.append(f'"{ELLIPSIS}": "{ELLIPSIS}"')
            else:
                out.append(f'"{ELLIPSIS}"')
        else:
            out.append(ch)
        if not ch.isspace():
            previous = ch
    return "".join(out)


def parse_shown(text: str) -> Any:
    return json.loads(_elisions_quoted(text))


def differences(shown: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` differs from the shown answer (elisions allowed), as readable lines."""
    where = path or "/"
    if shown == ELLIPSIS:
        return []
    if isinstance(shown, str) and ELLIPSIS in shown and isinstance(actual, str):
        pattern = ".*".join(re.escape(part) for part in shown.split(ELLIPSIS))
        return [] if re.fullmatch(pattern, actual, re.S) else [f"{where}: {actual!r} is not {shown!r}"]
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {actual!r} is not an object"]
        open_ = shown.get(ELLIPSIS) == ELLIPSIS
        keys = [k for k in shown if k != ELLIPSIS]
        out = [f"{where}: missing {k!r}" for k in keys if k not in actual]
        if not open_:
            out += [f"{where}: not shown: {k!r}" for k in actual if k not in shown]
        for k in keys:
            if k in actual:
                out += differences(shown[k], actual[k], f"{path}/{k}")
        return out
    if isinstance(shown, list):
        if not isinstance(actual, list):
            return [f"{where}: {actual!r} is not a list"]
        more = bool(shown) and shown[-1] == ELLIPSIS
        items = shown[:-1] if more else shown
        if len(actual) < len(items) or (not more and len(actual) != len(items)):
            return [f"{where}: {len(actual)} items, the document shows {len(items)}"
                    f"{' or more' if more else ''}"]
        out = []
        for i, item in enumerate(items):
            out += differences(item, actual[i], f"{path}/{i}")
        return out
    if shown != actual or type(shown) is not type(actual):
        return [f"{where}: {actual!r}, the document shows {shown!r}"]
    return []


def _lines(text: str) -> list[str]:
    return [line.replace("\r", "").rstrip() for line in text.strip("\r\n").splitlines()]


def _lines_match(shown: list[str], actual: list[str]) -> bool:
    """A line ``…`` stands for any number of lines; ``…`` inside a line for any text there."""
    if not shown:
        return not actual
    if shown[0] == ELLIPSIS:
        return any(_lines_match(shown[1:], actual[k:]) for k in range(len(actual) + 1))
    pattern = ".*".join(re.escape(part) for part in shown[0].split(ELLIPSIS))
    return bool(actual) and re.fullmatch(pattern, actual[0]) is not None and _lines_match(
        shown[1:], actual[1:])


def text_differences(shown: str, actual: str) -> list[str]:
    """Where the output differs from a shown ``text`` block."""
    if _lines_match(_lines(shown), _lines(actual)):
        return []
    return ["the output is\n" + "\n".join(_lines(actual)) + "\nthe document shows\n"
            + "\n".join(_lines(shown))]


def check(example: Example, base_url: str, cwd: Path) -> list[str]:
    """What is wrong with the example when run (empty: it does what the document says)."""
    proc = run(example, base_url, cwd)
    if proc.returncode != 0:
        return [f"{example}: exit status {proc.returncode}: {proc.stderr[-1000:]}"]
    if not proc.stdout.strip():
        return [f"{example}: printed nothing"]
    if example.shown is None:
        return []
    if example.kind == "text":
        return [f"{example}: {d}" for d in text_differences(example.shown, proc.stdout)]
    try:
        actual = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return [f"{example}: not one JSON document: {proc.stdout[:300]!r}"]
    return [f"{example}: {d}" for d in differences(parse_shown(example.shown), actual)]
