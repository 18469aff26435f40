"""Scoring a deal and what follows for the game (pagat "Classic Canasta Scoring").

A deal is scored from its *tally*: per side the quantities a score pad records (points of the
melded cards and of the cards left in hand, canastas by kind, threes, how it went out, the
variant's penalties). ``tally_of`` reads a tally off a state; ``score_tally`` scores a tally;
``score_deal`` is the one after the other, so a state and the tally read off it score alike,
by the same code (``POST /v1/score`` and ``POST /v1/score/tally``).
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .cards import JOKER, REAL, WILD_RANK, is_black_three, is_red_three
from .reasons import Words, hand_of
from .rules import RuleSet, _memo
from .state import Meld, State, Turn, new_tuple


class ScoringNeedsHiddenInfo(Exception):
    def __init__(self, what: Words) -> None:
        super().__init__(what)
        self.what = what


class SideScore(NamedTuple):
    side: int
    seats: tuple[int, ...]
    breakdown: dict[str, int]

    @property
    def total(self) -> int:
        return self.breakdown["total"]


class DealScore(NamedTuple):
    sides: tuple[SideScore, ...]
    scores: tuple[int, ...]  # the game totals after this deal
    game_over: bool
    winner: int | None
    next_minimums: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "sides": [{"side": s.side, "seats": list(s.seats), "total": s.breakdown["total"],
                       "breakdown": dict(s.breakdown)} for s in self.sides],
            "scores": list(self.scores),
            "game_over": self.game_over,
            "winner": self.winner,
            "next_minimums": list(self.next_minimums),
        }


# --- the tally ----------------------------------------------------------------------------------

#: a rank's name in the plural, as tally kinds spell it ("pure_sevens", "held_aces")
PLURALS: Final = {r: name for r, name in enumerate((
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks",
    "queens", "kings", "aces"))}
#: Modern American's wild canastas with a bonus of their own, by (twos, jokers)
WILD_COMBOS: Final = {(7, 0): "seven_twos", (3, 4): "four_jokers"}
#: how a side went out, by the bonus it earns
PLAIN: Final = "plain"
CONCEALED: Final = "concealed"
BLATT: Final = "blatt"
HAND: Final = "hand"
FIRST_TURN: Final = "first_turn"


class SideTally(NamedTuple):
    """One side's deal as a score pad counts it. Counts by kind are maps from the kinds of
    ``canasta_kinds``, ``incomplete_kinds`` and ``held_kinds`` to how many. A named tuple, made
    with ``new_tuple`` where it is hot (a dataclass's generated ``__init__`` is Python code: it
    cost a third of a scored request's engine time)."""

    melded_points: int  # the value of the cards in the side's melds (>= 0)
    hand_points: int  # minus the value of the cards left in its players' hands (<= 0)
    canastas: dict[str, int]
    red_threes: int  # laid out in front of the side
    black_threes: int  # laid out (Modern American: every three is a bonus card)
    red_threes_in_hand: int  # still in a hand of the side at the end
    went_out: str | None  # plain, concealed, blatt, hand or first_turn
    incomplete: dict[str, int]  # Modern American
    held: dict[str, int]  # Modern American


class Tally(NamedTuple):
    """A deal as a score pad counts it: each side's tally, and whether the deal ended with
    the stock used up and nobody out."""

    sides: tuple[SideTally, ...]
    stock_exhausted: bool


def canasta_kinds(rules: RuleSet) -> tuple[str, ...]:
    """The kinds of canasta a ruleset scores apart: natural and mixed always; Modern American's
    pure sevens and aces and its wild canastas by cards; wild canastas where a house rule or
    the variant has them; Canastra Real."""
    kinds: tuple[str, ...] = _memo(rules, "scoring.canasta_kinds", lambda: _canasta_kinds(rules))
    return kinds


def _canasta_kinds(rules: RuleSet) -> tuple[str, ...]:
    kinds = ["natural", "mixed"]
    kinds += [f"pure_{PLURALS[r]}" for r, _ in rules.pure_rank_canasta_bonus]
    if rules.wild_meld != "none":
        kinds.append("wild")
        kinds += [combo_kind(t, j) for t, j, _ in rules.wild_canasta_bonuses]
    if rules.real_canasta_bonus:
        kinds.append("real")
    return tuple(kinds)


def combo_kind(twos: int, jokers: int) -> str:
    """The kind of a wild canasta of these cards with a bonus of its own."""
    return WILD_COMBOS.get((twos, jokers), f"wild_{twos}_{jokers}")


def canasta_kind(rules: RuleSet, meld: Meld) -> str:
    """Which kind of canasta a complete meld is (``canasta_kinds``)."""
    if meld.rank == WILD_RANK:
        jokers = meld.cards.count(JOKER)
        for twos, j, _ in rules.wild_canasta_bonuses:
            if jokers == j and meld.size - jokers == twos:
                return combo_kind(twos, j)
        return "wild"
    if meld.rank <= REAL:
        return "real"
    if meld.wilds:
        return "mixed"
    for rank, _ in rules.pure_rank_canasta_bonus:
        if rank == meld.rank:
            return f"pure_{PLURALS[rank]}"
    return "natural"


def kind_bonus(rules: RuleSet, kind: str) -> int:
    """A canasta's bonus by kind: natural 500, mixed 300 (pagat "Classic Canasta Scoring");
    Modern American, 'Canastas': pure sevens or aces 2,500, wild canastas 3,000 / 2,500 /
    2,000; canastra's Canastra Real 500."""
    if kind == "natural":
        return rules.natural_canasta_bonus
    if kind == "mixed":
        return rules.mixed_canasta_bonus
    if kind == "wild":
        return rules.wild_canasta_bonus
    if kind == "real":
        return rules.real_canasta_bonus
    if kind.startswith("pure_"):
        return _pure_points(rules.pure_rank_canasta_bonus, kind)
    for twos, jokers, bonus in rules.wild_canasta_bonuses:
        if kind == combo_kind(twos, jokers):
            return bonus
    return 0


def incomplete_kinds(rules: RuleSet) -> tuple[str, ...]:
    """Modern American's penalised incomplete melds: sevens or pure aces, a wild-card meld
    (one holding all four jokers apart, where its penalty differs)."""
    kinds: tuple[str, ...] = _memo(rules, "scoring.incomplete_kinds", lambda: _incomplete_kinds(rules))
    return kinds


def _incomplete_kinds(rules: RuleSet) -> tuple[str, ...]:
    kinds = [f"pure_{PLURALS[r]}" for r, _ in rules.incomplete_penalties]
    if rules.wild_meld_incomplete_penalty:
        kinds.append("wild")
    if rules.wild_meld_incomplete_four_jokers:
        kinds.append("four_jokers")
    return tuple(kinds)


def incomplete_kind(rules: RuleSet, meld: Meld) -> str | None:
    """The penalised kind of an incomplete meld, or None."""
    if meld.size >= rules.canasta_size:
        return None
    if meld.rank == WILD_RANK:
        if not rules.wild_meld_incomplete_penalty:
            return None
        four = meld.cards.count(JOKER) >= 4 and rules.wild_meld_incomplete_four_jokers
        return "four_jokers" if four else "wild"
    if meld.wilds == 0:
        for rank, _ in rules.incomplete_penalties:
            if rank == meld.rank:
                return f"pure_{PLURALS[rank]}"
    return None


def incomplete_penalty(rules: RuleSet, kind: str) -> int:
    """Modern American, penalties: an incomplete meld of sevens or pure aces 2,500; an
    incomplete wild-card meld 2,000 (2,500 with all four jokers)."""
    if kind == "wild":
        return rules.wild_meld_incomplete_penalty
    if kind == "four_jokers":
        return rules.wild_meld_incomplete_four_jokers
    return _pure_points(rules.incomplete_penalties, kind)


def _pure_points(table: tuple[tuple[int, int], ...], kind: str) -> int:
    """The points ``table`` gives a pure meld of the rank ``kind`` names (``pure_sevens``)."""
    for rank, points in table:
        if kind == f"pure_{PLURALS[rank]}":
            return points
    return 0


def held_kinds(rules: RuleSet) -> tuple[str, ...]:
    """Modern American: the groups a player is penalised for holding at the end (aces,
    sevens)."""
    kinds: tuple[str, ...] = _memo(rules, "scoring.held_kinds", lambda: _held_kinds(rules))
    return kinds


def _held_kinds(rules: RuleSet) -> tuple[str, ...]:
    return tuple(PLURALS[r] for r, _, _ in rules.held_group_penalty)


def held_penalty(rules: RuleSet, kind: str) -> int:
    """Modern American: 1,500 for each player holding three or more aces, or sevens."""
    for rank, _, points in rules.held_group_penalty:
        if kind == PLURALS[rank]:
            return points
    return 0


def going_out_kinds(rules: RuleSet) -> tuple[str, ...]:
    """How a side may go out, each with a bonus of its own: plain; concealed where it earns
    more; German rules: Blatt (where a partner can have melded), Hand and, by house rule, out
    on the first turn."""
    kinds: tuple[str, ...] = _memo(rules, "scoring.going_out_kinds", lambda: _going_out_kinds(rules))
    return kinds


def _going_out_kinds(rules: RuleSet) -> tuple[str, ...]:
    kinds = [PLAIN]
    if rules.hand_canasta_bonus:
        if rules.players > rules.sides:
            kinds.append(BLATT)
        kinds.append(HAND)
        if rules.first_turn_bonus:
            kinds.append(FIRST_TURN)
    elif rules.concealed_bonus != rules.going_out_bonus:
        kinds.append(CONCEALED)
    return tuple(kinds)


def going_out_kind(rules: RuleSet, turn: Turn) -> str:
    """How the player of ``turn.went_out`` went out (``going_out_kinds``)."""
    if rules.hand_canasta_bonus and turn.concealed:
        if rules.first_turn_bonus and turn.went_out not in turn.played:
            return FIRST_TURN  # house rule: out at once after at most one draw
        return BLATT if turn.partner_melded else HAND
    if turn.concealed and rules.concealed_bonus != rules.going_out_bonus:
        return CONCEALED
    return PLAIN


def going_out_points(rules: RuleSet, kind: str) -> int:
    """100 for going out; concealed 200 (pagat "Going Out"). German: Handcanasta (the side had
    not melded) 1,000, Blatt (out at once, the partner had melded) 200 (ASS p. 4)."""
    if kind == CONCEALED:
        return rules.concealed_bonus
    if kind == BLATT:
        return rules.blatt_bonus
    if kind == HAND:
        return rules.hand_canasta_bonus
    if kind == FIRST_TURN:
        return rules.first_turn_bonus
    return rules.going_out_bonus


def red_three_points(rules: RuleSet, count: int) -> int:
    """100 each; all four 800 (six players: five 1,000, six 1,200)."""
    total = count * rules.red_three_bonus
    for n, value in rules.red_three_bonus_all:
        if count == n:
            total = value
    return total


def threes_by_colour(rules: RuleSet, red: int, black: int, canastas: int) -> int:
    """Modern American, threes: per colour 100 / 300 / 500 / 1,000 for one to four threes; against a
    side with no canasta, nothing with one, for a side with two or more."""
    table = rules.threes_by_colour
    points = table[min(red, len(table) - 1)] + table[min(black, len(table) - 1)]
    return -points if canastas == 0 else (0 if canastas == 1 else points)


def side_tally(state: State, side: int) -> SideTally:
    """What a score pad records for ``side`` at this table (every hand of the side known)."""
    rules = state.rules
    values = rules.card_values
    melds = state.melds[side]
    turn = state.turn
    hand_points = 0
    reds_in_hand = 0
    held: dict[str, int] = {}
    for seat in rules.seats_of(side):
        hand = state.hands[seat]
        if hand is None:
            if state.hand_sizes[seat]:
                raise ScoringNeedsHiddenInfo(hand_of(seat))
            continue
        for card in range(len(hand)):  # compiled: a C loop, where ``enumerate`` is generic
            n = hand[card]
            if n:
                if is_red_three(card) and not rules.all_threes_bonus:
                    reds_in_hand += n
                else:
                    hand_points -= n * values[card]
        for rank, count, _ in rules.held_group_penalty:
            if sum(hand[rank * 4:rank * 4 + 4]) >= count:
                kind = PLURALS[rank]
                held[kind] = held.get(kind, 0) + 1
    canastas: dict[str, int] = {}
    incomplete: dict[str, int] = {}
    for m in melds:
        if m.size >= rules.canasta_size:
            kind = canasta_kind(rules, m)
            canastas[kind] = canastas.get(kind, 0) + 1
        else:
            missing = incomplete_kind(rules, m)
            if missing is not None:
                incomplete[missing] = incomplete.get(missing, 0) + 1
    went_out = None
    if turn.went_out is not None and rules.side_of(turn.went_out) == side:
        went_out = going_out_kind(rules, turn)
    melded_points = 0
    for m in melds:
        for c in m.cards:
            melded_points += values[c]
    red = black = 0
    for c in state.bonus[side]:
        if is_red_three(c):
            red += 1
        elif is_black_three(c):
            black += 1
    tally: SideTally = new_tuple(SideTally, (
        melded_points, hand_points, canastas, red, black, reds_in_hand, went_out, incomplete,
        held))
    return tally


def tally_of(state: State) -> Tally:
    """The deal's tally as a score pad would record it: what ``POST /v1/score/tally`` takes
    (``engine.tally.tally_to_data`` writes it so), scoring exactly as the state does."""
    turn = state.turn
    sides = tuple(side_tally(state, s) for s in range(state.rules.sides))
    tally: Tally = new_tuple(Tally, (sides, turn.stock_exhausted and turn.went_out is None))
    return tally


def side_breakdown(rules: RuleSet, t: SideTally, stock_exhausted: bool) -> dict[str, int]:
    """A side's deal score from its tally: the breakdown of ``POST /v1/score``."""
    canastas = 0
    for n in t.canastas.values():  # a typed loop: ``sum`` is a call through Python's
        canastas += n  # convention, even in the compiled engine
    melded = t.melded_points
    if rules.melded_negative_without_canasta and not canastas:
        melded = -melded  # Modern American: melded cards count against a side without one
    canasta = sum(n * kind_bonus(rules, kind) for kind, n in t.canastas.items())
    if rules.threes_by_colour:
        bonus = threes_by_colour(rules, t.red_threes, t.black_threes, canastas)
    else:
        bonus = red_three_points(rules, t.red_threes) + t.red_threes * rules.red_three_card_points
        if (rules.red_three_negative == "no_meld" and not t.melded_points) or (
                rules.red_three_negative == "no_canasta" and not canastas):
            bonus = -bonus  # pagat "Classic Canasta Scoring"; ASS p. 1: no canasta
    going_out = going_out_points(rules, t.went_out) if t.went_out is not None else 0
    # a red three kept in a hand: at the end (pagat), when someone goes out (ASS p. 1)
    penalties = 0 if stock_exhausted and rules.red_three_in_hand_when_out else \
        -t.red_threes_in_hand * rules.red_three_in_hand_penalty
    if stock_exhausted:
        penalties -= rules.stock_exhausted_penalty  # ASS p. 4: each side loses 100
    penalties -= sum(n * incomplete_penalty(rules, kind) for kind, n in t.incomplete.items())
    penalties -= sum(n * held_penalty(rules, kind) for kind, n in t.held.items())
    out = {
        "melded_cards": melded,
        "hand_cards": t.hand_points,
        "canasta_bonus": canasta,
        "bonus_cards": bonus,
        "going_out": going_out,
        "penalties": penalties,
    }
    out["total"] = sum(out.values())
    return out


def deal_result(rules: RuleSet, before: tuple[int, ...], sides: tuple[SideScore, ...]) -> DealScore:
    """The game after a deal: the new totals (canastra "sujo": a deal that would overshoot the
    target does not count), game over and the winner (the highest total at or above the
    target; an exact tie at the top means another deal), the next initial-meld minimums."""
    totals = tuple([before[s.side] + s.breakdown["total"] for s in sides])
    if rules.sujo:
        totals = tuple(t if t <= rules.target else before[i] for i, t in enumerate(totals))
    winner = game_winner(rules, totals)
    minimums = tuple(rules.initial_minimum(t) for t in totals)
    score: DealScore = new_tuple(DealScore, (sides, totals, winner is not None, winner,
                                             minimums))
    return score


def game_winner(rules: RuleSet, totals: tuple[int, ...]) -> int | None:
    """The side that has won a game standing at ``totals``: the highest total at or above the
    target; None while none has (an exact tie at the top means another deal)."""
    best = max(totals)
    if best < rules.target:
        return None
    leaders = [i for i, t in enumerate(totals) if t == best]
    return leaders[0] if len(leaders) == 1 else None


def score_tally(rules: RuleSet, before: tuple[int, ...], tally: Tally) -> DealScore:
    """Each side's score for the tallied deal with its breakdown, and the game after it
    (``deal_result``); ``before``: the game scores before the deal."""
    sides: list[SideScore] = []
    for s, t in enumerate(tally.sides):
        sides.append(new_tuple(SideScore, (s, rules.seats_of(s),
                                           side_breakdown(rules, t, tally.stock_exhausted))))
    return deal_result(rules, before, tuple(sides))


def score_deal(state: State) -> DealScore:
    """Each side's score for the deal with its breakdown, the new totals, game over, winner
    (highest total at or above the target; an exact tie at the top means another deal), and the
    next initial-meld minimums."""
    return score_tally(state.rules, state.scores, tally_of(state))


