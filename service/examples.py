"""The OpenAPI document's examples: named requests, and the service's own answers to them.

Every request example says which status it gets; ``answers()`` runs it through the same handlers
the routes use (``schema.handlers``) and fails if the status differs, so the document never shows
an answer the service does not give. ``tests/test_openapi_examples.py`` sends each example to a
running server and compares. A request example and its answer share their name: the answer is
under the response of its status, e.g. ``illegal`` under check's 200, apply's ``illegal`` under
its 422.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass
from typing import Any

from canasta_referee.schema import handlers
from canasta_referee.schema.models import (
    EXAMPLE_ACTIONS,
    EXAMPLE_FULL_STATE,
    EXAMPLE_OVER_STATE,
    EXAMPLE_STATE,
)

from .protocol import RETRY_AFTER, problem_body
from .settings import Settings


@dataclass(frozen=True)
class Example:
    """A request example: its summary, the body (or, for ``variant``, the path's id) and the
    status the service answers it with."""

    summary: str
    request: Any
    status: int


def _with_red_three_in_hand() -> dict[str, Any]:
    state = copy.deepcopy(EXAMPLE_FULL_STATE)
    state["hands"][1][-1] = "3H"
    return state


#: EXAMPLE_OVER_STATE's deal as a score pad counts it (``engine.tally.tally_to_data``)
TALLY_CLASSIC: dict[str, Any] = {
    "variant": "classic", "options": {"players": 4}, "scores": [650, -150], "sides": [
        {"melded_points": 180, "hand_points": -65, "went_out": "plain", "red_threes": 1,
         "mixed_canastas": 1},
        {"melded_points": 80, "hand_points": -120, "red_threes": 1}]}
#: a first deal that leaves the game at EXAMPLE_OVER_STATE's scores before its deal, 650 and -150
TALLY_ROUND_0: dict[str, Any] = {"sides": [
    {"melded_points": 150, "went_out": "plain", "red_threes": 1, "mixed_canastas": 1},
    {"melded_points": 50, "hand_points": -300, "red_threes": 1}]}

_BAD_CARD = copy.deepcopy(EXAMPLE_STATE)
_BAD_CARD["hands"][0][3] = "XX"

# A deal that is over, as docs/api.md scores it (seat 0 went out), and the game it belongs to:
# the log records that deal's scores (right) and the game scores after it (one of them wrong),
# and the next deal's first turns: there the carried scores set side 0's minimum to 90
_OVER_VIEW: dict[str, Any] = {
    "variant": "classic", "dealer": 3, "scores": [1200, 300],
    "hands": [[], ["5H", "9C"], ["JK", "4D"], ["KD"]],
    "melds": [[{"rank": "Q", "cards": ["QS", "QH", "QD", "QC", "QS", "QH", "QD"]},
               {"rank": "7", "cards": ["7S", "7H", "2C"]}],
              [{"rank": "A", "cards": ["AS", "AH", "AD"]}]],
    "bonus_cards": [["3H"], []],
    "discard": {"top": "8C", "size": 14}, "stock": {"size": 75},
    "turn": {"seat": 0, "phase": "over", "went_out": 0}}
EXAMPLE_LOG: dict[str, Any] = {"variant": "classic", "deals": [
    {"state": _OVER_VIEW, "scores": [745, 35], "totals": [1945, 355]},
    {"seed": 7, "dealer": 0, "actions": [
        {"type": "draw"}, {"type": "meld", "cards": ["KS", "KD", "KC", "JK"]},
        {"type": "discard", "card": "4D"},
        {"type": "draw"}, {"type": "meld", "cards": ["8S", "8S", "8H"]}]}]}

#: operation -> example name -> example
REQUESTS: dict[str, dict[str, Example]] = {
    "variant": {
        "classic": Example("Classic Canasta's rule table", "classic", 200),
        "unknown": Example("A variant the referee does not know", "samba", 404),
    },
    "deal": {
        "seeded": Example("Four players, seed 42: the same deal every time", {
            "variant": "classic", "options": {"players": 4}, "seed": 42, "dealer": 3,
            "scores": [650, -150]}, 200),
        "unknownVariant": Example("A variant the referee does not know",
                                  {"variant": "samba", "seed": 42}, 422),
    },
    "validate": {
        "valid": Example("A table seen by seat 0 (others' hands and the stock by size)",
                         {"state": EXAMPLE_STATE}, 200),
        "problems": Example("A red three kept in a hand: every problem, with its JSON pointer",
                            {"state": _with_red_three_in_hand()}, 200),
        "malformed": Example("Not a card code: a 422 problem pointing at the field",
                             {"state": _BAD_CARD}, 422),
    },
    "legal-actions": {
        "draw": Example("Seat 0 to draw, seen by seat 0: its hand is all it needs",
                        {"state": EXAMPLE_STATE}, 200),
        "over": Example("A deal that is over: nothing to do", {"state": EXAMPLE_OVER_STATE}, 200),
        "malformed": Example("Not a card code", {"state": _BAD_CARD}, 422),
    },
    "check": {
        "legal": Example("Draw, meld three queens and a joker, discard (full table)",
                         {"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS}, 200),
        "illegal": Example("Take the pile with a pair that does not match its top card", {
            "state": EXAMPLE_FULL_STATE,
            "actions": [{"type": "take-pile", "cards": ["9C", "9D"]}]}, 200),
        "hiddenCards": Example("A draw from a stock known only by its size: the referee "
                               "cannot tell what follows it",
                               {"state": EXAMPLE_STATE, "actions": EXAMPLE_ACTIONS}, 422),
    },
    "apply": {
        "turn": Example("Draw, meld three queens and a joker, discard (full table)",
                        {"state": EXAMPLE_FULL_STATE, "actions": EXAMPLE_ACTIONS}, 200),
        "illegal": Example("Discard a card not in the hand: 422 ILLEGAL_ACTION with its index", {
            "state": EXAMPLE_FULL_STATE,
            "actions": [{"type": "draw"}, {"type": "discard", "card": "AS"}]}, 422),
    },
    "score": {
        "over": Example("Seat 0 went out; every hand known", {"state": EXAMPLE_OVER_STATE}, 200),
        "hiddenCards": Example("Hands known only by their size cannot be scored",
                               {"state": EXAMPLE_STATE}, 422),
    },
    "score-tally": {
        "classic": Example("The deal of score's example as a score pad counts it: the same "
                           "answer", TALLY_CLASSIC, 200),
        "modernAmerican": Example(
            "Modern American: side 0 goes out with a canasta of sevens; side 1 has no canasta, "
            "an incomplete wild-card meld and a player holding three aces", {
                "variant": "modern-american", "scores": [3200, 4100], "sides": [
                    {"melded_points": 215, "hand_points": -10, "went_out": "plain",
                     "red_threes": 2, "black_threes": 1, "pure_sevens_canastas": 1,
                     "mixed_canastas": 1},
                    {"melded_points": 120, "hand_points": -150, "red_threes": 1,
                     "incomplete_wild_melds": 1, "held_aces_groups": 1}]}, 200),
        "german": Example(
            "German rules: side 1 goes out without having melded before (Handcanasta, 1,000); "
            "side 0 has no canasta, so its red threes count against it", {
                "variant": "german", "sides": [
                    {"melded_points": 150, "hand_points": -85, "red_threes": 2},
                    {"melded_points": 260, "hand_points": -40, "went_out": "hand",
                     "natural_canastas": 1, "mixed_canastas": 1}]}, 200),
        "impossible": Example(
            "An impossible tally: every problem with its JSON pointer", {
                "variant": "classic", "sides": [
                    {"melded_points": 40, "went_out": "plain", "red_threes": 3,
                     "natural_canastas": 1, "wild_canastas": 1},
                    {"melded_points": 95, "hand_points": 85, "went_out": "concealed",
                     "red_threes": 2}]}, 422),
    },
    "game": {
        "ledger": Example(
            "Three rounds: a tally, the final state of score's example, a tally that wins the "
            "game", {"variant": "classic", "options": {"players": 4}, "rounds": [
                {"tally": TALLY_ROUND_0},
                {"state": EXAMPLE_OVER_STATE},
                {"tally": {"sides": [
                    {"melded_points": 750, "went_out": "plain", "red_threes": 4,
                     "natural_canastas": 4, "mixed_canastas": 2},
                    {"melded_points": 100, "hand_points": -90}]}}]}, 200),
        "contradiction": Example(
            "A record that contradicts itself: a state whose game scores are not the running "
            "totals, and a deal not over", {"variant": "classic", "rounds": [
                {"tally": {"sides": [{"melded_points": 150, "mixed_canastas": 1,
                                      "went_out": "plain"}, {"melded_points": 60}]}},
                {"state": EXAMPLE_OVER_STATE},
                {"state": EXAMPLE_FULL_STATE}]}, 422),
    },
    "audit": {
        "game": Example("A deal that is over (its scores recorded, one game score wrongly) and "
                        "the next deal from its seed, whose fifth action is illegal",
                        EXAMPLE_LOG, 200),
        "hiddenCards": Example("A deal that starts from a player's view: its first draw needs "
                               "the stock's cards", {"deals": [
                                   {"state": EXAMPLE_STATE, "actions": [{"type": "draw"}]}]},
                               422),
        "rulesDiffer": Example("A German game whose deal starts from a classic state", {
            "variant": "german", "deals": [{"state": EXAMPLE_FULL_STATE}]}, 422),
    },
    "view": {
        "seat1": Example("The full table as seat 1 sees it", {"state": EXAMPLE_FULL_STATE,
                                                              "seat": 1}, 200),
        "noSuchSeat": Example("Four players have no seat 4", {"state": EXAMPLE_FULL_STATE,
                                                              "seat": 4}, 422),
    },
    "batch": {
        "three": Example("Three operations: legal actions, an illegal pickup checked, and a "
                         "score that needs hidden hands (its own 422)", {"operations": [
                             {"op": "legal-actions", "body": {"state": EXAMPLE_STATE}},
                             {"op": "check", "body": {
                                 "state": EXAMPLE_FULL_STATE,
                                 "actions": [{"type": "take-pile", "cards": ["9C", "9D"]}]}},
                             {"op": "score", "body": {"state": EXAMPLE_STATE}}]}, 200),
        "unknownOperation": Example("An operation a batch does not hold", {"operations": [
            {"op": "audit", "body": EXAMPLE_LOG}]}, 422),
    },
}


def _answer(op: str, example: Example) -> tuple[int, dict[str, Any]]:
    if op == "variant":
        return handlers.handle(op, None, "en", example.request)
    return handlers.handle(op, json.dumps(example.request).encode(), "en")


@functools.cache
def answers() -> dict[str, dict[str, tuple[int, dict[str, Any]]]]:
    """operation -> example name -> (status, answer), as the service gives them (English)."""
    out: dict[str, dict[str, tuple[int, dict[str, Any]]]] = {}
    for op, examples in REQUESTS.items():
        for name, example in examples.items():
            status, answer = _answer(op, example)
            # an engine change that alters an example's outcome must change the example too
            assert status == example.status, (op, name, status, answer)
            out.setdefault(op, {})[name] = (status, json.loads(json.dumps(answer)))
    out["variants"] = {"catalogue": (200, handlers.handle("variants", None)[1])}
    return out


def body_too_large(path: str = "") -> dict[str, Any]:
    """The 413 problem of a body over the default limit of ``path``: ``MAX_BODY_BYTES``, or
    the path's own (``Settings.body_limits``)."""
    settings = Settings()
    return _status_problem(413, limit=settings.body_limits.get(path, settings.max_body_bytes))


def _status_problem(status: int, **fmt: Any) -> dict[str, Any]:
    """The English problem document of an HTTP-level answer: the app's or the protocol's own
    (408, 431)."""
    answer: dict[str, Any] = json.loads(problem_body(status, "en", **fmt))
    return answer


def not_json(media: str = "text/plain") -> dict[str, Any]:
    """The 415 problem of a body sent with ``Content-Type: text/plain``."""
    return _status_problem(415, media=media)


def request_timeout() -> dict[str, Any]:
    """The 408 problem of a request whose line and headers did not arrive within the default
    ``HEADER_TIMEOUT``."""
    return _status_problem(408, seconds=Settings().header_timeout)


def headers_too_large() -> dict[str, Any]:
    """The 431 problem of a request line and headers over the default ``MAX_HEADER_BYTES``."""
    return _status_problem(431, limit=Settings().max_header_bytes)


def overloaded() -> dict[str, Any]:
    """The 503 problem of a request past ``MAX_IN_FLIGHT`` (or, for audits and batches,
    ``MAX_BULK_IN_FLIGHT``)."""
    return _status_problem(503, seconds=RETRY_AFTER)
