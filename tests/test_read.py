"""The native reader of canonical requests (schema/_read.c, used by ``canonical.engine_request``
when the wheel carries it) against the msgspec structs of ``schema.canonical``.

The rule it must keep: whatever body it reads, the structs read too, and it returns exactly
their data except that each list of cards is a tuple of the engine's card numbers
(``canonical.with_codes`` writes them back), keys in the same order; for any other body it says
None and the structs decide. It must be worth having: every request in the form the service
itself writes takes it. And it never crashes: hostile bytes are read under valgrind's memcheck.

The editable install the tests run on has no compiled modules, so the extension is compiled
here from the checkout's sources, as bench/compiled.py builds it.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

from canasta_referee.engine import VARIANTS, rules_for, state_to_data, wire
from canasta_referee.engine import cards as engine_cards
from canasta_referee.engine.cards import N_CARDS, parse_card
from canasta_referee.engine.rules import RuleSet
from canasta_referee.schema import canonical, handlers, models
from tests import memcheck
from tests.playout import playout
from tests.test_canonical import BOUNDS, JSON_TEXTS, _op_for, _requests, _set, mutate

ROOT = Path(__file__).resolve().parent.parent
Reader = Callable[[bytes, int], "dict[str, Any] | None"]
KINDS = {"validate": 0, "legal-actions": 0, "score": 0, "check": 1, "apply": 1, "view": 2}
UNDER_MEMCHECK = bool(os.environ.get("READ_UNDER_MEMCHECK"))


@pytest.fixture(scope="module")
def native_module(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The native module compiled from schema/_text.c and _read.c into a temporary folder, its
    card table set as schema/canonical.py sets it."""
    module = memcheck.native_module(tmp_path_factory.mktemp("native"))
    module.set_cards({code: parse_card(code) for code in models.CANONICAL_CARDS})
    return module


@pytest.fixture(scope="module")
def native(native_module: ModuleType) -> Reader:
    """``read_request`` of the native module."""
    reader: Reader = native_module.read_request
    return reader


def _ops(request: dict[str, Any]) -> list[str]:
    return ["view"] if "seat" in request else _op_for(request)


def agrees(native: Reader, op: str, raw: bytes) -> bool:
    """Whether the native reader took ``raw``; either way it agrees with the structs."""
    got = native(raw, KINDS[op])
    want = canonical.request(op, raw)
    if got is None:
        return False
    assert want is not None, (op, raw[:200])
    written = canonical.with_codes(got)
    assert written == want, (op, raw[:200])
    assert json.dumps(written) == json.dumps(want), "keys in the same order"
    for cards in _card_lists(got):
        assert type(cards) is tuple and all(type(c) is int for c in cards)
    return True


def _card_lists(data: dict[str, Any]) -> list[Any]:
    state = data["state"]
    turn = state["turn"]
    lists = [*state["hands"], *state["bonus_cards"], state["discard"], state["stock"],
             state["set_aside"], turn["held"]]
    lists += [m["cards"] for side in state["melds"] for m in side]
    lists += [m["cards"] for m in turn["pending"]]
    lists += [a["cards"] for a in data.get("actions", []) if "cards" in a]
    return [x for x in lists if type(x) is not dict]


def _all_requests(variant: str, seeds: range) -> list[dict[str, Any]]:
    requests = _requests(variant, seeds)
    views = [{"state": r["state"], "seat": r["state"]["turn"]["seat"]} for r in requests[::3]]
    return requests + views


