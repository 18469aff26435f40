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
CACHEABLE = ("validate", "legal-actions", "check", "apply", "score")

# name, meaning: the configuration table of docs/operations.md is generated from this list with
# the defaults of ``Settings`` (``python -m service.settings --write``)
DOCS: dict[str, str] = {
    "HOST": "Address to listen on (`serve`).",
    "PORT": "Port to listen on (`serve`).",
    "WORKERS": "uvicorn worker processes (`serve`).",
    "GRACEFUL_TIMEOUT": "Seconds a stopping server (SIGTERM) lets requests in flight finish "
                        "before it cancels them (`serve`).",
    "LOG_LEVEL": "`debug`, `info` (one JSON line per request), `warning` or `error`.",
    "MAX_BODY_BYTES": "Largest request body; larger ones get 413 (also chunked bodies).",
    "MAX_ACTIONS": "Most actions in one `check`/`apply` request (at most 200, the wire bound); "
                   "more get 422 `TOO_MANY_ACTIONS`.",
    "MAX_AUDIT_BODY_BYTES": "Largest body of `POST /v1/audit` (a whole game's log); larger "
                            "ones get 413.",
    "MAX_AUDIT_ACTIONS": "Most actions in one `POST /v1/audit` log, over all its deals; more "
                         "get 422 `TOO_MANY_ACTIONS`.",
    "MAX_BATCH": "Most operations in one `POST /v1/batch` (at most 256, the wire bound); more "
                 "get 422 `TOO_MANY_OPERATIONS`.",
    "MAX_BATCH_BODY_BYTES": "Largest body of `POST /v1/batch`; larger ones get 413.",
    "CACHE_SIZE": "Answers in the in-process LRU tier, each under its exact request bytes. "
                  "0: no in-process tier.",
    "CACHE_TTL": "Seconds an entry lives, in both tiers.",
    "CACHE_OPS": "Operations whose answers are cached (comma-separated).",
    "REDIS_URL": "Second cache tier: `redis://host:port/0`, `rediss://…`, or "
                 "`redis+cluster://host:port` (`rediss+cluster://…` with TLS) for a Redis "
                 "Cluster, naming any node. Empty: in-process only.",
    "REDIS_CLUSTER": "`1`: treat `REDIS_URL` as a Redis Cluster node.",
    "REDIS_OPS": "Operations whose answers also go to Redis (comma-separated).",
    "REDIS_TIMEOUT": "Seconds for a Redis connect or command before it counts as a failure.",
    "REDIS_BREAKER_FAILURES": "Consecutive Redis failures that open the circuit breaker.",
    "REDIS_BREAKER_SECONDS": "Seconds the breaker stays open (Redis skipped) before a retry.",
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
        parts.port  # noqa: B018 (raises for a bad port)
    except ValueError:
        return f"{_shown(origin)} has a bad port"
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
    max_body_bytes: int = 256 * 1024
    max_actions: int = 200
    max_audit_body_bytes: int = 2 * 1024 * 1024
    max_audit_actions: int = 20_000
    max_batch: int = 256
    max_batch_body_bytes: int = 1024 * 1024
    cache_size: int = 4096
    cache_ttl: float = 3600.0
    cache_ops: frozenset[str] = field(default_factory=lambda: frozenset(CACHEABLE))
    redis_url: str = ""
    redis_cluster: bool = False
    redis_ops: frozenset[str] = field(default_factory=lambda: frozenset(("legal-actions",)))
    redis_timeout: float = 0.05
    redis_breaker_failures: int = 3
    redis_breaker_seconds: float = 5.0
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
            if raw is None or raw == "" and f.name not in ("redis_url", "cors_origins"):
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

    def checked(self) -> Settings:
        """Raise ``SettingError`` (naming the variable) for settings out of range."""
        ranges: tuple[tuple[str, float, float, float | None], ...] = (
            ("PORT", self.port, 0, 65535), ("WORKERS", self.workers, 1, 1024),
            ("GRACEFUL_TIMEOUT", self.graceful_timeout, 0, None),
            ("MAX_ACTIONS", self.max_actions, 1, 200),
            ("MAX_BODY_BYTES", self.max_body_bytes, 1024, None),
            ("MAX_AUDIT_BODY_BYTES", self.max_audit_body_bytes, 1024, None),
            ("MAX_AUDIT_ACTIONS", self.max_audit_actions, 1, None),
            ("MAX_BATCH", self.max_batch, 1, 256),
            ("MAX_BATCH_BODY_BYTES", self.max_batch_body_bytes, 1024, None),
            ("CACHE_SIZE", self.cache_size, 0, None),
            ("REDIS_BREAKER_FAILURES", self.redis_breaker_failures, 1, None),
            ("REDIS_BREAKER_SECONDS", self.redis_breaker_seconds, 0, None))
        for name, value, low, high in ranges:
            if value < low or high is not None and value > high:
                raise SettingError(f"{name}: {value} is out of range ({low}..{high})" if high
                                   is not None else f"{name}: {value} is less than {low}")
        for name, value in (("CACHE_TTL", self.cache_ttl), ("REDIS_TIMEOUT", self.redis_timeout)):
            if not value > 0:
                raise SettingError(f"{name}: {value} must be more than 0")
        if self.redis_url:
            scheme = self.redis_url.partition("://")[0].lower()
            if scheme not in REDIS_SCHEMES:
                raise SettingError("REDIS_URL: must start with " + ", ".join(
                    f"{s}://" for s in REDIS_SCHEMES))
            if self.redis_is_cluster and urlsplit(self.redis_url).path not in ("", "/", "/0"):
                raise SettingError("REDIS_URL: a Redis Cluster has database 0 only")
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise SettingError(f"LOG_LEVEL: {_shown(self.log_level)} is not debug, info, "
                               "warning or error")
        if "*" in self.cors_origins and len(self.cors_origins) > 1:
            raise SettingError("CORS_ORIGINS: '*' (any origin) stands alone")
        for origin in self.cors_origins:
            problem = origin_problem(origin)
            if problem:
                raise SettingError(f"CORS_ORIGINS: {problem}")
        return self


# --- the configuration table of docs/operations.md ----------------------------------------------

TABLE_BEGIN = "<!-- settings-table: generated by `python -m service.settings`, do not edit -->"
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


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        print(f"{TABLE_TARGET}: {'updated' if write_table(Path.cwd()) else 'up to date'}")
    else:
        print(table_block())
