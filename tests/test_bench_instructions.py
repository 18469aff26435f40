"""``bench/instructions.py`` runs: a smoke test, one operation for a second (its counts are not
checked against any figure; speed is never a test). Every request it sends must be answered
200, and each row must hold a count for the bare echo, the service's echo and the miss."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_bench_instructions_prints_a_row_per_operation() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "instructions.py"), "--ops",
                          "check,validate", "--seconds", "1"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    rows = [line.split("|")[1:-1] for line in out.stdout.splitlines()
            if line.startswith("| ") and not line.startswith("| operation")]
    assert [row[0].strip() for row in rows] == ["check", "validate"]
    for _, bare, echo, miss, ratio, goal in rows:
        counts = [float(re.sub(r"[k,]", "", cell)) for cell in (bare, echo, miss)]
        assert all(count > 10 for count in counts), rows  # thousands of instructions
        assert abs(float(ratio) - counts[0] / counts[2]) < 0.01, rows  # counts shown rounded
        assert goal.strip().startswith("≥ 0.50: ")
