"""Legal actions, checking and applying actions, written per phase (OpenSpiel style).

One judge decides every action: ``legal_actions`` lists the candidates the judge accepts, and
``apply`` builds the next state only from what the judge accepted, so the list and ``apply``
cannot disagree. Every acceptance also asks whether the turn can still be finished, so no
sequence of legal actions leads to a state without one (see README, "Turn model").
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from . import feasible
from .cards import (
    JOKER,
    REAL,
    THREE,
    TWO,
    WILD_RANK,
    Counts,
    card_code,
    cards_of,
    counts_of,
    is_black_three,
    is_natural,
    is_real_sequence,
    is_red_three,
    is_wild,
    naturals_by_rank,
    rank_code,
)
from .reasons import IllegalAction, Refusal, Words, hand_of
from .rules import RuleSet
from .state import (
    ANSWER,
    DRAW,
    EMPTY_PILE,
    OVER,
    PLAY,
    Action,
    Meld,
    Pile,
    State,
    Turn,
    meld_of,
    new_tuple,
)

Event = dict[str, Any]


class NeedsHiddenInfo(Exception):
    def __init__(self, what: Words) -> None:
        super().__init__(what)
        self.refusal = Refusal("NEEDS_HIDDEN_INFO", {"what": what})


def _r(code: str, **params: Any) -> Refusal:
    return Refusal(code, params)


def _codes(cards: Any) -> str:
    return " ".join(card_code(c) for c in cards)


# ---------------------------------------------------------------- context of the seat to move


_RECENT: Final[dict[int, tuple[State, Ctx]]] = {}


def context(state: State) -> Ctx:
    """The state's context, computed once: listing and then applying reuse it."""
    hit = _RECENT.get(id(state))
    if hit is not None and hit[0] is state:
        return hit[1]
    ctx = Ctx(state)
    if len(_RECENT) >= 8:
        _RECENT.clear()
    _RECENT[id(state)] = (state, ctx)
    return ctx


class Ctx:
    """What every judgement of one state needs, computed once."""

    __slots__ = ("state", "rules", "seat", "side", "hand", "hand_size", "opened", "melds",
                 "_info", "minimum", "pending_points", "need", "must_out", "go_ok", "nat",
                 "scope", "_in_sequences")

    def __init__(self, state: State) -> None:
        rules = state.rules
        turn = state.turn
        self.state = state
        self.rules = rules
        self.seat = turn.seat
        self.side = turn.seat % rules.sides
        self.hand = state.hands[turn.seat]
        self.hand_size = state.hand_sizes[turn.seat]
        table = state.melds[self.side]
        self.opened = bool(table)
        self.melds: dict[int, Meld] = {m.rank: m for m in (table or turn.pending)}
        self._info: dict[int, tuple[int, int]] | None = None
        self.minimum = 0 if table else rules.initial_minimum(state.scores[self.side])
        self.scope: feasible.Scope | None = _scope(state, table) if rules.modern else None
        self.pending_points = (initial_points(rules, self.melds, self.pile_rank)
                               if turn.pending else 0)
        self.need = rules.canastas_to_go_out
        self.must_out = turn.asked == "yes" or THREE in self.melds or turn.going_out
        self.go_ok = turn.asked != "no"
        self.nat = naturals_by_rank(self.hand) if self.hand is not None else None
        self._in_sequences: dict[int, int] | None = None

    @property
    def pile_rank(self) -> int | None:
        """The rank of the pending meld that holds a taken top card (modern rules only)."""
        return self.scope.pile_rank if self.scope is not None else None

    @property
    def info(self) -> dict[int, tuple[int, int]]:
        """The side's melds as {rank: (naturals, wilds)}, for the feasibility checks."""
        if self._info is None:
            self._info = _info(self.melds)
        return self._info

    def cards_of_rank(self, rank: int) -> list[int]:
        """The hand's cards of one rank, suits in a fixed order."""
        hand = self.hand
        assert hand is not None
        out: list[int] = []
        for c in range(rank * 4, rank * 4 + 4):
            for _ in range(hand[c]):  # a native loop compiled; ``(c,) * n`` is a generic call
                out.append(c)
        if self.rules.real_canasta_bonus and len(out) > 1:
            # suits matter where suit sequences are melded: the cards no sequence of the hand
            # needs come first, so a listed meld or pickup keeps the sequences (Canastra rule text)
            uses = self.in_sequences()
            out.sort(key=lambda c: uses.get(c, 0))
        return out

    def in_sequences(self) -> dict[int, int]:
        """How many of the hand's suit sequences of seven each card belongs to."""
        if self._in_sequences is None:
            uses: dict[int, int] = {}
            if self.hand is not None:
                for cards in feasible.real_sequences(self.hand):
                    for c in cards:
                        uses[c] = uses.get(c, 0) + 1
            self._in_sequences = uses
        return self._in_sequences


def _points(rules: RuleSet, melds: tuple[Meld, ...]) -> int:
    values = rules.card_values
    return sum(values[c] for m in melds for c in m.cards)


def _scope(state: State, table: tuple[Meld, ...]) -> feasible.Scope:
    """Closed ranks, the opening turn and the taken top card's meld (Modern American)."""
    rules, turn = state.rules, state.turn
    closed: set[int] = set()
    if rules.closed_ranks:
        for melds in (*state.melds, turn.pending):
            for m in melds:
                if m.rank >= 2 and m.wilds == 0 and m.size >= rules.canasta_size:
                    closed.add(m.rank)
    opening = all(m.rank in turn.started for m in table)
    pile_rank = turn.started[0] if turn.took_pile and turn.started and not table else None
    return feasible.Scope(frozenset(closed), opening, pile_rank)


def initial_points(rules: RuleSet, melds: dict[int, Meld], pile_rank: int | None) -> int:
    """The initial meld's card points; the taken top card does not count where only the hand's
    cards do (docs/variants/modern-american.md#the-initial-meld)."""
    points = _points(rules, tuple(melds.values()))
    if pile_rank is not None and rules.initial_from_hand and pile_rank in melds:
        points -= rules.card_values[pile_rank * 4 + 1]
    return points


def _clean(meld: Meld) -> bool:
    """A pure meld of three naturals or more, or a wild-card meld (Modern American, initial meld)."""
    return meld.size >= 3 and (meld.rank == WILD_RANK or (meld.wilds == 0 and meld.rank >= 2))


def _initial_met(ctx: Ctx, melds: dict[int, Meld], pile_rank: int | None) -> bool:
    return initial_met(ctx.rules, ctx.minimum, melds, pile_rank)


