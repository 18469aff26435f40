"""GraphQL cost is bounded before validation (issue 17): depth, fields, repeated fields, aliases,
tokens and the cost of action lists, each a setting; a query past one is refused with a 400
``QUERY_TOO_COMPLEX`` problem before it is validated or any resolver runs, and normal queries
(GraphiQL's introspection among them) still work. Over the real ASGI app (Starlette's
TestClient), and once over a real server started with the limits as environment variables."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from canasta_referee.service import graphql as service_graphql
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import SettingError, Settings
from tests.builders import PLAY, table
from tests.servers import Service
from tests.test_languages import german

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = "... on Problem { status code detail }"
#: the issue's costly query: 997 repeated fields, no alias (16 KB)
REPEATED = "{ " + " ".join(["variants { id }"] * 997) + " }"
LISTS = ("query($s: JSON!) { %s }")
TYPED = "legalActions(state: $s) { __typename ... on LegalActions { seat actions { type cards card } } }"


def client(**settings: Any) -> TestClient:
    """The app with these settings. MAX_LEGAL_ACTIONS is raised above the 1,199 actions of the
    biggest hand (``big``): the cost limits are measured here, not that cap."""
    settings.setdefault("max_legal_actions", 2000)
    return TestClient(create_app(Settings(log_level="warning", **settings)),
                      raise_server_exceptions=False)


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with client() as c:
        yield c


@pytest.fixture(scope="module")
def big() -> dict[str, Any]:
    """A valid six-player classic state whose seat to move holds 151 cards (1,199 legal
    actions): the biggest hand a valid state of the service's variants can have."""
    state = table(variant="classic", options={"players": 6}, stock=[], rest_to=0, turn=PLAY,
                  filler=1)
    assert len(state["hands"][0]) == 151
    return state


def post(c: TestClient, query: str, lang: str = "en", **variables: Any) -> httpx.Response:
    return c.post("/graphql", json={"query": query, "variables": variables},
                  headers={"Accept-Language": lang})


def refused(r: httpx.Response, *codes: str) -> dict[str, Any]:
    """``r`` is the 400 QUERY_TOO_COMPLEX problem listing exactly ``codes``."""
    assert r.status_code == 400, r.text[:500]
    assert r.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = r.json()
    assert body["code"] == "QUERY_TOO_COMPLEX" and body["status"] == 400, body
    assert body["type"].endswith("query_too_complex") and "data" not in body
    assert [p["code"] for p in body["problems"]] == list(codes), body["problems"]
    assert all(p["path"] == "/query" for p in body["problems"])
    assert body["detail"].endswith(body["problems"][0]["message"][1:]), body
    return body


