"""Building complete, valid states for rule tests, and driving the engine at the JSON level
(``engine.api``, the contract of CONTRACT.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from canasta_referee.engine import api

Data = dict[str, Any]

# ---------------------------------------------------------------------------------------------
# helpers: the deck, a state builder, actions, and checking/applying at the JSON level
# ---------------------------------------------------------------------------------------------

NATURAL_RANKS = "456789TJQKA"
SUITS = "SHDC"
RED_THREES = ("3H", "3D")
BLACK_THREES = ("3S", "3C")
WILDS = ["2S", "2H", "2D", "2C"]

DECK: Counter[str] = Counter({r + s: 2 for r in "23456789TJQKA" for s in SUITS})
DECK["JK"] = 4
assert sum(DECK.values()) == 108


def deck_of(packs: int) -> Counter[str]:
    out: Counter[str] = Counter({r + s: packs for r in "23456789TJQKA" for s in SUITS})
    out["JK"] = 2 * packs
    return out

# order in which the unused cards fill hands and the stock (top first): plain naturals first,
# so an unspecified draw is a harmless card; red threes last (bottom of the stock)
_FILL_ORDER = ([r + s for r in NATURAL_RANKS for s in SUITS] + list(BLACK_THREES) + WILDS
               + ["JK"] + list(RED_THREES))


def meld(*cards: str, rank: str | None = None) -> Data:
    """A meld on the wire; the rank is taken from the first natural card."""
    if rank is None:
        rank = next(c[0] for c in cards if c != "JK" and c[0] != "2")
    return {"rank": rank, "cards": list(cards)}


def table(hands: dict[int, list[str]] | None = None, *,
          melds: Sequence[Sequence[Data]] = ((), ()),
          discard: Sequence[str] = (), stock_top: Sequence[str] = (),
          stock: Sequence[str] | None = None, rest_to: int | None = None,
          bonus: Sequence[Sequence[str]] = ((), ()),
          turn: Data | None = None, scores: Sequence[int] = (0, 0), dealer: int | None = None,
          filler: int = 3, variant: str = "classic", options: Data | None = None,
          set_aside: Sequence[str] = ()) -> Data:
    """A complete, valid state (four-player classic unless ``variant``/``options`` say else).

    ``hands`` maps seats to their cards; every other seat gets ``filler`` plain cards. The
    cards nobody named go to the stock under ``stock_top`` -- or, with ``stock`` given
    explicitly (e.g. ``[]``), into the hand of seat ``rest_to`` (red threes left over then go
    to that seat's side as bonus cards, since a hand cannot hold one; so do black threes where
    the variant's rule table has ``all_threes_bonus``).
    """
    answer = api.variant(variant, options or {})
    players, sides = answer["rules"]["players"], answer["rules"]["sides"]
    deck = deck_of(answer["rules"]["packs"])
    dealer = players - 1 if dealer is None else dealer
    melds = list(melds) + [()] * (sides - len(melds))
    bonus = list(bonus) + [()] * (sides - len(bonus))
    scores = list(scores) + [0] * (sides - len(scores))
    hands = dict(hands or {})
    bonus_lists = [list(b) for b in bonus]
    used: Counter[str] = Counter(set_aside)
    for cards in hands.values():
        used.update(cards)
    for side in melds:
        for m in side:
            used.update(m["cards"])
    for pend in (turn or {}).get("pending") or []:
        used.update(pend["cards"])
    used.update((turn or {}).get("held") or [])
    for cards in bonus_lists:
        used.update(cards)
    used.update(discard)
    used.update(stock_top)
    if stock is not None:
        used.update(stock)
    over = {c: n for c, n in used.items() if n > deck[c]}
    assert not over, f"more copies than the deck has: {over}"
    rest: list[str] = []
    left = deck - used
    for card in _FILL_ORDER:
        rest.extend([card] * left[card])
    for seat in range(players):
        if seat not in hands and seat != rest_to:
            plain = [c for c in rest if c[0] in NATURAL_RANKS][:filler]
            for c in plain:
                rest.remove(c)
            hands[seat] = plain
    if stock is None:
        stock_cards = list(stock_top) + rest
    else:
        assert rest_to is not None, "an explicit stock needs a seat for the other cards"
        stock_cards = list(stock)
        # bonus cards cannot be held: red threes, and every three where the variant lays all
        # threes out (modern-american, ``all_threes_bonus``)
        laid_out = RED_THREES + (BLACK_THREES if answer["rules"].get("all_threes_bonus") else ())
        reds = [c for c in rest if c in laid_out]
        bonus_lists[rest_to % sides] += reds
        hands[rest_to] = list(hands.get(rest_to, [])) + [c for c in rest if c not in laid_out]
    state = {
        "variant": variant,
        "options": dict(options or {}),
        "dealer": dealer,
        "scores": list(scores),
        "hands": [list(hands[s]) for s in range(players)],
        "melds": [list(m) for m in melds],
        "bonus_cards": bonus_lists,
        "discard": list(discard),
        "stock": stock_cards,
        "turn": {"seat": 0, "phase": "draw", **(turn or {})},
    }
    if set_aside:
        state["set_aside"] = list(set_aside)
    problems = api.validate({"state": state})["problems"]
    assert not problems, problems
    return state


PLAY = {"phase": "play", "drawn": True}  # just drew from the stock, nothing else done yet
DRAW = {"type": "draw"}
ASK = {"type": "ask"}


def take(*cards: str) -> Data:
    return {"type": "take-pile", "cards": list(cards)}


def lay(*cards: str, rank: str | None = None) -> Data:
    action: Data = {"type": "meld", "cards": list(cards)}
    if rank is not None:
        action["rank"] = rank
    return action


def discard(card: str) -> Data:
    return {"type": "discard", "card": card}


def answer(allow: bool) -> Data:
    return {"type": "answer", "allow": allow}


def run(state: Data, *actions: Data) -> Data:
    """Apply legal actions; returns the answer (``state``, ``events``). A refusal fails the test
    with the refused action, its index and the engine's reason."""
    try:
        return api.apply({"state": state, "actions": list(actions)})
    except api.OpError as exc:
        index = exc.index if exc.index is not None else 0
        pytest.fail(f"{actions[index] if index < len(actions) else actions} refused at index "
                    f"{exc.index}: {exc.reason or exc.problems}")


def after(state: Data, *actions: Data) -> Data:
    return run(state, *actions)["state"]


def assert_legal(state: Data, *actions: Data) -> None:
    verdict = api.check({"state": state, "actions": list(actions)})
    assert verdict == {"legal": True}, verdict


def refused(state: Data, *actions: Data) -> tuple[int, str]:
    """(index, code) of the first refused action; fails if the sequence is legal."""
    verdict = api.check({"state": state, "actions": list(actions)})
    assert verdict["legal"] is False, f"expected a refusal of {actions}"
    assert verdict["reason"]["rule"], "every refusal names its rule"
    return verdict["index"], verdict["reason"]["code"]


def legal_list(state: Data) -> list[Data]:
    return api.legal_actions({"state": state})["actions"]


def takes_listed(state: Data) -> list[Data]:
    return [a for a in legal_list(state) if a["type"] == "take-pile"]


def side_melds(state: Data, side: int) -> dict[str, list[str]]:
    return {m["rank"]: sorted(m["cards"]) for m in state["melds"][side]}


def pending_of(state: Data) -> dict[str, list[str]]:
    return {m["rank"]: sorted(m["cards"]) for m in state["turn"].get("pending") or []}


def score(state: Data) -> Data:
    return api.score({"state": state})


def breakdown(state: Data, side: int) -> dict[str, int]:
    return score(state)["sides"][side]["breakdown"]


def hand_of(state: Data, seat: int) -> list[str]:
    return sorted(state["hands"][seat])


def events_of(answer: Data, kind: str) -> list[Data]:
    return [e for e in answer["events"] if e["type"] == kind]


# cards and melds many tests share
JACKS_CANASTA = meld("JS", "JS", "JH", "JH", "JD", "JD", "JC")  # a natural canasta, 7 x 10 = 70
NINES = meld("9S", "9H", "9D")  # a plain three-card meld: the side has melded
K3 = meld("KS", "KS", "KH")  # the side's king meld, not a canasta
SEVEN_KINGS = ["KS", "KS", "KH", "KH", "KD", "KD", "KC"]
SEVEN_FIVES = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]  # a natural canasta worth only 35
JUNK = ["9C", "6C"]  # two unrelated singles: the hand keeps cards and cannot meld out


