"""Wheels (`pip install .`) carry the engine's hot modules compiled with mypyc, beside their sources,
and the native writer of legal-action lists, reader of canonical requests and projector of typed
GraphQL lists (schema/_text.c, schema/_read.c, schema/_project.c).

The modules are `[tool.canasta-referee] mypyc` in pyproject.toml (bench/compiled.py reads the same
list). The wheel is pure Python, with a warning on stderr (`pip install -v .` shows it), when mypyc
or the C compiler fails (no compiler, no Python headers), and always:

- for editable installs (`pip install -e .`): the sources in the checkout are what runs;
- with CANASTA_REFEREE_PURE=1 in the environment.

The metadata is pyproject.toml's; this file only adds the extension modules.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

ROOT = Path(__file__).resolve().parent
PURE_VARIABLE = "CANASTA_REFEREE_PURE"


def hot_modules() -> list[str]:
    """The engine modules to compile, as `canasta_referee/engine/NAME.py` paths relative to the project."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        names = tomllib.load(f)["tool"]["canasta-referee"]["mypyc"]
    return [f"canasta_referee/engine/{name}.py" for name in names]


#: the native writer of legal-action lists and reader of canonical requests (schema/text.py and
#: schema/canonical.py use it when it is installed)
NATIVE_WRITER = Extension("canasta_referee.schema._text", ["canasta_referee/schema/_text.c",
                                                           "canasta_referee/schema/_read.c",
                                                           "canasta_referee/schema/_project.c"])


def warn(why: str) -> None:
    print(f"WARNING: canasta-referee: {why}; building a pure-Python wheel (the slower engine)",
          file=sys.stderr, flush=True)


def compiled_extensions() -> list[Extension]:
    """mypyc's extension modules for the hot modules (C generated now, compiled by build_ext), or
    none if mypyc is missing or refuses the code."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        print(f"canasta-referee: {PURE_VARIABLE} is set: pure-Python wheel", file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        warn(f"mypyc is not available ({exc})")
        return []
    try:
        return [*mypycify(hot_modules()), NATIVE_WRITER]
    except (Exception, SystemExit) as exc:  # mypyc reports type errors with sys.exit
        warn(f"mypyc failed ({exc})")
        return []


class BdistWheel(bdist_wheel):
    """A wheel (`pip install .`, `pip wheel`, `python -m build`): the extension modules are added
    when this command runs, and only then. Editable installs run `editable_wheel`, which never
    runs this command (it only reads the wheel tag from it), and metadata preparation neither:
    both stay without extension modules, and without mypyc's work."""

    def run(self) -> None:
        if not self.distribution.ext_modules:
            self.distribution.ext_modules = compiled_extensions()
        self.root_is_pure = not self.distribution.has_ext_modules()  # the wheel's tag
        super().run()


class BuildExt(build_ext):
    """Compile the extensions; if that fails, drop them and make the wheel pure Python."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, BaseError, OSError) as exc:
            warn(f"compiling the engine failed ({exc})")
            for ext in self.extensions:  # half-built or stale outputs must not reach the wheel
                Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self.extensions = []
            self.distribution.ext_modules = []
            wheel: Any = self.distribution.get_command_obj("bdist_wheel", create=False)
            if wheel is not None:
                wheel.root_is_pure = True


setup(cmdclass={"bdist_wheel": BdistWheel, "build_ext": BuildExt})
