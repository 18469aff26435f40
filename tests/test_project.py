"""The native projector of typed GraphQL lists (``project`` in schema/_project.c): a JSON list of
objects written again with the selected leaf fields, as graphql-core would complete them and
orjson write them, or a ValueError where it cannot say so from the text alone.

Held against a reference written here from GraphQL's completion rules on the list read by
orjson: whenever ``project`` answers, the reference gives the same bytes; on the text orjson
itself writes for a list of plain values (as the service's REST answers are written), it
answers whenever the reference does. Hostile texts (cut anywhere, bytes changed, nested deep)
never crash it: they run again under valgrind's memcheck. The GraphQL answers it writes are
compared with strawberry's own in tests/test_graphql_fast.py.

The editable install the tests run on has no compiled modules, so the extension is compiled
here from the checkout's sources, as bench/compiled.py builds it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from canasta_referee.engine import wire
from canasta_referee.schema.text import ACTION_TEMPLATES, typed_writer
from canasta_referee.service import graphql_fast
from canasta_referee.service.graphql_fast import (
    KIND_CONSTANT,
    KIND_ITEM_NULLABLE,
    KIND_LIST,
    KIND_NULLABLE,
    SHAPE_ITEM_NULLABLE,
    SHAPE_NULLABLE,
)
from tests import memcheck
from tests.explore import examples

Fields = tuple[tuple[bytes, bytes, int], ...]
Project = Callable[..., bytes]  # (text, fields, shape[, templates])
UNDER_MEMCHECK = bool(os.environ.get("PROJECT_UNDER_MEMCHECK"))
STRING, INT, BOOLEAN = 1, 2, 3
NAMES = ("type", "cards", "card", "rank", "seat", "allow")
#: the hot query's selection of the REST answer's actions: type cards card rank
HOT: Fields = ((b'"type":', b"type", STRING),
               (b',"cards":', b"cards", STRING | KIND_LIST | KIND_NULLABLE),
               (b',"card":', b"card", STRING | KIND_NULLABLE),
               (b',"rank":', b"rank", STRING | KIND_NULLABLE))


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The native module built from the checkout."""
    return memcheck.native_module(tmp_path_factory.mktemp("native"))


@pytest.fixture(scope="module")
def project(native: ModuleType) -> Project:
    function: Project = native.project
    return function


class Refused(Exception):
    """The reference cannot complete the value (graphql-core would raise)."""


def _leaf(value: Any, kind: int) -> Any:
    base = kind & 7
    if base == STRING and type(value) is str:
        return value
    if base == INT and type(value) is int and -(2**31) <= value < 2**31:
        return value
    if base == BOOLEAN and type(value) is bool:
        return value
    raise Refused(value)


def _field(value: Any, kind: int) -> Any:
    if value is None:
        if not kind & KIND_NULLABLE:
            raise Refused("null in a non-null field")
        return None
    if not kind & KIND_LIST:
        return _leaf(value, kind)
    if type(value) is not list:
        raise Refused("not a list")
    out = []
    for item in value:
        if item is None and not kind & KIND_ITEM_NULLABLE:
            raise Refused("null item")
        out.append(None if item is None else _leaf(item, kind))
    return out


