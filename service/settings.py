"""The service's settings: every one from an environment variable, with a safe default."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from urllib.parse import urlsplit

REDIS_SCHEMES = ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster")
#: the settings an empty variable sets (to no URL, no origin, no operation); an empty variable
#: of any other setting is as if unset (its default)
EMPTY_MEANS_NONE = frozenset({"redis_url", "cors_origins", "cache_ops", "redis_ops"})
#: the ports and worker counts ``PORT`` and ``WORKERS`` (and ``serve --port``, ``--workers``)
#: take
PORTS = (0, 65535)
WORKERS = (1, 1024)
CACHEABLE = ("validate", "legal-actions", "check", "apply", "score")

# name, meaning: the configuration table of docs/operations.md is generated from this list with
# the defaults of ``Settings`` (``python -m canasta_referee.service.settings --write``)
DOCS: dict[str, str] = {
    "HOST": "Address to listen on (`serve`).",
    "PORT": "Port to listen on (`serve`).",
    "WORKERS": "uvicorn worker processes (`serve`).",
    "GRACEFUL_TIMEOUT": "Seconds a stopping server (SIGTERM) lets requests in flight finish "
                        "before it cancels them (`serve`).",
    "LOG_LEVEL": "`debug`, `info` (one JSON line per request), `warning` or `error`.",
    "MAX_HEADER_BYTES": "Largest request line plus header section; a larger one gets 431 "
                        "`HEADERS_TOO_LARGE` and the connection is closed (`serve`).",
    "HEADER_TIMEOUT": "Seconds for a request's line and headers to arrive, counted from the "
                      "connection's accept (first request) or the request's first byte; then "
                      "408 `REQUEST_TIMEOUT` (a connection that sent nothing is just closed) "
                      "(`serve`).",
    "BODY_TIMEOUT": "Seconds for a request's body to arrive after its headers; then 408 "
                    "`REQUEST_TIMEOUT` and the connection is closed. Also bounds how long a slow "
                    "upload holds a stopping server (`serve`).",
    "SEND_TIMEOUT": "Seconds a client has to take an answer the worker had to hold back (the "
                    "socket's buffer full, more than 16 KiB waiting), or the rest of it after "
                    "its connection was closed; then the connection is dropped with what is "
                    "left unsent. Answers a client reads as they come never wait (`serve`).",
    "MAX_UNSENT_BYTES": "Bytes of answers held back for clients that do not read them, per "
                        "worker; past it the connection held back longest is dropped. At "
                        "least `MAX_BULK_ANSWER_BYTES` (`serve`).",
    "SEND_BUFFER_BYTES": "The kernel's send buffer of each connection (`SO_SNDBUF`; Linux "
                         "keeps twice the value for its bookkeeping); 0: the kernel's own "
                         "sizing, up to `net.ipv4.tcp_wmem`'s maximum (several MB a connection "
                         "for a client that reads nothing). Set, it bounds that memory to "
                         "`MAX_CONNECTIONS` x 2 x this, and what does not fit waits in the "
                         "worker under `SEND_TIMEOUT` and `MAX_UNSENT_BYTES`; it also caps what "
                         "a connection can have in flight per round trip (`serve`).",
    "KEEPALIVE_TIMEOUT": "Seconds an idle keep-alive connection stays open between requests; "
                         "keep a load balancer's idle timeout shorter (`serve`).",
    "MAX_CONNECTIONS": "Open connections per worker. Past it the longest-idle connection (no "
                       "request in progress) is closed to make room; when every one is busy, "
                       "32 more may ask `/healthz` or `/readyz` only, others get 503 "
                       "`OVERLOADED`; beyond those a new connection is answered 503 and closed "
                       "at once. Kept below the process's open-file limit (`serve`).",
    "MAX_IN_FLIGHT": "Requests per worker being read, queued or answered; past it a request gets "
                     "503 `OVERLOADED` with `Retry-After: 1` at once, except `/healthz` and "
                     "`/readyz`. 0: no limit (`serve`).",
    "MAX_BODY_BYTES": "Largest request body; larger ones get 413 (also chunked bodies).",
    "MAX_ACTIONS": "Most actions in one `check`/`apply` request (at most 200, the wire bound); "
                   "more get 422 `TOO_MANY_ACTIONS`.",
    "MAX_PROBLEMS": "Most problems one answer lists (`validate`, and the `INVALID_STATE` and "
                    "`MALFORMED_REQUEST` problem documents); an answer that leaves some out says "
                    "how many in `more`.",
    "MAX_LEGAL_ACTIONS": "Most legal actions one `legal-actions` answer lists; a state with "
                         "more gets 422 `TOO_MANY_LEGAL_ACTIONS` (no real deal comes near: "
                         "docs/operations.md, \"Memory budget\").",
    "MAX_AUDIT_BODY_BYTES": "Largest body of `POST /v1/audit` (a whole game's log); larger "
                            "ones get 413.",
    "MAX_AUDIT_ACTIONS": "Most actions in one `POST /v1/audit` log, over all its deals; more "
                         "get 422 `TOO_MANY_ACTIONS`.",
    "MAX_BATCH": "Most operations in one `POST /v1/batch` (at most 256, the wire bound); more "
                 "get 422 `TOO_MANY_OPERATIONS`.",
    "MAX_BATCH_BODY_BYTES": "Largest body of `POST /v1/batch`; larger ones get 413.",
    "MAX_BULK_IN_FLIGHT": "`POST /v1/audit` and `POST /v1/batch` requests per worker being read "
                          "or answered at once (theirs are the largest bodies and answers); past "
                          "it one gets 503 `OVERLOADED` with `Retry-After: 1` before its body "
                          "is read.",
    "MAX_BULK_ANSWER_BYTES": "Largest answer of `POST /v1/audit` or `POST /v1/batch`; one that "
                             "would be larger gets 422 `ANSWER_TOO_LARGE` instead (a batch "
                             "stops at the operation that passes it).",
    "CACHE_SIZE": "Answers in the in-process LRU tier, each under its exact request bytes. "
                  "0: no in-process tier.",
    "CACHE_MAX_BYTES": "Bytes the in-process tier may hold (answers, their keys and a fixed "
                       "overhead per entry); the least recently used go first. 0: no "
                       "in-process tier.",
    "CACHE_MAX_ENTRY_BYTES": "Largest answer (bytes of JSON) cached, in process and in Redis; "
                             "larger ones are computed every time.",
    "CACHE_TTL": "Seconds an entry lives, in both tiers (at least 0.001: Redis counts whole "
                 "milliseconds).",
    "CACHE_OPS": "Operations whose answers are cached (comma-separated; empty: none).",
    "REDIS_URL": "Second cache tier: `redis://host:port/0`, `rediss://…` (TLS), "
                 "`unix:///path/to/redis.sock`, or `redis+cluster://host:port` "
                 "(`rediss+cluster://…` with TLS) for a Redis Cluster, naming any node. Empty: "
                 "in-process only.",
    "REDIS_CLUSTER": "`1`: treat `REDIS_URL` as a Redis Cluster node.",
    "REDIS_OPS": "Operations whose answers also go to Redis (comma-separated; empty: none).",
    "REDIS_TIMEOUT": "Seconds for a Redis connect or command before it counts as a failure.",
    "REDIS_MAX_CONNECTIONS": "Redis connections per worker (per node of a cluster), at most; "
                             "a command that finds none free within REDIS_TIMEOUT counts as a "
                             "failure. Half of them at most write answers at once: a single "
                             "request's answer computed while that many writes are pending is "
                             "not written (`canasta_redis_writes_skipped_total`); a batch waits "
                             "for room.",
    "REDIS_BREAKER_FAILURES": "Consecutive failed Redis reads that open the read circuit "
                              "breaker; as many failed writes open the write breaker.",
    "REDIS_BREAKER_SECONDS": "Seconds a breaker stays open (Redis reads, or writes, skipped) "
                             "before a retry.",
    "GRAPHQL_MAX_TOKENS": "Most tokens in a GraphQL document (names, punctuation, values, "
                          "comments); the parser stops at one more.",
    "GRAPHQL_MAX_DEPTH": "Most fields nested in fields in a GraphQL query (a root field is 1; "
                         "fragments add none, but fragments nested more than three times this "
                         "deep count as too deep as well). At most 60.",
    "GRAPHQL_MAX_FIELDS": "Most field selections in a GraphQL document, every fragment "
                          "written out where it is spread.",
    "GRAPHQL_MAX_REPEATED_FIELDS": "Most field selections that repeat a response name already "
                                   "selected beside them (validation compares each pair).",
    "GRAPHQL_MAX_ALIASES": "Most aliases in a GraphQL document, fragments written out.",
    "GRAPHQL_MAX_COST": "Most estimated cost of a GraphQL query: per root `legalActions`, "
                        "`check` and `apply`, 1 + the cards in the hand of the seat to move "
                        "+ a quarter of the actions given; per root `__schema`, `batch` or "
                        "`audit`, 100.",
    "GRAPHQL_IDE": "`0`: no GraphiQL page at `GET /graphql` (a 404 there instead); the page "
                   "loads nothing from outside the service.",
    "BENCH_ECHO": "`1`: add `POST /v1/echo` (parse the JSON body, answer a small object), "
                  "the baseline of `bench/http.py`.",
    "CORS_ORIGINS": "Origins whose web pages may call the API from a browser (CORS), "
                    "comma-separated: `https://app.example,http://localhost:5173`. `*` (the "
                    "default): any origin; the API takes no credentials and keeps no state. "
                    "Empty: no cross-origin calls.",
}


class SettingError(ValueError):
    """A setting that cannot be used; the message (one line) names the variable and the
    problem, e.g. ``PORT: 'abc' is not an integer``."""


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _shown(raw: str) -> str:
    """A setting's value for an error message: quoted, at most 40 characters, on one line."""
    return repr(raw if len(raw) <= 40 else raw[:37] + "...")  # repr: escapes, one line


