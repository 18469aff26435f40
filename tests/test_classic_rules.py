"""Classic Canasta for four players, one test (or a small parametrized group) per rule.

Every test drives the engine at the JSON level (``engine.api``, the contract of CONTRACT.md) and
names its source: the section of seed 000 (``shared/seeds/000_8dfc37645e691ef9.txt``) and the
pagat section it cites; ``VARIANTS.md classic`` decides where they differ.

States are complete and valid: ``table()`` takes the parts a test cares about and puts every
other card of the 108-card deck into the stock (or into a named hand when the stock must be
empty).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from canasta_referee.engine import api
from tests.builders import (
    ASK,
    BLACK_THREES,
    DECK,
    DRAW,
    JACKS_CANASTA,
    JUNK,
    K3,
    NINES,
    OFFERS,
    PLAY,
    RED_THREES,
    SEVEN_FIVES,
    SEVEN_KINGS,
    SHORT,
    Data,
    after,
    answer,
    assert_legal,
    breakdown,
    discard,
    events_of,
    hand_of,
    is_wild,
    lay,
    legal_list,
    meld,
    pending_of,
    refused,
    run,
    score,
    side_melds,
    table,
    take,
    takes_listed,
)


def dealt(seed: int, dealer: int = 0) -> Data:
    return api.deal({"seed": seed, "dealer": dealer, "scores": [0, 0]})


def first_seed(pred: Any, limit: int = 500) -> tuple[int, Data]:
    """The first seed whose deal satisfies ``pred`` (the search is deterministic)."""
    for seed in range(limit):
        answer = dealt(seed)
        if pred(answer):
            return seed, answer
    raise AssertionError("no seed in range satisfies the predicate")



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


#: (hand, pile, legal) of a lone king on the pile added to the side's kings
ONE_CARD_PILE_CASES = [
    (["KD"], ["KH"], False),              # one card in hand, one-card pile
    (["KD"], ["9C", "KH"], True),         # one card in hand, two-card pile
    (["KD", "6C"], ["KH"], True),         # two cards in hand, one-card pile
]


@pytest.mark.parametrize("hand, pile, ok", ONE_CARD_PILE_CASES)
def test_one_card_in_hand_may_not_take_one_card_pile(hand: list[str], pile: list[str],
                                                     ok: bool) -> None:
    """VARIANTS.md classic, Discard pile (not in seed 000; Britannica: canasta, Going out;
    research.md 2.5). A player holding one card may not take a one-card pile."""
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
    state["melds"][0].append(meld("KC", "KC", "2C"))  # moved from the stock
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


# =============================================================================================
# 8. The initial meld
# =============================================================================================



BANDS = [  # (score before the deal, minimum); boundaries exactly 0, 1500, 3000
    (-2000, 15), (-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (4995, 120),
]


def _initial(score_before: int, melds: list[list[str]]) -> Data:
    hand = [c for m in melds for c in m] + JUNK
    return table({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_exactly_the_minimum_is_accepted(score_before: int, minimum: int) -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement. Minimum by
    the side's score before the deal: below 0: 15; 0-1,495: 50; 1,500-2,995: 90; 3,000+: 120."""
    melds = OFFERS[minimum]
    answer = run(_initial(score_before, melds), *[lay(*m) for m in melds])
    new = answer["state"]
    assert "pending" not in new["turn"]
    assert len(new["melds"][0]) == len(melds)
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [
        (minimum, minimum)]


@pytest.mark.parametrize("score_before, minimum", [b for b in BANDS if b[1] > 15])
def test_initial_meld_below_the_minimum_is_refused(score_before: int, minimum: int) -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement. Five points
    short of the band's minimum is refused (the first meld cannot be completed: the hand holds
    nothing more to meld), and so is the previous band's minimum."""
    for melds in (SHORT[minimum], OFFERS[{50: 15, 90: 50, 120: 90}[minimum]]):
        state = _initial(score_before, melds)
        assert refused(state, *[lay(*m) for m in melds]) == (0, "INITIAL_MELD_UNREACHABLE")


