"""The operations of docs/wire-format.md on JSON-shaped requests: what the CLI and the service call.

Each function takes the request body as plain data (already structurally valid) and returns
the answer body; a request the engine cannot answer raises ``OpError`` (a 422 problem). The
operations on a state also take the ruleset it names, when the caller has it already (the
service does, from the cache key); without it they look it up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import scoring, wire
from .deal import deal as deal_state
from .legal import LegalActions
from .legal import legal_actions as _legal
from .play import NeedsHiddenInfo, apply_actions, check_actions
from .reasons import IllegalAction, InvalidState, Problem, Refusal, UnknownRules, message
from .rules import RuleSet
from .scoring import DealScore, ScoringNeedsHiddenInfo, score_deal
from .state import OVER, State
from .tally import read_ledger, read_tally
from .variants import VARIANTS, find_variant, rules_for
from .views import view_for

Data = dict[str, Any]


class OpError(Exception):
    """A request the engine cannot answer: a code, a message and every problem with its path."""

    def __init__(self, code: str, message: str, problems: list[Data] | None = None,
                 reason: Data | None = None, index: int | None = None, more: int = 0) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.problems = problems or []
        self.reason = reason
        self.index = index
        self.more = more  # problems found beyond those listed

    def body(self) -> Data:
        out: Data = {"code": self.code, "detail": self.message}
        if self.problems:
            out["problems"] = self.problems
            if self.more:
                out["more"] = self.more
        if self.reason is not None:
            out["reason"] = self.reason
        if self.index is not None:
            out["index"] = self.index
        return out


class TooManyLegalActions(Exception):
    """A state with more legal actions than the caller lets one answer list."""

    def __init__(self, count: int, limit: int) -> None:
        super().__init__(f"{count} legal actions, more than {limit}")
        self.count = count
        self.limit = limit


def _problem(p: Problem, prefix: str, lang: str) -> Data:
    return {"code": p.code, "path": prefix + p.path, "message": p.message(lang)}


def _listed(problems: list[Problem], lang: str, limit: int | None,
            prefix: str = "/state") -> tuple[list[Data], int]:
    """The first ``limit`` problems (all with None) as data, and how many more there are; the
    messages of the others are never written."""
    shown = problems if limit is None or len(problems) <= limit else problems[:max(limit, 1)]
    return [_problem(p, prefix, lang) for p in shown], len(problems) - len(shown)


def _state(req: Data, lang: str, rules: RuleSet | None, max_problems: int | None = None) -> State:
    return state_of(req["state"], lang, rules, max_problems=max_problems)


def state_of(data: Data, lang: str, rules: RuleSet | None, prefix: str = "/state",
             max_problems: int | None = None) -> State:
    """The state of ``data``, found at ``prefix`` in the request; an ``OpError`` whose problems
    point there when it is not valid (the first ``max_problems`` of them, and ``more``)."""
    try:
        return wire.state_from_data(data, rules)
    except InvalidState as exc:
        problems, more = _listed(exc.problems, lang, max_problems, prefix)
        first = exc.problems[0]
        code = first.code if first.code in ("UNKNOWN_VARIANT", "UNKNOWN_OPTION",
                                            "BAD_OPTION_VALUE") else "INVALID_STATE"
        raise OpError(code, problems[0]["message"] if code != "INVALID_STATE" else
                      message("INVALID_STATE", {"problems": _count(len(exc.problems))}, lang),
                      problems, more=more) from None


def _count(n: int) -> dict[str, str]:
    """``n`` problems, in each language (INVALID_STATE's summary)."""
    return ({"en": "1 problem", "de": "1 Problem"} if n == 1 else
            {"en": f"{n} problems", "de": f"{n} Probleme"})


def _rules_error(exc: UnknownRules, prefix: str, lang: str) -> OpError:
    msg = exc.refusal.message(lang)
    return OpError(exc.refusal.code, msg, [{"code": exc.refusal.code, "path": prefix + exc.path,
                                            "message": msg}])


def _hidden(refusal: Refusal, rules: RuleSet, lang: str, index: int | None = None,
            path: str | None = None) -> OpError:
    """NEEDS_HIDDEN_INFO; ``path``: where in the request the action or state is that needs
    the hidden cards (a problem pointing there), when the index alone does not say it."""
    reason = wire.refusal_data(refusal, rules, lang)
    problems = None if path is None else [{"code": refusal.code, "path": path,
                                           "message": reason["message"]}]
    return OpError("NEEDS_HIDDEN_INFO", reason["message"], problems, reason=reason, index=index)


def request_error(code: str, params: Data, path: str, lang: str) -> OpError:
    """A request the engine cannot answer because of one value, at ``path``."""
    msg = message(code, params, lang)
    return OpError(code, msg, [{"code": code, "path": path, "message": msg}])


def variants() -> Data:
    return {"variants": [{"id": v.id, "title": v.title, "players": list(v.players),
                          "summary": v.summary} for v in VARIANTS]}


def variant(variant_id: str, options: Data | None = None, lang: str = "en") -> Data:
    try:
        v = find_variant(variant_id)
        rules = rules_for(v.id, options or {})
    except UnknownRules as exc:
        raise _rules_error(exc, "", lang) from None
    return {"id": v.id, "title": v.title, "aliases": list(v.aliases), "summary": v.summary,
            "players": list(v.players), "fingerprint": rules.fingerprint,
            "options": [o.as_dict() for o in v.options], "rules": rules.table(),
            "sections": rules.sections()}


def deal(req: Data, lang: str = "en") -> Data:
    rules = _request_rules(req, lang)
    dealer = req.get("dealer", 0)
    check_seat(rules, dealer, "/dealer", lang)
    scores = req.get("scores")
    check_sides(rules, scores, "/scores", lang)
    state, events = deal_state(rules, req.get("seed", 0), dealer,
                               tuple(scores) if scores is not None else None)
    return {"state": wire.state_to_data(state),
            "events": [wire.event_to_data(e) for e in events]}


def check_seat(rules: RuleSet, seat: int, path: str, lang: str) -> None:
    """Raise SEAT_OUT_OF_RANGE (at ``path``) for a seat the ruleset does not have."""
    if not 0 <= seat < rules.players:
        raise request_error("SEAT_OUT_OF_RANGE", {"seat": seat, "players": rules.players}, path,
                            lang)


def check_sides(rules: RuleSet, scores: list[int] | None, path: str, lang: str) -> None:
    """Raise SIDE_COUNT_MISMATCH (at ``path``) for per-side scores of another number of sides."""
    if scores is not None and len(scores) != rules.sides:
        raise request_error("SIDE_COUNT_MISMATCH", {"expected": rules.sides, "got": len(scores)},
                            path, lang)


def validate(req: Data, lang: str = "en", rules: RuleSet | None = None,
             max_problems: int | None = None) -> Data:
    """Every problem of the state; with ``max_problems`` the first that many, and ``more``:
    how many are left out (only when some are)."""
    found = wire.validate_data(req["state"], rules)
    problems, more = _listed(found, lang, max_problems)
    out: Data = {"valid": not found, "problems": problems}
    if more:
        out["more"] = more
    return out


def legal_actions(req: Data, lang: str = "en", rules: RuleSet | None = None,
                  as_json: Callable[[LegalActions], object] | None = None,
                  max_problems: int | None = None, max_actions: int | None = None) -> Data:
    """The seat to move, the phase and every legal action. With ``as_json`` the actions come as
    ``as_json(actions)`` instead of as data (the service writes them as JSON text, see
    ``wire.actions_json``: a long list is written several times faster than as data, then
    serialised). A state with more than ``max_actions`` raises ``TooManyLegalActions`` before
    any is written."""
    state = _state(req, lang, rules, max_problems)
    try:
        actions = _legal(state)
    except NeedsHiddenInfo as exc:
        raise _hidden(exc.refusal, state.rules, lang) from None
    if max_actions is not None and len(actions) > max_actions:
        raise TooManyLegalActions(len(actions), max_actions)
    seat = actions.seat
    if seat is None:
        seat = state.turn.seat
    return {"seat": seat, "phase": state.turn.phase,
            "actions": as_json(actions) if as_json is not None
            else [wire.action_to_data(a) for a in actions]}


def _actions(req: Data) -> list[Any]:
    return [wire.action_from_data(a) for a in req["actions"]]


def check(req: Data, lang: str = "en", rules: RuleSet | None = None,
          max_problems: int | None = None) -> Data:
    state = _state(req, lang, rules, max_problems)
    verdict = check_actions(state, _actions(req))
    if verdict is None:
        return {"legal": True}
    index, refusal = verdict
    if refusal.code == "NEEDS_HIDDEN_INFO":
        raise _hidden(refusal, state.rules, lang, index)
    return {"legal": False, "index": index, "reason": wire.refusal_data(refusal, state.rules, lang)}


def apply(req: Data, lang: str = "en", rules: RuleSet | None = None,
          max_problems: int | None = None,
          as_json: Callable[[State], object] | None = None) -> Data:
    """The state after the actions, and what happened. With ``as_json`` the state comes as
    ``as_json(state)`` instead of as data (the service writes it as JSON text)."""
    state = _state(req, lang, rules, max_problems)
    try:
        after, events = apply_actions(state, _actions(req))
    except IllegalAction as exc:
        reason = wire.refusal_data(exc.refusal, state.rules, lang)
        code = exc.refusal.code if exc.refusal.code == "NEEDS_HIDDEN_INFO" else "ILLEGAL_ACTION"
        raise OpError(code, reason["message"], reason=reason, index=exc.index) from None
    return {"state": wire.state_to_data(after) if as_json is None else as_json(after),
            "events": [wire.event_to_data(e) for e in events]}


def score(req: Data, lang: str = "en", rules: RuleSet | None = None,
          max_problems: int | None = None) -> Data:
    """The deal's score. ``final``: the deal is over (phase ``over``); false, the table is
    scored as it stands, as if the deal ended now with nobody going out, and the game
    scores, ``game_over``, ``winner`` and ``next_minimums`` are provisional."""
    return score_data(_state(req, lang, rules, max_problems), lang)


def score_data(state: State, lang: str = "en", path: str | None = None) -> Data:
    """``score``'s answer for a state; NEEDS_HIDDEN_INFO (pointing at ``path``, when given)
    where a hand is known only by its size."""
    try:
        return {"final": state.turn.phase == OVER, **score_deal(state).as_dict()}
    except ScoringNeedsHiddenInfo as exc:
        raise _hidden(Refusal("NEEDS_HIDDEN_INFO", {"what": exc.what}), state.rules, lang,
                      path=path) from None


def view(req: Data, lang: str = "en", rules: RuleSet | None = None,
         max_problems: int | None = None,
         as_json: Callable[[State], object] | None = None) -> Data:
    """The state as ``seat`` sees it (``engine.views.view_for``): other hands and the stock by
    their size, the pile by its top card, size and whether it is frozen; ``as_json`` as for
    ``apply``."""
    state = _state(req, lang, rules, max_problems)
    seat = req["seat"]
    check_seat(state.rules, seat, "/seat", lang)
    seen = view_for(state, seat)
    return {"seat": seat, "state": wire.state_to_data(seen) if as_json is None else as_json(seen)}


def _invalid(code: str, problems: list[Problem], lang: str) -> OpError:
    """INVALID_TALLY or INVALID_LEDGER with every problem (the summary counts them)."""
    found = [_problem(p, "", lang) for p in problems]
    return OpError(code, message(code, {"problems": _count(len(found))}, lang), found)


def _request_rules(req: Data, lang: str) -> RuleSet:
    try:
        return wire.rules_of(req)
    except UnknownRules as exc:
        raise _rules_error(exc, "", lang) from None


def score_tally(req: Data, lang: str = "en") -> Data:
    """A deal's score from its tally (``engine.tally``): the answer of ``score``, always
    ``final`` (a tally records a deal that is over). An impossible tally is INVALID_TALLY with
    every problem and its path."""
    rules = _request_rules(req, lang)
    scores = req.get("scores")
    problems: list[Problem] = []
    if scores is not None and len(scores) != rules.sides:
        problems.append(Problem("SIDE_COUNT_MISMATCH", "/scores",
                                {"expected": rules.sides, "got": len(scores)}))
    tally, found = read_tally(rules, req)
    problems += found
    if problems or tally is None:
        raise _invalid("INVALID_TALLY", problems, lang)
    before = tuple(scores) if scores is not None else tuple(0 for _ in range(rules.sides))
    return {"final": True, **scoring.score_tally(rules, before, tally).as_dict()}


def _round_data(index: int, minimums: tuple[int, ...], score: DealScore) -> Data:
    deal = score.as_dict()
    return {"round": index, "minimums": list(minimums), "sides": deal["sides"],
            "scores": deal["scores"]}


def game(req: Data, lang: str = "en") -> Data:
    """A game so far from its rounds (tallies or finished states): the running totals and the
    minimums per round, whether the game is over and who won. A record that contradicts
    itself is INVALID_LEDGER with every problem and its path (``/rounds/{i}/...``)."""
    rules = _request_rules(req, lang)
    ledger, problems = read_ledger(rules, req.get("rounds") or [])
    if problems or ledger is None:
        raise _invalid("INVALID_LEDGER", problems, lang)
    return {"rounds": [_round_data(r.index, r.minimums, r.score) for r in ledger.rounds],
            "scores": list(ledger.scores), "game_over": ledger.game_over,
            "winner": ledger.winner, "next_minimums": list(ledger.next_minimums)}
