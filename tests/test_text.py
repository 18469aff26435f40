"""The native writer of legal-action lists (schema/_text.c, used by schema/text.py when the wheel
carries it) writes exactly what the pure-Python one (``engine.wire.actions_json``) writes, and
refuses malformed input with TypeError, ValueError or OverflowError: it never crashes, whatever
it is given.

The editable install the tests run on has no compiled modules, so the extension is compiled
here from the checkout's source, as bench/compiled.py builds it (setuptools and the C compiler
a wheel build uses too)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.http import bodies
from canasta_referee.engine import VARIANTS, legal_actions, rules_for, state_from_data, wire
from canasta_referee.schema import text
from tests import memcheck
from tests.playout import playout

ROOT = Path(__file__).resolve().parent.parent
Writer = Callable[..., str]


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Writer:
    """``actions_text`` compiled from schema/_text.c into a temporary folder."""
    writer: Writer = memcheck.native_module(tmp_path_factory.mktemp("native")).actions_text
    return writer


class Counted:
    """The native writer, counting the lists it wrote: a refusal (which the engine answers by
    writing the list itself) would leave a list uncounted, so it cannot pass unseen."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.written = 0

    def __call__(self, *args: Any) -> str:
        out = self.writer(*args)
        self.written += 1
        return out


def test_the_editable_install_writes_with_the_pure_writer() -> None:
    """No compiled writer here: schema.text falls back to the engine's (the wheel test in
    tests/test_compiled.py checks that a wheel carries and uses the native one)."""
    assert text.WRITER == "python"


@pytest.mark.parametrize(("variant", "options"),
                         [(v.id, o) for v in VARIANTS for o in v.configurations],
                         ids=lambda x: str(x))
def test_native_text_is_the_pure_text_on_whole_deals(native: Writer, variant: str,
                                                     options: dict[str, Any]) -> None:
    """Eager playouts (melds of naturals, of twos and jokers only, long lists) of every
    variant configuration: the same text, byte for byte, for every list on the way."""
    rules = rules_for(variant, options)
    counted = Counted(native)
    lists = 0
    for seed in range(70_000, 70_006):
        for _, actions in playout(rules, seed, check=False, eager=seed % 2 == 0):
            assert text.actions_json(actions, counted) == wire.actions_json(actions)
            lists += bool(actions.blocks)
    assert lists, "no list with melds was written"
    assert counted.written == lists, "the native writer refused some lists"


def test_native_text_of_the_long_six_player_list(native: Writer) -> None:
    """The benchmarks' six-player state: 193 actions in ten blocks of melds, then discards."""
    actions = legal_actions(state_from_data(bodies()["legal-actions"][0]["state"]))
    assert len(actions) == 193 and len(actions.blocks) == 10
    counted = Counted(native)
    written = text.actions_json(actions, counted)
    assert counted.written == 1
    assert written == wire.actions_json(actions)
    assert json.loads(written) == [wire.action_to_data(a) for a in actions]


def test_native_text_of_other_sequences_is_the_pure_text(native: Writer) -> None:
    """A plain list of actions (no blocks) and an empty one go to the pure writer."""
    actions = legal_actions(state_from_data(bodies()["legal-actions"][0]["state"]))
    assert text.actions_json(list(actions), native) == wire.actions_json(actions)
    assert text.actions_json([], native) == "[]"


@pytest.mark.parametrize("error", [TypeError, ValueError, OverflowError, SystemError])
def test_a_native_writer_that_refuses_its_pieces_leaves_the_list_to_the_pure_one(
        error: type[Exception]) -> None:
    """Should the native writer ever refuse what the engine hands it (a bug), with any of the
    exceptions it raises, the answer is still written, by the pure writer, not a 500."""
    actions = legal_actions(state_from_data(bodies()["legal-actions"][0]["state"]))
    calls: list[int] = []

    def refusing(*args: Any) -> str:
        calls.append(len(args))
        raise error("malformed meld blocks")

    assert text.actions_json(actions, refusing) == wire.actions_json(actions)
    assert calls == [10]