def reference(text: bytes, fields: Fields, shape: int) -> bytes:
    """What graphql-core completes the list read by orjson to, written by orjson."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise Refused("not JSON") from exc
    if value is None:
        if not shape & SHAPE_NULLABLE:
            raise Refused("null list")
        return b"null"
    if type(value) is not list:
        raise Refused("not a list")
    out: list[Any] = []
    for item in value:
        if item is None:
            if not shape & SHAPE_ITEM_NULLABLE:
                raise Refused("null object")
            out.append(None)
            continue
        if type(item) is not dict:
            raise Refused("not an object")
        written = {}
        for prefix, name, kind in fields:
            key = json.loads(prefix.lstrip(b",")[:-1])
            written[key] = (json.loads(name) if kind == KIND_CONSTANT
                            else _field(item.get(name.decode()), kind))
        out.append(written)
    return orjson.dumps(out)


def agrees(project: Project, text: bytes, fields: Fields, shape: int) -> bool:
    """``project``'s answer is the reference's, or it refuses; whether it answered."""
    try:
        got = project(text, fields, shape)
    except ValueError:
        return False
    assert got == reference(text, fields, shape), (text[:300], fields, shape)
    return True


def spec(picks: list[tuple[str, str, int]]) -> Fields:
    """Fields from (response name, source name or constant, kind) in order."""
    return tuple((f'{"," if i else ""}"{key}":'.encode(),
                  json.dumps(source).encode() if kind == KIND_CONSTANT else source.encode(),
                  kind) for i, (key, source, kind) in enumerate(picks))


def test_the_hot_selection_of_a_legal_action_list(project: Project) -> None:
    actions = [{"type": "meld", "cards": ["4D", "4C", "JK"], "rank": "4", "seat": 0},
               {"type": "discard", "card": "5H", "seat": 0},
               {"type": "answer", "seat": 2, "allow": True}]
    text = orjson.dumps(actions)
    assert project(text, HOT, 0) == (
        b'[{"type":"meld","cards":["4D","4C","JK"],"card":null,"rank":"4"},'
        b'{"type":"discard","cards":null,"card":"5H","rank":null},'
        b'{"type":"answer","cards":null,"card":null,"rank":null}]')
    every = spec([("t", "Action", KIND_CONSTANT), ("seat", "seat", INT | KIND_NULLABLE),
                  ("allow", "allow", BOOLEAN | KIND_NULLABLE), ("what", "type", STRING),
                  ("again", "type", STRING)])
    assert project(text, every, 0) == reference(text, every, 0)
    assert orjson.loads(project(text, every, 0))[2] == {
        "t": "Action", "seat": 2, "allow": True, "what": "answer", "again": "answer"}
    assert project(b"[]", HOT, 0) == b"[]"
    assert project(b' [ ] ', HOT, 0) == b"[]"


@pytest.mark.parametrize(("text", "shape", "answer"), [
    (b"null", SHAPE_NULLABLE, b"null"), (b"null", 0, None),
    (b'[null,{"type":"a"}]', SHAPE_ITEM_NULLABLE, b'[null,{"type":"a","cards":null,'
                                                  b'"card":null,"rank":null}]'),
    (b'[null]', SHAPE_NULLABLE, None), (b'[1]', 3, None), (b'["a"]', 3, None),
    (b'[[]]', 3, None), (b'{}', 3, None),
])
def test_the_list_and_its_items_null_or_not(project: Project, text: bytes, shape: int,
                                            answer: bytes | None) -> None:
    if answer is None:
        with pytest.raises(ValueError):
            project(text, HOT, shape)
        with pytest.raises(Refused):
            reference(text, HOT, shape)
    else:
        assert project(text, HOT, shape) == answer == reference(text, HOT, shape)


@pytest.mark.parametrize("item", [
    b'{"card":"5H"}',  # type is non-null and missing
    b'{"type":null}', b'{"type":1}', b'{"type":true}', b'{"type":["a"]}', b'{"type":{}}',
    b'{"type":"a","cards":"4D"}', b'{"type":"a","cards":[1]}', b'{"type":"a","cards":[[]]}',
    b'{"type":"a","cards":[null,"4D"]}', b'{"type":"a","cards":["4D",null]}',
    b'{"type":"a","cards":["4D",]}', b'{"type":"a","cards":["4D"}',
    # a list of strings is read in one loop where it has no white space: past a ',' it must
    # find a string, not a ']' that the rest of the text makes look like one
    b'{"type":"a","cards":["4D",]","x"]}', b'{"type":"a","cards":["4D""x"]}',
    b'{"type":"a","cards":["4D",,"x"]}', b'{"type":"a","cards":["4D"],"x"]}',
])
def test_values_graphql_would_refuse_are_refused(project: Project, item: bytes) -> None:
    text = b"[" + item + b"]"
    with pytest.raises(ValueError):
        project(text, HOT, 0)


@pytest.mark.parametrize(("item", "why"), [
    (b'{"type":"a\\u0062"}', "an escape: orjson would write the character itself"),
    (b'{"type":"a\\/"}', "an escape"), (b'{"type":"\xc3\xa9"}', "not ASCII: left unchecked"),
    (b'{"type":"\x7f"}', "DEL"), (b'{"ty\\u0070e":"a"}', "a key with an escape"),
    (b'{"type":"a","seat":-0}', "-0: written 0"), (b'{"type":"a","seat":1.0}', "a fraction"),
    (b'{"type":"a","seat":1e2}', "an exponent"), (b'{"type":"a","seat":2147483648}', "past Int"),
    (b'{"type":"a","seat":-2147483649}', "past Int"), (b'{"type":"a","seat":007}', "zeros"),
])
def test_what_it_leaves_to_the_slower_path(project: Project, item: bytes, why: str) -> None:
    """Texts it cannot copy as orjson would write their values: refused (strawberry then
    answers the request), whatever the reference makes of them."""
    fields = (*HOT, (b',"seat":', b"seat", INT | KIND_NULLABLE))
    with pytest.raises(ValueError):
        project(b"[" + item + b"]", fields, 0)


def test_one_value_under_many_aliases_is_written_each_time(project: Project) -> None:
    """Aliases write one value several times: an answer many times its text (a bug wrote past
    the end of the buffer, reserving room for each value once)."""
    text = orjson.dumps([{"type": "meld", "cards": [f"{r}H" for r in "3456789"] * 4}] * 50)
    for aliases in (2, 8, 64):
        fields = spec([(f"a{i}", "cards", STRING | KIND_LIST | KIND_NULLABLE)
                       for i in range(aliases)])
        answer = project(text, fields, 0)
        assert answer == reference(text, fields, 0)
        assert len(answer) > aliases * 50 * 28 * 5


def test_null_items_where_the_list_takes_them(project: Project) -> None:
    fields = spec([("cards", "cards", STRING | KIND_LIST | KIND_ITEM_NULLABLE)])
    text = b'[{"cards":[null,"4D",null]}]'
    assert project(text, fields, 0) == reference(text, fields, 0) == text
    with pytest.raises(ValueError):
        project(b'[{"cards":null}]', fields, 0)  # the list itself is non-null


def test_lists_with_white_space_are_written_compact(project: Project) -> None:
    """A list's own text is copied where it is written as orjson writes it; white space
    anywhere inside (after the '[' alone, too) has it written again without, but in strings."""
    fields = spec([("cards", "cards", STRING | KIND_LIST | KIND_NULLABLE),
                   ("seat", "seat", INT | KIND_NULLABLE)])
    for cards in (b'[ "4D","4C"]', b'[ ]', b'["4D" ]', b'["4D", "4C"]', b'["4D" ,"4C"]',
                  b'[\n\t"a b" , " c " ,"d"\r\n]', b'["a b"]', b"[]"):
        text = b'[{"cards":' + cards + b',"seat":1}, {"seat":2,"cards":' + cards + b"}]"
        answer = project(text, fields, 0)
        assert answer == reference(text, fields, 0)
        written = orjson.dumps(orjson.loads(cards))
        assert answer == b'[{"cards":%s,"seat":1},{"cards":%s,"seat":2}]' % (written, written)


def test_one_key_read_as_two_kinds_is_refused(project: Project) -> None:
    """(Never asked for: a GraphQL field has one type.) Refused whether the key is there or
    not."""
    fields = spec([("a", "seat", INT | KIND_NULLABLE), ("b", "seat", STRING | KIND_NULLABLE)])
    for text in (b'[{"seat":1}]', b'[{"type":"a"}]', b"[]"):
        with pytest.raises(ValueError):
            project(text, fields, 0)


def test_a_field_may_read_the_empty_key(project: Project) -> None:
    fields = spec([("e", "", STRING | KIND_NULLABLE)])
    text = b'[{"":"x","type":"a"},{"type":"b"}]'
    assert project(text, fields, 0) == reference(text, fields, 0) == (
        b'[{"e":"x"},{"e":null}]')


def test_ints_at_the_edges_of_graphql_int(project: Project) -> None:
    fields = spec([("seat", "seat", INT)])
    for seat in (0, 7, -1, 2**31 - 1, -(2**31)):
        text = orjson.dumps([{"seat": seat}])
        assert project(text, fields, 0) == reference(text, fields, 0) == (
            b'[{"seat":%d}]' % seat)


def test_the_last_of_equal_keys_counts_as_in_a_dict(project: Project) -> None:
    text = b'[{"type":"a","card":"1","type":"b","card":null}]'
    assert project(text, HOT, 0) == reference(text, HOT, 0)
    assert orjson.loads(project(text, HOT, 0))[0]["type"] == "b"
    with pytest.raises(ValueError):  # the last is refused, though the first was fine
        project(b'[{"type":"a","type":1}]', HOT, 0)


def test_unselected_values_are_skipped(project: Project) -> None:
    text = (b'[{"x":{"a":[1,-2.5,0,-0,{"b":"}]"}],"c":null},"type":"a","y":[[[]]],'
            b'"z":" ~!","w":-123456789012345.123456789012345,"v":false}]')
    assert agrees(project, text, HOT, 0)
    for deep in (b"[" * 60 + b"]" * 60, b"[" * 100_000 + b"]" * 100_000):
        text = b'[{"x":' + deep + b',"type":"a"}]'
        assert agrees(project, text, HOT, 0) is (len(deep) == 120)


@pytest.mark.parametrize("value", [
    b'"\\\\"', b'"\\u00e9"', b'"\\/"', b'"\xc3\xa9"', b'"\xff"', b'"\x7f"', b'{"\\u0061":1}',
    b'{"\xc3\xa9":1}',
    b"2.5e-3", b"1E2", b"1e400", b"1234567890123456", b"0.1234567890123456", b"08", b"-",
    b"1.", b".5", b"+1", b"[1,]", b"{,}", b"tru", b"nul", b"[", b"{\"a\"}",
])
def test_unselected_values_it_does_not_read_as_orjson_would_are_refused(
        project: Project, value: bytes) -> None:
    """Escapes and bytes past ASCII in a skipped string, exponents and long numbers (which
    orjson reads as a double, refusing infinities) and what is not JSON: refused, not checked
    here as orjson would check them (the slower path reads them)."""
    with pytest.raises(ValueError):
        project(b'[{"type":"a","x":' + value + b"}]", HOT, 0)


@pytest.mark.parametrize(("fields", "shape", "error"), [
    ("not a tuple", 0, TypeError), (((b'"a":', b"a"),), 0, ValueError),
    (((b'"a":', "a", 1),), 0, ValueError), (((b'"a":', b"a", 8),), 0, ValueError),
    (((b'"a":', b"a", 4),), 0, ValueError), (((b'"a":', b"a", 64),), 0, ValueError),
    (((b'"a":', b"a", -1),), 0, ValueError), (((b'"a":', b"a", 2**70),), 0, OverflowError),
    (((b'"a":', b"a", 1),) * 65, 0, ValueError),
])
def test_a_malformed_selection_is_refused(project: Project, fields: Any, shape: int,
                                          error: type[Exception]) -> None:
    with pytest.raises(error):
        project(b'[{"a":"b"}]', fields, shape)


# values as orjson reads them: strings of plain ASCII and others, ints inside and outside
# GraphQL's range, floats, booleans, null, lists and objects
_plain = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e), max_size=6)
_scalars = st.one_of(_plain, st.text(max_size=4), st.integers(-(2**33), 2**33),
                     st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
    max_leaves=8)
_items = st.one_of(st.dictionaries(st.sampled_from((*NAMES, "x", "")), _values, max_size=7),
                   st.none(), _scalars)
_kinds = st.builds(lambda base, flags: base | flags, st.sampled_from((STRING, INT, BOOLEAN)),
                   st.sampled_from([0, KIND_LIST, KIND_NULLABLE, KIND_LIST | KIND_NULLABLE,
                                    KIND_LIST | KIND_ITEM_NULLABLE,
                                    KIND_LIST | KIND_NULLABLE | KIND_ITEM_NULLABLE]))
_picks = st.lists(st.one_of(
    st.tuples(st.sampled_from(("a", "b", "type", "seat")), st.sampled_from(NAMES), _kinds),
    st.tuples(st.just("__typename"), st.just("Action"), st.just(KIND_CONSTANT))),
    min_size=1, max_size=6, unique_by=lambda p: p[0])
# the service's own values: what its REST answers hold (codes and words of printable ASCII,
# which orjson writes without an escape), and the kinds the schema gives them
_code = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7e, exclude_characters='"\\'),
                max_size=6)
_action = st.fixed_dictionaries({"type": _code}, optional={
    "cards": st.lists(_code, max_size=5), "card": _code, "rank": _code,
    "seat": st.integers(-(2**31), 2**31 - 1), "allow": st.booleans()})
_KIND_OF = {"type": STRING, "cards": STRING | KIND_LIST | KIND_NULLABLE,
            "card": STRING | KIND_NULLABLE, "rank": STRING | KIND_NULLABLE,
            "seat": INT | KIND_NULLABLE, "allow": BOOLEAN | KIND_NULLABLE}


# keys of every length the projector compares in a different way (its hints: the text
# `"key":` of 3, 4 to 8, 9 to 16 and more bytes), some alike but for one byte
_KEYS = ("", "a", "type", "typo", "card", "cards", "abcdefgh", "abcdefgi", "abcdefghijklm",
         "abcdefghijklx", "a_rather_long_key_name", "a_rather_long_key_namf")
#: between key and value, and between two members: none, or white space
_GAPS = ((":", ","), (": ", ", "), (" :", " ,"), (":\n ", ",\n "))


def _object(members: list[tuple[str, str]], gaps: int) -> str:
    colon, comma = _GAPS[gaps]
    return "{" + comma.join(f"{json.dumps(k)}{colon}{json.dumps(v)}" for k, v in members) + "}"


@settings(max_examples=40 if UNDER_MEMCHECK else 400, suppress_health_check=[HealthCheck.too_slow])
@given(objects=st.lists(st.tuples(st.lists(st.tuples(st.sampled_from(_KEYS), _code), max_size=5),
                                  st.integers(0, len(_GAPS) - 1)), min_size=1, max_size=6),
       names=st.lists(st.sampled_from(_KEYS), min_size=1, max_size=5))
@example(objects=[([("type", "a"), ("card", "b")], 0), ([("typo", "c"), ("cards", "d")], 0),
                  ([("type", "e"), ("card", "f")], 1)], names=["type", "card"])
def test_keys_in_any_order_length_and_spacing_are_read_as_the_reference_reads_them(
        project: Project, objects: list[tuple[list[tuple[str, str]], int]],
        names: list[str]) -> None:
    """The objects of a list need not repeat their keys in the same order, spelling or
    spacing (the projector first compares each key with the previous object's at the same
    place): every such list of plain strings is projected, and as the reference does."""
    text = ("[" + ",".join(_object(members, gaps) for members, gaps in objects) + "]").encode()
    fields = spec([(f"f{i}", name, STRING | KIND_NULLABLE) for i, name in enumerate(names)])
    assert agrees(project, text, fields, 0), text


def test_the_text_must_be_bytes(project: Project) -> None:
    """Read up to the NUL a bytes object ends with: other buffers are refused."""
    for text in (bytearray(b"[]"), memoryview(b"[]"), "[]"):
        with pytest.raises(TypeError):
            project(text, HOT, 0)  # type: ignore[arg-type]


def _spaced(text: bytes, how: int) -> bytes:
    """The same JSON with white space: none, Python's separators, or indented."""
    if how == 0:
        return text
    value = json.loads(text)
    return (json.dumps(value) if how == 1 else json.dumps(value, indent=2)).encode()


