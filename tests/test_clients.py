"""The published client artifacts: the JSON Schema of a state (clients/json-schema) and the
TypeScript types generated from the OpenAPI document with openapi-typescript (clients/typescript),
with the example client that uses them.

The TypeScript tests run the pinned tools from clients/typescript/node_modules (`npm ci` there,
which .ci/run does); without node and npm they fail.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from canasta_referee.schema.models import EXAMPLE_FULL_STATE, EXAMPLE_OVER_STATE, EXAMPLE_STATE
from canasta_referee.service import openapi

from .servers import ROOT, Service

TS = ROOT / "clients" / "typescript"
PACKAGE = json.loads((TS / "package.json").read_text())


# --- JSON Schema of the state -------------------------------------------------------------------


def test_state_json_schema_is_current() -> None:
    assert openapi.STATE_SCHEMA.read_bytes() == openapi.state_schema_bytes(), (
        "run `python -m canasta_referee.service.openapi` to regenerate clients/json-schema/state.schema.json")


def test_state_json_schema_accepts_states_and_refuses_bad_ones() -> None:
    schema = json.loads(openapi.STATE_SCHEMA.read_bytes())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for state in (EXAMPLE_STATE, EXAMPLE_FULL_STATE, EXAMPLE_OVER_STATE):
        validator.validate(state)
    bad = json.loads(json.dumps(EXAMPLE_STATE))
    bad["hands"][0][3] = "XX"
    bad["turn"]["phase"] = "dance"
    bad["colour"] = "red"
    paths = {"/" + "/".join(map(str, e.absolute_path)) for e in validator.iter_errors(bad)}
    assert paths == {"/hands/0", "/turn/phase", "/"}, paths  # hands/0: cards or {size}


def test_state_json_schema_is_the_openapi_state() -> None:
    """The file is the document's State, with its references local."""
    schema = json.loads(openapi.STATE_SCHEMA.read_bytes())
    components = json.loads(openapi.COMMITTED.read_bytes())["components"]["schemas"]
    text = json.dumps(components["State"]).replace("#/components/schemas/", "#/$defs/")
    assert json.loads(text) == {k: v for k, v in schema.items()
                                if k not in ("$schema", "$comment", "$defs")}
    for name, definition in schema["$defs"].items():
        text = json.dumps(components[name]).replace("#/components/schemas/", "#/$defs/")
        assert json.loads(text) == definition, name


# --- TypeScript ---------------------------------------------------------------------------------


