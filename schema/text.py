"""Legal-action lists as JSON text for answers: written by the native writer (``_text``, from
schema/_text.c) where the installed wheel carries it, else by ``engine.wire.actions_json``, the
pure-Python reference. The two give the same text (tests/test_text.py); the native one writes a
long list with melds about twice as fast (docs/performance.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import orjson

from canasta_referee.engine import wire
from canasta_referee.engine.legal import LegalActions
from canasta_referee.engine.state import Action

_native: Callable[..., str] | None
try:
    from canasta_referee.schema._text import actions_text as _native
except ImportError:  # an editable install, a pure-Python wheel, no C compiler
    _native = None

#: "native" when the native writer is installed, else "python"
WRITER = "python" if _native is None else "native"


def actions_json(actions: Sequence[Action], native: Callable[..., str] | None = _native) -> str:
    """``engine.wire.actions_json(actions)``, written by ``native`` (None: the pure writer)."""
    return wire.actions_json(actions, native)


def fragment(actions: LegalActions) -> orjson.Fragment:
    """The actions' JSON text as a fragment orjson writes into an answer as it is."""
    return orjson.Fragment(wire.actions_json(actions, _native))
