"""Canasta Referee's rules engine: pure Python, standard library only.

Value types (``State``, ``Action``, ``Meld``), the variant registry, and the operations:
``legal_actions``, ``check_actions``, ``apply_actions``, ``score_deal``, ``deal``, plus
``engine.api`` for the JSON-shaped operations of CONTRACT.md.
"""

from .deal import deal
from .legal import LegalActions, legal_actions
from .play import apply_action, apply_actions, check_actions
from .reasons import IllegalAction, InvalidState, Problem, Refusal, UnknownRules
from .scoring import score_deal
from .state import Action, Meld, Pile, State, Turn
from .variants import VARIANTS, find_variant, rules_for
from .wire import action_from_data, action_to_data, state_from_data, state_to_data, validate_data

__version__ = "0.1.0"

__all__ = [
    "Action", "IllegalAction", "LegalActions", "InvalidState", "Meld", "Pile", "Problem", "Refusal", "State",
    "Turn", "UnknownRules", "VARIANTS", "action_from_data", "action_to_data", "apply_action",
    "apply_actions", "check_actions", "deal", "find_variant", "legal_actions", "rules_for",
    "score_deal", "state_from_data", "state_to_data", "validate_data",
]
