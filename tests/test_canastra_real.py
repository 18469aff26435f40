"""Canastra option ``canastra_real``: "Eine natürliche Sieben-Karten-Sequenz gleicher Farbe
(z. B. A-K-D-B-10-9-8) ergibt 500 Bonuspunkte und gilt als Canastra" (seed 003 'Häufige
Varianten: Canastra Real'; VARIANTS.md canastra, options)."""

from __future__ import annotations

from canasta_referee.engine import (
    action_from_data,
    api,
    apply_action,
    legal_actions,
    state_from_data,
    state_to_data,
)
from canasta_referee.engine.cards import REAL
from tests.builders import (
    NINES,
    PLAY,
    Data,
    after,
    breakdown,
    discard,
    legal_list,
    refused,
    table,
)
from tests.playout import check_closed

REAL_OPTS = {"canastra_real": True}
HEARTS = ["AH", "KH", "QH", "JH", "TH", "9H", "8H"]  # 20 + 6 x 10 = 80 card points
SPADES_LOW = ["4S", "5S", "6S", "7S", "8S", "9S", "TS"]  # 4 x 5 + 3 x 10 = 50
FOURS_CANASTA = {"rank": "4", "cards": ["4C", "4C", "4D", "4D", "4H", "2C", "JK"]}  # dirty


def real(*cards: str) -> Data:
    return {"type": "meld", "rank": "real", "cards": list(cards)}


def cst(hands: dict[int, list[str]], **kwargs: object) -> Data:
    return table(hands, variant="canastra", options=REAL_OPTS, **kwargs)  # type: ignore[arg-type]


def test_a_suit_sequence_of_seven_is_listed_and_laid() -> None:
    state = cst({0: HEARTS + ["5C", "6D"]}, melds=([NINES], []), turn=PLAY)
    listed = [a for a in legal_list(state) if a.get("rank") == "real"]
    assert [(a["rank"], set(a["cards"])) for a in listed] == [("real", set(HEARTS))]
    new = after(state, real(*HEARTS))
    assert [set(m["cards"]) for m in new["melds"][0] if m["rank"] == "real"] == [set(HEARTS)]


def test_it_is_a_canastra_for_going_out_with_bonus_500() -> None:
    """It counts as the side's canastra: going out needs nothing else. Score: 80 + 30 (three
    nines) melded, canastra bonus 500, going out 100 (he melded before: not concealed)."""
    state = cst({0: HEARTS + ["5C"]}, melds=([NINES], []), turn={**PLAY, "melded": [0]})
    new = after(state, real(*HEARTS), discard("5C"))
    assert new["turn"]["went_out"] == 0
    b = breakdown(new, 0)
    assert (b["melded_cards"], b["canasta_bonus"], b["going_out"]) == (80 + 30, 500, 100)


def test_needs_seven_naturals_of_one_suit_in_sequence() -> None:
    hand = ["AH", "KH", "QH", "JH", "TH", "9H", "7H", "8S", "2C", "5C", "6C"]
    state = cst({0: hand}, melds=([NINES], []), turn=PLAY)
    assert refused(state, real("AH", "KH", "QH", "JH", "TH", "9H", "7H")) == (0, "NOT_A_SUIT_SEQUENCE")
    assert refused(state, real("AH", "KH", "QH", "JH", "TH", "9H", "8S")) == (0, "NOT_A_SUIT_SEQUENCE")
    assert refused(state, real("AH", "KH", "QH", "JH", "TH", "9H", "2C")) == (0, "NOT_A_SUIT_SEQUENCE")


def test_without_the_option_sequences_are_not_melded() -> None:
    state = table({0: HEARTS + ["5C", "6D"]}, variant="canastra", melds=([NINES], []), turn=PLAY)
    assert refused(state, real(*HEARTS)) == (0, "SEQUENCE_NOT_ALLOWED")
    assert not [a for a in legal_list(state) if a.get("rank") == "real"]
    laid = cst({0: ["5C", "6D"]}, melds=([{"rank": "real", "cards": HEARTS}], []), turn=PLAY)
    assert api.validate({"state": laid})["valid"]
    without = {**laid, "options": {}}
    problems = api.validate({"state": without})["problems"]
    assert [(p["code"], p["path"]) for p in problems] == [("SEQUENCE_NOT_ALLOWED",
                                                          "/state/melds/0/0/rank")]


def test_initial_meld_counts_its_points() -> None:
    """Laid as the side's first meld it counts 50 (4..T of spades) toward a minimum of 50."""
    state = cst({0: SPADES_LOW + ["KC", "QD", "5H"]}, turn=PLAY)
    new = after(state, real(*SPADES_LOW))
    assert [m["rank"] for m in new["melds"][0]] == ["real"]
    assert "pending" not in new["turn"]


def test_two_sequences_round_trip_and_stay_apart() -> None:
    state = cst({0: HEARTS + SPADES_LOW + ["5C", "6D"]}, melds=([NINES], []), turn=PLAY)
    new = after(state, real(*HEARTS), real(*SPADES_LOW))
    reals = [m for m in new["melds"][0] if m["rank"] == "real"]
    assert {frozenset(m["cards"]) for m in reals} == {frozenset(HEARTS), frozenset(SPADES_LOW)}
    assert state_to_data(state_from_data(new)) == new
    assert breakdown(new, 0)["canasta_bonus"] == 1000


