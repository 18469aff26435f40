"""The deal's history a state's turn records (``turn.melded``, ``turn.played``) must agree with
its table: the going-out bonuses are judged by it, so a state that contradicts it is refused
(``PHASE_INCONSISTENT``), not scored.

Sources: seed 000 'Ausmachen: So endet die Runde' ('Verdeckt ausmachen: ... ohne vorher etwas
gemeldet zu haben'; pagat "Going Out") and VARIANTS.md classic ("Concealed: ... having made no
meld earlier in the deal"); seed 004 (ASS Altenburger) 'Das Ausmachen' and its closing house
rules, and VARIANTS.md german ("Blatt-Ausmachen", "Handcanasta", ``hand_canasta_low``).
"""

from __future__ import annotations

from typing import Any

import pytest

from canasta_referee.engine import api
from tests.builders import (
    JACKS_CANASTA,
    K3,
    NINES,
    PLAY,
    SEVEN_FIVES,
    Data,
    after,
    breakdown,
    discard,
    lay,
    table,
)


def _problems(state: Data) -> set[tuple[str, str]]:
    return {(p["code"], p["path"]) for p in api.validate({"state": state})["problems"]}


def _with_turn(state: Data, **turn: Any) -> Data:
    """``state`` (valid, built with ``turn`` absent) with these turn fields set afterwards."""
    return {**state, "turn": {**state["turn"], **turn}}


def test_a_seat_listed_as_melded_has_melds_on_its_side() -> None:
    """Seat 1 cannot have melded earlier in the deal while its side has nothing on the table
    (melds stay on the table until the deal ends)."""
    state = _with_turn(table({}, turn=PLAY), melded=[1])
    assert _problems(state) == {("PHASE_INCONSISTENT", "/state/turn/melded/0")}
    message = api.validate({"state": state})["problems"][0]["message"]
    assert "seat 1 is listed as having melded, but its side has no melds" in message
    german = api.validate({"state": state}, lang="de")["problems"][0]["message"]
    assert "Sitz 1 steht als gemeldet" in german


def test_a_side_with_earlier_melds_has_a_listed_seat() -> None:
    """Side 1's nines lie on the table before seat 0's turn: seat 1 or 3 melded earlier."""
    state = _with_turn(table({}, melds=([], [NINES]), turn=PLAY), melded=[])
    assert _problems(state) == {("PHASE_INCONSISTENT", "/state/turn/melded")}
    assert _problems(_with_turn(state, melded=[3])) == set()
    assert _problems(_with_turn(state, melded=[1, 3])) == set()


def test_melds_started_this_turn_need_no_listed_seat() -> None:
    """Seat 0 laid its kings this turn (``started``): its side has melded, but not earlier."""
    state = _with_turn(table({0: ["9C", "8C"]}, melds=([K3], []), turn=PLAY), melded=[],
                       started=["K"])
    assert _problems(state) == set()
    # without ``started`` the kings are from an earlier turn, which no listed seat made
    assert _problems(_with_turn(state, started=[])) == {("PHASE_INCONSISTENT", "/state/turn/melded")}


def test_absent_melded_is_made_from_the_table() -> None:
    """Without ``turn.melded`` every seat of a side with melds counts as having melded."""
    state = table({}, melds=([K3], [NINES]), turn=PLAY)
    assert "melded" not in state["turn"] and _problems(state) == set()


def test_a_contradicting_history_is_not_scored_as_a_handcanasta() -> None:
    """seed 004 'Das Ausmachen' (Handcanasta: the side goes out without any earlier meld);
    VARIANTS.md german. Side 0's jacks canasta lies on the table from an earlier turn: a
    ``melded`` list without seat 0 or 2 would have made going out a Handcanasta of 1,000. The
    state is refused; told truly, going out is plain (100)."""
    hand = ["KD", "KC", "KH", "9C"]
    truthful = table({0: hand}, melds=([JACKS_CANASTA], [NINES]), variant="german",
                     turn={**PLAY, "melded": [0, 1]})
    lying = _with_turn(truthful, melded=[1])
    assert _problems(lying) == {("PHASE_INCONSISTENT", "/state/turn/melded")}
    with pytest.raises(api.OpError) as refused:
        api.apply({"state": lying, "actions": [lay("KD", "KC", "KH"), discard("9C")]})
    assert refused.value.code == "INVALID_STATE"
    new = after(truthful, lay("KD", "KC", "KH"), discard("9C"))
    assert breakdown(new, 0)["going_out"] == 100


