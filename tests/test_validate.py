"""``validate`` reports every problem of a state at once, each with its code and JSON path
(issue 2: "validate finds planted corruptions")."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from canasta_referee.engine import (
    Action,
    State,
    Turn,
    api,
    rules_for,
    state_from_data,
    state_to_data,
)
from canasta_referee.engine.cards import JOKER, N_CARDS, parse_card, parse_rank
from canasta_referee.engine.play import _evolve, _turn_with
from canasta_referee.engine.wire import _seats, _too_many_copies, action_from_data
from tests.playout import playout


def _states() -> list[dict[str, Any]]:
    """Valid states from a few playouts: fresh deals, mid-deal, after pickups, ended deals."""
    out = []
    rules = rules_for("classic")
    for seed in range(6):
        states = [s for s, _ in playout(rules, seed, check=False)]
        for s in (states[0], states[len(states) // 3], states[2 * len(states) // 3], states[-1]):
            out.append(state_to_data(s))
    return out


STATES = _states()


def problems(state: dict[str, Any]) -> set[tuple[str, str]]:
    answer = api.validate({"state": state})
    assert answer["valid"] == (not answer["problems"])
    return {(p["code"], p["path"]) for p in answer["problems"]}


def first_known_hand(state: dict[str, Any]) -> int:
    return next(i for i, h in enumerate(state["hands"]) if isinstance(h, list) and h)


@pytest.mark.parametrize("index", range(len(STATES)))
def test_playout_states_are_valid(index: int) -> None:
    assert problems(STATES[index]) == set()


def test_a_state_read_has_every_field_and_writes_back_the_same() -> None:
    """``state_from_data`` lists the fields of ``State`` and ``Turn`` in order, not by name: a
    field added to a class and not to the reader, or two swapped, fails here."""
    for data in STATES:
        state = state_from_data(data)
        assert (len(state), len(state.turn)) == (len(State._fields), len(Turn._fields))
        assert state_to_data(state) == data


def test_the_engine_s_fast_tuple_makers_set_every_field_in_order() -> None:
    """``play._turn_with`` and ``play._evolve`` (``_replace`` for the hot path, every field
    listed in order): each field changed alone gives what ``_replace`` gives, the others as
    they were; a field added to ``Turn`` or ``State`` and not to them fails here. The same for
    ``wire.action_from_data`` against ``Action``'s own constructor."""
    state = state_from_data(STATES[1])
    turn = state.turn
    assert len(turn) == len(Turn._fields) == 18 and len(state) == len(State._fields) == 12
    marks = iter(range(1000, 2000))
    for field in [f for f in Turn._fields if f not in ("seat", "played")]:  # a turn keeps these
        value = (next(marks),)
        assert _turn_with(turn, **{field: value}) == turn._replace(**{field: value}), field
    assert _turn_with(turn, held=None, asked=None, went_out=None) == turn._replace(
        held=None, asked=None, went_out=None)
    assert _turn_with(turn) == turn
    for field in State._fields[3:-1]:  # the fields _evolve changes
        value = (next(marks),)
        assert _evolve(state, **{field: value}) == state._replace(**{field: value}), field
    assert _evolve(state) == state
    for data in ({"type": "draw"}, {"type": "meld", "cards": ["AS", "AH"], "rank": "A"},
                 {"type": "discard", "card": "JK"}, {"type": "answer", "allow": True},
                 {"type": "ask", "seat": 2}):
        action = action_from_data(data)
        assert action == Action(
            data["type"], cards=tuple(parse_card(c) for c in data.get("cards", ())),
            rank=parse_rank(data["rank"]) if "rank" in data else None,
            card=parse_card(data["card"]) if "card" in data else None,
            allow=data.get("allow"), seat=data.get("seat"))


