"""``POST /v1/audit`` over the real ASGI app (Starlette's TestClient): whole games of every
variant replayed as their players played them, scores carried from deal to deal, the first
illegal action of a deal with ``check``'s reason, recorded scores that agree and that do not,
deals given by their starting state, every refusal, German, GraphQL, the command line, and the
body and action limits of a whole game's log."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from canasta_referee.engine import VARIANTS, rules_for, state_to_data
from canasta_referee.schema import canonical, models
from canasta_referee.schema.models import EXAMPLE_FULL_STATE, EXAMPLE_STATE
from canasta_referee.service.settings import Settings
from tests.games import Played, by_state, game
from tests.test_canonical import mutate
from tests.test_service_api import client

ROOT = Path(__file__).resolve().parent.parent
DE = {"Accept-Language": "de"}


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with client() as c:
        yield c


def audit(http: TestClient, log: Any, headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = http.post("/v1/audit", content=orjson.dumps(log), headers=headers)
    assert r.status_code == 200, r.text[:500]
    assert "x-cache" not in r.headers  # audits are not cached
    answer: dict[str, Any] = r.json()
    return answer


def problem(http: TestClient, log: Any, status: int, code: str) -> dict[str, Any]:
    r = http.post("/v1/audit", content=orjson.dumps(log))
    assert r.status_code == status, r.text[:500]
    assert r.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = r.json()
    assert body["code"] == code, body
    return body


@pytest.fixture(scope="module")
def classic() -> Played:
    """A whole four-player game of classic Canasta, to 5,000."""
    played = game(rules_for("classic"), 1)
    assert len(played.log["deals"]) >= 3 and played.totals[-1] != (0, 0)
    return played


# --- whole games --------------------------------------------------------------------------------

CONFIGS = [(v.id, v.configurations[0]) for v in VARIANTS] + [("classic", {"players": 2}),
                                                               ("classic", {"players": 6})]


@pytest.mark.parametrize(("variant", "options"), CONFIGS,
                         ids=[f"{v}-{'-'.join(f'{k}={x}' for k, x in o.items()) or 'default'}"
                              for v, o in CONFIGS])
def test_a_game_replays_as_its_players_played_it(http: TestClient, variant: str,
                                                 options: dict[str, Any]) -> None:
    """Every deal legal, ending in the state the players reached, with their events and the
    scores the engine gave them, the game scores carried from deal to deal; the log's
    records agree."""
    played = game(rules_for(variant, options), 7, max_deals=3)
    answer = audit(http, played.log)
    assert answer["legal"] is True and answer["agrees"] is True
    assert len(answer["deals"]) == len(played.log["deals"])
    for i, deal in enumerate(answer["deals"]):
        assert deal["legal"] is True and deal["index"] is None and deal["reason"] is None
        assert deal["state"] == state_to_data(played.ends[i])
        assert len(deal["events"]) == played.events[i]
        assert deal["score"]["final"] is True
        assert tuple(deal["score"]["scores"]) == played.totals[i]
        assert deal["agrees"] is True and deal["disagreements"] == []
    assert tuple(answer["totals"]) == played.totals[-1]


def test_scores_carry_from_deal_to_deal(http: TestClient, classic: Played) -> None:
    """Each deal by seed is the deal ``POST /v1/deal`` gives for its seed, its dealer and the
    game scores the deals before it leave; the game's end and winner are the last deal's."""
    answer = audit(http, classic.log)
    before = [0, 0]
    for entry, deal in zip(classic.log["deals"], answer["deals"], strict=True):
        dealt = http.post("/v1/deal", json={"seed": entry["seed"], "dealer": entry["dealer"],
                                            "scores": before}).json()
        assert deal["state"]["scores"] == before
        assert deal["events"][:len(dealt["events"])] == dealt["events"]
        before = deal["score"]["scores"]
    last = answer["deals"][-1]["score"]
    assert answer["game_over"] is True and last["game_over"] is True
    assert answer["winner"] == last["winner"] is not None and answer["totals"] == before


def test_the_first_illegal_action_and_why_as_check_says(http: TestClient,
                                                        classic: Played) -> None:
    """A discard of a card the hand lacks, put in the middle of the second deal: that deal
    stops there with check's reason for it on the state before it; the other deals are
    replayed all the same."""
    log = copy.deepcopy(classic.log)
    bad = {"type": "discard", "card": "JK"}
    at = len(log["deals"][1]["actions"]) // 2
    log["deals"][1]["actions"][at:at] = [{"type": "ask"}, bad]
    answer = audit(http, log)
    assert answer["legal"] is False
    deal = answer["deals"][1]
    assert deal["legal"] is False and deal["index"] in (at, at + 1)
    index = deal["index"]
    checked = http.post("/v1/check", json={"state": deal["state"],
                                           "actions": [log["deals"][1]["actions"][index]]})
    assert checked.json() == {"legal": False, "index": 0, "reason": deal["reason"]}
    assert deal["score"]["final"] is False  # provisional: the deal did not end
    assert [d["legal"] for d in answer["deals"]] == [i != 1 for i in range(len(log["deals"]))]
    # the first deal is untouched
    assert answer["deals"][0] == audit(http, classic.log)["deals"][0]


def test_recorded_scores_that_disagree(http: TestClient, classic: Played) -> None:
    log = copy.deepcopy(classic.log)
    log["deals"][0]["scores"][1] += 5
    log["deals"][1]["totals"][0] -= 100
    answer = audit(http, log)
    assert answer["legal"] is True and answer["agrees"] is False
    first, second = answer["deals"][0], answer["deals"][1]
    assert first["agrees"] is False and second["agrees"] is False
    assert all(d["agrees"] for d in answer["deals"][2:])
    (wrong,) = first["disagreements"]
    assert wrong["code"] == "DEAL_SCORE_DISAGREES" and wrong["path"] == "/deals/0/scores/1"
    assert str(log["deals"][0]["scores"][1]) in wrong["message"]
    assert str(classic.log["deals"][0]["scores"][1]) in wrong["message"]
    (total,) = second["disagreements"]
    assert total["code"] == "TOTAL_DISAGREES" and total["path"] == "/deals/1/totals/0"
    german = audit(http, log, DE)["deals"][1]["disagreements"][0]["message"]
    assert german.startswith("Das Protokoll verzeichnet") and german != total["message"]



def test_a_deal_after_the_game_was_won(http: TestClient, classic: Played) -> None:
    """VARIANTS.md, common rules (the target; seed 000 'Spielende'): the game ends with the deal
    that takes a side to the target, as ``game`` refuses a round after it. A log that plays a
    deal more is replayed all the same; that deal disagrees with the rules
    (``DEAL_AFTER_GAME_OVER``), and the game's totals, end and winner stay the winning deal's."""
    played = audit(http, classic.log)
    assert played["game_over"] is True and played["deals"][-1]["score"]["game_over"]
    log = copy.deepcopy(classic.log)
    extra = {k: v for k, v in log["deals"][-1].items() if k not in ("scores", "totals")}
    log["deals"] += [extra, extra]
    answer = audit(http, log)
    last = len(classic.log["deals"]) - 1
    assert [answer[k] for k in ("totals", "game_over", "winner")] == [
        played[k] for k in ("totals", "game_over", "winner")]
    assert answer["agrees"] is False and answer["deals"][:last + 1] == played["deals"]
    for i in (last + 1, last + 2):
        deal = answer["deals"][i]
        assert deal["agrees"] is False
        assert deal["disagreements"][0]["code"] == "DEAL_AFTER_GAME_OVER"
        assert deal["disagreements"][0]["path"] == f"/deals/{i}"
        assert deal["disagreements"][0]["message"] == (
            f"The game was over after deal {last} (side {played['winner']} won): deal {i} is "
            "not part of it.")
    german = audit(http, log, DE)["deals"][last + 1]["disagreements"][0]["message"]
    assert german.startswith(f"Das Spiel war nach Runde {last} vorbei")

def test_starting_scores_that_already_end_the_game(http: TestClient, classic: Played) -> None:
    """VARIANTS.md, common rules (the target; seed 000 'Spielende'): scores at or above the
    target with one side ahead end the game, so a log starting from them plays no deal of it:
    every deal disagrees (``GAME_OVER_AT_START``), by ``scores`` or by a first deal's state,
    and the game is the starting one's (its totals and winner). A tie at the top, or scores
    under the target, end nothing."""
    target = rules_for("classic").target
    for scores, winner in (([target + 10, 40], 0), ([-5, target], 1)):
        log = {**copy.deepcopy(classic.log), "scores": scores}
        answer = audit(http, log)
        assert [answer[k] for k in ("totals", "game_over", "winner")] == [scores, True, winner]
        assert answer["agrees"] is False
        for i, deal in enumerate(answer["deals"]):
            first = deal["disagreements"][0]
            assert deal["agrees"] is False and first["code"] == "GAME_OVER_AT_START"
            assert first["path"] == f"/deals/{i}"
            assert first["message"] == (f"The game scores this log starts from had already "
                                        f"ended the game (side {winner} won): deal {i} is not "
                                        "part of it.")
        german = audit(http, log, DE)["deals"][0]["disagreements"][0]["message"]
        assert german.startswith("Der Spielstand, mit dem dieses Protokoll beginnt")
    by_its_state = {**copy.deepcopy(classic.log), "deals": [by_state(classic, 0)]}
    by_its_state["deals"][0]["state"]["scores"] = [target, 0]
    del by_its_state["deals"][0]["totals"]
    answer = audit(http, by_its_state)
    assert answer["winner"] == 0 and answer["totals"] == [target, 0]
    assert answer["deals"][0]["disagreements"][0]["code"] == "GAME_OVER_AT_START"
    for scores in ([target, target], [target - 1, 0]):
        answer = audit(http, {**copy.deepcopy(classic.log), "scores": scores})
        assert all(d["code"] != "GAME_OVER_AT_START" for deal in answer["deals"]
                   for d in deal["disagreements"])


def test_a_log_without_records_neither_agrees_nor_disagrees(http: TestClient,
                                                            classic: Played) -> None:
    log = copy.deepcopy(classic.log)
    for deal in log["deals"]:
        del deal["scores"], deal["totals"]
    answer = audit(http, log)
    assert answer["agrees"] is None and all(d["agrees"] is None for d in answer["deals"])
    assert answer["totals"] == audit(http, classic.log)["totals"]


def test_log_scores_before_the_first_deal(http: TestClient, classic: Played) -> None:
    """The log's ``scores`` start the game: the first deal is dealt with them (its minimums
    follow), and every total shifts by them."""
    log = {**copy.deepcopy(classic.log), "scores": [1500, 3000]}
    for deal in log["deals"]:
        del deal["totals"]
    answer = audit(http, log)
    assert answer["deals"][0]["state"]["scores"] == [1500, 3000]
    dealt = http.post("/v1/deal", json={"seed": log["deals"][0]["seed"],
                                        "dealer": log["deals"][0]["dealer"],
                                        "scores": [1500, 3000]}).json()
    assert answer["deals"][0]["events"][:len(dealt["events"])] == dealt["events"]
    assert answer["deals"][0]["score"]["next_minimums"] != [50, 50] or \
        answer["deals"][0]["score"]["scores"][0] < 1500


# --- deals given by their starting state --------------------------------------------------------


def test_a_deal_by_its_state_is_the_deal_by_its_seed(http: TestClient, classic: Played) -> None:
    log = copy.deepcopy(classic.log)
    log["deals"][1] = by_state(classic, 1)
    seeded, stated = audit(http, classic.log), audit(http, log)
    assert stated["legal"] and stated["agrees"] is True
    assert stated["totals"] == seeded["totals"]
    for mine, theirs in zip(stated["deals"], seeded["deals"], strict=True):
        assert mine["state"] == theirs["state"] and mine["score"] == theirs["score"]
    # the deal's own events (upcard, red threes dealt) come only with a seed
    assert len(stated["deals"][1]["events"]) < len(seeded["deals"][1]["events"])


def test_a_starting_state_with_other_scores_is_played_with_the_carried_ones(
        http: TestClient, classic: Played) -> None:
    log = copy.deepcopy(classic.log)
    log["deals"][1] = by_state(classic, 1)
    log["deals"][1]["state"]["scores"] = [0, 0]
    answer = audit(http, log)
    deal = answer["deals"][1]
    assert deal["state"]["scores"] == answer["deals"][0]["score"]["scores"]
    assert deal["agrees"] is False and answer["agrees"] is False
    assert {p["code"] for p in deal["disagreements"]} == {"START_SCORES_DISAGREE"}
    assert {p["path"] for p in deal["disagreements"]} <= {"/deals/1/state/scores/0",
                                                           "/deals/1/state/scores/1"}
    assert answer["totals"] == audit(http, classic.log)["totals"]


def test_a_first_deal_by_state_starts_the_game_from_its_scores(http: TestClient) -> None:
    """Without the log's ``scores``, a first deal given by its state starts from that state's
    scores (the audit of a game from its middle): here the score example of docs/api.md."""
    from canasta_referee.service.examples import EXAMPLE_LOG

    answer = audit(http, EXAMPLE_LOG)
    first, second = answer["deals"]
    assert first["state"]["scores"] == [1200, 300] and first["score"]["scores"] == [1945, 335]
    assert first["agrees"] is False  # the log's game score of side 1 is wrong
    assert [p["path"] for p in first["disagreements"]] == ["/deals/0/totals/1"]
    assert second["state"]["scores"] == [1945, 335]
    assert second["legal"] is False and second["index"] == 4
    assert second["reason"]["code"] == "INITIAL_MELD_UNREACHABLE"
    assert "90" in second["reason"]["message"]  # side 0's minimum at 1,945


# --- refusals -----------------------------------------------------------------------------------


def test_refusals_point_into_the_log(http: TestClient, classic: Played) -> None:
    log = classic.log
    one = {"seed": 1, "dealer": 0}
    p = problem(http, {"variant": "bridge", "deals": [one]}, 422, "UNKNOWN_VARIANT")
    assert p["problems"][0]["path"] == "/variant"
    p = problem(http, {"deals": [one, {"seed": 2, "dealer": 4}]}, 422, "SEAT_OUT_OF_RANGE")
    assert p["problems"][0]["path"] == "/deals/1/dealer"
    p = problem(http, {"scores": [0, 0, 0], "deals": [one]}, 422, "SIDE_COUNT_MISMATCH")
    assert p["problems"][0]["path"] == "/scores"
    p = problem(http, {"deals": [one, {**one, "totals": [1]}]}, 422, "SIDE_COUNT_MISMATCH")
    assert p["problems"][0]["path"] == "/deals/1/totals"
    # a starting state of other rules, or with problems, or that hides what is needed
    p = problem(http, {"variant": "german", "deals": [{"state": EXAMPLE_FULL_STATE}]}, 422,
                "DEAL_RULES_DIFFER")
    assert p["problems"][0]["path"] == "/deals/0/state"
    assert "german" in p["detail"] and "classic" in p["detail"]
    other = {**log, "options": {**log["options"], "target": 2500},
             "deals": [log["deals"][0], by_state(game(rules_for("classic"), 1, 1), 0)]}
    p = problem(http, other, 422, "DEAL_RULES_DIFFER")
    assert "target: 2500" in p["detail"] and "target: 5000" in p["detail"], p["detail"]
    broken = copy.deepcopy(EXAMPLE_FULL_STATE)
    broken["hands"][0] = broken["hands"][0][:-1]
    p = problem(http, {"deals": [one, {"state": broken}]}, 422, "INVALID_STATE")
    assert all(q["path"].startswith("/deals/1/state") for q in p["problems"]), p
    p = problem(http, {"deals": [{"state": EXAMPLE_STATE, "actions": [{"type": "draw"}]}]}, 422,
                "NEEDS_HIDDEN_INFO")
    assert p["index"] == 0 and p["problems"][0]["path"] == "/deals/0/actions/0"
    over = {**EXAMPLE_STATE, "turn": {"seat": 0, "phase": "over", "went_out": None,
                                      "stock_exhausted": True}}
    p = problem(http, {"deals": [{"state": over}]}, 422, "NEEDS_HIDDEN_INFO")
    assert p["problems"][0]["path"] == "/deals/0/state"  # its hands cannot be scored


def test_malformed_logs(http: TestClient) -> None:
    def paths(log: Any) -> list[str]:
        return [q["path"] for q in problem(http, log, 422, "MALFORMED_REQUEST")["problems"]]

    assert paths({"deals": [{"seed": 1}]}) == ["/deals/0/dealer"]
    assert paths({"deals": [{"dealer": 1}]}) == ["/deals/0/seed"]
    assert "/deals/0/seed" in paths({"deals": [{"seed": 1, "dealer": 0,
                                                "state": EXAMPLE_FULL_STATE}]})
    assert paths({"deals": []}) == ["/deals"]
    assert paths({"deals": [5]}) == ["/deals/0"]
    assert paths({"deals": [{"seed": "7", "dealer": 0}]}) == ["/deals/0/seed"]
    assert paths({"deals": [{"seed": 1, "dealer": 0, "actions": [{"type": "fly"}]}]}) == [
        "/deals/0/actions/0"]
    r = http.post("/v1/audit", content=b'{"deals": [', headers=DE)
    assert r.status_code == 422 and r.json()["problems"][0]["code"] == "BAD_JSON"


def test_action_and_body_limits(classic: Played) -> None:
    """A log may hold ``MAX_AUDIT_ACTIONS`` actions in all and be ``MAX_AUDIT_BODY_BYTES``
    long, the other operations' limits untouched. A long game's log (5,000 actions, indented)
    is more than ``MAX_BODY_BYTES`` but fits the audit's defaults."""
    n = classic.actions
    body = orjson.dumps(classic.log)
    with client(max_audit_actions=n) as c:
        assert c.post("/v1/audit", content=body).status_code == 200
    with client(max_audit_actions=n - 1) as c:
        r = c.post("/v1/audit", content=body, headers=DE)
        assert r.status_code == 422 and r.json()["code"] == "TOO_MANY_ACTIONS"
        assert r.json()["problems"][0]["path"] == "/deals"
        assert r.json()["detail"] == f"Höchstens {n - 1} Aktionen pro Anfrage."
    with client(max_audit_body_bytes=len(body) - 1, max_body_bytes=len(body) * 2) as c:
        r = c.post("/v1/audit", content=body)
        assert r.status_code == 413 and r.json()["code"] == "BODY_TOO_LARGE"
        assert str(len(body) - 1) in r.json()["detail"]
        r = c.post("/v1/check", content=b" " * (len(body) + 1))
        assert r.status_code == 422  # the other operations keep MAX_BODY_BYTES
    long = game(rules_for("classic"), 3, max_deals=40, eager=False, to_the_end=False)
    indented = json.dumps(long.log, indent=2).encode()
    defaults = Settings()
    assert long.actions >= 5000
    assert defaults.max_body_bytes < len(indented) < defaults.max_audit_body_bytes
    assert long.actions < defaults.max_audit_actions
    with client() as c:
        r = c.post("/v1/audit", content=indented)
        assert r.status_code == 200 and r.json()["legal"] is True
        assert len(r.json()["deals"]) == 40
        r = c.post("/v1/check", content=indented)
        assert r.status_code == 413


