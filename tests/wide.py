"""A wide random run, on demand (not part of the gate): seeded deals of every configuration of
``tests/test_properties.py`` played by several kinds of player (uniform, eager, hoarder,
reluctant, asker, goer, and a mix of them per seat), checking at every state what the property
tests check (cards kept, the state validates and round-trips, listing is pure and repeatable,
listed actions apply, unlisted probes are refused, some legal action until the deal is over)
and that every seat's view validates and round-trips; at the end, that the score adds up.

    python tests/wide.py --seeds 7000-7299,9000-9299          # about 20 minutes on two cores
    python tests/wide.py --seeds 9300-9359 --exhaustive 2     # the full closure check too

It runs the compiled engine (``bench/compiled.py`` builds it when missing; ``--allow-pure``
runs the Python one), groups failures by message and writes each with its state to ``--out``.
Pin what it finds as a test of the rule it breaks, naming the rule's source.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))
if "--allow-pure" not in sys.argv:
    from bench.compiled import ensure_built

    sys.path.insert(0, str(ensure_built()))

import canasta_referee.engine.wire as _wire  # noqa: E402

if not _wire.__file__.endswith(".so") and "--allow-pure" not in sys.argv:
    raise SystemExit(f"not the compiled engine: {_wire.__file__}")

from canasta_referee.engine import (  # noqa: E402
    IllegalAction,
    apply_action,
    legal_actions,
    rules_for,
    score_deal,
    state_from_data,
    state_to_data,
    validate_data,
)
from canasta_referee.engine.deal import deck  # noqa: E402
from canasta_referee.engine.state import action_class  # noqa: E402
from canasta_referee.engine.views import view_for  # noqa: E402
from canasta_referee.engine.wire import action_to_data  # noqa: E402
from tests.playout import all_cards, deal_for, every_candidate, random_action, resolved  # noqa: E402
from tests.test_properties import CONFIGS  # noqa: E402

STRATEGIES = ["uniform", "eager", "hoarder", "reluctant", "asker", "goer", "mixed"]
MAX_STEPS = 3000
TRACE = None  # a list: every (step, state, chosen action) is appended
EXHAUSTIVE = 0  # check closure exhaustively every N-th state (0: never)


def hand_size(state, seat):
    return state.hand_sizes[seat]


def ends_or_goes_out(before, after):
    """The action ended the deal or emptied the mover's hand / made him go out."""
    seat = before.turn.seat
    return (after.turn.phase == "over" or after.turn.went_out is not None
            or after.hand_sizes[seat] == 0)


class Player:
    def __init__(self, name, rng):
        self.name = name
        self.rng = rng
        self.answers = 0

    def choose(self, state, actions):
        rng = self.rng
        acts = list(actions)
        kinds = defaultdict(list)
        for a in acts:
            kinds[a.kind].append(a)
        name = self.name
        if kinds.get("answer"):
            if name == "asker":
                self.answers += 1
                want = self.answers % 2 == 1
                pick = [a for a in kinds["answer"] if a.allow is want]
                if pick:
                    return pick[0]
            if name == "goer":
                pick = [a for a in kinds["answer"] if a.allow]
                if pick:
                    return pick[0]
            if name == "reluctant":
                pick = [a for a in kinds["answer"] if not a.allow]
                if pick:
                    return pick[0]
        if name == "uniform":
            return rng.choice(acts)
        if name == "eager":
            keen = kinds.get("meld", []) + kinds.get("take-pile", [])
            if keen and rng.random() < 0.9:
                return rng.choice(keen)
            return rng.choice(acts)
        if name == "hoarder":
            if kinds.get("take-pile"):
                return rng.choice(kinds["take-pile"])
            other = [a for a in acts if a.kind not in ("meld",)]
            if other:
                return rng.choice(other)
            small = min(len(a.cards) for a in acts)
            return rng.choice([a for a in acts if len(a.cards) == small])
        if name == "reluctant":
            for kind in ("draw", "discard"):
                if kinds.get(kind):
                    return rng.choice(kinds[kind])
            other = [a for a in acts if a.kind not in ("meld", "ask")]
            if other:
                return rng.choice(other)
            return rng.choice(acts)
        if name == "asker":
            if kinds.get("ask"):
                return kinds["ask"][0]
            keen = kinds.get("meld", []) + kinds.get("take-pile", [])
            if keen and rng.random() < 0.8:
                return rng.choice(keen)
            return rng.choice(acts)
        if name == "goer":
            size = hand_size(state, state.turn.seat)
            cands = [a for a in acts
                     if (a.kind == "meld" and len(a.cards) >= size - 1)
                     or (a.kind == "discard" and size == 1)
                     or (a.kind == "draw" and not state.stock_size)]
            rng.shuffle(cands)
            for a in cands:
                try:
                    after, _ = apply_action(state, a)
                except Exception:  # reported by the checks, not here
                    continue
                if ends_or_goes_out(state, after):
                    return a
            keen = kinds.get("meld", []) + kinds.get("take-pile", [])
            if keen and rng.random() < 0.85:
                return rng.choice(keen)
            if kinds.get("ask") and rng.random() < 0.5:
                return kinds["ask"][0]
            return rng.choice(acts)
        raise ValueError(name)