def data(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text[:500]
    body: dict[str, Any] = r.json()
    assert not body.get("errors"), body
    return body["data"]  # type: ignore[no-any-return]


def graphiql_introspection() -> str:
    """The introspection query of the GraphiQL the service ships (every option on: the most it
    can ask), from its bundle's ``getIntrospectionQuery``."""
    bundle = (ROOT / "service/static/graphiql/graphiql.min.js").read_text()
    start = bundle.index("return `", bundle.index("function getIntrospectionQuery("))
    text = bundle[start + len("return `"):bundle.index("`;", start)]
    for template, value in {
            "${schemaDescription}": "description", "${descriptions}": "description",
            "${directiveIsRepeatable}": "isRepeatable", "${specifiedByUrl}": "specifiedByURL",
            "${oneOf}": "isOneOf",
            "${inputDeprecation('(includeDeprecated: true)')}": "(includeDeprecated: true)",
            "${inputDeprecation('isDeprecated')}": "isDeprecated",
            "${inputDeprecation('deprecationReason')}": "deprecationReason"}.items():
        text = text.replace(template, value)
    assert "${" not in text and "query IntrospectionQuery" in text
    return text


def metric(c: TestClient, name: str, op: str) -> float:
    """The sum of a metric's series for ``op`` in the service's Prometheus exposition."""
    found = re.findall(rf'^{name}{{op="{op}"[^}}]*}} (\S+)$', c.get("/metrics").text, re.M)
    return sum(float(v) for v in found)


# --- the costly queries -----------------------------------------------------------------


def test_repeated_fields_are_refused_before_validation(http: TestClient) -> None:
    # counted before parsing, as written: the count stops past the limit
    body = refused(post(http, REPEATED), "TOO_MANY_FIELDS")
    assert body["problems"][0]["message"] == "More than 300 field selections (GRAPHQL_MAX_FIELDS)."
    # a changed comment or spacing is the same query
    refused(post(http, "# another comment\n" + REPEATED.replace(" ", "\n")), "TOO_MANY_FIELDS")
    # before validation: 997 fields the schema does not have are refused for their number,
    # not reported one by one by the validation
    refused(post(http, "{ " + " nosuch" * 997 + " }"), "TOO_MANY_FIELDS")
    # 150 copies are 300 fields: parsed and measured, refused for their 149 repeats
    body = refused(post(http, "{ " + " ".join(["variants { id }"] * 150) + " }"),
                   "TOO_MANY_REPEATED_FIELDS")
    assert body["problems"][0]["message"] == ("149 field selections repeat a name selected "
                                              "beside them, at most 20 (GRAPHQL_MAX_REPEATED_FIELDS).")
    # repeats counted where validation compares them: through inline fragments and spreads
    inline = "{ " + " ".join(["... on Query { variants { id } }"] * 22) + " }"
    refused(post(http, inline), "TOO_MANY_REPEATED_FIELDS")
    spread = "{ " + "...F " * 22 + "} fragment F on Query { variants { id } }"
    refused(post(http, spread), "TOO_MANY_REPEATED_FIELDS")
    # the whole document is validated, so the whole document is measured: an operation that is
    # not run and a fragment nobody spreads count too
    twenty_two = "{ " + " ".join(["variants { id }"] * 22) + " }"
    refused(post(http, "query A { variants { id } } query B " + twenty_two),
            "TOO_MANY_REPEATED_FIELDS")
    refused(post(http, "{ variants { id } } fragment F on Query " + twenty_two),
            "TOO_MANY_REPEATED_FIELDS")
    refused(post(http, "query A { variants { id } } query B " + REPEATED), "TOO_MANY_FIELDS")
    # 22 copies are 21 repeats in 44 fields: past the repeats, within the fields; 21 pass
    refused(post(http, "{ " + " ".join(["variants { id }"] * 22) + " }"),
            "TOO_MANY_REPEATED_FIELDS")
    assert data(post(http, "{ " + " ".join(["variants { id }"] * 21) + " }"))["variants"]


def test_deep_selections_are_refused(http: TestClient) -> None:
    # the schema's own types nest 4 deep; introspection's `ofType` nests as deep as one asks
    deep = "{ __schema { types { fields { type { " + "ofType { " * 20 + "name" + " }" * 24 + " }"
    body = refused(post(http, deep), "TOO_DEEP")
    assert body["detail"] == ("The query is too complex: fields nested 25 deep, at most 15 "
                              "(GRAPHQL_MAX_DEPTH).")
    ok = "{ __schema { types { fields { type { " + "ofType { " * 10 + "name" + " }" * 14 + " }"
    assert data(post(http, ok))["__schema"]["types"]
    # fragments add no depth, but nesting them has an end too (and a chain of spreads does not
    # recurse in the measuring): at most three times the depth
    inline = "{ " + "... on Query { " * 46 + "variants { id }" + " }" * 47
    body = refused(post(http, inline), "TOO_DEEP")
    assert body["problems"][0]["message"] == (
        "Fields and fragments nested more than 45 deep, fields at most 15 (GRAPHQL_MAX_DEPTH).")
    assert data(post(http, "{ " + "... on Query { " * 40 + "variants { id }" + " }" * 41))
    chain = "{ ...F0 } " + " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}"
                                    for i in range(100)) + " fragment F100 on Query { variants { id } }"
    refused(post(http, chain), "TOO_DEEP")


