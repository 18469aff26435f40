"""Canastra (Brazil, as seed 003 describes it), one test (or a small parametrized group) per rule.

Every test drives the engine at the JSON level (``engine.api``) and names its source: the section
of seed 003 (``shared/seeds/003_b94d3997c4fbcc96.txt``: 'Spieler', 'Kartendeck', 'Vorbereitung und
Austeilen', 'Ihr Zug', 'Mindestanforderung für die erste Meldung', 'Ausgehen', 'Punktewertung',
'Gewinnen', 'Häufige Varianten', 'Glossar') and ``VARIANTS.md canastra``, which decides.

States are complete and valid: ``table()`` takes the parts a test cares about and puts every
other card of the 108-card deck into the stock (or into a named hand when the stock must be
empty). Suit sequences (``canastra_real``) have their own file, ``test_canastra_real.py``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from canasta_referee.engine import api
from tests.builders import (
    ASK,
    BLACK_THREES,
    DECK,
    DRAW,
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
    wire_cards,
)

V = "canastra"

JACKS_CANASTRA = meld("JS", "JS", "JH", "JH", "JD", "JD", "JC")


def cst(hands: dict[int, list[str]] | None = None, **kwargs: Any) -> Data:
    """A complete, valid Canastra state."""
    return table(hands, variant=V, **kwargs)


def dealt(seed: int, dealer: int = 0) -> Data:
    return api.deal({"variant": V, "seed": seed, "dealer": dealer, "scores": [0, 0]})




# =============================================================================================
# 1. The rule table, its sources and options
# =============================================================================================


def test_rule_table() -> None:
    """VARIANTS.md canastra (every rule of the section); seed 003 throughout. The variant's rule
    table (GET /v1/variants/canastra) states the rules as data."""
    answer = api.variant(V)
    rules = answer["rules"]
    expected = {
        "players": 4, "sides": 2, "packs": 2, "jokers": 4, "hand_size": 11,
        "draw_count": 1,
        "min_naturals": 2,
        "canasta_size": 7, "natural_canasta_bonus": 200, "mixed_canasta_bonus": 100,
        "initial_minimums": [{"from_score": None, "minimum": 15},
                             {"from_score": 0, "minimum": 50},
                             {"from_score": 1500, "minimum": 90},
                             {"from_score": 3000, "minimum": 120}],
        "upcard": "bury",
        "freeze_on_wild": False, "freeze_on_red_three": False, "frozen_until_melded": False,
        "pile_add_alone": False, "pile_one_natural": True, "pile_needs_melded": False,
        "black_three_blocks": True, "black_three_meld": False,
        "red_three_bonus": 100, "red_three_bonus_all": [{"count": 4, "total": 800}],
        "red_three_negative": "never",
        "canastas_to_go_out": 1, "going_out_bonus": 100, "concealed_bonus": 200,
        "must_discard_to_go_out": False,
        "ask_partner": True, "ask_once_per_deal": True,
        "stock_exhausted": "end", "stock_exhausted_penalty": 0,
        "target": 3000, "sujo": False,
    }
    assert {k: rules[k] for k in expected} == expected
    assert rules["max_wilds"] >= 11  # no maximum: more than all the wild cards a hand can hold
    assert rules["card_values"] == {
        "JK": 50, "A": 20, "2": 20, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
        "7": 5, "6": 5, "5": 5, "4": 5, "3S": 5, "3C": 5, "3H": 0, "3D": 0}
    assert answer["players"] == [4]


def test_options() -> None:
    """VARIANTS.md canastra (options ``target``, ``sujo``, ``ask_partner``, the seed's freezing
    house rules as ``freeze``); seed 003 'Gewinnen', 'Ausgehen' 4, 'Kartendeck' and 'Häufige
    Varianten'. Four players only: a ``players`` option does not exist."""
    options = {o["name"]: o for o in api.variant(V)["options"]}
    assert {"target", "sujo", "ask_partner", "freeze"} <= set(options)
    assert (options["target"]["default"], 3000 in options["target"]["allowed"]) == (3000, True)
    assert (options["sujo"]["default"], options["sujo"]["allowed"]) == (False, [False, True])
    assert (options["ask_partner"]["default"], options["ask_partner"]["allowed"]) == (
        True, [False, True])
    assert options["freeze"]["default"] == "none" and set(options["freeze"]["allowed"]) >= {
        "none", "wild"}
    with pytest.raises(api.OpError) as caught:
        api.variant(V, {"players": 4})
    assert caught.value.code == "UNKNOWN_OPTION"
    with pytest.raises(api.OpError) as caught:
        api.variant(V, {"freeze": "black-three"})
    assert caught.value.code == "BAD_OPTION_VALUE"
    rules = api.variant(V, {"target": 5000, "sujo": True, "ask_partner": False,
                            "freeze": "wild"})["rules"]
    assert (rules["target"], rules["sujo"], rules["ask_partner"], rules["freeze_on_wild"]) == (
        5000, True, False, True)


SEED_KEYS = ["players", "deck", "deal", "turn", "melds", "melds.wilds", "canasta", "initial_meld",
             "pile.take", "pile.blocked", "pile.frozen", "threes.red", "threes.black", "going_out",
             "going_out.ask", "going_out.concealed", "scoring", "target"]


def test_sources_cite_seed_003() -> None:
    """VARIANTS.md (introduction: every rule belongs in the rule table with its source) and
    VARIANTS.md canastra (seed 003). Each rule cites the canastra page of docs/ and the seed (the
    Canastra rule text; the empty stock, which it does not treat, says so), and a refusal names
    that source."""
    sources = api.variant(V)["rules"]["sources"]
    for key in SEED_KEYS:
        assert sources[key].startswith("docs/variants/canastra.md#"), (key, sources[key])
        assert "(Canastra rule text, '" in sources[key], (key, sources[key])
    assert "the rule text is silent" in sources["stock_exhausted"]
    state = cst({0: ["3S", "3S", "3C", "9C"]}, melds=([JACKS_CANASTRA], []), turn=PLAY)
    verdict = api.check({"state": state, "actions": [lay("3S", "3S", "3C")]})
    assert verdict["reason"]["code"] == "BLACK_THREES_NOT_MELDABLE"
    assert verdict["reason"]["rule"] == sources["threes.black"]


# =============================================================================================
# 2. The deal
# =============================================================================================


def test_deal_eleven_cards_each_first_player_left_of_dealer() -> None:
    """seed 003 'Spieler' (four in two partnerships), 'Kartendeck' (108 cards) and 'Vorbereitung
    und Austeilen' 2 ('teilt jedem Spieler im Uhrzeigersinn einzeln 11 Karten aus'); VARIANTS.md
    canastra. The player left of the dealer starts."""
    for dealer in range(4):
        state = dealt(11, dealer)["state"]
        assert [len(h) for h in state["hands"]] == [11, 11, 11, 11]
        assert state["turn"]["seat"] == (dealer + 1) % 4
        assert state["turn"]["phase"] == "draw"
        assert wire_cards(state) == DECK
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


def test_upcard_wild_or_red_three_buried_in_the_stock() -> None:
    """seed 003 'Vorbereitung und Austeilen' 3 ('Ist die aufgedeckte Karte ein Joker, eine Zwei oder
    eine rote Drei, vergraben Sie sie sofort im Talon und drehen eine neue Karte um'); VARIANTS.md
    canastra ('this does not freeze the pile'). The pile starts with one plain card; the buried
    card is back in the stock; nothing is set aside."""
    found = 0
    for seed in range(200):
        answer = dealt(seed)
        state = answer["state"]
        pile = state["discard"]
        assert len(pile) == 1, (seed, pile)
        assert not is_wild(pile[0]) and pile[0] not in RED_THREES, (seed, pile)
        assert state.get("set_aside", []) == []
        buried = [c for e in events_of(answer, "upcard-buried") for c in e["cards"]]
        assert all(is_wild(c) or c in RED_THREES for c in buried), seed
        stock = Counter(state["stock"])
        for card in set(buried):
            in_play = sum(h.count(card) for h in state["hands"]) + stock[card] + sum(
                b.count(card) for b in state["bonus_cards"])
            assert in_play == DECK[card], (seed, card)
        assert wire_cards(state) == DECK, seed
        found += bool(buried)
    assert found >= 2, "the seed range must contain deals with a wild or red three upcard"


def test_black_three_upcard_stays_and_stops_the_first_player() -> None:
    """seed 003 'Vorbereitung und Austeilen' 3 (only a joker, two or red three is buried) and
    'Kartendeck' (black threes are stoppers); VARIANTS.md canastra."""
    for seed in range(400):
        state = dealt(seed)["state"]
        if state["discard"][0] in BLACK_THREES:
            break
    else:
        raise AssertionError("no deal with a black three upcard in the seed range")
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []
    assert_legal(state, DRAW)


def test_dealt_red_threes_laid_out_and_replaced() -> None:
    """seed 003 'Vorbereitung und Austeilen' 4 ('Wer eine rote Drei zugeteilt bekommt, legt sie
    sofort offen vor sich aus und zieht eine Ersatzkarte vom Talon'); VARIANTS.md canastra."""
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
    assert seen > 0, "the seed range must contain dealt red threes"


