"""CORS in a real browser: Debian's Chromium, driven by Playwright, loads a page from one origin
(a small stdlib HTTP server) whose script calls the service, served by uvicorn on another
port, with ``fetch``: a JSON POST, so the browser sends a preflight first. The page reads the
answer and its ``X-Cache`` and ``Content-Language`` headers; a page of an origin the service
does not list cannot read anything.

Needs ``/usr/bin/chromium`` (``apt-get install chromium``; ``.ci/run`` installs it) and the
``playwright`` package; without them the test fails, it is not skipped."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from canasta_referee.schema.models import EXAMPLE_STATE
from tests.servers import Service

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>page</title></head><body><script>
async function ask(api) {
  try {
    const r = await fetch(api + "/v1/legal-actions", {
      method: "POST",
      headers: {"Content-Type": "application/json", "Accept-Language": "de"},
      body: JSON.stringify({state: __STATE__}),
    });
    return {status: r.status, xCache: r.headers.get("X-Cache"),
            language: r.headers.get("Content-Language"), body: await r.json()};
  } catch (e) {
    return {error: String(e)};
  }
}
</script></body></html>""".replace("__STATE__", json.dumps(EXAMPLE_STATE))


class Page:
    """An HTTP server on a free loopback port serving ``PAGE`` at ``/``: another origin than
    the service's."""

    def __init__(self) -> None:
        body = PAGE.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Page:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert CHROMIUM.exists(), "no /usr/bin/chromium: apt-get install -y chromium (see .ci/run)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _preflights(service: Service) -> float:
    """How many ``OPTIONS /v1/legal-actions`` the service answered 204 (its metrics)."""
    text = httpx.get(service.url + "/metrics", timeout=5).text
    found = re.search(r'canasta_requests_total\{op="legal-actions",status="204"\} (\S+)', text)
    return float(found[1]) if found else 0.0


def _ask(browser: Any, page: Page, api: str) -> dict[str, Any]:
    tab = browser.new_page()
    try:
        tab.goto(page.origin + "/")
        answer: dict[str, Any] = tab.evaluate("api => ask(api)", api)
        return answer
    finally:
        tab.close()


def test_a_page_of_another_origin_calls_the_api(browser: Any) -> None:
    with Page() as page:
        service = Service({"CORS_ORIGINS": "*"}).start()  # the default: any origin
        try:
            first = _ask(browser, page, service.url)
            assert "error" not in first, first
            assert first["status"] == 200 and first["xCache"] == "miss", first
            assert first["language"] == "de"
            assert first["body"]["seat"] == 0 and first["body"]["phase"] == "draw"
            assert {"type": "draw", "seat": 0} in first["body"]["actions"]
            again = _ask(browser, page, service.url)
            assert again["status"] == 200 and again["xCache"] == "hit"
            assert again["body"] == first["body"]
            assert _preflights(service) >= 1  # the browser asked first (then may cache it)
        finally:
            service.stop()


def test_a_page_of_an_origin_not_listed_reads_nothing(browser: Any) -> None:
    with Page() as allowed, Page() as other:
        service = Service({"CORS_ORIGINS": f"https://app.example,{allowed.origin}"}).start()
        try:
            ok = _ask(browser, allowed, service.url)
            assert ok.get("status") == 200 and ok["xCache"] == "miss", ok
            refused = _ask(browser, other, service.url)
            assert "error" in refused and "fetch" in refused["error"].lower(), refused
            assert _preflights(service) >= 1
        finally:
            service.stop()
