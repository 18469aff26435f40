"""Requests in canonical form, decoded and checked in one C-level pass (msgspec), not pydantic.

Most clients send what the service itself writes: canonical card codes and ranks, JSON integers
and booleans, only known fields. ``request`` decodes such a body with msgspec structs that mirror
the wire models and their bounds, and returns it as plain data with every default filled in;
anything else (a forgiving code like ``"10h"``, ``3.0`` for ``3``, an unknown field, any error)
gets ``None``, and the pydantic models decide and explain. The rule this module keeps, tested in
``tests/test_canonical.py``: whatever it accepts, the pydantic models accept too, and it returns
exactly their dump, so the engine and the cache key cannot tell which way a request came.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType
from msgspec.structs import asdict

from canasta_referee.engine.cards import N_CARDS, card_code, count_with, parse_card

from . import models

Reader = Callable[[bytes, int], "dict[str, Any] | None"]

_native: Reader | None
try:
    from canasta_referee.schema import _text
except ImportError:  # an editable install, a pure-Python wheel, no C compiler
    _native = None
else:
    _text.set_cards({code: parse_card(code) for code in models.CANONICAL_CARDS})
    _native = _text.read_request
    count_with(_text.counts, _text.over)  # hands and copies counted in C (tests/test_read.py)

#: "native" when the native reader of canonical requests is installed, else "msgspec"
READER = "msgspec" if _native is None else "native"

Card = Literal[models.CANONICAL_CARDS]  # type: ignore[valid-type]
Rank = Literal[(*models.MELD_RANKS, "wild", "real")]  # type: ignore[valid-type]
Seat = Annotated[int, Meta(ge=0, le=7)]
Size = Annotated[int, Meta(ge=0, le=1000)]
Score = Annotated[int, Meta(ge=-1_000_000, le=1_000_000)]
Name = Annotated[str, Meta(max_length=64)]
Cards = Annotated[list[Card], Meta(max_length=500)]
SomeCards = Annotated[list[Card], Meta(min_length=1, max_length=500)]
Seats = Annotated[list[Seat], Meta(max_length=8)]
Options = Annotated[dict[Name, bool | Score | Name | None], Meta(max_length=32)]


class _Strict(Struct, forbid_unknown_fields=True, kw_only=True, gc=False):
    """Unknown fields are refused, as the wire models' ``extra="forbid"``. Fields come in the
    models' order, so both ways give the same JSON bytes (``tests/test_canonical.py``).
    ``gc=False``: a decoded request is a tree (JSON has no cycles), so the collector need not
    track its structs (decoding a six-player request 4.8 -> 4.5 µs)."""


class HiddenCards(_Strict):
    size: Size


class PileView(_Strict, kw_only=True):
    top: Card | None = None
    size: Size
    frozen: bool = False


class Meld(_Strict):
    rank: Rank
    cards: SomeCards


Melds = Annotated[list[Meld], Meta(max_length=20)]


class Turn(_Strict):
    seat: Seat
    phase: Literal["draw", "play", "answer", "over"]
    drawn: bool = False
    took_pile: bool = False
    pending: Melds = []
    held: Cards | HiddenCards = []
    asked: Literal["waiting", "yes", "no"] | None = None
    asked_this_deal: Seats = []
    melded: Seats | None = None
    started: Annotated[list[Rank], Meta(max_length=20)] = []
    extended: bool = False
    going_out: bool = False
    went_out: Seat | None = None
    concealed: bool = False
    partner_melded: bool = False
    stock_exhausted: bool = False
    played: Seats = []


class State(_Strict, kw_only=True):  # fields in the model's order (its dump's key order)
    variant: Name = "classic"
    options: Options = {}
    dealer: Seat = 0
    scores: Annotated[list[Score], Meta(max_length=8)]
    hands: Annotated[list[Cards | HiddenCards], Meta(max_length=8)]
    melds: Annotated[list[Melds], Meta(max_length=8)]
    bonus_cards: Annotated[list[Cards], Meta(max_length=8)]
    discard: Cards | PileView
    stock: Cards | HiddenCards
    turn: Turn
    set_aside: Cards = []


class _Action(_Strict, tag_field="type"):
    seat: Seat | None = None


class Draw(_Action, tag="draw"):
    pass


class TakePile(_Action, tag="take-pile"):
    cards: Cards = []


class MeldCards(_Action, tag="meld", kw_only=True):
    cards: SomeCards
    rank: Rank | None = None


class Discard(_Action, tag="discard", kw_only=True):
    card: Card


class Ask(_Action, tag="ask"):
    pass


class Answer(_Action, tag="answer", kw_only=True):
    allow: bool


Action = Draw | TakePile | MeldCards | Discard | Ask | Answer


class StateRequest(_Strict):
    state: State


class ActionsRequest(_Strict):
    state: State
    actions: Annotated[list[Action], Meta(min_length=1, max_length=200)]


class ViewRequest(_Strict):
    state: State
    seat: Seat


Scores = Annotated[list[Score], Meta(max_length=8)]


class LogDeal(_Strict, kw_only=True):
    """``models.SeedDeal`` or ``models.StateDeal``: ``request`` takes it only when it is one of
    them (a state and neither seed nor dealer, or no state and both); absent fields are left
    out of the data, as the models do not have them."""

    seed: Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)] | UnsetType = UNSET
    dealer: Seat | UnsetType = UNSET
    state: State | UnsetType = UNSET
    actions: Annotated[list[Action], Meta(max_length=models.MAX_DEAL_ACTIONS)] = []
    scores: Scores | None = None
    totals: Scores | None = None

    def starts_once(self) -> bool:
        if self.state is UNSET:
            return self.seed is not UNSET and self.dealer is not UNSET
        return self.seed is UNSET and self.dealer is UNSET


class AuditRequest(_Strict, kw_only=True):
    variant: Name = "classic"
    options: Options = {}
    scores: Scores | None = None
    deals: Annotated[list[LogDeal], Meta(min_length=1, max_length=models.MAX_DEALS)]


_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {
    op: msgspec.json.Decoder(model) for op, model in (
        ("validate", StateRequest), ("legal-actions", StateRequest), ("score", StateRequest),
        ("check", ActionsRequest), ("apply", ActionsRequest), ("view", ViewRequest),
        ("audit", AuditRequest))}


def request(op: str, body: bytes | str | None) -> dict[str, Any] | None:
    """The request of ``op`` as plain data when its body is in canonical form, else None."""
    decoder = _DECODERS.get(op)
    if decoder is None or not body:
        return None
    try:
        decoded = decoder.decode(body)
    except (msgspec.MsgspecError, ValueError):  # ValueError: a str body that is no UTF-8
        return None
    if isinstance(decoded, AuditRequest):
        if not all(d.starts_once() for d in decoded.deals):
            return None
        audit: dict[str, Any] = msgspec.to_builtins(decoded)
        return audit
    return _plain(decoded)


#: the requests schema/_read.c reads: a state alone (0), with actions (1), with a seat (2)
_NATIVE_KINDS = {"validate": 0, "legal-actions": 0, "score": 0, "check": 1, "apply": 1,
                 "view": 2}


def engine_request(op: str, body: bytes | str | None,
                   native: Reader | None = _native) -> dict[str, Any] | None:
    """``request(op, body)`` for the engine: read by ``native`` (schema/_read.c), where it is
    installed and takes the body, with each list of cards a tuple of the engine's card numbers
    (``with_codes`` turns them back into codes); else ``request``'s data."""
    kind = _NATIVE_KINDS.get(op)
    if native is not None and kind is not None and type(body) is bytes:
        data = native(body, kind)
        if data is not None:
            return data
    return request(op, body)


