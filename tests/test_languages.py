"""German wherever a message is shown (issue 16): every engine code, every HTTP-level problem,
every title, every field error the request models can raise, and the words the engine puts
into its messages; ``Content-Language`` and ``Vary: Accept-Language`` on every answer of
``/v1/*`` and ``/graphql``; the in-process cache never answers one language with the other's
bytes. Over the real ASGI app (Starlette's TestClient)."""

from __future__ import annotations

import copy
import json
import random
import re
import string
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError
from starlette.requests import Request
from starlette.routing import Route
from starlette.testclient import TestClient

from canasta_referee.engine import rules_for, state_to_data
from canasta_referee.engine.reasons import CODES, message
from canasta_referee.schema import handlers, messages
from canasta_referee.schema.models import EXAMPLE_ACTIONS, EXAMPLE_STATE
from canasta_referee.service.app import _STATUS_TEXT, create_app
from canasta_referee.service.protocol import OVERLOADED, TEXT
from canasta_referee.service.settings import Settings
from tests.hostile import big_hand_state
from tests.playout import playout

DE = {"Accept-Language": "de"}
EN = {"Accept-Language": "en"}

#: English words that have no business in a German message (wire names such as ``draw``,
#: ``asked`` or ``seed`` may appear: they are the API's own identifiers)
ENGLISH = {"the", "of", "should", "must", "be", "input", "valid", "field", "required", "most",
           "least", "expected", "object", "list", "string", "integer", "boolean", "number",
           "items", "characters", "seat", "cards", "card", "stock", "pile", "with",
           "than", "only", "and", "or", "is", "not", "this", "that", "unknown", "request",
           "allowed", "found", "after", "before", "value", "problems", "players",
           "side", "sides", "got", "does", "exist", "cannot", "who", "go", "out",
           "still", "holds", "pending", "melds", "meld", "top", "goes", "freezes", "wild",
           "invalid", "line", "column", "while", "parsing", "tag", "none", "from"}


def english_words(text: str) -> set[str]:
    """The words of ``text`` that are English only (quoted wire values left out)."""
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", " ", text)
    unquoted = re.sub(r"\b[0-9a-f]{16}\b", " ", unquoted)  # a fingerprint's hex, not a word
    return {w for w in re.findall(r"[A-Za-z]+", unquoted) if w.lower() in ENGLISH} - {"JSON"}


def german(en: str, de: str, what: object) -> None:
    """``de`` is German for ``en``: both say something, they differ, no English word left."""
    assert en and de and en != de, (what, en, de)
    assert not english_words(de), (what, de, english_words(de))
    assert "{" not in re.sub(r"\{\"[^}]*\}|\{\"size\": n\}", "", de), (what, de)


@pytest.fixture(scope="module")
def http() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(log_level="warning")),
                    raise_server_exceptions=False) as c:
        yield c


# --- engine codes -------------------------------------------------------------------------------


def test_every_engine_code_has_an_english_and_a_different_german_message() -> None:
    for code, (_, en_template, de_template) in CODES.items():
        names = {f for _, f, _, _ in string.Formatter().parse(en_template + de_template) if f}
        params = {name: 7 for name in names}
        en, de = message(code, params, "en"), message(code, params, "de")
        assert "{" not in en + de, code
        german(en, de, code)


def test_the_words_the_engine_fills_in_are_german_too(http: TestClient) -> None:
    """Parameters that are words (why a pile is frozen, what is hidden, what contradicts what)
    come in both languages: validate mutated states of real deals in German."""
    from tests.test_mutated_states import mutate

    rng = random.Random(16)
    seen: set[str] = set()
    for variant in ("classic", "modern-american", "family"):
        states = [state_to_data(s) for seed in range(2)
                  for i, (s, _) in enumerate(playout(rules_for(variant), seed, check=False))
                  if i % 7 == 0]
        for _ in range(60):
            body = json.dumps({"state": mutate(rng.choice(states), rng)}).encode()
            en_status, en = handlers.handle("validate", body, "en")
            de_status, de = handlers.handle("validate", body, "de")
            assert en_status == de_status
            for p_en, p_de in zip(en.get("problems", []), de.get("problems", []), strict=True):
                assert p_en["code"] == p_de["code"]
                seen.add(p_en["code"])
                german(p_en["message"], p_de["message"], p_en["code"])
    assert {"PHASE_INCONSISTENT", "CARD_COUNT_MISMATCH", "TOO_MANY_COPIES"} <= seen, seen


