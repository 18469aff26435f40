"""Can the turn still be finished? Two questions answered on rank counts, never by search:

- ``best_addition``: the most card points a side can still meld from a hand this turn while
  keeping some cards back (for the initial-meld minimum, pagat "Initial Meld Requirement");
- ``can_meld_out``: can a hand be melded completely, but for at most one discard, so that the
  side ends with enough canastas (pagat "Going Out").

Both work on ``nat``: cards per rank index (twos and threes included) plus jokers, and ``melds``:
the side's melds on the table as ``{rank: (naturals, wilds)}``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement
from typing import NamedTuple

from .cards import JOKER, REAL, THREE, TWO, WILD_RANK, Counts, naturals_by_rank
from .rules import RuleSet

MeldInfo = dict[int, tuple[int, int]]


def wild_cap(rules: RuleSet, naturals: int) -> int:
    """Most wild cards a meld with this many naturals may hold (pagat "Melds in Classic Canasta";
    natural majority as an option, ASS p. 2)."""
    if rules.natural_majority:
        return min(rules.max_wilds, naturals - 1)
    return rules.max_wilds


def rank_values(rules: RuleSet) -> list[int]:
    return [rules.card_values[r * 4 + 1] for r in range(13)]


def _opt(rules: RuleSet, nat: list[int], jokers: int, melds: MeldInfo,
         values: list[int]) -> tuple[int, int]:
    """(points meldable from this hand onto/next to ``melds``, cards used), without threes."""
    wilds = nat[TWO] + jokers
    best = _opt_naturals(rules, nat, wilds, melds, values)
    goal = rules.canasta_size
    if rules.wild_meld == "complete" and WILD_RANK not in melds and wilds >= goal:
        value, used, placed = _opt_naturals(rules, nat, wilds - goal, melds, values)
        best = max(best, (value, used, placed + goal))  # seven wild cards as their own canasta
    value, used, placed = best
    j = min(jokers, placed)  # the jokers are the wild cards placed first (50 points, not 20)
    return value + j * rules.card_values[JOKER] + (placed - j) * values[TWO], used + placed


def _opt_naturals(rules: RuleSet, nat: list[int], wilds: int, melds: MeldInfo,
                  values: list[int]) -> tuple[int, int, int]:
    """(points of the naturals meldable, naturals used, wild cards placed with them)."""
    value = used = cap = 0
    pairs: list[int] = []
    for r in range(2, 13):
        n = nat[r]
        if r in melds:
            n0, w0 = melds[r]
            if n:
                value += n * values[r]
                used += n
            cap += max(0, wild_cap(rules, n0 + n) - w0)
        elif n >= 3:
            value += n * values[r]
            used += n
            cap += wild_cap(rules, n)
        elif n == 2 and wild_cap(rules, 2) > 0:
            pairs.append(r)
    if pairs and wilds:
        pairs.sort(key=lambda r: -values[r])
        for r in pairs[:wilds]:
            value += 2 * values[r]
            used += 2
            cap += wild_cap(rules, 2)
    return value, used, min(wilds, cap)


#: most ways to lay suit sequences that one feasibility question tries. A hand of a real deal
#: (under about 40 cards) has far fewer; a hand of nearly the whole deck has about 200,000, and
#: trying them all cost seconds per request: such a hand gets the first ways, fewest sequences
#: first (issue 17, CPU bounded).
SEQUENCE_CHOICES = 256


def real_sequences(hand: Counts) -> list[tuple[int, ...]]:
    """The suit sequences of seven naturals in ``hand``, fours to tens up to eights to aces
    (Canastra rule text 'Häufige Varianten: Canastra Real')."""
    out: list[tuple[int, ...]] = []
    for suit in range(4):
        for low in range(2, 7):
            cards = tuple([r * 4 + suit for r in range(low, low + 7)])
            if all([hand[c] for c in cards]):
                out.append(cards)
    return out


def sequence_choices(rules: RuleSet, hand: Counts,
                     melds: MeldInfo) -> list[tuple[Counts, MeldInfo, int]]:
    """Each way to lay suit sequences of seven from ``hand`` this turn, where the variant has
    them (canastra option ``canastra_real``): the hand left, the side's melds with the
    sequences (ranks ``REAL`` and below, each a canasta) and the card points laid. The first
    choice lays none."""
    out: list[tuple[Counts, MeldInfo, int]] = [(hand, melds, 0)]
    sequences = real_sequences(hand) if rules.real_canasta_bonus else []
    if not sequences:
        return out
    values = rules.card_values
    key = min([r for r in melds if r <= REAL], default=REAL + 1) - 1
    # (hand, melds, points, next key, first sequence still to try): the same sequence twice is
    # possible with two packs; each set of sequences is reached once
    todo: list[tuple[Counts, MeldInfo, int, int, int]] = [(hand, melds, 0, key, 0)]
    while todo and len(out) < SEQUENCE_CHOICES:
        h, m, points, k, first = todo.pop(0)  # breadth first: fewest sequences first
        for i in range(first, len(sequences)):
            cards = sequences[i]
            if all([h[c] for c in cards]):
                left = list(h)
                for c in cards:
                    left[c] -= 1
                laid = dict(m)
                laid[k] = (7, 0)
                gained = points + sum([values[c] for c in cards])
                out.append((tuple(left), laid, gained))
                todo.append((tuple(left), laid, gained, k - 1, i))
                if len(out) >= SEQUENCE_CHOICES:
                    break
    return out


def best_addition(rules: RuleSet, hand: Counts, melds: MeldInfo, keep: int) -> int:
    """Most points meldable from ``hand`` this turn keeping at least ``keep`` cards in hand,
    suit sequences included where the variant has them. -1 if the hand has fewer than ``keep``
    cards."""
    if not rules.real_canasta_bonus:
        return _best_addition(rules, hand, melds, keep)
    best = -1
    for left, laid, points in sequence_choices(rules, hand, melds):
        value = _best_addition(rules, left, laid, keep)
        if value >= 0 and points + value > best:
            best = points + value
    return best


def _best_addition(rules: RuleSet, hand: Counts, melds: MeldInfo, keep: int) -> int:
    size = sum(hand)
    if size < keep:
        return -1
    nat = naturals_by_rank(hand)
    jokers = hand[JOKER]
    values = rank_values(rules)
    value, used = _opt(rules, nat, jokers, melds, values)
    if size - used >= keep:
        return value
    cheap = _cheapest_kept(rules, nat, jokers, melds, values, keep - (size - used))
    if cheap is not None:
        return value - cheap
    # the best plan keeps some ``keep`` cards back: try every choice of them (rank or joker);
    # the best plan of the rest then leaves at least those
    classes = [r for r in range(13) if nat[r]] + ([13] if jokers else [])
    best = 0
    for held in combinations_with_replacement(classes, keep):
        n2 = list(nat)
        j2 = jokers
        ok = True
        for c in held:
            if c == 13:
                j2 -= 1
                ok = ok and j2 >= 0
            else:
                n2[c] = n2[c] - 1
                ok = ok and n2[c] >= 0
        if not ok:
            continue
        v, u = _opt(rules, n2, j2, melds, values)
        if size - u >= keep and v > best:
            best = v
    return best


def _cheapest_kept(rules: RuleSet, nat: list[int], jokers: int, melds: MeldInfo,
                   values: list[int], need: int) -> int | None:
    """Points lost by keeping ``need`` more cards back from the best plan, when the cheapest
    cards it melds can simply stay in hand (extra naturals of a meld, or wild cards beyond what
    the melds of two naturals need); None when that is not so and a search must decide."""
    if rules.natural_majority or rules.wild_meld != "none":
        return None
    wilds = nat[TWO] + jokers
    _, _, placed = _opt_naturals(rules, nat, wilds, melds, values)
    pairs = [r for r in range(2, 13) if r not in melds and nat[r] == 2]
    pairs_used = min(len(pairs), wilds) if wild_cap(rules, 2) > 0 else 0
    used: list[int] = []
    spare: list[int] = []
    for r in range(2, 13):
        n = nat[r]
        if r in melds:
            used += [values[r]] * n
            spare += [values[r]] * n
        elif n >= 3:
            used += [values[r]] * n
            spare += [values[r]] * (n - 3)
    placed_jokers = min(jokers, placed)
    placed_values = [values[TWO]] * (placed - placed_jokers) + [rules.card_values[JOKER]] * placed_jokers
    used += placed_values
    spare += sorted(placed_values)[:placed - pairs_used]  # the cheapest wilds are the spare ones
    for r in sorted(pairs, key=lambda r: -values[r])[:pairs_used]:
        used += [values[r]] * 2  # a meld of two naturals and a wild: none of it is spare
    cheapest = sorted(used)[:need]
    spare.sort()
    if len(spare) < need or spare[:need] != cheapest:
        return None
    return sum(cheapest)


def _meld_all(rules: RuleSet, nat: list[int], jokers: int, melds: MeldInfo,
              canastas: int) -> bool:
    """Can every card of ``nat``/``jokers`` be melded so the side has ``canastas`` canastas?"""
    blacks = nat[THREE]
    if blacks:
        total = blacks + melds.get(THREE, (0, 0))[0]
        if total < 3 or total > 4:
            return False
    size_cap: list[tuple[int, int]] = []
    required = 0
    for r in range(2, 13):
        n = nat[r]
        if r in melds:
            n0, w0 = melds[r]
            size_cap.append((n0 + n + w0, max(0, wild_cap(rules, n0 + n) - w0)))
        elif n:
            if n == 1:
                return False
            cap = wild_cap(rules, n)
            if n == 2:
                if cap < 1:
                    return False
                required += 1
                size_cap.append((3, cap - 1))
            else:
                size_cap.append((n, cap))
    wilds = nat[TWO] + jokers
    goal = rules.canasta_size
    have = sum(1 for s, _ in size_cap if s >= goal)
    if WILD_RANK in melds and melds[WILD_RANK][1] >= goal:
        have += 1
    have += sum(1 for r in melds if r <= REAL)  # suit sequences of seven are canastas
    if _place_wilds(size_cap, wilds - required, have, canastas, goal) and wilds >= required:
        return True
    # seven wild cards as their own canasta (a house rule: pagat "Wild Card Melds")
    return (rules.wild_meld == "complete" and WILD_RANK not in melds
            and wilds - goal >= required
            and _place_wilds(size_cap, wilds - goal - required, have + 1, canastas, goal))


def _place_wilds(size_cap: list[tuple[int, int]], spare: int, have: int, canastas: int,
                 goal: int) -> bool:
    """Can ``spare`` wild cards all be placed, completing canastas up to ``canastas``?"""
    if spare < 0 or spare > sum(c for _, c in size_cap):
        return False
    if have >= canastas:
        return True
    needs = sorted(goal - s for s, c in size_cap if s < goal and goal - s <= c)
    for need in needs:
        if need > spare:
            break
        spare -= need
        have += 1
        if have >= canastas:
            return True
    return False


def can_meld_out(rules: RuleSet, hand: Counts, melds: MeldInfo, canastas: int,
                 must_discard: bool = False, minimum: int = 0, points_so_far: int = 0,
                 nat: list[int] | None = None, scope: Scope | None = None) -> bool:
    """Can ``hand`` be melded out this turn, with at most one (or exactly one, if
    ``must_discard``) card discarded, leaving the side with ``canastas`` canastas and the turn's
    melded points (``points_so_far`` plus the hand's melded cards) at least ``minimum``?

    Where going out must end with a discard, melding the hand's black threes goes out without
    one (ASS p. 4); suit sequences of seven are laid where the variant has them (Canastra rule text)."""
    if not rules.real_canasta_bonus:
        return _can_meld_out(rules, hand, melds, canastas, must_discard, minimum, points_so_far,
                             nat, scope)
    for left, laid, points in sequence_choices(rules, hand, melds):
        if _can_meld_out(rules, left, laid, canastas, must_discard, minimum,
                         points_so_far + points, nat if left is hand else None, scope):
            return True
    return False


def _forced_discards(rules: RuleSet, nat: list[int], melds: MeldInfo) -> list[int] | None:
    """The final discard a hand with naturals ``nat`` (ranks 0..12) must make: ``[rank]``, or
    ``[]`` when any will do; None when it cannot go out: a single natural with no meld of its
    rank (it can take no partner), or black threes that cannot be melded, must go, and only
    one card can."""
    singles = [r for r in range(2, 13) if nat[r] == 1 and r not in melds]
    if len(singles) > 1:
        return None
    forced: list[int] = singles
    if nat[THREE]:
        blacks = nat[THREE] + melds.get(THREE, (0, 0))[0]
        if blacks < 3 or blacks > 4 or not rules.black_three_meld:
            if nat[THREE] > 1 and not rules.black_three_meld:
                return None
            forced = forced + [THREE]
    return forced if len(forced) <= 1 else None


def _can_meld_out(rules: RuleSet, hand: Counts, melds: MeldInfo, canastas: int,
                  must_discard: bool, minimum: int, points_so_far: int,
                  nat: list[int] | None, scope: Scope | None) -> bool:
    if scope is not None and rules.modern:
        return _modern_meld_out(rules, hand, melds, canastas, must_discard, minimum,
                                points_so_far, scope, nat)
    if nat is None:
        nat = naturals_by_rank(hand)
    jokers = hand[JOKER]
    forced = _forced_discards(rules, nat, melds)
    if forced is None:
        return False
    # no final discard: allowed, or the hand's black threes are melded (the meld of all checks
    # that they make three or four)
    no_discard = not must_discard or (nat[THREE] > 0 and rules.black_three_meld)
    if forced:
        choices: list[int | None] = [forced[0]]
    else:
        choices = [None] if no_discard else []
        choices += [r for r in range(13) if nat[r]] + ([13] if jokers else [])
    values = rules.card_values
    total_points = sum(n * values[c] for c, n in enumerate(hand)) if minimum else 0
    for c in choices:
        n2, j2, points = nat, jokers, total_points
        if c is not None:
            n2 = list(nat)
            if c == 13:
                j2 -= 1
                points -= values[JOKER]
            else:
                n2[c] = n2[c] - 1
                points -= values[c * 4 + (0 if c == THREE else 1)]
        if minimum and points_so_far + points < minimum:
            continue
        if _meld_all(rules, n2, j2, melds, canastas):
            return True
    return False


# ------------------------------------------------------------------------- Modern American
#
# Melds of at most seven cards, ranks closed by a pure canasta, the rule of five, ranks without
# wild cards, a growing wild-card meld that blocks wild cards elsewhere while incomplete, and an
# initial meld that needs a pure meld and counts hand cards only. The counting shortcuts above do
# not cover these, so the same two questions are answered by a small dynamic programme over the
# ranks: every reachable summary of a plan, with the most points it can bring.


class Scope(NamedTuple):
    """What the modern meld rules need beyond the side's melds (``engine.play.Ctx``)."""

    closed: frozenset[int]  # ranks nobody may meld (docs/variants/modern-american.md#melds)
    opening: bool  # the side's opening turn: wild cards go as in the initial meld
    pile_rank: int | None  # the pending meld that holds the taken top card, not laid from the hand


# (wild cards placed, cards kept in hand up to 2, canastas up to 2, has a clean meld, has a
# canasta laid from the hand) -> most card points melded from the hand
Plans = dict[tuple[int, int, int, int, int], int]


def wild_room(rules: RuleSet, rank: int, naturals: int, wilds: int, opening: bool) -> int:
    """Most wild cards a meld of ``rank`` with ``naturals`` natural and ``wilds`` wild cards may
    still take (docs/variants/modern-american.md: melds, wild cards in melds)."""
    if rank in rules.no_wild_ranks:
        return 0
    if not opening and (rank in rules.initial_wild_ranks
                        or (rules.rule_of_five and naturals < 5)):
        return 0
    room = wild_cap(rules, naturals) - wilds
    if rules.max_meld_size:
        room = min(room, rules.max_meld_size - naturals - wilds)
    return max(0, room)


def _rank_options(rules: RuleSet, rank: int, n: int, existing: tuple[int, int] | None,
                  scope: Scope, value: int) -> list[tuple[int, int, int, int, int, int]]:
    """Ways to meld ``n`` naturals of ``rank`` from the hand: (wilds, kept, canasta, clean,
    canasta from the hand, points). Fewer naturals than two below the most are never better:
    kept cards count only up to two."""
    goal = rules.canasta_size
    cap = rules.max_meld_size or 10_000
    closed = rank in scope.closed
    from_hand = rank != scope.pile_rank
    out: list[tuple[int, int, int, int, int, int]] = []
    if existing is not None:
        n0, w0 = existing
        s0 = n0 + w0
        kmax = 0 if closed else max(0, min(n, cap - s0))
        for k in sorted({0, *range(max(0, kmax - 2), kmax + 1)}):
            room = 0 if closed else wild_room(rules, rank, n0 + k, w0, scope.opening)
            for w in range(room + 1):
                can = int(s0 + k + w >= goal)
                out.append((w, n - k, can, int(w0 + w == 0 and n0 + k >= 3), can * from_hand, k * value))
        return out
    out.append((0, n, 0, 0, 0, 0))
    if closed or n < rules.min_naturals:
        return out
    kmax = min(n, cap)
    for k in range(max(rules.min_naturals, kmax - 2), kmax + 1):
        room = wild_room(rules, rank, k, 0, scope.opening)
        for w in range(max(0, 3 - k), room + 1):
            can = int(k + w >= goal)
            out.append((w, n - k, can, int(w == 0 and k >= 3), can, k * value))
    return out


@lru_cache(maxsize=32768)
def _plans(rules: RuleSet, nat: tuple[int, ...], jokers: int,
           melds: tuple[tuple[int, tuple[int, int]], ...], scope: Scope) -> Plans:
    info = dict(melds)
    values = rank_values(rules)
    wilds = nat[TWO] + jokers
    goal = rules.canasta_size
    sequences = sum(1 for r in info if r <= REAL)
    states: Plans = {(0, min(2, nat[THREE]), min(2, sequences), 0, 0): 0}
    for r in range(2, 13):
        n = nat[r]
        existing = info.get(r)
        if not n and existing is None:
            continue
        options = _rank_options(rules, r, n, existing, scope, values[r])
        nxt: Plans = {}
        for (w0, kept, can, clean, waived), pts in states.items():
            for w, k, c, cl, wv, p in options:
                if w0 + w > wilds:
                    continue
                key = (w0 + w, min(2, kept + k), min(2, can + c), clean | cl, waived | wv)
                if nxt.get(key, -1) < pts + p:
                    nxt[key] = pts + p
        states = nxt
    # the wild-card meld last: wild cards go to other melds before it is started, or after an
    # incomplete one is completed (docs/variants/modern-american.md#melds)
    wild = info.get(WILD_RANK)
    s0 = wild[1] if wild is not None else 0
    joker_value, two_value = rules.card_values[JOKER], values[TWO]
    out: Plans = {}
    for (placed, kept, can, clean, waived), pts in states.items():
        rest = wilds - placed
        if wild is not None:
            if rules.wild_meld != "grow":
                xs: list[int] = [0]
            elif rules.wild_meld_blocks and s0 < goal and placed:
                xs = [goal - s0] if goal - s0 <= rest else []
            else:
                xs = list(range(min(rest, goal - s0) + 1))
        elif rules.wild_meld == "grow":
            xs = [0, *range(3, min(rest, goal) + 1)]
        elif rules.wild_meld == "complete" and rest >= goal:
            xs = [0, goal]
        else:
            xs = [0]
        for x in xs:
            size = s0 + x
            exists = wild is not None or x > 0
            total = placed + x
            j = min(jokers, total)
            key = (total, min(2, kept + rest - x), min(2, can + int(exists and size >= goal)),
                   clean | int(exists and size >= 3), waived | int(exists and size >= goal))
            value = pts + j * joker_value + (total - j) * two_value
            if out.get(key, -1) < value:
                out[key] = value
    return out


def _plans_of(rules: RuleSet, hand: Counts, melds: MeldInfo, scope: Scope,
              nat: list[int] | None = None) -> Plans:
    return _plans(rules, tuple(nat if nat is not None else naturals_by_rank(hand)), hand[JOKER],
                  tuple(sorted(melds.items())), scope)


def reaches_minimum(rules: RuleSet, hand: Counts, melds: MeldInfo, keep: int, need: int,
                    scope: Scope | None = None) -> bool:
    """Can the side's initial meld be completed from ``hand`` this turn, keeping ``keep`` cards,
    with ``need`` more points (pagat "Initial Meld Requirement"; Modern American, initial meld: a pure
    meld or a wild-card meld, and a canasta from the hand needs no minimum)?"""
    if scope is None or not rules.modern:
        return best_addition(rules, hand, melds, keep) >= need
    clean_needed = rules.initial_needs_clean
    waiver = rules.canasta_waives_minimum
    for (_, kept, _, clean, waived), pts in _plans_of(rules, hand, melds, scope).items():
        if kept >= keep and (clean or not clean_needed) and (pts >= need or (waiver and waived)):
            return True
    return False


def _modern_meld_out(rules: RuleSet, hand: Counts, melds: MeldInfo, canastas: int,
                     must_discard: bool, minimum: int, points_so_far: int, scope: Scope,
                     nat: list[int] | None) -> bool:
    clean_needed = rules.initial_needs_clean and minimum > 0
    waiver = rules.canasta_waives_minimum
    for (_, kept, can, clean, waived), pts in _plans_of(rules, hand, melds, scope, nat).items():
        if (kept == 1 if must_discard else kept <= 1) and can >= canastas:
            if not minimum:
                return True
            if (clean or not clean_needed) and (points_so_far + pts >= minimum
                                                or (waiver and waived)):
                return True
    return False


# ------------------------------------------------------- the initial meld, then out at once
#
# Pile cards taken before the initial meld stands are held back until it does (pagat "Initial
# Meld Requirement": the top card counts toward the minimum, the cards under it do not). Going
# out in that turn is two steps: first melds from the hand alone reach the minimum, then, the
# held cards in the hand, everything is melded. Both steps draw on the same wild cards, so each
# may be possible alone and not both (Canastra, found by the wide random run: five fives and two
# eights to make a canastra while both jokers were needed for the minimum).

#: most transitions one such question may take. Real hands take a few thousand; a hostile hand
#: of most of the wild cards in the deck could take millions. Beyond it the answer is no: an
#: action may be refused that a search would allow, never the other way (issue 17, CPU bounded).
OPEN_AND_OUT_BUDGET = 200_000


def open_and_meld_out(rules: RuleSet, hand: Counts, held: Counts, melds: MeldInfo, need: int,
                      canastas: int, must_discard: bool, scope: Scope | None = None) -> bool:
    """Can the side's initial meld be completed from ``hand`` alone (``need`` more points; a
    pure meld and the canasta waiver where the variant has them) and then, the ``held`` pile
    cards taken in, every card melded but at most one discard (exactly one if
    ``must_discard``), the side ending with ``canastas`` canastas? One plan for both steps."""
    full = _plus(hand, held)
    if not reaches_minimum(rules, hand, melds, 0, need, scope) or not can_meld_out(
            rules, full, melds, canastas, must_discard, scope=scope):
        return False  # each step alone is necessary: the cheap checks rule most hands out
    budget = [OPEN_AND_OUT_BUDGET]
    # no wild-card limit on a meld, and a meld to take extras: a coarse search first, which
    # finds most plans at a fraction of the cost
    unlimited = (not rules.modern and not rules.natural_majority and not rules.max_meld_size
                 and rules.max_wilds >= full[TWO * 4] + full[TWO * 4 + 1] + full[TWO * 4 + 2]
                 + full[TWO * 4 + 3] + full[JOKER] and any(r >= 2 for r in melds))
    for coarse in ((True, False) if unlimited else (False,)):
        if _sequences_then_out(rules, hand, held, melds, need, canastas, must_discard, scope,
                               budget, coarse):
            return True
        if budget[0] <= 0:
            return False
    return False


def _sequences_then_out(rules: RuleSet, hand: Counts, held: Counts, melds: MeldInfo, need: int,
                        canastas: int, must_discard: bool, scope: Scope | None,
                        budget: list[int], coarse: bool) -> bool:
    """Suit sequences, where the variant has them: laid from the hand before the minimum stands,
    or from any cards after it; a sequence laid after takes held cards first, leaving the hand
    its cards for the minimum."""
    if not rules.real_canasta_bonus:
        return _open_and_out(rules, hand, held, melds, need, canastas, must_discard, scope,
                             budget, coarse)
    for left, laid, points in sequence_choices(rules, hand, melds):
        for rest, laid2, _ in sequence_choices(rules, _plus(left, held), laid):
            used = [a + b - c for a, b, c in zip(left, held, rest, strict=True)]
            from_held = [min(u, h) for u, h in zip(used, held, strict=True)]
            hand2 = tuple([a - (u - f) for a, u, f in zip(left, used, from_held, strict=True)])
            held2 = tuple([h - f for h, f in zip(held, from_held, strict=True)])
            if _open_and_out(rules, hand2, held2, laid2, need - points, canastas, must_discard,
                             scope, budget, coarse):
                return True
            if budget[0] <= 0:
                return False
    return False


def _plus(a: Counts, b: Counts) -> Counts:
    return tuple([x + y for x, y in zip(a, b, strict=True)])


def _discards(rules: RuleSet, full: list[int], jokers: int, melds: MeldInfo,
              must_discard: bool) -> list[int | None]:
    """The final discards worth trying, as rank indices (13: a wild card): the forced one
    (``_forced_discards``); otherwise any card, or none where going out needs no discard."""
    forced = _forced_discards(rules, full, melds)
    if forced is None:
        return []
    if forced:
        return [forced[0]]
    no_discard = not must_discard or (full[THREE] > 0 and rules.black_three_meld)
    out: list[int | None] = [None] if no_discard else []
    out += [r for r in range(13) if r != TWO and full[r]]
    if full[TWO] + jokers:
        out.append(13)
    return out


def _open_and_out(rules: RuleSet, hand: Counts, held: Counts, melds: MeldInfo, need: int,
                  canastas: int, must_discard: bool, scope: Scope | None,
                  budget: list[int], coarse: bool) -> bool:
    nat_h = naturals_by_rank(hand)
    nat_p = naturals_by_rank(held)
    full = [a + b for a, b in zip(nat_h, nat_p, strict=True)]
    for d in _discards(rules, full, hand[JOKER] + held[JOKER], melds, must_discard):
        h, p = list(nat_h), list(nat_p)
        jh, jp = hand[JOKER], held[JOKER]
        # the discard comes from the held cards where it can: the hand keeps its cards for the
        # minimum; a wild card from the hand is a two before a joker (a joker counts more)
        if d == 13:
            if p[TWO]:
                p[TWO] -= 1
            elif jp:
                jp -= 1
            elif h[TWO]:
                h[TWO] -= 1
            else:
                jh -= 1
        elif d is not None:
            if p[d]:
                p[d] -= 1
            else:
                h[d] -= 1
        if _one_plan(rules, h, jh, p, jp, melds, need, canastas, scope, budget, coarse):
            return True
        if budget[0] <= 0:
            return False
    return False


# (hand wild cards on natural ranks in the first step, least wild cards the natural ranks take
# at the end, canastas up to the number needed, has a pure meld, has a canasta from the hand)
# -> most points melded from the hand in the first step, counted up to the points needed
Steps = dict[tuple[int, int, int, int, int], int]


def _wild_points(rules: RuleSet, jokers: int, count: int) -> list[int]:
    """Points of the first 0..``count`` wild cards melded from a hand with ``jokers`` jokers:
    the jokers first (they count more)."""
    joker, two = rules.card_values[JOKER], rules.card_values[TWO * 4 + 1]
    return [min(jokers, a) * joker + max(0, a - jokers) * two for a in range(count + 1)]


def _keep_best(states: Steps) -> Steps:
    """Drop the plans another plan beats with fewer of the hand's wild cards and at least as
    many points: the points of more wild cards only fall (jokers first), so it stays ahead."""
    best: dict[tuple[int, int, int, int], int] = {}
    out: Steps = {}
    for key in sorted(states):
        a, low, can, pure, waived = key
        rest = (low, can, pure, waived)
        value = states[key]
        if best.get(rest, -1) < value:
            best[rest] = value
            out[key] = value
    return out


def _one_plan(rules: RuleSet, h: list[int], jh: int, p: list[int], jp: int, melds: MeldInfo,
              need: int, canastas: int, scope: Scope | None, budget: list[int],
              coarse: bool) -> bool:
    """With the discard taken out: a dynamic programme over the ranks. Each rank's final meld
    holds all its naturals and between a least and a most number of wild cards; its first-step
    meld holds the hand's naturals of the rank and some of the hand's wild cards, never more
    than the final meld holds. The wild cards left over at the end go to a wild-card meld where
    the variant has one. ``coarse`` (melds of no wild-card limit): a first-step meld takes the
    fewest wild cards or as many as its final meld needs anyway, and more only as extras
    counted at the end -- fewer plans, each of them real."""
    goal = rules.canasta_size
    values = rank_values(rules)
    modern = rules.modern
    opening = scope.opening if scope is not None else True
    pile_rank = scope.pile_rank if scope is not None else None
    closed = scope.closed if scope is not None else frozenset()
    hand_wilds = h[TWO] + jh
    wilds = hand_wilds + p[TWO] + jp
    have = sum(1 for r in melds if r <= REAL)  # suit sequences of seven are canastas
    worth = _wild_points(rules, jh, hand_wilds)
    enough = max(0, need)
    # a plan with fewer of the hand's wild cards may block an incomplete wild-card meld less
    prune = not (rules.wild_meld == "grow" and rules.wild_meld_blocks)
    states: Steps = {(0, 0, 0, 0, 0): 0}
    most = 0  # most wild cards the natural ranks can take at the end
    for r in range(2, 13):
        n = h[r] + p[r]
        existing = melds.get(r)
        if existing is None and not n:
            continue
        n0, w0 = existing if existing is not None else (0, 0)
        shut = r in closed
        if n and shut:
            return False
        if rules.max_meld_size and n0 + w0 + n > rules.max_meld_size:
            return False
        if existing is None and n < max(2, rules.min_naturals):
            return False
        cap = 0 if shut else wild_room(rules, r, n0 + n, w0, opening)
        low = 0 if existing is not None else max(0, 3 - n)
        if low > cap:
            return False
        most += cap
        short = max(0, goal - (n0 + w0 + n))  # wild cards that make it a canasta
        finals = [1] if short == 0 else ([0, 1] if short <= cap else [0])
        k = h[r]
        # the first step's meld of this rank: (wilds, points, pure, canasta from the hand)
        firsts: list[tuple[int, int, int, int]] = [(0, 0, 0, 0)] if existing is None else []
        room = 0
        if existing is not None or (k >= max(2, rules.min_naturals) and not shut):
            room = 0 if shut else min(cap, wild_room(rules, r, n0 + k, w0, opening))
            for w in range(max(0, 3 - k) if existing is None else 0, room + 1):
                size = n0 + w0 + k + w
                firsts.append((w, k * values[r], int(modern and w0 + w == 0 and n0 + k >= 3),
                               int(modern and size >= goal and r != pile_rank)))
        nxt: Steps = {}
        for c in finals:
            floor = max(low, short * c)
            tried = firsts
            opts = firsts if existing is not None else firsts[1:]
            if coarse and len(opts) > 2:
                # the fewest wild cards, or as many as the final meld takes anyway; more are
                # extras, counted at the end
                free = max(opts[0][0], min(floor, room))
                tried = [f for f in firsts if f is not opts[0] and f[0] == free]
                tried += firsts[:2] if existing is None else firsts[:1]
            budget[0] -= len(states) * len(tried)
            for (a, low_sum, can, pure, waived), pts in states.items():
                for w, gain, pu, wv in tried:
                    a2 = a + w
                    low2 = low_sum + max(floor, w)
                    if a2 > hand_wilds or low2 > wilds:
                        continue
                    key = (a2, low2, min(canastas, can + c), pure | pu, waived | wv)
                    value = min(enough, pts + gain + worth[a2] - worth[a])
                    if nxt.get(key, -1) < value:
                        nxt[key] = value
        if budget[0] <= 0:
            return False
        states = _keep_best(nxt) if prune else nxt
        if not states:
            return False
    return _wild_meld_ends(rules, states, melds, need, canastas - have, worth, wilds, most, coarse)


def _wild_meld_ends(rules: RuleSet, states: Steps, melds: MeldInfo, need: int, canastas: int,
                    worth: list[int], wilds: int, most: int, coarse: bool) -> bool:
    """The end of the programme: the wild cards the natural ranks do not take go to a wild-card
    meld (pagat "Wild Card Melds"; Modern American, melds), ``x1`` of the hand's in the first
    step and ``x`` in all; does some plan meet the minimum and the canastas? ``coarse``: the
    hand's wild cards the first step may still add, each to a meld of no wild-card limit."""
    goal = rules.canasta_size
    modern = rules.modern
    wild = melds.get(WILD_RANK)
    s0 = wild[1] if wild is not None else 0
    hand_wilds = len(worth) - 1
    ends: list[tuple[int, int]] = [(0, 0)]  # (x1, x)
    if rules.wild_meld == "complete" and wild is None:
        ends += [(0, goal), (goal, goal)]
    elif rules.wild_meld == "grow":
        starts = range(goal - s0 + 1) if wild is not None else [0, *range(3, goal + 1)]
        ends = [(x1, x) for x in starts for x1 in starts if x1 <= x]
    for (a, low, can, pure, waived), pts in states.items():
        for x1, x in ends:
            placed = wilds - x  # wild cards on the natural ranks at the end
            if a + x1 > hand_wilds or not low <= placed <= most:
                continue
            started = wild is not None or x1 > 0
            if rules.wild_meld_blocks and started and s0 + x1 < goal and (
                    (wild is not None and a > 0) or (placed > a and s0 + x < goal)):
                continue  # an incomplete wild-card meld takes the wild cards first
            size1, size = s0 + x1, s0 + x
            extra = max(0, min(hand_wilds - a - x1, placed - low)) if coarse else 0
            points = pts + worth[a + x1 + extra] - worth[a]
            canasta = int((wild is not None or x > 0) and size >= goal)
            if can + canasta < canastas:
                continue
            if modern:
                if rules.initial_needs_clean and not (pure or (started and size1 >= 3)):
                    continue
                if rules.canasta_waives_minimum and (waived or (started and size1 >= goal)):
                    return True
            if points >= need:
                return True
    return False
