"""Issue 18: scoring a deal from a score pad's tally (``POST /v1/score/tally``) and keeping a
game's score from its rounds (``POST /v1/game``), over HTTP (the real app, Starlette's
TestClient), in REST and GraphQL, in English and German.

The scores expected here are worked out by hand from the variants' pages (docs/variants); the
property test compares, on the final states of random deals of every configuration, the
answer to a state's tally (``engine.scoring.tally_of``) with the answer to the state.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from canasta_referee.engine import (
    apply_action,
    deal,
    legal_actions,
    rules_for,
    state_from_data,
    state_to_data,
)
from canasta_referee.engine.reasons import CODES
from canasta_referee.engine.rules import RuleSet
from canasta_referee.engine.scoring import going_out_kinds, tally_of
from canasta_referee.engine.state import State
from canasta_referee.engine.tally import deal_fields, read_tally, tally_to_data
from canasta_referee.schema.models import EXAMPLE_FULL_STATE, EXAMPLE_OVER_STATE, EXAMPLE_STATE
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import Settings
from tests.builders import meld, table
from tests.playout import playout
from tests.test_docs import RULESETS
from tests.test_languages import german
from tests.test_properties import CONFIGS

Data = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent
DEALS = max(4, int(os.environ.get("CANASTA_PLAYOUTS", "1000")) // 100)

#: the codes issue 18 added: each is provoked below, in both languages
TALLY_CODES = ("INVALID_TALLY", "FIELD_NOT_IN_VARIANT", "NEGATIVE_COUNT", "HAND_POINTS_POSITIVE",
               "NOT_A_MULTIPLE_OF_FIVE", "MELDED_POINTS_TOO_LOW", "POINTS_EXCEED_DECK",
               "TOO_MANY_CANASTAS", "TOO_MANY_MELDS", "TOO_MANY_THREES", "TOO_MANY_HELD_GROUPS",
               "HELD_GROUPS_NEED_HAND_POINTS", "GOING_OUT_NOT_IN_VARIANT",
               "GOING_OUT_NEEDS_CANASTAS", "TWO_SIDES_WENT_OUT", "HAND_AFTER_GOING_OUT",
               "STOCK_EXHAUSTED_MISMATCH")
LEDGER_CODES = ("INVALID_LEDGER", "ROUND_AFTER_GAME_OVER", "ROUND_SCORES_MISMATCH",
                "ROUND_RULES_MISMATCH", "ROUND_NOT_OVER")


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(log_level="warning")),
                    raise_server_exceptions=False) as c:
        yield c


def post(http: TestClient, path: str, body: Any, lang: str = "en") -> tuple[int, Data]:
    r = http.post(path, content=json.dumps(body).encode(), headers={"Accept-Language": lang})
    return r.status_code, r.json()


def tally(http: TestClient, variant: str, *sides: Data, options: Data | None = None,
          **extra: Any) -> Data:
    """The 200 answer to a tally."""
    body = {"variant": variant, "options": options or {}, "sides": list(sides), **extra}
    status, answer = post(http, "/v1/score/tally", body)
    assert status == 200, answer
    return answer


def bd(answer: Data, side: int) -> dict[str, int]:
    out: dict[str, int] = answer["sides"][side]["breakdown"]
    return out


def refused(http: TestClient, body: Data, path: str = "/v1/score/tally",
            lang: str = "en") -> list[tuple[str, str]]:
    """(code, path) of every problem of a refused request."""
    status, answer = post(http, path, body, lang)
    assert status == 422, answer
    return [(p["code"], p["path"]) for p in answer["problems"]]


def tally_request(state: State) -> Data:
    """The tally of a state as a score pad app would send it."""
    data = tally_to_data(state.rules, tally_of(state))
    return {"variant": state.rules.id, "options": dict(state.rules.options),
            "scores": list(state.scores), **data}


# --- scores worked out by hand -------------------------------------------------------------------


def test_classic_tally_scores_as_the_rules_say(http: TestClient) -> None:
    """docs/variants/classic.md, "Scoring": canastas 500/300, red threes 100 (800 all four,
    minus without a meld), going out 100, concealed 200, a red three kept -500."""
    answer = tally(http, "classic",
                   {"melded_points": 180, "hand_points": -65, "went_out": "plain",
                    "red_threes": 1, "mixed_canastas": 1},
                   {"melded_points": 80, "hand_points": -120, "red_threes": 1},
                   scores=[650, -150])
    assert answer["final"] is True
    assert bd(answer, 0) == {"melded_cards": 180, "hand_cards": -65, "canasta_bonus": 300,
                             "bonus_cards": 100, "going_out": 100, "penalties": 0, "total": 615}
    assert bd(answer, 1)["total"] == 60
    assert answer["scores"] == [1265, -90] and answer["next_minimums"] == [50, 15]
    assert answer["sides"][0]["seats"] == [0, 2] and answer["game_over"] is False
    answer = tally(http, "classic",
                   {"melded_points": 400, "went_out": "concealed", "red_threes": 4,
                    "natural_canastas": 1, "mixed_canastas": 1},
                   {"melded_points": 0, "hand_points": -200, "red_threes_in_hand": 0})
    assert bd(answer, 0) == {"melded_cards": 400, "hand_cards": 0, "canasta_bonus": 800,
                             "bonus_cards": 800, "going_out": 200, "penalties": 0, "total": 2200}
    answer = tally(http, "classic", {"melded_points": 0, "red_threes": 2},
                   {"melded_points": 60, "hand_points": -30, "red_threes_in_hand": 1})
    assert bd(answer, 0)["bonus_cards"] == -200  # no meld: the red threes count against
    assert bd(answer, 1)["penalties"] == -500
    answer = tally(http, "classic", {"melded_points": 60, "red_threes": 2}, {},
                   options={"red_three_card_points": 5})
    assert bd(answer, 0)["bonus_cards"] == 210
    answer = tally(http, "classic", {"melded_points": 200, "wild_canastas": 1, "went_out": "plain"},
                   {}, options={"wild_canasta": 2000})
    assert bd(answer, 0)["canasta_bonus"] == 2000
    # six players in three pairs: five red threes 1,000, six 1,200 (three packs)
    answer = tally(http, "classic", {"melded_points": 50, "red_threes": 5},
                   {"melded_points": 50, "red_threes": 1}, {}, options={"players": 6})
    assert [bd(answer, s)["bonus_cards"] for s in range(3)] == [1000, 100, 0]
    answer = tally(http, "classic", {"melded_points": 50, "red_threes": 6}, {}, {},
                   options={"players": 6})
    assert bd(answer, 0)["bonus_cards"] == 1200
    assert answer["sides"][2]["seats"] == [2, 5]


def test_modern_american_tally_scores_as_the_rules_say(http: TestClient) -> None:
    """docs/variants/modern-american.md: pure sevens and aces 2,500, wild canastas 3,000 /
    2,500 / 2,000; threes by colour against a side without canasta, nothing with one, for it
    with two; melded cards against a side without canasta; incomplete sevens, pure aces
    -2,500, wild meld -2,000 (-2,500 with four jokers), three aces or sevens held -1,500."""
    answer = tally(http, "modern-american",
                   {"melded_points": 215, "hand_points": -10, "went_out": "plain",
                    "red_threes": 2, "black_threes": 1, "pure_sevens_canastas": 1,
                    "mixed_canastas": 1},
                   {"melded_points": 120, "hand_points": -150, "red_threes": 1,
                    "incomplete_wild_melds": 1, "held_aces_groups": 1}, scores=[3200, 4100])
    assert bd(answer, 0) == {"melded_cards": 215, "hand_cards": -10, "canasta_bonus": 2800,
                             "bonus_cards": 400, "going_out": 100, "penalties": 0, "total": 3505}
    assert bd(answer, 1) == {"melded_cards": -120, "hand_cards": -150, "canasta_bonus": 0,
                             "bonus_cards": -100, "going_out": 0, "penalties": -3500,
                             "total": -3870}
    assert answer["scores"] == [6705, 230] and answer["next_minimums"] == [180, 125]
    answer = tally(http, "modern-american",
                   {"melded_points": 330, "seven_twos_canastas": 1, "pure_aces_canastas": 1,
                    "red_threes": 1, "black_threes": 1},
                   {"melded_points": 400, "natural_canastas": 1, "red_threes": 1,
                    "incomplete_pure_sevens_melds": 1, "held_sevens_groups": 2,
                    "hand_points": -30})
    assert bd(answer, 0)["canasta_bonus"] == 5500 and bd(answer, 0)["bonus_cards"] == 200
    assert bd(answer, 1)["canasta_bonus"] == 500 and bd(answer, 1)["bonus_cards"] == 0
    assert bd(answer, 1)["penalties"] == -5500
    answer = tally(http, "modern-american", {"melded_points": 260, "four_jokers_canastas": 1},
                   {})
    assert bd(answer, 0)["canasta_bonus"] == 2500 and bd(answer, 0)["melded_cards"] == 260
    answer = tally(http, "modern-american",
                   {"melded_points": 200, "wild_canastas": 1, "red_threes": 3},
                   {"melded_points": 300, "incomplete_four_jokers_melds": 1,
                    "incomplete_pure_aces_melds": 1})
    assert bd(answer, 0)["canasta_bonus"] == 2000 and bd(answer, 0)["bonus_cards"] == 0
    assert bd(answer, 1)["penalties"] == -5000
    answer = tally(http, "modern-american", {}, {"melded_points": 200,
                                                 "incomplete_four_jokers_melds": 1},
                   options={"four_jokers_penalty": 2000})
    assert bd(answer, 1)["penalties"] == -2000


def test_german_tally_scores_as_the_rules_say(http: TestClient) -> None:
    """docs/variants/german.md: Blatt 200, Handcanasta 1,000 (house rule: 200, and 300 out at
    once after one draw), red threes minus without a canasta, the stock used up -100 each."""
    hand = {"melded_points": 260, "hand_points": -40, "went_out": "hand",
            "natural_canastas": 1, "mixed_canastas": 1}
    answer = tally(http, "german", {"melded_points": 150, "hand_points": -85, "red_threes": 2},
                   hand)
    assert bd(answer, 0)["bonus_cards"] == -200 and bd(answer, 1)["going_out"] == 1000
    assert [s["total"] for s in answer["sides"]] == [-135, 2020]
    answer = tally(http, "german", {"red_threes": 4}, {**hand, "went_out": "blatt"})
    assert bd(answer, 0)["bonus_cards"] == -800 and bd(answer, 1)["going_out"] == 200
    low = {"hand_canasta_low": True}
    assert bd(tally(http, "german", {}, hand, options=low), 1)["going_out"] == 200
    first = {**hand, "went_out": "first_turn"}
    assert bd(tally(http, "german", {}, first, options=low), 1)["going_out"] == 300
    for extra in ({}, {"stock_exhausted": True}):  # nobody out: the stock ended the deal
        answer = tally(http, "german", {"melded_points": 90}, {"melded_points": 50}, **extra)
        assert [bd(answer, s)["penalties"] for s in (0, 1)] == [-100, -100]
    answer = tally(http, "german", {}, {**hand, "went_out": "plain"}, stock_exhausted=False)
    assert [bd(answer, s)["penalties"] for s in (0, 1)] == [0, 0]
    answer = tally(http, "german", {"melded_points": 140, "wild_canastas": 1}, hand,
                   options={"joker_canasta": 1000})
    assert bd(answer, 0)["canasta_bonus"] == 1000 and bd(answer, 0)["bonus_cards"] == 0
    answer = tally(http, "german", {}, {"melded_points": 35, "natural_canastas": 1,
                                        "went_out": "hand"}, {}, options={"players": 3})
    assert bd(answer, 1)["going_out"] == 1000 and answer["sides"][1]["seats"] == [1]


def test_canastra_and_family_tallies_score_as_the_rules_say(http: TestClient) -> None:
    """Canastra: clean 200, dirty 100, Canastra Real 500 (option), concealed 200, red threes
    never minus. Family: 500/300, going out 100 only, red threes minus without a meld."""
    answer = tally(http, "canastra",
                   {"melded_points": 300, "natural_canastas": 1, "mixed_canastas": 2,
                    "real_canastas": 1, "went_out": "concealed", "red_threes": 1},
                   {"red_threes": 2, "hand_points": -55}, options={"canastra_real": True})
    assert bd(answer, 0) == {"melded_cards": 300, "hand_cards": 0, "canasta_bonus": 900,
                             "bonus_cards": 100, "going_out": 200, "penalties": 0, "total": 1500}
    assert bd(answer, 1)["bonus_cards"] == 200  # never against a side
    answer = tally(http, "family", {"melded_points": 140, "natural_canastas": 1,
                                    "mixed_canastas": 1, "went_out": "plain"},
                   {"red_threes": 1, "hand_points": -20}, options={"players": 4})
    assert bd(answer, 0)["canasta_bonus"] == 800 and bd(answer, 0)["going_out"] == 100
    assert bd(answer, 1)["bonus_cards"] == -100


# --- refusals ----------------------------------------------------------------------------------

SIDE = {"melded_points": 50}
#: (variant, options, body without variant/options, the (code, path) expected among problems)
REFUSALS: list[tuple[str, Data, Data, tuple[str, str]]] = [
    ("classic", {}, {"sides": [{"wild_canastas": 1}, {}]},
     ("FIELD_NOT_IN_VARIANT", "/sides/0/wild_canastas")),
    ("classic", {}, {"sides": [{}, {"black_threes": 0}]},
     ("FIELD_NOT_IN_VARIANT", "/sides/1/black_threes")),
    ("modern-american", {}, {"sides": [{"red_threes_in_hand": 1}, {}]},
     ("FIELD_NOT_IN_VARIANT", "/sides/0/red_threes_in_hand")),
    ("family", {}, {"sides": [{}, {}], "stock_exhausted": True},
     ("FIELD_NOT_IN_VARIANT", "/stock_exhausted")),
    ("classic", {}, {"sides": [{"red_threes": -1}, {}]}, ("NEGATIVE_COUNT", "/sides/0/red_threes")),
    ("classic", {}, {"sides": [{}, {"melded_points": -5}]},
     ("NEGATIVE_COUNT", "/sides/1/melded_points")),
    ("classic", {}, {"sides": [{"hand_points": 45}, {}]},
     ("HAND_POINTS_POSITIVE", "/sides/0/hand_points")),
    ("classic", {}, {"sides": [{"melded_points": 37}, {}]},
     ("NOT_A_MULTIPLE_OF_FIVE", "/sides/0/melded_points")),
    ("classic", {}, {"sides": [{"melded_points": 30, "natural_canastas": 1}, {}]},
     ("MELDED_POINTS_TOO_LOW", "/sides/0/melded_points")),
    ("modern-american", {}, {"sides": [{"melded_points": 135, "pure_aces_canastas": 1}, {}]},
     ("MELDED_POINTS_TOO_LOW", "/sides/0/melded_points")),
    ("classic", {}, {"sides": [{"melded_points": 1000}, {"hand_points": -200}]},
     ("POINTS_EXCEED_DECK", "/sides")),
    ("classic", {}, {"sides": [{"melded_points": 600, "natural_canastas": 12}, {}]},
     ("TOO_MANY_CANASTAS", "/sides/0")),
    ("classic", {}, {"sides": [{"melded_points": 300, "natural_canastas": 6},
                               {"melded_points": 300, "natural_canastas": 6}]},
     ("TOO_MANY_CANASTAS", "/sides")),
    ("classic", {}, {"sides": [{"melded_points": 300, "natural_canastas": 6},
                               {"melded_points": 300, "natural_canastas": 5,
                                "mixed_canastas": 1}]},
     ("TOO_MANY_CANASTAS", "/sides")),
    ("classic", {}, {"sides": [{"melded_points": 350, "mixed_canastas": 7},
                               {"melded_points": 300, "mixed_canastas": 6}]},
     ("TOO_MANY_CANASTAS", "/sides")),
    ("canastra", {"canastra_real": True},
     {"sides": [{"melded_points": 250, "real_canastas": 5},
                {"melded_points": 200, "real_canastas": 4}]}, ("TOO_MANY_CANASTAS", "/sides")),
    ("modern-american", {}, {"sides": [{"melded_points": 35, "pure_sevens_canastas": 1},
                                       {"melded_points": 35, "pure_sevens_canastas": 1}]},
     ("TOO_MANY_CANASTAS", "/sides")),
    ("modern-american", {}, {"sides": [{"melded_points": 140, "seven_twos_canastas": 1},
                                       {"melded_points": 260, "four_jokers_canastas": 1}]},
     ("TOO_MANY_CANASTAS", "/sides")),
    ("modern-american", {}, {"sides": [{"melded_points": 50, "pure_sevens_canastas": 1,
                                        "incomplete_pure_sevens_melds": 1}, {}]},
     ("TOO_MANY_MELDS", "/sides/0")),
    ("modern-american", {}, {"sides": [{}, {"melded_points": 200, "wild_canastas": 1,
                                            "incomplete_wild_melds": 1}]},
     ("TOO_MANY_MELDS", "/sides/1")),
    ("classic", {}, {"sides": [{"red_threes": 3, **SIDE}, {"red_threes": 2}]},
     ("TOO_MANY_THREES", "/sides")),
    ("modern-american", {}, {"sides": [{"black_threes": 3}, {"black_threes": 2}]},
     ("TOO_MANY_THREES", "/sides")),
    ("modern-american", {}, {"sides": [{"held_aces_groups": 3, "hand_points": -200}, {}]},
     ("TOO_MANY_HELD_GROUPS", "/sides/0/held_aces_groups")),
    ("modern-american", {}, {"sides": [{"held_aces_groups": 1, "hand_points": -60},
                                       {"held_aces_groups": 2, "hand_points": -120}]},
     ("TOO_MANY_HELD_GROUPS", "/sides")),
    ("modern-american", {}, {"sides": [{"held_aces_groups": 1, "hand_points": -40}, {}]},
     ("HELD_GROUPS_NEED_HAND_POINTS", "/sides/0/hand_points")),
    ("classic", {}, {"sides": [{"went_out": "hand", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/0/went_out")),
    ("family", {}, {"sides": [{"went_out": "concealed", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/0/went_out")),
    ("modern-american", {}, {"sides": [{"went_out": "concealed", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/0/went_out")),
    ("german", {"players": 3}, {"sides": [{}, {"went_out": "blatt", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/1/went_out")),
    ("german", {}, {"sides": [{"went_out": "first_turn", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/0/went_out")),
    ("german", {}, {"sides": [{"went_out": "concealed", **SIDE}, {}]},
     ("GOING_OUT_NOT_IN_VARIANT", "/sides/0/went_out")),
    ("modern-american", {}, {"sides": [{"went_out": "plain", "melded_points": 35,
                                        "natural_canastas": 1}, {}]},
     ("GOING_OUT_NEEDS_CANASTAS", "/sides/0/went_out")),
    ("classic", {"players": 2}, {"sides": [{"went_out": "plain", "melded_points": 35,
                                            "natural_canastas": 1}, {}]},
     ("GOING_OUT_NEEDS_CANASTAS", "/sides/0/went_out")),
    ("classic", {}, {"sides": [{"went_out": "plain", "melded_points": 35, "natural_canastas": 1},
                               {"went_out": "plain", "melded_points": 35, "mixed_canastas": 0}]},
     ("TWO_SIDES_WENT_OUT", "/sides")),
    ("classic", {"players": 3}, {"sides": [{}, {"went_out": "plain", "melded_points": 35,
                                                "natural_canastas": 1, "hand_points": -20}, {}]},
     ("HAND_AFTER_GOING_OUT", "/sides/1/hand_points")),
    ("classic", {"players": 3}, {"sides": [{}, {"went_out": "plain", "melded_points": 35,
                                                "natural_canastas": 1, "red_threes_in_hand": 1},
                                           {}]},
     ("HAND_AFTER_GOING_OUT", "/sides/1/red_threes_in_hand")),
    ("german", {"players": 3}, {"sides": [{"went_out": "plain", "melded_points": 35,
                                           "natural_canastas": 1, "red_threes_in_hand": 1},
                                          {}, {}]},
     ("HAND_AFTER_GOING_OUT", "/sides/0/red_threes_in_hand")),
    ("german", {}, {"sides": [{"went_out": "plain", "melded_points": 35, "natural_canastas": 1},
                              {}], "stock_exhausted": True},
     ("STOCK_EXHAUSTED_MISMATCH", "/stock_exhausted")),
    ("german", {}, {"sides": [{}, {}], "stock_exhausted": False},
     ("STOCK_EXHAUSTED_MISMATCH", "/stock_exhausted")),
    ("classic", {}, {"sides": [{}, {}, {}]}, ("SIDE_COUNT_MISMATCH", "/sides")),
    ("classic", {}, {"sides": [{}, {}], "scores": [0, 0, 0]}, ("SIDE_COUNT_MISMATCH", "/scores")),
]


@pytest.mark.parametrize(("variant", "options", "body", "expected"), REFUSALS,
                         ids=[f"{e[0]}-{v}-{i}" for i, (v, _, _, e) in enumerate(REFUSALS)])
def test_impossible_tallies_are_refused(http: TestClient, variant: str, options: Data,
                                        body: Data, expected: tuple[str, str]) -> None:
    status, answer = post(http, "/v1/score/tally", {"variant": variant, "options": options,
                                                    **body})
    assert status == 422 and answer["code"] == "INVALID_TALLY", answer
    found = [(p["code"], p["path"]) for p in answer["problems"]]
    assert expected in found, found
    assert answer["detail"] == f"The tally is impossible: {len(found)} problem" + (
        "s." if len(found) > 1 else ".")


def test_every_problem_at_once(http: TestClient) -> None:
    body = {"variant": "classic", "scores": [0], "sides": [
        {"melded_points": 40, "went_out": "plain", "red_threes": 3, "natural_canastas": 1,
         "wild_canastas": 1},
        {"melded_points": 95, "hand_points": 85, "went_out": "concealed", "red_threes": 2}]}
    assert refused(http, body) == [
        ("SIDE_COUNT_MISMATCH", "/scores"), ("FIELD_NOT_IN_VARIANT", "/sides/0/wild_canastas"),
        ("HAND_POINTS_POSITIVE", "/sides/1/hand_points"),
        ("GOING_OUT_NEEDS_CANASTAS", "/sides/1/went_out"), ("TOO_MANY_THREES", "/sides"),
        ("TWO_SIDES_WENT_OUT", "/sides")]


def test_the_ruleset_and_the_shape_are_refused_as_elsewhere(http: TestClient) -> None:
    for body, code, path in (
            ({"variant": "bridge", "sides": []}, "UNKNOWN_VARIANT", "/variant"),
            ({"options": {"colour": 1}, "sides": []}, "UNKNOWN_OPTION", "/options/colour"),
            ({"options": {"players": 5}, "sides": []}, "BAD_OPTION_VALUE", "/options/players"),
            ({"sides": [{"canastas": 2}, {}]}, "MALFORMED_REQUEST", "/sides/0/canastas"),
            ({"sides": [{"went_out": "yes"}, {}]}, "MALFORMED_REQUEST", "/sides/0/went_out"),
            ({"sides": [{"red_threes": "2"}, {}]}, "MALFORMED_REQUEST", "/sides/0/red_threes"),
            ({}, "MALFORMED_REQUEST", "/sides")):
        status, answer = post(http, "/v1/score/tally", body)
        assert status == 422 and answer["code"] == code, answer
        assert answer["problems"][0]["path"] == path, answer


# --- the table of docs/wire-format.md is what the service scores ---------------------------------


def _wire_format_table() -> dict[str, dict[str, str]]:
    """field -> variant -> cell, from the table of docs/wire-format.md, "Tallies"."""
    text = (ROOT / "docs" / "wire-format.md").read_text()
    section = text[text.index("## Tallies"):text.index("## Games")]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    header = next(line for line in section.splitlines() if line.startswith("| field"))
    variants = [c.strip() for c in header.strip("|").split("|")][2:]
    out = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        out[cells[0].strip("`")] = dict(zip(variants, cells[2:], strict=True))
    return out


def test_the_wire_format_table_says_what_each_variant_scores(http: TestClient) -> None:
    """Every field of the table, in every configuration and option value of every variant:
    ✓ is scored, – is refused as FIELD_NOT_IN_VARIANT, "option `x`" is scored exactly when
    that option is set; the ways of going out listed are exactly those scored."""
    table_ = _wire_format_table()
    assert {"melded_points", "went_out", "wild_canastas", "held_sevens_groups"} <= set(table_)
    for vid, options, rules in RULESETS:
        for name, cells in table_.items():
            cell = cells[vid]
            if name == "went_out":
                for kind in ("plain", "concealed", "blatt", "hand", "first_turn"):
                    side = {"went_out": kind, "melded_points": 35 * rules.canastas_to_go_out,
                            "natural_canastas": rules.canastas_to_go_out}
                    status, answer = post(http, "/v1/score/tally", {
                        "variant": vid, "options": options,
                        "sides": [side] + [{}] * (rules.sides - 1)})
                    assert (status == 200) == (kind in going_out_kinds(rules)), (
                        vid, options, kind, answer)
                    assert status == 200 or answer["problems"][0]["code"] == \
                        "GOING_OUT_NOT_IN_VARIANT", answer
                continue
            options_named = re.findall(r"option `(\w+)`", cell)
            if cell == "✓":
                scored = True
            elif cell == "–":
                scored = False
            else:
                assert options_named, (name, vid, cell)
                option = options_named[0]
                default = next(o.default for v in _variants() if v.id == vid
                               for o in v.options if o.name == option)
                scored = options.get(option, default) != default
            body = {"variant": vid, "options": options,
                    "sides": [{name: 0}] + [{}] * (rules.sides - 1)}
            status, answer = post(http, "/v1/score/tally", body)
            if scored:
                assert status == 200, (vid, options, name, answer)
            else:
                assert status == 422 and answer["problems"] == [{
                    "code": "FIELD_NOT_IN_VARIANT", "path": f"/sides/0/{name}",
                    "message": answer["problems"][0]["message"]}], (vid, options, name, answer)


def _variants() -> Any:
    from canasta_referee.engine import VARIANTS

    return VARIANTS


def test_went_out_cells_name_the_ways_the_service_scores() -> None:
    """The ways of going out a variant's cell names are those its configurations score."""
    table_ = _wire_format_table()
    ways = {"plain", "concealed", "blatt", "hand", "first_turn"}
    for v in _variants():
        named = set(re.findall(r"`(\w+)`", table_["went_out"][v.id])) & ways
        scored = {k for vid, _, rules in RULESETS if vid == v.id for k in going_out_kinds(rules)}
        assert named == scored, (v.id, named, scored)


