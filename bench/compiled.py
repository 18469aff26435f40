"""Build the engine compiled with mypyc (same source, C extensions) into a folder of its own.

    python bench/compiled.py [DEST]      # default: build/compiled; prints the folder

Put the folder first on PYTHONPATH to use the compiled engine. The hot modules are compiled;
the rest (variants, api) stays Python. Needs mypy (the test extras) and a C compiler.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOT = ("cards", "state", "rules", "reasons", "feasible", "play", "legal", "deal", "scoring",
       "wire")


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


if __name__ == "__main__":
    print(build(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "build" / "compiled"))