def test_engine_words_in_problems_of_hand_made_states(http: TestClient) -> None:
    """Each word-parameter of the engine's state problems, provoked on purpose."""
    over = copy.deepcopy(EXAMPLE_STATE)
    over["turn"] = {"seat": 0, "phase": "over"}  # over, but nobody went out
    empty = copy.deepcopy(EXAMPLE_STATE)
    empty["hands"][1] = []  # a hand of 0 before the deal ends
    pile = copy.deepcopy(EXAMPLE_STATE)
    pile["discard"] = {"top": "JK", "size": 3}  # a wild card on top, not frozen
    drew_both = copy.deepcopy(EXAMPLE_STATE)
    drew_both["turn"] = {"seat": 0, "phase": "play", "drawn": True, "took_pile": True}
    cases = [(over, "PHASE_INCONSISTENT"), (empty, "IMPOSSIBLE_SIZE"),
             (pile, "PILE_VIEW_INCONSISTENT"), (drew_both, "PHASE_INCONSISTENT")]
    for state, code in cases:
        en = http.post("/v1/validate", json={"state": state}, headers=EN).json()
        de = http.post("/v1/validate", json={"state": state}, headers=DE).json()
        pairs = [(a["message"], b["message"]) for a, b in zip(en["problems"], de["problems"],
                                                             strict=True) if a["code"] == code]
        assert pairs, (code, en)
        for pair in pairs:
            german(*pair, code)


def test_needs_hidden_info_says_what_in_german(http: TestClient) -> None:
    for op, body in (("legal-actions", {"state": {**EXAMPLE_STATE, "turn": {
                         "seat": 1, "phase": "play"}}}),
                     ("score", {"state": EXAMPLE_STATE})):
        en = http.post(f"/v1/{op}", json=body, headers=EN).json()
        de = http.post(f"/v1/{op}", json=body, headers=DE).json()
        assert en["code"] == de["code"] == "NEEDS_HIDDEN_INFO", en
        german(en["detail"], de["detail"], op)
        assert re.search(r"die Hand von Sitz \d\.$", de["detail"]), de


def test_an_option_value_lists_what_is_allowed_in_each_language(http: TestClient) -> None:
    en = http.post("/v1/deal", json={"options": {"players": 5}}, headers=EN).json()
    de = http.post("/v1/deal", json={"options": {"players": 5}}, headers=DE).json()
    assert en["detail"] == "Option 'players' must be 2, 3, 4 or 6."
    assert de["detail"] == "Option 'players' muss 2, 3, 4 oder 6 sein."
    assert de["title"] == "Unzulässiger Optionswert" and en["title"] == "Bad option value"


# --- problem documents: HTTP-level codes, engine-level codes, titles ----------------------------