# --- a state's tally scores as the state -------------------------------------------------------


def _flips(state: State) -> list[State]:
    """The final state, and where a player went out, the same with every way of going out the
    turn can say (concealed, the partner had melded, the player's first turn or not). Each is
    a history the table allows: the player's first turn is the last of the first round (the
    dealer is the player himself), a later one follows a round of every seat."""
    turn = state.turn
    if turn.went_out is None:
        return [state]
    out = []
    seats = range(state.rules.players)
    for concealed in (False, True):
        for partner in (False, True):
            for first in (False, True):
                played = tuple(s for s in seats if s != turn.went_out or not first)
                out.append(state._replace(
                    dealer=turn.went_out if first else state.dealer, turn=turn._replace(
                        concealed=concealed, partner_melded=partner and bool(
                            state.rules.partners(turn.went_out)), played=played)))
    return out


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_the_tally_of_a_final_state_scores_as_the_state(http: TestClient, variant: str,
                                                       options: Data) -> None:
    """On the final states of random deals (eager and uniform players), and on the same
    states with every way of going out: the state's tally, as an app sends it, gets exactly
    the answer the state gets; the engine reads back the very tally it wrote."""
    rules = rules_for(variant, options)
    ways: set[str | None] = set()
    flipped = 0
    for seed in range(DEALS):
        for eager in (False, True):
            *_, (final, _) = playout(rules, 70_000 + seed, check=False, eager=eager)
            states = _flips(final) if flipped < 2 else [final]
            flipped += len(states) > 1
            for state in states:
                request = tally_request(state)
                read, problems = read_tally(rules, request)
                written = tally_of(state)  # the stock's end is written where it scores
                written = written._replace(stock_exhausted=written.stock_exhausted and bool(
                    deal_fields(rules)))
                assert not problems and read == written, (problems, read, written)
                by_tally = post(http, "/v1/score/tally", request)
                by_state = post(http, "/v1/score", {"state": state_to_data(state)})
                assert by_tally == by_state, (request, state_to_data(state))
                ways |= {s.get("went_out") for s in request["sides"]}
    if flipped:  # every way of going out the variant scores came up
        assert ways == {None, *going_out_kinds(rules)}, ways


