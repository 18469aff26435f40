"""German for what the wire layer says: the field messages of malformed requests (pydantic's
errors, by error type) and the titles of problem documents.

English field messages are pydantic's own (and the models' custom errors'); German ones are
written here from the error's type and context, so no English word of pydantic's reaches a
German answer. ``tests/test_languages.py`` provokes every error type the request models can
raise and checks both languages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic_core import ErrorDetails

Ctx = dict[str, Any]


def _line(ctx: Ctx) -> str:
    """Where a JSON syntax error is, in German (the parser's own words are English)."""
    found = re.search(r"line (\d+) column (\d+)", str(ctx.get("error", "")))
    return f" (Zeile {found[1]}, Spalte {found[2]})" if found else ""


def _actual(context: dict[str, Any]) -> str:
    """", nicht N" where pydantic says how many there are (not every version does for a dict)."""
    actual = context.get("actual_length")
    return f", nicht {actual}" if actual is not None else ""


def _items(ctx: Ctx) -> str:
    return "Das Objekt" if ctx.get("field_type") == "Dictionary" else "Die Liste"


def _oder(text: object) -> str:
    """pydantic's list of literals ("'a', 'b' or 'c'") with German ``oder``."""
    return str(text).replace("' or '", "' oder '")


_OBJECTS = {"HiddenCards": '{"size": n}', "PileView": '{"top", "size", "frozen"}'}

#: error type -> German message from its context
GERMAN: dict[str, Callable[[Ctx], str]] = {
    "json_invalid": lambda c: f"Kein gültiges JSON{_line(c)}.",
    "model_type": lambda c: "Hier gehört ein JSON-Objekt hin.",
    "dict_type": lambda c: "Hier gehört ein JSON-Objekt hin.",
    "model_attributes_type": lambda c: "Hier gehört ein JSON-Objekt hin.",
    "list_type": lambda c: "Hier gehört eine Liste (JSON-Array) hin.",
    "int_type": lambda c: "Hier gehört eine ganze Zahl hin.",
    "bool_type": lambda c: "Hier gehört true oder false hin.",
    "string_type": lambda c: "Hier gehört eine Zeichenkette hin.",
    "missing": lambda c: "Pflichtfeld fehlt.",
    "extra_forbidden": lambda c: "Unbekanntes Feld.",
    "greater_than_equal": lambda c: f"Der Wert muss mindestens {c['ge']} sein.",
    "less_than_equal": lambda c: f"Der Wert darf höchstens {c['le']} sein.",
    "string_too_long": lambda c: f"Höchstens {c['max_length']} Zeichen erlaubt.",
    "too_long": lambda c: f"{_items(c)} darf höchstens {c['max_length']} Einträge haben"
                          f"{_actual(c)}.",
    "too_short": lambda c: f"{_items(c)} braucht mindestens {c['min_length']} Einträge"
                           f"{_actual(c)}.",
    "literal_error": lambda c: f"Erlaubt: {_oder(c['expected'])}.",
    "union_tag_invalid": lambda c: f"Unbekannter Wert '{c['tag']}' in {c['discriminator']}; "
                                   f"erlaubt: {c['expected_tags']}.",
    "union_tag_not_found": lambda c: f"Das Feld {c['discriminator']} fehlt oder ist kein Text.",
    # the models' own error types (schema.models)
    "card_code": lambda c: f"kein Kartencode: {c['card']}",
    "rank": lambda c: f"kein Rang: {c['rank']}",
    "seed": lambda c: "der Startwert (seed) ist eine ganze 64-Bit-Zahl",
    "option_value": lambda c: "eine Option ist ein Wahrheitswert, eine ganze Zahl in "
                              "-1000000..1000000, ein Text (höchstens 64 Zeichen) oder null",
    "cards_or_object": lambda c: "erwartet eine Liste von Kartencodes oder ein Objekt "
                                 + _OBJECTS.get(str(c.get("model")), str(c.get("model"))),
}


def field_message(error: ErrorDetails, lang: str) -> str:
    """The message of one pydantic error in ``lang``."""
    if lang != "de":
        return error["msg"]
    german = GERMAN.get(error["type"])
    ctx: Ctx = dict(error.get("ctx") or {})
    if german is None:
        return f"Ungültiger Wert ({error['type']})."
    try:
        return german(ctx)
    except KeyError:  # a context pydantic did not give: the type's words without it
        return f"Ungültiger Wert ({error['type']})."


#: German titles of problem documents, by code (English: the code in words)
TITLES: dict[str, str] = {
    "MALFORMED_REQUEST": "Fehlerhafte Anfrage",
    "TOO_MANY_ACTIONS": "Zu viele Aktionen",
    "TOO_MANY_LEGAL_ACTIONS": "Zu viele erlaubte Aktionen",
    "TOO_MANY_OPERATIONS": "Zu viele Operationen",
    "ANSWER_TOO_LARGE": "Antwort zu groß",
    "DEAL_RULES_DIFFER": "Andere Regeln in einer Runde",
    "INVALID_STATE": "Ungültiger Spielstand",
    "INVALID_TALLY": "Unmögliche Abrechnung",
    "INVALID_LEDGER": "Widersprüchliches Spiel",
    "UNKNOWN_VARIANT": "Unbekannte Variante",
    "UNKNOWN_OPTION": "Unbekannte Option",
    "BAD_OPTION_VALUE": "Unzulässiger Optionswert",
    "SEAT_OUT_OF_RANGE": "Sitz außerhalb des Bereichs",
    "SIDE_COUNT_MISMATCH": "Falsche Anzahl Teams",
    "ILLEGAL_ACTION": "Unerlaubter Zug",
    "NEEDS_HIDDEN_INFO": "Verdeckte Karten nötig",
    "NOT_FOUND": "Nicht gefunden",
    "METHOD_NOT_ALLOWED": "Methode nicht erlaubt",
    "BODY_TOO_LARGE": "Anfragetext zu groß",
    "INTERNAL_ERROR": "Interner Fehler",
    "BAD_GRAPHQL_REQUEST": "Keine GraphQL-Anfrage",
    "QUERY_TOO_COMPLEX": "Abfrage zu aufwendig",
    "ORIGIN_NOT_ALLOWED": "Herkunft nicht zugelassen",
    "UNSUPPORTED_MEDIA_TYPE": "Nicht unterstützter Medientyp",
    "OVERLOADED": "Überlastet",
    "REQUEST_TIMEOUT": "Zeit für die Anfrage abgelaufen",
    "HEADERS_TOO_LARGE": "Kopfzeilen zu groß",
    "BAD_HTTP_REQUEST": "Ungültige HTTP-Anfrage",
    "HTTP_ERROR": "HTTP-Fehler",
}


def title(code: str, lang: str) -> str:
    """A problem document's title: the code in words (English; names spelt as such), or its
    German title."""
    if lang == "de" and code in TITLES:
        return TITLES[code]
    return code.replace("_", " ").capitalize().replace("graphql", "GraphQL").replace(
        "Http", "HTTP").replace("http", "HTTP")
