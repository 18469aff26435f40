"""``canasta-referee OP``: read the request body of CONTRACT.md on stdin, print the answer."""

from __future__ import annotations

import argparse
import sys

from schema.handlers import REQUESTS, handle, to_json


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="canasta-referee",
        description="Canasta rules referee. Reads a JSON request on stdin (not for 'variants' "
                    "and 'variant ID') and prints the JSON answer. Exit status 0 for an answer, "
                    "1 for a problem (RFC 9457 document on stdout).")
    parser.add_argument("op", choices=sorted(REQUESTS), help="the operation")
    parser.add_argument("variant", nargs="?", help="variant id, for 'variant'")
    parser.add_argument("--lang", choices=("en", "de"), default="en", help="message language")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON answer")
    args = parser.parse_args(argv)
    if args.op == "variant" and not args.variant:
        parser.error("'variant' needs a variant id, e.g. canasta-referee variant classic")
    body = None if args.op in ("variants", "variant") else sys.stdin.buffer.read()
    status, answer = handle(args.op, body, args.lang, args.variant)
    if args.pretty:
        import json

        print(json.dumps(answer, ensure_ascii=False, indent=2))
    else:
        print(to_json(answer))
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
