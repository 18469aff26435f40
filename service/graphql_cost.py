"""What a GraphQL document costs, measured on its syntax tree before it is validated or run.

graphql-core's validation is not linear: ``OverlappingFieldsCanBeMergedRule`` compares every pair
of fields that share a response name in a selection set, so 997 repeated ``variants { id }``
(16 KB, no alias) took 0.8 s of CPU to validate. Execution multiplies too: every alias of
``legalActions`` resolves its own typed list. So a document is measured first, in one pass over
its syntax tree (each fragment measured once, and counted wherever it is spread), and refused
past any of these limits:

- ``depth``: fields nested in fields (a leaf at the root is 1; fragments add no depth, but more
  than three times ``depth`` levels of selections, fragments included, count as too deep too);
- ``fields``: field selections, fragments written out where they are spread;
- ``repeated``: field selections whose response name is already selected beside them (the pairs
  the validation compares);
- ``aliases``: aliases, fragments written out;
- ``cost``: per root field that lists or judges actions (``legalActions``, ``check``,
  ``apply``): 1 + the cards in the hand of the seat to move in its ``state`` + a quarter of the
  actions it is given. A legal-action list grows with that hand (a 151-card hand: 1,199
  actions, typed in about 45 ms: some 0.3 ms a card), a check or apply with its actions (200
  legal ones: about 20 ms, 0.1 ms each). Per root ``__schema``: ``SCHEMA_COST``. Per root
  ``batch`` or ``audit``: ``BULK_COST`` (their answers are the largest: up to
  ``MAX_BULK_ANSWER_BYTES`` each, parsed into the typed result). Root fields with the same
  response name count once (GraphQL merges them into one call).

Fields, repeats and aliases are summed over the whole document (every operation and fragment is
validated); the cost is that of the costliest operation (one is run).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    value_from_ast_untyped,
)
from graphql.language import Token, TokenKind

#: root fields whose answers list or judge actions, and so cost by hand and actions
ACTION_FIELDS = frozenset({"legalActions", "check", "apply"})
#: the cost of a root ``__schema``: an introspection of the whole schema (GraphiQL's query runs
#: about 17 ms, a little longer than a typed legal-action list of a 50-card hand)
SCHEMA_COST = 100
#: the cost of a root ``batch`` or ``audit``: with the default GRAPHQL_MAX_COST (250), two in
#: one query (eight aliased batches of 100 validate operations held 45 MiB while answered)
BULK_COST = 100
BULK_FIELDS = frozenset({"batch", "audit"})


@dataclass(frozen=True)
class Limits:
    """The limits a document is measured against (the ``GRAPHQL_MAX_*`` settings)."""

    depth: int
    fields: int
    repeated: int
    aliases: int
    cost: int


@dataclass
class _Shape:
    """A selection set measured: its fields, fragments written out. ``keys`` counts the response
    names at its own level (inline fragments and spreads merged in), so repeats are counted only
    where the selection set belongs to a field or an operation; ``repeated`` holds the repeats
    of the selection sets below that level."""

    fields: int = 0
    aliases: int = 0
    depth: int = 0  # fields on the longest path down
    nesting: int = 0  # selection sets on the longest path down, fragments included
    repeated: int = 0
    keys: Counter[str] = field(default_factory=Counter)
    first: dict[str, FieldNode] = field(default_factory=dict)  # the first field of each name

    def merge(self, other: _Shape) -> None:
        """Add a fragment's selections at this level."""
        self.fields += other.fields
        self.aliases += other.aliases
        self.depth = max(self.depth, other.depth)
        self.nesting = max(self.nesting, other.nesting)
        self.repeated += other.repeated
        self.keys.update(other.keys)
        for key, node in other.first.items():
            self.first.setdefault(key, node)

    @property
    def repeats_here(self) -> int:
        return sum(n - 1 for n in self.keys.values())


@dataclass(frozen=True)
class Exceeded:
    """One limit a document exceeds: which (``code``), by how much (``found``, a lower bound
    when the walk stopped early: ``at_least``), and the ``limit``."""

    code: str
    found: int
    limit: int
    at_least: bool = False


class _TooDeep(Exception):
    pass


