"""Modern American Canasta, one test (or a small parametrized group) per rule.

Sources: seed 001 (``shared/seeds/001_4558be7be3cadcad.txt``), whose table 'Regeländerungen'
is cited by the names of its rows ('Spieler', 'Geben', 'Ziehen', 'Dreien', 'Erstauslage',
'Auslagen', 'Wilde Karten anlegen', 'Auslagen aus wilden Karten', 'Siebenen und Asse', 'Den
Ablagestapel nehmen', 'Abwerfen', 'Ausmachen', 'Canasta-Prämien', 'Strafen', 'Siegpunktzahl'),
always its right-hand column; its introduction (the "may I go out?" question, the parts not
played); ``VARIANTS.md modern-american``, which decides; research.md section 3 for background.
Where the sources leave room, the tests follow README "Interpretations" -> "Modern American" and
say so in their docstrings ("pins the interpretation ...").

Every test drives the engine at the JSON level (``engine.api``) with complete, valid states built
by ``tests.builders.table`` (every three of the deck that nobody names lies in the stock, or --
with an explicit stock -- among the bonus cards of ``rest_to``'s side).
"""

from __future__ import annotations

from typing import Any

import pytest

from canasta_referee.engine import api
from tests.builders import (
    ASK,
    DRAW,
    JACKS_CANASTA,
    JUNK,
    NATURAL_RANKS,
    NINES,
    PLAY,
    SEVEN_FIVES,
    SEVEN_KINGS,
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

V = "modern-american"
DOC = "docs/variants/modern-american.md#"

QUEENS_CANASTA = meld("QS", "QS", "QH", "QH", "QD", "QD", "QC")  # pure queens, 7 x 10 = 70
TWO_CANASTAS = [JACKS_CANASTA, QUEENS_CANASTA]  # enough to go out (jacks, queens closed)
K3 = meld("KS", "KS", "KH")  # the side's king meld: three cards
OVER = {"seat": 0, "phase": "over", "went_out": 0, "concealed": False, "partner_melded": True,
        "stock_exhausted": False, "played": [0, 1, 2, 3]}  # seat 0 went out, not concealed


def mtable(hands: dict[int, list[str]] | None = None, **kwargs: Any) -> Data:
    """A complete, valid Modern American state (four players, dealer seat 3)."""
    return table(hands, variant=V, **kwargs)


def rules_of(options: Data | None = None) -> Data:
    rules: Data = api.variant(V, options or {})["rules"]
    return rules


def discards_listed(state: Data) -> list[str]:
    return sorted(a["card"] for a in legal_list(state) if a["type"] == "discard")


# =============================================================================================
# 0. The rule table and options
# =============================================================================================


def test_rule_table() -> None:
    """seed 001 (Regeländerungen), every row of the right-hand column; VARIANTS.md
    modern-american. The table the engine plays by: four players in two sides, 13 cards, no
    upcard, one card drawn, melds of 3-7 with at most two wilds, minimums 125/155/180, every
    three a bonus card, two canastas to go out, 100 for going out and no concealed extra,
    target 8,500."""
    rules = rules_of()
    expected = {
        "id": "modern-american", "players": 4, "sides": 2, "packs": 2, "jokers": 4,
        "hand_size": 13, "upcard": "none", "draw_count": 1, "min_naturals": 2, "max_wilds": 2,
        "max_meld_size": 7, "canasta_size": 7, "natural_canasta_bonus": 500,
        "mixed_canasta_bonus": 300,
        "initial_minimums": [{"from_score": None, "minimum": 125},
                             {"from_score": 3000, "minimum": 155},
                             {"from_score": 5000, "minimum": 180}],
        "all_threes_bonus": True, "threes_by_colour": [0, 100, 300, 500, 1000],
        "canastas_to_go_out": 2, "must_discard_to_go_out": True, "going_out_bonus": 100,
        "concealed_bonus": 100, "ask_partner": True, "ask_once_per_deal": True,
        "stock_exhausted": "end", "stock_exhausted_penalty": 0, "target": 8500,
        "closed_ranks": True, "rule_of_five": True, "no_wild_ranks": ["7"],
        "initial_wild_ranks": ["A"], "wild_meld": "grow", "wild_meld_blocks": True,
        "pile_always_frozen": True, "discard_rules": "modern",
        "options": {"target": 8500, "four_jokers_penalty": 2500},
    }
    assert {k: rules[k] for k in expected} == expected
    assert rules["sources"]["initial_meld"].startswith(
        f"{DOC}the-initial-meld (pagat.com, Modern American Canasta")


@pytest.mark.parametrize("target", [2500, 5000, 7500, 8500, 10000])
def test_option_target(target: int) -> None:
    """seed 001 (Regeländerungen) 'Siegpunktzahl' ('8.500 Punkte. In der Einrichtung lässt sich
    stattdessen 2.500, 5.000, 7.500 oder 10.000 einstellen'); VARIANTS.md modern-american.
    `target` changes only the target."""
    answer_ = api.variant(V, {"target": target})
    assert [o["name"] for o in answer_["options"]] == ["target", "four_jokers_penalty"]
    assert answer_["options"][0]["default"] == 8500
    assert sorted(answer_["options"][0]["allowed"]) == [2500, 5000, 7500, 8500, 10000]
    rules = answer_["rules"]
    assert rules["target"] == target
    default = rules_of()
    assert {k for k in rules if rules[k] != default[k]} <= {"target", "options"}


@pytest.mark.parametrize("options, code, path", [
    ({"target": 6000}, "BAD_OPTION_VALUE", "/options/target"),
    ({"target": "8500"}, "BAD_OPTION_VALUE", "/options/target"),
    ({"players": 4}, "UNKNOWN_OPTION", "/options/players"),  # exactly four: not an option
    ({"wild_canasta": 2000}, "UNKNOWN_OPTION", "/options/wild_canasta"),
])
def test_bad_options_refused(options: Data, code: str, path: str) -> None:
    """seed 001 (Regeländerungen) 'Spieler' ('Genau vier') and 'Siegpunktzahl'; VARIANTS.md
    modern-american (option `target` only). An unknown option -- `players` included -- or a
    value outside the allowed list is refused, naming the option."""
    with pytest.raises(api.OpError) as caught:
        api.variant(V, options)
    assert caught.value.code == code
    assert [p["path"] for p in caught.value.problems] == [path]


def test_refusal_names_the_seed_001_row() -> None:
    """seed 001 (Regeländerungen) 'Wilde Karten anlegen'; VARIANTS.md (every refusal names its
    rule). A Modern American refusal cites seed 001."""
    state = mtable({0: ["KH", "KD", "KC", "KC", "2C", "4C", "6C"]}, melds=([NINES], []),
                   turn=PLAY)
    verdict = api.check({"state": state, "actions": [lay("KH", "KD", "KC", "KC", "2C")]})
    assert verdict["reason"]["code"] == "RULE_OF_FIVE"
    assert verdict["reason"]["rule"].startswith(f"{DOC}wild-cards-in-melds (pagat.com")


# =============================================================================================
# 1. The deal and the draw; every three laid out
# =============================================================================================


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 42])
def test_deal_thirteen_cards_empty_pile_threes_laid_out(seed: int) -> None:
    """seed 001 (Regeländerungen) 'Spieler', 'Geben' ('Dreizehn Karten pro Spieler. Der
    Ablagestapel beginnt leer') and 'Dreien' ('Jede Drei, ob rot oder schwarz, wird ausgelegt und
    ersetzt'); VARIANTS.md modern-american. Four hands of 13 with no three, an empty pile; every
    dealt three lies among its side's bonus cards, reported by a `threes` event per seat."""
    answer_ = api.deal({"variant": V, "seed": seed, "dealer": 3})
    state = answer_["state"]
    assert [len(h) for h in state["hands"]] == [13, 13, 13, 13]
    assert state["discard"] == []
    assert not any(c[0] == "3" for h in state["hands"] for c in h)
    assert (state["turn"]["seat"], state["turn"]["phase"]) == (0, "draw")
    laid = [c for side in state["bonus_cards"] for c in side]
    assert all(c[0] == "3" for c in laid)
    events = events_of(answer_, "threes")
    assert sorted(c for e in events for c in e["cards"]) == sorted(laid)
    for e in events:
        assert set(e["cards"]) <= set(state["bonus_cards"][e["seat"] % 2])
    assert len(state["stock"]) == 108 - 52 - len(laid)
    assert api.validate({"state": state}) == {"valid": True, "problems": []}


def test_deal_lays_black_threes_out_too() -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Jede Drei, ob rot oder schwarz'); VARIANTS.md
    modern-american. Over a run of deals black threes are dealt and laid out as bonus cards."""
    blacks = 0
    for seed in range(20):
        state = api.deal({"variant": V, "seed": seed, "dealer": 0})["state"]
        blacks += sum(c in ("3S", "3C") for side in state["bonus_cards"] for c in side)
        assert not any(c[0] == "3" for h in state["hands"] for c in h)
    assert blacks > 0


def test_one_card_drawn() -> None:
    """seed 001 (Regeländerungen) 'Ziehen' ('Eine Karte vom Stapel'); VARIANTS.md
    modern-american."""
    state = mtable({0: ["9C", "4C"]}, stock_top=["KS", "QS"])
    size = len(state["stock"])
    new = after(state, DRAW)
    assert hand_of(new, 0) == ["4C", "9C", "KS"]
    assert len(new["stock"]) == size - 1
    assert new["turn"]["phase"] == "play"


@pytest.mark.parametrize("top, laid, drawn", [
    (["3S", "KS"], ["3S"], "KS"),              # a black three is laid out and replaced
    (["3H", "KS"], ["3H"], "KS"),              # so is a red one
    (["3C", "3D", "KS"], ["3C", "3D"], "KS"),  # a replacement three is replaced again
])
def test_three_drawn_laid_out_and_replaced(top: list[str], laid: list[str], drawn: str) -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Jede Drei ... wird ausgelegt und ersetzt; Dreien
    werden nie gemeldet oder abgeworfen'); VARIANTS.md modern-american. A three drawn goes to the
    side's bonus cards (event `threes`) and the player draws again."""
    state = mtable({0: ["9C", "4C"]}, stock_top=top)
    answer_ = run(state, DRAW)
    new = answer_["state"]
    assert hand_of(new, 0) == sorted(["9C", "4C", drawn])
    assert sorted(new["bonus_cards"][0]) == sorted(laid)
    assert events_of(answer_, "threes") == [{"type": "threes", "seat": 0, "cards": laid}]
    assert events_of(answer_, "drew") == [{"type": "drew", "seat": 0, "cards": [drawn]}]


@pytest.mark.parametrize("three", ["3C", "3H"])
def test_three_as_last_stock_card_stays_in_hand_and_ends_the_deal(three: str) -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Eine Drei, die als letzte Karte vom Stapel gezogen
    wird, bleibt auf der Hand, zählt 5 Minuspunkte und beendet das Spiel'); VARIANTS.md
    modern-american; README interpretation (ends the deal at once: no meld, no discard). Seat
    0's hand: 9 (10) + 4 (5) + the three (5) = -20; seat 2: 8 (10); side 0: -30."""
    state = mtable({0: ["9C", "4C"], 2: ["8C"]}, melds=([K3], [NINES]), stock=[three],
                   rest_to=1)
    new = after(state, DRAW)
    assert new["turn"]["phase"] == "over"
    assert new["turn"]["went_out"] is None
    assert new["stock"] == []
    assert hand_of(new, 0) == sorted(["9C", "4C", three])
    assert three not in new["bonus_cards"][0]
    assert refused(new, discard("9C"))[1] == "DEAL_OVER"
    assert breakdown(new, 0)["hand_cards"] == -30  # -(10 + 5 + 5) - 10


