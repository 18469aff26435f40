"""A fast path for the hot GraphQL queries: a valid document whose root fields are only
``legalActions`` (its ``state`` a variable) and ``__typename``, without directives.

graphql-core resolves and completes every field of every item one by one: 193 typed legal
actions of 4 fields took 4 to 5 ms, the list itself well under 0.1 ms. For such a document a
``Plan`` is made once (fields collected as graphql-core collects them: fragments, inline
fragments and type conditions, the same response names merged, in the same order) and run
directly: the root field's REST operation answers, its resolver's value is made of that answer,
and the answer is written out as graphql-core would write it, every leaf coerced by its scalar;
a list of dicts given as JSON text whose selected fields are all leaves is written from that
text by the native projector (schema/_project.c) where it is installed. Where the selection of a
root field's successful answer reads nothing but parts of the REST answer's text (``Split``) and
such lists, that answer is written straight from the text, without a value made or completed;
and where the answer comes unrendered (``Unrendered``: computed for this request, no REST text
written yet), from its parts, its lists written from their values by a ``list_writers`` writer
(the same text the projector would write of their REST text), else from the REST text after all.
Whatever the plan does not cover at run time
(a null in a non-null field, a value its scalar would refuse, a missing variable, a text the
projector refuses) raises ``Unsupported``, and strawberry answers the request as before; so do
documents it does not cover at all (``plan`` returns None).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import orjson
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLBoolean,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    GraphQLUnionType,
    InlineFragmentNode,
    NamedTypeNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    VariableNode,
)
from graphql.pyutils import Undefined

from canasta_referee.schema.text import SLOT_STRING, SLOT_STRINGS, Template

#: the strawberry definition a graphql-core type or field refers back to
BACKREF = "strawberry-definition"
#: the GraphQL Int's range
INT_MIN, INT_MAX = -(2**31), 2**31 - 1

Complete = Callable[[Any], Any]
#: reads a field of a source value (a strawberry object or, for ``DICT_TYPES``, a dict)
Get = Callable[[Any], Any]
#: schema/_project.c's ``project(text, fields, shape[, templates])``: a JSON list of objects
#: written again with the selected leaf fields only (raises ValueError where it cannot)
Project = Callable[..., bytes]
#: what a template's slot holds while ``typed_templates`` works out its texts, and what it holds
#: again to check them
_SLOTS = {SLOT_STRING: (b'"~"', b'"~~"'), SLOT_STRINGS: (b'"~"', b'"~~","~~~"')}
#: ``typed_templates`` by type and selection, shared by the plans that project it: at most
#: ``TYPED_KEPT`` (about 24 KB each for ``Action``), kept for the process's life; a plan of any
#: other selection projects without templates (the same answer, a few µs slower), so no client
#: makes them grow past that by sending new selections
TYPED: dict[tuple[str, tuple[tuple[bytes, bytes, int], ...]], tuple[Any, ...]] = {}
TYPED_KEPT = 64
#: a list value (not its text) written as a selection's projection writes the list's JSON text;
#: None where it is not written so (project its text)
ListWriter = Callable[[Any], bytes | None]
#: a selection's ``ListWriter`` made of its typed templates (``typed_templates``) and its
#: projection of one object's text (a list of one, ``[...]``); None where there is none
MakeListWriter = Callable[[tuple[Any, ...], Callable[[bytes], bytes]], ListWriter | None]


class Unrendered(Protocol):
    """A root field's successful answer (status 200) whose REST text is not written yet: its
    parts as ``Split`` would give them (None where the answer would not split so), its lists
    written by a selection's ``ListWriter`` (None: not so), and its REST text (for all else)."""

    def part(self, name: str) -> bytes | None: ...

    def listed(self, name: str, write: ListWriter) -> bytes | None: ...

    def text(self) -> bytes: ...


