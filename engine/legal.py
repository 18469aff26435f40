"""The legal actions of the seat to move, listed lazily (python-chess's LegalMoveGenerator).

One action is listed per class of equivalent actions: suits of naturals and of twos are
interchangeable in melds and pickups (suits never matter there); discards list every distinct
card. Every listed action is one the judge (``engine.play``) accepts, and every action the
judge accepts is equivalent to a listed one.

Melds of a side that has melded, with cards to spare and no obligation to go out, need only
their shape checked; those are kept as blocks (rank, naturals, range of wild cards) and made
into actions only when looked at, so picking one action at random does not build them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Final, overload

from . import feasible
from .cards import JOKER, REAL, THREE, TWO, WILD_RANK, is_natural
from .play import (
    Ctx,
    NeedsHiddenInfo,
    Plan,
    _add,
    _judge_ask,
    _judge_discard,
    _judge_draw,
    _judge_meld,
    _judge_take,
    answering_seat,
    context,
    judge,
)
from .reasons import hand_of
from .state import ANSWER, DRAW, OVER, Action, State

# Actions are immutable values: the simple ones are made once and shared.
_DISCARD: Final = [[Action("discard", card=c, seat=s) for c in range(53)] for s in range(8)]
_DRAW: Final = [Action("draw", seat=s) for s in range(8)]
_ASK: Final = [Action("ask", seat=s) for s in range(8)]
_ANSWER: Final = [(Action("answer", allow=True, seat=s), Action("answer", allow=False, seat=s))
           for s in range(8)]

# A block of meld actions: rank and (n, first, count) segments: n naturals of the rank with
# the wild sets ``wilds[first:first + count]``; then the block's number of actions.
Block = tuple[int, list[tuple[int, int, int]], int]


class LegalActions(Sequence[Action]):
    """A sequence of the legal actions; ``action in legal`` asks the judge without listing."""

    __slots__ = ("ctx", "head", "blocks", "wilds", "tail", "discards", "_len")

    def __init__(self, ctx: Ctx | None, head: list[Action], blocks: list[Block] | None = None,
                 wilds: list[tuple[int, ...]] | None = None,
                 tail: list[Action] | None = None, discards: int = 0) -> None:
        self.ctx = ctx
        self.head = head
        self.blocks = blocks or []
        self.wilds = wilds or []
        self.tail = tail or []
        self.discards = discards  # every distinct card of the hand, listed last, unjudged
        self._len = (len(head) + sum(b[2] for b in self.blocks) + len(self.tail)
                     + self.discards)

    def __len__(self) -> int:
        return self._len

    @property
    def seat(self) -> int | None:
        """The seat that every listed action names (None when none is listed): the seat to move,
        or in phase answer the partner who answers. Found without building an action."""
        if not self._len:
            return None
        if self.ctx is not None:
            return self.ctx.seat
        return self.head[0].seat

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | list[Action]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        if index < len(self.head):
            return self.head[index]
        index -= len(self.head)
        for rank, segments, count in self.blocks:
            if index >= count:
                index -= count
                continue
            for n, first, k in segments:
                if index < k:
                    assert self.ctx is not None
                    cards = tuple(self.ctx.cards_of_rank(rank)[:n]) + self.wilds[first + index]
                    return Action("meld", cards, rank, None, None, self.ctx.seat)
                index -= k
        if index < len(self.tail):
            return self.tail[index]
        index -= len(self.tail)
        assert self.ctx is not None and self.ctx.hand is not None
        for card, n in enumerate(self.ctx.hand):
            if n:
                if not index:
                    return _DISCARD[self.ctx.seat][card]
                index -= 1
        raise IndexError(index)

    def __iter__(self) -> Iterator[Action]:
        yield from self.head
        if self.blocks:
            assert self.ctx is not None
            seat, wilds = self.ctx.seat, self.wilds
            for rank, naturals, segments in self.meld_blocks():
                for n, first, k in segments:
                    base = tuple(naturals[:n])
                    for w in wilds[first:first + k]:
                        yield Action("meld", base + w, rank, None, None, seat)
        yield from self.tail
        if self.discards:
            assert self.ctx is not None
            table = _DISCARD[self.ctx.seat]
            yield from [table[c] for c in self.discard_cards()]

    def meld_blocks(self) -> list[tuple[int, list[int], list[tuple[int, int, int]]]]:
        """The melds kept as blocks: the rank, the hand's natural cards of it, and segments
        ``(n, first, k)``: every meld of a segment starts with the first ``n`` naturals, and the
        slice ``first:first + k`` of ``wilds`` completes them one by one."""
        ctx = self.ctx
        if ctx is None:
            return []
        return [(rank, ctx.cards_of_rank(rank), segments) for rank, segments, _ in self.blocks]

    def discard_cards(self) -> list[int]:
        """The cards listed as discards without judging (every distinct card of the hand)."""
        if not self.discards:
            return []
        assert self.ctx is not None and self.ctx.hand is not None
        return [c for c, n in enumerate(self.ctx.hand) if n]

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Action) or self.ctx is None:
            return False
        return isinstance(judge(self.ctx, action), Plan)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"LegalActions({list(self)!r})"


def legal_actions(state: State) -> LegalActions:
    """Every legal action of the seat to move, one per class of equivalent actions."""
    phase = state.turn.phase
    if phase == OVER:
        return LegalActions(None, [])
    if phase == ANSWER:
        return LegalActions(None, list(_ANSWER[answering_seat(state)]))
    ctx = context(state)
    if ctx.hand is None:
        raise NeedsHiddenInfo(hand_of(ctx.seat))
    seat = ctx.seat
    if phase == DRAW:
        head: list[Action] = []
        if isinstance(_judge_draw(ctx, _DRAW[seat]), Plan):
            head.append(_DRAW[seat])
        for cards in _pickup_candidates(ctx):
            a = Action("take-pile", cards=cards, seat=seat)
            if isinstance(_judge_take(ctx, a), Plan):
                head.append(a)
        return LegalActions(ctx, head)
    return _play_actions(ctx)


def _play_actions(ctx: Ctx) -> LegalActions:
    turn = ctx.state.turn
    seat = ctx.seat
    head: list[Action] = []
    ask = _ASK[seat]
    if turn.asked is None and isinstance(_judge_ask(ctx, ask), Plan):
        head.append(ask)
    hand = ctx.hand
    assert hand is not None
    wilds = _wild_sets(ctx)
    blocks: list[Block] = []
    fast = ctx.opened and not ctx.must_out
    if fast or _melds_possible(ctx):
        _melds(ctx, wilds, blocks, head, fast)
    if (ctx.hand_size >= 2 and not ctx.must_out and (ctx.opened or not turn.pending)
            and ctx.rules.discard_rules == "any"):
        # any card may be discarded: listed lazily
        return LegalActions(ctx, head, blocks, wilds, None, len(hand) - hand.count(0))
    discards = _DISCARD[seat]
    tail = [discards[c] for c, n in enumerate(hand)
            if n and isinstance(_judge_discard(ctx, discards[c]), Plan)]
    return LegalActions(ctx, head, blocks, wilds, tail)


def _wild_sets(ctx: Ctx) -> list[tuple[int, ...]]:
    """Every choice of twos and jokers from the hand (up to the wild limit), smallest first."""
    assert ctx.nat is not None and ctx.hand is not None
    twos = tuple(ctx.cards_of_rank(TWO)) if ctx.nat[TWO] else ()
    return _wild_sets_of(twos[:ctx.rules.max_wilds], min(ctx.hand[JOKER], ctx.rules.max_wilds),
                         ctx.rules.max_wilds)


@lru_cache(maxsize=4096)
def _wild_sets_of(twos: tuple[int, ...], jokers: int, max_w: int) -> list[tuple[int, ...]]:
    sets = [twos[:t] + (JOKER,) * j for t in range(len(twos) + 1)
            for j in range(min(jokers, max_w - t) + 1)]
    sets.sort(key=len)
    return sets


def _melds_possible(ctx: Ctx) -> bool:
    """For a side short of its initial minimum: can any meld still finish the turn? Neither
    the minimum nor melding out can become reachable by melding, so one check rules out all."""
    if ctx.opened:
        return True
    hand, turn = ctx.hand, ctx.state.turn
    assert hand is not None
    keep = max(0, 2 - turn.held_size)
    if not ctx.must_out and feasible.reaches_minimum(
            ctx.rules, hand, ctx.info, keep, ctx.minimum - ctx.pending_points, ctx.scope):
        return True
    full = hand if not turn.held else _add(hand, turn.held)
    return ctx.go_ok and feasible.can_meld_out(ctx.rules, full, ctx.info, ctx.need,
                                               scope=ctx.scope)


def _melds(ctx: Ctx, wilds: list[tuple[int, ...]], blocks: list[Block], judged: list[Action],
           fast: bool) -> None:
    """Meld candidates, one per (rank, naturals, twos, jokers). With ``fast``, candidates that
    leave two cards or more go into blocks unjudged; the rest are judged one by one."""
    nat = ctx.nat
    assert nat is not None
    seat = ctx.seat
    max_w = ctx.rules.max_wilds
    # first_of[k]: index of the first wild set with k cards or more (the sets are by size)
    first_of = [len(wilds)] * (max_w + 2)
    for i in range(len(wilds) - 1, -1, -1):
        first_of[len(wilds[i])] = i
    for k in range(max_w, -1, -1):
        first_of[k] = min(first_of[k], first_of[k + 1])
    top = len(wilds[-1])
    spare = ctx.hand_size - 2  # cards a meld may take and still leave one to discard, one to keep
    rules = ctx.rules
    majority = rules.natural_majority
    melds = ctx.melds
    scope = ctx.scope
    cap = rules.max_meld_size or 10_000
    wild_meld = melds.get(WILD_RANK)
    blocked = (scope is not None and rules.wild_meld_blocks and wild_meld is not None
               and wild_meld.size < rules.canasta_size)
    for rank in range(2, 13):
        n_have = nat[rank]
        existing = melds.get(rank)
        if scope is not None and rank in scope.closed:
            continue  # docs/variants/modern-american.md#melds: nobody melds a closed rank
        if existing is None:
            if n_have < 2:
                continue
            room, low, have_n, have_w = max_w, 2, 0, 0
        else:
            room, low = max_w - existing.wilds, 0
            have_n, have_w = existing.naturals, existing.wilds
        segments: list[tuple[int, int, int]] = []
        count = 0
        for n in range(low, n_have + 1):
            lo = max(0, (3 - n) if existing is None else (1 if n == 0 else 0))
            hi = min(room, top)
            if majority:  # naturals must outnumber wilds in the resulting meld (ASS p. 2)
                hi = min(hi, n + have_n - 1 - have_w)
            if scope is not None:  # Modern American: seven cards at most; where wild cards may go
                if n + have_n + have_w > cap:
                    break
                hi = 0 if blocked else min(hi, feasible.wild_room(rules, rank, n + have_n, have_w,
                                                                  scope.opening))
            if lo > hi:
                continue
            cut = min(hi, spare - n) if fast else lo - 1
            if cut >= lo:
                first, k = first_of[lo], first_of[cut + 1] - first_of[lo]
                if k:
                    segments.append((n, first, k))
                    count += k
            start, stop = first_of[max(lo, cut + 1)], first_of[hi + 1]
            if start < stop:
                base = tuple(ctx.cards_of_rank(rank)[:n])
                for w in wilds[start:stop]:
                    a = Action("meld", base + w, rank, None, None, seat)
                    if isinstance(_judge_meld(ctx, a), Plan):
                        judged.append(a)
        if count:
            blocks.append((rank, segments, count))
    if ctx.rules.wild_meld != "none":
        _wild_melds(ctx, judged)
    if ctx.rules.real_canasta_bonus:
        _real_melds(ctx, judged)
    blacks = nat[THREE]
    if blacks:
        have = melds[THREE].naturals if THREE in melds else 0
        threes = ctx.cards_of_rank(THREE)
        for n in range(1, blacks + 1):
            if 3 <= have + n <= 4:
                a = Action("meld", tuple(threes[:n]), THREE, None, None, seat)
                if isinstance(_judge_meld(ctx, a), Plan):
                    judged.append(a)


def _wild_melds(ctx: Ctx, judged: list[Action]) -> None:
    """Melds of wild cards only (where the variant allows them): every count of twos and jokers."""
    assert ctx.nat is not None and ctx.hand is not None
    twos = ctx.cards_of_rank(TWO)
    have = ctx.melds[WILD_RANK].size if WILD_RANK in ctx.melds else 0
    goal = ctx.rules.canasta_size
    for t in range(len(twos) + 1):
        for j in range(ctx.hand[JOKER] + 1):
            if t + j > 0 and (have + t + j >= 3) and have + t + j <= goal:
                a = Action("meld", tuple(twos[:t]) + (JOKER,) * j, WILD_RANK, None, None, ctx.seat)
                if isinstance(_judge_meld(ctx, a), Plan):
                    judged.append(a)


def _real_melds(ctx: Ctx, judged: list[Action]) -> None:
    """Suit sequences of seven naturals in the hand ("Canastra Real", docs/variants/canastra.md)."""
    assert ctx.hand is not None
    for cards in feasible.real_sequences(ctx.hand):
        a = Action("meld", cards, REAL, None, None, ctx.seat)
        if isinstance(_judge_meld(ctx, a), Plan):
            judged.append(a)


def _pickup_candidates(ctx: Ctx) -> list[tuple[int, ...]]:
    """The pickups worth judging: adding the top card (alone or with one natural) to the side's
    meld, a natural pair, or one natural and a wild (pagat "The Play in Classic Canasta")."""
    pile = ctx.state.pile
    top = pile.top
    if top is None or not is_natural(top):
        return []
    hand, nat = ctx.hand, ctx.nat
    assert hand is not None and nat is not None
    rank = top >> 2
    frozen = (pile.frozen or ctx.rules.pile_always_frozen
              or (ctx.rules.frozen_until_melded and not ctx.opened))
    out: list[tuple[int, ...]] = []
    rules = ctx.rules
    if not frozen and rank in ctx.melds and ctx.opened:
        if rules.pile_add_alone:
            out.append(())
        if rules.pile_one_natural and nat[rank]:
            out.append((ctx.cards_of_rank(rank)[0],))
    if nat[rank] >= 2:
        out.append(tuple(ctx.cards_of_rank(rank)[:2]))
    if nat[rank] >= 1 and not frozen and ctx.rules.pile_natural_and_wild:
        one = ctx.cards_of_rank(rank)[0]
        if nat[TWO]:
            out.append((one, ctx.cards_of_rank(TWO)[0]))
        if hand[JOKER]:
            out.append((one, JOKER))
    return out

