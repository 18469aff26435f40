"""The browser pages in a real browser: ``/docs`` (Swagger UI) and ``GET /graphql`` (GraphiQL),
served by a real uvicorn server on a loopback port, opened in headless Chromium (Debian's
``chromium`` package, driven by Playwright) with every request to another host aborted.

The pages must render, send a real request to the service from the page ("Try it out", running
a query) and get a 200, and never reach for another host or break their Content-Security-Policy.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Route, sync_playwright

from canasta_referee.service import openapi, ui

from .servers import Service

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LOOPBACK = {"127.0.0.1", "localhost", "[::1]", "::1"}
#: records what the page reports: CSP violations (as they happen) and uncaught errors
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.fixture(scope="module")
def server() -> Iterator[Service]:
    service = Service().start()
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert os.access(CHROMIUM, os.X_OK), (
        f"{CHROMIUM} is missing: `apt-get install chromium` (.ci/run does)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Visit:
    """A fresh browser context and page that may reach loopback hosts only."""

    def __init__(self, browser: Browser) -> None:
        self.context = browser.new_context()
        self.aborted: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page: Page = self.context.new_page()
        self.page.add_init_script(WATCH)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route: Route) -> None:
        host = urlsplit(route.request.url).hostname or ""
        if host not in LOOPBACK and f"[{host}]" not in LOOPBACK:
            self.aborted.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def check_clean(self) -> None:
        """Nothing went to another host, nothing broke the policy, no script failed."""
        violations: Any = self.page.evaluate("window.__violations")
        assert self.aborted == [], f"requests to other hosts: {self.aborted}"
        assert violations == [], f"Content-Security-Policy violations: {violations}"
        assert self.errors == [], f"script errors: {self.errors}"

    def close(self) -> None:
        self.context.close()


@pytest.fixture()
def visit(browser: Browser) -> Iterator[Visit]:
    v = Visit(browser)
    try:
        yield v
    finally:
        v.close()


def test_docs_renders_every_operation_and_try_it_out_reaches_the_service(
        server: Service, visit: Visit) -> None:
    page = visit.page
    response = page.goto(server.url + "/docs")
    assert response is not None and response.status == 200
    assert response.headers["content-security-policy"] == ui.CSP
    document = json.loads(openapi.COMMITTED.read_bytes())
    operations = {o["operationId"] for item in document["paths"].values() for o in item.values()}
    page.wait_for_selector(".opblock")
    shown = page.locator(".opblock").count()
    assert shown == len(operations), (shown, sorted(operations))
    assert page.locator(".info .title").inner_text().startswith("Canasta Referee")

    # POST /v1/legal-actions: open it, "Try it out", Execute with the documented example
    op = page.locator("#operations-default-legal-actions")
    op.locator(".opblock-summary").click()
    op.locator("button.try-out__btn").click()
    with page.expect_response(lambda r: r.url == server.url + "/v1/legal-actions"
                              and r.request.method == "POST") as sent:
        op.locator("button.execute").click()
    answer = sent.value
    assert answer.status == 200, answer.text()
    assert answer.json()["phase"] == "draw" and answer.json()["actions"]
    shown_answer = op.locator(".live-responses-table tr.response")  # what the page shows
    shown_answer.locator("td.response-col_status").wait_for()
    assert shown_answer.locator("td.response-col_status").inner_text().strip() == "200"
    assert '"take-pile"' in shown_answer.locator("td.response-col_description").inner_text()
    visit.check_clean()


def test_graphiql_renders_and_runs_the_example_query(server: Service, visit: Visit) -> None:
    page = visit.page
    response = page.goto(server.url + "/graphql")
    assert response is not None and response.status == 200
    assert response.headers["content-security-policy"] == ui.CSP
    page.wait_for_selector(".graphiql-container .graphiql-query-editor .CodeMirror")
    assert "legalActions(state: $state)" in page.locator(
        ".graphiql-query-editor .CodeMirror").inner_text()

    def is_the_query(r: Any) -> bool:
        return (r.url == server.url + "/graphql" and r.request.method == "POST"
                and "LegalActions" in (r.request.post_data or ""))

    with page.expect_response(is_the_query) as sent:
        page.locator("button.graphiql-execute-button").click()
    answer = sent.value
    assert answer.status == 200, answer.text()
    data = answer.json()["data"]["legalActions"]
    assert data["__typename"] == "LegalActions" and data["phase"] == "draw"
    result = page.locator(".graphiql-response .CodeMirror")
    result.get_by_text('"take-pile"').wait_for()
    assert '"LegalActions"' in result.inner_text()
    visit.check_clean()


def test_graphiql_files_are_the_pinned_builds() -> None:
    """The vendored GraphiQL files are byte for byte the npm builds the pages pin by SRI."""
    for name, sri in ui.GRAPHIQL_SRI.items():
        path, _ = ui.ASSETS[name]
        digest = base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()
        assert sri == f"sha384-{digest}", name
        assert sri.removeprefix("sha384-") in (ui.STATIC / "graphiql" / "README.md").read_text()