class _Walk:
    def __init__(self, document: DocumentNode, max_nesting: int) -> None:
        self.fragments = {d.name.value: d for d in document.definitions
                          if isinstance(d, FragmentDefinitionNode)}
        self.max_nesting = max_nesting
        self.done: dict[str, _Shape] = {}
        self.open: set[str] = set()

    def selections(self, node: SelectionSetNode | None, above: int) -> _Shape:
        """The shape of a selection set ``above`` selection sets down."""
        shape = _Shape()
        if node is None:
            return shape
        if above >= self.max_nesting:
            raise _TooDeep
        for sel in node.selections:
            if isinstance(sel, FieldNode):
                sub = self.selections(sel.selection_set, above + 1)
                key = sel.alias.value if sel.alias else sel.name.value
                shape.fields += 1 + sub.fields
                shape.aliases += (1 if sel.alias else 0) + sub.aliases
                shape.depth = max(shape.depth, 1 + sub.depth)
                shape.nesting = max(shape.nesting, 1 + sub.nesting)
                shape.repeated += sub.repeated + sub.repeats_here
                shape.keys[key] += 1
                shape.first.setdefault(key, sel)
            elif isinstance(sel, InlineFragmentNode):
                sub = self.selections(sel.selection_set, above + 1)
                sub.nesting += 1
                shape.merge(sub)
            elif isinstance(sel, FragmentSpreadNode):
                sub = self.fragment(sel.name.value, above + 1)
                shape.merge(_Shape(sub.fields, sub.aliases, sub.depth, sub.nesting + 1,
                                   sub.repeated, sub.keys, sub.first))
        return shape

    def fragment(self, name: str, above: int) -> _Shape:
        """A fragment's shape, measured once; an unknown fragment or a cycle measures empty
        (the validation reports both)."""
        if name in self.done:
            shape = self.done[name]
            if above + shape.nesting > self.max_nesting:
                raise _TooDeep
            return shape
        definition = self.fragments.get(name)
        if definition is None or name in self.open:
            return _Shape()
        self.open.add(name)
        try:
            shape = self.selections(definition.selection_set, above)
        finally:
            self.open.discard(name)
        self.done[name] = shape
        return shape


class ReadState(NamedTuple):
    """A JSON variable's state, read already as the REST request ``{"state": ...}`` (``body``)
    into the data the engine reads (``data``, ``handlers.request_data``'s)."""

    body: bytes
    data: dict[str, Any]


def _hand(state: Any) -> int:
    """The cards in the hand of the seat to move, as far as the JSON says (0 when it does not;
    a ``ReadState``'s as its data holds them: a hand a tuple of card numbers, or ``{"size": n}``
    counted 0)."""
    if isinstance(state, ReadState):
        state = state.data["state"]
    if not isinstance(state, dict):
        return 0
    turn, hands = state.get("turn"), state.get("hands")
    seat = turn.get("seat") if isinstance(turn, dict) else None
    if type(seat) is float and seat.is_integer():  # as the models take it (0.0 is seat 0)
        seat = int(seat)
    if type(seat) is not int or not isinstance(hands, list) or not 0 <= seat < len(hands):
        return 0
    hand = hands[seat]
    return len(hand) if isinstance(hand, list | tuple) else 0


#: a costly root field as ``Measured.exceeded`` reads it: a constant (``__schema``, ``batch``,
#: ``audit``), or its ``state`` and ``actions`` arguments, each a variable's name, a value's
#: syntax node (read with the variables when asked) or None (not given; of equal arguments,
#: the last)
Term = int | tuple[str | ValueNode | None, str | ValueNode | None]


def _terms(roots: tuple[FieldNode, ...]) -> tuple[Term, ...]:
    """The terms of an operation's costly root fields, read off the syntax tree once."""
    terms: list[Term] = []
    for node in roots:
        if node.name.value == "__schema":
            terms.append(SCHEMA_COST)
        elif node.name.value in BULK_FIELDS:
            terms.append(BULK_COST)
        else:
            args: dict[str, str | ValueNode] = {}
            for arg in node.arguments or ():
                value = arg.value
                args[arg.name.value] = (value.name.value if isinstance(value, VariableNode)
                                        else value)
            terms.append((args.get("state"), args.get("actions")))
    return tuple(terms)


def _argument(given: str | ValueNode | None, variables: dict[str, Any] | None) -> Any:
    if given is None:
        return None
    if isinstance(given, str):  # the usual case: the value is a variable's
        return variables.get(given) if variables else None
    try:
        return value_from_ast_untyped(given, variables)
    except Exception:  # noqa: BLE001 (the validation reports what is wrong with it)
        return None


def _cost(terms: tuple[Term, ...], variables: dict[str, Any] | None) -> int:
    """The cost of an operation's costly root fields."""
    total = 0
    for term in terms:
        if isinstance(term, int):
            total += term
            continue
        state, actions = term
        listed = _argument(actions, variables)
        given = len(listed) if isinstance(listed, list) else 0
        total += 1 + _hand(_argument(state, variables)) + (given + 3) // 4
    return total