def _ops(text: str) -> frozenset[str]:
    ops = frozenset(p.strip() for p in text.split(",") if p.strip())
    unknown = ops - set(CACHEABLE)
    if unknown:
        raise ValueError(f"not cacheable: {', '.join(sorted(unknown))} (cacheable: "
                         f"{','.join(CACHEABLE)})")
    return ops


def _origins(text: str) -> tuple[str, ...]:
    """``CORS_ORIGINS`` as a tuple (``Settings.checked`` checks each)."""
    return tuple(p.strip() for p in text.split(",") if p.strip())


def origin_problem(origin: str) -> str | None:
    """Why ``origin`` cannot be an allowed CORS origin (None when it can): a browser's
    ``Origin`` header is ``scheme://host[:port]``, lower case, no path."""
    if origin == "*":
        return None
    parts = urlsplit(origin)
    if (parts.scheme not in ("http", "https") or not parts.hostname or parts.path
            or parts.query or parts.fragment or "@" in parts.netloc or origin != origin.lower()):
        return (f"{_shown(origin)} is not an origin (scheme://host[:port] in lower case, "
                "no path, e.g. https://app.example)")
    try:
        port = parts.port
    except ValueError:
        return f"{_shown(origin)} has a bad port"
    if port == {"http": 80, "https": 443}[parts.scheme]:  # a browser never sends it
        return (f"{_shown(origin)} names its scheme's default port, which a browser leaves out "
                f"of Origin: write {parts.scheme}://{parts.netloc.rsplit(':', 1)[0]}")
    return None