# =============================================================================================
# 2. The initial meld
# =============================================================================================

# initial melds of pure melds worth exactly each band's minimum, and sets five points short
OFFERS = {
    125: [["AH", "AD", "AS", "AC"], ["KH", "KD", "KS"], ["5S", "5H", "5D"]],  # 80 + 30 + 15
    155: [["AH", "AD", "AS", "AC"], ["KH", "KD", "KS"], ["QH", "QD", "QS"],
          ["5S", "5H", "5D"]],                                                 # 80+30+30+15
    180: [["AH", "AD", "AS", "AC"], ["KH", "KD", "KS", "KC"], ["QH", "QD", "QS"],
          ["JH", "JD", "JS"]],                                                 # 80+40+30+30
}
SHORT = {
    125: [["AH", "AD", "AS", "AC"], ["KH", "KD", "KS", "KC"]],                # 80 + 40 = 120
    155: [["AH", "AD", "AS", "AC"], ["KH", "KD", "KS", "KC"], ["QH", "QD", "QS"]],  # 150
    180: [["AH", "AD", "AS", "AC", "AS"], ["KH", "KD", "KS"], ["QH", "QD", "QS"],
          ["5S", "5H", "5D"]],                                                 # 100+30+30+15
}
BANDS = [(-3000, 125), (-5, 125), (0, 125), (2995, 125), (3000, 155), (4995, 155),
         (5000, 180), (8000, 180)]