#: a root field's REST answer: its status and JSON text (or, status 200, ``Unrendered``)
Answered = tuple[int, bytes | Unrendered]
#: answers a root field: (the caller's context, field name, arguments) -> the REST answer of its
#: operation
AnswerRoot = Callable[[Any, str, dict[str, Any]], Awaitable[Answered]]
#: the value a root field's resolver makes of its REST answer: (field name, answer) -> value
ValueOf = Callable[[str, tuple[int, bytes]], Any]
#: the parts of a successful REST answer as JSON texts (bytes, or views of the answer's), by
#: name, each exactly what orjson writes for the value graphql-core completes the field that
#: reads it to; None where the answer is not laid out so
Split = Callable[[bytes], Mapping[str, bytes | memoryview] | None]
#: a root field's answer written as JSON text from its REST answer, its pieces added to the
#: list given; False (nothing added) where it is not written so: complete its value
Write = Callable[[Answered, list[bytes | memoryview]], bool]


class Unsupported(Exception):
    """The plan cannot answer this request as graphql-core would: let strawberry answer it."""


@dataclass(frozen=True)
class Root:
    """A root field: its response name as JSON text (``"key":``), the field, its arguments'
    variables, the completion of its value, and the writer of its answer as text where the
    selection allows (``_Planner.writer``)."""

    prefix: bytes
    name: str
    variables: tuple[tuple[str, str], ...]  # (argument, variable)
    complete: Complete
    write: Write | None


@dataclass(frozen=True)
class Plan:
    """A document's one operation, ready to run (see the module's docstring)."""

    name: str | None
    roots: tuple[Root | bytes, ...]  # bytes: ``"key":"Query"`` (a root ``__typename``)
    required: tuple[str, ...]  # non-null variables

    async def write(self, variables: Mapping[str, Any] | None, answer: AnswerRoot,
                    value_of: ValueOf, context: Any = None) -> bytes:
        """The JSON text graphql-core's answer is written as (``{"data":...}``, as orjson
        writes it), a new ``bytes`` made at its length (a join); raises ``Unsupported``.
        ``context`` is given to ``answer`` as it is."""
        variables = variables or {}
        for name in self.required:
            if variables.get(name) is None:
                raise Unsupported(name)
        out: list[bytes | memoryview] = [b'{"data":{']
        for root in self.roots:
            if len(out) > 1:
                out.append(b",")
            if isinstance(root, bytes):
                out.append(root)
                continue
            args = {}
            for arg, var in root.variables:
                if variables.get(var) is None:  # graphql-core may default or refuse it
                    raise Unsupported(var)
                args[arg] = variables[var]
            try:
                answered = await answer(context, root.name, args)
            except Exception as exc:  # strawberry reports it as graphql-core does
                raise Unsupported("the resolver raised") from exc
            out.append(root.prefix)
            self.written(root, answered, value_of, out)
        out.append(b"}}")
        return b"".join(out)

    def one_root(self) -> Root | None:
        """The plan's root field where it is the only one (no other, no root ``__typename``)."""
        root = self.roots[0] if len(self.roots) == 1 else None
        return None if isinstance(root, bytes) else root

    @staticmethod
    def written(root: Root, answered: Answered, value_of: ValueOf,
                out: list[bytes | memoryview]) -> None:
        """A root field's answer, as ``write`` writes it, added to ``out``; raises
        ``Unsupported``."""
        try:
            if root.write is not None and root.write(answered, out):
                return
            status, content = answered
            if not isinstance(content, bytes):  # written as REST writes it, after all
                content = content.text()
                if root.write is not None and root.write((status, content), out):
                    return
            out.append(orjson.dumps(root.complete(value_of(root.name, (status, content)))))
        except Unsupported:
            raise
        except Exception as exc:  # a value the plan did not expect: strawberry's turn
            raise Unsupported("the completion raised") from exc


class Projection(NamedTuple):
    """A selection's list written again (``_Planner.projector``): from its JSON text
    (``write``), and where it can, from its value (``direct``)."""

    write: Callable[[bytes], bytes]
    direct: ListWriter | None


