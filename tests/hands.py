"""Constructed states of the classes random deals seldom reach (issue 15): German hands with
black threes, sides that have not melded, a binding yes; Canastra Real hands whose minimum or
canastra only a suit sequence makes. Seeded, so the gate sees the same states every run."""

from __future__ import annotations

import random

from canasta_referee.engine import State, apply_action, legal_actions, state_from_data
from tests.builders import K3, NINES, PLAY, Data, table

SUITS = "SHDC"
RANKS = "23456789TJQKA"
PLAIN = "456789TJQKA"


def _cards(rank: str, n: int, start: int = 0) -> list[str]:
    return [rank + SUITS[(start + i) % 4] for i in range(n)]


def _state(hand: list[str], variant: str, opened: bool, score: int, asked: str | None,
           options: Data | None = None, avoid: str = "") -> State | None:
    melds = [K3 if "9" in avoid else NINES] if opened else []
    turn: Data = {**PLAY}
    if asked:
        turn.update(asked=asked, asked_this_deal=[0])
    try:
        data = table({0: hand}, variant=variant, options=options, melds=(melds, []),
                     scores=(score, 0), turn=turn)
    except AssertionError:  # more copies than the deck has: not a state
        return None
    return state_from_data(data)


def german_black_three_states(count: int, seed: int = 15) -> list[State]:
    """Four-player German play-phase states: a run of one rank (three to seven), wild cards,
    two to four black threes, maybe an odd card; the side melded or not; maybe a binding yes."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        rank = rng.choice(PLAIN)
        hand = _cards(rank, rng.randint(3, 7), rng.randrange(4))
        hand += rng.choice([[], [], ["2C"], ["JK"], ["2D", "JK"]])
        hand += rng.choice([["3S", "3C"], ["3S", "3S", "3C"], ["3S", "3C", "3C"],
                            ["3S", "3S", "3C", "3C"]])
        hand += rng.choice([[], [], [c + "D" for c in PLAIN if c != rank][:1]])
        state = _state(hand, "german", rng.random() < 0.4, rng.choice([0, 0, 1500, -100, 3001]),
                       rng.choice([None, None, "yes"]), avoid=rank)
        if state is not None:
            out.append(state)
    return out


def canastra_real_states(count: int, seed: int = 16) -> list[State]:
    """Canastra (``canastra_real``) play-phase states holding a suit sequence of seven, with
    cards of another rank, odd cards and wild cards; the side melded or not; minimums 15 to 120."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        suit = rng.choice(SUITS)
        low = rng.randint(2, 6)
        hand = [RANKS[r] + suit for r in range(low, low + 7)]
        other = rng.choice(PLAIN)
        hand += _cards(other, rng.choice([0, 2, 3, 3, 4]), rng.randrange(4))
        hand += rng.sample([r + s for r in PLAIN for s in SUITS], rng.choice([0, 1, 1, 2]))
        hand += rng.choice([[], [], ["2C"], ["JK"]])
        state = _state(hand, "canastra", rng.random() < 0.4, rng.choice([0, 1500, 3000, -50]),
                       None, options={"canastra_real": True}, avoid=other)
        if state is not None:
            out.append(state)
    return out



def held_pile_states(variant: str, options: Data | None, count: int, seed: int = 19) -> list[State]:
    """Play-phase states just after an unmelded side took the pile short of its minimum, so the
    cards under the top are held until the minimum stands (pagat "Taking the Discard Pile"):
    small hands of one or two ranks, wild cards, maybe black threes or an odd card, one to five
    cards under the top. The session-19 bug lived here: going out needs the minimum from the
    hand alone first, and both steps draw on the same wild cards."""
    rng = random.Random(seed)
    wilds = ["2S", "2H", "2D", "2C", "JK", "JK", "JK"]
    out: list[State] = []
    for _ in range(count * 50):  # a variant whose pile waits for the initial meld has none
        if len(out) >= count:
            break
        top, second = rng.sample(PLAIN, 2)
        hand = _cards(top, rng.choice([2, 2, 3]), 1)
        hand += _cards(second, rng.choice([0, 2, 3, 4, 5]), rng.randrange(4))
        hand += rng.sample(wilds, rng.choice([0, 1, 2, 2, 3]))
        hand += rng.choice([[], [], [], ["3S"], [rng.choice(PLAIN) + "D"]])
        under = rng.sample([c + s for c in (top, second, rng.choice(PLAIN)) for s in SUITS]
                           + wilds, rng.randint(1, 5))
        try:
            data = table({0: hand}, variant=variant, options=options, discard=[*under, top + "S"],
                         scores=(rng.choice([-100, 0, 1500, 3000]), 0))
        except AssertionError:  # more copies than the deck has, or not a valid state
            continue
        state = state_from_data(data)
        for action in legal_actions(state):
            if action.kind != "take-pile":
                continue
            after, _ = apply_action(state, action)
            if after.turn.held_size and sum(after.hands[0] or ()) <= 9:
                out.append(after)
                break
    return out
