"""Issue 17: a worker's memory stays inside its budget (``service.budget``) whatever the clients
send. A real server (uvicorn, one worker, a child process on a free loopback port) gets 220
requests built to cost memory (tests/hostile.py): states with 30,061 problems for validate,
legal-actions and GraphQL (each a new cache key: the score changes), states with 1,188 legal
actions, 60 KB answers that fill the in-process tier, 34,000 bad card codes, batches whose
answers would be 2.2 MB, audits of 2 MB bodies; four clients at once. Its resident memory
(VmRSS sampled from /proc, and the kernel's high-water mark VmHWM) must stay under the budget
of its settings. Before issue 17, 150 such validate requests took a worker from 60 to 552 MiB
(bench/attack.py)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import httpx
import orjson

from canasta_referee.service.budget import MIB, budget
from canasta_referee.service.settings import Settings

from .hostile import KINDS, full_hand_state, rss_kib
from .servers import Service

#: the attack: kind and number of requests (220 in all)
PLAN = {"validate-absurd": 40, "legal-actions-absurd": 20, "graphql-validate-absurd": 20,
        "legal-actions-big-hand": 20, "legal-actions-full-hand": 80, "validate-malformed": 20,
        "batch-big-answers": 10, "audit-padded": 10}
#: the kinds that MAX_BULK_IN_FLIGHT bounds: some of them may be shed (503)
BULK = ("batch-big-answers", "audit-padded")
CLIENTS = 4
#: a small in-process tier, so that 200 requests fill it and the budget is tight: 80 answers
#: of 60 KB are 4.8 MB
ENV = {"CACHE_MAX_BYTES": str(3 * MIB), "MAX_BULK_IN_FLIGHT": "2"}


def test_a_worker_stays_within_its_memory_budget_under_attack() -> None:
    settings = Settings.from_env(ENV)
    # the clients and the probe of /readyz are all that can be in flight
    allowed = budget(settings, in_flight=CLIENTS + 1)
    requests = [(kind, KINDS[kind](1000 * i + n))
                for i, (kind, count) in enumerate(PLAN.items()) for n in range(count)]
    requests = requests[::2] + requests[1::2]  # the kinds mixed
    assert len(requests) == sum(PLAN.values()) == 220
    svc = Service(ENV).start()
    assert svc.proc is not None
    pid = svc.proc.pid
    seen: Counter[tuple[str, int, str]] = Counter()
    answers: dict[str, list[Any]] = {}
    samples: list[int] = []
    lock = threading.Lock()
    done = threading.Event()
    failures: list[BaseException] = []

    def client(mine: list[tuple[str, tuple[str, bytes]]]) -> None:
        try:
            with httpx.Client(base_url=svc.url, timeout=120) as c:
                for kind, (path, body) in mine:
                    r = c.post(path, content=body, headers={"content-type": "application/json"})
                    with lock:
                        seen[kind, r.status_code, r.headers.get("x-cache", "")] += 1
                        answers.setdefault(kind, []).append(orjson.loads(r.content))
        except BaseException as exc:  # reported by the test below
            failures.append(exc)

    def sampler() -> None:
        while not done.is_set():
            samples.append(rss_kib(pid)["VmRSS"])
            time.sleep(0.02)

    try:
        idle = rss_kib(pid)["VmRSS"]
        threads = [threading.Thread(target=client, args=(requests[i::CLIENTS],))
                   for i in range(CLIENTS)]
        watch = threading.Thread(target=sampler)
        watch.start()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)  # a bound on the test's time, not a speed assertion
        done.set()
        watch.join()
        assert not failures, failures
        assert not any(t.is_alive() for t in threads), "the attack did not finish"
        memory = rss_kib(pid)
        with httpx.Client(base_url=svc.url, timeout=10) as c:
            local = c.get("/readyz").json()["cache"]["local"]
            metrics = c.get("/metrics").text
    finally:
        done.set()
        svc.stop()

    # the requests did what they were built to do
    assert sum(seen.values()) == 220
    statuses = {(kind, status) for kind, status, _ in seen
                if not (kind in BULK and status == 503)}
    assert statuses == {("validate-absurd", 200), ("legal-actions-absurd", 422),
                        ("graphql-validate-absurd", 200), ("legal-actions-big-hand", 422),
                        ("legal-actions-full-hand", 200), ("validate-malformed", 422),
                        ("batch-big-answers", 422), ("audit-padded", 200)}
    assert all(a["code"] == "ANSWER_TOO_LARGE" for a in answers["batch-big-answers"]
               if a["status"] != 503)
    assert all(a["more"] == 29_961 and len(a["problems"]) == 100
               for a in answers["validate-absurd"] + answers["legal-actions-absurd"])
    assert all(a["code"] == "TOO_MANY_LEGAL_ACTIONS" for a in answers["legal-actions-big-hand"])
    assert all(len(a["actions"]) == 771 for a in answers["legal-actions-full-hand"])
    assert all(a["more"] == 33_900 for a in answers["validate-malformed"])
    # the in-process tier filled up and kept to its bound
    assert local["max_bytes"] == 3 * MIB and 2 * MIB < local["bytes"] <= 3 * MIB
    assert "canasta_cache_evictions_total 0.0" not in metrics
    # and the worker's memory to its budget, all along
    peak = max(memory["VmHWM"], *samples) * 1024
    print(f"RSS idle {idle / 1024:.0f} MiB, peak {peak / MIB:.0f} MiB, end "
          f"{memory['VmRSS'] / 1024:.0f} MiB; budget {allowed.total / MIB:.0f} MiB "
          f"({', '.join(f'{k} {v / MIB:.0f}' for k, v in allowed._asdict().items())})")
    assert peak <= allowed.total, (peak / MIB, allowed)


def test_graphql_batches_hold_their_answers_as_text() -> None:
    """GraphQL's ``batch`` keeps each operation's answer as the REST answer's text and writes it
    as it is: four batches at once (two queries of two fields), each of 34 legal-actions
    answers of 60 KB (2 MB, just under MAX_BULK_ANSWER_BYTES), grow a real worker by no more
    than the budget's audits and batches and one computation (measured: 9 MiB of 56). Read into
    objects, as before, the four grew it by 63 MiB."""
    env = {"CACHE_SIZE": "0", "MAX_BULK_IN_FLIGHT": "4", "LOG_LEVEL": "warning"}
    allowed = budget(Settings.from_env(env), in_flight=3)
    fields = " ".join(
        f"{name}: batch(operations: [{', '.join(['{op: LEGAL_ACTIONS, body: $b}'] * 34)}]) "
        "{ ... on Batch { results { status body } } ... on Problem { code } }"
        for name in ("a", "b"))
    body = orjson.dumps({"query": f"query($b: JSON!) {{ {fields} }}",
                         "variables": {"b": {"state": full_hand_state()}}})
    svc = Service(env).start()
    assert svc.proc is not None
    pid = svc.proc.pid
    answers: list[Any] = []
    failures: list[BaseException] = []

    def client() -> None:
        try:
            with httpx.Client(base_url=svc.url, timeout=120) as c:
                r = c.post("/graphql", content=body,
                           headers={"content-type": "application/json"})
                answers.append((len(r.content), orjson.loads(r.content)))
        except BaseException as exc:  # reported by the test below
            failures.append(exc)

    try:
        small = orjson.dumps({"query": "{ batch(operations: []) { __typename } }"})
        httpx.post(svc.url + "/graphql", content=small,
                   headers={"content-type": "application/json"}, timeout=30)
        idle = rss_kib(pid)["VmRSS"]
        threads = [threading.Thread(target=client) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)  # a bound on the test's time, not a speed assertion
        peak = rss_kib(pid)["VmHWM"]
    finally:
        svc.stop()
    assert not failures, failures
    assert len(answers) == 2
    for size, answer in answers:
        assert size > 4_000_000
        for name in ("a", "b"):
            results = answer["data"][name]["results"]
            assert len(results) == 34
            assert all(r["status"] == 200 and len(r["body"]["actions"]) == 771 for r in results)
    grown = (peak - idle) * 1024
    print(f"RSS {idle / 1024:.0f} MiB before, peak {peak / 1024:.0f} MiB; allowed to grow by "
          f"{(allowed.bulk + allowed.compute) / MIB:.0f} MiB")
    assert grown <= allowed.bulk + allowed.compute, grown / MIB
