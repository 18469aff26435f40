"""Refusals explain themselves: a filled-in message in English and German and the rule's
source, for every refusal met in random play (issue 3 item 4 starts here)."""

from __future__ import annotations

import random

import pytest

from canasta_referee.engine import VARIANTS, IllegalAction, apply_action, rules_for
from canasta_referee.engine.play import NeedsHiddenInfo
from tests.playout import every_candidate, playout


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_refusal_messages_are_complete(variant: str) -> None:
    """Each variant cites its own sources for the refusals met in its play."""
    rules = rules_for(variant)
    rng = random.Random(1)
    seen: set[str] = set()
    for seed in range(30):
        for state, _ in playout(rules, seed, check=False):
            candidates = list(every_candidate(state))
            for action in rng.sample(candidates, min(6, len(candidates))):
                try:
                    apply_action(state, action)
                except IllegalAction as exc:
                    refusal = exc.refusal
                except NeedsHiddenInfo as exc:
                    refusal = exc.refusal
                else:
                    continue
                seen.add(refusal.code)
                for lang in ("en", "de"):
                    text = refusal.message(lang)
                    assert text and "{" not in text and "}" not in text, (refusal, lang)
                assert rules.source(refusal.rule_key), refusal.code
    assert len(seen) >= 12, seen