@pytest.mark.parametrize("score_before, melds, ok", [
    (1600, [["6S", "6H", "6D"], ["KH", "KD", "KS", "2C"]], False),  # 15 + 30 + 20 = 65 < 90
    (1600, [["6S", "6H", "6D"], ["AH", "AD", "AS", "2C"]], True),   # 15 + 60 + 20 = 95 >= 90
    (1000, [["6S", "6H", "6D"], ["KH", "KD", "KS", "2C"]], True),   # 65 >= 50
    (3000, [["6S", "6H", "6D"], ["AH", "AD", "AS", "2C"]], False),  # 95 < 120
])
def test_several_melds_in_one_turn_count_together(score_before: int, melds: list[list[str]],
                                                  ok: bool) -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement (research.md
    10.4, Wikipedia example). Several melds laid in the same turn count together."""
    state = _initial(score_before, melds)
    actions = [lay(*m) for m in melds]
    if ok:
        new = after(state, *actions)
        assert sorted(m["rank"] for m in new["melds"][0]) == sorted(m[0][0] for m in melds)
    else:
        assert refused(state, *actions) == (0, "INITIAL_MELD_UNREACHABLE")


def test_pending_melds_and_no_discard_while_short() -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement. A meld short
    of the minimum stays pending while more melds may follow this turn; the player may not
    discard until the side has met its minimum."""
    state = _initial(0, [["KH", "KD", "KS"], ["QH", "QD", "QS"]])
    first = after(state, lay("KH", "KD", "KS"))
    assert first["melds"][0] == []
    assert pending_of(first) == {"K": ["KD", "KH", "KS"]}
    assert refused(first, discard("9C")) == (0, "INITIAL_MELD_TOO_LOW")
    answer = run(first, lay("QH", "QD", "QS"))
    assert sorted(m["rank"] for m in answer["state"]["melds"][0]) == ["K", "Q"]
    assert "pending" not in answer["state"]["turn"]
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [60]  # 3 x 10 + 3 x 10
    assert_legal(answer["state"], discard("9C"))


def test_bonuses_do_not_count_toward_the_minimum() -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte' and 'Häufige Irrtümer'; pagat: Initial Meld
    Requirement. Only card values count: a natural canasta of fives (35 points, +500 bonus) and
    four red threes (+800) do not make 50 -- unless the player goes out concealed."""
    fives = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]
    state = table({0: fives + JUNK}, melds=([], [NINES]), bonus=(["3H", "3H", "3D", "3D"], []),
                  turn=PLAY)
    assert refused(state, lay(*fives)) == (0, "INITIAL_MELD_UNREACHABLE")


def test_partner_melded_means_no_minimum() -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement. Once the
    side has melded, both partners meld freely, whatever the score."""
    state = table({0: ["5S", "5H", "5D"] + JUNK}, melds=([NINES], []), scores=(3000, 0),
                  turn={**PLAY, "melded": [2]})
    new = after(state, lay("5S", "5H", "5D"))
    assert side_melds(new, 0)["5"] == ["5D", "5H", "5S"]