#: constructed final states with the canastas random deals seldom make
CONSTRUCTED: list[tuple[str, Data, list[list[Data]], dict[int, list[str]], str]] = [
    ("classic", {"wild_canasta": 1000},
     [[meld("2S", "2H", "2D", "2C", "2S", "JK", "JK", rank="wild"), meld("KS", "KH", "KD")], []],
     {0: []}, "wild_canastas"),
    ("german", {"joker_canasta": 1000},
     [[meld("2S", "2H", "2D", "JK", "JK", "JK", "JK", rank="wild"), meld("QS", "QH", "QD")], []],
     {0: []}, "wild_canastas"),
    ("modern-american", {},
     [[meld("2S", "2H", "2D", "2C", "2S", "2H", "2D", rank="wild"),
       meld(*["7S", "7H", "7D", "7C", "7S", "7H", "7D"])],
      [meld("AS", "AH", "AD")]], {0: []}, "seven_twos_canastas"),
    ("modern-american", {},
     [[meld("2S", "2H", "2D", "JK", "JK", "JK", "JK", rank="wild"),
       meld(*["AS", "AH", "AD", "AC", "AS", "AH", "AD"])],
      [meld("2C", "2C", "2S", rank="wild"), meld("7S", "7H", "7D")]], {0: []},
     "four_jokers_canastas"),
    ("canastra", {"canastra_real": True},
     [[meld("4H", "5H", "6H", "7H", "8H", "9H", "TH", rank="real"), meld("KS", "KH", "KD")], []],
     {0: []}, "real_canastas"),
]