class _Planner:
    def __init__(self, schema: GraphQLSchema, document: DocumentNode,
                 resolvers: Mapping[tuple[str, str], Get], dict_types: frozenset[str],
                 texts: Mapping[tuple[str, str], Get], project: Project | None,
                 split: Mapping[str, tuple[str, Split]],
                 parts: Mapping[tuple[str, str], str],
                 templates: Mapping[str, tuple[Template, ...]],
                 list_writers: Mapping[str, MakeListWriter]) -> None:
        self.schema = schema
        self.fragments = {d.name.value: d for d in document.definitions
                          if isinstance(d, FragmentDefinitionNode)}
        self.resolvers = resolvers
        self.dict_types = dict_types
        self.texts = texts
        self.project = project
        self.split = split
        self.parts = parts
        self.templates = templates
        self.list_writers = list_writers

    def collect(self, runtime: GraphQLObjectType,
                sets: Iterable[SelectionSetNode]) -> dict[str, list[FieldNode]]:
        """The fields of ``sets`` for an object of type ``runtime``, by response name, as
        graphql-core's ``collect_fields`` groups them (no directives: ``plan`` checked)."""
        fields: dict[str, list[FieldNode]] = {}
        seen: set[str] = set()

        def visit(selection_set: SelectionSetNode) -> None:
            for sel in selection_set.selections:
                if isinstance(sel, FieldNode):
                    key = sel.alias.value if sel.alias else sel.name.value
                    fields.setdefault(key, []).append(sel)
                elif isinstance(sel, InlineFragmentNode):
                    if self.matches(sel.type_condition, runtime):
                        visit(sel.selection_set)
                elif isinstance(sel, FragmentSpreadNode):
                    name = sel.name.value
                    if name in seen:
                        continue
                    seen.add(name)
                    fragment = self.fragments.get(name)
                    if fragment is not None and self.matches(fragment.type_condition, runtime):
                        visit(fragment.selection_set)

        for selection_set in sets:
            visit(selection_set)
        return fields

    def matches(self, condition: NamedTypeNode | None, runtime: GraphQLObjectType) -> bool:
        if condition is None:
            return True
        named = self.schema.get_type(condition.name.value)
        if named is runtime:
            return True
        return isinstance(named, GraphQLUnionType) and self.schema.is_sub_type(named, runtime)

    def object(self, runtime: GraphQLObjectType, nodes: list[FieldNode]) -> Complete:
        """Completion of an object value: its selected fields, in order. Per field: the
        response name, how it is read (a dict's key, or a getter; None: ``__typename``), the
        value types written as they are, for a list the item types written as they are, the
        completion of any other value, the constant. It raises ``Unsupported`` for None (a
        nullable object's completion is wrapped in ``_nullable``)."""
        sets = [n.selection_set for n in nodes if n.selection_set is not None]
        from_dict = runtime.name in self.dict_types
        spec: list[tuple[str, Any, frozenset[type], frozenset[type], Complete, str]] = []
        for key, group in self.collect(runtime, sets).items():
            name = group[0].name.value
            if name == "__typename":
                spec.append((key, None, frozenset(), frozenset(), _leaf(GraphQLString),
                             runtime.name))
                continue
            field = runtime.fields[name]
            if field.args or any(n.arguments for n in group):
                raise Unsupported(f"{runtime.name}.{name} takes arguments")
            text = None if from_dict else self.texts.get((runtime.name, name))
            projected = None if text is None else self.projected(field.type, group)
            if projected is not None:  # read as the list's text, written by ``project``
                spec.append((key, text, frozenset(), frozenset(), projected, ""))
                continue
            read = self.python_name(runtime, name) if from_dict else self.getter(runtime, name)
            spec.append((key, read, _plain(field.type), _items(field.type),
                         self.value(field.type, group), ""))
        fields = tuple(spec)

        if from_dict:
            def complete_dict(source: Any) -> dict[str, Any]:
                if type(source) is not dict:
                    raise Unsupported("not a dict")
                out: dict[str, Any] = {}
                get = source.get
                for key, name, plain, items, done, const in fields:
                    if name is None:
                        out[key] = const
                        continue
                    value: Any = get(name)
                    kind = type(value)
                    if kind in plain or (kind is list and items
                                         and set(map(type, value)) <= items):
                        out[key] = value
                    else:
                        out[key] = done(value)
                return out

            return complete_dict

        def complete(source: Any) -> dict[str, Any]:
            if source is None:
                raise Unsupported("null in a non-null field")
            out: dict[str, Any] = {}
            for key, read, plain, items, done, const in fields:
                if read is None:
                    out[key] = const
                    continue
                value = read(source)
                kind = type(value)
                if kind in plain or (kind is list and items and set(map(type, value)) <= items):
                    out[key] = value
                else:
                    out[key] = done(value)
            return out

        return complete

    def writer(self, name: str, type_: GraphQLOutputType, nodes: list[FieldNode]
               ) -> Write | None:
        """How root field ``name``'s successful answer is written straight from the REST
        answer's text (``split``: the object type a status 200 answer completes to, and how its
        text splits into parts): each selected field of that type the JSON text of a part
        (``parts``: the part a field reads) or, a list of ``dict_types`` objects, that part
        projected; a ``__typename`` the type's name. None where something else is selected
        (every answer is then completed as a value)."""
        found = self.split.get(name)
        if found is None:
            return None
        runtime = self.schema.get_type(found[0])
        split, named = found[1], _named(type_)
        if not isinstance(runtime, GraphQLObjectType) or not (
                named is runtime or isinstance(named, GraphQLUnionType)
                and self.schema.is_sub_type(named, runtime)):
            return None
        sets = [n.selection_set for n in nodes if n.selection_set is not None]
        pieces: list[tuple[bytes, str, Projection | None]] = []
        for i, (key, group) in enumerate(self.collect(runtime, sets).items()):
            prefix = _member(key, first=not i)
            field = group[0].name.value
            if field == "__typename":
                pieces.append((prefix + orjson.dumps(runtime.name), "", None))
                continue
            part = self.parts.get((runtime.name, field))
            if part is None or runtime.fields[field].args or any(n.arguments for n in group):
                return None
            listed = isinstance(_named(runtime.fields[field].type), GraphQLList)
            project = self.projector(runtime.fields[field].type, group) if listed else None
            if listed and project is None:
                return None
            pieces.append((prefix, part, project))
        spec = tuple(pieces)

        def write(answered: Answered, out: list[bytes | memoryview]) -> bool:
            status, text = answered
            if status != 200:
                return False
            written: list[bytes | memoryview] = [b"{"]
            if isinstance(text, bytes):
                parts = split(text)
                if parts is None:
                    return False
                for prefix, part, project in spec:
                    written.append(prefix)
                    if part:
                        written.append(parts[part] if project is None
                                       else project.write(bytes(parts[part])))
            else:
                for prefix, part, project in spec:
                    written.append(prefix)
                    if part:
                        found = (text.part(part) if project is None
                                 else None if project.direct is None
                                 else text.listed(part, project.direct))
                        if found is None:
                            return False
                        written.append(found)
            written.append(b"}")
            out += written  # (all or nothing: a projection may raise, a part be missing)
            return True

        return write

    def projected(self, type_: GraphQLOutputType, nodes: list[FieldNode]) -> Complete | None:
        """``projector``'s text as an ``orjson.Fragment``, the completion of such a list read
        as its JSON text."""
        projection = self.projector(type_, nodes)
        if projection is None:
            return None
        write = projection.write
        return lambda text: orjson.Fragment(write(text))

    def projector(self, type_: GraphQLOutputType, nodes: list[FieldNode]
                  ) -> Projection | None:
        """A list of ``dict_types`` objects whose selected fields are all leaves (String, Int,
        Boolean, lists of them, ``__typename``), written from the list's JSON text by
        ``project`` (schema/_project.c) as graphql-core completes it, and where a
        ``list_writers`` entry makes one for its templates, from the list's value; None where
        ``project`` is not installed or the selection is not such."""
        project, shape = self.project, 0
        if project is None:
            return None
        if isinstance(type_, GraphQLNonNull):
            type_ = type_.of_type
        else:
            shape |= SHAPE_NULLABLE
        if not isinstance(type_, GraphQLList):
            return None
        item = type_.of_type
        if isinstance(item, GraphQLNonNull):
            item = item.of_type
        else:
            shape |= SHAPE_ITEM_NULLABLE
        if not isinstance(item, GraphQLObjectType) or item.name not in self.dict_types:
            return None
        sets = [n.selection_set for n in nodes if n.selection_set is not None]
        fields = []
        for i, (key, group) in enumerate(self.collect(item, sets).items()):
            prefix = _member(key, first=not i)
            name = group[0].name.value
            if name == "__typename":
                fields.append((prefix, orjson.dumps(item.name), KIND_CONSTANT))
                continue
            if item.fields[name].args or any(n.arguments for n in group):
                raise Unsupported(f"{item.name}.{name} takes arguments")
            kind = _leaf_kind(item.fields[name].type)
            if kind is None:
                return None
            fields.append((prefix, self.python_name(item, name).encode(), kind))
        spec = tuple(fields)
        typed = TYPED.get((item.name, spec))
        if typed is None and len(TYPED) < TYPED_KEPT:
            typed = TYPED[item.name, spec] = typed_templates(
                project, spec, self.templates.get(item.name, ()))
        if not typed:
            return Projection(lambda text: project(text, spec, shape), None)
        make = self.list_writers.get(item.name)
        direct = None if make is None else make(typed, lambda text: project(text, spec, 0))
        return Projection(lambda text: project(text, spec, shape, typed), direct)

    def python_name(self, parent: GraphQLObjectType, name: str) -> str:
        """The attribute (or, for ``dict_types``, the key) a field without a resolver reads."""
        field = parent.fields[name].extensions.get(BACKREF)
        if field is None or field.base_resolver is not None:
            raise Unsupported(f"{parent.name}.{name} has a resolver")
        python_name: str = field.python_name
        return python_name

    def getter(self, parent: GraphQLObjectType, name: str) -> Get:
        """How a field is read: a known resolver's equivalent, or its attribute."""
        special = self.resolvers.get((parent.name, name))
        if special is not None:
            return special
        python_name = self.python_name(parent, name)
        return lambda source: getattr(source, python_name)

    def value(self, type_: GraphQLOutputType, nodes: list[FieldNode]) -> Complete:
        """Completion of a value of ``type_``, as graphql-core's ``complete_value``."""
        if isinstance(type_, GraphQLNonNull):
            if isinstance(type_.of_type, GraphQLObjectType):  # never None: raises for None
                return self.object(type_.of_type, nodes)
            inner = self.value(type_.of_type, nodes)

            def non_null(value: Any) -> Any:
                completed = inner(value)
                if completed is None:
                    raise Unsupported("null in a non-null field")
                return completed

            return non_null
        if isinstance(type_, GraphQLList):
            item, plain = self.value(type_.of_type, nodes), _plain(type_.of_type)

            def listed(value: Any) -> Any:
                if value is None:
                    return None
                if not isinstance(value, list | tuple):
                    raise Unsupported("not a list")
                return [v if type(v) in plain else item(v) for v in value]

            return listed
        if isinstance(type_, GraphQLScalarType):
            return _leaf(type_)
        if isinstance(type_, GraphQLObjectType):
            return _nullable(self.object(type_, nodes))
        if isinstance(type_, GraphQLUnionType):
            by_class: dict[type, Complete] = {}
            for member in self.schema.get_possible_types(type_):
                definition = member.extensions.get(BACKREF)
                origin = getattr(definition, "origin", None)
                if not isinstance(origin, type):
                    raise Unsupported(f"{member.name} has no class")
                by_class[origin] = self.object(member, nodes)

            def union(value: Any) -> Any:
                complete = by_class.get(type(value))
                if complete is None:
                    raise Unsupported("not a member of the union")
                return complete(value)

            return _nullable(union)
        raise Unsupported(f"{type_} is not planned")  # enums, interfaces: none on this path


