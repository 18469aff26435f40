"""The OpenAPI document and the request parser accept exactly the same card codes and ranks.

Schemathesis generates requests from the document's patterns; a code the pattern admits and the
parser refuses is a schema-valid request answered MALFORMED_REQUEST (found once with codes padded
by long runs of form feeds and vertical tabs, which JSON Schema's ``\\s`` admits). Here both are
compared directly: the committed document's pattern and maxLength against ``schema.models``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from canasta_referee.schema.models import Card, Rank
from canasta_referee.service import openapi

DOCUMENT = json.loads(openapi.COMMITTED.read_text())


def _string_schema(described: str) -> dict[str, Any]:
    """The committed document's schema of the string whose description starts ``described``."""
    found: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "string" and str(node.get("description", "")).startswith(described):
                found.append(node)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(DOCUMENT)
    assert found, f"no string schema described {described!r} in the document"
    assert all(f == found[0] for f in found), f"{described!r} is described differently in places"
    return found[0]


CARD = _string_schema("Card code")
RANK = _string_schema("Meld rank")
CARD_PARSER: TypeAdapter[str] = TypeAdapter(Card)
RANK_PARSER: TypeAdapter[str] = TypeAdapter(Rank)


def document_admits(schema: dict[str, Any], value: str) -> bool:
    """As a JSON Schema validator reads it: ``pattern`` is searched, not anchored by itself, and
    ``maxLength`` counts code points."""
    return re.search(schema["pattern"], value) is not None and len(value) <= schema["maxLength"]


def parser_admits(parser: TypeAdapter[str], value: str) -> bool:
    try:
        parser.validate_python(value)
    except ValidationError:
        return False
    return True


PADDING = st.text(st.sampled_from(" \t\n\r\f\x0b\x1c\x85\xa0\u2028\ufeff"), max_size=40)
CARD_CORES = st.sampled_from(["AS", "ts", "10h", "10H", "jk", "JK", "Jk", "2c", "3D", "1S", "11H",
                              "XS", "A", "", "AS AS", "ſA", "Aſ", "ǰK", "K\u212a"])
RANK_CORES = st.sampled_from(["A", "t", "10", "wild", "WILD", "Real", "2", "3", "1", "11", "",
                              "wıld", "reaſ", "K\u212a"])


def padded(cores: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(PADDING, cores, PADDING).map("".join)


@given(st.one_of(padded(CARD_CORES), st.from_regex(CARD["pattern"]), st.text(max_size=40)))
@example("Jk\f \x0b\n\r\r\n\f" * 8)  # the schema-valid code once refused as MALFORMED_REQUEST
@example("Aſ")  # "ſ".upper() == "S": the parser must not admit what the pattern does not
def test_card_codes_agree(value: str) -> None:
    assert document_admits(CARD, value) == parser_admits(CARD_PARSER, value), repr(value)


@given(st.one_of(padded(RANK_CORES), st.from_regex(RANK["pattern"]), st.text(max_size=40)))
@example("\t10\n")
@example("wıld")  # "ı".upper() == "I"
def test_ranks_agree(value: str) -> None:
    assert document_admits(RANK, value) == parser_admits(RANK_PARSER, value), repr(value)
