"""Issue 19: the native writer of a state (``state_text`` in schema/_text.c) writes the text
orjson writes for ``engine.wire.state_to_data`` (the service's ``apply`` and ``view`` answers
carry it as it is), for every configuration of every variant, every state of seeded deals, each
seat's view, and the parts a deal rarely shows; it refuses what is not such a state (the
service then writes the state's data), and it has no memory errors under memcheck."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest

from canasta_referee.engine import api, rules_for, wire
from canasta_referee.engine.cards import REAL
from canasta_referee.engine.state import Meld, Pile, State, Turn, meld_of
from canasta_referee.engine.views import view_for
from canasta_referee.schema import handlers, text
from tests import memcheck
from tests.playout import playout
from tests.test_properties import CONFIGS

Writer = Callable[..., str]
#: fewer deals under memcheck (test_native_state_writer_has_no_memory_errors_under_memcheck)
SEEDS = range(1) if os.environ.get("STATE_TEXT_MEMCHECK") else range(4)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Writer:
    """``state_text`` compiled from schema/_text.c into a temporary folder."""
    writer: Writer = memcheck.native_module(tmp_path_factory.mktemp("native")).state_text
    return writer


def written(state: State) -> str:
    return orjson.dumps(wire.state_to_data(state)).decode()


def native_text(native: Writer, state: State) -> str:
    return native(wire.QUOTED, text.RANK_TEXTS, text.head(state.rules), state)


def states(variant: str, options: dict[str, Any], seeds: range) -> list[State]:
    rules = rules_for(variant, options)
    return [state for seed in seeds
            for state, _ in playout(rules, seed, check=False, eager=seed % 2 == 0)]


def test_the_writer_reads_the_engine_tuples_fields_where_they_are() -> None:
    """schema/_text.c reads a state's parts by their place in the engine's named tuples."""
    assert State._fields == ("rules", "dealer", "scores", "hands", "hand_sizes", "melds",
                             "bonus", "pile", "stock", "stock_size", "turn", "set_aside")
    assert Turn._fields == ("seat", "phase", "drawn", "took_pile", "pending", "held",
                            "held_size", "asked", "asked_this_deal", "melded", "started",
                            "extended", "went_out", "concealed", "partner_melded",
                            "stock_exhausted", "played", "going_out")
    assert Meld._fields[:2] == ("rank", "cards") and len(Meld._fields) == 4
    assert Pile._fields == ("cards", "top", "size", "frozen")


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_native_state_text_is_what_orjson_writes(native: Writer, variant: str,
                                                 options: dict[str, Any]) -> None:
    """Every state of seeded deals (half of them played eagerly: canastas, going out) and,
    every fifth, each seat's view (hands and stock by size, the pile by its top)."""
    over = views = 0
    for i, state in enumerate(states(variant, options, SEEDS)):
        assert native_text(native, state) == written(state)
        over += state.turn.phase == "over"
        if i % 5 == 0:
            for seat in range(state.rules.players):
                seen = view_for(state, seat)
                views += 1
                assert native_text(native, seen) == written(seen)
    assert over and views


def test_native_state_text_of_the_rare_parts(native: Writer) -> None:
    """Pending melds, held pile cards (Canastra), cards set aside (Family), a question asked,
    ranks started this turn, a meld extended, wild melds, and a Canastra Real sequence."""
    kinds: dict[str, int] = {}
    for variant, options in CONFIGS:
        if variant not in ("canastra", "family", "modern-american", "german"):
            continue
        for state in states(variant, options, range(4, 5 + len(SEEDS))):
            out = native_text(native, state)
            assert out == written(state)
            turn = state.turn
            for kind, present in (("pending", turn.pending), ("held", turn.held_size),
                                  ("set_aside", state.set_aside), ("asked", turn.asked),
                                  ("started", turn.started), ("extended", turn.extended),
                                  ("wild", '"rank":"wild"' in out)):
                kinds[kind] = kinds.get(kind, 0) + bool(present)
    assert all(kinds.values()), kinds
    base = states("canastra", {"canastra_real": True}, range(1))[3]
    sequence = meld_of(REAL, tuple(4 * rank + 1 for rank in range(4, 11)))  # 6 to Q of hearts
    real = base._replace(melds=((sequence,), ()),
                         turn=base.turn._replace(started=(REAL,), pending=(sequence,)))
    assert '"rank":"real"' in native_text(native, real)
    assert native_text(native, real) == written(real)
    # German: a take whose pile cards joined the hand for going out at once (turn.going_out)
    released = wire.state_from_data(handcanasta_take())
    assert released.turn.going_out
    assert '"going_out":true' in native_text(native, released)
    assert native_text(native, released) == written(released)


def handcanasta_take() -> dict[str, Any]:
    """A German state just after a take short of the minimum that goes out at once
    (tests/test_german_rules.py: Handcanasta after taking the pile)."""
    from tests.test_german_rules import _hand_out

    taken: dict[str, Any] = api.apply({"state": _hand_out(), "actions": [
        {"type": "take-pile", "cards": ["5S", "5H"]}]})["state"]
    assert taken["turn"]["going_out"] is True
    return taken