@pytest.mark.parametrize(("variant", "options", "melds", "hands", "field"), CONSTRUCTED,
                         ids=[c[4] + "-" + c[0] for c in CONSTRUCTED])
def test_constructed_canastas_score_alike_as_tally_and_state(
        http: TestClient, variant: str, options: Data, melds: list[list[Data]],
        hands: dict[int, list[str]], field: str) -> None:
    state = table(hands, melds=melds, variant=variant, options=options,
                  turn={"seat": 0, "phase": "over", "went_out": 0})
    request = tally_request(state_from_data(state))
    assert request["sides"][0][field] == 1, request
    assert post(http, "/v1/score/tally", request) == post(http, "/v1/score", {"state": state})


# --- the ledger ---------------------------------------------------------------------------------


def _round(*sides: Data, **extra: Any) -> Data:
    return {"tally": {"sides": list(sides), **extra}}


WIN = {"melded_points": 750, "went_out": "plain", "red_threes": 4, "natural_canastas": 4,
       "mixed_canastas": 2}  # 4,250


def test_a_game_of_tallies_and_states(http: TestClient) -> None:
    from canasta_referee.service.examples import TALLY_ROUND_0

    status, answer = post(http, "/v1/game", {"variant": "classic", "rounds": [
        {"tally": TALLY_ROUND_0}, {"state": EXAMPLE_OVER_STATE},
        _round(WIN, {"melded_points": 100, "hand_points": -90})]})
    assert status == 200, answer
    assert [r["round"] for r in answer["rounds"]] == [0, 1, 2]
    assert [r["scores"] for r in answer["rounds"]] == [[650, -150], [1265, -90], [5515, -80]]
    # pagat "Initial Meld Requirement": below 0: 15; 0-1,495: 50; then 90, 120
    assert [r["minimums"] for r in answer["rounds"]] == [[50, 50], [50, 15], [50, 15]]
    assert answer["rounds"][1]["sides"] == post(http, "/v1/score", {
        "state": EXAMPLE_OVER_STATE})[1]["sides"]
    assert (answer["scores"], answer["game_over"], answer["winner"]) == ([5515, -80], True, 0)
    assert answer["next_minimums"] == [120, 15]
    status, empty = post(http, "/v1/game", {"variant": "german", "options": {"players": 3},
                                            "rounds": []})
    assert (status, empty) == (200, {"rounds": [], "scores": [0, 0, 0], "game_over": False,
                                     "winner": None, "next_minimums": [50, 50, 50]})


