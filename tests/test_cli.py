"""The command line: ``canasta-referee OP`` reads the request on stdin, prints the answer."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest


def run(*args: str, body: Any = None) -> tuple[int, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "canasta_referee.service.cli", *args],
        input=json.dumps(body).encode() if body is not None else b"",
        capture_output=True, timeout=60, check=False)
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture(scope="module")
def dealt() -> dict[str, Any]:
    code, answer = run("deal", body={"seed": 42, "dealer": 3, "scores": [0, 1600]})
    assert code == 0
    return answer["state"]  # type: ignore[no-any-return]


def test_variants_and_rule_table() -> None:
    code, answer = run("variants")
    assert code == 0 and "classic" in [v["id"] for v in answer["variants"]]
    code, table = run("variant", "classic")
    assert code == 0
    assert table["rules"]["initial_minimums"][0] == {"from_score": None, "minimum": 15}
    assert table["rules"]["sources"]["pile.frozen"] == (
        "docs/variants/classic.md#the-frozen-pile (pagat.com, Canasta: 'Frozen Discard Pile')")
    assert len(table["fingerprint"]) == 16
    code, problem = run("variant", "bridge")
    assert code == 1 and problem["code"] == "UNKNOWN_VARIANT" and problem["status"] == 404


def test_deal_is_reproducible(dealt: dict[str, Any]) -> None:
    _, again = run("deal", body={"seed": 42, "dealer": 3, "scores": [0, 1600]})
    assert again["state"] == dealt
    assert dealt["turn"] == {"seat": 0, "phase": "draw", "asked": None, "asked_this_deal": [],
                             "melded": [], "played": []}
    _, other = run("deal", body={"seed": 43, "dealer": 3})
    assert other["state"]["hands"] != dealt["hands"]


def test_a_whole_turn(dealt: dict[str, Any]) -> None:
    code, answer = run("validate", body={"state": dealt})
    assert (code, answer) == (0, {"valid": True, "problems": []})
    code, legal = run("legal-actions", body={"state": dealt})
    assert code == 0 and legal["seat"] == 0 and legal["phase"] == "draw"
    assert {"type": "draw", "seat": 0} in legal["actions"]
    code, after = run("apply", body={"state": dealt, "actions": [{"type": "draw"}]})
    assert code == 0 and after["state"]["turn"]["phase"] == "play"
    assert after["events"][0]["type"] == "drew"
    state = after["state"]
    card = state["hands"][0][0]
    code, verdict = run("check", body={"state": state, "actions": [{"type": "discard", "card": card}]})
    assert (code, verdict) == (0, {"legal": True})


def test_refusals_name_code_message_and_rule(dealt: dict[str, Any]) -> None:
    code, verdict = run("check", body={"state": dealt, "actions": [{"type": "discard", "card": "JK"}]})
    assert code == 0 and verdict["legal"] is False and verdict["index"] == 0
    assert verdict["reason"]["code"] == "WRONG_PHASE"
    assert verdict["reason"]["rule"].startswith("docs/variants/classic.md#a-turn (pagat.com")
    code, verdict_de = run("check", "--lang", "de",
                           body={"state": dealt, "actions": [{"type": "discard", "card": "JK"}]})
    assert verdict_de["reason"]["message"] != verdict["reason"]["message"]
    assert "Phase" in verdict_de["reason"]["message"]
    code, problem = run("apply", body={"state": dealt, "actions": [{"type": "ask"}]})
    assert code == 1 and problem["status"] == 422 and problem["code"] == "ILLEGAL_ACTION"
    assert problem["reason"]["code"] == "WRONG_PHASE" and problem["index"] == 0


def test_malformed_input_names_every_path(dealt: dict[str, Any]) -> None:
    state = json.loads(json.dumps(dealt))
    state["hands"][1][2] = "1X"
    state["turn"]["phase"] = "lunch"
    code, problem = run("legal-actions", body={"state": state})
    assert code == 1 and problem["code"] == "MALFORMED_REQUEST"
    paths = {p["path"] for p in problem["problems"]}
    assert paths == {"/state/hands/1/2", "/state/turn/phase"}


def test_forgiving_card_codes_come_back_canonical(dealt: dict[str, Any]) -> None:
    state = json.loads(json.dumps(dealt))
    state["hands"][0] = [c.lower().replace("t", "10") for c in state["hands"][0]]
    _, answer = run("apply", body={"state": state, "actions": [{"type": "draw"}]})
    assert all(c == c.upper() and not c.startswith("10") for c in answer["state"]["hands"][0])


def test_score(dealt: dict[str, Any]) -> None:
    code, score = run("score", body={"state": dealt})
    assert code == 0
    assert [s["side"] for s in score["sides"]] == [0, 1]
    for side in score["sides"]:
        b = side["breakdown"]
        assert set(b) == {"melded_cards", "hand_cards", "canasta_bonus", "bonus_cards",
                          "going_out", "penalties", "total"}
        assert b["total"] == sum(v for k, v in b.items() if k != "total") == side["total"]
    # pagat "Initial Meld Requirement": below 0: 15; 0-1,495: 50; 1,500-2,995: 90; then 120
    expected = [15 if t < 0 else 50 if t < 1500 else 90 if t < 3000 else 120
                for t in score["scores"]]
    assert score["next_minimums"] == expected
    assert score["scores"] == [0 + score["sides"][0]["total"], 1600 + score["sides"][1]["total"]]


def test_every_code_has_both_messages() -> None:
    """Every refusal and problem code explains itself in English and German."""
    from canasta_referee.engine.reasons import CODES

    for code, (rule, en, de) in CODES.items():
        assert rule and en and de and en != de, code


def test_readme_variants_table_is_current() -> None:
    """The table of variants in docs/variants/README.md is generated from the rule tables
    (python -m canasta_referee.engine.tables --write)."""
    from pathlib import Path

    from canasta_referee.engine.tables import TARGET, readme_block

    doc = (Path(__file__).resolve().parent.parent / TARGET).read_text()
    assert readme_block() in doc, f"run `python -m canasta_referee.engine.tables --write` to update {TARGET}"


def test_rule_table_sections_cover_every_rule_with_a_source() -> None:
    """Every parameter of every variant's table sits in one section that names its source."""
    from canasta_referee.engine import VARIANTS, api

    for v in VARIANTS:
        answer = api.variant(v.id)
        rules = answer["rules"]
        placed = [f for section in answer["sections"] for f in section["rules"]]
        assert len(placed) == len(set(placed))
        assert set(placed) == set(rules) - {"id", "title", "version", "options", "sources"}, v.id
        for section in answer["sections"]:
            assert section["source"], (v.id, section["name"])


