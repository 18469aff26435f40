"""The service's shortcut past pydantic (``schema.canonical``) against the pydantic models.

The rule it must keep: whatever body it accepts, the model accepts too, and it returns exactly
the model's dump, so the engine and the cache key cannot tell which way a request came. And it
must be worth having: every request in the form the service itself writes takes it.

Inputs are requests of real deals of every variant (full and one seat's view) and the same
requests mutated at random, structurally (types, bounds, unknown and missing fields, forgiving
card codes, floats for integers) and at the level of the JSON text. Seeded, so reproducible.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import orjson
import pytest
from pydantic import BaseModel, ValidationError

from canasta_referee.engine import VARIANTS, action_to_data, legal_actions, rules_for, state_to_data
from canasta_referee.engine.views import view_for
from canasta_referee.schema import canonical, handlers
from tests.playout import playout

OPS = ("validate", "legal-actions", "score", "check", "apply")
MODELS: dict[str, type[BaseModel]] = {op: model for op, model in handlers.REQUESTS.items()
                                      if model is not None and op != "deal"}


def _requests(variant: str, seeds: range = range(3)) -> list[dict[str, Any]]:
    """Requests of every operation on states of real deals: full, and seat 0's view."""
    out: list[dict[str, Any]] = []
    rules = rules_for(variant)
    for seed in seeds:
        states = list(playout(rules, seed, check=False, eager=seed % 2 == 0))
        for i, (state, listed) in enumerate(states):
            if i % 7 and i != len(states) - 1:  # every seventh, and the deal's end
                continue
            full = state_to_data(state)
            view = state_to_data(view_for(state, state.turn.seat))
            actions = [action_to_data(a) for a in (listed or legal_actions(state))[:3]]
            out.append({"state": full})
            out.append({"state": view})
            if actions:
                out.append({"state": full, "actions": actions})
    return out


def _model_dump(op: str, raw: bytes) -> dict[str, Any] | None:
    try:
        return MODELS[op].model_validate_json(raw).model_dump(mode="json")
    except ValidationError:
        return None


def _op_for(request: dict[str, Any]) -> list[str]:
    return ["check", "apply"] if "actions" in request else ["validate", "legal-actions", "score"]


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_every_request_the_service_writes_takes_the_shortcut_and_equals_the_dump(
        variant: str) -> None:
    requests = _requests(variant)
    assert len(requests) > 50
    for request in requests:
        for op in _op_for(request):
            raw = orjson.dumps(request)
            fast = canonical.request(op, raw)
            assert fast is not None, (op, request)
            assert fast == _model_dump(op, raw)


# --- mutations ----------------------------------------------------------------------------------

ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, -1, 7, 8, 500, 1000, 1001, 10**6, 10**6 + 1, -10**6 - 1, 2**63,
    3.0, 0.5, -0.0, "", "QS", "qs", " QS", "10H", "10h", "JK", "jk", "XX", "K", "k", "10", "wild",
    "WILD", "real", "draw", "play", "over", "waiting", "x" * 64, "x" * 65, "\u00e9", [], {},
    ["QS"], ["10h"], [1], {"size": 3}, {"size": 3.0}, {"size": -1}, {"top": "QS", "size": 1},
    {"rank": "K", "cards": ["KS"]},
]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every node below the root."""
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((*path, key))
            out.extend(_nodes(item, (*path, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.append((*path, i))
            out.extend(_nodes(item, (*path, i)))
    return out


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        root = root[step]
    return root


def mutate(request: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One to three structural changes at random nodes."""
    request = copy.deepcopy(request)
    for _ in range(rng.randint(1, 3)):
        nodes = _nodes(request)
        if not nodes:
            break
        path = rng.choice(nodes)
        parent, last = _parent(request, path), path[-1]
        kind = rng.randrange(6)
        if kind == 0:  # another value
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif kind == 1:  # a field or item goes
            del parent[last]
        elif kind == 2 and isinstance(parent, dict):  # an unknown field
            parent[rng.choice(["extra", "Seat", "size", "top", "cards", "rank"])] = 1
        elif kind == 3 and isinstance(parent[last], int) and not isinstance(parent[last], bool):
            parent[last] = float(parent[last]) if rng.random() < 0.5 else parent[last] + 1
        elif kind == 4 and isinstance(parent[last], str):  # a forgiving spelling
            parent[last] = rng.choice([parent[last].lower(), f" {parent[last]}",
                                       parent[last].replace("T", "10")])
        elif kind == 5 and isinstance(parent[last], list):  # a list grows past its bound
            parent[last] = parent[last] * rng.choice([2, 30, 200])
    return request


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_mutated_requests_taken_by_the_shortcut_are_what_pydantic_makes_of_them(
        variant: str) -> None:
    rng = random.Random(f"canonical-{variant}")
    requests = _requests(variant, range(2))
    taken = refused = 0
    for _ in range(1500):
        request = mutate(rng.choice(requests), rng)
        for op in _op_for(request):
            raw = orjson.dumps(request)
            fast = canonical.request(op, raw)
            dump = _model_dump(op, raw)
            if fast is not None:
                taken += 1
                assert dump is not None, (op, request)  # accepted: pydantic accepts it too
                assert fast == dump, (op, request)
            if dump is not None:  # whatever pydantic accepts, its dump takes the shortcut
                refused += fast is None
                assert canonical.request(op, orjson.dumps(dump)) == dump, (op, request)
    assert taken > 300 and refused > 300  # both ways are exercised