def test_ties_and_targets(http: TestClient) -> None:
    """Both sides past the target in the same deal: the higher total wins; an exact tie at
    or above it means another deal; the game then goes on."""
    short = {"melded_points": 150, "red_threes": 2, "natural_canastas": 4}  # 2,350
    body = {"variant": "classic", "options": {"target": 2500}, "rounds": [
        _round({**short, "went_out": "plain"}, {**short, "red_threes": 1})]}  # 2,450 / 2,250
    status, answer = post(http, "/v1/game", body)
    assert answer["scores"] == [2450, 2250] and not answer["game_over"]
    body["rounds"].append(_round({"melded_points": 50}, {"melded_points": 250}))  # tie: 2,500
    status, answer = post(http, "/v1/game", body)
    assert answer["scores"] == [2500, 2500]
    assert (answer["game_over"], answer["winner"]) == (False, None)
    body["rounds"].append(_round({"melded_points": 60}, {"melded_points": 55}))
    status, answer = post(http, "/v1/game", body)
    assert (answer["scores"], answer["game_over"], answer["winner"]) == ([2560, 2555], True, 0)
    body["rounds"][2] = _round({"melded_points": 60}, {"melded_points": 65})
    status, answer = post(http, "/v1/game", body)
    assert (answer["game_over"], answer["winner"]) == (True, 1)


