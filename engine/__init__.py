"""Canasta Referee's rules engine: pure Python, standard library only.

Value types (``State``, ``Action``, ``Meld``), the variant registry, and the operations:
``legal_actions``, ``check_actions``, ``apply_actions``, ``score_deal``, ``deal``, plus
``engine.api`` for the JSON-shaped operations of docs/wire-format.md (``engine.audit``: a game
log replayed). ``BUILD`` says whether its hot
modules run compiled (mypyc, as ``pip install .`` builds them) or from their sources.
"""

import sys as _sys
from importlib.machinery import EXTENSION_SUFFIXES as _EXTENSION_SUFFIXES

from . import api, audit  # the JSON-shaped operations; loaded here so BUILD covers them
from .deal import deal
from .legal import LegalActions, legal_actions
from .play import apply_action, apply_actions, check_actions
from .reasons import IllegalAction, InvalidState, Problem, Refusal, UnknownRules
from .scoring import score_deal
from .state import Action, Meld, Pile, State, Turn
from .variants import VARIANTS, find_variant, rules_for
from .wire import action_from_data, action_to_data, state_from_data, state_to_data, validate_data

__version__ = "0.1.0"


def _compiled_modules() -> tuple[str, ...]:
    """The engine's modules loaded (so far) from C extensions rather than ``.py`` sources."""
    prefix = f"{__name__}."
    return tuple(sorted(
        name.removeprefix(prefix) for name, module in list(_sys.modules.items())
        if name.startswith(prefix)
        and (getattr(module, "__file__", None) or "").endswith(tuple(_EXTENSION_SUFFIXES))))


#: the engine modules running as C extensions built by mypyc (``pip install .``); empty when the
#: engine runs from its sources (editable installs, CANASTA_REFEREE_PURE=1, no C compiler)
COMPILED_MODULES = _compiled_modules()
#: ``"compiled"`` or ``"python"``: which engine this process runs
BUILD = "compiled" if COMPILED_MODULES else "python"

__all__ = [
    "BUILD", "COMPILED_MODULES", "Action", "IllegalAction", "LegalActions", "InvalidState",
    "Meld", "Pile", "Problem", "Refusal", "State", "Turn", "UnknownRules", "VARIANTS",
    "action_from_data", "action_to_data", "api", "apply_action", "apply_actions", "audit",
    "check_actions", "deal", "find_variant", "legal_actions", "rules_for", "score_deal",
    "state_from_data", "state_to_data", "validate_data",
]
