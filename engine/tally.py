"""Tallies and game ledgers on JSON-shaped data (docs/wire-format.md, "Tallies" and "Games").

A *tally* is a deal as a score pad beside a physical table counts it: per side the points of
its melded cards and of the cards left in its players' hands, its canastas by kind, its threes,
how it went out, and the penalties its variant has. Which fields a side has depends on the
ruleset (``side_fields``); ``read_tally`` checks a tally for everything the cards make
impossible and gives every problem with its JSON path; ``engine.scoring.score_tally`` scores
it with the code that scores states.

A *ledger* is a game so far: its rounds, each a tally or a finished state, scored in order
(``read_ledger``), with the running totals, the initial-meld minimum each side faced in each
round, and whether and by whom the game is won.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .cards import JOKER, RANKS
from .reasons import InvalidState, Problem, UnknownRules, Words, hand_of, one_of
from .rules import RuleSet, _memo
from .scoring import (
    PLURALS,
    DealScore,
    SideTally,
    Tally,
    canasta_kinds,
    combo_kind,
    going_out_kinds,
    held_kinds,
    incomplete_kinds,
    score_tally,
    tally_of,
)
from .state import OVER
from .wire import rules_of, state_from_data

Data = dict[str, Any]

#: the fields every side has, whatever the variant
COMMON: Final = ("melded_points", "hand_points", "went_out", "red_threes")
#: German plurals of the ranks' names (messages)
_GERMAN_PLURALS: Final = {
    "twos": "Zweien", "threes": "Dreien", "fours": "Vieren", "fives": "Fünfen",
    "sixes": "Sechsen", "sevens": "Siebenen", "eights": "Achten", "nines": "Neunen",
    "tens": "Zehnen", "jacks": "Buben", "queens": "Damen", "kings": "Könige", "aces": "Asse"}
#: ranks that make canastas: fours to aces (twos are wild, threes never reach seven)
_CANASTA_RANKS: Final = 11


def side_fields(rules: RuleSet) -> tuple[str, ...]:
    """The fields of one side's tally in this ruleset, in wire order."""
    fields: tuple[str, ...] = _memo(rules, "tally.side_fields", lambda: _side_fields(rules))
    return fields


def _side_fields(rules: RuleSet) -> tuple[str, ...]:
    out = list(COMMON)
    if rules.threes_by_colour:
        out.append("black_threes")
    if rules.red_three_in_hand_penalty:
        out.append("red_threes_in_hand")
    out += [f"{kind}_canastas" for kind in canasta_kinds(rules)]
    out += [f"incomplete_{kind}_melds" for kind in incomplete_kinds(rules)]
    out += [f"held_{kind}_groups" for kind in held_kinds(rules)]
    return tuple(out)


def deal_fields(rules: RuleSet) -> tuple[str, ...]:
    """The fields of a tally beside ``sides`` in this ruleset: German rules record whether
    the stock ran out (each side then loses 100)."""
    return ("stock_exhausted",) if rules.stock_exhausted_penalty else ()


def tally_to_data(rules: RuleSet, tally: Tally) -> Data:
    """A tally as ``POST /v1/score/tally`` takes it (``sides``, and ``stock_exhausted`` where
    the variant has it): every field of the ruleset, none of another."""
    sides = []
    for t in tally.sides:
        side: Data = {}
        for name in side_fields(rules):
            side[name] = _value(t, name)
        sides.append(side)
    out: Data = {"sides": sides}
    if deal_fields(rules):
        out["stock_exhausted"] = tally.stock_exhausted
    return out


def _value(t: SideTally, name: str) -> Any:
    if name in COMMON or name in ("black_threes", "red_threes_in_hand"):
        return getattr(t, name)
    if name.endswith("_canastas"):
        return t.canastas.get(name[:-len("_canastas")], 0)
    if name.startswith("incomplete_"):
        return t.incomplete.get(name[len("incomplete_"):-len("_melds")], 0)
    return t.held.get(name[len("held_"):-len("_groups")], 0)


# --- reading and checking a tally ----------------------------------------------------------------


def _words(en: str, de: str) -> Words:
    return {"en": en, "de": de}


