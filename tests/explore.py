"""How many examples a property test runs: its pinned count in the gate, ``EXPLORE`` times as
many under ``HYPOTHESIS_PROFILE=explore`` (tests/conftest.py)."""

from __future__ import annotations

import os

EXPLORE = int(os.environ.get("EXPLORE", "10")) if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else 1


def examples(n: int) -> int:
    """``n`` in the gate; ``n * EXPLORE`` when exploring."""
    return n * EXPLORE
