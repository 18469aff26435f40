"""Legal-action lists and states as JSON text for answers: written by the native writer
(``_text``, from schema/_text.c) where the installed wheel carries it, else by
``engine.wire.actions_json`` (the pure-Python reference) and, for a state, as the data of
``engine.wire.state_to_data``. The two give the same text (tests/test_text.py,
tests/test_state_text.py); the native one writes a long list with melds about twice as fast,
and a state several times faster than its data is made and serialised (docs/performance.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import orjson

from canasta_referee.engine import wire
from canasta_referee.engine.cards import RANKS
from canasta_referee.engine.legal import LegalActions
from canasta_referee.engine.rules import RuleSet
from canasta_referee.engine.state import Action, State

_native: Callable[..., str] | None
#: schema/_text.c's writer of legal-action lists (``actions_text``), None where not built
native_actions: Callable[..., str | bytes] | None
_native_state: Callable[..., str] | None
#: schema/_project.c's typed GraphQL lists (service/graphql_fast.py), None where not built
project: Callable[..., bytes] | None
try:
    from canasta_referee.schema._text import actions_text as _native
    from canasta_referee.schema._text import project
    from canasta_referee.schema._text import state_text as _native_state
except ImportError:  # an editable install, a pure-Python wheel, no C compiler
    _native = _native_state = project = None
native_actions = _native

#: how the writers above write most legal actions (``engine.wire``'s pieces), as ``project``
#: takes them (its templates): a meld's text before its cards, after them (by seat and rank); a
#: discard's before its card, after it (by seat). ``project`` writes an action that is such a
#: text from the texts it would write for the template, a few copies instead of reading its keys
#: (a slot: one string, or strings with a comma between; schema/_project.c's SLOT_*)
SLOT_STRING, SLOT_STRINGS = 1, 2
#: a template: its text before the slot, the slot's kind, every text that may follow the slot
Template = tuple[bytes, int, tuple[bytes, ...]]
ACTION_TEMPLATES: tuple[Template, ...] = (
    (wire.MELD_START.encode(), SLOT_STRINGS,
     tuple(end.encode() for ends in wire.MELD_ENDS for end in ends)),
    (wire.DISCARD_START.encode(), SLOT_STRING,
     tuple(end.encode() for end in wire.DISCARD_ENDS)))

#: "native" when the native writer is installed, else "python"
WRITER = "python" if _native is None else "native"


#: what ``typed_writer`` writes a seat's melds and discards with: a meld's text before its
#: cards, after them by rank; a discard's text before its card, after it
TypedPieces = tuple[str, list[str], str, str]


#: ``typed_writer``'s texts by seat for each typed templates' object (by ``id``: the entry holds
#: the object, so its ``id`` is not reused while the entry lives), shared by the plans of one
#: selection: at most ``SEATS_KEPT`` (the service's typed templates are at most
#: ``graphql_fast.TYPED_KEPT``, kept for the process's life), emptied when full
_SEATS: dict[int, tuple[object, dict[int, TypedPieces | None]]] = {}
SEATS_KEPT = 64


def typed_writer(typed: tuple[tuple[bytes, int, dict[bytes, tuple[bytes, bytes | None]]], ...],
                 one: Callable[[bytes], bytes], native: Callable[..., str | bytes] | None
                 ) -> Callable[[object], bytes | None] | None:
    """A writer of a legal-action list straight from the engine's ``LegalActions`` as
    ``project`` writes its JSON text with a selection's templates (``typed``, from
    ``ACTION_TEMPLATES``: each end's typed texts before and after the slot): ``native`` (the
    writer of the REST text) given the typed texts instead of ``engine.wire``'s, and ``one``
    (the selection's projection of one action's text, ``[...]`` around it) for the actions
    that are neither melds nor discards. The writer answers None for a list it does not write
    so (no melds' context; a seat whose melds' typed texts differ before their cards, or drop
    them); None where ``native`` is not built or the templates do not cover both kinds."""
    kinds = {start: ends for start, _, ends in typed}
    meld, discard = kinds.get(ACTION_TEMPLATES[0][0]), kinds.get(ACTION_TEMPLATES[1][0])
    if native is None or meld is None or discard is None:
        return None
    kept = _SEATS.get(id(typed))
    if kept is None or kept[0] is not typed:
        if len(_SEATS) >= SEATS_KEPT:
            _SEATS.clear()
        kept = _SEATS[id(typed)] = (typed, {})
    seats = kept[1]

    def pieces(seat: int) -> TypedPieces | None:
        """The seat's typed texts, or None where an end has none or they differ."""
        befores, afters = set(), []
        for end in wire.MELD_ENDS[seat]:
            texts = meld.get(end.encode())
            if texts is None or texts[1] is None:
                return None
            befores.add(texts[0])
            afters.append(texts[1])
        dropped = discard.get(wire.DISCARD_ENDS[seat].encode())
        if len(befores) != 1 or dropped is None or dropped[1] is None:
            return None
        written = [*befores, *afters, dropped[0], dropped[1]]
        if not all(t.isascii() for t in written):
            return None
        start, *ends, discard_start, discard_end = [t.decode() for t in written]
        return start, ends, discard_start, discard_end

    def write(actions: object) -> bytes | None:
        if not isinstance(actions, LegalActions) or actions.ctx is None:
            return None
        seat = actions.ctx.seat
        if seat not in seats:
            seats[seat] = pieces(seat) if 0 <= seat < len(wire.MELD_ENDS) else None
        typed_pieces = seats[seat]
        if typed_pieces is None:
            return None
        start, ends, discard_start, discard_end = typed_pieces
        try:
            written = native(wire.QUOTED, [_one(one, a) for a in actions.head], start,
                             actions.meld_blocks(), actions.wilds, ends,
                             [_one(one, a) for a in actions.tail], discard_start,
                             actions.discard_cards(), discard_end, True)  # as bytes
        except (TypeError, ValueError, OverflowError, SystemError):  # refused: project the text
            return None
        return written if isinstance(written, bytes) else None

    return write


