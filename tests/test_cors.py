"""CORS over the real ASGI app (Starlette's TestClient): preflights on every route, simple and
actual requests, origins not allowed, ``CORS_ORIGINS`` parsing. ``tests/test_browser.py``
drives the same from a real browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from canasta_referee.schema.models import EXAMPLE_STATE
from canasta_referee.service.app import create_app
from canasta_referee.service.settings import SettingError, Settings

PAGE = "https://app.example"
OTHER = "https://evil.example"
ROUTES = ["/v1/variants", "/v1/variants/classic", "/v1/deal", "/v1/validate",
          "/v1/legal-actions", "/v1/check", "/v1/apply", "/v1/score", "/graphql", "/healthz",
          "/readyz", "/metrics", "/openapi.json", "/docs"]


def client(**settings: Any) -> TestClient:
    return TestClient(create_app(Settings(log_level="warning", **settings)),
                      raise_server_exceptions=False)


@pytest.fixture(scope="module")
def anyone() -> Iterator[TestClient]:
    with client() as c:  # the default: CORS_ORIGINS=*
        yield c


@pytest.fixture(scope="module")
def listed() -> Iterator[TestClient]:
    with client(cors_origins=(PAGE, "http://localhost:5173")) as c:
        yield c


def preflight(c: TestClient, path: str, origin: str, **headers: str) -> Any:
    return c.options(path, headers={"Origin": origin, "Access-Control-Request-Method": "POST",
                                    "Access-Control-Request-Headers": "content-type,accept-language",
                                    **headers})


@pytest.mark.parametrize("path", ROUTES)
def test_a_preflight_is_answered_on_every_route(anyone: TestClient, path: str) -> None:
    r = preflight(anyone, path, PAGE)
    assert r.status_code == 204 and r.content == b""
    assert r.headers["access-control-allow-origin"] == "*"
    assert "POST" in r.headers["access-control-allow-methods"].split(", ")
    assert r.headers["access-control-allow-headers"] == "content-type,accept-language"
    assert int(r.headers["access-control-max-age"]) > 0
    assert "vary" not in r.headers  # any origin: the answer does not depend on it


def test_an_actual_request_can_be_read_by_the_page(anyone: TestClient) -> None:
    r = anyone.post("/v1/legal-actions", json={"state": EXAMPLE_STATE},
                    headers={"Origin": PAGE, "Accept-Language": "de"})
    assert r.status_code == 200 and r.headers["x-cache"] in ("hit", "miss")
    assert r.headers["access-control-allow-origin"] == "*"
    exposed = {h.strip().lower() for h in r.headers["access-control-expose-headers"].split(",")}
    assert {"x-cache", "content-language"} <= exposed
    assert r.headers["vary"] == "Accept-Language"
    assert "access-control-allow-credentials" not in r.headers


def test_without_origin_nothing_is_added(anyone: TestClient) -> None:
    r = anyone.post("/v1/legal-actions", json={"state": EXAMPLE_STATE})
    assert r.status_code == 200
    assert not [h for h in r.headers if h.startswith("access-control-")]
    assert anyone.get("/healthz").headers.get("vary") is None


def test_problems_carry_cors_headers_too(anyone: TestClient) -> None:
    """A page must be able to read the 404, 405, 413 and 422 problem documents."""
    big = b"{" + b" " * (300 * 1024) + b"}"
    for r in (anyone.get("/v2/nothing", headers={"Origin": PAGE}),
              anyone.get("/v1/check", headers={"Origin": PAGE}),
              anyone.post("/v1/check", content=big, headers={"Origin": PAGE}),
              anyone.post("/v1/check", content=b"{", headers={"Origin": PAGE})):
        assert r.status_code in (404, 405, 413, 422), r.status_code
        assert r.headers["access-control-allow-origin"] == "*", r.status_code


def test_options_without_a_requested_method_is_no_preflight(anyone: TestClient) -> None:
    r = anyone.options("/v1/check", headers={"Origin": PAGE})
    assert r.status_code == 405 and r.json()["code"] == "METHOD_NOT_ALLOWED"


def test_a_listed_origin_is_named_and_the_answer_varies_by_origin(listed: TestClient) -> None:
    r = preflight(listed, "/v1/check", PAGE)
    assert r.status_code == 204 and r.headers["access-control-allow-origin"] == PAGE
    assert r.headers["vary"] == "Origin"
    r = listed.post("/v1/validate", json={"state": EXAMPLE_STATE}, headers={"Origin": PAGE})
    assert r.status_code == 200 and r.headers["access-control-allow-origin"] == PAGE
    assert r.headers["vary"] == "Accept-Language, Origin"  # one header, both names
    assert r.headers.get_list("vary") == ["Accept-Language, Origin"]
    local = listed.get("/v1/variants", headers={"Origin": "http://localhost:5173"})
    assert local.headers["access-control-allow-origin"] == "http://localhost:5173"


@pytest.mark.parametrize("path", ["/v1/variants", "/v1/variants/classic", "/openapi.json",
                                  "/docs", "/static/swagger-ui/swagger-ui.css", "/healthz",
                                  "/v1/nothing-here"])
def test_with_a_list_a_get_without_origin_still_varies_by_origin(listed: TestClient,
                                                                 path: str) -> None:
    """A shared cache that kept the answer to a request without ``Origin`` (curl, the page's
    own server) must not give it to a page's cross-origin request, which needs the CORS
    headers: the answer says ``Vary: Origin`` (docs/operations.md, CORS)."""
    for method in ("GET", "HEAD"):
        r = listed.request(method, path)
        assert "access-control-allow-origin" not in r.headers
        assert "Origin" in [v.strip() for v in r.headers.get("vary", "").split(",")], (method, r)
        assert len(r.headers.get_list("vary")) == 1  # joined with Accept-Language, if any
    # a POST's answer is not kept by shared caches: it stays as it was
    r = listed.post("/v1/validate", json={"state": EXAMPLE_STATE})
    assert r.status_code == 200 and r.headers["vary"] == "Accept-Language"


def test_an_origin_not_listed_gets_no_permission(listed: TestClient) -> None:
    r = preflight(listed, "/v1/check", OTHER, **{"Accept-Language": "de"})
    assert r.status_code == 403 and r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == "ORIGIN_NOT_ALLOWED" and r.headers["content-language"] == "de"
    assert "access-control-allow-origin" not in r.headers
    assert r.headers["vary"] == "Accept-Language, Origin"
    # the request itself is answered (the browser, not the server, withholds it from the page)
    r = listed.post("/v1/validate", json={"state": EXAMPLE_STATE}, headers={"Origin": OTHER})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    assert "access-control-expose-headers" not in r.headers
    assert r.headers["vary"] == "Accept-Language, Origin"
    # an origin differs from a listed one in scheme or port: not the same origin
    for origin in ("http://app.example", "https://app.example:8443", "null"):
        assert "access-control-allow-origin" not in listed.get(
            "/v1/variants", headers={"Origin": origin}).headers


def test_cors_can_be_turned_off() -> None:
    with client(cors_origins=()) as c:
        r = preflight(c, "/v1/check", PAGE)
        assert r.status_code == 405 and "access-control-allow-origin" not in r.headers
        r = c.post("/v1/validate", json={"state": EXAMPLE_STATE}, headers={"Origin": PAGE})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_origins_setting() -> None:
    assert Settings.from_env({}).cors_origins == ("*",)
    assert Settings.from_env({"CORS_ORIGINS": "*"}).cors_origins == ("*",)
    assert Settings.from_env({"CORS_ORIGINS": ""}).cors_origins == ()
    assert Settings.from_env({"CORS_ORIGINS": f" {PAGE} , http://localhost:5173,"}).cors_origins == (
        PAGE, "http://localhost:5173")
    for bad in ("*,https://app.example", "https://app.example/", "app.example",
                "ftp://app.example", "HTTPS://APP.EXAMPLE", "https://app.example:99999",
                "https://user@app.example", "https://app.example?x=1"):
        with pytest.raises(SettingError, match=r"^CORS_ORIGINS: "):
            Settings.from_env({"CORS_ORIGINS": bad})
    with pytest.raises(SettingError, match="CORS_ORIGINS"):
        Settings(cors_origins=("https://a.example/path",)).checked()


def test_a_page_reads_the_headers_of_its_refusals(anyone: TestClient) -> None:
    """docs/operations.md, CORS: beyond ``X-Cache`` and ``Content-Language`` a page may read
    what its refusals tell it to do: ``Retry-After`` of a 503 (docs/api.md: try again after
    it), ``Allow`` of a 405, ``Accept`` of a 415. They were not exposed: a script read null."""
    settings = Settings(log_level="warning")
    app = create_app(settings)
    with TestClient(app) as shedding:
        app.state.svc.bulk = settings.max_bulk_in_flight  # every bulk slot taken
        r = shedding.post("/v1/batch", json={"operations": []}, headers={"Origin": PAGE})
    assert r.status_code == 503 and r.headers["retry-after"]
    answers = [r, anyone.get("/v1/check", headers={"Origin": PAGE}),
               anyone.post("/v1/check", content=b"x",
                           headers={"Origin": PAGE, "Content-Type": "text/plain"})]
    for answer, header in zip(answers, ("retry-after", "allow", "accept"), strict=True):
        assert answer.headers[header]
        exposed = {h.strip().lower()
                   for h in answer.headers["access-control-expose-headers"].split(",")}
        assert header in exposed and {"x-cache", "content-language"} <= exposed


def test_an_origin_naming_its_default_port_is_refused() -> None:
    """A browser leaves the scheme's default port out of ``Origin``: a listed
    ``https://app.example:443`` matched no page and refused its own one silently."""
    for bad, written in (("https://app.example:443", "https://app.example"),
                         ("http://127.0.0.1:80", "http://127.0.0.1"),
                         ("http://[::1]:80", "http://[::1]")):
        with pytest.raises(SettingError, match=rf"default port.*write {re.escape(written)}$"):
            Settings.from_env({"CORS_ORIGINS": bad})
    assert Settings.from_env({"CORS_ORIGINS": "https://app.example:8443"}).cors_origins == (
        "https://app.example:8443",)
