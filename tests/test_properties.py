"""Property tests over seeded random playouts of whole deals (issue 2, "How it is shown").

``CANASTA_PLAYOUTS`` sets the number of deals (default 1,000; CI runs the default).
"""

from __future__ import annotations

import os

import pytest

from engine import rules_for
from tests.playout import playout

DEALS = int(os.environ.get("CANASTA_PLAYOUTS", "1000"))
CHUNK = 50


@pytest.mark.parametrize("start", range(0, DEALS, CHUNK))
def test_random_playouts_keep_every_invariant(start: int) -> None:
    """No card lost or created, the seat to move always has a legal action until the deal
    ends, every listed action applies, random unlisted ones are refused with a code, listing
    does not change the state, the state validates and round-trips, breakdowns sum."""
    rules = rules_for("classic")
    for seed in range(start, min(start + CHUNK, DEALS)):
        for _ in playout(rules, seed):
            pass


@pytest.mark.parametrize("seed", range(10_000, 10_000 + max(4, DEALS // 50)))
def test_legal_actions_are_exactly_what_apply_accepts(seed: int) -> None:
    """Exhaustive closure on whole deals: every candidate action of every class (any count
    of naturals, twos and jokers of any rank, any pickup of zero to three cards, any discard)
    is accepted by apply if and only if its class is listed."""
    for _ in playout(rules_for("classic"), seed, exhaustive=True):
        pass
