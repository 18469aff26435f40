"""The browser pages, served from this process with no network asset: Swagger UI at ``/docs``
(from the ``swagger-ui-bundle-v2`` package) over ``/openapi.json``, and GraphiQL at
``GET /graphql`` (the files in ``service/static/graphiql``, see its README).

Both pages run under a Content-Security-Policy that names no other host: scripts and styles from
this origin only, requests ("Try it out", GraphiQL's queries) to this origin only.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from swagger_ui_bundle import swagger_ui_path

STATIC = Path(__file__).resolve().parent / "static"
SWAGGER = Path(str(swagger_ui_path))

#: the policy of both pages: scripts and styles from this origin only (no inline script or style
#: attribute, no eval), icons from data: URLs, requests to this origin only
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; "
       "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
PAGE_HEADERS = {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer",
                "Cache-Control": "no-cache"}  # and nosniff, as every answer (app.Observe)

_JS = "text/javascript; charset=utf-8"
_CSS = "text/css; charset=utf-8"
#: URL name under /static/ -> (file, media type); nothing else is served from there
ASSETS: dict[str, tuple[Path, str]] = {
    "swagger-ui/swagger-ui-bundle.js": (SWAGGER / "swagger-ui-bundle.js", _JS),
    "swagger-ui/swagger-ui.css": (SWAGGER / "swagger-ui.css", _CSS),
    "swagger-ui/favicon-32x32.png": (SWAGGER / "favicon-32x32.png", "image/png"),
    "graphiql/graphiql.min.js": (STATIC / "graphiql" / "graphiql.min.js", _JS),
    "graphiql/graphiql.min.css": (STATIC / "graphiql" / "graphiql.min.css", _CSS),
    "graphiql/react.production.min.js": (STATIC / "graphiql" / "react.production.min.js", _JS),
    "graphiql/react-dom.production.min.js": (
        STATIC / "graphiql" / "react-dom.production.min.js", _JS),
    "docs.js": (STATIC / "docs.js", _JS),
    "graphiql.js": (STATIC / "graphiql.js", _JS),
}

#: Subresource Integrity of the vendored GraphiQL files (the hashes strawberry pins for them)
GRAPHIQL_SRI = {
    "graphiql/graphiql.min.js":
        "sha384-HbRVEFG0JGJZeAHCJ9Xm2+tpknBQ7QZmNlO/DgZtkZ0aJSypT96YYGRNod99l9Ie",
    "graphiql/graphiql.min.css":
        "sha384-Mq3vbRBY71jfjQAt/DcjxUIYY33ksal4cgdRt9U/hNPvHBCaT2JfJ/PTRiPKf0aM",
    "graphiql/react.production.min.js":
        "sha384-tMH8h3BGESGckSAVGZ82T9n90ztNXxvdwvdM6UoR56cYcf+0iGXBliJ29D+wZ/x8",
    "graphiql/react-dom.production.min.js":
        "sha384-bm7MnzvK++ykSwVJ2tynSE5TRdN+xL418osEVF2DE/L/gfWHj91J2Sphe582B1Bh",
}


@functools.cache
def _etag(name: str) -> str:
    path, _ = ASSETS[name]
    return '"' + hashlib.blake2b(path.read_bytes(), digest_size=12).hexdigest() + '"'


async def asset(request: Request) -> Response:
    """``GET /static/{name}``: one of ``ASSETS`` (ETag, revalidated by the browser)."""
    from .app import language, status_problem

    name = request.path_params["name"]
    if name not in ASSETS:
        return status_problem(404, language(request.headers.get("accept-language")))
    path, media = ASSETS[name]
    etag = _etag(name)
    headers = {"ETag": etag, "Cache-Control": "public, max-age=3600"}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=headers)
    return Response(_read(path), media_type=media, headers=headers)


@functools.cache
def _read(path: Path) -> bytes:
    return path.read_bytes()


def _script(name: str) -> str:
    sri = GRAPHIQL_SRI.get(name)
    integrity = f' integrity="{sri}"' if sri else ""
    return f'<script src="/static/{name}"{integrity}></script>'


def _style(name: str) -> str:
    sri = GRAPHIQL_SRI.get(name)
    integrity = f' integrity="{sri}"' if sri else ""
    return f'<link rel="stylesheet" href="/static/{name}"{integrity}>'


def _data(element_id: str, value: Any) -> str:
    """A JSON value for a page script (not executed, so the policy allows it)."""
    text = json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


@functools.cache
def docs_html() -> str:
    """The ``/docs`` page: Swagger UI over ``/openapi.json``."""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            "<title>Canasta Referee API</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" type="image/png" href="/static/swagger-ui/favicon-32x32.png">'
            + _style("swagger-ui/swagger-ui.css")
            + '</head><body><div id="swagger-ui"></div>'
            + _script("swagger-ui/swagger-ui-bundle.js") + _script("docs.js")
            + "</body></html>")


GRAPHQL_QUERY = """# Canasta Referee over GraphQL (REST: /docs).
# Run: Ctrl-Enter or the run button. A refusal
# is a Problem in the result union, not an error.
# The state is in the Variables below.
query LegalActions($state: JSON!) {
  legalActions(state: $state) {
    __typename
    ... on LegalActions { seat phase actions { type cards card } }
    ... on Problem { code detail problems { code path message } }
  }
}
"""


@functools.cache
def graphiql_html() -> str:
    """The ``GET /graphql`` page: GraphiQL, with an example query and its variables."""
    from canasta_referee.schema.models import EXAMPLE_STATE

    defaults = {"query": GRAPHQL_QUERY,
                "variables": json.dumps({"state": EXAMPLE_STATE}, indent=2)}
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape('Canasta Referee GraphiQL')}</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'
            + _style("graphiql/graphiql.min.css")
            + "</head><body>"
            '<div id="graphiql">Loading GraphiQL…</div>'
            + _data("graphiql-defaults", defaults)
            + _script("graphiql/react.production.min.js")
            + _script("graphiql/react-dom.production.min.js")
            + _script("graphiql/graphiql.min.js") + _script("graphiql.js")
            + "</body></html>")


def page(content: str) -> HTMLResponse:
    """An HTML page with the pages' security headers."""
    return HTMLResponse(content, headers=PAGE_HEADERS)