JSON_TEXTS = [
    b'{"state": %s}',
    b'  {"state" :\n %s }\n',
    b'{"state": %s, "state": %s}',  # a repeated key: the last one counts, in both parsers
    b'\xef\xbb\xbf{"state": %s}',  # a byte order mark
    b'{"state": %s}garbage',
    b'{"state": %s',
    b'[{"state": %s}]',
    b'{"state": %s, "extra": NaN}',
    b'{"state": %s, "extra": 1e999}',
]


def test_json_texts_taken_by_the_shortcut_are_what_pydantic_makes_of_them() -> None:
    state = _requests("classic", range(1))[5]["state"]
    text = orjson.dumps(state)
    for template in JSON_TEXTS:
        for raw in (template.replace(b"%s", text), template.replace(b"%s", text.replace(
                b'"QS"', b'"\\u0051S"')), template.replace(b"%s", text.replace(b'0', b'0.0', 1))):
            fast = canonical.request("legal-actions", raw)
            dump = _model_dump("legal-actions", raw)
            if fast is not None:
                assert fast == dump, raw[:80]
    other = orjson.dumps(_requests("classic", range(1))[9]["state"])
    for raw in (b'{"state": %s, "state": %s}' % (text, other),  # which one counts: the same
                b'{"state": %s, "state": %s}' % (other, text)):
        assert canonical.request("legal-actions", raw) == _model_dump("legal-actions", raw)
    assert canonical.request("legal-actions", b'{"state": %s}' % text) is not None
    assert canonical.request("legal-actions", b'{"state": %s, "state": %s}' % (text, text))


def test_answers_are_the_same_either_way() -> None:
    """The operations answer the shortcut's data and the model's dump alike (requests with
    forgiving codes go the long way; spelled canonically, the short way)."""
    for request in _requests("german", range(1))[:40]:
        loose = json.dumps(request).replace('"QS"', '"qs"').replace('"TH"', '"10H"')
        for op in _op_for(request):
            assert canonical.request(op, loose) is None or loose == json.dumps(request)
            assert handlers.handle(op, loose) == handlers.handle(op, json.dumps(request))


def _reversed(value: Any) -> Any:
    """``value`` with the keys of every object in reverse order."""
    if isinstance(value, dict):
        return {k: _reversed(value[k]) for k in reversed(value)}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_either_way_equal_requests_are_equal_bytes(variant: str) -> None:
    """The Redis key hashes ``canonical_bytes``: the short way and the long way give the same
    bytes, whatever order the sender wrote keys and options in."""
    for request in _requests(variant, range(1))[:30]:
        request["state"]["options"].setdefault("zz", 1)  # options of any name, in any order
        request["state"]["options"].setdefault("aa", True)
        for op in _op_for(request):
            fast = handlers.request_data(op, orjson.dumps(request))
            loose = _reversed(request)
            loose["state"]["dealer"] = float(loose["state"]["dealer"])  # 0.0: the long way
            raw = orjson.dumps(loose)
            assert canonical.request(op, raw) is None
            slow = handlers.request_data(op, raw)
            assert isinstance(fast, dict) and isinstance(slow, dict)
            assert list(fast) == list(slow) and list(fast["state"]) == list(slow["state"])
            assert handlers.canonical_bytes(fast) == handlers.canonical_bytes(slow), (op, request)
            written = orjson.loads(handlers.canonical_bytes(fast))
            assert list(written["state"]["options"]) == sorted(request["state"]["options"])
            assert list(fast["state"]["options"]) == list(request["state"]["options"])