def read_back(state):
    """A state (or a view) written as data, the data's problems, and the state read back."""
    data = state_to_data(state)
    problems = validate_data(data)
    return data, problems, None if problems else state_from_data(data)


def refused_or_listed(fail, step, state, classes, action, label):
    """An action is either refused with a code or of a listed class (``fail`` reports)."""
    try:
        apply_action(state, action)
    except IllegalAction as exc:
        if not exc.refusal.code:
            fail(step, "refusal-code", "refusal without code", state, action)
        return
    if action_class(resolved(action)) not in classes:
        fail(step, label, f"applied an unlisted {action.kind}", state, action)


def problem_key(problems):
    return "; ".join(sorted({f"{p.code}@{re.sub(r'/[0-9]+', '/N', p.path)}" for p in problems}))


def short(msg):
    msg = str(msg)
    msg = msg.split(": {")[0]
    return re.sub(r"\s+", " ", msg)[:160]


def run_deal(ci, variant, options, strategy, seed, sample):
    rules = rules_for(variant, options)
    rng = random.Random(seed * 7919 + ci)
    if strategy == "mixed":
        players = [Player(rng.choice(STRATEGIES[:-1]), rng) for _ in range(rules.players)]
    else:
        players = [Player(strategy, rng) for _ in range(rules.players)]
    stats = Counter()
    failures = []
    seen = set()

    def fail(step, check, message, state, action=None):
        key = (check, short(message))
        if key in seen:
            return
        seen.add(key)
        try:
            data = state_to_data(state)
        except Exception as exc:  # noqa: BLE001
            data = {"unwritable": repr(exc)}
        failures.append({
            "config": [variant, options], "strategy": strategy, "seed": seed, "step": step,
            "check": check, "message": short(message), "full_message": str(message)[:4000],
            "action": action_to_data(action) if action is not None else None,
            "state": data,
            "players": [p.name for p in players],
        })

    try:
        state = deal_for(rules, seed)
    except Exception as exc:  # noqa: BLE001
        failures.append({"config": [variant, options], "strategy": strategy, "seed": seed,
                         "step": -1, "check": "deal", "message": short(repr(exc)),
                         "full_message": traceback.format_exc(), "action": None,
                         "state": None, "players": []})
        return stats, failures
    expected = Counter(deck(rules))
    step = 0
    while True:
        stats["states"] += 1
        # --- listing
        try:
            actions = legal_actions(state)
            listed_list = list(actions)
        except Exception as exc:  # noqa: BLE001
            fail(step, "legal_actions raised", repr(exc), state)
            break
        # --- conservation
        try:
            if all_cards(state) != expected:
                fail(step, "cards", "cards lost or created", state)
        except Exception as exc:  # noqa: BLE001
            fail(step, "cards", repr(exc), state)
        # --- validation and round trip
        data = None
        try:
            data, problems, back = read_back(state)
            if problems:
                fail(step, "validate", problem_key(problems) + " " + repr(problems)[:600], state)
            elif back != state:
                fail(step, "roundtrip", "state_from_data(state_to_data(s)) != s", state)
            elif state_to_data(back) != data:
                fail(step, "roundtrip-data", "data of the read state differs", state)
        except Exception as exc:  # noqa: BLE001
            fail(step, "validate/roundtrip raised", repr(exc), state)
        # --- listing is pure and repeatable
        try:
            before = data if data is not None else state_to_data(state)
            again = list(legal_actions(state))
            if again != listed_list:
                fail(step, "repeatable", "listing is not repeatable", state)
            if state_to_data(state) != before:
                fail(step, "pure", "listing changed the state", state)
        except Exception as exc:  # noqa: BLE001
            fail(step, "repeatable raised", repr(exc), state)
        # --- views of every seat
        for seat in range(rules.players):
            try:
                view = view_for(state, seat)
                vdata, vp, vback = read_back(view)
                stats["views"] += 1
                if vp:
                    fail(step, "view-validate", f"seat-rel {(seat - state.turn.seat) % rules.players} "
                         + problem_key(vp) + " " + repr(vp)[:600], state)
                elif vback != view:
                    fail(step, "view-roundtrip", "view does not round-trip", state)
            except Exception as exc:  # noqa: BLE001
                fail(step, "view raised", f"{type(exc).__name__}: {exc}", state)
        # --- over
        phase = state.turn.phase
        if phase == "over":
            if listed_list:
                fail(step, "over-with-actions", f"{len(listed_list)} actions in phase over", state)
            try:
                for side in score_deal(state).sides:
                    b = side.breakdown
                    if b["total"] != sum(v for k, v in b.items() if k != "total"):
                        fail(step, "score-sum", f"breakdown does not sum: {b}", state)
                    if b["hand_cards"] > 0:
                        fail(step, "score-hand", f"hand_cards positive: {b}", state)
                stats["scored"] += 1
            except Exception as exc:  # noqa: BLE001
                fail(step, "score raised", f"{type(exc).__name__}: {exc}", state)
            stats["deals_over"] += 1
            if state.turn.went_out is not None:
                stats["went_out"] += 1
            if state.turn.stock_exhausted or not state.stock_size:
                stats["stock_empty_end"] += 1
            break
        if not listed_list:
            fail(step, "no-legal-action", f"no legal action in phase {phase}", state)
            stats["stuck"] += 1
            break
        # --- every listed action (sampled) applies; results of one per kind validate
        pick = listed_list if len(listed_list) <= sample else rng.sample(listed_list, sample)
        kinds_checked = set()
        for a in pick:
            stats["applied"] += 1
            try:
                after, _ = apply_action(state, a)
            except IllegalAction as exc:
                fail(step, "listed-refused", f"{a.kind} refused {exc.refusal.code}", state, a)
                continue
            except Exception as exc:  # noqa: BLE001
                fail(step, "apply raised", f"{a.kind}: {type(exc).__name__}: {exc}", state, a)
                continue
            if a.kind not in kinds_checked:
                kinds_checked.add(a.kind)
                try:
                    ap = validate_data(state_to_data(after))
                    if ap:
                        fail(step, "result-validate", f"after {a.kind}: " + problem_key(ap)
                             + " " + repr(ap)[:600], state, a)
                except Exception as exc:  # noqa: BLE001
                    fail(step, "result-validate raised", f"{type(exc).__name__}: {exc}", state, a)
        # --- unlisted probes refused
        classes = {action_class(a) for a in listed_list}

        try:
            for _ in range(3):
                refused_or_listed(fail, step, state, classes, random_action(state, rng),
                                  "unlisted-applied")
        except Exception as exc:  # noqa: BLE001
            fail(step, "probe raised", f"{type(exc).__name__}: {exc}", state)
        # --- exhaustive closure (optional): every candidate of every class
        if EXHAUSTIVE and step % EXHAUSTIVE == 0:
            try:
                for cand in every_candidate(state):
                    stats["candidates"] += 1
                    refused_or_listed(fail, step, state, classes, cand,
                                      "unlisted-applied (exhaustive)")
            except Exception as exc:  # noqa: BLE001
                fail(step, "exhaustive raised", f"{type(exc).__name__}: {exc}", state)
        # --- move
        mover = actions.seat if actions.seat is not None else state.turn.seat
        player = players[mover % len(players)]
        try:
            choice = player.choose(state, listed_list)
            stats["chose_" + choice.kind] += 1
            if TRACE is not None:
                TRACE.append((step, state, choice))
            state, _ = apply_action(state, choice)
        except Exception as exc:  # noqa: BLE001
            fail(step, "chosen move raised", f"{type(exc).__name__}: {exc}", state)
            break
        step += 1
        if step > MAX_STEPS:
            fail(step, "too-long", f"deal longer than {MAX_STEPS} steps", state)
            break
    stats["deals"] += 1
    stats["steps"] += step
    return stats, failures