#: each card number's code
_CODES = tuple(card_code(c) for c in range(N_CARDS))


def _codes(cards: Any) -> Any:
    """A tuple of card numbers as the list of their codes; anything else as it is."""
    return [_CODES[c] for c in cards] if type(cards) is tuple else cards


def _melds(melds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**m, "cards": _codes(m["cards"])} for m in melds]


def with_codes(data: dict[str, Any]) -> dict[str, Any]:
    """Request data from ``engine_request`` with every tuple of card numbers written as the
    list of their codes, as ``request`` gives it (the places the native reader writes them: a
    state's card lists, actions' cards); ``data`` is not changed."""
    state = data.get("state")
    if state is None:
        return data
    turn = state["turn"]
    state = {**state, "hands": [_codes(h) for h in state["hands"]],
             "melds": [_melds(side) for side in state["melds"]],
             "bonus_cards": [_codes(b) for b in state["bonus_cards"]],
             "discard": _codes(state["discard"]), "stock": _codes(state["stock"]),
             "set_aside": _codes(state["set_aside"]),
             "turn": {**turn, "pending": _melds(turn["pending"]), "held": _codes(turn["held"])}}
    out = {**data, "state": state}
    if "actions" in data:
        out["actions"] = [{**a, "cards": _codes(a["cards"])} if "cards" in a else a
                          for a in data["actions"]]
    return out


def _plain(request: StateRequest | ActionsRequest | ViewRequest) -> dict[str, Any]:
    """``msgspec.to_builtins(request)`` for the requests that carry a state, made of the
    decoded lists themselves: only the structs become dicts. ``to_builtins`` copies every list
    and code of the state (a four-player request 2.0 against 1.4 µs)."""
    data = asdict(request)
    state = request.state
    plain = asdict(state)
    plain["hands"] = [asdict(h) if isinstance(h, HiddenCards) else h for h in state.hands]
    plain["melds"] = [[asdict(m) for m in side] for side in state.melds]
    if type(state.discard) is PileView:
        plain["discard"] = asdict(state.discard)
    if type(state.stock) is HiddenCards:
        plain["stock"] = asdict(state.stock)
    turn = asdict(state.turn)
    if state.turn.pending:
        turn["pending"] = [asdict(m) for m in state.turn.pending]
    if type(state.turn.held) is HiddenCards:
        turn["held"] = asdict(state.turn.held)
    plain["turn"] = turn
    data["state"] = plain
    if type(request) is ActionsRequest:
        data["actions"] = msgspec.to_builtins(request.actions)  # each with its "type" tag
    return data


class Operation(_Strict):
    op: models.BatchOp
    body: msgspec.Raw  # the bytes as sent: the operation's cache key, as a single request's


class BatchRequest(_Strict):
    operations: Annotated[list[Operation], Meta(min_length=1, max_length=models.MAX_BATCH)]


_BATCH = msgspec.json.Decoder(BatchRequest)


def batch(body: bytes | str | None) -> list[tuple[str, bytes]] | None:
    """A batch's operations, each with its body's JSON text exactly as sent, when the batch is
    well formed (``models.BatchRequest`` accepts it), else None."""
    if not body:
        return None
    try:
        request = _BATCH.decode(body)
    except (msgspec.MsgspecError, ValueError, RecursionError):  # (an operation's body nested
        return None  # past msgspec's depth: read and refused by the models)
    out: list[tuple[str, bytes]] = []
    for operation in request.operations:
        raw = bytes(operation.body)
        if raw[:1] != b"{":  # a body is an object
            return None
        out.append((operation.op, raw))
    return out