def test_aliases_are_counted_with_fragments_written_out(http: TestClient) -> None:
    eight = "{ " + " ".join(f"a{i}: variants {{ id }}" for i in range(8)) + " }"
    assert len(data(post(http, eight))) == 8
    nine = "{ " + " ".join(f"a{i}: variants {{ id }}" for i in range(9)) + " }"
    assert refused(post(http, nine), "TOO_MANY_ALIASES")["problems"][0]["message"] == (
        "9 aliases, at most 8 (GRAPHQL_MAX_ALIASES).")
    # five aliases in a fragment spread twice are ten
    twice = ("{ x: variant(id: \"classic\") { ...F } y: variant(id: \"german\") { ...F } }"
             " fragment F on VariantResult { ... on Variant { a: id b: id c: id d: id } }")
    refused(post(http, twice), "TOO_MANY_ALIASES")


def test_many_action_lists_on_a_big_state_are_refused(http: TestClient,
                                                      big: dict[str, Any]) -> None:
    eight = LISTS % " ".join(f"a{i}: {TYPED}" for i in range(8))
    body = refused(post(http, eight, s=big), "TOO_COSTLY")
    assert body["problems"][0]["message"].startswith("An estimated cost of 1216 (")  # 8 x 152
    assert body["problems"][0]["message"].endswith(", at most 250 (GRAPHQL_MAX_COST).")
    # the seat to move written as a float the models take for its integer (0.0, -0.0, 0e0)
    # counts the same hand
    for seat in (0.0, -0.0):
        floated = {**big, "turn": {**big["turn"], "seat": seat}}
        for _ in range(2):  # the second time the document is known and planned
            again = refused(post(http, eight, s=floated), "TOO_COSTLY")
            assert again["problems"] == body["problems"]
    # one on the biggest hand is within the default; two are not
    one = data(post(http, LISTS % f"a0: {TYPED}", s=big))
    assert len(one["a0"]["actions"]) == 1199
    refused(post(http, LISTS % " ".join(f"a{i}: {TYPED}" for i in range(2)), s=big),
            "TOO_COSTLY")
    # a state written into the query counts alike, and so do a check's actions
    literal = "{ " + " ".join(f"a{i}: legalActions(state: $s) {{ __typename }}"
                              for i in range(4)) + " }"
    refused(post(http, "query($s: JSON!) " + literal, s=big), "TOO_COSTLY")
    cards = ", ".join(f'"{c}"' for c in big["hands"][0])
    hands = ", ".join([f"[{cards}]"] + ["[]"] * 5)
    inline = (f'{{ a: legalActions(state: {{hands: [{hands}], turn: {{seat: 0}}}}) {{ __typename }}'
              f' b: legalActions(state: {{hands: [{hands}], turn: {{seat: 0}}}}) {{ __typename }}'
              f' c: legalActions(state: {{hands: [{hands}], turn: {{seat: 0}}}}) {{ __typename }}'
              f' d: legalActions(state: {{hands: [{hands}], turn: {{seat: 0}}}}) {{ __typename }} }}')
    refused(post(http, inline), "TOO_COSTLY")
    draws = [{"type": "DRAW"}] * 200
    checks = " ".join(f"c{i}: check(state: $s, actions: $a) {{ __typename }}" for i in range(5))
    query = "query($s: JSON!, $a: [ActionInput!]!) { " + checks + " }"
    five = refused(post(http, query, s={"hands": [], "turn": {}}, a=draws), "TOO_COSTLY")
    assert five["problems"][0]["message"].startswith("An estimated cost of 255 (")  # 5 x 51
    four = data(post(http, query.replace(" c4: check(state: $s, actions: $a) { __typename }", ""),
                     s={"hands": [], "turn": {}}, a=draws))
    assert len(four) == 4
    # introspecting the whole schema costs 100 (GraphiQL's query once is fine, see below)
    schemas = "{ " + " ".join(f"s{i}: __schema {{ queryType {{ name }} }}" for i in range(2)) + " }"
    assert len(data(post(http, schemas))) == 2
    body = refused(post(http, schemas.replace("s0:", "s2: __schema { queryType { name } } s0:")),
                   "TOO_COSTLY")
    assert body["problems"][0]["message"].startswith("An estimated cost of 300 (")
    # the message names every root with a fixed cost, and what it costs
    assert "per `__schema`: 100; per `batch` and `audit`: 100)" in body["problems"][0]["message"]
    # the same response name twice is one call (GraphQL merges it), so it costs once
    merged = LISTS % " ".join([TYPED] * 3)
    assert len(data(post(http, merged, s=big))["legalActions"]["actions"]) == 1199


