"""Cards as small ints, card codes, and per-rank counting.

A card is an int: ``rank * 4 + suit`` for the 52 suited cards (rank 0 = two ... 12 = ace,
suit order S H D C), and ``JOKER = 52``. Copies of a card are interchangeable, so a hand is a
multiset: a tuple of 53 counts indexed by card (see ``Counts``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

RANKS: Final = "23456789TJQKA"
SUITS: Final = "SHDC"
JOKER: Final = 52
N_CARDS: Final = 53

TWO: Final = 0  # rank index of the twos (wild)
THREE: Final = 1  # rank index of the threes
WILD_RANK: Final = -1  # rank of a wild-card meld (Modern American)
REAL: Final = -10  # ranks -10, -11, ...: suit sequences of seven naturals (canastra "Canastra Real")

Counts = tuple[int, ...]


def is_wild(card: int) -> bool:
    """Twos and jokers are wild (pagat "The Cards")."""
    return card == JOKER or card < 4


def is_red_three(card: int) -> bool:
    return card in (5, 6)


def is_black_three(card: int) -> bool:
    return card in (4, 7)


def is_natural(card: int) -> bool:
    """Aces down to fours are natural cards; threes are neither natural nor wild."""
    return 8 <= card < JOKER


_CARD_CODES: Final = tuple("JK" if c == JOKER else RANKS[c >> 2] + SUITS[c & 3]
                           for c in range(N_CARDS))


def card_code(card: int) -> str:
    return _CARD_CODES[card]


def rank_code(rank: int) -> str:
    if rank <= REAL:
        return "real"
    return "wild" if rank == WILD_RANK else RANKS[rank]


_CODE_TO_CARD: Final = {card_code(c): c for c in range(N_CARDS)}


def parse_card(code: str) -> int:
    """Parse a card code, forgiving case, whitespace and ``10`` for ``T``."""
    card = _CODE_TO_CARD.get(code)  # canonical codes, the common case
    if card is not None:
        return card
    text = code.strip().upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    try:
        return _CODE_TO_CARD[text]
    except KeyError:
        raise ValueError(f"not a card code: {code!r}") from None


def parse_rank(code: str) -> int:
    rank = _RANK_OF.get(code)  # canonical codes, the common case
    if rank is not None:
        return rank
    text = code.strip().upper()
    if text == "WILD":
        return WILD_RANK
    if text == "REAL":
        return REAL
    if text == "10":
        text = "T"
    if len(text) == 1 and text in RANKS:
        return RANKS.index(text)
    raise ValueError(f"not a rank: {code!r}")


def is_real_sequence(cards: tuple[int, ...]) -> bool:
    """Seven natural cards of one suit in sequence (fours to aces), as "Canastra Real" asks."""
    if len(cards) != 7 or not all(8 <= c < JOKER for c in cards):
        return False
    ranks = sorted(c >> 2 for c in cards)
    return len({c & 3 for c in cards}) == 1 and ranks == list(range(ranks[0], ranks[0] + 7))


_RANK_OF: Final = {**{r: i for i, r in enumerate(RANKS)}, "wild": WILD_RANK, "real": REAL}


#: the native counter and copy check the service installed (``count_with``), if any
_native_counts: Callable[..., Counts] | None = None
_native_over: Callable[[tuple[int, ...], list[Any]], bool] | None = None


def count_with(native: Callable[..., Counts] | None,
               over: Callable[[tuple[int, ...], list[Any]], bool] | None = None) -> None:
    """Let ``counts_of(cards)`` call ``native(N_CARDS, cards)``, which must give what it gives
    (schema/_read.c's ``counts``: compiled, a hand of a six-player state in about half the
    instructions), and ``copies_over`` call ``over``; None: counted here again."""
    global _native_counts, _native_over
    _native_counts = native
    _native_over = over


def copies_over(copies: tuple[int, ...], seen: list[Any]) -> bool | None:
    """Whether some card is among the cards of ``seen`` (tuples, each ending in a tuple of
    cards) more often than ``copies`` (by card) allows, asked of the native check installed
    with ``count_with`` (schema/_read.c's ``over``); None where none is."""
    over = _native_over
    return None if over is None else over(copies, seen)


def counts_of(cards: tuple[int, ...]) -> Counts:
    """How often each card is in ``cards``: the hand as the engine keeps it."""
    native = _native_counts
    if native is not None:
        return native(N_CARDS, cards)
    c = [0] * N_CARDS
    for card in cards:  # not ``c[card] += 1``: mypyc compiles that to a generic object add
        c[card] = c[card] + 1
    return tuple(c)


def cards_of(counts: Counts) -> tuple[int, ...]:
    """The multiset as a sorted tuple of cards."""
    out: list[int] = []
    for card in range(len(counts)):  # compiled: a C loop of int reads and appends
        n = counts[card]
        while n > 0:
            out.append(card)
            n -= 1
    return tuple(out)


def naturals_by_rank(h: Counts) -> list[int]:
    """Number of cards of each rank index 0..12 (twos and threes included); unrolled, as it
    runs for every state."""
    return [
        h[0] + h[1] + h[2] + h[3],
        h[4] + h[5] + h[6] + h[7],
        h[8] + h[9] + h[10] + h[11],
        h[12] + h[13] + h[14] + h[15],
        h[16] + h[17] + h[18] + h[19],
        h[20] + h[21] + h[22] + h[23],
        h[24] + h[25] + h[26] + h[27],
        h[28] + h[29] + h[30] + h[31],
        h[32] + h[33] + h[34] + h[35],
        h[36] + h[37] + h[38] + h[39],
        h[40] + h[41] + h[42] + h[43],
        h[44] + h[45] + h[46] + h[47],
        h[48] + h[49] + h[50] + h[51],
    ]