#: the scalars whose completion writes values of these types as they are
_PLAIN: dict[GraphQLScalarType, frozenset[type]] = {
    GraphQLString: frozenset({str}), GraphQLBoolean: frozenset({bool})}
_NONE = frozenset({type(None)})


def _plain(type_: GraphQLOutputType) -> frozenset[type]:
    """The types of the values that a value of ``type_`` completes to unchanged (None where
    the type is nullable; a String's str, a Boolean's bool)."""
    if isinstance(type_, GraphQLNonNull):
        inner = type_.of_type
        return _PLAIN.get(inner, frozenset()) if isinstance(inner, GraphQLScalarType) else (
            frozenset())
    if isinstance(type_, GraphQLScalarType):
        return _PLAIN.get(type_, frozenset()) | _NONE
    return _NONE


def _items(type_: GraphQLOutputType) -> frozenset[type]:
    """For a list of scalars, the types of the items it completes to unchanged; else empty."""
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    return _plain(type_.of_type) if isinstance(type_, GraphQLList) and isinstance(
        _named(type_.of_type), GraphQLScalarType) else frozenset()


def _member(key: str, first: bool) -> bytes:
    """A response name as the JSON text that opens its member, ``"key":``, after a comma but
    for the first (a GraphQL name needs no escapes)."""
    return f'{"" if first else ","}"{key}":'.encode()