LONG = "{ variant(id: [" + "1 " * 4000 + "]) { __typename } }"  # 4,010 tokens, 2 fields


def test_too_many_tokens_is_the_same_problem(http: TestClient) -> None:
    body = refused(post(http, LONG), "TOO_MANY_TOKENS")
    assert body["detail"] == ("The query is too complex: more than 4000 tokens "
                              "(GRAPHQL_MAX_TOKENS).")
    # comments count as tokens
    refused(post(http, "{ variants { id } }" + "\n#" * 4000), "TOO_MANY_TOKENS")


def test_exponential_fragments_are_measured_not_expanded(http: TestClient) -> None:
    """Each fragment spreads the next twice: 2^40 fields written out, measured in one pass."""
    fragments = " ".join(f"fragment F{i} on Variant {{ ...F{i + 1} ...F{i + 1} }}"
                         for i in range(40)) + " fragment F40 on Variant { id }"
    query = '{ variant(id: "classic") { ... on Variant { ...F0 } } } ' + fragments
    body = refused(post(http, query), "TOO_MANY_FIELDS", "TOO_MANY_REPEATED_FIELDS")
    assert body["problems"][0]["message"].startswith(f"{2**40 + 1} field selections")


def test_every_refusal_speaks_german(http: TestClient, big: dict[str, Any]) -> None:
    doubling = ('{ variant(id: "classic") { ... on Variant { ...F0 } } } '
                + " ".join(f"fragment F{i} on Variant {{ ...F{i + 1} ...F{i + 1} }}"
                           for i in range(9)) + " fragment F9 on Variant { id }")
    queries: list[tuple[str, dict[str, Any]]] = [
        (LONG, {}),  # tokens
        ("{ __schema { types { fields { type { " + "ofType { " * 20 + "name" + " }" * 24 + " }",
         {}),  # depth
        ("{ " + "... on Query { " * 46 + "variants { id }" + " }" * 47, {}),  # fragments' depth
        (REPEATED, {}),  # fields, counted before parsing
        (doubling, {}),  # fields written out, and their repeats
        ("{ " + " ".join(f"a{i}: variants {{ id }}" for i in range(9)) + " }", {}),  # aliases
        (LISTS % " ".join(f"a{i}: {TYPED}" for i in range(8)), {"s": big}),  # cost
    ]
    seen = set()
    for query, variables in queries:
        en = post(http, query, "en", **variables).json()
        de_r = post(http, query, "de", **variables)
        assert de_r.headers["content-language"] == "de"
        de = de_r.json()
        assert en["code"] == de["code"] == "QUERY_TOO_COMPLEX", en
        german(en["title"], de["title"], query[:40])
        german(en["detail"], de["detail"], query[:40])
        for p_en, p_de in zip(en["problems"], de["problems"], strict=True):
            german(p_en["message"], p_de["message"], p_en["code"])
            seen.add((p_en["code"], p_en["message"].startswith(("More than", "Fields and"))))
    assert de["title"] == "Abfrage zu aufwendig"
    assert {code for code, _ in seen} == {"TOO_MANY_TOKENS", "TOO_DEEP", "TOO_MANY_FIELDS",
                                          "TOO_MANY_REPEATED_FIELDS", "TOO_MANY_ALIASES",
                                          "TOO_COSTLY"}
    assert {("TOO_DEEP", True), ("TOO_DEEP", False), ("TOO_MANY_FIELDS", True),
            ("TOO_MANY_FIELDS", False)} <= seen