def initial_met(rules: RuleSet, minimum: int, melds: dict[int, Meld], pile_rank: int | None) -> bool:
    """Do the side's melds of this turn make its initial meld (pagat "Initial Meld
    Requirement"; Modern American, initial meld: a pure meld, and a canasta from the hand needs no
    minimum)?"""
    if rules.initial_needs_clean and not any(_clean(m) for m in melds.values()):
        return False
    if initial_points(rules, melds, pile_rank) >= minimum:
        return True
    return rules.canasta_waives_minimum and any(
        m.size >= rules.canasta_size and m.rank != pile_rank for m in melds.values())


def _canastas(rules: RuleSet, melds: dict[int, Meld] | list[Meld]) -> int:
    items = melds.values() if isinstance(melds, dict) else melds
    return sum(1 for m in items if m.size >= rules.canasta_size)


def _sub(hand: Counts, cards: tuple[int, ...]) -> Counts | None:
    h = list(hand)
    for c in cards:
        if h[c] == 0:
            return None
        h[c] = h[c] - 1
    return tuple(h)


def _add(hand: Counts, cards: tuple[int, ...]) -> Counts:
    h = list(hand)
    for c in cards:
        h[c] = h[c] + 1
    return tuple(h)


def meld_shape_refusal(rules: RuleSet, rank: int, naturals: int, wilds: int) -> Refusal | None:
    """Is a meld of this many naturals and wilds allowed (pagat "Melds in Classic Canasta")?"""
    if rank == WILD_RANK:  # wild cards only: a house rule (pagat "Wild Card Melds")
        if rules.wild_meld == "none":
            return _r("WILD_MELD_NOT_ALLOWED")
        if rules.wild_meld == "complete" and wilds != rules.canasta_size:
            return _r("WILD_MELD_SEVEN_AT_ONCE", size=rules.canasta_size)
        if wilds < 3:
            return _r("MELD_TOO_SMALL")
        if wilds > rules.canasta_size:
            return _r("MELD_TOO_BIG", max=rules.canasta_size)
        return None
    if rank == THREE:
        if wilds or not 3 <= naturals <= 4:
            return _r("BLACK_THREES_ONLY_WHEN_GOING_OUT")
        return None
    if naturals + wilds < 3:
        return _r("MELD_TOO_SMALL")
    if rules.max_meld_size and naturals + wilds > rules.max_meld_size:
        return _r("MELD_TOO_BIG", max=rules.max_meld_size)
    if wilds and rank in rules.no_wild_ranks:
        return _r("RANK_TAKES_NO_WILDS", rank=rank_code(rank))
    if naturals < rules.min_naturals:
        return _r("TOO_FEW_NATURALS", min=rules.min_naturals)
    if wilds > rules.max_wilds:
        return _r("TOO_MANY_WILDS", max=rules.max_wilds)
    if rules.natural_majority and wilds >= naturals:
        return _r("NATURALS_MUST_OUTNUMBER_WILDS")
    return None


# ---------------------------------------------------------------- plans (accepted actions)


class Plan(NamedTuple):
    """What the judge worked out for an accepted action; ``build`` turns it into a state. Made
    by ``_plan`` (compiled, a dataclass's generated ``__init__`` runs as Python code)."""

    action: Action
    rank: int | None
    meld: Meld | None  # the side's meld of ``rank`` after the action
    hand: Counts | None  # the seat's hand after the action (before pile cards join)
    commit: bool  # the action brings the side to its initial minimum
    goes_out: bool
    release: bool  # a take whose pile cards join the hand at once: the turn goes out at once


def _plan(action: Action, rank: int | None = None, meld: Meld | None = None,
          hand: Counts | None = None, commit: bool = False, goes_out: bool = False,
          release: bool = False) -> Plan:
    plan: Plan = new_tuple(Plan, (action, rank, meld, hand, commit, goes_out, release))
    return plan


def _info(melds: dict[int, Meld]) -> dict[int, tuple[int, int]]:
    """Melds as ``{rank: (naturals, wilds)}``, the form the feasibility checks read."""
    return {r: (m.naturals, m.wilds) for r, m in melds.items()}


def _minimum_waived(rules: RuleSet, took_pile: bool, going_out: bool) -> bool:
    """Going out at once needs no initial minimum: after a stock draw (pagat "Initial Meld
    Requirement"); after taking the pile only where the rules waive it then too, the pile's
    cards having joined the hand for it (ASS p. 4, "Handcanasta": ``Turn.going_out``)."""
    return rules.concealed_waives_minimum and (not took_pile or going_out)


def _finish_refusal(ctx: Ctx, hand: Counts | None, size: int, melds: dict[int, Meld],
                    committed: bool, held: int, held_cards: tuple[int, ...] | None,
                    took_pile: bool, scope: feasible.Scope | None = None,
                    going_out: bool = False) -> Refusal | None:
    """After an action leaving ``hand`` and the side's ``melds``: can the turn be finished?
    ``going_out``: the action makes the turn one that goes out at once (``Turn.going_out``)."""
    rules = ctx.rules
    scope = scope or ctx.scope
    turn = ctx.state.turn
    going_out = going_out or turn.going_out
    must_out = ctx.must_out or going_out or THREE in melds
    # a binding yes, the pile's cards taken for going out at once, or black threes on the
    # table: they are melded only when going out
    out_code = ("MUST_GO_OUT" if turn.asked == "yes" else "MUST_GO_OUT_AT_ONCE" if going_out
                else "BLACK_THREES_ONLY_WHEN_GOING_OUT")
    # going out must end with a discard, unless by melding black threes (ASS p. 4)
    must_discard = rules.must_discard_to_go_out and THREE not in melds
    if committed:
        total = size + held
        if total == 0:
            if not ctx.go_ok:
                return _r("PARTNER_SAID_NO")
            if _canastas(rules, melds) < ctx.need:
                return _r("CANNOT_GO_OUT_WITHOUT_CANASTA", needed=ctx.need)
            if must_discard:
                return _r("MUST_DISCARD_TO_GO_OUT")
            return None
        if must_out or total == 1:
            if not ctx.go_ok:
                return _r("PARTNER_SAID_NO")
            full = hand if not held else (None if hand is None or held_cards is None
                                          else _add(hand, held_cards))
            if full is None:  # whether the hand can go out turns on the pile's cards
                raise NeedsHiddenInfo(hand_of(ctx.seat) if hand is None else PILE_CARDS)
            if not feasible.can_meld_out(rules, full, _info(melds), ctx.need, must_discard,
                                         scope=scope):
                if must_out:
                    return _r(out_code)
                return _r("CANNOT_GO_OUT_WITHOUT_CANASTA", needed=ctx.need)
        return None
    # the side's melds this turn are still short of the initial minimum
    points = initial_points(rules, melds, scope.pile_rank if scope is not None else None)
    if hand is None:
        return None
    info = _info(melds)
    if size == 0:
        if not ctx.go_ok:
            return _r("PARTNER_SAID_NO")
        if held or not _minimum_waived(rules, took_pile, going_out):
            return _r("INITIAL_MELD_TOO_LOW", required=ctx.minimum, offered=points)
        if _canastas(rules, melds) < ctx.need:
            return _r("CANNOT_GO_OUT_WITHOUT_CANASTA", needed=ctx.need)
        if must_discard:
            return _r("MUST_DISCARD_TO_GO_OUT")
        return None
    if not must_out:
        keep = max(0, 2 - held)
        if feasible.reaches_minimum(rules, hand, info, keep, ctx.minimum - points, scope):
            return None
    if ctx.go_ok:
        if held:
            if held_cards is None:
                # going out with them turns on the pile's cards, once the hand can open at all
                # (every card of it laid: going out keeps none)
                if feasible.reaches_minimum(rules, hand, info, 0, ctx.minimum - points, scope):
                    raise NeedsHiddenInfo(PILE_CARDS)
            elif feasible.open_and_meld_out(
                    rules, hand, counts_of(held_cards), info, ctx.minimum - points, ctx.need,
                    must_discard, scope):
                return None
        elif feasible.can_meld_out(rules, hand, info, ctx.need, must_discard,
                                   minimum=0 if _minimum_waived(rules, took_pile, going_out)
                                   else ctx.minimum, points_so_far=points, scope=scope):
            return None
    if must_out:
        return _r(out_code)
    return _r("INITIAL_MELD_UNREACHABLE", required=ctx.minimum)