@pytest.mark.parametrize("index", range(0, len(STATES), 3))
def test_a_card_beyond_the_deck(index: int) -> None:
    """Two packs hold two of each card: a third copy is reported where it lies, and the total
    no longer matches the deck (pagat "The Cards")."""
    state = copy.deepcopy(STATES[index])
    seat = first_known_hand(state)
    card = state["hands"][seat][0]
    state["hands"][seat] += [card, card]
    found = problems(state)
    assert any(code == "TOO_MANY_COPIES" for code, _ in found)
    assert ("CARD_COUNT_MISMATCH", "/state") in found


def test_the_third_copy_is_reported_at_its_own_path() -> None:
    """The copy beyond the deck is the one met last, in the order hands, melds, pile, stock:
    its path names the list and the index (pagat "The Cards")."""
    state = next(s for s in STATES if s["melds"][0]
                 and any(len(set(m["cards"])) < len(m["cards"]) for m in s["melds"][0]))
    i, meld = next((i, m) for i, m in enumerate(state["melds"][0])
                   if len(set(m["cards"])) < len(m["cards"]))
    card = next(c for c in meld["cards"] if meld["cards"].count(c) == 2)
    second = len(meld["cards"]) - 1 - meld["cards"][::-1].index(card)
    in_stock = copy.deepcopy(state)
    in_stock["stock"].append(card)
    assert ("TOO_MANY_COPIES", f"/state/stock/{len(in_stock['stock']) - 1}") in problems(in_stock)
    in_hand = copy.deepcopy(state)  # hands come first: the meld's second copy is the third met
    in_hand["hands"][first_known_hand(in_hand)].append(card)
    assert ("TOO_MANY_COPIES", f"/state/melds/0/{i}/cards/{second}") in problems(in_hand)
    seat = first_known_hand(state)
    hand_card = state["hands"][seat][-1]
    twice = copy.deepcopy(state)  # two more copies in one hand: the second one added is third
    twice["hands"][seat] += [hand_card, hand_card]
    before = sum(h.count(hand_card) for h in state["hands"][:seat + 1] if isinstance(h, list))
    third = len(state["hands"][seat]) + 2 - before  # two packs: two copies met before it
    assert ("TOO_MANY_COPIES", f"/state/hands/{seat}/{third}") in problems(twice)


@given(st.sampled_from([(2, 2, 4), (6, 3, 6), (2, 1, 2), (2, 4, 8)]),
       st.lists(st.lists(st.integers(0, N_CARDS - 1), max_size=40), max_size=6))
def test_too_many_copies_is_a_count_beyond_the_deck(deck: tuple[int, int, int],
                                                    groups: list[list[int]]) -> None:
    """The quick check that starts the copy report agrees with counting each card against the
    deck's copies of it, jokers apart (VARIANTS.md classic, player table: two packs and four
    jokers; six players: three packs and six jokers); one pack and four packs, which no variant
    deals, take the check's other branches (one pack: a second copy is over; four: a count)."""
    players, packs, jokers = deck
    rules = replace(rules_for("classic", {"players": players}), packs=packs, jokers=jokers)
    counted = [sum(g.count(card) for g in groups) for card in range(N_CARDS)]
    expected = any(n > (jokers if card == JOKER else packs) for card, n in enumerate(counted))
    seen = [("/hands", i, "", tuple(g)) for i, g in enumerate(groups)]
    assert _too_many_copies(rules, seen) == expected


def test_a_fifth_joker_is_reported() -> None:
    """Two packs hold four jokers (pagat "The Cards")."""
    state = copy.deepcopy(STATES[0])
    seat = first_known_hand(state)
    state["hands"][seat].append("JK")
    jokers = sum(h.count("JK") for h in state["hands"] if isinstance(h, list)) + sum(
        m["cards"].count("JK") for side in state["melds"] for m in side) + state["stock"].count(
        "JK") + (state["discard"].count("JK") if isinstance(state["discard"], list) else 0)
    assert jokers == 5
    assert any(code == "TOO_MANY_COPIES" for code, _ in problems(state))


def test_a_missing_card_is_a_count_mismatch() -> None:
    state = copy.deepcopy(STATES[0])
    state["stock"] = state["stock"][1:]
    assert problems(state) == {("CARD_COUNT_MISMATCH", "/state")}