def _named(type_: GraphQLOutputType) -> GraphQLOutputType:
    return type_.of_type if isinstance(type_, GraphQLNonNull) else type_


def _nullable(complete: Complete) -> Complete:
    def nullable(value: Any) -> Any:
        return None if value is None else complete(value)

    return nullable


def _leaf(scalar: GraphQLScalarType) -> Complete:
    """A scalar's completion: its ``coerce_output_value``, with the common cases inline."""
    coerce = scalar.coerce_output_value

    def slow(value: Any) -> Any:
        if value is None or value is Undefined:
            return None
        try:
            coerced = coerce(value)
        except Exception as exc:
            raise Unsupported("the scalar refuses the value") from exc
        if coerced is None or coerced is Undefined:
            raise Unsupported("the scalar coerced to null")
        return coerced

    if scalar is GraphQLString:
        return lambda value: value if type(value) is str else slow(value)
    if scalar is GraphQLBoolean:
        return lambda value: value if type(value) is bool else slow(value)
    if scalar is GraphQLInt:
        return lambda value: (value if type(value) is int and INT_MIN <= value <= INT_MAX
                              else slow(value))
    return slow


#: ``project``'s kinds of fields (schema/_project.c), its flags and its list's shape
KIND_CONSTANT = 0
_KINDS: dict[GraphQLScalarType, int] = {GraphQLString: 1, GraphQLInt: 2, GraphQLBoolean: 3}
KIND_LIST, KIND_NULLABLE, KIND_ITEM_NULLABLE = 8, 16, 32
SHAPE_NULLABLE, SHAPE_ITEM_NULLABLE = 1, 2


