"""The variant registry: ids, aliases, options, and the ruleset for a state's options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..reasons import Refusal, UnknownRules, one_of
from ..rules import Option, RuleSet
from . import canastra, classic, family, german, modern_american


@dataclass(frozen=True)
class Variant:
    id: str
    title: str
    aliases: tuple[str, ...]
    summary: str
    players: tuple[int, ...]
    options: tuple[Option, ...]
    build: Callable[[dict[str, Any]], RuleSet]

    @property
    def configurations(self) -> tuple[dict[str, Any], ...]:
        """The player counts (and six-player sides) this variant is played with."""
        out: list[dict[str, Any]] = []
        for players in self.players:
            if len(self.players) == 1:
                out.append({})
            elif players == 6:
                out += [{"players": 6, "sides": 3}, {"players": 6, "sides": 2}]
            else:
                out.append({"players": players})
        return tuple(out)


VARIANTS: tuple[Variant, ...] = (
    Variant("classic", "Classic Canasta", ("canasta", "official"),
            "The 1950s standard game: 2 packs and 4 jokers, melds of one rank, one canasta to go out.",
            (2, 3, 4, 6), classic.OPTIONS, classic.build),
    Variant("modern-american", "Modern American Canasta", ("modern", "american", "american-canasta"),
            "Four players, 13 cards: every three laid out, melds of three to seven with at most two "
            "wild cards, wild-card melds, the rule of five, two canastas to go out, game to 8,500.",
            (4,), modern_american.OPTIONS, modern_american.build),
    Variant("german", "Canasta (ASS Altenburger, German rules)", ("ass", "deutsch"),
            "Classic as German tables play it: natural majority in melds, no pickup with a wild, "
            "a last card to discard, Blatt and Hand canasta bonuses.",
            (3, 4), german.OPTIONS, german.build),
    Variant("canastra", "Canastra (Brazil)", ("brazilian-canastra",),
            "Brazilian partnership game: any number of wild cards, pickups with a natural, "
            "canastras 200/100, game to 3,000.",
            (4,), canastra.OPTIONS, canastra.build),
    Variant("family", "Family Canasta", ("familie",),
            "A simpler game: draw two, no freezing, the pile only after the initial meld, "
            "at most two wild cards a meld.",
            (2, 3, 4), family.OPTIONS, family.build),
)

_BY_NAME = {name: v for v in VARIANTS for name in (v.id, *v.aliases)}


def find_variant(name: str) -> Variant:
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise UnknownRules(Refusal("UNKNOWN_VARIANT", {"variant": name}), "/variant") from None


def _check_options(variant: Variant, options: dict[str, Any]) -> dict[str, Any]:
    known = {o.name: o for o in variant.options}
    for name in options:
        if name not in known:
            raise UnknownRules(Refusal("UNKNOWN_OPTION", {"option": name}), f"/options/{name}")
    resolved: dict[str, Any] = {}
    for opt in variant.options:
        value = options.get(opt.name, opt.default)
        ok = (opt.allowed is None or any(value == a and type(value) is type(a) for a in opt.allowed))
        if not ok:
            allowed = one_of(tuple(a for a in opt.allowed or () if a is not None))
            raise UnknownRules(Refusal("BAD_OPTION_VALUE", {"option": opt.name, "allowed": allowed}),
                               f"/options/{opt.name}")
        resolved[opt.name] = value
    return resolved


def rules_for(variant: str, options: dict[str, Any] | None = None) -> RuleSet:
    """The ruleset of a variant with its options; raises ``UnknownRules``. (A state's ruleset,
    asked for on every request, comes through ``wire.rules_of``, which remembers the exact
    words it was given.)"""
    key = tuple(sorted((options or {}).items(), key=lambda kv: kv[0]))
    return _rules_cached(variant.strip().lower(), tuple((k, v, type(v).__name__) for k, v in key))


@lru_cache(maxsize=256)
def _rules_cached(variant: str, key: tuple[tuple[str, Any, str], ...]) -> RuleSet:
    v = find_variant(variant)
    resolved = _check_options(v, {k: val for k, val, _ in key})
    rules = v.build(resolved)
    # options as played: the derived defaults made explicit, so the same game has one identity
    for name in ("players", "sides", "target"):
        if name in resolved:
            resolved[name] = getattr(rules, name)
    shown = tuple((k, val) for k, val in resolved.items())
    return replace(rules, id=v.id, options=shown)
