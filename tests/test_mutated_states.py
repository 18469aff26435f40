"""Hostile but well-formed input: states of real deals, mutated at random (cards moved or
replaced, ranks, phases, seats, pending melds, scores, answers), through every state operation
at the request level. Each answer is a 200 or a problem document with a code; nothing raises
(the service would answer 500). Seeded, so a failure is reproducible."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from canasta_referee.engine import VARIANTS, rules_for, state_to_data
from canasta_referee.schema import handlers
from tests.playout import playout

CARDS = [r + s for r in "23456789TJQKA" for s in "SHDC"] + ["JK"]
CASES = 800  # mutated states per variant; each goes through five operations


def _states(variant: str) -> list[dict[str, Any]]:
    out = []
    for seed in range(6):
        for i, (state, _) in enumerate(playout(rules_for(variant), seed, check=False,
                                              eager=seed % 2 == 0)):
            if i % 9 == 0:
                out.append(state_to_data(state))
    return out


def _card_lists(d: dict[str, Any]) -> list[list[str]]:
    lists = [h for h in d["hands"] if isinstance(h, list)]
    lists += [m["cards"] for side in d["melds"] for m in side]
    lists += [m["cards"] for m in d["turn"].get("pending") or []]
    lists += list(d["bonus_cards"])
    lists += [x for x in (d["discard"], d["stock"]) if isinstance(x, list)]
    return [cards for cards in lists if cards]


def mutate(d: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    d = copy.deepcopy(d)
    turn = d["turn"]
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(9)
        lists = _card_lists(d)
        if kind == 0 and len(lists) >= 2:  # a card moves to another place
            a, b = rng.sample(lists, 2)
            b.append(a.pop(rng.randrange(len(a))))
        elif kind == 1 and lists:  # a card becomes another
            cards = rng.choice(lists)
            cards[rng.randrange(len(cards))] = rng.choice(CARDS)
        elif kind == 2:
            turn["phase"] = rng.choice(["draw", "play", "answer", "over"])
        elif kind == 3:
            turn["seat"] = rng.randrange(len(d["hands"]))
        elif kind == 4 and any(d["melds"]):
            meld = rng.choice([m for side in d["melds"] for m in side])
            meld["rank"] = rng.choice(["A", "K", "7", "wild", "3", "2", "real"])
        elif kind == 5:
            turn["pending"] = [{"rank": rng.choice(["K", "wild", "7"]),
                                "cards": [rng.choice(CARDS) for _ in range(rng.randint(1, 8))]}]
        elif kind == 6:
            turn["took_pile"] = rng.random() < 0.5
            turn["started"] = [rng.choice(["K", "7", "A", "wild"])]
        elif kind == 7:
            d["scores"] = [rng.choice([-5000, 0, 3000, 5000, 9000]) for _ in d["scores"]]
        else:
            turn["asked"] = rng.choice([None, "yes", "no", "waiting"])
    return d


def _answer(op: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    status, answer = handlers.handle(op, json.dumps(body).encode())
    assert status == 200 or (status == 422 and answer["code"]), (op, status, answer)
    return status, answer


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_mutated_states_get_answers_or_problems_never_errors(variant: str) -> None:
    rng = random.Random(variant)
    states = _states(variant)
    for _ in range(CASES):
        state = mutate(rng.choice(states), rng)
        for op in ("validate", "score"):
            _answer(op, {"state": state})
        status, listed = _answer("legal-actions", {"state": state})
        actions = listed["actions"][:2] if status == 200 else [{"type": "draw"}]
        for action in actions:
            _answer("check", {"state": state, "actions": [action]})
            _answer("apply", {"state": state, "actions": [action]})