def _provoke_http_codes(lang: dict[str, str]) -> dict[str, dict[str, Any]]:
    """One problem document per HTTP-level code of ``service.app``, asked in ``lang``."""
    app = create_app(Settings(log_level="warning", max_body_bytes=1024,
                              cors_origins=("https://allowed.example",)))

    async def boom(request: Request) -> Any:
        raise RuntimeError("boom")

    app.router.routes.append(Route("/boom", boom))

    async def marked(scope: Any, receive: Any, send: Any) -> None:
        """The app, with /busy marked as service.protocol marks a request past MAX_IN_FLIGHT."""
        if scope["type"] == "http" and scope["path"] == "/busy":
            scope = {**scope, "extensions": {OVERLOADED: {}}}
        await app(scope, receive, send)

    out: dict[str, dict[str, Any]] = {}
    with TestClient(marked, raise_server_exceptions=False) as c:
        answers = [
            c.get("/v2/nothing", headers=lang),
            c.get("/v1/check", headers=lang),
            c.post("/v1/check", content=b"x" * 2048, headers=lang),
            c.get("/boom", headers=lang),
            c.post("/v1/check", content=b"{}", headers={**lang, "Content-Type": "text/plain"}),
            c.get("/busy", headers=lang),
            c.post("/graphql", content=b"{", headers={**lang, "Content-Type": "application/json"}),
            c.options("/v1/check", headers={**lang, "Origin": "https://other.example",
                                            "Access-Control-Request-Method": "POST"}),
        ]
    for r in answers:
        body = r.json()
        assert r.headers["content-type"] == "application/problem+json", body
        assert r.headers["content-language"] == lang["Accept-Language"], r.headers
        out[body["code"]] = body
    return out


def test_every_http_level_problem_speaks_german() -> None:
    en, de = _provoke_http_codes(EN), _provoke_http_codes(DE)
    assert set(en) == set(de) == {code for code, _, _ in _STATUS_TEXT.values()}
    for code in en:
        german(en[code]["detail"], de[code]["detail"], code)
        german(en[code]["title"], de[code]["title"], code)


def test_the_connection_level_problems_speak_german() -> None:
    """408 and 431 are written by service.protocol itself (tests/test_connections.py meets them
    on a real server); their texts and titles in both languages."""
    for code, en, de in TEXT.values():
        fmt = {"seconds": 2.5, "limit": 16384}
        german(en.format(**fmt), de.format(**fmt), code)
        assert code in messages.TITLES
        german(messages.title(code, "en"), messages.title(code, "de"), code)


def test_every_top_level_engine_problem_has_a_german_title_and_detail(http: TestClient) -> None:
    state = copy.deepcopy(EXAMPLE_STATE)
    state["hands"][0] = state["hands"][0][:-1]
    asked = {**EXAMPLE_STATE, "turn": {"seat": 0, "phase": "draw"}}
    cases = {
        "INVALID_STATE": ("/v1/check", {"state": state, "actions": [{"type": "draw"}]}),
        "UNKNOWN_VARIANT": ("/v1/deal", {"variant": "bridge"}),
        "UNKNOWN_OPTION": ("/v1/deal", {"options": {"colour": 1}}),
        "BAD_OPTION_VALUE": ("/v1/deal", {"options": {"players": 5}}),
        "SEAT_OUT_OF_RANGE": ("/v1/deal", {"dealer": 5}),
        "SIDE_COUNT_MISMATCH": ("/v1/deal", {"scores": [0, 0, 0]}),
        "ILLEGAL_ACTION": ("/v1/apply", {"state": asked, "actions": [{"type": "ask"}]}),
        "NEEDS_HIDDEN_INFO": ("/v1/score", {"state": EXAMPLE_STATE}),
        "MALFORMED_REQUEST": ("/v1/deal", {"seed": "7"}),
        "TOO_MANY_ACTIONS": ("/v1/check", {"state": EXAMPLE_STATE,
                                           "actions": [{"type": "draw"}] * 201}),
        "INVALID_TALLY": ("/v1/score/tally", {"sides": [{"red_threes": 5}, {}]}),
        "INVALID_LEDGER": ("/v1/game", {"rounds": [{"state": EXAMPLE_STATE}]}),
        # a valid state with 1,188 legal actions (MAX_LEGAL_ACTIONS: 1,000)
        "TOO_MANY_LEGAL_ACTIONS": ("/v1/legal-actions", {"state": big_hand_state()}),
        "DEAL_RULES_DIFFER": ("/v1/audit", {"variant": "german",
                                            "deals": [{"state": EXAMPLE_STATE}]}),
        "TOO_MANY_OPERATIONS": ("/v1/batch", {"operations": [{"op": "validate",
                                                              "body": {}}] * 257}),
        # 256 answers of 100 problems each: 2.2 MB, past MAX_BULK_ANSWER_BYTES
        "ANSWER_TOO_LARGE": ("/v1/batch", {"operations": [{"op": "validate", "body": {
            "state": {**EXAMPLE_STATE, "hands": [["XX"] * 100] * 4}}}] * 256}),
    }
    for code, (path, body) in cases.items():
        en = http.post(path, json=body, headers=EN).json()
        de = http.post(path, json=body, headers=DE).json()
        assert en["code"] == de["code"] == code, (code, en)
        german(en["detail"], de["detail"], code)
        german(en["title"], de["title"], code)
        assert code in messages.TITLES
    en = http.get("/v1/variants/nope", headers=EN).json()
    de = http.get("/v1/variants/nope", headers=DE).json()
    assert en["status"] == de["status"] == 404 and de["detail"] == "Unbekannte Variante 'nope'."
    german(en["detail"], de["detail"], "variant 404")
    # the summary of an invalid state counts its problems in the request's language
    summary = http.post("/v1/check", json=cases["INVALID_STATE"][1], headers=DE).json()["detail"]
    assert re.fullmatch(r"Der Spielstand ist ungültig: \d+ Probleme?\.", summary), summary
    # every title the table knows is one of these codes (no stale entries); GraphQL's
    # QUERY_TOO_COMPLEX is provoked in both languages in tests/test_graphql_cost.py
    assert set(messages.TITLES) == set(cases) | {"UNKNOWN_VARIANT", "QUERY_TOO_COMPLEX"} | {
        code for code, _, _ in _STATUS_TEXT.values()} | {"HTTP_ERROR"} | {
        code for code, _, _ in TEXT.values()}