def _leaf_kind(type_: GraphQLOutputType) -> int | None:
    """``project``'s kind of a field of ``type_``; None for a type it does not write."""
    kind = 0
    if isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    else:
        kind |= KIND_NULLABLE
    if isinstance(type_, GraphQLList):
        kind |= KIND_LIST
        type_ = type_.of_type
        if isinstance(type_, GraphQLNonNull):
            type_ = type_.of_type
        else:
            kind |= KIND_ITEM_NULLABLE
    base = _KINDS.get(type_) if isinstance(type_, GraphQLScalarType) else None
    return None if base is None else kind | base


def typed_templates(project: Project, fields: tuple[tuple[bytes, bytes, int], ...],
                    templates: tuple[Template, ...]) -> tuple[Any, ...]:
    """``templates`` as ``project`` takes them for ``fields``: each end mapped to what
    ``project`` writes for the template's object before its slot and after it (after None:
    the selection does not write the slot). Worked out by projecting the object with a string
    in the slot, and checked with other strings there: the slot must be written as it is, once,
    or not at all. An end whose object is refused or does not pass is left out (such objects
    are read as any other)."""
    out = []
    for start, slot, ends in templates:
        first, second = _SLOTS[slot]
        typed: dict[bytes, tuple[bytes, bytes | None]] = {}
        for end in ends:
            try:
                written = [project(b"[" + start + s + end + b"]", fields, 0)[1:-1]
                           for s in (first, second)]
            except ValueError:
                continue
            parts = written[0].split(first)
            if len(parts) == 1 and written[1] == written[0]:
                typed[end] = (written[0], None)
            elif len(parts) == 2 and written[1] == parts[0] + second + parts[1]:
                typed[end] = (parts[0], parts[1])
        if typed:
            out.append((start, slot, typed))
    return tuple(out)


