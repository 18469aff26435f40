"""The engine as `pip install .` ships it: a wheel built by setup.py carries the hot modules
compiled with mypyc beside their sources, and that engine plays exactly as the Python one (same
legal actions, same states, same scores, on seeded deals of every variant), the native
writer of legal-action lists and states beside them writes the same text, and the service answers the same
requests alike when the native reader of canonical requests reads them (GraphQL's typed lists
too, which the wheel writes from the engine's lists). The wheel is pure
Python with CANASTA_REFEREE_PURE=1 or when the C compiler fails, and an editable install never
compiles. The wheels are built from a copy of the project with the installed setuptools and
mypy (`pip wheel --no-build-isolation --no-index`: no network)."""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import orjson

from bench.compiled import HOT  # the hot modules, as pyproject.toml lists them
from canasta_referee.engine import (
    VARIANTS,
    Action,
    State,
    action_to_data,
    play,
    rules_for,
    score_deal,
    state_to_data,
)
from canasta_referee.engine.wire import actions_json
from canasta_referee.schema import canonical, handlers, text
from tests.playout import playout

ROOT = Path(__file__).resolve().parent.parent
DEALS = 6
SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)
PY_TAG = f"cp{sys.version_info.major}{sys.version_info.minor}"


def digest() -> dict[str, str]:
    """A hash per variant configuration of every listed action, state and score of its deals,
    and of the service's answers on some of its states."""
    out = {}
    for v in VARIANTS:
        for options in v.configurations:
            rules = rules_for(v.id, options)
            h = hashlib.sha256()
            asked = []
            for seed in range(DEALS):
                for i, (state, actions) in enumerate(playout(rules, seed, check=False)):
                    h.update(json.dumps(state_to_data(state), sort_keys=True).encode())
                    h.update(orjson.dumps(text.state_json(state)))  # the native writer's, if any
                    if i % 5 == 0:
                        h.update(answers(state, actions))
                        asked.append(state_to_data(state))
                    h.update(repr(list(actions)).encode())
                    h.update(actions_json(actions).encode())
                    h.update(text.actions_json(actions).encode())  # the native writer's, if any
                h.update(json.dumps(score_deal(state).as_dict(), sort_keys=True).encode())
            h.update(graphql_answers(asked))
            out[f"{v.id} {options}"] = h.hexdigest()
    return out


#: a typed legalActions query: with the wheel's native writer, each list computed for its
#: request is written straight from the engine's list (``text.typed_writer``); in Python it is
#: completed field by field
TYPED = ("query($s: JSON!) { legalActions(state: $s) { __typename ... on LegalActions { seat "
         "phase actions { type cards card rank seat allow } } ... on Problem { code } } }")


def graphql_answers(states: list[dict[str, object]]) -> bytes:
    """The service's answers (nothing cached) to ``TYPED`` on each state; the first validates
    the document, the others are answered by its plan."""
    from starlette.testclient import TestClient

    from canasta_referee.service.app import create_app
    from canasta_referee.service.settings import Settings

    written = []
    with TestClient(create_app(Settings(log_level="warning", cache_size=0))) as c:
        for s in states:
            r = c.post("/graphql", json={"query": TYPED, "variables": {"s": s}})
            assert r.status_code == 200 and b'"errors"' not in r.content, r.text[:300]
            written.append(r.content)
    return b"\n".join(written)


def answers(state: State, actions: list[Action]) -> bytes:
    """The service's answers to requests on ``state``, read from their bytes as the service
    reads them (by the native reader, where the wheel has it) and answered by the engine."""
    data = state_to_data(state)
    requests = [("validate", {"state": data}), ("legal-actions", {"state": data}),
                ("score", {"state": data}), ("view", {"state": data, "seat": 0})]
    if actions:
        first = [action_to_data(actions[0])]
        requests += [("check", {"state": data, "actions": first}),
                     ("apply", {"state": data, "actions": first})]
    return json.dumps([handlers.handle(op, orjson.dumps(body)) for op, body in requests],
                      sort_keys=True).encode()


def project_copy(dest: Path) -> Path:
    """What an sdist holds, copied from this checkout (no build/, no compiled leftovers)."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    for package in ("canasta_referee", "engine", "schema", "service"):  # the links stay links
        shutil.copytree(ROOT / package, dest / package, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    return dest


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would change the build or hide the installed engine."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CANASTA_REFEREE_PURE", "PIP_REQUIRE_VIRTUALENV")}
    return {**env, **extra}


def build_wheel(src: Path, out: Path, env: dict[str, str]) -> tuple[Path, list[str], str]:
    """`pip wheel` of ``src``: the wheel, its file names, and the build's output."""
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-index",
                           "--no-build-isolation", "-w", str(out), str(src)],
                          env=env, cwd=src.parent, capture_output=True, text=True, timeout=900)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as z:
        return wheels[0], z.namelist(), output