@settings(max_examples=50 if UNDER_MEMCHECK else 600, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(_items, max_size=5), picks=_picks, shape=st.integers(0, 3),
       how=st.integers(0, 2))
def test_any_list_is_projected_as_the_reference_completes_it_or_refused(
        project: Project, items: list[Any], picks: list[tuple[str, str, int]], shape: int,
        how: int) -> None:
    agrees(project, _spaced(orjson.dumps(items), how), spec(picks), shape)


@settings(max_examples=40 if UNDER_MEMCHECK else 400, suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.lists(_action, max_size=8), names=st.lists(
    st.sampled_from(NAMES), min_size=1, max_size=6), how=st.integers(0, 2))
@example(actions=[{"type": "a", "seat": -(2**31)}], names=["seat"], how=0)
def test_the_services_actions_are_always_projected(project: Project,
                                                   actions: list[dict[str, Any]],
                                                   names: list[str], how: int) -> None:
    """Lists of actions as the REST answers write them (printable ASCII, ints in range):
    never refused, whatever the selection (aliases: a name twice), with or without white
    space."""
    picks = [(f"f{i}", name, _KIND_OF[name]) for i, name in enumerate(names)]
    assert agrees(project, _spaced(orjson.dumps(actions), how), spec(picks), 0)


@settings(max_examples=60 if UNDER_MEMCHECK else 500, suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.lists(_action, min_size=1, max_size=6), cut=st.floats(0, 1),
       flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=3))
