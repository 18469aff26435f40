"""Can the turn still be finished? Two questions answered on rank counts, never by search:

- ``best_addition``: the most card points a side can still meld from a hand this turn while
  keeping some cards back (for the initial-meld minimum, pagat "Initial Meld Requirement");
- ``can_meld_out``: can a hand be melded completely, but for at most one discard, so that the
  side ends with enough canastas (pagat "Going Out").

Both work on ``nat``: cards per rank index (twos and threes included) plus jokers, and ``melds``:
the side's melds on the table as ``{rank: (naturals, wilds)}``.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

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


def best_addition(rules: RuleSet, hand: Counts, melds: MeldInfo, keep: int) -> int:
    """Most points meldable from ``hand`` this turn keeping at least ``keep`` cards in hand.
    -1 if the hand has fewer than ``keep`` cards."""
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
                n2[c] -= 1
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
                 nat: list[int] | None = None) -> bool:
    """Can ``hand`` be melded out this turn, with at most one (or exactly one, if
    ``must_discard``) card discarded, leaving the side with ``canastas`` canastas and the turn's
    melded points (``points_so_far`` plus the hand's melded cards) at least ``minimum``?"""
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
    if forced:
        choices: list[int | None] = [forced[0]]
    else:
        choices = [] if must_discard else [None]
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
                n2[c] -= 1
                points -= values[c * 4 + (0 if c == THREE else 1)]
        if minimum and points_so_far + points < minimum:
            continue
        if _meld_all(rules, n2, j2, melds, canastas):
            return True
    return False