def _set(request: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    request = copy.deepcopy(request)
    _parent(request, path)[path[-1]] = value
    return request


BOUNDS: list[tuple[tuple[Any, ...], Any, Any]] = [  # (path, at the bound, just past it)
    (("state", "stock"), ["QS"] * 500, ["QS"] * 501),
    (("state", "discard"), {"size": 1000}, {"size": 1001}),
    (("state", "hands", 1), {"size": 0}, {"size": -1}),
    (("state", "dealer"), 7, 8),
    (("state", "turn", "seat"), 0, -1),
    (("state", "turn", "played"), [0] * 8, [0] * 9),
    (("state", "scores"), [10**6, -10**6], [10**6 + 1, 0]),
    (("state", "variant"), "v" * 64, "v" * 65),
    (("state", "options"), {f"o{i}": i for i in range(32)}, {f"o{i}": i for i in range(33)}),
    (("state", "options"), {"o" * 64: "x" * 64}, {"o" * 65: 1}),
    (("state", "options"), {"o": -10**6}, {"o": 10**6 + 1}),
    (("state", "melds", 1), [{"rank": "K", "cards": ["KS"]}] * 20,
     [{"rank": "K", "cards": ["KS"]}] * 21),
    (("state", "melds", 1), [{"rank": "K", "cards": ["KS"]}], [{"rank": "K", "cards": []}]),
    (("state", "turn", "started"), ["K"] * 20, ["K"] * 21),
    (("actions",), [{"type": "draw"}] * 200, [{"type": "draw"}] * 201),
    (("actions",), [{"type": "draw"}], []),
    (("actions", 0), {"type": "meld", "cards": ["QS"]}, {"type": "meld", "cards": []}),
]


@pytest.mark.parametrize(("path", "inside", "outside"), BOUNDS)
def test_bounds_agree(path: tuple[Any, ...], inside: Any, outside: Any) -> None:
    """At each bound of the models both ways accept; one step past it, both refuse."""
    base = next(r for r in _requests("classic", range(1)) if "actions" in r)
    op = "check"
    raw_in = orjson.dumps(_set(base, path, inside))
    raw_out = orjson.dumps(_set(base, path, outside))
    assert canonical.request(op, raw_in) == _model_dump(op, raw_in) is not None
    assert canonical.request(op, raw_out) is None and _model_dump(op, raw_out) is None


def _every_field_request() -> dict[str, Any]:
    """A request that uses every field of every model at least once (structure only)."""
    over = next(r for r in reversed(_requests("classic", range(1))) if "actions" not in r)
    state = copy.deepcopy(over["state"])
    state["hands"][1] = {"size": 3}
    state["discard"] = {"top": "QS", "size": 4, "frozen": False}
    state["stock"] = {"size": 9}
    state["set_aside"] = ["2C"]
    state["turn"].update(drawn=True, took_pile=False, pending=[{"rank": "K", "cards": ["KS"]}],
                         held=["KD"], asked="no", asked_this_deal=[1], started=["K"],
                         extended=True, went_out=1, concealed=False, partner_melded=True,
                         stock_exhausted=False, melded=[0], played=[0, 1])
    actions = [{"type": "draw", "seat": 0}, {"type": "take-pile", "cards": ["QS"]},
               {"type": "meld", "cards": ["QS"], "rank": "Q"}, {"type": "discard", "card": "QS"},
               {"type": "ask"}, {"type": "answer", "allow": True}]
    return {"state": state, "actions": actions}


def test_every_field_with_every_odd_value() -> None:
    """Each field (and the first item of each list) of a request using every field, replaced
    by each odd value in turn: the shortcut accepts only what pydantic accepts, as its dump."""
    request = _every_field_request()
    raw = orjson.dumps(request)
    assert canonical.request("check", raw) == _model_dump("check", raw) is not None
    paths = [p for p in _nodes(request) if not isinstance(p[-1], int) or p[-1] == 0]
    assert len(paths) > 80
    taken = 0
    for path in paths:
        for value in ODD_VALUES:
            raw = orjson.dumps(_set(request, path, value))
            fast = canonical.request("check", raw)
            if fast is not None:
                taken += 1
                assert fast == _model_dump("check", raw), (path, value)
    assert taken > 100


def test_bodies_the_shortcut_cannot_read_go_to_pydantic() -> None:
    for body in (b"[" * 200_000, "{\"state\": \"\ud800\"}", b"\xff\xfe", b"null", b"",
                 b'{"state": {"scores": [1e400]}}', b'{"state": ' + b'{"a":' * 5000 + b"1"):
        assert canonical.request("legal-actions", body) is None


def test_decoded_card_codes_are_the_engine_s_own_strings() -> None:
    """The card codes msgspec decodes a canonical request to are the very string objects the
    engine's code table is keyed by (``schema.models`` takes them from the engine), so
    reading a state finds each card by identity. Not a rule: a speed property
    (docs/performance.md, "Reading a request and writing an answer")."""
    from canasta_referee.engine.cards import _CODE_TO_CARD

    codes = {id(code) for code in _CODE_TO_CARD}
    state = state_to_data(next(iter(playout(rules_for("classic", {}), 3, check=False)))[0])
    data = canonical.request("legal-actions", orjson.dumps({"state": state}))
    assert data is not None
    decoded = [c for hand in data["state"]["hands"] for c in hand] + data["state"]["stock"]
    assert len(decoded) > 50 and all(id(c) in codes for c in decoded)