def test_every_code_is_used_and_documented() -> None:
    """No code without a rule that raises it, none missing from the wire format's tables."""
    from pathlib import Path

    from canasta_referee.engine.reasons import CODES

    root = Path(__file__).resolve().parent.parent
    source = "".join(p.read_text() for p in (root / "engine").rglob("*.py")
                     if p.name != "reasons.py")
    doc = (root / "docs" / "wire-format.md").read_text()
    for code in CODES:
        assert f'"{code}"' in source, f"{code} is never used"
        assert f"| `{code}` |" in doc, f"{code} is not in docs/wire-format.md"


@pytest.mark.parametrize("args", [("deal", "german"), ("variants", "x"), ("validate", "classic")])
def test_an_argument_an_operation_does_not_take_is_bad_usage(args: tuple[str, ...]) -> None:
    """docs/api.md, command line: exit status 2 for bad usage. ``deal german`` dealt classic
    (the variant of a deal is in its body) and exited 0."""
    proc = subprocess.run([sys.executable, "-m", "canasta_referee.service.cli", *args],
                          input=b'{"seed": 7}', capture_output=True, timeout=60, check=False)
    assert proc.returncode == 2 and proc.stdout == b"", proc.stdout[:200]
    assert b"takes no argument" in proc.stderr


def test_the_command_line_answers_past_the_service_s_limits() -> None:
    """docs/api.md, command line: the service's limits are the service's; the command line
    lists every problem of a state (the service: the first MAX_PROBLEMS and ``more``)."""
    from canasta_referee.schema.models import EXAMPLE_STATE

    state = {**EXAMPLE_STATE, "hands": [["XX"] * 150] + EXAMPLE_STATE["hands"][1:]}
    code, answer = run("validate", body={"state": state})
    assert code == 1 and len(answer["problems"]) >= 150 and "more" not in answer
