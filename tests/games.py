"""Whole games played by seeded random players, written as the game logs ``POST /v1/audit``
takes (shared by tests/test_audit.py and bench/audit.py).

Each deal is dealt as the audit deals it (its seed, the dealer passing to the left, the game
scores so far), played to its end by uniform or eager random legal actions, and scored; the
log records each deal's scores and the game scores after it. What the players did is kept
beside the log (``Played``), so a test can compare the audit with the engine's own play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from canasta_referee.engine import (
    action_to_data,
    apply_action,
    deal,
    legal_actions,
    rules_for,
    score_deal,
    state_to_data,
)
from canasta_referee.engine.rules import RuleSet
from canasta_referee.engine.state import State


@dataclass
class Played:
    """A game as the players played it: its log, and per deal the state it ended in, its
    events and its score."""

    log: dict[str, Any]
    ends: list[State] = field(default_factory=list)
    events: list[int] = field(default_factory=list)  # events per deal, dealing's included
    totals: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def actions(self) -> int:
        return sum(len(d["actions"]) for d in self.log["deals"])


def play_deal(state: State, rng: random.Random, eager: bool) -> tuple[State, list[Any], int]:
    """The deal played to its end: the final state, the actions, the events they made."""
    actions = []
    events = 0
    while state.turn.phase != "over":
        listed = list(legal_actions(state))
        keen = [a for a in listed if a.kind in ("meld", "take-pile")]
        action = rng.choice(keen if eager and keen and rng.random() < 0.9 else listed)
        state, happened = apply_action(state, action)
        actions.append(action)
        events += len(happened)
    return state, actions, events


def game(rules: RuleSet, seed: int, max_deals: int = 30, eager: bool = True,
         to_the_end: bool = True) -> Played:
    """A game of seeded deals until one side wins (or ``max_deals``); with ``to_the_end``
    false, exactly ``max_deals`` deals, past the game's end if it comes sooner."""
    rng = random.Random(seed)
    played = Played({"variant": rules.id, "options": dict(rules.options), "deals": []})
    totals = (0,) * rules.sides
    for number in range(max_deals):
        dealer = number % rules.players
        state, dealt = deal(rules, seed * 1000 + number, dealer, totals)
        end, actions, events = play_deal(state, rng, eager)
        scored = score_deal(end)
        totals = scored.scores
        played.log["deals"].append({
            "seed": seed * 1000 + number, "dealer": dealer,
            "actions": [action_to_data(a) for a in actions],
            "scores": [side.total for side in scored.sides], "totals": list(totals)})
        played.ends.append(end)
        played.events.append(len(dealt) + events)
        played.totals.append(totals)
        if scored.game_over and to_the_end:
            break
    return played


def by_state(played: Played, index: int) -> dict[str, Any]:
    """The deal ``index`` of the log given by its starting state instead of its seed."""
    entry = played.log["deals"][index]
    rules = rules_for(played.log["variant"], played.log["options"])
    start = played.totals[index - 1] if index else (0,) * rules.sides
    state, _ = deal(rules, entry["seed"], entry["dealer"], start)
    return {"state": state_to_data(state),
            **{k: v for k, v in entry.items() if k not in ("seed", "dealer")}}