def test_native_reader_takes_a_turn_going_out_at_once(native: Reader) -> None:
    """``turn.going_out`` (German, a take whose pile cards joined the hand), read as the structs
    read it, and a turn without it read as false."""
    from tests.test_state_text import handcanasta_take

    state = handcanasta_take()
    for op in ("validate", "legal-actions", "score"):
        assert agrees(native, op, orjson.dumps({"state": state})), op
    assert native(orjson.dumps({"state": state}), KINDS["validate"])["state"]["turn"][
        "going_out"] is True
    del state["turn"]["going_out"]
    assert native(orjson.dumps({"state": state}), KINDS["validate"])["state"]["turn"][
        "going_out"] is False


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_native_reader_takes_every_request_the_service_writes(native: Reader,
                                                              variant: str) -> None:
    requests = _all_requests(variant, range(1 if UNDER_MEMCHECK else 3))
    assert len(requests) > 20
    for request in requests:
        for op in _ops(request):
            assert agrees(native, op, orjson.dumps(request)), (op, request)


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_native_reader_on_mutated_requests(native: Reader, variant: str) -> None:
    """Structural changes (types, bounds, unknown and missing fields, forgiving codes, floats):
    what the reader takes, the structs read alike."""
    rng = random.Random(f"read-{variant}")
    requests = _all_requests(variant, range(2))
    taken = declined = 0
    for _ in range(150 if UNDER_MEMCHECK else 1500):
        request = mutate(rng.choice(requests), rng)
        for op in _ops(request):
            raw = orjson.dumps(request)
            if agrees(native, op, raw):
                taken += 1
            else:
                declined += 1
    assert taken > 30 and declined > 30  # both ways are exercised


#: bytes spliced into a body at random: JSON that is valid but not read here, and garbage
SNIPPETS = [b" ", b"\n", b"\t", b",", b":", b"{", b"}", b"[", b"]", b'"', b"\\", b"\\u0041",
            b"\x00", b"\xc3\xa9", b"\xff", b"null", b"true", b"-", b"-0", b"0", b"01", b"1.0",
            b"1e3", b"99999999999999999999", b'"x":1,', b'"size":3,', b'"AS"', b'"10H"', b"JK"]


def test_native_reader_on_mutated_json_text(native: Reader) -> None:
    """Bytes changed, cut, spliced in or dropped anywhere, in the JSON text itself."""
    rng = random.Random("read-text")
    requests = _all_requests("classic", range(1)) + _all_requests("canastra", range(1))
    taken = declined = 0
    tries = 300 if UNDER_MEMCHECK else 4000
    for _ in range(tries):
        request = rng.choice(requests)
        op = rng.choice(_ops(request))
        raw = bytearray(orjson.dumps(request))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(raw) + 1)
            kind = rng.randrange(4)
            if kind == 0:
                raw[at:at] = rng.choice(SNIPPETS)
            elif kind == 1:
                del raw[at:at + rng.randint(1, 8)]
            elif kind == 2 and at < len(raw):
                raw[at] = rng.randrange(256)
            else:
                del raw[at:]
        if agrees(native, op, bytes(raw)):
            taken += 1
        else:
            declined += 1
    assert taken > tries // 100 and declined > tries // 2


def test_native_reader_keeps_no_memory(native: Reader) -> None:
    """Bodies read and bodies declined at every point of the reading leave nothing behind (a
    reference kept on some decline path would grow a worker's memory with every such request):
    reading the same bodies again, 3,000 of them in three ways each, allocates nothing that
    stays."""
    rng = random.Random("read-memory")
    requests = _all_requests("classic", range(1)) + _all_requests("canastra", range(1))
    bodies = []
    for _ in range(300 if UNDER_MEMCHECK else 3000):
        request = rng.choice(requests)
        raw = bytearray(orjson.dumps(mutate(request, rng) if rng.random() < 0.5 else request))
        for _ in range(rng.randint(0, 2)):
            at = rng.randrange(len(raw) + 1)
            if rng.random() < 0.5:
                raw[at:at] = rng.choice(SNIPPETS)
            else:
                del raw[at:]
        bodies.append(bytes(raw))

    def read_all() -> int:
        return sum(native(raw, kind) is not None for raw in bodies for kind in (0, 1, 2))

    tracemalloc.start()
    try:
        read_all()  # Python's free lists of dicts, lists and tuples fill up with traced blocks
        before = tracemalloc.take_snapshot()
        taken = read_all()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert taken > len(bodies) // 20  # bodies read, not only declined
    assert grown < 8 * 1024, f"{grown} bytes stayed after reading {len(bodies)} bodies 3 ways"


