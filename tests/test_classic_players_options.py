"""Classic Canasta for two, three and six players, and every classic option.

One test (or a small parametrized group) per rule. Every test drives the engine at the JSON
level (``engine.api``, the contract of CONTRACT.md) and names its source: seed 000
(``shared/seeds/000_8dfc37645e691ef9.txt``, section 'Varianten: Canasta zu zweit, zu dritt und zu
sechst'), the pagat section it cites ("Canasta for two players", "Canasta for three players",
"Canasta for Six Players"; research.md 2.10-2.12), and ``VARIANTS.md classic`` (the player table
and Options), which decides where they differ.

States are complete and valid: ``table()`` puts every card nobody named into the stock; six
players use three packs (162 cards, six jokers).
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import pytest

from canasta_referee.engine import api
from tests.builders import (
    ASK,
    DRAW,
    JACKS_CANASTA,
    JUNK,
    K3,
    NINES,
    PLAY,
    SEVEN_KINGS,
    Data,
    after,
    answer,
    assert_legal,
    breakdown,
    deck_of,
    discard,
    events_of,
    hand_of,
    lay,
    legal_list,
    meld,
    refused,
    run,
    score,
    side_melds,
    take,
    takes_listed,
)
from tests.builders import table as build_table

TWO = {"players": 2}
THREE = {"players": 3}
SIX_PAIRS = {"players": 6}               # three sides of two (the default for six)
SIX_THREES = {"players": 6, "sides": 2}  # two sides of three

QUEENS_CANASTA = meld("QS", "QS", "QH", "QH", "QD", "QD", "QC")   # natural, 7 x 10 = 70
SIX_KINGS = meld("KS", "KS", "KH", "KH", "KD", "KC")              # one short of a canasta
PLAIN_MELDS = [NINES, meld("8S", "8H", "8D"), meld("7S", "7H", "7D")]  # one per side, any deck
ONE_CARD = ["4C", "4D", "4H", "4S", "5C", "5D"]  # one low card (5) per seat

DEFAULTS = {"natural_majority": False, "pile_needs_natural_pair": False,
            "red_three_card_points": 0, "ask_partner": True, "wild_canasta": 0}


def table(hands: dict[int, list[str]] | None = None, **kwargs: Any) -> Data:
    """``builders.table`` with the dealer on the last seat, so that seat 0 plays first (the
    builder's default dealer, seat 3, exists only with four or six players)."""
    players = rules(kwargs.get("options") or {})["players"]
    kwargs.setdefault("dealer", players - 1)
    return build_table(hands, **kwargs)


def dealt(options: Data, seed: int, dealer: int = 0) -> Data:
    return api.deal({"options": options, "seed": seed, "dealer": dealer})


def problems(state: Data) -> list[tuple[str, str]]:
    return [(p["code"], p["path"]) for p in api.validate({"state": state})["problems"]]


def rules(options: Data) -> Data:
    return api.variant("classic", options)["rules"]


def with_totals(options: Data, totals: tuple[int, ...]) -> Data:
    """A scored table (each side has one plain meld, each seat one low card) whose game totals
    after the deal are ``totals``."""
    n = rules(options)["players"]
    plain = table({s: [ONE_CARD[s]] for s in range(n)},
                  melds=[[m] for m in PLAIN_MELDS[:len(totals)]], options=options)
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [t - d for t, d in zip(totals, deal, strict=True)]
    return plain


# =============================================================================================
# 1. The player table (VARIANTS.md classic): deck, cards dealt, draw, canastas, target
# =============================================================================================


@pytest.mark.parametrize("options, players, sides, packs, jokers, dealt_, draw, canastas, target", [
    (TWO, 2, 2, 2, 4, 15, 2, 2, 5000),
    (THREE, 3, 3, 2, 4, 13, 2, 1, 7500),
    ({}, 4, 2, 2, 4, 11, 1, 1, 5000),
    (SIX_PAIRS, 6, 3, 3, 6, 13, 1, 2, 7500),
    ({"players": 6, "sides": 3}, 6, 3, 3, 6, 13, 1, 2, 7500),
    (SIX_THREES, 6, 2, 3, 6, 13, 1, 2, 10000),
])
def test_rule_table_per_player_count(options: Data, players: int, sides: int, packs: int,
                                     jokers: int, dealt_: int, draw: int, canastas: int,
                                     target: int) -> None:
    """VARIANTS.md classic (player table); seed 000 'Varianten: Canasta zu zweit, zu dritt und zu
    sechst'; pagat: Canasta for two players, Canasta for three players, Canasta for Six Players
    (research.md 2.10-2.12). Sides, deck, cards dealt, cards drawn, canastas to go out and target
    for 2, 3, 4 and 6 players; six players default to three pairs to 7,500."""
    r = rules(options)
    assert (r["players"], r["sides"], r["packs"], r["jokers"]) == (players, sides, packs, jokers)
    assert 52 * r["packs"] + r["jokers"] == (162 if players == 6 else 108)
    assert (r["hand_size"], r["draw_count"], r["canastas_to_go_out"]) == (dealt_, draw, canastas)
    assert r["target"] == target


@pytest.mark.parametrize("options, hand, deck", [
    (TWO, 15, 108), (THREE, 13, 108), (SIX_PAIRS, 13, 162), (SIX_THREES, 13, 162),
])
def test_deal_sizes_and_deck(options: Data, hand: int, deck: int) -> None:
    """VARIANTS.md classic (player table); seed 000 'Varianten'; pagat: Canasta for two / three
    players, Canasta for Six Players. A fresh deal gives every seat its cards (15 / 13 / 13),
    the first player sits left of the dealer, and nothing is lost: hands, pile, stock and bonus
    cards make the whole deck (six players: three packs with six jokers, 162 cards)."""
    n = options["players"]
    packs = 3 if n == 6 else 2
    for seed in range(12):
        dealer = seed % n
        state = dealt(options, seed, dealer)["state"]
        assert [len(h) for h in state["hands"]] == [hand] * n
        assert (state["turn"]["seat"], state["turn"]["phase"]) == ((dealer + 1) % n, "draw")
        cards = Counter(c for h in state["hands"] for c in h)
        cards.update(state["discard"])
        cards.update(state["stock"])
        cards.update(c for b in state["bonus_cards"] for c in b)
        assert sum(cards.values()) == deck
        assert cards == deck_of(packs), seed
        assert cards["JK"] == (6 if n == 6 else 4)
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


@pytest.mark.parametrize("options", [TWO, THREE, SIX_PAIRS, SIX_THREES])
def test_dealt_red_threes_go_to_the_seats_side(options: Data) -> None:
    """CONTRACT.md 'Seats and teams'; seed 000 'Aufbau'; pagat: The Deal. Red threes dealt are laid
    out in front of the dealt seat's side, seat s belonging to side s mod k."""
    sides = rules(options)["sides"]
    seen = 0
    for seed in range(40):
        answer_ = dealt(options, seed)
        per_side: list[list[str]] = [[] for _ in range(sides)]
        for event in events_of(answer_, "red-threes"):
            per_side[event["seat"] % sides].extend(event["cards"])
        bonus = answer_["state"]["bonus_cards"]
        assert len(bonus) == sides
        assert [sorted(b) for b in bonus] == [sorted(b) for b in per_side], seed
        seen += sum(len(b) for b in per_side)
    assert seen > 0, "the seed range must contain dealt red threes"


# =============================================================================================
# 2. Seats and sides (CONTRACT.md 'Seats and teams')
# =============================================================================================


@pytest.mark.parametrize("options, seats", [
    (TWO, [[0], [1]]),
    (THREE, [[0], [1], [2]]),
    ({}, [[0, 2], [1, 3]]),
    (SIX_PAIRS, [[0, 3], [1, 4], [2, 5]]),
    (SIX_THREES, [[0, 2, 4], [1, 3, 5]]),
])
def test_seat_to_side_mapping(options: Data, seats: list[list[int]]) -> None:
    """CONTRACT.md 'Seats and teams'; VARIANTS.md classic (player table: 'each alone', 3 x 2,
    2 x 3). With k sides seat s belongs to side s mod k: the score answer lists each side's seats,
    and a state must carry one score, meld list and bonus list per side."""
    state = table(options=options)
    assert [s["seats"] for s in score(state)["sides"]] == seats
    bad = dict(state, scores=state["scores"] + [0])
    assert problems(bad) == [("SIDE_COUNT_MISMATCH", "/state/scores")]
    n = sum(len(s) for s in seats)
    bad = dict(state, turn={"seat": n, "phase": "draw"})
    assert problems(bad) == [("SEAT_OUT_OF_RANGE", "/state/turn/seat")]


@pytest.mark.parametrize("options, seat, side", [
    (SIX_PAIRS, 3, 0), (SIX_PAIRS, 4, 1), (SIX_PAIRS, 5, 2),
    (SIX_THREES, 2, 0), (SIX_THREES, 4, 0), (SIX_THREES, 5, 1),
    (THREE, 2, 2), (TWO, 1, 1),
])
def test_meld_goes_to_the_seats_side(options: Data, seat: int, side: int) -> None:
    """CONTRACT.md 'Seats and teams'; seed 000 'Meldungen und Canastas'; pagat: Melds and
    Canastas. A seat's meld lands on its side's table (side = seat mod k), nobody else's."""
    n_sides = rules(options)["sides"]
    state = table({seat: ["KD", "KC", "KH", "9C", "4C"]}, melds=[[m] for m in PLAIN_MELDS[:n_sides]],
                  turn={"seat": seat, **PLAY}, options=options)
    new = after(state, lay("KD", "KC", "KH"))
    for s in range(n_sides):
        assert ("K" in side_melds(new, s)) is (s == side), s


@pytest.mark.parametrize("options, melder, adder", [
    (SIX_PAIRS, 0, 3), (SIX_PAIRS, 4, 1), (SIX_THREES, 0, 4), (SIX_THREES, 2, 0),
])
def test_six_players_partners_share_melds(options: Data, melder: int, adder: int) -> None:
    """seed 000 'Meldungen und Canastas'; pagat: Melds and Canastas, Canasta for Six Players.
    Partners share their side's melds: a partner adds the pile's top card to the king meld
    another partner laid (the side = seat mod k)."""
    n_sides = rules(options)["sides"]
    melds: list[list[Data]] = [[] for _ in range(n_sides)]
    melds[melder % n_sides] = [K3]
    state = table({adder: ["4C", "6C"]}, discard=["9C", "KD"], melds=melds,
                  turn={"seat": adder, "melded": [melder]}, options=options)
    new = after(state, take())
    assert side_melds(new, adder % n_sides)["K"] == ["KD", "KH", "KS", "KS"]
    assert hand_of(new, adder) == ["4C", "6C", "9C"]


# =============================================================================================
# 3. Drawing: two cards for two and three players, one for six
# =============================================================================================


@pytest.mark.parametrize("options, drawn", [
    (TWO, ["QS", "QH"]), (THREE, ["QS", "QH"]), (SIX_PAIRS, ["QS"]), (SIX_THREES, ["QS"]),
])
def test_cards_drawn_per_turn(options: Data, drawn: list[str]) -> None:
    """VARIANTS.md classic (player table, drawn per turn); pagat: Canasta for two players, Canasta
    for three players, Canasta for Six Players (research.md 2.10-2.12; BIC, RG). Two and three
    players draw two cards from the stock, six players one; one card is discarded."""
    state = table({0: ["9C", "4C"]}, stock_top=["QS", "QH", "QD"], options=options)
    size = len(state["stock"])
    answer_ = run(state, DRAW)
    new = answer_["state"]
    assert hand_of(new, 0) == sorted(["9C", "4C"] + drawn)
    assert len(new["stock"]) == size - len(drawn)
    assert [e["cards"] for e in events_of(answer_, "drew")] == [drawn]
    new = after(new, discard("9C"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    assert len(new["hands"][0]) == 1 + len(drawn)


def test_two_players_red_three_drawn_is_replaced() -> None:
    """seed 000 'Die Dreien'; pagat: Threes in Classic Canasta, Canasta for two players. Drawing
    two, a red three among them is laid out and replaced: the player still gets two cards."""
    state = table({0: ["9C", "4C"]}, stock_top=["3H", "QS", "QH", "QD"], options=TWO)
    new = after(state, DRAW)
    assert new["bonus_cards"] == [["3H"], []]
    assert hand_of(new, 0) == ["4C", "9C", "QH", "QS"]
    assert new["stock"][0] == "QD"


def test_two_players_last_stock_card_is_a_complete_draw() -> None:
    """VARIANTS.md classic, Stock exhausted ('Two players: when one stock card is left, drawing
    it is a complete draw'); pagat: Canasta for two players (research.md 2.10; RG). With one
    stock card left the player takes it and plays on as after a full draw; the next player
    then faces the empty stock."""
    state = table({0: ["9C", "4C"]}, discard=["8D", "4D"], melds=([K3], []), stock=["QH"],
                  rest_to=1, options=TWO)
    answer_ = run(state, DRAW)
    new = answer_["state"]
    assert [e["cards"] for e in events_of(answer_, "drew")] == [["QH"]]
    assert new["turn"]["phase"] == "play" and new["stock"] == []
    assert hand_of(new, 0) == ["4C", "9C", "QH"]
    new = after(new, discard("QH"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    assert new["stock"] == []


def test_two_players_last_card_red_three_ends_the_deal() -> None:
    """VARIANTS.md classic, Stock exhausted; seed 000 'Der Stapel ist leer'; pagat: Going Out,
    Canasta for two players. Drawing two from a stock of a plain card and a red three: the plain
    card is drawn, the red three -- the last stock card -- is laid out and the deal ends at once."""
    state = table({0: ["9C", "4C"]}, discard=["8D", "4D"], melds=([K3], []), stock=["QH", "3H"],
                  rest_to=1, options=TWO)
    new = after(state, DRAW)
    assert "3H" in new["bonus_cards"][0]
    assert hand_of(new, 0) == ["4C", "9C", "QH"]
    turn = new["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)
    assert refused(new, discard("QH")) == (0, "DEAL_OVER")


# =============================================================================================
# 4. Going out: two canastas for two and six players, one for three
# =============================================================================================


@pytest.mark.parametrize("options, needed", [
    (TWO, 2), (THREE, 1), ({}, 1), (SIX_PAIRS, 2), (SIX_THREES, 2),
])
def test_canastas_needed_to_go_out(options: Data, needed: int) -> None:
    """VARIANTS.md classic (player table, canastas to go out); pagat: Canasta for two players,
    Canasta for three players, Canasta for Six Players (research.md 2.10-2.12). With one canasta
    a player of a two- or six-player game may not go out (nor meld down to one card); with two
    he may; three players need only one."""
    one = table({0: ["KD", "9C"]}, melds=([JACKS_CANASTA, K3], []), turn=PLAY, options=options)
    if needed == 1:
        new = after(one, lay("KD"), discard("9C"))
        assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    else:
        assert refused(one, lay("KD"), discard("9C")) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")
        assert refused(one, lay("KD")) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")
        assert_legal(one, discard("9C"))  # he plays on keeping a card
    two = table({0: ["KD", "9C"]}, melds=([JACKS_CANASTA, QUEENS_CANASTA, K3], []), turn=PLAY,
                options=options)
    new = after(two, lay("KD"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


@pytest.mark.parametrize("options", [TWO, SIX_PAIRS, SIX_THREES])
def test_second_canasta_completed_in_the_going_out_turn(options: Data) -> None:
    """VARIANTS.md classic, Going out ('the last one may be completed in the same turn'); pagat:
    Going Out, Canasta for two players, Canasta for Six Players. One canasta and six kings: the
    seventh king completes the second canasta and the player goes out in the same turn."""
    state = table({0: ["KD", "9C"]}, melds=([JACKS_CANASTA, SIX_KINGS], []), turn=PLAY,
                  options=options)
    new = after(state, lay("KD"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["canasta_bonus"] == 1000  # two natural canastas, 500 each


# =============================================================================================
# 5. "May I go out?": nobody to ask alone; in threes the next partner clockwise answers
# =============================================================================================

CAN_GO_OUT = ["KD", "KC", "KH", "9C"]  # kings to meld, a nine to discard


@pytest.mark.parametrize("options", [TWO, THREE, {"players": 2, "ask_partner": True},
                                     {"players": 3, "ask_partner": True}])
def test_no_asking_without_a_partner(options: Data) -> None:
    """VARIANTS.md classic (2 and 3 players: each alone), Going out ('A partner may be asked');
    pagat: Going Out, Canasta for two / three players. A player without a partner has nobody to
    ask "may I go out?": ASK_NOT_ALLOWED, and ask is not listed -- though he could go out."""
    state = table({0: CAN_GO_OUT}, melds=([JACKS_CANASTA, QUEENS_CANASTA], []), turn=PLAY,
                  options=options)
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    assert "ask" not in [a["type"] for a in legal_list(state)]
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))  # he may go out unasked
    assert new["turn"]["went_out"] == 0
    waiting = dict(state, turn={**state["turn"], "phase": "answer", "asked": "waiting"})
    assert problems(waiting) == [("PHASE_INCONSISTENT", "/state/turn")]  # nobody to answer


@pytest.mark.parametrize("options, asker, answerer, other", [
    (SIX_THREES, 0, 2, 4),
    (SIX_THREES, 2, 4, 0),
    (SIX_THREES, 4, 0, 2),
    (SIX_THREES, 3, 5, 1),
    (SIX_PAIRS, 0, 3, None),
    (SIX_PAIRS, 4, 1, None),
])
def test_six_players_who_answers_may_i_go_out(options: Data, asker: int, answerer: int,
                                              other: int | None) -> None:
    """VARIANTS.md classic, Going out; pagat: Going Out, Canasta for Six Players. In six-player
    threes the next partner clockwise answers "may I go out?" (the other partner may not); in
    pairs the one partner does. The answer binds as with four players."""
    n_sides = rules(options)["sides"]
    melds: list[list[Data]] = [[] for _ in range(n_sides)]
    melds[asker % n_sides] = [JACKS_CANASTA, QUEENS_CANASTA]
    state = table({asker: CAN_GO_OUT}, melds=melds, turn={"seat": asker, **PLAY}, options=options)
    asked = after(state, ASK)
    assert (asked["turn"]["phase"], asked["turn"]["asked"]) == ("answer", "waiting")
    listed = api.legal_actions({"state": asked})
    assert listed["seat"] == answerer
    assert sorted(a["allow"] for a in listed["actions"]) == [False, True]
    if other is not None:
        assert refused(asked, {"type": "answer", "allow": True, "seat": other}) == (
            0, "NOT_YOUR_TURN")
    assert refused(asked, {"type": "answer", "allow": True, "seat": asker}) == (0, "NOT_YOUR_TURN")
    yes = after(asked, {"type": "answer", "allow": True, "seat": answerer})
    assert refused(yes, discard("9C")) == (0, "MUST_GO_OUT")
    no = after(asked, answer(False))
    assert refused(no, lay("KD", "KC", "KH")) == (0, "PARTNER_SAID_NO")


# =============================================================================================
# 6. Six players: red threes, initial minimum to 10,000
# =============================================================================================


@pytest.mark.parametrize("options", [SIX_PAIRS, SIX_THREES])
@pytest.mark.parametrize("count, points", [
    (1, 100), (2, 200), (3, 300),
    (4, 400),     # six players: four count 4 x 100, not 800
    (5, 1000),
    (6, 1200),
])
def test_six_players_red_three_bonus(options: Data, count: int, points: int) -> None:
    """VARIANTS.md classic, Scoring ('six players: up to four 100 each, five 1,000, six 1,200');
    seed 000 'Varianten: Canasta zu zweit, zu dritt und zu sechst' ('vier rote Dreien zählen dann
    400, fünf 1.000 und sechs 1.200'); pagat: Canasta for Six Players."""
    reds = (["3H", "3D"] * 3)[:count]
    state = table({0: ["4C"]}, melds=([NINES], []), bonus=(reds, []), options=options)
    assert breakdown(state, 0)["bonus_cards"] == points
    unmelded = table({0: ["4C"]}, melds=([], [NINES]), bonus=(reds, []), options=options)
    assert breakdown(unmelded, 0)["bonus_cards"] == -points  # no meld at all: minus


@pytest.mark.parametrize("options, count, points", [
    (TWO, 4, 800), (THREE, 4, 800), (TWO, 3, 300), (THREE, 2, 200),
])
def test_two_and_three_players_red_threes_as_four_players(options: Data, count: int,
                                                          points: int) -> None:
    """VARIANTS.md classic, Scoring; pagat: Canasta for two / three players ('All other rules are
    the same as in four-player Classic Canasta', research.md 2.10). Red threes 100 each, all four
    800 (one pack pair: four red threes in the deck)."""
    reds = ["3H", "3H", "3D", "3D"][:count]
    state = table({0: ["4C"]}, melds=([NINES], []), bonus=(reds, []), options=options)
    assert breakdown(state, 0)["bonus_cards"] == points


OFFER_150 = [["AH", "AD", "AS", "AC", "JK", "2C"]]               # 4 x 20 + 50 + 20 = 150
OFFER_145 = [["AH", "AD", "AS", "JK", "2C"], ["5S", "5H", "5D"]]  # 60 + 50 + 20 + 15 = 145
OFFER_120 = [["AH", "AD", "AS", "AC", "2C", "2D"]]                # 4 x 20 + 2 x 20 = 120


@pytest.mark.parametrize("options, score_before, offer, minimum", [
    (SIX_THREES, 7500, OFFER_150, 150),    # to 10,000: 150 from 7,500
    (SIX_THREES, 7500, OFFER_145, 150),    # 145 < 150
    (SIX_THREES, 7500, OFFER_120, 150),    # the 120 of the four-player table is not enough
    (SIX_THREES, 7495, OFFER_120, 120),    # below 7,500: 120
    (SIX_PAIRS, 7400, OFFER_120, 120),     # to 7,500: the ordinary table
    ({"players": 6, "sides": 3, "target": 10000}, 7500, OFFER_120, 150),
    ({"players": 6, "sides": 2, "target": 7500}, 7400, OFFER_120, 120),
])
def test_six_players_to_10000_initial_minimum_150(options: Data, score_before: int,
                                                  offer: list[list[str]], minimum: int) -> None:
    """VARIANTS.md classic, Initial-meld minimum ('six players to 10,000: 150 from 7,500');
    pagat: Canasta for Six Players (research.md 2.12). Card values only, several melds of one
    turn count together; an offer short of the minimum is refused."""
    hand = [c for m in offer for c in m] + JUNK
    state = table({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY,
                  options=options)
    actions = [lay(*m) for m in offer]
    offered = sum({"A": 20, "5": 5, "2": 20, "J": 50}[c[0]] for c in hand[:-2])
    if offered >= minimum:
        answer_ = run(state, *actions)
        assert [(e["points"], e["minimum"]) for e in events_of(answer_, "initial-meld")] == [
            (offered, minimum)]
    else:
        assert refused(state, *actions) == (0, "INITIAL_MELD_UNREACHABLE")


@pytest.mark.parametrize("options, totals, minimums", [
    (SIX_THREES, (7500, 7495), [150, 120]),
    (SIX_THREES, (9995, 3000), [150, 120]),
    (SIX_PAIRS, (7400, 3000, -5), [120, 120, 15]),
    (TWO, (1500, 0), [90, 50]),
    (THREE, (7495, 1495, 2995), [120, 50, 90]),
])
def test_next_minimums_per_player_count(options: Data, totals: tuple[int, ...],
                                        minimums: list[int]) -> None:
    """VARIANTS.md classic, Initial-meld minimum; pagat: Initial Meld Requirement, Canasta for
    Six Players. The score answer gives each side's next minimum from its new total: the
    four-player table, and 150 from 7,500 in a six-player game to 10,000."""
    answer_ = score(with_totals(options, totals))
    assert answer_["scores"] == list(totals)
    assert answer_["next_minimums"] == minimums


# =============================================================================================
# 7. Targets and the end of the game
# =============================================================================================


@pytest.mark.parametrize("options, totals, game_over, winner", [
    (TWO, (4995, 4990), False, None),
    (TWO, (5000, 4000), True, 0),              # two players: 5,000
    (THREE, (5000, 7495, 0), False, None),     # three players: 7,500, not 5,000
    (THREE, (7000, 7500, 7400), True, 1),
    (THREE, (7600, 7700, 7650), True, 1),      # all past: the highest total wins
    (THREE, (7600, 7600, 7000), False, None),  # exact tie at the top: another deal
    (SIX_PAIRS, (7495, 7000, 5000), False, None),
    (SIX_PAIRS, (7000, 5000, 7500), True, 2),  # three pairs: 7,500
    (SIX_THREES, (7500, 9995), False, None),   # two threes: 10,000
    (SIX_THREES, (10000, 9995), True, 0),
    (SIX_THREES, (10100, 10200), True, 1),
])
def test_target_per_player_count(options: Data, totals: tuple[int, ...], game_over: bool,
                                 winner: int | None) -> None:
    """VARIANTS.md classic (player table, target) and common rules (higher total wins, exact tie
    means another deal); seed 000 'Varianten' ('drei Zweierteams bis 7.500 oder zwei Dreierteams
    bis 10.000'); pagat: Canasta for two / three players, Canasta for Six Players."""
    answer_ = score(with_totals(options, totals))
    assert answer_["scores"] == list(totals)
    assert (answer_["game_over"], answer_["winner"]) == (game_over, winner)


@pytest.mark.parametrize("options, totals, game_over, winner", [
    ({"target": 2500}, (2495, 0), False, None),
    ({"target": 2500}, (2500, 2000), True, 0),
    ({"target": 7500}, (5000, 7495), False, None),
    ({"target": 7500}, (5000, 7500), True, 1),
    ({"target": 10000}, (9995, 7500), False, None),
    ({"target": 10000}, (10000, 9995), True, 0),
    ({"target": 5000}, (5000, 4995), True, 0),
    ({"players": 2, "target": 2500}, (2000, 2500), True, 1),
    ({"players": 3, "target": 5000}, (5000, 0, 4995), True, 0),
    ({"players": 6, "sides": 2, "target": 7500}, (7500, 0), True, 0),
    ({"players": 6, "sides": 3, "target": 10000}, (7500, 9995, 0), False, None),
])
def test_target_option(options: Data, totals: tuple[int, ...], game_over: bool,
                       winner: int | None) -> None:
    """VARIANTS.md classic, Options (`target`: 2,500 / 5,000 / 7,500 / 10,000); seed 000
    'Abrechnung'; pagat: Classic Canasta Scoring. The option replaces the player count's
    default target: game over and winner follow it."""
    assert rules(options)["target"] == options["target"]
    answer_ = score(with_totals(options, totals))
    assert answer_["scores"] == list(totals)
    assert (answer_["game_over"], answer_["winner"]) == (game_over, winner)


# =============================================================================================
# 8. Golden scoring examples for two, three and six players
# =============================================================================================


def test_golden_two_players() -> None:
    """VARIANTS.md classic, Scoring; seed 000 'Abrechnung'; pagat: Classic Canasta Scoring,
    Canasta for two players. Each player is a side; seat 0 went out with two canastas."""
    state = table(
        {0: [], 1: ["JK", "7C", "7C"]},
        melds=([meld(*SEVEN_KINGS), meld("QH", "QH", "QD", "QD", "QS", "2C", "JK"),
                meld("5S", "5H", "5D")],
               [meld("AH", "AD", "AS", "2D")]),
        bonus=(["3H", "3D"], ["3H"]), discard=["6S", "9D"], scores=(1000, 4900),
        turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
              "partner_melded": False, "stock_exhausted": False}, options=TWO)
    answer_ = score(state)
    side0, side1 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {
        "melded_cards": 205,   # kings 7 x 10 = 70; queens 5 x 10 + 20 + 50 = 120; fives 3 x 5 = 15
        "hand_cards": 0,       # seat 0 went out; no partner
        "canasta_bonus": 800,  # natural kings 500 + mixed queens 300
        "bonus_cards": 200,    # two red threes, 100 each
        "going_out": 100,
        "penalties": 0,
        "total": 1305,         # 205 + 800 + 200 + 100
    }
    assert side1 == {
        "melded_cards": 80,    # aces 3 x 20 + 20
        "hand_cards": -60,     # joker 50 + 7 + 7 (5 each)
        "canasta_bonus": 0,
        "bonus_cards": 100,    # one red three
        "going_out": 0,
        "penalties": 0,
        "total": 120,          # 80 - 60 + 100
    }
    assert answer_["scores"] == [2305, 5020]  # 1000 + 1305, 4900 + 120
    assert (answer_["game_over"], answer_["winner"]) == (True, 1)  # target 5,000
    assert answer_["next_minimums"] == [90, 120]


def test_golden_three_players() -> None:
    """VARIANTS.md classic, Scoring; pagat: Classic Canasta Scoring, Canasta for three players.
    Three sides of one; seat 1 went out with one canasta; seat 2 never melded, so its red three
    counts minus."""
    state = table(
        {0: ["KC", "2H"], 1: [], 2: ["9S", "4D", "3S"]},
        melds=([meld("AH", "AD", "AS")], [meld(*SEVEN_KINGS), meld("5S", "5H", "5D")], []),
        bonus=(["3H"], []), discard=["6S", "9D"], scores=(7000, 7000, 100),
        turn={"seat": 1, "phase": "over", "went_out": 1, "concealed": False,
              "partner_melded": False, "stock_exhausted": False}, options=THREE)
    state["stock"].remove("3D")  # the builder fills bonus cards of sides 0 and 1 only
    state["bonus_cards"][2] = ["3D"]
    assert problems(state) == []
    answer_ = score(state)
    assert [s["seats"] for s in answer_["sides"]] == [[0], [1], [2]]
    side0, side1, side2 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {"melded_cards": 60,    # aces 3 x 20
                     "hand_cards": -30,     # K 10 + two 20
                     "canasta_bonus": 0, "bonus_cards": 100, "going_out": 0, "penalties": 0,
                     "total": 130}          # 60 - 30 + 100
    assert side1 == {"melded_cards": 85,    # kings 7 x 10 = 70; fives 3 x 5 = 15
                     "hand_cards": 0,
                     "canasta_bonus": 500,  # natural kings
                     "bonus_cards": 0, "going_out": 100, "penalties": 0,
                     "total": 685}          # 85 + 500 + 100
    assert side2 == {"melded_cards": 0,
                     "hand_cards": -20,     # 9 (10) + 4 (5) + black three (5)
                     "canasta_bonus": 0,
                     "bonus_cards": -100,   # one red three, no meld at all: minus
                     "going_out": 0, "penalties": 0,
                     "total": -120}         # -20 - 100
    assert answer_["scores"] == [7130, 7685, -20]  # 7000 + 130, 7000 + 685, 100 - 120
    assert (answer_["game_over"], answer_["winner"]) == (True, 1)  # target 7,500
    assert answer_["next_minimums"] == [120, 120, 15]


def test_golden_six_players_three_pairs() -> None:
    """VARIANTS.md classic, Scoring ('six players: up to four 100 each'); seed 000 'Varianten';
    pagat: Classic Canasta Scoring, Canasta for Six Players. Sides {0,3} {1,4} {2,5}: both
    partners' hands count for their side."""
    state = table(
        {0: [], 3: ["9S", "4D"], 1: ["JK"], 4: ["7C", "7C"], 2: ["KC"], 5: ["2H"]},
        melds=([meld(*SEVEN_KINGS), meld("QH", "QH", "QD", "QD", "QS", "2C", "JK")],
               [meld("AH", "AD", "AS", "2D")], []),
        bonus=(["3H", "3H", "3D", "3D"], []), discard=["6S", "9D"], scores=(7000, 0, 0),
        turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
              "partner_melded": False, "stock_exhausted": False}, options=SIX_PAIRS)
    state["stock"].remove("3H")  # the builder fills bonus cards of sides 0 and 1 only
    state["bonus_cards"][2] = ["3H"]
    assert problems(state) == []
    answer_ = score(state)
    assert [s["seats"] for s in answer_["sides"]] == [[0, 3], [1, 4], [2, 5]]
    side0, side1, side2 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {"melded_cards": 190,   # kings 70; queens 5 x 10 + 20 + 50 = 120
                     "hand_cards": -15,     # seat 3: 9 (10) + 4 (5)
                     "canasta_bonus": 800,  # natural 500 + mixed 300
                     "bonus_cards": 400,    # four red threes, 100 each (no 800 with six)
                     "going_out": 100, "penalties": 0,
                     "total": 1475}         # 190 - 15 + 800 + 400 + 100
    assert side1 == {"melded_cards": 80,    # aces 3 x 20 + 20
                     "hand_cards": -60,     # seat 1: joker 50; seat 4: 7 + 7
                     "canasta_bonus": 0, "bonus_cards": 0, "going_out": 0, "penalties": 0,
                     "total": 20}           # 80 - 60
    assert side2 == {"melded_cards": 0,
                     "hand_cards": -30,     # seat 2: K 10; seat 5: two 20
                     "canasta_bonus": 0,
                     "bonus_cards": -100,   # no meld at all: the red three counts minus
                     "going_out": 0, "penalties": 0,
                     "total": -130}         # -30 - 100
    assert answer_["scores"] == [8475, 20, -130]  # 7000 + 1475, 0 + 20, 0 - 130
    assert (answer_["game_over"], answer_["winner"]) == (True, 0)  # target 7,500
    assert answer_["next_minimums"] == [120, 50, 15]  # no 150 band playing to 7,500


def test_golden_six_players_two_threes() -> None:
    """VARIANTS.md classic, Scoring ('five 1,000'); seed 000 'Varianten' ('zwei Dreierteams bis
    10.000 Punkte'); pagat: Classic Canasta Scoring, Canasta for Six Players. Sides {0,2,4}
    {1,3,5}: the hands of all three partners count; seat 2 went out with two canastas."""
    state = table(
        {0: ["AS"], 2: [], 4: ["JK", "3C"], 1: ["7C"], 3: ["8C", "8C"], 5: ["4D"]},
        melds=([meld("KS", "KS", "KH", "KH", "KD", "KD", "KC", "KC"),
                meld("5S", "5S", "5H", "5H", "5D", "2C", "2D")],
               [meld("QS", "QH", "QD")]),
        bonus=(["3H", "3H", "3H", "3D", "3D"], ["3D"]), discard=["6S", "9D"],
        scores=(8000, 9950),
        turn={"seat": 2, "phase": "over", "went_out": 2, "concealed": False,
              "partner_melded": True, "stock_exhausted": False}, options=SIX_THREES)
    answer_ = score(state)
    assert [s["seats"] for s in answer_["sides"]] == [[0, 2, 4], [1, 3, 5]]
    side0, side1 = (s["breakdown"] for s in answer_["sides"])
    assert side0 == {"melded_cards": 145,   # kings 8 x 10 = 80; fives 5 x 5 + 2 x 20 = 65
                     "hand_cards": -75,     # seat 0: A 20; seat 4: joker 50 + black three 5
                     "canasta_bonus": 800,  # natural kings 500 + mixed fives 300
                     "bonus_cards": 1000,   # five red threes: 1,000
                     "going_out": 100, "penalties": 0,
                     "total": 1970}         # 145 - 75 + 800 + 1000 + 100
    assert side1 == {"melded_cards": 30,    # queens 3 x 10
                     "hand_cards": -30,     # seat 1: 7 (5); seat 3: 8 + 8 (20); seat 5: 4 (5)
                     "canasta_bonus": 0,
                     "bonus_cards": 100,    # one red three
                     "going_out": 0, "penalties": 0,
                     "total": 100}          # 30 - 30 + 100
    assert answer_["scores"] == [9970, 10050]  # 8000 + 1970, 9950 + 100
    assert (answer_["game_over"], answer_["winner"]) == (True, 1)  # target 10,000: 9,970 is short
    assert answer_["next_minimums"] == [150, 150]  # to 10,000: 150 from 7,500


# =============================================================================================
# 9. Options: natural_majority, pile_needs_natural_pair, red_three_card_points, ask_partner
# =============================================================================================

MELD_HAND = ["KH", "KD", "KS", "KC", "2C", "2D", "JK", "4C", "6C", "7C"]


@pytest.mark.parametrize("cards, default_ok, majority_ok", [
    (["KH", "KD", "KS"], True, True),                           # 3 naturals
    (["KH", "KD", "2C"], True, True),                           # 2 : 1
    (["KH", "KD", "2C", "JK"], True, False),                    # 2 : 2
    (["KH", "KD", "2C", "2D", "JK"], True, False),              # 2 : 3
    (["KH", "KD", "KS", "2C", "2D"], True, True),               # 3 : 2
    (["KH", "KD", "KS", "2C", "2D", "JK"], True, False),        # 3 : 3
    (["KH", "KD", "KS", "KC", "2C", "2D", "JK"], True, True),   # 4 : 3
])
def test_natural_majority_option(cards: list[str], default_ok: bool, majority_ok: bool) -> None:
    """VARIANTS.md classic, Options (`natural_majority`, default false); seed 000 'Unterschiede in
    der Regel von ASS Altenburger' ('Jede Meldung braucht mehr natürliche als wilde Karten', ASS
    p. 2). With the option naturals must outnumber wilds: NATURALS_MUST_OUTNUMBER_WILDS;
    without it two naturals may carry three wilds."""
    for options, ok in (({}, default_ok), ({"natural_majority": False}, default_ok),
                        ({"natural_majority": True}, majority_ok)):
        state = table({0: MELD_HAND}, melds=([NINES], []), turn=PLAY, options=options)
        if ok:
            assert side_melds(after(state, lay(*cards)), 0)["K"] == sorted(cards)
        else:
            assert refused(state, lay(*cards)) == (0, "NATURALS_MUST_OUTNUMBER_WILDS")


def test_natural_majority_when_adding_wilds() -> None:
    """VARIANTS.md classic, Options (`natural_majority`); ASS p. 2 (seed 000 'Unterschiede').
    The majority holds for the meld that results: a wild added to K K 2 (2 : 2) is refused,
    a king first and then the wild (3 : 2) is accepted."""
    state = table({0: ["KC", "JK", "4C", "6C"]}, melds=([meld("KH", "KD", "2C")], []), turn=PLAY,
                  options={"natural_majority": True})
    assert refused(state, lay("JK", rank="K")) == (0, "NATURALS_MUST_OUTNUMBER_WILDS")
    new = after(state, lay("KC"), lay("JK", rank="K"))
    assert side_melds(new, 0)["K"] == ["2C", "JK", "KC", "KD", "KH"]


def test_natural_majority_state_validation() -> None:
    """VARIANTS.md classic, Options (`natural_majority`); CONTRACT.md 'POST /v1/validate'. A
    table holding K K 2 JK is valid by default and invalid under the option, with the code at
    the meld's path."""
    state = table({0: ["4C"]}, melds=([meld("KH", "KD", "2C", "JK")], []))
    strict = dict(state, options={"natural_majority": True})
    assert problems(strict) == [("NATURALS_MUST_OUTNUMBER_WILDS", "/state/melds/0/0")]


@pytest.mark.parametrize("options, natural_wild_ok", [
    ({}, True), ({"pile_needs_natural_pair": False}, True), ({"pile_needs_natural_pair": True}, False),
])
def test_pile_needs_natural_pair_option(options: Data, natural_wild_ok: bool) -> None:
    """VARIANTS.md classic, Options (`pile_needs_natural_pair`, default false); seed 000
    'Unterschiede in der Regel von ASS Altenburger' ('Stapel nur mit zwei natürlichen Karten',
    ASS p. 3; pagat: Classic Canasta Variations). With the option an unfrozen pile is taken only
    with a natural pair or by adding the top card to the side's meld: natural + wild is
    PILE_NEEDS_NATURAL_PAIR."""
    state = table({0: ["KD", "KC", "JK", "QD", "9C", "4C"]}, discard=["9C", "5D", "KH"],
                  melds=([NINES, meld("KS", "KS", "KH")], []), options=options)
    assert_legal(state, take("KD", "KC"))
    assert_legal(state, take())
    if natural_wild_ok:
        assert_legal(state, take("KD", "JK"))
    else:
        assert refused(state, take("KD", "JK")) == (0, "PILE_NEEDS_NATURAL_PAIR")
    listed = sorted(sorted("*" if c == "JK" or c[0] == "2" else c[0] for c in a["cards"])
                    for a in takes_listed(state))
    expected = [[], ["K", "K"]] + ([["*", "K"]] if natural_wild_ok else [])
    assert listed == sorted(expected)


def test_pile_needs_natural_pair_for_the_initial_meld() -> None:
    """VARIANTS.md classic, Options (`pile_needs_natural_pair`); ASS p. 3. The option also bars
    a natural and a wild from an unfrozen pile for a first meld: the pile is frozen for a side
    that has not melded, so only the natural pair takes it anyway (the frozen code comes
    first); a side that has melded with a new rank: PILE_NEEDS_NATURAL_PAIR."""
    opt = {"pile_needs_natural_pair": True}
    fresh = table({0: ["AD", "AC", "JK", "9C", "6C"]}, discard=["8D", "AH"], melds=([], [NINES]),
                  options=opt)
    assert refused(fresh, take("AD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert_legal(fresh, take("AD", "AC"))
    opened = table({0: ["AD", "AC", "JK", "9C", "6C"]}, discard=["8D", "AH"], melds=([NINES], []),
                   options=opt)
    assert refused(opened, take("AD", "JK")) == (0, "PILE_NEEDS_NATURAL_PAIR")
    new = after(opened, take("AD", "AC"))
    assert side_melds(new, 0)["A"] == ["AC", "AD", "AH"]


@pytest.mark.parametrize("options, reds, melded, points", [
    ({}, ["3H"], True, 100),
    ({"red_three_card_points": 0}, ["3H", "3D"], True, 200),
    ({"red_three_card_points": 5}, ["3H"], True, 105),                     # 100 + 5
    ({"red_three_card_points": 5}, ["3H", "3D", "3D"], True, 315),         # 300 + 3 x 5
    ({"red_three_card_points": 5}, ["3H", "3H", "3D", "3D"], True, 820),   # 800 + 4 x 5
    ({"players": 6, "red_three_card_points": 5}, ["3H", "3H", "3D", "3D"], True, 420),  # 400 + 20
    ({"players": 6, "red_three_card_points": 5}, ["3H", "3H", "3H", "3D", "3D", "3D"], True,
     1230),                                                                # 1,200 + 6 x 5
    ({"players": 2, "red_three_card_points": 5}, ["3H", "3D"], True, 210),  # 200 + 2 x 5
])
def test_red_three_card_points_option(options: Data, reds: list[str], melded: bool,
                                      points: int) -> None:
    """VARIANTS.md classic, Options (`red_three_card_points`, 0 or 5); seed 000 'Weitere
    Hausregeln (ASS S. 5)' ('Rote Dreien zählen zusätzlich die 5 Punkte einer niedrigen Karte').
    Each red three laid out counts 5 more in `bonus_cards`; the other keys stay unchanged."""
    state = table({0: ["4C"]}, melds=([NINES] if melded else [], []), bonus=(reds, []),
                  options=options)
    b = breakdown(state, 0)
    assert b["bonus_cards"] == points
    assert b["melded_cards"] == 30  # the nines: 3 x 10, the red threes are not melded cards
    assert (b["canasta_bonus"], b["going_out"], b["penalties"]) == (0, 0, 0)


@pytest.mark.parametrize("options, allowed", [
    ({}, True), ({"ask_partner": True}, True), ({"ask_partner": False}, False),
    ({"players": 6, "ask_partner": False}, False), ({"players": 6, "sides": 2}, True),
])
def test_ask_partner_option(options: Data, allowed: bool) -> None:
    """VARIANTS.md classic, Options (`ask_partner`, default true); seed 000 'Ausmachen: So endet
    die Runde'; pagat: Going Out. With the option false nobody may ask "may I go out?":
    ASK_NOT_ALLOWED, and ask is not listed; the player may still go out unasked."""
    melds = [JACKS_CANASTA, QUEENS_CANASTA]
    state = table({0: CAN_GO_OUT}, melds=(melds, []), turn=PLAY, options=options)
    listed = [a["type"] for a in legal_list(state)]
    if allowed:
        assert "ask" in listed
        assert after(state, ASK)["turn"]["phase"] == "answer"
    else:
        assert "ask" not in listed
        assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
        assert after(state, lay("KD", "KC", "KH"), discard("9C"))["turn"]["went_out"] == 0


# =============================================================================================
# 10. Option validation, options written out, fingerprints
# =============================================================================================


@pytest.mark.parametrize("options, code, path", [
    ({"jokers_wild_forever": True}, "UNKNOWN_OPTION", "/state/options/jokers_wild_forever"),
    ({"Target": 5000}, "UNKNOWN_OPTION", "/state/options/Target"),
    ({"players": 5}, "BAD_OPTION_VALUE", "/state/options/players"),
    ({"players": 1}, "BAD_OPTION_VALUE", "/state/options/players"),
    ({"players": "4"}, "BAD_OPTION_VALUE", "/state/options/players"),
    ({"target": 6000}, "BAD_OPTION_VALUE", "/state/options/target"),
    ({"target": 0}, "BAD_OPTION_VALUE", "/state/options/target"),
    ({"target": "5000"}, "BAD_OPTION_VALUE", "/state/options/target"),
    ({"natural_majority": 1}, "BAD_OPTION_VALUE", "/state/options/natural_majority"),
    ({"natural_majority": "yes"}, "BAD_OPTION_VALUE", "/state/options/natural_majority"),
    ({"pile_needs_natural_pair": 0}, "BAD_OPTION_VALUE", "/state/options/pile_needs_natural_pair"),
    ({"red_three_card_points": 10}, "BAD_OPTION_VALUE", "/state/options/red_three_card_points"),
    ({"red_three_card_points": True}, "BAD_OPTION_VALUE", "/state/options/red_three_card_points"),
    ({"ask_partner": None}, "BAD_OPTION_VALUE", "/state/options/ask_partner"),
    ({"sides": 3}, "BAD_OPTION_VALUE", "/state/options/sides"),                  # four players
    ({"players": 4, "sides": 4}, "BAD_OPTION_VALUE", "/state/options/sides"),
    ({"players": 6, "sides": 6}, "BAD_OPTION_VALUE", "/state/options/sides"),
    ({"players": 3, "sides": 2}, "BAD_OPTION_VALUE", "/state/options/sides"),    # each alone
    ({"players": 2, "sides": 3}, "BAD_OPTION_VALUE", "/state/options/sides"),
])
def test_bad_options_are_reported_at_their_path(options: Data, code: str, path: str) -> None:
    """CONTRACT.md 'Variant and options' (UNKNOWN_OPTION) and 'Errors'; VARIANTS.md classic
    (player table: `sides` 3 or 2 only for six; Options with their allowed values). Validation
    names the problem with its code at /state/options/<name>; deal and the rule table refuse
    the same options with the same code."""
    state = table()
    state["options"] = options
    assert problems(state) == [(code, path)]
    with pytest.raises(api.OpError) as caught:
        api.check({"state": state, "actions": [DRAW]})
    assert (caught.value.code, [p["path"] for p in caught.value.problems]) == (code, [path])
    with pytest.raises(api.OpError) as caught:
        api.deal({"options": options, "seed": 1})
    assert (caught.value.code, [p["path"] for p in caught.value.problems]) == (
        code, [path.removeprefix("/state")])


@pytest.mark.parametrize("options", [
    {"players": 2, "sides": 2}, {"players": 3, "sides": 3}, {"players": 4, "sides": 2},
    {"players": 6, "sides": 3}, {"players": 6, "sides": 2},
    {"target": 2500}, {"target": 5000}, {"target": 7500}, {"target": 10000},
    {"natural_majority": True}, {"pile_needs_natural_pair": True},
    {"red_three_card_points": 5}, {"ask_partner": False},
])
def test_good_options_are_valid(options: Data) -> None:
    """VARIANTS.md classic, player table and Options: every allowed value is accepted."""
    state = table(options=options)
    assert api.validate({"state": state}) == {"valid": True, "problems": []}


FULL = {
    "four": ({}, {"players": 4, "sides": 2, "target": 5000, **DEFAULTS}),
    "two": (TWO, {"players": 2, "sides": 2, "target": 5000, **DEFAULTS}),
    "three": (THREE, {"players": 3, "sides": 3, "target": 7500, **DEFAULTS}),
    "six pairs": (SIX_PAIRS, {"players": 6, "sides": 3, "target": 7500, **DEFAULTS}),
    "six threes": (SIX_THREES, {"players": 6, "sides": 2, "target": 10000, **DEFAULTS}),
    "house rules": ({"natural_majority": True, "red_three_card_points": 5, "target": 2500},
                    {"players": 4, "sides": 2, "target": 2500, **DEFAULTS,
                     "natural_majority": True, "red_three_card_points": 5}),
}


@pytest.mark.parametrize("case", list(FULL))
def test_options_written_out_in_every_state(case: str) -> None:
    """CONTRACT.md 'Variant and options' (each option with a default in the rule table);
    VARIANTS.md classic, Options. Every state the engine writes -- a deal, a state after an
    action -- carries every option value, the derived defaults (sides, target) made explicit."""
    given, full = FULL[case]
    state = dealt(given, 5)["state"]
    assert state["options"] == full
    assert after(state, DRAW)["options"] == full
    built = table(options=given)  # a caller's state naming only some options
    assert built["options"] == given
    assert after(built, DRAW)["options"] == full
    assert api.variant("classic", given)["rules"]["options"] == full
    # the written-out options describe the same game: dealing with them gives the same deal
    assert dealt(full, 5)["state"] == state


@pytest.mark.parametrize("case", list(FULL))
def test_fingerprint_same_for_defaults_given_or_left_out(case: str) -> None:
    """VARIANTS.md classic, Options; CONTRACT.md 'GET /v1/variants/{id}' (the rule table). The
    rule table's fingerprint is the same whether the defaults are given explicitly or left out."""
    given, full = FULL[case]
    a, b = api.variant("classic", given), api.variant("classic", full)
    assert a["fingerprint"] == b["fingerprint"]
    assert a["rules"] == b["rules"]


def test_fingerprint_differs_for_different_options() -> None:
    """VARIANTS.md classic, player table and Options. Different options are different games: no
    two of these option sets share a fingerprint."""
    sets = [{}, TWO, THREE, SIX_PAIRS, SIX_THREES, {"target": 2500}, {"target": 7500},
            {"target": 10000}, {"natural_majority": True}, {"pile_needs_natural_pair": True},
            {"red_three_card_points": 5}, {"ask_partner": False},
            {"players": 6, "sides": 3, "target": 10000}, {"players": 6, "sides": 2, "target": 7500},
            {"players": 3, "target": 5000}]
    prints = [api.variant("classic", o)["fingerprint"] for o in sets]
    assert len(set(prints)) == len(sets), dict(zip(map(str, sets), prints, strict=True))


def test_rule_table_lists_every_classic_option_with_its_default() -> None:
    """VARIANTS.md classic, Options: `target`, `natural_majority` (false),
    `pile_needs_natural_pair` (false), `wild_canasta` (0 = not allowed), `red_three_card_points`
    (0), `ask_partner` (true), besides `players` (4) and `sides`. The rule table lists each."""
    listed = {o["name"]: o["default"] for o in api.variant("classic")["options"]}
    expected = {"players": 4, "natural_majority": False, "pile_needs_natural_pair": False,
                "wild_canasta": 0, "red_three_card_points": 0, "ask_partner": True}
    assert {k: listed.get(k, "missing") for k in expected} == expected
    assert {"sides", "target"} <= set(listed)


# =============================================================================================
# 11. Option wild_canasta; black threes going out; a frozen pile taken onto the side's meld
# =============================================================================================

SEVEN_WILDS = ["2S", "2H", "2D", "2C", "JK", "JK", "JK"]  # 4 x 20 + 3 x 50 = 230


@pytest.mark.parametrize("bonus", [1000, 2000])
def test_wild_canasta_option_seven_wild_cards_at_once(bonus: int) -> None:
    """seed 000 'Weitere Hausregeln (ASS S. 5)' ('Joker-Canasta: sieben wilde Karten als Meldung');
    VARIANTS.md classic, Options (`wild_canasta`: its bonus for a meld of seven wild cards).
    With the option seven wild cards laid at once are one meld of rank "wild"; three or six are
    WILD_MELD_SEVEN_AT_ONCE; the same seven without the option: WILD_MELD_NOT_ALLOWED."""
    hand = SEVEN_WILDS + ["9C", "4C", "5D"]
    state = table({0: hand}, melds=([NINES], []), turn=PLAY, options={"wild_canasta": bonus})
    new = after(state, lay(*SEVEN_WILDS, rank="wild"))
    assert side_melds(new, 0) == {"9": ["9D", "9H", "9S"], "wild": sorted(SEVEN_WILDS)}
    assert hand_of(new, 0) == ["4C", "5D", "9C"]
    assert refused(state, lay(*SEVEN_WILDS[:6], rank="wild")) == (0, "WILD_MELD_SEVEN_AT_ONCE")
    assert refused(state, lay("2S", "2H", "JK", rank="wild")) == (0, "WILD_MELD_SEVEN_AT_ONCE")
    for options in ({}, {"wild_canasta": 0}):
        plain = table({0: hand}, melds=([NINES], []), turn=PLAY, options=options)
        assert refused(plain, lay(*SEVEN_WILDS, rank="wild")) == (0, "WILD_MELD_NOT_ALLOWED")


def test_wild_canasta_takes_no_eighth_card() -> None:
    """seed 000 'Weitere Hausregeln (ASS S. 5)' (Joker-Canasta: seven wild cards); VARIANTS.md
    classic, Options (`wild_canasta`: 'a meld of seven wild cards'). A wild canasta is exactly
    seven cards: eight at once, an eighth added in the same turn or later, and a table showing
    six or eight are all WILD_MELD_SEVEN_AT_ONCE; a natural card cannot join it either."""
    opt = {"wild_canasta": 1000}
    state = table({0: SEVEN_WILDS + ["2S", "9C", "4C"]}, melds=([NINES], []), turn=PLAY,
                  options=opt)
    assert refused(state, lay(*SEVEN_WILDS, "2S", rank="wild")) == (0, "WILD_MELD_SEVEN_AT_ONCE")
    assert refused(state, lay(*SEVEN_WILDS, rank="wild"), lay("2S", rank="wild")) == (
        1, "WILD_MELD_SEVEN_AT_ONCE")
    wild = {"rank": "wild", "cards": SEVEN_WILDS}
    laid = table({0: ["2S", "9C", "4C", "5D"]}, melds=([NINES, wild], []), turn=PLAY, options=opt)
    assert refused(laid, lay("2S", rank="wild")) == (0, "WILD_MELD_SEVEN_AT_ONCE")
    assert refused(laid, lay("9C", rank="wild")) == (0, "NOT_A_VALID_MELD")
    assert_legal(laid, lay("2S", rank="9"))  # the wild card may go to a natural meld instead
    eight = copy.deepcopy(laid)  # the 2S moved from the hand to the wild canasta
    eight["hands"][0].remove("2S")
    eight["melds"][0][1]["cards"].append("2S")
    six = copy.deepcopy(laid)  # a joker moved from the wild canasta to the stock
    six["melds"][0][1]["cards"].remove("JK")
    six["stock"].append("JK")
    for shown in (eight, six):
        assert problems(shown) == [("WILD_MELD_SEVEN_AT_ONCE", "/state/melds/0/1")]


@pytest.mark.parametrize("bonus", [1000, 2000])
def test_wild_canasta_bonus_when_going_out(bonus: int) -> None:
    """seed 000 'Weitere Hausregeln (ASS S. 5)' (Joker-Canasta, 'oft mit 1.000 Punkten bewertet
    (pagat nennt ... meist 2.000)') and 'Ausmachen: So endet die Runde' (a canasta is needed,
    it may be completed in the same turn); VARIANTS.md classic, Options (`wild_canasta`) and
    Scoring. The wild canasta is the side's canasta for going out; the deal's breakdown counts
    its bonus (not 300 or 500) and its cards at their values."""
    state = table({0: SEVEN_WILDS + ["9C", "4C"], 2: ["KC"]}, melds=([NINES], []), turn=PLAY,
                  options={"wild_canasta": bonus})
    new = after(state, lay(*SEVEN_WILDS, rank="wild"), lay("9C"), discard("4C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"], new["turn"]["concealed"]) == (
        "over", 0, False)
    assert side_melds(new, 0) == {"wild": sorted(SEVEN_WILDS), "9": ["9C", "9D", "9H", "9S"]}
    assert breakdown(new, 0) == {
        "melded_cards": 270,    # wilds 4 x 20 + 3 x 50 = 230; nines 4 x 10 = 40
        "hand_cards": -10,      # partner (seat 2): a king
        "canasta_bonus": bonus,
        "bonus_cards": 0,
        "going_out": 100,
        "penalties": 0,
        "total": 360 + bonus,
    }


@pytest.mark.parametrize("bonus", [1000, 2000])
def test_wild_canasta_concealed_going_out(bonus: int) -> None:
    """seed 000 'Ausmachen: So endet die Runde' ('Verdeckt ausmachen ... ist ein ganzer Canasta
    dabei') and 'Weitere Hausregeln (ASS S. 5)'; VARIANTS.md classic, Going out (concealed:
    200) and Options (`wild_canasta`). A side that has not melded goes out in one turn with a
    wild canasta and three kings: concealed, 200 for going out plus the wild canasta's bonus."""
    state = table({0: SEVEN_WILDS + ["KS", "KH", "KD"], 2: ["QC"]}, melds=([], [NINES]),
                  turn=PLAY, options={"wild_canasta": bonus})
    new = after(state, lay(*SEVEN_WILDS, rank="wild"), lay("KS", "KH", "KD"))
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    assert side_melds(new, 0) == {"wild": sorted(SEVEN_WILDS), "K": ["KD", "KH", "KS"]}
    b = breakdown(new, 0)
    assert (b["melded_cards"], b["hand_cards"], b["canasta_bonus"], b["going_out"]) == (
        260, -10, bonus, 200)   # 230 + 3 x 10; the queen in the partner's hand
    assert b["total"] == 450 + bonus


@pytest.mark.parametrize("hand, actions", [
    (["3S", "3S", "3C", "3C"], [lay("3S", "3S", "3C", "3C")]),                # no discard
    (["3S", "3S", "3C", "3C", "9C"], [lay("3S", "3S", "3C", "3C"), discard("9C")]),
    (["3S", "3S", "3C", "3C"], [lay("3S", "3S", "3C"), lay("3C")]),           # three, then one
])
def test_four_black_threes_melded_going_out(hand: list[str], actions: list[Data]) -> None:
    """seed 000 'Die Dreien' (Schwarze Dreien: 'Auslegen darfst du sie nur beim Ausmachen: drei
    oder vier schwarze Dreien, ohne wilde Karten'); VARIANTS.md classic, Melds. Four black
    threes (both packs' 3S and 3C) are melded by a player going out, with or without a final
    discard, also laid as three and then one; they count 5 each."""
    state = table({0: hand}, melds=([JACKS_CANASTA], []), turn=PLAY)
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert side_melds(new, 0)["3"] == ["3C", "3C", "3S", "3S"]
    assert breakdown(new, 0)["melded_cards"] == 90  # jacks 7 x 10 + four threes 4 x 5
    keeping = table({0: hand + ["4C", "6C"]}, melds=([JACKS_CANASTA], []), turn=PLAY)
    assert refused(keeping, *actions) == (0, "BLACK_THREES_ONLY_WHEN_GOING_OUT")  # not going out


@pytest.mark.parametrize("actions, index", [
    ([lay("3S", "3S", "3S", "3C", "3C")], 0),              # five at once
    ([lay("3S", "3S", "3S"), lay("3C", "3C")], 1),         # three, then two more
    ([lay("3S", "3S", "3S", "3C"), lay("3C")], 1),         # four, then a fifth
])
def test_six_players_five_black_threes_refused(actions: list[Data], index: int) -> None:
    """seed 000 'Die Dreien' ('drei oder vier schwarze Dreien') and 'Varianten: Canasta zu zweit,
    zu dritt und zu sechst'; VARIANTS.md classic, Melds ('as three or four of them') and the
    player table (six players: three packs, so six black threes). A player going out with five
    black threes may meld only four of them: the fifth is BLACK_THREES_ONLY_WHEN_GOING_OUT; four
    and a discarded fifth go out."""
    state = table({0: ["3S", "3S", "3S", "3C", "3C"]}, melds=([JACKS_CANASTA, QUEENS_CANASTA], []),
                  turn=PLAY, options=SIX_PAIRS)
    assert refused(state, *actions) == (index, "BLACK_THREES_ONLY_WHEN_GOING_OUT")
    new = after(state, lay("3S", "3S", "3S", "3C"), discard("3C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert side_melds(new, 0)["3"] == ["3C", "3S", "3S", "3S"]
    assert new["discard"][-1] == "3C"


FROZEN_BY = {
    # a wild card lies in the pile
    "wild in the pile": (["8D", "2C", "KD"], ["2C", "4C", "8D", "9C"], []),
    # a red three turned up at the deal: it goes to the side's bonus cards
    "red three upcard": (["3H", "8D", "KD"], ["4C", "8D", "9C"], ["3H"]),
}


@pytest.mark.parametrize("why", list(FROZEN_BY))
def test_frozen_pile_pair_joins_the_sides_meld(why: str) -> None:
    """seed 000 'Der eingefrorene Stapel' (only with 'zwei natürliche Karten desselben Rangs ...
    und mit ihr auslegst') and 'Meldungen und Canastas' ('Ein Team hat von jedem Rang nur eine
    Meldung ... kommen sie dazu'); VARIANTS.md classic, Melds ('One meld per rank per side; more
    cards of that rank join it') and Discard pile. A frozen pile taken with a natural pair while
    the side already has four kings: top card and pair join that meld -- seven kings, a natural
    canasta -- no second king meld; the rest goes to the hand."""
    pile, rest, reds = FROZEN_BY[why]
    state = table({0: ["KC", "KC", "9C", "4C"]}, melds=([NINES, meld("KS", "KS", "KH", "KH")], []),
                  discard=pile)
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    new = after(state, take("KC", "KC"))
    assert new["melds"][0][0] == NINES
    assert [m["rank"] for m in new["melds"][0]] == ["9", "K"]
    assert side_melds(new, 0)["K"] == ["KC", "KC", "KD", "KH", "KH", "KS", "KS"]
    assert hand_of(new, 0) == rest
    assert (new["discard"], new["bonus_cards"][0]) == ([], reds)
    b = breakdown(new, 0)
    assert (b["melded_cards"], b["canasta_bonus"]) == (100, 500)  # nines 30 + kings 70


# =============================================================================================
# 12. Rules pinned after the audit: three players at the end of the stock
# =============================================================================================


@pytest.mark.parametrize("stock, drawn, reds", [
    (["QH"], ["QH"], []),              # one card left: drawn alone
    (["3H", "QH"], ["QH"], ["3H"]),    # a red three laid out; its replacement is the last card
])
def test_three_players_last_stock_card_is_a_complete_draw(stock: list[str], drawn: list[str],
                                                          reds: list[str]) -> None:
    """VARIANTS.md classic (player table: three players draw 2) and Stock exhausted ('Two
    players: when one stock card is left, drawing it is a complete draw'); pagat: Canasta for
    three players, Canasta for two players (research.md 2.10 'Last stock card', 2.11); seed 000
    'Varianten: Canasta zu zweit, zu dritt und zu sechst' and 'Ausmachen: So endet die Runde'
    ('Der Stapel ist leer ... Muss jemand ziehen und es gibt keine Karte mehr, endet die
    Runde'). VARIANTS.md states the rule for two players only; the engine plays the two-card draw
    of three players the same way, and this pins it: with one stock card left the player takes
    it and plays on as after a full draw (no `stock-exhausted`); the next player, whose side has
    no meld the pile's top card fits, draws from the empty stock and the deal ends, nobody
    out."""
    state = table({0: ["9C", "4C"]}, discard=["8D", "4D"], melds=([K3], []), stock=stock,
                  rest_to=1, options=THREE)
    answer_ = run(state, DRAW)
    expected = [{"type": "drew", "seat": 0, "cards": drawn}]
    if reds:
        expected.append({"type": "red-threes", "seat": 0, "cards": reds})
    assert answer_["events"] == expected
    new = answer_["state"]
    assert (new["turn"]["phase"], new["stock"]) == ("play", [])
    assert hand_of(new, 0) == sorted(["9C", "4C"] + drawn)
    assert new["bonus_cards"][0] == reds
    new = after(new, discard("QH"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    answer_ = run(new, DRAW)
    assert answer_["events"] == [{"type": "stock-exhausted", "seat": 1},
                                 {"type": "deal-over", "stock_exhausted": True}]
    turn = answer_["state"]["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)


def test_three_players_last_card_red_three_ends_the_deal() -> None:
    """VARIANTS.md classic, Stock exhausted ('A red three drawn as the last stock card is laid out
    and the deal ends at once (no meld, no discard)') and player table (three players draw 2);
    seed 000 'Ausmachen: So endet die Runde' ('Der Stapel ist leer ... Ist die letzte Karte eine
    rote Drei, legst du sie aus und die Runde ist sofort vorbei'); pagat: Going Out, Canasta for
    three players. Drawing two from a stock of a plain card and a red three: the queen is drawn,
    the red three -- the last stock card, the second card of the draw -- is laid out and the deal
    ends at once, nobody out; no meld, no discard. Side 0 (seat 0 alone): kings 30, hand 9 + 4 +
    Q = -25, one red three 100."""
    state = table({0: ["9C", "4C"]}, discard=["8D", "4D"], melds=([K3], []), stock=["QH", "3H"],
                  rest_to=1, options=THREE)
    answer_ = run(state, DRAW)
    assert answer_["events"] == [{"type": "drew", "seat": 0, "cards": ["QH"]},
                                 {"type": "red-threes", "seat": 0, "cards": ["3H"]},
                                 {"type": "deal-over", "stock_exhausted": True}]
    new = answer_["state"]
    turn = new["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)
    assert new["stock"] == []
    assert hand_of(new, 0) == ["4C", "9C", "QH"]
    assert new["bonus_cards"][0] == ["3H"]
    assert legal_list(new) == []
    assert refused(new, discard("QH")) == (0, "DEAL_OVER")
    b = breakdown(new, 0)
    assert (b["melded_cards"], b["hand_cards"], b["bonus_cards"], b["going_out"]) == (
        30, -25, 100, 0)