def test_option_values_and_the_kept_heads(native: Writer) -> None:
    """Option values of each kind an option takes (integers, booleans, none, strings, those
    orjson escapes too) are written as orjson writes them (the head is its text); a head that
    is not ASCII is refused, and ``schema.text.state_json`` then gives the state's data; more
    rulesets than are kept empty the table of heads instead of growing it."""
    base = states("classic", {}, range(1))[0]
    plain: list[Any] = [0, -1, 10**15, True, False, None, "cover", "wild-or-black-three"]
    for n in range(2 * text.HEADS_KEPT + 10):
        rules = replace(base.rules, options=(("house", plain[n % len(plain)]), ("n", n)))
        state = base._replace(rules=rules)
        assert native_text(native, state) == written(state)
        assert orjson.dumps({"s": text.state_json(state, native)}) == orjson.dumps(
            {"s": wire.state_to_data(state)})
        assert len(text._HEADS) <= text.HEADS_KEPT
    for odd in ('a"b', "a\\b", "tab\there", "\u0001", "grün", "日本"):
        state = base._replace(rules=replace(base.rules, options=(("house", odd),)))
        if odd.isascii():  # the head is orjson's text, escapes and all
            assert native_text(native, state) == written(state)
        else:
            with pytest.raises(TypeError):
                native_text(native, state)
            assert text.state_json(state, native) == wire.state_to_data(state)
        assert orjson.dumps({"s": text.state_json(state, native)}) == orjson.dumps(
            {"s": wire.state_to_data(state)})


def _bad_states(state: State) -> list[tuple[str, State]]:
    turn, pile = state.turn, state.pile
    return [
        ("a card past the deck", state._replace(stock=(*(state.stock or ()), 99))),
        ("a negative card", state._replace(stock=(-1,))),
        ("a card of another type", state._replace(stock=("QS",))),  # type: ignore[arg-type]
        ("a bool for a number", state._replace(dealer=True)),
        ("a list for a tuple", state._replace(scores=[0, 0])),  # type: ignore[arg-type]
        ("a hand of too many counts", state._replace(hands=((0,) * 60, *state.hands[1:]))),
        ("a count out of range", state._replace(hands=((-1,) * 3, *state.hands[1:]))),
        ("a size missing", state._replace(hand_sizes=state.hand_sizes[:-1])),
        ("a short turn", state._replace(turn=turn[:5])),  # type: ignore[arg-type]
        ("a short pile", state._replace(pile=pile[:2])),  # type: ignore[arg-type]
        ("a short state", state[:6]),  # type: ignore[arg-type]
        ("a phase to escape", state._replace(turn=turn._replace(phase='dr"aw'))),
        ("a phase not a str", state._replace(turn=turn._replace(phase=3))),  # type: ignore[arg-type]
        ("a rank out of range", state._replace(turn=turn._replace(started=(13,)))),
        ("a rank between wild and real", state._replace(turn=turn._replace(started=(-5,)))),
        ("a frozen flag not a bool", state._replace(
            pile=Pile(None, 3, 1, 1), stock=None)),  # type: ignore[arg-type]
        ("a meld too short", state._replace(melds=(((1, (4, 5)),), ()))),  # type: ignore[arg-type]
        ("a huge number", state._replace(dealer=10**30)),
    ]


def test_native_state_text_refuses_what_is_not_a_state(native: Writer) -> None:
    """Each wrong part raises TypeError, ValueError or OverflowError: never a crash, never
    wrong text (the engine makes no such state; its inputs are checked all the same)."""
    state = states("classic", {}, range(1))[5]
    head = text.head(state.rules)
    for _, bad in _bad_states(state):
        with pytest.raises((TypeError, ValueError, OverflowError)):
            native(wire.QUOTED, text.RANK_TEXTS, head, bad)
    with pytest.raises(ValueError):
        native(wire.QUOTED, text.RANK_TEXTS[:3], text.head(state.rules), state)
    with pytest.raises(TypeError):
        native(wire.QUOTED, text.RANK_TEXTS, text.head(state.rules), list(state))
    with pytest.raises(TypeError):
        native(list(wire.QUOTED), text.RANK_TEXTS, text.head(state.rules), state)


def test_the_service_answers_apply_and_view_the_same_with_the_writer(native: Writer) -> None:
    """``apply`` and ``view`` through ``handlers.run`` with the native writer (the service's
    way) render to the same bytes as with the state's data (the command line's)."""
    answered = 0
    for variant, options in CONFIGS[::2]:
        for state in states(variant, options, range(2))[::9]:
            data = wire.state_to_data(state)
            actions = api.legal_actions({"state": data})["actions"][:1]
            for op, request in (("apply", {"state": data, "actions": actions}),
                                ("view", {"state": data, "seat": 0})):
                if op == "apply" and not actions:
                    continue
                plain = handlers.run(op, request)
                fast = handlers.run(op, request, as_json=text.fragment,
                                    state_json=lambda s: text.state_json(s, native))
                assert plain[0] == fast[0] == 200
                assert orjson.dumps(plain[1]) == orjson.dumps(fast[1])
                assert isinstance(fast[1]["state"], orjson.Fragment)
                answered += 1
    assert answered > 20


def test_without_the_native_writer_the_state_is_its_data() -> None:
    state = states("classic", {}, range(1))[2]
    assert text.state_json(state, None) == wire.state_to_data(state)


def test_native_state_writer_has_no_memory_errors_under_memcheck(tmp_path: Path) -> None:
    """The tests above that call the native writer, run again under valgrind's memcheck (one
    deal per configuration): nothing reported in schema/_text.c."""
    memcheck.assert_clean(__file__, "native and not memcheck", "STATE_TEXT_MEMCHECK",
                          "_text.c", tmp_path)