# --- field errors of the request models ---------------------------------------------------------

_STATE = EXAMPLE_STATE


def _with(**changes: Any) -> dict[str, Any]:
    return {"state": {**_STATE, **changes}}


def _turn(**changes: Any) -> dict[str, Any]:
    return _with(turn={**_STATE["turn"], **changes})


#: (operation, body, the pydantic error type it provokes)
FIELD_ERRORS: list[tuple[str, Any, str]] = [
    ("deal", b'{"seed": 1', "json_invalid"),
    ("deal", b"[]", "model_type"),
    ("deal", {"dealer": 1, "surprise": 2}, "extra_forbidden"),
    ("validate", {}, "missing"),
    ("deal", {"dealer": "one"}, "int_type"),
    ("deal", {"dealer": 1.5}, "int_type"),
    ("deal", {"dealer": -1}, "greater_than_equal"),
    ("deal", {"dealer": 8}, "less_than_equal"),
    ("deal", {"variant": "x" * 65}, "string_too_long"),
    ("deal", {"variant": 7}, "string_type"),
    ("deal", {"options": []}, "dict_type"),
    ("deal", {"options": {str(i): 1 for i in range(33)}}, "too_long"),
    ("deal", {"scores": [0] * 9}, "too_long"),
    ("deal", {"scores": "0"}, "list_type"),
    ("deal", {"seed": "7"}, "seed"),
    ("deal", {"seed": 2**64}, "seed"),
    ("deal", {"options": {"players": [4]}}, "option_value"),
    ("validate", _turn(phase="lunch"), "literal_error"),
    ("validate", _turn(asked="maybe"), "literal_error"),
    ("validate", _turn(drawn="yes"), "bool_type"),
    ("validate", _with(hands=[["QS", "XX"], {"size": 1}, {"size": 1}, {"size": 1}]), "card_code"),
    ("validate", _with(melds=[[{"rank": "Z", "cards": ["QS"]}], []]), "rank"),
    ("validate", _with(melds=[[{"rank": "Q", "cards": []}], []]), "too_short"),
    ("validate", _with(stock=5), "cards_or_object"),
    ("validate", _with(discard=True), "cards_or_object"),
    ("validate", _with(melds=[[5], []]), "model_type"),
    ("check", {"state": _STATE, "actions": []}, "too_short"),
    ("check", {"state": _STATE, "actions": [5]}, "model_attributes_type"),
    ("check", {"state": _STATE, "actions": [{"type": "fly"}]}, "union_tag_invalid"),
    ("check", {"state": _STATE, "actions": [{"seat": 0}]}, "union_tag_not_found"),
    ("check", {"state": _STATE, "actions": [{"type": "answer"}]}, "missing"),
    ("check", {"state": _STATE, "actions": [{"type": "discard", "card": "ZZ"}]}, "card_code"),
]