def task(args):
    ci, seeds, sample = args
    variant, options = CONFIGS[ci]
    stats = Counter()
    failures = []
    per_strategy = Counter()
    for seed in seeds:
        strategy = STRATEGIES[(seed + ci) % len(STRATEGIES)]
        per_strategy[strategy] += 1
        try:
            s, f = run_deal(ci, variant, options, strategy, seed, sample)
        except Exception as exc:  # noqa: BLE001
            s, f = Counter(deals=1), [{"config": [variant, options], "strategy": strategy,
                                       "seed": seed, "step": -1, "check": "harness",
                                       "message": short(repr(exc)),
                                       "full_message": traceback.format_exc(),
                                       "action": None, "state": None, "players": []}]
        stats.update(s)
        failures.extend(f)
    return ci, stats, failures, per_strategy


def parse_seeds(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b or a) + 1))
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="7000-7299,9000-9299")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=20)
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--configs", default="")
    ap.add_argument("--out", default="wide-failures.jsonl")
    ap.add_argument("--allow-pure", action="store_true")
    ap.add_argument("--exhaustive", type=int, default=0)
    args = ap.parse_args()
    global EXHAUSTIVE
    EXHAUSTIVE = args.exhaustive
    seeds = parse_seeds(args.seeds)
    cis = [int(x) for x in args.configs.split(",")] if args.configs else range(len(CONFIGS))
    tasks = [(ci, seeds[i:i + args.chunk], args.sample) for ci in cis
             for i in range(0, len(seeds), args.chunk)]
    random.Random(1).shuffle(tasks)
    t0 = time.time()
    total = Counter()
    by_config = defaultdict(Counter)
    strat = Counter()
    groups = defaultdict(list)
    print(f"engine: {_wire.__file__}; {len(list(cis))} configs x {len(seeds)} seeds, "
          f"{len(tasks)} tasks, {args.procs} procs", flush=True)
    with open(args.out, "w") as out, mp.Pool(args.procs) as pool:
        for done, (ci, stats, failures, per_strategy) in enumerate(
                pool.imap_unordered(task, tasks), start=1):
            total.update(stats)
            by_config[ci].update(stats)
            strat.update(per_strategy)
            for f in failures:
                out.write(json.dumps(f) + "\n")
                groups[(f["check"], f["message"])].append(f)
            out.flush()
            if done % 20 == 0 or done == len(tasks):
                print(f"[{time.time() - t0:7.1f}s] {done}/{len(tasks)} tasks, "
                      f"{total['states']} states, {sum(len(v) for v in groups.values())} failures",
                      flush=True)
    dt = time.time() - t0
    print(f"\n=== done in {dt:.1f}s")
    print("totals:", dict(total))
    print("deals per strategy:", dict(strat))
    for ci in sorted(by_config):
        v, o = CONFIGS[ci]
        s = by_config[ci]
        print(f"  {ci:2d} {v:16s} {json.dumps(o):45s} deals={s['deals']} states={s['states']} "
              f"over={s['deals_over']} out={s['went_out']} stock_end={s['stock_empty_end']} "
              f"asks={s['chose_ask']} stuck={s['stuck']}")
    print(f"\nfailure groups: {len(groups)}")
    for (check, msg), fs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        cfgs = Counter(json.dumps(f["config"]) for f in fs)
        strats = Counter(f["strategy"] for f in fs)
        first = fs[0]
        print(f"- [{len(fs)}] {check}: {msg}")
        print(f"    configs: {dict(cfgs)}")
        print(f"    strategies: {dict(strats)}; first: seed {first['seed']} step {first['step']} "
              f"{first['strategy']} {first['config']}")
    return 1 if groups else 0


if __name__ == "__main__":
    sys.exit(main())