def _has_directives(document: DocumentNode) -> bool:
    stack: list[Any] = list(document.definitions)
    while stack:
        node = stack.pop()
        if getattr(node, "directives", None):
            return True
        for var in getattr(node, "variable_definitions", None) or ():
            if var.directives:
                return True
        selection_set = getattr(node, "selection_set", None)
        if selection_set is not None:
            stack.extend(selection_set.selections)
    return False


def plan(schema: GraphQLSchema, document: DocumentNode, roots: frozenset[str],
         resolvers: Mapping[tuple[str, str], Get], dict_types: frozenset[str],
         variable_types: frozenset[str], texts: Mapping[tuple[str, str], Get] | None = None,
         project: Project | None = None, split: Mapping[str, tuple[str, Split]] | None = None,
         parts: Mapping[tuple[str, str], str] | None = None,
         templates: Mapping[str, tuple[Template, ...]] | None = None,
         list_writers: Mapping[str, MakeListWriter] | None = None) -> Plan | None:
    """The plan of a document validated against ``schema``, or None when it is not one the
    fast path covers: one query operation; root fields in ``roots`` (every argument a
    variable) or ``__typename``; every variable of a type in ``variable_types`` (scalars
    that take any value as it is), without a default; no directives. ``resolvers``: for
    fields with a resolver, a getter that reads the same value; ``dict_types``: types whose
    values are dicts on this path (their fields read by key). ``texts``: for fields that
    list ``dict_types`` objects, a getter of the list's JSON text, which ``project`` writes
    again with the selected fields where they are all leaves (else they are read as dicts).
    ``split``: for root fields, the object type a successful (status 200) REST answer
    completes to and how that answer's text splits into parts; ``parts``: for fields of such
    types, the part each reads (``_Planner.writer``); ``templates``: for ``dict_types``, the
    kinds of object their lists' texts mostly hold (``typed_templates``); ``list_writers``:
    for ``dict_types``, what makes a selection's writer of a list's value (``Unrendered``
    answers' lists) from its typed templates."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    query = schema.query_type
    if (len(operations) != 1 or operations[0].operation is not OperationType.QUERY
            or query is None or _has_directives(document)):
        return None
    operation = operations[0]
    required, scalar_vars = [], set()
    for var in operation.variable_definitions or ():
        type_node, non_null = var.type, isinstance(var.type, NonNullTypeNode)
        if isinstance(type_node, NonNullTypeNode):
            type_node = type_node.type
        if (not isinstance(type_node, NamedTypeNode) or var.default_value is not None
                or type_node.name.value not in variable_types):
            return None
        scalar_vars.add(var.variable.name.value)
        if non_null:
            required.append(var.variable.name.value)
    planner = _Planner(schema, document, resolvers, dict_types, texts or {}, project,
                       split or {}, parts or {}, templates or {}, list_writers or {})
    out: list[Root | bytes] = []
    try:
        for key, group in planner.collect(query, [operation.selection_set]).items():
            name = group[0].name.value
            prefix = _member(key, first=True)  # (Plan.write puts the commas between roots)
            if name == "__typename":
                out.append(prefix + orjson.dumps(query.name))
                continue
            if name not in roots:
                return None
            arguments = []
            for arg in group[0].arguments or ():
                if not isinstance(arg.value, VariableNode):
                    return None
                variable = arg.value.name.value
                if variable not in scalar_vars:
                    return None
                arguments.append((arg.name.value, variable))
            type_ = query.fields[name].type
            out.append(Root(prefix, name, tuple(arguments), planner.value(type_, group),
                             planner.writer(name, type_, group)))
    except Unsupported:
        return None
    return Plan(operation.name.value if operation.name else None, tuple(out), tuple(required))