def _raw(body: Any) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


def _types(op: str, body: bytes) -> set[str]:
    model = handlers.REQUESTS[op]
    assert model is not None
    try:
        model.model_validate_json(body)
    except ValidationError as exc:
        return {e["type"] for e in exc.errors(include_url=False)}
    return set()


@pytest.mark.parametrize(("op", "body", "kind"), FIELD_ERRORS,
                         ids=[f"{op}-{kind}-{i}" for i, (op, _, kind) in enumerate(FIELD_ERRORS)])
def test_every_field_error_is_german_when_asked(http: TestClient, op: str, body: Any,
                                                kind: str) -> None:
    raw = _raw(body)
    assert kind in _types(op, raw)
    en = http.post(f"/v1/{op}", content=raw, headers=EN)
    de = http.post(f"/v1/{op}", content=raw, headers=DE)
    assert en.status_code == de.status_code == 422
    assert de.headers["content-language"] == "de" and en.headers["content-language"] == "en"
    en_body, de_body = en.json(), de.json()
    assert en_body["code"] == de_body["code"] == "MALFORMED_REQUEST"
    assert [p["path"] for p in en_body["problems"]] == [p["path"] for p in de_body["problems"]]
    for p_en, p_de in zip(en_body["problems"], de_body["problems"], strict=True):
        german(p_en["message"], p_de["message"], (kind, p_en["path"]))
        assert not p_de["message"].startswith("Ungültiger Wert ("), p_de  # no fallback


def test_the_german_table_is_exactly_what_the_models_raise() -> None:
    """Every type provoked above has a German text and every German text is provoked; a sweep
    of wrong values through every field of every request finds no type beyond them."""
    provoked = {kind for _, _, kind in FIELD_ERRORS}
    assert provoked == set(messages.GERMAN)
    wrong: list[Any] = [None, True, 1.5, -1, 2**70, "", "x" * 70, "ZZ", [], [1] * 600, {},
                        {"k": 1}, {"size": -1}, {"type": "draw"}]
    seen: set[str] = set()

    def sweep(op: str, value: Any, base: dict[str, Any], path: tuple[Any, ...]) -> None:
        def put(x: Any) -> dict[str, Any]:
            body = copy.deepcopy(base)
            target: Any = body
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = x
            return body

        if path:
            for x in wrong:
                seen.update(_types(op, _raw(put(x))))
        if isinstance(value, dict):
            for key, inner in value.items():
                sweep(op, inner, base, (*path, key))
        elif isinstance(value, list) and value:
            sweep(op, value[0], base, (*path, 0))

    for op, base in (("check", {"state": EXAMPLE_STATE, "actions": EXAMPLE_ACTIONS}),
                     ("deal", {"variant": "classic", "options": {"players": 4}, "seed": 1,
                               "dealer": 0, "scores": [0, 0]})):
        sweep(op, base, base, ())
        for key in ("extra", "turn"):
            seen.update(_types(op, _raw({**base, key: 1})))
    assert seen <= set(messages.GERMAN), seen - set(messages.GERMAN)


# --- headers and the cache ----------------------------------------------------------------------


