"""Requests already in canonical form, checked without pydantic.

Most clients send what the service itself writes: canonical card codes and ranks, JSON integers
and booleans, only known fields. ``request`` decodes such a body with orjson and checks it
against the wire models' bounds in a few C-level passes; anything else (a forgiving code like
``"10h"``, ``3.0`` for ``3``, an unknown field, any error) gets ``None``, and pydantic decides
and explains. The rule this module keeps, tested in ``tests/test_canonical.py``: whatever it
accepts, the pydantic models accept too, and ``request`` returns exactly their dump (defaults
filled in), so the engine and the cache key see the same data either way.
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from . import models

CARDS = frozenset(["JK", *(r + s for r in "AKQJT98765432" for s in "SHDC")])
RANKS = frozenset([*"AKQJT9876543", "wild", "real"])
PHASES = frozenset(["draw", "play", "answer", "over"])
ASKED = frozenset([None, "waiting", "yes", "no"])

_STATE = frozenset(["variant", "options", "dealer", "scores", "hands", "melds", "bonus_cards",
                    "discard", "stock", "turn", "set_aside"])
_STATE_NEEDS = frozenset(["scores", "hands", "melds", "bonus_cards", "discard", "stock", "turn"])
_TURN = frozenset(["seat", "phase", "drawn", "took_pile", "pending", "held", "asked",
                   "asked_this_deal", "melded", "started", "extended", "went_out", "concealed",
                   "partner_melded", "stock_exhausted", "played"])
_TURN_FLAGS = ("drawn", "took_pile", "extended", "concealed", "partner_melded", "stock_exhausted")
_TURN_SEATS = ("asked_this_deal", "played")
_MELD = frozenset(["rank", "cards"])
_SIZE = frozenset(["size"])
_PILE_VIEW = frozenset(["top", "size", "frozen"])
_ACTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {  # type: (allowed, needed)
    "draw": (frozenset(["type", "seat"]), frozenset(["type"])),
    "take-pile": (frozenset(["type", "seat", "cards"]), frozenset(["type"])),
    "meld": (frozenset(["type", "seat", "cards", "rank"]), frozenset(["type", "cards"])),
    "discard": (frozenset(["type", "seat", "card"]), frozenset(["type", "card"])),
    "ask": (frozenset(["type", "seat"]), frozenset(["type"])),
    "answer": (frozenset(["type", "seat", "allow"]), frozenset(["type", "allow"])),
}
_BOUND = 1_000_000


def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    return {name: field.get_default(call_default_factory=True)
            for name, field in model.model_fields.items() if not field.is_required()}


_STATE_DEFAULTS = _defaults(models.State)
_TURN_DEFAULTS = _defaults(models.Turn)
_PILE_DEFAULTS = _defaults(models.PileView)
_ACTION_DEFAULTS = {kind: _defaults(model) for kind, model in models.ACTION_TYPES.items()}


def _filled(given: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    """``given`` with the defaults of the fields it leaves out (fresh lists and dicts)."""
    out = {**defaults, **given}
    for key, value in defaults.items():
        if type(value) in (list, dict) and key not in given:
            out[key] = value.copy()
    return out


def _cards(value: Any, least: int = 0) -> bool:
    """A list of at most 500 canonical card codes (``Cards``)."""
    return type(value) is list and least <= len(value) <= 500 and CARDS.issuperset(value)


def _int(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _seat(value: Any) -> bool:
    return type(value) is int and 0 <= value <= 7


def _seats(value: Any) -> bool:
    return type(value) is list and len(value) <= 8 and all(map(_seat, value))


def _size_only(value: Any) -> bool:
    """``{"size": n}`` (``HiddenCards``)."""
    return type(value) is dict and value.keys() == _SIZE and _int(value["size"], 0, 1000)


def _cards_or_size(value: Any) -> bool:
    return _cards(value) or _size_only(value)


def _meld(value: Any) -> bool:
    return (type(value) is dict and value.keys() == _MELD and value["rank"] in RANKS
            and _cards(value["cards"], 1))


def _melds(value: Any) -> bool:
    return type(value) is list and len(value) <= 20 and all(map(_meld, value))


def _option(value: Any) -> bool:
    kind = type(value)
    return (kind is bool or (kind is int and -_BOUND <= value <= _BOUND)
            or (kind is str and len(value) <= 64))


def _pile(value: Any) -> bool:
    if _cards(value):
        return True
    return (type(value) is dict and value.keys() <= _PILE_VIEW and "size" in value
            and _int(value["size"], 0, 1000) and ((top := value.get("top")) is None or top in CARDS)
            and type(value.get("frozen", False)) is bool)


def _turn(t: Any) -> bool:
    if type(t) is not dict or not t.keys() <= _TURN or not _seat(t.get("seat")):
        return False
    get = t.get
    return (get("phase") in PHASES and get("asked") in ASKED
            and all(type(get(flag, False)) is bool for flag in _TURN_FLAGS)
            and all(_seats(get(key, [])) for key in _TURN_SEATS)
            and (get("melded") is None or _seats(get("melded")))
            and (get("went_out") is None or _seat(get("went_out")))
            and _melds(get("pending", []))
            and _cards_or_size(get("held", []))
            and type(started := get("started", [])) is list and len(started) <= 20
            and RANKS.issuperset(started))


def state(s: Any) -> bool:
    """``s`` is a ``State`` in canonical form."""
    if type(s) is not dict or not _STATE_NEEDS <= s.keys() <= _STATE:
        return False
    options = s.get("options", {})
    variant = s.get("variant", "classic")
    hands, melds, bonus, scores = s["hands"], s["melds"], s["bonus_cards"], s["scores"]
    return (type(variant) is str and len(variant) <= 64
            and type(options) is dict and len(options) <= 32
            and all(type(k) is str and len(k) <= 64 for k in options)
            and all(map(_option, options.values()))
            and _seat(s.get("dealer", 0))
            and type(scores) is list and len(scores) <= 8
            and all(_int(x, -_BOUND, _BOUND) for x in scores)
            and type(hands) is list and len(hands) <= 8 and all(map(_cards_or_size, hands))
            and type(melds) is list and len(melds) <= 8 and all(map(_melds, melds))
            and type(bonus) is list and len(bonus) <= 8 and all(map(_cards, bonus))
            and _pile(s["discard"]) and _cards_or_size(s["stock"])
            and _cards(s.get("set_aside", [])) and _turn(s["turn"]))


def _state_filled(s: dict[str, Any]) -> dict[str, Any]:
    out = _filled(s, _STATE_DEFAULTS)
    out["turn"] = _filled(s["turn"], _TURN_DEFAULTS)
    if type(s["discard"]) is dict:
        out["discard"] = _filled(s["discard"], _PILE_DEFAULTS)
    return out


def action(a: Any) -> bool:
    """``a`` is one ``Action`` in canonical form."""
    if type(a) is not dict:
        return False
    shape = _ACTIONS.get(a.get("type"))  # type: ignore[arg-type]
    if shape is None or not shape[1] <= a.keys() <= shape[0]:
        return False
    get = a.get
    return ((get("seat") is None or _seat(get("seat")))
            and _cards(get("cards", []), 1 if a["type"] == "meld" else 0)
            and ((rank := get("rank")) is None or rank in RANKS)
            and ("card" not in a or a["card"] in CARDS)
            and type(get("allow", False)) is bool)


_REQUEST = {"validate": frozenset(["state"]), "legal-actions": frozenset(["state"]),
            "score": frozenset(["state"]), "check": frozenset(["state", "actions"]),
            "apply": frozenset(["state", "actions"])}


def request(op: str, body: bytes | str | None) -> dict[str, Any] | None:
    """The decoded body of ``op`` when it is in canonical form, else None (pydantic decides)."""
    fields = _REQUEST.get(op)
    if fields is None or not body:
        return None
    try:
        data = orjson.loads(body)
        if type(data) is not dict or data.keys() != fields or not state(data["state"]):
            return None
        if "actions" in fields:
            actions = data["actions"]
            if type(actions) is not list or not 1 <= len(actions) <= 200:
                return None
            if not all(map(action, actions)):
                return None
            data["actions"] = [_filled(a, _ACTION_DEFAULTS[a["type"]]) for a in actions]
        data["state"] = _state_filled(data["state"])
        return data
    except (orjson.JSONDecodeError, TypeError):  # TypeError: an unhashable item in a set test
        return None
