"""Issue 19: uvicorn's check of response header names and values, kept per distinct bytes
(``service.protocol.CheckedHeaders``), answers as uvicorn's own regular expressions do, and
keeps at most ``KEPT_HEADERS`` answers."""

from __future__ import annotations

import re

import pytest
from uvicorn.protocols.http import httptools_impl

from canasta_referee.service.protocol import KEPT_HEADERS, CheckedHeaders, check_headers_once

#: uvicorn's two patterns as its module defines them (tests/test_header_check.py keeps them
#: apart from the module's globals, which the service replaced on import)
NAME = re.compile(b'[\x00-\x1f\x7f()<>@,;:\\[\\]={} \t\\\\"]')
VALUE = re.compile(b"[\x00-\x08\x0a-\x1f\x7f]")


def samples() -> list[bytes]:
    """Header bytes of the service's answers, and each byte value alone, first, inside and last."""
    plain = [b"content-type", b"application/json", b"application/problem+json", b"x-cache",
             b"hit", b"miss, bypass", b"content-length", b"1417", b"vary", b"Accept-Language",
             b"access-control-allow-origin", b"https://app.example", b"", b" ", b"a b"]
    single = [bytes([b]) for b in range(256)]
    inside = [b"ab" + bytes([b]) + b"cd" for b in range(256)]
    return plain + single + inside + [bytes([b]) + b"x" for b in range(256)]


def test_uvicorn_checks_through_the_kept_answers() -> None:
    """Importing the service's protocol put the keeping checks in place of uvicorn's patterns
    (its ``send`` looks them up on each answer), and importing it again changes nothing."""
    assert isinstance(httptools_impl.HEADER_RE, CheckedHeaders)
    assert isinstance(httptools_impl.HEADER_VALUE_RE, CheckedHeaders)
    assert httptools_impl.HEADER_RE.pattern.pattern == NAME.pattern  # (uvicorn's own)
    assert httptools_impl.HEADER_VALUE_RE.pattern.pattern == VALUE.pattern
    before = httptools_impl.HEADER_RE
    check_headers_once()
    assert httptools_impl.HEADER_RE is before


@pytest.mark.parametrize("pattern", [NAME, VALUE], ids=["name", "value"])
def test_the_kept_check_answers_as_the_pattern(pattern: re.Pattern[bytes]) -> None:
    """Valid bytes give None, invalid ones a match, first asked and asked again (a second ask
    of a valid one is the kept answer); invalid bytes are never kept."""
    check = CheckedHeaders(pattern)
    for _ in range(2):
        for text in samples():
            found = check.search(text)
            expected = pattern.search(text)
            assert (found is None) == (expected is None), text
            if expected is not None:
                assert found is not None and found.group() == expected.group()
    assert all(pattern.search(text) is None for text in check)
    assert b"a\nb" not in check and check.search(b"a\nb") is not None


def test_the_kept_answers_are_bounded() -> None:
    """However many distinct valid values an answer carries (``content-length`` differs from
    answer to answer), at most ``KEPT_HEADERS`` are kept; the rest are still checked."""
    check = CheckedHeaders(VALUE)
    for n in range(3 * KEPT_HEADERS):
        assert check.search(b"%d" % n) is None
    assert len(check) == KEPT_HEADERS
    assert check.search(b"%d\r\n" % (5 * KEPT_HEADERS)) is not None
