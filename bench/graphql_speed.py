"""GraphQL's own overhead, in process (issue 19): ms per query of ``legalActions`` on a
six-player classic play-phase state with 193 legal actions, typed and as ``actionsJson``,
next to baselines outside the GraphQL code in the same run.

    python bench/graphql_speed.py                 # a Markdown table
    python bench/graphql_speed.py --seconds 2 --json
    python bench/graphql_speed.py --compiled      # the wheel's build: compiled engine, native
                                                  # writer, reader and projector

Every request goes through the whole ASGI app in this process, without a server or a socket;
the legal-action list comes from the service's cache (one state). Rows: the two GraphQL shapes
answered from the cache of planned answers, from the plan (``service/graphql_fast.py``) with
that cache off (for the typed list where the native projector is installed, also the plan
completing it in Python, as an editable install does), and by strawberry's execution;
``POST /v1/legal-actions`` through the same app, and ``orjson.dumps`` of the same 193 action
dicts. Then the REST request and the two planned shapes with nothing cached (``CACHE_SIZE=0``):
each reads its state and lists its actions. Ratios are to the REST request of the same group.
Figures drift with the machine's load: compare the rows of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# bench/http.py must not shadow the standard library's `http`
ROOT = Path(__file__).resolve().parent.parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
if "--compiled" in sys.argv:  # before the package is imported: build/compiled's, not the checkout's
    from bench.compiled import ensure_built

    sys.path.insert(0, str(ensure_built()))

import orjson  # noqa: E402
from starlette.types import ASGIApp, Message  # noqa: E402

from canasta_referee.engine import rules_for, state_to_data  # noqa: E402
from canasta_referee.service import graphql as service_graphql  # noqa: E402
from canasta_referee.service.app import create_app  # noqa: E402
from canasta_referee.service.settings import Settings  # noqa: E402
from tests.playout import playout  # noqa: E402

TYPED = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
         "phase actions { type cards card rank } } ... on Problem { code } } }")
ACTIONS_JSON = TYPED.replace("actions { type cards card rank }", "actionsJson")
#: the two shapes timed, by name
SHAPES = (("typed actions { type cards card rank }", TYPED), ("actionsJson", ACTIONS_JSON))


def play_state() -> dict[str, Any]:
    """bench/http.py's state: six players, phase play, side 0 with three melds (193 actions)."""
    rules = rules_for("classic", {"players": 6})
    for seed in range(100):
        for state, _ in playout(rules, seed, check=False):
            data = state_to_data(state)
            data["scores"] = [0] * rules.sides
            if data["turn"]["phase"] == "play" and len(data["melds"][0]) >= 3:
                return data
    raise RuntimeError("no such state")


def poster(app: ASGIApp, path: str, body: bytes) -> Callable[[], Awaitable[bytes]]:
    """A POST of ``body`` to ``path`` through ``app``, returning the answer's body."""
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "headers": headers,
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}

    async def post() -> bytes:
        sent = False
        out: list[bytes] = []
        status = 0

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                out.append(message.get("body", b""))

        await app(dict(scope, state={}), receive, send)
        assert status == 200, (status, b"".join(out)[:300])
        return b"".join(out)

    return post


def per_call(fn: Callable[[], Any], seconds: float, loop: asyncio.AbstractEventLoop) -> float:
    """Milliseconds per call of ``fn`` (awaited, in one task, when it is a coroutine
    function), the best of five rounds of ``seconds / 5`` each (the least disturbed by other
    load)."""
    async def calls(n: int) -> None:
        for _ in range(n):
            await fn()

    def batch(n: int) -> None:
        if asyncio.iscoroutinefunction(fn):
            loop.run_until_complete(calls(n))
        else:
            for _ in range(n):
                fn()

    batch(1)
    best = float("inf")
    for _ in range(5):
        n, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds / 5:
            batch(20)
            n += 20
        best = min(best, (time.perf_counter() - started) / n * 1000)
    return best