# ---------------------------------------------------------------- the judge, per phase


def judge(ctx: Ctx, action: Action) -> Plan | Refusal:
    """Accept ``action`` with a plan, or refuse it with a reason."""
    state = ctx.state
    turn = state.turn
    phase = turn.phase
    kind = action.kind
    if phase == OVER:
        return _r("DEAL_OVER")
    if kind == "answer":
        if phase != ANSWER:
            return _r("ANSWER_NOT_EXPECTED")
        answerer = answering_seat(state)
        if action.seat is not None and action.seat != answerer:
            return _r("NOT_YOUR_TURN", expected=answerer, seat=action.seat)
        return _plan(action)
    if action.seat is not None and action.seat != turn.seat:
        expected = answering_seat(state) if phase == ANSWER else turn.seat
        if action.seat != expected:
            return _r("NOT_YOUR_TURN", expected=expected, seat=action.seat)
    wanted = DRAW if kind in ("draw", "take-pile") else PLAY
    if phase != wanted:
        return _r("WRONG_PHASE", action=kind, phase=phase)
    if ctx.hand is None and kind not in ("draw", "ask"):
        raise NeedsHiddenInfo(hand_of(ctx.seat))
    if kind == "draw":
        return _judge_draw(ctx, action)
    if kind == "take-pile":
        return _judge_take(ctx, action)
    if kind == "meld":
        return _judge_meld(ctx, action)
    if kind == "discard":
        return _judge_discard(ctx, action)
    return _judge_ask(ctx, action)


def answering_seat(state: State) -> int:
    """The partner who answers "may I go out?": the next partner clockwise."""
    partners = state.rules.partners(state.turn.seat)
    seat = state.turn.seat
    return min(partners, key=lambda p: (p - seat) % state.rules.players) if partners else seat


_ADD_TOP_CARD: Final = Action("take-pile")


def _judge_draw(ctx: Ctx, action: Action) -> Plan | Refusal:
    """pagat "Going Out": with the stock used up, a pile that is not frozen and whose top card
    matches a meld of the side must be taken. The top card and the side's melds decide it, so
    it is judged the same whether the hand is known or only its size."""
    state = ctx.state
    if (state.stock_size == 0 and ctx.rules.stock_exhausted == "continue"
            and isinstance(_judge_take(ctx, _ADD_TOP_CARD), Plan)):
        return _r("MUST_TAKE_PILE")
    return _plan(action)


#: ``NeedsHiddenInfo``'s what of a discard pile seen as its top card and size
PILE_CARDS: Final[Words] = {"en": "the cards of the discard pile",
                            "de": "die Karten des Ablagestapels"}

_FREEZERS: Final = (("freeze_on_wild", "a wild card", "eine wilde Karte"),
                    ("freeze_on_red_three", "a red three", "eine rote Drei"),
                    ("freeze_on_black_three", "a black three", "eine schwarze Drei"))


def _frozen(rules: RuleSet, pile: Pile, rank: int, always: bool = False) -> Refusal:
    """The frozen-pile refusal, saying why it is frozen (pagat "Frozen Discard Pile"): where the
    variant freezes every pile (Modern American) that is the reason, whatever lies in it."""
    kinds = [(en, de) for flag, en, de in _FREEZERS if getattr(rules, flag)]
    why = ({"en": " (always, in this variant)", "de": " (immer, in dieser Variante)"} if always
           else {"en": f" ({' or '.join(en for en, _ in kinds)} lies in it)",
                 "de": f" ({' oder '.join(de for _, de in kinds)} liegt darin)"} if pile.frozen
           else {"en": " for your side until it melds", "de": " für euer Team, bis es gemeldet hat"})
    return _r("PILE_FROZEN_NEEDS_NATURAL_PAIR", rank=rank_code(rank), why=why)


