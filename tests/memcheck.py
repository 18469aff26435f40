"""The native module in tests: built from the checkout's C into a temporary folder and loaded,
and tests of it run again under valgrind's memcheck (which .ci/run installs)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from bench.compiled import build_native

ROOT = Path(__file__).resolve().parent.parent


def native_module(folder: Path) -> ModuleType:
    """The native module ``_text`` (schema/_text.c, _read.c and _project.c) built into ``folder``,
    loaded."""
    built = build_native(folder)
    spec = importlib.util.spec_from_file_location("_text", built)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_clean(test_file: str, keyword: str, flag: str, source: str, tmp_path: Path) -> None:
    """Run the tests of ``test_file`` that ``keyword`` selects under memcheck, with ``flag``
    set in their environment (to run fewer cases: memcheck is slow); they must pass and
    memcheck must report nothing in the C file ``source``: no read or write out of bounds, no
    use of an uninitialised byte, no block freed twice. (Python itself reports a few known
    false alarms, in its own code, which this leaves to CPython.)"""
    log = tmp_path / "memcheck.log"
    env = {**os.environ, "PYTHONMALLOC": "malloc",  # every object a block memcheck sees
           flag: "1",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}  # schemathesis' plugin: slow to import
    done = subprocess.run(
        ["valgrind", "--tool=memcheck", "--errors-for-leak-kinds=none", f"--log-file={log}",
         sys.executable, "-m", "pytest", test_file, "-p", "no:cacheprovider", "-k", keyword],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-3000:]
    report = log.read_text()
    assert "ERROR SUMMARY" in report, report[-2000:]
    ours = [block for block in report.split("\n==") if source in block]
    assert not ours, "\n".join(ours)[:4000]
