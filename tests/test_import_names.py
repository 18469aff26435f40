"""Issue 16: the project takes one import name. Every module of the checkout (the package, its
tests, its benchmarks) imports the engine, the schema and the service as ``canasta_referee.*``:
an import of a bare ``engine``, ``schema`` or ``service`` would load a second copy of the same
code under another name in a checkout, and another project's package of that name when installed
(tests/test_compiled.py installs the wheel beside such packages)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("engine", "schema", "service", "tests", "bench")
BARE = {"engine", "schema", "service"}


def bare_imports(source: str) -> list[tuple[int, str]]:
    """The line and module of each import of a bare engine, schema or service in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in BARE]
        elif (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
              and node.module.split(".")[0] in BARE):
            found.append((node.lineno, node.module))
    return found


def test_the_check_sees_a_bare_import() -> None:
    assert bare_imports("import engine\nfrom schema.models import State\n") == [
        (1, "engine"), (2, "schema.models")]
    assert bare_imports("from canasta_referee.engine import play\nfrom . import wire\n") == []


def test_every_module_imports_the_package_by_its_one_name() -> None:
    files = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100
    offenders = {str(p.relative_to(ROOT)): found for p in files
                 if (found := bare_imports(p.read_text()))}
    assert offenders == {}


def test_the_package_links_to_the_repository_folders() -> None:
    for name in BARE:
        link = ROOT / "canasta_referee" / name
        assert link.is_symlink() and link.resolve() == ROOT / name, link
    assert (ROOT / "canasta_referee" / "py.typed").is_file()