def _judge_take(ctx: Ctx, action: Action) -> Plan | Refusal:
    rules, state = ctx.rules, ctx.state
    pile = state.pile
    top = pile.top
    if pile.size == 0 or top is None:
        return _r("PILE_EMPTY")
    if state.stock_size == 0 and rules.stock_exhausted != "continue":
        return _r("STOCK_EXHAUSTED")  # the deal ends when the stock is used up
    if is_wild(top):
        return _r("PILE_BLOCKED_BY_WILD")
    if is_black_three(top) and rules.black_three_blocks:
        return _r("PILE_BLOCKED_BY_BLACK_THREE")
    if not is_natural(top):
        return _r("PILE_CARDS_DO_NOT_MATCH", top=card_code(top))
    hand: Counts | None
    if ctx.hand is None:  # only the top card onto a meld is judged without the hand
        if action.cards:
            raise NeedsHiddenInfo(hand_of(ctx.seat))
        hand = None
    else:
        hand = _sub(ctx.hand, action.cards)
        if hand is None:
            return _r("CARDS_NOT_IN_HAND", cards=_codes(action.cards))
    if rules.one_card_pile_rule and ctx.hand_size == 1 and pile.size == 1:
        return _r("ONE_CARD_PILE")
    if rules.pile_needs_melded and not ctx.opened:
        return _r("PILE_NEEDS_INITIAL_MELD")
    rank = top >> 2
    if ctx.scope is not None and rank in ctx.scope.closed:
        return _r("RANK_CLOSED", rank=rank_code(rank))
    always = rules.pile_always_frozen
    frozen = always or pile.frozen or (rules.frozen_until_melded and not ctx.opened)
    cards = action.cards
    existing = ctx.melds.get(rank) if ctx.opened else None
    naturals = sum(1 for c in cards if is_natural(c) and c >> 2 == rank)
    wilds = sum(1 for c in cards if is_wild(c))
    if naturals + wilds < len(cards) or len(cards) > 2:
        if frozen:
            return _frozen(rules, pile, rank, always)
        return _r("PILE_CARDS_DO_NOT_MATCH", top=card_code(top))
    if naturals < 2 and frozen:
        return _frozen(rules, pile, rank, always)
    if not cards:  # the top card alone onto the side's meld
        if not rules.pile_add_alone:
            return _r("PILE_NEEDS_A_NATURAL", rank=rank_code(rank))
        if existing is None:
            return _r("NO_MELD_TO_ADD_TO", rank=rank_code(rank))
    elif naturals == 1 and wilds == 0:  # the top card and one natural onto the side's meld
        if not rules.pile_one_natural:
            return _r("PILE_CARDS_DO_NOT_MATCH", top=card_code(top))
        if existing is None:
            return _r("NO_MELD_TO_ADD_TO", rank=rank_code(rank))
    elif naturals == 1 and wilds == 1 and not rules.pile_natural_and_wild:
        return _r("PILE_NEEDS_NATURAL_PAIR", rank=rank_code(rank))
    elif naturals == 0:
        return _r("PILE_CARDS_DO_NOT_MATCH", top=card_code(top))
    meld = existing.plus((top, *cards)) if existing else meld_of(rank, (top, *cards))
    bad = meld_shape_refusal(rules, rank, meld.naturals, meld.wilds)
    if bad:
        return bad
    size = ctx.hand_size - len(cards)
    red_threes_inside = 2 * rules.packs if pile.frozen else 0  # at most, all of them
    if ctx.opened and not ctx.must_out and size + pile.size - 1 - red_threes_inside >= 2:
        return _plan(action, rank, meld, hand)  # cards to spare: nothing more to judge
    if hand is None:
        raise NeedsHiddenInfo(hand_of(ctx.seat))
    melds = dict(ctx.melds) if ctx.opened else {}
    melds[rank] = meld
    rest = pile.cards[:-1] if pile.cards is not None else None
    # red threes lie only in a frozen pile (turned up at the deal); they go to the bonus cards
    reds = sum(1 for c in rest if is_red_three(c)) if rest is not None and pile.frozen else 0
    held_cards = (rest if not reds else tuple(c for c in rest if not is_red_three(c))) \
        if rest is not None else None
    held = pile.size - 1 - reds
    scope = ctx.scope._replace(pile_rank=rank) if ctx.scope is not None and not ctx.opened else None
    commit = ctx.opened or _initial_met(ctx, {rank: meld}, rank)
    if rest is None and pile.frozen and rules.freeze_on_red_three and held:
        # a frozen pile seen from outside may hold red threes turned up at the deal, which go
        # to the bonus cards: judged with none and with as many as may lie there, or it turns
        # on the pile's cards
        fewest = max(0, held - 2 * rules.packs)
        verdicts = [_finish_refusal(ctx, hand, size, melds, commit, n, None, took_pile=True,
                                    scope=scope) for n in (held, fewest)]
        if (verdicts[0] is None) != (verdicts[1] is None):
            raise NeedsHiddenInfo(PILE_CARDS)
        if verdicts[0] is not None:
            return verdicts[0]
        return _plan(action, rank, meld, hand, commit=commit and not ctx.opened)
    if not commit and _out_at_once(ctx, hand, melds, held, held_cards, scope):
        assert held_cards is not None
        if _finish_refusal(ctx, _add(hand, held_cards), size + held, melds, False, 0, None,
                           took_pile=True, scope=scope, going_out=True) is None:
            return _plan(action, rank, meld, hand, release=True)
        # nor can it go out at once: refused as the minimum refuses it
    bad = _finish_refusal(ctx, hand, size, melds, commit, held, held_cards, took_pile=True,
                          scope=scope)
    if bad:
        return bad
    return _plan(action, rank, meld, hand, commit=commit and not ctx.opened)


def _out_at_once(ctx: Ctx, hand: Counts, melds: dict[int, Meld], held: int,
                 held_cards: tuple[int, ...] | None, scope: feasible.Scope | None) -> bool:
    """Does a take short of the initial minimum make the turn one that goes out at once, the
    pile's cards joining the hand (``Turn.going_out``)? Where the rules waive the minimum for
    that after taking the pile (ASS p. 4, "Handcanasta") and the hand cannot reach the minimum
    with the pile's cards held back (pagat "Initial Meld Requirement": the top card and the
    hand's cards count): then only going out at once can finish the turn."""
    rules = ctx.rules
    if not rules.concealed_pile_waives_minimum or held_cards is None or not ctx.go_ok:
        return False
    if ctx.must_out:
        return True
    points = initial_points(rules, melds, scope.pile_rank if scope is not None else None)
    return not feasible.reaches_minimum(rules, hand, _info(melds), max(0, 2 - held),
                                        ctx.minimum - points, scope or ctx.scope)


def _resolve_rank(ctx: Ctx, action: Action) -> int | Refusal:
    ranks = {c >> 2 for c in action.cards if not is_wild(c)}
    if any(ctx.rules.is_bonus_card(c) for c in action.cards):
        if all(is_black_three(c) for c in action.cards if ctx.rules.is_bonus_card(c)):
            return _r("BLACK_THREES_NOT_MELDABLE")  # Modern American rules, 'Dreien': no three is melded
        return _r("RED_THREE_NOT_MELDABLE")
    if action.rank is not None and action.rank <= REAL:
        if not ctx.rules.real_canasta_bonus:
            return _r("SEQUENCE_NOT_ALLOWED")
        return REAL
    if len(ranks) > 1:
        return _r("NOT_A_VALID_MELD", cards=_codes(action.cards))
    if action.rank == WILD_RANK:
        if ctx.rules.wild_meld == "none":
            return _r("WILD_MELD_NOT_ALLOWED")
        if ranks:
            return _r("NOT_A_VALID_MELD", cards=_codes(action.cards))
        return WILD_RANK
    if ranks:
        rank = ranks.pop()
        if action.rank is not None and action.rank != rank:
            return _r("NOT_A_VALID_MELD", cards=_codes(action.cards))
        return rank
    if action.rank is None:
        return _r("RANK_NEEDED")
    return action.rank