def test_native_reader_reads_repeated_options_anew(native: Reader) -> None:
    """The reader keeps the last options text it read and a copy of its dict: the same text
    again reads as an equal dict of its own (a change to one read is not in the next), and a
    text that only begins like the kept one (a longer number, a space, more options, a body
    cut inside them) is read, or declined, as if nothing were kept."""
    request = {"state": _requests("classic", range(1))[5]["state"]}
    raw = orjson.dumps(request)
    kept = orjson.dumps(request["state"]["options"])
    assert raw.count(kept) == 1 and kept.endswith(b"}")
    first = native(raw, 0)
    assert first is not None and agrees(native, "validate", raw)
    first["state"]["options"]["players"] = 99
    second = native(raw, 0)
    assert second is not None and second["state"]["options"] == request["state"]["options"]
    assert second["state"]["options"] is not first["state"]["options"]
    inside = kept[:-1]
    variants = [inside + b" }", b" " + kept, inside + b',"x":1}', inside + b",}", inside,
                kept[:-2] + b"9}", kept.replace(b'"players":4', b'"players":40')]
    for other in variants:
        assert other != kept
        agrees(native, "validate", raw.replace(kept, other))
        assert agrees(native, "validate", raw)  # the kept text again, after another
    assert agrees(native, "validate", raw.replace(kept, b" " + kept))


def test_native_reader_on_json_texts(native: Reader) -> None:
    """White space is read; a repeated key, escapes, a byte order mark, text after the body,
    a cut body, NaN and fractions are left to the structs."""
    state = _requests("classic", range(1))[5]["state"]
    text = orjson.dumps(state)
    for template in JSON_TEXTS:
        for raw in (template.replace(b"%s", text),
                    template.replace(b"%s", text.replace(b'"QS"', b'"\\u0051S"')),
                    template.replace(b"%s", text.replace(b'0', b'0.0', 1))):
            agrees(native, "legal-actions", raw)
    assert agrees(native, "legal-actions", b'  {"state" :\n %s }\n' % text)
    assert not agrees(native, "legal-actions", b'{"state": %s, "state": %s}' % (text, text))
    assert native(b"", 0) is None and native(b"{}", 0) is None and native(b"[]", 1) is None


@pytest.mark.parametrize(("path", "inside", "outside"), BOUNDS)
def test_native_reader_keeps_the_bounds(native: Reader, path: tuple[Any, ...], inside: Any,
                                        outside: Any) -> None:
    """At each bound of the models the reader takes the request; one step past it, it leaves
    it (and the structs refuse it)."""
    base = next(r for r in _requests("classic", range(1)) if "actions" in r)
    assert agrees(native, "check", orjson.dumps(_set(base, path, inside)))
    raw = orjson.dumps(_set(base, path, outside))
    assert native(raw, 1) is None and canonical.request("check", raw) is None