def test_hostile_texts_are_refused_or_agree(project: Project, actions: list[dict[str, Any]],
                                           cut: float, flips: list[tuple[float, int]]) -> None:
    """A real list cut short and with bytes changed: answered as the reference, or refused."""
    text = bytearray(orjson.dumps(actions))
    for at, byte in flips:
        text[int(at * (len(text) - 1))] = byte
    text = text[:max(1, int(cut * len(text)))] if cut < 1 else text
    fields = (*HOT, (b',"seat":', b"seat", INT | KIND_NULLABLE),
              (b',"allow":', b"allow", BOOLEAN | KIND_NULLABLE))
    agrees(project, bytes(text), fields, 0)
    agrees(project, bytes(text), fields, 3)


def test_every_cut_of_a_real_list_is_refused(project: Project) -> None:
    text = orjson.dumps([{"type": "meld", "cards": ["4D", "4C", "JK"], "rank": "4", "seat": 0},
                         {"type": "discard", "card": "5H", "seat": 1, "allow": False}])
    fields = (*HOT, (b',"allow":', b"allow", BOOLEAN | KIND_NULLABLE))
    for end in range(len(text)):
        with pytest.raises(ValueError):
            project(text[:end], fields, 3)
    assert agrees(project, text, fields, 3)


# --- templates: melds and discards written from the texts the projector would write for them

