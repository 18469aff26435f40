"""Engine speed: legal-actions latency over a corpus of playout states, and random playout
throughput, each next to a baseline measured in the same process.

    python bench/engine.py            # a table
    python bench/engine.py --json     # one JSON object

The corpus: every state of seeded random playouts (uniform over legal actions), plus the
states of "hoarding" playouts that rarely meld and always take the pile when they can, so
that big hands after large pile pickups are in it. Baseline: a stdlib ``json`` round trip of
the same state's wire form (what any service must at least do with a request).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# this file is bench/engine.py: its folder must not hide the engine package
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
if "PYTHONPATH" not in __import__("os").environ:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
else:  # the compiled engine's folder first, then the project (for anything not compiled)
    sys.path.append(str(Path(__file__).resolve().parent.parent))

from canasta_referee.engine import VARIANTS, apply_action, deal, legal_actions, rules_for, state_to_data  # noqa: E402
from canasta_referee.engine.rules import RuleSet  # noqa: E402
from canasta_referee.engine.state import State  # noqa: E402


def collect(rules: RuleSet, deals: int, hoard: bool, seed0: int) -> list[State]:
    states: list[State] = []
    for seed in range(seed0, seed0 + deals):
        rng = random.Random(seed)
        state, _ = deal(rules, seed=seed, dealer=seed % rules.players)
        while state.turn.phase != "over":
            actions = legal_actions(state)
            states.append(state)
            if hoard:
                takes = [a for a in actions if a.kind == "take-pile"]
                discards = [a for a in actions if a.kind == "discard"]
                melds = [a for a in actions if a.kind == "meld"]
                if takes:
                    action = rng.choice(takes)
                elif melds and rng.random() < 0.1:
                    action = rng.choice(melds)
                elif discards:
                    action = rng.choice(discards)
                else:
                    action = rng.choice(actions)
            else:
                action = rng.choice(actions)
            state, _ = apply_action(state, action)
    return states


def fresh(state: State) -> State:
    """A copy the engine has not seen (no cached context), so every call is measured cold."""
    return State(*state)


def time_each(states: list[State], fn: Any, repeat: int = 3) -> list[float]:
    """Best-of-``repeat`` seconds per state."""
    out = []
    for s in states:
        best = float("inf")
        for _ in range(repeat):
            arg = fresh(s) if isinstance(s, State) else s
            t = time.perf_counter()
            fn(arg)
            best = min(best, time.perf_counter() - t)
        out.append(best)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def playouts(rules: RuleSet, deals: int, seed0: int) -> tuple[int, float]:
    """Random playouts (list the legal actions, pick one uniformly, apply it)."""
    actions = 0
    start = time.perf_counter()
    for seed in range(seed0, seed0 + deals):
        rng = random.Random(seed)
        state, _ = deal(rules, seed=seed, dealer=seed % rules.players)
        while state.turn.phase != "over":
            state, _ = apply_action(state, rng.choice(legal_actions(state)))
            actions += 1
    return actions, time.perf_counter() - start


def measure(variant: str, deals: int, playout_deals: int,
            options: dict[str, Any] | None = None) -> dict[str, Any]:
    rules = rules_for(variant, options or {})
    corpus = collect(rules, deals, hoard=False, seed0=1) + collect(rules, deals, True, 10_001)
    wire = [json.dumps(state_to_data(s)) for s in corpus]
    legal = time_each(corpus, legal_actions)
    base = time_each(wire, lambda text: json.dumps(json.loads(text)))
    sizes = [s.hand_sizes[s.turn.seat] for s in corpus]
    big = [t for t, n in zip(legal, sizes, strict=True) if n >= 30]
    n_actions, seconds = playouts(rules, playout_deals, seed0=50_001)
    return {
        "variant": variant + "".join(f" {k}={v}" for k, v in (options or {}).items()),
        "corpus_states": len(corpus),
        "corpus_max_hand": max(sizes),
        "corpus_states_hand_30_plus": len(big),
        "legal_actions_us_median": round(statistics.median(legal) * 1e6, 1),
        "legal_actions_us_p99": round(pct(legal, 0.99) * 1e6, 1),
        "legal_actions_us_max": round(max(legal) * 1e6, 1),
        "legal_actions_us_median_hand_30_plus": round(statistics.median(big) * 1e6, 1)
        if big else None,
        "baseline_json_roundtrip_us_median": round(statistics.median(base) * 1e6, 1),
        "legal_actions_vs_json_roundtrip": round(statistics.median(legal)
                                                 / statistics.median(base), 2),
        "playout_deals": playout_deals,
        "playout_actions": n_actions,
        "playout_actions_per_s": round(n_actions / seconds),
        "playout_deals_per_s": round(playout_deals / seconds, 1),
    }


def run_all(configs: list[tuple[str, dict[str, Any]]], deals: int,
            playouts: int) -> list[dict[str, Any]]:
    return [measure(v, deals, playouts, o) for v, o in configs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--deals", type=int, default=40, help="deals per corpus kind")
    parser.add_argument("--playouts", type=int, default=200, help="deals of random playout")
    parser.add_argument("--variant", help="one variant (default: every variant and player count)")
    parser.add_argument("--compiled", action="store_true",
                        help="also measure the engine compiled with mypyc (bench/compiled.py), "
                             "in a second process of the same run")
    parser.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.variant:
        configs = [(args.variant, {})]
    else:
        configs = [(v.id, o) for v in VARIANTS for o in v.configurations]
    results = run_all(configs, args.deals, args.playouts)
    build = "mypyc" if engine_is_compiled() else "python"
    for r in results:
        r["build"] = build
    if args.raw:
        print(json.dumps(results))
        return
    if args.compiled:
        results += compiled_results(args)
    if args.json:
        # four-player classic (or the variant asked for) of the fastest build at the top level,
        # every one under "variants"
        build = "mypyc" if args.compiled else results[0]["build"]
        main = [r for r in results if r["build"] == build
                and r["variant"] in ("classic players=4", args.variant)]
        top = main[0] if main else results[0]
        print(json.dumps({**top, "variants": {f"{r['variant']} [{r['build']}]": r
                                              for r in results}}))
        return
    goals = {"legal_actions_us_median": "<= 100", "legal_actions_us_p99": "<= 2000",
             "playout_actions_per_s": ">= 50000"}
    keys = [k for k in results[0] if k not in ("variant", "build")]
    width = max(len(k) for k in keys)
    print(f"{'figure':<{width}}  " + "  ".join(f"{r['variant']:>22}" for r in results) + "  goal")
    print(f"{'build':<{width}}  " + "  ".join(f"{r['build']:>22}" for r in results))
    for key in keys:
        cells = "  ".join(f"{r[key]!s:>22}" for r in results)
        print(f"{key:<{width}}  {cells}  {goals.get(key, '')}")


def engine_is_compiled() -> bool:
    from canasta_referee.engine import play

    return not play.__file__.endswith(".py")


def compiled_results(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The same figures from the mypyc-compiled engine, measured in a second process."""
    import importlib.util
    import subprocess
    import tempfile

    spec = importlib.util.spec_from_file_location("compiled", Path(__file__).with_name("compiled.py"))
    assert spec is not None and spec.loader is not None
    compiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compiled)
    build = compiled.build

    with tempfile.TemporaryDirectory() as tmp:
        where = build(Path(tmp) / "compiled")
        cmd = [sys.executable, __file__, "--raw", "--deals", str(args.deals),
               "--playouts", str(args.playouts)] + (["--variant", args.variant]
                                                     if args.variant else [])
        env = {**__import__("os").environ, "PYTHONPATH": str(where)}
        out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    results: list[dict[str, Any]] = json.loads(out)
    return results


if __name__ == "__main__":
    main()