def test_initial_meld_top_card_counts() -> None:
    """seed 000 'Der eingefrorene Stapel'; pagat: Initial Meld Requirement. When the pile is taken
    for the initial meld, the top card counts: two aces (40) with the top ace make 60 >= 50."""
    state = table({0: ["AD", "AC"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    answer = run(state, take("AD", "AC"))
    assert side_melds(answer["state"], 0)["A"] == ["AC", "AD", "AH"]
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [60]  # 3 x 20
    assert hand_of(answer["state"], 0) == ["6C", "8D", "9C"]


SEED_000_PILE = ["8D", "QS", "KS", "KH"]  # top K; under it a K and a Q
SEED_000_HAND = ["KD", "KC", "QH", "QD", "2C"] + JUNK


def test_initial_meld_seed_000_example_meets_50() -> None:
    """seed 000 'Der eingefrorene Stapel' (example); pagat: Initial Meld Requirement. Top K, a K
    and a Q under it; hand K K Q Q 2: K-K-K (30) + Q-Q-2 (40) = 70 meets 50; the buried K and Q
    join the hand only afterwards and may then be melded."""
    state = table({0: SEED_000_HAND}, discard=SEED_000_PILE, melds=([], [NINES]), scores=(0, 0))
    answer = run(state, take("KD", "KC"), lay("QH", "QD", "2C"))
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [70]  # 30 + 10 + 10 + 20
    new = answer["state"]
    assert hand_of(new, 0) == ["6C", "8D", "9C", "KS", "QS"]
    new = after(new, lay("KS"), lay("QS"))
    assert side_melds(new, 0) == {"K": ["KC", "KD", "KH", "KS"], "Q": ["2C", "QD", "QH", "QS"]}


def test_initial_meld_seed_000_example_not_90() -> None:
    """seed 000 'Der eingefrorene Stapel' (example); pagat: Initial Meld Requirement. The same
    cards do not meet 90: the buried K and Q (which would make 90) do not count, so taking the
    pile is refused -- the turn could not be finished."""
    state = table({0: SEED_000_HAND}, discard=SEED_000_PILE, melds=([], [NINES]),
                  scores=(1500, 0))
    assert refused(state, take("KD", "KC"), lay("QH", "QD", "2C"), lay("KS"), lay("QS")) == (
        0, "INITIAL_MELD_UNREACHABLE")


def test_pile_cards_held_until_minimum_met() -> None:
    """seed 000 'Der eingefrorene Stapel'; pagat: Initial Meld Requirement (turn.held). A side
    that has not melded takes the pile with a meld short of its minimum: the meld is pending and
    the pile's other cards are held apart until the minimum is met, then join the hand."""
    state = table({0: ["KD", "KC", "QH", "QD", "QS"] + JUNK}, discard=["8D", "4D", "KH"],
                  melds=([], [NINES]))
    taken = after(state, take("KD", "KC"))
    assert pending_of(taken) == {"K": ["KC", "KD", "KH"]}
    assert sorted(taken["turn"]["held"]) == ["4D", "8D"]
    assert hand_of(taken, 0) == ["6C", "9C", "QD", "QH", "QS"]
    assert refused(taken, discard("9C")) == (0, "INITIAL_MELD_TOO_LOW")
    met = after(taken, lay("QH", "QD", "QS"))
    assert hand_of(met, 0) == ["4D", "6C", "8D", "9C"]
    assert "held" not in met["turn"] and "pending" not in met["turn"]


# =============================================================================================
# 9. Going out
# =============================================================================================



@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD")]),                  # the meld leaves one card: discarding it empties
    (["KD", "KC", "9C"], [lay("KD", "KC")]),      # the same with two cards added
    (["KD", "KC"], [lay("KD", "KC")]),            # the meld empties the hand at once
    (["KD", "9C"], [lay("KD"), discard("9C")]),   # and the final discard itself
])
def test_no_going_out_without_canasta(hand: list[str], actions: list[Data]) -> None:
    """seed 000 'Ausmachen: So endet die Runde' and 'Häufige Irrtümer'; pagat: Going Out.
    Without a canasta the side may not go out: a meld that would leave the player fewer than two
    cards (so that discarding would empty his hand) is refused."""
    state = table({0: hand}, melds=([K3], []), turn=PLAY)
    assert refused(state, *actions) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


def test_without_canasta_keep_a_card() -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. Without a canasta the player
    plays on keeping at least one card: discarding from two cards, or melding with two left."""
    assert_legal(table({0: ["KD", "9C"]}, melds=([K3], []), turn=PLAY), discard("9C"))
    assert_legal(table({0: ["KD", "9C", "4C"]}, melds=([K3], []), turn=PLAY), lay("KD"),
                 discard("9C"))


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD"), discard("9C")]),   # meld, then a final discard
    (["KD", "KC"], [lay("KD", "KC")]),            # melding the whole hand, no discard
    (["9C"], [discard("9C")]),                    # a discard of the last card
])
def test_going_out_with_canasta(hand: list[str], actions: list[Data]) -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. With a canasta the player goes
    out by emptying his hand, by melding with or without a final discard."""
    state = table({0: hand}, melds=([JACKS_CANASTA, K3], []), turn={**PLAY, "melded": [0, 2]})
    new = after(state, *actions)
    assert new["turn"]["phase"] == "over"
    assert new["turn"]["went_out"] == 0 and new["turn"]["concealed"] is False
    assert new["hands"][0] == []
    assert breakdown(new, 0)["going_out"] == 100
    assert refused(new, DRAW) == (0, "DEAL_OVER")


def test_canasta_completed_in_the_same_turn() -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. The canasta needed to go out may
    be completed in the same turn: six kings + the seventh, then the last discard."""
    six = meld("KS", "KS", "KH", "KH", "KD", "KC")
    state = table({0: ["KD", "9C"]}, melds=([six], []), turn=PLAY)
    new = after(state, lay("KD"), discard("9C"))
    assert new["turn"]["phase"] == "over" and new["turn"]["went_out"] == 0
    # five kings + one is still no canasta: the same play is refused
    five = meld("KS", "KS", "KH", "KH", "KC")
    state = table({0: ["KD", "9C"]}, melds=([five], []), turn=PLAY)
    assert refused(state, lay("KD"), discard("9C")) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


# =============================================================================================
# 10. "May I go out?"
# =============================================================================================

CAN_GO_OUT = ["KD", "KC", "KH", "9C"]  # kings to meld, a nine to discard; the side has a canasta


def _asking(**turn: Any) -> Data:
    return table({0: CAN_GO_OUT}, melds=([JACKS_CANASTA], []), turn={**PLAY, **turn})


def test_ask_partner_after_drawing() -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. Right after drawing, a player who
    could go out may ask his partner "may I go out?"; the partner (seat 2) answers."""
    new = after(_asking(), ASK)
    assert new["turn"]["phase"] == "answer" and new["turn"]["asked"] == "waiting"
    listed = api.legal_actions({"state": new})
    assert listed["seat"] == 2
    assert sorted(a["allow"] for a in listed["actions"]) == [False, True]
    assert refused(new, {"type": "answer", "allow": True, "seat": 1}) == (0, "NOT_YOUR_TURN")
    assert refused(new, discard("9C")) == (0, "WRONG_PHASE")


def test_answer_yes_obliges_going_out() -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. A yes binds: the player must go
    out this turn; playing on with cards kept is refused."""
    state = after(_asking(), ASK, answer(True))
    assert state["turn"]["phase"] == "play" and state["turn"]["asked"] == "yes"
    assert refused(state, discard("9C")) == (0, "MUST_GO_OUT")
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))
    assert new["turn"]["phase"] == "over" and new["turn"]["went_out"] == 0


def test_answer_no_forbids_going_out() -> None:
    """seed 000 'Ausmachen: So endet die Runde' and 'Streit- und Sonderfälle'; pagat: Going Out.
    A no binds: the player must keep at least one card after discarding."""
    state = after(_asking(), ASK, answer(False))
    assert state["turn"]["phase"] == "play" and state["turn"]["asked"] == "no"
    assert refused(state, lay("KD", "KC", "KH")) == (0, "PARTNER_SAID_NO")
    new = after(state, discard("9C"))
    assert new["turn"]["seat"] == 1 and hand_of(new, 0) == ["KC", "KD", "KH"]


@pytest.mark.parametrize("case", ["before drawing", "after melding", "after taking the pile",
                                  "cannot go out", "no canasta", "twice"])
def test_ask_only_right_after_drawing_when_able_to_go_out(case: str) -> None:
    """seed 000 'Ausmachen: So endet die Runde'; pagat: Going Out. Asking is allowed only right
    after drawing from the stock, before melding, by a player who could go out this turn."""
    if case == "before drawing":
        state, actions = table({0: CAN_GO_OUT}, melds=([JACKS_CANASTA], [])), [ASK]
        expected = (0, "WRONG_PHASE")
    elif case == "after melding":
        hand = ["KD", "KC", "KH", "QD", "QC", "QH", "9C"]
        state = table({0: hand}, melds=([JACKS_CANASTA], []), turn=PLAY)
        actions, expected = [lay("KD", "KC", "KH"), ASK], (1, "ASK_NOT_ALLOWED")
    elif case == "after taking the pile":
        state = table({0: CAN_GO_OUT}, discard=["8D", "JC"], melds=([JACKS_CANASTA], []))
        actions, expected = [take(), ASK], (1, "ASK_NOT_ALLOWED")
    elif case == "cannot go out":
        state = table({0: ["KD", "9C", "4C"]}, melds=([JACKS_CANASTA], []), turn=PLAY)
        actions, expected = [ASK], (0, "ASK_NOT_ALLOWED")
    elif case == "no canasta":
        state = table({0: CAN_GO_OUT}, melds=([NINES], []), turn=PLAY)
        actions, expected = [ASK], (0, "ASK_NOT_ALLOWED")
    else:
        state, actions = _asking(), [ASK, answer(False), ASK]
        expected = (2, "ASK_NOT_ALLOWED")
    assert refused(state, *actions) == expected


# =============================================================================================
# 11. Going out concealed
# =============================================================================================



@pytest.mark.parametrize("hand, actions", [
    (SEVEN_FIVES, [lay(*SEVEN_FIVES)]),                          # melding the whole hand
    (SEVEN_FIVES + ["4C"], [lay(*SEVEN_FIVES), discard("4C")]),  # with a final discard
])
def test_concealed_after_drawing_waives_minimum(hand: list[str], actions: list[Data]) -> None:
    """seed 000 'Verdeckt ausmachen' and 'Streit- und Sonderfälle'; pagat: Initial Meld
    Requirement, Going Out. A player of a side that has not melded, who drew from the stock,
    goes out in one turn laying a complete canasta: the minimum (50) does not apply -- the
    canasta of fives counts only 35 -- whether or not he ends with a discard."""
    state = table({0: hand}, melds=([], [NINES]), turn=PLAY)
    new = after(state, *actions)
    assert new["turn"]["phase"] == "over"
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    assert side_melds(new, 0) == {"5": sorted(SEVEN_FIVES)}
    assert breakdown(new, 0)["going_out"] == 200


def test_no_concealed_going_out_without_canasta() -> None:
    """seed 000 'Verdeckt ausmachen' and 'Ausmachen: So endet die Runde'; pagat: Going Out. The
    waiver of the minimum needs a complete canasta: six fives pending (30 < 50) and one card
    left -- the last discard would go out without a canasta and is refused; so is the meld that
    would lead there."""
    six = ["5S", "5S", "5H", "5H", "5D", "5D"]
    state = table({0: ["4C"]}, melds=([], [NINES]), turn={**PLAY, "pending": [meld(*six)],
                                                          "started": ["5"]})
    assert refused(state, discard("4C")) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")
    start = table({0: six + ["4C"]}, melds=([], [NINES]), turn=PLAY)
    assert refused(start, lay(*six)) == (0, "INITIAL_MELD_UNREACHABLE")


def test_concealed_with_the_pile_meets_the_minimum() -> None:
    """seed 000 'Verdeckt ausmachen'; pagat: Initial Meld Requirement, Going Out. Going out
    concealed after taking the pile is allowed when the top card and the hand cards melded with
    it meet the minimum: top A + A A = 60 >= 50, then four more aces make the canasta."""
    hand = ["AD", "AC", "AS", "AS", "AD", "AC"]
    state = table({0: hand}, discard=["9H", "AH"], melds=([], [NINES]))
    new = after(state, take("AD", "AC"), lay("AS", "AS", "AD", "AC"), discard("9H"))
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    assert breakdown(new, 0)["going_out"] == 200


def test_concealed_with_the_pile_needs_the_minimum() -> None:
    """seed 000 'Verdeckt ausmachen'; pagat: Initial Meld Requirement. With the pile the minimum
    applies even to a concealed going out: top 5 + six fives from the hand make a canasta of
    35 < 50, so taking the pile is refused (the turn could not be finished)."""
    hand = ["5S", "5S", "5D", "5D", "5C", "5C"]
    state = table({0: hand}, discard=["9H", "5H"], melds=([], [NINES]))
    assert refused(state, take("5S", "5S"), lay("5D", "5D", "5C", "5C"), discard("9H")) == (
        0, "INITIAL_MELD_UNREACHABLE")


CONCEALED_CASES = {
    # partner melded before; the player lays a whole canasta of his own: still concealed
    "partner melded": (dict(melds=([meld("QS", "QH", "QD")], []), turn={**PLAY, "melded": [2]}),
                       SEVEN_KINGS + ["9C"], [lay(*SEVEN_KINGS), discard("9C")], True),
    # the player himself melded earlier in the deal
    "melded earlier": (dict(melds=([meld("QS", "QH", "QD")], []), turn={**PLAY, "melded": [0, 2]}),
                       SEVEN_KINGS + ["9C"], [lay(*SEVEN_KINGS), discard("9C")], False),
    # he adds a card to his partner's meld
    "adds to partner's meld": (dict(melds=([meld("QS", "QH", "QD")], []),
                                    turn={**PLAY, "melded": [2]}),
                               SEVEN_KINGS + ["QC", "9C"],
                               [lay(*SEVEN_KINGS), lay("QC"), discard("9C")], False),
    # he lays no complete canasta (the partner's canasta lets him go out)
    "no canasta of his own": (dict(melds=([JACKS_CANASTA], []), turn={**PLAY, "melded": [2]}),
                              ["KD", "KC", "KH", "9C"], [lay("KD", "KC", "KH"), discard("9C")],
                              False),
}


@pytest.mark.parametrize("case", list(CONCEALED_CASES))
def test_concealed_conditions(case: str) -> None:
    """seed 000 'Verdeckt ausmachen'; pagat: Going Out, Classic Canasta Scoring (research.md 2.7).
    Concealed: out in one turn, no meld earlier in the deal, nothing added to the partner's
    melds, at least one complete canasta laid; bonus 200 instead of 100."""
    kwargs, hand, actions, concealed = CONCEALED_CASES[case]
    state = table({0: hand}, **kwargs)
    new = after(state, *actions)
    assert new["turn"]["went_out"] == 0
    assert new["turn"]["concealed"] is concealed
    assert breakdown(new, 0)["going_out"] == (200 if concealed else 100)


# =============================================================================================
# 12. The stock runs out
# =============================================================================================


def _empty_stock(hand: list[str], pile: list[str], melds: Any,
                 stock: Sequence[str] = ()) -> Data:
    """Seat 0 to draw from an (almost) empty stock; seat 1 holds every card nobody named."""
    return table({0: hand}, discard=pile, melds=melds, stock=list(stock), rest_to=1)


def test_empty_stock_forces_taking_matching_unfrozen_pile() -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out. With the stock used up, a player must take
    the pile when it is not frozen and its top card matches a meld of his side."""
    state = _empty_stock(["9C", "4C"], ["8D", "KH"], ([K3], []))
    assert refused(state, DRAW) == (0, "MUST_TAKE_PILE")
    assert [a["type"] for a in legal_list(state)] == ["take-pile"]
    new = after(state, take())
    assert side_melds(new, 0)["K"] == ["KH", "KH", "KS", "KS"]
    assert new["turn"]["phase"] == "play"


@pytest.mark.parametrize("pile, melds, code", [
    (["8D", "KH"], ([K3], []), "MUST_TAKE_PILE"),       # matches the side's kings: must take
    (["8D", "2C", "KH"], ([K3], []), None),             # frozen: may draw, the deal ends
    (["8D", "QH"], ([K3], []), None),                   # no meld of queens: may draw
])
def test_compulsory_pickup_needs_only_the_top_card_and_the_melds(pile: list[str], melds: Any,
                                                                 code: str | None) -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out ('must take it when it is not frozen and
    the top card matches a meld of his side'); issue 15 defect 4. The rule reads only the top card,
    the pile's freezing and the side's melds: the same answer whether the hand is written out
    or given only as its size."""
    state = _empty_stock(["9C", "4C"], pile, melds)
    sized = copy.deepcopy(state)
    sized["hands"][0] = {"size": len(state["hands"][0])}
    for given in (state, sized):
        verdict = api.check({"state": given, "actions": [DRAW]})
        if code:
            assert verdict["reason"]["code"] == code, given
        else:
            assert verdict == {"legal": True}


def test_over_with_nobody_out_and_an_empty_stock_is_a_stock_exhausted_ending() -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out; issue 15 defect 6. A deal given as over,
    with nobody out and the stock empty, ended when the stock ran out, ``stock_exhausted`` given
    or not: it validates and scores as such; with cards left in the stock it stays refused."""
    ended = run(_empty_stock(["9C", "4C"], ["8D", "QH"], ([K3], [])), DRAW)["state"]
    assert ended["turn"]["stock_exhausted"] is True
    unsaid = copy.deepcopy(ended)
    del unsaid["turn"]["stock_exhausted"]
    assert api.validate({"state": unsaid}) == {"valid": True, "problems": []}
    assert score(unsaid) == score(ended)
    assert api.apply({"state": unsaid, "actions": []})["state"]["turn"]["stock_exhausted"] is True
    with_stock = copy.deepcopy(unsaid)
    with_stock["stock"] = [with_stock["hands"][1].pop()]
    codes = {(p["code"], p["path"]) for p in api.validate({"state": with_stock})["problems"]}
    assert codes == {("PHASE_INCONSISTENT", "/state/turn")}


@pytest.mark.parametrize("case, pile, melds, may_take", [
    # frozen (a wild inside): the pile need not be taken although kings are melded ...
    ("frozen", ["8D", "2C", "KH"], ([K3], []), ["KD", "KC"]),
    # ... the top card matches no meld of the side (it may still be taken with a pair)
    ("no matching meld", ["8D", "QH"], ([K3], []), ["QD", "QC"]),
    # ... it matches only the opponents' meld
    ("opponents' meld", ["8D", "QH"], ([K3], [meld("QS", "QS", "QD")]), None),
])
def test_empty_stock_otherwise_the_deal_ends(case: str, pile: list[str], melds: Any,
                                            may_take: list[str] | None) -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out. When the player is not forced to take the
    pile he may draw from the empty stock, which ends the deal (no going out); taking the pile
    stays allowed where it is legal."""
    hand = ["KD", "KC", "QD", "QC", "9C"] if may_take else ["9C", "4C"]
    state = _empty_stock(hand, pile, melds)
    answer = run(state, DRAW)
    turn = answer["state"]["turn"]
    assert turn["phase"] == "over"
    assert (turn["stock_exhausted"], turn["went_out"]) == (True, None)
    assert breakdown(answer["state"], 0)["going_out"] == 0
    listed = [sorted(a["cards"]) for a in takes_listed(state)]
    assert listed == ([sorted(may_take)] if may_take else [])


@pytest.mark.parametrize("stock", [["3H"], ["3D", "3H"]])
def test_red_three_as_last_stock_card_ends_deal_at_once(stock: list[str]) -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out. A red three drawn as the last stock card is
    laid out and the deal ends at once: no meld, no discard."""
    state = _empty_stock(["KD", "KC", "9C"], ["8D", "4D"], ([K3], []), stock=stock)
    before = list(state["bonus_cards"][0])
    new = after(state, DRAW)
    assert sorted(new["bonus_cards"][0]) == sorted(before + stock)
    assert new["turn"]["phase"] == "over" and new["turn"]["stock_exhausted"] is True
    assert hand_of(new, 0) == ["9C", "KC", "KD"]
    assert new["stock"] == []
    assert refused(new, lay("KD", "KC", rank="K")) == (0, "DEAL_OVER")
    assert refused(new, discard("9C")) == (0, "DEAL_OVER")


def test_last_card_plain_play_goes_on() -> None:
    """seed 000 'Der Stapel ist leer'; pagat: Going Out. Drawing the last card (not a red three)
    is a normal turn; the next player then faces the empty stock."""
    state = _empty_stock(["9C", "4C"], ["8D", "4D"], ([K3], []), stock=["QH"])
    new = after(state, DRAW)
    assert new["turn"]["phase"] == "play" and new["stock"] == []
    new = after(new, discard("QH"))
    assert new["turn"]["seat"] == 1 and new["turn"]["phase"] == "draw"


# =============================================================================================
# 13. Scoring
# =============================================================================================

KEYS = {"melded_cards", "hand_cards", "canasta_bonus", "bonus_cards", "going_out", "penalties",
        "total"}


def _golden() -> Data:
    """Side 0 (seat 0 went out, not concealed) against side 1, both melded."""
    return table(
        {0: [], 1: ["JK", "7C", "7C"], 2: ["9S", "4D", "3S"], 3: ["KC", "2H"]},
        melds=([meld(*SEVEN_KINGS), meld("QH", "QH", "QD", "QD", "QS", "2C", "JK"),
                meld("5S", "5H", "5D")],
               [meld("AH", "AD", "AS", "2D"), meld("8S", "8H", "8D", "8C", "JK")]),
        bonus=(["3H", "3D"], ["3H"]), discard=["6S", "9D"], scores=(1000, 2000),
        turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
              "partner_melded": True, "stock_exhausted": False})


def test_scoring_golden_example() -> None:
    """seed 000 'Abrechnung'; pagat: Classic Canasta Scoring. Per side: canasta bonuses + red
    threes + going out + melded cards - cards left in the hands of both partners."""
    answer = score(_golden())
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 205,   # kings 7 x 10 = 70; queens 5 x 10 + 20 + 50 = 120; fives 3 x 5 = 15
        "hand_cards": -20,     # seat 2: 9 (10) + 4 (5) + black three (5)
        "canasta_bonus": 800,  # natural kings 500 + mixed queens 300
        "bonus_cards": 200,    # two red threes, 100 each
        "going_out": 100,      # not concealed
        "penalties": 0,
        "total": 1285,         # 205 - 20 + 800 + 200 + 100
    }
    assert side1 == {
        "melded_cards": 170,   # aces 3 x 20 + 20 = 80; eights 4 x 10 + 50 = 90
        "hand_cards": -90,     # seat 1: joker 50 + 7 + 7 (5 each) = 60; seat 3: K 10 + 2 20 = 30
        "canasta_bonus": 0,
        "bonus_cards": 100,    # one red three
        "going_out": 0,
        "penalties": 0,
        "total": 180,          # 170 - 90 + 100
    }
    assert answer["scores"] == [2285, 2180]  # 1000 + 1285, 2000 + 180
    assert (answer["game_over"], answer["winner"]) == (False, None)
    assert answer["next_minimums"] == [90, 90]
    for side in answer["sides"]:
        assert set(side["breakdown"]) >= KEYS
        assert side["total"] == side["breakdown"]["total"]
        assert side["total"] == sum(v for k, v in side["breakdown"].items() if k != "total")


