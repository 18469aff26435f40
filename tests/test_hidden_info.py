"""The engine answers from what it is given: a player's own view is enough for that player's
legal actions; where a hidden card is needed it answers NEEDS_HIDDEN_INFO (CONTRACT.md,
"State")."""

from __future__ import annotations

import pytest

from engine import api, legal_actions, rules_for, state_to_data
from engine.views import view_for
from tests.playout import playout


@pytest.mark.parametrize("seed", range(40))
def test_own_view_gives_the_same_legal_actions(seed: int) -> None:
    for state, actions in playout(rules_for("classic"), 5000 + seed, check=False):
        if state.turn.phase in ("draw", "play"):
            view = view_for(state, state.turn.seat)
            assert list(legal_actions(view)) == list(actions), state_to_data(state)
            data = state_to_data(view)
            assert api.legal_actions({"state": data})["actions"] == \
                api.legal_actions({"state": state_to_data(state)})["actions"]


def _some_state(phase: str) -> dict:
    for state, _ in playout(rules_for("classic"), 7, check=False):
        if state.turn.phase == phase and state.pile.size > 1:
            return state_to_data(view_for(state, state.turn.seat))
    raise AssertionError("no such state")


def test_drawing_from_a_hidden_stock_needs_the_stock() -> None:
    view = _some_state("draw")
    with pytest.raises(api.OpError) as exc:
        api.apply({"state": view, "actions": [{"type": "draw"}]})
    assert exc.value.code == "NEEDS_HIDDEN_INFO"
    assert exc.value.reason is not None and "stock" in exc.value.reason["message"]
    # checking the same action needs nothing hidden: it is legal
    assert api.check({"state": view, "actions": [{"type": "draw"}]}) == {"legal": True}


def test_listing_for_another_seat_needs_its_hand() -> None:
    for state, _ in playout(rules_for("classic"), 8, check=False):
        if state.turn.phase == "play":
            other = view_for(state, (state.turn.seat + 1) % 4)
            with pytest.raises(api.OpError) as exc:
                api.legal_actions({"state": state_to_data(other)})
            assert exc.value.code == "NEEDS_HIDDEN_INFO"
            return
    raise AssertionError("no play state")


def test_scoring_a_hand_known_only_by_size() -> None:
    for state, _ in playout(rules_for("classic"), 9, check=False):
        if state.turn.phase == "over":
            view = view_for(state, 0)
            with pytest.raises(api.OpError) as exc:
                api.score({"state": state_to_data(view)})
            assert exc.value.code == "NEEDS_HIDDEN_INFO"
            assert api.score({"state": state_to_data(state)})["sides"]
            return
    raise AssertionError("no ended deal")