def test_native_reader_fills_every_default_in_order(native: Reader) -> None:
    """A state that gives only what it must, and actions of every type with only their type
    and the fields they need."""
    bare = {"scores": [0, 0], "hands": [["QS"], {"size": 2}, ["JK"], ["4D"]],
            "melds": [[], []], "bonus_cards": [[], []], "discard": {"size": 3},
            "stock": {"size": 75}, "turn": {"seat": 1, "phase": "draw"}}
    actions = [{"type": "draw"}, {"type": "take-pile"}, {"type": "meld", "cards": ["QS"]},
               {"type": "discard", "card": "QS"}, {"type": "ask"},
               {"type": "answer", "allow": False}, {"seat": 2, "type": "meld", "rank": "Q",
                                                    "cards": ["QS", "2C"]}]
    assert agrees(native, "check", orjson.dumps({"state": bare, "actions": actions}))
    assert agrees(native, "view", orjson.dumps({"seat": 3, "state": bare}))
    for wrong in ({"type": "draw", "card": "QS"}, {"type": "discard"}, {"type": "pass"},
                  {"card": "QS"}, {"type": "answer", "allow": 1},
                  {"type": "meld", "cards": ["QS"], "rank": "2"}):
        raw = orjson.dumps({"state": bare, "actions": [wrong]})
        assert native(raw, 1) is None, wrong
        assert canonical.request("check", raw) is None, wrong


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_answers_of_native_data_are_the_answers_of_the_structs(native: Reader,
                                                               variant: str) -> None:
    """The engine answers the reader's data (tuples of card numbers) as it answers the structs'
    (lists of codes), and the Redis key is the same bytes either way."""
    for request in _all_requests(variant, range(1))[::2]:
        for op in _ops(request):
            raw = orjson.dumps(request)
            fast = canonical.engine_request(op, raw, native)
            slow = canonical.request(op, raw)
            assert fast is not None and slow is not None
            assert handlers.run(op, fast) == handlers.run(op, slow), (op, request)
            assert handlers.canonical_bytes(fast) == handlers.canonical_bytes(slow)


def test_native_reader_refuses_what_it_is_not_made_for(native: Reader) -> None:
    with pytest.raises(ValueError):
        native(b"{}", 3)
    with pytest.raises(TypeError):
        native("{}", 0)  # type: ignore[arg-type]


@contextlib.contextmanager
def counters(counts: Callable[..., tuple[int, ...]] | None,
             over: Callable[[tuple[int, ...], list[Any]], bool] | None = None) -> Iterator[None]:
    """The engine's native counter and copy check set to ``counts`` and ``over`` (None: the
    engine counts itself), as they were again afterwards."""
    installed = engine_cards._native_counts, engine_cards._native_over
    engine_cards.count_with(counts, over)
    try:
        yield
    finally:
        engine_cards.count_with(*installed)


def counted_here(*hands: tuple[int, ...]) -> tuple[int, ...]:
    """Each card's count in all of ``hands`` together, by ``counts_of`` with no native counter
    installed."""
    with counters(None):
        return engine_cards.counts_of(tuple(card for hand in hands for card in hand))


def test_native_counts_are_the_engine_s_counts(native_module: ModuleType) -> None:
    """schema/_read.c's ``counts`` gives ``engine.cards.counts_of``'s counts: hands of every
    size the wire allows (up to 500 cards), a card held up to 300 times; and of several hands
    at once, their counts added."""
    rng = random.Random("native-counts")
    hands: list[tuple[int, ...]] = [(), (0,), (N_CARDS - 1,), tuple(range(N_CARDS)),
                                    (7,) * 255, (7,) * 256, (7,) * 300]
    for _ in range(300 if UNDER_MEMCHECK else 3000):
        hands.append(tuple(rng.randrange(N_CARDS) for _ in range(rng.choice((11, 15, 40, 500)))))
    for hand in hands:
        assert native_module.counts(N_CARDS, hand) == counted_here(hand), hand
    assert native_module.counts(N_CARDS) == counted_here() == (0,) * N_CARDS
    for _ in range(300):
        some = rng.sample(hands, rng.randint(2, 9))
        assert native_module.counts(N_CARDS, *some) == counted_here(*some)


def test_native_counts_refuse_what_is_not_a_hand(native_module: ModuleType) -> None:
    counts = native_module.counts
    for hand in ((N_CARDS,), (-1,), (1 << 70,), (0, "AS"), (0, 1.0)):
        with pytest.raises(IndexError):
            counts(N_CARDS, (1, 2), hand)
    for bad in (([0, 1],), ((0,), None), ()):
        with pytest.raises(TypeError):
            counts(*bad)
    with pytest.raises(TypeError):
        counts("53", (0,))
    for size in (-1, 257, 1 << 70):
        with pytest.raises((ValueError, OverflowError)):
            counts(size, (0,))
    assert counts(256, (0, 255), (255,))[255] == 2 and counts(0) == ()