def _typed(project: Project, fields: Fields) -> Any:
    return graphql_fast.typed_templates(project, fields, ACTION_TEMPLATES)


def same_with_templates(project: Project, text: bytes, fields: Fields, shape: int) -> bool:
    """``project`` with the action templates answers as without them (the same bytes, or
    both refuse), and as the reference; whether it answered."""
    try:
        plain: bytes | None = project(text, fields, shape)
    except ValueError:
        plain = None
    try:
        templated: bytes | None = project(text, fields, shape, _typed(project, fields))
    except ValueError:
        templated = None
    assert templated == plain, (text[:300], fields, shape)
    return plain is not None and agrees(project, text, fields, shape)


def test_templates_write_real_lists_as_the_objects_are_read(project: Project) -> None:
    """The legal-action lists of every variant's playouts (melds, discards, the rest) with
    every kind of selection for the templates: the hot one; the slot read twice (aliases: the
    melds' template is left out, a discard's cards are null); not read at all (an object's text without its
    cards); fields before and after it, constants, every field: the same bytes as without
    templates, and as the reference."""
    selections = [HOT, spec([("a", "cards", _KIND_OF["cards"]), ("b", "cards", _KIND_OF["cards"])]),
                  spec([("rank", "rank", _KIND_OF["rank"]), ("t", "type", STRING)]),
                  spec([("rank", "rank", _KIND_OF["rank"]), ("c", "card", _KIND_OF["card"]),
                        ("x", "cards", _KIND_OF["cards"]), ("n", "Action", KIND_CONSTANT)]),
                  spec([(name, name, kind) for name, kind in _KIND_OF.items()])]
    texts = _real_lists()
    assert sum(t.count(b'{"type":"meld"') for t in texts) > (20 if UNDER_MEMCHECK else 1000)
    assert sum(t.count(b'{"type":"discard"') for t in texts) > (20 if UNDER_MEMCHECK else 100)
    for text in texts:
        for fields in selections:
            assert same_with_templates(project, text, fields, 0)
        assert same_with_templates(project, text, HOT, SHAPE_NULLABLE | SHAPE_ITEM_NULLABLE)
    assert [len(ends) for _, _, ends in _typed(project, HOT)] == [8 * 13, 8]
    # the melds' would write its slot twice: left out; a discard's cards are null
    assert [start for start, _, _ in _typed(project, selections[1])] == [
        wire.DISCARD_START.encode()]
    dropped = _typed(project, selections[2])
    assert {after for _, _, ends in dropped for _, after in ends.values()} == {None}
    assert dropped[0][2][b'],"rank":"4","seat":0}'] == (b'{"rank":"4","t":"meld"}', None)


