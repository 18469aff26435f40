"""Order independence (issue 15): melds of one turn that do not build on one another -- each a new
meld, or an addition to a different meld already on the table -- are judged the same whatever
their order. The side's melds of a turn count together toward the initial minimum (VARIANTS.md,
"Common to all"), and whether the turn can still be finished does not depend on which meld came
first. Found broken for German black threes and Canastra Real sequences, which made a legal turn
depend on the order of its melds.

Modern American's incomplete wild-card meld is left out: while it lies incomplete no wild card
goes into another meld (seed 001 'Auslagen aus wilden Karten'), a rule about order itself.
"""

from __future__ import annotations

import random
from itertools import permutations
from typing import Any

import pytest

from canasta_referee.engine import (
    Action,
    State,
    apply_action,
    check_actions,
    legal_actions,
    rules_for,
    state_to_data,
)
from canasta_referee.engine.cards import REAL, WILD_RANK
from canasta_referee.engine.state import PLAY
from tests.hands import canastra_real_states, german_black_three_states
from tests.playout import playout
from tests.test_properties import CONFIGS


def _key(action: Action) -> int | None:
    """The meld an action makes or adds to: its rank; suit sequences all count as one (one per
    run, so no two runs race for the same cards)."""
    return REAL if action.rank is not None and action.rank <= REAL else action.rank


def meld_runs(state: State, rng: random.Random, tries: int = 3) -> list[list[Action]]:
    """Runs of two or three listed melds of different ranks, each taken from the state the run
    before it leads to."""
    runs: list[list[Action]] = []
    blocks = state.rules.wild_meld_blocks
    for _ in range(tries):
        run: list[Action] = []
        seen: set[int | None] = set()
        current = state
        for _ in range(3):
            melds = [a for a in legal_actions(current) if a.kind == "meld"
                     and _key(a) not in seen and not (blocks and a.rank == WILD_RANK)]
            if not melds:
                break
            action = rng.choice(melds)
            run.append(action)
            seen.add(_key(action))
            current, _ = apply_action(current, action)
            if current.turn.phase != PLAY:
                break
        if len(run) >= 2:
            runs.append(run)
    return runs


def _table(state: State) -> tuple[Any, ...]:
    """What a turn leaves: the mover's hand, the melds by rank (sequences by their cards),
    the phase and who went out."""
    side = state.rules.side_of(state.turn.seat)
    melds = sorted((m.rank if m.rank > REAL else REAL, m.cards)
                   for m in (*state.melds[side], *state.turn.pending))
    return state.hands[state.turn.seat], tuple(melds), state.turn.phase, state.turn.went_out


def assert_order_free(state: State, run: list[Action]) -> None:
    outcomes = set()
    for order in permutations(run):
        found = check_actions(state, list(order))
        assert found is None, (order, found, state_to_data(state))
        after = state
        for action in order:
            after, _ = apply_action(after, action)
        outcomes.add(_table(after))
    assert len(outcomes) == 1, (run, state_to_data(state))


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_melds_of_a_turn_in_any_order(variant: str, options: dict[str, Any]) -> None:
    rules = rules_for(variant, options)
    rng = random.Random(f"order-{variant}-{sorted(options.items())}")
    runs = 0
    for seed in range(70_000, 70_006):
        for state, _ in playout(rules, seed, check=False, eager=True):
            if state.turn.phase == PLAY and not state.turn.started and not state.turn.extended:
                for run in meld_runs(state, rng):
                    assert_order_free(state, run)
                    runs += 1
    assert runs, "no turn with two melds came up"


@pytest.mark.parametrize("kind", ["german-black-threes", "canastra-real"])
def test_constructed_hands_in_any_order(kind: str) -> None:
    """The classes that were broken: German hands with black threes, Canastra Real hands."""
    states = (german_black_three_states if kind == "german-black-threes" else canastra_real_states)(60)
    rng = random.Random(kind)
    runs = 0
    for state in states:
        for run in meld_runs(state, rng):
            assert_order_free(state, run)
            runs += 1
    assert runs >= 20, runs
