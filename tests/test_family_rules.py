"""Family Canasta, one test (or a small parametrized group) per rule.

Every test drives the engine at the JSON level (``engine.api``) and names its source: the part of
seed 002 (``shared/seeds/002_5d98470ab2e5a821.txt``) it follows and ``VARIANTS.md family``, which
decides where the seed is unclear. Seed 002 has no headed sections: its parts are cited as the
opening (players, cards, deal), the turn steps 1-4, the summary bullets ('Ziehen', 'Ablagestapel
aufnehmen', ...), 'Sonderregeln und Sonderfälle' (the bullets on the initial meld, red threes,
black threes, the empty stock and going out) and the closing scoring paragraph ('Abrechnung').

States are complete and valid: ``table()`` takes the parts a test cares about and puts every
other card of the 108-card deck into the stock (or into a named hand when the stock must be
empty).
"""

from __future__ import annotations

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
    SEVEN_KINGS,
    SHORT,
    Data,
    after,
    assert_legal,
    breakdown,
    discard,
    events_of,
    hand_of,
    is_wild,
    lay,
    legal_list,
    meld,
    refused,
    run,
    score,
    side_melds,
    table,
    take,
    takes_listed,
    wire_cards,
)

V = "family"



def fam(hands: dict[int, list[str]] | None = None, **kwargs: Any) -> Data:
    """A complete, valid Family Canasta state (four players unless ``options`` say else; the
    dealer is the last seat, so seat 0 plays first)."""
    players = (kwargs.get("options") or {}).get("players", 4)
    kwargs.setdefault("dealer", players - 1)
    return table(hands, variant=V, **kwargs)


def dealt(seed: int, dealer: int = 0, players: int = 4) -> Data:
    return api.deal({"variant": V, "seed": seed, "dealer": dealer,
                     "options": {"players": players}})




# =============================================================================================
# 1. The rule table, its sources and options
# =============================================================================================


def test_rule_table() -> None:
    """VARIANTS.md family (every rule of the section); seed 002 throughout. The variant's rule
    table (GET /v1/variants/family) states the rules as data."""
    answer = api.variant(V)
    rules = answer["rules"]
    expected = {
        "players": 4, "sides": 2, "packs": 2, "jokers": 4, "hand_size": 11,
        "draw_count": 2,                      # 'Du ziehst zwei Karten'
        "min_naturals": 2, "max_wilds": 2,    # 'höchstens zwei wilde ... mindestens zwei natürliche'
        "canasta_size": 7, "natural_canasta_bonus": 500, "mixed_canasta_bonus": 300,
        "initial_minimums": [{"from_score": None, "minimum": 50},
                             {"from_score": 1500, "minimum": 90},
                             {"from_score": 3000, "minimum": 120}],
        "upcard": "set_aside",
        "pile_needs_melded": True,
        "freeze_on_wild": False, "freeze_on_red_three": False, "frozen_until_melded": False,
        "black_three_blocks": True, "black_three_meld": True,
        "red_three_bonus": 100, "red_three_bonus_all": [{"count": 4, "total": 800}],
        "red_three_negative": "no_meld",
        "canastas_to_go_out": 1, "going_out_bonus": 100,
        "concealed_bonus": 100,               # no concealed bonus: going out is 100 either way
        "ask_partner": False,
        "must_discard_to_go_out": False,
        "stock_exhausted": "end_after_turn", "stock_exhausted_penalty": 0,
        "target": 5000,
    }
    assert {k: rules[k] for k in expected} == expected
    assert rules["card_values"] == {
        "JK": 50, "A": 20, "2": 20, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
        "7": 5, "6": 5, "5": 5, "4": 5, "3S": 5, "3C": 5, "3H": 0, "3D": 0}
    assert answer["players"] == [2, 3, 4]


@pytest.mark.parametrize("players, sides, hand", [(4, 2, 11), (3, 3, 13), (2, 2, 15)])
def test_players_option(players: int, sides: int, hand: int) -> None:
    """seed 002 opening ('Am besten spielt ihr zu viert ... zu zweit oder zu dritt, dann spielt
    jeder für sich'; '11 Karten ... zu dritt 13 ... zu zweit 15'); VARIANTS.md family. Four
    players in two sides, or three or two each alone; every player draws two."""
    rules = api.variant(V, {"players": players})["rules"]
    assert (rules["players"], rules["sides"], rules["hand_size"]) == (players, sides, hand)
    assert (rules["draw_count"], rules["ask_partner"], rules["target"]) == (2, False, 5000)
    assert rules["canastas_to_go_out"] == 1


def test_options() -> None:
    """VARIANTS.md family (players 2, 3, 4; target 5,000). Other player counts are refused."""
    options = {o["name"]: o for o in api.variant(V)["options"]}
    assert options["players"]["default"] == 4 and options["players"]["allowed"] == [2, 3, 4]
    assert options["target"]["default"] == 5000
    for bad in (5, 6):
        with pytest.raises(api.OpError) as caught:
            api.variant(V, {"players": bad})
        assert caught.value.code == "BAD_OPTION_VALUE"


SEED_KEYS = ["players", "deck", "deal", "turn", "melds", "melds.wilds", "canasta", "initial_meld",
             "pile.take", "pile.blocked", "pile.frozen", "threes.red", "threes.black", "going_out",
             "going_out.ask", "going_out.concealed", "stock_exhausted", "scoring", "target"]