def _real_lists() -> list[bytes]:
    """``_real_legal``'s lists as the REST answers write them (wire.actions_json: the native
    writer's text)."""
    return [wire.actions_json(listed).encode() for listed in _real_legal()]


def _real_legal() -> list[Any]:
    """Every fifth legal-action list (the engine's ``LegalActions``) of a playout of each of
    the property tests' configurations; under memcheck every twentieth of the first four
    configurations'."""
    from canasta_referee import engine
    from tests.playout import playout
    from tests.test_properties import CONFIGS

    lists = []
    step = 20 if UNDER_MEMCHECK else 5
    for variant, options in CONFIGS[:4] if UNDER_MEMCHECK else CONFIGS:
        for i, (_, listed) in enumerate(playout(engine.rules_for(variant, options), 7,
                                                check=False)):
            if i % step == 0 and listed:
                lists.append(listed)
    return lists


def test_typed_lists_are_written_from_the_engine_s_lists_as_projected(
        native: ModuleType) -> None:
    """``text.typed_writer``: every variant's real legal-action lists written straight from
    the engine's ``LegalActions`` by the native writer given a selection's typed texts (the
    other actions projected one by one) are, byte for byte, their REST text projected with the
    templates. It writes for selections that keep each card's code as it is (the hot one, every
    field, constants around the cards) and declines the others: the melds' template left out
    (the cards read twice), the cards or a discard's card not read, a field that differs by
    rank written before the cards; and lists without melds' context."""
    project = native.project
    every = spec([(name, name, kind) for name, kind in _KIND_OF.items()])
    around = [("n", "Action", KIND_CONSTANT), ("c", "cards", _KIND_OF["cards"]),
              ("d", "card", _KIND_OF["card"]), ("t", "type", STRING),
              ("n2", "Action", KIND_CONSTANT)]
    writes = [HOT, every, spec(around)]
    declines = [spec([("a", "cards", _KIND_OF["cards"]), ("b", "cards", _KIND_OF["cards"])]),
                spec([("rank", "rank", _KIND_OF["rank"]), ("t", "type", STRING)]),
                spec([("rank", "rank", _KIND_OF["rank"]), ("x", "cards", _KIND_OF["cards"])]),
                spec(around[:2] + around[3:])]  # a discard's card not read
    lists = _real_legal()
    for fields in writes + declines:
        typed = _typed(project, fields)
        write = typed_writer(typed, lambda t, fields=fields: project(t, fields, 0),
                                  native=native.actions_text)
        if fields in declines:
            assert write is None or all(write(listed) is None for listed in lists), fields
            continue
        assert write is not None
        written = 0
        for listed in lists:
            got = write(listed)
            assert got is not None or listed.ctx is None
            if got is not None:
                assert got == project(wire.actions_json(listed).encode(), fields, 0, typed)
                written += len(listed)
        assert written > (100 if UNDER_MEMCHECK else 5000), fields