def arguments() -> list[Any]:
    """Well-formed arguments: two blocks, three choices of wild cards, head, tail, discards."""
    return [("a", "b", "c"), ['{"h":1}'], "M[", [(0, [0, 1], [(2, 0, 3), (1, 1, 2)]),
                                                (1, [2], [(0, 1, 2)])],
            [(), (2,), (1, 2)], ["]r0", "]r1"], ['{"t":2}'], "D", [0, 2], "d"]


def test_native_text_of_hand_made_arguments(native: Writer) -> None:
    assert native(*arguments()) == (
        '[{"h":1},M[a,b]r0,M[a,b,c]r0,M[a,b,b,c]r0,M[a,c]r0,M[a,b,c]r0,M[c]r1,M[b,c]r1,'
        '{"t":2},Dad,Dcd]')
    empty = [(), [], "", [], [], [], [], "", [], ""]
    assert native(*empty) == "[]"


def test_native_text_separates_empty_items(native: Writer) -> None:
    """Found by a wider random run: an item of no text still gets its comma (the writer once
    put a comma only after some text had been written)."""
    codes = ("a", "bb")
    assert native(codes, [""], "M", [], [], [], ["", "T"], "D", [1], "e") == "[,,T,Dbbe]"
    assert native(codes, [], "", [(0, [0], [(1, 0, 1), (0, 0, 1)])], [()], [""], [], "", [],
                  "") == "[a,]"


BAD: list[tuple[int, Any, type[Exception]]] = [
    (0, ("a", 1), TypeError),  # a card code that is not a str
    (0, ("a", "\u00e9"), TypeError),  # nor ASCII
    (1, ["x", 2], TypeError),
    (2, "\u00e9", TypeError),
    (3, [(0, [0, 1], [(3, 0, 1)])], ValueError),  # more naturals than the block has
    (3, [(0, [0, 1], [(1, 2, 2)])], ValueError),  # wild cards past the end of wilds
    (3, [(0, [0, 1], [(1, -1, 1)])], ValueError),
    (3, [(0, [0, 1], [(1, 0, 4)])], ValueError),
    (3, [(0, [0, 1], [(1, 0, 2**70)])], OverflowError),
    (3, [(2, [0], [(1, 0, 1)])], ValueError),  # a rank past ends
    (3, [(-1, [0], [(1, 0, 1)])], ValueError),
    (3, [(0, [7], [(1, 0, 1)])], ValueError),  # a card past the codes
    (3, [(0, [-1], [(1, 0, 1)])], ValueError),
    (3, [(0, [True, 2.0], [(1, 0, 1)])], TypeError),
    (3, [(0, (0, 1), [(1, 0, 1)])], TypeError),  # naturals must be a list
    (3, [(0, [0], [(1, 0)])], TypeError),
    (3, [(0, [0], [[1, 0, 1]])], TypeError),
    (3, [(0, [0])], TypeError),
    (3, [None], TypeError),
    (4, [[2]], TypeError),  # a choice of wild cards must be a tuple
    (4, [("2",)], TypeError),
    (5, ["]r0", b"]r1"], TypeError),
    (8, [3], ValueError),
    (8, ["a"], TypeError),
    (9, None, TypeError),
]


@pytest.mark.parametrize(("at", "value", "error"), BAD, ids=[f"{a}-{v!r}" for a, v, _ in BAD])
def test_native_text_refuses_malformed_arguments(native: Writer, at: int, value: Any,
                                                 error: type[Exception]) -> None:
    args = arguments()
    args[at] = value
    with pytest.raises(error):
        native(*args)


def test_native_text_refuses_wrong_argument_counts_and_types(native: Writer) -> None:
    with pytest.raises(TypeError):
        native(*arguments()[:-1])
    for at in range(10):
        args = arguments()
        args[at] = 5
        with pytest.raises(TypeError):
            native(*args)