def _initial(score_before: int, melds: list[list[str]]) -> Data:
    hand = [c for m in melds for c in m] + JUNK
    return mtable({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_exactly_the_minimum_is_accepted(score_before: int, minimum: int) -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('Mindestens 125 Punkte unter 3.000 (auch bei
    negativem Stand), 155 ab 3.000 und 180 ab 5.000'); VARIANTS.md modern-american. Several
    melds laid in one turn combine; the event reports the points and the band's minimum."""
    melds = OFFERS[minimum]
    answer_ = run(_initial(score_before, melds), *[lay(*m) for m in melds])
    assert "pending" not in answer_["state"]["turn"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer_, "initial-meld")] == [
        (minimum, minimum)]
    assert sorted(side_melds(answer_["state"], 0)) == sorted(m[0][0] for m in melds)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_below_the_minimum_is_refused(score_before: int, minimum: int) -> None:
    """seed 001 (Regeländerungen) 'Erstauslage'; VARIANTS.md modern-american. Five points short
    is refused; from 3,000 the 125 that was enough below is refused too, and from 5,000 the
    155."""
    offers = [SHORT[minimum]] + ([OFFERS[{155: 125, 180: 155}[minimum]]] if minimum > 125 else [])
    for melds in offers:
        state = _initial(score_before, melds)
        assert refused(state, *[lay(*m) for m in melds]) == (0, "INITIAL_MELD_UNREACHABLE")


def test_several_melds_stay_pending_until_the_minimum() -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('mehrere Auslagen dürfen zusammen gelegt werden,
    um sie zu erreichen'); VARIANTS.md modern-american; README interpretation (the melds wait in
    `turn.pending` until they make the initial meld). 80, then 110, then 125: on the table."""
    state = _initial(0, OFFERS[125])
    first = after(state, lay("AH", "AD", "AS", "AC"))
    assert pending_of(first) == {"A": ["AC", "AD", "AH", "AS"]}
    assert first["melds"][0] == []
    assert refused(first, discard("9C")) == (0, "INITIAL_MELD_TOO_LOW")
    second = after(first, lay("KH", "KD", "KS"))
    assert sorted(pending_of(second)) == ["A", "K"]  # 80 + 30 = 110 < 125
    answer_ = run(second, lay("5S", "5H", "5D"))
    assert [e["points"] for e in events_of(answer_, "initial-meld")] == [125]
    assert pending_of(answer_["state"]) == {}
    assert sorted(side_melds(answer_["state"], 0)) == ["5", "A", "K"]


@pytest.mark.parametrize("melds, refusal", [
    # 50 + 50 + 90 = 190, but every meld has a wild card: no pure meld (refused as soon as the
    # queens take the last two that could have left a pure meld of queens)
    ([["KH", "KD", "KS", "2C"], ["QH", "QD", "QS", "2D"], ["AH", "AD", "JK"]],
     (1, "INITIAL_MELD_UNREACHABLE")),
    # the same with a pure meld of three fives (15): 205
    ([["KH", "KD", "KS", "2C"], ["QH", "QD", "QS", "2D"], ["AH", "AD", "JK"],
      ["5S", "5H", "5D"]], None),
    # a wild-card meld of three (50 + 50 + 20 = 120) and four kings (40): 160
    ([["JK", "JK", "2C"], ["KH", "KD", "KS", "KC"]], None),
    # a wild-card meld alone: 3 x 50 = 150
    ([["JK", "JK", "JK"]], None),
    # naturals with a wild are not a pure meld: K K 2 (40) + A A A A 2 (100) = 140
    ([["KH", "KD", "2C"], ["AH", "AD", "AS", "AC", "2D"]], (1, "INITIAL_MELD_UNREACHABLE")),
])
def test_initial_meld_needs_a_pure_meld_or_a_wild_meld(melds: list[list[str]],
                                                       refusal: tuple[int, str] | None) -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('Sie muss eine reine Auslage aus drei oder mehr
    natürlichen Karten oder eine Auslage aus wilden Karten enthalten'); VARIANTS.md
    modern-american. Enough points without a pure meld or a wild-card meld are refused."""
    hand = [c for m in melds for c in m] + JUNK
    state = mtable({0: hand}, melds=([], [NINES]), turn=PLAY)
    actions = [lay(*m, rank="wild") if all(is_wild(c) for c in m) else lay(*m) for m in melds]
    if refusal is None:
        answer_ = run(state, *actions)
        assert len(events_of(answer_, "initial-meld")) == 1
        assert "pending" not in answer_["state"]["turn"]
    else:
        assert refused(state, *actions) == refusal


def test_initial_meld_counts_hand_cards_only() -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('nur aus Karten der eigenen Hand gezählt') and
    'Den Ablagestapel nehmen' ('Eine Seite, die noch nicht ausgelegt hat, legt im selben Zug ihre
    Erstauslage aus der Hand'); VARIANTS.md modern-american; README interpretation (the pair's
    points count, the top card's do not). The pair A A (40) + K K K (30) + Q Q Q (30) + 5 5 5
    (15) = 115 from the hand: with the top ace it would be 135, but the top card never counts,
    so the pile is refused -- and not listed."""
    hand = ["AD", "AC", "KH", "KD", "KS", "QH", "QD", "QS", "5S", "5H", "5D"] + JUNK
    state = mtable({0: hand}, discard=["8D", "AH"], melds=([], [NINES]))
    assert refused(state, take("AD", "AC")) == (0, "INITIAL_MELD_UNREACHABLE")
    assert takes_listed(state) == []


def test_initial_meld_with_the_pile_completed_from_the_hand() -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' and 'Den Ablagestapel nehmen'; VARIANTS.md
    modern-american. A A from the hand (40) + K K K (30) + Q Q Q (30) + J J J (30) = 130 >= 125
    (the top ace does not count). After the pickup the melds are pending, nothing may be
    discarded, the pile's other cards are held apart until the minimum is met."""
    hand = ["AD", "AC", "KH", "KD", "KS", "QH", "QD", "QS", "JH", "JD", "JS"] + JUNK
    state = mtable({0: hand}, discard=["8D", "AH"], melds=([], [NINES]))
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["AC", "AD"]]
    taken = after(state, take("AD", "AC"))
    assert pending_of(taken) == {"A": ["AC", "AD", "AH"]}
    assert taken["turn"]["held"] == ["8D"]
    assert refused(taken, discard("9C")) == (0, "INITIAL_MELD_TOO_LOW")
    answer_ = run(taken, lay("KH", "KD", "KS"), lay("QH", "QD", "QS"), lay("JH", "JD", "JS"))
    assert [(e["points"], e["minimum"]) for e in events_of(answer_, "initial-meld")] == [
        (130, 125)]  # 40 + 30 + 30 + 30: the top ace's 20 left out
    assert hand_of(answer_["state"], 0) == ["6C", "8D", "9C"]


def test_canasta_holding_the_top_card_does_not_waive_the_minimum() -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('Ein Canasta, das direkt aus der Hand ausgelegt
    wird, braucht kein Minimum') and 'Den Ablagestapel nehmen'; VARIANTS.md modern-american;
    pins the README interpretation (a canasta from the hand, not the meld holding a taken top
    card, waives the minimum). Six kings from the hand (60) with the top king would be a canasta,
    but not one from the hand: refused and not listed. Seven fives laid from the hand beside the
    pickup waive it: K K (20) + fives (35) = 55 < 125, accepted."""
    kings = ["KS", "KS", "KD", "KD", "KC", "KC"]
    state = mtable({0: kings + JUNK}, discard=["8D", "KH"], melds=([], [NINES]))
    assert refused(state, take("KC", "KC"))[1] == "INITIAL_MELD_UNREACHABLE"
    assert takes_listed(state) == []
    state = mtable({0: ["KD", "KC"] + SEVEN_FIVES + JUNK}, discard=["8D", "KH"],
                   melds=([], [NINES]))
    answer_ = run(state, take("KD", "KC"), lay(*SEVEN_FIVES))
    assert len(events_of(answer_, "initial-meld")) == 1
    assert sorted(side_melds(answer_["state"], 0)) == ["5", "K"]
    assert hand_of(answer_["state"], 0) == ["6C", "8D", "9C"]


@pytest.mark.parametrize("hand, melds, code", [
    # seven fives from the hand (35): a pure canasta, no minimum
    (SEVEN_FIVES + JUNK, [SEVEN_FIVES], None),
    # a mixed canasta (5 x 5 + 2 x 20 = 65) with three fours (15): 80 < 125, waived
    (["5S", "5S", "5H", "5H", "5D", "2C", "2D", "4S", "4H", "4D"] + JUNK,
     [["5S", "5S", "5H", "5H", "5D", "2C", "2D"], ["4S", "4H", "4D"]], None),
    # the mixed canasta alone: no pure meld, refused although it waives the minimum
    (["5S", "5S", "5H", "5H", "5D", "2C", "2D"] + JUNK,
     [["5S", "5S", "5H", "5H", "5D", "2C", "2D"]], "INITIAL_MELD_UNREACHABLE"),
    # six fives (30): no canasta, below 125
    (SEVEN_FIVES[:6] + JUNK, [SEVEN_FIVES[:6]], "INITIAL_MELD_UNREACHABLE"),
])
def test_canasta_from_the_hand_needs_no_minimum(hand: list[str], melds: list[list[str]],
                                                code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('Ein Canasta, das direkt aus der Hand ausgelegt
    wird, braucht kein Minimum'); VARIANTS.md modern-american; pins the README interpretation
    (the canasta waives the minimum, not the pure-meld requirement)."""
    state = mtable({0: hand}, melds=([], [NINES]), turn=PLAY)
    actions = [lay(*m) for m in melds]
    if code is None:
        answer_ = run(state, *actions)
        assert len(events_of(answer_, "initial-meld")) == 1
        assert "pending" not in answer_["state"]["turn"]
    else:
        assert refused(state, *actions) == (0, code)


# =============================================================================================
# 3. Melds: 3-7 cards, at most two wilds; a pure canasta closes its rank
# =============================================================================================

MELD_HAND = ["KH", "KH", "KD", "KD", "KS", "KS", "KC", "KC", "2C", "2D", "JK", "4C", "6C"]


@pytest.mark.parametrize("cards, code", [
    (["KH", "KD", "KS"], None),
    (["KH", "KH", "KD", "KD", "KS", "2C", "JK"], None),               # 5 + 2: mixed canasta
    (["KH", "KH", "KD", "KD", "KS", "KS", "KC"], None),               # 7 naturals: pure canasta
    (["KH", "KD"], "MELD_TOO_SMALL"),
    (["KH", "2C", "JK"], "TOO_FEW_NATURALS"),
    (["KH", "KH", "KD", "KD", "2C", "2D", "JK"], "TOO_MANY_WILDS"),  # 4 + 3
    (["KH", "KH", "KD", "KD", "KS", "KS", "2C", "JK"], "MELD_TOO_BIG"),  # 8 cards
    (["KH", "KH", "KD", "KD", "KS", "KS", "KC", "KC"], "MELD_TOO_BIG"),  # 8 naturals
])
def test_meld_shape(cards: list[str], code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Auslagen' ('Drei bis sieben Karten eines Rangs, mit höchstens
    zwei wilden Karten. Eine Auslage endet bei sieben Karten'); research.md 3 (mixed meld: at
    least two naturals); VARIANTS.md modern-american. The side melded in an earlier turn."""
    state = mtable({0: MELD_HAND}, melds=([NINES], []), turn=PLAY)
    if code is None:
        new = after(state, lay(*cards))
        assert side_melds(new, 0)["K"] == sorted(cards)
    else:
        assert refused(state, lay(*cards)) == (0, code)


@pytest.mark.parametrize("table_meld, cards", [
    (meld("KS", "KS", "KH", "KH", "KD", "2C", "JK"), ["KD"]),   # a mixed canasta: full
    (meld("KS", "KS", "KH", "KH", "KD", "KD", "KC"), ["KC"]),   # a pure canasta: full
    (meld("KS", "KS", "KH", "KH", "KD", "KD"), ["KC", "KC"]),   # 6 + 2
])
def test_meld_ends_at_seven(table_meld: Data, cards: list[str]) -> None:
    """seed 001 (Regeländerungen) 'Auslagen' ('Eine Auslage endet bei sieben Karten');
    VARIANTS.md modern-american. A meld on the table takes no card beyond seven."""
    state = mtable({0: cards + JUNK}, melds=([NINES, table_meld], []), turn=PLAY)
    assert refused(state, lay(*cards)) == (0, "MELD_TOO_BIG")


def test_mixed_canasta_does_not_close_its_rank() -> None:
    """seed 001 (Regeländerungen) 'Auslagen' ('sobald eine Seite ein reines Canasta vollendet
    hat, darf niemand diesen Rang mehr auslegen'); VARIANTS.md modern-american; README
    interpretation (a mixed canasta does not close its rank). The opponents' mixed king canasta
    (five kings): the other three kings make a new meld."""
    state = mtable({0: ["KC", "KC", "KD", "4C", "6C"]},
                   melds=([NINES], [meld("KS", "KS", "KH", "KH", "KD", "2C", "JK")]), turn=PLAY)
    new = after(state, lay("KC", "KC", "KD"))
    assert side_melds(new, 0)["K"] == ["KC", "KC", "KD"]


def test_pure_canasta_closes_its_rank() -> None:
    """seed 001 (Regeländerungen) 'Auslagen' ('sobald eine Seite ein reines Canasta vollendet
    hat, darf niemand diesen Rang mehr auslegen'); VARIANTS.md modern-american; README
    interpretation (closed for both sides). The opponents' pure king canasta holds seven of the
    eight kings: the last king never goes down again -- not with two wild cards as a new meld,
    not onto the canasta. (Two packs hold eight cards of a rank, so a second meld or a pile
    pickup of a closed rank cannot arise; the closure shows in the discard rule, section 6.)"""
    state = mtable({0: ["KC", "2C", "JK", "4C", "6C"]}, melds=([NINES], [meld(*SEVEN_KINGS)]),
                   turn=PLAY)
    assert refused(state, lay("KC", "2C", "JK"))[1] in ("RANK_CLOSED", "TOO_FEW_NATURALS")
    own = mtable({0: ["KC", "4C", "6C"]}, melds=([NINES, meld(*SEVEN_KINGS)], []), turn=PLAY)
    assert refused(own, lay("KC"))[1] in ("RANK_CLOSED", "MELD_TOO_BIG")
    for s in (state, own):
        assert not [a for a in legal_list(s) if a["type"] == "meld" and "KC" in a["cards"]]


# =============================================================================================
# 4. Wild cards: the rule of five, sevens, aces, wild-card melds
# =============================================================================================


@pytest.mark.parametrize("table_melds, cards, code", [
    ([NINES], ["KH", "KD", "KS", "KC", "2C"], "RULE_OF_FIVE"),           # new meld, 4 naturals
    ([NINES], ["KH", "KD", "KS", "KC", "KC", "2C"], None),               # new meld, 5 naturals
    ([NINES], ["KH", "KD", "2C"], "RULE_OF_FIVE"),
    ([NINES, meld("KS", "KS", "KH", "KH")], ["2C"], "RULE_OF_FIVE"),     # 4 on the table
    ([NINES, meld("KS", "KS", "KH", "KH", "KD")], ["2C"], None),         # 5 on the table
    ([NINES, meld("KS", "KS", "KH", "KH", "KD", "2D")], ["JK"], None),   # 5 + 1 wild
    ([meld("9S", "9H", "9D", "9C", "9C", "9S")], ["JK"], None),          # 6 nines
])
def test_rule_of_five_after_the_opening_turn(table_melds: list[Data], cards: list[str],
                                             code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Wilde Karten anlegen' ('Nach der ersten Auslage Ihrer Seite
    kommen wilde Karten nur in eine Auslage mit fünf oder mehr natürlichen Karten, ob neu oder
    schon auf dem Tisch'); VARIANTS.md modern-american. The side melded in an earlier turn."""
    kings_on_table = any(m["rank"] == "K" for m in table_melds)
    hand = ["KD", "KC", "KC", "2C", "JK", "4C", "6C"] + ([] if kings_on_table else ["KH", "KS"])
    state = mtable({0: hand}, melds=(table_melds, []), turn=PLAY)
    rank = None if any(c[0] == "K" for c in cards) else table_melds[-1]["rank"]  # an addition
    action = lay(*cards, rank=rank)
    if code is None:
        new = after(state, action)
        assert set(cards) <= set(side_melds(new, 0)[rank or "K"])
    else:
        assert refused(state, action) == (0, code)


def test_rule_of_five_not_in_the_opening_turn() -> None:
    """seed 001 (Regeländerungen) 'Wilde Karten anlegen' ('Nach der ersten Auslage Ihrer Seite');
    VARIANTS.md modern-american; pins the README interpretation (everything the side lays in
    the turn it first melds is its initial meld; the rule of five starts with its next turn).
    K K 2 (40) + A A A A (80) + 5 5 5 (15) = 135 in the opening turn; in the partner's next turn
    a wild card joins the kings only with five natural kings."""
    hand = ["KH", "KD", "2C", "AH", "AD", "AS", "AC", "5S", "5H", "5D"] + JUNK
    state = mtable({0: hand, 2: ["KS", "KC", "KC", "2D", "8C", "8D"]}, melds=([], [NINES]),
                   turn=PLAY)
    answer_ = run(state, lay("KH", "KD", "2C"), lay("AH", "AD", "AS", "AC"), lay("5S", "5H", "5D"))
    assert [e["points"] for e in events_of(answer_, "initial-meld")] == [135]
    new = after(answer_["state"], discard("9C"), DRAW, discard(answer_["state"]["stock"][0]))
    assert new["turn"]["seat"] == 2
    new = after(new, DRAW)
    assert refused(new, lay("2D", rank="K")) == (0, "RULE_OF_FIVE")
    assert refused(new, lay("KS", "2D")) == (0, "RULE_OF_FIVE")  # 3 kings + 2 wilds
    assert_legal(new, lay("KS", "KC", "KC"), lay("2D", rank="K"))  # 5 natural kings + 2 wilds


@pytest.mark.parametrize("opening_turn", [True, False])
@pytest.mark.parametrize("cards", [["7S", "7H", "7D", "2C"], ["7S", "7H", "7D", "7C", "7C", "JK"]])
def test_sevens_never_take_wild_cards(opening_turn: bool, cards: list[str]) -> None:
    """seed 001 (Regeländerungen) 'Siebenen und Asse' ('Siebenen nehmen nie wilde Karten');
    VARIANTS.md modern-american. Neither in the initial meld nor later, not even with five
    natural sevens."""
    hand = cards + ["AH", "AD", "AS", "AC", "KH", "KD", "KS", "5S", "5H", "5D"] + JUNK
    melds: Any = ([], [NINES]) if opening_turn else ([NINES], [])
    state = mtable({0: hand}, melds=melds, turn=PLAY)
    actions = [lay(*cards)]
    if opening_turn:  # 80 + 30 + 15 = 125 without the sevens
        actions = [lay("AH", "AD", "AS", "AC"), lay("KH", "KD", "KS"), lay("5S", "5H", "5D")]
        assert_legal(state, *actions)
        actions.append(lay(*cards))
    assert refused(state, *actions) == (len(actions) - 1, "RANK_TAKES_NO_WILDS")
    naturals = [c for c in cards if c[0] == "7"]
    assert_legal(state, *actions[:-1], lay(*naturals))


def test_sevens_meld_on_the_table_takes_no_wild() -> None:
    """seed 001 (Regeländerungen) 'Siebenen und Asse'; VARIANTS.md modern-american. Five natural
    sevens on the table take no wild card either (the rule of five does not help)."""
    state = mtable({0: ["2C", "JK", "4C", "6C"]},
                   melds=([NINES, meld("7S", "7S", "7H", "7H", "7D")], []), turn=PLAY)
    assert refused(state, lay("2C", rank="7")) == (0, "RANK_TAKES_NO_WILDS")


def test_aces_take_wild_cards_only_in_the_initial_meld() -> None:
    """seed 001 (Regeländerungen) 'Siebenen und Asse' ('Asse nehmen wilde Karten nur in der
    Erstauslage'); VARIANTS.md modern-american; README interpretation (the opening turn). A A JK
    (90) + K K K (30) + 5 5 5 (15) = 135 is an initial meld; in a later turn the aces, even with
    five naturals, take no wild card, and a new ace meld takes none either."""
    hand = ["AH", "AD", "JK", "KH", "KD", "KS", "5S", "5H", "5D"] + JUNK
    state = mtable({0: hand}, melds=([], [NINES]), turn=PLAY)
    answer_ = run(state, lay("AH", "AD", "JK"), lay("KH", "KD", "KS"), lay("5S", "5H", "5D"))
    assert [e["points"] for e in events_of(answer_, "initial-meld")] == [135]
    assert side_melds(answer_["state"], 0)["A"] == ["AD", "AH", "JK"]
    later = mtable({0: ["AS", "AS", "AC", "2C", "4C", "6C"]},
                   melds=([NINES, meld("AH", "AH", "AD", "AD", "AC")], []), turn=PLAY)
    assert refused(later, lay("2C", rank="A")) == (0, "WILDS_ONLY_IN_INITIAL_MELD")
    later = mtable({0: ["AS", "AS", "AC", "AC", "AD", "2C", "4C", "6C"]}, melds=([NINES], []),
                   turn=PLAY)
    assert refused(later, lay("AS", "AS", "AC", "AC", "AD", "2C")) == (
        0, "WILDS_ONLY_IN_INITIAL_MELD")
    assert_legal(later, lay("AS", "AS", "AC", "AC", "AD"))


def test_wild_card_meld_grows_from_three_to_seven() -> None:
    """seed 001 (Regeländerungen) 'Auslagen aus wilden Karten' ('Drei bis sieben Zweien und Joker
    dürfen eine eigene Auslage bilden'); VARIANTS.md modern-american; README interpretation (a
    wild-card meld grows over turns). Three wild cards on the table take more, up to seven; two
    are too few, an eighth is too many, and a natural never joins."""
    hand = ["2C", "2D", "2H", "2S", "JK", "4C", "6C", "8C"]
    state = mtable({0: hand}, melds=([NINES, meld("JK", "JK", "2S", rank="wild")], []),
                   turn=PLAY)
    new = after(state, lay("2C", rank="wild"), lay("2D", "2H", rank="wild"))
    assert sorted(side_melds(new, 0)["wild"]) == sorted(["JK", "JK", "2S", "2C", "2D", "2H"])
    new = after(new, lay("2S", rank="wild"))  # seven: a wild canasta
    assert len(side_melds(new, 0)["wild"]) == 7
    assert refused(new, lay("JK", rank="wild")) == (0, "MELD_TOO_BIG")
    assert refused(state, lay("4C", rank="wild"))[0] == 0
    fresh = mtable({0: hand}, melds=([NINES], []), turn=PLAY)
    assert refused(fresh, lay("2C", "JK", rank="wild")) == (0, "MELD_TOO_SMALL")
    assert_legal(fresh, lay("2C", "2D", "JK", rank="wild"))


@pytest.mark.parametrize("wild_size, code", [(3, "WILD_MELD_INCOMPLETE"),
                                             (6, "WILD_MELD_INCOMPLETE"), (7, None)])
def test_incomplete_wild_meld_blocks_wild_cards_elsewhere(wild_size: int, code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Auslagen aus wilden Karten' ('Solange sie unvollendet ist,
    darf Ihre Seite keine wilden Karten an eine andere Auslage legen'); VARIANTS.md
    modern-american. Five natural kings would take a wild card (rule of five), but not while the
    side's wild-card meld has fewer than seven cards."""
    wilds = ["2S", "2S", "2H", "2H", "2D", "2D", "JK"][:wild_size]
    state = mtable({0: ["JK", "4C", "6C"]},
                   melds=([NINES, meld("KS", "KS", "KH", "KH", "KD"), meld(*wilds, rank="wild")],
                          []), turn=PLAY)
    if code is None:
        new = after(state, lay("JK", rank="K"))
        assert "JK" in side_melds(new, 0)["K"]
    else:
        assert refused(state, lay("JK", rank="K")) == (0, code)
        assert_legal(state, lay("JK", rank="wild"))


def test_wild_meld_blocks_from_when_it_is_started() -> None:
    """seed 001 (Regeländerungen) 'Auslagen aus wilden Karten'; VARIANTS.md modern-american;
    pins the README interpretation (wild cards placed before the wild-card meld was started stay
    where they are). In the opening turn K K 2 then 2 JK JK is fine; 2 JK JK then K K 2 is not.
    K K 2 (40) + 2 JK JK (120) = 160 >= 125 with the wild-card meld as the clean meld."""
    hand = ["KH", "KD", "2C", "2D", "JK", "JK"] + JUNK
    state = mtable({0: hand}, melds=([], [NINES]), turn=PLAY)
    assert_legal(state, lay("KH", "KD", "2C"), lay("2D", "JK", "JK", rank="wild"))
    assert refused(state, lay("2D", "JK", "JK", rank="wild"), lay("KH", "KD", "2C")) == (
        1, "WILD_MELD_INCOMPLETE")


# =============================================================================================
# 5. The discard pile: always a natural pair
# =============================================================================================


@pytest.mark.parametrize("cards, code", [
    ([], "PILE_FROZEN_NEEDS_NATURAL_PAIR"),               # the top card alone onto the kings
    (["KD", "2C"], "PILE_FROZEN_NEEDS_NATURAL_PAIR"),     # a natural and a wild
    (["KD", "JK"], "PILE_FROZEN_NEEDS_NATURAL_PAIR"),
    (["KD", "KC"], None),                                 # a natural pair
])
def test_pile_only_with_a_natural_pair(cards: list[str], code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Den Ablagestapel nehmen' ('Immer mit einem reinen Paar aus der
    Hand, das zur obersten Karte passt'); VARIANTS.md modern-american. Also for a side that has
    melded and has a king meld of three: the pile is always frozen."""
    state = mtable({0: ["KD", "KC", "2C", "JK", "4C"]}, discard=["8D", "KH"],
                   melds=([NINES, K3], []))
    if code is None:
        new = after(state, take(*cards))
        assert side_melds(new, 0)["K"] == ["KC", "KD", "KH", "KH", "KS", "KS"]
        assert hand_of(new, 0) == ["2C", "4C", "8D", "JK"]
        assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]
    else:
        assert refused(state, take(*cards)) == (0, code)


@pytest.mark.parametrize("table_meld, code", [
    (None, None),                                               # a new meld K K K
    (meld("KS", "KS", "KH"), None),                             # 3 + 3 = 6
    (meld("KS", "KS", "KH", "KD"), None),                       # 4 + 3 = 7
    (meld("KS", "KS", "KH", "KD", "KD"), "MELD_TOO_BIG"),       # 5 + 3 = 8
    (meld("KS", "KS", "KH", "2D", "JK"), "MELD_TOO_BIG"),       # 5 cards (3 + 2 wilds)
])
def test_pile_pair_joins_a_meld_of_three_or_four(table_meld: Data | None,
                                                  code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Den Ablagestapel nehmen' ('Das Paar darf nur an die Auslage
    Ihrer Seite in diesem Rang, solange sie drei oder vier Karten hat'); VARIANTS.md
    modern-american. The pair and the top card join the side's meld only while it has three or
    four cards."""
    melds = [NINES] + ([table_meld] if table_meld else [])
    state = mtable({0: ["KC", "KC", "4C", "6C"]}, discard=["8D", "KH"], melds=(melds, []))
    if code is None:
        new = after(state, take("KC", "KC"))
        assert len(side_melds(new, 0)["K"]) == 3 + (len(table_meld["cards"]) if table_meld else 0)
    else:
        assert refused(state, take("KC", "KC")) == (0, code)
        assert takes_listed(state) == []


def test_no_pile_once_the_stock_is_empty() -> None:
    """VARIANTS.md modern-american ('A player who must draw from an empty stock ends the deal (no
    play on the discard pile)'); seed 001 introduction ('das Weiterspielen am Ablagestapel, wenn
    der Stapel aufgebraucht ist' is not played). With an empty stock a natural pair does not take
    the pile; the draw ends the deal, nobody out."""
    state = mtable({0: ["KD", "KC", "9C"]}, discard=["8D", "KH"], melds=([NINES, K3], []),
                   stock=[], rest_to=1)
    assert refused(state, take("KD", "KC")) == (0, "STOCK_EXHAUSTED")
    assert takes_listed(state) == []
    assert_legal(state, DRAW)
    answer_ = run(state, DRAW)
    turn = answer_["state"]["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)
    assert hand_of(answer_["state"], 0) == ["9C", "KC", "KD"]


def _nearly_exhausted(hands: dict[int, list[str]], melds: Any, pile_top: list[str],
                     stock: list[str]) -> Data:
    """Seat 0 to draw from a stock of ``stock``: the cards nobody named lie in the discard pile
    under ``pile_top``, every three among side 1's bonus cards (threes never lie in the pile)."""
    state = mtable(hands, melds=melds, discard=pile_top)
    rest = list(state["stock"])
    for card in stock:
        rest.remove(card)
    state["bonus_cards"][1] += [c for c in rest if c[0] == "3"]
    state["discard"] = [c for c in rest if c[0] != "3"] + state["discard"]
    state["stock"] = list(stock)
    assert api.validate({"state": state})["problems"] == []
    return state


def test_last_stock_card_then_the_next_draw_ends_the_deal() -> None:
    """VARIANTS.md modern-american; research.md 3 ('End of stock'). Drawing the last (natural)
    card is a normal turn; the next player's draw from the empty stock ends the deal: nobody
    went out, no penalty for the stock (``stock_exhausted_penalty`` 0)."""
    state = _nearly_exhausted({0: ["9C", "4C"], 1: ["6C", "8C"], 2: ["8D"], 3: ["9D"]},
                              ([K3], [NINES]), ["5D", "4D"], stock=["QH"])
    new = after(state, DRAW)
    assert (new["turn"]["phase"], new["stock"]) == ("play", [])
    new = after(new, discard("QH"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    new = after(new, DRAW)
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)
    assert [breakdown(new, s)["penalties"] for s in (0, 1)] == [0, 0]


# =============================================================================================
# 6. Discarding
# =============================================================================================


@pytest.mark.parametrize("hand, melds, pile, listed", [
    # a wild card with naturals in hand, not going out: never
    (["2C", "JK", "9C", "4C"], [NINES], ["8D"], ["4C", "9C"]),
    # a hand of wild cards only: a wild card may go
    (["2C", "JK"], [NINES], ["8D"], ["2C", "JK"]),
    # going out (two canastas) with a wild card as the last card
    (["2C"], [NINES] + TWO_CANASTAS, ["8D"], ["2C"]),
])
def test_wild_card_discard(hand: list[str], melds: list[Data], pile: list[str],
                           listed: list[str]) -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' ('Wilde Karten nur beim Ausmachen oder aus einer
    Hand, die nur noch aus wilden Karten besteht'); VARIANTS.md modern-american. The discards
    listed are exactly the legal ones."""
    state = mtable({0: hand}, melds=(melds, []), discard=pile, turn=PLAY)
    assert discards_listed(state) == listed
    for card in set(hand):
        if card in listed:
            assert_legal(state, discard(card))
        else:
            assert refused(state, discard(card)) == (0, "WILD_DISCARD_NOT_ALLOWED")


def test_wild_card_discard_going_out_after_melding() -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' and 'Ausmachen'; VARIANTS.md modern-american. With
    two canastas, a king melded and the last card a two: the two goes out."""
    state = mtable({0: ["KD", "2C"]}, melds=([NINES, K3] + TWO_CANASTAS, []), turn=PLAY)
    assert refused(state, discard("2C")) == (0, "WILD_DISCARD_NOT_ALLOWED")
    new = after(state, lay("KD"), discard("2C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


@pytest.mark.parametrize("hand, pile, listed, code", [
    # empty pile: an ace or a seven only without another natural
    (["AS", "7S", "9C"], [], ["9C"], "EMPTY_PILE_DISCARD"),
    (["AS", "7S", "2C"], [], ["7S", "AS"], None),         # no other natural (a wild is none)
    (["AS", "AH"], [], ["AH", "AS"], None),
    # the pile is not empty: any natural
    (["AS", "7S", "9C"], ["8D"], ["7S", "9C", "AS"], None),
])
def test_empty_pile_ace_or_seven(hand: list[str], pile: list[str], listed: list[str],
                                 code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' ('Auf einen leeren Stapel darf ein Ass oder eine
    Sieben nur, wenn Sie keine andere natürliche Karte halten'); VARIANTS.md modern-american;
    README interpretation (the order: other naturals, then aces or sevens, then closed ranks).
    The discards listed are exactly the legal ones."""
    state = mtable({0: hand}, melds=([NINES], []), discard=pile, turn=PLAY)
    assert discards_listed(state) == listed
    for card in ("AS", "7S"):
        if card in listed:
            assert_legal(state, discard(card))
        elif card in hand:
            assert refused(state, discard(card)) == (0, code)


def test_empty_pile_after_taking_it() -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' ('Auf einen leeren Stapel'); research.md 3 (pagat:
    'on the first turn of the game, or when you have taken the pile'). After taking the whole
    pile it is empty again: the ace may not go while the nine is held."""
    state = mtable({0: ["KD", "KC", "AS", "9C"]}, discard=["KH"], melds=([NINES], []))
    taken = after(state, take("KD", "KC"))
    assert taken["discard"] == []
    assert refused(taken, discard("AS")) == (0, "EMPTY_PILE_DISCARD")
    assert discards_listed(taken) == ["9C"]


@pytest.mark.parametrize("hand, pile, listed", [
    (["KC", "9C"], [], ["9C"]),              # another natural: the king may not go
    (["KC", "AS"], [], ["KC"]),              # the king is "another natural": no ace; the king
    (["KC", "AS", "7D"], [], ["KC"]),        # nor a seven; the king, since nothing else may go
    (["KC", "AS", "9C"], [], ["9C"]),        # a plain natural first
    (["AS", "7D"], [], ["7D", "AS"]),        # aces and sevens alone: either
    (["KC", "2C"], [], ["KC"]),              # nothing else possible: the king
    (["KC", "9C"], ["8D"], ["9C", "KC"]),    # the pile is not empty: any card
])
def test_closed_rank_discard(hand: list[str], pile: list[str], listed: list[str]) -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' ('und eine Karte eines geschlossenen Rangs nur, wenn
    nichts anderes geht') and 'Auslagen' (a pure canasta closes its rank); VARIANTS.md
    modern-american, read literally (ruling of 2026-12-01): a card of a closed rank is "another
    natural card", so an ace or a seven may not go while one is held. The opponents' pure king
    canasta closes the kings."""
    state = mtable({0: hand}, melds=([NINES], [meld(*SEVEN_KINGS)]), discard=pile, turn=PLAY)
    assert discards_listed(state) == listed
    for card in hand:
        if card in listed:
            assert_legal(state, discard(card))
        elif card == "KC":
            assert refused(state, discard(card)) == (0, "CLOSED_RANK_DISCARD")
        elif card[0] in "A7":
            assert refused(state, discard(card)) == (0, "EMPTY_PILE_DISCARD")


def test_mixed_canasta_rank_is_no_closed_rank_discard() -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' and 'Auslagen' (only a pure canasta closes a rank);
    VARIANTS.md modern-american. After a mixed king canasta a king is a plain discard."""
    state = mtable({0: ["KC", "9C"]}, melds=([NINES], [meld("KS", "KS", "KH", "KH", "KD", "2C",
                                                             "JK")]), turn=PLAY)
    assert discards_listed(state) == ["9C", "KC"]


def test_threes_are_never_discarded_nor_melded() -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Dreien werden nie gemeldet oder abgeworfen') and
    'Abwerfen'; VARIANTS.md modern-american. A three is never in a hand in play, so no state
    offers one; a state with a three in the hand or the pile is invalid."""
    state = mtable({0: ["9C", "4C"]}, melds=([NINES], []), turn=PLAY)
    bad = dict(state, hands=[["9C", "4C", "3S"]] + state["hands"][1:])
    bad["stock"] = [c for c in state["stock"]]
    bad["stock"].remove("3S")
    codes = [p["code"] for p in api.validate({"state": bad})["problems"]]
    assert "THREE_IN_HAND" in codes
    pile = dict(state, discard=["3C"])
    pile["stock"] = [c for c in state["stock"]]
    pile["stock"].remove("3C")
    codes = [p["code"] for p in api.validate({"state": pile})["problems"]]
    assert "THREE_IN_PILE" in codes


# =============================================================================================
# 7. Going out
# =============================================================================================


@pytest.mark.parametrize("melds, code", [
    ([K3], "CANNOT_GO_OUT_WITHOUT_CANASTA"),
    ([K3, JACKS_CANASTA], "CANNOT_GO_OUT_WITHOUT_CANASTA"),   # one canasta is not enough
    ([K3] + TWO_CANASTAS, None),
])
def test_going_out_needs_two_canastas(melds: list[Data], code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Ausmachen' ('Ihre Seite braucht zwei Canastas, und Sie beenden
    mit einem Abwurf. Ausmachen bringt 100'); VARIANTS.md modern-american."""
    state = mtable({0: ["KD", "9C"]}, melds=(melds, [NINES]), turn=PLAY)
    actions = [lay("KD"), discard("9C")]
    if code is None:
        new = after(state, *actions)
        assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
        assert breakdown(new, 0)["going_out"] == 100
        assert breakdown(new, 1)["going_out"] == 0
    else:
        assert refused(state, *actions) == (0, code)


def test_going_out_needs_a_final_discard() -> None:
    """seed 001 (Regeländerungen) 'Ausmachen' ('Sie beenden mit einem Abwurf') and 'Abwerfen'
    ('Ihre Auslagen müssen Ihnen immer eine Karte zum Abwerfen lassen'); VARIANTS.md
    modern-american. Melding the whole hand is refused; one card kept back goes out."""
    state = mtable({0: ["KD", "KC"]}, melds=([K3] + TWO_CANASTAS, []), turn=PLAY)
    assert refused(state, lay("KD", "KC")) == (0, "MUST_DISCARD_TO_GO_OUT")
    melds = [a for a in legal_list(state) if a["type"] == "meld"]
    assert melds and all(len(a["cards"]) == 1 for a in melds)
    new = after(state, lay("KD"), discard("KC"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


def test_no_concealed_bonus() -> None:
    """seed 001 (Regeländerungen) 'Ausmachen' ('Ausmachen bringt 100, ohne Zusatzbonus für das
    Ausmachen in einem Zug'); VARIANTS.md modern-american. A side that had not melded lays two
    pure canastas (35 + 70 = 105 < 125: a canasta from the hand needs no minimum) and goes out
    with a discard: 100 only."""
    hand = SEVEN_FIVES + SEVEN_KINGS + ["9C"]
    state = mtable({0: hand}, melds=([], [NINES]), turn=PLAY)
    new = after(state, lay(*SEVEN_FIVES), lay(*SEVEN_KINGS), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


def test_going_out_with_an_incomplete_wild_meld() -> None:
    """seed 001 (Regeländerungen) 'Strafen' ('eine unvollendete Auslage aus wilden Karten 2.000');
    VARIANTS.md modern-american; pins the README interpretation (going out with an incomplete
    wild-card meld is allowed; it costs the penalty)."""
    state = mtable({0: ["9C"]}, melds=(TWO_CANASTAS + [meld("JK", "2C", "2D", rank="wild")], []),
                   turn=PLAY)
    new = after(state, discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["penalties"] == -2000


CAN_GO_OUT = ["KD", "KC", "KH", "9C"]  # kings to meld, a nine to discard


def _asking(**turn: Any) -> Data:
    return mtable({0: CAN_GO_OUT, 2: ["KS", "KS", "4D", "5D"]}, melds=(TWO_CANASTAS, [NINES]),
                  turn={**PLAY, **turn})


def test_answer_no_forbids_going_out_this_turn() -> None:
    """seed 001 introduction ('Sie dürfen Ihren Partner einmal pro Spiel direkt nach dem Ziehen
    fragen, ob Sie ausmachen dürfen, und ein Nein hindert Sie in diesem Zug am Ausmachen');
    VARIANTS.md modern-american."""
    new = after(_asking(), ASK)
    assert (new["turn"]["phase"], new["turn"]["asked"]) == ("answer", "waiting")
    assert api.legal_actions({"state": new})["seat"] == 2
    state = after(new, answer(False))
    assert state["turn"]["asked"] == "no"
    assert refused(state, lay("KD", "KC", "KH")) == (0, "PARTNER_SAID_NO")
    new = after(state, discard("9C"))
    assert new["turn"]["seat"] == 1 and hand_of(new, 0) == ["KC", "KD", "KH"]


def test_answer_yes_obliges_going_out() -> None:
    """seed 001 introduction ('Sie dürfen Ihren Partner ... fragen'); VARIANTS.md
    modern-american ('a yes obliges it')."""
    state = after(_asking(), ASK, answer(True))
    assert state["turn"]["asked"] == "yes"
    assert refused(state, discard("9C")) == (0, "MUST_GO_OUT")
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


@pytest.mark.parametrize("case", ["twice in a turn", "again later in the deal",
                                  "after melding", "before drawing", "partner still may"])
def test_ask_once_per_deal_right_after_drawing(case: str) -> None:
    """seed 001 introduction ('einmal pro Spiel direkt nach dem Ziehen'); VARIANTS.md
    modern-american ('each player once per deal, right after drawing'). Once a player has asked
    in the deal he may not ask again (the partner may ask once for himself)."""
    if case == "twice in a turn":
        assert refused(_asking(), ASK, answer(False), ASK) == (2, "ASK_NOT_ALLOWED")
    elif case == "again later in the deal":
        assert refused(_asking(asked_this_deal=[0]), ASK) == (0, "ASK_NOT_ALLOWED")
    elif case == "after melding":
        assert refused(_asking(), lay("KD", "KC", "KH"), ASK) == (1, "ASK_NOT_ALLOWED")
    elif case == "before drawing":
        state = mtable({0: CAN_GO_OUT}, melds=(TWO_CANASTAS, [NINES]))
        assert refused(state, ASK) == (0, "WRONG_PHASE")
    else:
        state = mtable({2: CAN_GO_OUT}, melds=(TWO_CANASTAS, [NINES]),
                       turn={**PLAY, "seat": 2, "asked_this_deal": [0]})
        assert_legal(state, ASK)


def test_asked_this_deal_is_remembered() -> None:
    """seed 001 introduction ('einmal pro Spiel'); VARIANTS.md modern-american. After asking,
    the seat is recorded for the rest of the deal, across turns."""
    state = after(_asking(), ASK, answer(False), discard("9C"))
    assert 0 in state["turn"]["asked_this_deal"]


# =============================================================================================
# 8. Scoring
# =============================================================================================


@pytest.mark.parametrize("cards, rank, melded, bonus", [
    (SEVEN_KINGS, None, 70, 500),                                       # pure: 7 x 10
    (["KS", "KS", "KH", "KH", "KD", "2C", "JK"], None, 120, 300),      # mixed: 50 + 20 + 50
    (["7S", "7S", "7H", "7H", "7D", "7D", "7C"], None, 35, 2500),      # pure sevens: 7 x 5
    (["AS", "AS", "AH", "AH", "AD", "AD", "AC"], None, 140, 2500),     # pure aces: 7 x 20
    (["AS", "AS", "AH", "AH", "AD", "2C", "2D"], None, 140, 300),      # mixed aces: 100 + 40
    (["2S", "2S", "2H", "2H", "2D", "2D", "2C"], "wild", 140, 3000),   # seven twos: 7 x 20
    (["JK", "JK", "JK", "JK", "2S", "2H", "2D"], "wild", 260, 2500),   # 4 x 50 + 3 x 20
    (["JK", "JK", "JK", "2S", "2H", "2D", "2C"], "wild", 230, 2000),   # 3 x 50 + 4 x 20
    (["JK", "2S", "2S", "2H", "2H", "2D", "2D"], "wild", 170, 2000),   # 50 + 6 x 20
])
def test_canasta_bonus(cards: list[str], rank: str | None, melded: int, bonus: int) -> None:
    """seed 001 (Regeländerungen) 'Canasta-Prämien' ('Gemischtes Canasta 300, reines Canasta 500,
    reines Canasta aus Siebenen oder Assen 2.500. Canastas aus wilden Karten: sieben Zweien
    3.000, vier Joker mit drei Zweien 2.500, jedes andere 2.000'); VARIANTS.md modern-american.
    Each canasta alone on its side (one canasta: card values count plus)."""
    state = mtable({0: [], 2: ["4C", "4D"]}, melds=([meld(*cards, rank=rank)], []), turn=OVER)
    b = breakdown(state, 0)
    assert (b["melded_cards"], b["canasta_bonus"], b["penalties"]) == (melded, bonus, 0)


@pytest.mark.parametrize("reds, blacks, melds, expected", [
    (["3H"], [], [NINES], -100),                              # no canasta: against
    (["3H", "3D"], [], [NINES], -300),
    (["3H", "3D", "3D"], ["3S"], [], -600),                   # no meld at all: -(500 + 100)
    (["3H", "3H", "3D", "3D"], ["3S", "3C"], [NINES], -1300),  # -(1,000 + 300)
    (["3H", "3H", "3D", "3D"], ["3S"], [JACKS_CANASTA], 0),   # exactly one canasta: nothing
    (["3H"], [], TWO_CANASTAS, 100),                          # two canastas: for the side
    (["3H", "3D"], ["3S", "3C", "3C"], TWO_CANASTAS, 800),    # 300 + 500
    (["3H", "3H", "3D", "3D"], ["3S", "3S", "3C", "3C"], TWO_CANASTAS, 2000),  # 1,000 + 1,000
    ([], ["3S"], TWO_CANASTAS, 100),                          # black threes count alike
    ([], [], TWO_CANASTAS, 0),
])
def test_threes_by_colour(reds: list[str], blacks: list[str], melds: list[Data],
                          expected: int) -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Jede Farbe zählt 100, 300, 500 oder 1.000 für eine
    bis vier Dreien: gegen eine Seite ohne Canasta, nichts für eine Seite mit einer, für eine
    Seite mit zwei oder mehr'); VARIANTS.md modern-american. Colour means red or black."""
    state = mtable({0: [], 2: ["4C", "4D"]}, melds=(melds, []), bonus=(reds + blacks, []),
                   turn=OVER)
    assert breakdown(state, 0)["bonus_cards"] == expected


@pytest.mark.parametrize("melds, expected", [
    ([NINES, K3], -60),                       # no canasta: 30 + 30 against
    ([NINES, K3, JACKS_CANASTA], 130),        # a canasta: 30 + 30 + 70 for the side
    ([], 0),
])
def test_melded_cards_count_against_a_side_without_canasta(melds: list[Data],
                                                           expected: int) -> None:
    """seed 001 (Regeländerungen) 'Strafen' ('Karten auf der Hand zählen gegen Sie, ebenso die
    ausgelegten Karten einer Seite ohne Canasta'); VARIANTS.md modern-american."""
    state = mtable({0: [], 2: ["4C", "4D"]}, melds=(melds, []), turn=OVER)
    assert breakdown(state, 0)["melded_cards"] == expected
    assert breakdown(state, 0)["hand_cards"] == -10  # 4 (5) + 4 (5)


@pytest.mark.parametrize("melds, penalty", [
    ([meld("7S", "7H", "7D")], -2500),                                    # incomplete sevens
    ([meld("7S", "7S", "7H", "7H", "7D", "7D")], -2500),                  # six sevens
    ([meld("7S", "7S", "7H", "7H", "7D", "7D", "7C")], 0),                # complete
    ([meld("AS", "AH", "AD")], -2500),                                    # incomplete pure aces
    ([meld("AS", "AH", "AD", "AD", "2C")], 0),                            # aces with a wild
    ([meld("AS", "AS", "AH", "AH", "AD", "AD", "AC")], 0),                # complete
    ([meld("AS", "AH", "AD"), meld("7S", "7H", "7D")], -5000),
    ([meld("JK", "JK", "2C", rank="wild")], -2000),                       # incomplete wild meld
    ([meld("JK", "JK", "JK", "2C", "2D", "2H", rank="wild")], -2000),     # six, three jokers
    ([meld("JK", "JK", "JK", "JK", rank="wild")], -2500),                 # all four jokers
    ([meld("JK", "JK", "JK", "JK", "2C", "2D", rank="wild")], -2500),
    ([meld("JK", "JK", "JK", "JK", "2C", "2D", "2H", rank="wild")], 0),   # complete: 2,500 bonus
    ([K3], 0),
])
def test_incomplete_meld_penalties(melds: list[Data], penalty: int) -> None:
    """seed 001 (Regeländerungen) 'Strafen' ('Eine unvollendete Auslage aus Siebenen oder reinen
    Assen kostet 2.500, eine unvollendete Auslage aus wilden Karten 2.000 (2.500 mit allen vier
    Jokern)'); VARIANTS.md modern-american; pins the README interpretations (an ace meld with
    wild cards has no penalty; four jokers: 2,500 after pagat, research.md D14)."""
    _check_penalty(melds, penalty, {})


@pytest.mark.parametrize("melds, penalty", [
    ([meld("JK", "JK", "JK", "JK", rank="wild")], -2000),
    ([meld("JK", "JK", "JK", "JK", "2C", "2D", rank="wild")], -2000),
    ([meld("JK", "JK", "JK", "2C", rank="wild")], -2000),
    ([meld("AS", "AH", "AD")], -2500),
])
def test_option_four_jokers_penalty(melds: list[Data], penalty: int) -> None:
    """research.md D14: CLA charges an incomplete wild-card meld with all four jokers 2,000 like
    any other (pagat and seed 001: 2,500); option `four_jokers_penalty` = 2000 plays it so and
    changes nothing else."""
    _check_penalty(melds, penalty, {"four_jokers_penalty": 2000})
    changed = {k for k, v in rules_of({"four_jokers_penalty": 2000}).items() if v != rules_of()[k]}
    assert changed == {"wild_meld_incomplete_four_jokers", "options"}


def _check_penalty(melds: list[Data], penalty: int, options: Data) -> None:
    state = mtable({0: [], 2: ["4C", "4D"]}, melds=(melds, []), turn=OVER, options=options)
    assert breakdown(state, 0)["penalties"] == penalty


@pytest.mark.parametrize("hands, penalty", [
    ({1: ["AS", "AH", "AD"]}, -1500),
    ({1: ["AS", "AH", "AD", "AC", "AC"]}, -1500),           # one group, however many
    ({1: ["7S", "7H", "7D"]}, -1500),
    ({1: ["AS", "AH", "AD", "7S", "7H", "7D"]}, -3000),     # one group of each
    ({1: ["AS", "AH", "AD"], 3: ["7S", "7H", "7C"]}, -3000),  # one per player
    ({1: ["AS", "AH"], 3: ["AD", "7S", "7H"]}, 0),          # split between partners: none
    ({1: ["AS", "AH", "4C"]}, 0),
])
def test_held_aces_or_sevens_penalty(hands: dict[int, list[str]], penalty: int) -> None:
    """seed 001 (Regeländerungen) 'Strafen' ('Ein Spieler, der am Ende drei oder mehr Asse oder
    drei oder mehr Siebenen hält, kostet 1.500 für jede solche Gruppe'); VARIANTS.md
    modern-american. Per player; in addition to the cards' values."""
    all_hands = {0: [], 1: ["4C"], 3: ["4D"], **hands}
    state = mtable(all_hands, melds=(TWO_CANASTAS, [NINES]), turn=OVER)
    b = breakdown(state, 1)
    assert b["penalties"] == penalty
    values = {"A": 20, "7": 5, "4": 5}  # seat 0 went out and holds nothing
    assert b["hand_cards"] == -sum(values[c[0]] for h in all_hands.values() for c in h)


def test_golden_going_out_big_canastas_against_penalties() -> None:
    """seed 001 (Regeländerungen) 'Canasta-Prämien', 'Strafen', 'Dreien', 'Ausmachen' and
    'Siegpunktzahl'; VARIANTS.md modern-american. Seat 0 went out; side 0 has three canastas,
    side 1 none."""
    state = mtable(
        {0: [], 1: ["AS", "AS", "AH", "4C"], 2: ["9S", "4D"], 3: ["8C", "8C"]},
        melds=([meld("7S", "7S", "7H", "7H", "7D", "7D", "7C"),
                meld("KS", "KS", "KH", "KH", "KD", "2C", "JK"),
                meld("2S", "2S", "2H", "2H", "2D", "2D", "2C", rank="wild")],
               [meld("AD", "AD", "AC"), meld("QS", "QH", "QD"),
                meld("JK", "JK", "JK", rank="wild")]),
        bonus=(["3H", "3D", "3S"], ["3H"]), scores=(2000, 1000), turn=OVER)
    answer_ = score(state)
    side0, side1 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {
        "melded_cards": 295,     # sevens 7 x 5 = 35; kings 5 x 10 + 20 + 50 = 120; twos 7 x 20
        "hand_cards": -15,       # seat 2: 9 (10) + 4 (5)
        "canasta_bonus": 5800,   # pure sevens 2,500 + mixed kings 300 + seven twos 3,000
        "bonus_cards": 400,      # two red threes 300 + one black 100 (two canastas: for)
        "going_out": 100,
        "penalties": 0,
        "total": 6580,           # 295 - 15 + 5,800 + 400 + 100
    }
    assert side1 == {
        "melded_cards": -240,    # no canasta: -(aces 60 + queens 30 + three jokers 150)
        "hand_cards": -85,       # seat 1: 3 x 20 + 5 = 65; seat 3: 8 + 8 = 20
        "canasta_bonus": 0,
        "bonus_cards": -100,     # one red three, no canasta: against
        "going_out": 0,
        "penalties": -6000,      # pure aces incomplete -2,500; wild meld incomplete -2,000;
                                 # seat 1 holds three aces -1,500
        "total": -6425,          # -240 - 85 - 100 - 6,000
    }
    assert answer_["scores"] == [8580, -5425]      # 2,000 + 6,580; 1,000 - 6,425
    assert (answer_["game_over"], answer_["winner"]) == (True, 0)   # 8,580 >= 8,500
    assert answer_["next_minimums"] == [180, 125]  # from 5,000: 180; negative: 125


def test_golden_jokers_canasta_aces_and_one_canasta() -> None:
    """seed 001 (Regeländerungen) 'Canasta-Prämien', 'Strafen', 'Dreien'; VARIANTS.md
    modern-american. Seat 0 went out; side 1 has exactly one canasta (its threes count
    nothing, its melded cards count for it)."""
    state = mtable(
        {0: [], 1: ["KC", "4C"], 2: ["7S", "7S", "7H"], 3: ["2S"]},
        melds=([meld("AS", "AS", "AH", "AH", "AD", "AD", "AC"),
                meld("JK", "JK", "JK", "JK", "2S", "2H", "2D", rank="wild")],
               [meld("QS", "QS", "QH", "QH", "QD", "2C", "2C"), meld("7D", "7D", "7C")]),
        bonus=(["3S", "3S", "3C", "3C", "3H"], ["3H", "3D", "3D"]), scores=(3500, 4000),
        turn=OVER)
    answer_ = score(state)
    side0, side1 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {
        "melded_cards": 400,     # aces 7 x 20 = 140; jokers 4 x 50 + three twos 3 x 20 = 260
        "hand_cards": -15,       # seat 2: 7 + 7 + 7
        "canasta_bonus": 5000,   # pure aces 2,500 + four jokers with three twos 2,500
        "bonus_cards": 1100,     # four black threes 1,000 + one red 100 (two canastas)
        "going_out": 100,
        "penalties": -1500,      # seat 2 holds three sevens
        "total": 5085,           # 400 - 15 + 5,000 + 1,100 + 100 - 1,500
    }
    assert side1 == {
        "melded_cards": 105,     # queens 5 x 10 + 2 x 20 = 90; sevens 3 x 5 = 15 (a canasta)
        "hand_cards": -35,       # seat 1: K (10) + 4 (5); seat 3: 2 (20)
        "canasta_bonus": 300,    # mixed queens
        "bonus_cards": 0,        # three red threes (500) with exactly one canasta: nothing
        "going_out": 0,
        "penalties": -2500,      # incomplete sevens meld
        "total": -2130,          # 105 - 35 + 300 - 2,500
    }
    assert answer_["scores"] == [8585, 1870]       # 3,500 + 5,085; 4,000 - 2,130
    assert (answer_["game_over"], answer_["winner"]) == (True, 0)
    assert answer_["next_minimums"] == [180, 125]


def test_golden_played_out_deal() -> None:
    """seed 001 (Regeländerungen) 'Ausmachen', 'Canasta-Prämien', 'Strafen', 'Dreien';
    VARIANTS.md modern-american. Played through the engine: seat 0 draws, completes his side's
    second canasta (five natural kings take a two: a mixed canasta), melds and discards his last
    card to go out."""
    state = mtable({0: ["KC", "2D", "5S", "5H", "5D"], 1: ["JK", "9C"], 2: ["AS", "AH", "AD"],
                    3: ["6C"]},
                   melds=([JACKS_CANASTA, meld("KS", "KS", "KH", "KH", "KD")],
                          [meld("8S", "8H", "8D")]),
                   bonus=(["3S"], ["3H", "3D"]), stock_top=["6D"], scores=(0, 0),
                   turn={"seat": 0})
    new = after(state, DRAW, lay("KC", "2D"), lay("5S", "5H", "5D"), discard("6D"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    side0, side1 = (breakdown(new, s) for s in (0, 1))
    assert side0 == {
        "melded_cards": 165,     # jacks 70; kings 6 x 10 + 20 = 80; fives 15
        "hand_cards": -60,       # seat 2: three aces 60
        "canasta_bonus": 800,    # pure jacks 500 + mixed kings 300
        "bonus_cards": 100,      # one black three (two canastas)
        "going_out": 100,
        "penalties": -1500,      # seat 2 holds three aces
        "total": -395,           # 165 - 60 + 800 + 100 + 100 - 1,500
    }
    assert side1 == {
        "melded_cards": -30,     # eights 3 x 10, no canasta: against
        "hand_cards": -65,       # seat 1: joker 50 + 9 (10); seat 3: 6 (5)
        "canasta_bonus": 0,
        "bonus_cards": -300,     # two red threes, no canasta
        "going_out": 0,
        "penalties": 0,
        "total": -395,           # -30 - 65 - 300
    }


# =============================================================================================
# 9. The game: 8,500
# =============================================================================================


def _with_totals(totals: tuple[int, int], options: Data | None = None) -> Data:
    """A scored table whose game totals after the deal are ``totals``."""
    plain = mtable({0: [], **{s: ["4" + "CDHS"[s]] for s in range(1, 4)}},
                   melds=([JACKS_CANASTA], [QUEENS_CANASTA]), options=options, turn=OVER)
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [t - d for t, d in zip(totals, deal, strict=True)]
    return plain


@pytest.mark.parametrize("totals, options, game_over, winner", [
    ((8500, 4000), {}, True, 0),
    ((8495, 8490), {}, False, None),
    ((8600, 9000), {}, True, 1),           # both pass: the higher total wins
    ((8600, 8600), {}, False, None),       # a tie at the top: no winner, another deal
    ((-200, 8500), {}, True, 1),
    ((9000, 100), {"target": 10000}, False, None),
    ((5000, 100), {"target": 5000}, True, 0),
    ((2500, 2500), {"target": 2500}, False, None),
])
def test_game_target(totals: tuple[int, int], options: Data, game_over: bool,
                     winner: int | None) -> None:
    """seed 001 (Regeländerungen) 'Siegpunktzahl' ('8.500 Punkte ... 2.500, 5.000, 7.500 oder
    10.000'); research.md 3 ('if both reach it on the same deal, higher total wins'); README
    interpretation (an exact tie at or above the target: no winner yet)."""
    answer_ = score(_with_totals(totals, options))
    assert answer_["scores"] == list(totals)
    assert (answer_["game_over"], answer_["winner"]) == (game_over, winner)


@pytest.mark.parametrize("totals, minimums", [
    ((-2000, 0), [125, 125]),
    ((2995, 3000), [125, 155]),
    ((4995, 5000), [155, 180]),
    ((8000, -5), [180, 125]),
])
def test_next_initial_meld_minimums(totals: tuple[int, int], minimums: list[int]) -> None:
    """seed 001 (Regeländerungen) 'Erstauslage' ('Mindestens 125 Punkte unter 3.000 (auch bei
    negativem Stand), 155 ab 3.000 und 180 ab 5.000'); VARIANTS.md modern-american. The score
    answer gives the next deal's minimums."""
    answer_ = score(_with_totals(totals))
    assert answer_["scores"] == list(totals)
    assert answer_["next_minimums"] == minimums


def _threes_melded(*threes: str) -> list[dict[str, str]]:
    """The problems of side 0's second meld, a meld of ``threes`` taken from its bonus cards."""
    state = mtable({0: ["KC", "9C", "8D"]}, melds=([NINES], []), turn=PLAY)
    state["melds"][0] = [*state["melds"][0], meld(*threes, rank="3")]
    for side in state["bonus_cards"]:
        for card in threes:
            if card in side:
                side.remove(card)
    return [p for p in api.validate({"state": state})["problems"]
            if p["path"].startswith("/state/melds/0/1")]


def test_black_threes_are_never_melded_and_named_so() -> None:
    """seed 001 (Regeländerungen) 'Dreien' (every three is laid out at once, never melded);
    VARIANTS.md modern-american; issue 15 defect 5. A meld of black threes is a problem named
    for black threes (BLACK_THREES_NOT_MELDABLE, its own sentence), not "red threes are never
    melded"; a meld of red threes stays RED_THREE_NOT_MELDABLE."""
    blacks = _threes_melded("3S", "3S", "3C")
    assert blacks and {p["code"] for p in blacks} == {"BLACK_THREES_NOT_MELDABLE"}, blacks
    assert all("black" in p["message"].lower() for p in blacks)
    assert {p["code"] for p in _threes_melded("3H", "3H", "3D")} == {"RED_THREE_NOT_MELDABLE"}


# =============================================================================================
# 10. Rules pinned after the audit: a blocked or empty pile, asking after the pile, the last
#     three drawn as a replacement
# =============================================================================================


@pytest.mark.parametrize("wild", ["2C", "JK"])
def test_wild_card_on_top_blocks_the_pile(wild: str) -> None:
    """seed 001 (Regeländerungen) 'Den Ablagestapel nehmen' ('Immer mit einem reinen Paar aus der
    Hand, das zur obersten Karte passt': a wild card has no rank, no pair matches it); VARIANTS.md
    modern-american ('Pile: always and only with a natural pair from the hand matching the top
    card'). With a wild card on top nothing takes the pile (`PILE_BLOCKED_BY_WILD`): not a pair of
    wild cards, not a natural pair of the king under it, not the wild alone; no take is listed.
    Without the wild card the natural pair takes the king."""
    hand = ["KD", "KC", "2D", "2H", "5S"]
    state = mtable({0: hand}, melds=([NINES], []), discard=["8D", "KH", wild])
    for cards in (["KD", "KC"], ["2D", "2H"], []):
        assert refused(state, take(*cards)) == (0, "PILE_BLOCKED_BY_WILD")
    assert takes_listed(state) == []
    assert [a["type"] for a in legal_list(state)] == ["draw"]
    plain = mtable({0: hand}, melds=([NINES], []), discard=["8D", "KH"])
    assert [sorted(a["cards"]) for a in takes_listed(plain)] == [["KC", "KD"]]
    assert_legal(plain, take("KD", "KC"))


def test_empty_pile_cannot_be_taken() -> None:
    """seed 001 (Regeländerungen) 'Geben' ('Der Ablagestapel beginnt leer') and 'Den Ablagestapel
    nehmen' (a natural pair matching the top card: there is none); VARIANTS.md modern-american
    ('the pile starts empty'). The first player of a dealt deal cannot take the empty pile, not
    even with a natural pair from his hand (`PILE_EMPTY`); only the draw is listed."""
    for seed in range(20):
        state = api.deal({"variant": V, "seed": seed, "dealer": 3})["state"]
        hand = state["hands"][0]
        pairs = [r for r in NATURAL_RANKS if sum(c[0] == r for c in hand) >= 2]
        if pairs:
            break
    else:
        raise AssertionError("no dealt hand with a natural pair in the seed range")
    assert state["discard"] == [] and (state["turn"]["seat"], state["turn"]["phase"]) == (0, "draw")
    pair = [c for c in hand if c[0] == pairs[0]][:2]
    assert refused(state, take(*pair)) == (0, "PILE_EMPTY")
    assert refused(state, take()) == (0, "PILE_EMPTY")
    assert takes_listed(state) == []
    assert legal_list(state) == [{"type": "draw", "seat": 0}]
    built = mtable({0: ["KD", "KC", "9C", "4C"]}, discard=[])
    assert refused(built, take("KD", "KC")) == (0, "PILE_EMPTY")
    assert legal_list(built) == [{"type": "draw", "seat": 0}]


def test_no_ask_after_taking_the_pile() -> None:
    """seed 001 introduction ('Sie dürfen Ihren Partner einmal pro Spiel direkt nach dem Ziehen
    fragen, ob Sie ausmachen dürfen'); VARIANTS.md modern-american ('each player once per deal,
    right after drawing'). Taking the pile is no draw from the stock: after it "may I go out?" is
    refused (`ASK_NOT_ALLOWED`, 'only right after drawing'), although he could go out (nines and a
    four to discard); after a draw in the same position the question is allowed."""
    state = mtable({0: ["KD", "KC", "9C", "9H", "4C"], 2: ["5D", "6D"]},
                   melds=(TWO_CANASTAS + [K3], [meld("8S", "8H", "8D")]),
                   discard=["9D", "KH"], stock_top=["9S"])
    assert refused(state, take("KD", "KC"), ASK) == (1, "ASK_NOT_ALLOWED")
    verdict = api.check({"state": state, "actions": [take("KD", "KC"), ASK]})
    assert "right after drawing" in verdict["reason"]["message"]
    assert_legal(state, take("KD", "KC"), lay("9C", "9H", "9D"), discard("4C"))  # out is possible
    taken = after(state, take("KD", "KC"))
    assert [a for a in legal_list(taken) if a["type"] == "ask"] == []
    assert_legal(state, DRAW, ASK)


@pytest.mark.parametrize("laid, kept", [("3H", "3S"), ("3C", "3D")])
def test_three_replacing_a_three_as_last_stock_card_stays_in_hand(laid: str, kept: str) -> None:
    """seed 001 (Regeländerungen) 'Dreien' ('Jede Drei ... wird ausgelegt und ersetzt ... Eine
    Drei, die als letzte Karte vom Stapel gezogen wird, bleibt auf der Hand, zählt 5 Minuspunkte
    und beendet das Spiel'); VARIANTS.md modern-american. Stock of two threes: the first drawn is
    laid out and replaced; the replacement is the last stock card, so it stays in the hand and the
    deal ends at once, nobody out. Side 0 (kings, no canasta): melded -30, hand 9 + 4 + three
    (5) and seat 2's 8 = -30, one three of a colour against it -100."""
    state = mtable({0: ["9C", "4C"], 2: ["8C"]}, melds=([K3], [NINES]), stock=[laid, kept],
                   rest_to=1)
    answer_ = run(state, DRAW)
    assert answer_["events"] == [{"type": "drew", "seat": 0, "cards": [kept]},
                                 {"type": "threes", "seat": 0, "cards": [laid]},
                                 {"type": "deal-over", "stock_exhausted": True}]
    new = answer_["state"]
    turn = new["turn"]
    assert (turn["phase"], turn["went_out"], turn["stock_exhausted"]) == ("over", None, True)
    assert new["stock"] == []
    assert hand_of(new, 0) == sorted(["9C", "4C", kept])
    assert new["bonus_cards"][0] == [laid]
    assert legal_list(new) == []
    assert refused(new, discard("9C")) == (0, "DEAL_OVER")
    assert breakdown(new, 0) == {"melded_cards": -30, "hand_cards": -30, "canasta_bonus": 0,
                                 "bonus_cards": -100, "going_out": 0, "penalties": 0,
                                 "total": -160}


def test_frozen_pile_refusal_names_the_variants_reason() -> None:
    """seed 001 (Regeländerungen) 'Den Ablagestapel nehmen' ('Immer mit einem reinen Paar aus der
    Hand'); VARIANTS.md modern-american ('Pile: always and only with a natural pair'). The pile
    is frozen because the variant always freezes it, with a wild card in it or not: the refusal
    says so, and does not name a red three, which never lies in this pile."""
    hand = ["KD", "JK", "5S", "6S"]
    for pile in (["8D", "2C", "KH"], ["8D", "KH"]):
        state = mtable({0: hand}, melds=([NINES], []), discard=pile)
        for lang, says in (("en", "(always, in this variant)"), ("de", "(immer, in dieser Variante)")):
            verdict = api.check({"state": state, "actions": [take("KD", "JK")]}, lang=lang)
            assert verdict["reason"]["code"] == "PILE_FROZEN_NEEDS_NATURAL_PAIR"
            assert says in verdict["reason"]["message"], verdict
            assert "red three" not in verdict["reason"]["message"]


# =============================================================================================
# 11. Rules pinned after the second audit: taking the pile must leave a discard, the wild-card
#     canasta going out, one wild-card meld, the pile's pair onto a king meld with a wild card
# =============================================================================================

W7 = meld("JK", "JK", "2S", "2H", "2D", "2C", "2C", rank="wild")  # a wild canasta: 2,000
W6 = meld("JK", "JK", "2S", "2H", "2D", "2C", rank="wild")        # one short of it


@pytest.mark.parametrize("melds, under, code", [
    (TWO_CANASTAS + [K3], [], "MUST_DISCARD_TO_GO_OUT"),        # kings 3 + 3: the hand is empty
    (TWO_CANASTAS, [], "MUST_DISCARD_TO_GO_OUT"),               # a new meld K K K: empty hand
    (TWO_CANASTAS + [K3], ["8D"], None),                        # the 8 comes to the hand
    ([NINES, K3], [], "CANNOT_GO_OUT_WITHOUT_CANASTA"),
    ([NINES, K3], ["8D"], "CANNOT_GO_OUT_WITHOUT_CANASTA"),     # one card he may not discard
    ([NINES, K3], ["4D", "8D"], None),                          # discards one, keeps one
])
def test_taking_the_pile_must_leave_a_card_to_discard(melds: list[Data], under: list[str],
                                                       code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Abwerfen' ('Ihre Auslagen müssen Ihnen immer eine Karte zum
    Abwerfen lassen'), 'Ausmachen' ('Ihre Seite braucht zwei Canastas, und Sie beenden mit einem
    Abwurf') and 'Den Ablagestapel nehmen' (the pair and the top card are melded at once);
    VARIANTS.md modern-american ('melds must always leave a card to discard'; going out: 'the
    player ends with a discard'). Taking the pile with the last two cards of the hand melds them
    all: with two canastas that is refused as going out without a discard
    (`MUST_DISCARD_TO_GO_OUT`), without them as going out without the canastas -- also when the
    pile leaves him only one card he may not throw. A card under the top card to discard (with
    two canastas: to go out), or two (without: to keep one), make the take legal."""
    state = mtable({0: ["KD", "KC"]}, discard=[*under, "KH"], melds=(melds, []))
    if code is not None:
        assert refused(state, take("KD", "KC")) == (0, code)
        assert takes_listed(state) == []
        assert legal_list(state) == [{"type": "draw", "seat": 0}]
        return
    new = after(state, take("KD", "KC"))
    assert hand_of(new, 0) == sorted(under)
    assert len(side_melds(new, 0)["K"]) == 6
    new = after(new, discard("8D"))
    if len(under) == 1:
        assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    else:
        assert (new["turn"]["seat"], new["turn"]["phase"], hand_of(new, 0)) == (1, "draw", ["4D"])


@pytest.mark.parametrize("melds, hand, actions, code", [
    ([JACKS_CANASTA, W7, K3], ["KD", "9C"], [lay("KD"), discard("9C")], None),
    # the wild canasta completed in the going-out turn
    ([JACKS_CANASTA, W6], ["2C", "9C"], [lay("2C", rank="wild"), discard("9C")], None),
    ([W7, K3], ["KD", "9C"], [lay("KD"), discard("9C")],            # one canasta only
     "CANNOT_GO_OUT_WITHOUT_CANASTA"),
    ([JACKS_CANASTA, W6], ["9C"], [discard("9C")],                  # six wild cards: no canasta
     "CANNOT_GO_OUT_WITHOUT_CANASTA"),
])
def test_going_out_with_a_wild_card_canasta(melds: list[Data], hand: list[str],
                                            actions: list[Data], code: str | None) -> None:
    """seed 001 (Regeländerungen) 'Ausmachen' ('Ihre Seite braucht zwei Canastas'), 'Auslagen aus
    wilden Karten' ('Drei bis sieben Zweien und Joker dürfen eine eigene Auslage bilden') and
    'Canasta-Prämien' ('Canastas aus wilden Karten: ... jedes andere 2.000'); VARIANTS.md
    modern-american ('the side needs two canastas'; wild canastas). A complete wild-card meld of
    seven is one of the two canastas needed to go out -- also when its seventh card is laid in the
    going-out turn; six wild cards are not. Bonuses: pure jacks 500 + two jokers with five twos
    2,000; going out 100."""
    state = mtable({0: hand}, melds=(melds, [NINES]), turn=PLAY)
    if code is not None:
        assert refused(state, *actions) == (0, code)
        return
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert len(side_melds(new, 0)["wild"]) == 7
    b = breakdown(new, 0)
    assert (b["canasta_bonus"], b["going_out"], b["penalties"]) == (2500, 100, 0)


def test_one_wild_card_meld_per_side() -> None:
    """seed 001 (Regeländerungen) 'Auslagen aus wilden Karten' ('Drei bis sieben Zweien und Joker
    dürfen eine eigene Auslage bilden') and 'Auslagen' ('Eine Auslage endet bei sieben Karten');
    VARIANTS.md modern-american (wild-card melds of three to seven; a meld ends at seven);
    docs/variants/modern-american.md Melds ('One meld per rank per side, and one wild-card
    meld'). After completing a wild canasta the side may not start a second wild-card meld: the
    three wild cards would join the complete one (`MELD_TOO_BIG`), and no meld is listed. While
    the side's wild-card meld is incomplete, three more wild cards join it (six), never a second
    meld; a state with two wild-card melds of one side is invalid (`DUPLICATE_MELD_RANK`)."""
    hand = ["2D", "2H", "JK", "4C", "6C"]
    state = mtable({0: hand}, melds=([NINES, W7], []), turn=PLAY)
    assert refused(state, lay("2D", "2H", "JK", rank="wild")) == (0, "MELD_TOO_BIG")
    assert [a for a in legal_list(state) if a["type"] == "meld"] == []
    growing = mtable({0: hand}, melds=([NINES, meld("JK", "JK", "2S", rank="wild")], []),
                     turn=PLAY)
    new = after(growing, lay("2D", "2H", "JK", rank="wild"))
    assert [m["rank"] for m in new["melds"][0]].count("wild") == 1
    assert side_melds(new, 0)["wild"] == ["2D", "2H", "2S", "JK", "JK", "JK"]
    two = mtable({0: hand}, melds=([NINES, W7], []), turn=PLAY)
    two["hands"][0] = ["4C", "6C"]
    two["melds"][0].append(meld("2D", "2H", "JK", rank="wild"))
    assert [(p["code"], p["path"]) for p in api.validate({"state": two})["problems"]] == [
        ("DUPLICATE_MELD_RANK", "/state/melds/0/2/rank")]


@pytest.mark.parametrize("table_meld, canasta_bonus", [
    (meld("KS", "KS", "2D"), 0),               # 3 cards, one wild: six kings and a two
    (meld("KS", "KS", "KH", "2D"), 300),       # 4 cards, one wild: a mixed canasta of seven
    (meld("KS", "KS", "2D", "JK"), 300),       # 4 cards, two wilds: five kings and two wilds
])
def test_pile_pair_joins_a_meld_of_three_or_four_holding_a_wild_card(table_meld: Data,
                                                                     canasta_bonus: int) -> None:
    """seed 001 (Regeländerungen) 'Den Ablagestapel nehmen' ('Das Paar darf nur an die Auslage
    Ihrer Seite in diesem Rang, solange sie drei oder vier Karten hat': cards, wild cards
    included), 'Auslagen' ('höchstens zwei wilden Karten') and 'Wilde Karten anlegen' (the pair
    and the top card are natural: no wild card is placed); VARIANTS.md modern-american ('the pair
    may go to the side's meld of that rank only while it has three or four cards'). Pins the
    engine's answer: a king meld of three or four cards holding one or two wild cards (laid in
    the opening turn) takes the natural pair and the top king; the wild cards stay, and seven
    cards make a mixed canasta."""
    state = mtable({0: ["KC", "KC", "4C", "6C"]}, discard=["8D", "KD"],
                   melds=([NINES, table_meld], []))
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KC"]]
    new = after(state, take("KC", "KC"))
    assert side_melds(new, 0)["K"] == sorted(table_meld["cards"] + ["KC", "KC", "KD"])
    assert [m["rank"] for m in new["melds"][0]] == ["9", "K"]
    assert hand_of(new, 0) == ["4C", "6C", "8D"]
    assert breakdown(new, 0)["canasta_bonus"] == canasta_bonus
