"""The GraphQL fast path (``service/graphql_fast.py``) answers ``legalActions`` byte for byte as
strawberry's own execution does: typed lists (completed in Python, or written from the REST
answer's text by the native projector of schema/_project.c), ``actionsJson``, aliases, fragments,
``__typename``, variables, problems, German; and what it does not cover (directives, a missing
variable, another operation's name, a value a scalar refuses) strawberry still answers, errors
and all. Each answer over the ASGI app is compared with ``schema.execute`` run directly."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import hypothesis
import orjson
import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from starlette.testclient import TestClient
from strawberry.http import process_result

from canasta_referee import engine
from canasta_referee.engine.cards import parse_card
from canasta_referee.schema import canonical, models
from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service import graphql as service_graphql
from canasta_referee.service import graphql_cost, graphql_fast
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import Settings
from tests import memcheck
from tests.explore import examples
from tests.playout import playout

HOT = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
       "phase actions { type cards card rank } } ... on Problem { code } } }")
EVERYTHING = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { "
              "seat phase actions { __typename type seat cards card rank allow } actionsJson } "
              "... on Problem { status code detail problems { code path message } more "
              "reason { code message rule } index } } }")


@pytest.fixture(scope="module", params=["python", "native"])
def http(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app with typed lists of actions completed in Python (as an editable install runs),
    then written by the native projector (schema/_project.c, as a wheel's install runs: built
    here from the checkout) and requests read by the native reader; ``app.state.projected``
    counts the lists it wrote with the REST answer's templates (``typed_templates`` works
    those out by projecting without them)."""
    projected: list[int] = []
    with pytest.MonkeyPatch.context() as m:
        if request.param == "native":
            module = memcheck.native_module(tmp_path_factory.mktemp("native"))
            native = module.project

            def project(text: bytes, fields: Any, shape: int, *templates: Any) -> bytes:
                answer: bytes = native(text, fields, shape, *templates)
                if templates:
                    projected.append(len(fields))
                return answer

            m.setattr(service_graphql, "PROJECT", project)
            # typed lists computed here written straight from the engine's list
            m.setattr(service_graphql, "ACTIONS_TEXT", module.actions_text)
            # requests in canonical form read by the native reader (schema/_read.c), as a
            # wheel's install reads them; else by the msgspec structs
            module.set_cards({code: parse_card(code) for code in models.CANONICAL_CARDS})
            m.setattr(canonical, "engine_request", functools.partial(
                canonical.engine_request, native=module.read_request))
        else:
            m.setattr(service_graphql, "PROJECT", None)
            m.setattr(service_graphql, "ACTIONS_TEXT", None)
        with TestClient(create_app(Settings(log_level="warning")),
                        raise_server_exceptions=False) as c:
            c.app.state.projected = projected  # type: ignore[attr-defined]
            yield c


@pytest.fixture(scope="module")
def six() -> dict[str, Any]:
    """A six-player classic state mid-deal with 193 legal actions (bench/http.py's)."""
    rules = engine.rules_for("classic", {"players": 6})
    for seed in range(100):
        for state, listed in playout(rules, seed, check=False):
            data = engine.state_to_data(state)
            data["scores"] = [0] * rules.sides
            if data["turn"]["phase"] == "play" and len(data["melds"][0]) >= 3:
                assert len(listed) == 193
                return data
    raise AssertionError("no such state")


@pytest.fixture
def executions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The queries strawberry's ``schema.execute`` ran (the fast path runs none)."""
    ran: list[str] = []
    original = service_graphql.schema.execute

    async def execute(query: str | None, *args: Any, **kwargs: Any) -> Any:
        ran.append(query or "")
        return await original(query, *args, **kwargs)

    monkeypatch.setattr(service_graphql.schema, "execute", execute)
    return ran


def strawberry_bytes(http: TestClient, query: str, variables: dict[str, Any] | None,
                     lang: str = "en", operation_name: str | None = None) -> bytes:
    """The answer strawberry's own execution gives, encoded as the view encodes it."""
    context = {"svc": http.app.state.svc, "lang": lang}  # type: ignore[attr-defined]
    result = asyncio.run(service_graphql.schema.execute(
        query, variable_values=variables, context_value=context, operation_name=operation_name))
    return orjson.dumps(process_result(result))


def post(http: TestClient, query: str, variables: dict[str, Any] | None, lang: str = "en",
         operation_name: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"query": query, "variables": variables}
    if operation_name is not None:
        body["operationName"] = operation_name
    r = http.post("/graphql", content=json.dumps(body).encode(),  # orjson: 254 levels
                  headers={"content-type": "application/json", "accept-language": lang})
    assert r.status_code == 200, r.text[:300]
    assert r.headers["content-language"] == lang
    return r


@contextlib.contextmanager
def fast_path_off(http: TestClient) -> Iterator[None]:
    """No plans (strawberry answers every document) and no planned answers cached."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(service_graphql._Parsed, "fast", lambda self: None)
        m.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
        yield


def same(http: TestClient, executions: list[str], query: str,
         variables: dict[str, Any] | None, lang: str = "en", fast: bool = True,
         operation_name: str | None = None) -> dict[str, Any]:
    """The query answered three times: the first validates it; the second (``fast``: not
    through strawberry) is the third's answer, with the fast path off, to the byte, headers
    and all, and the answer of strawberry's ``schema.execute``."""
    post(http, query, variables, lang, operation_name)
    before = len(executions)
    answer = post(http, query, variables, lang, operation_name)
    assert (len(executions) == before) is fast, "fast path" if fast else "strawberry"
    with fast_path_off(http):
        slow = post(http, query, variables, lang, operation_name)
    assert len(executions) == before + 1 + (not fast)
    assert answer.content == slow.content
    assert answer.headers.multi_items() == slow.headers.multi_items()
    assert answer.content == strawberry_bytes(http, query, variables, lang, operation_name)
    parsed: dict[str, Any] = orjson.loads(answer.content)
    return parsed