def test_sujo_counts_no_deal_that_overshoots(http: TestClient) -> None:
    """Canastra, option sujo: a deal that would carry a side past the target does not count
    for it; hitting the target exactly wins."""
    body = {"variant": "canastra", "options": {"sujo": True, "target": 2500}, "rounds": [
        _round({"melded_points": 500, "natural_canastas": 2, "mixed_canastas": 20,
                "red_threes": 4, "went_out": "plain"}, {"melded_points": 100}),
        _round({"melded_points": 300, "natural_canastas": 1}, {"melded_points": 100}),
        _round({"melded_points": 100}, {"melded_points": 100})]}
    status, answer = post(http, "/v1/game", body)
    assert status == 422  # twenty mixed canastras are more than the cards allow
    assert ("TOO_MANY_CANASTAS", "/rounds/0/tally/sides") in [
        (p["code"], p["path"]) for p in answer["problems"]]
    body["rounds"][0] = _round({"melded_points": 500, "natural_canastas": 2,
                                "mixed_canastas": 6, "red_threes": 4, "went_out": "plain"},
                               {"melded_points": 100})  # 2,400 / 100
    status, answer = post(http, "/v1/game", body)
    assert status == 200, answer
    # 2,400 + 500 would pass 2,500: the second deal does not count for side 0
    assert [r["scores"] for r in answer["rounds"]] == [[2400, 100], [2400, 200], [2500, 300]]
    assert (answer["game_over"], answer["winner"]) == (True, 0)
    body["options"] = {"sujo": False, "target": 2500}
    status, answer = post(http, "/v1/game", body)
    assert status == 422 and answer["problems"][0]["code"] == "ROUND_AFTER_GAME_OVER"


def test_a_contradicting_record_is_refused_round_by_round(http: TestClient) -> None:
    from canasta_referee.service.examples import TALLY_ROUND_0

    over_other = copy.deepcopy(EXAMPLE_OVER_STATE)
    over_other["variant"] = "german"
    options = copy.deepcopy(EXAMPLE_OVER_STATE)
    options["options"] = {"players": 4, "target": 2500}
    hidden = copy.deepcopy(EXAMPLE_OVER_STATE)
    hidden["hands"][3] = {"size": 5}
    broken = copy.deepcopy(EXAMPLE_OVER_STATE)
    broken["hands"][1][0] = "JK"  # one joker too many
    base = [{"tally": TALLY_ROUND_0}]
    cases: list[tuple[list[Data], list[tuple[str, str]]]] = [
        (base + [{"state": over_other}], [("ROUND_RULES_MISMATCH", "/rounds/1/state/variant")]),
        (base + [{"state": options}], [("ROUND_RULES_MISMATCH", "/rounds/1/state/options")]),
        (base + [{"state": EXAMPLE_FULL_STATE}], [("ROUND_NOT_OVER",
                                                    "/rounds/1/state/turn/phase")]),
        (base + [{"state": hidden}], [("NEEDS_HIDDEN_INFO", "/rounds/1/state/hands/3")]),
        ([{"state": EXAMPLE_OVER_STATE}], [("ROUND_SCORES_MISMATCH",
                                            "/rounds/0/state/scores")]),
        (base + [_round({"red_threes": 5}, {})], [("TOO_MANY_THREES", "/rounds/1/tally/sides")]),
        ([_round(WIN, {}), _round(WIN, {}), _round({}, {}), {"state": EXAMPLE_OVER_STATE}], [
            ("ROUND_AFTER_GAME_OVER", "/rounds/2"), ("ROUND_AFTER_GAME_OVER", "/rounds/3")]),
        # every round's own problems at once; after a round with one, the totals are unknown
        ([_round({"hand_points": 5}, {}), {"state": EXAMPLE_STATE},
          {"state": EXAMPLE_OVER_STATE}],
         [("HAND_POINTS_POSITIVE", "/rounds/0/tally/sides/0/hand_points"),
          ("ROUND_NOT_OVER", "/rounds/1/state/turn/phase"),
          ("NEEDS_HIDDEN_INFO", "/rounds/1/state/hands/1"),
          ("NEEDS_HIDDEN_INFO", "/rounds/1/state/hands/2"),
          ("NEEDS_HIDDEN_INFO", "/rounds/1/state/hands/3")]),
    ]
    for rounds, expected in cases:
        status, answer = post(http, "/v1/game", {"variant": "classic", "rounds": rounds})
        assert status == 422 and answer["code"] == "INVALID_LEDGER", answer
        found = [(p["code"], p["path"]) for p in answer["problems"]]
        for problem in expected:
            assert problem in found, (expected, found)
        if expected[0][0].startswith("ROUND_"):
            assert found == expected, found
    status, answer = post(http, "/v1/game", {"variant": "classic",
                                             "rounds": base + [{"state": broken}]})
    assert answer["code"] == "INVALID_LEDGER" and answer["problems"] and all(
        p["path"].startswith("/rounds/1/state/") for p in answer["problems"]), answer
    assert "TOO_MANY_COPIES" in {p["code"] for p in answer["problems"]}
    status, answer = post(http, "/v1/game", {"variant": "classic", "rounds": [
        _round(WIN, {}), _round(WIN, {}), _round({}, {})]})
    messages = [p["message"] for p in answer["problems"]]
    assert messages == ["The game was over after round 1 (side 0 won): round 2 cannot follow."]
    status, answer = post(http, "/v1/game", {"variant": "classic", "rounds": [
        {"state": EXAMPLE_OVER_STATE}]}, lang="de")
    assert answer["problems"][0]["message"] == (
        "Der Spielstand von Runde 0 nennt als Spielstand davor [650, -150]; die Runden davor "
        "ergeben [0, 0].")
    status, answer = post(http, "/v1/game", {"variant": "classic",
                                             "rounds": [{"state": EXAMPLE_OVER_STATE,
                                                         "tally": TALLY_ROUND_0}]})
    assert status == 422 and answer["code"] == "MALFORMED_REQUEST"
    assert answer["problems"][0]["path"] == "/rounds/0/tally"