def test_a_red_three_in_a_hand() -> None:
    """Red threes are laid out at once (pagat "Threes in Classic Canasta")."""
    state = copy.deepcopy(STATES[0])
    seat = first_known_hand(state)
    stock_index = next(i for i, c in enumerate(state["stock"]) if c in ("3H", "3D"))
    state["hands"][seat][0], state["stock"][stock_index] = (state["stock"][stock_index],
                                                            state["hands"][seat][0])
    assert problems(state) == {("RED_THREE_IN_HAND", f"/state/hands/{seat}/0")}


def _take(state: dict[str, Any], card: str) -> None:
    """Move ``card`` out of the stock, or out of a hand that gets a stock card in its place."""
    if card in state["stock"]:
        state["stock"].remove(card)
        return
    for hand in state["hands"]:
        if card in hand:
            hand.remove(card)
            spare = next(c for c in state["stock"] if c not in ("3H", "3D"))
            state["stock"].remove(spare)
            hand.append(spare)
            return
    raise AssertionError(f"{card} is not in the stock or a hand")


def _with_meld(cards: list[str], rank: str) -> dict[str, Any]:
    """A fresh deal with a meld for side 0 made of cards taken from the stock or hands."""
    state = copy.deepcopy(STATES[0])
    for card in cards:
        _take(state, card)
    state["melds"][0].append({"rank": rank, "cards": cards})
    state["turn"]["melded"] = [0]  # the dealt state lists none: now side 0 has melded
    return state


@pytest.mark.parametrize(("cards", "rank", "code", "path"), [
    (["KS", "KH", "2C", "2D", "JK", "JK"], "K", "TOO_MANY_WILDS", "/state/melds/0/0"),
    (["KS", "2C", "2D"], "K", "TOO_FEW_NATURALS", "/state/melds/0/0"),
    (["KS", "KH"], "K", "MELD_TOO_SMALL", "/state/melds/0/0"),
    (["KS", "KH", "QD"], "K", "MELD_RANK_MISMATCH", "/state/melds/0/0/cards/2"),
    (["JK", "JK", "2C"], "wild", "WILD_MELD_NOT_ALLOWED", "/state/melds/0/0/rank"),
    (["3S", "3S", "3C"], "3", "BLACK_THREES_ONLY_WHEN_GOING_OUT", "/state/melds/0/0"),
])
def test_melds_that_break_the_rules(cards: list[str], rank: str, code: str, path: str) -> None:
    """Meld rules of pagat "Melds in Classic Canasta" (seed 000 'Meldungen und Canastas')."""
    state = _with_meld(cards, rank)
    assert (code, path) in problems(state)


def test_one_meld_per_rank() -> None:
    state = _with_meld(["KS", "KH", "KD"], "K")
    for card in ["KS", "KH", "KC"]:
        _take(state, card)
    state["melds"][0].append({"rank": "K", "cards": ["KS", "KH", "KC"]})
    assert ("DUPLICATE_MELD_RANK", "/state/melds/0/1/rank") in problems(state)


def test_sizes_that_cannot_be() -> None:
    state = copy.deepcopy(STATES[0])
    seat = first_known_hand(state)
    state["stock"] = state["stock"] + state["hands"][seat]
    state["hands"][seat] = []
    assert problems(state) == {("IMPOSSIBLE_SIZE", f"/state/hands/{seat}")}


def test_wrong_numbers_of_seats_and_sides() -> None:
    state = copy.deepcopy(STATES[0])
    state["hands"] = state["hands"][:3]
    state["scores"] = [0, 0, 0]
    assert problems(state) == {("SEAT_COUNT_MISMATCH", "/state/hands"),
                               ("SIDE_COUNT_MISMATCH", "/state/scores")}


