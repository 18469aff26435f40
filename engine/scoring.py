"""Scoring a deal and what follows for the game (pagat "Classic Canasta Scoring")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import JOKER, REAL, WILD_RANK, is_red_three
from .reasons import Words, hand_of
from .rules import RuleSet
from .state import Meld, State, Turn


class ScoringNeedsHiddenInfo(Exception):
    def __init__(self, what: Words) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True)
class SideScore:
    side: int
    seats: tuple[int, ...]
    breakdown: dict[str, int]

    @property
    def total(self) -> int:
        return self.breakdown["total"]


@dataclass(frozen=True)
class DealScore:
    sides: tuple[SideScore, ...]
    scores: tuple[int, ...]  # the game totals after this deal
    game_over: bool
    winner: int | None
    next_minimums: tuple[int, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "sides": [{"side": s.side, "seats": list(s.seats), "total": s.total,
                       "breakdown": dict(s.breakdown)} for s in self.sides],
            "scores": list(self.scores),
            "game_over": self.game_over,
            "winner": self.winner,
            "next_minimums": list(self.next_minimums),
        }


def red_three_points(rules: RuleSet, count: int) -> int:
    """100 each; all four 800 (six players: five 1,000, six 1,200)."""
    total = count * rules.red_three_bonus
    for n, value in rules.red_three_bonus_all:
        if count == n:
            total = value
    return total


def going_out_bonus(rules: RuleSet, turn: Turn) -> int:
    """100 for going out; concealed 200 (pagat "Going Out"). German: Handcanasta (the side had
    not melded) 1,000, Blatt (out at once, the partner had melded) 200 (ASS p. 4)."""
    if rules.hand_canasta_bonus and turn.concealed:
        if rules.first_turn_bonus and turn.went_out not in turn.played:
            return rules.first_turn_bonus  # house rule: out at once after at most one draw
        if not turn.partner_melded:
            return rules.hand_canasta_bonus
        return rules.blatt_bonus
    return rules.concealed_bonus if turn.concealed else rules.going_out_bonus


def canasta_bonus(rules: RuleSet, meld: Meld) -> int:
    """Natural 500, mixed 300 (pagat "Classic Canasta Scoring"); Modern American, 'Canastas':
    pure sevens or aces 2,500, wild canastas 3,000 / 2,500 / 2,000."""
    if meld.rank == WILD_RANK:
        jokers = meld.cards.count(JOKER)
        for twos, j, bonus in rules.wild_canasta_bonuses:
            if jokers == j and meld.size - jokers == twos:
                return bonus
        return rules.wild_canasta_bonus
    if meld.rank <= REAL:
        return rules.real_canasta_bonus
    if meld.wilds:
        return rules.mixed_canasta_bonus
    for rank, bonus in rules.pure_rank_canasta_bonus:
        if rank == meld.rank:
            return bonus
    return rules.natural_canasta_bonus


def threes_by_colour(rules: RuleSet, bonus_cards: tuple[int, ...], canastas: int) -> int:
    """Modern American, threes: per colour 100 / 300 / 500 / 1,000 for one to four threes; against a
    side with no canasta, nothing with one, for a side with two or more."""
    table = rules.threes_by_colour
    red = sum(1 for c in bonus_cards if c in (5, 6))
    black = len(bonus_cards) - red
    points = table[min(red, len(table) - 1)] + table[min(black, len(table) - 1)]
    return -points if canastas == 0 else (0 if canastas == 1 else points)


def modern_penalties(rules: RuleSet, state: State, side: int) -> int:
    """Modern American, penalties: incomplete sevens or pure aces, an incomplete wild-card meld, and
    three or more aces or sevens left in a player's hand."""
    penalty = 0
    for m in state.melds[side]:
        if m.size >= rules.canasta_size:
            continue
        if m.rank == WILD_RANK:
            four = m.cards.count(JOKER) >= 4 and rules.wild_meld_incomplete_four_jokers
            penalty += rules.wild_meld_incomplete_four_jokers if four else \
                rules.wild_meld_incomplete_penalty
        elif m.wilds == 0:
            penalty += sum(p for r, p in rules.incomplete_penalties if r == m.rank)
    for seat in rules.seats_of(side):
        hand = state.hands[seat]
        if hand is None:
            continue
        for rank, count, points in rules.held_group_penalty:
            if sum(hand[rank * 4:rank * 4 + 4]) >= count:
                penalty += points
    return penalty


def score_side(state: State, side: int) -> dict[str, int]:
    rules = state.rules
    values = rules.card_values
    melds = state.melds[side]
    seats = rules.seats_of(side)
    turn = state.turn
    melded = sum(values[c] for m in melds for c in m.cards)
    canasta = sum(canasta_bonus(rules, m) for m in melds if m.size >= rules.canasta_size)
    hand_cards = 0
    reds_in_hand = 0
    for seat in seats:
        hand = state.hands[seat]
        if hand is None:
            if state.hand_sizes[seat]:
                raise ScoringNeedsHiddenInfo(hand_of(seat))
            continue
        for card, n in enumerate(hand):
            if n:
                if is_red_three(card) and not rules.all_threes_bonus:
                    reds_in_hand += n
                else:
                    hand_cards -= n * values[card]
    reds = sum(1 for c in state.bonus[side] if is_red_three(c))
    bonus = red_three_points(rules, reds) + reds * rules.red_three_card_points
    canastas = sum(1 for m in melds if m.size >= rules.canasta_size)
    if (rules.red_three_negative == "no_meld" and not melds) or (
            rules.red_three_negative == "no_canasta" and not canastas):
        bonus = -bonus  # pagat "Classic Canasta Scoring"; ASS p. 1: no canasta
    if rules.threes_by_colour:
        bonus = threes_by_colour(rules, state.bonus[side], canastas)
    if rules.melded_negative_without_canasta and not canastas:
        melded = -melded  # Modern American: melded cards count against a side without one
    going_out = 0
    if turn.went_out is not None and rules.side_of(turn.went_out) == side:
        going_out = going_out_bonus(rules, turn)
    penalties = -reds_in_hand * rules.red_three_in_hand_penalty
    if turn.stock_exhausted and turn.went_out is None:
        penalties -= rules.stock_exhausted_penalty  # ASS p. 4: each side loses 100
    if rules.incomplete_penalties or rules.held_group_penalty or rules.wild_meld_incomplete_penalty:
        penalties -= modern_penalties(rules, state, side)
    out = {
        "melded_cards": melded,
        "hand_cards": hand_cards,
        "canasta_bonus": canasta,
        "bonus_cards": bonus,
        "going_out": going_out,
        "penalties": penalties,
    }
    out["total"] = sum(out.values())
    return out


def score_deal(state: State) -> DealScore:
    """Each side's score for the deal with its breakdown, the new totals, game over, winner
    (highest total at or above the target; an exact tie at the top means another deal), and the
    next initial-meld minimums."""
    rules = state.rules
    sides = tuple(SideScore(s, rules.seats_of(s), score_side(state, s)) for s in range(rules.sides))
    totals = tuple(state.scores[s.side] + s.total for s in sides)
    if rules.sujo:  # canastra "sujo": a deal that would overshoot the target does not count
        totals = tuple(t if t <= rules.target else state.scores[i] for i, t in enumerate(totals))
    best = max(totals)
    game_over = False
    winner = None
    if best >= rules.target:
        leaders = [i for i, t in enumerate(totals) if t == best]
        if len(leaders) == 1:
            game_over, winner = True, leaders[0]
    minimums = tuple(rules.initial_minimum(t) for t in totals)
    return DealScore(sides, totals, game_over, winner, minimums)