def _judge_meld(ctx: Ctx, action: Action) -> Plan | Refusal:
    rules = ctx.rules
    assert ctx.hand is not None
    if not action.cards:
        return _r("MELD_TOO_SMALL")
    hand = _sub(ctx.hand, action.cards)
    if hand is None:
        return _r("CARDS_NOT_IN_HAND", cards=_codes(action.cards))
    rank = _resolve_rank(ctx, action)
    if isinstance(rank, Refusal):
        return rank
    if rank == THREE and not rules.black_three_meld:
        return _r("BLACK_THREES_NOT_MELDABLE")
    if rank == REAL:  # "Canastra Real": laid at once, a canastra of its own (canastra option)
        if not is_real_sequence(action.cards):
            return _r("NOT_A_SUIT_SEQUENCE")
        rank = min([r for r in ctx.melds if r <= REAL], default=REAL + 1) - 1
        melds = dict(ctx.melds)
        melds[rank] = meld = meld_of(rank, action.cards)
        return _meld_plan(ctx, action, rank, meld, melds, hand)
    existing = ctx.melds.get(rank)
    if existing is None and rank != WILD_RANK and all(is_wild(c) for c in action.cards):
        return _r("TOO_FEW_NATURALS", min=rules.min_naturals)
    meld = existing.plus(action.cards) if existing else meld_of(rank, action.cards)
    bad = meld_shape_refusal(rules, rank, meld.naturals, meld.wilds)
    if bad:
        return bad
    if ctx.scope is not None:
        bad = _modern_refusal(ctx, ctx.scope, rank, meld, meld.wilds - (existing.wilds if existing else 0))
        if bad:
            return bad
    melds = dict(ctx.melds)
    melds[rank] = meld
    return _meld_plan(ctx, action, rank, meld, melds, hand)


def _modern_refusal(ctx: Ctx, scope: feasible.Scope, rank: int, meld: Meld,
                    added_wilds: int) -> Refusal | None:
    """Closed ranks and where wild cards may go (docs/variants/modern-american.md: melds, wild cards in melds,
    'Siebenen und Asse', 'Auslagen aus wilden Karten')."""
    rules = ctx.rules
    if rank in scope.closed:
        return _r("RANK_CLOSED", rank=rank_code(rank))
    if not added_wilds or rank == WILD_RANK:
        return None
    if not scope.opening:
        if rank in rules.initial_wild_ranks:
            return _r("WILDS_ONLY_IN_INITIAL_MELD", rank=rank_code(rank))
        if rules.rule_of_five and meld.naturals < 5:
            return _r("RULE_OF_FIVE")
    wild = ctx.melds.get(WILD_RANK)
    if rules.wild_meld_blocks and wild is not None and wild.size < rules.canasta_size:
        return _r("WILD_MELD_INCOMPLETE")
    return None


def _meld_plan(ctx: Ctx, action: Action, rank: int, meld: Meld, melds: dict[int, Meld],
               hand: Counts) -> Plan | Refusal:
    """Accept a meld whose shape is right if the turn can still be finished after it."""
    turn = ctx.state.turn
    size = ctx.hand_size - len(action.cards)
    commit = ctx.opened or _initial_met(ctx, melds, ctx.pile_rank)
    held = turn.held_size if not ctx.opened else 0
    bad = _finish_refusal(ctx, hand, size, melds, commit, held, turn.held, turn.took_pile)
    if bad:
        return bad
    return _plan(action, rank, meld, hand, commit=commit and not ctx.opened,
                goes_out=size + (held if commit else 0) == 0)


def _judge_discard(ctx: Ctx, action: Action) -> Plan | Refusal:
    assert ctx.hand is not None
    card = action.card
    if card is None or ctx.hand[card] == 0:
        return _r("CARDS_NOT_IN_HAND", cards=card_code(card) if card is not None else "")
    turn = ctx.state.turn
    left = ctx.hand_size - 1
    if left and turn.going_out:
        return _r("MUST_GO_OUT_AT_ONCE")
    # melds short of the minimum: no discard, unless it goes out concealed after drawing from
    # the stock, where the minimum does not apply (pagat "Initial Meld Requirement")
    if not ctx.opened and turn.pending and (left or turn.held_size or not _minimum_waived(
            ctx.rules, turn.took_pile, turn.going_out)):
        return _r("INITIAL_MELD_TOO_LOW", required=ctx.minimum, offered=ctx.pending_points)
    if ctx.rules.discard_rules == "modern":
        bad = _discard_refusal(ctx, card, left)
        if bad:
            return bad
    if left == 0:
        if not ctx.go_ok:
            return _r("PARTNER_SAID_NO")
        if _canastas(ctx.rules, ctx.melds) < ctx.need:
            return _r("CANNOT_GO_OUT_WITHOUT_CANASTA", needed=ctx.need)
    elif ctx.must_out:
        return _r("MUST_GO_OUT")
    return _plan(action, hand=_sub(ctx.hand, (card,)), goes_out=left == 0)


def _discard_refusal(ctx: Ctx, card: int, left: int) -> Refusal | None:
    """Modern American, discarding: a wild card only to go out or from a hand of wild cards only; on an
    empty pile an ace or a seven only if no other natural is held, and a card of a closed rank
    only if nothing else can be discarded."""
    hand, nat = ctx.hand, ctx.nat
    assert hand is not None and nat is not None
    if is_wild(card):
        if left == 0 or nat[TWO] + hand[JOKER] == ctx.hand_size:
            return None
        return _r("WILD_DISCARD_NOT_ALLOWED")
    if ctx.state.pile.size:
        return None
    closed = ctx.scope.closed if ctx.scope is not None else frozenset()
    last = ctx.rules.empty_pile_ranks
    rank = card >> 2
    # a closed rank only if nothing else is possible: a plain natural could go; an ace or a
    # seven could not while this card, "another natural card", is held; a wild card could not
    if rank in closed and any(nat[r] and r not in closed and r not in last for r in range(2, 13)):
        return _r("CLOSED_RANK_DISCARD", rank=rank_code(rank))
    # an ace or a seven only if no other natural card is held, a card of a closed rank included
    # (ruling of 2026-12-01: read literally)
    if rank not in closed and rank in last and any(nat[r] and r not in last for r in range(2, 13)):
        return _r("EMPTY_PILE_DISCARD", rank=rank_code(rank))
    return None


_ASK_AFTER_DRAWING: Final = Refusal("ASK_NOT_ALLOWED", {"why": {
    "en": "only right after drawing from the stock, before melding",
    "de": "nur direkt nach dem Ziehen vom Stapel, vor dem Auslegen"}})
