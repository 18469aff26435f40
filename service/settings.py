"""The service's settings: every one from an environment variable, with a safe default."""

from __future__ import annotations

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
    "GRAPHQL_IDE": "`1`: serve the GraphiQL page at `GET /graphql` (it loads from a CDN).",
    "BENCH_ECHO": "`1`: add `POST /v1/echo` (parse the JSON body, answer a small object), "
                  "the baseline of `bench/http.py`.",
}


def _ops(text: str) -> frozenset[str]:
    ops = frozenset(p.strip() for p in text.split(",") if p.strip())
    unknown = ops - set(CACHEABLE)
    if unknown:
        raise ValueError(f"not cacheable operations: {', '.join(sorted(unknown))}")
    return ops


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
    cache_size: int = 4096
    cache_ttl: float = 3600.0
    cache_ops: frozenset[str] = field(default_factory=lambda: frozenset(CACHEABLE))
    redis_url: str = ""
    redis_cluster: bool = False
    redis_ops: frozenset[str] = field(default_factory=lambda: frozenset(("legal-actions",)))
    redis_timeout: float = 0.05
    redis_breaker_failures: int = 3
    redis_breaker_seconds: float = 5.0
    graphql_ide: bool = False
    bench_echo: bool = False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from environment variables named like the fields in upper case."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f.name.upper())
            if raw is None or raw == "" and f.name != "redis_url":
                continue
            default = getattr(cls(), f.name)
            if isinstance(default, bool):
                values[f.name] = raw.strip().lower() in ("1", "true", "yes", "on")
            elif isinstance(default, int):
                values[f.name] = int(raw)
            elif isinstance(default, float):
                values[f.name] = float(raw)
            elif isinstance(default, frozenset):
                values[f.name] = _ops(raw)
            else:
                values[f.name] = raw.strip()
        return cls(**values).checked()  # type: ignore[arg-type]

    @property
    def redis_is_cluster(self) -> bool:
        """``REDIS_URL`` names a Redis Cluster (``+cluster`` scheme or ``REDIS_CLUSTER=1``)."""
        return self.redis_cluster or "+cluster://" in self.redis_url.lower()

    def checked(self) -> Settings:
        """Raise ``ValueError`` for settings out of range."""
        if not 1 <= self.max_actions <= 200:
            raise ValueError("MAX_ACTIONS must be 1..200")
        if self.max_body_bytes < 1024:
            raise ValueError("MAX_BODY_BYTES must be at least 1024")
        if self.cache_size < 0 or self.cache_ttl <= 0 or self.redis_timeout <= 0:
            raise ValueError("CACHE_SIZE must be >= 0, CACHE_TTL and REDIS_TIMEOUT > 0")
        if self.workers < 1 or self.graceful_timeout < 0:
            raise ValueError("WORKERS must be at least 1, GRACEFUL_TIMEOUT at least 0")
        if self.redis_url:
            scheme = self.redis_url.partition("://")[0].lower()
            if scheme not in REDIS_SCHEMES:
                raise ValueError("REDIS_URL must start with " + ", ".join(
                    f"{s}://" for s in REDIS_SCHEMES))
            if self.redis_is_cluster and urlsplit(self.redis_url).path not in ("", "/", "/0"):
                raise ValueError("REDIS_URL: a Redis Cluster has database 0 only")
        if self.log_level.lower() not in ("debug", "info", "warning", "error"):
            raise ValueError("LOG_LEVEL must be debug, info, warning or error")
        return self


# --- the configuration table of docs/operations.md ----------------------------------------------

TABLE_BEGIN = "<!-- settings-table: generated by `python -m service.settings`, do not edit -->"
TABLE_END = "<!-- end of settings-table -->"
#: the document that holds the table, relative to the repository
TABLE_TARGET = "docs/operations.md"


def _shown(value: object) -> str:
    """A default as the environment variable would spell it."""
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, frozenset):
        return "`" + ",".join(op for op in CACHEABLE if op in value) + "`"
    return f"`{value}`" if value != "" else "empty"


def table_block() -> str:
    """Every setting (``DOCS``) with its default, between the markers of the target document."""
    defaults = Settings()
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, meaning in DOCS.items():
        rows.append(f"| `{name}` | {_shown(getattr(defaults, name.lower()))} | {meaning} |")
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