def test_a_phase_that_contradicts_the_rest() -> None:
    state = copy.deepcopy(STATES[0])
    state["turn"]["phase"] = "over"
    found = problems(state)
    assert ("PHASE_INCONSISTENT", "/state/turn") in found
    state = copy.deepcopy(STATES[0])
    state["turn"].update(phase="draw", drawn=True)
    assert problems(state) == {("PHASE_INCONSISTENT", "/state/turn")}


def test_a_bonus_card_that_is_no_red_three() -> None:
    state = copy.deepcopy(STATES[0])
    card = state["stock"].pop(0)
    if card in ("3H", "3D"):
        pytest.fail("seeded deal changed")
    state["bonus_cards"][1].append(card)
    assert ("NOT_A_BONUS_CARD", f"/state/bonus_cards/1/{len(state['bonus_cards'][1]) - 1}") in \
        problems(state)


def test_every_problem_at_once() -> None:
    """Several planted problems are all reported, not just the first."""
    state = copy.deepcopy(STATES[0])
    seat = first_known_hand(state)
    state["turn"]["seat"] = 0
    state["bonus_cards"][0].append(state["stock"].pop(0))
    state["melds"][1].append({"rank": "Q", "cards": [state["stock"].pop(), "JK"]})
    state["hands"][seat].append(state["hands"][seat][0])
    codes = {code for code, _ in problems(state)}
    assert {"NOT_A_BONUS_CARD", "CARD_COUNT_MISMATCH"} <= codes
    assert len(codes) >= 3


def test_unknown_variant_and_option() -> None:
    state = copy.deepcopy(STATES[0])
    state["variant"] = "bridge"
    assert problems(state) == {("UNKNOWN_VARIANT", "/state/variant")}
    state = copy.deepcopy(STATES[0])
    state["options"]["jokers_wild"] = True
    assert problems(state) == {("UNKNOWN_OPTION", "/state/options/jokers_wild")}
    state = copy.deepcopy(STATES[0])
    state["options"]["players"] = 5
    assert problems(state) == {("BAD_OPTION_VALUE", "/state/options/players")}


def test_wire_model_examples_are_valid_states() -> None:
    """The examples the wire models publish (OpenAPI later) are states the engine accepts."""
    from canasta_referee.schema import models

    for example in (models.EXAMPLE_STATE, models.EXAMPLE_STATE_AFTER):
        state = models.State.model_validate(example).model_dump(mode="json")
        assert api.validate({"state": state}) == {"valid": True, "problems": []}


# ---------------------------------------------------------------- Modern American (seed 001)


def _modern_deal() -> dict[str, Any]:
    return api.deal({"variant": "modern-american", "seed": 4})["state"]


def _modern_with_meld(cards: list[str], rank: str) -> dict[str, Any]:
    state = _modern_deal()
    for card in cards:
        _take(state, card)
    state["melds"][0].append({"rank": rank, "cards": cards})
    state["turn"]["melded"] = [0]  # the dealt state lists none: now side 0 has melded
    return state


def test_modern_deal_is_valid_with_black_threes_as_bonus_cards() -> None:
    """Seed 001 'Dreien': every three is laid out; black threes are bonus cards too."""
    state = _modern_deal()
    state["bonus_cards"][0].append("3S")
    _take(state, "3S")
    assert problems(state) == set()


@pytest.mark.parametrize(("cards", "rank", "code", "path"), [
    (["KS", "KH", "KD", "KC", "KS", "KH", "KD", "2C"], "K", "MELD_TOO_BIG", "/state/melds/0/0"),
    (["7S", "7H", "7D", "2C"], "7", "RANK_TAKES_NO_WILDS", "/state/melds/0/0"),
    (["KS", "KH", "2C", "2D", "JK"], "K", "TOO_MANY_WILDS", "/state/melds/0/0"),
    (["JK", "2C"], "wild", "MELD_TOO_SMALL", "/state/melds/0/0"),
    (["JK", "2C", "2D", "2S", "2H", "2C", "2D", "JK"], "wild", "MELD_TOO_BIG", "/state/melds/0/0"),
    (["JK", "2C", "KS"], "wild", "NOT_A_VALID_MELD", "/state/melds/0/0"),
])
def test_modern_melds_that_break_the_rules(cards: list[str], rank: str, code: str,
                                           path: str) -> None:
    """Seed 001 'Auslagen' (three to seven cards, at most two wild), 'Siebenen und Asse',
    'Auslagen aus wilden Karten' (three to seven twos and jokers)."""
    assert (code, path) in problems(_modern_with_meld(cards, rank))


