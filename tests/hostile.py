"""Requests that cost the service memory (issue 17): shared by tests/test_memory_attack.py and
bench/attack.py. Each kind takes a number that becomes the state's first score, so every
request is a new cache key (scores are any integer in -1,000,000..1,000,000)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import orjson

from canasta_referee.schema.models import EXAMPLE_STATE

Data = dict[str, Any]


@functools.cache
def absurd_state() -> Data:
    """A 152 KB state of four-player classic with 40 melds and 20 pending melds of 500 cards
    each, every card the wrong rank: 30,061 problems (``MELD_RANK_MISMATCH`` per card); its
    full problem list was a 3.2 MB answer."""
    wrong = {"rank": "K", "cards": ["QS"] * 500}
    return {**EXAMPLE_STATE, "melds": [[wrong] * 20, [wrong] * 20],
            "turn": {**EXAMPLE_STATE["turn"], "pending": [wrong] * 20}}


@functools.cache
def big_hand_state() -> Data:
    """A valid six-player classic state (three packs, 162 cards) in phase play whose seat to
    move holds 150 of them (1,188 legal actions, an answer of 105 KB; a request of 1 KB)."""
    from .builders import PLAY, table

    return table(stock=[], rest_to=0, filler=1, turn=PLAY, options={"players": 6},
                 discard=["4S"])


@functools.cache
def full_hand_state() -> Data:
    """A valid four-player classic state in phase play whose seat to move holds 100 of the 108
    cards: 771 legal actions (under MAX_LEGAL_ACTIONS), an answer of 60 KB from a request of
    0.8 KB; each a new cache key, these fill the in-process tier fastest."""
    from .builders import PLAY, table

    return table(stock=[], rest_to=0, filler=1, turn=PLAY, discard=["4S"])


@functools.cache
def malformed_state() -> Data:
    """A state of 34,000 card codes that are none ("XX"), a request of 171 KB (the wire's
    bounds allow no more cards in one state): a MALFORMED_REQUEST whose errors pydantic
    lists, about 40 MB while the request is answered, the largest passing allocation of any
    request."""
    bad = {"rank": "K", "cards": ["XX"] * 500}
    return {**EXAMPLE_STATE, "hands": [["XX"] * 500] * 8, "melds": [[bad] * 20, [bad] * 20],
            "turn": {**EXAMPLE_STATE["turn"], "pending": [bad] * 20}}


def _scored(state: Data, n: int) -> Data:
    return {**state, "scores": [n % 1_000_000, *state["scores"][1:]]}


def validate_absurd(n: int) -> tuple[str, bytes]:
    return "/v1/validate", orjson.dumps({"state": _scored(absurd_state(), n)})


def legal_actions_absurd(n: int) -> tuple[str, bytes]:
    """The absurd state for legal-actions: a 422 INVALID_STATE listing its problems."""
    return "/v1/legal-actions", orjson.dumps({"state": _scored(absurd_state(), n)})


def legal_actions_big_hand(n: int) -> tuple[str, bytes]:
    return "/v1/legal-actions", orjson.dumps({"state": _scored(big_hand_state(), n)})


def legal_actions_full_hand(n: int) -> tuple[str, bytes]:
    return "/v1/legal-actions", orjson.dumps({"state": _scored(full_hand_state(), n)})


def validate_malformed(n: int) -> tuple[str, bytes]:
    return "/v1/validate", orjson.dumps({"state": _scored(malformed_state(), n)})


def graphql_validate_absurd(n: int) -> tuple[str, bytes]:
    query = "query($s: JSON!) { validate(state: $s) { __typename } }"
    return "/graphql", orjson.dumps({"query": query,
                                     "variables": {"s": _scored(absurd_state(), n)}})


def batch_big_answers(n: int) -> tuple[str, bytes]:
    """A batch of 256 validate operations on states of 400 bad card codes each (0.6 MB):
    their answers would be 2.2 MB, past MAX_BULK_ANSWER_BYTES (422 ANSWER_TOO_LARGE)."""
    state = _scored({**EXAMPLE_STATE, "hands": [["XX"] * 100] * 4}, n)
    return "/v1/batch", orjson.dumps(
        {"operations": [{"op": "validate", "body": {"state": state}}] * 256})


@functools.cache
def _game_log() -> Data:
    from canasta_referee.engine import rules_for

    from .games import game

    return game(rules_for("classic"), 1).log


def audit_padded(n: int) -> tuple[str, bytes]:
    """A whole game's log (667 actions, 26.5 KB) padded with spaces to 2 MB, just under
    MAX_AUDIT_BODY_BYTES: the largest body any request may have."""
    log = orjson.dumps({**_game_log(), "scores": [n % 1_000_000, 0]})
    return "/v1/audit", log[:-1] + b" " * (2 * 1024 * 1024 - 64 - len(log)) + b"}"


KINDS: dict[str, Callable[[int], tuple[str, bytes]]] = {
    "validate-absurd": validate_absurd,
    "legal-actions-absurd": legal_actions_absurd,
    "legal-actions-big-hand": legal_actions_big_hand,
    "legal-actions-full-hand": legal_actions_full_hand,
    "validate-malformed": validate_malformed,
    "graphql-validate-absurd": graphql_validate_absurd,
    "batch-big-answers": batch_big_answers,
    "audit-padded": audit_padded,
}


def rss_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` (now) and ``VmHWM`` (the most so far) of a process, in KiB (Linux /proc)."""
    out = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                out[name] = int(value.split()[0])
    return out
