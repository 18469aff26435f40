"""How much one answer lists (issue 17): at most MAX_PROBLEMS problems (validate, INVALID_STATE,
MALFORMED_REQUEST), the first ones in the order they were found, and ``more`` counting the rest;
a state with more than MAX_LEGAL_ACTIONS legal actions refused with TOO_MANY_LEGAL_ACTIONS. REST
and GraphQL, through the real app."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from canasta_referee.engine import api
from canasta_referee.schema import handlers
from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import Settings

from .hostile import absurd_state, big_hand_state, full_hand_state, malformed_state

DE = {"Accept-Language": "de"}


def client(**settings: Any) -> TestClient:
    return TestClient(create_app(Settings(log_level="warning", **settings)),
                      raise_server_exceptions=True)


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with client() as c:
        yield c


def test_validate_lists_the_first_max_problems_and_counts_the_rest(http: TestClient) -> None:
    """The absurd state (30,061 problems; its whole list was a 3.2 MB answer): the first 100,
    exactly those the engine lists first, and ``more``; a valid state has no ``more``."""
    every = api.validate({"state": absurd_state()})["problems"]  # the engine: no limit
    assert len(every) == 30_061
    for lang in ("en", "de"):
        r = http.post("/v1/validate", json={"state": absurd_state()},
                      headers={"Accept-Language": lang})
        answer = r.json()
        assert r.status_code == 200 and answer["valid"] is False
        assert answer["more"] == 30_061 - 100 and len(r.content) < 20_000
        expected = every if lang == "en" else api.validate({"state": absurd_state()}, "de")[
            "problems"]
        assert answer["problems"] == expected[:100]
    assert http.post("/v1/validate", json={"state": EXAMPLE_STATE}).json() == {
        "valid": True, "problems": []}
    with client(max_problems=3) as small:
        three = small.post("/v1/validate", json={"state": absurd_state()}).json()
        assert three["problems"] == every[:3] and three["more"] == 30_058
        # exactly as many as allowed: all listed, no `more`
        state = {**EXAMPLE_STATE, "dealer": 7, "turn": {**EXAMPLE_STATE["turn"], "seat": 7}}
        found = api.validate({"state": state})["problems"]
        assert 1 < len(found) <= 3
        with client(max_problems=len(found)) as exact:
            assert exact.post("/v1/validate", json={"state": state}).json() == {
                "valid": False, "problems": found}


@pytest.mark.parametrize("op", ["legal-actions", "check", "apply", "score"])
def test_invalid_state_lists_the_first_max_problems(http: TestClient, op: str) -> None:
    body: dict[str, Any] = {"state": absurd_state()}
    if op in ("check", "apply"):
        body["actions"] = [{"type": "draw"}]
    r = http.post(f"/v1/{op}", json=body)
    problem = r.json()
    assert r.status_code == 422 and problem["code"] == "INVALID_STATE"
    assert problem["detail"] == "The state is not valid: 30061 problems."  # all counted
    assert len(problem["problems"]) == 100 and problem["more"] == 29_961
    assert problem["problems"] == api.validate({"state": absurd_state()})["problems"][:100]
    # a state with a few problems: every one, no `more`
    few = http.post(f"/v1/{op}", json={**body, "state": {**EXAMPLE_STATE, "dealer": 7}}).json()
    assert few["code"] == "INVALID_STATE" and "more" not in few and few["problems"]


def test_malformed_request_lists_the_first_max_problems_as_pydantic_finds_them() -> None:
    """The errors listed are the first ones of the full list, whatever the limit (the
    validation keeps only what an answer can list: schema.models.ErrorBudget); ``more`` makes
    up the full count. Mixed errors: bad card codes in several lists, a bad dealer, a bad
    turn, bad actions."""
    bad_meld = {"rank": "K", "cards": ["QS", 1, "XX"] * 30}
    state = {**EXAMPLE_STATE, "hands": [["4S", 2, "ZZ"] * 40] * 4, "dealer": "x",
             "melds": [[bad_meld] * 5] * 2, "discard": ["Q", "KS", None],
             "turn": {**EXAMPLE_STATE["turn"], "pending": [bad_meld] * 3, "seat": 99}}
    body = orjson.dumps({"state": state, "actions": [{"type": "meld", "cards": [7] * 50}] * 3})
    for lang in ("en", "de"):
        every = handlers.handle("check", body, lang)[1]["problems"]  # the command line: all
        assert len(every) > 1_000
        for limit in (1, 7, 100, 1_000, len(every), len(every) + 1):
            with client(max_problems=limit) as c:
                r = c.post("/v1/check", content=body, headers={"Accept-Language": lang})
                problem = r.json()
                assert r.status_code == 422 and problem["code"] == "MALFORMED_REQUEST"
                assert problem["problems"] == every[:limit], limit
                assert problem.get("more", 0) == max(len(every) - limit, 0), limit


def test_a_body_of_bad_card_codes_is_answered_with_a_short_list(http: TestClient) -> None:
    """34,000 codes that are none: MALFORMED_REQUEST with 100 of them and ``more``."""
    r = http.post("/v1/validate", json={"state": malformed_state()})
    problem = r.json()
    assert r.status_code == 422 and problem["code"] == "MALFORMED_REQUEST"
    assert len(problem["problems"]) == 100 and problem["more"] == 34_000 - 100
    assert {p["code"] for p in problem["problems"]} == {"BAD_CARD_CODE"}


def test_too_many_legal_actions_is_refused_not_cut_short(http: TestClient) -> None:
    """A valid six-player state whose seat to move holds 150 of the 162 cards: 1,188 legal
    actions, more than the default MAX_LEGAL_ACTIONS (1,000): 422, never a partial list. A
    hand of 100 of four-player classic's 108 cards (771 actions) is answered; so is the big
    hand where the limit is raised."""
    r = http.post("/v1/legal-actions", json={"state": big_hand_state()})
    problem = r.json()
    assert r.status_code == 422 and problem["code"] == "TOO_MANY_LEGAL_ACTIONS"
    assert problem["detail"] == ("This state has 1188 legal actions, more than the 1000 an "
                                 "answer lists at most; ask check about the actions you "
                                 "consider.")
    assert problem["problems"] == [{"code": "TOO_MANY_LEGAL_ACTIONS", "path": "/state",
                                    "message": problem["detail"]}]
    de = http.post("/v1/legal-actions", json={"state": big_hand_state()}, headers=DE).json()
    assert de["title"] == "Zu viele erlaubte Aktionen" and "1188 erlaubte Aktionen" in de["detail"]
    # check still judges any action of that state
    seat = big_hand_state()["turn"]["seat"]
    card = big_hand_state()["hands"][seat][0]
    assert http.post("/v1/check", json={"state": big_hand_state(), "actions": [
        {"type": "discard", "card": card}]}).json() == {"legal": True}
    full = http.post("/v1/legal-actions", json={"state": full_hand_state()})
    assert full.status_code == 200 and len(full.json()["actions"]) == 771
    with client(max_legal_actions=1188) as c:
        listed = c.post("/v1/legal-actions", json={"state": big_hand_state()}).json()
        assert len(listed["actions"]) == 1188
        assert listed == api.legal_actions({"state": big_hand_state()})


def test_graphql_says_more_and_refuses_too_many_legal_actions(http: TestClient) -> None:
    query = """query($s: JSON!) {
      validate(state: $s) { __typename ... on Validation { valid more problems { code } } }
      legalActions(state: $s) { __typename ... on Problem { code more problems { code } } }
    }"""
    data = http.post("/graphql", json={"query": query, "variables": {"s": absurd_state()}}
                     ).json()["data"]
    assert data["validate"]["valid"] is False and data["validate"]["more"] == 29_961
    assert len(data["validate"]["problems"]) == 100
    assert data["legalActions"]["code"] == "INVALID_STATE"
    assert data["legalActions"]["more"] == 29_961
    data = http.post("/graphql", json={"query": query, "variables": {"s": EXAMPLE_STATE}}
                     ).json()["data"]
    assert data["validate"] == {"__typename": "Validation", "valid": True, "more": 0,
                                "problems": []}
    data = http.post("/graphql", json={"query": query, "variables": {"s": big_hand_state()}}
                     ).json()["data"]
    assert data["legalActions"] == {"__typename": "Problem", "code": "TOO_MANY_LEGAL_ACTIONS",
                                    "more": 0, "problems": [{"code": "TOO_MANY_LEGAL_ACTIONS"}]}


def test_the_limits_are_settings() -> None:
    s = Settings.from_env({"MAX_PROBLEMS": "5", "MAX_LEGAL_ACTIONS": "50"})
    assert (s.max_problems, s.max_legal_actions) == (5, 50)
    for bad in ({"MAX_PROBLEMS": "0"}, {"MAX_LEGAL_ACTIONS": "0"}, {"MAX_PROBLEMS": "many"}):
        with pytest.raises(ValueError):
            Settings.from_env(bad)


def test_a_problem_path_stays_within_its_documented_bound() -> None:
    """Issue 17 (smaller points): a problem's ``path`` is at most 256 characters, as the OpenAPI
    document says, even where it would echo a client's over-long key: the key is cut to its
    start and "..."."""
    from starlette.testclient import TestClient

    from canasta_referee.service.app import create_app
    from canasta_referee.service.settings import Settings

    http = TestClient(create_app(Settings(log_level="error")))
    key = "x" * 5000
    for body in ({"variant": "classic", "options": {key: 1}},
                 {"state": {"variant": "classic", "options": {key: True, "y" * 300: 2}}}):
        path = "/v1/deal" if "state" not in body else "/v1/validate"
        answer = http.post(path, json=body).json()
        assert answer["code"] == "MALFORMED_REQUEST", answer
        paths = [p["path"] for p in answer["problems"]]
        assert paths and all(len(p) <= 256 for p in paths), paths
        assert any(p.startswith(("/options/xxx", "/state/options/xxx")) and "..." in p
                   for p in paths), paths
