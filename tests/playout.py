"""Seeded random playouts and the invariants checked after every action (shared by tests and
``bench/engine.py``)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from engine import (Action, IllegalAction, apply_action, deal, legal_actions, rules_for,
                    score_deal, state_from_data, state_to_data, validate_data)
from engine.cards import JOKER, cards_of
from engine.deal import deck
from engine.rules import RuleSet
from engine.state import State, action_class


def all_cards(state: State) -> Counter[int]:
    """Every card of a fully known state."""
    c: Counter[int] = Counter()
    for hand in state.hands:
        assert hand is not None
        c.update(cards_of(hand))
    for side in state.melds:
        for m in side:
            c.update(m.cards)
    for m in state.turn.pending:
        c.update(m.cards)
    for b in state.bonus:
        c.update(b)
    assert state.pile.cards is not None and state.stock is not None and state.turn.held is not None
    c.update(state.pile.cards)
    c.update(state.stock)
    c.update(state.turn.held)
    return c


def random_action(state: State, rng: random.Random) -> Action:
    """A random well-formed action, legal or not: for probing refusals."""
    hand = state.hands[state.turn.seat]
    cards = list(cards_of(hand)) if hand is not None else []
    kind = rng.choice(["draw", "take-pile", "meld", "discard", "ask", "answer"])
    if kind == "meld" and cards:
        return Action("meld", cards=tuple(rng.sample(cards, min(len(cards), rng.randint(1, 4)))))
    if kind == "take-pile" and cards:
        return Action("take-pile", cards=tuple(rng.sample(cards, min(len(cards), rng.choice([0, 2, 2, 3])))))
    if kind == "discard":
        return Action("discard", card=rng.choice(cards) if cards else JOKER)
    if kind == "answer":
        return Action("answer", allow=rng.random() < 0.5)
    return Action(kind)


def playout(rules: RuleSet, seed: int, check: bool = True,
            rng: random.Random | None = None) -> Iterator[tuple[State, list[Action]]]:
    """Play one deal with uniformly random legal actions, yielding (state, legal actions)
    before every action. With ``check``, assert the invariants on the way."""
    rng = rng or random.Random(seed)
    state, _ = deal(rules, seed=seed, dealer=seed % rules.players,
                    scores=tuple(rng.choice([-200, 0, 1500, 3000]) for _ in range(rules.sides)))
    expected = Counter(deck(rules))
    while True:
        actions = legal_actions(state)
        yield state, actions
        if state.turn.phase == "over":
            assert not actions
            if check:
                score = score_deal(state)
                for side in score.sides:
                    b = side.breakdown
                    assert b["total"] == sum(v for k, v in b.items() if k != "total")
                    assert b["hand_cards"] <= 0
            return
        if check:
            assert actions, f"no legal action: {state_to_data(state)}"
            assert all_cards(state) == expected, "cards lost or created"
            data = state_to_data(state)
            assert validate_data(data) == [], validate_data(data)
            assert state_from_data(data) == state
            assert legal_actions(state) == actions, "listing is not pure"
            listed = {action_class(a) for a in actions}
            for a in actions:
                apply_action(state, a)  # every listed action applies
            for _ in range(3):
                probe = random_action(state, rng)
                try:
                    after, _ = apply_action(state, probe)
                except IllegalAction as exc:
                    assert exc.refusal.code
                    continue
                norm = [a for a in actions if action_class(a) == action_class(_resolve(state, probe))]
                assert norm, f"applied an unlisted action {probe} in {data}"
            _ = listed
        state, _ = apply_action(state, rng.choice(actions))


def _resolve(state: State, action: Action) -> Action:
    """Give a meld action its rank (as listed actions carry it), for comparing classes."""
    if action.kind == "meld" and action.rank is None:
        ranks = {c >> 2 for c in action.cards if c != JOKER and c >= 4}
        if len(ranks) == 1:
            from dataclasses import replace
            return replace(action, rank=ranks.pop())
    if action.kind in ("draw", "ask", "answer", "take-pile", "meld", "discard"):
        from dataclasses import replace
        return replace(action, seat=None)
    return action


def run(n: int, variant: str = "classic", options: dict[str, object] | None = None) -> int:
    rules = rules_for(variant, options or {})
    steps = 0
    for seed in range(n):
        for _ in playout(rules, seed):
            steps += 1
    return steps
