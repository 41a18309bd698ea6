"""A ruleset: which rules a game is played under, and its agreed options.

The default is Spaceships 2.6.1 with the standard fleet [3.7]. A game may
agree on a fleet of any ships of a total cost [3.7.1], or play the early
rules (``variant early``), and may switch on the optional rules of the
explanation of the 2.6 rules. docs/variants.md lists every difference with
its clauses; each is a field here, so the rules core asks the ruleset
rather than the ruleset's name.

A variant is written as a name and options joined by ``+``:

    2.6.1                            the default
    2.6.1+fleet=24                   any ships costing 24 [3.7.1]
    early                            the early ruleset
    2.6.1+hypothetical-hits+scoring-by-hits+composition=one+colours=RYGOB
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..numbers import whole_number
from .geometry import COLOURS, STANDARD, Geometry, geometry_of
from .ships import ShipType

STANDARD_FLEET_COST = 24
"""The cost of the standard fleet [3.7]: 8 + 6 + 4 + 3 + 3, and the default
total for the optional fleet of any ships [3.7.1]."""

RULESETS = ("2.6.1", "early")
OPTIONS = ("fleet=N", "colours=ORDER", "hypothetical-hits", "scoring-by-hits", "composition=one|many")


@dataclass(frozen=True)
class Ruleset:
    """The rules in force for a game.

    ``fleet_cost`` None means the ruleset's standard fleet; a number means
    any ships whose costs add up to it [3.7.1], optionally only of
    ``allowed_types``. The remaining fields are the differences between the
    rulesets (see docs/variants.md) and the explanation's optional rules.
    """

    name: str = "2.6.1"
    geometry: Geometry = STANDARD
    fleet_cost: int | None = None
    allowed_types: frozenset[ShipType] | None = field(default=None)

    # Differences of the early ruleset (early text's clauses in brackets).
    early: bool = False
    """The early ruleset: its fleet, beam, kamikaze, timing and termination."""

    # The explanation's optional rules (its section numbers).
    hypothetical_hits: bool = False
    """6.1: a drawn game goes to the side with more hits in the last turn,
    counted as if the enemy had launched no kamikaze strikes."""
    scoring_by_hits: bool = False
    """6.2: a side's score is the hits it scored, plus its strikes on cells
    that launched kamikaze strikes or were destroyed by exploding missiles in
    the same turn."""
    composition: str | None = None
    """6.3: ``one`` or ``many``: the table that carried-over resources must
    be built into, with the "one death star" or "many death stars" table."""

    variant: str = "2.6.1"
    """The variant as written, options included."""

    # What the early ruleset changes, as the rules core asks it.

    @property
    def destroy_at_end_of_turn(self) -> bool:
        """Early [5.1.3], [4.4.3], [6.6.3.1]: hits, kamikaze launch cells and
        explosions destroy cells at the end of the turn; 2.6.1 [5.2.3]: when
        announced (and ruling a for the kamikaze cell)."""
        return self.early

    @property
    def destruction_reports(self) -> bool:
        """2.6.1 [2.2.4], [7], [11.7.3]: destroyed ships are reported with
        flashcube data. The early rules have neither."""
        return not self.early

    @property
    def scans(self) -> bool:
        """2.6.1 [8.3]: scouts carry scanners. The early rules have no scouts."""
        return not self.early

    @property
    def cube_death_star(self) -> bool:
        """Early [6.1.1]: a death star is a 2x2x2 cube and nothing else."""
        return self.early

    @property
    def carried_in_cells(self) -> bool:
        """Early [7.2]: additional ships in a match hold as many cells as the
        materiel kept; 2.6.1 [10.3]: they cost as much."""
        return self.early

    def describe(self) -> str:
        """The ruleset and its options in a few words, for records and sheets."""
        parts = ["Spaceships, early rules" if self.early else f"Spaceships {self.name}"]
        if self.fleet_cost is not None:
            kinds = ""
            if self.allowed_types is not None:
                kinds = " of " + " ".join(sorted(t.code for t in self.allowed_types))
            parts.append(f"fleet of any ships{kinds} costing {self.fleet_cost} [3.7.1]")
        if self.geometry.colour_order != STANDARD.colour_order:
            parts.append(f"colours ordered {'-'.join(self.geometry.colour_order)}")
        if self.hypothetical_hits:
            parts.append("hypothetical hits decide a draw")
        if self.scoring_by_hits:
            parts.append("scoring by hits")
        if self.composition:
            parts.append(f"carried-over ships by the '{self.composition} death "
                         f"star{'s' * (self.composition == 'many')}' table")
        return ", ".join(parts)


DEFAULT = Ruleset()


def ruleset_named(spec: str) -> Ruleset:
    """The ruleset for a record's ``variant`` line or a game's ``--variant``."""
    name, *options = spec.strip().split("+")
    if name not in RULESETS:
        raise ValueError(f"unknown ruleset {name!r}: gm knows {' and '.join(RULESETS)}")
    ruleset = Ruleset(name=name, early=name == "early", variant=spec.strip())
    for option in options:
        key, _, value = option.partition("=")
        if key == "fleet" and (cost := whole_number(value) or 0) > 0:
            ruleset = replace(ruleset, fleet_cost=cost)
        elif key == "colours" and sorted(value) == sorted(COLOURS):
            ruleset = replace(ruleset, geometry=geometry_of(value))
        elif key == "hypothetical-hits" and not value:
            ruleset = replace(ruleset, hypothetical_hits=True)
        elif key == "scoring-by-hits" and not value:
            ruleset = replace(ruleset, scoring_by_hits=True)
        elif key == "composition" and value in ("one", "many"):
            ruleset = replace(ruleset, composition=value)
        else:
            raise ValueError(f"unknown option {option!r} for ruleset {name}: known are {', '.join(OPTIONS)}")
    if ruleset.early and ruleset.fleet_cost is not None:
        raise ValueError("the early rules have no fleets by cost: their fleet is fixed [3.3]")
    return ruleset