# --- the fast way in, GraphQL, the command line -------------------------------------------------


def test_logs_in_canonical_form_skip_pydantic_and_read_the_same(classic: Played) -> None:
    """``schema.canonical`` reads logs as the pydantic models do: every log written
    canonically takes the fast way, and whatever mutated log it takes, the model reads the
    same; anything else goes to the model."""
    rng = random.Random(18)
    logs = [classic.log, {**classic.log, "scores": [100, -200]},
            {**classic.log, "deals": [by_state(classic, 0), *classic.log["deals"][1:3]]}]
    taken = 0
    for log in logs:
        raw = orjson.dumps(log)
        assert canonical.request("audit", raw) == models.AuditRequest.model_validate_json(
            raw).model_dump(mode="json")
    for _ in range(300):
        small = {**rng.choice(logs)}
        small["deals"] = [{**d, "actions": d["actions"][:4]} for d in small["deals"][:2]]
        raw = orjson.dumps(mutate(small, rng))
        fast = canonical.request("audit", raw)
        if fast is None:
            continue
        taken += 1
        assert fast == models.AuditRequest.model_validate_json(raw).model_dump(mode="json")
    assert taken > 30
    both = {"deals": [{"seed": 1, "dealer": 0, "state": EXAMPLE_FULL_STATE}]}
    assert canonical.request("audit", orjson.dumps(both)) is None
    assert canonical.request("audit", orjson.dumps({"deals": [{"seed": 1}]})) is None