def test_the_engine_counts_with_the_counter_installed(native_module: ModuleType) -> None:
    """``count_with`` (schema/canonical.py installs the native ``counts`` where it is built):
    ``counts_of`` asks it, with the engine's number of cards; ``count_with(None)`` counts in
    the engine again."""
    asked: list[tuple[int, tuple[int, ...]]] = []

    def spy(size: int, hand: tuple[int, ...]) -> tuple[int, ...]:
        asked.append((size, hand))
        answer: tuple[int, ...] = native_module.counts(size, hand)
        return answer

    with counters(spy):
        assert engine_cards.counts_of((3, 3, 52)) == counted_here((3, 3, 52))
        assert asked == [(N_CARDS, (3, 3, 52))]
    with counters(None):
        assert engine_cards.counts_of((3,))[3] == 1 and len(asked) == 1


class Big(int):
    """An int the interpreter does not keep as one of its small ints: read the general way."""


def seen_of(groups: list[tuple[int, ...]]) -> list[wire.Seen]:
    return [("/hands", i, "", cards) for i, cards in enumerate(groups)]


def checked_here(rules: RuleSet, groups: list[tuple[int, ...]]) -> bool:
    """The engine's own copy check (``wire._too_many_copies``: bit sets, or its tally beyond
    three packs), with no native check installed."""
    with counters(None):
        return wire._too_many_copies(rules, seen_of(groups))


def test_native_copy_check_is_the_engine_s(native_module: ModuleType) -> None:
    """schema/_read.c's ``over`` answers as the engine's copy check: every variant's deck, and
    decks of one to five packs, on the cards of whole states (a full deck, shuffled into up to
    a dozen places) with one card added, taken away or doubled, and on random cards; a card
    that is an int the interpreter made apart from its small ints counts the same."""
    rng = random.Random("native-over")
    decks = [rules_for(variant.id, {}) for variant in VARIANTS]
    decks.append(rules_for("classic", {"players": 6}))
    decks += [replace(decks[0], packs=packs, jokers=2 * packs) for packs in (1, 3, 4, 5)]
    for rules in decks:
        deck = [card for card in range(N_CARDS) for _ in range(rules.deck_copies(card))]
        for _ in range(30 if UNDER_MEMCHECK else 300):
            cards = list(deck)
            change = rng.choice(("none", "add", "drop", "double", "random"))
            if change == "add":
                cards.append(rng.randrange(N_CARDS))
            elif change == "drop":
                cards.pop(rng.randrange(len(cards)))
            elif change == "double":
                cards += rng.sample(cards, rng.randint(1, 5))
            elif change == "random":
                cards = [rng.randrange(N_CARDS) for _ in range(rng.randint(0, 200))]
            rng.shuffle(cards)
            cuts = sorted(rng.sample(range(len(cards) + 1), min(len(cards) + 1, rng.randint(0, 11))))
            groups = [tuple(cards[a:b]) for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]
            expected = checked_here(rules, groups)
            assert native_module.over(rules.copies, seen_of(groups)) is expected, (rules, change)
            apart = [tuple(Big(card) for card in group) for group in groups]
            assert native_module.over(rules.copies, seen_of(apart)) is expected
    assert native_module.over(decks[0].copies, []) is False


