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


def _can_meld_out(rules: RuleSet, hand: Counts, melds: MeldInfo, canastas: int,
                  must_discard: bool, minimum: int, points_so_far: int,
                  nat: list[int] | None, scope: Scope | None) -> bool:
    if scope is not None and rules.modern:
        return _modern_meld_out(rules, hand, melds, canastas, must_discard, minimum,
                                points_so_far, scope, nat)
    if nat is None:
        nat = naturals_by_rank(hand)
    jokers = hand[JOKER]
    # ranks that can take no partner: a single natural with no meld of its rank
    singles = [r for r in range(2, 13) if nat[r] == 1 and r not in melds]
    if len(singles) > 1:
        return False
    blacks = nat[THREE] + melds.get(THREE, (0, 0))[0] if nat[THREE] else 0
    forced: list[int] = singles
    if nat[THREE] and (blacks < 3 or blacks > 4 or not rules.black_three_meld):
        if nat[THREE] > 1 and not rules.black_three_meld:
            return False
        forced = forced + [THREE]
    if len(forced) > 1:
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
