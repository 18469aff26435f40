"""The HTTP service: ``create_app(settings)`` builds the Starlette app (REST, GraphQL, docs,
health, metrics). Routes are thin over ``schema.handlers``; answers are cached by ``Service``."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from canasta_referee import engine
from canasta_referee.engine import audit, wire
from canasta_referee.engine.legal import LegalActions
from canasta_referee.engine.rules import RuleSet
from canasta_referee.schema import handlers, text

from . import logs, openapi, ui
from .cache import Cache, Entry, Fetched, Lookup
from .metrics import CONNECTIONS, Metrics
from .protocol import OVERLOADED, RETRY_AFTER, TIMED_OUT
from .settings import CACHEABLE, Settings

log = logging.getLogger("canasta.http")
JSON = "application/json"
#: request bodies up to this size are the in-process key themselves (longer ones: their SHA-256)
RAW_KEY_BYTES = 16 * 1024
#: what JSON counts as white space (RFC 8259, section 2); ``bytes.strip`` takes more
JSON_SPACE = b" \t\r\n"
#: a batch lets the event loop serve other requests after every this many operations
BATCH_SLICE = 32
#: the operations with the largest bodies and answers: at most MAX_BULK_IN_FLIGHT at once
BULK = frozenset({"audit", "batch"})
PROBLEM = "application/problem+json"


def _engine_id(package: Path = Path(engine.__file__).parent.parent) -> str:
    """The engine version plus a digest of every source that shapes an answer (the engine,
    the schema with its messages and native readers and writers, the service that renders):
    shared cache keys change with any of them, so replicas of two builds never serve each
    other's answers."""
    digest = hashlib.blake2b(digest_size=6)
    for part, pattern in (("engine", "*.py"), ("schema", "*.py"), ("schema", "*.c"),
                          ("service", "*.py")):
        for path in sorted((package / part).rglob(pattern)):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    return f"{engine.__version__}-{digest.hexdigest()}"


ENGINE_ID = _engine_id()


def language(header: str | None) -> str:
    """``de`` or ``en`` from an Accept-Language header (highest q first; default en)."""
    if not header:
        return "en"
    best, best_q = "en", -1.0
    for part in header.split(",")[:16]:
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        lang = tag.strip().lower()[:2]
        if lang in ("de", "en") and q > max(best_q, 0.0):
            best, best_q = lang, q
    return best


def render(answer: dict[str, Any]) -> bytes:
    return orjson.dumps(answer)


def _as_is(actions: LegalActions) -> object:
    """A legal-action list left as the engine gave it (``Service.legal_actions``)."""
    return actions


_STATUS_TEXT: dict[int, tuple[str, str, str]] = {
    404: ("NOT_FOUND", "No such endpoint.", "Diesen Endpunkt gibt es nicht."),
    405: ("METHOD_NOT_ALLOWED", "This method is not allowed here.",
          "Diese Methode ist hier nicht erlaubt."),
    413: ("BODY_TOO_LARGE", "The request body is larger than {limit} bytes.",
          "Der Anfragetext ist größer als {limit} Bytes."),
    500: ("INTERNAL_ERROR", "An unexpected error; it has been logged.",
          "Ein unerwarteter Fehler; er wurde protokolliert."),
    400: ("BAD_GRAPHQL_REQUEST", "Not a GraphQL request: {reason}.",
          "Keine GraphQL-Anfrage: {reason}."),
    403: ("ORIGIN_NOT_ALLOWED", "Pages from this origin may not call the API (CORS_ORIGINS).",
          "Seiten dieser Herkunft dürfen die API nicht aufrufen (CORS_ORIGINS)."),
    415: ("UNSUPPORTED_MEDIA_TYPE", "The request body must be JSON (Content-Type: "
          "application/json), not '{media}'.", "Der Anfragetext muss JSON sein (Content-Type: "
          "application/json), nicht '{media}'."),
    503: ("OVERLOADED", "The service is busy; try again in {seconds} s.",
          "Der Dienst ist ausgelastet; bitte in {seconds} s erneut versuchen."),
}
#: the headers of every JSON answer of ``/v1/*`` and ``/graphql``: the language of its text (the
#: one ``Accept-Language`` asked for; English for the catalogue, which has no German) and that
#: the answer depends on ``Accept-Language``. Ready-made, so an answer only appends them
LANG_HEADERS: dict[str, tuple[tuple[bytes, bytes], ...]] = {
    lang: ((b"content-language", lang.encode()), (b"vary", b"Accept-Language"))
    for lang in ("en", "de")}


def status_problem(status: int, lang: str, headers: Mapping[str, str] | None = None,
                   **fmt: Any) -> Response:
    """A problem document for an HTTP-level error (404, 405, 413, 500, ...)."""
    code, en, de = _STATUS_TEXT.get(status, ("HTTP_ERROR", "HTTP error {status}.",
                                             "HTTP-Fehler {status}."))
    fmt.setdefault("reason", "")
    fmt.setdefault("status", status)
    _, body = handlers.problem(status, code, (de if lang == "de" else en).format(**fmt), lang)
    response = Response(render(body), status, headers=headers, media_type=PROBLEM)
    response.raw_headers.extend(LANG_HEADERS[lang])
    return response


