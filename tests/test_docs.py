"""The documentation a user gets with the repository: every citation an answer carries opens a
section of docs/, every code is explained there, and nothing a user reads points outside the
repository.

A citation (a refusal's ``rule``, a rule-table section's ``source``) is
``docs/<file>.md#<anchor> (<public source>)``: the anchor is the GitHub slug of a heading of
that file. The tests iterate over the variants, their configurations and options, and every
rule key of their tables, so keys and variants added later are checked too.
"""

from __future__ import annotations

import io
import re
import tokenize
from functools import cache
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from canasta_referee.engine import VARIANTS, api, rules_for
from canasta_referee.engine.reasons import CODES, UnknownRules
from canasta_referee.engine.rules import RuleSet

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CITATION = re.compile(r"(docs/[\w./-]+\.md)#([\w-]+) \((.+)\)\Z", re.S)
#: what a user cannot open: our internal notes, and the rule texts by their internal numbers
OUTSIDE = ("../shared", "CONTRACT.md", "VARIANTS.md", "research.md", "seed 00", "shared/seeds",
           "shared/rules")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to
    hyphens (letters of any script, digits, ``_`` and ``-`` stay)."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a Markdown file's headings (none from inside fenced code blocks);
    repeated headings get ``-1``, ``-2``... as on GitHub."""
    seen: dict[str, int] = {}
    out: set[str] = set()
    fenced = False
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = re.match(r"#{1,6} (.+?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


def resolve(citation: str) -> str:
    """'' when the citation opens a section of docs/, else what is wrong with it."""
    m = CITATION.match(citation)
    if not m:
        return f"not 'docs/<file>.md#<anchor> (<public source>)': {citation!r}"
    file, anchor, source = m.groups()
    path = ROOT / file
    if not path.is_file() or DOCS not in path.resolve().parents:
        return f"{file} is not a file in docs/"
    if anchor not in anchors(path):
        return f"{file} has no heading with the anchor #{anchor}"
    if len(citation) > 256:
        return "longer than the 256 characters the wire format allows for a rule"
    if not source.strip():
        return "names no public source"
    return ""


def rulesets() -> list[tuple[str, dict[str, Any], RuleSet]]:
    """Every variant in every configuration, and with each value of each of its options."""
    out = []
    for v in VARIANTS:
        option_sets = [dict(c) for c in v.configurations]
        for config, opt in product(v.configurations, v.options):
            for value in opt.allowed or ():
                if value is not None and opt.name not in config:
                    option_sets.append({**config, opt.name: value})
        for options in option_sets:
            try:
                out.append((v.id, options, rules_for(v.id, options)))
            except UnknownRules:  # e.g. a target a player count does not allow
                continue
    return out


RULESETS = rulesets()


def test_every_configuration_is_checked() -> None:
    """The iteration above reaches every variant, every configuration and every option."""
    ids = {vid for vid, _, _ in RULESETS}
    assert ids == {v.id for v in VARIANTS}
    for v in VARIANTS:
        seen = {name for vid, options, _ in RULESETS if vid == v.id for name in options}
        assert {o.name for o in v.options} - {"sides"} <= seen | {"players"}, v.id


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_every_source_opens_a_section_of_docs(variant: str) -> None:
    """Every value of the rule table's sources, in every configuration, is a citation whose
    file and heading exist in docs/."""
    wrong = {}
    for vid, options, rules in RULESETS:
        if vid != variant:
            continue
        for key, citation in rules.sources:
            problem = resolve(citation)
            if problem:
                wrong[(key, str(options))] = problem
    assert not wrong, wrong


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_every_refusal_cites_a_section_of_docs(variant: str) -> None:
    """Every code's rule key has a source in every configuration, and that source resolves:
    the ``rule`` of any refusal the variant can give opens a section of docs/."""
    for vid, options, rules in RULESETS:
        if vid != variant:
            continue
        for code, (key, _, _) in CODES.items():
            citation = rules.source(key)
            assert citation, f"{variant} {options}: no source for rule key {key!r} ({code})"
            assert not resolve(citation), (code, resolve(citation))


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_every_refusal_cites_its_own_variant_page(variant: str) -> None:
    """As docs/wire-format.md "Citations" says: the same code cites each variant's own page (a
    refusal that is not about a rule of the game cites the wire format), never another
    variant's page, whose section may say something else."""
    own = (f"docs/variants/{variant}.md#", "docs/wire-format.md#")
    wrong = {}
    for vid, options, rules in RULESETS:
        if vid != variant:
            continue
        for code, (key, _, _) in CODES.items():
            citation = rules.source(key)
            if not citation.startswith(own):
                wrong[(code, key, str(options))] = citation
    assert not wrong, wrong


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_rule_table_sections_cite_docs(variant: str) -> None:
    """The rule table as `GET /v1/variants/{id}` shows it: each section's source resolves, and
    the variant's own page is where its sections point (its rules are explained there)."""
    table = api.variant(variant)
    for section in table["sections"]:
        assert not resolve(section["source"]), (section["name"], resolve(section["source"]))
        assert section["source"].startswith(f"docs/variants/{variant}.md#"), section