def test_every_answer_of_v1_and_graphql_says_its_language(http: TestClient) -> None:
    body = {"state": EXAMPLE_STATE}
    requests = [("GET", "/v1/variants", None), ("GET", "/v1/variants/classic", None),
                ("GET", "/v1/variants/nope", None),
                ("POST", "/v1/deal", {"seed": 1}), ("POST", "/v1/validate", body),
                ("POST", "/v1/legal-actions", body), ("POST", "/v1/score", body),
                ("POST", "/v1/check", {**body, "actions": EXAMPLE_ACTIONS}),
                ("POST", "/v1/apply", {**body, "actions": EXAMPLE_ACTIONS[:1]}),
                ("POST", "/v1/view", {**body, "seat": 0}),
                ("POST", "/v1/audit", {"deals": [{"seed": 1, "dealer": 0}]}),
                ("POST", "/v1/batch", {"operations": [{"op": "validate", "body": body}]}),
                ("POST", "/v1/check", {"state": 1}), ("POST", "/v1/nothing", {}),
                ("POST", "/graphql", {"query": "{ variants { id } }"})]
    english_only = {"/v1/variants", "/v1/variants/classic"}  # the catalogue has no German
    for lang in ("en", "de"):
        for method, path, payload in requests:
            r = http.request(method, path, json=payload, headers={"Accept-Language": lang})
            said = "en" if path in english_only else lang
            assert r.headers["content-language"] == said, (path, r.status_code, r.headers)
            assert r.headers["vary"] == "Accept-Language", (path, r.headers)
    for path in ("/healthz", "/openapi.json", "/metrics"):
        assert "content-language" not in http.get(path).headers


def test_graphql_problems_are_german_when_asked(http: TestClient) -> None:
    query = '{ deal(input: {variant: "bridge"}) { __typename ... on Problem { code detail } } }'
    en = http.post("/graphql", json={"query": query}, headers=EN).json()["data"]["deal"]
    de = http.post("/graphql", json={"query": query}, headers=DE).json()["data"]["deal"]
    assert en["code"] == de["code"] == "UNKNOWN_VARIANT"
    german(en["detail"], de["detail"], "graphql")
    r = http.post("/graphql", json={"query": 5}, headers=DE)
    assert r.status_code == 400 and r.json()["detail"] == (
        "Keine GraphQL-Anfrage: `query` muss eine Zeichenkette oder null sein.")


def test_the_in_process_cache_keeps_the_languages_apart() -> None:
    """The same bytes asked in English, then in German, then again: each language its own
    entry, never the other's words."""
    state = copy.deepcopy(EXAMPLE_STATE)
    state["hands"][0] = state["hands"][0][:-1]  # invalid: a 422 problem with messages
    raw = json.dumps({"state": state, "actions": [{"type": "draw"}]}).encode()
    with TestClient(create_app(Settings(log_level="warning")),
                    raise_server_exceptions=False) as c:
        first_en = c.post("/v1/check", content=raw, headers=EN)
        first_de = c.post("/v1/check", content=raw, headers=DE)
        again_en = c.post("/v1/check", content=raw, headers=EN)
        again_de = c.post("/v1/check", content=raw, headers=DE)
    assert [r.headers["x-cache"] for r in (first_en, first_de, again_en, again_de)] == [
        "miss", "miss", "hit", "hit"]
    assert first_en.content == again_en.content and first_de.content == again_de.content
    assert first_en.content != first_de.content
    assert again_de.headers["content-language"] == "de"
    german(again_en.json()["detail"], again_de.json()["detail"], "cached")


def test_english_titles_spell_graphql_and_http() -> None:
    """A problem's English title is its code in words, names spelt as names: a page showing
    ``title`` said "Bad graphql request"."""
    from canasta_referee.schema.messages import title

    assert [title(code, "en") for code in ("BAD_GRAPHQL_REQUEST", "BAD_HTTP_REQUEST",
                                           "HTTP_ERROR", "MALFORMED_REQUEST")] == [
        "Bad GraphQL request", "Bad HTTP request", "HTTP error", "Malformed request"]
