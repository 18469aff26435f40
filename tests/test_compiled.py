"""The mypyc-compiled engine (bench/compiled.py, the fast build) plays exactly as the Python one:
same legal actions, same states, same scores, on seeded deals of every variant."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from engine import VARIANTS, rules_for, score_deal, state_to_data
from tests.playout import playout

ROOT = Path(__file__).resolve().parent.parent
DEALS = 6


def digest() -> dict[str, str]:
    """A hash per variant configuration of every listed action, state and score of its deals."""
    out = {}
    for v in VARIANTS:
        for options in v.configurations:
            rules = rules_for(v.id, options)
            h = hashlib.sha256()
            for seed in range(DEALS):
                for state, actions in playout(rules, seed, check=False):
                    h.update(json.dumps(state_to_data(state), sort_keys=True).encode())
                    h.update(repr(list(actions)).encode())
                h.update(json.dumps(score_deal(state).as_dict(), sort_keys=True).encode())
            out[f"{v.id} {options}"] = h.hexdigest()
    return out


def test_compiled_engine_plays_exactly_as_python(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("compiled", ROOT / "bench" / "compiled.py")
    assert spec is not None and spec.loader is not None
    compiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compiled)
    where = compiled.build(tmp_path / "compiled")
    code = ("import json, engine.play as p; from tests.test_compiled import digest; "
            "print(json.dumps({'compiled': not p.__file__.endswith('.py'), 'digest': digest()}))")
    env = {**os.environ, "PYTHONPATH": f"{where}{os.pathsep}{ROOT}"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, check=True)
    answer = json.loads(proc.stdout)
    assert answer["compiled"], "the subprocess did not load the compiled engine"
    assert answer["digest"] == digest()
