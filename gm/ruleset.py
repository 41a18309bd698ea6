"""A ruleset: which rules a game is played under, and its agreed options.

The default is Spaceships 2.6.1 with the standard fleet [3.7]. A game may
instead agree on a fleet of any ships of a total cost [3.7.1].
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .geometry import STANDARD, Geometry
from .ships import ShipType

STANDARD_FLEET_COST = 24
"""The cost of the standard fleet [3.7]: 8 + 6 + 4 + 3 + 3, and the default
total for the optional fleet of any ships [3.7.1]."""


@dataclass(frozen=True)
class Ruleset:
    """The rules in force for a game.

    ``fleet_cost`` None means the standard fleet [3.7]; a number means any
    ships whose costs add up to it [3.7.1], optionally only of
    ``allowed_types``.
    """

    name: str = "2.6.1"
    geometry: Geometry = STANDARD
    fleet_cost: int | None = None
    allowed_types: frozenset[ShipType] | None = field(default=None)

    def describe(self) -> str:
        """The ruleset and its options in a few words, for records and sheets."""
        parts = [f"Spaceships {self.name}"]
        if self.fleet_cost is not None:
            kinds = ""
            if self.allowed_types is not None:
                kinds = " of " + " ".join(sorted(t.code for t in self.allowed_types))
            parts.append(f"fleet of any ships{kinds} costing {self.fleet_cost} [3.7.1]")
        if self.geometry.colour_order != STANDARD.colour_order:
            parts.append(f"colours ordered {'-'.join(self.geometry.colour_order)}")
        return ", ".join(parts)


DEFAULT = Ruleset()


def ruleset_named(spec: str) -> Ruleset:
    """The ruleset for a record's ``variant`` line or a game's ``--variant``.

    ``2.6.1`` is the default; ``2.6.1+fleet=N`` selects the optional fleet of
    any ships costing N [3.7.1].
    """
    name, *options = spec.split("+")
    if name != "2.6.1":
        raise ValueError(f"unknown ruleset {name!r}: this version of gm knows 2.6.1")
    fleet_cost = None
    for option in options:
        key, _, value = option.partition("=")
        if key == "fleet" and value.isdigit() and int(value) > 0:
            fleet_cost = int(value)
        else:
            raise ValueError(f"unknown option {option!r} for ruleset {name}: known is fleet=N [3.7.1]")
    return Ruleset(name=name, fleet_cost=fleet_cost)
