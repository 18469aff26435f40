"""Whole-game audits (docs/wire-format.md#audits): a game log replayed in one call.

A log names the rules and, per deal, where it starts (a seed and a dealer, dealt as ``deal``
deals; or a state) and the actions played, in order. Deals are replayed one after the other,
each from the game scores the deals before it leave (a deal by seed is dealt with them; a
deal's starting state is played with them). Each deal says whether every action was legal
(else the first that was not, and why: ``check``'s reason), its final state, its events and its
score; where the log records scores, whether the rules give the same.
"""

from __future__ import annotations

from typing import Any

from . import wire
from .api import _hidden as hidden_error
from .api import _request_rules as request_rules
from .api import _rules_error as rules_error
from .api import check_seat, check_sides, request_error, score_data, state_of
from .deal import deal
from .play import NeedsHiddenInfo, apply_action
from .reasons import IllegalAction, Refusal, UnknownRules, message
from .rules import RuleSet
from .scoring import game_winner
from .state import State

Data = dict[str, Any]


def action_count(req: Data) -> int:
    """The actions of a log, over all its deals."""
    return sum([len(d["actions"]) for d in req["deals"]])


def audit(req: Data, lang: str = "en") -> Data:
    """The audit of a structurally valid log (``schema.models.AuditRequest``'s dump). Raises
    ``OpError`` where the log cannot be replayed: rules the engine does not know, a seat or a
    list of scores that does not fit them, an invalid starting state, a starting state of
    other rules, or a hidden card that an action or a score needs."""
    rules = request_rules(req, lang)
    given: list[int] | None = req.get("scores")
    check_sides(rules, given, "/scores", lang)
    totals: tuple[int, ...] | None = tuple(given) if given is not None else None
    deals: list[Data] = []
    #: the game's end: its totals, its winner and the deal that ended it (-1: the scores the
    #: log starts from had already ended it)
    end: tuple[list[int], int, int] | None = None
    for i, log in enumerate(req["deals"]):
        answer, start = _deal(rules, log, f"/deals/{i}", totals, lang)
        if i == 0 and (won := game_winner(rules, start)) is not None:
            end = (list(start), won, -1)
        totals = tuple(answer["score"]["scores"])
        score = answer["score"]
        if end is not None:
            _after_game_over(answer, i, end[2], end[1], lang)
        elif score["final"] and score["game_over"]:
            end = (score["scores"], score["winner"], i)
        deals.append(answer)
    last = deals[-1]["score"]
    recorded = [d["agrees"] for d in deals if d["agrees"] is not None]
    return {"legal": all([d["legal"] for d in deals]),
            "agrees": all(recorded) if recorded else None,
            "totals": end[0] if end else last["scores"],
            "game_over": True if end else last["game_over"],
            "winner": end[1] if end else last["winner"], "deals": deals}


def _after_game_over(answer: Data, deal: int, ended: int, winner: int, lang: str) -> None:
    """A deal the log plays after the game was won (docs/wire-format.md#games: the game ends
    with the deal that takes a side to the target; ``ended`` -1: the scores the log starts
    from already had), replayed all the same: what the log records disagrees with the rules."""
    code = "DEAL_AFTER_GAME_OVER" if ended >= 0 else "GAME_OVER_AT_START"
    params: Data = {"deal": deal, "over": ended, "winner": winner}
    answer["disagreements"].insert(0, {"code": code, "path": f"/deals/{deal}",
                                       "message": message(code, params, lang)})
    answer["agrees"] = False


def _deal(rules: RuleSet, log: Data, path: str, totals: tuple[int, ...] | None,
          lang: str) -> tuple[Data, tuple[int, ...]]:
    """One deal of the log replayed from the game scores ``totals`` (None before a first deal
    given by its state: that state's scores), and the game scores it started from."""
    disagreements: list[Data] = []
    events: list[Data] = []
    for key in ("scores", "totals"):
        check_sides(rules, log.get(key), f"{path}/{key}", lang)
    start = log.get("state")
    if start is not None:
        state = _start(rules, start, f"{path}/state", lang)
        if totals is not None and state.scores != totals:
            disagreements += _differences("START_SCORES_DISAGREE", f"{path}/state/scores",
                                          list(state.scores), list(totals), lang)
            state = state._replace(scores=totals)
    else:
        dealer: int = log["dealer"]
        check_seat(rules, dealer, f"{path}/dealer", lang)
        state, dealt = deal(rules, log["seed"], dealer, totals)
        events = [wire.event_to_data(e) for e in dealt]
    started = state.scores
    index: int | None = None
    refusal: Refusal | None = None
    for k, data in enumerate(log["actions"]):
        try:
            state, more = apply_action(state, wire.action_from_data(data))
        except IllegalAction as exc:
            if exc.refusal.code == "NEEDS_HIDDEN_INFO":
                raise hidden_error(exc.refusal, rules, lang, k, f"{path}/actions/{k}") from None
            index, refusal = k, exc.refusal
            break
        except NeedsHiddenInfo as hidden:
            raise hidden_error(hidden.refusal, rules, lang, k, f"{path}/actions/{k}") from None
        for event in more:
            events.append(wire.event_to_data(event))
    score = score_data(state, lang, f"{path}/state" if start is not None else path)
    recorded = log.get("scores")
    if recorded is not None:
        disagreements += _differences("DEAL_SCORE_DISAGREES", f"{path}/scores", recorded,
                                      [side["total"] for side in score["sides"]], lang)
    recorded_totals = log.get("totals")
    if recorded_totals is not None:
        disagreements += _differences("TOTAL_DISAGREES", f"{path}/totals", recorded_totals,
                                      score["scores"], lang)
    records = (start is not None and totals is not None) or recorded is not None \
        or recorded_totals is not None
    return {"legal": refusal is None, "index": index,
            "reason": wire.refusal_data(refusal, rules, lang) if refusal is not None else None,
            "state": wire.state_to_data(state), "events": events, "score": score,
            "agrees": not disagreements if records else None,
            "disagreements": disagreements}, started


def _start(rules: RuleSet, data: Data, path: str, lang: str) -> State:
    """A deal's starting state, which must name the log's rules."""
    try:
        named = wire.rules_of(data)
    except UnknownRules as exc:
        raise rules_error(exc, path, lang) from None
    if named.fingerprint != rules.fingerprint:
        expected, got = _apart(rules, named)
        raise request_error("DEAL_RULES_DIFFER", {"expected": expected, "got": got}, path, lang)
    return state_of(data, lang, rules, path)


def _apart(rules: RuleSet, other: RuleSet) -> tuple[str, str]:
    """What tells two rulesets apart, for a message: their ids, or the options that differ."""
    if rules.id != other.id:
        return rules.id, other.id
    mine, theirs = dict(rules.options), dict(other.options)
    names = [k for k in mine if mine[k] != theirs.get(k)]
    return (", ".join([f"{k}: {_shown(mine[k])}" for k in names]),
            ", ".join([f"{k}: {_shown(theirs.get(k))}" for k in names]))


def _shown(value: object) -> str:
    """An option value as JSON writes it."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _differences(code: str, path: str, recorded: list[int], audited: list[int],
                 lang: str) -> list[Data]:
    """A problem per side whose recorded score is not the audited one."""
    out: list[Data] = []
    for side, (mine, theirs) in enumerate(zip(recorded, audited, strict=True)):
        if mine != theirs:
            params: Data = {"side": side, "recorded": mine, "audited": theirs}
            out.append({"code": code, "path": f"{path}/{side}",
                        "message": message(code, params, lang)})
    return out
