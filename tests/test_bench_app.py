"""``bench/app.py`` runs: a smoke test with a few requests (its figures are not checked; speed
is never a test). Every request it sends must be answered 200, so its misses are real misses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_app_prints_echo_miss_and_hit() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "app.py"), "--requests", "20",
                          "--rounds", "1", "--ops", "legal-actions four players,check"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split("|")[1:3] for line in out.stdout.splitlines()
            if line.startswith("| ") and "µs" not in line]
    cases = [(op.strip(), case.strip()) for op, case in rows]
    assert cases == [(op, case) for op in ("legal-actions four players", "check")
                     for case in ("echo", "miss", "hit")]


def test_bench_app_cold_prints_the_same_rows() -> None:
    """``--cold``: each request timed alone after other memory was written."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "app.py"), "--requests", "10",
                          "--rounds", "1", "--cold", "1", "--no-cache", "--ops", "apply"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "1 MB written before each request" in out.stdout
    rows = [line.split("|")[1:3] for line in out.stdout.splitlines()
            if line.startswith("| ") and "µs" not in line]
    assert [(op.strip(), case.strip()) for op, case in rows] == [("apply", "echo"),
                                                                 ("apply", "miss")]