@pytest.mark.parametrize("reds, melded, expected", [
    (["3H"], True, 100),
    (["3H", "3D"], True, 200),
    (["3H", "3D", "3D"], True, 300),
    (["3H", "3H", "3D", "3D"], True, 800),     # all four: 800, not 4 x 100
    (["3H"], False, -100),                     # the side made no meld: minus
    (["3H", "3H", "3D", "3D"], False, -800),
    ([], True, 0),
])
def test_red_three_bonus(reds: list[str], melded: bool, expected: int) -> None:
    """seed 000 'Die Dreien'; pagat: Classic Canasta Scoring, Threes in Classic Canasta. Red threes
    100 each, all four 800; all count minus when the side has made no meld at all."""
    state = table({0: ["4C"], 2: ["4C"]}, melds=([NINES] if melded else [], []),
                  bonus=(reds, []))
    assert breakdown(state, 0)["bonus_cards"] == expected


def test_red_three_left_in_hand_costs_500() -> None:
    """VARIANTS.md classic, Scoring; seed 000 'Unterschiede in der Regel von ASS Altenburger'
    (Rote Drei auf der Hand, ASS p. 1; research.md 2.6). A red three still in a hand at the end
    of the deal costs 500 (a finished table scored as the players show it)."""
    state = _golden()
    state["hands"][3] = ["KC", "2H", "3D"]
    state["bonus_cards"][0] = ["3H"]  # the same three red threes, one kept in seat 3's hand
    # the table must be accepted for scoring: the rule is unreachable otherwise
    assert api.validate({"state": state})["problems"] == []
    b = breakdown(state, 1)
    assert b["penalties"] == -500
    assert b["hand_cards"] == -90  # the red three itself has no card value