def test_native_copy_check_follows_the_copies_it_is_given(native_module: ModuleType) -> None:
    """``over`` keeps the last copies tuple it read (held, so its address names it): a new
    tuple, equal or not, is read again; a tuple that held copies once is not mistaken for
    another made after it is gone."""
    over = native_module.over
    seen = seen_of([(5, 5), (5,)])
    assert over((3,) * N_CARDS, seen) is False
    assert over((2,) * N_CARDS, seen) is True
    for limit in (1, 2, 3, 4) * 50:
        assert over(tuple([limit] * N_CARDS), seen) is (limit < 3)


def test_native_copy_check_refuses_what_it_cannot_read(native_module: ModuleType) -> None:
    over = native_module.over
    copies = (2,) * N_CARDS
    for card in (N_CARDS, -1, 1 << 70, "AS", 1.0, None):
        with pytest.raises(IndexError):
            over(copies, seen_of([(1, 2), (0, card)]))
    for seen in ([()], [("/hands", 0, "", [0, 1])], [("/hands", 0, "", None)], [None]):
        with pytest.raises(TypeError):
            over(copies, seen)
    for args in (([2] * N_CARDS, []), (copies, ()), (copies,)):
        with pytest.raises(TypeError):
            over(*args)
    for bad in ((2,) * 257, (-1,) * N_CARDS, ("2",) * N_CARDS, (1 << 70,) * N_CARDS):
        with pytest.raises((ValueError, OverflowError)):
            over(bad, [])
    assert over(copies, seen_of([(0, 0)])) is False  # a refused copies tuple is not kept
    assert over((1,) * 256, seen_of([(255, 255)])) is True


def test_the_engine_checks_copies_with_the_check_installed(native_module: ModuleType) -> None:
    """``count_with``'s second argument (schema/canonical.py installs the native ``over``):
    the engine's copy check asks it, with the deck's copies and the cards it saw; without it,
    the engine counts itself."""
    asked: list[tuple[tuple[int, ...], list[Any]]] = []

    def spy(copies: tuple[int, ...], seen: list[Any]) -> bool:
        asked.append((copies, seen))
        answer: bool = native_module.over(copies, seen)
        return answer

    rules = rules_for("classic", {})
    state = next(state_to_data(state) for state, _ in playout(rules, 1, check=False)
                 if state.turn.phase == "play" and state.stock)
    with counters(native_module.counts, spy):
        assert wire.validate_data(state, rules) == []
        assert len(asked) == 1 and asked[0][0] == rules.copies
        assert sum(len(where[-1]) for where in asked[0][1]) == rules.deck_size  # all open
        doubled = {**state, "stock": [*state["stock"], state["stock"][0]]}
        codes = [problem.code for problem in wire.validate_data(doubled, rules)]
        assert "TOO_MANY_COPIES" in codes and len(asked) == 2
    with counters(None):
        assert wire.validate_data(state, rules) == [] and len(asked) == 2


def test_native_reader_has_no_memory_errors_under_memcheck(tmp_path: Path) -> None:
    """The tests above that call the native reader, with fewer cases, run again under
    valgrind's memcheck: nothing reported in schema/_read.c (no reference dropped twice
    either: a freed object read again is an invalid read)."""
    memcheck.assert_clean(__file__, "native and not answers and not memcheck",
                          "READ_UNDER_MEMCHECK", "_read.c", tmp_path)


def test_native_reader_reads_a_null_option(native: Reader) -> None:
    """An option may be null (the variant's default, where its rule table lists null: classic
    ``sides`` and ``target``): the reader takes it as the structs do, and declines what only
    begins like null."""
    request = {"state": _requests("classic", range(1))[5]["state"]}
    request["state"]["options"] = {"players": 4, "sides": None, "target": None}
    raw = orjson.dumps(request)
    got = native(raw, 0)
    assert got is not None and got["state"]["options"] == {"players": 4, "sides": None,
                                                           "target": None}
    assert agrees(native, "validate", raw)
    for bad in (b'"sides":nul,', b'"sides":nulls,', b'"sides":Null,'):
        broken = raw.replace(b'"sides":null,', bad)
        assert broken != raw and native(broken, 0) is None