def _one(one: Callable[[bytes], bytes], action: Action) -> str:
    """An action's typed text: ``one`` of its JSON text in a list."""
    return one(b"[" + wire.action_json(action).encode() + b"]")[1:-1].decode()


def actions_json(actions: Sequence[Action], native: Callable[..., str] | None = _native) -> str:
    """``engine.wire.actions_json(actions)``, written by ``native`` (None: the pure writer)."""
    return wire.actions_json(actions, native)


def fragment(actions: LegalActions) -> orjson.Fragment:
    """The actions' JSON text as a fragment orjson writes into an answer as it is."""
    return orjson.Fragment(wire.actions_json(actions, _native))


#: the quoted codes of the 13 ranks, a wild meld's and a suit sequence's (``state_text``)
RANK_TEXTS = (*(f'"{rank}"' for rank in RANKS), '"wild"', '"real"')
#: a state's text up to the dealer's number, by ruleset object (``id``; the entry holds the
#: ruleset, so its ``id`` is not reused while the entry lives); at most ``HEADS_KEPT``, emptied
#: when full. By identity, not by value: hashing a ruleset's options cost more than the look-up
#: saved. The engine makes one ruleset per variant and options (``engine.rules_for``).
_HEADS: dict[int, tuple[RuleSet, str]] = {}
HEADS_KEPT = 256


def head(rules: RuleSet) -> str:
    """``{"variant":...,"options":{...},"dealer":``, as orjson writes ``state_to_data``'s."""
    kept = _HEADS.get(id(rules))
    if kept is not None and kept[0] is rules:
        return kept[1]
    data = {"variant": rules.id, "options": dict(rules.options)}
    text = orjson.dumps(data).decode()[:-1] + ',"dealer":'
    if len(_HEADS) >= HEADS_KEPT:
        _HEADS.clear()
    _HEADS[id(rules)] = (rules, text)
    return text


def state_json(state: State, native: Callable[..., str] | None = _native_state) -> object:
    """A state for an answer: its JSON text as a fragment orjson writes as it is (``native``,
    the native writer), else (no native writer, or a state it does not write: options with
    text outside plain ASCII) ``engine.wire.state_to_data(state)``, which orjson writes the
    same."""
    if native is not None:
        try:
            return orjson.Fragment(native(wire.QUOTED, RANK_TEXTS, head(state.rules), state))
        except (TypeError, ValueError):
            pass
    return wire.state_to_data(state)