class Answering:
    """A batch's answers as they come, in order: their size held to ``cap``
    (``MAX_BULK_ANSWER_BYTES``), the event loop let in every ``BATCH_SLICE`` operations, the
    client asked whether it is still there after each."""

    def __init__(self, cap: int, gone: Callable[[], bool] | None) -> None:
        self.cap, self.gone = cap, gone
        self.size = handlers.BATCH_FRAME
        self.results: list[tuple[int, bytes]] = []
        self.tags: list[str] = []
        self.count = 0  # operations answered
        self.over: int | None = None  # the operation whose answer passed the cap
        self.doomed = False  # the answers will pass the cap: none are kept any more
        self.abandoned = False  # the client went away

    def room(self, entry_bytes: int) -> int:
        """How many answers of at most ``entry_bytes`` may be read at once: as many as fit
        under the cap beside those so far (one at least), ``BATCH_SLICE`` at most."""
        return min(BATCH_SLICE, max(1, (self.cap - self.size) // max(entry_bytes, 1)))

    async def add(self, status: int, content: bytes, tag: str | None, unread: int = 0) -> bool:
        """The next operation's answer; False when the batch stops: its answers passed the
        cap (the operations before it fit), or its client is gone. ``unread``: what the later
        answers already in memory (read from Redis with this one) will add; while they and the
        answers so far could not fit, the answers are only measured, not kept (the batch is
        refused anyway, and memory stays within the cap)."""
        self.count += 1
        self.size += len(content) + handlers.RESULT_FRAME
        # (each answer counted with the comma after it: the last has none)
        if self.size - 1 > self.cap:  # the answers so far are dropped: memory stays within it
            self.over, self.results = self.count - 1, []
            return False
        if self.doomed or self.size - 1 + unread > self.cap:
            self.doomed, self.results = True, []
        else:
            self.results.append((status, content))
            self.tags.append(tag or "none")
        if self.count % BATCH_SLICE == 0:  # let other requests in between (a miss is ~50 µs)
            await asyncio.sleep(0)
        if self.gone is not None and self.gone():  # (a Redis look-up lets the loop notice it)
            self.abandoned = True
            return False
        return True

    def refusal(self, lang: str) -> handlers.Answer | None:
        """The problem that refuses the batch whole (its answers passed the cap), or None:
        ``results`` are its answers."""
        if self.over is None:
            assert not self.doomed  # (its answers always pass the cap)
            return None
        assert not self.results  # (dropped as it stopped)
        return handlers.answer_too_large(lang, self.cap, f"/operations/{self.over}")

    def end(self, lang: str) -> tuple[int, bytes, list[str]] | None:
        """The batch's status, answer and tags; None when its client went away."""
        if self.abandoned:
            return None
        refused = self.refusal(lang)
        if refused is not None:
            return refused[0], render(refused[1]), []
        return 200, handlers.batch_answer(self.results), self.tags


class Service:
    """What the routes share: settings, metrics and the cache."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics()
        self.cache = Cache(settings, self.metrics)
        self.limits = handlers.Limits(settings.max_problems, settings.max_legal_actions,
                                      settings.max_actions, settings.max_batch)
        #: per operation, as ``mode`` finds it
        self.modes: dict[str, tuple[bool, bool, str | None]] = {}
        #: audits and batches being read or answered (REST), or whose query is being answered
        #: (GraphQL)
        self.bulk = 0

    def bulk_slot(self) -> bool:
        """Take a slot for an audit or a batch: False (counted as shed) when
        ``MAX_BULK_IN_FLIGHT`` are taken; the caller gives it back (``self.bulk -= 1``)."""
        if self.bulk >= self.settings.max_bulk_in_flight:
            CONNECTIONS.count(CONNECTIONS.shed, "bulk_in_flight")
            return False
        self.bulk += 1
        return True

    def mode(self, op: str) -> tuple[bool, bool, str | None]:
        """Whether ``op``'s answers go to Redis, whether they are cached, and their
        ``X-Cache`` tag while not (from the settings; found once per operation)."""
        mode = self.modes.get(op)
        if mode is None:
            settings = self.settings
            local = settings.cache_size > 0 and settings.cache_max_bytes > 0
            redis = self.cache.uses_redis(op)
            cacheable = op in settings.cache_ops and (local or redis)
            mode = self.modes[op] = (redis, cacheable,
                                     "bypass" if not cacheable and op in CACHEABLE else None)
        return mode

    @staticmethod
    def rules(data: dict[str, Any]) -> RuleSet | None:
        """The ruleset a validated request's state names, or None when the engine refuses its
        variant or options (it then answers with a problem)."""
        try:
            return wire.rules_of(data["state"])
        except Exception:
            return None

    def key(self, op: str, lang: str, canonical: bytes, rules: RuleSet) -> str:
        """The shared (Redis) key of a canonical request whose state names ``rules``: the
        code that writes answers (``ENGINE_ID``) and the settings that cut them
        (``MAX_PROBLEMS``, ``MAX_LEGAL_ACTIONS``), so replicas set otherwise share no entry."""
        digest = hashlib.sha256(canonical).hexdigest()[:40]
        return (f"canasta:{ENGINE_ID}:{self.limits.problems}.{self.limits.legal_actions}:{op}:"
                f"{lang}:{rules.id}:{rules.fingerprint}:{digest}")

    @staticmethod
    def local_key(op: str, lang: str, body: bytes) -> Hashable:
        """The in-process key of a request: its exact bytes (up to ``RAW_KEY_BYTES``, else
        their SHA-256), but for JSON white space around them (a file's final newline: the same
        JSON text either way). One process runs one engine, and the bytes name the variant and
        its options, so two requests share an entry only when they are the same request."""
        body = body.strip(JSON_SPACE)
        if len(body) > RAW_KEY_BYTES:
            return (op, lang, hashlib.sha256(body).digest())
        return (op, lang, body)

    async def answer(self, op: str, body: bytes, lang: str, data: dict[str, Any] | None = None
                     ) -> tuple[int, bytes, str | None]:
        """Status, rendered answer and ``hit``/``miss``; ``bypass`` for every answer of a
        cacheable operation while caching is off for it (not in ``CACHE_OPS``, or no tier:
        ``CACHE_SIZE=0`` or ``CACHE_MAX_BYTES=0``, and no Redis for it); None for answers not
        cached otherwise. ``data``: the body already read (``handlers.request_data``'s)."""
        answer = self.prepare(op, body, lang, data)
        return await self.looked_up(answer) if isinstance(answer, Lookup) else answer

    async def looked_up(self, lookup: Lookup) -> tuple[int, bytes, str]:
        """``answer``'s answer to a request ``prepare`` left to Redis. (The hot routes call
        ``prepare`` and this themselves: without Redis they await nothing, one coroutine
        less a request.)"""
        entry, hit = await self.cache.shared(*lookup)
        return entry.status, entry.body, "hit" if hit else "miss"

    def prepare(self, op: str, body: bytes, lang: str, data: dict[str, Any] | None = None
                ) -> tuple[int, bytes, str | None] | Lookup:
        """``answer``'s answer where it needs no Redis, else the look-up to make there."""
        redis, cacheable, uncached = self.mode(op)
        key: Hashable = None
        if cacheable:  # the same bytes seen before: no validation
            key = self.local_key(op, lang, body)
            seen = self.cache.local.get(key)
            if seen is not None:
                self.metrics.cache_hits.inc(op, "local")
                return seen.status, seen.body, "hit"
        limits = self.limits
        if data is None:
            read = handlers.request_data(op, body, lang, limits)
            if isinstance(read, tuple):
                return read[0], render(read[1]), uncached
            data = read
        if len(data.get("actions", ())) > self.settings.max_actions:
            status, problem = handlers.too_many_actions(lang, self.settings.max_actions)
            return status, render(problem), uncached
        if op == "audit" and audit.action_count(data) > self.settings.max_audit_actions:
            status, problem = handlers.too_many_actions(lang, self.settings.max_audit_actions,
                                                        "/deals")
            return status, render(problem), uncached
        rules = self.rules(data) if "state" in data else None
        if not cacheable or rules is None:
            status, answer = handlers.run(op, data, lang, rules, text.fragment, limits,
                                          text.state_json)
            content = render(answer)
            if op == "audit" and len(content) > self.settings.max_bulk_answer_bytes:
                status, problem = handlers.answer_too_large(lang,
                                                            self.settings.max_bulk_answer_bytes)
                content = render(problem)
            return status, content, uncached

        def compute() -> Entry:
            status, answer = handlers.run(op, data, lang, rules, text.fragment, limits,
                                          text.state_json)
            return Entry.of(status, render(answer))

        if not redis:
            entry = compute()
            self.cache.store(op, key, entry)
            return entry.status, entry.body, "miss"
        return Lookup(op, key, self.key(op, lang, handlers.canonical_bytes(data), rules),
                      compute)

    def legal_actions(self, body: bytes, lang: str, data: dict[str, Any]
                      ) -> tuple[int, bytes, str | None] | Lookup | dict[str, Any]:
        """legal-actions of a request already read (``data``), for a planned GraphQL document:
        as ``prepare`` answers it, but where it is computed here and goes to no Redis, a
        successful answer is the engine's (a dict, its actions ``LegalActions``), neither
        rendered nor kept in process: the GraphQL answer written from it is kept instead (one
        entry, not two, and no REST text written only to be projected)."""
        op = "legal-actions"
        redis, cacheable, uncached = self.mode(op)
        rules = None if redis else self.rules(data)
        if rules is None:
            return self.prepare(op, body, lang, data)
        key: Hashable = None
        if cacheable:
            key = self.local_key(op, lang, body)
            seen = self.cache.local.get(key)
            if seen is not None:
                self.metrics.cache_hits.inc(op, "local")
                return seen.status, seen.body, "hit"
        status, answer = handlers.run(op, data, lang, rules, _as_is, self.limits)
        if status == 200:
            if cacheable:
                self.metrics.cache_misses.inc(op)
            return answer
        content = render(answer)
        if cacheable:
            self.cache.store(op, key, Entry.of(status, content))
        return status, content, "miss" if cacheable else uncached

    async def batch(self, body: bytes, lang: str, gone: Callable[[], bool] | None = None
                    ) -> tuple[int, bytes, list[str]] | None:
        """Status and rendered answer of a batch, and each operation's cache tag (``none`` for
        an operation never cached). Each operation is answered as ``answer`` answers a single
        request with its body's bytes, from the same cache entries; consecutive operations
        that go to Redis are looked up there together (``Cache.fetch``: one read, one write).
        None when ``gone()`` says the client went away (asked after each operation): the rest
        is not computed."""
        answering = await self.batch_answers(body, lang, gone)
        if isinstance(answering, tuple):
            return answering[0], render(answering[1]), []
        return answering.end(lang)

    async def batch_answers(self, body: bytes, lang: str,
                            gone: Callable[[], bool] | None = None
                            ) -> Answering | handlers.Answer:
        """A batch's operations answered (``batch``), as they came (``Answering``: its
        rendered answers, or why it stopped), or the problem that refuses the batch before
        any operation (a malformed body, too many operations)."""
        operations = handlers.batch_operations(body, lang, self.settings.max_batch)
        if isinstance(operations, tuple):
            return operations
        answering = Answering(self.settings.max_bulk_answer_bytes, gone)
        group: list[Lookup] = []  # consecutive operations to look up in Redis
        for op, raw in operations:
            # a group holds no more Redis answers than fit under the cap (CACHE_MAX_ENTRY_BYTES
            # each), and ends before an operation that does not go to Redis (computed here)
            redis, cacheable, _ = self.mode(op)
            if group and (len(group) >= answering.room(self.settings.cache_max_entry_bytes)
                          or not (redis and cacheable)):
                if not await self.look_up(group, answering):
                    break
                group = []
            answer = (self.prepare(op, raw, lang) if len(raw) <= self.settings.max_body_bytes
                      else (413, bytes(status_problem(413, lang, limit=self.settings
                                                      .max_body_bytes).body), None))
            if isinstance(answer, Lookup):
                group.append(answer)
                continue
            if group:  # (found without Redis: an in-process hit or a problem, both small)
                if not await self.look_up(group, answering):
                    break
                group = []
            if not await answering.add(*answer):
                break
        else:
            if group:
                await self.look_up(group, answering)
        return answering

    async def look_up(self, group: list[Lookup], answering: Answering) -> bool:
        """A group of a batch's operations looked up in Redis at once and answered in order,
        the answers computed then written in one go; False when the batch stops
        (``Answering.add``)."""
        fetched = await self.cache.fetch(group)
        try:
            going = await self.add_found(fetched, answering)
        finally:
            fetched.close()
        if not going:
            self.cache.write("batch", fetched.writes)
        elif fetched.writes:
            # a batch goes on once its answers are stored: under load it does not compute
            # answers faster than they can be written
            await self.cache.stored("batch", fetched.writes)
        return going

    @staticmethod
    async def add_found(fetched: Fetched, answering: Answering) -> bool:
        """``fetched``'s answers added to ``answering`` in order (misses computed as they
        come); False when the batch stops."""
        frame = handlers.RESULT_FRAME
        for entry, hit in fetched.answers():
            # what Redis's answers not yet added will add
            unread = fetched.unread_bytes + fetched.unread_count * frame
            if not await answering.add(entry.status, entry.body, "hit" if hit else "miss",
                                       unread):
                return False
        return True

    async def ready(self) -> dict[str, Any]:
        redis = await self.cache.redis_state()
        local, cache = self.cache.local, self.cache
        return {"ready": True, "degraded": redis not in ("ok", "off"),
                "engine": {"id": ENGINE_ID, "build": engine.BUILD, "writer": text.WRITER},
                "cache": {"local": {"entries": len(local), "size": self.settings.cache_size,
                                    "bytes": local.bytes,
                                    "max_bytes": self.settings.cache_max_bytes},
                          "redis": redis, "breaker_open": cache.breaker_open,
                          "breakers": {"read": _state(cache.read_breaker.is_open),
                                       "write": _state(cache.write_breaker.is_open)}}}


def _state(is_open: bool) -> str:
    return "open" if is_open else "closed"


def _svc(request: Request) -> Service:
    svc: Service = request.app.state.svc
    return svc


def _op_route(path: str, op: str) -> Route:
    """An operation's route. ``Referee.operation`` answers its ``POST`` requests before
    Starlette routes them; the route is there for the rest (405 with ``Allow: POST``)."""
    return Route(path, _Operation(op), methods=["POST"], name=op)


class _Operation:
    """The ASGI app of an operation's route: ``Referee.operation``."""

    def __init__(self, op: str) -> None:
        self.op = op

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app: Referee = scope["app"]
        await app.operation(self.op, scope, receive, send)


_X_CACHE = {tag: (b"x-cache", tag.encode()) for tag in ("hit", "miss", "bypass")}


def _json(data: Any, status: int = 200, lang: str | None = None) -> Response:
    response = Response(render(data), status, media_type=JSON if status < 400 else PROBLEM)
    if lang is not None:
        response.raw_headers.extend(LANG_HEADERS[lang])
    return response


async def variants(request: Request) -> Response:
    # the catalogue's titles and summaries are English, whatever the request's language
    return _json(handlers.handle("variants", None)[1], lang="en")


async def variant(request: Request) -> Response:
    lang = _lang(request)
    status, answer = handlers.handle("variant", None, lang, request.path_params["id"])
    return _json(answer, status, lang if status != 200 else "en")  # a rule table is English


async def healthz(request: Request) -> Response:
    return _json({"status": "ok"})


async def readyz(request: Request) -> Response:
    return _json(await _svc(request).ready())


async def metrics(request: Request) -> Response:
    return Response(_svc(request).metrics.render(),
                    media_type="text/plain; version=0.0.4; charset=utf-8")


async def openapi_json(request: Request) -> Response:
    return Response(openapi.document_bytes(), media_type=JSON)


async def docs(request: Request) -> Response:
    return ui.page(ui.docs_html())


def echo_answer(body: bytes) -> bytes:
    """Bench baseline (``POST /v1/echo``): parse the JSON body, answer a small object."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        data = None
    return render({"ok": data is not None, "bytes": len(body)})


# --- middleware ---------------------------------------------------------------------------------


class BodyTooLarge(Exception):
    """The request body passed the limit while it was read."""


class BodyLimit:
    """413 problem documents for bodies over ``limit`` bytes (over ``limits[path]`` for the
    paths named there): by Content-Length, and while reading chunked bodies."""

    def __init__(self, app: ASGIApp, limit: int, limits: Mapping[str, int] | None = None) -> None:
        self.app, self.limit, self.limits = app, limit, dict(limits or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope["path"], self.limit)
        lang = ""
        length: int | None = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = int(value) if value.isdigit() else None
            elif name == b"accept-language" and not lang:  # the first, as everywhere
                lang = language(value.decode("latin-1"))
        lang = lang or "en"
        if length is not None and length > limit:
            await status_problem(413, lang, limit=limit)(scope, receive, send)
            return
        total = 0
        started = False

        async def limited() -> Message:
            nonlocal total
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                if total > limit:
                    raise BodyTooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited, tracked)
        except BodyTooLarge:
            if started:
                raise
            await status_problem(413, lang, limit=limit)(scope, receive, send)


def json_media(content_type: bytes) -> bool:
    """``application/json`` or ``application/<anything>+json``, any parameters (charset)."""
    if content_type == b"application/json":
        return True
    media = content_type.partition(b";")[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/")
                                            and media.endswith(b"+json"))


def plain_post(content_type: str, accept: str) -> bool:
    """Whether a GraphQL POST with these headers is one its fast path may answer: a JSON body
    (``Content-Type: application/json``, any parameters), no streaming transport asked for."""
    return (content_type.partition(";")[0].strip() == JSON
            and "text/event-stream" not in accept and "multipart/mixed" not in accept)


def overloaded(lang: str) -> Response:
    """503 ``OVERLOADED``, with ``Retry-After``."""
    return status_problem(503, lang, headers={"Retry-After": str(RETRY_AFTER)},
                          seconds=RETRY_AFTER)


def not_json(lang: str, content_type: bytes) -> Response:
    """415 ``UNSUPPORTED_MEDIA_TYPE`` for a body of this ``Content-Type``."""
    return status_problem(415, lang, headers={"Accept": JSON},
                          media=content_type.decode("latin-1")[:80])


class Gate:
    """Refusals made before the routes, from the request line and headers:

    - 503 ``OVERLOADED`` with ``Retry-After`` for a request ``service.protocol`` marked: one past
      ``MAX_IN_FLIGHT`` that was pipelined behind an answer not yet sent (the protocol answers
      the others itself, at once);
    - 415 ``UNSUPPORTED_MEDIA_TYPE`` for a ``POST /v1/*`` whose ``Content-Type`` is not JSON
      (``application/json`` or ``application/*+json``, with any parameters). A request without
      ``Content-Type`` is taken as JSON (a browser always sends one with a body; curl's ``-d``
      sends ``application/x-www-form-urlencoded``, hence ``--json`` in the README);
    - 405 (``Allow: POST``) for a GraphQL query over GET (``GET /graphql?query=…``): queries are
      POSTed; ``GET /graphql`` without ``query`` is the GraphiQL page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal: Response | None = None
        extensions = scope.get("extensions")
        if extensions and OVERLOADED in extensions:
            refusal = overloaded(self.lang(scope))
        elif scope["method"] == "POST" and scope["path"].startswith("/v1/"):
            for name, value in scope["headers"]:
                if name == b"content-type":
                    if not json_media(value):
                        refusal = not_json(self.lang(scope), value)
                    break
        elif (scope["method"] == "GET" and scope["path"] == "/graphql"
              and any(k == "query" for k, _ in parse_qsl(scope["query_string"].decode(
                  "latin-1"), keep_blank_values=True))):
            refusal = status_problem(405, self.lang(scope), headers={"Allow": "POST"})
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await refusal(scope, receive, send)

    @staticmethod
    def lang(scope: Scope) -> str:
        for name, value in scope["headers"]:
            if name == b"accept-language":
                return language(value.decode("latin-1"))
        return "en"


class Cors:
    """CORS (the Fetch standard) for web pages of the origins in ``CORS_ORIGINS``.

    A request without ``Origin`` (curl, servers, ...) costs one scan of the headers and goes
    on untouched. A preflight (``OPTIONS`` with ``Origin`` and
    ``Access-Control-Request-Method``) is answered here, for any path: 204 with the allowed
    methods and the requested headers (the API takes no credentials and keeps no state, so
    any header may come), or 403 for an origin not allowed. Other requests with an allowed
    ``Origin`` get ``Access-Control-Allow-Origin`` and ``Access-Control-Expose-Headers``
    (``X-Cache``, ``Content-Language``, and the refusals' ``Retry-After`` (503), ``Allow``
    (405), ``Accept`` (415): what scripts may read beyond the safelisted headers).
    With a list of origins (not ``*``) the answer depends on ``Origin``, so every answer to a
    request with one says ``Vary: Origin``, and so does every answer to a ``GET`` or ``HEAD``
    without one (which a shared cache may keep and give to a page)."""

    METHODS = b"GET, POST, OPTIONS"
    EXPOSE = (b"access-control-expose-headers",
              b"X-Cache, Content-Language, Retry-After, Allow, Accept")
    MAX_AGE = (b"access-control-max-age", b"7200")  # seconds; Chromium keeps at most 2 hours
    VARY = (b"vary", b"Origin")

    def __init__(self, app: ASGIApp, origins: tuple[str, ...]) -> None:
        self.app = app
        self.any = "*" in origins
        self.origins = frozenset(o.encode("latin-1") for o in origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = None
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
                break
        if origin is None:  # not a browser's cross-origin request: nothing to allow
            if self.any or scope["method"] not in ("GET", "HEAD"):
                await self.app(scope, receive, send)
                return
            # a GET's answer may be kept by a shared cache and then served to a page: it says
            # it varies by Origin, so the cache does not give a page this answer without CORS
            added = [self.VARY]
        else:
            allowed = self.allows(origin)
            if scope["method"] == "OPTIONS":
                headers = dict(reversed(scope["headers"]))  # of equal names, the first
                if b"access-control-request-method" in headers:
                    await self.preflight(origin, allowed, headers)(scope, receive, send)
                    return
            added = self.headers(origin, allowed)

        async def cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": self.merged(message.get("headers", ()), added)}
            await send(message)

        await self.app(scope, receive, cors)

    def allows(self, origin: bytes) -> bool:
        return self.any or origin in self.origins

    def headers(self, origin: bytes, allowed: bool) -> list[tuple[bytes, bytes]]:
        """The CORS headers of an answer to ``origin`` (``vary`` merged later)."""
        out: list[tuple[bytes, bytes]] = []
        if allowed:
            out += [(b"access-control-allow-origin", b"*" if self.any else origin), self.EXPOSE]
        if not self.any:
            out.append(self.VARY)
        return out

    @staticmethod
    def merged(headers: Any, added: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        """``headers`` plus ``added``; a ``vary`` joins the answer's own (one header)."""
        out = list(headers)
        for name, value in added:
            if name == b"vary":
                for i, (key, old) in enumerate(out):
                    if key.lower() == b"vary":
                        out[i] = (key, old + b", " + value)
                        break
                else:
                    out.append((name, value))
            else:
                out.append((name, value))
        return out

    def preflight(self, origin: bytes, allowed: bool, headers: dict[bytes, bytes]) -> Response:
        lang = language(headers.get(b"accept-language", b"").decode("latin-1"))
        if not allowed:
            response = status_problem(403, lang)
            response.raw_headers[:] = self.merged(response.raw_headers,
                                                  self.headers(origin, False))
            return response
        response = Response(status_code=204)
        out = [*self.headers(origin, True), (b"access-control-allow-methods", self.METHODS),
               self.MAX_AGE]
        requested = headers.get(b"access-control-request-headers")
        if requested:
            out.append((b"access-control-allow-headers", requested))
        response.raw_headers[:] = self.merged(response.raw_headers, out)
        return response


_OPS = {"/v1/variants": "variants", "/v1/deal": "deal", "/v1/validate": "validate",
        "/v1/legal-actions": "legal-actions", "/v1/check": "check", "/v1/apply": "apply",
        "/v1/score": "score", "/v1/score/tally": "score-tally", "/v1/game": "game",
        "/graphql": "graphql", "/healthz": "healthz",
        "/v1/audit": "audit", "/v1/view": "view", "/v1/batch": "batch",
        "/readyz": "readyz", "/metrics": "metrics", "/openapi.json": "openapi",
        "/docs": "docs", "/v1/echo": "echo"}


def op_of(path: str) -> str:
    """The metrics label of a path (bounded: unknown paths are ``other``)."""
    op = _OPS.get(path)
    if op is None:
        if path.startswith("/v1/variants/"):
            return "variant"
        return "static" if path.startswith("/static/") else "other"
    return op


NOSNIFF = (b"x-content-type-options", b"nosniff")


class Observe:
    """Metrics and one JSON log line per request; ``X-Content-Type-Options: nosniff`` on every
    answer. A request whose client went away before its body arrived (``ClientDisconnect``;
    also a body past ``BODY_TIMEOUT``, which ``service.protocol`` answered with 408) is a
    client abort: counted in ``canasta_client_aborts``, one log line, no answer, no 500."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        headers: Any = ()

        async def observed(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", ()), NOSNIFF]  # no route sets it itself
                message = {**message, "headers": headers}
            await send(message)

        aborted = None
        try:
            await self.app(scope, receive, observed)
        except ClientDisconnect:
            aborted = _abort_reason(scope)
        finally:
            cache = next((v.decode() for k, v in headers if k == b"x-cache"), None)
            record(self.metrics, scope, op_of(scope["path"]), status, cache, start, aborted)


def _abort_reason(scope: Scope) -> str:
    """``timeout`` for a body past ``BODY_TIMEOUT`` (``service.protocol`` marks it), else
    ``disconnect``."""
    return "timeout" if TIMED_OUT in (scope.get("extensions") or {}) else "disconnect"


_STATUS = {status: str(status) for status in range(100, 600)}


def record(metrics: Metrics, scope: Scope, op: str, status: int, cache: str | None,
           start: float, aborted: str | None = None) -> None:
    """A request's metrics and log line (``aborted``: the reason a client abort had)."""
    seconds = time.perf_counter() - start
    if aborted is not None:
        metrics.client_aborts.inc(op, aborted)
    else:
        metrics.requests.inc(op, _STATUS.get(status) or str(status))
        metrics.latency.observe(op, seconds)
    if log.isEnabledFor(logging.INFO):
        # milliseconds to the microsecond: the nearest float to a whole number of µs / 1000,
        # which a log line writes as that decimal (round(ms, 3) rounds through decimal digits:
        # 3k instructions a request, the line's most costly step)
        ms = int(seconds * 1_000_000 + 0.5) / 1000
        if aborted is not None:
            _ABORTED.info((scope["method"], scope["path"][:200], op, aborted), ms)
        else:
            _REQUEST.info((scope["method"], scope["path"][:200], op, status, cache), ms)


#: the log lines of requests answered and aborted
_REQUEST = logs.Lines(log, "request", ("method", "path", "op", "status", "cache"), "ms")
_ABORTED = logs.Lines(log, "aborted", ("method", "path", "op", "reason"), "ms")


# --- errors -------------------------------------------------------------------------------------


def _lang(request: Request) -> str:
    return language(request.headers.get("accept-language"))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return status_problem(exc.status_code, _lang(request), headers=exc.headers)


async def server_error(request: Request, exc: Exception) -> Response:
    log.error("unexpected error", exc_info=exc, extra={"fields": {"path": request.url.path}})
    return status_problem(500, _lang(request))


# --- the operations' fast path -----------------------------------------------------------------


class Referee(Starlette):
    """The service's app. A ``POST`` to an operation's path (``/v1/legal-actions``, ...) is
    answered by ``operation`` in one pass over its headers, with no request object and no
    middleware: it does what the middleware does for other paths (metrics and the log line,
    ``nosniff``, CORS headers, the refusals of ``Gate`` and ``BodyLimit``) and adds
    ``Content-Language``, ``Vary`` and ``X-Cache``. Everything else (other methods and paths,
    preflights) goes through Starlette and its middleware."""

    svc: Service
    operations: dict[str, str]  # path: operation
    body_limits: dict[str, int]  # operation: MAX_BODY_BYTES, or its own limit
    graphql: Any  # the GraphQL view (service.graphql), for its plans
    cors: Cors | None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            path, root = scope["path"], scope.get("root_path")
            op = self.operations.get(path[len(root):] if root and path.startswith(root) else path)
            if op is not None:
                await self.operation(op, scope, receive, send)
                return
            if path == "/graphql" and self.graphql is not None:
                await self.query(scope, receive, send)
                return
        await super().__call__(scope, receive, send)

    async def operation(self, op: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a ``POST`` to ``op``'s path."""
        start = time.perf_counter()
        lang, length, origin, media, _ = _headers(scope)
        limit = self.body_limits[op]
        extensions = scope.get("extensions")
        refusal = (overloaded(lang) if extensions and OVERLOADED in extensions
                   else not_json(lang, media) if media is not None and not json_media(media)
                   else status_problem(413, lang, limit=limit) if length > limit else None)
        bulk = op in BULK
        if refusal is None and bulk and not self.svc.bulk_slot():
            refusal = overloaded(lang)
        if refusal is not None:
            await self.answer(scope, send, refusal, op, origin, start)
            return
        try:  # (the bulk count is kept while the body is read and the answer sent)
            body = await self.body(scope, receive, send, op, limit, lang, origin, start)
            if body is None:
                return
            cache: str | None
            try:
                if op == "batch":
                    answered = await self.batch(receive, body, lang)
                    if answered is None:  # the client went away: nothing to send
                        record(self.svc.metrics, scope, op, 0, None, start,
                               _abort_reason(scope))
                        return
                    status, content, tags = answered
                    cache = ", ".join(tags) or None
                elif op == "echo":
                    status, content, cache = 200, echo_answer(body), None
                else:
                    prepared = self.svc.prepare(op, body, lang)
                    status, content, cache = (await self.svc.looked_up(prepared)
                                              if isinstance(prepared, Lookup) else prepared)
            except Exception as exc:
                log.error("unexpected error", exc_info=exc,
                          extra={"fields": {"path": scope["path"]}})
                await self.answer(scope, send, status_problem(500, lang), op, origin, start)
                return
            await self.send(scope, send, status, content, lang, cache, origin, op, start)
        finally:
            if bulk:
                self.svc.bulk -= 1

    async def batch(self, receive: Receive, body: bytes, lang: str
                    ) -> tuple[int, bytes, list[str]] | None:
        """``Service.batch``, stopped when the client goes away: once the body is read, the
        server's ``receive`` answers only ``http.disconnect`` (or the end of the answer)."""
        watch = asyncio.ensure_future(receive())

        def gone() -> bool:
            return (watch.done() and not watch.cancelled() and watch.exception() is None
                    and watch.result().get("type") == "http.disconnect")

        try:
            return await self.svc.batch(body, lang, gone)
        finally:
            if not watch.done():
                watch.cancel()
            elif not watch.cancelled():
                watch.exception()  # retrieved: no "never retrieved" warning

    async def body(self, scope: Scope, receive: Receive, send: Send, op: str, limit: int,
                   lang: str, origin: bytes | None, start: float) -> bytes | None:
        """The request's body, counted as it comes when it is chunked; None when the client
        went away (counted) or the body passed ``limit`` (answered 413)."""
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                record(self.svc.metrics, scope, op, 0, None, start, _abort_reason(scope))
                return None
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = message.get("more_body", False)
            if size > limit:
                await self.answer(scope, send, status_problem(413, lang, limit=limit), op,
                                  origin, start)
                return None
        # one chunk (the usual case) is the body itself; many are joined once, not one by one
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def send(self, scope: Scope, send: Send, status: int, content: bytes, lang: str,
                   cache: str | None, origin: bytes | None, op: str, start: float) -> None:
        """Send a JSON answer (a problem document unless 200) with the headers of every
        answer, and count it."""
        headers = [(b"content-length", b"%d" % len(content)),
                   _CONTENT_TYPE[status == 200], *LANG_HEADERS[lang]]
        if cache:
            headers.append(_X_CACHE.get(cache) or (b"x-cache", cache.encode()))
        headers.append(NOSNIFF)
        if origin is not None and self.cors is not None:
            headers = Cors.merged(headers, self.cors.headers(origin, self.cors.allows(origin)))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})
        record(self.svc.metrics, scope, op, status, cache, start)

    async def query(self, scope: Scope, receive: Receive, send: Send) -> None:
        """``POST /graphql``: a document the GraphQL view has planned (``graphql_fast``) is
        answered in one pass as ``operation`` answers; any other request goes through
        Starlette, the middleware and strawberry, with its body as read here."""
        start = time.perf_counter()
        lang, length, origin, media, accept = _headers(scope)
        limit = self.body_limits["graphql"]
        extensions = scope.get("extensions")
        if ((extensions and OVERLOADED in extensions) or length > limit
                or not plain_post((media or b"").decode("latin-1"), accept.decode("latin-1"))):
            await super().__call__(scope, receive, send)  # Gate, BodyLimit, strawberry
            return
        body = await self.body(scope, receive, send, "graphql", limit, lang, origin, start)
        if body is None:
            return
        assert self.graphql is not None
        try:
            answer = await self.graphql.planned(body, lang)
        except Exception as exc:
            log.error("unexpected error", exc_info=exc, extra={"fields": {"path": scope["path"]}})
            await self.answer(scope, send, status_problem(500, lang), "graphql", origin, start)
            return
        if answer is not None:
            await self.send(scope, send, 200, answer, lang, None, origin, "graphql", start)
            return
        given = False

        async def replay() -> Message:
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await super().__call__(scope, replay, send)

    async def answer(self, scope: Scope, send: Send, response: Response, op: str,
                     origin: bytes | None, start: float) -> None:
        """Send a problem document made by ``status_problem`` (413, 415, 500, 503) as the
        middleware sends it for other paths."""
        headers = [*response.raw_headers, NOSNIFF]
        if origin is not None and self.cors is not None:
            headers = Cors.merged(headers, self.cors.headers(origin, self.cors.allows(origin)))
        await send({"type": "http.response.start", "status": response.status_code,
                    "headers": headers})
        await send({"type": "http.response.body", "body": response.body})
        record(self.svc.metrics, scope, op, response.status_code, None, start)


def _headers(scope: Scope) -> tuple[str, int, bytes | None, bytes | None, bytes]:
    """One scan of a request's headers: its language, ``Content-Length`` (-1: none or not a
    number), ``Origin``, ``Content-Type`` (None: none) and ``Accept``. Of two
    ``Accept-Language`` headers the first counts, as for Starlette's routes and strawberry."""
    lang, length, origin, media, accept = "", -1, None, None, b""
    for name, value in scope["headers"]:
        if name == b"content-length":
            length = int(value) if value.isdigit() else -1
        elif name == b"accept-language":
            lang = lang or _language_of(value)
        elif name == b"content-type":
            media = value
        elif name == b"accept":
            accept = value
        elif name == b"origin":
            origin = value
    return lang or "en", length, origin, media, accept


_CONTENT_TYPE = {True: (b"content-type", JSON.encode()), False: (b"content-type", PROBLEM.encode())}
#: Accept-Language values seen, and the language each asks for (a few distinct ones in practice;
#: bounded, so a client sending new ones each time costs a parse, not memory)
_LANGUAGES: dict[bytes, str] = {}


def _language_of(header: bytes) -> str:
    lang = _LANGUAGES.get(header)
    if lang is None:
        lang = language(header.decode("latin-1"))
        if len(_LANGUAGES) < 256:
            _LANGUAGES[header] = lang
    return lang


# --- the app ------------------------------------------------------------------------------------


def create_app(settings: Settings | None = None) -> Starlette:
    """The service with these settings (default: from the environment)."""
    settings = settings or Settings.from_env()
    logs.setup(settings.log_level)
    svc = Service(settings)
    svc.metrics.engine_info.labels(ENGINE_ID, engine.BUILD, text.WRITER).set(1)
    from .graphql import graphql_app  # strawberry is slow to import; keep it here

    view = graphql_app(svc)

    routes = [
        Route("/v1/variants", variants, methods=["GET"]),
        Route("/v1/variants/{id}", variant, methods=["GET"]),
        _op_route("/v1/deal", "deal"),
        *(_op_route(f"/v1/{op}", op) for op in ("validate", "legal-actions", "check", "apply",
                                                 "score", "audit", "view")),
        _op_route("/v1/batch", "batch"),
        _op_route("/v1/score/tally", "score-tally"),
        _op_route("/v1/game", "game"),
        Route("/graphql", view, methods=["GET", "POST"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
        Route("/static/{name:path}", ui.asset, methods=["GET"]),
    ]
    if settings.bench_echo:
        routes.append(_op_route("/v1/echo", "echo"))
    operations = {route.path: route.name for route in routes
                  if isinstance(route, Route) and isinstance(route.endpoint, _Operation)}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        log.info("starting", extra={"fields": {"engine": ENGINE_ID, "build": engine.BUILD,
                                               "writer": text.WRITER}})
        gc.collect()
        gc.freeze()  # start-up objects out of the collector's way (shorter p99 pauses)
        try:
            yield
        finally:
            await svc.cache.close()

    handlers_: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: http_error, Exception: server_error}
    middleware = [Middleware(Observe, metrics=svc.metrics),
                  # before Gate and BodyLimit, so a 503, 415 or 413 carries the CORS headers a
                  # page needs to read it
                  *([Middleware(Cors, origins=settings.cors_origins)]
                    if settings.cors_origins else []),
                  Middleware(Gate),
                  Middleware(BodyLimit, limit=settings.max_body_bytes,
                             limits=settings.body_limits)]
    app = Referee(routes=routes, lifespan=lifespan, exception_handlers=handlers_,
                  middleware=middleware)
    app.state.svc = app.svc = svc
    app.operations = operations
    app.body_limits = {op: settings.body_limits.get(path, settings.max_body_bytes)
                       for path, op in {**operations, "/graphql": "graphql"}.items()}
    app.graphql = view
    app.cors = Cors(app, settings.cors_origins) if settings.cors_origins else None
    # a path with a slash more (or less) is not found: a redirect's Location would be built
    # from the client's Host header, and a POST client seldom follows one
    app.router.redirect_slashes = False
    return app
