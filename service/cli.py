"""``canasta-referee OP``: read a request body (docs/wire-format.md) on stdin, print the answer."""

from __future__ import annotations

import argparse
import os
import sys

from canasta_referee.schema.handlers import REQUESTS, handle, to_json

#: the exit status when the reader of stdout goes away before the answer is written (``| head``):
#: 128 + SIGPIPE, what a shell reports for ``cat`` or ``seq`` in the same place. The answer was
#: cut short, so 0 would claim a success nobody saw; under ``set -o pipefail`` a script can
#: still tell "reader left early" (141) from "problem document" (1) and from bad usage (2)
EXIT_BROKEN_PIPE = 141


def serve(argv: list[str]) -> int:
    """``canasta-referee serve [--host --port --workers]``: the HTTP service under uvicorn."""
    from .settings import DOCS, PORTS, WORKERS, SettingError, Settings

    try:
        env = Settings.from_env()
    except SettingError as exc:  # one line naming the variable, no traceback
        print(f"canasta-referee serve: {exc}", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(
        prog="canasta-referee serve",
        description="Serve the HTTP API (REST, GraphQL, /docs). Every setting also comes from "
                    "an environment variable: " + ", ".join(DOCS) + ".")
    parser.add_argument("--host", default=env.host, help=f"address (HOST, default {env.host})")
    parser.add_argument("--port", type=int, default=env.port, help=f"port (PORT, default {env.port})")
    parser.add_argument("--workers", type=int, default=env.workers,
                        help=f"worker processes (WORKERS, default {env.workers})")
    args = parser.parse_args(argv)
    for flag, value, (low, high) in (("--port", args.port, PORTS),
                                     ("--workers", args.workers, WORKERS)):
        if not low <= value <= high:  # (the bounds of PORT and WORKERS)
            parser.error(f"{flag}: {value} is out of range ({low}..{high})")
    import uvicorn

    from . import logs

    # uvicorn's own lines (a worker that died and was restarted, shutdown) as JSON too: with
    # several workers they come from this process, which runs no app (each worker sets it up)
    logs.setup(env.log_level)
    # SIGTERM: stop accepting, let requests in flight finish (at most GRACEFUL_TIMEOUT s), exit.
    # The protocol is uvicorn's httptools one with bounds on every connection (MAX_HEADER_BYTES,
    # HEADER_TIMEOUT, BODY_TIMEOUT, KEEPALIVE_TIMEOUT, MAX_CONNECTIONS, MAX_IN_FLIGHT: see
    # service/protocol.py); no WebSocket (the API has none)
    uvicorn.run("canasta_referee.service.app:create_app", factory=True, host=args.host, port=args.port,
                workers=args.workers, access_log=False, log_level=env.log_level.lower(),
                log_config=None, server_header=False, http="canasta_referee.service.protocol:RefereeProtocol",
                ws="none", timeout_graceful_shutdown=env.graceful_timeout)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        return serve(argv[1:])
    parser = argparse.ArgumentParser(
        prog="canasta-referee",
        description="Canasta rules referee. Reads a JSON request on stdin (not for 'variants' "
                    "and 'variant ID') and prints the JSON answer. Exit status 0 for an answer, "
                    "1 for a problem (RFC 9457 document on stdout).")
    parser.add_argument("op", choices=sorted(REQUESTS), help="the operation ('serve' starts the "
                        "HTTP service: canasta-referee serve --help)")
    parser.add_argument("variant", nargs="?", help="variant id, for 'variant'")
    parser.add_argument("--lang", choices=("en", "de"), default="en", help="message language")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON answer")
    args = parser.parse_args(argv)
    if args.op == "variant" and not args.variant:
        parser.error("'variant' needs a variant id, e.g. canasta-referee variant classic")
    if args.op != "variant" and args.variant is not None:  # (a variant is named in the body)
        parser.error(f"'{args.op}' takes no argument: {args.variant!r}")
    body = None if args.op in ("variants", "variant") else sys.stdin.buffer.read()
    status, answer = handle(args.op, body, args.lang, args.variant)
    if args.pretty:
        import json

        text = json.dumps(answer, ensure_ascii=False, indent=2)
    else:
        text = to_json(answer)
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()  # here, not at exit, so a closed pipe is met inside the try
    except BrokenPipeError:
        # the reader left (``| head -c 10``): end quietly. Python's final flush of stdout
        # would meet the closed pipe again and print "Exception ignored"; point stdout at
        # /dev/null first
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