_rank = st.one_of(st.sampled_from([*"23456789TJQKA", "wild", "10"]), _code)
_slot_code = st.one_of(st.sampled_from(["4D", "JK", "10H", "", "A"]), _code, st.text(max_size=3))
#: melds and discards as the REST answers write them (their templates' texts, when the codes,
#: rank and seat are what the service writes), and other actions
_templated = st.one_of(
    st.builds(lambda cards, rank, seat: {"type": "meld", "cards": cards, "rank": rank,
                                         "seat": seat},
              st.lists(_slot_code, max_size=5), _rank, st.integers(-1, 9)),
    st.builds(lambda card, seat: {"type": "discard", "card": card, "seat": seat}, _slot_code,
              st.integers(-1, 9)),
    _action)


@settings(max_examples=60 if UNDER_MEMCHECK else examples(600),
          suppress_health_check=[HealthCheck.too_slow])
@given(actions=st.lists(_templated, max_size=8), names=st.lists(
    st.sampled_from((*NAMES, "__typename")), min_size=1, max_size=6), cut=st.floats(0, 1),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=2),
    shape=st.integers(0, 3))
@example(actions=[{"type": "meld", "cards": ["4D", "4C"], "rank": "4", "seat": 0}] * 2
         + [{"type": "meld", "cards": ["5D"], "rank": "5", "seat": 0},
            {"type": "meld", "cards": ["4D\u00e9"], "rank": "4", "seat": 0},
            {"type": "discard", "card": "5H", "seat": 1}],
         names=["type", "cards", "card", "rank"], cut=1.0, flips=[], shape=0)