def _play_deal(rules: RuleSet, seed: int, dealer: int, scores: tuple[int, ...]) -> State:
    """A deal played to its end by eager random players, from these game scores."""
    rng = random.Random(seed)
    state = deal(rules, seed=seed, dealer=dealer, scores=scores)[0]
    while state.turn.phase != "over":
        actions = list(legal_actions(state))
        keen = [a for a in actions if a.kind in ("meld", "take-pile")]
        state = apply_action(state, rng.choice(keen if keen and rng.random() < 0.9
                                               else actions))[0]
    return state


@pytest.mark.parametrize("variant", ["classic", "modern-american", "german", "canastra",
                                     "family"])
def test_a_played_game_is_kept_as_its_deals_score_it(http: TestClient, variant: str) -> None:
    """Deals played one after another, each from the scores the last left: the game's record
    (states and their tallies, alternately) gives each round exactly the score the deal's
    state gets, the minimums the deal was played with, and the game's end as the last deal
    says."""
    rules = rules_for(variant, {"target": 2500})
    scores = tuple(0 for _ in range(rules.sides))
    rounds: list[Data] = []
    expected: list[Data] = []
    for i in range(12):
        state = _play_deal(rules, 18_000 + i, i % rules.players, scores)
        data = state_to_data(state)
        rounds.append({"state": data} if i % 2 else {"tally": tally_to_data(rules,
                                                                           tally_of(state))})
        status, answer = post(http, "/v1/score", {"state": data})
        expected.append(answer)
        scores = tuple(answer["scores"])
        if answer["game_over"]:
            break
    status, game = post(http, "/v1/game", {"variant": variant, "options": {"target": 2500},
                                           "rounds": rounds})
    assert status == 200, game
    for i, (got, want) in enumerate(zip(game["rounds"], expected, strict=True)):
        assert got["sides"] == want["sides"] and got["scores"] == want["scores"], i
        before = [0] * rules.sides if i == 0 else expected[i - 1]["scores"]
        assert got["minimums"] == [rules.initial_minimum(s) for s in before]
        if i:
            assert got["minimums"] == expected[i - 1]["next_minimums"]
    last = expected[-1]
    assert (game["scores"], game["game_over"], game["winner"], game["next_minimums"]) == (
        last["scores"], last["game_over"], last["winner"], last["next_minimums"])


# --- languages, headers, GraphQL, the command line ----------------------------------------------


def _provoked() -> list[tuple[str, Data]]:
    """A request per refusal above, and the ledger's."""
    out = [("/v1/score/tally", {"variant": v, "options": o, **b}) for v, o, b, _ in REFUSALS]
    won = [_round(WIN, {}), _round(WIN, {}), _round({}, {})]
    other = copy.deepcopy(EXAMPLE_OVER_STATE)
    other["variant"] = "german"
    out += [("/v1/game", {"rounds": won}), ("/v1/game", {"rounds": [{"state": other}]}),
            ("/v1/game", {"rounds": [{"state": EXAMPLE_OVER_STATE}, {"state": EXAMPLE_STATE}]})]
    return out


def test_every_new_code_speaks_english_and_german(http: TestClient) -> None:
    seen = set()
    for path, body in _provoked():
        en = post(http, path, body, "en")[1]
        de = post(http, path, body, "de")[1]
        seen.add(en["code"])
        german(en["detail"], de["detail"], en["code"])
        german(en["title"], de["title"], en["code"])
        for p_en, p_de in zip(en["problems"], de["problems"], strict=True):
            assert p_en["code"] == p_de["code"] and p_en["path"] == p_de["path"]
            seen.add(p_en["code"])
            german(p_en["message"], p_de["message"], p_en["code"])
    assert set(TALLY_CODES) | set(LEDGER_CODES) <= seen, set(TALLY_CODES + LEDGER_CODES) - seen
    assert set(TALLY_CODES) | set(LEDGER_CODES) <= set(CODES)


def test_answers_are_not_cached_and_say_their_language(http: TestClient) -> None:
    from canasta_referee.service.examples import TALLY_CLASSIC

    for path, body in (("/v1/score/tally", TALLY_CLASSIC),
                       ("/v1/game", {"rounds": [{"state": EXAMPLE_OVER_STATE}]})):
        for lang in ("en", "de", "en"):
            r = http.post(path, json=body, headers={"Accept-Language": lang})
            assert "x-cache" not in r.headers, r.headers
            assert r.headers["content-language"] == lang
            assert r.headers["vary"] == "Accept-Language"
    r = http.post("/v1/score", json={"state": EXAMPLE_OVER_STATE})
    assert r.headers["x-cache"] in ("hit", "miss")  # score itself stays cached


