"""States and actions from and to plain JSON-shaped data (docs/wire-format.md), stdlib only.

``validate_data`` reports every problem of a state with its JSON path; ``state_from_data``
builds the immutable ``State`` of a valid one; ``state_to_data`` writes canonical output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any, Final

from .cards import (
    _CARD_CODES,
    _CODE_TO_CARD,
    JOKER,
    N_CARDS,
    RANKS,
    REAL,
    THREE,
    WILD_RANK,
    Counts,
    card_code,
    cards_of,
    copies_over,
    counts_of,
    is_black_three,
    is_real_sequence,
    is_red_three,
    is_wild,
    parse_card,
    parse_rank,
    rank_code,
)
from .legal import LegalActions
from .play import initial_met, initial_points, meld_shape_refusal
from .reasons import InvalidState, Problem, Refusal, UnknownRules, Words
from .rules import RuleSet
from .state import (
    ANSWER,
    DRAW,
    OVER,
    PLAY,
    Action,
    Meld,
    Pile,
    State,
    Turn,
    meld_of,
    new_tuple,
    pile_of,
)
from .variants import rules_for

Data = dict[str, Any]
Seen = tuple[str, int, str, tuple[int, ...]]  # cards seen: list path, index or -1, tail, cards


#: whether this module runs compiled with mypyc (its ``__file__`` is then the extension's)
_COMPILED: Final = not str(globals().get("__file__", "")).endswith(".py")


def _cards(value: Any) -> tuple[int, ...]:
    """Card codes as card numbers; a tuple of numbers is taken as it is (schema/_read.c reads
    canonical requests so)."""
    if type(value) is tuple and (not value or type(value[0]) is int):
        numbers: tuple[int, ...] = value
        return numbers
    # keys Any: a key of another type is a KeyError here; values Any: compiled, the numbers
    # go from the table into the tuple as they are, not unboxed and boxed again
    table: dict[Any, Any] = _CODE_TO_CARD
    try:  # canonical codes, the common case
        if _COMPILED and type(value) is list:  # a typed loop: the fastest way compiled
            codes: list[Any] = value
            return tuple([table[c] for c in codes])
        if len(value) > 1:  # in Python itemgetter, which looks up many keys in one C call
            cards: tuple[int, ...] = itemgetter(*value)(table)
            return cards
        return tuple(map(table.__getitem__, value))
    except KeyError:
        return tuple(parse_card(c) for c in value)


def _numbered(melds: list[Meld]) -> tuple[Meld, ...]:
    """A side's melds by rank; suit sequences ("real") numbered REAL - k + 1 ... REAL in order,
    as the engine numbers them when they are laid."""
    ordered = sorted(melds)
    if not ordered or ordered[0].rank > REAL:  # no suit sequences (they sort first)
        return tuple(ordered)
    reals = [i for i, m in enumerate(melds) if m.rank <= REAL]
    melds = list(melds)
    for k, i in enumerate(reals):
        melds[i] = melds[i]._replace(rank=REAL - (len(reals) - 1) + k)
    return tuple(sorted(melds))  # by rank: a side's ranks differ once sequences are numbered


_SEEN: dict[tuple[str, tuple[tuple[str, Any], ...], tuple[type, ...]], RuleSet] = {}
#: per variant id as written: the options of the last state that named it (names and values in
#: the order written), the types of their values, and their ruleset
_LAST: dict[str, tuple[tuple[tuple[str, Any], ...], tuple[type, ...], RuleSet]] = {}


def rules_of(data: Data) -> RuleSet:
    """The ruleset a state (or a deal request) names; raises ``UnknownRules``. Every request
    asks again: the exact same words (types too, as True == 1) are remembered here, in the
    compiled engine, before ``rules_for`` normalises them. The options of the last state of
    each variant are compared as they are, without building a key (a client's states name
    the same ruleset, one request after another)."""
    variant = str(data.get("variant", "classic"))
    given = data.get("options") or {}
    options: dict[str, Any] = given if type(given) is dict else dict(given)
    items = tuple(options.items())
    types = tuple([type(v) for v in options.values()])
    last = _LAST.get(variant)
    # the same names in the same order, equal values of the same types: the same words (a dict's
    # equality alone would take {"a": False, "b": 0} for {"b": False, "a": 0})
    if last is not None and last[0] == items and last[1] == types:
        return last[2]
    fast = (variant, items, types)
    try:
        hit = _SEEN.get(fast)
    except TypeError:  # an unhashable option value: rules_for refuses it
        hit = None
    if hit is None:
        hit = rules_for(variant, options)
        if len(_SEEN) > 1024:
            _SEEN.clear()
        _SEEN[fast] = hit
    if variant in _LAST or len(_LAST) < 64:  # the ids and aliases of the variants, in practice
        _LAST[variant] = (items, types, hit)
    return hit


# ---------------------------------------------------------------- validation


class _Read:
    """What one pass over a state's data found: its problems and, once there are none, every
    part parsed for ``state_from_data``."""

    def __init__(self, rules: RuleSet | None, problems: list[Problem]) -> None:
        self.rules = rules
        self.problems = problems
        self.hands: list[Counts | None] = []
        self.sizes: list[int] = []
        self.melds: list[tuple[Meld, ...]] = []
        self.pending: list[Meld] = []
        self.bonus: list[tuple[int, ...]] = []
        self.pile: tuple[int, ...] | None = None
        self.stock: tuple[int, ...] | None = None
        self.held: tuple[int, ...] | None = None
        self.set_aside: tuple[int, ...] = ()
        self.started: tuple[int, ...] = ()  # the ranks the seat at turn started this turn


def validate_data(data: Data, rules: RuleSet | None = None) -> list[Problem]:
    """Every problem of a structurally valid state, each with code and JSON path; ``rules``:
    the ruleset the state names (``rules_of(data)``), when the caller has it already."""
    return _read(data, rules).problems


def _read(data: Data, rules: RuleSet | None) -> _Read:
    if rules is None:
        try:
            rules = rules_of(data)
        except UnknownRules as exc:
            return _Read(None, [Problem(exc.refusal.code, exc.path, exc.refusal.params)])
        except (ValueError, TypeError):
            return _Read(None, [Problem("UNKNOWN_OPTION", "/options", {"option": "?"})])
    read = _Read(rules, [])
    problems = read.problems
    add = problems.append
    # locals are typed (the data is structurally valid): the mypyc build then uses dict, list
    # and int operations directly instead of generic object calls
    n: int = rules.players
    k: int = rules.sides
    turn: Data = data.get("turn") or {}
    hands: list[Any] = data.get("hands") or []
    melds_data: list[list[Data]] = data.get("melds") or []
    bonus_data: list[Any] = data.get("bonus_cards") or []  # lists of codes or tuples of numbers
    scores: list[int] = data.get("scores") or []
    for key, got, expected in (("hands", len(hands), n), ("scores", len(scores), k),
                               ("melds", len(melds_data), k), ("bonus_cards", len(bonus_data), k)):
        if got != expected:
            code = "SEAT_COUNT_MISMATCH" if key == "hands" else "SIDE_COUNT_MISMATCH"
            add(Problem(code, f"/{key}", {"expected": expected, "got": got}))
    if problems:
        return read
    seat: int = turn.get("seat", 0)
    went_out: int | None = turn.get("went_out")
    for path, at in (("/dealer", data.get("dealer", 0)), ("/turn/seat", seat),
                     ("/turn/went_out", went_out)):
        if at is not None and not 0 <= at < n:
            add(Problem("SEAT_OUT_OF_RANGE", path, {"seat": at, "players": n}))
    for key in ("asked_this_deal", "melded", "played"):
        listed: list[int] = turn.get(key) or []
        for i, at in enumerate(listed):
            if not 0 <= at < n:
                add(Problem("SEAT_OUT_OF_RANGE", f"/turn/{key}/{i}", {"seat": at, "players": n}))
    if problems:
        return read
    phase: str = turn.get("phase", DRAW)
    in_hand = "THREE_IN_HAND" if rules.all_threes_bonus else "RED_THREE_IN_HAND"
    in_pile = "THREE_IN_PILE" if rules.all_threes_bonus else "RED_THREE_IN_PILE"
    bonus_cards = rules.bonus_cards
    threes = tuple(bonus_cards)  # looked up in a hand's counts, not searched for in its cards
    side = rules.side_of(seat)
    started = read.started = tuple([parse_rank(r) for r in turn.get("started") or []])
    seen: list[Seen] = []  # every card we can see, by where it lies (paths only for problems)
    total = 0
    size: int
    for i, hand in enumerate(hands):
        if isinstance(hand, dict):
            size = hand["size"]
            read.hands.append(None)
        else:
            cards = _cards(hand)
            size = len(cards)
            seen.append(("/hands", i, "", cards))
            counts = counts_of(cards)
            read.hands.append(counts)
            if phase != OVER and any([counts[c] for c in threes]):
                for j, card in enumerate(cards):  # at the end a three in the hand is scored
                    if card in bonus_cards:
                        add(Problem(in_hand, f"/hands/{i}/{j}"))
        read.sizes.append(size)
        total += size
        if size == 0 and phase != OVER:
            add(Problem("IMPOSSIBLE_SIZE", f"/hands/{i}",
                        {"what": {"en": f"the hand of seat {i} before the deal ends",
                                  "de": f"Die Hand von Sitz {i} vor dem Ende der Runde"},
                         "size": 0}))
        if size == 0 and phase == OVER and went_out != i:
            add(Problem("IMPOSSIBLE_SIZE", f"/hands/{i}",
                        {"what": {"en": f"the hand of seat {i}, who did not go out",
                                  "de": f"Die Hand von Sitz {i}, der nicht ausgemacht hat,"},
                         "size": 0}))
        if size and phase == OVER and went_out == i:
            add(Problem("PHASE_INCONSISTENT", f"/hands/{i}",
                        {"detail": {"en": "the seat that went out still holds cards",
                                    "de": "der Sitz, der ausgemacht hat, hält noch Karten"}}))
    minimum = rules.initial_minimum(scores[side])
    for s, melds in enumerate(melds_data):
        laid = _check_melds(rules, melds, "/melds", s, seen, add, black_ok=(
            (phase == PLAY and s == side) or (phase == OVER and went_out is not None
                                              and rules.side_of(went_out) == s)))
        read.melds.append(_numbered(laid))
        for meld in laid:
            total += len(meld.cards)
    pending = _check_melds(rules, turn.get("pending") or [], "/turn/pending", -1, seen, add,
                           black_ok=phase == PLAY)
    read.pending = pending
    for meld in pending:
        total += len(meld.cards)
    if pending:
        pending_melds = {m.rank: m for m in pending}
        pile_rank = started[0] if turn.get("took_pile") and started else None
        points = initial_points(rules, pending_melds, pile_rank)
        if phase not in (PLAY, ANSWER) or melds_data[side]:  # answer: asked in play (Canastra)
            add(Problem("PHASE_INCONSISTENT", "/turn/pending",
                        {"detail": {"en": "pending melds belong to the play phase (or its question "
                                          "'may I go out?') of a side that has not melded yet",
                                    "de": "vorläufige Meldungen gehören in die Phase play (oder "
                                          "ihre Frage „Darf ich ausmachen?“) eines Teams, das "
                                          "noch nicht gemeldet hat"}}))
        elif initial_met(rules, minimum, pending_melds, pile_rank):
            add(Problem("PHASE_INCONSISTENT", "/turn/pending",
                        {"detail": {"en": f"pending melds counting {points} already meet the "
                                          f"minimum {minimum}; they belong on the table",
                                    "de": f"vorläufige Meldungen mit {points} Punkten erreichen "
                                          f"schon das Minimum {minimum}; sie gehören auf den "
                                          "Tisch"}}))
    for s, laid_out in enumerate(bonus_data):
        cards = _cards(laid_out)
        seen.append(("/bonus_cards", s, "", cards))
        read.bonus.append(cards)
        for j, card in enumerate(cards):
            if card not in bonus_cards:
                add(Problem("NOT_A_BONUS_CARD", f"/bonus_cards/{s}/{j}", {"card": card_code(card)}))
        total += len(cards)
    pile: Any = data["discard"]
    if isinstance(pile, dict):
        total += pile["size"]
        top = pile.get("top")
        if (top is None) != (pile["size"] == 0):
            add(Problem("PILE_VIEW_INCONSISTENT", "/discard",
                        {"detail": {"en": "a top card goes with a non-empty pile",
                                    "de": "eine oberste Karte gehört zu einem nicht leeren "
                                          "Stapel"}}))
        if _pile_view_top(rules, pile, top, seen, add) in bonus_cards:
            add(Problem(in_pile, "/discard/top"))
    else:
        cards = _cards(pile)
        total += len(cards)
        read.pile = cards
        seen.append(("/discard", -1, "", cards))
        if _has_bonus_card(rules, cards):
            plain_below = False
            for j, card in enumerate(cards):
                if card in bonus_cards and (plain_below or j == len(cards) - 1
                                            or rules.upcard != "cover"):
                    add(Problem(in_pile, f"/discard/{j}"))
                if not (is_wild(card) or is_red_three(card)):
                    plain_below = True
    aside = _cards(data.get("set_aside") or [])
    read.set_aside = aside
    seen.append(("/set_aside", -1, "", aside))
    total += len(aside)
    stock: Any = data["stock"]
    if isinstance(stock, dict):
        total += stock["size"]
    else:
        read.stock = _cards(stock)
        total += len(read.stock)
        seen.append(("/stock", -1, "", read.stock))
    held: Any = turn.get("held") or []
    held_size: int
    if isinstance(held, dict):
        held_size = held["size"]
        total += held_size
    else:
        cards = _cards(held)
        read.held = cards
        total += len(cards)
        held_size = len(cards)
        seen.append(("/turn/held", -1, "", cards))
        for j, card in enumerate(cards):
            if card in bonus_cards:
                add(Problem(in_hand, f"/turn/held/{j}"))
    if held_size and not (pending and turn.get("took_pile")):
        add(Problem("PHASE_INCONSISTENT", "/turn/held",
                    {"detail": {"en": "held pile cards need a pile taken for pending melds",
                                "de": "zurückgehaltene Stapelkarten setzen einen für vorläufige "
                                      "Meldungen genommenen Stapel voraus"}}))
    if _too_many_copies(rules, seen):
        tally = [0] * N_CARDS
        for where, index, tail, cards in seen:
            for j, card in enumerate(cards):
                tally[card] = tally[card] + 1
                if tally[card] == rules.deck_copies(card) + 1:
                    at = _at(where, index, tail)  # (a pile view's top is one card, no list)
                    add(Problem("TOO_MANY_COPIES", at if where == "/discard/top" else f"{at}/{j}", {
                        "card": card_code(card), "count": tally[card],
                        "copies": rules.deck_copies(card)}))
    if total != rules.deck_size:
        add(Problem("CARD_COUNT_MISMATCH", "", {"count": total, "deck": rules.deck_size}))
    _check_turn(rules, data, turn, add)
    _check_history(rules, data, turn, read, add)
    return read


def _pile_view_top(rules: RuleSet, pile: Data, top: str | None, seen: list[Seen],
                   add: Any) -> int | None:
    """A pile seen as ``{"top", "size", "frozen"}``: its top card (returned) counts against
    the deck, and ``frozen`` (a card that freezes it for everybody lies in it) agrees with the
    rules and with what can be seen: a wild card or, where it freezes, a black three on top;
    nothing in an empty pile; no card but the top one in a pile of one."""
    frozen = bool(pile.get("frozen"))
    card = parse_card(top) if top is not None else None
    if card is not None:
        seen.append(("/discard/top", -1, "", (card,)))
    freezes = card is not None and ((is_wild(card) and rules.freeze_on_wild) or (
        is_black_three(card) and rules.freeze_on_black_three))
    detail: Words | None = None
    if frozen and not (rules.freeze_on_wild or rules.freeze_on_red_three
                       or rules.freeze_on_black_three or rules.pile_always_frozen):
        detail = {"en": "no card freezes the pile in these rules",
                  "de": "keine Karte friert den Stapel nach diesen Regeln ein"}
    elif freezes and not frozen:
        assert card is not None
        detail = {"en": f"{card_code(card)} on top freezes the pile",
                  "de": f"{card_code(card)} oben friert den Stapel ein"}
    elif frozen and pile["size"] == 0:
        detail = {"en": "an empty pile is not frozen", "de": "ein leerer Stapel ist nicht "
                                                             "eingefroren"}
    elif frozen and pile["size"] == 1 and not freezes and not rules.pile_always_frozen:
        detail = {"en": "a pile of one card that does not freeze it is not frozen",
                  "de": "ein Stapel aus einer Karte, die ihn nicht einfriert, ist nicht "
                        "eingefroren"}
    if detail is not None:
        add(Problem("PILE_VIEW_INCONSISTENT", "/discard/frozen", {"detail": detail}))
    return card


def _has_bonus_card(rules: RuleSet, cards: tuple[int, ...]) -> bool:
    """Whether a bonus card (a three, ``RuleSet.is_bonus_card``) is among ``cards``: compiled,
    an int compare a card, where ``set.isdisjoint`` hashes each."""
    for card in cards:  # noqa: SIM110  # not any(): compiled, its generator costs more
        if card >> 2 == THREE and rules.is_bonus_card(card):
            return True
    return False


def _check_history(rules: RuleSet, data: Data, turn: Data, read: _Read, add: Any) -> None:
    """The deal's history the turn records, against the table, as the engine keeps it.
    ``turn.melded`` (seats that melded in an earlier turn; absent, it is made from the table):
    a listed seat's side has melds, and a side with melds from before this turn has a listed
    seat. With a first-turn bonus (German ``hand_canasta_low``), ``turn.played`` (seats that
    finished a turn): every seat, or those from the dealer's left up to the seat at turn, and
    among them every listed seat and a seat of each side with melds from before this turn.
    Concealed going out and the German bonuses are judged by these lists (pagat "Going Out";
    ASS Altenburger p. 4, Blatt-Ausmachen and Handcanasta, and its house rule of 300 at once)."""
    melded: list[int] | None = turn.get("melded")
    table = read.melds
    if melded is not None:
        listed = [False] * len(table)
        for i, at in enumerate(melded):
            side = rules.side_of(at)
            listed[side] = True
            if not table[side]:
                add(_history("/turn/melded/" + str(i),
                             f"seat {at} is listed as having melded, but its side has no melds",
                             f"Sitz {at} steht als gemeldet, aber sein Team hat keine Meldungen"))
        for side, melds in enumerate(table):  # the usual case: every side with melds listed
            if melds and not listed[side] and _laid_before(rules, turn, read.started, side,
                                                           melds):
                add(_history("/turn/melded",
                             f"side {side} has melds from an earlier turn, but none of its seats "
                             "is listed as having melded",
                             f"Team {side} hat Meldungen aus einem früheren Zug, aber keiner "
                             "seiner Sitze steht als gemeldet"))
    if rules.first_turn_bonus:
        _check_played(rules, data, turn, read, melded, add)


def _laid_before(rules: RuleSet, turn: Data, started: tuple[int, ...], side: int,
                 melds: tuple[Meld, ...]) -> bool:
    """Whether some of ``side``'s melds were on the table before this turn: not the ranks the
    seat at turn started (``turn.started``), and, once the deal is over, none of the side that
    went out (its last turn may have laid them all, ``started`` or not)."""
    seat: int = turn.get("seat", 0)
    if side != rules.side_of(seat):
        return True
    if turn.get("phase", DRAW) == OVER:
        return False
    for m in melds:  # noqa: SIM110  # not any(): compiled, its generator costs 1k instructions
        if not (m.rank in started or (m.rank <= REAL and REAL in started)):
            return True
    return False


def _check_played(rules: RuleSet, data: Data, turn: Data, read: _Read, melded: list[int] | None,
                  add: Any) -> None:
    """``turn.played`` where a first-turn bonus reads it: every seat, or those from the dealer's
    left up to the seat at turn; among them every seat of ``melded`` and a seat of each side
    with melds from before this turn."""
    n = rules.players
    seat: int = turn.get("seat", 0)
    played = sorted(set(turn.get("played") or []))
    first = (data.get("dealer", 0) + 1) % n
    so_far = sorted((first + i) % n for i in range((seat - first) % n))
    if played != so_far and len(played) != n:
        add(_history("/turn/played",
                     f"turns go round from seat {first}: before seat {seat}'s turn seats "
                     f"{so_far} have finished one, or every seat has",
                     f"die Züge gehen reihum ab Sitz {first}: vor dem Zug von Sitz {seat} "
                     f"haben die Sitze {so_far} einen beendet, oder alle"))
        return
    over = turn.get("phase", DRAW) == OVER
    for i, at in enumerate(melded or []):
        if at not in played and not (over and at == seat):
            add(_history("/turn/melded/" + str(i),
                         f"seat {at} melded in an earlier turn, so it has finished a turn, but "
                         "played does not list it",
                         f"Sitz {at} hat in einem früheren Zug gemeldet, also einen Zug beendet, "
                         "aber played führt ihn nicht"))
    for side, melds in enumerate(read.melds):
        if (melds and not any(rules.side_of(at) == side for at in played)
                and _laid_before(rules, turn, read.started, side, melds)):
            add(_history("/turn/played",
                         f"side {side} has melds from an earlier turn, but none of its seats "
                         "has finished a turn",
                         f"Team {side} hat Meldungen aus einem früheren Zug, aber keiner seiner "
                         "Sitze hat einen Zug beendet"))


def _history(path: str, en: str, de: str) -> Problem:
    return Problem("PHASE_INCONSISTENT", path, {"detail": {"en": en, "de": de}})


def _too_many_copies(rules: RuleSet, seen: list[Seen]) -> bool:
    """Whether some card shows more often than the deck holds it: counted in C where the
    service installed its check (``cards.count_with``); else, with up to three packs, the
    cards seen once, twice and three times are three bit sets (compiled: a few int operations
    per card, where a list of counts costs a read, a write and their boxing)."""
    native = copies_over(rules.copies, seen)
    if native is not None:
        return native
    packs = rules.packs
    if packs > 3:
        return _tally_over(rules, seen)
    once = twice = thrice = 0
    jokers = 0
    for _, _, _, cards in seen:
        for card in cards:
            if card == JOKER:
                jokers += 1
                continue
            bit = 1 << card
            if not once & bit:
                once |= bit
            elif packs == 1:
                return True
            elif not twice & bit:
                twice |= bit
            elif packs == 2 or thrice & bit:
                return True
            else:
                thrice |= bit
    return jokers > rules.jokers


def _tally_over(rules: RuleSet, seen: list[Seen]) -> bool:
    """``_too_many_copies`` by a count of each card (any number of packs)."""
    tally = [0] * N_CARDS
    for _, _, _, cards in seen:
        for card in cards:
            tally[card] = tally[card] + 1
    return any(n > rules.deck_copies(card) for card, n in enumerate(tally))


def _at(where: str, index: int, tail: str = "") -> str:
    """The JSON path ``where/index/tail`` (no index when it is -1)."""
    return f"{where}/{index}{tail}" if index >= 0 else f"{where}{tail}"


def _check_melds(rules: RuleSet, melds: list[Data], where: str, index: int, seen: list[Seen],
                 add: Any, black_ok: bool) -> list[Meld]:
    """The melds of one side (``where/index``) or the pending ones (``where``), each checked;
    suit sequences keep rank REAL here."""
    if not melds:  # most sides and most turns: no path written
        return []
    base = _at(where, index)
    ranks: set[int] = set()
    laid: list[Meld] = []
    for i, m in enumerate(melds):
        rank = parse_rank(m["rank"])
        cards = _cards(m["cards"])
        meld = meld_of(rank, cards)
        laid.append(meld)
        seen.append((base, i, "/cards", cards))
        if rank > THREE and rank not in ranks and _naturals_match(meld):  # the common case
            refusal = meld_shape_refusal(rules, rank, meld.naturals, meld.wilds)
            if refusal:
                add(Problem(refusal.code, f"{base}/{i}", refusal.params))
        else:
            _meld_problems(rules, meld, cards, f"{base}/{i}", rank in ranks, black_ok, add)
        ranks.add(rank)
    return laid


def _naturals_match(meld: Meld) -> bool:
    """Whether a meld's natural cards are all of its rank (its cards are sorted: twos, the
    naturals, then jokers)."""
    if not meld.naturals:
        return True
    cards = meld.cards
    twos = 0
    while cards[twos] < 4:  # a meld with naturals has a card above the twos
        twos += 1
    rank = meld.rank
    return cards[twos] >> 2 == rank and cards[twos + meld.naturals - 1] >> 2 == rank


def _meld_problems(rules: RuleSet, meld: Meld, cards: tuple[int, ...], path: str,
                   duplicate: bool, black_ok: bool, add: Any) -> None:
    """The problems of a meld (``cards`` as given) that is not a plain one of a rank above
    three with the right naturals: suit sequences, wild-card melds, threes, repeated ranks,
    wrong cards."""
    rank = meld.rank
    if rank <= REAL:  # "Canastra Real": a suit sequence of seven
        if not rules.real_canasta_bonus:
            add(Problem("SEQUENCE_NOT_ALLOWED", f"{path}/rank"))
        elif not is_real_sequence(cards):
            add(Problem("NOT_A_SUIT_SEQUENCE", path))
        return
    if duplicate:
        add(Problem("DUPLICATE_MELD_RANK", f"{path}/rank", {"rank": rank_code(rank)}))
    if rank == WILD_RANK:
        refusal = (Refusal("NOT_A_VALID_MELD", {"cards": " ".join(card_code(c) for c in cards)})
                   if meld.naturals else meld_shape_refusal(rules, rank, 0, len(cards)))
        if refusal:
            at = f"{path}/rank" if refusal.code == "WILD_MELD_NOT_ALLOWED" else path
            add(Problem(refusal.code, at, refusal.params))
        return
    if rank == THREE and not rules.black_three_meld and all(is_black_three(c) for c in cards):
        add(Problem("BLACK_THREES_NOT_MELDABLE", path))  # never melded in this variant
        return
    if not _naturals_match(meld) or (rank == THREE and not rules.bonus_cards.isdisjoint(cards)):
        _wrong_cards(rules, rank, cards, path, add)
        return
    if rank == THREE and not black_ok:
        add(Problem("BLACK_THREES_ONLY_WHEN_GOING_OUT", path))
        return
    refusal = meld_shape_refusal(rules, rank, meld.naturals, meld.wilds)
    if refusal:
        add(Problem(refusal.code, path, refusal.params))


def _wrong_cards(rules: RuleSet, rank: int, cards: tuple[int, ...], path: str, add: Any) -> None:
    """The cards that do not belong in a meld of ``rank``."""
    for j, c in enumerate(cards):
        if is_black_three(c) and (rules.is_bonus_card(c) or not rules.black_three_meld):
            add(Problem("BLACK_THREES_NOT_MELDABLE", f"{path}/cards/{j}"))
        elif rules.is_bonus_card(c):
            add(Problem("RED_THREE_NOT_MELDABLE", f"{path}/cards/{j}"))
        elif not is_wild(c) and c >> 2 != rank:
            add(Problem("MELD_RANK_MISMATCH", f"{path}/cards/{j}",
                        {"rank": rank_code(rank), "card": card_code(c)}))


def _stock_empty(data: Data) -> bool:
    stock: Any = data["stock"]
    return not (stock["size"] if isinstance(stock, dict) else stock)


def stock_ran_out(data: Data) -> bool:
    """Did the deal end with the stock used up? Said by ``turn.stock_exhausted``, or by the rest
    of an over deal unambiguously: nobody went out and the stock is empty."""
    turn: Data = data["turn"]
    if turn.get("stock_exhausted"):
        return True
    return turn.get("phase") == OVER and turn.get("went_out") is None and _stock_empty(data)


def _check_turn(rules: RuleSet, data: Data, turn: Data, add: Any) -> None:
    phase: str = turn.get("phase", DRAW)
    detail: Words | None = None
    if phase == OVER:
        if turn.get("went_out") is None and not stock_ran_out(data):
            detail = {"en": "a deal is over when someone went out or the stock ran out",
                      "de": "eine Runde ist vorbei, wenn jemand ausgemacht hat oder der Stapel "
                            "aufgebraucht ist"}
    else:
        if turn.get("went_out") is not None or turn.get("stock_exhausted") or turn.get("concealed"):
            detail = {"en": "went_out, concealed and stock_exhausted describe a deal that is over",
                      "de": "went_out, concealed und stock_exhausted beschreiben eine beendete "
                            "Runde"}
        elif turn.get("drawn") and turn.get("took_pile"):
            detail = {"en": "a turn draws from the stock or takes the pile, not both",
                      "de": "in einem Zug zieht man vom Stapel oder nimmt den Ablagestapel, "
                            "nicht beides"}
        elif phase == DRAW and (turn.get("drawn") or turn.get("took_pile") or turn.get("pending")
                                or turn.get("asked") or turn.get("started")
                                or turn.get("extended") or turn.get("going_out")):
            detail = {"en": "in phase draw nothing has happened in the turn yet",
                      "de": "in der Phase draw ist im Zug noch nichts geschehen"}
        elif phase == ANSWER and (turn.get("asked") != "waiting"
                                  or not rules.partners(turn.get("seat", 0))):
            detail = {"en": "phase answer needs asked 'waiting' and a partner to answer",
                      "de": "die Phase answer braucht asked 'waiting' und einen Partner, der "
                            "antwortet"}
        elif phase == PLAY and turn.get("asked") == "waiting":
            detail = {"en": "asked 'waiting' belongs to phase answer",
                      "de": "asked 'waiting' gehört zur Phase answer"}
        elif turn.get("going_out") and not (
                rules.concealed_pile_waives_minimum and turn.get("took_pile")
                and not turn.get("held")):
            detail = {"en": "going_out belongs to a turn that took the pile, its cards in the "
                            "hand, where the rules waive the minimum for going out at once",
                      "de": "going_out gehört zu einem Zug, der den Ablagestapel genommen hat, "
                            "seine Karten in der Hand, wo die Regeln für das Ausmachen auf "
                            "einmal auf die Mindestpunkte verzichten"}
    if detail:
        add(Problem("PHASE_INCONSISTENT", "/turn", {"detail": detail}))


# ---------------------------------------------------------------- building states


def state_from_data(data: Data, rules: RuleSet | None = None) -> State:
    """The immutable state of ``data``; raises ``InvalidState`` with every problem. ``rules``:
    the ruleset the state names (``rules_of(data)``), when the caller has it already."""
    read = _read(data, rules)
    if read.problems:
        raise InvalidState(read.problems)
    rules = read.rules
    assert rules is not None
    melds = tuple(read.melds)
    pile_data: Any = data["discard"]
    if read.pile is None:
        top = pile_data.get("top")
        pile = Pile(None, parse_card(top) if top is not None else None, pile_data["size"],
                    bool(pile_data.get("frozen")))
    else:
        pile = pile_of(read.pile, rules.freeze_on_wild, rules.freeze_on_red_three,
                       rules.freeze_on_black_three)
    stock = read.stock
    t: Data = data["turn"]
    held = read.held
    melded = t.get("melded")
    if melded is None:
        melded = [s for s in range(rules.players) if melds[rules.side_of(s)]]
    # every field in order, made with ``new_tuple``: a keyword call of a named tuple runs
    # Python code (tests/test_validate.py checks the fields against the classes)
    turn: Turn = new_tuple(Turn, (
        t["seat"],  # seat
        t.get("phase", DRAW),  # phase
        bool(t.get("drawn")),  # drawn
        bool(t.get("took_pile")),  # took_pile
        _numbered(read.pending),  # pending
        held,  # held
        t["held"]["size"] if held is None else len(held),  # held_size
        t.get("asked"),  # asked
        _seats(t.get("asked_this_deal")),  # asked_this_deal
        _seats(melded),  # melded
        read.started,  # started
        bool(t.get("extended")),  # extended
        t.get("went_out"),  # went_out
        bool(t.get("concealed")),  # concealed
        bool(t.get("partner_melded")),  # partner_melded
        stock_ran_out(data),  # stock_exhausted
        _seats(t.get("played")),  # played
        bool(t.get("going_out")),  # going_out
    ))
    state: State = new_tuple(State, (
        rules,  # rules
        data.get("dealer", 0),  # dealer
        tuple(data["scores"]),  # scores
        tuple(read.hands),  # hands
        tuple(read.sizes),  # hand_sizes
        melds,  # melds
        tuple([tuple(sorted(b)) for b in read.bonus]),  # bonus
        pile,  # pile
        stock,  # stock
        data["stock"]["size"] if stock is None else len(stock),  # stock_size
        turn,  # turn
        tuple(sorted(read.set_aside)),  # set_aside
    ))
    return state


def _seats(seats: list[int] | None) -> tuple[int, ...]:
    """Seats as a sorted tuple without repeats; lists already so (the usual case, as the
    engine writes them) are copied as they are."""
    if not seats:
        return ()
    last = -1
    for seat in seats:
        if seat <= last:
            return tuple(sorted(set(seats)))
        last = seat
    return tuple(seats)


def _codes(cards: tuple[int, ...]) -> list[str]:
    codes = _CARD_CODES
    return [codes[c] for c in cards]


def _meld_data(m: Meld) -> Data:
    return {"rank": rank_code(m.rank), "cards": _codes(m.cards)}


def state_to_data(state: State) -> Data:
    """Canonical wire form of a state."""
    rules = state.rules
    turn = state.turn
    pile = state.pile
    t: Data = {"seat": turn.seat, "phase": turn.phase}
    if turn.drawn:
        t["drawn"] = True
    if turn.took_pile:
        t["took_pile"] = True
    if turn.pending:
        t["pending"] = [_meld_data(m) for m in turn.pending]
    if turn.held_size:
        t["held"] = _codes(turn.held) if turn.held is not None else {"size": turn.held_size}
    t["asked"] = turn.asked
    t["asked_this_deal"] = list(turn.asked_this_deal)
    t["melded"] = list(turn.melded)
    t["played"] = list(turn.played)
    if turn.started:
        t["started"] = [rank_code(r) for r in turn.started]
    if turn.extended:
        t["extended"] = True
    if turn.going_out:
        t["going_out"] = True
    if turn.phase == OVER:
        t.update(went_out=turn.went_out, concealed=turn.concealed,
                 partner_melded=turn.partner_melded, stock_exhausted=turn.stock_exhausted)
    return {
        "variant": rules.id,
        "options": dict(rules.options),
        "dealer": state.dealer,
        "scores": list(state.scores),
        "hands": [_codes(cards_of(h)) if h is not None else {"size": n}
                  for h, n in zip(state.hands, state.hand_sizes, strict=True)],
        "melds": [[_meld_data(m) for m in side] for side in state.melds],
        "bonus_cards": [_codes(b) for b in state.bonus],
        "discard": _codes(pile.cards) if pile.cards is not None else {
            "top": card_code(pile.top) if pile.top is not None else None,
            "size": pile.size, "frozen": pile.frozen},
        "stock": _codes(state.stock) if state.stock is not None else {"size": state.stock_size},
        "turn": t,
        **({"set_aside": _codes(state.set_aside)} if state.set_aside else {}),
    }


def action_from_data(data: Data) -> Action:
    kind = data["type"]
    cards = _cards(data.get("cards") or ())
    rank = data.get("rank")
    card = data.get("card")
    # every field in order, made with ``new_tuple`` (a named tuple's own ``__new__`` is Python)
    action: Action = new_tuple(Action, (kind, cards,
                                        parse_rank(rank) if rank is not None else None,
                                        parse_card(card) if card is not None else None,
                                        data.get("allow"), data.get("seat")))
    return action


def action_to_data(action: Action) -> Data:
    kind, cards, rank, card, allow, seat = action
    out: Data = {"type": kind}
    if kind == "meld" or kind == "take-pile":
        out["cards"] = [_CARD_CODES[c] for c in cards]
        if rank is not None and kind == "meld":
            out["rank"] = rank_code(rank)
    if card is not None:
        out["card"] = _CARD_CODES[card]
    if allow is not None:
        out["allow"] = allow
    if seat is not None:
        out["seat"] = seat
    return out


#: the pieces legal-action lists are written from (here and by schema/_text.c): each card's
#: code quoted, by card number; a meld's text before its cards; after them, by seat and rank; a
#: discard's text before its card; after it, by seat
QUOTED: Final = tuple(f'"{code}"' for code in _CARD_CODES)
MELD_START: Final = '{"type":"meld","cards":['
MELD_ENDS: Final = [[f'],"rank":"{rank_code(r)}","seat":{s}}}' for r in range(len(RANKS))]
                    for s in range(8)]
DISCARD_START: Final = '{"type":"discard","card":'
DISCARD_ENDS: Final = [f',"seat":{s}}}' for s in range(8)]
# a meld's end with the comma that follows it in the list
_MELD_ENDS: Final = [[end + "," for end in ends] for ends in MELD_ENDS]


def action_json(action: Action) -> str:
    """``action_to_data`` as JSON text: the same keys in the same order (kinds, card codes and
    ranks are plain ASCII, so nothing needs escaping)."""
    kind, cards, rank, card, allow, seat = action
    parts = ['{"type":"', kind, '"']
    if kind == "meld" or kind == "take-pile":
        parts += [',"cards":[', ",".join([QUOTED[c] for c in cards]), "]"]
        if rank is not None and kind == "meld":
            parts += [',"rank":"', rank_code(rank), '"']
    if card is not None:
        parts += [',"card":', QUOTED[card]]
    if allow is not None:
        parts.append(',"allow":true' if allow else ',"allow":false')
    if seat is not None:
        parts += [',"seat":', str(seat)]
    parts.append("}")
    return "".join(parts)


def actions_json(actions: Iterable[Action], native: Callable[..., str] | None = None) -> str:
    """A list of actions as JSON text, equal to ``[action_to_data(a) for a in actions]``.

    Legal-action lists are written from their blocks of melds (one prefix of naturals, many
    choices of wild cards) without building each ``Action``, and a segment of melds with one
    join: no string per action. ``native``: a writer of the same text from the same pieces
    (schema/_text.c, about twice as fast), for lists with melds; should it ever refuse its
    pieces, this writer writes them."""
    if not isinstance(actions, LegalActions):
        return "[" + ",".join([action_json(a) for a in actions]) + "]"
    ctx = actions.ctx
    if native is not None and actions.blocks and ctx is not None:
        seat = ctx.seat
        try:
            text: str = native(QUOTED, [action_json(a) for a in actions.head], MELD_START,
                               actions.meld_blocks(), actions.wilds, MELD_ENDS[seat],
                               [action_json(a) for a in actions.tail], DISCARD_START,
                               actions.discard_cards(), DISCARD_ENDS[seat])
            return text
        except (TypeError, ValueError, OverflowError, SystemError):  # a bug: not a 500
            pass
    parts = ["["]  # each action's pieces end with a comma; the last one's becomes "]"
    for a in actions.head:
        parts += [action_json(a), ","]
    if actions.blocks:
        assert ctx is not None
        after = ["".join(["," + QUOTED[c] for c in w]) for w in actions.wilds]  # naturals
        alone = [w[1:] for w in after]  # no naturals before them (twos added to a meld)
        ends = _MELD_ENDS[ctx.seat]
        for rank, naturals, segments in actions.meld_blocks():
            codes = [QUOTED[c] for c in naturals]
            end = ends[rank]
            for n, first, k in segments:
                start = MELD_START + ",".join(codes[:n])
                # the segment's melds share their start and end: one join writes them all
                parts += [start, (end + start).join((after if n else alone)[first:first + k]),
                          end]
    for a in actions.tail:
        parts += [action_json(a), ","]
    if actions.discards:
        assert ctx is not None
        end = DISCARD_ENDS[ctx.seat] + ","
        for c in actions.discard_cards():
            parts.append(DISCARD_START)
            parts.append(QUOTED[c])
            parts.append(end)
    if len(parts) == 1:
        return "[]"
    parts[-1] = parts[-1][:-1] + "]"  # the last comma
    return "".join(parts)


def refusal_data(refusal: Refusal, rules: RuleSet | None, lang: str = "en") -> Data:
    return {"code": refusal.code, "message": refusal.message(lang),
            "rule": rules.source(refusal.rule_key) if rules else ""}


def event_to_data(event: dict[str, Any]) -> Data:
    """An engine event with its cards and ranks written as codes."""
    out = dict(event)
    for key in ("card", "top"):
        if isinstance(out.get(key), int):
            out[key] = card_code(out[key])
    if "cards" in out:
        out["cards"] = _codes(out["cards"])
    if isinstance(out.get("rank"), int):
        out["rank"] = rank_code(out["rank"])
    return out