# --- what still works, and what runs ------------------------------------------------------------


def test_normal_queries_still_work(http: TestClient, big: dict[str, Any]) -> None:
    dealt = http.post("/v1/deal", json={"seed": 42}).json()["state"]
    readme = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
              "phase actions { type cards card } } ... on Problem { code detail } } "
              "check(state: $s, actions: [{type: DISCARD, card: \"JK\"}]) { __typename "
              "... on Illegal { index reason { code message rule } } } }")
    d = data(post(http, readme, s=dealt))
    assert d["legalActions"]["phase"] == "draw" and d["check"]["__typename"] == "Illegal"
    # GraphiQL's own introspection query (227 fields, 14 deep) is within the defaults
    schema = data(post(http, graphiql_introspection()))["__schema"]
    assert "Query" in [t["name"] for t in schema["types"]]
    # a typed list of the biggest hand, 152 of 250, beside a check on a dealt hand
    both = data(post(http, "query($s: JSON!, $d: JSON!) { " + TYPED + " check(state: $d, "
                     "actions: [{type: DRAW}]) { __typename } }", s=big, d=dealt))
    assert len(both["legalActions"]["actions"]) == 1199 and both["check"]["__typename"] == "Legal"
    # union members that share field names (legal, index, reason) are not repeats to refuse
    union = ("query($s: JSON!) { check(state: $s, actions: [{type: DRAW}]) { __typename "
             "... on Legal { legal } ... on Illegal { legal index } ... on Problem { status } "
             f"{PROBLEM} }} }}")
    assert data(post(http, union, s=dealt))["check"] == {"__typename": "Legal", "legal": True}


def test_the_limits_are_settings(big: dict[str, Any]) -> None:
    with client(graphql_max_depth=3, graphql_max_fields=5, graphql_max_repeated_fields=0,
                graphql_max_aliases=1, graphql_max_cost=152, graphql_max_tokens=50) as c:
        assert data(post(c, "{ a: variants { id title } }"))  # 3 fields, 1 alias, depth 2
        refused(post(c, "{ a: variants { id } b: variants { id } }"), "TOO_MANY_ALIASES")
        refused(post(c, "{ variants { id } variants { id } }"), "TOO_MANY_REPEATED_FIELDS")
        refused(post(c, "{ variants { id title summary players } variant(id: \"x\") "
                        "{ __typename } }"), "TOO_MANY_FIELDS")
        refused(post(c, "{ __schema { types { fields { name } } } }"), "TOO_DEEP")
        refused(post(c, "{ variants { id } }" + "\n#" * 50), "TOO_MANY_TOKENS")
        one = "query($s: JSON!) { legalActions(state: $s) { __typename } }"
        assert data(post(c, one, s=big))["legalActions"]["__typename"] == "LegalActions"
        two = ("query($s: JSON!) { legalActions(state: $s) { __typename }"
               " check(state: $s, actions: []) { __typename } }")
        refused(post(c, two, s=big), "TOO_COSTLY")
    for name in ("GRAPHQL_MAX_DEPTH", "GRAPHQL_MAX_FIELDS", "GRAPHQL_MAX_COST",
                 "GRAPHQL_MAX_TOKENS"):
        with pytest.raises(SettingError, match=name):
            Settings.from_env({name: "0"})
    with pytest.raises(SettingError, match="GRAPHQL_MAX_DEPTH"):  # the guard's 180 levels
        Settings.from_env({"GRAPHQL_MAX_DEPTH": "61"})
    # at the most depth, a chain of 600 spreads still ends in the guard (180), not in recursion
    with client(graphql_max_depth=60, graphql_max_tokens=20_000) as c:
        chain = "{ ...F0 } " + " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}"
                                        for i in range(600)) + " fragment F600 on Query { __typename }"
        body = refused(post(c, chain), "TOO_DEEP")
        assert "more than 180 deep" in body["detail"]
        assert data(post(c, "{ " + "... on Query { " * 150 + "__typename" + " }" * 151))
    with pytest.raises(SettingError, match="GRAPHQL_MAX_ALIASES"):
        Settings.from_env({"GRAPHQL_MAX_ALIASES": "-1"})
    assert Settings.from_env({"GRAPHQL_MAX_ALIASES": "0"}).graphql_max_aliases == 0