def assert_pure(wheel: Path, names: list[str]) -> None:
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert not [n for n in names if n.endswith(SUFFIXES)], "extension modules in a pure wheel"
    assert {f"canasta_referee/engine/{name}.py" for name in HOT} <= set(names)


def test_wheel_has_the_compiled_engine_and_it_plays_exactly_as_python(tmp_path: Path) -> None:
    assert not play.__file__.endswith(SUFFIXES), "this process must run the Python engine"
    wheel, names, _ = build_wheel(project_copy(tmp_path / "src"), tmp_path / "dist", clean_env())
    assert f"-{PY_TAG}-" in wheel.name and not wheel.name.endswith("-none-any.whl"), wheel.name
    compiled = {n.split("/")[2].split(".")[0] for n in names
                if n.startswith("canasta_referee/engine/") and n.endswith(SUFFIXES)}
    assert compiled == set(HOT), "exactly the hot modules are compiled"
    assert [n for n in names if n.startswith("canasta_referee/schema/_text.")
            and n.endswith(SUFFIXES)], "the native writer of legal-action lists"
    assert {f"canasta_referee/engine/{name}.py" for name in HOT} <= set(names), (
        "sources beside the extensions")

    where = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    "--target", str(where), str(wheel)], env=clean_env(), check=True,
                   capture_output=True, timeout=300)
    env = clean_env(PYTHONPATH=f"{where}{os.pathsep}{ROOT}")  # the engine from the wheel; tests
    check = subprocess.run([sys.executable, str(ROOT / "bench" / "compiled.py"), "--check"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0 and check.stdout.startswith("engine: compiled"), check.stdout
    code = ("import importlib, json; from canasta_referee import engine; "
            "from tests.test_compiled import HOT, digest; "
            "files = {n: importlib.import_module('canasta_referee.engine.' + n).__file__ "
            "for n in HOT}; "
            "from canasta_referee.schema import text; "
            "from canasta_referee.schema import canonical; "
            "from canasta_referee.service import graphql; "
            "print(json.dumps({'files': files, 'build': [engine.BUILD, engine.COMPILED_MODULES], "
            "'writer': text.WRITER, 'reader': canonical.READER, "
            "'projector': text.project is not None, "
            "'typed_writer': graphql.ACTIONS_TEXT is not None, 'digest': digest()}))")
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=True)
    answer = json.loads(proc.stdout)
    for name, file in answer["files"].items():
        assert Path(file).parent == where / "canasta_referee" / "engine", (name, file)
        assert file.endswith(SUFFIXES), (name, file)
    assert answer["build"] == ["compiled", sorted(HOT)]  # what /readyz and /metrics report
    assert answer["writer"] == "native"
    assert answer["reader"] == "native" and canonical.READER == "msgspec"
    assert answer["projector"] and text.project is None  # typed GraphQL lists (_project.c)
    assert answer["typed_writer"]  # and written from the engine's lists (_text.c)
    assert answer["digest"] == digest()


def test_pure_wheel_on_request(tmp_path: Path) -> None:
    wheel, names, output = build_wheel(project_copy(tmp_path / "src"), tmp_path / "dist",
                                       clean_env(CANASTA_REFEREE_PURE="1"))
    assert_pure(wheel, names)
    assert "CANASTA_REFEREE_PURE is set" in output


def test_pure_wheel_with_a_warning_when_the_compiler_is_missing(tmp_path: Path) -> None:
    """mypyc generates the C, but the compiler named by CC (which distutils uses, for linking
    too) does not exist: the build goes on without the extension modules and says why."""
    wheel, names, output = build_wheel(project_copy(tmp_path / "src"), tmp_path / "dist",
                                       clean_env(CC="/nonexistent-compiler"))
    assert_pure(wheel, names)
    warning = [line for line in output.splitlines() if "WARNING: canasta-referee" in line]
    assert warning and "compiling the engine failed" in warning[0], output[-4000:]
    assert "/nonexistent-compiler" in warning[0], "the build did not try the missing compiler"


def throwaway_venv(where: Path) -> Path:
    """A venv whose packages are this interpreter's own (its pip, setuptools and the project's
    dependencies), not those of the base interpreter under it: `--system-site-packages` would
    reach the base's, which inside a venv may be far older (a fresh machine's Python ships
    setuptools 65, without ``setuptools.command.bdist_wheel``; pyproject.toml needs 77). The
    site-packages folders are named in a ``.pth`` file, so no copy, no network, a second or
    so; the venv's own site-packages comes first, so what is installed into it wins."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True,
                   timeout=120)
    python = where / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                          "['purelib'])"], check=True, capture_output=True, text=True,
                         timeout=60).stdout.strip()
    ours = [p for p in (*site.getsitepackages(), site.getusersitepackages()) if Path(p).is_dir()]
    (Path(own) / "_running_interpreter.pth").write_text("".join(f"{p}\n" for p in ours))
    return python


def test_throwaway_venv_has_this_interpreters_packages(tmp_path: Path) -> None:
    """The venv the editable install goes into builds with this interpreter's setuptools (the
    one `pip install -e '.[test]'` installed), wherever this interpreter's base is."""
    import setuptools

    python = throwaway_venv(tmp_path / "venv")
    code = ("import json, sys, setuptools, setuptools.command.bdist_wheel, pip; "
            "print(json.dumps([sys.prefix, setuptools.__file__, setuptools.__version__]))")
    proc = subprocess.run([str(python), "-c", code], env=clean_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    prefix, file, version = json.loads(proc.stdout)
    assert Path(prefix) == tmp_path / "venv"
    assert (file, version) == (setuptools.__file__, setuptools.__version__)


def test_editable_install_is_pure_python(tmp_path: Path) -> None:
    """`pip install -e .` (CI, development): nothing compiled, the checkout's sources run."""
    src = project_copy(tmp_path / "src")
    python = throwaway_venv(tmp_path / "venv")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                              "--no-build-isolation", "-e", str(src)], env=clean_env(),
                             cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, (install.stdout + install.stderr)[-4000:]
    assert not [p for p in src.rglob("*") if p.name.endswith(SUFFIXES)], "compiled in the checkout"
    code = ("import json; from canasta_referee import engine; "
            "print(json.dumps([engine.__file__, engine.play.__file__, engine.BUILD]))")
    proc = subprocess.run([str(python), "-c", code], env=clean_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, check=True)
    package, play, build = json.loads(proc.stdout)
    # the editable install, not another (the package's engine is the checkout's engine/)
    assert Path(package).resolve().parent == src / "engine", package
    assert Path(play).resolve() == src / "engine" / "play.py"
    assert build == "python"