def test_native_text_grows_its_buffer_for_long_lists(native: Writer) -> None:
    """Far more text than the first buffer holds (64 KiB and more) is written whole."""
    codes = tuple(f'"{i:04d}"' for i in range(60))
    wilds = [tuple(range(j, j + 20)) for j in range(40)]
    blocks = [(r, list(range(30, 60)), [(n, 0, 40) for n in range(31)]) for r in range(3)]
    args = [codes, [], "[", blocks, wilds, ["]", "]", "]"], [], "", list(range(60)), ""]
    written = native(*args)
    expected = [[codes[c] for c in list(range(30, 60))[:n] + list(w)]
                for _, _, segments in blocks for n, _, _ in segments for w in wilds]
    assert written == "[" + ",".join("[" + ",".join(m) + "]" for m in expected) + "," + \
        ",".join(codes) + "]"
    assert native(*args, True) == written.encode()  # as bytes: the same text


card = st.integers(-2, 6)
small = st.integers(-2, 5)


# fewer under memcheck (test_native_writer_has_no_memory_errors_under_memcheck), fifty times slower
@settings(max_examples=60 if os.environ.get("TEXT_UNDER_MEMCHECK") else 300, derandomize=True,
          deadline=None)
@given(blocks=st.lists(st.tuples(st.integers(-1, 3), st.lists(card, max_size=4),
                                 st.lists(st.tuples(small, small, small), max_size=4)),
                       max_size=4),
       wilds=st.lists(st.tuples(*[card] * 2) | st.tuples(card) | st.just(()), max_size=4),
       discards=st.lists(card, max_size=4),
       head=st.lists(st.sampled_from(["", "H", "HH"]), max_size=2),
       tail=st.lists(st.sampled_from(["", "T"]), max_size=2))
def test_native_text_on_random_arguments(native: Writer, blocks: list[Any], wilds: list[Any],
                                         discards: list[int], head: list[str],
                                         tail: list[str]) -> None:
    """Any indices, in range or not: the text the arguments describe, or ValueError."""
    codes = ("a", "bb", "ccc", "d", "e")
    ends = ["]0", "]1", "]2"]

    def expected() -> str:
        items: list[str] = list(head)
        for rank, naturals, segments in blocks:
            if not 0 <= rank < len(ends):
                raise ValueError
            for n, first, k in segments:
                if not (0 <= n <= len(naturals) and 0 <= first <= len(wilds)
                        and 0 <= k <= len(wilds) - first):
                    raise ValueError
                for w in wilds[first:first + k]:
                    cards = [*naturals[:n], *w]
                    if any(not 0 <= c < len(codes) for c in cards):
                        raise ValueError
                    items.append("M" + ",".join(codes[c] for c in cards) + ends[rank])
        items += tail
        if any(not 0 <= c < len(codes) for c in discards):
            raise ValueError
        items += ["D" + codes[c] for c in discards]
        return "[" + ",".join(items) + "]"

    args = [codes, head, "M", blocks, wilds, ends, tail, "D", discards, ""]
    try:
        want = expected()
    except ValueError:
        with pytest.raises(ValueError):
            native(*args)
        return
    try:
        assert native(*args) == want
        assert native(*args, True) == want.encode()  # as bytes (typed GraphQL lists)
    except ValueError:
        # C checks every card and index it meets, also those of melds the pure expectation
        # skips (a natural past n, a wild card of a choice no segment takes): refusing those is
        # right too, as long as something is out of range
        flat = [c for _, naturals, _ in blocks for c in naturals] + [c for w in wilds for c in w]
        assert any(not 0 <= c < len(codes) for c in flat)


def test_native_writer_has_no_memory_errors_under_memcheck(tmp_path: Path) -> None:
    """The tests above that call the native writer, run again under valgrind's memcheck:
    nothing reported in schema/_text.c."""
    memcheck.assert_clean(__file__, "native and not whole_deals and not memcheck",
                          "TEXT_UNDER_MEMCHECK", "_text.c", tmp_path)