def is_wild(card: str) -> bool:
    return card == "JK" or card[0] == "2"


def wire_cards(state: Data) -> Counter[str]:
    """Every card of a fully known wire state: hands, pile, stock, bonus cards, set aside."""
    cards: Counter[str] = Counter(c for h in state["hands"] for c in h)
    cards.update(state["discard"])
    cards.update(state["stock"])
    cards.update(c for b in state["bonus_cards"] for c in b)
    cards.update(state.get("set_aside", []))
    return cards


# initial melds worth exactly each band's minimum, and sets of melds just below it
OFFERS: dict[int, list[list[str]]] = {
    15: [["5S", "5H", "5D"]],                                    # 3 x 5 = 15
    50: [["KH", "KD", "KS", "2C"]],                              # 3 x 10 + 20 = 50
    90: [["AH", "AD", "JK"]],                                    # 20 + 20 + 50 = 90
    120: [["AH", "AD", "AS", "AC", "2C", "2D"]],                 # 4 x 20 + 2 x 20 = 120
}
SHORT: dict[int, list[list[str]]] = {
    50: [["KH", "KD", "KS"], ["5S", "5H", "5D"]],                # 30 + 15 = 45
    90: [["KH", "KD", "KS", "2C"], ["5S", "5H", "5D"], ["7S", "7H", "7D", "7C"]],  # 50+15+20 = 85
    120: [["AH", "AD", "JK"], ["5S", "5H", "5D", "5C", "5S"]],   # 90 + 25 = 115
}
