"""bench/compiled.py rebuilds its folder when the sources it compiles change, so a benchmark
with ``--compiled`` never runs an engine older than the checkout."""

from __future__ import annotations

import shutil
from pathlib import Path

from bench.compiled import NATIVE_SOURCES, ROOT, STAMP, ensure_built, sources_digest


def _copy(root: Path) -> Path:
    for part in ("engine", "schema"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__",
                                                                               "*.so"))
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_digest_follows_the_compiled_sources(tmp_path: Path) -> None:
    root = _copy(tmp_path / "checkout")
    before = sources_digest(root)
    assert before == sources_digest(ROOT)
    for edited in ("engine/wire.py", "engine/variants/german.py", *NATIVE_SOURCES):
        path = root / edited
        text = path.read_text()
        path.write_text(text + "\n")
        assert sources_digest(root) != before, edited
        path.write_text(text)
    assert sources_digest(root) == before
    (root / "schema" / "models.py").write_text("# not compiled: no rebuild\n")
    assert sources_digest(root) == before


def test_a_folder_built_from_the_present_sources_is_kept(tmp_path: Path) -> None:
    dest = tmp_path / "compiled"
    for part in ("engine/wire", "schema/_text"):
        (dest / "canasta_referee" / part).parent.mkdir(parents=True, exist_ok=True)
        (dest / "canasta_referee" / f"{part}.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (dest / STAMP).write_text(sources_digest() + "\n")
    marker = dest / "canasta_referee" / "kept"
    marker.write_text("")
    assert ensure_built(dest) == dest and marker.exists()  # a rebuild would have removed it
