"""``POST /v1/view`` over the real ASGI app: a seat's view of a state, and the property that
makes views worth having, shown through the HTTP API on states of random deals of every
variant: ``legal-actions`` and ``check`` on the view ``/v1/view`` gives answer exactly as on
the full state, wherever no hidden card decides (then: 422 ``NEEDS_HIDDEN_INFO``). The same
property at the engine level: tests/test_hidden_info.py."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from canasta_referee.engine import Action, action_to_data, rules_for, state_to_data
from canasta_referee.engine.state import State
from canasta_referee.engine.views import view_for
from canasta_referee.schema.models import EXAMPLE_FULL_STATE, EXAMPLE_STATE
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import Settings
from tests.explore import examples
from tests.playout import every_candidate, playout
from tests.test_hidden_info import VIEW_CONFIGS

HTTP = TestClient(create_app(Settings(log_level="warning")), raise_server_exceptions=False)
HIDDEN = "NEEDS_HIDDEN_INFO"


def post(path: str, body: Any, **headers: str) -> tuple[int, Any]:
    r = HTTP.post(path, json=body, headers=headers)
    return r.status_code, r.json()


def view_of(state: dict[str, Any], seat: int) -> dict[str, Any]:
    status, answer = post("/v1/view", {"state": state, "seat": seat})
    assert status == 200, answer
    assert answer["seat"] == seat
    view: dict[str, Any] = answer["state"]
    return view


def position(variant: str, options: dict[str, Any], seed: int, step: int) -> State:
    """The first state in phase draw or play at or after ``step`` of a seeded random deal (or
    its last such state)."""
    found = None
    for i, (state, _) in enumerate(playout(rules_for(variant, options), seed, check=False,
                                           eager=seed % 2 == 1)):
        if state.turn.phase in ("draw", "play"):
            found = state
            if i >= step:
                break
    assert found is not None
    return found


def stock_used_up(state: State) -> State:
    """The same position with the stock used up, as a valid state: its cards go to the seat
    two after the mover (bonus cards laid out for that seat's side), so that the compulsory
    pickup of an empty stock decides ``draw`` (tests/test_hidden_info.py does the same
    without the bonus cards, which the engine does not mind but validation does)."""
    if not state.stock:
        return state
    rules = state.rules
    other = (state.turn.seat + 2) % rules.players
    held = state.hands[other]
    assert held is not None
    hand = list(held)
    laid = [c for c in state.stock if rules.is_bonus_card(c)]
    for card in state.stock:
        if not rules.is_bonus_card(card):
            hand[card] += 1
    side = rules.side_of(other)
    bonus = tuple(tuple(sorted(b + tuple(laid))) if i == side else b
                  for i, b in enumerate(state.bonus))
    hands = tuple(tuple(hand) if i == other else h for i, h in enumerate(state.hands))
    sizes = tuple(sum(h) if i == other and h is not None else n
                  for i, (h, n) in enumerate(zip(hands, state.hand_sizes, strict=True)))
    return state._replace(hands=hands, hand_sizes=sizes, bonus=bonus, stock=(), stock_size=0)


def verdict(body: dict[str, Any], path: str) -> tuple[int, Any] | None:
    """The answer, or None when it is NEEDS_HIDDEN_INFO."""
    status, answer = post(path, body)
    if status == 422 and answer["code"] == HIDDEN:
        return None
    return status, answer


@settings(max_examples=examples(30), deadline=None)
@given(config=st.sampled_from(VIEW_CONFIGS), seed=st.integers(0, 2**20),
       step=st.integers(0, 300), looker=st.integers(0, 5), used_up=st.booleans(),
       rng=st.randoms(use_true_random=False))
def test_a_view_from_the_api_answers_as_the_full_state_unless_a_hidden_card_decides(
        config: tuple[str, dict[str, Any]], seed: int, step: int, looker: int, used_up: bool,
        rng: random.Random) -> None:
    variant, options = config
    state = position(variant, options, seed, step)
    if used_up and state.turn.phase == "draw":
        state = stock_used_up(state)
    full = state_to_data(state)
    candidates = [Action("draw"), *every_candidate(state)]
    sample = [candidates[0], *rng.sample(candidates[1:], min(30, len(candidates) - 1))]
    decided = 0
    # the view of a seat drawn at random, and the mover's own
    for seat in {(state.turn.seat + looker) % state.rules.players, state.turn.seat}:
        view = view_of(full, seat)
        assert view == state_to_data(view_for(state, seat))
        assert post("/v1/validate", {"state": view}) == (200, {"valid": True, "problems": []})
        for action in sample:
            body = [action_to_data(action)]
            seen = verdict({"state": view, "actions": body}, "/v1/check")
            if seen is not None:
                decided += 1
                assert seen == post("/v1/check", {"state": full, "actions": body}), action
        listed = verdict({"state": view}, "/v1/legal-actions")
        if listed is not None:
            assert listed == post("/v1/legal-actions", {"state": full})
        if seat == state.turn.seat:  # the mover's own view lists its actions
            assert listed is not None
    assert decided  # the views decided some actions: the comparison is not empty


def test_the_seat_to_move_decides_everything_it_may_do_on_its_own_view() -> None:
    """On its own view, the seat to move gets every verdict of the full state but a draw's
    (the stock's cards) and a pickup's that needs the pile's cards."""
    decided = compared = 0
    for seed in range(3):
        for state, _ in playout(rules_for("classic"), 40 + seed, check=False):
            if state.turn.phase != "play" or compared > 400:
                continue
            full = state_to_data(state)
            view = view_of(full, state.turn.seat)
            for action in list(every_candidate(state))[:20]:
                body = {"actions": [action_to_data(action)]}
                compared += 1
                seen = verdict({"state": view, **body}, "/v1/check")
                if seen is not None:
                    decided += 1
                    assert seen == post("/v1/check", {"state": full, **body})
    assert compared and decided == compared  # in phase play nothing hidden decides


def test_what_a_seat_sees() -> None:
    full = EXAMPLE_FULL_STATE
    for seat in range(4):
        view = view_of(full, seat)
        for other, hand in enumerate(view["hands"]):
            if other == seat:
                assert hand == sorted(full["hands"][seat], key=_order)
            else:
                assert hand == {"size": len(full["hands"][other])}
        assert view["stock"] == {"size": len(full["stock"])}
        assert view["discard"] == {"top": full["discard"][-1], "size": len(full["discard"]),
                                   "frozen": False}
        assert view["melds"] == post("/v1/apply", {"state": full, "actions": [
            {"type": "draw"}]})[1]["state"]["melds"]  # public: as the table shows them
        assert view["bonus_cards"] == full["bonus_cards"] and view["scores"] == full["scores"]
    # a view of a view: nothing more is hidden, nothing comes back
    once = view_of(full, 2)
    assert view_of(once, 2) == once
    wild = {**full, "discard": [*full["discard"], "2H", "7D"], "stock": full["stock"][:4]
            + full["stock"][5:-2] + full["stock"][-1:]}  # the stock's 2H and last 7D
    assert wild["stock"].count("2H") == full["stock"].count("2H") - 1
    frozen = view_of(wild, 1)["discard"]
    assert frozen == {"top": "7D", "size": len(full["discard"]) + 2, "frozen": True}


def _order(code: str) -> tuple[int, int]:
    """Cards as the referee writes a hand: by rank (2 low, A high), jokers last."""
    if code == "JK":
        return (99, 0)
    return ("23456789TJQKA".index(code[0]), "SHDC".index(code[1]))


def test_held_pile_cards_are_shown_to_the_seat_that_took_them_only() -> None:
    """A side that takes the pile before its initial meld holds the pile's cards back
    (``turn.held``): its own seat sees them, every other seat their number."""
    for seed in range(200):
        for state, _ in playout(rules_for("classic"), seed, check=False, eager=True):
            if state.turn.held:
                full = state_to_data(state)
                mine = view_of(full, state.turn.seat)["turn"]["held"]
                assert mine == full["turn"]["held"] and isinstance(mine, list)
                other = view_of(full, (state.turn.seat + 1) % 4)["turn"]["held"]
                assert other == {"size": len(mine)}
                return
    raise AssertionError("no deal held pile cards back")


def test_refusals() -> None:
    status, answer = post("/v1/view", {"state": EXAMPLE_FULL_STATE, "seat": 4})
    assert status == 422 and answer["code"] == "SEAT_OUT_OF_RANGE"
    assert answer["problems"][0]["path"] == "/seat"
    status, answer = post("/v1/view", {"state": EXAMPLE_FULL_STATE, "seat": 4},
                          **{"Accept-Language": "de"})
    assert answer["detail"] == "Sitz 4 gibt es bei 4 Spielern nicht."
    broken = {**EXAMPLE_STATE, "hands": EXAMPLE_STATE["hands"][:3]}
    status, answer = post("/v1/view", {"state": broken, "seat": 0})
    assert status == 422 and answer["code"] == "INVALID_STATE"
    assert answer["problems"][0]["path"].startswith("/state/")
    for body, path in (({"state": EXAMPLE_STATE}, "/seat"),
                       ({"state": EXAMPLE_STATE, "seat": 8}, "/seat"),
                       ({"state": EXAMPLE_STATE, "seat": 0, "cards": []}, "/cards")):
        status, answer = post("/v1/view", body)
        assert status == 422 and answer["code"] == "MALFORMED_REQUEST"
        assert [p["path"] for p in answer["problems"]] == [path]
    status, answer = post("/v1/view", {"state": {**EXAMPLE_STATE, "variant": "bridge"},
                                       "seat": 0})
    assert status == 422 and answer["code"] == "UNKNOWN_VARIANT"


def test_graphql_views_as_rest_does() -> None:
    query = ("query($s: JSON!, $seat: Int!) { view(state: $s, seat: $seat) { __typename "
             "... on View { seat state } ... on Problem { code } } }")
    for seat, expected in ((3, "View"), (5, "Problem")):
        got = HTTP.post("/graphql", json={"query": query, "variables": {
            "s": EXAMPLE_FULL_STATE, "seat": seat}}).json()["data"]["view"]
        assert got["__typename"] == expected
        status, answer = post("/v1/view", {"state": EXAMPLE_FULL_STATE, "seat": seat})
        if status == 200:
            assert {"seat": got["seat"], "state": got["state"]} == answer
        else:
            assert got["code"] == answer["code"] == "SEAT_OUT_OF_RANGE"
