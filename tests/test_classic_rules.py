"""Classic Canasta for four players, one test (or a small parametrized group) per rule.

Every test drives the engine at the JSON level (``engine.api``, the contract of CONTRACT.md) and
names its source: the section of seed 000 (``shared/seeds/000_8dfc37645e691ef9.txt``) and the
pagat section it cites; ``VARIANTS.md classic`` decides where they differ.

States are complete and valid: ``table()`` takes the parts a test cares about and puts every
other card of the 108-card deck into the stock (or into a named hand when the stock must be
empty).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine import api

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

# order in which the unused cards fill hands and the stock (top first): plain naturals first,
# so an unspecified draw is a harmless card; red threes last (bottom of the stock)
_FILL_ORDER = ([r + s for r in NATURAL_RANKS for s in SUITS] + list(BLACK_THREES) + WILDS
               + ["JK"] + list(RED_THREES))


def meld(*cards: str, rank: str | None = None) -> Data:
    """A meld on the wire; the rank is taken from the first natural card."""
    if rank is None:
        rank = next(c[0] for c in cards if c != "JK" and c[0] != "2")
    return {"rank": rank, "cards": list(cards)}


def table(hands: dict[int, list[str]] | None = None, *, melds: tuple[list[Data], list[Data]] = ((), ()),
          discard: list[str] = (), stock_top: list[str] = (), stock: list[str] | None = None,
          rest_to: int | None = None, bonus: tuple[list[str], list[str]] = ((), ()),
          turn: Data | None = None, scores: tuple[int, int] = (0, 0), dealer: int = 3,
          filler: int = 3) -> Data:
    """A complete, valid four-player classic state.

    ``hands`` maps seats to their cards; every other seat gets ``filler`` plain cards. The
    cards nobody named go to the stock under ``stock_top`` -- or, with ``stock`` given
    explicitly (e.g. ``[]``), into the hand of seat ``rest_to`` (red threes left over then go
    to that seat's side as bonus cards, since a hand cannot hold one).
    """
    hands = dict(hands or {})
    bonus_lists = [list(bonus[0]), list(bonus[1])]
    used: Counter[str] = Counter()
    for cards in hands.values():
        used.update(cards)
    for side in melds:
        for m in side:
            used.update(m["cards"])
    for pend in (turn or {}).get("pending") or []:
        used.update(pend["cards"])
    used.update((turn or {}).get("held") or [])
    used.update(bonus_lists[0] + bonus_lists[1])
    used.update(discard)
    used.update(stock_top)
    if stock is not None:
        used.update(stock)
    over = {c: n for c, n in used.items() if n > DECK[c]}
    assert not over, f"more copies than the deck has: {over}"
    rest: list[str] = []
    left = DECK - used
    for card in _FILL_ORDER:
        rest.extend([card] * left[card])
    for seat in range(4):
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
        reds = [c for c in rest if c in RED_THREES]
        bonus_lists[rest_to % 2] += reds
        hands[rest_to] = list(hands.get(rest_to, [])) + [c for c in rest if c not in RED_THREES]
    state = {
        "variant": "classic",
        "options": {"players": 4},
        "dealer": dealer,
        "scores": list(scores),
        "hands": [list(hands[s]) for s in range(4)],
        "melds": [list(melds[0]), list(melds[1])],
        "bonus_cards": bonus_lists,
        "discard": list(discard),
        "stock": stock_cards,
        "turn": {"seat": 0, "phase": "draw", **(turn or {})},
    }
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
    """Apply legal actions; returns the answer (``state``, ``events``)."""
    return api.apply({"state": state, "actions": list(actions)})


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


def score(state: Data) -> Data:
    return api.score({"state": state})


def breakdown(state: Data, side: int) -> dict[str, int]:
    return score(state)["sides"][side]["breakdown"]


def hand_of(state: Data, seat: int) -> list[str]:
    return sorted(state["hands"][seat])


def events_of(answer: Data, kind: str) -> list[Data]:
    return [e for e in answer["events"] if e["type"] == kind]


# a side's canasta that is not the subject of a test: seven natural jacks
JACKS_CANASTA = meld("JS", "JS", "JH", "JH", "JD", "JD", "JC")
# a plain three-card meld so that a side counts as having melded
NINES = meld("9S", "9H", "9D")


def dealt(seed: int, dealer: int = 0) -> Data:
    return api.deal({"seed": seed, "dealer": dealer, "scores": [0, 0]})


def first_seed(pred: Any, limit: int = 500) -> tuple[int, Data]:
    """The first seed whose deal satisfies ``pred`` (the search is deterministic)."""
    for seed in range(limit):
        answer = dealt(seed)
        if pred(answer):
            return seed, answer
    raise AssertionError("no seed in range satisfies the predicate")


def is_wild(card: str) -> bool:
    return card == "JK" or card[0] == "2"


# =============================================================================================
# 1. The deal: upcard, frozen start, red threes dealt
# =============================================================================================


def test_deal_eleven_cards_each_first_player_left_of_dealer() -> None:
    """seed 000 'Aufbau' and 'Wer beginnt?'; pagat: The Deal, The Deal and Play.
    Four players get 11 cards each; the player left of the dealer starts by drawing."""
    for dealer in range(4):
        state = dealt(7, dealer)["state"]
        assert [len(h) for h in state["hands"]] == [11, 11, 11, 11]
        assert state["turn"]["seat"] == (dealer + 1) % 4
        assert state["turn"]["phase"] == "draw"
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


def test_deal_upcard_wild_or_red_three_turns_further_cards() -> None:
    """seed 000 'Aufbau'; pagat: The Deal. A wild card or red three turned up as the upcard is
    covered by further cards until the top is neither (VARIANTS.md classic, Deal)."""
    multi = 0
    for seed in range(150):
        pile = dealt(seed)["state"]["discard"]
        top, under = pile[-1], pile[:-1]
        assert not is_wild(top) and top not in RED_THREES, (seed, pile)
        assert all(is_wild(c) or c in RED_THREES for c in under), (seed, pile)
        multi += bool(under)
    assert multi >= 2, "the seed range must contain deals with a wild or red three upcard"


@pytest.mark.parametrize("upcard", [["JK", "7D"], ["2D", "7D"], ["3H", "7D"], ["3H", "2D", "7D"]])
def test_upcard_wild_or_red_three_freezes_pile_for_everyone(upcard: list[str]) -> None:
    """seed 000 'Aufbau' and 'Der eingefrorene Stapel'; pagat: The Deal, Frozen Discard Pile.
    A pile started over a wild or red three upcard is frozen even for a side that has melded:
    natural + wild and adding to the side's meld are refused, a natural pair is accepted."""
    state = table({0: ["7H", "7C", "JK", "9C", "4C"]}, discard=upcard,
                  melds=([NINES, meld("7S", "7S", "7H")], []))
    assert refused(state, take("7H", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert_legal(state, take("7H", "7C"))


def test_dealt_red_threes_laid_out_and_replaced() -> None:
    """seed 000 'Aufbau'; pagat: The Deal (ASS p. 1). Red threes in a dealt hand are laid out in
    front of the side and replaced from the stock: every hand still holds 11 cards, none red."""
    seen = 0
    for seed in range(60):
        answer = dealt(seed)
        state = answer["state"]
        per_side: list[list[str]] = [[], []]
        for event in events_of(answer, "red-threes"):
            per_side[event["seat"] % 2].extend(event["cards"])
        for side in (0, 1):
            assert sorted(state["bonus_cards"][side]) == sorted(per_side[side]), seed
        for hand in state["hands"]:
            assert len(hand) == 11 and not set(hand) & set(RED_THREES), seed
        seen += sum(len(b) for b in per_side)
        # nothing is lost: hands, pile, stock and bonus cards make the 108-card deck
        cards = Counter(c for h in state["hands"] for c in h)
        cards.update(state["discard"])
        cards.update(state["stock"])
        cards.update(c for b in state["bonus_cards"] for c in b)
        assert cards == DECK, seed
    assert seen > 0, "the seed range must contain dealt red threes"


def test_black_three_upcard_stays_and_blocks_first_player() -> None:
    """seed 000 'Die Dreien' (Sperrkarten); pagat: Threes in Classic Canasta. A black three
    upcard is not covered (VARIANTS.md classic, Deal) and the first player may not take it."""
    _, answer = first_seed(lambda a: a["state"]["discard"][0] in BLACK_THREES)
    state = answer["state"]
    assert len(state["discard"]) == 1
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []
    assert_legal(state, DRAW)


# =============================================================================================
# 2. Red threes drawn
# =============================================================================================


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("reds", [["3H"], ["3H", "3D"]])
def test_red_three_drawn_laid_out_and_replaced(seat: int, reds: list[str]) -> None:
    """seed 000 'Die Dreien'; pagat: Threes in Classic Canasta. A red three drawn is laid out at
    once in front of the side and replaced from the stock (a replacement red three too)."""
    state = table({seat: ["9C", "4C"]}, stock_top=[*reds, "KS"], turn={"seat": seat})
    size = len(state["stock"])
    answer = run(state, DRAW)
    new = answer["state"]
    assert sorted(new["bonus_cards"][seat % 2]) == sorted(reds)
    assert new["bonus_cards"][1 - seat % 2] == []
    assert hand_of(new, seat) == ["4C", "9C", "KS"]
    assert len(new["stock"]) == size - len(reds) - 1
    assert new["turn"]["phase"] == "play"
    assert sorted(c for e in events_of(answer, "red-threes") for c in e["cards"]) == sorted(reds)


# =============================================================================================
# 3. The frozen pile
# =============================================================================================

FREEZES = {
    # a wild card lies in the pile (discarded earlier); the side has melded
    "wild in the pile": dict(discard=["9C", "2C", "5D", "KH"],
                             melds=([NINES, meld("KS", "KS", "KH")], [])),
    # a red three was turned up at the deal; the side has melded
    "red three upcard": dict(discard=["3H", "9C", "KH"], melds=([NINES, meld("KS", "KS", "KH")], [])),
    # a plain pile, but the side has not melded yet (the opponents have)
    "side not melded": dict(discard=["9C", "KH"], melds=([], [NINES]), scores=(-100, 0)),
}


@pytest.mark.parametrize("why", list(FREEZES))
def test_frozen_pile_needs_natural_pair_from_hand(why: str) -> None:
    """seed 000 'Der eingefrorene Stapel'; pagat: Frozen Discard Pile. The three ways a pile is
    frozen; frozen, it is taken only with two natural cards of the top card's rank from the hand:
    natural + wild and adding the top card to the side's meld are refused."""
    state = table({0: ["KD", "KC", "JK", "9C", "4C"]}, **FREEZES[why])
    assert refused(state, take("KD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert_legal(state, take("KD", "KC"))
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]


def test_unfrozen_pile_control() -> None:
    """seed 000 'Den Ablagestapel nehmen'; pagat: The Play in Classic Canasta. The same pile
    without a wild or red three, for a side that has melded, is not frozen: natural + wild and
    adding to the side's meld are accepted (the control of the frozen cases)."""
    state = table({0: ["KD", "KC", "JK", "9C", "4C"]}, discard=["9C", "5D", "KH"],
                  melds=([NINES, meld("KS", "KS", "KH")], []))
    assert_legal(state, take("KD", "JK"))
    assert_legal(state, take())
    assert_legal(state, take("KD", "KC"))


def test_wild_discard_freezes_pile_for_everyone() -> None:
    """seed 000 'Der eingefrorene Stapel' and 'Häufige Irrtümer'; pagat: Frozen Discard Pile.
    A wild card discarded freezes the pile for everyone -- not only for the next player --
    until someone takes it."""
    state = table({0: ["2C", "9C", "4C"], 1: ["KD", "8C", "6C"], 2: ["KC", "JK", "7C", "5C"]},
                  discard=["9H", "5D"], melds=([NINES, meld("KS", "KS", "KH")], [meld("AS", "AS", "AH")]),
                  turn=PLAY)
    state = after(state, discard("2C"))
    assert state["turn"]["seat"] == 1
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_WILD")
    state = after(state, DRAW, discard("KD"))  # seat 1 covers the wild with a king
    assert state["turn"]["seat"] == 2 and state["discard"][-1] == "KD"
    # seat 2's side has a K meld and holds K + joker: both would do on an unfrozen pile
    assert refused(state, take("KC", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")


def test_red_three_in_taken_pile_goes_to_bonus_without_replacement() -> None:
    """seed 000 'Streit- und Sonderfälle'; pagat: Threes in Classic Canasta. Whoever takes a pile
    started over a red three lays it out for the side and draws no replacement."""
    state = table({0: ["KD", "KC", "9C", "4C"]}, discard=["3H", "9D", "KH"],
                  melds=([NINES], []))
    stock = len(state["stock"])
    new = after(state, take("KD", "KC"))
    assert new["bonus_cards"][0] == ["3H"]
    assert hand_of(new, 0) == ["4C", "9C", "9D"]
    assert len(new["stock"]) == stock
    assert new["discard"] == []


# =============================================================================================
# 4. Black threes on the pile
# =============================================================================================


@pytest.mark.parametrize("black", BLACK_THREES)
def test_black_three_on_top_blocks_taking(black: str) -> None:
    """seed 000 'Die Dreien' and 'Den Ablagestapel nehmen'; pagat: Threes in Classic Canasta.
    Nobody may take the pile while a black three lies on top, whatever he holds."""
    state = table({0: ["KD", "KC", black, "JK", "9C"]}, discard=["9D", "KH", black],
                  melds=([NINES, meld("KS", "KS", "KH")], []))
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert refused(state, take("KD", "KC")) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []


def test_covered_black_three_neither_blocks_nor_freezes() -> None:
    """seed 000 'Die Dreien' and 'Häufige Irrtümer'; pagat: Threes in Classic Canasta. Once
    covered, a black three has no effect: it does not freeze the pile (natural + wild works)."""
    state = table({0: ["KD", "KC", "JK", "9C"]}, discard=["9D", "3S", "KH"],
                  melds=([NINES, meld("KS", "KS", "KH")], []))
    assert_legal(state, take("KD", "JK"))
    assert_legal(state, take())
    new = after(state, take("KD", "KC"))
    assert "3S" in new["hands"][0]  # the covered black three joins the hand with the pile


# =============================================================================================
# 5. Taking the pile
# =============================================================================================


@pytest.mark.parametrize("cards, k_meld", [
    (["KD", "KC"], ["KC", "KD", "KH"]),            # natural pair: a new meld
    (["KD", "JK"], ["JK", "KD", "KH"]),            # one natural and one wild: a new meld
])
def test_take_unfrozen_pile_with_new_meld(cards: list[str], k_meld: list[str]) -> None:
    """seed 000 'Den Ablagestapel nehmen'; pagat: The Play in Classic Canasta. An unfrozen pile
    is taken with a natural pair or one natural and one wild card from the hand; the top card
    is melded at once, the rest of the pile goes to the hand."""
    state = table({0: ["KD", "KC", "JK", "4C"]}, discard=["9C", "5D", "KH"], melds=([NINES], []))
    new = after(state, take(*cards))
    assert side_melds(new, 0)["K"] == k_meld
    rest = sorted(set(["KD", "KC", "JK", "4C"]) - set(cards)) + ["5D", "9C"]
    assert hand_of(new, 0) == sorted(rest)
    assert new["discard"] == []
    assert new["turn"]["phase"] == "play" and new["turn"]["took_pile"] is True


@pytest.mark.parametrize("melder", [0, 2])
def test_take_unfrozen_pile_by_adding_top_card_to_side_meld(melder: int) -> None:
    """seed 000 'Den Ablagestapel nehmen' and 'Meldungen und Canastas'; pagat: The Play in
    Classic Canasta, Melds and Canastas. The top card may be added to the side's meld of its rank,
    whichever partner laid it."""
    state = table({0: ["4C", "6C"]}, discard=["9C", "KH"],
                  melds=([meld("KS", "KS", "KD")], []), turn={"seat": 0, "melded": [melder]})
    new = after(state, take())
    assert side_melds(new, 0)["K"] == ["KD", "KH", "KS", "KS"]
    assert hand_of(new, 0) == ["4C", "6C", "9C"]


@pytest.mark.parametrize("cards, melds, code", [
    ([], ([NINES], []), "NO_MELD_TO_ADD_TO"),                           # no K meld at all
    ([], ([NINES], [meld("KS", "KS", "KD")]), "NO_MELD_TO_ADD_TO"),     # only the opponents' K meld
    (["2C", "JK"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),           # two wilds
    (["KD"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),                 # one card
    (["KD", "KC", "JK"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),     # three cards
    (["QD", "QC"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),           # a pair of another rank
])
def test_take_pile_refused_without_a_way_to_meld_top_card(cards: list[str], melds: Any,
                                                         code: str) -> None:
    """seed 000 'Den Ablagestapel nehmen'; pagat: The Play in Classic Canasta. The pile is taken
    only by melding its top card at once: with a natural pair, a natural and a wild, or onto the
    side's own meld (opponents' melds never count)."""
    state = table({0: ["KD", "KC", "QD", "QC", "2C", "JK", "4C"]}, discard=["9C", "KH"],
                  melds=melds)
    assert refused(state, take(*cards)) == (0, code)


@pytest.mark.parametrize("wild", ["2C", "JK"])
def test_wild_on_top_nobody_may_take(wild: str) -> None:
    """seed 000 'Den Ablagestapel nehmen'; pagat: The Play in Classic Canasta. While the top card
    is a wild card nobody may take the pile, not even with wild cards or a meld of the rank below."""
    state = table({0: ["KD", "KC", "2D", "JK", "4C"]}, discard=["9C", "KH", wild],
                  melds=([NINES, meld("KS", "KS", "KH")], []))
    for cards in ([], ["2D", "JK"], ["KD", "KC"]):
        assert refused(state, take(*cards)) == (0, "PILE_BLOCKED_BY_WILD")
    assert takes_listed(state) == []


def test_buried_card_never_qualifies() -> None:
    """seed 000 'Streit- und Sonderfälle'; pagat: The Play in Classic Canasta. One king in hand,
    a king on top and another king buried: the pile cannot be taken (the buried king does not
    count)."""
    state = table({0: ["KD", "9D", "4C", "6C"]}, discard=["9C", "KS", "QH", "KH"],
                  melds=([NINES], []))
    assert takes_listed(state) == []
    assert refused(state, take("KD")) == (0, "PILE_CARDS_DO_NOT_MATCH")
    assert refused(state, take("KD", "KS")) == (0, "CARDS_NOT_IN_HAND")


def test_two_in_hand_take_then_meld_buried_card() -> None:
    """seed 000 'Streit- und Sonderfälle'; pagat: The Play in Classic Canasta. With two kings in
    hand the pile is taken, and the buried king may then be added to the new meld."""
    state = table({0: ["KD", "KC", "4C", "6C"]}, discard=["9C", "KS", "QH", "KH"],
                  melds=([NINES], []))
    new = after(state, take("KD", "KC"), lay("KS"))
    assert side_melds(new, 0)["K"] == ["KC", "KD", "KH", "KS"]
    assert hand_of(new, 0) == ["4C", "6C", "9C", "QH"]


@pytest.mark.parametrize("hand, pile, ok", [
    (["KD"], ["KH"], False),              # one card in hand, one-card pile
    (["KD"], ["9C", "KH"], True),         # one card in hand, two-card pile
    (["KD", "6C"], ["KH"], True),         # two cards in hand, one-card pile
])
def test_one_card_in_hand_may_not_take_one_card_pile(hand: list[str], pile: list[str],
                                                     ok: bool) -> None:
    """VARIANTS.md classic, Discard pile (Britannica: canasta, Going out; research.md 2.5).
    A player holding one card may not take a one-card pile."""
    state = table({0: hand}, discard=pile, melds=([meld("KS", "KS", "KC")], []))
    if ok:
        assert_legal(state, take())
    else:
        assert refused(state, take()) == (0, "ONE_CARD_PILE")


def test_wild_limit_holds_for_meld_made_by_taking_pile() -> None:
    """seed 000 'Den Ablagestapel nehmen'; pagat: Melds in Classic Canasta. The wild limit holds
    for the meld that results: a king meld with three wilds takes no fourth with the top king."""
    state = table({0: ["KD", "KC", "2S", "4C"]}, discard=["9C", "KH"],
                  melds=([meld("KS", "KS", "2C", "2D", "JK")], []))
    assert refused(state, take("KD", "2S")) == (0, "TOO_MANY_WILDS")
    new = after(state, take("KD", "KC"))  # a natural pair joins the one king meld
    assert side_melds(new, 0)["K"] == ["2C", "2D", "JK", "KC", "KD", "KH", "KS", "KS"]


# =============================================================================================
# 6. Melds: size, wild limits, one meld per rank, no wild-only melds, black threes
# =============================================================================================

MELD_HAND = ["KH", "KD", "KS", "QD", "JS", "2C", "2D", "JK", "JK", "JK", "4C", "6C", "7C"]


@pytest.mark.parametrize("cards, code", [
    (["KH", "KD", "KS"], None),                                   # three naturals
    (["KH", "KD", "2C"], None),                                   # two naturals and a wild
    (["KH", "KD", "2C", "2D", "JK"], None),                       # 2 naturals + 3 wilds: legal
    (["KH", "KD", "KS", "2C", "2D", "JK", "JK"], "TOO_MANY_WILDS"),  # four wilds
    (["KH", "2C", "JK"], "TOO_FEW_NATURALS"),                     # one natural only
    (["KH", "KD"], "MELD_TOO_SMALL"),                             # two cards
    (["KH", "QD", "JS"], "NOT_A_VALID_MELD"),                     # no sequences, one rank only
])
def test_meld_shape(cards: list[str], code: str | None) -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta, Melds and Canastas.
    A meld is three or more cards of one rank with at least two naturals and at most three wild
    cards; two naturals with three wilds is legal; no sequences."""
    state = table({0: MELD_HAND}, melds=([NINES], []), turn=PLAY)
    if code is None:
        new = after(state, lay(*cards))
        assert side_melds(new, 0)["K"] == sorted(cards)
    else:
        assert refused(state, lay(*cards)) == (0, code)


def test_wilds_added_to_meld_up_to_three() -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta. Wild cards may be added
    to a meld (naming its rank) until it holds three; a fourth is refused."""
    state = table({0: ["2D", "JK", "JK", "4C", "6C", "7C"]},
                  melds=([meld("KH", "KD", "2C")], []), turn=PLAY)
    assert refused(state, lay("2D", "JK", "JK", rank="K")) == (0, "TOO_MANY_WILDS")
    new = after(state, lay("2D", "JK", rank="K"))
    assert side_melds(new, 0)["K"] == ["2C", "2D", "JK", "KD", "KH"]
    assert refused(new, lay("JK", rank="K")) == (0, "TOO_MANY_WILDS")


@pytest.mark.parametrize("rank, code", [
    ("K", "TOO_FEW_NATURALS"),          # wild cards alone cannot start a king meld
    ("wild", "WILD_MELD_NOT_ALLOWED"),  # classic has no meld of wild cards
    (None, "RANK_NEEDED"),              # wilds alone name no rank at all
])
def test_no_wild_only_melds(rank: str | None, code: str) -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta. A meld of jokers and
    twos only does not exist in the classic game."""
    state = table({0: ["2C", "2D", "JK", "4C", "6C", "7C"]}, melds=([NINES], []), turn=PLAY)
    assert refused(state, lay("2C", "2D", "JK", rank=rank)) == (0, code)


@pytest.mark.parametrize("seat", [0, 2])
def test_one_meld_per_rank_more_cards_join_it(seat: int) -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta. A side has one meld
    per rank: a second meld of kings, by either partner, joins the first; the opponents' meld
    of the same rank is a separate meld and stays untouched."""
    state = table({seat: ["KC", "KC", "2C", "4C", "6C"]},
                  melds=([meld("KH", "KD", "KS")], [meld("KH", "KD", "KS")]),
                  turn={"seat": seat, **PLAY})
    new = after(state, lay("KC", "KC", "2C"))
    assert [m["rank"] for m in new["melds"][0]] == ["K"]
    assert side_melds(new, 0)["K"] == ["2C", "KC", "KC", "KD", "KH", "KS"]
    assert side_melds(new, 1)["K"] == ["KD", "KH", "KS"]


def test_two_melds_of_one_rank_are_an_invalid_state() -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta. A state showing two
    melds of the same rank for one side is invalid."""
    state = table({0: ["4C", "6C"]}, melds=([meld("KH", "KD", "KS")], []))
    state["melds"][0].append(meld("KC", "KC", "2C"))
    state["hands"][0] = ["4C", "6C"]
    state["stock"] = [c for c in state["stock"]]
    for card in ("KC", "KC", "2C"):
        state["stock"].remove(card)
    codes = [p["code"] for p in api.validate({"state": state})["problems"]]
    assert codes == ["DUPLICATE_MELD_RANK"]


def test_opponents_melds_cannot_be_added_to() -> None:
    """seed 000 'Meldungen und Canastas' and 'Häufige Irrtümer'; pagat: Melds and Canastas.
    A single king cannot go to the opponents' king meld: for seat 1 it would be a new meld of
    one card."""
    state = table({1: ["KC", "4C", "6C"]}, melds=([meld("KH", "KD", "KS")], [NINES]),
                  turn={"seat": 1, **PLAY})
    assert refused(state, lay("KC")) == (0, "MELD_TOO_SMALL")
    assert refused(state, lay("2C", rank="K")) == (0, "CARDS_NOT_IN_HAND")


def test_black_threes_melded_when_going_out() -> None:
    """seed 000 'Die Dreien'; pagat: Threes in Classic Canasta. Three or four black threes, no wild
    card, may be melded by a player going out."""
    state = table({0: ["3S", "3S", "3C", "9C"]}, melds=([JACKS_CANASTA], []), turn=PLAY)
    new = after(state, lay("3S", "3S", "3C"), discard("9C"))
    assert new["turn"]["phase"] == "over" and new["turn"]["went_out"] == 0
    assert side_melds(new, 0)["3"] == ["3C", "3S", "3S"]


@pytest.mark.parametrize("hand, cards", [
    (["3S", "3S", "3C", "9C", "4C"], ["3S", "3S", "3C"]),  # would not go out: 9 and 4 are left
    (["3S", "3C", "2C", "9C"], ["3S", "3C", "2C"]),        # a wild card with black threes
])
def test_black_threes_not_melded_otherwise(hand: list[str], cards: list[str]) -> None:
    """seed 000 'Die Dreien'; pagat: Threes in Classic Canasta. Black threes are melded only when
    going out, as three or four without wild cards; otherwise the meld is refused for that rule
    (not for a partner's answer that nobody gave)."""
    state = table({0: hand}, melds=([JACKS_CANASTA], []), turn=PLAY)
    assert refused(state, lay(*cards)) == (0, "BLACK_THREES_ONLY_WHEN_GOING_OUT")


# =============================================================================================
# 7. Canastas and their bonuses
# =============================================================================================

SEVEN_KINGS = ["KS", "KS", "KH", "KH", "KD", "KD", "KC"]


@pytest.mark.parametrize("cards, melded, bonus", [
    (SEVEN_KINGS, 70, 500),                          # natural canasta: 500 + 7 x 10 = 570
    (SEVEN_KINGS + ["KC"], 80, 500),                 # eight naturals: 500 + 8 x 10 = 580
    (["KS", "KS", "KH", "KH", "KD", "2C", "JK"], 120, 300),  # mixed: 300 + 5 x 10 + 20 + 50 = 420
    (["KS", "KS", "KH", "KH", "2C", "2D", "JK"], 130, 300),  # mixed, 4 naturals + 3 wilds
    (["KS", "KS", "KH", "KH", "KD", "KD"], 60, 0),   # six cards: no canasta yet
])
def test_canasta_bonus(cards: list[str], melded: int, bonus: int) -> None:
    """seed 000 'Meldungen und Canastas' and 'Abrechnung'; pagat: Melds and Canastas, Classic
    Canasta Scoring. Seven or more cards are a canasta: natural 500, mixed 300, plus the cards."""
    state = table({0: ["4C"], 2: ["4C"]}, melds=([meld(*cards)], []))
    b = breakdown(state, 0)
    assert (b["melded_cards"], b["canasta_bonus"]) == (melded, bonus)
    assert b["melded_cards"] + b["canasta_bonus"] == melded + bonus


def test_seven_kings_golden() -> None:
    """seed 000 'Abrechnung'; pagat: Classic Canasta Scoring. "Sieben Könige sind also 500 + 70 =
    570 Punkte"."""
    state = table({0: ["4C"], 2: ["4C"]}, melds=([meld(*SEVEN_KINGS)], []))
    b = breakdown(state, 0)
    assert b["melded_cards"] + b["canasta_bonus"] == 570  # 500 + 7 x 10


def test_wild_added_to_natural_canasta_makes_it_mixed() -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds in Classic Canasta (ASS p. 3). A wild card
    added to a natural canasta makes it mixed for good: the bonus drops from 500 to 300."""
    state = table({0: ["2C", "4C", "6C"], 2: ["4C"]}, melds=([meld(*SEVEN_KINGS)], []), turn=PLAY)
    assert breakdown(state, 0)["canasta_bonus"] == 500
    new = after(state, lay("2C", rank="K"))
    b = breakdown(new, 0)
    assert b["canasta_bonus"] == 300
    assert b["melded_cards"] == 90  # 7 x 10 + 20