def test_modern_wild_meld_is_valid() -> None:
    assert problems(_modern_with_meld(["JK", "2C", "2D"], "wild")) == set()


def test_modern_threes_never_in_hand_or_pile() -> None:
    """Seed 001 'Dreien': threes are laid out at once and never discarded; a three stays in
    the hand only when drawn as the last stock card, which ends the deal."""
    state = _modern_deal()
    threes = [c for c in state["stock"] if c[0] == "3"]
    assert len(threes) >= 2
    seat = first_known_hand(state)
    for card in threes[:2]:
        state["stock"].remove(card)
    state["stock"].append(state["hands"][seat][0])
    state["hands"][seat][0] = threes[0]
    state["discard"] = [threes[1]]
    found = problems(state)
    assert ("THREE_IN_HAND", f"/state/hands/{seat}/0") in found
    assert ("THREE_IN_PILE", "/state/discard/0") in found


@given(st.lists(st.integers(0, 7), max_size=10))
def test_seat_lists_are_read_sorted_without_repeats(seats: list[int]) -> None:
    """``asked_this_deal``, ``melded`` and ``played`` (docs/wire-format.md, "Turn") name sets
    of seats: whatever order or repeats a client sends, the state holds
    them sorted, once each; a list already so is taken as it is."""
    assert _seats(seats) == tuple(sorted(set(seats)))


def test_the_ruleset_a_state_names_is_its_own_whatever_came_before() -> None:
    """``wire.rules_of`` remembers the last options of each variant and compares the next
    ones with them as they are: True is not 1, other values, names, orders and a changed
    dict each get their own answer (a speed shortcut that must never answer for another
    ruleset)."""
    from canasta_referee.engine.reasons import UnknownRules
    from canasta_referee.engine.wire import rules_of

    def named(options: dict[str, Any]) -> Any:
        return rules_of({"variant": "classic", "options": options})

    four = {"players": 4, "natural_majority": True}
    assert named(four).players == 4 and named(four).natural_majority is True
    with pytest.raises(UnknownRules):  # 1 for True: refused, not the remembered ruleset
        named({"players": 4, "natural_majority": 1})
    assert named({"players": 4, "natural_majority": False}).natural_majority is False
    assert named({"natural_majority": True, "players": 4}) is named(four)  # another order
    assert named({"players": 2}).players == 2 and named({}).players == 4
    given = {"players": 3}
    assert named(given).players == 3
    given["players"] = 2  # the caller's dict changed: not taken for the one remembered
    assert named(given).players == 2
    with pytest.raises(UnknownRules):
        named({"players": True})
    assert rules_of({"variant": "german", "options": {}}).id != named({}).id


@pytest.mark.parametrize(("variant", "options", "freezes"), [
    ("family", {}, False), ("canastra", {}, False), ("canastra", {"freeze": "wild"}, True),
    ("canastra", {"freeze": "always"}, True), ("classic", {}, True),
    ("modern-american", {}, True)])