def _parse(default: object, raw: str) -> object:
    """A setting's value, of its default's type; ``ValueError`` (its message shows the value
    and what is wrong) when the text is not one."""
    text = raw.strip()
    if isinstance(default, bool):
        if text.lower() not in _TRUE + _FALSE:
            raise ValueError(f"{_shown(raw)} is not 1/0, true/false, yes/no or on/off")
        return text.lower() in _TRUE
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{_shown(raw)} is not an integer") from None
    if isinstance(default, float):
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{_shown(raw)} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{_shown(raw)} is not a finite number")
        return number
    if isinstance(default, frozenset):
        return _ops(raw)
    if isinstance(default, tuple):
        return _origins(raw)
    return text


@dataclass(frozen=True)
class Settings:
    """Runtime settings; ``Settings.from_env()`` reads them from the environment."""

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    graceful_timeout: int = 20
    log_level: str = "info"
    max_header_bytes: int = 16 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 15.0
    keepalive_timeout: float = 5.0
    send_timeout: float = 30.0
    max_unsent_bytes: int = 8 * 1024 * 1024
    send_buffer_bytes: int = 0
    max_connections: int = 1000
    max_in_flight: int = 64
    max_body_bytes: int = 256 * 1024
    max_actions: int = 200
    max_problems: int = 100
    max_legal_actions: int = 1000
    max_audit_body_bytes: int = 2 * 1024 * 1024
    max_audit_actions: int = 20_000
    max_batch: int = 256
    max_batch_body_bytes: int = 1024 * 1024
    max_bulk_in_flight: int = 4
    max_bulk_answer_bytes: int = 2 * 1024 * 1024
    cache_size: int = 4096
    cache_max_bytes: int = 64 * 1024 * 1024
    cache_max_entry_bytes: int = 128 * 1024
    cache_ttl: float = 3600.0
    cache_ops: frozenset[str] = field(default_factory=lambda: frozenset(CACHEABLE))
    redis_url: str = ""
    redis_cluster: bool = False
    redis_ops: frozenset[str] = field(default_factory=lambda: frozenset(("legal-actions",)))
    redis_timeout: float = 0.05
    redis_max_connections: int = 128
    redis_breaker_failures: int = 3
    redis_breaker_seconds: float = 5.0
    graphql_max_tokens: int = 4000
    graphql_max_depth: int = 15
    graphql_max_fields: int = 300
    graphql_max_repeated_fields: int = 20
    graphql_max_aliases: int = 8
    graphql_max_cost: int = 250
    graphql_ide: bool = True
    bench_echo: bool = False
    cors_origins: tuple[str, ...] = ("*",)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from environment variables named like the fields in upper case; raises
        ``SettingError`` naming the first variable that cannot be used."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        defaults = cls()
        for f in fields(cls):
            name = f.name.upper()
            raw = env.get(name)
            if raw is None or raw == "" and f.name not in EMPTY_MEANS_NONE:
                continue
            default = getattr(defaults, f.name)
            try:
                values[f.name] = _parse(default, raw)
            except ValueError as exc:
                raise SettingError(f"{name}: {exc}") from None
        return cls(**values).checked()  # type: ignore[arg-type]

    @property
    def body_limits(self) -> dict[str, int]:
        """The paths whose bodies have a limit of their own (others: ``max_body_bytes``)."""
        return {"/v1/audit": self.max_audit_body_bytes, "/v1/batch": self.max_batch_body_bytes}

    @property
    def redis_is_cluster(self) -> bool:
        """``REDIS_URL`` names a Redis Cluster (``+cluster`` scheme or ``REDIS_CLUSTER=1``)."""
        return self.redis_cluster or "+cluster://" in self.redis_url.lower()

    @property
    def redis_max_writes(self) -> int:
        """Answers written to Redis at once, at most: half of ``REDIS_MAX_CONNECTIONS`` (reads
        keep the other half)."""
        return max(1, self.redis_max_connections // 2)

    def checked(self) -> Settings:
        """Raise ``SettingError`` (naming the variable) for settings out of range."""
        ranges: tuple[tuple[str, float, float, float | None], ...] = (
            ("PORT", self.port, *PORTS), ("WORKERS", self.workers, *WORKERS),
            ("GRACEFUL_TIMEOUT", self.graceful_timeout, 0, None),
            ("MAX_ACTIONS", self.max_actions, 1, 200),
            ("MAX_BODY_BYTES", self.max_body_bytes, 1024, None),
            ("MAX_PROBLEMS", self.max_problems, 1, None),
            ("MAX_LEGAL_ACTIONS", self.max_legal_actions, 1, None),
            ("MAX_AUDIT_BODY_BYTES", self.max_audit_body_bytes, 1024, None),
            ("MAX_AUDIT_ACTIONS", self.max_audit_actions, 1, None),
            ("MAX_BATCH", self.max_batch, 1, 256),
            ("MAX_BATCH_BODY_BYTES", self.max_batch_body_bytes, 1024, None),
            ("MAX_BULK_IN_FLIGHT", self.max_bulk_in_flight, 1, None),
            ("MAX_BULK_ANSWER_BYTES", self.max_bulk_answer_bytes, 64 * 1024, None),
            ("CACHE_SIZE", self.cache_size, 0, None),
            ("CACHE_TTL", self.cache_ttl, 0.001, None),  # Redis keeps whole milliseconds (PX)
            ("MAX_HEADER_BYTES", self.max_header_bytes, 1024, None),
            ("MAX_CONNECTIONS", self.max_connections, 1, None),
            ("MAX_IN_FLIGHT", self.max_in_flight, 0, None),
            ("GRAPHQL_MAX_TOKENS", self.graphql_max_tokens, 1, None),
            ("GRAPHQL_MAX_DEPTH", self.graphql_max_depth, 1, 60),
            ("GRAPHQL_MAX_FIELDS", self.graphql_max_fields, 1, None),
            ("GRAPHQL_MAX_REPEATED_FIELDS", self.graphql_max_repeated_fields, 0, None),
            ("GRAPHQL_MAX_ALIASES", self.graphql_max_aliases, 0, None),
            ("GRAPHQL_MAX_COST", self.graphql_max_cost, 1, None),
            ("CACHE_MAX_BYTES", self.cache_max_bytes, 0, None),
            ("CACHE_MAX_ENTRY_BYTES", self.cache_max_entry_bytes, 0, None),
            ("REDIS_BREAKER_FAILURES", self.redis_breaker_failures, 1, None),
            ("REDIS_BREAKER_SECONDS", self.redis_breaker_seconds, 0, None),
            ("REDIS_MAX_CONNECTIONS", self.redis_max_connections, 2, None))
        for name, value, low, high in ranges:
            if value < low or high is not None and value > high:
                raise SettingError(f"{name}: {value} is out of range ({low}..{high})" if high
                                   is not None else f"{name}: {value} is less than {low}")
        for name, value in (("CACHE_TTL", self.cache_ttl), ("REDIS_TIMEOUT", self.redis_timeout),
                            ("HEADER_TIMEOUT", self.header_timeout),
                            ("BODY_TIMEOUT", self.body_timeout),
                            ("KEEPALIVE_TIMEOUT", self.keepalive_timeout),
                            ("SEND_TIMEOUT", self.send_timeout)):
            if not value > 0:
                raise SettingError(f"{name}: {value} must be more than 0")
        if self.redis_url:
            scheme = self.redis_url.partition("://")[0].lower()
            if scheme not in REDIS_SCHEMES:
                raise SettingError("REDIS_URL: must start with " + ", ".join(
                    f"{s}://" for s in REDIS_SCHEMES))
            _check_redis_url(scheme, self.redis_url, self.redis_is_cluster)
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise SettingError(f"LOG_LEVEL: {_shown(self.log_level)} is not debug, info, "
                               "warning or error")
        if self.send_buffer_bytes and not 4096 <= self.send_buffer_bytes <= 64 * 1024 * 1024:
            raise SettingError(f"SEND_BUFFER_BYTES: {self.send_buffer_bytes} is neither 0 nor "
                               "in 4096..67108864")
        if self.max_unsent_bytes < self.max_bulk_answer_bytes:
            raise SettingError(f"MAX_UNSENT_BYTES: {self.max_unsent_bytes} is less than "
                               f"MAX_BULK_ANSWER_BYTES ({self.max_bulk_answer_bytes}): an answer "
                               "as large as that would be dropped whenever its client is slow")
        if "*" in self.cors_origins and len(self.cors_origins) > 1:
            raise SettingError("CORS_ORIGINS: '*' (any origin) stands alone")
        for origin in self.cors_origins:
            problem = origin_problem(origin)
            if problem:
                raise SettingError(f"CORS_ORIGINS: {problem}")
        return self


# --- the configuration table of docs/operations.md ----------------------------------------------

TABLE_BEGIN = ("<!-- settings-table: generated by `python -m canasta_referee.service.settings`, "
               "do not edit -->")
TABLE_END = "<!-- end of settings-table -->"
#: the document that holds the table, relative to the repository
TABLE_TARGET = "docs/operations.md"


def _default_shown(value: object) -> str:
    """A default as the environment variable would spell it."""
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, frozenset):
        return "`" + ",".join(op for op in CACHEABLE if op in value) + "`"
    if isinstance(value, tuple):
        return "`" + ",".join(str(v) for v in value) + "`" if value else "empty"
    return f"`{value}`" if value != "" else "empty"


