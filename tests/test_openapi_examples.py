"""Every example in the committed OpenAPI document is true of the running service.

Each request example (a body, or the variant id of ``/v1/variants/{id}``) is sent to a real
server (uvicorn on a loopback port); it must get the status of the response that documents the
example of the same name, and exactly that answer. The other documented answers are checked
too: the 413 problem (a body over the limit, to every operation that documents it) and the GET
operations' answers. No documented answer example is left unchecked.
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from canasta_referee.service import openapi
from canasta_referee.service.settings import Settings

from .servers import Service
from .test_connections import until_closed

DOCUMENT: dict[str, Any] = json.loads(openapi.COMMITTED.read_bytes())


def resolved(response: dict[str, Any], document: dict[str, Any] | None = None) -> dict[str, Any]:
    """A response, or the shared one (``components.responses`` of ``document``, the committed
    one by default) it refers to."""
    ref = response.get("$ref")
    if ref is None:
        return response
    shared: dict[str, Any] = (document or DOCUMENT)["components"]["responses"][
        ref.rsplit("/", 1)[1]]
    return shared


def _answer_examples() -> dict[tuple[str, str, str, str], Any]:
    """(path, method, status, example name) -> the documented answer."""
    out = {}
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                response = resolved(response)
                for media in response.get("content", {}).values():
                    for name, example in media.get("examples", {}).items():
                        out[(path, method, status, name)] = example["value"]
    return out


def _request_examples() -> list[tuple[str, str, str, Any]]:
    """(path, method, example name, request body or path id) of every request example."""
    out = []
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            for name, example in (body or {}).get("examples", {}).items():
                out.append((path, method, name, example["value"]))
            for parameter in operation.get("parameters", []):
                for name, example in parameter.get("examples", {}).items():
                    if parameter["in"] == "path":
                        out.append((path, method, name, example["value"]))
    return out


ANSWERS = _answer_examples()
REQUESTS = _request_examples()
#: the answers of the GET operations without a request example, each checked below
GET_ANSWERS = {("/v1/variants", "get", "200", "catalogue"), ("/healthz", "get", "200", "answer"),
               ("/readyz", "get", "200", "answer"), ("/metrics", "get", "200", "answer")}


@pytest.fixture(scope="module")
def server() -> Iterator[httpx.Client]:
    service = Service().start()
    try:
        with httpx.Client(base_url=service.url, timeout=30) as client:
            yield client
    finally:
        service.stop()


def test_every_documented_answer_is_checked_here() -> None:
    """Each request example is answered under exactly one status, and every answer example is
    one of them, a 408, 413, 415, 431 or 503 problem or a GET answer: the tests below compare
    all of them."""
    ops = {(p, m) for p, m, _, _ in REQUESTS}
    posts = {(p, "post") for p, item in DOCUMENT["paths"].items() if "post" in item}
    assert len(posts) >= 6 and len(REQUESTS) >= 15, sorted(ops)
    assert ops == posts | {("/v1/variants/{id}", "get")}, sorted(ops)  # every POST, the variant id
    answered = set()
    for path, method, name, _ in REQUESTS:
        statuses = [s for (p, m, s, n) in ANSWERS if (p, m, n) == (path, method, name)]
        assert len(statuses) == 1, f"{method} {path} example {name!r} is answered under {statuses}"
        answered.add((path, method, statuses[0], name))
    refused = {key for key in ANSWERS if key[2] in ("408", "413", "415", "431", "503")}
    assert {s for _, _, s, _ in refused} == {"408", "413", "415", "431", "503"}
    assert set(ANSWERS) == answered | refused | GET_ANSWERS


@pytest.mark.parametrize(("path", "method", "name", "request_example"), REQUESTS,
                         ids=[f"{m} {p} {n}" for p, m, n, _ in REQUESTS])
def test_request_example_gets_the_documented_answer(
        server: httpx.Client, path: str, method: str, name: str, request_example: Any) -> None:
    (status,) = [s for (p, m, s, n) in ANSWERS if (p, m, n) == (path, method, name)]
    documented = ANSWERS[(path, method, status, name)]
    if method == "get":
        r = server.get(path.replace("{id}", request_example))
    else:
        r = server.post(path, content=json.dumps(request_example).encode(),
                        headers={"content-type": "application/json"})
    assert r.status_code == int(status), r.text[:500]
    answer = r.json()
    if r.status_code != 200:
        assert r.headers["content-type"].startswith("application/problem+json")
        assert answer["code"] == documented["code"], answer
    assert answer == documented


def test_too_large_bodies_get_the_documented_problem(server: httpx.Client) -> None:
    settings = Settings()  # the server runs with the defaults
    for (path, _method, status, _name), documented in ANSWERS.items():
        if status != "413":
            continue
        limit = settings.body_limits.get(path, settings.max_body_bytes)
        r = server.post(path, content=b" " * (limit + 1),
                        headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json() == documented, (path, r.text[:300])
        assert documented["code"] == "BODY_TOO_LARGE"


def test_get_operations_give_the_documented_answers(server: httpx.Client) -> None:
    for key in (("/v1/variants", "get", "200", "catalogue"), ("/healthz", "get", "200", "answer")):
        assert server.get(key[0]).json() == ANSWERS[key]
    # readyz: a fresh server's document, but for the engine's id (its source digest), its
    # build and the entries (and their bytes) cached so far
    key = ("/readyz", "get", "200", "answer")
    ready, documented = server.get("/readyz").json(), ANSWERS[key]
    assert re.fullmatch(r"\d+\.\d+\.\d+-[0-9a-f]{12}", ready["engine"]["id"])
    assert ready["engine"]["build"] in ("python", "compiled")
    assert set(ready["engine"]) == set(documented["engine"])
    assert documented["cache"]["local"]["entries"] == 0 <= ready["cache"]["local"]["entries"]
    assert documented["cache"]["local"]["bytes"] == 0 <= ready["cache"]["local"]["bytes"]
    ready["engine"] = documented["engine"]
    ready["cache"]["local"]["entries"] = ready["cache"]["local"]["bytes"] = 0
    assert ready == documented
    # metrics: the documented line, after the one check it counts
    key = ("/metrics", "get", "200", "answer")
    line = ANSWERS[key].strip()
    series, value = line.rsplit(" ", 1)
    before = server.get("/metrics").text
    assert server.post("/v1/check", json=_first_check_body()).status_code == 200
    after = server.get("/metrics").text
    count = {text: _sample(text, series) for text in (before, after)}
    assert count[after] == count[before] + float(value), (count, series)


def _first_check_body() -> Any:
    return next(v for p, m, n, v in REQUESTS if p == "/v1/check" and n == "legal")


def _sample(text: str, series: str) -> float:
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_bodies_that_are_not_json_get_the_documented_problem(server: httpx.Client) -> None:
    documented = [(path, answer) for (path, _, status, _), answer in ANSWERS.items()
                  if status == "415"]
    assert len(documented) == len(posted())
    for path, answer in documented:
        r = server.post(path, content=b"{}", headers={"content-type": "text/plain"})
        assert r.status_code == 415 and r.json() == answer, (path, r.text[:300])


def posted() -> set[str]:
    return {p for p, item in DOCUMENT["paths"].items() if "post" in item}


def test_a_worker_past_its_limit_gives_the_documented_overload_problem() -> None:
    """With MAX_IN_FLIGHT=1 and one request whose body is still coming, every POST operation
    is answered 503 at once, with the documented problem and ``Retry-After``."""
    documented = {path: answer for (path, _, status, _), answer in ANSWERS.items()
                  if status == "503"}
    assert set(documented) == posted()
    service = Service({"MAX_IN_FLIGHT": "1", "BODY_TIMEOUT": "30"}).start()
    held = socket.create_connection(("127.0.0.1", service.port), timeout=10)
    try:
        held.sendall(b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: 1000\r\n\r\n{")
        time.sleep(0.3)  # (its headers reach the worker)
        header = resolved(DOCUMENT["paths"]["/v1/check"]["post"]["responses"]["503"])["headers"]
        with httpx.Client(base_url=service.url, timeout=10) as client:
            for path, answer in sorted(documented.items()):
                r = client.post(path, content=b"{}",
                                headers={"content-type": "application/json"})
                assert r.status_code == 503 and r.json() == answer, (path, r.text[:300])
                assert r.headers["retry-after"] == str(
                    header["Retry-After"]["schema"]["examples"][0])
    finally:
        held.close()
        service.stop()


def documented_everywhere(status: str) -> dict[tuple[str, str], Any]:
    """(path, method) -> the answer documented under ``status``; every operation of the
    referee (the ``/v1`` paths) documents one."""
    documented = {(path, method): answer for (path, method, s, _), answer in ANSWERS.items()
                  if s == status}
    assert set(documented) == {(p, m) for p, item in DOCUMENT["paths"].items()
                               for m in item if p.startswith("/v1/")}
    return documented


def raw_answer(s: socket.socket) -> tuple[int, bytes, bytes]:
    """Status, head and body of the one answer before the server closes ``s``."""
    head, _, body = until_closed(s).partition(b"\r\n\r\n")
    return int(head.split()[1]), head.lower(), body


def request_line(path: str, method: str) -> bytes:
    return f"{method.upper()} {path.replace('{id}', 'classic')} HTTP/1.1\r\nHost: x\r\n".encode()


def test_slow_and_oversized_headers_get_the_documented_problems(server: httpx.Client) -> None:
    """Every operation documents the 408 of headers that do not come within the default
    HEADER_TIMEOUT and the 431 of a header section over the default MAX_HEADER_BYTES: the
    server answers each with exactly that problem and closes the connection."""
    port = httpx.URL(str(server.base_url)).port
    assert port is not None
    limit = Settings().max_header_bytes
    for (path, method), answer in documented_everywhere("431").items():
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(request_line(path, method) + b"X-Padding: " + b"a" * limit + b"\r\n\r\n")
            status, head, body = raw_answer(s)
            assert status == 431 and json.loads(body) == answer, (path, body[:300])
            assert b"connection: close" in head
    slow = {}
    for (path, method), answer in documented_everywhere("408").items():
        s = socket.create_connection(("127.0.0.1", port), timeout=Settings().header_timeout + 10)
        s.sendall(request_line(path, method))  # and the rest never comes
        slow[s] = (path, answer)
    try:
        for s, (path, answer) in slow.items():  # all waited at once: one HEADER_TIMEOUT
            status, head, body = raw_answer(s)
            assert status == 408 and json.loads(body) == answer, (path, body[:300])
            assert b"connection: close" in head
    finally:
        for s in slow:
            s.close()