def test_a_refused_query_runs_no_resolver(big: dict[str, Any]) -> None:
    """The engine's calls are counted (each resolver of ``legalActions`` asks the cache, a hit
    or a miss): a refused query moves neither count; the same query within the limits does."""
    with client() as c:
        def calls() -> float:
            return (metric(c, "canasta_cache_misses_total", "legal-actions")
                    + metric(c, "canasta_cache_hits_total", "legal-actions"))

        before = calls()
        for n in (8, 2):
            refused(post(c, LISTS % " ".join(f"a{i}: {TYPED}" for i in range(n)), s=big),
                    "TOO_COSTLY")
        assert calls() == before
        data(post(c, LISTS % f"a0: {TYPED}", s=big))
        assert calls() == before + 1


def test_validation_is_cached_by_tokens_not_text(http: TestClient) -> None:
    """A passed validation is kept under the document's tokens, so comments, spacing and commas
    do not make a new entry; errors are not kept, so each names its own line."""
    service_graphql._valid.clear()
    query = "query($s: JSON!) { legalActions(state: $s) { __typename } variants { id } }"
    state = {"hands": []}
    assert post(http, query, s=state).status_code == 200
    assert len(service_graphql._valid) == 1
    for variant in ("# a comment\n" + query, query.replace(" ", "\n,  "), query + " # end"):
        assert post(http, variant, s=state).status_code == 200
    assert len(service_graphql._valid) == 1
    post(http, query.replace("variants { id }", "variants { title }"), s=state)
    assert len(service_graphql._valid) == 2
    for lines in (0, 2):
        r = post(http, "\n" * lines + "{ nosuch }")
        assert r.json()["errors"][0]["locations"] == [{"line": lines + 1, "column": 3}]
    assert len(service_graphql._valid) == 2