@pytest.mark.parametrize("card, value", [
    ("JK", 50), ("AS", 20), ("2C", 20), ("KD", 10), ("TH", 10), ("8C", 10), ("7S", 5),
    ("4D", 5), ("3S", 5), ("3C", 5),
])
def test_cards_in_hand_count_minus(card: str, value: int) -> None:
    """seed 000 'Die Karten und ihre Werte' and 'Abrechnung'; pagat: The Cards, Classic Canasta
    Scoring. Cards left in the hands count against the side: joker 50, ace and two 20, K-8 10,
    7-4 5, black three 5."""
    state = table({0: [card], 2: ["6H"]}, melds=([NINES], []))
    assert breakdown(state, 0)["hand_cards"] == -(value + 5)  # + the partner's six


def test_cards_in_hand_quoted_example() -> None:
    """pagat: Classic Canasta Scoring (research.md 10.1, canastapedia). Two 4s with one player, a 5
    and a K with the partner: -(5 + 5 + 5 + 10) = -25."""
    state = table({0: ["4S", "4H"], 2: ["5D", "KC"]}, melds=([NINES], []))
    assert breakdown(state, 0)["hand_cards"] == -25


@pytest.mark.parametrize("concealed, bonus", [(False, 100), (True, 200)])
def test_going_out_bonus(concealed: bool, bonus: int) -> None:
    """seed 000 'Verdeckt ausmachen' and 'Abrechnung'; pagat: Classic Canasta Scoring. Going out
    100, concealed 200 instead; the other side gets none."""
    state = table({0: [], 2: ["4C"]}, melds=([meld(*SEVEN_KINGS)], [NINES]),
                  turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": concealed})
    assert breakdown(state, 0)["going_out"] == bonus
    assert breakdown(state, 1)["going_out"] == 0


def _with_totals(totals: tuple[int, int]) -> Data:
    """A scored table whose game totals after the deal are ``totals``."""
    plain = table({0: ["4C"], 2: ["4C"], 1: ["4D"], 3: ["4D"]}, melds=([NINES], [NINES]))
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [totals[0] - deal[0], totals[1] - deal[1]]
    return plain


@pytest.mark.parametrize("totals, game_over, winner", [
    ((5000, 4000), True, 0),     # exactly the target ends the game
    ((4995, 4990), False, None),  # nobody reached 5,000
    ((3000, 5005), True, 1),
    ((5100, 5200), True, 1),     # both pass: the higher total wins
    ((5200, 5100), True, 0),
    ((5100, 5100), False, None),  # exact tie at or above the target: another deal
])
def test_game_end(totals: tuple[int, int], game_over: bool, winner: int | None) -> None:
    """seed 000 'Abrechnung'; pagat: Classic Canasta Scoring; VARIANTS.md (common rules). The game
    ends when a side has 5,000 or more; with both past the target the higher total wins; an exact
    tie at or above the target means another deal."""
    answer = score(_with_totals(totals))
    assert answer["scores"] == list(totals)
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)