def test_graphql_audits_as_rest_does(http: TestClient, classic: Played) -> None:
    query = """query($log: JSON!) { audit(log: $log) { __typename ... on Audit {
        legal agrees totals gameOver winner deals { legal index reason { code } state events
        score { final scores } agrees disagreements { code path message } } }
        ... on Problem { code status } } }"""
    log = copy.deepcopy(classic.log)
    log["deals"][0]["totals"] = [1, 2]
    rest = audit(http, log)
    got = http.post("/graphql", json={"query": query, "variables": {"log": log}}).json()
    typed = got["data"]["audit"]
    assert typed["__typename"] == "Audit" and typed["legal"] == rest["legal"]
    assert typed["totals"] == rest["totals"] and typed["gameOver"] == rest["game_over"]
    for mine, theirs in zip(typed["deals"], rest["deals"], strict=True):
        assert mine["state"] == theirs["state"] and mine["events"] == theirs["events"]
        assert mine["disagreements"] == theirs["disagreements"]
        assert mine["score"]["scores"] == theirs["score"]["scores"]
    bad = http.post("/graphql", json={"query": query, "variables": {
        "log": {"variant": "bridge", "deals": [{"seed": 1, "dealer": 0}]}}}).json()
    assert bad["data"]["audit"] == {"__typename": "Problem", "code": "UNKNOWN_VARIANT",
                                    "status": 422}