def test_the_citation_check_can_fail() -> None:
    assert resolve("docs/variants/classic.md#the-frozen-pile (pagat.com)") == ""
    assert "no heading" in resolve("docs/variants/classic.md#no-such-section (pagat.com)")
    assert "not a file" in resolve("docs/nowhere.md#x (pagat.com)")
    assert "not 'docs" in resolve("pagat: Frozen Discard Pile (seed 000 'Der eingefrorene Stapel')")
    assert slug("\"May I go out?\"") == "may-i-go-out"
    assert slug("`classic` — Classic Canasta") == "classic--classic-canasta"


@pytest.mark.parametrize("variant", [v.id for v in VARIANTS])
def test_variant_page_documents_its_options(variant: str) -> None:
    """Each option, and each of its allowed values, appears on the variant's page."""
    page = (DOCS / "variants" / f"{variant}.md").read_text()
    v = next(v for v in VARIANTS if v.id == variant)
    options = page[page.index("## Options"):]
    for opt in v.options:
        assert f"`{opt.name}`" in options, opt.name
        for value in opt.allowed or ():
            if value is None:
                continue
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            assert shown in options or f"{value:,}" in options, (opt.name, value)


def test_variants_index_links_every_variant_page() -> None:
    index = (DOCS / "variants" / "README.md").read_text()
    for v in VARIANTS:
        assert f"({v.id}.md)" in index, v.id
        assert (DOCS / "variants" / f"{v.id}.md").is_file()


# --- codes --------------------------------------------------------------------------------------


def http_codes() -> set[str]:
    """The codes the HTTP layer and the request parser add to the engine's."""
    from canasta_referee.schema import handlers
    from canasta_referee.service import app

    codes = {code for code, _, _ in app._STATUS_TEXT.values()}
    codes |= {"MALFORMED_REQUEST", "TOO_MANY_ACTIONS", "TOO_MANY_OPERATIONS", "ILLEGAL_ACTION",
              "ANSWER_TOO_LARGE"}
    codes |= {handlers._field_code(t) for t in ("card_code", "rank", "json_invalid", "missing",
                                                  "extra_forbidden", "anything else")}
    return codes


def test_every_code_is_explained_in_the_wire_format() -> None:
    """Every refusal, problem and HTTP code has its row in docs/wire-format.md."""
    text = (DOCS / "wire-format.md").read_text()
    missing = [c for c in (*CODES, *sorted(http_codes())) if f"| `{c}` |" not in text]
    assert not missing, missing


# --- nothing points outside the repository ------------------------------------------------------


def user_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), ROOT / "openapi" / "openapi.json",
            ROOT / "schema" / "schema.graphql", *sorted((ROOT / "deploy").rglob("*.md"))]


def python_text(path: Path) -> str:
    """A Python file's strings (docstrings, messages, citations) and comments."""
    parts = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(
                tokenize, "FSTRING_MIDDLE", -1):
            parts.append(tok.string)
    return "\n".join(parts)


def test_nothing_a_user_reads_points_outside_the_repository() -> None:
    found = []
    texts = [(p, p.read_text()) for p in user_files()]
    texts += [(p, python_text(p)) for package in ("engine", "schema", "service")
              for p in sorted((ROOT / package).rglob("*.py"))]
    for path, text in texts:
        for needle in OUTSIDE:
            if needle.lower() in text.lower():
                found.append(f"{path.relative_to(ROOT)}: {needle}")
    assert not found, found


def test_the_outside_check_can_fail(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text('X = "see CONTRACT.md"  # seed 001\nY = 1  # ../shared/rules\n')
    text = python_text(sample)
    assert "CONTRACT.md" in text and "seed 001" in text and "../shared" in text
    assert "Y = 1" not in text


def test_links_between_docs_resolve() -> None:
    """Relative Markdown links in README.md and docs/ name files that exist, and their
    anchors headings that exist."""
    wrong = []
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), ROOT / "deploy" / "README.md"]:
        text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                wrong.append(f"{path.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                wrong.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    assert not wrong, wrong