@pytest.mark.parametrize("totals, minimums", [
    ((-5, 0), [15, 50]),
    ((-1000, 1495), [15, 50]),
    ((1500, 2995), [90, 90]),
    ((3000, 2995), [120, 90]),
    ((1495, 4995), [50, 120]),
])
def test_next_initial_meld_minimums(totals: tuple[int, int], minimums: list[int]) -> None:
    """seed 000 'Die erste Meldung: Mindestpunkte'; pagat: Initial Meld Requirement. The score
    answer gives each side's minimum for the next deal from its new total."""
    answer = score(_with_totals(totals))
    assert answer["scores"] == list(totals)
    assert answer["next_minimums"] == minimums


# =============================================================================================
# 14. The turn
# =============================================================================================


def test_turn_draw_meld_discard_passes_clockwise() -> None:
    """seed 000 'Ablauf eines Zuges' and 'Wer beginnt?'; pagat: The Play in Classic Canasta. Draw
    one card, meld if you wish, discard one card; play passes to the next seat clockwise."""
    state = table({3: ["KD", "KC", "KH", "9C", "4C"]}, melds=([], [NINES]), stock_top=["QS"],
                  turn={"seat": 3})
    assert refused(state, discard("9C")) == (0, "WRONG_PHASE")
    new = after(state, DRAW)
    assert hand_of(new, 3) == ["4C", "9C", "KC", "KD", "KH", "QS"]
    new = after(new, lay("KD", "KC", "KH"), discard("9C"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (0, "draw")
    assert new["discard"][-1] == "9C"
    assert side_melds(new, 1)["K"] == ["KC", "KD", "KH"]


# =============================================================================================
# 15. Check and apply agree (the contract's refusal format)
# =============================================================================================


def test_apply_refuses_what_check_refuses() -> None:
    """CONTRACT.md 'Errors' and 'Endpoints' (check/apply). An illegal action in a sequence makes
    apply fail with the same reason and index as check: here a frozen pile (seed 000 'Der
    eingefrorene Stapel'; pagat: Frozen Discard Pile) taken with a natural and a wild card."""
    state = table({0: ["KD", "KC", "JK", "9C", "4C"]}, **FREEZES["wild in the pile"])
    actions = [take("KD", "JK")]
    verdict = api.check({"state": state, "actions": actions})
    with pytest.raises(api.OpError) as caught:
        api.apply({"state": state, "actions": actions})
    assert caught.value.code == "ILLEGAL_ACTION"
    assert caught.value.index == verdict["index"] == 0
    assert caught.value.reason == verdict["reason"]
    assert verdict["reason"]["code"] == "PILE_FROZEN_NEEDS_NATURAL_PAIR"
    assert verdict["reason"]["rule"].startswith("docs/variants/classic.md#the-frozen-pile (pagat.com")


@pytest.mark.parametrize("added, size, melded, bonus", [
    (["KC"], 8, 80, 500),                          # eight naturals: still natural
    (["KC", "2C"], 9, 100, 300),                   # nine: 80 + 20, mixed
    (["KC", "2C", "2D", "JK"], 11, 170, 300),      # eleven: 80 + 20 + 20 + 50, three wilds
])
def test_meld_has_no_upper_size(added: list[str], size: int, melded: int, bonus: int) -> None:
    """seed 000 'Meldungen und Canastas' ('An einen fertigen Canasta darfst du weiter anlegen
    ... die Grenze von drei wilden Karten gilt weiter'); pagat: Melds in Classic Canasta;
    VARIANTS.md classic, Melds ('melds have no upper size'). A canasta of seven kings grows past
    seven cards -- to nine and to eleven (all eight kings and three wild cards) -- in one play;
    it stays one canasta, scored with all its cards."""
    state = table({0: added + ["4C", "6C"], 2: ["4C"]}, melds=([meld(*SEVEN_KINGS)], []), turn=PLAY)
    new = after(state, lay(*added, rank="K"))
    assert side_melds(new, 0)["K"] == sorted(SEVEN_KINGS + added)
    assert len(new["melds"][0]) == 1 and len(new["melds"][0][0]["cards"]) == size
    assert hand_of(new, 0) == ["4C", "6C"]
    b = breakdown(new, 0)
    assert (b["melded_cards"], b["canasta_bonus"]) == (melded, bonus)