def run(seconds: float) -> list[dict[str, Any]]:
    state = play_state()
    app = create_app(Settings(log_level="warning"))
    loop = asyncio.new_event_loop()
    rest = poster(app, "/v1/legal-actions", orjson.dumps({"state": state}))
    actions = orjson.loads(loop.run_until_complete(rest()))["actions"]
    assert len(actions) == 193, len(actions)
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("POST /v1/legal-actions (REST, same app)", rest),
        ("orjson.dumps of the 193 action dicts", lambda: orjson.dumps(actions)),
    ]
    for name, query in SHAPES:
        post = poster(app, "/graphql", orjson.dumps({"query": query, "variables": {"s": state}}))
        answer = orjson.loads(loop.run_until_complete(post()))
        assert "errors" not in answer and answer["data"]["legalActions"]["seat"] is not None
        view = app.graphql  # type: ignore[attr-defined]
        cases.append((f"GraphQL {name}, from the answer cache", post))
        cases.append((f"GraphQL {name}, planned (answer cache off)",
                      _switched(post, view, planned=True)))
        if query is TYPED and service_graphql.PROJECT is not None:
            cases.append((f"GraphQL {name}, planned, completed in Python (no projector)",
                          _without_projector(state, loop)))
        cases.append((f"GraphQL {name}, fast path off (strawberry)",
                      _switched(post, view, planned=False)))
    # nothing cached (CACHE_SIZE=0): every query reads its state and lists its actions
    missing = create_app(Settings(log_level="warning", cache_size=0))
    rest_miss = poster(missing, "/v1/legal-actions", orjson.dumps({"state": state}))
    misses: list[tuple[str, Callable[[], Any]]] = [
        ("POST /v1/legal-actions (REST, nothing cached)", rest_miss)]
    for name, query in SHAPES:
        misses.append((f"GraphQL {name}, planned, nothing cached",
                       planned(missing, query, state, loop)))
    rows = []
    for group in (cases, misses):  # each group's ratios to its REST request (its first row)
        timed = [{"case": name, "ms": per_call(fn, seconds, loop)} for name, fn in group]
        for row in timed:
            row["x_rest"] = row["ms"] / timed[0]["ms"]
        rows += timed
    return rows


def _without_projector(state: dict[str, Any],
                       loop: asyncio.AbstractEventLoop) -> Callable[[], Awaitable[bytes]]:
    """The typed query through an app of its own whose plan was made without the native
    projector (``service.graphql.PROJECT``), with the planned answers' cache off."""
    project = service_graphql.PROJECT
    app = create_app(Settings(log_level="warning"))
    service_graphql.PROJECT = None
    try:
        post = planned(app, TYPED, state, loop)
    finally:
        service_graphql.PROJECT = project
    return _switched(post, app.graphql, planned=True)  # type: ignore[attr-defined]


def planned(app: ASGIApp, query: str, state: dict[str, Any],
            loop: asyncio.AbstractEventLoop) -> Callable[[], Awaitable[bytes]]:
    """A POST of ``query`` with ``state`` through ``app``, sent twice already: validated by
    strawberry, then planned."""
    post = poster(app, "/graphql", orjson.dumps({"query": query, "variables": {"s": state}}))
    for _ in range(2):
        loop.run_until_complete(post())
    return post


def _switched(post: Callable[[], Awaitable[bytes]], view: Any,
              planned: bool) -> Callable[[], Awaitable[bytes]]:
    """``post`` with the planned answers' cache off, and the plans too unless ``planned``
    (every document then planned as None: strawberry answers)."""
    async def switched() -> bytes:
        fast = service_graphql._Parsed.fast
        view.cached = False
        if not planned:
            service_graphql._Parsed.fast = lambda self: None  # type: ignore[method-assign]
        try:
            return await post()
        finally:
            service_graphql._Parsed.fast = fast  # type: ignore[method-assign]
            view.cached = True

    return switched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per case")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--compiled", action="store_true",
                        help="run the wheel's build (build/compiled, built by bench/compiled.py "
                             "when missing): compiled engine, native writer, reader, projector")
    args = parser.parse_args()
    rows = run(args.seconds)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    from canasta_referee.engine import BUILD
    from canasta_referee.schema.text import WRITER

    print(f"engine {BUILD}, writer {WRITER}, projector "
          f"{'native' if service_graphql.PROJECT is not None else 'none'}\n")
    print("| in process, 193 legal actions | ms per query | x REST |")
    print("|---|---:|---:|")
    for row in rows:
        print(f"| {row['case']} | {row['ms']:.3f} | {row['x_rest']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
