"""The engine answers from what it is given: a player's own view is enough for that player's
legal actions; where a hidden card is needed it answers NEEDS_HIDDEN_INFO (CONTRACT.md,
"State")."""

from __future__ import annotations

from typing import Any

import pytest

from canasta_referee.engine import (
    VARIANTS,
    Action,
    State,
    api,
    check_actions,
    legal_actions,
    rules_for,
    state_to_data,
)
from canasta_referee.engine.play import NeedsHiddenInfo
from canasta_referee.engine.views import view_for
from tests.playout import every_candidate, playout


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


# --- views agree with the full state wherever no hidden card decides (issue 15) ---------------

VIEW_CONFIGS = [(v.id, o) for v in VARIANTS for o in v.configurations[:2]] + [
    ("canastra", {"freeze": "wild-or-black-three"}), ("canastra", {"canastra_real": True}),
    ("german", {"players": 3})]


def _verdict(state: State, action: Action) -> str:
    """``legal``, the refusal's code, or ``hidden`` when it needs a card the state hides."""
    found = check_actions(state, [action])
    if found is None:
        return "legal"
    return "hidden" if found[1].code == "NEEDS_HIDDEN_INFO" else found[1].code


def _stock_used_up(state: State) -> State:
    """The same position with the stock used up: its cards go to the seat two after the mover
    (the compulsory pickup of pagat "Going Out" then decides ``draw``)."""
    if not state.stock:
        return state
    other = (state.turn.seat + 2) % state.rules.players
    held = state.hands[other]
    assert held is not None
    hand = list(held)
    for card in state.stock:
        hand[card] += 1
    hands = tuple(tuple(hand) if i == other else h for i, h in enumerate(state.hands))
    sizes = tuple(s + len(state.stock) if i == other else s for i, s in enumerate(state.hand_sizes))
    return state._replace(hands=hands, hand_sizes=sizes, stock=(), stock_size=0)


@pytest.mark.parametrize(("variant", "options"), VIEW_CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in VIEW_CONFIGS])
def test_a_view_answers_as_the_full_state_unless_a_hidden_card_decides(
        variant: str, options: dict[str, Any]) -> None:
    """Issue 15 defect 4, as a class: for every candidate action (and ``draw`` with the stock
    used up), ``check`` on the view of another seat (the mover's hand a size, the stock a size,
    the pile its top) answers what the full state answers, or NEEDS_HIDDEN_INFO; the legal
    actions too, where the view can list them."""
    rules = rules_for(variant, options)
    compared = decided = 0
    for seed in range(300, 306):
        for state, _ in playout(rules, seed, check=False, eager=seed % 2 == 1):
            if state.turn.phase not in ("draw", "play"):
                continue
            for full in (state, _stock_used_up(state)) if state.turn.phase == "draw" else (state,):
                seat = (full.turn.seat + 1) % rules.players
                view = view_for(full, seat)
                for action in [Action("draw"), *every_candidate(full)]:
                    seen = _verdict(view, action)
                    compared += 1
                    if seen != "hidden":
                        decided += 1
                        assert seen == _verdict(full, action), (action, state_to_data(full))
                try:
                    listed = list(legal_actions(view))
                except NeedsHiddenInfo:
                    continue
                assert listed == list(legal_actions(full))
    assert decided and compared  # the views decided some actions: the comparison is not empty


def _wire_verdict(state: dict[str, Any], action: dict[str, Any]) -> tuple[bool, str | None] | str:
    """check's verdict on one action, or the code of the problem it answers instead."""
    try:
        answer = api.check({"state": state, "actions": [action]})
    except api.OpError as exc:
        return exc.code
    return answer["legal"], (answer.get("reason") or {}).get("code")


def _own_view(state: dict[str, Any]) -> dict[str, Any]:
    view: dict[str, Any] = api.view({"state": state, "seat": state["turn"]["seat"]})["state"]
    return view


@pytest.mark.parametrize(("hand", "melds", "pile", "cards", "full"), [
    # two red threes turned up at the deal lie under the top (they go to the bonus cards, so
    # no card of the pile joins the hand): whether the hand must keep two cards turns on them
    (["7C", "7H", "4S", "4H", "4D", "5S", "5H", "5D", "6S", "6H", "6D"], [], ["3H", "3D", "7S"],
     ["7C", "7H"], (False, "INITIAL_MELD_UNREACHABLE")),
    # the hand opens only by laying every card: then the 4C under the top goes out with them
    (["7C", "7C", "7H", "7H", "7D", "7D", "4S", "4H", "4D"], [], ["4C", "7S"], ["7C", "7C"],
     (True, None)),
    # one card left with the pile's: whether it goes out (a canasta needed) turns on that card
    (["7C", "7C"], [{"rank": "K", "cards": ["KS", "KH", "KD"]}], ["5S", "7S"], ["7C", "7C"],
     (False, "CANNOT_GO_OUT_WITHOUT_CANASTA")),
])
def test_a_take_that_turns_on_the_pile_s_cards_needs_them(hand: list[str], melds: list[Any],
                                                          pile: list[str], cards: list[str],
                                                          full: tuple[bool, str | None]) -> None:
    """docs/wire-format.md, hidden cards: on a view, legal-actions and check answer as on the
    full state where no hidden card decides, else NEEDS_HIDDEN_INFO, never another verdict. A
    seat's own view shows the pile's top card and size: where the take's verdict turns on the
    cards under it, the answer is NEEDS_HIDDEN_INFO (it was a definite, and here wrong,
    answer)."""
    from tests.builders import table

    state = table({0: hand}, melds=[melds, []], discard=pile)
    take = {"type": "take-pile", "cards": cards}
    assert _wire_verdict(state, take) == full
    view = _own_view(state)
    assert _wire_verdict(view, take) == "NEEDS_HIDDEN_INFO"
    with pytest.raises(api.OpError) as exc:
        api.legal_actions({"state": view})
    assert exc.value.code == "NEEDS_HIDDEN_INFO"


def test_a_take_that_cannot_open_whatever_the_pile_holds_is_refused_on_the_view() -> None:
    """docs/wire-format.md, hidden cards: where the hand cannot reach the initial minimum even
    laying every card, no card under the top can help: the view refuses the take as the full
    state does, and lists the rest."""
    from tests.builders import table

    state = table({0: ["6S", "6D", "6C", "7S", "AH", "AC", "QC", "3C", "4C"]},
                  discard=["JK", "QD", "8C", "JS", "6H"])
    take = {"type": "take-pile", "cards": ["6S", "6D"]}
    assert _wire_verdict(state, take) == (False, "INITIAL_MELD_UNREACHABLE")
    view = _own_view(state)
    assert _wire_verdict(view, take) == (False, "INITIAL_MELD_UNREACHABLE")
    assert api.legal_actions({"state": view})["actions"] == api.legal_actions(
        {"state": state})["actions"]