def test_graphql_answers_as_rest(http: TestClient) -> None:
    from canasta_referee.service.examples import REQUESTS

    query = """query($t: TallyInput!, $g: GameInput!) {
      scoreTally(input: $t) { __typename
        ... on Score { final scores gameOver winner nextMinimums
                       sides { side seats total breakdown { meldedCards handCards canastaBonus
                               bonusCards goingOut penalties total } } }
        ... on Problem { status code problems { code path message } } }
      game(input: $g) { __typename
        ... on Game { scores gameOver winner nextMinimums
                      rounds { round minimums scores sides { total } } }
        ... on Problem { status code problems { code path } } } }"""
    camel = {"melded_points": "meldedPoints", "hand_points": "handPoints", "went_out": "wentOut",
             "red_threes": "redThrees", "mixed_canastas": "mixedCanastas",
             "black_threes": "blackThrees", "pure_sevens_canastas": "pureSevensCanastas",
             "incomplete_wild_melds": "incompleteWildMelds",
             "held_aces_groups": "heldAcesGroups", "natural_canastas": "naturalCanastas",
             "wild_canastas": "wildCanastas"}

    def side(s: Data) -> Data:
        return {camel[k]: (v.upper() if k == "went_out" else v) for k, v in s.items()}

    for name in ("classic", "modernAmerican", "impossible"):
        rest = REQUESTS["score-tally"][name].request
        variables = {"t": {"variant": rest["variant"], "options": rest.get("options"),
                           "scores": rest.get("scores"),
                           "sides": [side(s) for s in rest["sides"]]},
                     "g": {"variant": "classic", "rounds": [
                         {"tally": {"sides": [side(s) for s in rest["sides"]]}}
                         if rest["variant"] == "classic" else {"state": EXAMPLE_OVER_STATE}]}}
        r = http.post("/graphql", json={"query": query, "variables": variables})
        assert r.status_code == 200 and "errors" not in r.json(), r.text
        got = r.json()["data"]
        status, want = post(http, "/v1/score/tally", rest)
        if status == 200:
            assert got["scoreTally"]["__typename"] == "Score"
            assert got["scoreTally"]["scores"] == want["scores"]
            assert got["scoreTally"]["nextMinimums"] == want["next_minimums"]
            assert [s["breakdown"]["total"] for s in got["scoreTally"]["sides"]] == [
                s["total"] for s in want["sides"]]
            assert got["scoreTally"]["sides"][0]["breakdown"]["canastaBonus"] == \
                want["sides"][0]["breakdown"]["canasta_bonus"]
        else:
            assert got["scoreTally"]["__typename"] == "Problem"
            assert got["scoreTally"]["code"] == want["code"] == "INVALID_TALLY"
            assert got["scoreTally"]["problems"] == want["problems"]
            assert got["game"]["__typename"] == "Problem"
            assert got["game"]["problems"][0]["path"].startswith("/rounds/0/")
            continue
        game_rest = post(http, "/v1/game", {
            "variant": "classic", "rounds": [
                {"tally": {"sides": rest["sides"]}} if rest["variant"] == "classic"
                else {"state": EXAMPLE_OVER_STATE}]})[1]
        if game_rest.get("code"):
            assert got["game"]["code"] == game_rest["code"]
        else:
            assert got["game"]["scores"] == game_rest["scores"]
            assert got["game"]["rounds"][0]["minimums"] == game_rest["rounds"][0]["minimums"]


def test_the_command_line_answers_a_tally() -> None:
    from canasta_referee.service.examples import TALLY_CLASSIC

    proc = subprocess.run([sys.executable, "-m", "canasta_referee.service.cli", "score-tally"],
                          input=json.dumps(TALLY_CLASSIC), capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scores"] == [1265, -90]
    proc = subprocess.run([sys.executable, "-m", "canasta_referee.service.cli", "game", "--lang", "de"],
                          input=json.dumps({"rounds": [{"state": EXAMPLE_OVER_STATE}]}),
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert proc.returncode == 1 and json.loads(proc.stdout)["code"] == "INVALID_LEDGER"


def test_a_null_count_is_zero_over_rest_and_graphql(http: TestClient) -> None:
    """docs/wire-format.md, Tallies: a count left out or null is 0, over REST as over GraphQL
    (whose inputs read null so): a pad that writes every field, null where it counted nothing,
    gets the score of the counts it gave; REST refused null for the counts every variant
    scores."""
    counted = {"melded_points": 180, "hand_points": -65, "went_out": "plain", "red_threes": 1,
               "mixed_canastas": 1}
    fields = ("melded_points", "hand_points", "red_threes", "natural_canastas",
              "mixed_canastas", "black_threes", "red_threes_in_hand")
    with_nulls = [{**{k: None for k in fields}, **counted}, {k: None for k in fields}]
    want = tally(http, "classic", counted, {})
    assert tally(http, "classic", *with_nulls) == want
    query = ("query($t: TallyInput!) { scoreTally(input: $t) { ... on Score { scores "
             "sides { total } } } }")
    camel = {"melded_points": "meldedPoints", "hand_points": "handPoints", "went_out": "wentOut",
             "red_threes": "redThrees", "natural_canastas": "naturalCanastas",
             "mixed_canastas": "mixedCanastas", "black_threes": "blackThrees",
             "red_threes_in_hand": "redThreesInHand"}
    sides = [{camel[k]: v.upper() if k == "went_out" else v for k, v in s.items()}
             for s in with_nulls]
    r = http.post("/graphql", json={"query": query, "variables": {"t": {"sides": sides}}})
    got = r.json()["data"]["scoreTally"]
    assert got["scores"] == want["scores"]
    assert [s["total"] for s in got["sides"]] == [s["total"] for s in want["sides"]]


def test_a_breakdown_has_the_documented_keys_and_no_others(http: TestClient) -> None:
    """docs/wire-format.md, score: a side's breakdown is ``melded_cards``, ``hand_cards``,
    ``canasta_bonus``, ``bonus_cards``, ``going_out``, ``penalties`` and ``total``; the OpenAPI
    document lists exactly those (it listed a ``detail`` no answer carries), GraphQL's
    ``Breakdown.detail`` is deprecated and null."""
    from canasta_referee.service import openapi

    answer = tally(http, "classic", {"melded_points": 180, "hand_points": -65,
                                     "went_out": "plain", "mixed_canastas": 1}, {})
    keys = {"melded_cards", "hand_cards", "canasta_bonus", "bonus_cards", "going_out",
            "penalties", "total"}
    assert all(set(side["breakdown"]) == keys for side in answer["sides"])
    document = json.loads(openapi.COMMITTED.read_bytes())
    assert set(document["components"]["schemas"]["Breakdown"]["properties"]) == keys
    r = http.post("/graphql", json={"query": '{ scoreTally(input: {sides: [{meldedPoints: 50}, '
                                             '{}]}) { ... on Score { sides { breakdown { total '
                                             'detail } } } } __type(name: "Breakdown") { '
                                             'fields(includeDeprecated: true) { name '
                                             'isDeprecated } } }'})
    data = r.json()["data"]
    assert [s["breakdown"]["detail"] for s in data["scoreTally"]["sides"]] == [None, None]
    deprecated = {f["name"] for f in data["__type"]["fields"] if f["isDeprecated"]}
    assert deprecated == {"detail"}