def test_the_command_line_audits_a_log(classic: Played) -> None:
    proc = subprocess.run([sys.executable, "-m", "canasta_referee.service.cli", "audit"],
                          input=orjson.dumps(classic.log), capture_output=True, cwd=ROOT,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    answer = json.loads(proc.stdout)
    assert answer["legal"] is True and tuple(answer["totals"]) == classic.totals[-1]


def test_a_refusal_of_a_game_or_an_audit_lists_max_problems(http: TestClient) -> None:
    """docs/api.md (basics): a problem document lists the first MAX_PROBLEMS problems and counts
    the rest in ``more``; a game's ledger and an audit's state listed every one (a 222 KB body
    answered with 2.3 MB)."""
    bad = {"variant": "classic", "scores": [0, 0], "hands": [["KS"] * 500] * 4,
           "melds": [[{"rank": "K", "cards": ["KS"] * 500}] * 20,
                     [{"rank": "Q", "cards": ["KS"] * 500}] * 20],
           "bonus_cards": [[], []], "discard": [], "stock": [],
           "turn": {"seat": 0, "phase": "over"}}
    found = http.post("/v1/validate", json={"state": bad}).json()
    assert len(found["problems"]) == 100 and found["more"] > 1000
    total = len(found["problems"]) + found["more"]
    for path, body, code, count in (
            ("/v1/audit", {"deals": [{"state": bad, "actions": []}]}, "INVALID_STATE", total),
            ("/v1/game", {"rounds": [{"state": bad}, {"state": bad}]}, "INVALID_LEDGER", None)):
        r = http.post(path, content=orjson.dumps(body))
        answer = r.json()
        assert r.status_code == 422 and answer["code"] == code, r.text[:300]
        assert len(answer["problems"]) == 100 and len(r.content) < 100_000
        assert answer["more"] == (count - 100 if count else answer["more"]) > 1000


def test_game_scores_in_an_answer_may_pass_a_request_s_bound(http: TestClient) -> None:
    """A request's scores are within ±1,000,000; the game scores an answer gives are those plus
    the deal's, and the OpenAPI document does not bound them (it said 1,000,000, and answered
    1,000,700)."""
    r = http.post("/v1/score/tally", json={"scores": [1_000_000, 0], "sides": [
        {"melded_points": 100, "natural_canastas": 1, "went_out": "plain"}, {}]})
    assert r.status_code == 200 and r.json()["scores"][0] > 1_000_000
    doc = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    schemas = doc["components"]["schemas"]
    for name, field in (("ScoreResponse", "scores"), ("GameResponse", "scores"),
                        ("RoundScore", "scores"), ("AuditResponse", "totals")):
        assert "maximum" not in schemas[name]["properties"][field]["items"], name