def test_a_deal_over_needs_no_listed_seat_for_the_side_that_went_out() -> None:
    """The last turn may lay all of a side's melds: the side that went out is not held to
    ``melded`` once the deal is over (concealed going out lists nobody of it)."""
    hand = ["KD", "KC", "KH", *SEVEN_FIVES, "9C"]
    state = table({0: hand}, turn=PLAY)
    new = after(state, lay(*SEVEN_FIVES), lay("KD", "KC", "KH"), discard("9C"))
    assert new["turn"]["concealed"] is True and _problems(new) == set()
    told = _with_turn(new, melded=[], started=[])
    assert _problems(told) == set()


# --- the first-turn bonus (German ``hand_canasta_low``) counts on ``turn.played`` -----------

LOW = {"hand_canasta_low": True}


@pytest.mark.parametrize("played, dealer, valid", [
    ([], 3, True),             # seat 0 plays first: nobody has finished a turn
    ([1, 2, 3], 0, True),      # seat 0 plays last in the first round
    ([0, 1, 2, 3], 3, True),   # a later round
    ([1, 2, 3], 3, False),     # seat 0 plays first: seats 1-3 cannot have played before him
    ([2], 0, False),           # turns go round from seat 1: seat 1 before seat 2
])
def test_played_follows_the_turn_order(played: list[int], dealer: int, valid: bool) -> None:
    """seed 004, closing house rules ('ein Ausmachen gleich zu Beginn ... 300 Punkte, wenn man
    höchstens eine Karte vom Abhebestoß gezogen hat'); VARIANTS.md german `hand_canasta_low`:
    whether seat 0 goes out on his first turn is read from ``played``, so it must be a list
    the turn order can make (seat 0 at turn)."""
    state = table({0: SEVEN_FIVES + ["4C"]}, variant="german", options=LOW, dealer=dealer,
                  turn={**PLAY, "played": [0, 1, 2, 3]})
    told = _with_turn(state, played=played)
    assert _problems(told) == (set() if valid else {("PHASE_INCONSISTENT", "/state/turn/played")})


def test_a_side_with_earlier_melds_has_played() -> None:
    """Side 1's nines from an earlier turn mean seat 1 or 3 finished a turn: ``played``
    cannot be empty (it was: seat 0 then scored 300 for going out on his first turn)."""
    state = table({0: SEVEN_FIVES + ["4C"]}, melds=([], [NINES]), variant="german", options=LOW,
                  turn={**PLAY, "played": [0, 1, 2, 3]})
    told = _with_turn(state, played=[])
    assert _problems(told) == {("PHASE_INCONSISTENT", "/state/turn/played")}
    assert breakdown(after(state, lay(*SEVEN_FIVES), discard("4C")), 0)["going_out"] == 200


def test_a_listed_seat_has_played() -> None:
    """Seat 1 melded in an earlier turn, so it finished that turn. Seat 0, last of the first
    round (dealer 0), has listed seats 1 and 2 as played but not 3: a history no turn order
    makes, refused for ``played``; with played [1, 2, 3] and melded [3] it is consistent."""
    state = table({0: SEVEN_FIVES + ["4C"]}, melds=([], [NINES]), variant="german", options=LOW,
                  dealer=0, turn={**PLAY, "played": [1, 2, 3], "melded": [3]})
    assert _problems(state) == set()
    assert _problems(_with_turn(state, played=[1, 2])) == {
        ("PHASE_INCONSISTENT", "/state/turn/played")}
    # first round, dealer 1: seats 2 and 3 played before seat 0; seat 1 (listed) did not
    early = _with_turn(table({0: SEVEN_FIVES + ["4C"]}, melds=([], [NINES]), variant="german",
                             options=LOW, dealer=1, turn={**PLAY, "played": [2, 3]}),
                       melded=[1, 3])
    assert _problems(early) == {("PHASE_INCONSISTENT", "/state/turn/melded/0")}


def test_played_is_not_read_without_a_first_turn_bonus() -> None:
    """Classic and German without the house rule give no first-turn bonus: ``played`` decides
    nothing there, and a state that leaves it out (as most clients may) stays valid."""
    for variant, options in (("classic", {}), ("german", {})):
        state = table({}, melds=([K3], [NINES]), variant=variant, options=options, turn=PLAY)
        assert _problems(_with_turn(state, played=[])) == set()
