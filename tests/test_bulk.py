"""Audits and batches, the requests with the largest bodies and answers, held to bounds of their
own so that a worker's memory budget (``service.budget``) covers them: at most
``MAX_BULK_IN_FLIGHT`` of them read or answered at once per worker (past it 503 ``OVERLOADED``
before the body is read; a real uvicorn server over raw sockets), and no answer of theirs
larger than ``MAX_BULK_ANSWER_BYTES`` (422 ``ANSWER_TOO_LARGE``; a batch stops at the operation
that passes it). Before these bounds a 0.6 MB batch of 256 ``validate`` operations was answered
with 2.2 MB, any number at once."""

from __future__ import annotations

import socket
import time

import httpx
import orjson
import pytest

from canasta_referee.engine import rules_for
from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.budget import MIB, budget, bulk_bound, in_flight_of, report
from canasta_referee.service.settings import SettingError, Settings
from tests.games import game
from tests.servers import Service
from tests.test_service_api import client

DE = {"Accept-Language": "de"}


def bad_validates(n: int, codes: int = 400) -> bytes:
    """A batch of ``n`` validate operations, each on a state whose hands hold ``codes`` card
    codes that are none: each answered with a MALFORMED_REQUEST listing 100 problems (about
    8.7 KB), 2.2 MB for 256 of them from a body of 0.6 MB."""
    state = {**EXAMPLE_STATE, "hands": [["XX"] * (codes // 4)] * 4}
    return orjson.dumps({"operations": [{"op": "validate", "body": {"state": state}}] * n})


def test_a_batch_whose_answer_passes_the_cap_is_refused_where_it_passes() -> None:
    body = bad_validates(256)
    assert 500_000 < len(body) < Settings().max_batch_body_bytes
    with client() as c:  # the default cap, 2 MiB: the 256 answers would be 2.2 MB
        r = c.post("/v1/batch", content=body)
        assert r.status_code == 422 and r.json()["code"] == "ANSWER_TOO_LARGE"
        at = int(r.json()["problems"][0]["path"].removeprefix("/operations/"))
        assert str(2 * MIB) in r.json()["detail"]
        # the operations before it fit: that many are answered in full, within the cap
        fits = c.post("/v1/batch", content=bad_validates(at))
        assert fits.status_code == 200 and len(fits.content) <= 2 * MIB
        assert len(fits.json()["results"]) == at
        assert all(x["body"]["code"] == "MALFORMED_REQUEST" for x in fits.json()["results"])
        over = c.post("/v1/batch", content=bad_validates(at + 1))
        assert over.json()["problems"][0]["path"] == f"/operations/{at}"
        de = c.post("/v1/batch", content=body, headers=DE).json()
        assert de["title"] == "Antwort zu groß" and "Bytes" in de["detail"]
    # the cap is a setting: a smaller one stops sooner
    with client(max_bulk_answer_bytes=64 * 1024) as c:
        r = c.post("/v1/batch", content=body)
        assert r.status_code == 422
        assert int(r.json()["problems"][0]["path"].removeprefix("/operations/")) < 8


def test_an_audit_whose_answer_passes_the_cap_is_refused() -> None:
    log = game(rules_for("classic"), 3, max_deals=10, eager=False, to_the_end=False).log
    body = orjson.dumps(log)
    with client() as c:
        whole = c.post("/v1/audit", content=body)
        assert whole.status_code == 200 and 64 * 1024 < len(whole.content) < 2 * MIB
    with client(max_bulk_answer_bytes=64 * 1024) as c:
        r = c.post("/v1/audit", content=body)
        assert r.status_code == 422 and r.json()["code"] == "ANSWER_TOO_LARGE"
        assert r.json()["problems"] == [{"code": "ANSWER_TOO_LARGE", "path": "",
                                         "message": r.json()["detail"]}]
        assert str(64 * 1024) in r.json()["detail"]


def held(port: int, path: str, length: int) -> socket.socket:
    """A connection that sent a POST's headers and a part of its body, and waits."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n{" % (path.encode(), length))
    return s


def test_bulk_requests_past_the_limit_are_shed_before_their_body_is_read() -> None:
    svc = Service({"MAX_BULK_IN_FLIGHT": "2", "BODY_TIMEOUT": "30"}).start()
    small = orjson.dumps({"operations": [{"op": "validate", "body": {"state": EXAMPLE_STATE}}]})
    try:
        # two bulk requests whose bodies are still coming fill the worker's bulk slots
        slow = [held(svc.port, "/v1/batch", 10_000), held(svc.port, "/v1/audit", 10_000)]
        time.sleep(0.5)  # (their headers reach the app)
        with httpx.Client(base_url=svc.url, timeout=10) as c:
            for path, body in (("/v1/batch", small), ("/v1/audit", b'{"deals": []}')):
                r = c.post(path, content=body, headers={"content-type": "application/json"})
                assert r.status_code == 503 and r.json()["code"] == "OVERLOADED", r.text
                assert r.headers["retry-after"] == "1"
            # other requests go on as before
            assert c.post("/v1/validate", json={"state": EXAMPLE_STATE}).status_code == 200
            metrics = c.get("/metrics").text
            assert 'canasta_requests_shed_total{reason="bulk_in_flight"} 2.0' in metrics
            # a slot is free again once a held request is answered (here: its client left)
            slow.pop().close()
            deadline = time.monotonic() + 10
            while True:
                r = c.post("/v1/batch", content=small,
                           headers={"content-type": "application/json"})
                if r.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert r.status_code == 200 and len(r.json()["results"]) == 1
        slow[0].close()
    finally:
        svc.stop()


def test_graphql_audits_and_batches_share_the_slots_and_cost_the_most() -> None:
    """A GraphQL ``batch`` or ``audit`` takes a slot as its REST request does: with every slot
    held by REST requests whose bodies are still coming, it is a Problem OVERLOADED (German
    too); it holds the slot until the query's answer is sent; and two of them fill a query's
    cost (eight aliased batches of 100 validate operations held 45 MiB while answered)."""
    svc = Service({"MAX_BULK_IN_FLIGHT": "1", "BODY_TIMEOUT": "30"}).start()
    batch = ("query($o: [BatchOperation!]!) { batch(operations: $o) { __typename "
             "... on Problem { code status detail } ... on Batch { results { status } } } }")
    audit = ("query($l: JSON!) { audit(log: $l) { __typename "
             "... on Problem { code status detail } ... on Audit { legal } } }")
    ops = [{"op": "VALIDATE", "body": {"state": EXAMPLE_STATE}}]
    log = game(rules_for("classic"), 1).log
    try:
        with httpx.Client(base_url=svc.url, timeout=30) as c:
            def ask(query: str, variables: dict[str, object], lang: str = "en") -> dict:
                r = c.post("/graphql", json={"query": query, "variables": variables},
                           headers={"Accept-Language": lang})
                assert r.status_code == 200, r.text
                data: dict = r.json()["data"]
                return data
            assert ask(batch, {"o": ops})["batch"]["results"] == [{"status": 200}]
            assert ask(audit, {"l": log})["audit"] == {"__typename": "Audit", "legal": True}
            slow = held(svc.port, "/v1/audit", 10_000)
            time.sleep(0.5)
            for query, variables, field in ((batch, {"o": ops}, "batch"),
                                            (audit, {"l": log}, "audit")):
                got = ask(query, variables)[field]
                assert got["code"] == "OVERLOADED" and got["status"] == 503, got
                assert ask(query, variables, "de")[field]["detail"].startswith("Der Dienst")
            slow.close()
            deadline = time.monotonic() + 10
            while ask(batch, {"o": ops})["batch"]["__typename"] != "Batch":
                assert time.monotonic() < deadline, "the slot was not given back"
                time.sleep(0.05)
            two = ("query($o: [BatchOperation!]!) { a: batch(operations: $o) { __typename } "
                   "b: batch(operations: $o) { __typename } }")
            # each holds its slot until the whole answer is sent (its typed answer lives until
            # then): with one slot, the second of a query is refused
            assert c.post("/graphql", json={"query": two, "variables": {"o": ops}}).json()[
                "data"] == {"a": {"__typename": "Batch"}, "b": {"__typename": "Problem"}}
            three = two[:-1] + "c: audit(log: {}) { __typename } }"
            r = c.post("/graphql", json={"query": three, "variables": {"o": ops}})
            assert r.status_code == 400 and r.json()["code"] == "QUERY_TOO_COMPLEX", r.text
            assert r.json()["problems"][0]["code"] == "TOO_COSTLY"
    finally:
        svc.stop()


def test_the_budget_counts_bulk_requests_and_the_in_flight_limit() -> None:
    defaults = Settings()
    b = budget(defaults)
    body = max(defaults.max_audit_body_bytes, defaults.max_batch_body_bytes)
    assert b.bulk == bulk_bound(defaults) == defaults.max_bulk_in_flight * (
        2 * body + defaults.max_bulk_answer_bytes)
    assert in_flight_of(defaults) == defaults.max_in_flight
    fewer = Settings(max_in_flight=8, max_bulk_in_flight=1)
    assert budget(fewer).in_flight == b.in_flight // 8
    assert budget(fewer).bulk == b.bulk // 4
    assert "1 audits/batches" in report(fewer) and "8 in flight" in report(fewer)
    # no limit on requests in flight: the budget assumes 64
    assert budget(Settings(max_in_flight=0)).in_flight == b.in_flight
    with pytest.raises(SettingError, match="MAX_BULK_IN_FLIGHT"):
        Settings.from_env({"MAX_BULK_IN_FLIGHT": "0"})
    with pytest.raises(SettingError, match="MAX_BULK_ANSWER_BYTES"):
        Settings.from_env({"MAX_BULK_ANSWER_BYTES": "1000"})
