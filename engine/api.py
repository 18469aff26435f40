"""The operations of docs/wire-format.md on JSON-shaped requests: what the CLI and the service call.

Each function takes the request body as plain data (already structurally valid) and returns
the answer body; a request the engine cannot answer raises ``OpError`` (a 422 problem). The
operations on a state also take the ruleset it names, when the caller has it already (the
service does, from the cache key); without it they look it up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import wire
from .deal import deal as deal_state
from .legal import legal_actions as _legal
from .play import NeedsHiddenInfo, apply_actions, check_actions
from .reasons import IllegalAction, InvalidState, Problem, Refusal, UnknownRules, message
from .rules import RuleSet
from .scoring import ScoringNeedsHiddenInfo, score_deal
from .state import OVER, State
from .variants import VARIANTS, find_variant, rules_for
from .views import view_for

Data = dict[str, Any]


class OpError(Exception):
    """A request the engine cannot answer: a code, a message and every problem with its path."""

    def __init__(self, code: str, message: str, problems: list[Data] | None = None,
                 reason: Data | None = None, index: int | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.message = message
        self.problems = problems or []
        self.reason = reason
        self.index = index

    def body(self) -> Data:
        out: Data = {"code": self.code, "detail": self.message}
        if self.problems:
            out["problems"] = self.problems
        if self.reason is not None:
            out["reason"] = self.reason
        if self.index is not None:
            out["index"] = self.index
        return out


def _problem(p: Problem, prefix: str, lang: str) -> Data:
    return {"code": p.code, "path": prefix + p.path, "message": p.message(lang)}


def _state(req: Data, lang: str, rules: RuleSet | None) -> State:
    return state_of(req["state"], lang, rules)


def state_of(data: Data, lang: str, rules: RuleSet | None, prefix: str = "/state") -> State:
    """The state of ``data``, found at ``prefix`` in the request; an ``OpError`` whose problems
    point there when it is not valid."""
    try:
        return wire.state_from_data(data, rules)
    except InvalidState as exc:
        problems = [_problem(p, prefix, lang) for p in exc.problems]
        first = exc.problems[0]
        code = first.code if first.code in ("UNKNOWN_VARIANT", "UNKNOWN_OPTION",
                                            "BAD_OPTION_VALUE") else "INVALID_STATE"
        raise OpError(code, problems[0]["message"] if code != "INVALID_STATE" else
                      message("INVALID_STATE", {"problems": _count(len(problems))}, lang),
                      problems) from None


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
    try:
        rules = wire.rules_of(req)
    except UnknownRules as exc:
        raise _rules_error(exc, "", lang) from None
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


def validate(req: Data, lang: str = "en", rules: RuleSet | None = None) -> Data:
    problems = wire.validate_data(req["state"], rules)
    return {"valid": not problems, "problems": [_problem(p, "/state", lang) for p in problems]}


def legal_actions(req: Data, lang: str = "en", rules: RuleSet | None = None,
                  as_json: Callable[[str], object] | None = None) -> Data:
    """The seat to move, the phase and every legal action. With ``as_json`` the actions come as
    ``as_json(their JSON text)`` instead of as data (the service passes ``orjson.Fragment``:
    a long list is written several times faster than as data, then serialised)."""
    state = _state(req, lang, rules)
    try:
        actions = _legal(state)
    except NeedsHiddenInfo as exc:
        raise _hidden(exc.refusal, state.rules, lang) from None
    seat = actions.seat
    if seat is None:
        seat = state.turn.seat
    return {"seat": seat, "phase": state.turn.phase,
            "actions": as_json(wire.actions_json(actions)) if as_json is not None
            else [wire.action_to_data(a) for a in actions]}


def _actions(req: Data) -> list[Any]:
    return [wire.action_from_data(a) for a in req["actions"]]


def check(req: Data, lang: str = "en", rules: RuleSet | None = None) -> Data:
    state = _state(req, lang, rules)
    verdict = check_actions(state, _actions(req))
    if verdict is None:
        return {"legal": True}
    index, refusal = verdict
    if refusal.code == "NEEDS_HIDDEN_INFO":
        raise _hidden(refusal, state.rules, lang, index)
    return {"legal": False, "index": index, "reason": wire.refusal_data(refusal, state.rules, lang)}


def apply(req: Data, lang: str = "en", rules: RuleSet | None = None) -> Data:
    state = _state(req, lang, rules)
    try:
        after, events = apply_actions(state, _actions(req))
    except IllegalAction as exc:
        reason = wire.refusal_data(exc.refusal, state.rules, lang)
        code = exc.refusal.code if exc.refusal.code == "NEEDS_HIDDEN_INFO" else "ILLEGAL_ACTION"
        raise OpError(code, reason["message"], reason=reason, index=exc.index) from None
    return {"state": wire.state_to_data(after),
            "events": [wire.event_to_data(e) for e in events]}


def score(req: Data, lang: str = "en", rules: RuleSet | None = None) -> Data:
    """The deal's score. ``final``: the deal is over (phase ``over``); false, the table is
    scored as it stands, as if the deal ended now with nobody going out, and the game
    scores, ``game_over``, ``winner`` and ``next_minimums`` are provisional."""
    return score_data(_state(req, lang, rules), lang)


def score_data(state: State, lang: str = "en", path: str | None = None) -> Data:
    """``score``'s answer for a state; NEEDS_HIDDEN_INFO (pointing at ``path``, when given)
    where a hand is known only by its size."""
    try:
        return {"final": state.turn.phase == OVER, **score_deal(state).as_dict()}
    except ScoringNeedsHiddenInfo as exc:
        raise _hidden(Refusal("NEEDS_HIDDEN_INFO", {"what": exc.what}), state.rules, lang,
                      path=path) from None


def view(req: Data, lang: str = "en", rules: RuleSet | None = None) -> Data:
    """The state as ``seat`` sees it (``engine.views.view_for``): other hands and the stock by
    their size, the pile by its top card, size and whether it is frozen."""
    state = _state(req, lang, rules)
    seat = req["seat"]
    check_seat(state.rules, seat, "/seat", lang)
    return {"seat": seat, "state": wire.state_to_data(view_for(state, seat))}