def test_two_sequences_laid_in_one_turn_read_back_as_the_engine_holds_them() -> None:
    """The turn's record of started melds names every sequence "real" (wire format, turn); the
    engine held the second one under its own number, so the state it made and the same state
    written and read back differed (found by the wide random run, seed 11005)."""
    s = state_from_data(cst({0: HEARTS + SPADES_LOW + ["5C", "6D"]}, melds=([NINES], []),
                            turn=PLAY))
    for cards in (HEARTS, SPADES_LOW):
        s, _ = apply_action(s, action_from_data(real(*cards)))
    assert len([m for m in s.melds[0] if m.rank <= REAL]) == 2
    assert state_from_data(state_to_data(s)) == s


def test_listing_is_exactly_what_apply_accepts() -> None:
    """The exhaustive closure check of the property tests, on states holding sequences."""
    for hands, melds in (({0: HEARTS + ["5C", "6D"]}, ([NINES], [])),
                         ({0: HEARTS + SPADES_LOW + ["5C"]}, ([FOURS_CANASTA], [])),
                         ({0: SPADES_LOW + ["KC", "QD", "5H"]}, ([], []))):
        state = state_from_data(cst(hands, melds=melds, turn=PLAY))
        check_closed(state, list(legal_actions(state)))


KINGS = ["KC", "KD", "KS"]  # 30 points: short of 90 alone, enough with a sequence


def test_minimum_reached_only_with_the_sequence_lists_both_melds() -> None:
    """seed 003 'Mindestanforderung für die erste Meldung' ('mehrere kleinere Meldungen ... im
    selben Zug') and 'Häufige Varianten: Canastra Real'; VARIANTS.md canastra; issue 15 defect 2.
    A side at 1,500 needs 90: the hearts sequence (80) with the kings (30) reach it, neither
    alone. Both are listed, and either order of the two is legal."""
    state = cst({0: HEARTS + KINGS + ["5C", "6D"]}, scores=(1500, 0), turn=PLAY)
    listed = [(a.get("rank"), sorted(a["cards"])) for a in legal_list(state) if a["type"] == "meld"]
    assert ("real", sorted(HEARTS)) in listed
    assert any(rank == "K" and cards == sorted(KINGS) for rank, cards in listed), listed
    for actions in ((real(*HEARTS), {"type": "meld", "cards": KINGS}),
                    ({"type": "meld", "cards": KINGS}, real(*HEARTS))):
        new = after(state, *actions)
        assert {m["rank"] for m in new["melds"][0]} == {"real", "K"}


def test_the_kings_alone_stay_short() -> None:
    """The control of the test above: without the sequence in the hand the kings are refused."""
    state = cst({0: ["AH", "KH", "QH", "JH", "TH", "9H"] + KINGS + ["5C", "6D", "4S"]},
                scores=(1500, 0), turn=PLAY)
    assert refused(state, {"type": "meld", "cards": KINGS}) == (0, "INITIAL_MELD_UNREACHABLE")


def test_ask_when_only_the_sequence_makes_the_canastra() -> None:
    """seed 003 'Ausgehen' 1 (a canastra to go out) and 4 (asking the partner); 'Häufige
    Varianten: Canastra Real' ('gilt als Canastra'); VARIANTS.md canastra; issue 15 defect 2.
    The side has no canastra yet; the hand's sequence is one, so the player may ask and, after a
    yes, go out through it."""
    state = cst({0: HEARTS + ["5C"]}, melds=([NINES], []), turn={**PLAY, "melded": [0]})
    yes = after(state, {"type": "ask"}, {"type": "answer", "allow": True})
    new = after(yes, real(*HEARTS), discard("5C"))
    assert new["turn"]["went_out"] == 0
    assert refused(yes, discard("5C")) == (0, "MUST_GO_OUT")


def test_ways_to_lay_sequences_are_bounded_for_an_absurd_hand() -> None:
    """Issue 17 (CPU bounded): a hand of nearly the whole deck holds suit sequences in about
    200,000 combinations; the feasibility questions try at most ``SEQUENCE_CHOICES`` of them,
    fewest sequences first. A real hand's ways are all tried: two copies of hearts four to ace
    lay none, one of five sequences, or two of them (fifteen pairs)."""
    from canasta_referee.engine import rules_for
    from canasta_referee.engine.cards import counts_of, parse_card
    from canasta_referee.engine.feasible import SEQUENCE_CHOICES, sequence_choices

    rules = rules_for("canastra", REAL_OPTS)
    every = counts_of(tuple(parse_card(r + s) for r in "456789TJQKA" for s in "SHDC" for _ in (0, 1)))
    assert len(sequence_choices(rules, every, {})) == SEQUENCE_CHOICES
    hearts = counts_of(tuple(parse_card(r + "H") for r in "456789TJQKA" for _ in (0, 1)))
    ways = sequence_choices(rules, hearts, {})
    assert len(ways) == 1 + 5 + 15 < SEQUENCE_CHOICES
    assert sorted(len([r for r in melds if r < 0]) for _, melds, _ in ways) == [0] + [1] * 5 + [2] * 15