def test_red_three_never_lies_in_the_pile() -> None:
    """seed 003 'Vorbereitung und Austeilen' 3 and 'Kartendeck' ('Rote Dreien ... werden nie in
    Meldungen gespielt und werden sofort abgelegt'); VARIANTS.md canastra, Upcard. A red three
    turned up is buried in the stock and red threes are never discarded, so a pile holding one
    is not a Canastra state."""
    state = cst({0: ["9C", "4C"]})
    for card in ("3H", "9D", "KH"):
        state["stock"].remove(card)
    state["discard"] = ["3H", "9D", "KH"]
    codes = [p["code"] for p in api.validate({"state": state})["problems"]]
    assert codes == ["RED_THREE_IN_PILE"]


# =============================================================================================
# 3. The turn: draw one card
# =============================================================================================


def test_draw_one_card_meld_discard() -> None:
    """seed 003 'Ihr Zug' 1 ('Nehmen Sie die oberste Karte des Talons'), 2 and 4 ('Beenden Sie Ihren
    Zug, indem Sie eine Karte offen auf den Ablagestapel legen'); VARIANTS.md canastra. One card
    is drawn; one discard passes the turn clockwise."""
    state = cst({3: ["KD", "KC", "KH", "9C", "4C"]}, melds=([], [NINES]), stock_top=["QS", "5S"],
                turn={"seat": 3})
    size = len(state["stock"])
    new = after(state, DRAW)
    assert hand_of(new, 3) == ["4C", "9C", "KC", "KD", "KH", "QS"]
    assert len(new["stock"]) == size - 1 and new["stock"][0] == "5S"
    new = after(new, lay("KD", "KC", "KH"), discard("9C"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (0, "draw")
    assert new["discard"][-1] == "9C"


@pytest.mark.parametrize("top, reds", [(["3H", "KS"], ["3H"]), (["3H", "3D", "KS"], ["3D", "3H"])])
def test_red_three_drawn_laid_out_and_replaced(top: list[str], reds: list[str]) -> None:
    """seed 003 'Ihr Zug' 5 ('Wenn Sie während Ihres Zuges eine rote Drei vom Talon gezogen haben,
    legen Sie sie offen aus und ziehen eine Ersatzkarte'); VARIANTS.md canastra."""
    state = cst({1: ["9C", "4C"]}, stock_top=top, turn={"seat": 1})
    size = len(state["stock"])
    new = after(state, DRAW)
    assert sorted(new["bonus_cards"][1]) == reds and new["bonus_cards"][0] == []
    assert hand_of(new, 1) == ["4C", "9C", "KS"]
    assert len(new["stock"]) == size - len(top)


# =============================================================================================
# 4. Taking the pile
# =============================================================================================


@pytest.mark.parametrize("cards, melds, k_meld", [
    (["KD", "KC"], [NINES], ["KC", "KD", "KH"]),                      # natural pair: new meld
    (["KD", "JK"], [NINES], ["JK", "KD", "KH"]),                      # natural and wild: new meld
    (["KD"], [NINES, K3], ["KD", "KH", "KH", "KS", "KS"]),            # one natural onto the meld
    (["KD", "KC"], [NINES, K3], ["KC", "KD", "KH", "KH", "KS", "KS"]),  # a pair onto the meld
])
def test_take_pile_with_at_least_one_natural(cards: list[str], melds: list[Data],
                                             k_meld: list[str]) -> None:
    """seed 003 'Ihr Zug' 1 ('nehmen Sie den gesamten Ablagestapel, vorausgesetzt, Sie können seine
    oberste Karte sofort mit mindestens einer natürlichen Karte aus Ihrer Hand melden (eine neue
    Meldung aus 3+ Karten bilden oder eine bestehende Teammeldung erweitern)'); VARIANTS.md
    canastra. The top card is melded at once, the rest of the pile goes to the hand."""
    hand = ["KD", "KC", "JK", "4C"]
    state = cst({0: hand}, discard=["9C", "5D", "KH"], melds=(melds, []))
    new = after(state, take(*cards))
    assert side_melds(new, 0)["K"] == k_meld
    assert hand_of(new, 0) == sorted([c for c in hand if c not in cards] + ["5D", "9C"])
    assert new["discard"] == [] and new["turn"]["took_pile"] is True


@pytest.mark.parametrize("cards, melds, code", [
    ([], ([NINES, K3], []), "PILE_NEEDS_A_NATURAL"),                   # the top card alone
    ([], ([NINES], []), "PILE_NEEDS_A_NATURAL"),
    (["2C", "JK"], ([NINES, K3], []), "PILE_CARDS_DO_NOT_MATCH"),      # wild cards alone
    (["JK"], ([NINES, K3], []), "PILE_CARDS_DO_NOT_MATCH"),            # one wild onto the meld
    (["KD"], ([NINES], []), "NO_MELD_TO_ADD_TO"),                      # two cards are no new meld
    (["KD"], ([NINES], [K3]), "NO_MELD_TO_ADD_TO"),                    # the opponents' meld
    (["QD", "QC"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),          # a pair of another rank
])
def test_take_pile_refused_without_a_natural_from_hand(cards: list[str], melds: Any,
                                                       code: str) -> None:
    """seed 003 'Ihr Zug' 1 ('Sie können den Ablagestapel nicht ausschließlich mit wilden Karten als
    natürliche Übereinstimmung aufnehmen'); VARIANTS.md canastra ('never with wild cards alone').
    Without a natural of the top card's rank from the hand -- melding a new meld of three or more
    or extending the side's own meld -- the pile is not taken."""
    state = cst({0: ["KD", "KC", "QD", "QC", "2C", "JK", "4C"]}, discard=["9C", "KH"], melds=melds)
    assert refused(state, take(*cards)) == (0, code)


def test_pile_not_frozen_for_a_side_that_has_not_melded() -> None:
    """seed 003 'Ihr Zug' 1 (no freezing rule) and 'Mindestanforderung für die erste Meldung';
    VARIANTS.md canastra ('The seed's freezing house rules are options (freeze: none default)').
    A side without a meld may take the pile with a natural and a wild for its initial meld:
    top A + A + joker = 20 + 20 + 50 = 90 meets 90 at a score of 1,500."""
    state = cst({0: ["AD", "JK"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]),
                scores=(1500, 0))
    answer = run(state, take("AD", "JK"))
    assert side_melds(answer["state"], 0)["A"] == ["AD", "AH", "JK"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [(90, 90)]
    assert hand_of(answer["state"], 0) == ["6C", "8D", "9C"]


def test_wild_in_the_pile_does_not_freeze_it() -> None:
    """seed 003 'Kartendeck' ('manche Gruppen behandeln alle Ablagen als eingefroren ... Hausregel
    vereinbaren') and 'Häufige Varianten: Einfrierregeln'; VARIANTS.md canastra (``freeze``:
    ``none`` by default). A wild card inside the pile does not freeze it."""
    state = cst({0: ["KD", "KC", "JK", "9C", "4C"]}, discard=["9C", "2C", "5D", "KH"],
                melds=([NINES, K3], []))
    assert_legal(state, take("KD", "JK"))
    assert_legal(state, take("KD"))
    assert_legal(state, take("KD", "KC"))


def test_freeze_option_wild_in_the_pile_needs_a_natural_pair() -> None:
    """seed 003 'Häufige Varianten: Einfrierregeln' ('In einigen Häusern wird der Stapel durch ...
    eine wilde Karte „eingefroren", d. h. er kann nicht mit einem natürlichen Paar aus der Hand
    aufgenommen werden' -- read, as the glossary 'Einfrieren' says, as: only with a natural pair);
    VARIANTS.md canastra (option ``freeze: wild``). A wild card in the pile freezes it: one natural,
    or a natural and a wild, are refused; a natural pair takes it."""
    state = cst({0: ["KD", "KC", "JK", "9C", "4C"]}, discard=["9C", "2C", "5D", "KH"],
                melds=([NINES, K3], []), options={"freeze": "wild"})
    assert refused(state, take("KD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take("KD")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]
    new = after(state, take("KD", "KC"))
    assert side_melds(new, 0)["K"] == ["KC", "KD", "KH", "KH", "KS", "KS"]


def test_freeze_option_wild_discarded_freezes_the_pile() -> None:
    """seed 003 'Häufige Varianten: Einfrierregeln'; VARIANTS.md canastra (option ``freeze:
    wild``). A wild card discarded freezes the pile for everyone until it is taken: covered by a
    king, the pile is still frozen for the next side (natural and wild refused)."""
    hands = {0: ["2C", "9C", "4C"], 1: ["KD", "8C", "6C"], 2: ["KC", "JK", "7C", "5C"]}
    melds = ([NINES, K3], [meld("AS", "AS", "AH")])
    for freeze, frozen in (("wild", True), ("none", False)):
        state = cst(hands, discard=["9H", "5D"], melds=melds, turn=PLAY, options={"freeze": freeze})
        state = after(state, discard("2C"), DRAW, discard("KD"))
        assert state["turn"]["seat"] == 2 and state["discard"][-2:] == ["2C", "KD"]
        if frozen:
            assert refused(state, take("KC", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
            assert refused(state, take("KC")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
        else:
            assert_legal(state, take("KC", "JK"))
            assert_legal(state, take("KC"))


def test_freeze_option_black_three_in_the_pile_needs_a_natural_pair() -> None:
    """seed 003 'Häufige Varianten: Einfrierregeln' ('In einigen Häusern wird der Stapel durch eine
    schwarze Drei oder eine wilde Karte „eingefroren"'); VARIANTS.md canastra (option ``freeze``:
    ``wild-or-black-three``, ruling of 2026-12-01). A black three covered in the pile still
    freezes it: only a natural pair of the top card's rank takes it; with ``wild`` it does not."""
    hands = {0: ["KD", "KC", "JK", "9C", "4C"]}
    pile = ["9D", "3S", "KH"]
    state = cst(hands, discard=pile, melds=([NINES, K3], []),
                options={"freeze": "wild-or-black-three"})
    assert refused(state, take("KD")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take("KD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]
    assert_legal(state, take("KD", "KC"))
    wild_only = cst(hands, discard=pile, melds=([NINES, K3], []), options={"freeze": "wild"})
    assert_legal(wild_only, take("KD"))


def test_freeze_option_black_three_discarded_freezes_for_everyone() -> None:
    """seed 003 'Kartendeck' (black threes stop the next player) and 'Häufige Varianten:
    Einfrierregeln'; VARIANTS.md canastra (``freeze: wild-or-black-three``: a black three
    discarded freezes the pile besides stopping the next player). Seat 3 discards a black three:
    seat 0 is stopped and covers it; the pile stays frozen: seat 1 needs a natural pair."""
    options = {"freeze": "wild-or-black-three"}
    hands = {3: ["3C", "8C", "6C"], 0: ["QH", "8D", "6D"], 1: ["QD", "QC", "JK", "7C"]}
    melds = ([NINES], [meld("QS", "QS", "QH")])
    state = cst(hands, discard=["9D", "KH"], melds=melds, turn={"seat": 3, **PLAY},
                options=options)
    state = after(state, discard("3C"))
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    state = after(state, DRAW, discard("QH"))
    assert state["turn"]["seat"] == 1 and state["discard"][-2:] == ["3C", "QH"]
    assert refused(state, take("QD")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take("QD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert_legal(state, take("QD", "QC"))
    unfrozen = {**state, "options": {"freeze": "wild"}}
    assert_legal(unfrozen, take("QD"))


def test_freeze_option_always_needs_a_natural_pair() -> None:
    """seed 003 'Kartendeck' ('manche Gruppen behandeln alle Ablagen als eingefroren' -- house
    rule); VARIANTS.md canastra (``freeze: always``, ruling of 2026-12-01). Every pile is frozen:
    adding the top card with one natural, or a natural and a wild, is refused."""
    state = cst({0: ["KD", "KC", "JK", "9C", "4C"]}, discard=["9D", "5D", "KH"],
                melds=([NINES, K3], []), options={"freeze": "always"})
    assert refused(state, take("KD")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert refused(state, take("KD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]
    assert api.variant(V, {"freeze": "always"})["rules"]["pile_always_frozen"] is True


@pytest.mark.parametrize("wild", ["2C", "JK"])
def test_wild_card_on_top_cannot_be_taken_and_cites_its_rule(wild: str) -> None:
    """seed 003 'Ihr Zug' 1 (the top card is melded with natural cards of its rank; a wild card
    has no rank); VARIANTS.md canastra (ruling of 2026-12-01: cite 'Ihr Zug' 1, not the
    black-three sentence); issue 15 defect 5."""
    state = cst({0: ["KD", "KC", wild, "9C"]}, discard=["9D", "KH", wild],
                melds=([NINES, K3], []))
    verdict = api.check({"state": state, "actions": [take("KD", "KC")]})
    assert verdict["reason"]["code"] == "PILE_BLOCKED_BY_WILD"
    assert "Ihr Zug" in verdict["reason"]["rule"] and "schwarze" not in verdict["reason"]["rule"]
    assert verdict["reason"]["rule"] != api.variant(V)["rules"]["sources"]["pile.blocked"]
    assert takes_listed(state) == []


@pytest.mark.parametrize("black", BLACK_THREES)
def test_black_three_discarded_stops_the_next_player(black: str) -> None:
    """seed 003 'Kartendeck' ('Schwarze Dreien sind Stopper: Wenn sie oben auf dem Ablagestapel
    abgelegt werden, „frieren" sie den Stapel ein, sodass der nächste Spieler ihn nicht aufnehmen
    kann') and 'Glossar'; VARIANTS.md canastra."""
    state = cst({3: [black, "8C", "6C"], 0: ["KD", "KC", "JK", "9C"]}, discard=["9D", "KH"],
                melds=([NINES, K3], []), turn={"seat": 3, **PLAY})
    state = after(state, discard(black))
    assert state["turn"]["seat"] == 0
    for cards in ([], ["KD"], ["KD", "KC"], ["KD", "JK"]):
        assert refused(state, take(*cards)) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []
    assert_legal(state, DRAW)


def test_covered_black_three_no_longer_stops() -> None:
    """seed 003 'Kartendeck' and 'Glossar' ('Schwarze Drei: Eine Stoppkarte; wenn sie abgelegt wird,
    kann der nächste Spieler den Ablagestapel nicht aufnehmen'); VARIANTS.md canastra ('stop the
    next player'). Covered, the black three stops nobody; it joins the taker's hand."""
    state = cst({0: ["KD", "KC", "9C"]}, discard=["9D", "3S", "KH"], melds=([NINES, K3], []))
    new = after(state, take("KD"))
    assert hand_of(new, 0) == ["3S", "9C", "9D", "KC"]


def test_one_card_in_hand_may_take_a_one_card_pile() -> None:
    """seed 003 'Ihr Zug' 1 and 'Ausgehen' 2; VARIANTS.md canastra ('take the whole pile if its top
    card can be melded at once with at least one natural card from the hand'; going out 'with or
    without a final discard'). The canastra rules set no one-card restriction (a classic rule,
    VARIANTS.md classic, Discard pile): holding one king, a one-card pile with a king on top is
    taken onto the side's meld -- and, the side having a canastra, that goes out."""
    state = cst({0: ["KD"]}, discard=["KH"], melds=([JACKS_CANASTRA, K3], []))
    new = after(state, take("KD"))
    assert side_melds(new, 0)["K"] == ["KD", "KH", "KH", "KS", "KS"]
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


# =============================================================================================
# 5. Melds and canastras
# =============================================================================================

MELD_HAND = ["KH", "KD", "KS", "QD", "JS", "2C", "2D", "2H", "JK", "JK", "JK", "4C", "6C", "7C"]


@pytest.mark.parametrize("cards, code", [
    (["KH", "KD", "KS"], None),                                    # three naturals
    (["KH", "KD", "2C"], None),                                    # two naturals and a wild
    (["KH", "KD", "2C", "2D", "JK"], None),                        # 2 + 3
    (["KH", "KD", "2C", "2D", "2H", "JK", "JK", "JK"], None),      # 2 + 6: no maximum
    (["KH", "2C", "JK"], "TOO_FEW_NATURALS"),                      # one natural only
    (["KH", "KD"], "MELD_TOO_SMALL"),                              # two cards
    (["KH", "QD", "JS"], "NOT_A_VALID_MELD"),                      # one rank only
])
def test_meld_shape(cards: list[str], code: str | None) -> None:
    """seed 003 'Ihr Zug' 2 ('Eine Meldung besteht aus drei oder mehr Karten gleichen Werts; sie darf
    wilde Karten enthalten, muss aber mindestens zwei natürliche Karten haben'); VARIANTS.md
    canastra ('wild cards allowed (the seed sets no maximum)')."""
    state = cst({0: MELD_HAND}, melds=([NINES], []), turn=PLAY)
    if code is None:
        new = after(state, lay(*cards))
        assert side_melds(new, 0)["K"] == sorted(cards)
    else:
        assert refused(state, lay(*cards)) == (0, code)


@pytest.mark.parametrize("rank, code", [("K", "TOO_FEW_NATURALS"), (None, "RANK_NEEDED")])
def test_no_wild_only_melds(rank: str | None, code: str) -> None:
    """seed 003 'Ihr Zug' 2 ('muss aber mindestens zwei natürliche Karten haben'); VARIANTS.md
    canastra. Wild cards alone make no meld."""
    state = cst({0: ["2C", "2D", "JK", "4C", "6C", "7C"]}, melds=([NINES], []), turn=PLAY)
    assert refused(state, lay("2C", "2D", "JK", rank=rank)) == (0, code)


def test_wilds_added_to_a_meld_without_limit() -> None:
    """seed 003 'Ihr Zug' 2 ('erweitern Sie bestehende Meldungen Ihres Teams'); VARIANTS.md canastra
    (no wild maximum). A meld of two kings and two wilds takes three more wilds."""
    state = cst({0: ["2D", "JK", "JK", "4C", "6C", "7C"]},
                melds=([meld("KH", "KD", "2C", "2H")], []), turn=PLAY)
    new = after(state, lay("2D", "JK", "JK", rank="K"))
    assert side_melds(new, 0)["K"] == ["2C", "2D", "2H", "JK", "JK", "KD", "KH"]


@pytest.mark.parametrize("seat", [0, 2])
def test_one_meld_per_rank_per_side(seat: int) -> None:
    """seed 003 'Ihr Zug' 2 ('Ein Team darf nicht zwei separate Meldungen desselben Werts gleichzeitig
    haben; fügen Sie stattdessen der bestehenden Meldung hinzu'); VARIANTS.md canastra. More kings
    join the side's king meld, whichever partner lays them; the opponents' meld stays apart."""
    state = cst({seat: ["KC", "KC", "2C", "4C", "6C"]},
                melds=([meld("KH", "KD", "KS")], [meld("KH", "KD", "KS")]),
                turn={"seat": seat, **PLAY})
    new = after(state, lay("KC", "KC", "2C"))
    assert [m["rank"] for m in new["melds"][0]] == ["K"]
    assert side_melds(new, 0)["K"] == ["2C", "KC", "KC", "KD", "KH", "KS"]
    assert side_melds(new, 1)["K"] == ["KD", "KH", "KS"]


@pytest.mark.parametrize("cards, melded, bonus", [
    (SEVEN_KINGS, 70, 200),                                   # clean: 200 + 7 x 10 = 270
    (SEVEN_KINGS + ["KC"], 80, 200),                          # more cards added: still clean
    (["KS", "KS", "KH", "KH", "KD", "KD", "2C"], 80, 100),    # dirty: 100 + 6 x 10 + 20 = 180
    (["KS", "KS", "2C", "2D", "2H", "JK", "JK"], 180, 100),   # 2 + 5 wilds: 20 + 3 x 20 + 2 x 50
    (["KS", "KS", "KH", "KH", "KD", "KD"], 60, 0),            # six cards: no canastra yet
])
def test_canastra_bonus(cards: list[str], melded: int, bonus: int) -> None:
    """seed 003 'Ihr Zug' 3 ('Sobald eine Meldung sieben oder mehr Karten erreicht, wird sie zur
    Canastra ... Weitere Karten können noch hinzugefügt werden') and 'Punktewertung' ('Natürliche
    (reine) Canastra: 200 Punkte. Gemischte (schmutzige) Canastra ...: 100 Punkte'); VARIANTS.md
    canastra."""
    state = cst({0: ["4C"], 2: ["4C"]}, melds=([meld(*cards)], []))
    b = breakdown(state, 0)
    assert (b["melded_cards"], b["canasta_bonus"]) == (melded, bonus)


def test_black_threes_never_melded() -> None:
    """seed 003 'Kartendeck' (black threes are stoppers) and 'Glossar'; VARIANTS.md canastra (per
    the engine decision: never melded, BLACK_THREES_NOT_MELDABLE). Not even when going out; a
    black three may still be the last card discarded."""
    state = cst({0: ["3S", "3S", "3C"]}, melds=([JACKS_CANASTRA], []), turn=PLAY)
    assert refused(state, lay("3S", "3S", "3C")) == (0, "BLACK_THREES_NOT_MELDABLE")
    state = cst({0: ["3S", "3S", "3C", "3C", "9C"]}, melds=([JACKS_CANASTRA], []), turn=PLAY)
    assert refused(state, lay("3S", "3S", "3C", "3C")) == (0, "BLACK_THREES_NOT_MELDABLE")
    new = after(cst({0: ["3S"]}, melds=([JACKS_CANASTRA], []), turn=PLAY), discard("3S"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)


@pytest.mark.parametrize("seat, phase, went_out", [(0, "play", None), (0, "over", 0),
                                                  (1, "play", None)])
def test_validate_refuses_a_meld_of_black_threes(seat: int, phase: str, went_out: int | None,
                                                 ) -> None:
    """seed 003 'Kartendeck' (black threes are stoppers, never melded); VARIANTS.md canastra;
    issue 15 defect 3. A meld of black threes on the table is a problem whoever lies it with:
    the side to move, the side that went out, the other side."""
    state = cst({0: ["KD", "KC", "9C"]}, melds=([JACKS_CANASTRA], []), turn=PLAY)
    side = seat % 2
    state["melds"][side] = [*state["melds"][side], meld("3S", "3S", "3C", rank="3")]
    state["stock"] = [c for c in state["stock"]]
    for card in ("3S", "3S", "3C"):
        holder = next(i for i, h in enumerate(state["hands"]) if card in h) if any(
            card in h for h in state["hands"]) else None
        if holder is not None:
            state["hands"][holder].remove(card)
        else:
            state["stock"].remove(card)
    if phase == "over":
        state["hands"][0] = []
        state["stock"] += ["KD", "KC", "9C"]
        state["turn"] = {"seat": 0, "phase": "over", "went_out": went_out}
    problems = api.validate({"state": state})["problems"]
    codes = [(p["code"], p["path"]) for p in problems]
    assert ("BLACK_THREES_NOT_MELDABLE", f"/state/melds/{side}/{len(state['melds'][side]) - 1}"
            ) in codes, codes


# =============================================================================================
# 6. The initial meld
# =============================================================================================


BANDS = [  # (score before the deal, minimum)
    (-2000, 15), (-5, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120),
]


def _initial(score_before: int, melds: list[list[str]]) -> Data:
    hand = [c for m in melds for c in m] + JUNK
    return cst({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_exactly_the_minimum_is_accepted(score_before: int, minimum: int) -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' ('Punktestand unter 1500: Minimum 50 ...
    1500 bis 2999: Minimum 90 ... 3000 und darüber: Minimum 120 ... Negativer Teamstand: Minimum
    15'); VARIANTS.md canastra."""
    melds = OFFERS[minimum]
    answer = run(_initial(score_before, melds), *[lay(*m) for m in melds])
    assert "pending" not in answer["state"]["turn"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [
        (minimum, minimum)]


@pytest.mark.parametrize("score_before, minimum", [b for b in BANDS if b[1] > 15])
def test_initial_meld_below_the_minimum_is_refused(score_before: int, minimum: int) -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' and 'Tipps und Strategien' (a failed
    first meld); VARIANTS.md canastra. Five points short, or the band below's minimum, is refused."""
    below = {50: 15, 90: 50, 120: 90}[minimum]
    for melds in (SHORT[minimum], OFFERS[below]):
        state = _initial(score_before, melds)
        assert refused(state, *[lay(*m) for m in melds]) == (0, "INITIAL_MELD_UNREACHABLE")


def test_several_melds_in_one_turn_count_together() -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' ('Sie können dieses Minimum mit einer
    einzelnen großen Meldung oder mehreren kleineren Meldungen erfüllen, die im selben Zug
    ausgelegt werden'); VARIANTS.md canastra. 6-6-6 + K-K-K-2 = 15 + 50 = 65 >= 50."""
    state = _initial(0, [["6S", "6H", "6D"], ["KH", "KD", "KS", "2C"]])
    answer = run(state, lay("6S", "6H", "6D"), lay("KH", "KD", "KS", "2C"))
    assert sorted(m["rank"] for m in answer["state"]["melds"][0]) == ["6", "K"]
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [65]  # 15 + 30 + 20


def test_bonuses_do_not_count_toward_the_minimum() -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' ('Boni für Canastras und rote Dreien
    zählen NICHT zur Mindestanforderung'); VARIANTS.md canastra. A clean canastra of fives
    (35 points, +200) and four red threes (+800) do not make 50."""
    fives = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]
    state = cst({0: fives + JUNK}, melds=([], [NINES]), bonus=(["3H", "3H", "3D", "3D"], []),
                turn=PLAY)
    assert refused(state, lay(*fives)) == (0, "INITIAL_MELD_UNREACHABLE")


def test_no_concealed_exception_to_the_minimum() -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' ('Wenn Ihre Partnerschaft in einer Hand
    zum ersten Mal meldet, muss der Gesamtpunktwert der ausgelegten Karten ein Minimum erreichen
    ... Boni für Canastras ... zählen NICHT'); VARIANTS.md canastra (Initial meld: no exception)
    and common rules. The classic waiver for going out concealed is not a canastra rule: a clean
    canastra of fives (35 < 50) laid with the whole hand is still a first meld short of 50."""
    fives = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]
    state = cst({0: fives + ["4C"]}, melds=([], [NINES]), turn=PLAY)
    assert refused(state, lay(*fives), discard("4C")) == (0, "INITIAL_MELD_UNREACHABLE")


def test_initial_meld_with_the_pile_top_card_counts() -> None:
    """seed 003 'Mindestanforderung für die erste Meldung'; VARIANTS.md canastra ('when the pile is
    taken for it, the top card counts, the cards under it do not'). Top A + A A = 60 >= 50; with a
    top K, K K = 30 and two aces under it (which would make 70) the pile is refused."""
    state = cst({0: ["AD", "AC"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    answer = run(state, take("AD", "AC"))
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [60]  # 3 x 20
    assert hand_of(answer["state"], 0) == ["6C", "8D", "9C"]
    state = cst({0: ["KD", "KC"] + JUNK}, discard=["AS", "AS", "8D", "KH"], melds=([], [NINES]))
    assert refused(state, take("KD", "KC")) == (0, "INITIAL_MELD_UNREACHABLE")


# =============================================================================================
# 7. Going out
# =============================================================================================


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD")]),                  # the meld leaves one card: discarding empties
    (["KD", "KC"], [lay("KD", "KC")]),            # the meld empties the hand at once
    (["KD", "9C"], [lay("KD"), discard("9C")]),
    (["9C"], [discard("9C")]),
])
def test_no_going_out_without_canastra(hand: list[str], actions: list[Data]) -> None:
    """seed 003 'Ausgehen' 1 ('Ein Team darf ausgehen ... nur, wenn es mindestens eine Canastra
    abgeschlossen hat') and 'Tipps und Strategien'; VARIANTS.md canastra."""
    state = cst({0: hand}, melds=([K3], []), turn=PLAY)
    assert refused(state, *actions) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD"), discard("9C")]),   # with a final discard
    (["KD", "KC"], [lay("KD", "KC")]),            # without one
    (["9C"], [discard("9C")]),
])
def test_going_out_with_canastra(hand: list[str], actions: list[Data]) -> None:
    """seed 003 'Ausgehen' 1-2 ('Ein Spieler, der ausgeht, spielt oder meldet jede verbleibende
    Karte (mit der Option, eine Karte abzulegen oder keine)') and 'Punktewertung' ('Ausgehen: 100
    Punkte'); VARIANTS.md canastra. The partner keeps his cards (they count against the side)."""
    state = cst({0: hand, 2: ["4C"]}, melds=([JACKS_CANASTRA, K3], []),
                turn={**PLAY, "melded": [0, 2]})
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert new["hands"][0] == [] and new["hands"][2] == ["4C"]
    b = breakdown(new, 0)
    assert (b["going_out"], b["hand_cards"]) == (100, -5)
    assert breakdown(new, 1)["going_out"] == 0


CONCEALED_CASES = {
    # nothing melded before by this player; he lays a whole canastra and discards
    "own canastra": (dict(melds=([meld("QS", "QH", "QD")], []), turn={**PLAY, "melded": [2]}),
                     SEVEN_KINGS + ["9C"], [lay(*SEVEN_KINGS), discard("9C")], 200),
    # the side had not melded: the canastra (70 >= 50) is the initial meld too
    "side unmelded": (dict(melds=([], [NINES]), turn=PLAY), SEVEN_KINGS + ["9C"],
                      [lay(*SEVEN_KINGS), discard("9C")], 200),
    # he had melded earlier in the deal: not in one turn
    "melded earlier": (dict(melds=([meld("QS", "QH", "QD")], []), turn={**PLAY, "melded": [0, 2]}),
                       SEVEN_KINGS + ["9C"], [lay(*SEVEN_KINGS), discard("9C")], 100),
    # the partner's canastra lets him go out; his whole hand goes down in this turn
    "partner's canastra": (dict(melds=([JACKS_CANASTRA], []), turn={**PLAY, "melded": [2]}),
                           ["KD", "KC", "KH", "9C"], [lay("KD", "KC", "KH"), discard("9C")], 200),
    # part of his hand goes to the partner's meld, all of it in this turn
    "adds to partner's meld": (dict(melds=([JACKS_CANASTRA, meld("QS", "QH", "QD")], []),
                                    turn={**PLAY, "melded": [2]}),
                               ["KD", "KC", "KH", "QC", "9C"],
                               [lay("KD", "KC", "KH"), lay("QC"), discard("9C")], 200),
}


@pytest.mark.parametrize("case", list(CONCEALED_CASES))
def test_concealed_going_out_bonus(case: str) -> None:
    """seed 003 'Punktewertung' ('Ausgehen: 100 Punkte (200, wenn „verdeckt", also die Hand in einem
    Zug ausgelegt wird)'); VARIANTS.md canastra ('Bonus 100; 200 when the whole hand goes down in
    one turn (concealed)'). The seed's test is only that the player's whole hand goes down in one
    turn; the classic conditions (his own canasta, nothing added to the partner's melds) are not
    part of it."""
    kwargs, hand, actions, bonus = CONCEALED_CASES[case]
    state = cst({0: hand}, **kwargs)
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == bonus


# =============================================================================================
# 8. "May I go out?"
# =============================================================================================

CAN_GO_OUT = ["KD", "KC", "KH", "9C"]  # kings to meld, a nine to discard; the side has a canastra


def _asking(**kwargs: Any) -> Data:
    turn = {**PLAY, **kwargs.pop("turn", {})}
    return cst({kwargs.pop("seat", 0): CAN_GO_OUT}, melds=([JACKS_CANASTRA], []), turn=turn, **kwargs)


def test_ask_partner_yes_binds() -> None:
    """seed 003 'Ausgehen' 4 ('darf er seinen Partner einmal pro Hand fragen: „Darf ich ausgehen?"
    Der Partner antwortet mit Ja oder Nein; der Fragende muss sich daran halten'); VARIANTS.md
    canastra (``ask_partner`` default true; the answer binds). The partner (seat 2) answers; a yes
    obliges going out this turn."""
    state = after(_asking(), ASK)
    assert state["turn"]["phase"] == "answer"
    assert api.legal_actions({"state": state})["seat"] == 2
    state = after(state, answer(True))
    assert refused(state, discard("9C")) == (0, "MUST_GO_OUT")
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


def test_ask_partner_no_binds() -> None:
    """seed 003 'Ausgehen' 4 ('der Fragende muss sich daran halten'); VARIANTS.md canastra. A no
    forbids going out this turn."""
    state = after(_asking(), ASK, answer(False))
    assert refused(state, lay("KD", "KC", "KH")) == (0, "PARTNER_SAID_NO")
    new = after(state, discard("9C"))
    assert new["turn"]["seat"] == 1 and hand_of(new, 0) == ["KC", "KD", "KH"]


@pytest.mark.parametrize("seat, asked_before, ok", [
    (0, [0], False),     # seat 0 asked earlier in this deal: not again
    (2, [0], True),      # his partner has not asked yet
    (0, [2], True),
])
def test_ask_once_per_deal(seat: int, asked_before: list[int], ok: bool) -> None:
    """seed 003 'Ausgehen' 4 ('darf er seinen Partner einmal pro Hand fragen'); VARIANTS.md canastra
    ('once per deal'). Each player asks at most once in a deal."""
    state = _asking(seat=seat, turn={"seat": seat, "asked_this_deal": asked_before})
    if ok:
        assert after(state, ASK)["turn"]["phase"] == "answer"
    else:
        assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
        assert "ask" not in [a["type"] for a in legal_list(state)]


@pytest.mark.parametrize("when", ["after melding", "after taking the pile", "after a meld added"])
def test_ask_at_any_point_of_the_play_phase(when: str) -> None:
    """seed 003 'Ausgehen' 4 ('Bevor ein Spieler ausgeht, darf er seinen Partner einmal pro Hand
    fragen'); VARIANTS.md canastra (ruling of 2026-12-01: at any point of the play phase, after
    drawing or taking the pile, before or after melding, once per deal, while going out is still
    possible; a yes binds)."""
    if when == "after taking the pile":
        state = cst({0: ["KD", "KC", "QD", "QC", "QH", "9C"]}, discard=["KH"],
                    melds=([JACKS_CANASTRA], []))
        state = after(state, take("KD", "KC"))
        finish = [lay("QD", "QC", "QH"), discard("9C")]
    elif when == "after melding":
        state = cst({0: ["KD", "KC", "KH", "QD", "QC", "QH", "9C"]}, melds=([JACKS_CANASTRA], []),
                    turn=PLAY)
        state = after(state, lay("KD", "KC", "KH"))
        finish = [lay("QD", "QC", "QH"), discard("9C")]
    else:
        state = cst({0: ["KD", "QD", "QC", "QH", "9C"]}, melds=([JACKS_CANASTRA, K3], []),
                    turn=PLAY)
        state = after(state, lay("KD"))
        finish = [lay("QD", "QC", "QH"), discard("9C")]
    yes = after(state, ASK, answer(True))
    assert yes["turn"]["asked"] == "yes"
    assert after(yes, *finish)["turn"]["went_out"] == 0
    assert refused(after(state, ASK, answer(False)), *finish)[1] == "PARTNER_SAID_NO"


def test_ask_during_play_only_while_going_out_is_possible() -> None:
    """seed 003 'Ausgehen' 4 (a yes binds); VARIANTS.md canastra (ruling of 2026-12-01: 'provided
    he could still go out this turn'). After melding, a hand of two odd cards cannot go out."""
    state = cst({0: ["KD", "KC", "KH", "9C", "5D"]}, melds=([JACKS_CANASTRA], []), turn=PLAY)
    state = after(state, lay("KD", "KC", "KH"))
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    assert "ask" not in [a["type"] for a in legal_list(state)]


def test_no_ask_when_a_no_would_leave_no_way_to_end_the_turn() -> None:
    """seed 003 'Ausgehen' 4 (the answer binds) and 'Ihr Zug' 4 (the turn ends with a discard);
    VARIANTS.md canastra (ruling of 2026-12-01). Melded down to one card, the player could go out,
    but after a no he could neither go out nor discard and keep a card: he may not ask (found by
    the property tests as a state with no legal action)."""
    state = after(_asking(), lay("KD", "KC", "KH"))
    assert hand_of(state, 0) == ["9C"]
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    assert after(state, discard("9C"))["turn"]["went_out"] == 0


def test_ask_partner_option_off() -> None:
    """seed 003 'Ausgehen' 4 ('Vereinbaren Sie vor dem Spiel, ob dies erlaubt ist (manche Gruppen
    verbieten es)'); VARIANTS.md canastra (option ``ask_partner``). With the option off, asking
    is refused; going out needs no permission."""
    state = _asking(options={"ask_partner": False})
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    new = after(state, lay("KD", "KC", "KH"), discard("9C"))
    assert new["turn"]["went_out"] == 0


# =============================================================================================
# 9. The stock runs out
# =============================================================================================


def _empty_stock(hand: list[str], pile: list[str], melds: Any, stock: list[str] | None = None,
                 ) -> Data:
    """Seat 0 to draw from an (almost) empty stock; seat 1 holds every card nobody named."""
    return cst({0: hand}, discard=pile, melds=melds, stock=stock or [], rest_to=1)


def test_draw_from_empty_stock_ends_the_deal() -> None:
    """VARIANTS.md canastra ('A player who must draw from an empty stock ends the deal'; seed 003
    does not treat it). Even when the pile's top card fits the side's meld, the player is not
    made to take it (the classic obligation, MUST_TAKE_PILE, does not apply): drawing ends the
    deal, scored normally."""
    state = _empty_stock(["KD", "9C", "4C"], ["8D", "KH"], ([K3], []))
    assert "draw" in [a["type"] for a in legal_list(state)]
    answer = run(state, DRAW)
    turn = answer["state"]["turn"]
    assert turn["phase"] == "over"
    assert (turn["stock_exhausted"], turn["went_out"]) == (True, None)
    for side in (0, 1):
        b = breakdown(answer["state"], side)
        assert (b["going_out"], b["penalties"]) == (0, 0)


def test_last_stock_card_play_goes_on() -> None:
    """VARIANTS.md canastra (empty stock); seed 003 'Ihr Zug'. Drawing the last card is a normal
    turn; the next player then faces the empty stock and drawing ends the deal."""
    state = _empty_stock(["9C", "4C"], ["8D", "4D"], ([K3], []), stock=["QH"])
    new = after(state, DRAW)
    assert new["turn"]["phase"] == "play" and new["stock"] == []
    new = after(new, discard("QH"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (1, "draw")
    new = after(new, DRAW)
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)


def test_red_three_as_last_stock_card_ends_the_deal() -> None:
    """seed 003 'Ihr Zug' 5 (a red three drawn is laid out and replaced); VARIANTS.md canastra ('A
    player who must draw from an empty stock ends the deal'). A red three as the last stock card
    is laid out; its replacement would come from the empty stock, so the deal ends."""
    state = _empty_stock(["KD", "KC", "9C"], ["8D", "4D"], ([K3], []), stock=["3H"])
    new = after(state, DRAW)
    assert "3H" in new["bonus_cards"][0]
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)
    assert hand_of(new, 0) == ["9C", "KC", "KD"]


# =============================================================================================
# 10. Scoring and the end of the game
# =============================================================================================

KEYS = {"melded_cards", "hand_cards", "canasta_bonus", "bonus_cards", "going_out", "penalties",
        "total"}


def _golden(scores: tuple[int, int] = (1200, 2500), options: Data | None = None) -> Data:
    """Seat 0 went out (side 0, not concealed); side 1 made no meld."""
    return cst(
        {0: [], 2: ["AS", "9D"], 1: ["JK", "3S"], 3: ["4C", "5C", "7C"]},
        melds=([meld("KS", "KS", "KH", "KH", "KD", "KD", "KC", "KC"),
                meld("QS", "QH", "QD", "2C", "2D", "JK", "JK"),
                meld("6S", "6H", "6D")], []),
        bonus=(["3H", "3H", "3D", "3D"], []), discard=["8S", "TD"], scores=scores,
        options=options,
        turn={"seat": 0, "phase": "over", "went_out": 0, "concealed": False,
              "partner_melded": True, "stock_exhausted": False})


def test_scoring_golden_example() -> None:
    """seed 003 'Punktewertung' ('Natürliche (reine) Canastra: 200 ... Gemischte (schmutzige)
    Canastra: 100 ... Ausgehen: 100 ... alle vier roten Dreien zusammen: 800 ... Joker = 50, Ass =
    20, 2 = 20, Karten 8 bis König = 10, Karten 4 bis 7 und schwarze Drei = 5 ... Handauswertung');
    VARIANTS.md canastra."""
    answer = score(_golden())
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 265,   # kings 8 x 10 = 80; queens 3 x 10 + 2 x 20 + 2 x 50 = 170; sixes 15
        "hand_cards": -30,     # seat 2: A 20 + 9 10
        "canasta_bonus": 300,  # clean kings 200 (eight cards) + dirty queens 100 (four wilds)
        "bonus_cards": 800,    # all four red threes
        "going_out": 100,
        "penalties": 0,
        "total": 1435,         # 265 - 30 + 300 + 800 + 100
    }
    assert side1 == {
        "melded_cards": 0,
        "hand_cards": -70,     # seat 1: joker 50 + black three 5; seat 3: 4 + 5 + 7 = 15
        "canasta_bonus": 0,
        "bonus_cards": 0,
        "going_out": 0,
        "penalties": 0,
        "total": -70,
    }
    assert answer["scores"] == [2635, 2430]  # 1200 + 1435; 2500 - 70
    assert (answer["game_over"], answer["winner"]) == (False, None)
    assert answer["next_minimums"] == [90, 90]
    for side in answer["sides"]:
        assert set(side["breakdown"]) >= KEYS
        assert side["total"] == sum(v for k, v in side["breakdown"].items() if k != "total")


def test_scoring_golden_concealed() -> None:
    """seed 003 'Punktewertung' ('200, wenn „verdeckt"'); VARIANTS.md canastra. Seat 2 goes out
    concealed from a side that had not melded: seven aces and four fives, then a discard."""
    aces = ["AS", "AS", "AH", "AH", "AD", "AD", "AC"]
    state = cst({2: aces + ["5S", "5H", "5D", "5C", "9C"], 0: ["KD", "QD"]}, melds=([], [NINES]),
                bonus=(["3H"], []), scores=(500, 0), turn={"seat": 2, **PLAY})
    new = after(state, lay(*aces), lay("5S", "5H", "5D", "5C"), discard("9C"))
    assert new["turn"]["went_out"] == 2
    b = breakdown(new, 0)
    assert b == {
        "melded_cards": 160,   # aces 7 x 20 = 140; fives 4 x 5 = 20
        "hand_cards": -20,     # seat 0: K 10 + Q 10
        "canasta_bonus": 200,  # clean aces
        "bonus_cards": 100,    # one red three
        "going_out": 200,      # concealed
        "penalties": 0,
        "total": 640,          # 160 - 20 + 200 + 100 + 200
    }


@pytest.mark.parametrize("reds, melded, expected", [
    (["3H"], True, 100),
    (["3H", "3D"], True, 200),
    (["3H", "3D", "3D"], True, 300),
    (["3H", "3H", "3D", "3D"], True, 800),     # all four: 800
    (["3H"], False, 100),                      # never minus, even without a meld
    (["3H", "3H", "3D", "3D"], False, 800),
    ([], True, 0),
])
def test_red_three_bonus(reds: list[str], melded: bool, expected: int) -> None:
    """seed 003 'Punktewertung' ('Jede rote Drei vor Ihrem Team: 100 Punkte (alle vier roten Dreien
    zusammen: 800 Punkte gesamt)') and 'Tipps und Strategien' ('Rote Dreien sind reine Geschenke');
    VARIANTS.md canastra. They never count minus."""
    state = cst({0: ["4C"], 2: ["4C"]}, melds=([NINES] if melded else [], []), bonus=(reds, []))
    assert breakdown(state, 0)["bonus_cards"] == expected


def _with_totals(totals: tuple[int, int], options: Data | None = None) -> Data:
    """A scored table whose game totals after the deal are ``totals``."""
    plain = cst({0: ["4C"], 2: ["4C"], 1: ["4D"], 3: ["4D"]}, melds=([NINES], [NINES]),
                options=options)
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [totals[0] - deal[0], totals[1] - deal[1]]
    return plain


@pytest.mark.parametrize("totals, game_over, winner", [
    ((3000, 2000), True, 0),      # exactly the target ends the game
    ((2995, 2990), False, None),
    ((3100, 3200), True, 1),      # both pass: the higher total wins
    ((3100, 3100), False, None),  # exact tie at or above the target: another deal
])
def test_game_to_3000(totals: tuple[int, int], game_over: bool, winner: int | None) -> None:
    """seed 003 'Gewinnen' ('Spielen Sie Hand für Hand, bis ein Team das Spielziel erreicht
    (üblicherweise 3000 ...). Wenn beide Teams in derselben Hand das Ziel überschreiten, gewinnt
    der höhere Punktestand'); VARIANTS.md canastra ('Target 3,000') and common rules (tie)."""
    answer = score(_with_totals(totals))
    assert answer["scores"] == list(totals)
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)


def test_target_option() -> None:
    """seed 003 'Ziel' ('andere Gruppen spielen bis 5000 oder 10000'); VARIANTS.md canastra (option
    ``target``). At 5,000 a total of 3,000 does not end the game."""
    answer = score(_with_totals((3000, 2000), {"target": 5000}))
    assert (answer["game_over"], answer["winner"]) == (False, None)
    answer = score(_with_totals((5000, 2000), {"target": 5000}))
    assert (answer["game_over"], answer["winner"]) == (True, 0)


@pytest.mark.parametrize("sujo, before, totals, game_over, winner", [
    # the golden deal scores +1435 / -70
    (False, (1600, 2500), [3035, 2430], True, 0),    # without sujo 3,035 wins
    (True, (1600, 2500), [1600, 2430], False, None),  # sujo: 3,035 overshoots, the deal does not
                                                      # count for side 0 (side 1's -70 does)
    (True, (1565, 2500), [3000, 2430], True, 0),      # sujo: 1565 + 1435 = 3,000 exactly wins
])
def test_sujo_target_hit_exactly(sujo: bool, before: tuple[int, int], totals: list[int],
                                 game_over: bool, winner: int | None) -> None:
    """seed 003 'Gewinnen' ('Bei der brasilianischen „Sujo"-Variante muss genau 3000 erreicht
    werden; wer überschießt, muss auf die nächste Gelegenheit warten'); VARIANTS.md canastra
    (option ``sujo``: 'a deal that would overshoot does not count': the side keeps its old
    total)."""
    answer = score(_golden(before, {"sujo": sujo}))
    assert [s["total"] for s in answer["sides"]] == [1435, -70]
    assert answer["scores"] == totals
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)
    assert answer["next_minimums"] == [50 if totals[0] < 1500 else
                                       (90 if totals[0] < 3000 else 120), 90]


@pytest.mark.parametrize("totals, minimums", [
    ((-5, 0), [15, 50]),
    ((1495, 1500), [50, 90]),
    ((2995, 3000), [90, 120]),
])
def test_next_initial_meld_minimums(totals: tuple[int, int], minimums: list[int]) -> None:
    """seed 003 'Mindestanforderung für die erste Meldung'; VARIANTS.md canastra. The score answer
    gives the next deal's minimums: 15 below 0, 50 below 1,500, 90 to 2,999, 120 from 3,000."""
    answer = score(_with_totals(totals, {"target": 5000}))
    assert answer["next_minimums"] == minimums


# =============================================================================================
# 11. Rules pinned after the audit: a natural and a wild onto the side's meld, the Canastra Real
#     and the initial minimum, a black three upcard under freeze: wild-or-black-three
# =============================================================================================


def test_take_pile_with_a_natural_and_a_wild_onto_the_sides_meld() -> None:
    """seed 003 'Ihr Zug' 1 ('vorausgesetzt, Sie können seine oberste Karte sofort mit mindestens
    einer natürlichen Karte aus Ihrer Hand melden (... oder eine bestehende Teammeldung
    erweitern)') and 2 (wild cards allowed); VARIANTS.md canastra ('extending a meld of the side;
    never with wild cards alone'). The top king, a natural king and a joker from the hand join the
    side's three kings: a meld of six; the rest of the pile goes to the hand."""
    hand = ["KD", "KC", "JK", "4C"]
    state = cst({0: hand}, discard=["9C", "5D", "KH"], melds=([NINES, K3], []))
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KD"], ["KC", "KD"], ["JK", "KD"]]
    answer = run(state, take("KD", "JK"))
    new = answer["state"]
    assert new["melds"][0] == [meld("9S", "9H", "9D"),
                               meld("KS", "KS", "KH", "KH", "KD", "JK")]
    assert side_melds(new, 0)["K"] == ["JK", "KD", "KH", "KH", "KS", "KS"]
    assert hand_of(new, 0) == ["4C", "5D", "9C", "KC"]
    assert new["discard"] == [] and new["turn"]["took_pile"] is True
    assert events_of(answer, "took-pile") == [
        {"type": "took-pile", "seat": 0, "top": "KH", "cards": ["KD", "JK"], "size": 3}]


REAL_HEARTS = ["AH", "KH", "QH", "JH", "TH", "9H", "8H"]  # 20 + 6 x 10 = 80 card points
REAL_SPADES = ["4S", "5S", "6S", "7S", "8S", "9S", "TS"]  # 4 x 5 + 3 x 10 = 50 card points


@pytest.mark.parametrize("cards, points, score_before, minimum", [
    (REAL_SPADES, 50, 1500, 90),
    (REAL_HEARTS, 80, 1500, 90),
    (REAL_HEARTS, 80, 3000, 120),
])
def test_canastra_real_below_the_initial_minimum_is_refused(cards: list[str], points: int,
                                                            score_before: int,
                                                            minimum: int) -> None:
    """seed 003 'Häufige Varianten' ('Canastra Real ... ergibt 500 Bonuspunkte und gilt als
    Canastra') and 'Mindestanforderung für die erste Meldung' ('Boni für Canastras ... zählen NICHT
    zur Mindestanforderung'); VARIANTS.md canastra (option `canastra_real`; the minimums). A
    Canastra Real as the side's first meld counts its card points only: short of the minimum it
    is refused (`INITIAL_MELD_UNREACHABLE`) and not listed, although 500 more would reach it; at
    a score of 1,495 (minimum 50) the same sequence is accepted with its card points."""
    options = {"canastra_real": True}
    real = {"type": "meld", "rank": "real", "cards": cards}
    state = cst({0: cards + ["KC", "QD", "5H"]}, melds=([], [NINES]), turn=PLAY,
                scores=(score_before, 0), options=options)
    assert refused(state, real) == (0, "INITIAL_MELD_UNREACHABLE")
    verdict = api.check({"state": state, "actions": [real]})
    assert f"minimum of {minimum}" in verdict["reason"]["message"]
    assert [a for a in legal_list(state) if a["type"] == "meld"] == []
    low = cst({0: cards + ["KC", "QD", "5H"]}, melds=([], [NINES]), turn=PLAY,
              scores=(1495, 0), options=options)
    answer = run(low, real)
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [(points, 50)]
    assert [m["rank"] for m in answer["state"]["melds"][0]] == ["real"]


def test_freeze_option_black_three_upcard_freezes_the_pile() -> None:
    """seed 003 'Vorbereitung und Austeilen' 3 (only a joker, two or red three turned up is
    buried: a black three stays) and 'Häufige Varianten' ('Einfrierregeln: In einigen Häusern wird
    der Stapel durch eine schwarze Drei oder eine wilde Karte „eingefroren"'); VARIANTS.md canastra
    (option `freeze: wild-or-black-three`); docs/variants/canastra.md 'The deal' and 'The frozen
    pile' ('discarded, or turned up at the deal'). A black three upcard stops the first player
    and freezes the pile (the view says so; with `freeze: wild` it does not): covered by a king,
    the next player needs a natural pair; with `wild` a natural and a joker take it."""
    options = {"freeze": "wild-or-black-three"}
    for seed in range(400):
        dealt_state = api.deal({"variant": V, "seed": seed, "dealer": 0, "scores": [0, 0],
                                "options": options})["state"]
        if dealt_state["discard"][0] in BLACK_THREES:
            break
    else:
        raise AssertionError("no deal with a black three upcard in the seed range")
    upcard = dealt_state["discard"][0]
    assert dealt_state["discard"] == [upcard] and dealt_state["turn"]["seat"] == 1
    assert api.view({"state": dealt_state, "seat": 1})["state"]["discard"] == {
        "top": upcard, "size": 1, "frozen": True}
    assert refused(dealt_state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(dealt_state) == []
    unfrozen = {**dealt_state, "options": {"freeze": "wild"}}
    assert api.view({"state": unfrozen, "seat": 1})["state"]["discard"]["frozen"] is False

    hands = {0: ["KH", "8C", "6C"], 1: ["KD", "KC", "JK", "7C"]}
    state = cst(hands, discard=["3S"], options=options)  # the upcard, nothing played yet
    state = after(state, DRAW, discard("KH"))
    assert state["turn"]["seat"] == 1 and state["discard"] == ["3S", "KH"]
    assert refused(state, take("KD", "JK")) == (0, "PILE_FROZEN_NEEDS_NATURAL_PAIR")
    assert [sorted(a["cards"]) for a in takes_listed(state)] == [["KC", "KD"]]
    assert_legal(state, take("KD", "KC"))
    wild_only = after(cst(hands, discard=["3S"], options={"freeze": "wild"}), DRAW, discard("KH"))
    assert_legal(wild_only, take("KD", "JK"))


def test_ask_with_pending_melds_after_taking_the_pile() -> None:
    """seed 003 'Ausgehen' 4 (asking the partner once per hand) and 'Mindestanforderung für die
    erste Meldung'; VARIANTS.md canastra (ruling of 2026-12-01: a player may ask at any point of
    his play phase, after taking the pile too). An unopened side takes the pile with a pair of
    fours (15, pending below the minimum of 50) and asks: the state that waits for the answer
    holds the pending meld and is valid, and the turn goes on from it (found by a wider random
    run: the engine refused the very state its own ask had made, so nobody could answer)."""
    state = cst({0: ["4S", "4D", *SEVEN_FIVES, "KS", "KH", "KD", "9C"]}, discard=["4H"])
    state = after(state, take("4S", "4D"))
    assert pending_of(state) == {"4": ["4D", "4H", "4S"]}
    waiting = after(state, ASK)
    assert (waiting["turn"]["phase"], waiting["turn"]["asked"]) == ("answer", "waiting")
    assert pending_of(waiting) == {"4": ["4D", "4H", "4S"]}
    assert api.validate({"state": waiting})["problems"] == []
    assert [a["type"] for a in legal_list(waiting)] == ["answer", "answer"]
    out = after(waiting, answer(True), lay(*SEVEN_FIVES), lay("KS", "KH", "KD"), discard("9C"))
    assert (out["turn"]["phase"], out["turn"]["went_out"]) == ("over", 0)
    assert side_melds(out, 0) == {"4": ["4D", "4H", "4S"], "5": sorted(SEVEN_FIVES),
                                  "K": ["KD", "KH", "KS"]}
    no = after(waiting, answer(False), lay(*SEVEN_FIVES), discard("9C"))
    assert (no["turn"]["seat"], no["turn"]["phase"]) == (1, "draw")
    assert hand_of(no, 0) == ["KD", "KH", "KS"]


def test_no_ask_after_taking_the_pile_when_the_minimum_and_going_out_need_the_same_jokers() -> None:
    """seed 003 'Ausgehen' 4 (a yes binds) and 'Erstes Auslegen' (the pile's other cards join
    the hand once the initial meld stands); VARIANTS.md canastra ('provided he could still go out
    this turn'). Found by the wide random run (seed 7041, freeze wild-or-black-three): with the
    pile taken on three fours (15 of 120), the minimum from the hand alone needs both jokers on
    the sevens; going out then needs a canastra of the held fives (two wild cards short) and the
    eights (one short) with only the held joker left. Each step alone is possible, both are not:
    asking was listed and a yes left no legal action."""
    held = ["5D", "TS", "TH", "5S", "AS", "9D", "QH", "5H", "7D", "JK", "9C", "5C", "QS", "8C",
            "TH", "AH", "6C", "9C", "6C"]
    turn = {"phase": "play", "took_pile": True, "started": ["4"], "held": held,
            "pending": [{"rank": "4", "cards": ["4S", "4D", "4C"]}]}
    state = cst({0: ["5H", "6S", "7H", "7C", "8H", "QS", "AD", "JK", "JK"]}, turn=turn,
                scores=(3000, -200), options={"freeze": "wild-or-black-three"})
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    assert "ask" not in [a["type"] for a in legal_list(state)]
    # the minimum alone is still open (135 of 120): both jokers on the sevens
    assert_legal(state, lay("7H", "7C", "JK", "JK"))


@pytest.mark.parametrize("cards", [["KD"], ["KD", "KC"]])
def test_empty_stock_the_pile_may_not_be_taken(cards: list[str]) -> None:
    """seed 003 'Ihr Zug' 1 ('Nehmen Sie die oberste Karte des Talons ODER nehmen Sie den gesamten
    Ablagestapel'; the seed does not treat an empty stock); VARIANTS.md canastra ('A player who
    must draw from an empty stock ends the deal'). Unlike classic, the pile is no way on: its
    top king fits the side's kings and the hand holds kings, yet taking it is refused
    (STOCK_EXHAUSTED, citing the empty-stock rule) and drawing, which ends the deal, is the only
    action listed. With a card left in the stock the same take is legal and listed."""
    hand, pile = ["KD", "KC", "9C", "4C"], ["8D", "KH"]
    melds: tuple[list[Data], list[Data]] = ([K3], [])
    state = _empty_stock(hand, pile, melds)
    assert legal_list(state) == [{"type": "draw", "seat": 0}]
    assert takes_listed(state) == []
    assert refused(state, take(*cards)) == (0, "STOCK_EXHAUSTED")
    verdict = api.check({"state": state, "actions": [take(*cards)]})
    assert verdict["reason"]["rule"].startswith("docs/variants/canastra.md#when-the-stock-runs-out")
    ended = after(state, DRAW)
    assert (ended["turn"]["phase"], ended["turn"]["stock_exhausted"]) == ("over", True)
    assert hand_of(ended, 0) == sorted(hand) and ended["discard"] == pile
    control = _empty_stock(hand, pile, melds, stock=["QH"])
    assert_legal(control, take(*cards))
    assert sorted(cards) in [sorted(a["cards"]) for a in takes_listed(control)]


PILE_CONCEALED_CASES: dict[str, tuple[Data, list[str], list[Data], int]] = {
    # the partner's canastra lets him go out: the pile's king with two from the hand, the nine
    # under it discarded -- his whole hand goes down in this turn
    "partner's canastra": (dict(melds=([JACKS_CANASTRA], []), turn={"melded": [2]}),
                           ["KD", "KC"], [take("KD", "KC"), discard("9C")], 200),
    # the side had not melded: the pile's king and two from the hand (30, pending), four more
    # kings make a clean canastra of seven (70 >= 50); the held nine is discarded
    "pile for the initial meld": (dict(melds=([], [NINES])),
                                  ["KD", "KD", "KC", "KC", "KS", "KS"],
                                  [take("KD", "KC"), lay("KD", "KC", "KS", "KS"), discard("9C")],
                                  200),
    # the control: he had melded earlier in the deal, so not in one turn
    "melded earlier": (dict(melds=([JACKS_CANASTRA, meld("QS", "QH", "QD")], []),
                            turn={"melded": [0, 2]}),
                       ["KD", "KC"], [take("KD", "KC"), discard("9C")], 100),
}


@pytest.mark.parametrize("case", list(PILE_CONCEALED_CASES))
def test_concealed_going_out_in_a_turn_begun_by_taking_the_pile(case: str) -> None:
    """seed 003 'Punktewertung' ('Ausgehen: 100 Punkte (200, wenn „verdeckt", also die Hand in einem
    Zug ausgelegt wird)') and 'Ihr Zug' 1 (taking the whole pile instead of drawing); VARIANTS.md
    canastra ('Bonus 100; 200 when the whole hand goes down in one turn (concealed)'). The turn
    that begins by taking the pile counts as the one turn just as a stock draw does: the
    concealed bonus is 200 (CONCEALED_CASES start from a stock draw); having melded earlier in
    the deal it is 100."""
    kwargs, hand, actions, bonus = PILE_CONCEALED_CASES[case]
    state = cst({0: hand}, discard=["9C", "KH"], **kwargs)
    assert state["turn"]["phase"] == "draw"
    new = after(state, *actions)
    turn = new["turn"]
    assert (turn["phase"], turn["went_out"], turn["took_pile"]) == ("over", 0, True)
    assert turn["concealed"] is (bonus == 200)
    assert new["hands"][0] == []
    assert breakdown(new, 0)["going_out"] == bonus


@pytest.mark.parametrize("sujo, totals, scores, game_over, winner", [
    # each side's deal scores +20 (nines 30, hand -10)
    (True, (3000, 3000), [3000, 3000], False, None),   # both hit 3,000 exactly: another deal
    (False, (3000, 3000), [3000, 3000], False, None),  # the same without sujo
    (True, (3000, 3010), [3000, 2990], True, 0),       # side 1 overshoots: its deal does not
                                                       # count, so no tie: side 0 wins
    (False, (3000, 3010), [3000, 3010], True, 1),      # without sujo the higher total wins
])
def test_sujo_tie_at_exactly_the_target(sujo: bool, totals: tuple[int, int], scores: list[int],
                                        game_over: bool, winner: int | None) -> None:
    """seed 003 'Gewinnen' ('Bei der brasilianischen „Sujo"-Variante muss genau 3000 erreicht
    werden; wer überschießt, muss auf die nächste Gelegenheit warten') and 'Häufige Varianten'
    ('Sujo'); VARIANTS.md canastra (option ``sujo``) and the common rules ('an exact tie at or
    above the target means another deal is played'). Both sides hitting 3,000 exactly in the
    same deal tie: the game goes on, nobody wins; one side overshooting is no tie."""
    answer = score(_with_totals(totals, {"sujo": sujo}))
    assert [s["total"] for s in answer["sides"]] == [20, 20]
    assert answer["scores"] == scores
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)
