"""Build the engine compiled with mypyc (same source, C extensions) into a folder of its own, and
tell which engine an interpreter runs.

    python bench/compiled.py [DEST]      # default: build/compiled; prints the folder
    python bench/compiled.py --check     # which engine and writer run; exit 1 unless compiled and native

`pip install .` installs the compiled engine already (setup.py); this folder is for the benchmarks
(`bench/engine.py --compiled`, `bench/http.py --compiled`) against a checkout. Put it first on
PYTHONPATH to use it: it holds a ``canasta_referee`` package whose engine is the compiled copy,
whose schema holds links to the checkout's files and the native writer of legal-action lists
(schema/_text.c) built beside them, and whose service is a link to the checkout's. The hot
modules (`[tool.canasta-referee] mypyc` in pyproject.toml, the list setup.py compiles) are
compiled; the rest (variants, tables, views) stays Python. Needs mypy (the test extras) and a C
compiler.

The benchmarks build it again when the engine's or the native modules' sources changed since
(``ensure_built``); a server or script started by hand with this folder on PYTHONPATH runs what
was built last: after changing those sources, run this script again first.
"""

from __future__ import annotations

import hashlib
import importlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def hot_modules(root: Path = ROOT) -> tuple[str, ...]:
    """The engine modules compiled with mypyc: ``[tool.canasta-referee] mypyc`` in pyproject.toml."""
    with open(root / "pyproject.toml", "rb") as f:
        return tuple(tomllib.load(f)["tool"]["canasta-referee"]["mypyc"])


HOT = hot_modules()


def engine_build() -> str:
    """"compiled" if every hot engine module was loaded from a C extension, "python" if none was,
    else "mixed" (which should not happen); imports the engine (``engine.COMPILED_MODULES``)."""
    compiled = set(importlib.import_module("canasta_referee.engine").COMPILED_MODULES) & set(HOT)
    return "compiled" if compiled == set(HOT) else "python" if not compiled else "mixed"


def build(dest: Path = ROOT / "build" / "compiled") -> Path:
    """Make ``dest/canasta_referee``: a copy of ``engine/`` with its hot modules compiled, links
    to ``schema/``'s files with the native writer beside them, and a link to the checkout's
    ``service/``; return ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    package = dest / "canasta_referee"
    package.mkdir(parents=True)
    shutil.copy2(ROOT / "canasta_referee" / "__init__.py", package / "__init__.py")
    shutil.copytree(ROOT / "engine", package / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    # schema/: a link to each of the checkout's files (edits show without a rebuild) beside the
    # native writer built here
    (package / "schema").mkdir()
    for path in (ROOT / "schema").iterdir():
        if path.name != "__pycache__" and path.suffix not in (".so", ".pyd"):
            (package / "schema" / path.name).symlink_to(path)
    build_native(package / "schema")
    (package / "service").symlink_to(ROOT / "service", target_is_directory=True)
    modules = [f"canasta_referee/engine/{name}.py" for name in HOT]
    subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    shutil.rmtree(dest / "build", ignore_errors=True)
    (dest / STAMP).write_text(sources_digest() + "\n")
    return dest


#: the file in a built folder that names the sources it was built from (``sources_digest``)
STAMP = "SOURCES.sha256"
#: the native module's C: the writer of legal-action lists, the reader of canonical requests, the
#: projector of typed GraphQL lists
NATIVE_SOURCES = ("schema/_text.c", "schema/_read.c", "schema/_project.c")


def sources_digest(root: Path = ROOT) -> str:
    """SHA-256 of what a build compiles: the engine's Python files, the native writer's C and
    the list of hot modules (pyproject.toml)."""
    digest = hashlib.sha256()
    files = sorted([*(root / "engine").rglob("*.py"), *(root / f for f in NATIVE_SOURCES),
                    root / "pyproject.toml"])
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_native(folder: Path) -> Path:
    """Compile schema/_text.c (the native writer of legal-action lists) into ``folder`` as the
    extension module ``_text``, as setup.py's wheel build does; return its file."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    sources = [str(ROOT / f) for f in NATIVE_SOURCES]
    command = build_ext(Distribution({"ext_modules": [Extension("_text", sources)]}))
    with tempfile.TemporaryDirectory() as tmp:
        command.build_lib, command.build_temp = str(folder), tmp
        command.ensure_finalized()
        command.run()
    [built] = [p for p in folder.glob("_text.*") if p.suffix in (".so", ".pyd")]
    return built


def ensure_built(dest: Path = ROOT / "build" / "compiled") -> Path:
    """``dest`` as ``build`` makes it, built now unless it holds the compiled engine and the
    native writer built from the checkout's present sources; return ``dest``."""
    built = [any(dest.glob(f"canasta_referee/{part}.*.so")) for part in ("engine/wire",
                                                                        "schema/_text")]
    stamp = dest / STAMP
    current = stamp.exists() and stamp.read_text().strip() == sources_digest()
    return dest if all(built) and current else build(dest)


def check() -> int:
    """Print which engine, which writer of legal-action lists and which reader of canonical
    requests this interpreter runs, and from where; 0 if they are the compiled engine and the
    native writer and reader."""
    which = engine_build()
    engine = importlib.import_module("canasta_referee.engine")
    print(f"engine: {which} ({Path(engine.__file__ or '').parent})")
    writer = importlib.import_module("canasta_referee.schema.text").WRITER
    reader = importlib.import_module("canasta_referee.schema.canonical").READER
    print(f"writer: {writer}")
    print(f"reader: {reader}")
    if which == "mixed":
        for name in HOT:
            module = importlib.import_module(f"canasta_referee.engine.{name}")
            print(f"  engine.{name}: {module.__file__}")
    return 0 if which == "compiled" and writer == "native" and reader == "native" else 1


if __name__ == "__main__":
    # this script's folder (first on sys.path) holds bench/engine.py, not the engine package, and
    # bench/http.py, which would shadow the standard library's http (setuptools imports it)
    sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    print(build(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "build" / "compiled"))
