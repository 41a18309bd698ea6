"""Grid Fighters variants: the standard game and its options.

A variant is named like Spaceships' rulesets: a name, then ``+option=value``
parts, e.g. ``standard+homes=3+quiet=60``. The record's ``variant`` line and
a new game's settings both go through `variant_named`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..numbers import whole_number
from .board import pieces_for

QUIET_DEFAULT = 100
"""Consecutive moves without a destruction after which the game is drawn
(ruling 12): 50 moves by each player, the span of chess's fifty-move rule."""
QUIET_MAX = 10_000

NAMES = ("standard",)
OPTIONS = ("homes=1|3", f"quiet=1..{QUIET_MAX}")


@dataclass(frozen=True)
class Variant:
    """The rules a game is played under."""

    name: str = "standard"
    homes: int = 1
    """Home planets per player: 1, or 3 under the optional rule [update of 11 February 2004]."""
    quiet: int = QUIET_DEFAULT
    """Moves in a row without any piece destroyed that end the game in a draw (ruling 12)."""

    @property
    def pieces(self) -> tuple[str, ...]:
        """Each player's pieces."""
        return pieces_for(self.homes)

    @property
    def spec(self) -> str:
        """The name `variant_named` reads back to this variant."""
        spec = self.name
        if self.homes != 1:
            spec += f"+homes={self.homes}"
        if self.quiet != QUIET_DEFAULT:
            spec += f"+quiet={self.quiet}"
        return spec

    def describe(self) -> str:
        homes = "one home planet" if self.homes == 1 else f"{self.homes} home planets"
        return (f"Grid Fighters, variant {self.spec}: {homes} each; drawn after {self.quiet} "
                f"move{'s' * (self.quiet != 1)} in a row without a piece destroyed")


STANDARD = Variant()


def variant_named(spec: str) -> Variant:
    """The variant a spec names; ValueError, saying what is known, otherwise."""
    name, *options = spec.strip().split("+")
    name = name.strip().lower()
    if name not in NAMES:
        raise ValueError(f"unknown Grid Fighters variant {name!r}: known is {', '.join(NAMES)}")
    variant = Variant(name=name)
    for option in options:
        key, _, value = option.strip().partition("=")
        key = key.strip().lower()
        value = value.strip()
        if key == "homes" and value in ("1", "3"):
            variant = replace(variant, homes=int(value))
        elif key == "quiet" and 1 <= (quiet := whole_number(value) or 0) <= QUIET_MAX:
            variant = replace(variant, quiet=quiet)
        else:
            raise ValueError(f"unknown option {option!r} for Grid Fighters variant {name}: known are "
                             f"{', '.join(OPTIONS)}")
    return variant