@pytest.mark.parametrize(("query", "variables", "cost"), [
    # 1 + the hand to move (3 cards) + a quarter of the actions given, rounded up
    ("query($s: JSON!) { legalActions(state: $s) { seat } }", {"s": "HAND"}, 4),
    ("query($s: JSON!) { legalActions(state: $s) { seat } }", {}, 1),
    ("query($s: JSON!) { legalActions(state: $s) { seat } }", None, 1),
    ("query($s: JSON!) { legalActions(state: $s) { seat } }", {"s": "READ"}, 4),
    ('{ legalActions(state: {turn: {seat: 1}, hands: [[], ["AS", "2C"]]}) { seat } }', {}, 3),
    ("query($s: JSON, $t: JSON) { legalActions(state: $s, state: $t) { seat } }",
     {"s": "HAND", "t": None}, 1),  # of equal arguments the last counts
    ("query($s: JSON!, $a: [ActionInput!]!) { check(state: $s, actions: $a) { __typename } }",
     {"s": "HAND", "a": [{"type": "DRAW"}] * 5}, 6),
    ("query($s: JSON!, $a: ActionInput!) { check(state: $s, actions: [$a, $a]) { __typename } }",
     {"s": "HAND", "a": {"type": "DRAW"}}, 5),
    ("query($s: JSON!) { check(state: $s, actions: [$nope]) { __typename } }", {"s": "HAND"}, 5),
    ("query($s: JSON!) { a: legalActions(state: $s) { seat } __schema { queryType { name } } "
     "b: batch(operations: []) { __typename } }", {"s": "HAND"}, 4 + 100 + 100),
    ("query A($s: JSON!) { legalActions(state: $s) { seat } } query B { __schema { __typename } }",
     {"s": "HAND"}, 100),  # the costliest operation
    ("{ variants { id } }", {}, None),
])
def test_the_cost_reads_each_costly_root_s_arguments(query: str, variables: dict[str, Any] | None,
                                                     cost: int | None) -> None:
    """``Measured.exceeded`` with the cost limit at 0: the cost it finds, from the ``state`` and
    ``actions`` arguments as variables, literals or lists holding variables (a variable that
    is not given reads as null), a state given as data or read already (``ReadState``)."""
    from graphql import parse

    state = {"turn": {"seat": 0}, "hands": [["AS", "2C", "3D"]]}
    read = service_graphql.graphql_cost.ReadState(b"", {"state": {**state, "hands": [(1, 2, 3)]}})
    given = None if variables is None else {
        k: state if v == "HAND" else read if v == "READ" else v for k, v in variables.items()}
    measured = service_graphql.graphql_cost.measure(parse(query), service_graphql.graphql_cost.Limits(
        depth=15, fields=300, repeated=20, aliases=8, cost=0))
    found = [e.found for e in measured.exceeded(given) if e.code == "TOO_COSTLY"]
    assert found == ([] if cost is None else [cost])


def test_parsed_documents_are_bounded_by_memory() -> None:
    documents = service_graphql._Documents(
        service_graphql.graphql_cost.Limits(depth=15, fields=300, repeated=20, aliases=8,
                                            cost=500), 4000, budget=2_000_000)
    for i in range(200):
        documents.get("{ " + " ".join(f"a{j}_{i}: variants {{ id }}" for j in range(8)) + " }")
        assert documents.size <= 2_000_000
    assert 0 < len(documents.entries) < 200
    assert documents.size == sum(p.size for p in documents.entries.values())
    # a document past a limit whatever its variables is not kept
    twenty_two = "{ " + " ".join(["variants { id }"] * 22) + " }"
    assert documents.get(twenty_two).measured.static
    assert twenty_two not in documents.entries
    with pytest.raises(service_graphql._Refused):  # found before parsing
        documents.get(REPEATED)


def test_limits_on_a_real_server(big: dict[str, Any]) -> None:
    svc = Service({"GRAPHQL_MAX_ALIASES": "3", "GRAPHQL_MAX_COST": "304",
                   "MAX_LEGAL_ACTIONS": "2000"}).start()
    try:
        with httpx.Client(base_url=svc.url, timeout=30) as c:
            refused(c.post("/graphql", json={"query": REPEATED}), "TOO_MANY_FIELDS")
            four = "{ " + " ".join(f"a{i}: variants {{ id }}" for i in range(4)) + " }"
            refused(c.post("/graphql", json={"query": four}), "TOO_MANY_ALIASES")
            two = LISTS % " ".join(f"a{i}: {TYPED}" for i in range(2))
            r = c.post("/graphql", json={"query": two, "variables": {"s": big}})
            assert r.status_code == 200 and len(r.json()["data"]["a1"]["actions"]) == 1199
            three = LISTS % f"a0: {TYPED} a1: {TYPED} c: check(state: $s, actions: []) {{ __typename }}"
            refused(c.post("/graphql", json={"query": three, "variables": {"s": big}}),
                    "TOO_COSTLY")
            assert 'canasta_requests_total{op="graphql",status="400"} 3.0' in c.get("/metrics").text
    finally:
        svc.stop()