_ASK_WHEN_OUT_POSSIBLE: Final = Refusal("ASK_NOT_ALLOWED", {"why": {
    "en": "only when you could go out this turn (a yes binds)",
    "de": "nur, wenn du in diesem Zug ausmachen könntest (ein Ja bindet)"}})
_ASK_WHEN_A_NO_LEAVES_A_TURN: Final = Refusal("ASK_NOT_ALLOWED", {"why": {
    "en": "only while a no would still let you end the turn with a discard that keeps a card",
    "de": "nur, solange du nach einem Nein den Zug noch mit einem Abwurf beenden und eine "
          "Karte behalten könntest"}})


def _judge_ask(ctx: Ctx, action: Action) -> Plan | Refusal:
    rules, turn = ctx.rules, ctx.state.turn
    if not rules.ask_partner or not rules.partners(ctx.seat):
        return _r("ASK_NOT_ALLOWED", why={"en": "only with a partner, where the variant allows it",
                                         "de": "nur mit Partner und wo die Variante es erlaubt"})
    if turn.asked is not None:
        return _r("ASK_NOT_ALLOWED", why={"en": "once per turn", "de": "einmal pro Zug"})
    if rules.ask_once_per_deal and ctx.seat in turn.asked_this_deal:
        return _r("ASK_NOT_ALLOWED", why={"en": "once per deal", "de": "einmal pro Runde"})
    if (turn.took_pile or turn.pending or turn.started or turn.extended) and not rules.ask_during_play:
        return _ASK_AFTER_DRAWING
    if not _could_go_out(ctx):
        return _ASK_WHEN_OUT_POSSIBLE
    if not _could_finish_without_going_out(ctx):
        return _ASK_WHEN_A_NO_LEAVES_A_TURN
    return _plan(action)


def _could_finish_without_going_out(ctx: Ctx) -> bool:
    """After a no the turn must still end with a discard that keeps a card: asked during play
    (Canastra rule text), the hand may be down to one card, or the pending melds short of the minimum."""
    turn, hand = ctx.state.turn, ctx.hand
    if ctx.opened or not (turn.pending or turn.took_pile):
        return ctx.hand_size >= 2
    assert hand is not None
    return feasible.reaches_minimum(ctx.rules, hand, ctx.info, max(0, 2 - turn.held_size),
                                    ctx.minimum - ctx.pending_points, ctx.scope)


def _could_go_out(ctx: Ctx) -> bool:
    """Could the seat to move still go out this turn, from where the turn stands (a yes binds,
    so it is asked only then)? The same plans the judge accepts: the side's melds of the turn,
    the pile cards held until the initial meld stands, the minimum where it applies."""
    rules, turn, hand = ctx.rules, ctx.state.turn, ctx.hand
    if hand is None:
        raise NeedsHiddenInfo(hand_of(ctx.seat))
    must_discard = rules.must_discard_to_go_out and THREE not in ctx.melds
    if ctx.opened:
        return feasible.can_meld_out(rules, hand, ctx.info, ctx.need, must_discard, nat=ctx.nat,
                                     scope=ctx.scope)
    if turn.held_size:
        if turn.held is None:
            raise NeedsHiddenInfo({"en": "the pile cards held for the initial meld",
                                   "de": "die für die Erstmeldung gehaltenen Karten des Ablagestapels"})
        return feasible.open_and_meld_out(rules, hand, counts_of(turn.held), ctx.info,
                                          ctx.minimum - ctx.pending_points, ctx.need,
                                          must_discard, ctx.scope)
    minimum = 0 if _minimum_waived(rules, turn.took_pile, turn.going_out) else ctx.minimum
    return feasible.can_meld_out(rules, hand, ctx.info, ctx.need, must_discard, minimum,
                                 ctx.pending_points, ctx.nat, ctx.scope)


# ---------------------------------------------------------------- apply


def _next_turn(state: State, turn: Turn, melded: tuple[int, ...]) -> Turn:
    seat = (turn.seat + 1) % state.rules.players
    played = turn.played if turn.seat in turn.played else tuple(sorted((*turn.played, turn.seat)))
    # every field in order, made with ``new_tuple`` (a named tuple's own ``__new__`` is Python)
    new: Turn = new_tuple(Turn, (seat, DRAW, False, False, (), (), 0, None, turn.asked_this_deal,
                                 melded, (), False, None, False, False, False, played, False))
    return new


def _melded_after(turn: Turn) -> tuple[int, ...]:
    if (turn.started or turn.extended) and turn.seat not in turn.melded:
        return tuple(sorted((*turn.melded, turn.seat)))
    return turn.melded


def _end_deal(state: State, turn: Turn, went_out: int | None, events: list[Event],
              exhausted: bool = False) -> State:
    rules = state.rules
    concealed = False
    partner_melded = False
    if went_out is not None:
        side_melds = {m.rank: m for m in state.melds[rules.side_of(went_out)]}
        if rules.concealed_rule == "at_once":  # ASS p. 4: out at once, not having laid out
            concealed = went_out not in turn.melded
        else:  # pagat "Going Out": no earlier meld, nothing added to partner's, own canasta
            concealed = (went_out not in turn.melded and not turn.extended and any(
                r in side_melds and side_melds[r].size >= rules.canasta_size
                for r in turn.started))
        partner_melded = any(p in turn.melded for p in rules.partners(went_out))
        events.append({"type": "went-out", "seat": went_out, "concealed": concealed})
    events.append({"type": "deal-over", "stock_exhausted": exhausted})
    end = _turn_with(turn, phase=OVER, went_out=went_out, concealed=concealed,
                     partner_melded=partner_melded, stock_exhausted=exhausted, asked=None,
                     melded=_melded_after(turn), pending=(), held=(), held_size=0,
                     going_out=False)
    return _evolve(state, turn=end)


def _with_side_melds(state: State, side: int, melds: dict[int, Meld]) -> tuple[tuple[Meld, ...], ...]:
    table = list(state.melds)
    table[side] = tuple(sorted(melds.values(), key=lambda m: m.rank))
    return tuple(table)


def _evolve(state: State, hands: Any = None, hand_sizes: Any = None, melds: Any = None,
            bonus: Any = None, pile: Pile | None = None, stock: Any = None,
            stock_size: int | None = None, turn: Turn | None = None) -> State:
    """``dataclasses.replace`` for the hot path (it is several times slower); every field in
    order, made with ``new_tuple`` (a named tuple's own ``__new__`` is Python)."""
    new: State = new_tuple(State, (state.rules, state.dealer, state.scores,
                                   state.hands if hands is None else hands,
                                   state.hand_sizes if hand_sizes is None else hand_sizes,
                                   state.melds if melds is None else melds,
                                   state.bonus if bonus is None else bonus,
                                   state.pile if pile is None else pile,
                                   state.stock if stock is None else stock,
                                   state.stock_size if stock_size is None else stock_size,
                                   state.turn if turn is None else turn, state.set_aside))
    return new