def _plural(kind: str) -> Words:
    """A kind's rank in the plural ("pure_sevens" -> sevens / Siebenen)."""
    name = kind.removeprefix("pure_")
    return _words(name, _GERMAN_PLURALS.get(name, name))


def _and(values: list[int]) -> Words:
    shown = [str(v) for v in values]
    head = ", ".join(shown[:-1])
    return _words(f"{head} and {shown[-1]}", f"{head} und {shown[-1]}")


@dataclass
class _Side:
    """One side's counts as read (negative counts already reported, taken as 0 here)."""

    melded: int
    hand: int
    went_out: str | None
    red: int
    black: int
    red_in_hand: int
    canastas: dict[str, int]
    incomplete: dict[str, int]
    held: dict[str, int]
    bad: frozenset[str] = frozenset()  # fields already reported: no checks built on them

    def tally(self) -> SideTally:
        return SideTally(self.melded, self.hand, {k: n for k, n in self.canastas.items() if n},
                         self.red, self.black, self.red_in_hand, self.went_out,
                         {k: n for k, n in self.incomplete.items() if n},
                         {k: n for k, n in self.held.items() if n})


class _Reader:
    """Reads one tally, collecting every problem with its path."""

    def __init__(self, rules: RuleSet, prefix: str) -> None:
        self.rules = rules
        self.prefix = prefix
        self.problems: list[Problem] = []
        values = rules.card_values
        self.naturals = [values[c] for c in range(8, JOKER)]
        self.low_natural = min(self.naturals)
        self.two = min(values[c] for c in range(4))
        self.joker = values[JOKER]

    def add(self, code: str, path: str, **params: Any) -> None:
        self.problems.append(Problem(code, self.prefix + path, params))

    def count(self, data: Data, name: str, path: str) -> int:
        value = data.get(name)
        if value is None:
            return 0
        number = int(value)
        if number < 0:
            self.add("NEGATIVE_COUNT", f"{path}/{name}", field=name, value=number)
            return 0
        return number

    def points(self, data: Data, name: str, path: str) -> int:
        value = data.get(name)
        number = 0 if value is None else int(value)
        if number % 5:
            self.add("NOT_A_MULTIPLE_OF_FIVE", f"{path}/{name}", points=number)
        return number

    def side(self, i: int, data: Data) -> _Side:
        rules = self.rules
        path = f"/sides/{i}"
        allowed = side_fields(rules)
        for name, value in data.items():
            if value is not None and name not in allowed:
                self.add("FIELD_NOT_IN_VARIANT", f"{path}/{name}", field=name, variant=rules.id)
        before = len(self.problems)
        melded = self.points(data, "melded_points", path)
        if melded < 0:
            self.add("NEGATIVE_COUNT", f"{path}/melded_points", field="melded_points",
                     value=melded)
            melded = 0
        hand = self.points(data, "hand_points", path)
        if hand > 0:
            self.add("HAND_POINTS_POSITIVE", f"{path}/hand_points", points=hand)
            hand = 0
        went_out = data.get("went_out")
        kinds = going_out_kinds(rules)
        if went_out is not None and went_out not in kinds:
            self.add("GOING_OUT_NOT_IN_VARIANT", f"{path}/went_out", kind=str(went_out),
                     allowed=one_of(tuple(f"'{k}'" for k in kinds)))
            went_out = None
        bad = frozenset(p.path.rsplit("/", 1)[-1] for p in self.problems[before:])
        return _Side(
            melded, hand, went_out,
            self.count(data, "red_threes", path),
            self.count(data, "black_threes", path) if rules.threes_by_colour else 0,
            self.count(data, "red_threes_in_hand", path) if rules.red_three_in_hand_penalty else 0,
            {k: self.count(data, f"{k}_canastas", path) for k in canasta_kinds(rules)},
            {k: self.count(data, f"incomplete_{k}_melds", path) for k in incomplete_kinds(rules)},
            {k: self.count(data, f"held_{k}_groups", path) for k in held_kinds(rules)},
            bad)

    # -- what one side's counts make impossible

    def melds_of_side(self, i: int, s: _Side) -> None:
        rules = self.rules
        path = f"/sides/{i}"
        wild_kinds = [k for k in s.canastas if k not in ("natural", "mixed", "real")
                      and not k.startswith("pure_")]
        of_ranks = sum(n for k, n in s.canastas.items() if k not in wild_kinds and k != "real")
        if of_ranks > _CANASTA_RANKS:
            self.add("TOO_MANY_CANASTAS", path, detail=_words(
                f"side {i} has {of_ranks} canastas of ranks, and there are {_CANASTA_RANKS} "
                "ranks to meld, one meld of each per side",
                f"Team {i} hat {of_ranks} Canastas aus Rängen; es gibt {_CANASTA_RANKS} Ränge "
                "zum Melden, je Team eine Meldung jedes Rangs"))
        for kind in [k for k in s.canastas if k.startswith("pure_")]:
            melds = s.canastas[kind] + s.incomplete.get(kind, 0)
            if melds > 1:
                name = _plural(kind)
                self.add("TOO_MANY_MELDS", path, detail=_words(
                    f"side {i} has {melds} melds of {name['en']}; a side has one meld of a rank",
                    f"Team {i} hat {melds} Meldungen aus {name['de']}; ein Team hat eine "
                    "Meldung je Rang"))
        wild_melds = sum(s.canastas[k] for k in wild_kinds) + s.incomplete.get("wild", 0) \
            + s.incomplete.get("four_jokers", 0)
        if wild_melds > 1:
            self.add("TOO_MANY_MELDS", path, detail=_words(
                f"side {i} has {wild_melds} melds of wild cards; a side has one at most",
                f"Team {i} hat {wild_melds} Meldungen aus wilden Karten; ein Team hat "
                "höchstens eine"))
        seats = len(rules.seats_of(i))
        for kind, groups in s.held.items():
            if groups > seats:
                name = _plural(kind)
                self.add("TOO_MANY_HELD_GROUPS", f"{path}/held_{kind}_groups", detail=_words(
                    f"side {i} has {seats} player(s), each holding one group of {name['en']} "
                    f"at most, not {groups}",
                    f"Team {i} hat {seats} Spieler, jeder hält höchstens eine Gruppe aus "
                    f"{name['de']}, nicht {groups}"))
        held_minimum = sum(s.held.get(PLURALS[rank], 0) * count * rules.card_values[rank * 4]
                           for rank, count, _ in rules.held_group_penalty)
        if held_minimum > -s.hand and "hand_points" not in s.bad:
            self.add("HELD_GROUPS_NEED_HAND_POINTS", f"{path}/hand_points",
                     minimum=-held_minimum, points=s.hand)
        minimum = self.meld_minimum(s)
        if s.melded < minimum and "melded_points" not in s.bad:
            self.add("MELDED_POINTS_TOO_LOW", f"{path}/melded_points", side=i,
                     minimum=minimum, points=s.melded)
        if s.went_out is not None:
            canastas = sum(s.canastas.values())
            if canastas < rules.canastas_to_go_out:
                self.add("GOING_OUT_NEEDS_CANASTAS", f"{path}/went_out", side=i,
                         needed=rules.canastas_to_go_out, count=canastas)
            if seats == 1:
                # the field that says cards were left in the hand
                left = ("hand_points" if s.hand else "red_threes_in_hand" if s.red_in_hand
                        else next((f"held_{k}_groups" for k, n in s.held.items() if n), None))
                if left is not None:
                    self.add("HAND_AFTER_GOING_OUT", f"{path}/{left}", side=i)

    def meld_minimum(self, s: _Side) -> int:
        """The least the side's canastas and penalised incomplete melds can be worth."""
        rules = self.rules
        size = rules.canasta_size
        low, two, joker = self.low_natural, self.two, self.joker
        total = 0
        for kind, n in s.canastas.items():
            if kind == "natural":
                worth = size * low
            elif kind == "mixed":
                worth = (size - 1) * low + two
            elif kind == "real":
                worth = self.real_minimum()
            elif kind.startswith("pure_"):
                worth = size * rules.card_values[RANKS.index(_rank_letter(kind)) * 4]
            else:  # wild canastas: by their cards where the kind names them
                worth = size * two
                for twos, jokers, _ in rules.wild_canasta_bonuses:
                    if kind == combo_kind(twos, jokers):
                        worth = twos * two + jokers * joker
            total += n * worth
        for kind, n in s.incomplete.items():
            if kind == "wild":
                worth = 3 * two
            elif kind == "four_jokers":
                worth = 4 * joker
            else:
                worth = 3 * rules.card_values[RANKS.index(_rank_letter(kind)) * 4]
            total += n * worth
        return total

    def real_minimum(self) -> int:
        """The cheapest suit sequence of seven, fours up to aces."""
        values = self.rules.card_values
        return min(sum(values[r * 4] for r in range(start, start + 7)) for start in range(2, 7))

    # -- what the counts of all sides make impossible

    def deck(self, sides: list[_Side]) -> None:
        rules = self.rules
        packs = rules.packs
        cards = rules.deck_size
        for colour, count in ((_words("red", "rote"), sum(s.red + s.red_in_hand for s in sides)),
                              (_words("black", "schwarze"), sum(s.black for s in sides))):
            if count > 2 * packs:
                self.add("TOO_MANY_THREES", "/sides", count=count, colour=colour,
                         copies=2 * packs)
        copies = 4 * packs  # naturals of one rank
        natural = sum(n for s in sides for k, n in s.canastas.items()
                      if k == "natural" or k.startswith("pure_"))
        cap = _CANASTA_RANKS * (copies // rules.canasta_size)
        if natural > cap:
            self.add("TOO_MANY_CANASTAS", "/sides", detail=_words(
                f"{natural} natural canastas in all; {cards} cards allow at most {cap}",
                f"{natural} reine Canastas insgesamt; {cards} Karten erlauben höchstens {cap}"))
        for kind in {k for s in sides for k in s.canastas if k.startswith("pure_")}:
            count = sum(s.canastas.get(kind, 0) for s in sides)
            if count > copies // rules.canasta_size:
                name = _plural(kind)
                self.add("TOO_MANY_CANASTAS", "/sides", detail=_words(
                    f"{count} canastas of {name['en']} in all; {cards} cards allow "
                    f"{copies // rules.canasta_size}",
                    f"{count} Canastas aus {name['de']} insgesamt; {cards} Karten erlauben "
                    f"{copies // rules.canasta_size}"))
        mixed = sum(s.canastas.get("mixed", 0) for s in sides)
        need = self.mixed_naturals()
        free = max(0, _CANASTA_RANKS - natural)
        mixed_cap = free * min(rules.sides, copies // need) + min(natural, _CANASTA_RANKS) * min(
            rules.sides - 1, (copies - rules.canasta_size) // need)
        if mixed > mixed_cap:
            self.add("TOO_MANY_CANASTAS", "/sides", detail=_words(
                f"{mixed} mixed canastas beside {natural} natural ones; {cards} cards allow at "
                f"most {mixed_cap}",
                f"{mixed} gemischte Canastas neben {natural} reinen; {cards} Karten erlauben "
                f"höchstens {mixed_cap}"))
        real = sum(s.canastas.get("real", 0) for s in sides)
        if real > 4 * packs:
            self.add("TOO_MANY_CANASTAS", "/sides", detail=_words(
                f"{real} Canastra Reals in all; {cards} cards make at most {4 * packs}",
                f"{real} Canastras Reais insgesamt; {cards} Karten ergeben höchstens {4 * packs}"))
        self.wild_cards(sides)
        self.held_groups(sides)
        points = sum(s.melded - s.hand for s in sides)
        worth: int = _memo(rules, "tally.deck_worth", lambda: sum(
            rules.card_values[c] * rules.copies[c] for c in range(JOKER + 1)))
        if points > worth:
            self.add("POINTS_EXCEED_DECK", "/sides", points=points, deck=worth)
        out = [i for i, s in enumerate(sides) if s.went_out is not None]
        if len(out) > 1:
            self.add("TWO_SIDES_WENT_OUT", "/sides", sides=_and(out))

    def mixed_naturals(self) -> int:
        """The fewest natural cards a mixed canasta can hold."""
        rules = self.rules
        size = rules.canasta_size
        majority = size // 2 + 1 if rules.natural_majority else 0
        return max(1, rules.min_naturals, size - rules.max_wilds, majority)

    def wild_cards(self, sides: list[_Side]) -> None:
        rules = self.rules
        twos, jokers = 4 * rules.packs, rules.jokers
        size = rules.canasta_size
        need_wild = need_twos = need_jokers = 0
        for s in sides:
            for kind, n in s.canastas.items():
                if kind == "mixed":
                    need_wild += n
                elif kind not in ("natural", "real") and not kind.startswith("pure_"):
                    need_wild += n * size
                    for t, j, _ in rules.wild_canasta_bonuses:
                        if kind == combo_kind(t, j):
                            need_twos += n * t
                            need_jokers += n * j
            need_wild += 3 * s.incomplete.get("wild", 0) + 4 * s.incomplete.get("four_jokers", 0)
            need_jokers += 4 * s.incomplete.get("four_jokers", 0)
        cards = rules.deck_size
        for need, have, what in ((need_wild, twos + jokers, _words("wild cards", "wilde Karten")),
                                 (need_twos, twos, _words("twos", "Zweien")),
                                 (need_jokers, jokers, _words("jokers", "Joker"))):
            if need > have:
                self.add("TOO_MANY_CANASTAS", "/sides", detail=_words(
                    f"the melds need at least {need} {what['en']}; {cards} cards have {have}",
                    f"die Meldungen brauchen mindestens {need} {what['de']}; {cards} Karten "
                    f"haben {have}"))

    def held_groups(self, sides: list[_Side]) -> None:
        rules = self.rules
        for rank, count, _ in rules.held_group_penalty:
            kind = PLURALS[rank]
            groups = sum(s.held.get(kind, 0) for s in sides)
            cap = 4 * rules.packs // count
            if groups > cap:
                name = _plural(kind)
                self.add("TOO_MANY_HELD_GROUPS", "/sides", detail=_words(
                    f"{groups} groups of {count} or more {name['en']} in all; the deck makes "
                    f"{cap}",
                    f"{groups} Gruppen aus {count} oder mehr {name['de']} insgesamt; das Spiel "
                    f"ergibt {cap}"))

    def stock(self, data: Data, sides: list[_Side]) -> bool:
        """Whether the deal ended with the stock used up (German rules: each side loses 100);
        null: nobody went out."""
        value = data.get("stock_exhausted")
        if not deal_fields(self.rules):
            if value is not None:
                self.add("FIELD_NOT_IN_VARIANT", "/stock_exhausted", field="stock_exhausted",
                         variant=self.rules.id)
            return False
        out = [i for i, s in enumerate(sides) if s.went_out is not None]
        if value is None:
            return not out
        if value and out:
            self.add("STOCK_EXHAUSTED_MISMATCH", "/stock_exhausted", detail=_words(
                f"side {out[0]} went out, so the stock did not end the deal",
                f"Team {out[0]} hat ausgemacht, also hat nicht der Stapel die Runde beendet"))
        elif not value and not out:
            self.add("STOCK_EXHAUSTED_MISMATCH", "/stock_exhausted", detail=_words(
                "nobody went out, so the stock ended the deal",
                "niemand hat ausgemacht, also hat der Stapel die Runde beendet"))
        return bool(value) and not out


def _rank_letter(kind: str) -> str:
    name = kind.removeprefix("pure_")
    for rank, plural in PLURALS.items():
        if plural == name:
            return RANKS[rank]
    raise ValueError(kind)


def read_tally(rules: RuleSet, data: Data, prefix: str = "") -> tuple[Tally | None, list[Problem]]:
    """The tally of ``data`` (``sides``, ``stock_exhausted``) under ``rules``, or None with
    every problem, each with its JSON path (under ``prefix``)."""
    reader = _Reader(rules, prefix)
    given = data.get("sides") or []
    if len(given) != rules.sides:
        reader.add("SIDE_COUNT_MISMATCH", "/sides", expected=rules.sides, got=len(given))
    sides = [reader.side(i, s) for i, s in enumerate(given)]
    for i, s in enumerate(sides):
        reader.melds_of_side(i, s)
    reader.deck(sides)
    exhausted = reader.stock(data, sides)
    if reader.problems:
        return None, reader.problems
    return Tally(tuple(s.tally() for s in sides), exhausted), []


# --- the game ledger ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Round:
    """One scored round of a ledger: the minimums the sides faced and the deal's score."""

    index: int
    minimums: tuple[int, ...]
    score: DealScore


@dataclass(frozen=True)
class Ledger:
    rounds: tuple[Round, ...]
    scores: tuple[int, ...]
    game_over: bool
    winner: int | None
    next_minimums: tuple[int, ...]


def _prefixed(problems: list[Problem], prefix: str) -> list[Problem]:
    return [Problem(p.code, prefix + p.path, p.params) for p in problems]


def _state_round(rules: RuleSet, data: Data, i: int) -> tuple[Tally | None, tuple[int, ...] | None,
                                                             list[Problem]]:
    """A round given as a finished state: its tally and its game scores before the deal."""
    at = f"/rounds/{i}/state"
    try:
        theirs = rules_of(data)
    except UnknownRules as exc:
        return None, None, [Problem(exc.refusal.code, at + exc.path, exc.refusal.params)]
    if theirs.fingerprint != rules.fingerprint:
        where = "/variant" if theirs.id != rules.id else "/options"
        return None, None, [Problem("ROUND_RULES_MISMATCH", at + where, {
            "round": i, "variant": theirs.id, "fingerprint": theirs.fingerprint,
            "game": rules.id, "game_fingerprint": rules.fingerprint})]
    try:
        state = state_from_data(data, rules)
    except InvalidState as exc:
        return None, None, _prefixed(exc.problems, at)
    problems: list[Problem] = []
    if state.turn.phase != OVER:
        problems.append(Problem("ROUND_NOT_OVER", at + "/turn/phase",
                                {"round": i, "phase": state.turn.phase}))
    for seat, hand in enumerate(state.hands):
        if hand is None and state.hand_sizes[seat]:
            problems.append(Problem("NEEDS_HIDDEN_INFO", f"{at}/hands/{seat}",
                                    {"what": hand_of(seat)}))
    if problems:
        return None, state.scores, problems
    return tally_of(state), state.scores, []


def read_ledger(rules: RuleSet, rounds: list[Data]) -> tuple[Ledger | None, list[Problem]]:
    """The game of ``rounds`` (each ``{"tally": ...}`` or ``{"state": ...}``) under ``rules``,
    or None with every problem: each round's own, a state whose game scores are not the
    running totals, a round after the game was won."""
    problems: list[Problem] = []
    totals: tuple[int, ...] | None = tuple(0 for _ in range(rules.sides))
    scored: list[Round] = []
    won: tuple[int, int] | None = None  # (round, winner)
    for i, entry in enumerate(rounds):
        before: tuple[int, ...] | None = None
        if entry.get("state") is not None:
            tally, before, found = _state_round(rules, entry["state"], i)
        else:
            tally, found = read_tally(rules, entry.get("tally") or {}, f"/rounds/{i}/tally")
        if won is not None:
            found.append(Problem("ROUND_AFTER_GAME_OVER", f"/rounds/{i}",
                                 {"round": i, "over": won[0], "winner": won[1]}))
        elif totals is not None and before is not None and before != totals:
            found.append(Problem("ROUND_SCORES_MISMATCH", f"/rounds/{i}/state/scores", {
                "round": i, "given": list(before), "expected": list(totals)}))
        if found or tally is None or totals is None:
            problems += found
            totals = None  # the running totals are unknown from here on
            continue
        score = score_tally(rules, totals, tally)
        scored.append(Round(i, tuple(rules.initial_minimum(t) for t in totals), score))
        totals = score.scores
        if score.game_over and score.winner is not None:
            won = (i, score.winner)
    if problems or totals is None:
        return None, problems
    return Ledger(tuple(scored), totals, won is not None, won[1] if won else None,
                  tuple(rules.initial_minimum(t) for t in totals)), []
