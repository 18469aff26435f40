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


#: what GraphiQL shows: its tab bar (none with one tab), the query and the variables editors
GRAPHIQL_SHOWN = """() => {
  const tabs = [...document.querySelectorAll(".graphiql-tab")];
  const editor = (selector) => document.querySelector(selector).CodeMirror.getValue();
  return {tabs: tabs.length || 1,
          active: Math.max(0, tabs.findIndex(t => t.classList.contains("graphiql-tab-active"))),
          query: editor(".graphiql-query-editor .CodeMirror"),
          variables: editor(".graphiql-editor-tool .graphiql-editor .CodeMirror")};
}"""


def _graphiql_open(tab: Any) -> dict[str, Any]:
    """What the GraphiQL page in ``tab`` shows once its editors are up, after GraphiQL stored
    its tabs (it writes them 500 ms after a change)."""
    tab.wait_for_selector(".graphiql-query-editor .CodeMirror")
    tab.wait_for_function("() => localStorage.getItem('graphiql:tabState') !== null")
    tab.wait_for_timeout(1000)
    shown: dict[str, Any] = tab.evaluate(GRAPHIQL_SHOWN)
    stored = json.loads(tab.evaluate("() => localStorage.getItem('graphiql:tabState')"))
    shown["stored"] = [(t["title"], t["query"], t["variables"]) for t in stored["tabs"]]
    shown["stored_active"] = stored["activeTabIndex"]
    return shown


def _graphiql_run(tab: Any, url: str) -> dict[str, Any]:
    """Run the active tab's query (the run button); the service's answer."""
    with tab.expect_response(lambda r: r.url == url and r.request.method == "POST"
                             and "LegalActions" in (r.request.post_data or "")) as sent:
        tab.locator("button.graphiql-execute-button").click()
    assert sent.value.status == 200, sent.value.text()
    answer: dict[str, Any] = sent.value.json()
    return answer


def test_graphiql_keeps_its_tabs_over_a_reload(browser: Any) -> None:
    """A reload restores the tabs as they were (no extra tab with the example's query and no
    variables, which answered "Variable '$state' ... must not be null"), the active one active
    with its variables; a first visit (empty storage) shows the example."""
    service = Service().start()
    context = browser.new_context()
    try:
        tab = context.new_page()
        url = service.url + "/graphql"
        tab.goto(url)
        first = _graphiql_open(tab)
        example = json.loads(first["variables"])
        assert example == {"state": EXAMPLE_STATE}
        assert "legalActions(state: $state)" in first["query"]
        assert (first["tabs"], first["active"], first["stored_active"]) == (1, 0, 0)
        assert first["stored"] == [("LegalActions", first["query"], first["variables"])]

        tab.reload()
        again = _graphiql_open(tab)
        assert again["stored"] == first["stored"], [
            (title, len(q or ""), len(v or "")) for title, q, v in again["stored"]]
        assert (again["tabs"], again["active"], again["stored_active"]) == (1, 0, 0)
        assert (again["query"], again["variables"]) == (first["query"], first["variables"])
        answer = _graphiql_run(tab, url)
        assert "errors" not in answer, answer
        assert answer["data"]["legalActions"]["phase"] == "draw"

        # a second tab, then back to the first: a reload keeps both, the first one active
        tab.locator("button.graphiql-tab-add").click()
        tab.locator(".graphiql-tab").nth(0).locator("button").first.click()
        tab.wait_for_timeout(1000)
        tab.reload()
        both = _graphiql_open(tab)
        assert (both["tabs"], both["active"], both["stored_active"]) == (2, 0, 0), both
        assert both["stored"][0] == first["stored"][0]
        assert json.loads(both["variables"]) == example
        assert "errors" not in _graphiql_run(tab, url)
    finally:
        context.close()
        service.stop()
