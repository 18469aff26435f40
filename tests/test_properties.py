"""Property tests over seeded random playouts of whole deals (issue 2, "How it is shown"), for
every variant, player count and option that changes play (issue 3).

``CANASTA_PLAYOUTS`` sets the number of deals of four-player Classic (default 1,000); every other
configuration plays a tenth of that.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from canasta_referee.engine import VARIANTS, rules_for
from canasta_referee.engine.wire import action_to_data, actions_json
from tests.playout import playout

DEALS = int(os.environ.get("CANASTA_PLAYOUTS", "1000"))
CHUNK = 50

# every variant and player count, and every option that changes play
CONFIGS: list[tuple[str, dict[str, Any]]] = [(v.id, o) for v in VARIANTS for o in v.configurations]
CONFIGS += [
    ("classic", {"natural_majority": True}),
    ("classic", {"pile_needs_natural_pair": True}),
    ("classic", {"ask_partner": False}),
    ("german", {"hand_canasta_low": True}),
    ("canastra", {"freeze": "wild"}),
    ("canastra", {"freeze": "wild-or-black-three"}),
    ("canastra", {"freeze": "always"}),
    ("canastra", {"ask_partner": False}),
    ("canastra", {"canastra_real": True}),
    ("classic", {"wild_canasta": 2000}),
    ("german", {"joker_canasta": 1000}),
]


def _deals(variant: str, options: dict[str, Any]) -> int:
    main = variant == "classic" and options.get("players", 4) == 4 and len(options) <= 1
    return DEALS if main else max(10, DEALS // 20)


CASES = [(v, o, start) for v, o in CONFIGS for start in range(0, _deals(v, o), CHUNK)]
EAGER = max(5, DEALS // 50)  # deals per configuration whose players meld whenever they may


@pytest.mark.parametrize(("variant", "options", "start"), CASES,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}-{s}"
                              for v, o, s in CASES])
def test_random_playouts_keep_every_invariant(variant: str, options: dict[str, Any],
                                               start: int) -> None:
    """No card lost or created, the seat to move always has a legal action until the deal
    ends, every listed action applies, random unlisted ones are refused with a code, listing
    does not change the state, the state validates and round-trips, breakdowns sum."""
    rules = rules_for(variant, options)
    for seed in range(start, min(start + CHUNK, _deals(variant, options))):
        for _ in playout(rules, seed):
            pass


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_eager_playouts_keep_every_invariant(variant: str, options: dict[str, Any]) -> None:
    """The same invariants on deals whose players take the pile and meld whenever they may:
    canastas, closed ranks, wild-card melds and going out come up far more often."""
    rules = rules_for(variant, options)
    for seed in range(50_000, 50_000 + EAGER):
        for _ in playout(rules, seed, eager=True):
            pass


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_legal_actions_are_exactly_what_apply_accepts(variant: str, options: dict[str, Any]) -> None:
    """Exhaustive closure on whole deals: every candidate action of every class (any count
    of naturals, twos and jokers of any rank, any pickup of zero to three cards, any discard)
    is accepted by apply if and only if its class is listed."""
    rules = rules_for(variant, options)
    for seed in range(10_000, 10_000 + max(3, DEALS // 200)):
        for _ in playout(rules, seed, exhaustive=True, eager=seed % 2 == 1):
            pass


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_actions_json_is_the_actions_written_as_data(variant: str, options: dict[str, Any]) -> None:
    """The service writes legal-action lists as JSON text from their blocks of melds
    (``engine.wire.actions_json``): byte for byte what writing each action as data gives, on
    the lazy list and on a plain list of the same actions; the list's ``seat`` (the answer's
    ``seat``, found without building an action) is the seat every action names."""
    rules = rules_for(variant, options)
    for seed in range(60_000, 60_000 + EAGER):
        for _, actions in playout(rules, seed, check=False, eager=True):
            listed = list(actions)
            as_data = json.dumps([action_to_data(a) for a in listed], separators=(",", ":"))
            assert actions_json(actions) == as_data
            assert actions_json(listed) == as_data
            assert {a.seat for a in listed} == ({actions.seat} if listed else set())
