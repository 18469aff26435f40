"""The service is stateless: two processes with no shared cache (no Redis, each its own empty
in-process tier) give byte-identical answers to the same requests, for every variant, every
operation, both languages and GraphQL, over the first turns of a game played on one of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .servers import Service

STEPS = 6  # turns of each game, each one asked of both services


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[httpx.Client, httpx.Client]]:
    a, b = Service({"REDIS_URL": ""}), Service({"REDIS_URL": ""})
    try:
        a.start()
        b.start()
        with httpx.Client(base_url=a.url, timeout=10) as ca, \
                httpx.Client(base_url=b.url, timeout=10) as cb:
            yield ca, cb
    finally:
        a.stop()
        b.stop()


def both(pair: tuple[httpx.Client, httpx.Client], path: str, body: Any = None,
         lang: str = "en") -> Any:
    """Ask both; their answers (status, type, bytes) must be the same; the answer's JSON."""
    headers = {"Accept-Language": lang}
    answers = [c.get(path, headers=headers) if body is None else
               c.post(path, json=body, headers=headers) for c in pair]
    first, second = answers
    assert first.status_code == second.status_code, path
    assert first.headers["content-type"] == second.headers["content-type"], path
    assert first.content == second.content, f"{path}: the two services disagree"
    return first.json()


def test_variants_and_rule_tables_are_the_same(pair: tuple[httpx.Client, httpx.Client]) -> None:
    variants = both(pair, "/v1/variants")["variants"]
    assert len(variants) >= 5
    for v in variants:
        both(pair, f"/v1/variants/{v['id']}")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_games_played_on_one_are_judged_alike_by_the_other(
        pair: tuple[httpx.Client, httpx.Client], lang: str) -> None:
    variants = [v["id"] for v in both(pair, "/v1/variants")["variants"]]
    for n, variant in enumerate(variants):
        state = both(pair, "/v1/deal", {"variant": variant, "seed": 100 + n}, lang)["state"]
        for step in range(STEPS):
            assert both(pair, "/v1/validate", {"state": state}, lang)["valid"] is True
            listed = both(pair, "/v1/legal-actions", {"state": state}, lang)
            actions = listed["actions"]
            if not actions:
                break
            action = actions[(7 * step + n) % len(actions)]
            assert both(pair, "/v1/check", {"state": state, "actions": [action]}, lang)["legal"]
            # an action out of turn: a refusal with its message, alike on both
            other = {"type": "draw", "seat": (listed["seat"] + 1) % len(state["hands"])}
            both(pair, "/v1/check", {"state": state, "actions": [other]}, lang)
            both(pair, "/v1/score", {"state": state}, lang)
            state = both(pair, "/v1/apply", {"state": state, "actions": [action]}, lang)["state"]
        # and once more, now from the in-process tier of each (hits): still the same bytes
        both(pair, "/v1/legal-actions", {"state": state}, lang)


def test_graphql_answers_are_the_same(pair: tuple[httpx.Client, httpx.Client]) -> None:
    state = both(pair, "/v1/deal", {"variant": "classic", "seed": 5})["state"]
    query = """query($s: JSON!) {
      legalActions(state: $s) { __typename ... on LegalActions { seat phase actionsJson } }
      check(state: $s, actions: [{type: DISCARD, card: "JK"}]) {
        __typename ... on Illegal { index reason { code message rule } } }
      score(state: $s) { __typename } }"""
    for lang in ("en", "de"):
        answer = both(pair, "/graphql", {"query": query, "variables": {"s": state}}, lang)
        assert "errors" not in answer
        assert answer["data"]["check"]["__typename"] == "Illegal"