def test_templates_change_nothing(project: Project, actions: list[dict[str, Any]],
                                  names: list[str], cut: float,
                                  flips: list[tuple[float, int]], shape: int) -> None:
    """Whatever the list (objects that are a template's text exactly, nearly, or not at all;
    codes with escapes, white space or nothing; cut short, bytes changed) and the selection
    (aliases, constants), the templates change no answer and no refusal."""
    text = bytearray(orjson.dumps(actions))
    for at, byte in flips:
        text[int(at * (len(text) - 1))] = byte
    text = text[:max(1, int(cut * len(text)))] if cut < 1 else text
    picks = [(f"f{i}", "Action" if name == "__typename" else name,
              KIND_CONSTANT if name == "__typename" else _KIND_OF[name])
             for i, name in enumerate(names)]
    same_with_templates(project, bytes(text), spec(picks), shape)


_MELD = b'{"type":"meld","cards":['


@pytest.mark.parametrize("item", [
    _MELD + b'"4D",x"],"rank":"4","seat":0}',  # not a string after a comma
    _MELD + b'x"],"rank":"4","seat":0}', _MELD + b'x"4D"],"rank":"4","seat":0}',
    b'{"type":"discard","card":x","seat":0}', _MELD + b'"4D"x],"rank":"4","seat":0}',
    _MELD + b'"A\x7f"],"rank":"4","seat":0}', _MELD + b'"\x7fA"],"rank":"4","seat":0}',
    _MELD + b'"A\x7fB"],"rank":"4","seat":0}', _MELD + '"\u00e9"'.encode() + b'],"rank":"4","seat":0}',
    _MELD + b'"4\\""],"rank":"4","seat":0}', _MELD + b'"4D\\u0041"],"rank":"4","seat":0}',
    _MELD + b'"4D", "5D"],"rank":"4","seat":0}', _MELD + b'],"rank":"4","seat":0}',
    _MELD + b'"4D"],"rank":"4","seat":9}', _MELD + b'"4D"],"rank":"4","seat":0,"x":1}',
    _MELD + b'"4D"],"rank":"4","seat":0 }', _MELD + b'"4D"],"rank":"4","seat":0',
    b'{"type":"discard","card":"5H","5D","seat":0}', b'{"type":"discard","card":"5H"x,"seat":0}',
    b'{"type":"discard","card":5,"seat":0}', b'{"type":"discard","card":"","seat":0}',
])
def test_texts_near_a_template_are_read_as_any_other(project: Project, item: bytes) -> None:
    """An object that is not a template's text exactly (each after a meld of the same rank,
    so that the end it would take is the one matched last) is answered, or refused, as
    without templates."""
    before = _MELD + b'"4S","4C"],"rank":"4","seat":0}'
    for text in (b"[" + before + b"," + item + b"]", b"[" + item + b"]"):
        for fields in (HOT, spec([(name, name, kind) for name, kind in _KIND_OF.items()])):
            same_with_templates(project, text, fields, 0)


@pytest.mark.parametrize(("templates", "why"), [
    ([], "the templates must be a tuple"),
    (((b"{", 2),), "a template must be (start, slot, ends)"),
    (((b"{", 2, [b"}"]),), "a template must be (start, slot, ends)"),
    (((b"{", 3, {}),), "a template's slot is unknown"),
    (((b"", 1, {}),), "a template's start is empty"),
    (((b"{", 1, {}),) * 9, "more templates than it reads"),
    (((b'{"card":', 1, {b"}": b"x"}),), "a template's end must map to (before, after)"),
    (((b'{"card":', 1, {b"}": (b"x", 1)}),), "a template's end must map to (before, after)"),
])
def test_malformed_templates_are_refused(project: Project, templates: Any, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        project(b'[{"card":"5H"}]', HOT, 0, templates)
    with pytest.raises(TypeError):
        project(b'[{"card":"5H"}]', HOT, 0, (((b"{", "1", {}),)))


def test_the_planner_s_kinds_are_the_projector_s() -> None:
    """graphql_fast writes the kinds that schema/_project.c reads: the Action type's fields."""
    from canasta_referee.service.graphql import schema

    action = schema._schema.get_type("Action")
    kinds = {name: graphql_fast._leaf_kind(field.type)
             for name, field in action.fields.items()}  # type: ignore[union-attr]
    assert kinds == _KIND_OF


def test_native_projector_has_no_memory_errors_under_memcheck(tmp_path: Path) -> None:
    """These tests (fewer examples) again under valgrind's memcheck: nothing reported in
    schema/_project.c."""
    memcheck.assert_clean(__file__, "not memcheck", "PROJECT_UNDER_MEMCHECK", "_project.c",
                          tmp_path)