#: ``_turn_with``'s "as it was" for the fields that may be None
_KEEP: Final[Any] = object()


def _turn_with(turn: Turn, phase: str | None = None, drawn: bool | None = None,
               took_pile: bool | None = None, pending: tuple[Meld, ...] | None = None,
               held: Any = _KEEP, held_size: int | None = None, asked: Any = _KEEP,
               asked_this_deal: tuple[int, ...] | None = None,
               melded: tuple[int, ...] | None = None, started: tuple[int, ...] | None = None,
               extended: bool | None = None, went_out: Any = _KEEP,
               concealed: bool | None = None, partner_melded: bool | None = None,
               stock_exhausted: bool | None = None, going_out: bool | None = None) -> Turn:
    """``turn._replace(...)`` for the hot path (compiled, where ``_replace`` is Python: a few
    frames and a map over the fields); every field in order, made with ``new_tuple``."""
    new: Turn = new_tuple(Turn, (
        turn.seat,
        turn.phase if phase is None else phase,
        turn.drawn if drawn is None else drawn,
        turn.took_pile if took_pile is None else took_pile,
        turn.pending if pending is None else pending,
        turn.held if held is _KEEP else held,
        turn.held_size if held_size is None else held_size,
        turn.asked if asked is _KEEP else asked,
        turn.asked_this_deal if asked_this_deal is None else asked_this_deal,
        turn.melded if melded is None else melded,
        turn.started if started is None else started,
        turn.extended if extended is None else extended,
        turn.went_out if went_out is _KEEP else went_out,
        turn.concealed if concealed is None else concealed,
        turn.partner_melded if partner_melded is None else partner_melded,
        turn.stock_exhausted if stock_exhausted is None else stock_exhausted,
        turn.played,
        turn.going_out if going_out is None else going_out))
    return new