def test_sources_cite_seed_002() -> None:
    """VARIANTS.md (introduction: every rule belongs in the rule table with its source) and
    VARIANTS.md family (seed 002). Each rule of the family table cites seed 002, and a refusal
    names that source."""
    sources = api.variant(V)["rules"]["sources"]
    for key in SEED_KEYS:
        assert sources[key].startswith("docs/variants/family.md#"), (key, sources[key])
        assert "(Family Canasta rule text" in sources[key], (key, sources[key])
    state = fam({0: ["AD", "AC"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    verdict = api.check({"state": state, "actions": [take("AD", "AC")]})
    assert verdict["reason"]["code"] == "PILE_NEEDS_INITIAL_MELD"
    assert verdict["reason"]["rule"] == sources["pile.take"]


# =============================================================================================
# 2. The deal
# =============================================================================================


@pytest.mark.parametrize("players, hand", [(4, 11), (3, 13), (2, 15)])
def test_deal_hand_sizes_and_first_player(players: int, hand: int) -> None:
    """seed 002 opening ('Bei vier Spielern bekommt jeder 11 Karten ... zu dritt 13 ... zu zweit
    15'; 'Der Spieler links vom Geber beginnt'); VARIANTS.md family. 108 cards; the player left
    of the dealer starts by drawing."""
    for dealer in range(players):
        answer = dealt(5, dealer, players)
        state = answer["state"]
        assert [len(h) for h in state["hands"]] == [hand] * players
        assert state["turn"]["seat"] == (dealer + 1) % players
        assert state["turn"]["phase"] == "draw"
        assert wire_cards(state) == DECK
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


def test_upcard_wild_or_red_three_set_aside() -> None:
    """seed 002 opening ('Ist diese erste offene Karte ein Joker, eine 2 oder eine rote 3, wird
    sie zur Seite gelegt ... Dann wird die nächste Karte aufgedeckt, bis eine gewöhnliche Karte
    offen liegt'); VARIANTS.md family. A wild or red three upcard is set aside out of play
    (state field ``set_aside``), never covered: the pile starts with one plain card and is not
    frozen; the cards set aside are in no hand, stock or bonus."""
    found = 0
    for seed in range(200):
        answer = dealt(seed)
        state = answer["state"]
        pile, aside = state["discard"], state.get("set_aside", [])
        assert len(pile) == 1, (seed, pile)
        assert not is_wild(pile[0]) and pile[0] not in RED_THREES, (seed, pile)
        assert all(is_wild(c) or c in RED_THREES for c in aside), (seed, aside)
        events = [c for e in events_of(answer, "upcard-set-aside") for c in e["cards"]]
        assert sorted(events) == sorted(aside), seed
        assert wire_cards(state) == DECK, seed
        found += bool(aside)
    assert found >= 2, "the seed range must contain deals with a wild or red three upcard"


def test_set_aside_red_three_counts_for_nobody() -> None:
    """seed 002 opening and 'Sonderregeln und Sonderfälle'; VARIANTS.md family, Upcard. A red three
    set aside at the deal is out of play for the deal: it is no side's bonus card."""
    state = fam({0: ["4C"], 2: ["4C"], 1: ["4D"], 3: ["4D"]}, melds=([NINES], [NINES]),
                set_aside=["3H", "JK"])
    assert breakdown(state, 0)["bonus_cards"] == 0
    assert breakdown(state, 1)["bonus_cards"] == 0
    new = after(fam({0: ["KD", "9C", "4C"]}, set_aside=["3H", "JK"]), DRAW, discard("9C"))
    assert new["set_aside"] == ["3H", "JK"]  # kept apart through the deal


def test_red_three_never_lies_in_the_pile() -> None:
    """seed 002 opening; VARIANTS.md family, Upcard. A red three turned up is set aside and red
    threes are never discarded, so a pile holding one is not a Family Canasta state."""
    state = fam({0: ["9C", "4C"]})
    for card in ("3H", "9D", "KH"):
        state["stock"].remove(card)
    state["discard"] = ["3H", "9D", "KH"]
    codes = [p["code"] for p in api.validate({"state": state})["problems"]]
    assert codes == ["RED_THREE_IN_PILE"]


def test_black_three_upcard_stays_and_blocks() -> None:
    """seed 002 opening (only a joker, two or red three is set aside) and 'Sonderregeln und
    Sonderfälle' ('Solange eine schwarze Drei oben auf dem Ablagestapel liegt, kann niemand den
    Stapel aufnehmen'); VARIANTS.md family. A black three upcard stays and blocks the pile."""
    for seed in range(400):
        state = dealt(seed)["state"]
        if state["discard"][0] in BLACK_THREES:
            break
    else:
        raise AssertionError("no deal with a black three upcard in the seed range")
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []


def test_dealt_red_threes_laid_out_and_replaced() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Bekommst du eine rote Drei auf die Hand, legst du
    sie sofort offen vor dich. Dafür ziehst du eine neue Karte nach'); VARIANTS.md family, Red
    threes. Every hand still holds 11 cards, none of them a red three."""
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


# =============================================================================================
# 3. The turn: draw two, meld, discard exactly one
# =============================================================================================


@pytest.mark.parametrize("players", [4, 3, 2])
def test_draw_two_cards(players: int) -> None:
    """seed 002 turn step 1 ('Du ziehst zwei Karten vom Nachziehstapel') and 'Ziehen'; VARIANTS.md
    family, Turn. Every player, whatever the number of players, draws two cards."""
    state = fam({0: ["9C", "4C"]}, stock_top=["KS", "QS", "JH"], options={"players": players})
    size = len(state["stock"])
    new = after(state, DRAW)
    assert hand_of(new, 0) == ["4C", "9C", "KS", "QS"]
    assert new["stock"][0] == "JH" and len(new["stock"]) == size - 2
    assert new["turn"]["phase"] == "play"


@pytest.mark.parametrize("top, drawn, reds", [
    (["3H", "KS", "QS"], ["KS", "QS"], ["3H"]),          # first card a red three
    (["KS", "3D", "QS"], ["KS", "QS"], ["3D"]),          # second card a red three
    (["3H", "3D", "KS", "QS"], ["KS", "QS"], ["3D", "3H"]),  # the replacement is red too
])
def test_red_three_drawn_laid_out_and_replaced(top: list[str], drawn: list[str],
                                               reds: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Bekommst du eine rote Drei ... legst du sie sofort
    offen vor dich. Dafür ziehst du eine neue Karte nach'); VARIANTS.md family, Red threes. A red
    three among the two cards drawn is laid out and replaced: the hand still gains two cards."""
    state = fam({2: ["9C", "4C"]}, stock_top=top, turn={"seat": 2})
    size = len(state["stock"])
    new = after(state, DRAW)
    assert sorted(new["bonus_cards"][0]) == reds
    assert hand_of(new, 2) == sorted(["4C", "9C"] + drawn)
    assert len(new["stock"]) == size - len(top)


def test_turn_ends_with_exactly_one_discard() -> None:
    """seed 002 turn step 4 ('Zum Schluss legst du genau eine Karte aus der Hand offen auf den
    Ablagestapel. Das beendet deinen Zug. Danach ist dein Nachbar im Uhrzeigersinn dran');
    VARIANTS.md family, Turn. No discard before drawing; one discard passes the turn clockwise."""
    state = fam({3: ["KD", "KC", "KH", "9C", "4C"]}, melds=([], [NINES]), stock_top=["QS", "5S"],
                turn={"seat": 3})
    assert refused(state, discard("9C")) == (0, "WRONG_PHASE")
    new = after(state, DRAW, lay("KD", "KC", "KH"), discard("9C"))
    assert (new["turn"]["seat"], new["turn"]["phase"]) == (0, "draw")
    assert new["discard"][-1] == "9C"
    assert refused(new, discard("9C")) == (0, "WRONG_PHASE")  # seat 0 must draw first


# =============================================================================================
# 4. The discard pile
# =============================================================================================


@pytest.mark.parametrize("cards", [["AD", "AC"], ["AD", "JK"]])
def test_pile_only_after_the_initial_meld(cards: list[str]) -> None:
    """seed 002 turn step 1 ('Das geht aber nur, wenn dein Team schon eine gültige Erstmeldung
    gemacht hat') and 'Sonderregeln und Sonderfälle' ('Bis diese Erstmeldung steht, dürft ihr auch
    den Ablagestapel nicht aufnehmen'); VARIANTS.md family. A side without its initial meld may
    not take the pile, not even to make the initial meld with it (A-A-A = 60 would meet 50)."""
    state = fam({0: ["AD", "AC", "JK"] + JUNK}, discard=["8D", "AH"], melds=([], [NINES]))
    assert refused(state, take(*cards)) == (0, "PILE_NEEDS_INITIAL_MELD")
    assert takes_listed(state) == []
    assert_legal(state, DRAW)


@pytest.mark.parametrize("melder", [0, 2])
def test_pile_after_the_sides_initial_meld(melder: int) -> None:
    """seed 002 'Ablagestapel aufnehmen' ('wenn die oberste Karte zu einer Meldung passt und dein
    Team schon eine Erstmeldung hat'); VARIANTS.md family. Once the side has melded -- by either
    partner -- the pile may be taken."""
    state = fam({0: ["AD", "AC"] + JUNK}, discard=["8D", "AH"], melds=([NINES], []),
                turn={"seat": 0, "melded": [melder]})
    new = after(state, take("AD", "AC"))
    assert side_melds(new, 0)["A"] == ["AC", "AD", "AH"]
    assert hand_of(new, 0) == ["6C", "8D", "9C"]
    assert new["discard"] == [] and new["turn"]["took_pile"] is True


@pytest.mark.parametrize("cards, melds, a_meld", [
    ([], [NINES, meld("AS", "AS", "AH")], ["AH", "AH", "AS", "AS"]),   # fits the side's meld
    (["AD", "AC"], [NINES], ["AC", "AD", "AH"]),                       # a natural pair: new meld
    (["AD", "JK"], [NINES], ["AD", "AH", "JK"]),                       # natural and wild: new meld
])
def test_pile_top_card_fits_a_meld_the_side_has_or_lays_now(cards: list[str], melds: list[Data],
                                                            a_meld: list[str]) -> None:
    """seed 002 turn step 1 ('Liegt oben auf dem Ablagestapel eine Karte, die zu einer Meldung
    passt, die dein Team schon hat oder gerade neu legt? Dann darfst du stattdessen den ganzen
    Ablagestapel nehmen'); VARIANTS.md family. The top card joins the side's meld of its rank,
    or a new meld laid with it; the rest of the pile goes to the hand."""
    hand = ["AD", "AC", "JK", "4C"]
    state = fam({0: hand}, discard=["9C", "5D", "AH"], melds=(melds, []))
    new = after(state, take(*cards))
    assert side_melds(new, 0)["A"] == a_meld
    assert hand_of(new, 0) == sorted([c for c in hand if c not in cards] + ["5D", "9C"])
    assert new["discard"] == []


@pytest.mark.parametrize("cards, melds, code", [
    ([], ([NINES], []), "NO_MELD_TO_ADD_TO"),                           # no A meld at all
    ([], ([NINES], [meld("AS", "AS", "AD")]), "NO_MELD_TO_ADD_TO"),     # only the opponents' meld
    (["2C", "JK"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),           # wild cards alone
    (["QD", "QC"], ([NINES], []), "PILE_CARDS_DO_NOT_MATCH"),           # a pair of another rank
    (["AD"], ([NINES, meld("AS", "AS", "AD")], []), "PILE_CARDS_DO_NOT_MATCH"),  # not a form here
])
def test_pile_refused_when_the_top_card_fits_no_meld(cards: list[str], melds: Any,
                                                      code: str) -> None:
    """seed 002 turn step 1 and 'Ablagestapel aufnehmen'; VARIANTS.md family. Without a meld of the
    side (or a new one laid with a natural pair or a natural and a wild) for the top card, the pile
    is not taken; the opponents' melds never count. (One natural is no pickup form in this
    variant: the top card alone goes to the meld, the natural may be laid after.)"""
    state = fam({0: ["AD", "AC", "QD", "QC", "2C", "JK", "4C"]}, discard=["9C", "AH"], melds=melds)
    assert refused(state, take(*cards)) == (0, code)


def test_no_freezing_a_wild_in_the_pile() -> None:
    """seed 002 turn step 1 and 'Ablagestapel aufnehmen' (no freezing rule: the pile needs only the
    side's initial meld and a fitting top card); VARIANTS.md family (Turn: the same two conditions,
    nothing else). A wild card inside the pile does not freeze it: natural + wild and the top card
    alone are accepted."""
    state = fam({0: ["KD", "KC", "JK", "9C", "4C"]}, discard=["9C", "2C", "5D", "KH"],
                melds=([NINES, meld("KS", "KS", "KD")], []))
    assert_legal(state, take("KD", "JK"))
    assert_legal(state, take())
    assert_legal(state, take("KD", "KC"))
    assert sorted(sorted(a["cards"]) for a in takes_listed(state)) == [[], ["JK", "KD"], ["KC", "KD"]]


def test_wild_discarded_does_not_freeze_the_pile() -> None:
    """seed 002 turn step 1 (no freezing rule); VARIANTS.md family, Turn. A wild card discarded and
    covered leaves the pile open for the next side with a fitting meld: the top card alone, or a
    natural and a wild, take it."""
    state = fam({0: ["2C", "9C", "4C"], 1: ["KD", "8C", "6C"], 2: ["KC", "JK", "7C", "5C"]},
                discard=["9H", "5D"], melds=([NINES, meld("KS", "KS", "KH")], [meld("AS", "AS", "AH")]),
                turn=PLAY)
    state = after(state, discard("2C"), DRAW, discard("KD"))
    assert state["turn"]["seat"] == 2 and state["discard"][-2:] == ["2C", "KD"]
    assert_legal(state, take())
    assert_legal(state, take("KC", "JK"))


@pytest.mark.parametrize("wild", ["2C", "JK"])
def test_wild_card_on_top_fits_no_meld_and_cites_passt(wild: str) -> None:
    """seed 002 turn step 1 ('Liegt oben auf dem Ablagestapel eine Karte, die zu einer Meldung
    passt ...'); VARIANTS.md family (ruling of 2026-12-01: a wild card on top fits no meld of a
    rank, so it cannot be taken; cite 'passt', not the black-three sentence); issue 15 defect 5."""
    state = fam({0: ["KD", "KC", wild, "9C"]}, discard=["9D", "KH", wild],
                melds=([NINES, meld("KS", "KS", "KD")], []))
    verdict = api.check({"state": state, "actions": [take()]})
    assert verdict["reason"]["code"] == "PILE_BLOCKED_BY_WILD"
    assert "passt" in verdict["reason"]["rule"] and "schwarze" not in verdict["reason"]["rule"]
    assert takes_listed(state) == []


@pytest.mark.parametrize("black", BLACK_THREES)
@pytest.mark.parametrize("seat", [0, 1])
def test_black_three_on_top_stops_anybody(black: str, seat: int) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Solange eine schwarze Drei oben auf dem
    Ablagestapel liegt, kann niemand den Stapel aufnehmen'); VARIANTS.md family, Black threes.
    Whoever is to move, with whatever cards, may not take the pile under a black three."""
    own, other = [NINES, meld("KS", "KS", "KH")], [meld("9S", "9H", "9C")]
    state = fam({seat: ["KD", "KC", "JK", "9C"]}, discard=["9D", "KH", black],
                melds=(own, other) if seat == 0 else (other, own), turn={"seat": seat})
    assert refused(state, take()) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert refused(state, take("KD", "KC")) == (0, "PILE_BLOCKED_BY_BLACK_THREE")
    assert takes_listed(state) == []


def test_covered_black_three_no_longer_stops() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Solange eine schwarze Drei oben ... liegt');
    VARIANTS.md family. Once covered, the black three no longer stops anybody; it joins the hand
    of whoever takes the pile."""
    state = fam({0: ["KD", "KC", "9C"]}, discard=["9D", "3S", "KH"],
                melds=([NINES, meld("KS", "KS", "KH")], []))
    new = after(state, take())
    assert hand_of(new, 0) == ["3S", "9C", "9D", "KC", "KD"]


def test_wild_limit_holds_for_meld_made_by_taking_pile() -> None:
    """seed 002 turn step 2 ('Eine Meldung darf höchstens zwei wilde Karten enthalten');
    VARIANTS.md family. A king meld with two wilds takes no third wild with the top king."""
    state = fam({0: ["KD", "KC", "2S", "4C"]}, discard=["9C", "KH"],
                melds=([meld("KS", "KS", "2C", "JK")], []))
    assert refused(state, take("KD", "2S")) == (0, "TOO_MANY_WILDS")
    new = after(state, take())
    assert side_melds(new, 0)["K"] == ["2C", "JK", "KH", "KS", "KS"]


def test_one_card_in_hand_may_take_a_one_card_pile() -> None:
    """seed 002 turn step 1 and 'Ablagestapel aufnehmen'; VARIANTS.md family ('take the whole pile
    if the side has made its initial meld and the top card fits a meld the side has or lays
    now'). The family rules set no one-card restriction (that is a classic rule, VARIANTS.md
    classic, Discard pile): with one card, a one-card pile fitting the side's meld is taken."""
    state = fam({0: ["9C"]}, discard=["KH"], melds=([JACKS_CANASTA, meld("KS", "KS", "KD")], []))
    new = after(state, take())
    assert side_melds(new, 0)["K"] == ["KD", "KH", "KS", "KS"]
    assert hand_of(new, 0) == ["9C"]


# =============================================================================================
# 5. Melds and canastas
# =============================================================================================

MELD_HAND = ["KH", "KD", "KS", "QD", "JS", "2C", "2D", "JK", "JK", "4C", "6C", "7C"]


@pytest.mark.parametrize("cards, code", [
    (["KH", "KD", "KS"], None),                                  # three naturals
    (["KH", "KD", "2C"], None),                                  # two naturals and a wild
    (["KH", "KD", "2C", "JK"], None),                            # two naturals, two wilds
    (["KH", "KD", "KS", "2C", "2D", "JK"], "TOO_MANY_WILDS"),    # three wilds
    (["KH", "KD", "2C", "2D", "JK"], "TOO_MANY_WILDS"),          # 2 + 3: legal in classic, not here
    (["KH", "2C", "JK"], "TOO_FEW_NATURALS"),                    # one natural only
    (["KH", "KD"], "MELD_TOO_SMALL"),                            # two cards
    (["KH", "QD", "JS"], "NOT_A_VALID_MELD"),                    # one rank only
])
def test_meld_shape(cards: list[str], code: str | None) -> None:
    """seed 002 turn step 2 ('eine neue Meldung aus mindestens drei Karten mit dem gleichen Wert
    ... höchstens zwei wilde Karten enthalten, mindestens zwei Karten müssen natürliche Karten mit
    dem gleichen Wert sein'); VARIANTS.md family, Melds."""
    state = fam({0: MELD_HAND}, melds=([NINES], []), turn=PLAY)
    if code is None:
        new = after(state, lay(*cards))
        assert side_melds(new, 0)["K"] == sorted(cards)
    else:
        assert refused(state, lay(*cards)) == (0, code)


def test_wilds_added_to_meld_up_to_two() -> None:
    """seed 002 turn step 2 ('Oder du legst weitere Karten zu einer Meldung, die dein Team schon
    hat. Eine Meldung darf höchstens zwei wilde Karten enthalten'); VARIANTS.md family. A second
    wild joins a meld, a third is refused."""
    state = fam({0: ["2D", "JK", "4C", "6C", "7C"]}, melds=([meld("KH", "KD", "2C")], []), turn=PLAY)
    assert refused(state, lay("2D", "JK", rank="K")) == (0, "TOO_MANY_WILDS")
    new = after(state, lay("JK", rank="K"))
    assert side_melds(new, 0)["K"] == ["2C", "JK", "KD", "KH"]
    assert refused(new, lay("2D", rank="K")) == (0, "TOO_MANY_WILDS")


@pytest.mark.parametrize("seat", [0, 2])
def test_more_cards_join_the_sides_meld(seat: int) -> None:
    """seed 002 turn step 2 ('Oder du legst weitere Karten zu einer Meldung, die dein Team schon
    hat') and 'Melden'; VARIANTS.md family. Cards of a rank the side has melded join that meld,
    whichever partner plays them; the opponents' meld of the rank stays apart."""
    state = fam({seat: ["KC", "KC", "2C", "4C", "6C"]},
                melds=([meld("KH", "KD", "KS")], [meld("KH", "KD", "KS")]),
                turn={"seat": seat, **PLAY})
    new = after(state, lay("KC", "KC", "2C"))
    assert [m["rank"] for m in new["melds"][0]] == ["K"]
    assert side_melds(new, 0)["K"] == ["2C", "KC", "KC", "KD", "KH", "KS"]
    assert side_melds(new, 1)["K"] == ["KD", "KH", "KS"]


@pytest.mark.parametrize("cards, melded, bonus", [
    (SEVEN_KINGS, 70, 500),                                  # pure: 500 + 7 x 10 = 570
    (SEVEN_KINGS + ["KC"], 80, 500),                         # eight naturals: 500 + 80 = 580
    (["KS", "KS", "KH", "KH", "KD", "2C", "JK"], 120, 300),  # mixed: 300 + 5 x 10 + 20 + 50 = 420
    (["KS", "KS", "KH", "KH", "KD", "KD", "2C"], 80, 300),   # one wild makes it mixed: 300 + 60 + 20
    (["KS", "KS", "KH", "KH", "KD", "KD"], 60, 0),           # six cards: no canasta yet
])
def test_canasta_bonus(cards: list[str], melded: int, bonus: int) -> None:
    """seed 002 turn step 3 ('Wächst eine Meldung auf sieben oder mehr Karten, wird sie zur
    Canasta. Enthält sie nur natürliche Karten, ist sie rein ... auch wilde Karten, ist sie
    gemischt') and 'Abrechnung' ('reine Canasta ... 500 ... gemischte Canasta ... 300');
    VARIANTS.md family."""
    state = fam({0: ["4C"], 2: ["4C"]}, melds=([meld(*cards)], []))
    b = breakdown(state, 0)
    assert (b["melded_cards"], b["canasta_bonus"]) == (melded, bonus)


# =============================================================================================
# 6. The initial meld
# =============================================================================================


BANDS = [  # (score before the deal, minimum): a negative score also needs 50
    (-2000, 50), (-5, 50), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (4995, 120),
]


def _initial(score_before: int, melds: list[list[str]]) -> Data:
    hand = [c for m in melds for c in m] + JUNK
    return fam({0: hand}, melds=([], [NINES]), scores=(score_before, 0), turn=PLAY)


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_exactly_the_minimum_is_accepted(score_before: int, minimum: int) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('braucht die allererste Meldung in einer Runde
    einen Mindestwert. Meist sind das 50 Punkte ... 90 oder sogar 120'); VARIANTS.md family
    ('50; 90 from a score of 1,500; 120 from 3,000 (a negative score also needs 50)')."""
    melds = OFFERS[minimum]
    answer = run(_initial(score_before, melds), *[lay(*m) for m in melds])
    assert "pending" not in answer["state"]["turn"]
    assert [(e["points"], e["minimum"]) for e in events_of(answer, "initial-meld")] == [
        (minimum, minimum)]


@pytest.mark.parametrize("score_before, minimum", BANDS)
def test_initial_meld_below_the_minimum_is_refused(score_before: int, minimum: int) -> None:
    """seed 002 'Sonderregeln und Sonderfälle'; VARIANTS.md family, Initial meld. Below the band's
    minimum the first meld is refused -- five short, or the minimum of the band below (a negative
    score gets no 15 band: 15 points are refused)."""
    below = {50: 15, 90: 50, 120: 90}[minimum]
    offers = [OFFERS[below]] + ([SHORT[minimum]] if minimum in SHORT else [])
    for melds in offers:
        state = _initial(score_before, melds)
        assert refused(state, *[lay(*m) for m in melds]) == (0, "INITIAL_MELD_UNREACHABLE")


def test_several_melds_in_one_turn_count_together() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' (the initial meld); VARIANTS.md (common to all:
    'several melds laid in the same turn count together'). 6-6-6 + K-K-K-2 = 15 + 50 = 65 >= 50;
    the first meld alone is pending until the second completes the minimum."""
    state = _initial(0, [["6S", "6H", "6D"], ["KH", "KD", "KS", "2C"]])
    answer = run(state, lay("6S", "6H", "6D"), lay("KH", "KD", "KS", "2C"))
    assert sorted(m["rank"] for m in answer["state"]["melds"][0]) == ["6", "K"]
    assert [e["points"] for e in events_of(answer, "initial-meld")] == [65]  # 15 + 30 + 20


def test_bonuses_do_not_count_toward_the_minimum() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' and 'Abrechnung'; VARIANTS.md (common to all:
    'counting card values only (no bonuses)'). Four red threes (+800) and a pure canasta of fives
    (35, +500) do not make 50."""
    fives = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]
    state = fam({0: fives + JUNK}, melds=([], [NINES]), bonus=(["3H", "3H", "3D", "3D"], []),
                turn=PLAY)
    assert refused(state, lay(*fives)) == (0, "INITIAL_MELD_UNREACHABLE")


def test_no_concealed_exception_to_the_minimum() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Bevor dein Team überhaupt etwas melden darf,
    braucht die allererste Meldung in einer Runde einen Mindestwert'); VARIANTS.md family
    (Initial meld; Going out: 'No concealed bonus') and VARIANTS.md common rules. The classic
    waiver for going out concealed is not a family rule: a canasta of fives (35 < 50) laid with the
    whole hand in one turn is still a first meld short of 50."""
    fives = ["5S", "5S", "5H", "5H", "5D", "5D", "5C"]
    state = fam({0: fives + ["4C"]}, melds=([], [NINES]), turn=PLAY)
    assert refused(state, lay(*fives), discard("4C")) == (0, "INITIAL_MELD_UNREACHABLE")


def test_partner_melded_means_no_minimum() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('die allererste Meldung in einer Runde'); VARIANTS.md
    family. Only the side's first meld needs the minimum: after the partner's, three fives do."""
    state = fam({0: ["5S", "5H", "5D"] + JUNK}, melds=([NINES], []), scores=(3000, 0),
                turn={**PLAY, "melded": [2]})
    new = after(state, lay("5S", "5H", "5D"))
    assert side_melds(new, 0)["5"] == ["5D", "5H", "5S"]


# =============================================================================================
# 7. Red threes
# =============================================================================================


@pytest.mark.parametrize("reds, melded, expected", [
    (["3H"], True, 100),
    (["3H", "3D"], True, 200),
    (["3H", "3D", "3D"], True, 300),
    (["3H", "3H", "3D", "3D"], True, 800),     # all four: 800 (the seed's '200' read as 200 each)
    (["3H"], False, -100),                     # the side made no meld: minus
    (["3H", "3D", "3D"], False, -300),
    (["3H", "3H", "3D", "3D"], False, -800),
    ([], True, 0),
])
def test_red_three_bonus(reds: list[str], melded: bool, expected: int) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Jede rote Drei bringt am Ende 100 Bonuspunkte,
    alle vier zusammen sogar 200 Punkte. Hat dein Team ... gar keine eigene Meldung geschafft,
    zählen die roten Dreien stattdessen als Minuspunkte'); VARIANTS.md family, Red threes."""
    state = fam({0: ["4C"], 2: ["4C"]}, melds=([NINES] if melded else [], []), bonus=(reds, []))
    assert breakdown(state, 0)["bonus_cards"] == expected


# =============================================================================================
# 8. Black threes
# =============================================================================================


@pytest.mark.parametrize("threes", [["3S", "3S", "3C"], ["3S", "3S", "3C", "3C"]])
def test_black_threes_melded_when_going_out(threes: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Melden darfst du sie erst ganz zum Schluss');
    VARIANTS.md family ('melded only when going out (three or four, no wild)')."""
    state = fam({0: threes + ["9C"]}, melds=([JACKS_CANASTA], []), turn=PLAY)
    new = after(state, lay(*threes), discard("9C"))
    assert new["turn"]["phase"] == "over" and new["turn"]["went_out"] == 0
    assert side_melds(new, 0)["3"] == sorted(threes)


@pytest.mark.parametrize("hand, cards", [
    (["3S", "3S", "3C", "9C", "4C"], ["3S", "3S", "3C"]),  # not going out: 9 and 4 are left
    (["3S", "3C", "2C", "9C"], ["3S", "3C", "2C"]),        # a wild card with black threes
])
def test_black_threes_not_melded_otherwise(hand: list[str], cards: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Schwarze Dreien darfst du nur als letzte Karte
    deines Zuges ablegen. Melden darfst du sie erst ganz zum Schluss'); VARIANTS.md family."""
    state = fam({0: hand}, melds=([JACKS_CANASTA], []), turn=PLAY)
    assert refused(state, lay(*cards)) == (0, "BLACK_THREES_ONLY_WHEN_GOING_OUT")


def test_black_three_discarded_ends_the_turn() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Schwarze Dreien darfst du nur als letzte Karte
    deines Zuges ablegen'); VARIANTS.md family. A black three is discarded like any card, ending
    the turn, and then stops the next player."""
    state = fam({0: ["3S", "9C", "4C"], 1: ["KD", "KC", "6C"]}, discard=["8D", "KH"],
                melds=([NINES], [NINES, meld("KS", "KS", "KH")]), turn=PLAY)
    new = after(state, discard("3S"))
    assert (new["turn"]["seat"], new["discard"][-1]) == (1, "3S")
    assert refused(new, take("KD", "KC")) == (0, "PILE_BLOCKED_BY_BLACK_THREE")


# =============================================================================================
# 9. Going out
# =============================================================================================


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD")]),                  # the meld leaves one card: discarding empties
    (["KD", "KC"], [lay("KD", "KC")]),            # the meld empties the hand at once
    (["KD", "9C"], [lay("KD"), discard("9C")]),   # and the final discard itself
    (["9C"], [discard("9C")]),
])
def test_no_going_out_without_canasta(hand: list[str], actions: list[Data]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Ein Spieler darf erst ... Ausgehen, wenn sein
    Team mindestens eine vollständige Canasta gebildet hat'); VARIANTS.md family, Going out."""
    state = fam({0: hand}, melds=([K3], []), turn=PLAY)
    assert refused(state, *actions) == (0, "CANNOT_GO_OUT_WITHOUT_CANASTA")


@pytest.mark.parametrize("hand, actions", [
    (["KD", "9C"], [lay("KD"), discard("9C")]),   # meld, then the last card discarded
    (["KD", "KC"], [lay("KD", "KC")]),            # every card melded
    (["9C"], [discard("9C")]),                    # the last card discarded
])
def test_going_out_with_canasta(hand: list[str], actions: list[Data]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Er legt dann alle restlichen Handkarten in
    Meldungen oder auf den Ablagestapel, bis nichts mehr übrig ist') and 'Abrechnung' ('Wer
    ausgehen konnte, bekommt zusätzlich 100 Bonuspunkte'); VARIANTS.md family."""
    state = fam({0: hand}, melds=([JACKS_CANASTA, K3], []), turn={**PLAY, "melded": [0, 2]})
    new = after(state, *actions)
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert new["hands"][0] == []
    assert breakdown(new, 0)["going_out"] == 100
    assert breakdown(new, 1)["going_out"] == 0
    assert refused(new, DRAW) == (0, "DEAL_OVER")


def test_no_concealed_bonus() -> None:
    """seed 002 'Abrechnung' (only 'Wer ausgehen konnte, bekommt zusätzlich 100 Bonuspunkte');
    VARIANTS.md family ('No concealed bonus. Bonus 100'). Going out in one turn without an earlier
    meld, laying a whole canasta (70 >= 50), still earns 100."""
    state = fam({0: SEVEN_KINGS + ["9C"]}, melds=([], [NINES]), turn=PLAY)
    new = after(state, lay(*SEVEN_KINGS), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


@pytest.mark.parametrize("options", [{}, {"players": 3}, {"players": 2}])
def test_no_asking_the_partner(options: Data) -> None:
    """seed 002 (no 'may I go out?' question anywhere); VARIANTS.md family, Going out. Asking is
    refused, even by a player who could go out."""
    state = fam({0: ["KD", "KC", "KH", "9C"]}, melds=([JACKS_CANASTA], []), turn=PLAY,
                options=options)
    assert refused(state, ASK) == (0, "ASK_NOT_ALLOWED")
    assert "ask" not in [a["type"] for a in legal_list(state)]


@pytest.mark.parametrize("players", [2, 3])
def test_one_canasta_to_go_out_for_every_player_count(players: int) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('mindestens eine vollständige Canasta');
    VARIANTS.md family. Playing alone (two or three players), one canasta is enough too."""
    state = fam({0: ["KD", "KC", "9C"]}, melds=([JACKS_CANASTA, K3], []), turn=PLAY,
                options={"players": players})
    new = after(state, lay("KD", "KC"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


# =============================================================================================
# 10. The stock runs out
# =============================================================================================


def _low_stock(hand: list[str], stock: list[str], melds: Any = ([K3], [])) -> Data:
    """Seat 0 to draw from a stock of ``stock``; seat 1 holds every card nobody named."""
    return fam({0: hand}, discard=["8D", "4D"], melds=melds, stock=stock, rest_to=1)


@pytest.mark.parametrize("stock, drawn", [(["QH", "JD"], ["JD", "QH"]), (["QH"], ["QH"])])
def test_last_cards_drawn_player_finishes_turn_then_deal_ends(stock: list[str],
                                                              drawn: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Wird der Nachziehstapel leer, endet die laufende
    Runde sofort. Sie wird dann ganz normal abgerechnet'); VARIANTS.md family ('the player who
    drew the last card finishes his turn'; 'the last one, if only one is left'). The player
    draws what is left, melds and discards; then the deal is over with the stock exhausted."""
    state = _low_stock(["KD", "9C", "4C"], stock)
    new = after(state, DRAW)
    assert new["turn"]["phase"] == "play" and new["stock"] == []
    assert hand_of(new, 0) == sorted(["4C", "9C", "KD"] + drawn)
    answer = run(new, lay("KD"), discard("9C"))
    turn = answer["state"]["turn"]
    assert turn["phase"] == "over"
    assert (turn["stock_exhausted"], turn["went_out"]) == (True, None)
    assert side_melds(answer["state"], 0)["K"] == ["KD", "KH", "KS", "KS"]
    assert events_of(answer, "deal-over") == [{"type": "deal-over", "stock_exhausted": True}]
    for side in (0, 1):  # scored normally: no going-out bonus, no penalty
        b = breakdown(answer["state"], side)
        assert (b["going_out"], b["penalties"]) == (0, 0)


def test_player_drawing_last_cards_may_go_out() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' (empty stock; going out); VARIANTS.md family. The
    player who drew the last cards finishes his turn, and may go out in it."""
    state = _low_stock(["KC"], ["KD", "9C"], melds=([JACKS_CANASTA, K3], []))
    new = after(state, DRAW, lay("KD", "KC"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["went_out"]) == ("over", 0)
    assert breakdown(new, 0)["going_out"] == 100


@pytest.mark.parametrize("stock, drawn", [(["QH", "3H"], ["QH"]), (["3H"], [])])
def test_red_three_as_last_card_player_still_finishes_turn(stock: list[str],
                                                           drawn: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' (red threes laid out; 'Wird der Nachziehstapel
    leer, endet die laufende Runde'); VARIANTS.md family ('When the stock is empty the deal ends:
    the player who drew the last card finishes his turn'). A red three among the last cards is
    laid out (no replacement is left) and the player still finishes his turn -- the classic rule
    ending the deal at once (VARIANTS.md classic, Stock exhausted) is not a family rule."""
    state = _low_stock(["KD", "9C", "4C"], stock)
    new = after(state, DRAW)
    assert "3H" in new["bonus_cards"][0]
    assert new["stock"] == []
    assert new["turn"]["phase"] == "play"
    assert hand_of(new, 0) == sorted(["4C", "9C", "KD"] + drawn)
    new = after(new, lay("KD"), discard("9C"))
    assert (new["turn"]["phase"], new["turn"]["stock_exhausted"]) == ("over", True)


# =============================================================================================
# 11. Scoring and the end of the game
# =============================================================================================

KEYS = {"melded_cards", "hand_cards", "canasta_bonus", "bonus_cards", "going_out", "penalties",
        "total"}


def _golden() -> Data:
    """Seat 2 went out (side 0); side 1 melded but has no canasta; a red three and a two were set
    aside at the deal."""
    return fam(
        {0: ["9C", "4D", "3S"], 1: ["KC", "QC", "2H"], 2: [], 3: ["6C", "6C", "5C"]},
        melds=([meld("AS", "AS", "AH", "AH", "AD", "AD", "AC"),
                meld("7S", "7S", "7H", "7H", "7D", "2C", "JK"),
                meld("TS", "TH", "TD", "2D")],
               [meld("8S", "8H", "8D", "8C", "JK")]),
        bonus=(["3H", "3H"], ["3D"]), discard=["6S", "9D"], set_aside=["3D", "2S"],
        scores=(3000, 4900),
        turn={"seat": 2, "phase": "over", "went_out": 2, "concealed": False,
              "partner_melded": True, "stock_exhausted": False})


def test_scoring_golden_example() -> None:
    """seed 002 'Abrechnung' ('Joker zählen 50 Punkte. Asse und 2en zählen 20 Punkte. Karten von 8
    bis König zählen 10 Punkte. Karten von 4 bis 7 und schwarze Dreien zählen 5 Punkte ... reine
    Canasta ... 500 ... gemischte Canasta ... 300 ... Wer ausgehen konnte ... 100 ... Alle Karten,
    die ein Spieler am Ende noch auf der Hand hält, werden von seinem Team abgezogen ... bis ein
    Team insgesamt 5000 Punkte erreicht'); VARIANTS.md family."""
    answer = score(_golden())
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 285,   # aces 7 x 20 = 140; sevens 5 x 5 + 20 + 50 = 95; tens 3 x 10 + 20 = 50
        "hand_cards": -20,     # seat 0: 9 (10) + 4 (5) + black three (5); seat 2 went out
        "canasta_bonus": 800,  # pure aces 500 + mixed sevens 300
        "bonus_cards": 200,    # two red threes, 100 each
        "going_out": 100,
        "penalties": 0,
        "total": 1365,         # 285 - 20 + 800 + 200 + 100
    }
    assert side1 == {
        "melded_cards": 90,    # eights 4 x 10 + joker 50
        "hand_cards": -55,     # seat 1: K 10 + Q 10 + 2 20 = 40; seat 3: 6 + 6 + 5 = 15
        "canasta_bonus": 0,
        "bonus_cards": 100,    # one red three (the other 3D was set aside: nobody's)
        "going_out": 0,
        "penalties": 0,
        "total": 135,          # 90 - 55 + 100
    }
    assert answer["scores"] == [4365, 5035]  # 3000 + 1365; 4900 + 135: side 1 reaches 5,000
    assert (answer["game_over"], answer["winner"]) == (True, 1)
    assert answer["next_minimums"] == [120, 120]
    for side in answer["sides"]:
        assert set(side["breakdown"]) >= KEYS
        assert side["total"] == sum(v for k, v in side["breakdown"].items() if k != "total")


def test_scoring_golden_stock_exhausted() -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Wird der Nachziehstapel leer, endet die laufende
    Runde sofort. Sie wird dann ganz normal abgerechnet'; red threes minus without a meld) and
    'Abrechnung'; VARIANTS.md family. Nobody went out: no going-out bonus, no penalty for the
    empty stock; side 1 made no meld, so its red threes count minus."""
    state = fam({0: ["AS", "5D"], 2: ["8C", "9H"], 1: ["KC", "KD", "2H", "3C"], 3: ["7C"]},
                melds=([meld("QS", "QS", "QH", "QH", "QD", "QD", "QC"), meld("4S", "4H", "JK")], []),
                bonus=(["3H"], ["3D", "3D"]), discard=["6S", "9D"], set_aside=["3H"],
                scores=(1000, 1000),
                turn={"seat": 1, "phase": "over", "went_out": None, "stock_exhausted": True})
    state["discard"] = state["stock"] + state["discard"]  # the stock is used up
    state["stock"] = []
    assert api.validate({"state": state})["problems"] == []
    answer = score(state)
    side0, side1 = (s["breakdown"] for s in answer["sides"])
    assert side0 == {
        "melded_cards": 130,   # queens 7 x 10 = 70; fours 5 + 5 + joker 50 = 60
        "hand_cards": -45,     # seat 0: A 20 + 5 5 = 25; seat 2: 8 10 + 9 10 = 20
        "canasta_bonus": 500,  # pure queens
        "bonus_cards": 100,    # one red three
        "going_out": 0,        # nobody went out
        "penalties": 0,        # the empty stock costs nothing
        "total": 685,          # 130 - 45 + 500 + 100
    }
    assert side1 == {
        "melded_cards": 0,
        "hand_cards": -50,     # seat 1: K 10 + K 10 + 2 20 + black three 5 = 45; seat 3: 7 = 5
        "canasta_bonus": 0,
        "bonus_cards": -200,   # two red threes, no meld: minus
        "going_out": 0,
        "penalties": 0,
        "total": -250,         # -50 - 200
    }
    assert answer["scores"] == [1685, 750]  # 1000 + 685; 1000 - 250
    assert (answer["game_over"], answer["winner"]) == (False, None)
    assert answer["next_minimums"] == [90, 50]


@pytest.mark.parametrize("totals, game_over, winner", [
    ((5000, 4000), True, 0),      # exactly the target ends the game
    ((4995, 4990), False, None),  # nobody reached 5,000
    ((5100, 5200), True, 1),      # both pass: the higher total wins
    ((5100, 5100), False, None),  # exact tie at or above the target: another deal
])
def test_game_to_5000(totals: tuple[int, int], game_over: bool, winner: int | None) -> None:
    """seed 002 'Abrechnung' ('Ihr spielt mehrere Runden, bis ein Team insgesamt 5000 Punkte
    erreicht. Dieses Team gewinnt das Spiel'); VARIANTS.md family ('Target 5,000') and common
    rules (both past the target: the higher total; a tie: another deal)."""
    answer = score(_with_totals(totals))
    assert answer["scores"] == list(totals)
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)


def _with_totals(totals: tuple[int, int], options: Data | None = None) -> Data:
    """A scored table whose game totals after the deal are ``totals``."""
    plain = fam({0: ["4C"], 2: ["4C"], 1: ["4D"], 3: ["4D"]}, melds=([NINES], [NINES]),
                options=options)
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [totals[0] - deal[0], totals[1] - deal[1]]
    return plain


def test_target_option() -> None:
    """VARIANTS.md family ('Target 5,000'); the option ``target`` changes it: at 2,500 a total of
    2,500 wins, at 5,000 it does not."""
    answer = score(_with_totals((2500, 1000), {"target": 2500}))
    assert (answer["game_over"], answer["winner"]) == (True, 0)
    answer = score(_with_totals((2500, 1000)))
    assert (answer["game_over"], answer["winner"]) == (False, None)


@pytest.mark.parametrize("totals, minimums", [
    ((-5, 0), [50, 50]),
    ((1495, 1500), [50, 90]),
    ((2995, 3000), [90, 120]),
])
def test_next_initial_meld_minimums(totals: tuple[int, int], minimums: list[int]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Hattet ihr in vorherigen Runden schon viele
    Punkte, können es auch 90 oder sogar 120 Punkte sein'); VARIANTS.md family. The score answer
    gives the next deal's minimums: 50 (also when negative), 90 from 1,500, 120 from 3,000."""
    answer = score(_with_totals(totals))
    assert answer["next_minimums"] == minimums


@pytest.mark.parametrize("canasta", [False, True])
def test_last_card_a_red_three_leaving_one_card_that_cannot_be_thrown(canasta: bool) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Wird der Nachziehstapel leer, endet die laufende
    Runde sofort'); VARIANTS.md family ('the player who drew the last card finishes his turn,
    then the deal is scored'). Seat 2 (three players, each alone) holds one black three and
    draws the last card, a red three: laid out, nothing replaces it. Without a canasta he may
    not throw his only card (it would empty his hand), so nothing finishes the turn and the deal
    ends at once, scored as a deal whose stock ran out; with a canasta he throws it and goes out.
    Found by a wider random run as a state with no legal action (seed 2226, eager players)."""
    options = {"players": 3}
    melds = ([], [], [JACKS_CANASTA if canasta else NINES])
    state = fam({2: ["3C"]}, melds=melds, stock=["3D"], rest_to=0, turn={"seat": 2},
                options=options)
    answer = run(state, DRAW)
    new = answer["state"]
    assert new["bonus_cards"][2] == ["3D"] and new["stock"] == []
    if canasta:
        assert new["turn"]["phase"] == "play"
        assert legal_list(new) == [{"type": "discard", "card": "3C", "seat": 2}]
        out = after(new, discard("3C"))
        assert (out["turn"]["went_out"], out["turn"]["stock_exhausted"]) == (2, False)
        return
    assert [e["type"] for e in answer["events"]] == ["drew", "red-threes", "stock-exhausted",
                                                    "deal-over"]
    assert (new["turn"]["phase"], new["turn"]["went_out"], new["turn"]["stock_exhausted"]) == (
        "over", None, True)
    assert hand_of(new, 2) == ["3C"] and legal_list(new) == []
    assert score(new)["final"] is True


@pytest.mark.parametrize("cards", [[], ["KD", "KC"]])
def test_empty_stock_at_the_draw_the_pile_may_not_be_taken(cards: list[str]) -> None:
    """seed 002 'Sonderregeln und Sonderfälle' ('Wird der Nachziehstapel leer, endet die laufende
    Runde sofort. Sie wird dann ganz normal abgerechnet') and turn step 1 / 'Ablagestapel
    aufnehmen'; VARIANTS.md family ('When the stock is empty the deal ends'). In play the deal
    ends with the turn that drew the last card; a state where a player must draw from the empty
    stock is taken as that end: the pile, whose top king fits the side's kings, is refused
    (STOCK_EXHAUSTED, citing the empty-stock rule; no classic obligation to take it), drawing is
    the only action listed and ends the deal, scored normally. With cards left in the stock the
    same take is legal and listed."""
    hand, pile = ["KD", "KC", "9C", "4C"], ["8D", "KH"]
    melds: tuple[list[Data], list[Data]] = ([K3], [])
    state = fam({0: hand}, discard=pile, melds=melds, stock=[], rest_to=1)
    assert legal_list(state) == [{"type": "draw", "seat": 0}]
    assert takes_listed(state) == []
    assert refused(state, take(*cards)) == (0, "STOCK_EXHAUSTED")
    verdict = api.check({"state": state, "actions": [take(*cards)]})
    assert verdict["reason"]["rule"].startswith("docs/variants/family.md#when-the-stock-runs-out")
    answer = run(state, DRAW)
    turn = answer["state"]["turn"]
    assert (turn["phase"], turn["stock_exhausted"], turn["went_out"]) == ("over", True, None)
    assert events_of(answer, "deal-over") == [{"type": "deal-over", "stock_exhausted": True}]
    assert hand_of(answer["state"], 0) == sorted(hand) and answer["state"]["discard"] == pile
    control = fam({0: hand}, discard=pile, melds=melds, stock=["QH", "JD"], rest_to=1)
    assert_legal(control, take(*cards))
    assert sorted(cards) in [sorted(a["cards"]) for a in takes_listed(control)]


def _with_totals_three(totals: tuple[int, int, int]) -> Data:
    """A scored three-player table (each alone) whose game totals after the deal are ``totals``."""
    hands = {s: ["4" + "CDH"[s]] for s in range(3)}
    plain = fam(hands, melds=([NINES], [meld("8S", "8H", "8D")], [meld("7S", "7H", "7D")]),
                options={"players": 3})
    deal = [s["total"] for s in score(plain)["sides"]]
    plain["scores"] = [t - d for t, d in zip(totals, deal, strict=True)]
    return plain


@pytest.mark.parametrize("totals, game_over, winner", [
    ((5000, 4000, 4995), True, 0),      # exactly the target ends the game
    ((4995, 4990, 4000), False, None),  # nobody reached 5,000
    ((5100, 5200, 5150), True, 1),      # all three pass: the highest total wins
    ((5200, 5200, 5300), True, 2),      # a tie below the top decides nothing
    ((5100, 5100, 4000), False, None),  # exact tie at the top: another deal
    ((5100, 5100, 5000), False, None),  # the same with the third past the target too
])
def test_three_players_game_to_5000(totals: tuple[int, int, int], game_over: bool,
                                    winner: int | None) -> None:
    """seed 002 opening ('Canasta geht aber auch zu zweit oder zu dritt, dann spielt jeder für sich
    allein') and 'Abrechnung' ('bis ein Team insgesamt 5000 Punkte erreicht. Dieses Team gewinnt
    das Spiel'); VARIANTS.md family ('three (13) ... each alone'; 'Target 5,000') and the common
    rules (past the target in the same deal the higher total wins; an exact tie at or above the
    target means another deal). With three sides the winner is the one highest total; a tie for
    it is another deal."""
    answer = score(_with_totals_three(totals))
    assert len(answer["sides"]) == 3
    assert answer["scores"] == list(totals)
    assert (answer["game_over"], answer["winner"]) == (game_over, winner)
