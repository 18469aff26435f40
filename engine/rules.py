"""The ruleset: every parameter of a variant, kept apart from the state (OpenSpiel style).

A ``RuleSet`` is an immutable table. Variants are built from a base table with
``dataclasses.replace`` and their options (house rules, player count); see ``engine.variants``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, Final

from .cards import JOKER, N_CARDS, RANKS


def classic_card_values() -> tuple[int, ...]:
    """Joker 50; ace and two 20; K-8 10; 7-4 5; black three 5; red three 0 (pagat "The Cards")."""
    by_rank = {"2": 20, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 10, "9": 10, "T": 10,
               "J": 10, "Q": 10, "K": 10, "A": 20}
    values = [0] * N_CARDS
    for card in range(52):
        values[card] = by_rank[RANKS[card >> 2]]
    values[5] = values[6] = 0  # red threes are bonus cards, not melded
    values[JOKER] = 50
    return tuple(values)


@dataclass(frozen=True)
class Option:
    """A house rule or player count the caller may set per state."""

    name: str
    default: Any
    allowed: tuple[Any, ...] | None  # None: any int in [low, high]
    description: str
    low: int | None = None
    high: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "default": self.default,
                               "description": self.description}
        if self.allowed is not None:
            out["allowed"] = list(self.allowed)
        else:
            out["range"] = [self.low, self.high]
        return out


_MEMO: Final[dict[tuple[int, str], tuple[Any, Any]]] = {}


def _memo(rules: Any, name: str, make: Callable[[], Any]) -> Any:
    """A value derived from a ruleset, computed once per ruleset (``cached_property`` is not
    kept by the mypyc-compiled build, which would recompute it on every access)."""
    key = (id(rules), name)
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_MEMO) > 4096:
        _MEMO.clear()
    value = make()
    _MEMO[key] = (rules, value)
    return value


@dataclass(frozen=True)
class RuleSet:
    """All parameters of one variant with its options applied."""

    id: str
    title: str
    version: int
    options: tuple[tuple[str, Any], ...]
    # players and sides
    players: int
    sides: int
    # deck and deal
    packs: int
    jokers: int
    hand_size: int
    draw_count: int
    # melds
    min_naturals: int
    max_wilds: int
    natural_majority: bool
    canasta_size: int
    natural_canasta_bonus: int
    mixed_canasta_bonus: int
    # initial meld: (lowest score of the band, minimum); the first band starts at -infinity
    initial_minimums: tuple[tuple[int | None, int], ...]
    # discard pile
    pile_natural_and_wild: bool  # an unfrozen pile may be taken with one natural and one wild
    freeze_on_wild: bool
    freeze_on_red_three: bool
    frozen_until_melded: bool
    black_three_blocks: bool
    one_card_pile_rule: bool
    # threes
    red_three_bonus: int
    red_three_bonus_all: tuple[tuple[int, int], ...]  # (count, total) overrides, e.g. all four 800
    red_three_card_points: int
    red_three_in_hand_penalty: int
    # going out
    canastas_to_go_out: int
    going_out_bonus: int
    concealed_bonus: int
    ask_partner: bool
    # end of stock: "continue" (play on the pile), "end" (deal ends)
    stock_exhausted: str
    target: int
    card_values: tuple[int, ...]
    sources: tuple[tuple[str, str], ...] = field(default=())
    # where variants differ (defaults: classic)
    upcard: str = "cover"  # cover (turn more on top, pile frozen) | bury | set_aside
    pile_add_alone: bool = True  # the top card alone may be added to the side's meld
    pile_one_natural: bool = False  # the top card with one natural may extend the side's meld
    pile_needs_melded: bool = False  # a side that has not melded may not take the pile at all
    stock_exhausted_penalty: int = 0  # each side loses this when the stock runs out
    must_discard_to_go_out: bool = False  # going out ends with a discard (bar black threes)
    black_three_meld: bool = True  # three or four black threes may be melded when going out
    red_three_negative: str = "no_meld"  # no_meld | no_canasta | never
    concealed_rule: str = "classic"  # classic | at_once (German Blatt/Hand going out)
    blatt_bonus: int = 0  # German: going out at once, the partner having melded
    hand_canasta_bonus: int = 0  # German: the side goes out without any earlier meld
    first_turn_bonus: int = 0  # German house rule: going out at once on the first turn
    ask_once_per_deal: bool = False
    ask_during_play: bool = False  # "may I go out?" anywhere in the play phase, not only on drawing
    freeze_on_black_three: bool = False  # a black three in the pile freezes it (natural pair only)
    sujo: bool = False  # the target must be hit exactly
    concealed_waives_minimum: bool = True  # going out concealed after a stock draw
    # ... and after taking the pile too (German Handcanasta, ASS p. 4: no minimum at all)
    concealed_pile_waives_minimum: bool = False
    red_three_in_hand_when_out: bool = False  # the penalty only when someone went out (ASS)
    wild_meld: str = "none"  # none | complete (seven wild cards laid at once) | grow (3 to 7)
    wild_canasta_bonus: int = 0
    real_canasta_bonus: int = 0  # canastra "Canastra Real": a suit sequence of seven (0: none)
    # Modern American (docs/variants/modern-american.md); the defaults leave every other variant as it was
    all_threes_bonus: bool = False  # every three, red or black, is laid out and replaced
    last_three_kept: bool = False  # a three drawn as the last stock card stays in hand, ends the deal
    threes_by_colour: tuple[int, ...] = ()  # bonus for 0..4 threes of one colour, each colour apart
    max_meld_size: int = 0  # 0: no limit
    closed_ranks: bool = False  # a completed pure canasta closes its rank for everyone
    rule_of_five: bool = False  # after the opening turn a wild card joins only a meld of 5 naturals
    no_wild_ranks: tuple[int, ...] = ()  # ranks that never take wild cards
    initial_wild_ranks: tuple[int, ...] = ()  # ranks that take wild cards only in the opening turn
    wild_meld_blocks: bool = False  # while the side's wild meld is incomplete, no wilds elsewhere
    initial_from_hand: bool = False  # the taken top card does not count toward the minimum
    initial_needs_clean: bool = False  # the initial meld holds a pure meld of 3+ or a wild meld
    canasta_waives_minimum: bool = False  # a canasta laid from the hand needs no minimum
    pile_always_frozen: bool = False  # the pile is taken only with a natural pair
    discard_rules: str = "any"  # any | modern (wilds only to go out; aces, sevens, closed ranks)
    empty_pile_ranks: tuple[int, ...] = ()  # modern: ranks discarded on an empty pile only as a last resort
    pure_rank_canasta_bonus: tuple[tuple[int, int], ...] = ()  # (rank, bonus) of a pure canasta
    wild_canasta_bonuses: tuple[tuple[int, int, int], ...] = ()  # (twos, jokers, bonus) overrides
    melded_negative_without_canasta: bool = False  # melded cards count against a side without one
    incomplete_penalties: tuple[tuple[int, int], ...] = ()  # (rank, penalty): incomplete pure meld
    wild_meld_incomplete_penalty: int = 0
    wild_meld_incomplete_four_jokers: int = 0
    held_group_penalty: tuple[tuple[int, int, int], ...] = ()  # (rank, count, penalty) per player

    def threes_event(self) -> str:
        """The event that lays out bonus threes: red threes, or every three (Modern American)."""
        return "threes" if self.all_threes_bonus else "red-threes"

    def is_bonus_card(self, card: int) -> bool:
        """Red threes; every three where all threes are laid out (Modern American, "Threes")."""
        return card == 5 or card == 6 or (self.all_threes_bonus and (card == 4 or card == 7))

    @property
    def bonus_cards(self) -> frozenset[int]:
        value: frozenset[int] = _memo(self, "bonus_cards", lambda: frozenset(
            c for c in (4, 5, 6, 7) if self.is_bonus_card(c)))
        return value

    @property
    def copies(self) -> tuple[int, ...]:
        """Copies of each card in the deck, by card."""
        value: tuple[int, ...] = _memo(self, "copies", lambda: tuple(
            self.deck_copies(c) for c in range(N_CARDS)))
        return value

    @property
    def modern(self) -> bool:
        """Meld rules that the counting shortcuts of ``feasible`` do not cover (Modern American)."""
        value: bool = _memo(self, "modern", lambda: bool(
            self.max_meld_size or self.closed_ranks or self.rule_of_five or self.no_wild_ranks
            or self.initial_wild_ranks or self.wild_meld_blocks or self.initial_needs_clean
            or self.canasta_waives_minimum or self.wild_meld == "grow"))
        return value

    def side_of(self, seat: int) -> int:
        return seat % self.sides

    def seats_of(self, side: int) -> tuple[int, ...]:
        seats: list[int] = []
        seat = side
        while seat < self.players:  # compiled: a C loop, where ``tuple(range(...))`` is a call
            seats.append(seat)
            seat += self.sides
        return tuple(seats)

    def partners(self, seat: int) -> tuple[int, ...]:
        return self._partners[seat]

    @property
    def _partners(self) -> tuple[tuple[int, ...], ...]:
        value: tuple[tuple[int, ...], ...] = _memo(self, "partners", lambda: tuple(
            tuple(s for s in self.seats_of(seat % self.sides) if s != seat)
            for seat in range(self.players)))
        return value

    def deck_copies(self, card: int) -> int:
        return self.jokers if card == JOKER else self.packs

    @property
    def deck_size(self) -> int:
        return 52 * self.packs + self.jokers

    def initial_minimum(self, score: int) -> int:
        """The side's initial-meld minimum for its score before the deal
        (pagat "Initial Meld Requirement")."""
        minimum = self.initial_minimums[0][1]
        for low, value in self.initial_minimums[1:]:
            if low is not None and score >= low:
                minimum = value
        return minimum

    def source(self, key: str) -> str:
        for k, v in self.sources:
            if k == key:
                return v
        return ""

    def table(self) -> dict[str, Any]:
        """The rule table as plain data (JSON-ready)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "card_values":
                value = {"JK": value[JOKER], **{
                    r: value[i * 4] for i, r in enumerate(RANKS) if r != "3"},
                    "3S": value[4], "3C": value[7], "3H": value[5], "3D": value[6]}
            elif f.name in ("options", "sources"):
                value = dict(value)
            elif f.name == "initial_minimums":
                value = [{"from_score": low, "minimum": m} for low, m in value]
            elif f.name == "red_three_bonus_all":
                value = [{"count": c, "total": t} for c, t in value]
            elif f.name in ("no_wild_ranks", "initial_wild_ranks", "empty_pile_ranks"):
                value = [RANKS[r] for r in value]
            elif f.name in ("pure_rank_canasta_bonus", "incomplete_penalties"):
                value = [{"rank": RANKS[r], "points": p} for r, p in value]
            elif f.name == "wild_canasta_bonuses":
                value = [{"twos": t, "jokers": j, "bonus": b} for t, j, b in value]
            elif f.name == "held_group_penalty":
                value = [{"rank": RANKS[r], "count": c, "points": p} for r, c, p in value]
            elif f.name == "threes_by_colour":
                value = list(value)
            out[f.name] = value
        return out

    def sections(self) -> list[dict[str, Any]]:
        """The table by rule family, each with its source (seed file and section)."""
        table = self.table()
        return [{"name": name, "source": self.source(key),
                 "rules": {f: table[f] for f in names}} for name, key, names in SECTIONS]

    @property
    def fingerprint(self) -> str:
        """A stable hash of the table and options: the ruleset's identity in caches."""
        value: str = _memo(self, "fingerprint", lambda: hashlib.sha256(json.dumps(
            self.table(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16])
        return value


# (section, rule key of its source, fields) for ``RuleSet.sections``
SECTIONS: Final[tuple[tuple[str, str, tuple[str, ...]], ...]] = (
    ("players and sides", "players", ("players", "sides")),
    ("deck and card values", "deck", ("packs", "jokers", "card_values")),
    ("deal", "deal", ("hand_size", "upcard")),
    ("turn", "turn", ("draw_count",)),
    ("melds", "melds", ("min_naturals", "black_three_meld", "wild_meld", "max_meld_size",
                        "closed_ranks")),
    ("wild cards in melds", "melds.wilds", ("max_wilds", "natural_majority", "rule_of_five",
                                            "no_wild_ranks", "initial_wild_ranks",
                                            "wild_meld_blocks")),
    ("canastas", "canasta", ("canasta_size", "natural_canasta_bonus", "mixed_canasta_bonus",
                             "wild_canasta_bonus", "real_canasta_bonus", "pure_rank_canasta_bonus",
                             "wild_canasta_bonuses")),
    ("initial meld", "initial_meld", ("initial_minimums", "concealed_waives_minimum",
                                      "concealed_pile_waives_minimum", "initial_from_hand",
                                      "initial_needs_clean", "canasta_waives_minimum")),
    ("taking the discard pile", "pile.take", ("pile_natural_and_wild", "pile_add_alone",
                                              "pile_one_natural", "pile_needs_melded",
                                              "black_three_blocks", "one_card_pile_rule",
                                              "pile_always_frozen")),
    ("discarding", "discard", ("discard_rules", "empty_pile_ranks")),
    ("frozen pile", "pile.frozen", ("freeze_on_wild", "freeze_on_red_three",
                                    "freeze_on_black_three", "frozen_until_melded")),
    ("bonus threes", "threes.red", ("red_three_bonus", "red_three_bonus_all", "red_three_card_points",
                                  "red_three_negative", "red_three_in_hand_penalty",
                                  "red_three_in_hand_when_out",
                                  "all_threes_bonus", "last_three_kept", "threes_by_colour")),
    ("going out", "going_out", ("canastas_to_go_out", "must_discard_to_go_out", "going_out_bonus")),
    ("going out concealed", "going_out.concealed", ("concealed_bonus", "concealed_rule",
                                                    "blatt_bonus", "hand_canasta_bonus",
                                                    "first_turn_bonus")),
    ("may I go out?", "going_out.ask", ("ask_partner", "ask_once_per_deal", "ask_during_play")),
    ("end of the stock", "stock_exhausted", ("stock_exhausted", "stock_exhausted_penalty")),
    ("penalties", "scoring", ("melded_negative_without_canasta", "incomplete_penalties",
                              "wild_meld_incomplete_penalty", "wild_meld_incomplete_four_jokers",
                              "held_group_penalty")),
    ("game", "target", ("target", "sujo")),
)
