"""Build the engine compiled with mypyc (same source, C extensions) into a folder of its own, and
tell which engine an interpreter runs.

    python bench/compiled.py [DEST]      # default: build/compiled; prints the folder
    python bench/compiled.py --check     # which engine `import engine` loads; exit 1 unless compiled

`pip install .` installs the compiled engine already (setup.py); this folder is for the benchmarks
(`bench/engine.py --compiled`, `bench/http.py --compiled`) against a checkout. Put it first on
PYTHONPATH to use it. The hot modules (`[tool.canasta-referee] mypyc` in pyproject.toml, the list
setup.py compiles) are compiled; the rest (variants, tables, views) stays Python. Needs mypy (the
test extras) and a C compiler.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys
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
    compiled = set(importlib.import_module("engine").COMPILED_MODULES) & set(HOT)
    return "compiled" if compiled == set(HOT) else "python" if not compiled else "mixed"


def build(dest: Path = ROOT / "build" / "compiled") -> Path:
    """Copy ``engine/`` to ``dest`` and compile its hot modules there; return ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(ROOT / "engine", dest / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    modules = [f"engine/{name}.py" for name in HOT]
    subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    shutil.rmtree(dest / "build", ignore_errors=True)
    return dest


def check() -> int:
    """Print which engine this interpreter runs and from where; 0 if it is the compiled one."""
    which = engine_build()
    engine = importlib.import_module("engine")
    print(f"engine: {which} ({Path(engine.__file__ or '').parent})")
    if which == "mixed":
        for name in HOT:
            module = importlib.import_module(f"engine.{name}")
            print(f"  engine.{name}: {module.__file__}")
    return 0 if which == "compiled" else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        # this script's folder (first on sys.path) holds bench/engine.py, not the engine package
        sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
        sys.exit(check())
    print(build(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "build" / "compiled"))