def table_block() -> str:
    """Every setting (``DOCS``) with its default, between the markers of the target document."""
    defaults = Settings()
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, meaning in DOCS.items():
        rows.append(f"| `{name}` | {_default_shown(getattr(defaults, name.lower()))} | {meaning} |")
    return "\n".join([TABLE_BEGIN, *rows, TABLE_END])


def write_table(root: Path) -> bool:
    """Put the current table into ``root / TABLE_TARGET``; True if it changed."""
    path = root / TABLE_TARGET
    text = path.read_text()
    start, end = text.index(TABLE_BEGIN), text.index(TABLE_END) + len(TABLE_END)
    new = text[:start] + table_block() + text[end:]
    if new != text:
        path.write_text(new)
    return new != text


def _check_redis_url(scheme: str, url: str, cluster: bool) -> None:
    """Raise ``SettingError`` for a ``REDIS_URL`` the Redis client could not connect by: one
    its own parser refuses (a port that is not a number in 0..65535, a query parameter of the
    wrong type: ``?db=x``), no host (``redis://`` alone would mean localhost), a database that
    is not a number (the client would use 0), a ``unix://`` URL without a path, a cluster
    database other than 0. The messages do not repeat the URL (it may hold a password)."""
    from redis.connection import parse_url  # (what the client reads the URL with)

    plain = scheme.removesuffix("+cluster")
    try:
        parts = urlsplit(url)
        read: dict[str, object] = parse_url(plain + url[len(scheme):])  # type: ignore[no-untyped-call]
    except ValueError as exc:
        raise SettingError(f"REDIS_URL: {exc}") from None
    if cluster and (parts.path not in ("", "/", "/0") or read.get("db", 0) != 0):
        raise SettingError("REDIS_URL: a Redis Cluster has database 0 only")
    if plain == "unix":
        if not parts.path.strip("/"):
            raise SettingError("REDIS_URL: names no socket (unix:///path/to/redis.sock)")
        return
    if not parts.hostname:
        raise SettingError("REDIS_URL: names no host (redis://HOST:PORT/DB)")
    database = parts.path.removeprefix("/")
    if database and not (database.isascii() and database.isdigit()):
        raise SettingError("REDIS_URL: its database is not a number (redis://HOST:PORT/DB)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        print(f"{TABLE_TARGET}: {'updated' if write_table(Path.cwd()) else 'up to date'}")
    else:
        print(table_block())