def npx(*args: str, cwd: Path = TS) -> subprocess.CompletedProcess[str]:
    """A tool pinned in clients/typescript/package.json, from its node_modules (never fetched)."""
    assert shutil.which("node") and shutil.which("npx"), (
        "node and npm are needed for the TypeScript client tests")
    for tool, version in PACKAGE["devDependencies"].items():
        installed = TS / "node_modules" / tool / "package.json"
        assert installed.exists(), "run `npm ci` in clients/typescript (.ci/run does)"
        assert json.loads(installed.read_text())["version"] == version, (
            f"{tool} is not the pinned {version}: run `npm ci` in clients/typescript")
    return subprocess.run(["npx", "--no-install", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False)


def test_typescript_types_are_current(tmp_path: Path) -> None:
    """schema.d.ts is what `npm run generate` makes from openapi/openapi.json now."""
    command = shlex.split(PACKAGE["scripts"]["generate"])
    assert command[0] == "openapi-typescript" and command[-2] == "--output"
    out = tmp_path / "schema.d.ts"
    run = npx(*command[:-1], str(out))
    assert run.returncode == 0, run.stderr
    assert out.read_text() == (TS / "schema.d.ts").read_text(), (
        "run `npm run generate` in clients/typescript to regenerate schema.d.ts")


def test_typescript_example_compiles_and_the_types_constrain(tmp_path: Path) -> None:
    run = npx("tsc", "--noEmit", "-p", ".")
    assert run.returncode == 0, run.stdout + run.stderr
    # a program that misuses the types does not compile: the types are the document's
    (tmp_path / "bad.ts").write_text(
        f'import type {{ components }} from "{TS / "schema"}";\n'
        'export const s: components["schemas"]["State"] = {\n'
        '  scores: [0, 0], hands: [["QS"]], melds: [[]], bonus_cards: [[]], discard: [],\n'
        '  stock: { size: "many" }, turn: { seat: 0, phase: "dance" } };\n')
    config = json.loads((TS / "tsconfig.json").read_text())
    config["files"] = [str(tmp_path / "bad.ts")]
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    run = npx("tsc", "--noEmit", "-p", str(tmp_path / "tsconfig.json"))
    assert run.returncode != 0
    assert "bad.ts(4," in run.stdout and "'\"dance\"'" in run.stdout, run.stdout
    assert "'string' is not assignable to type 'number'" in run.stdout, run.stdout


@pytest.fixture(scope="module")
def server() -> Any:
    service = Service().start()
    try:
        yield service
    finally:
        service.stop()


def test_typescript_example_calls_the_service(server: Service, tmp_path: Path) -> None:
    """example.ts, compiled, asks a real server for legal actions: the documented answer; and a
    refusal comes back as a RefereeError with the problem's code."""
    run = npx("tsc", "-p", ".", "--noEmit", "false", "--outDir", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    (tmp_path / "package.json").write_text('{"type": "module"}')
    script = f"""
import {{ legalActions, exampleState, playableCards, RefereeError }} from
  "{(tmp_path / "example.js").as_uri()}";
const answer = await legalActions("{server.url}", exampleState);
let refusal = null;
try {{
  await legalActions("{server.url}", {{ ...exampleState, variant: "samba" }}, "de");
}} catch (e) {{
  refusal = e instanceof RefereeError ? [e.status, e.problem.code, e.problem.detail] : String(e);
}}
console.log(JSON.stringify({{ answer, cards: [...playableCards(answer)].sort(), refusal }}));
"""
    node = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60, check=False)
    assert node.returncode == 0, node.stderr
    out = json.loads(node.stdout)
    document = json.loads(openapi.COMMITTED.read_bytes())
    documented = document["paths"]["/v1/legal-actions"]["post"]["responses"]["200"]["content"][
        "application/json"]["examples"]["draw"]["value"]
    assert out["answer"] == documented
    assert out["cards"] == ["8H", "JK"]
    german = httpx.post(server.url + "/v1/legal-actions", headers={"accept-language": "de"},
                        json={"state": {**EXAMPLE_STATE, "variant": "samba"}}).json()
    assert out["refusal"] == [422, "UNKNOWN_VARIANT", german["detail"]], out
    assert german["detail"] != "Unknown variant 'samba'."  # the example passed the language on


def test_every_documented_answer_has_its_typescript_type(server: Service, tmp_path: Path) -> None:
    """Each answer the OpenAPI document shows (the service's own answers to its examples, every
    status) and the live ``/readyz`` (Redis off) are values of their generated types: a type the
    document leaves open (an object without properties, typed ``Record<string, never>``) fails
    to compile here, as it would in a client."""
    document = json.loads(openapi.COMMITTED.read_bytes())
    lines = [f'import type {{ components, paths }} from "{TS / "schema"}";']
    count = 0

    def typed(where: str, answer: Any) -> None:
        nonlocal count
        lines.append(f"export const a{count}: {where} = {json.dumps(answer)};")
        count += 1

    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            for status, response in operation["responses"].items():
                for media, content in response.get("content", {}).items():
                    if "json" not in media:
                        continue
                    for example in content.get("examples", {}).values():
                        typed(f'paths["{path}"]["{method}"]["responses"][{status}]["content"]'
                              f'["{media}"]', example["value"])
    for name, response in document["components"]["responses"].items():
        for media, content in response["content"].items():
            for example in content["examples"].values():
                typed(f'components["responses"]["{name}"]["content"]["{media}"]',
                      example["value"])
    typed('paths["/readyz"]["get"]["responses"][200]["content"]["application/json"]',
          httpx.get(server.url + "/readyz").json())
    assert count > 40
    (tmp_path / "answers.ts").write_text("\n".join(lines) + "\n")
    config = json.loads((TS / "tsconfig.json").read_text())
    config["files"] = [str(tmp_path / "answers.ts")]
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    run = npx("tsc", "--noEmit", "-p", str(tmp_path / "tsconfig.json"))
    assert run.returncode == 0, run.stdout[:3000]
