"""Seeded random playouts and the invariants checked after every action (shared by the
property tests and ``bench/engine.py``)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from canasta_referee.engine import (
    Action,
    IllegalAction,
    apply_action,
    deal,
    legal_actions,
    score_deal,
    state_from_data,
    state_to_data,
    validate_data,
)
from canasta_referee.engine.cards import JOKER, THREE, TWO, cards_of, naturals_by_rank
from canasta_referee.engine.deal import deck
from canasta_referee.engine.rules import RuleSet
from canasta_referee.engine.state import State, action_class


def all_cards(state: State) -> Counter[int]:
    """Every card of a fully known state, wherever it lies."""
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
    assert state.pile.cards is not None and state.stock is not None
    assert state.turn.held is not None
    c.update(state.pile.cards)
    c.update(state.stock)
    c.update(state.turn.held)
    c.update(state.set_aside)
    return c


def classes(actions: list[Action]) -> set[tuple[object, ...]]:
    return {action_class(a) for a in actions}


def resolved(action: Action) -> Action:
    """The action as listed actions are written: rank named, no seat."""
    rank = action.rank
    if action.kind == "meld" and rank is None:
        ranks = {c >> 2 for c in action.cards if c != JOKER and c >= 4}
        rank = ranks.pop() if len(ranks) == 1 else None
    return action._replace(rank=rank, seat=None)


def random_action(state: State, rng: random.Random) -> Action:
    """A random well-formed action, legal or not: a probe for refusals."""
    hand = state.hands[state.turn.seat]
    cards = list(cards_of(hand)) if hand is not None else []
    kind = rng.choice(["draw", "take-pile", "meld", "discard", "ask", "answer"])
    if kind == "meld" and cards:
        size = min(len(cards), rng.randint(1, 5))
        return Action("meld", cards=tuple(rng.sample(cards, size)))
    if kind == "take-pile" and cards:
        size = min(len(cards), rng.choice([0, 2, 2, 3]))
        return Action("take-pile", cards=tuple(rng.sample(cards, size)))
    if kind == "discard":
        return Action("discard", card=rng.choice(cards) if cards else JOKER)
    if kind == "answer":
        return Action("answer", allow=rng.random() < 0.5)
    return Action(kind)


def every_candidate(state: State) -> Iterator[Action]:
    """A superset of the legal actions, one per class: every meld of every rank with every
    count of naturals, twos and jokers the hand allows (beyond the limits too), every pickup
    with none, one, two or three hand cards, every discard, ask, draw and answers."""
    yield Action("draw")
    yield Action("ask")
    yield Action("answer", allow=True)
    yield Action("answer", allow=False)
    hand = state.hands[state.turn.seat]
    if hand is None:
        return
    cards = cards_of(hand)
    for card in set(cards):
        yield Action("discard", card=card)
    nat = naturals_by_rank(hand)
    by_rank = {r: [c for c in cards if c >> 2 == r and c != JOKER] for r in range(13)}
    twos, jokers = by_rank[TWO], hand[JOKER]
    for rank in [THREE, *range(2, 13)]:
        for n in range(nat[rank] + 1):
            for t in range(min(len(twos), 4) + 1):
                for j in range(min(jokers, 4) + 1):
                    if n + t + j == 0:
                        continue
                    picked = tuple(by_rank[rank][:n] + twos[:t] + [JOKER] * j)
                    yield Action("meld", cards=picked, rank=rank)
    kinds = sorted({(c >> 2) if c != JOKER else 13 for c in cards})
    reps = {k: next(c for c in cards if ((c >> 2) if c != JOKER else 13) == k) for k in kinds}
    yield Action("take-pile", cards=())
    for k in kinds:
        yield Action("take-pile", cards=(reps[k],))
    for a, b in combinations(kinds, 2):
        yield Action("take-pile", cards=(reps[a], reps[b]))
    for k in kinds:
        same = by_rank[k] if k != 13 else [JOKER] * jokers
        if len(same) >= 2:
            yield Action("take-pile", cards=tuple(same[:2]))
        if len(same) >= 3:
            yield Action("take-pile", cards=tuple(same[:3]))


def check_closed(state: State, actions: list[Action]) -> None:
    """Every listed action applies; every candidate that applies is listed."""
    listed = classes(actions)
    for a in actions:
        apply_action(state, a)
    for candidate in every_candidate(state):
        try:
            apply_action(state, candidate)
        except IllegalAction as exc:
            assert exc.refusal.code
            continue
        assert action_class(resolved(candidate)) in listed, (
            f"applied an unlisted action {candidate}: {state_to_data(state)}")


def deal_for(rules: RuleSet, seed: int) -> State:
    rng = random.Random(seed)
    scores = tuple(rng.choice([-200, 0, 1500, 3000]) for _ in range(rules.sides))
    return deal(rules, seed=seed, dealer=seed % rules.players, scores=scores)[0]


def playout(rules: RuleSet, seed: int, check: bool = True,
            exhaustive: bool = False, eager: bool = False) -> Iterator[tuple[State, list[Action]]]:
    """Play one deal with uniformly random legal actions, yielding (state, legal actions)
    before every action. With ``check``, assert the invariants after every action. ``eager``
    players take the pile and meld whenever they may (nine times in ten), so deals reach
    canastas, closed ranks and going out far more often than uniform play does."""
    rng = random.Random(seed)
    state = deal_for(rules, seed)
    expected = Counter(deck(rules))
    while True:
        actions = legal_actions(state)
        yield state, actions
        if check:
            assert all_cards(state) == expected, "cards lost or created"
            data = state_to_data(state)
            assert validate_data(data) == [], validate_data(data)
            assert state_from_data(data) == state, "state does not round-trip"
            before = state_to_data(state)
            assert legal_actions(state) == actions, "listing is not repeatable"
            assert state_to_data(state) == before, "listing changed the state"
        if state.turn.phase == "over":
            assert not actions
            if check:
                for side in score_deal(state).sides:
                    b = side.breakdown
                    assert b["total"] == sum(v for k, v in b.items() if k != "total")
                    assert b["hand_cards"] <= 0
            return
        assert actions, f"no legal action: {state_to_data(state)}"
        if check:
            if exhaustive:
                check_closed(state, actions)
            else:
                for a in actions:
                    apply_action(state, a)
                listed = classes(actions)
                for _ in range(3):
                    probe = random_action(state, rng)
                    try:
                        apply_action(state, probe)
                    except IllegalAction as exc:
                        assert exc.refusal.code
                        continue
                    assert action_class(resolved(probe)) in listed, (
                        f"applied an unlisted action {probe}: {state_to_data(state)}")
        if eager:
            keen = [a for a in actions if a.kind in ("meld", "take-pile")]
            if keen and rng.random() < 0.9:
                actions = keen
        state, _ = apply_action(state, rng.choice(actions))
