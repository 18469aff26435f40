"""German Canasta after the ASS Altenburger leaflet, one test (or a small parametrized group) per
rule where the `german` variant differs from `classic`.

Sources: seed 004 (``shared/seeds/004_20d9d9833668e50c.txt``, the ASS leaflet; its sections are
named by their German headings, e.g. 'Das Ausmachen'), seed 000's section 'Unterschiede in der
Regel von ASS Altenburger', research.md 2.9, and ``VARIANTS.md german``, which decides ("As
classic, except ...").

Every test drives the engine at the JSON level (``engine.api``) with complete, valid states built
by ``tests.builders.table``.
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
    K3,
    NINES,
    OFFERS,
    PLAY,
    SEVEN_FIVES,
    SEVEN_KINGS,
    SHORT,
    Data,
    after,
    assert_legal,
    breakdown,
    discard,
    events_of,
    hand_of,
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
)
from tests.test_classic_rules import ONE_CARD_PILE_CASES

GERMAN = "german"
THREE_PLAYERS = {"players": 3}



def gtable(hands: dict[int, list[str]] | None = None, **kwargs: Any) -> Data:
    """A complete, valid German state (four players unless ``options`` say else); the dealer sits
    right of seat 0."""
    players = (kwargs.get("options") or {}).get("players", 4)
    kwargs.setdefault("dealer", players - 1)
    return table(hands, variant=GERMAN, **kwargs)


def rules_of(options: Data | None = None) -> Data:
    return api.variant(GERMAN, options or {})["rules"]


# =============================================================================================
# 0. The rule table
# =============================================================================================


def test_rule_table_four_players() -> None:
    """seed 004 (ASS Altenburger) 'Canasta', 'Die rote Drei', 'Das Ausmachen'; seed 000
    'Unterschiede in der Regel von ASS Altenburger'; VARIANTS.md german. The default table:
    four players in two sides, 11 cards, one card drawn, natural majority, minimums 15/50/90/120
    (120 only above 3,000), no pickup with a wild, red threes minus without a canasta, a last
    discard, Blatt 200, Handcanasta 1,000, the deal ends with the stock (-100 each), target 5,000."""
    rules = rules_of()
    expected = {
        "id": "german", "players": 4, "sides": 2, "packs": 2, "jokers": 4, "hand_size": 11,
        "draw_count": 1, "min_naturals": 2, "max_wilds": 3, "natural_majority": True,
        "canasta_size": 7, "natural_canasta_bonus": 500, "mixed_canasta_bonus": 300,
        "initial_minimums": [{"from_score": None, "minimum": 15}, {"from_score": 0, "minimum": 50},
                             {"from_score": 1500, "minimum": 90},
                             {"from_score": 3001, "minimum": 120}],
        "pile_natural_and_wild": False, "freeze_on_wild": True, "black_three_blocks": True,
        "frozen_until_melded": True, "red_three_bonus": 100,
        "red_three_bonus_all": [{"count": 4, "total": 800}], "red_three_card_points": 0,
        "red_three_in_hand_penalty": 500, "red_three_in_hand_when_out": True,
        "red_three_negative": "no_canasta", "concealed_pile_waives_minimum": True,
        "canastas_to_go_out": 1, "going_out_bonus": 100, "must_discard_to_go_out": True,
        "black_three_meld": True, "concealed_rule": "at_once", "blatt_bonus": 200,
        "hand_canasta_bonus": 1000, "first_turn_bonus": 0, "stock_exhausted": "end",
        "stock_exhausted_penalty": 100, "target": 5000,
        "options": {"players": 4, "target": 5000, "red_three_card_points": 0,
                    "hand_canasta_low": False, "joker_canasta": 0},
        "wild_meld": "none", "wild_canasta_bonus": 0,
    }
    assert {k: rules[k] for k in expected} == expected


def test_rule_table_three_players() -> None:
    """seed 004 (ASS Altenburger) 'Canasta' ('beim Spiel zu dritt 13 Karten') and the closing
    paragraph ('zuerst 3000 Punkte'); seed 000 'Canasta zu zweit, zu dritt und zu sechst';
    VARIANTS.md german. Three players each alone, 13 cards, one card drawn (classic draws two),
    target 3,000; nobody to ask "may I go out?"."""
    rules = rules_of(THREE_PLAYERS)
    got = {k: rules[k] for k in ("players", "sides", "hand_size", "draw_count", "target",
                                 "ask_partner")}
    assert got == {"players": 3, "sides": 3, "hand_size": 13, "draw_count": 1, "target": 3000,
                   "ask_partner": False}
    assert rules_of({"players": 4})["ask_partner"] is True


@pytest.mark.parametrize("players", [2, 5, 6])
def test_only_three_or_four_players(players: int) -> None:
    """seed 004 (ASS Altenburger) 'Canasta' ('Im folgenden sind die Regeln mit den in
    Deutschland üblichen Regeln für das Dreier- und Viererspiel kombiniert'); VARIANTS.md german
    ('Players 4 ... or 3'). Other player counts are refused as an option value."""
    with pytest.raises(api.OpError) as caught:
        api.variant(GERMAN, {"players": players})
    assert caught.value.code == "BAD_OPTION_VALUE"
    assert [p["path"] for p in caught.value.problems] == ["/options/players"]


@pytest.mark.parametrize("options, changed", [
    ({"hand_canasta_low": True}, {"hand_canasta_bonus": 200, "first_turn_bonus": 300,
                                  "blatt_bonus": 200}),
    ({"red_three_card_points": 5}, {"red_three_card_points": 5}),
    ({"target": 2500}, {"target": 2500}),
    ({"players": 3, "target": 5000}, {"target": 5000, "players": 3}),
])
def test_rule_table_options(options: Data, changed: Data) -> None:
    """seed 004 (ASS Altenburger), closing house rules ('Oft wird der Hand-Canasta geringer
    bewertet ...', 'Gelegentlich werden auch die roten Dreier zusätzlich noch mit den 5 Punkten
    ...'); VARIANTS.md german, Options. Each option changes exactly its rows of the table."""
    rules = rules_of(options)
    assert {k: rules[k] for k in changed} == changed
    names = [o["name"] for o in api.variant(GERMAN)["options"]]
    assert {"players", "target", "red_three_card_points", "hand_canasta_low"} <= set(names)


def test_option_joker_canasta_offered() -> None:
    """seed 004 (ASS Altenburger), closing house rules ('oft ein "Joker-Canasta" (sieben wilde
    Karten als Satz ausgelegt) anerkannt und mit 1000 Punkten bewertet'); VARIANTS.md german,
    Options: `joker_canasta` (0, or e.g. 1,000 for seven wild cards)."""
    options = {o["name"]: o for o in api.variant(GERMAN)["options"]}
    assert "joker_canasta" in options, "VARIANTS.md german lists the option joker_canasta"
    assert options["joker_canasta"]["default"] == 0
    assert 1000 in (options["joker_canasta"].get("allowed") or [1000])


def test_wild_only_meld_refused_by_default() -> None:
    """seed 004 (ASS Altenburger) 'Die wilden Karten' and closing house rules (the Joker-Canasta
    is only a house rule); VARIANTS.md german (as classic: no wild-only melds)."""
    state = gtable({0: ["2C", "2D", "JK", "4C", "6C", "7C"]}, melds=([NINES], []), turn=PLAY)
    assert refused(state, lay("2C", "2D", "JK", rank="wild")) == (0, "WILD_MELD_NOT_ALLOWED")


@pytest.mark.parametrize("key", [
    "players", "deal", "melds.wilds", "initial_meld", "pile.take", "pile.frozen", "threes.red",
    "threes.black", "going_out", "going_out.concealed", "stock_exhausted", "scoring", "target",
])
def test_sources_cite_seed_004(key: str) -> None:
    """VARIANTS.md (every rule in the rule table with its source) and german heading: the rows
    where German differs from classic cite seed 004 (the ASS leaflet)."""
    source = rules_of()["sources"][key]
    assert source.startswith("docs/variants/german.md#") and "(ASS Altenburger leaflet p" in source


@pytest.mark.parametrize("alias", ["german", "ass", "deutsch", " German "])
def test_variant_aliases(alias: str) -> None:
    """VARIANTS.md german (variant id `german`); the registry's aliases name the same table."""
    answer = api.variant(alias)
    assert answer["id"] == "german"
    assert answer["fingerprint"] == api.variant("german")["fingerprint"]


def test_refusal_names_the_german_source() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('jedoch müssen die natürlichen Karten in der
    Mehrzahl sein'); VARIANTS.md german. A German refusal cites the leaflet, not pagat."""
    state = gtable({0: ["KH", "KD", "2C", "2D", "4C", "6C"]}, melds=([NINES], []), turn=PLAY)
    verdict = api.check({"state": state, "actions": [lay("KH", "KD", "2C", "2D")]})
    assert verdict["reason"]["code"] == "NATURALS_MUST_OUTNUMBER_WILDS"
    assert verdict["reason"]["rule"].startswith(
        "docs/variants/german.md#wild-cards-in-melds (ASS Altenburger leaflet p. 2")


# =============================================================================================
# 1. Players, the deal, one card drawn
# =============================================================================================


@pytest.mark.parametrize("players, cards", [(4, 11), (3, 13)])
def test_deal_hand_sizes(players: int, cards: int) -> None:
    """seed 004 (ASS Altenburger) 'Canasta' ('jeder der vier Spieler erhält 11 Karten, beim Spiel
    zu dritt 13 Karten'); VARIANTS.md german. Four players get 11 cards, three get 13; the player
    left of the dealer starts by drawing."""
    for dealer in range(players):
        answer = api.deal({"variant": GERMAN, "options": {"players": players}, "seed": 11,
                           "dealer": dealer})
        state = answer["state"]
        assert [len(h) for h in state["hands"]] == [cards] * players
        assert state["turn"]["seat"] == (dealer + 1) % players
        assert state["turn"]["phase"] == "draw"
        assert len(state["melds"]) == len(state["scores"]) == (2 if players == 4 else players)
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


@pytest.mark.parametrize("options", [{}, THREE_PLAYERS])
def test_one_card_drawn(options: Data) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('er zieht vom Abhebestoß die oberste Karte');
    VARIANTS.md german ('one card drawn per turn' -- classic draws two with three players)."""
    state = gtable({0: ["9C", "4C"]}, stock_top=["KS", "QS"], options=options)
    size = len(state["stock"])
    new = after(state, DRAW)
    assert hand_of(new, 0) == ["4C", "9C", "KS"]
    assert len(new["stock"]) == size - 1


# =============================================================================================
# 2. Melds: naturals must outnumber wilds
# =============================================================================================

MELD_HAND = ["KH", "KD", "KS", "KC", "KC", "2C", "2D", "2H", "2S", "JK", "JK", "4C", "6C", "7C"]


@pytest.mark.parametrize("cards, code", [
    (["KH", "KD", "2C"], None),                                     # 2 + 1
    (["KH", "KD", "KS", "2C", "JK"], None),                         # 3 + 2
    (["KH", "KD", "KS", "KC", "2C", "2D", "JK"], None),             # 4 + 3: a mixed canasta
    (["KH", "KD", "2C", "2D"], "NATURALS_MUST_OUTNUMBER_WILDS"),    # 2 + 2: a tie is no majority
    (["KH", "KD", "2C", "2D", "JK"], "NATURALS_MUST_OUTNUMBER_WILDS"),  # 2 + 3: legal in classic
    (["KH", "KD", "KS", "2C", "2D", "JK"], "NATURALS_MUST_OUTNUMBER_WILDS"),  # 3 + 3
    (["KH", "KD", "KS", "KC", "KC", "2C", "2D", "2H", "JK"], "TOO_MANY_WILDS"),  # 5 + 4
])
def test_naturals_must_outnumber_wilds(cards: list[str], code: str | None) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('jedoch müssen die "natürlichen" Karten in
    der Mehrzahl sein ... zwei Könige höchstens mit einem Joker oder drei Könige mit zwei Jokern
    oder vier Könige mit drei Jokern'); seed 000 'Unterschiede ...' (Natürliche Karten in der
    Mehrzahl); VARIANTS.md german: 2 + 1, 3 + 2, 4 + 3, never more than three wilds."""
    state = gtable({0: MELD_HAND}, melds=([NINES], []), turn=PLAY)
    if code is None:
        new = after(state, lay(*cards))
        assert side_melds(new, 0)["K"] == sorted(cards)
    else:
        assert refused(state, lay(*cards)) == (0, code)


def test_natural_majority_when_adding_wilds() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf'; VARIANTS.md german ('in every meld'). The
    majority holds for a meld on the table too: K K 2 takes no second wild until a third king
    joins it."""
    state = gtable({0: ["KC", "2D", "JK", "4C", "6C", "7C"]}, melds=([meld("KH", "KD", "2C")], []),
                   turn=PLAY)
    assert refused(state, lay("2D", rank="K")) == (0, "NATURALS_MUST_OUTNUMBER_WILDS")
    new = after(state, lay("KC"), lay("2D", rank="K"))
    assert side_melds(new, 0)["K"] == ["2C", "2D", "KC", "KD", "KH"]
    assert refused(new, lay("JK", rank="K")) == (0, "NATURALS_MUST_OUTNUMBER_WILDS")


# =============================================================================================
# 3. The initial meld
# =============================================================================================


BANDS = [  # (score before the deal, minimum); exactly 3,000 stays at 90 (German)
    (-2000, 15), (-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 90),
    (3005, 120), (4995, 120),
]


def _initial(score_before: int, melds: list[list[str]]) -> Data:
    hand = [c for m in melds for c in m] + JUNK
    return gtable({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_exactly_the_minimum_is_accepted(score_before: int, minimum: int) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('Ist man im Minus ... mindestens 15 ... 50,
    wenn man weniger als 1500 Pluspunkte hat, 90, wenn die Pluspunkte 1500 übersteigen, 120, wenn
    man mehr als 3000 Pluspunkte hat'); research.md 2.9; VARIANTS.md german: negative 15, below
    1,500 50, 1,500 and above 90, above 3,000 120 (exactly 3,000 stays 90, 3,005 is 120)."""
    melds = OFFERS[minimum]
    answer = run(_initial(score_before, melds), *[lay(*m) for m in melds])
    assert "pending" not in answer["state"]["turn"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [
        (minimum, minimum)]


@pytest.mark.parametrize("score_before, minimum", [b for b in BANDS if b[1] > 15])
def test_initial_meld_below_the_minimum_is_refused(score_before: int, minimum: int) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf'; VARIANTS.md german. Five points short of the
    band's minimum is refused, and so is the previous band's minimum (at 3,005 the 90 that was
    enough at 3,000)."""
    for melds in (SHORT[minimum], OFFERS[{50: 15, 90: 50, 120: 90}[minimum]]):
        state = _initial(score_before, melds)
        assert refused(state, *[lay(*m) for m in melds]) == (0, "INITIAL_MELD_UNREACHABLE")


# =============================================================================================
# 4. Taking the pile
# =============================================================================================


@pytest.mark.parametrize("wild", ["2C", "JK"])
@pytest.mark.parametrize("melds", [([NINES], []), ([NINES, K3], [])])
def test_pile_never_taken_with_a_wild(wild: str, melds: Any) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('mit zwei Handkarten (ohne wilde Karten) zu
    einem Satz'); seed 000 'Unterschiede ...' (Stapel nur mit zwei natürlichen Karten);
    VARIANTS.md german. An unfrozen pile, a side that has melded: one natural and one wild card
    from the hand are refused (classic accepts them), whether or not the side has a king meld."""
    state = gtable({0: ["KD", "KC", wild, "4C"]}, discard=["9C", "5D", "KH"], melds=melds)
    assert refused(state, take("KD", wild)) == (0, "PILE_NEEDS_NATURAL_PAIR")
    new = after(state, take("KD", "KC"))
    assert sorted(side_melds(new, 0)["K"]) == sorted(
        ["KC", "KD", "KH"] + (["KS", "KS", "KH"] if len(melds[0]) == 2 else []))
    assert hand_of(new, 0) == sorted(["4C", wild, "5D", "9C"])


def test_pile_taken_by_adding_top_card_to_side_meld() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('die oberste Karte des Abwurfstoßes ... an
    eine seiner Meldungen anlegen'); VARIANTS.md german. The top card alone joins the side's meld
    of its rank -- also one laid by the partner."""
    state = gtable({0: ["4C", "6C"]}, discard=["9C", "KH"], melds=([K3], []),
                   turn={"seat": 0, "melded": [2]})
    new = after(state, take())
    assert side_melds(new, 0)["K"] == ["KH", "KH", "KS", "KS"]
    assert hand_of(new, 0) == ["4C", "6C", "9C"]
    assert new["discard"] == []


def test_pile_taken_for_the_initial_meld_top_card_counts() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('mit zwei Handkarten ... zu einem Satz als
    Erstauslage vereinen'); VARIANTS.md german ('may serve as the initial meld (top card
    counts)'). Two aces in hand (40) with the top ace make 60 >= 50; the rest joins the hand."""
    state = gtable({0: ["AD", "AC"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    answer = run(state, take("AD", "AC"))
    assert side_melds(answer["state"], 0)["A"] == ["AC", "AD", "AH"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [(60, 50)]
    assert hand_of(answer["state"], 0) == ["6C", "8D", "9C"]


def test_pile_for_the_initial_meld_with_more_melds_from_hand() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf'; VARIANTS.md german (initial meld by the pile,
    several melds count together). At 1,500 (minimum 90): top A + A A = 60 is pending and the
    pile's other cards are held apart; K K K (30) from the hand makes 90."""
    state = gtable({0: ["AD", "AC", "KD", "KC", "KS"] + JUNK}, discard=["8D", "AH"],
                   melds=([], [NINES]), scores=(1500, 0))
    taken = after(state, take("AD", "AC"))
    assert pending_of(taken) == {"A": ["AC", "AD", "AH"]}
    assert taken["turn"]["held"] == ["8D"]
    assert refused(taken, discard("9C")) == (0, "INITIAL_MELD_TOO_LOW")
    answer = run(taken, lay("KD", "KC", "KS"))
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [90]  # 60 + 30
    assert hand_of(answer["state"], 0) == ["6C", "8D", "9C"]


def test_initial_meld_with_the_pile_refused_with_a_wild() -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('ohne wilde Karten'); VARIANTS.md german.
    A side that has not melded cannot take the pile with a natural and a wild either."""
    state = gtable({0: ["AD", "JK"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    assert refused(state, take("AD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")


@pytest.mark.parametrize("wild", ["2C", "JK"])
def test_wild_in_the_pile_freezes_it(wild: str) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('Liegt eine wilde Karte (quer) auf dem
    Abwurfstoß, so ist dieser eingefroren; er darf später nur von dem Spieler genommen werden,
    der zur obersten Karte ein natürliches Paar auf der Hand hat'); VARIANTS.md german. While it
    is on top nobody takes the pile; covered, only a natural pair takes it (adding the top card
    to the side's meld is refused)."""
    melds = ([NINES, K3], [])
    on_top = gtable({0: ["KD", "KC", "4C"]}, discard=["9C", "KH", wild], melds=melds)
    assert refused(on_top, take("KD", "KC")) == (0, "PILE_BLOCKED_BY_WILD")
    covered = gtable({0: ["KD", "KC", "4C"]}, discard=["9C", wild, "5D", "KH"], melds=melds)
    assert refused(covered, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    new = after(covered, take("KD", "KC"))
    assert side_melds(new, 0)["K"] == ["KC", "KD", "KH", "KH", "KS", "KS"]
    assert hand_of(new, 0) == sorted(["4C", "5D", "9C", wild])


def test_wild_discarded_freezes_the_pile_for_everyone() -> None:
    """seed 004 (ASS Altenburger) 'Die wilden Karten' ('den Abwurfstoß vorübergehend einfrieren')
    and 'Der Spielablauf'; VARIANTS.md german. A wild card discarded in play freezes the pile: the
    next player, with a king meld of his side, may not add the covering king to it."""
    state = gtable({0: ["2C", "9C", "4C"], 1: ["KD", "8C", "6C"], 2: ["KC", "KC", "7C", "5C"]},
                   discard=["9H", "5D"], melds=([NINES, K3], [meld("AS", "AS", "AH")]), turn=PLAY)
    state = after(state, discard("2C"), DRAW, discard("KD"))
    assert state["turn"]["seat"] == 2 and state["discard"][-1] == "KD"
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert_legal(state, take("KC", "KC"))


@pytest.mark.parametrize("black", ["3S", "3C"])
def test_black_three_on_top_blocks(black: str) -> None:
    """seed 004 (ASS Altenburger) 'Die schwarze Drei' ('so darf der folgende Spieler keine Karte
    von diesem Stoß nehmen') and 'Der Spielablauf'; VARIANTS.md german. A black three on top
    blocks the pile, even for a natural pair or a matching meld; covered, it does not."""
    state = gtable({0: ["KD", "KC", "9C"]}, discard=["9D", "KH", black], melds=([NINES, K3], []))
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert refused(state, take("KD", "KC")) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    covered = gtable({0: ["KD", "KC", "9C"]}, discard=["9D", black, "KH"], melds=([NINES, K3], []))
    assert_legal(covered, take())


# =============================================================================================
# 5. Red threes
# =============================================================================================


@pytest.mark.parametrize("reds, melds, expected", [
    (["3H"], [JACKS_CANASTA], 100),
    (["3H", "3D"], [JACKS_CANASTA], 200),
    (["3H", "3H", "3D", "3D"], [JACKS_CANASTA], 800),   # all four: 800
    (["3H"], [NINES], -100),                            # melded, but no canasta: minus
    (["3H", "3D", "3D"], [NINES], -300),
    (["3H", "3H", "3D", "3D"], [NINES], -800),
    (["3H"], [], -100),                                 # no meld at all: minus as well
    ([], [NINES], 0),
])
def test_red_threes_minus_without_canasta(reds: list[str], melds: list[Data],
                                          expected: int) -> None:
    """seed 004 (ASS Altenburger) 'Die rote Drei' ('Jede rote Karte wird mit 100 Punkten
    bewertet; wer alle vier zusammen hat, bekommt 800 ... Hat jemand am Ende einer Runde noch
    keinen Canasta gemeldet, so werden ihm für jede Drei 100 Punkte, für alle Dreier 800 Punkte
    abgezogen'); seed 000 'Unterschiede ...' (Rote Dreien minus ohne Canasta); VARIANTS.md german.
    A side without a canasta at the end counts its red threes minus, even if it melded."""
    state = gtable({0: ["4C"], 2: ["4C"]}, melds=(melds, []), bonus=(reds, []))
    assert breakdown(state, 0)["bonus_cards"] == expected


def _over(hands: dict[int, list[str]], **kwargs: Any) -> Data:
    """A finished deal: seat 0 went out (not concealed), the partner had melded."""
    turn = {"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
            "partner_melded": True, "stock_exhausted": False, "played": [0, 1, 2, 3]}
    return gtable({0: [], **hands}, turn=turn, **kwargs)


def test_red_three_in_hand_when_someone_goes_out_costs_500() -> None:
    """seed 004 (ASS Altenburger) 'Die rote Drei' ('wer eine rote Drei aber noch auf der Hand hat,
    wenn ein anderer Spieler "Aus" macht, bekommt 500 Minuspunkte'); seed 000 'Unterschiede ...'
    (Rote Drei auf der Hand); VARIANTS.md german."""
    state = _over({1: ["7C", "3D"], 2: ["4C"], 3: ["KC"]}, melds=([JACKS_CANASTA], [NINES]))
    b = breakdown(state, 1)
    assert b["penalties"] == -500
    assert b["hand_cards"] == -15  # 7 (5) + K (10); the red three has no card value
    assert breakdown(state, 0)["penalties"] == 0



def test_red_three_in_hand_costs_nothing_when_nobody_goes_out() -> None:
    """seed 004 (ASS Altenburger) 'Die rote Drei' (the 500 minus points fall 'wenn ein anderer
    Spieler "Aus" macht'); VARIANTS.md german ('A red three still in a hand when someone goes
    out: -500'). A table whose deal ended with the stock used up and nobody out (as a score pad
    sends it: validation refuses a red three in a hand before the end) costs only the 100 of the
    empty stock; classic counts it at any end (VARIANTS.md classic)."""
    turn = {"seat": 0, "phase": "over", "stock_exhausted": True, "played": [0, 1, 2, 3]}
    state = gtable({0: ["4C"], 1: ["7C", "3D"], 2: ["4C"], 3: ["KC"]}, turn=turn,
                   melds=([JACKS_CANASTA], [NINES]), stock=[], rest_to=3)
    assert [breakdown(state, s)["penalties"] for s in (0, 1)] == [-100, -100]
    state["variant"] = "classic"
    assert breakdown(state, 1)["penalties"] == -500

@pytest.mark.parametrize("reds, melds, expected", [
    (["3H"], [JACKS_CANASTA], 105),                     # 100 + 5
    (["3H", "3H", "3D", "3D"], [JACKS_CANASTA], 820),   # 800 + 4 x 5
    (["3H"], [NINES], -105),                            # no canasta: -(100 + 5)
])
def test_option_red_three_card_points(reds: list[str], melds: list[Data], expected: int) -> None:
    """seed 004 (ASS Altenburger), closing house rules ('Gelegentlich werden auch die roten
    Dreier zusätzlich noch mit den 5 Punkten für niedere Karten bewertet'); VARIANTS.md german,
    option `red_three_card_points`. Each red three counts 5 more, with the sign of the bonus."""
    state = gtable({0: ["4C"], 2: ["4C"]}, melds=(melds, []), bonus=(reds, []),
                   options={"red_three_card_points": 5})
    assert breakdown(state, 0)["bonus_cards"] == expected


# =============================================================================================
# 6. Going out: a canasta and always a last discard
# =============================================================================================


@pytest.mark.parametrize("hand, melds, emptying, going_out", [
    # adding both cards to the side's kings empties the hand
    (["KD", "KC"], [JACKS_CANASTA, K3], [lay("KD", "KC")], [lay("KD"), discard("KC")]),
    # a new meld of the whole hand
    (["KD", "KC", "KH"], [JACKS_CANASTA], [lay("KD", "KC", "KH")], None),
    # two melds, the second empties the hand
    (["KD", "KC", "QH", "QD", "QS"], [JACKS_CANASTA, K3], [lay("KD", "KC"), lay("QH", "QD", "QS")],
     [lay("KD"), lay("QH", "QD", "QS"), discard("KC")]),
    # the canasta completed by the emptying meld itself
    (["KD", "KC"], [meld("KS", "KS", "KH", "KH", "KC")], [lay("KD", "KC")], None),
])
def test_going_out_needs_a_last_discard(hand: list[str], melds: list[Data],
                                        emptying: list[Data],
                                        going_out: list[Data] | None) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('In jedem Falle muss aber eine letzte Karte
    für den Abwurfstoß übrigbleiben'); seed 000 'Unterschiede ...' (Immer eine Abwurfkarte);
    VARIANTS.md german. A meld that would empty the hand is refused (classic allows it); melding
    all but one card and discarding it goes out."""
    state = gtable({0: hand}, melds=(melds, [NINES]), turn={**PLAY, "melded": [0, 1, 2]})
    assert refused(state, *emptying) == (len(emptying) - 1, "MUST_DISCARD_TO_GO_OUT")
    if going_out is not None:
        new = after(state, *going_out)
        assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
        assert new["discard"][-1] == going_out[-1]["card"]


def test_legal_actions_never_empty_the_hand_by_melding() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('In jedem Falle muss aber eine letzte Karte
    für den Abwurfstoß übrigbleiben'); VARIANTS.md german. The list of legal actions offers one
    king to the side's meld (then the other is thrown to go out), never both."""
    state = gtable({0: ["KD", "KC"]}, melds=([JACKS_CANASTA, K3], []),
                   turn={**PLAY, "melded": [0, 2]})
    melds = [sorted(a["cards"]) for a in legal_list(state) if a["type"] == "meld"]
    assert melds and all(len(cards) == 1 for cards in melds)
    assert sorted(a["card"] for a in legal_list(state) if a["type"] == "discard") == ["KC", "KD"]


@pytest.mark.parametrize("variant, legal", [("german", False), ("classic", True)])
def test_ask_only_when_out_with_a_discard_is_possible(variant: str, legal: bool) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Beim Spiel zu viert fragt man gewöhnlich
    seinen Partner ob man ausmachen darf' and 'In jedem Falle muss aber eine letzte Karte ...
    übrigbleiben'); VARIANTS.md german (as classic: ask only when able to go out). Holding three
    kings and no king meld, the player could go out only by melding his whole hand: in German
    that is no way out, so he may not ask (classic, the control, lets him)."""
    state = table({0: ["KD", "KC", "KH"]}, melds=([JACKS_CANASTA], []), turn=PLAY,
                  variant=variant)
    if legal:
        assert_legal(state, ASK)
    else:
        assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")


def test_three_players_nobody_to_ask() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Beim Spiel zu viert fragt man ...');
    VARIANTS.md german (three players each alone). With three players there is no partner to
    ask "may I go out?"."""
    state = gtable({0: ["KD", "KC", "9C"]}, melds=([JACKS_CANASTA, K3], [], []),
                   options=THREE_PLAYERS, turn=PLAY)
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    new = after(state, lay("KD", "KC"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


def test_going_out_with_meld_and_discard() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Wer wenigstens einen Canasta gemeldet und
    sämtliche Handkarten in Sätzen auslegen kann bis auf eine, die er auf den "Posso" wirft, kann
    "ausmachen" ... mit 100 Punkten belohnt'); VARIANTS.md german. A player who melded before
    goes out by melding and a final discard: 100."""
    state = gtable({0: ["KD", "KC", "9C"]}, melds=([JACKS_CANASTA, K3], [NINES]),
                   turn={**PLAY, "melded": [0, 1, 2]})
    new = after(state, lay("KD", "KC"), discard("9C"))
    assert new["turn"]["phase"] == "over" and new["turn"]["went_out"] == 0
    assert new["turn"]["concealed"] is False
    assert new["hands"][0] == [] and new["discard"][-1] == "9C"
    assert breakdown(new, 0)["going_out"] == 100
    assert breakdown(new, 1)["going_out"] == 0


def test_discarding_the_last_card_goes_out() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen'; VARIANTS.md german. With a canasta, discarding
    the only card left goes out."""
    state = gtable({0: ["9C"]}, melds=([JACKS_CANASTA], []), turn={**PLAY, "melded": [0, 2]})
    new = after(state, discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


def test_taking_the_pile_cannot_empty_the_hand() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('In jedem Falle muss aber eine letzte Karte
    für den Abwurfstoß übrigbleiben'); VARIANTS.md german. Taking a one-card pile with the last
    two cards would go out without a discard: refused; with a third card to throw it goes out."""
    melds = ([JACKS_CANASTA], [])
    state = gtable({0: ["KD", "KC"]}, discard=["KH"], melds=melds)
    assert refused(state, take("KD", "KC")) == (0, "MUST_DISCARD_TO_GO_OUT")
    state = gtable({0: ["KD", "KC", "9C"]}, discard=["KH"], melds=melds)
    new = after(state, take("KD", "KC"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD"), discard("9C")]),
    (["9C"], [discard("9C")]),
])
def test_no_going_out_without_canasta(hand: list[str], actions: list[Data]) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Wer wenigstens einen Canasta gemeldet ...');
    VARIANTS.md german. Without a canasta the side may not go out."""
    state = gtable({0: hand}, melds=([K3], []), turn=PLAY)
    assert refused(state, *actions) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


@pytest.mark.parametrize("threes", [["3S", "3S", "3C"], ["3S", "3S", "3C", "3C"]])
def test_going_out_with_black_threes_needs_no_discard(threes: list[str]) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Ausnahme: Wer mit drei schwarzen Dreien
    ausmacht, braucht keine Karte mehr auf den "Posso" zu werfen'); seed 000 'Unterschiede ...'
    (Immer eine Abwurfkarte); VARIANTS.md german. Melding the black threes empties the hand and
    goes out; no discard follows."""
    state = gtable({0: threes}, melds=([JACKS_CANASTA], []), turn={**PLAY, "melded": [0, 2]})
    pile = list(state["discard"])
    new = after(state, lay(*threes))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert side_melds(new, 0)["3"] == sorted(threes)
    assert new["discard"] == pile  # nothing thrown
    assert breakdown(new, 0)["going_out"] == 100


def test_black_threes_with_a_final_discard() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Schwarze Dreier dürfen als Satz aber nur zum
    Ausmachen ... ausgelegt werden'); VARIANTS.md german. Black threes melded when going out may
    also be followed by a last discard; melded without going out they are refused."""
    state = gtable({0: ["3S", "3S", "3C", "9C"]}, melds=([JACKS_CANASTA], []),
                   turn={**PLAY, "melded": [0, 2]})
    new = after(state, lay("3S", "3S", "3C"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    kept = gtable({0: ["3S", "3S", "3C", "9C", "4C"]}, melds=([JACKS_CANASTA], []), turn=PLAY)
    assert refused(kept, lay("3S", "3S", "3C")) == (0, "BLACK_THREES_ONLY_WHEN_GOING_OUT")


THREES = ["3S", "3S", "3C"]


@pytest.mark.parametrize("order", ["fives first", "threes first"])
def test_unopened_side_goes_out_with_a_canasta_and_black_threes_in_either_order(order: str) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Ausnahme: Wer mit drei schwarzen Dreien
    ausmacht, braucht keine Karte mehr auf den "Posso" zu werfen'); VARIANTS.md german; issue 15
    defect 1. A side that has not melded holds seven fives and three black threes: it goes out
    by melding both, no discard, whichever comes first; the fives meld is listed."""
    state = gtable({0: SEVEN_FIVES + THREES}, turn=PLAY)
    fives, threes = lay(*SEVEN_FIVES), lay(*THREES)
    actions = (fives, threes) if order == "fives first" else (threes, fives)
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    listed = [sorted(a["cards"]) for a in legal_list(state) if a["type"] == "meld"]
    assert sorted(SEVEN_FIVES) in listed and sorted(THREES) in listed


def test_ask_and_a_yes_with_black_threes_in_the_hand() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' (asking the partner; going out with three black
    threes needs no discard); VARIANTS.md german; issue 15 defect 1. A player who can go out only
    by completing a canasta and melding his black threes may ask; after a yes, either order of the
    two melds goes out."""
    hand = ["KH", "KD", "KD", "KC", *THREES]
    state = gtable({0: hand}, melds=([K3], []), turn={**PLAY, "melded": [0, 2]})
    assert_legal(state, ASK)
    yes = after(state, ASK, {"type": "answer", "allow": True})
    for actions in ((lay("KH", "KD", "KD", "KC"), lay(*THREES)),
                    (lay(*THREES), lay("KH", "KD", "KD", "KC"))):
        assert after(yes, *actions)["turn"]["went_out"] == 0
    assert any(a["type"] == "meld" and a["cards"][0][0] == "K" for a in legal_list(yes))


def test_two_black_threes_do_not_go_out_without_a_discard() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' (three black threes, and only they, spare the
    last discard); VARIANTS.md german. The control: with two black threes the hand cannot be
    melded out, so the player may not ask and an unopened side may not lay the fives."""
    state = gtable({0: SEVEN_FIVES + ["3S", "3C"]}, turn=PLAY)
    assert refused(state, lay(*SEVEN_FIVES))[1] == "INITIAL_MELD_UNREACHABLE"
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")


# =============================================================================================
# 7. Going-out bonuses: Blatt-Ausmachen 200, Handcanasta 1,000
# =============================================================================================

BONUS_CASES = {
    # the partner has melded (and holds the canasta); the player lays out at once: Blatt 200
    "blatt": (dict(melds=([JACKS_CANASTA], [NINES]), turn={**PLAY, "melded": [1, 2]}),
              ["KD", "KC", "KH", "9C"], [lay("KD", "KC", "KH"), discard("9C")], True, 200),
    # Blatt also when he adds to his partner's meld in the same turn (classic: not concealed)
    "blatt adding to partner's meld": (
        dict(melds=([JACKS_CANASTA, K3], [NINES]), turn={**PLAY, "melded": [1, 2]}),
        ["KD", "KC", "QH", "QD", "QS", "9C"],
        [lay("KD", "KC"), lay("QH", "QD", "QS"), discard("9C")], True, 200),
    # the player laid out earlier in the deal: plain going out, 100
    "laid out before": (dict(melds=([JACKS_CANASTA], [NINES]),
                             turn={**PLAY, "melded": [0, 1, 2]}),
                        ["KD", "KC", "KH", "9C"], [lay("KD", "KC", "KH"), discard("9C")], False,
                        100),
    # the side has no meld: Handcanasta 1,000, the minimum (50) not needed (fives count 35)
    "handcanasta": (dict(melds=([], [NINES]), turn={**PLAY, "played": [0, 1, 2, 3]}),
                    SEVEN_FIVES + ["4C"],
                    [lay(*SEVEN_FIVES), discard("4C")], True, 1000),
    # ... also when the meld happens to meet the minimum (seven kings, 70 >= 50)
    "handcanasta meeting the minimum": (dict(melds=([], [NINES]),
                                             turn={**PLAY, "played": [0, 1, 2, 3]}),
                                        SEVEN_KINGS + ["4C"], [lay(*SEVEN_KINGS), discard("4C")],
                                        True, 1000),
    # ... also at a minimum of 120 (score 3,005), with more melds than the canasta
    "handcanasta at 120": (dict(melds=([], [NINES]), scores=(3005, 0),
                                turn={**PLAY, "played": [0, 1, 2, 3]}),
                           SEVEN_FIVES + ["6S", "6H", "6D", "4C"],
                           [lay(*SEVEN_FIVES), lay("6S", "6H", "6D"), discard("4C")], True, 1000),
}


@pytest.mark.parametrize("case", list(BONUS_CASES))
def test_going_out_bonuses(case: str) -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Wer auf einmal "ausmacht" ohne vorher
    ausgelegt zu haben, kann sich 200 Punkte gutschreiben, wenn der Partner schon ausgelegt hatte
    ... "Blatt Ausmachen". Ausmachen ohne vorheriges Auslegen, der "Handcanasta", wird sogar mit
    1000 Punkten bewertet. Dabei brauchen die Mindestpunkte für das Erstauslegen nicht beachtet zu
    werden'); seed 000 'Unterschiede ...' (Verdeckt ausmachen); VARIANTS.md german. The bonus
    replaces the 100."""
    kwargs, hand, actions, concealed, bonus = BONUS_CASES[case]
    state = gtable({0: hand}, **kwargs)
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert new["turn"]["concealed"] is concealed
    assert breakdown(new, 0)["going_out"] == bonus
    assert breakdown(new, 1)["going_out"] == 0


def test_handcanasta_needs_a_last_discard() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('In jedem Falle muss aber eine letzte Karte
    für den Abwurfstoß übrigbleiben'); VARIANTS.md german. A Handcanasta melding the whole hand
    is refused; a Handcanasta needs a canasta (six fives pending and one card are not enough)."""
    state = gtable({0: SEVEN_FIVES}, melds=([], [NINES]), turn=PLAY)
    assert refused(state, lay(*SEVEN_FIVES)) == (0, "MUST_DISCARD_TO_GO_OUT")
    six = SEVEN_FIVES[:6]
    short = gtable({0: six + ["4C"]}, melds=([], [NINES]), turn=PLAY)
    assert refused(short, lay(*six)) == (0, "INITIAL_MELD_UNREACHABLE")


def test_handcanasta_three_players() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Ausmachen ohne vorheriges Auslegen, der
    "Handcanasta"'); VARIANTS.md german. Three players each alone: going out at once without an
    earlier meld is a Handcanasta, 1,000 (there is no partner for a Blatt)."""
    state = gtable({0: SEVEN_FIVES + ["4C"]}, melds=([], [NINES], []), options=THREE_PLAYERS,
                   turn={**PLAY, "played": [0, 1, 2]})
    new = after(state, lay(*SEVEN_FIVES), discard("4C"))
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    assert [breakdown(new, s)["going_out"] for s in range(3)] == [1000, 0, 0]


@pytest.mark.parametrize("played, dealer, theirs, options, bonus", [
    # Handcanasta, house rule: 200
    ([0, 1, 2, 3], 3, [NINES], {"hand_canasta_low": True}, 200),
    # out at once on the first turn: 300 (seat 0 the last of the round, or the first)
    ([1, 2, 3], 0, [NINES], {"hand_canasta_low": True}, 300),
    ([], 3, [], {"hand_canasta_low": True}, 300),
    ([], 3, [NINES], {}, 1000),                     # without the house rule: 1,000
    ([0, 1, 2, 3], 3, [NINES], {"hand_canasta_low": False}, 1000),
])
def test_option_hand_canasta_low(played: list[int], dealer: int, theirs: list[Data],
                                 options: Data, bonus: int) -> None:
    """seed 004 (ASS Altenburger), closing house rules ('Oft wird der "Hand-Canasta" geringer
    bewertet, zum Beispiel nur mit 200 Punkten; dann zählt ein Ausmachen gleich zu Beginn 300
    Punkte, wenn man höchstens eine Karte vom Abhebestoß gezogen hat'); VARIANTS.md german,
    option `hand_canasta_low` (``turn.played``: the seats that finished a turn this deal)."""
    state = gtable({0: SEVEN_FIVES + ["4C"]}, melds=([], theirs), options=options, dealer=dealer,
                   turn={**PLAY, "played": played})
    new = after(state, lay(*SEVEN_FIVES), discard("4C"))
    assert breakdown(new, 0)["going_out"] == bonus


def test_option_hand_canasta_low_blatt_stays_200() -> None:
    """seed 004 (ASS Altenburger), 'Das Ausmachen' and closing house rules; VARIANTS.md german,
    option `hand_canasta_low` (it changes the Handcanasta only). A Blatt after the first turn
    still counts 200."""
    state = gtable({0: ["KD", "KC", "KH", "9C"]}, melds=([JACKS_CANASTA], [NINES]),
                   options={"hand_canasta_low": True},
                   turn={**PLAY, "melded": [1, 2], "played": [0, 1, 2, 3]})
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))
    assert breakdown(new, 0)["going_out"] == 200


def test_played_seats_tracked_for_first_turn_bonus() -> None:
    """seed 004 (ASS Altenburger), closing house rules ('ein Ausmachen gleich zu Beginn ... wenn
    man höchstens eine Karte vom Abhebestoß gezogen hat'); VARIANTS.md german, option
    `hand_canasta_low`. The engine records each finished turn in ``turn.played``: seat 0 passes
    on his first turn and goes out at once on his second -- a Handcanasta of 200, not 300."""
    state = gtable({0: SEVEN_FIVES}, options={"hand_canasta_low": True},
                   stock_top=["8H", "8D", "8S", "8C", "QD"])
    state = after(state, DRAW, discard("8H"))
    assert state["turn"]["played"] == [0]
    for seat, card in ((1, "8D"), (2, "8S"), (3, "8C")):
        assert state["turn"]["seat"] == seat
        state = after(state, DRAW, discard(card))
    assert state["turn"]["played"] == [0, 1, 2, 3]
    new = after(state, DRAW, lay(*SEVEN_FIVES), discard("QD"))
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    assert breakdown(new, 0)["going_out"] == 200


# =============================================================================================
# 8. The stock runs out: the deal ends, each side -100
# =============================================================================================


def _exhausted(hands: dict[int, list[str]], melds: Any, pile_top: list[str], seat: int = 0,
               stock: list[str] | None = None, options: Data | None = None,
               bonus: Any = (("3H", "3D"), ("3H", "3D"))) -> Data:
    """Seat ``seat`` to draw from an empty (or nearly empty) stock: the cards nobody named lie in
    the discard pile under ``pile_top`` (all four red threes are laid out as bonus cards, so the
    pile holds none)."""
    state = gtable(hands, melds=melds, discard=pile_top, bonus=bonus, turn={"seat": seat},
                   options=options)
    rest = state["stock"]
    keep = list(stock or [])
    for card in keep:
        rest.remove(card)
    state["discard"] = rest + state["discard"]
    state["stock"] = keep
    assert api.validate({"state": state})["problems"] == []
    return state


def test_draw_from_empty_stock_ends_the_deal() -> None:
    """seed 004 (ASS Altenburger), 'Nach dem Ausmachen ...' ('Hat keiner der Spieler ausmachen
    können, bis alle Karten vom Stoß abgehoben sind, so ist die Runde beendet und es werden jedem
    Spieler (jeder Partei) 100 Minuspunkte ... abgezogen'); seed 000 'Unterschiede ...' (Stapel
    leer); VARIANTS.md german. Drawing from the empty stock ends the deal -- even when the pile's
    top card matches the side's meld (classic would force taking it) -- and each side loses 100."""
    # an unfrozen pile (the cards nobody named are in seat 1's hand) whose top fits the kings
    state = gtable({0: ["9C", "4C"]}, discard=["8D", "KH"], melds=([K3], [NINES]), stock=[],
                   rest_to=1)
    classic = dict(state, variant="classic")
    assert refused(classic, DRAW) == (0, "MUST_TAKE_PILE")  # the premise: classic forces it
    assert_legal(state, DRAW)
    answer = run(state, DRAW)
    turn = answer["state"]["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)
    assert events_of(answer, "stock-exhausted") == [{"type": "stock-exhausted", "seat": 0}]
    for side in (0, 1):
        b = breakdown(answer["state"], side)
        assert (b["penalties"], b["going_out"]) == (-100, 0)


def test_last_stock_card_play_goes_on_then_the_deal_ends() -> None:
    """seed 004 (ASS Altenburger) ('bis alle Karten vom Stoß abgehoben sind'); VARIANTS.md german
    ('a draw from the empty stock ends it'). Drawing the last card is a normal turn; the next
    player's draw from the empty stock ends the deal."""
    state = _exhausted({0: ["9C", "4C"], 1: ["7C", "7D"]}, ([K3], [NINES]), ["8D", "4D"],
                       stock=["QH"])
    new = after(state, DRAW)
    assert new["turn"]["phase"] == "play" and new["stock"] == []
    new = after(new, discard("QH"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    new = after(new, DRAW)
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)
    assert [breakdown(new, s)["penalties"] for s in (0, 1)] == [-100, -100]


def test_red_three_as_last_stock_card_ends_the_deal() -> None:
    """seed 004 (ASS Altenburger) ('bis alle Karten vom Stoß abgehoben sind') and 'Die rote Drei';
    VARIANTS.md german (as classic: a red three drawn as the last card ends the deal at once).
    Nobody went out: each side loses 100."""
    state = _exhausted({0: ["9C", "4C"]}, ([K3], [NINES]), ["8D", "4D"], stock=["3D"],
                       bonus=(("3H",), ("3H", "3D")))
    new = after(state, DRAW)
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)
    assert sorted(new["bonus_cards"][0]) == ["3D", "3H"]
    assert [breakdown(new, s)["penalties"] for s in (0, 1)] == [-100, -100]


def test_empty_stock_three_players_each_loses_100() -> None:
    """seed 004 (ASS Altenburger) ('jedem Spieler (jeder Partei) 100 Minuspunkte'); VARIANTS.md
    german. With three players each of the three loses 100."""
    state = _exhausted({0: ["9C", "4C"], 1: ["7C"], 2: ["5C"]}, ([K3], [NINES], []), ["8D", "KH"],
                       options=THREE_PLAYERS, seat=2)
    new = after(state, DRAW)
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)
    assert [breakdown(new, s)["penalties"] for s in range(3)] == [-100, -100, -100]


def test_no_stock_penalty_when_someone_went_out() -> None:
    """seed 004 (ASS Altenburger) ('Hat keiner der Spieler ausmachen können ...'); VARIANTS.md
    german ('with nobody out'). Going out on the last stock card: no -100."""
    state = _exhausted({0: ["KD", "KC"]}, ([JACKS_CANASTA, K3], [NINES]), ["8D", "4D"],
                       stock=["QH"])
    new = after(state, DRAW, lay("KD", "KC"), discard("QH"))
    assert (new["turn"]["went_out"], new["stock"]) == (0, [])
    assert [breakdown(new, s)["penalties"] for s in (0, 1)] == [0, 0]


# =============================================================================================
# 9. The target
# =============================================================================================


def _with_totals(totals: tuple[int, ...], options: Data | None = None) -> Data:
    """A scored table whose game totals after the deal are ``totals``."""
    sides = len(totals)
    hands = {s: ["4" + "CDHS"[s]] for s in range(4 if sides == 2 else sides)}
    plain = gtable(hands, melds=([NINES], [meld("8S", "8H", "8D")], [meld("7S", "7H", "7D")])[:sides],
                   options=options)
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [t - d for t, d in zip(totals, deal, strict=True)]
    return plain


@pytest.mark.parametrize("totals, options, game_over, winner", [
    ((5000, 4000), {}, True, 0),                  # four players: 5,000
    ((4995, 4990), {}, False, None),
    ((2995, 2990, 2000), THREE_PLAYERS, False, None),  # three players: 3,000
    ((2000, 3000, 2995), THREE_PLAYERS, True, 1),
    ((3100, 3200, 3150), THREE_PLAYERS, True, 1),  # several pass: the highest wins
    ((3100, 3100, 3000), THREE_PLAYERS, False, None),  # tie at the top: another deal
    ((2500, 100), {"target": 2500}, True, 0),     # option target
    ((2495, 100), {"target": 2500}, False, None),
])
def test_game_target(totals: tuple[int, ...], options: Data, game_over: bool,
                     winner: int | None) -> None:
    """seed 004 (ASS Altenburger), closing paragraph ('Sieger des Spieles ist derjenige, der
    zuerst 3000 Punkte (beim Viererspiel 5000 Punkte für die Mannschaft) erreicht hat');
    VARIANTS.md german and common rules (the higher total wins; a tie means another deal)."""
    answer = score(_with_totals(totals, options))
    assert answer["scores"] == list(totals)
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)


@pytest.mark.parametrize("totals, minimums", [
    ((-5, 0), [15, 50]),
    ((1495, 1500), [50, 90]),
    ((3000, 2995), [90, 90]),   # exactly 3,000 stays at 90
    ((3005, 4995), [120, 120]),
])
def test_next_initial_meld_minimums(totals: tuple[int, int], minimums: list[int]) -> None:
    """seed 004 (ASS Altenburger) 'Der Spielablauf' ('120, wenn man mehr als 3000 Pluspunkte
    hat'); research.md 2.9; VARIANTS.md german. The score answer gives the next deal's minimums."""
    answer = score(_with_totals(totals))
    assert answer["scores"] == list(totals)
    assert answer["next_minimums"] == minimums


# =============================================================================================
# 10. Golden scoring examples
# =============================================================================================


def test_golden_going_out_against_a_side_without_canasta() -> None:
    """seed 004 (ASS Altenburger) 'Nach dem Ausmachen rechnet jeder Spieler ...' ('Hat die
    Gegenpartei jedoch noch keinen Canasta gemeldet, so werden eventuell ausgelegte rote Dreier
    ebenfalls als Handkarte gezahlt'); VARIANTS.md german. Seat 0 went out (100); the opponents
    melded but have no canasta, so their red three counts -100."""
    state = _over(
        {1: ["JK", "7C", "7C"], 2: ["9S", "4D", "3S"], 3: ["KC", "2H"]},
        melds=([meld(*SEVEN_KINGS), meld("QH", "QH", "QD", "QD", "QS", "2C", "JK"),
                meld("5S", "5H", "5D")],
               [meld("AH", "AD", "AS", "2D"), meld("8S", "8H", "8D", "8C", "JK")]),
        bonus=(["3H", "3D"], ["3H"]), discard=["6S", "9D"], scores=(1800, 3020))
    answer = score(state)
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 205,   # kings 7 x 10 = 70; queens 5 x 10 + 20 + 50 = 120; fives 3 x 5 = 15
        "hand_cards": -20,     # seat 2: 9 (10) + 4 (5) + black three (5)
        "canasta_bonus": 800,  # natural kings 500 + mixed queens (5 + 2) 300
        "bonus_cards": 200,    # two red threes, 100 each (the side has a canasta)
        "going_out": 100,      # laid out before: plain going out
        "penalties": 0,
        "total": 1285,         # 205 - 20 + 800 + 200 + 100
    }
    assert side1 == {
        "melded_cards": 170,   # aces 3 x 20 + 20 = 80; eights 4 x 10 + 50 = 90
        "hand_cards": -90,     # seat 1: joker 50 + 7 + 7 = 60; seat 3: K 10 + 2 20 = 30
        "canasta_bonus": 0,
        "bonus_cards": -100,   # one red three, no canasta: minus (classic: +100)
        "going_out": 0,
        "penalties": 0,
        "total": -20,          # 170 - 90 - 100
    }
    assert answer["scores"] == [3085, 3000]       # 1800 + 1285, 3020 - 20
    assert answer["next_minimums"] == [120, 90]   # above 3,000: 120; exactly 3,000: 90
    assert (answer["game_over"], answer["winner"]) == (False, None)


def test_golden_handcanasta_played_and_scored() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' (Handcanasta 1,000, no minimum) and 'Nach dem
    Ausmachen ...'; VARIANTS.md german. Seat 0's side has not melded; he draws, lays seven fives
    (35 < 50) and discards the card drawn: a Handcanasta, scored for the whole deal."""
    state = gtable({0: SEVEN_FIVES, 1: ["4D"], 2: ["KC", "2H"], 3: ["JK"]},
                   melds=([], [NINES]), bonus=(["3H"], ["3D"]), scores=(4200, 1000),
                   stock_top=["9S"], turn={"seat": 0, "played": [0, 1, 2, 3]})
    new = after(state, DRAW, lay(*SEVEN_FIVES), discard("9S"))
    assert (new["turn"]["went_out"], new["turn"]["concealed"]) == (0, True)
    answer = score(new)
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 35,     # seven fives 7 x 5
        "hand_cards": -30,      # seat 2: K (10) + 2 (20)
        "canasta_bonus": 500,   # natural fives
        "bonus_cards": 100,     # one red three, with a canasta
        "going_out": 1000,      # Handcanasta, replacing the 100
        "penalties": 0,
        "total": 1605,          # 35 - 30 + 500 + 100 + 1000
    }
    assert side1 == {
        "melded_cards": 30,     # nines 3 x 10
        "hand_cards": -55,      # seat 1: 4 (5); seat 3: joker 50
        "canasta_bonus": 0,
        "bonus_cards": -100,    # one red three, no canasta: minus
        "going_out": 0,
        "penalties": 0,
        "total": -125,          # 30 - 55 - 100
    }
    assert answer["scores"] == [5805, 875]        # 4200 + 1605, 1000 - 125
    assert (answer["game_over"], answer["winner"]) == (True, 0)
    assert answer["next_minimums"] == [120, 50]


def test_golden_stock_exhausted() -> None:
    """seed 004 (ASS Altenburger) ('Hat keiner der Spieler ausmachen können, bis alle Karten vom
    Stoß abgehoben sind, so ist die Runde beendet und es werden jedem Spieler (jeder Partei) 100
    Minuspunkte von den Auslagen abgezogen') and 'Die rote Drei'; VARIANTS.md german."""
    state = _exhausted({0: ["9C", "4C"], 1: ["AS"], 2: ["JK"], 3: ["7C", "7C"]},
                       ([meld(*SEVEN_KINGS)], [NINES]), ["8D", "QH"], seat=1)
    new = after(state, DRAW)
    answer = score(new)
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 70,    # seven kings 7 x 10
        "hand_cards": -65,     # seat 0: 9 (10) + 4 (5); seat 2: joker 50
        "canasta_bonus": 500,  # natural kings
        "bonus_cards": 200,    # 3H 3D, 100 each (the side has a canasta)
        "going_out": 0,
        "penalties": -100,     # the stock ran out
        "total": 605,          # 70 - 65 + 500 + 200 - 100
    }
    assert side1 == {
        "melded_cards": 30,    # nines 3 x 10
        "hand_cards": -30,     # seat 1: ace 20; seat 3: 7 + 7
        "canasta_bonus": 0,
        "bonus_cards": -200,   # 3H 3D, no canasta: minus
        "going_out": 0,
        "penalties": -100,     # the stock ran out
        "total": -300,         # 30 - 30 - 200 - 100
    }


def test_golden_three_players() -> None:
    """seed 004 (ASS Altenburger) 'Nach dem Ausmachen rechnet jeder Spieler ... für sich die
    Punkte aus' and closing paragraph (3,000 for three players); VARIANTS.md german."""
    state = gtable(
        {0: [], 1: ["JK", "4C"], 2: ["5S", "5H", "8D"]},
        melds=([meld(*SEVEN_KINGS), meld("AS", "AH", "AD")], [meld("QS", "QH", "QD", "QC", "2C")],
               []),
        bonus=(["3H"], ["3H", "3D"]), scores=(2200, 500, 2990), options=THREE_PLAYERS,
        turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
              "partner_melded": False, "stock_exhausted": False, "played": [0, 1, 2]})
    answer = score(state)
    assert [s["breakdown"] for s in answer["sides"]] == [
        {"melded_cards": 130,   # kings 7 x 10 = 70; aces 3 x 20 = 60
         "hand_cards": 0,
         "canasta_bonus": 500,  # natural kings
         "bonus_cards": 100,    # one red three, with a canasta
         "going_out": 100,
         "penalties": 0,
         "total": 830},         # 130 + 500 + 100 + 100
        {"melded_cards": 60,    # queens 4 x 10 + 20
         "hand_cards": -55,     # joker 50 + 4 (5)
         "canasta_bonus": 0,
         "bonus_cards": -200,   # two red threes, no canasta: minus
         "going_out": 0,
         "penalties": 0,
         "total": -195},        # 60 - 55 - 200
        {"melded_cards": 0,
         "hand_cards": -20,     # 5 + 5 + 8 (10)
         "canasta_bonus": 0,
         "bonus_cards": 0,
         "going_out": 0,
         "penalties": 0,
         "total": -20},
    ]
    assert answer["scores"] == [3030, 305, 2970]  # 2200 + 830, 500 - 195, 2990 - 20
    assert (answer["game_over"], answer["winner"]) == (True, 0)
    assert answer["next_minimums"] == [120, 50, 90]


# =============================================================================================
# 11. Option joker_canasta: seven wild cards laid at once
# =============================================================================================


JOKER_CANASTA = {"joker_canasta": 1000}
SEVEN_WILDS = ["JK", "JK", "JK", "JK", "2S", "2H", "2D"]  # 4 x 50 + 3 x 20 = 260


@pytest.mark.parametrize("size", [3, 4, 5, 6, 7])
def test_option_joker_canasta_seven_wild_cards_at_once(size: int) -> None:
    """seed 004 (ASS Altenburger), closing house rules ('So wird zum Beispiel oft ein
    "Joker-Canasta" (sieben wilde Karten als Satz ausgelegt) anerkannt und mit 1000 Punkten
    bewertet'); VARIANTS.md german, Options (`joker_canasta`). With the option, seven wild cards
    laid at once as a meld of rank "wild" are legal and the only wild meld listed; three to six
    wild cards are refused (`WILD_MELD_SEVEN_AT_ONCE`)."""
    state = gtable({0: SEVEN_WILDS + ["KD", "KC", "KH", "4C"]}, melds=([NINES], []),
                   turn={**PLAY, "melded": [0]}, options=JOKER_CANASTA)
    action = lay(*SEVEN_WILDS[:size], rank="wild")
    listed = [sorted(a["cards"]) for a in legal_list(state) if a.get("rank") == "wild"]
    assert listed == [sorted(SEVEN_WILDS)]
    if size < 7:
        assert refused(state, action) == (0, "WILD_MELD_SEVEN_AT_ONCE")
    else:
        new = after(state, action)
        assert side_melds(new, 0) == {"wild": sorted(SEVEN_WILDS), "9": ["9D", "9H", "9S"]}
        assert hand_of(new, 0) == ["4C", "KC", "KD", "KH"]


def test_option_joker_canasta_is_the_canasta_to_go_out_and_scores_its_bonus() -> None:
    """seed 004 (ASS Altenburger), closing house rules ('"Joker-Canasta" (sieben wilde Karten als
    Satz ausgelegt) ... mit 1000 Punkten bewertet') and 'Das Ausmachen' ('Wer wenigstens einen
    Canasta gemeldet ...'); VARIANTS.md german (`joker_canasta`: 1,000 for seven wild cards).
    Played through the engine: seat 0, whose side has only nines, draws, lays the Joker-Canasta
    and three kings and discards: the Joker-Canasta is the side's canasta (out, red three plus),
    scored with its 1,000 bonus. Without it the same going out is refused."""
    state = gtable({0: SEVEN_WILDS + ["KD", "KC", "KH"], 1: ["AS", "4D"], 2: ["QC", "2C"],
                    3: ["6C"]},
                   melds=([NINES], [meld("8S", "8H", "8D")]), bonus=(["3H"], []),
                   stock_top=["4C"], turn={"seat": 0, "melded": [0, 1], "played": [0, 1, 2, 3]},
                   options=JOKER_CANASTA)
    new = after(state, DRAW, lay(*SEVEN_WILDS, rank="wild"), lay("KD", "KC", "KH"),
                discard("4C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    answer = score(new)
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 320,    # wild cards 4 x 50 + 3 x 20 = 260; nines 30; kings 30
        "hand_cards": -30,      # seat 2: Q (10) + 2 (20)
        "canasta_bonus": 1000,  # the Joker-Canasta
        "bonus_cards": 100,     # one red three, with a canasta
        "going_out": 100,       # laid out before: plain going out
        "penalties": 0,
        "total": 1490,          # 320 - 30 + 1000 + 100 + 100
    }
    assert side1 == {
        "melded_cards": 30,     # eights 3 x 10
        "hand_cards": -30,      # seat 1: A (20) + 4 (5); seat 3: 6 (5)
        "canasta_bonus": 0,
        "bonus_cards": 0,
        "going_out": 0,
        "penalties": 0,
        "total": 0,
    }
    assert answer["scores"] == [1490, 0]
    without = gtable({0: ["KD", "KC", "KH", "4C"]}, melds=([NINES], []),
                     turn={**PLAY, "melded": [0]}, options=JOKER_CANASTA)
    assert refused(without, lay("KD", "KC", "KH"), discard("4C")) == (
        0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


# =============================================================================================
# Inherited from classic: the red three upcard freezes the pile; the one-card pile
# =============================================================================================


def test_red_three_upcard_at_the_deal_freezes_the_pile() -> None:
    """seed 004 (ASS Altenburger) 'Canasta' (the top stock card starts the "Posso"; the leaflet
    is silent on the upcard) and seed 000 'Aufbau' ('Ist sie ein Joker, eine Zwei oder eine rote
    Drei, deckt ihr so lange weitere Karten darauf ... Der Stapel ist dann eingefroren') and 'Der
    eingefrorene Stapel' ('für alle, wenn zu Beginn eine rote Drei aufgedeckt wurde');
    VARIANTS.md german ('As classic, except ...'; the upcard is no exception) and VARIANTS.md
    classic (Deal). A dealt red three upcard is covered and stays in the pile, which is frozen
    (a plain upcard's is not)."""
    frozen_seen = plain_seen = False
    for seed in range(400):
        state = api.deal({"variant": GERMAN, "seed": seed, "dealer": 0})["state"]
        pile = state["discard"]
        view = api.view({"state": state, "seat": 1})["state"]["discard"]
        if len(pile) == 1:
            assert view == {"top": pile[0], "size": 1, "frozen": False}, seed
            plain_seen = True
        elif pile[0] in ("3H", "3D"):
            assert pile[-1] not in ("3H", "3D", "2S", "2H", "2D", "2C", "JK"), seed
            assert view == {"top": pile[-1], "size": len(pile), "frozen": True}, seed
            frozen_seen = True
        if frozen_seen and plain_seen:
            break
    else:
        raise AssertionError("no deal with a red three upcard (and one with a plain upcard)")


@pytest.mark.parametrize("red", ["3H", "3D"])
def test_red_three_upcard_freezes_the_pile_for_a_side_that_has_melded(red: str) -> None:
    """seed 000 'Der eingefrorene Stapel' ('für alle, wenn zu Beginn eine rote Drei aufgedeckt
    wurde') and 'Unterschiede in der Regel von ASS Altenburger' ('Stapel nur mit zwei natürlichen
    Karten ... oder durch Anlegen an eine eigene Meldung'); seed 004 (ASS Altenburger) 'Der
    Spielablauf'; VARIANTS.md german ('As classic, except ...') and VARIANTS.md classic (Deal,
    Discard pile). A pile started on a red three is frozen even for a side that has melded:
    adding the top seven to the side's sevens is refused, only a natural pair takes it, and the
    red three goes to the side's bonus cards. Without the red three adding the seven is legal."""
    hand = ["7H", "7C", "9C", "4C"]
    melds: tuple[list[Data], list[Data]] = ([NINES, meld("7S", "7S", "7H")], [])
    state = gtable({0: hand}, discard=[red, "7D"], melds=melds)
    assert refused(state, take()) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert [a for a in legal_list(state) if a["type"] == "take-pile"] == [
        {"type": "take-pile", "cards": ["7H", "7C"], "seat": 0}]
    answer = run(state, take("7H", "7C"))
    assert answer["state"]["bonus_cards"][0] == [red]
    assert events_of(answer, "red-threes") == [{"type": "red-threes", "seat": 0, "cards": [red]}]
    assert side_melds(answer["state"], 0)["7"] == ["7C", "7D", "7H", "7H", "7S", "7S"]
    assert hand_of(answer["state"], 0) == ["4C", "9C"]
    control = gtable({0: hand}, discard=["8D", "7D"], melds=melds)
    assert_legal(control, take())


@pytest.mark.parametrize("hand, pile, ok", ONE_CARD_PILE_CASES)
def test_one_card_in_hand_may_not_take_one_card_pile(hand: list[str], pile: list[str],
                                                     ok: bool) -> None:
    """VARIANTS.md german ('As classic, except ...'; not an exception) and VARIANTS.md classic,
    Discard pile ('A player holding one card may not take a one-card pile'; not in seeds 000 and
    004; Britannica: canasta, Going out; research.md 2.5). Holding one king, the player may not
    add a lone king on the pile to his side's kings (ONE_CARD_PILE, citing the German rule page,
    and not listed); a second card in the hand or in the pile makes it legal."""
    state = gtable({0: hand}, discard=pile, melds=([meld("KS", "KS", "KC")], []))
    takes = [a for a in legal_list(state) if a["type"] == "take-pile"]
    if ok:
        assert_legal(state, take())
        assert takes == [{"type": "take-pile", "cards": [], "seat": 0}]
    else:
        assert refused(state, take()) == (0, "ONE_CARD_PILE")
        verdict = api.check({"state": state, "actions": [take()]})
        assert verdict["reason"]["rule"].startswith("docs/variants/german.md#a-one-card-pile")
        assert takes == []


# =============================================================================================
# Handcanasta after taking the pile: no minimum
# =============================================================================================

#: seat 0 at 1,500 (minimum 90), the pile one five: the pile's meld (15) and every meld the
#: hand can make besides (20 + 15) stay short of 90; with the pile's cards the hand goes out at
#: once with a canasta of fives and a last discard
_HAND_OUT = ["5S", "5H", "5C", "5C", "5S", "5H", "4S", "4H", "4D", "9S"]


def _hand_out(hand: list[str] = _HAND_OUT, pile: tuple[str, ...] = ("5D",),
              variant: str = GERMAN) -> Data:
    return table({0: hand}, discard=list(pile), variant=variant, scores=[1500, 0],
                 dealer=3)


def test_handcanasta_after_taking_the_pile_needs_no_minimum() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen' ('Ausmachen ohne vorheriges Auslegen, der
    "Handcanasta" ... Dabei brauchen die Mindestpunkte für das Erstauslegen nicht beachtet zu
    werden'); VARIANTS.md german ('"Handcanasta" (the side goes out without any earlier meld;
    no minimum needed) 1,000'). The minimum is waived whether the player drew from the stock or
    took the pile: the pile's cards join the hand for it and the turn must go out at once."""
    state = _hand_out()
    out = [take("5S", "5H"), lay("5C", "5C", "5S", "5H"), lay("4S", "4H", "4D"), discard("9S")]
    assert_legal(state, *out)
    takes = [a for a in legal_list(state) if a["type"] == "take-pile"]
    assert len(takes) == 1 and after(state, takes[0])["turn"]["going_out"] is True
    taken = after(state, out[0])
    assert taken["turn"]["going_out"] is True and "held" not in taken["turn"]
    assert pending_of(taken) == {"5": ["5D", "5H", "5S"]}
    assert hand_of(taken, 0) == sorted(["5C", "5C", "5S", "5H", "4S", "4H", "4D", "9S"])
    over = after(state, *out)
    assert (over["turn"]["went_out"], over["turn"]["concealed"]) == (0, True)
    assert "going_out" not in over["turn"]
    assert breakdown(over, 0)["going_out"] == 1000


def test_after_such_a_take_the_turn_goes_out_at_once_or_not_at_all() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen'; VARIANTS.md german. The minimum is waived for
    going out only: once the pile's cards joined the hand short of it, a discard that keeps
    cards is refused, and so is a meld after which the hand cannot go out; the listing offers
    neither."""
    taken = after(_hand_out(), take("5S", "5H"))
    assert refused(taken, lay("4S", "4H", "4D"), discard("9S")) == (1, "MUST_GO_OUT_AT_ONCE")
    assert refused(taken, discard("9S")) == (0, "MUST_GO_OUT_AT_ONCE")
    listed = legal_list(taken)
    assert listed and not [a for a in listed if a["type"] == "discard"]
    assert {a["type"] for a in listed} == {"meld"}


def test_a_take_short_of_the_minimum_that_cannot_go_out_is_refused() -> None:
    """seed 004 (ASS Altenburger) 'Das Ausmachen'; VARIANTS.md german. Without a way out at once
    (a queen and a nine left over from the pile), the take is refused as the minimum refuses it."""
    state = _hand_out(["5S", "5H", "5C", "5C", "5S", "5H", "4S", "4H", "9S"],
                      pile=("4D", "QS", "5D"))
    assert refused(state, take("5S", "5H")) == (0, "INITIAL_MELD_UNREACHABLE")


def test_a_take_that_can_still_reach_the_minimum_holds_the_pile_back() -> None:
    """seed 004 (ASS Altenburger) p. 2 (the first meld's minimum); pagat "Initial Meld
    Requirement" (the top card and the hand's cards count; the pile's cards join once the
    minimum stands), as classic; VARIANTS.md german. Where the hand can still reach the minimum,
    a take short of it holds the pile's cards back as in classic: the turn is not bound to go
    out."""
    hand = ["5S", "5H", "AS", "AH", "AC", "KS", "KH", "KC", "9S", "8S"]
    taken = after(_hand_out(hand, pile=("QS", "5D")), take("5S", "5H"))
    assert "going_out" not in taken["turn"] and taken["turn"]["held"] == ["QS"]
    opened = after(taken, lay("AS", "AH", "AC"), lay("KS", "KH", "KC"))
    assert side_melds(opened, 0) and "QS" in opened["hands"][0]


def test_classic_keeps_the_minimum_after_taking_the_pile() -> None:
    """pagat "Initial Meld Requirement" (going out concealed after taking the pile: the top card
    and the hand cards used with it must meet the minimum); VARIANTS.md classic. The German
    waiver is German only."""
    state = _hand_out(variant="classic")
    assert refused(state, take("5S", "5H")) == (0, "INITIAL_MELD_UNREACHABLE")


@pytest.mark.parametrize("variant, turn", [
    ("classic", {"seat": 0, "phase": "play", "took_pile": True, "going_out": True,
                 "pending": [{"rank": "5", "cards": ["5S", "5H", "5D"]}]}),
    (GERMAN, {"seat": 0, "phase": "play", "drawn": True, "going_out": True,
              "pending": [{"rank": "5", "cards": ["5S", "5H", "5D"]}]}),
    (GERMAN, {"seat": 0, "phase": "draw", "going_out": True}),
])
def test_going_out_only_after_a_take_where_the_rules_waive_the_minimum(variant: str,
                                                                      turn: Data) -> None:
    """docs/variants/german.md#going-out-concealed: ``turn.going_out`` says a take's pile cards
    joined the hand for going out at once; anywhere else it contradicts the turn."""
    state = table({0: ["5C", "5C", "4S", "4H", "9S"]}, variant=variant, dealer=3)
    state["turn"] = turn
    answer = api.validate({"state": state})
    assert ("PHASE_INCONSISTENT", "/state/turn") in {(p["code"], p["path"])
                                                      for p in answer["problems"]}