def test_installed_beside_packages_named_engine_schema_and_service(tmp_path: Path) -> None:
    """Issue 16: the wheel takes one import name, ``canasta_referee``, and ships ``py.typed``;
    installed into an environment whose own packages are called ``engine``, ``schema`` and
    ``service``, both those and ours import, and the console script runs."""
    wheel, names, _ = build_wheel(project_copy(tmp_path / "src"), tmp_path / "dist",
                                  clean_env(CANASTA_REFEREE_PURE="1"))
    assert {n.split("/")[0] for n in names if "/" in n and ".dist-info/" not in n} == {
        "canasta_referee"}, "only canasta_referee/ at the top"
    assert "canasta_referee/py.typed" in names
    python = throwaway_venv(tmp_path / "venv")
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                   "['purelib'])"], check=True, capture_output=True, text=True,
                                  timeout=60).stdout.strip())
    for name in ("engine", "schema", "service"):  # the application's own packages
        (purelib / name).mkdir()
        (purelib / name / "__init__.py").write_text(f"MINE = {name!r}\n")
    install = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index",
                              str(wheel)], env=clean_env(), cwd=tmp_path, capture_output=True,
                             text=True, timeout=300)
    assert install.returncode == 0, (install.stdout + install.stderr)[-4000:]
    code = ("import json, engine, schema, service; "
            "from canasta_referee.service.app import create_app; "
            "from canasta_referee import engine as ours; create_app(); "
            "print(json.dumps([engine.MINE, schema.MINE, service.MINE, ours.__file__, "
            "ours.legal_actions.__module__]))")
    proc = subprocess.run([str(python), "-c", code], env=clean_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-4000:]
    mine_e, mine_s, mine_v, ours_file, module = json.loads(proc.stdout)
    assert (mine_e, mine_s, mine_v) == ("engine", "schema", "service")
    assert Path(ours_file) == purelib / "canasta_referee" / "engine" / "__init__.py"
    assert module == "canasta_referee.engine.legal"
    script = subprocess.run([str(tmp_path / "venv" / "bin" / "canasta-referee"), "variants"],
                            env=clean_env(), cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert script.returncode == 0, script.stderr[-2000:]
    assert "classic" in script.stdout
