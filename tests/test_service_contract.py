"""The published contracts: the committed OpenAPI document and GraphQL SDL match the code, and
Schemathesis finds no server error and no non-conforming answer against either (in-process,
a bounded number of examples)."""

from __future__ import annotations

import os
from typing import Any

import graphql
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import positive_data_acceptance
from schemathesis.config import SchemathesisConfig
from starlette.testclient import TestClient

from canasta_referee.schema.models import EXAMPLE_ACTIONS, EXAMPLE_DEAL, EXAMPLE_STATE, EXAMPLE_STATE_AFTER
from canasta_referee.service import openapi
from canasta_referee.service.app import create_app
from canasta_referee.service.graphql import SDL_FILE, sdl
from canasta_referee.service.settings import Settings
from tests.explore import examples

EXAMPLES = examples(int(os.environ.get("CANASTA_SCHEMATHESIS_EXAMPLES", "25")))
APP = create_app(Settings(log_level="error"))
SESSION = TestClient(APP)


def test_committed_openapi_is_current() -> None:
    assert openapi.COMMITTED.read_bytes() == openapi.document_bytes(), (
        "run `python -m canasta_referee.service.openapi` to regenerate openapi/openapi.json")


def test_committed_sdl_is_current() -> None:
    assert SDL_FILE.read_text() == sdl(), (
        "run `python -m canasta_referee.service.graphql` to regenerate schema/schema.graphql")


# --- REST against the committed document --------------------------------------------------------

#: a request the document does not allow must be refused: Schemathesis' own list of refusals
#: and 413, the answer to a body past the limit, which is read before it is parsed (a wider run
#: sent a /v1/game body over 256 KiB that also broke the schema, and counted its 413 as
#: accepted)
REFUSALS = [*SchemathesisConfig.from_dict({}).projects.default.checks.negative_data_rejection
            .expected_statuses, "413"]
REST = schemathesis.openapi.from_path(str(openapi.COMMITTED), config=SchemathesisConfig.from_dict(
    {"checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}}}))
REST.app = APP


@schemathesis.check
def schema_valid_is_model_valid(ctx: Any, response: Any, case: Any) -> bool | None:
    """A request the document allows is never MALFORMED_REQUEST (the document and the pydantic
    models agree). It may still be refused by the engine: 422 with a rules code (CONTRACT.md),
    which is why Schemathesis' ``positive_data_acceptance`` check is replaced by this one."""
    mode = str(getattr(getattr(case.meta, "generation", None), "mode", ""))
    if "positive" in mode.lower() and response.status_code == 422:
        code = response.json().get("code")
        assert code not in ("MALFORMED_REQUEST", "TOO_MANY_ACTIONS"), (
            f"schema-valid request rejected as {code}: {response.text[:300]}")
    return None


@schemathesis.check
def within_a_second(ctx: Any, response: Any, case: Any) -> bool | None:
    """No answer takes more than a second (the issue's bound)."""
    assert response.elapsed < 1.0, f"{case.operation.label} took {response.elapsed:.3f} s"
    return None


@REST.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_rest_contract(case: Any) -> None:
    case.call_and_validate(session=SESSION, excluded_checks=[positive_data_acceptance],
                           additional_checks=[schema_valid_is_model_valid, within_a_second])


def test_a_body_past_the_limit_that_breaks_the_schema_is_refused_413() -> None:
    """The example the wider run found, pinned: its body breaks the schema three ways (too many
    rounds, a variant name too long, a number for a boolean option) and is over the body
    limit, which decides first; the contract check counts that 413 as a refusal."""
    round_ = {"tally": {"sides": [{"hand_points": 16644, "red_threes_in_hand": 467228}] * 5}}
    body = {"variant": "x" * 100, "options": {"k": 1.1e212}, "rounds": [round_] * 3000}
    response = SESSION.post("/v1/game", json=body)
    assert response.status_code == 413 and response.json()["code"] == "BODY_TOO_LARGE"
    assert "413" in REST.config.checks.negative_data_rejection.expected_statuses


# --- GraphQL against the committed SDL ----------------------------------------------------------


def _node(value: Any) -> graphql.ValueNode:
    """A JSON value as a GraphQL literal (for the JSON scalar)."""
    if value is None:
        return graphql.NullValueNode()
    if isinstance(value, bool):
        return graphql.BooleanValueNode(value=value)
    if isinstance(value, int):
        return graphql.IntValueNode(value=str(value))
    if isinstance(value, float):
        return graphql.FloatValueNode(value=repr(value))
    if isinstance(value, str):
        return graphql.StringValueNode(value=value)
    if isinstance(value, list):
        return graphql.ListValueNode(values=tuple(_node(v) for v in value))
    return graphql.ObjectValueNode(fields=tuple(
        graphql.ObjectFieldNode(name=graphql.NameNode(value=k), value=_node(v))
        for k, v in value.items()))


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 200) | st.text(max_size=4),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.sampled_from(["variant", "hands", "turn", "size",
                                                        "seat", "phase", "x"]), inner,
                                       max_size=4), max_leaves=12)
_STATES = st.sampled_from([EXAMPLE_STATE, EXAMPLE_STATE_AFTER, EXAMPLE_DEAL, EXAMPLE_ACTIONS])
# never a top-level null: a `JSON!` argument given null is a GraphQL validation error
_TOP = _JSON.filter(lambda v: v is not None)
schemathesis.graphql.scalar("JSON", st.one_of(_STATES, _TOP).map(_node))

GRAPHQL = schemathesis.graphql.from_path(str(SDL_FILE))
GRAPHQL.app = APP
GRAPHQL.location = "/graphql"


@GRAPHQL.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_graphql_contract(case: Any) -> None:
    case.call_and_validate(session=SESSION, additional_checks=[within_a_second])