def _set(seq: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return seq[:index] + (value,) + seq[index + 1:]


def build(ctx: Ctx, plan: Plan) -> tuple[State, list[Event]]:
    """The state after an accepted action, and what happened."""
    action = plan.action
    kind = action.kind
    state, turn, rules = ctx.state, ctx.state.turn, ctx.rules
    seat, side = ctx.seat, ctx.side
    events: list[Event] = []
    if kind == "answer":
        allow = bool(action.allow)
        events.append({"type": "answered", "seat": answering_seat(state), "allow": allow})
        return _evolve(state, turn=_turn_with(turn, phase=PLAY, asked="yes" if allow else "no")), events
    if kind == "ask":
        events.append({"type": "asked", "seat": seat})
        asked = tuple(sorted({*turn.asked_this_deal, seat}))
        return _evolve(state, turn=_turn_with(turn, phase=ANSWER, asked="waiting",
                                              asked_this_deal=asked)), events
    if kind == "draw":
        return _build_draw(state, events)
    if kind == "discard":
        assert action.card is not None and plan.hand is not None
        pile = state.pile
        cards = pile.cards + (action.card,) if pile.cards is not None else None
        frozen = (pile.frozen or (rules.freeze_on_wild and is_wild(action.card))
                  or (rules.freeze_on_black_three and is_black_three(action.card)))
        new_pile: Pile = new_tuple(Pile, (cards, action.card, pile.size + 1, frozen))
        state = _evolve(state, hands=_set(state.hands, seat, plan.hand),
                        hand_sizes=_set(state.hand_sizes, seat, ctx.hand_size - 1), pile=new_pile)
        events.append({"type": "discarded", "seat": seat, "card": action.card})
        if plan.goes_out:
            if turn.pending:  # concealed going out below the minimum: the melds go down
                state = _evolve(state, melds=_with_side_melds(state, side, ctx.melds))
            return _end_deal(state, turn, seat, events), events
        if state.stock_size == 0 and rules.stock_exhausted == "end_after_turn":
            events.append({"type": "stock-exhausted", "seat": seat})
            return _end_deal(state, turn, None, events, exhausted=True), events
        return _evolve(state, turn=_next_turn(state, turn, _melded_after(turn))), events
    assert plan.meld is not None and plan.rank is not None and plan.hand is not None
    rank = plan.rank
    earlier = rank in ctx.melds and rank not in turn.started  # a meld from before this turn
    # a suit sequence is started as "real", whichever number the side's melds give it (the
    # wire format names none)
    started = turn.started if rank in ctx.melds else (*turn.started, REAL if rank <= REAL else rank)
    if kind == "take-pile":
        return _build_take(ctx, plan, started, events)
    # meld
    melds = dict(ctx.melds)
    melds[rank] = plan.meld
    hand, size = plan.hand, ctx.hand_size - len(action.cards)
    events.append({"type": "melded", "seat": seat, "rank": rank, "cards": action.cards})
    new_turn = _turn_with(turn, started=started, extended=turn.extended or earlier)
    if ctx.opened or plan.commit:
        table = _with_side_melds(state, side, melds)
        if plan.commit:
            held = turn.held or ()
            hand = _add(hand, held)
            size += turn.held_size
            events.append({"type": "initial-meld", "seat": seat,
                           "points": initial_points(rules, melds, ctx.pile_rank),
                           "minimum": ctx.minimum})
            new_turn = _turn_with(new_turn, pending=(), held=(), held_size=0)
        state = _evolve(state, melds=table)
    else:
        pending = tuple(sorted(melds.values(), key=lambda m: m.rank))
        new_turn = _turn_with(new_turn, pending=pending)
    state = _evolve(state, hands=_set(state.hands, seat, hand),
                    hand_sizes=_set(state.hand_sizes, seat, size), turn=new_turn)
    if size == 0:
        if new_turn.pending:  # concealed going out without the minimum (drew from the stock)
            state = _evolve(state, melds=_with_side_melds(state, side, melds),
                            turn=_turn_with(new_turn, pending=()))
        return _end_deal(state, state.turn, seat, events), events
    return state, events


def _build_take(ctx: Ctx, plan: Plan, started: tuple[int, ...],
                events: list[Event]) -> tuple[State, list[Event]]:
    state, turn, rules = ctx.state, ctx.state.turn, ctx.rules
    seat, side = ctx.seat, ctx.side
    pile = state.pile
    assert plan.meld is not None and plan.rank is not None and plan.hand is not None
    if pile.cards is None:
        if pile.size > 1:
            raise NeedsHiddenInfo(PILE_CARDS)
        rest: tuple[int, ...] = ()
    else:
        rest = pile.cards[:-1]
    reds = tuple(c for c in rest if rules.is_bonus_card(c))
    held = tuple(c for c in rest if not rules.is_bonus_card(c))
    bonus = _set(state.bonus, side, tuple(sorted(state.bonus[side] + reds)))
    melds = dict(ctx.melds) if ctx.opened else {}
    melds[plan.rank] = plan.meld
    events.append({"type": "took-pile", "seat": seat, "top": pile.top,
                   "cards": plan.action.cards, "size": pile.size})
    if reds:
        events.append({"type": rules.threes_event(), "seat": seat, "cards": tuple(reds)})
    extended = plan.rank in ctx.melds and ctx.opened
    hand, size = plan.hand, ctx.hand_size - len(plan.action.cards)
    new_turn = _turn_with(turn, phase=PLAY, took_pile=True, started=started, extended=extended)
    if plan.release:  # for going out at once (ASS p. 4): the turn's melds stay pending
        hand = _add(hand, held)
        size += len(held)
        new_turn = _turn_with(new_turn, pending=(plan.meld,), going_out=True)
    elif ctx.opened or plan.commit:
        hand = _add(hand, held)
        size += len(held)
        if plan.commit:
            events.append({"type": "initial-meld", "seat": seat,
                           "points": initial_points(rules, {plan.rank: plan.meld}, plan.rank),
                           "minimum": ctx.minimum})
        state = _evolve(state, melds=_with_side_melds(state, side, melds))
    else:
        new_turn = _turn_with(new_turn, pending=(plan.meld,), held=held, held_size=len(held))
    state = _evolve(state, hands=_set(state.hands, seat, hand),
                    hand_sizes=_set(state.hand_sizes, seat, size), bonus=bonus,
                    pile=EMPTY_PILE, turn=new_turn)
    if size == 0 and not new_turn.pending:
        return _end_deal(state, new_turn, seat, events), events
    return state, events


def _build_draw(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    turn, rules = state.turn, state.rules
    seat, side = turn.seat, rules.side_of(turn.seat)
    if state.stock_size == 0:
        events.append({"type": "stock-exhausted", "seat": seat})
        return _end_deal(state, turn, None, events, exhausted=True), events
    if state.stock is None:
        raise NeedsHiddenInfo({"en": "the cards of the stock", "de": "die Karten des Stapels"})
    stock = state.stock
    hand = state.hands[seat]
    assert hand is not None
    wanted = min(rules.draw_count, len(stock))
    drawn = stock[:wanted]
    pos = wanted
    reds: list[int] = []
    ended = False
    if any(rules.is_bonus_card(c) for c in drawn):  # laid out and replaced (pagat "The Deal")
        drawn_list: list[int] = []
        pos = 0
        while wanted and pos < len(stock):
            card = stock[pos]
            pos += 1
            if rules.is_bonus_card(card):
                if pos == len(stock) and rules.last_three_kept:
                    drawn_list.append(card)  # Modern American: kept, counts 5, ends the deal
                    ended = True
                    break
                reds.append(card)
                # a red three as the last card ends the deal at once (pagat "Going Out"),
                # or the player finishes his turn where the deal ends after it (Family)
                if pos == len(stock) and rules.stock_exhausted != "end_after_turn":
                    ended = True
                continue
            drawn_list.append(card)
            wanted -= 1
        drawn = tuple(drawn_list)
    stock = stock[pos:]
    hand = _add(hand, drawn)
    events.append({"type": "drew", "seat": seat, "cards": drawn})
    bonus = state.bonus
    if reds:
        bonus = _set(bonus, side, tuple(sorted(bonus[side] + tuple(reds))))
        events.append({"type": rules.threes_event(), "seat": seat, "cards": tuple(reds)})
    if ended:
        state = _evolve(state, hands=_set(state.hands, seat, hand), bonus=bonus,
                        hand_sizes=_set(state.hand_sizes, seat, state.hand_sizes[seat] + len(drawn)),
                        stock=stock, stock_size=len(stock))
        return _end_deal(state, turn, None, events, exhausted=True), events
    play = _turn_with(turn, phase=PLAY, drawn=True)
    after = _evolve(state, _set(state.hands, seat, hand),
                    _set(state.hand_sizes, seat, state.hand_sizes[seat] + len(drawn)), None, bonus,
                    None, stock, len(stock), play)
    if not stock and rules.stock_exhausted == "end_after_turn" and _cannot_finish(after):
        events.append({"type": "stock-exhausted", "seat": seat})
        return _end_deal(after, play, None, events, exhausted=True), events
    return after, events


def _cannot_finish(state: State) -> bool:
    """Family: the player who drew the last cards finishes his turn, then the deal ends. Where
    the draw brought only red threes (laid out, nothing left to replace them) and left him one
    card he may not throw (it would empty his hand, and his side cannot go out), nothing can
    finish the turn: the deal ends at once, as the rule text says of an empty stock ('Wird der
    Nachziehstapel leer, endet die laufende Runde sofort'). Any meld of that one card would
    empty the hand the same way, so the discard alone decides."""
    hand = state.hands[state.turn.seat]
    if hand is None or state.hand_sizes[state.turn.seat] != 1:
        return False
    [card] = cards_of(hand)
    return isinstance(judge(context(state), Action("discard", card=card)), Refusal)


# ---------------------------------------------------------------- public: check and apply


def apply_action(state: State, action: Action) -> tuple[State, list[Event]]:
    """Apply one action; raises ``IllegalAction`` or ``NeedsHiddenInfo``."""
    ctx = context(state)
    verdict = judge(ctx, action)
    if isinstance(verdict, Refusal):
        raise IllegalAction(verdict)
    return build(ctx, verdict)


def apply_actions(state: State, actions: list[Action]) -> tuple[State, list[Event]]:
    """Apply a sequence (a whole turn); the first illegal one raises with its index."""
    events: list[Event] = []
    for index, action in enumerate(actions):
        try:
            state, more = apply_action(state, action)
        except IllegalAction as illegal:
            illegal.index = index
            raise
        except NeedsHiddenInfo as hidden:
            raise IllegalAction(hidden.refusal, index) from None
        events.extend(more)
    return state, events


def check_actions(state: State, actions: list[Action]) -> tuple[int, Refusal] | None:
    """None if every action is legal in sequence, else (index, refusal) of the first that is not.
    Later actions of a sequence need the state the earlier ones lead to (hidden cards may be
    needed: NEEDS_HIDDEN_INFO)."""
    for index, action in enumerate(actions):
        ctx = context(state)
        try:
            verdict = judge(ctx, action)
        except NeedsHiddenInfo as hidden:
            return index, hidden.refusal
        if isinstance(verdict, Refusal):
            return index, verdict
        if index == len(actions) - 1:
            return None
        try:
            state, _ = build(ctx, verdict)
        except NeedsHiddenInfo as hidden_later:
            return index + 1, hidden_later.refusal
    return None