def test_templates_are_kept_for_a_bounded_number_of_selections(
        http: TestClient, executions: list[str], six: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Selections past ``TYPED_KEPT`` are planned without templates (nothing more kept), and
    their typed lists are projected all the same, as strawberry answers them."""
    projected: list[int] = http.app.state.projected  # type: ignore[attr-defined]
    monkeypatch.setattr(graphql_fast, "TYPED_KEPT", len(graphql_fast.TYPED))
    kept, before = dict(graphql_fast.TYPED), len(projected)
    query = HOT.replace("actions { type cards card rank }", "actions { rank kept: cards }")
    d = same(http, executions, query, {"s": six})["data"]["legalActions"]
    assert list(d["actions"][0]) == ["rank", "kept"] and len(d["actions"]) == 193
    assert kept == graphql_fast.TYPED and len(projected) == before  # projected, no templates
    monkeypatch.setattr(graphql_fast, "TYPED_KEPT", len(kept) + 1)
    query = query.replace("kept: cards", "held: cards")
    same(http, executions, query, {"s": six})
    assert len(graphql_fast.TYPED) == len(kept) + (service_graphql.PROJECT is not None)
    assert (len(projected) > before) is (service_graphql.PROJECT is not None)


def test_the_hot_query_and_actions_json(http: TestClient, executions: list[str],
                                        six: dict[str, Any]) -> None:
    projected: list[int] = http.app.state.projected  # type: ignore[attr-defined]
    before = len(projected)
    for lang in ("en", "de"):
        d = same(http, executions, HOT, {"s": six}, lang)["data"]["legalActions"]
        assert d["__typename"] == "LegalActions" and len(d["actions"]) == 193
        assert list(d["actions"][0]) == ["type", "cards", "card", "rank"]
        d = same(http, executions, HOT.replace("actions { type cards card rank }",
                                               "actionsJson"), {"s": six}, lang)
        assert len(d["data"]["legalActions"]["actionsJson"]) == 193
        same(http, executions, EVERYTHING, {"s": six}, lang)
    # the typed lists were written by the native projector (when installed) with the REST
    # answer's templates: 4 fields of the hot query, 7 of EVERYTHING, in both languages
    assert {*projected[before:]} == ({4, 7} if service_graphql.PROJECT is not None else set())


def spy(monkeypatch: pytest.MonkeyPatch, name: str, record: Callable[..., Any]) -> list[Any]:
    """The calls of ``service.graphql``'s function ``name`` from now on, each as ``record``
    makes it of the call's arguments; the function still runs."""
    calls: list[Any] = []
    original = getattr(service_graphql, name)

    def spied(*args: Any) -> Any:
        calls.append(record(*args))
        return original(*args)

    monkeypatch.setattr(service_graphql, name, spied)
    return calls


#: the REST answer of the GraphQL resolvers, as the module has it
ANSWERED = service_graphql._answered


def answer_with(monkeypatch: pytest.MonkeyPatch,
                answered: Callable[..., Awaitable[tuple[int, bytes]]]) -> None:
    """The REST answers of the resolvers and of the plans (``_planned_answer``: else the
    engine's answer, unrendered, where it computes one) given by ``answered``."""
    monkeypatch.setattr(service_graphql, "_answered", answered)
    monkeypatch.setattr(service_graphql, "_planned_answer", answered)


def relaid(how: Callable[[dict[str, Any]], dict[str, Any]], status: int | None = None
           ) -> Callable[..., Awaitable[tuple[int, bytes]]]:
    """``_answered`` with its REST answer read, changed by ``how`` and written again, its status
    ``status`` where one is given."""
    async def answered(context: dict[str, Any], state: Any) -> tuple[int, bytes]:
        got, content = await ANSWERED(context, state)
        return got if status is None else status, orjson.dumps(how(orjson.loads(content)))

    return answered


@pytest.fixture
def made(http: TestClient, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The statuses of the REST answers a ``legalActions`` value was made of (the answer
    written straight from the REST answer's text makes none); the planned answers' cache off."""
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    return spy(monkeypatch, "_legal_actions_of", lambda status, content: status)


ACTIONS_JSON = HOT.replace("actions { type cards card rank }", "actionsJson")


def test_a_successful_answer_is_written_from_the_rest_answer_s_text(
        http: TestClient, executions: list[str], six: dict[str, Any], made: list[int]) -> None:
    """Where what a query selects of ``LegalActions`` is the REST answer's seat, phase and
    actions' text (``actionsJson``; a typed list where the native projector writes it), a
    successful answer is written from that text, no value made; a problem, and a typed list
    without the projector, are made into values and completed."""
    problem = {**six, "dealer": 9}
    typed = [200] if service_graphql.PROJECT is None else []
    for query, variables, values in ((ACTIONS_JSON, {"s": six}, []), (HOT, {"s": six}, typed),
                                     (EVERYTHING, {"s": six}, typed),
                                     (ACTIONS_JSON, {"s": problem}, [422])):
        post(http, query, variables)  # validated (by strawberry, the first time)
        made.clear()
        before = len(executions)
        post(http, query, variables)
        assert len(executions) == before and made == values, query


def test_an_answer_laid_out_otherwise_is_completed_as_a_value(
        http: TestClient, executions: list[str], six: dict[str, Any], made: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A REST answer not laid out as the text writer reads it (its keys in another order, a
    key after the actions) is made into a value and completed: the same answer as
    strawberry's. One whose status is not 200 is never written as ``LegalActions``."""
    for how in (lambda d: {"phase": d["phase"], "seat": d["seat"], "actions": d["actions"]},
                lambda d: {**d, "next": 1}):
        answer_with(monkeypatch, relaid(how))
        for query in (ACTIONS_JSON, HOT, EVERYTHING):
            post(http, query, {"s": six})  # validated (by strawberry, the first time)
            made.clear()
            before = len(executions)
            post(http, query, {"s": six})
            assert len(executions) == before and made == [200], query
            same(http, executions, query, {"s": six})
    answer_with(monkeypatch, relaid(lambda d: d, status=422))
    assert same(http, executions, ACTIONS_JSON, {"s": six}, fast=False)["errors"]


def test_aliases_fragments_and_typename(http: TestClient, executions: list[str],
                                        six: dict[str, Any]) -> None:
    queries = [
        # aliases at every level, __typename aliased, the root's __typename
        "query Q($s: JSON!) { t: __typename la: legalActions(state: $s) { __typename "
        "... on LegalActions { who: seat acts: actions { what: type c: cards t: __typename } "
        "actionsJson } } __typename }",
        # named fragments on the union, on a member and on Action; one spread twice; a
        # fragment spread inside an inline fragment; fields repeated and merged
        "query($s: JSON!) { legalActions(state: $s) { ...R ...R ... on LegalActions { "
        "actions { card } actions { ...A type } seat } } } "
        "fragment R on LegalActionsResult { __typename ... on LegalActions { phase ...L } "
        "... on Problem { ...P } } fragment L on LegalActions { seat actions { rank } } "
        "fragment A on Action { cards rank type } fragment P on Problem { code detail }",
        # one field of every action under seven aliases (its text written eight times)
        "query($s: JSON!) { legalActions(state: $s) { ... on LegalActions { actions { "
        "a: cards b: cards c: cards d: cards e: cards f: cards g: cards cards } } } }",
        # an inline fragment without a type condition, on the union itself
        "query($s: JSON!) { legalActions(state: $s) { ... { __typename } "
        "... on LegalActionsResult { ... on LegalActions { actionsJson } } } }",
        # two root fields on two variables
        "query($s: JSON!, $t: JSON!) { a: legalActions(state: $s) { __typename } "
        "b: legalActions(state: $t) { __typename ... on LegalActions { seat phase } } }",
        # one variable twice
        "query($s: JSON!) { a: legalActions(state: $s) { __typename } "
        "b: legalActions(state: $s) { __typename ... on LegalActions { phase } } }",
    ]
    variables = {"s": six, "t": EXAMPLE_STATE}
    for query in queries:
        d = same(http, executions, query, variables)
        assert "errors" not in d
    d = same(http, executions, queries[0], variables, operation_name="Q")["data"]
    assert list(d) == ["t", "la", "__typename"] and d["t"] == "Query"
    assert d["la"]["acts"][0]["t"] == "Action"


def test_problems_in_english_and_german(http: TestClient, executions: list[str]) -> None:
    bad = copy.deepcopy(EXAMPLE_STATE)
    bad["hands"][0][0] = "1X"
    deep = orjson.loads(b"[" * 300 + b"]" * 300)
    wrong_variant = copy.deepcopy(EXAMPLE_STATE)
    wrong_variant["variant"] = "bridge"
    for lang in ("en", "de"):
        for state in (bad, deep, wrong_variant, {}, "a string", 7):
            d = same(http, executions, EVERYTHING, {"s": state}, lang)
            assert d["data"]["legalActions"]["__typename"] == "Problem"


def test_every_action_field_over_played_deals(http: TestClient, executions: list[str]) -> None:
    """Draws, melds, discards, asks (seat) and answers (seat, allow): states of a few
    four-player deals, and after each ask the partner's answer to give."""
    kinds: set[str] = set()
    for seed in range(2, 4):
        for i, (state, listed) in enumerate(playout(engine.rules_for("classic", {}), seed,
                                                    check=False)):
            asks = any(a.kind == "ask" for a in listed)
            if i % 7 and not asks:
                continue
            data = engine.state_to_data(state)
            states = [data]
            if asks:
                r = http.post("/v1/legal-actions", json={"state": data}).json()
                action = next(a for a in r["actions"] if a["type"] == "ask")
                states.append(http.post("/v1/apply", json={"state": data,
                                                           "actions": [action]}).json()["state"])
            for s in states:
                d = same(http, executions, EVERYTHING, {"s": s})
                kinds.update(a["type"] for a in d["data"]["legalActions"]["actions"] or ())
    assert {"draw", "meld", "discard", "ask", "answer"} <= kinds


@pytest.fixture(scope="module")
def uncached(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The app with nothing cached (``CACHE_SIZE=0``) and the native writer and projector built
    from the checkout: every planned ``legalActions`` is computed by the engine and its typed
    list written straight from the engine's list (``text.typed_writer``)."""
    module = memcheck.native_module(tmp_path_factory.mktemp("native"))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(service_graphql, "PROJECT", module.project)
        m.setattr(service_graphql, "ACTIONS_TEXT", module.actions_text)
        with TestClient(create_app(Settings(log_level="warning", cache_size=0)),
                        raise_server_exceptions=False) as c:
            yield c


def test_typed_lists_computed_here_are_written_from_the_engine_s_list(
        uncached: TestClient, executions: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing cached: a planned answer's typed list is written from the engine's
    ``LegalActions`` (no REST text made and projected for it), byte for byte as strawberry
    writes it: states of every variant's playouts; the hot query, every field (``actionsJson``
    beside), constants and aliases around the cards, in English and German. A selection the
    writer declines (the cards not read) is projected from the REST text as before."""
    from tests.test_properties import CONFIGS

    written: list[bool] = []
    listed = service_graphql._Unrendered.listed

    def spied(self: Any, name: str, write: Any) -> bytes | None:
        text = listed(self, name, write)
        written.append(text is not None)
        return text

    monkeypatch.setattr(service_graphql._Unrendered, "listed", spied)
    typed = "actions { type cards card rank }"
    queries = [HOT, EVERYTHING,
               HOT.replace(typed, "n: __typename a: actions { t: __typename cards c: card type }"),
               HOT.replace(typed, "actions { rank type }")]
    sizes = []
    for n, (variant, options) in enumerate(CONFIGS):
        for i, (state, actions) in enumerate(playout(engine.rules_for(variant, options), 3,
                                                     check=False)):
            if i % 40 == 0:
                sizes.append(len(actions))
                for query in queries:
                    same(uncached, executions, query, {"s": engine.state_to_data(state)},
                         "de" if n % 2 else "en")
    assert written.count(True) >= 3 * len(sizes) // 2 and max(sizes) > 50, sizes
    assert written.count(False) >= len(sizes)


def test_what_the_fast_path_leaves_to_strawberry(http: TestClient, executions: list[str],
                                                  six: dict[str, Any]) -> None:
    skip = ("query($s: JSON!, $x: Boolean!) { legalActions(state: $s) { __typename "
            "... on LegalActions { seat @skip(if: $x) } } }")
    for x in (True, False):
        same(http, executions, skip, {"s": six, "x": x}, fast=False)
    missing = "query($s: JSON!) { legalActions(state: $s) { __typename } }"
    assert same(http, executions, missing, None, fast=False)["errors"]
    nullable = "query($s: JSON) { legalActions(state: $s) { __typename } }"
    assert same(http, executions, nullable, {"s": None}, fast=False)["errors"]
    literal = "{ legalActions(state: {hands: []}) { __typename } }"
    same(http, executions, literal, None, fast=False)
    other = "query($s: JSON!) { legalActions(state: $s) { __typename } variants { id } }"
    same(http, executions, other, {"s": six}, fast=False)
    two = "query A($s: JSON!) { legalActions(state: $s) { __typename } } query B { __typename }"
    same(http, executions, two, {"s": six}, fast=False, operation_name="A")
    named = "query A($s: JSON!) { legalActions(state: $s) { __typename } }"
    same(http, executions, named, {"s": six}, operation_name="A")
    before = len(executions)
    for _ in range(2):  # an unknown operation: strawberry's 400, as a problem document
        r = http.post("/graphql", json={"query": named, "variables": {"s": six},
                                        "operationName": "B"})
        assert r.status_code == 400 and r.json()["code"] == "BAD_GRAPHQL_REQUEST"
    assert len(executions) == before + 2
    for invalid in ("query($s: JSON!) { legalActions(state: $s) { seat } }",
                    "query($s: JSON!, $u: JSON) { legalActions(state: $s) { __typename } }"):
        assert same(http, executions, invalid, {"s": six}, fast=False)["errors"]


def test_a_value_the_schema_refuses_goes_to_strawberry(
        http: TestClient, executions: list[str], six: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An action without a type (non-null) or with a card that is no string: the plan gives
    up, and strawberry answers with its errors (the planned answers' cache off: it would
    answer these bodies as they were answered before the resolver broke)."""
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    for broken in ({"card": "5H"}, {"type": "discard", "card": ["5H"]}):
        answer_with(monkeypatch, relaid(
            lambda d, broken=broken: {**d, "actions": [*d["actions"][:2], broken]}))
        d = same(http, executions, EVERYTHING, {"s": six}, fast=False)
        assert d["errors"]


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The states the GraphQL resolvers wrote again as a REST body (``_rendered``): a state
    the fast path read straight from the body's text (``_read_body``) is not among them."""
    written: list[object] = []
    original = service_graphql._rendered

    async def rendered(context: dict[str, Any], op: str, body: object) -> tuple[int, bytes]:
        written.append(body)
        return await original(context, op, body)

    monkeypatch.setattr(service_graphql, "_rendered", rendered)
    return written


TWO = ("query($a: JSON!, $b: JSON!) { a: legalActions(state: $a) { __typename ... on "
       "LegalActions { seat actionsJson } ... on Problem { code } } b: legalActions(state: $b) { "
       "__typename ... on LegalActions { phase actions { type card } } ... on Problem { code } } }")


def test_a_state_in_canonical_form_is_read_once_from_the_body(
        http: TestClient, executions: list[str], six: dict[str, Any], rendered: list[object],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path reads such a state from the body's text straight into the engine's data
    (the REST reader's), instead of into dicts written again as a REST body; the answers are
    strawberry's, spaced or compact, one state or two."""
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    drawn = copy.deepcopy(six)
    drawn["turn"]["phase"] = "draw"
    for query, variables in ((HOT, {"s": six}), (TWO, {"a": six, "b": drawn})):
        post(http, query, variables)  # strawberry's, validating the document
        for body in (json.dumps({"query": query, "variables": variables}).encode(),
                     orjson.dumps({"query": query, "variables": variables})):
            before, written = len(executions), len(rendered)
            r = http.post("/graphql", content=body, headers={"content-type": "application/json"})
            assert (len(executions), len(rendered)) == (before, written)
            assert r.content == strawberry_bytes(http, query, variables)


def _dealer_as_float(state: dict[str, Any]) -> dict[str, Any]:
    return {**state, "dealer": float(state["dealer"])}  # 2.0: the models take it, not canonical


@pytest.mark.parametrize(("query", "variables"), [
    (TWO, lambda six: {"a": six, "b": six}),  # the same text twice: which one is whose?
    (HOT, lambda six: {"s": _dealer_as_float(six)}),
    (HOT, lambda six: {"s": {**six, "variant": "cl\u00e4ssic"}}),  # not ASCII (as UTF-8)
    (HOT, lambda six: {"s": {"hands": [], "turn": {}}}),  # too short to be worth it
])
def test_other_states_are_read_as_before(http: TestClient, executions: list[str],
                                         six: dict[str, Any], rendered: list[object],
                                         query: str, variables: Any,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A state the REST reader does not take in canonical form, or one the fast path cannot
    tell apart in the body, is read with the rest of it and written again as before (by the
    plan all the same); the answers are strawberry's."""
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    values = variables(six)
    body = orjson.dumps({"query": query, "variables": values})  # UTF-8, not \u escapes
    post(http, query, values)
    before, written = len(executions), len(rendered)
    r = http.post("/graphql", content=body, headers={"content-type": "application/json"})
    assert (len(executions), len(rendered)) == (before, written + len(values))
    assert r.content == strawberry_bytes(http, query, values)
    same(http, executions, query, values)


def test_bodies_with_equal_keys_or_text_orjson_refuses(http: TestClient, six: dict[str, Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A body read in parts (``_read_body``) is refused where orjson refuses the whole (a
    number past a double, bytes that are no UTF-8, in a part the state's reader never sees,
    as the first of two equal keys), and takes the last of equal keys as orjson does: the
    same status and bytes as with the fast path off."""
    post(http, HOT, {"s": six})
    state = orjson.dumps(six).decode()
    other = orjson.dumps({**six, "dealer": 7}).decode()  # six players: no seat 7
    query = json.dumps(HOT)
    bodies = [
        f'{{"query":{query},"variables":{{"s":1e400}},"variables":{{"s":{state}}}}}',
        f'{{"query":{query},"x":"<0xff>","variables":{{"s":{state}}}}}',
        f'{{"query":{query},"variables":{{"s":{other}}},"variables":{{"s":{state}}}}}',
        f'{{"query":{query},"variables":{{"s":{other},"s":{state}}}}}',
        f'{{"query":{query},"variables":{{"s":{state},"s":{other}}}}}',
    ]
    answers = []
    for body in bodies:
        raw = body.encode().replace(b"<0xff>", bytes([0xFF]))  # no UTF-8
        fast = http.post("/graphql", content=raw, headers={"content-type": "application/json"})
        with fast_path_off(http):
            slow = http.post("/graphql", content=raw,
                             headers={"content-type": "application/json"})
        assert (fast.status_code, fast.content) == (slow.status_code, slow.content), body[:80]
        answers.append(fast)
    assert [a.status_code for a in answers] == [400, 400, 200, 200, 200]
    kinds = [a.json()["data"]["legalActions"]["__typename"] for a in answers[2:]]
    assert kinds == ["LegalActions", "LegalActions", "Problem"]


NAMED = HOT.replace("query(", "query Hot(")
#: the same over lines, with a comment: its JSON text has escapes (line feeds, a '\')
NAMED_LINES = "# a \\ b\n" + NAMED.replace(" { ", "\n  { ")
#: with a '"' (in a comment): its JSON text has an escaped '"'
NAMED_QUOTED = '# say "hi"\n' + NAMED


def as_json(read: Callable[[bytes], Any], raw: bytes) -> Any:
    """``read(raw)`` with each state read apart (a ``ReadState``) taken back to the JSON it was
    read from; the name of the exception where it raises one."""
    try:
        body = read(raw)
    except Exception as exc:  # noqa: BLE001 (which one is compared)
        return type(exc).__name__
    variables = body.get("variables") if isinstance(body, dict) else None
    for name, value in (variables if isinstance(variables, dict) else {}).items():
        if isinstance(value, graphql_cost.ReadState):
            variables[name] = orjson.loads(value.body)["state"]
    return body


@pytest.mark.parametrize("layout", [
    '{{"query":{query},"variables":{{"s":{state}}}}}',
    '{{"variables":{{"s":{state}}},"query":{query}}}',
    '{{"operationName":"Hot","query":{query},"variables":{{"s":{state}}}}}',
    '{{"operationName":null,"variables":{{"s":{state}}},"query":{query}}}',  # Apollo's order
    '{{"query":{query},"variables":{{"s":{state}}},"operationName":"Hot"}}',
])
@pytest.mark.parametrize("query", [NAMED, NAMED_LINES])
def test_the_usual_body_is_split_by_its_layout(
        http: TestClient, executions: list[str], six: dict[str, Any], rendered: list[object],
        layout: str, query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The body clients mostly send, compact, the state its one variable, the query and the
    operation's name before or after the variables: split by its layout (``_read_usual``),
    the state's text never searched for (``_place``) and read straight into the engine's
    data; the answers are strawberry's."""
    searched: list[bytes] = spy(monkeypatch, "_place", lambda raw, text: text)
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    post(http, query, {"s": six})  # validated and planned
    searched.clear()
    raw = layout.format(query=json.dumps(query), state=orjson.dumps(six).decode()).encode()
    before, written = len(executions), len(rendered)
    r = http.post("/graphql", content=raw, headers={"content-type": "application/json"})
    assert (len(executions), len(rendered), searched) == (before, written, [])
    assert as_json(service_graphql._read_body, raw) == orjson.loads(raw)
    assert r.content == strawberry_bytes(http, query, {"s": six}, operation_name="Hot")


@pytest.mark.parametrize("layout", [
    '{{"query":{query},"variables":{{"s":{state}}},"extensions":{{}}}}',  # ends '}}' all the same
    '{{"query":{query},"variables":{{"s":{state},"t":{{}}}}}}',
    # a variable more named as the REST body's one member: the REST reader must not take the
    # two texts as one request, the later state in it winning
    '{{"query":{query},"variables":{{"s":{state},"state":{other}}}}}',
    '{{"variables":{{"s":{state},"state":{other}}},"query":{query}}}',
    '{{"query":{query},"variables":{{"s":{state}}}}} ',
    '{{"query":{query},"variables":{{"s":{state}}},"variables":{{"s":{other}}}}}',
    '{{"query":{query},"variables":{{"s":{state}}},"variables":null}}',
    '{{"variables":{{"s":{state}}},"operationName":null,"variables":{{"s":{other}}},'
    '"query":{query}}}',
    '{{"query":{query},"variables":{{"s":{state}}},"operationName":"x\\"}},\\"{{"}}',
    '{{"query":{query},"variables":{{"s":{state}}},"query":"{{ x }}"}}',
    '{{"query":"\\x","variables":{{"s":{state}}}}}',  # not JSON: an unknown escape
    '{{"query":"\n","variables":{{"s":{state}}}}}',  # not JSON: a raw line feed
    '{{"query":{query},"variables":{{"s":{state}}},"query":"\\"}}',  # an escape left open
    # an escaped '"' ends a string early for the patterns: a valid body is not taken...
    '{{"query":{quoted},"variables":{{"s":{state}}}}}',
    '{{"variables":{{"s":{state}}},"query":{quoted}}}',
    '{{"query":"a\\","variables":{{"s":{state}}}}}',  # ...one not JSON refused in the head
    '{{"variables":{{"s":{state}}},"query":"a\\"}}',  # ...or in the tail
])
def test_bodies_near_the_usual_layout_are_read_as_orjson_reads_them(
        http: TestClient, six: dict[str, Any], layout: str) -> None:
    """Bodies that the usual layout's patterns match in part (a member or a variable more
    after the state, text after the body, equal keys, escapes, text that is not JSON) are
    read as orjson reads them (``_read_body``, a state read apart taken back to its JSON) and
    answer as with the fast path off: the same status and bytes."""
    post(http, HOT, {"s": six})
    raw = layout.format(query=json.dumps(HOT), state=orjson.dumps(six).decode(),
                        other=orjson.dumps({**six, "dealer": 7}).decode(),
                        quoted=json.dumps(NAMED_QUOTED)).encode()
    assert as_json(service_graphql._read_body, raw) == as_json(orjson.loads, raw), layout
    fast = http.post("/graphql", content=raw, headers={"content-type": "application/json"})
    with fast_path_off(http):
        slow = http.post("/graphql", content=raw, headers={"content-type": "application/json"})
    assert (fast.status_code, fast.content) == (slow.status_code, slow.content), layout


#: texts a body's string may hold (as JSON writes them, or broken: an escape left open, a
#: bare '"'), which the usual layout's patterns read as text between two '"'
_TEXTS = st.sampled_from(['"{ x }"', '"a\\"b"', '"a\\\\"', '"},\\"s\\":"', '"\\n"', '"\\u0041"',
                          '"a\\"', '"a"b"', '"\\x"', '""', "null", "1", '{"s":1}'])


@st.composite
def _bodies(draw: st.DrawFn, state: str, other: str) -> bytes:
    """A GraphQL body near the usual layout: the query and the state's variables (and maybe the
    operation's name) in any order, and up to two members more anywhere (repeated or unknown,
    variables of other shapes, strings with escapes or broken); a little white space; now and
    then the text cut, or a byte put in."""
    members = [("query", json.dumps(HOT)), ("variables", f'{{"s":{state}}}')]
    if draw(st.booleans()):
        members.append(("operationName", draw(st.sampled_from(["null", '"Hot"', '"x"']))))
    variables = st.sampled_from([
        f'{{"s":{state}}}', f'{{"s":{state},"t":1}}', f'{{"t":1,"s":{state}}}',
        f'{{"s":{other}}}', f'{{"s":{state},"s":null}}', f'{{"s":{state[:-1]}}}',
        f'{{"s":{state},"state":{other}}}',
        f'{{"s":[{state}]}}', "null", "1", '"x"', "[]"])
    for key in draw(st.lists(st.sampled_from(["query", "operationName", "variables",
                                              "extensions", "x"]), max_size=2)):
        value = draw(variables if key == "variables" else _TEXTS)
        members.insert(draw(st.integers(0, len(members))), (key, value))
    if draw(st.booleans()):
        members = draw(st.permutations(members))
    space = draw(st.sampled_from(["", "", "", "", "", "", "", " "]))
    raw = ("{" + ",".join(f'"{k}":{space}{v}' for k, v in members) + "}").encode()
    change = draw(st.sampled_from(["none", "none", "none", "none", "cut", "byte", "space"]))
    at = draw(st.integers(0, len(raw)))
    if change == "cut":
        raw = raw[:at]
    elif change == "byte":
        raw = raw[:at] + draw(st.sampled_from([b'"', b"\\", b"}", b",", b"\xff"])) + raw[at:]
    elif change == "space":
        raw += b" "
    return raw


@hypothesis.settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_body_is_read_as_orjson_reads_it(six: dict[str, Any], data: st.DataObject) -> None:
    """``_read_body`` on bodies near the usual layout (members in any order, repeated, unknown,
    variables of other shapes, strings with escapes, cut or changed texts): what orjson reads,
    a state read apart taken back to its JSON, or orjson's refusal."""
    raw = data.draw(_bodies(orjson.dumps(six).decode(),
                            orjson.dumps({**six, "dealer": 7}).decode()))
    assert as_json(service_graphql._read_body, raw) == as_json(orjson.loads, raw), raw[:200]


def test_a_state_read_from_the_body_costs_its_hand(http: TestClient, six: dict[str, Any],
                                                  rendered: list[object]) -> None:
    """The cost limit counts the hand of a state read straight from the body as it counts
    one in the JSON: two lists of a 200-card hand (cost 402) are refused every time, though
    the document is known and planned; one (201) is answered (a problem: no such hand is
    valid)."""
    huge = copy.deepcopy(six)
    seat = huge["turn"]["seat"]
    huge["hands"][seat] = (huge["hands"][seat] * 200)[:200]
    two = TWO.replace("$b)", "$a)").replace(", $b: JSON!", "")
    post(http, two, {"a": six})  # validated and planned: then known, and read by the plan
    for _ in range(3):
        r = http.post("/graphql", json={"query": two, "variables": {"a": huge}})
        assert r.status_code == 400 and r.json()["code"] == "QUERY_TOO_COMPLEX", r.text[:300]
    post(http, HOT, {"s": huge})
    written = len(rendered)
    answer = post(http, HOT, {"s": huge}).json()
    assert answer["data"]["legalActions"]["__typename"] == "Problem"
    assert len(rendered) == written  # read from the body


def test_reading_apart_is_bounded(http: TestClient, six: dict[str, Any],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Each variable the fast path would read apart is searched for in the body (``_place``):
    at most ``READ_APART_STATES`` of a body, and only in a body of at most ``READ_APART_BODY``
    bytes; a body of more, or longer, is read as before, and answered the same. (The usual
    body, the state the one variable, is split by its layout: never searched.)"""
    searched: list[bytes] = spy(monkeypatch, "_place", lambda raw, text: text)
    monkeypatch.setattr(http.app.graphql, "cached", False)  # type: ignore[attr-defined]
    post(http, HOT, {"s": six})
    expected = strawberry_bytes(http, HOT, {"s": six})
    pads = {f"x{i}": {"pad": f"{i}" * 300} for i in range(10)}  # undeclared: graphql ignores them
    for variables, most in (({"s": six}, 0), ({"s": six, "t": 1}, 1),
                            ({"s": six, **pads}, service_graphql.READ_APART_STATES),
                            ({"s": six, "x": "x" * service_graphql.READ_APART_BODY}, 0)):
        searched.clear()
        r = http.post("/graphql", json={"query": HOT, "variables": variables})
        assert r.content == expected
        assert len(searched) == most, len(searched)


def test_plans_are_made_once_and_only_for_valid_documents(http: TestClient,
                                                          six: dict[str, Any]) -> None:
    query = HOT.replace("rank", "rank allow")
    view = next(r.app for r in http.app.routes  # type: ignore[attr-defined]
                if getattr(r, "path", "") == "/graphql")
    post(http, query, {"s": six})
    parsed = view.documents.get(query)
    assert parsed.fast() is not None and parsed.planned
    assert parsed.fast() is parsed.plan
    invalid = view.documents.get("query($s: JSON!) { legalActions(state: $s) { nope } }")
    assert invalid.fast() is None and not invalid.planned
    assert graphql_fast.plan(service_graphql.schema._schema, parsed.document, frozenset(), {},
                             frozenset(), frozenset({"JSON"})) is None


def test_transport_variants(http: TestClient, executions: list[str],
                            six: dict[str, Any]) -> None:
    """The HTTP side of the fast path: a charset, any Accept, extensions are its; a content
    type strawberry refuses, a batch, a body that is not JSON, variables not an object stay
    strawberry's answers (problem documents)."""
    body = json.dumps({"query": HOT, "variables": {"s": six}}).encode()
    post(http, HOT, {"s": six})  # known and valid
    expected = strawberry_bytes(http, HOT, {"s": six})
    before = len(executions)
    for content_type, accept in (("application/json; charset=utf-8", "application/json"),
                                 ("application/json", "text/event-stream"),
                                 ("application/json", "*/*")):
        r = http.post("/graphql", content=body,
                      headers={"content-type": content_type, "accept": accept})
        assert r.status_code == 200 and r.content == expected
    with_extensions = json.dumps({"query": HOT, "variables": {"s": six},
                                  "extensions": {"x": 1}, "operationName": None}).encode()
    r = http.post("/graphql", content=with_extensions,
                  headers={"content-type": "application/json"})
    assert r.content == expected
    assert len(executions) == before  # text/event-stream: strawberry's view, our plan
    for content, content_type, code in (
            (body, "Application/JSON", "BAD_GRAPHQL_REQUEST"),
            (body, "text/plain", "BAD_GRAPHQL_REQUEST"),
            (b"[" + body + b"]", "application/json", "BAD_GRAPHQL_REQUEST"),
            (b"{" + body, "application/json", "BAD_GRAPHQL_REQUEST"),
            (json.dumps({"query": HOT, "variables": [six]}).encode(), "application/json",
             "BAD_GRAPHQL_REQUEST")):
        r = http.post("/graphql", content=content, headers={"content-type": content_type})
        assert r.status_code in (400, 415) and r.json()["code"] == code, (content_type, r.text)


def test_planned_answers_are_cached_by_their_bytes_while_legal_actions_are(
        six: dict[str, Any]) -> None:
    """A planned document's answer is kept under the body's exact bytes and language: the
    same body again is answered from the cache (counted as a graphql hit), another language
    or another body is not; with legal-actions not cached in process, nothing is."""
    body = {"query": HOT, "variables": {"s": six}}
    for settings, cached in ((Settings(log_level="warning"), True),
                             (Settings(log_level="warning", cache_size=0), False),
                             (Settings(log_level="warning", cache_ops=("check",)), False)):
        with TestClient(create_app(settings)) as c:
            answers = [c.post("/graphql", json=body, headers={"accept-language": lang})
                       for lang in ("en", "en", "en", "de", "de")]
            hits = [line for line in c.get("/metrics").text.splitlines()
                    if line.startswith('canasta_cache_hits_total{op="graphql"')]
        assert all(a.status_code == 200 for a in answers)
        assert answers[1].content == answers[2].content and answers[3].content == answers[4].content
        assert answers[2].headers["content-language"] == "en"
        assert answers[4].headers["content-language"] == "de"
        # the first is strawberry's (validating), the second planned and kept, then hits
        assert hits == (['canasta_cache_hits_total{op="graphql",tier="local"} 2.0'] if cached
                        else []), (settings, hits)


def compact(query: str, state: Any, layout: str = '{{"query":{query},"variables":{{"s":{state}}}}}'
            ) -> bytes:
    """A usual body (``_read_usual``): compact, as browsers' ``JSON.stringify`` writes it."""
    return layout.format(query=orjson.dumps(query).decode(),
                         state=orjson.dumps(state).decode()).encode()


def post_raw(client: TestClient, raw: bytes, lang: str = "en") -> httpx.Response:
    return client.post("/graphql", content=raw, headers={"content-type": "application/json",
                                                         "accept-language": lang})


TWO_ROOTS = ("query($s: JSON!) { a: legalActions(state: $s) { __typename } "
             "b: legalActions(state: $s) { ... on LegalActions { seat actionsJson } } }")


@pytest.mark.parametrize("query", [HOT, ACTIONS_JSON, EVERYTHING, NAMED, TWO_ROOTS])
def test_a_usual_body_seen_before_takes_its_lane(
        http: TestClient, executions: list[str], six: dict[str, Any], query: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A usual body whose head and tail were answered by a plan before (``_Lane``) is answered
    without the rest read again (no ``_read_body``): the same bytes as strawberry's, for
    other states, problems and German alike; a state the reader does not take, or another
    tail after the same head, is read as before (and answered the same)."""
    view = http.app.graphql  # type: ignore[attr-defined]
    monkeypatch.setattr(view, "cached", False)
    monkeypatch.setattr(view, "lanes", {})
    read = spy(monkeypatch, "_read_body", lambda raw: raw)
    post_raw(http, compact(query, six))  # validated by strawberry
    post_raw(http, compact(query, six))  # planned: the lane kept
    assert len(view.lanes) == 1
    lane = next(iter(view.lanes.values()))
    assert (lane.root is None) == (query == TWO_ROOTS)
    other = copy.deepcopy(six)
    other["scores"] = [2000] * len(six["scores"])
    problem = copy.deepcopy(six)  # read, and refused by the engine: INVALID_STATE
    problem["hands"][six["turn"]["seat"]] = problem["hands"][six["turn"]["seat"]][:1]
    for state, lang in ((six, "en"), (other, "de"), (problem, "en"), (problem, "de")):
        read.clear()
        before = len(executions)
        r = post_raw(http, compact(query, state), lang)
        assert (read, len(executions)) == ([], before), "the lane was not taken"
        assert r.status_code == 200 and r.headers["content-language"] == lang
        assert r.content == strawberry_bytes(http, query, {"s": state}, lang)
    assert b'"Problem"' in r.content
    named = compact(query, six, '{{"query":{query},"variables":{{"s":{state}}},'
                                '"operationName":null}}')
    unread = compact(query, {**six, "dealer": 9})  # a dealer past the seats: the reader's no
    spaced = compact(query, six).replace(b'"scores":[', b'"scores": [')  # (as the reader takes)
    for raw, state, reads in ((named, six, 1), (unread, {**six, "dealer": 9}, 1),
                              (spaced, six, None)):
        read.clear()
        r = post_raw(http, raw)
        assert reads is None or len(read) == reads, "read as before"
        assert r.content == strawberry_bytes(http, query, {"s": state})
    assert [lane.tail for lane in view.lanes.values()] == [b"}}"]  # a head's first tail kept


def test_lanes_are_bounded(http: TestClient, six: dict[str, Any],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """At most ``LANES_KEPT`` lanes, the first made going first; a head or a tail longer than
    ``LANE_BYTES`` makes none (its body is answered all the same); a lane whose document the
    parsed documents no longer keep is dropped."""
    view = http.app.graphql  # type: ignore[attr-defined]
    monkeypatch.setattr(view, "cached", False)
    monkeypatch.setattr(view, "lanes", {})
    monkeypatch.setattr(service_graphql, "LANES_KEPT", 3)
    queries = [ACTIONS_JSON.replace("query(", f"query Q{i}(") for i in range(5)]
    for query in queries:
        for _ in range(2):
            assert post_raw(http, compact(query, six)).status_code == 200
    assert [orjson.loads(head + b"null}}")["query"] for head in view.lanes] == queries[2:]
    monkeypatch.setattr(view, "lanes", {})
    head = len(compact(queries[0], None)) - len(b"null}}")
    monkeypatch.setattr(service_graphql, "LANE_BYTES", head + 20)  # past it: the one below
    long = queries[0] + " " * 40
    for _ in range(3):
        r = post_raw(http, compact(long, six))
        assert r.content == strawberry_bytes(http, long, {"s": six})
    post_raw(http, compact(queries[1], six))
    assert list(view.lanes) == [compact(queries[1], six).partition(b'"s":')[0] + b'"s":']
    # a lane lasts as long as the documents kept (GraphQL's own budget) hold its document
    view.documents.entries.clear()
    view.documents.size = 0
    r = post_raw(http, compact(queries[1], six))
    assert view.lanes == {}
    assert r.content == strawberry_bytes(http, queries[1], {"s": six})


def test_a_lane_keeps_the_cost_limit(six: dict[str, Any]) -> None:
    """The cost of a lane's request is its own state's (``GRAPHQL_MAX_COST``): a hand past the
    limit is refused as it is without the lane."""
    seat = six["turn"]["seat"]
    small = copy.deepcopy(six)
    small["hands"][seat] = small["hands"][seat][:1]  # (the state a problem: still planned)
    limit = Settings(log_level="warning", graphql_max_cost=2)
    with TestClient(create_app(limit)) as c:
        for _ in range(2):
            assert post_raw(c, compact(ACTIONS_JSON, small)).status_code == 200
        assert len(c.app.graphql.lanes) == 1  # type: ignore[attr-defined]
        laned = post_raw(c, compact(ACTIONS_JSON, six))
    with TestClient(create_app(limit)) as c:
        fresh = post_raw(c, compact(ACTIONS_JSON, six))
    assert laned.status_code == fresh.status_code == 400
    assert laned.json() == fresh.json() and laned.json()["code"] == "QUERY_TOO_COMPLEX"
