"""The baseline of bench/http.py: a bare Starlette app on the same uvicorn (httptools, uvloop,
one worker, no access log) that parses a POSTed JSON body with orjson and answers a small JSON
object. No code of ours runs in it: what the service costs beyond it is ours.

    python -m bench.bare_echo PORT      # from the repository's root
"""

from __future__ import annotations

import sys

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


async def echo(request: Request) -> Response:
    body = await request.body()
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        data = None
    return Response(orjson.dumps({"ok": data is not None, "bytes": len(body)}),
                    media_type="application/json")


async def healthz(request: Request) -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


app = Starlette(routes=[Route("/echo", echo, methods=["POST"]),
                        Route("/healthz", healthz, methods=["GET"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), http="httptools", ws="none",
                access_log=False, server_header=False, log_level="warning")