@dataclass(frozen=True)
class Measured:
    """A document's limits exceeded whatever the variables (``static``), and what the cost
    reads: per operation, the terms of its root fields that cost (``legalActions``,
    ``check``, ``apply``, ``__schema``, ``batch``, ``audit``)."""

    static: tuple[Exceeded, ...]
    terms: tuple[tuple[Term, ...], ...]
    cost_limit: int

    def exceeded(self, variables: dict[str, Any] | None) -> list[Exceeded]:
        """Every limit exceeded with these variables (none: the document may be validated and
        run)."""
        found = list(self.static)
        terms = self.terms
        if terms:
            cost = (_cost(terms[0], variables) if len(terms) == 1
                    else max(_cost(t, variables) for t in terms))
            if cost > self.cost_limit:
                found.append(Exceeded("TOO_COSTLY", cost, self.cost_limit))
        return found


def measure(document: DocumentNode, limits: Limits) -> Measured:
    """Measure ``document`` against ``limits`` (see the module's docstring)."""
    max_nesting = 3 * limits.depth
    walk = _Walk(document, max_nesting)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    try:
        shapes = [walk.selections(operation.selection_set, 0) for operation in operations]
        roots = tuple(tuple(node for node in shape.first.values()
                            if node.name.value in ACTION_FIELDS or node.name.value == "__schema"
                            or node.name.value in BULK_FIELDS)
                      for shape in shapes)
        # a fragment no operation spreads is validated all the same: measured on its own
        shapes += [walk.fragment(name, 0) for name in walk.fragments if name not in walk.done]
    except (_TooDeep, RecursionError):  # the guard keeps to 180 levels (GRAPHQL_MAX_DEPTH <= 60)
        return Measured((Exceeded("TOO_DEEP", max_nesting, limits.depth, at_least=True),), (),
                        limits.cost)
    total = _Shape()
    for shape in shapes:
        total.fields += shape.fields
        total.aliases += shape.aliases
        total.depth = max(total.depth, shape.depth)
        total.repeated += shape.repeated + shape.repeats_here
    found = (Exceeded("TOO_DEEP", total.depth, limits.depth),
             Exceeded("TOO_MANY_FIELDS", total.fields, limits.fields),
             Exceeded("TOO_MANY_REPEATED_FIELDS", total.repeated, limits.repeated),
             Exceeded("TOO_MANY_ALIASES", total.aliases, limits.aliases))
    return Measured(tuple(e for e in found if e.found > e.limit),
                    tuple(_terms(r) for r in roots), limits.cost)


def token_key(document: DocumentNode) -> tuple[str | None, int]:
    """The document's tokens without comments, spacing and commas, as one string, and how many
    tokens it has (comments included): two documents with the same key have the same syntax
    tree but for positions, so they validate alike. No key for a document parsed without
    positions (it keeps no tokens)."""
    if document.loc is None:
        return None, 0
    parts: list[str] = []
    count = 0
    token: Token | None = document.loc.start_token
    while token is not None:
        count += 1
        if token.kind is not TokenKind.COMMENT:
            parts.append(f"{token.kind.value}\x00{token.value or ''}")
        token = token.next
    return "\x01".join(parts), count


#: GraphQL's lexical tokens, for ``prescan`` (spacing and commas are matched, and skipped)
_TOKENS = re.compile(r'''
    (?P<skip>[\s,\ufeff]+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<value>"""(?:\\"""|[^"]|"(?!""))*"""|"(?:\\.|[^"\\\n\r])*"
              |-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<name>[_A-Za-z][_0-9A-Za-z]*)
  | (?P<punct>\.\.\.|.)
''', re.VERBOSE | re.DOTALL)


def prescan(query: str, max_tokens: int, max_fields: int) -> list[Exceeded]:
    """Before parsing (the parser takes about 5 µs a token, this scan well under 1 µs): more
    tokens than ``max_tokens`` (comments count, as for the parser), or more fields written than
    ``max_fields`` (fragments not written out: never more than ``measure`` counts). It stops at
    the first limit passed. Empty when none is: the document is then parsed and measured."""
    tokens = fields = braces = parens = 0
    before = ""  # the token before, outside parentheses
    for m in _TOKENS.finditer(query):
        kind = m.lastgroup
        if kind == "skip":
            continue
        tokens += 1
        if tokens > max_tokens:
            return [Exceeded("TOO_MANY_TOKENS", tokens, max_tokens, at_least=True)]
        if kind == "comment":
            continue
        text = m.group()
        if parens:  # arguments, variables: values, not selections
            parens += (text == "(") - (text == ")")
            continue
        if text == "(":
            parens = 1
        elif text == "{":
            braces += 1
        elif text == "}":
            braces -= 1
        elif braces > 0:  # a selection set: a field is a name, or an alias, a colon and a name
            if kind == "name" and before not in ("...", "@", "on"):
                fields += 1
                if fields > max_fields + 1:  # an alias's colon may still take one back
                    return [Exceeded("TOO_MANY_FIELDS", max_fields + 1, max_fields,
                                     at_least=True)]
            elif text == ":":
                fields -= 1
        before = text
    if fields > max_fields:
        return [Exceeded("TOO_MANY_FIELDS", fields, max_fields, at_least=True)]
    return []