def test_a_pile_view_frozen_where_nothing_freezes_it(variant: str, options: dict[str, Any],
                                                      freezes: bool) -> None:
    """A pile seen as ``{"top", "size", "frozen"}`` says ``frozen`` only where a card can freeze
    it for everybody: seed 002 has no freezing rule (VARIANTS.md family), and Canastra's pile
    freezes only under its `freeze` house rules (seed 003; VARIANTS.md canastra, option
    `freeze`). Elsewhere the flag contradicts the rules: PILE_VIEW_INCONSISTENT at its path,
    not a refusal to take the pile later with an empty reason."""
    from tests.builders import table

    data = table({0: ["KH", "KS", "5S", "6S", "7S"]}, discard=["9C", "KD"], variant=variant,
                 options=options, turn={"seat": 0, "phase": "draw"})
    data["discard"] = {"top": "KD", "size": 2, "frozen": True}
    problems = api.validate({"state": data})["problems"]
    wrong = [p for p in problems if p["code"] == "PILE_VIEW_INCONSISTENT"]
    if freezes:
        assert problems == []
    else:
        assert [p["path"] for p in wrong] == ["/state/discard/frozen"]
        assert problems == wrong


def _view_of(hand: list[str], pile: list[str], variant: str = "classic",
             options: dict[str, Any] | None = None) -> dict[str, Any]:
    from tests.builders import table

    state = table({0: hand}, discard=pile, variant=variant, options=options)
    view: dict[str, Any] = api.view({"state": state, "seat": 0})["state"]
    assert problems(view) == set(), "the service's own view is valid"
    return view


def test_a_pile_view_agrees_with_what_can_be_seen() -> None:
    """A pile seen as ``{"top", "size", "frozen"}`` (docs/wire-format.md, the state): its top
    card counts against the deck (a third KD is one copy too many), and ``frozen`` says what
    can be seen: not for an empty pile, nor for a pile of one plain card; always where the top
    card freezes it (a wild card, or a black three under Canastra's option `freeze:
    wild-or-black-three`: seed 003 'Häufige Varianten')."""
    third = _view_of(["KD", "KD", "4S", "5S"], ["5S", "9H", "KC"])
    third["discard"]["top"] = "KD"
    assert ("TOO_MANY_COPIES", "/state/discard/top") in problems(third)
    one = _view_of(["KC", "KH", "4S", "5S"], ["9H"])
    one["discard"]["frozen"] = True
    assert problems(one) == {("PILE_VIEW_INCONSISTENT", "/state/discard/frozen")}
    empty = copy.deepcopy(one)
    empty["discard"] = {"top": None, "size": 0, "frozen": True}
    empty["stock"]["size"] += 1
    assert problems(empty) == {("PILE_VIEW_INCONSISTENT", "/state/discard/frozen")}
    black = _view_of(["KC", "KH", "4S", "5S"], ["9H", "3S"], "canastra",
                     {"freeze": "wild-or-black-three"})
    assert black["discard"]["frozen"] is True
    black["discard"]["frozen"] = False
    assert problems(black) == {("PILE_VIEW_INCONSISTENT", "/state/discard/frozen")}
    # a pile of one wild card is frozen, and a bigger one may hold a card that freezes it
    wild = _view_of(["KC", "KH", "4S", "5S"], ["2C"])
    assert wild["discard"]["frozen"] is True
    two = _view_of(["KC", "KH", "4S", "5S"], ["9H", "8H"])
    two["discard"]["frozen"] = True
    assert problems(two) == set()


@pytest.mark.parametrize("first", ["valid", "wrong types"])
def test_the_ruleset_remembered_is_the_same_words_only(first: str) -> None:
    """``wire.rules_of`` remembers the last options of each variant: the same names in the same
    order with equal values of the same types. Options whose values swap types between two
    names ({"a": false, "b": 0} against {"b": false, "a": 0}) are other words: remembered as
    equal, a request's answer turned on what another client sent before it."""
    from canasta_referee.engine.reasons import UnknownRules
    from canasta_referee.engine.wire import rules_of

    valid = {"variant": "classic", "options": {"natural_majority": False,
                                               "red_three_card_points": 0}}
    wrong = {"variant": "classic", "options": {"red_three_card_points": False,
                                               "natural_majority": 0}}
    for _ in range(2):
        for data in ((valid, wrong) if first == "valid" else (wrong, valid)):
            if data is valid:
                assert rules_of(data).id == "classic"
            else:
                with pytest.raises(UnknownRules):
                    rules_of(data)
