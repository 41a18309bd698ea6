"""Celestial Empire's variants: the winning conditions and the game's length,
chosen when the game is made (l.144-146) and written as a variant name.

``standard`` is the manual's example sheet: "Winning Conditions: Earth
Score=30000 Planets=64" (l.2142), played until won. Options follow with
``+``, as the other games' variants do:

    standard+score=20000       another score to reach (score=no: not a condition)
    standard+planets=40        another number of planets (planets=no)
    standard+earth=no          holding Earth does not win
    standard+income=2000       an income to reach; +credits=2500 Earth credits
    standard+turns=30          a fixed length: after turn 30 the most score wins (R-71)
    standard+voted=30          a length the empires vote on, 30 until they do (R-72)
    standard+turns=30+most=credits   the most of score, credits, income, planets or ships wins
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..numbers import TOO_LARGE, too_large, whole_number
from .report import Report
from .state import GameState
from .winning import Conditions, Length, Resource, amount, game_over, last_turn, winners

_NUMBERS = {"score", "planets", "income", "credits"}


@dataclass(frozen=True)
class Variant:
    """A game's variant: its name as written and the conditions it stands for."""

    name: str
    conditions: Conditions

    def describe(self) -> str:
        """The winning conditions and the game's length in words, for invitations and sheets."""
        c = self.conditions
        length = {Length.UNTIL_WON: "played until won",
                  Length.FIXED: f"{c.last_turn} turns, then the most {c.resource.value} wins",
                  Length.VOTED: f"as long as the empires vote (turn {c.last_turn} until they do), "
                                f"then the most {c.resource.value} wins"}[c.length]
        wins = c.printed() or "none but the game's length"
        return f"Celestial Empire, winning conditions: {wins}; {length}"

    def result(self, state: GameState, report: Report,
               resigned: frozenset[int] = frozenset()) -> tuple[str, list[int]] | None:
        """Why the game ended after the turn just played, and who won; None
        while it goes on. A resigned empire cannot win (R-84): meeting a
        condition alone, it does not end the game."""
        if not game_over(state, self.conditions):
            return None
        won = {e: why for e, why in winners(state, self.conditions).items() if e not in resigned}
        end = last_turn(state, self.conditions)
        length_ran_out = end is not None and state.turn - 1 >= end
        if not won and not length_ran_out:
            return None
        if not won:  # the length ran out and the most of the resource was a resigned empire's
            playing = [e for e in sorted(state.empires) if e not in resigned]
            if not playing:
                return f"the game's length ran out after turn {report.turn}", []
            resource = self.conditions.resource
            best = max(amount(state, resource, e) for e in playing)
            won = {e: f"the most {resource.value} ({best}) of the empires still played"
                   for e in playing if amount(state, resource, e) == best}
        names = "; ".join(f"{state.empires[e].name}: {why}" for e, why in won.items())
        return f"won after turn {report.turn} ({names})", sorted(won)


def variant_named(name: str) -> Variant:
    """The variant ``name`` stands for; ValueError saying what is wrong."""
    words = name.strip().lower().split("+")
    if words[0] != "standard":
        raise ValueError(f"unknown Celestial Empire variant {words[0]!r}: it starts with 'standard'")
    c = Conditions()
    for option in words[1:]:
        key, _, value = option.partition("=")
        if key in _NUMBERS:
            number = None if value == "no" else _count(key, value)
            c = (replace(c, score=number) if key == "score" else replace(c, planets=number) if key == "planets"
                 else replace(c, income=number) if key == "income" else replace(c, credits=number))
        elif key == "earth" and value in ("yes", "no"):
            c = replace(c, earth=value == "yes")
        elif key in ("turns", "voted"):
            c = replace(c, length=Length.FIXED if key == "turns" else Length.VOTED, last_turn=_count(key, value))
        elif key == "most" and value in {r.value for r in Resource}:
            c = replace(c, resource=Resource(value))
        else:
            raise ValueError(f"unknown Celestial Empire option {option!r} (see docs/celestial_empire/playing.md)")
    if c.length is Length.UNTIL_WON and not (c.earth or c.score or c.planets or c.income or c.credits):
        raise ValueError("a game played until won needs at least one winning condition")
    return Variant(name.strip().lower(), c)


def _count(key: str, value: str) -> int:
    number = whole_number(value)
    if number is None and value.isdecimal() and too_large(value):
        raise ValueError(f"{key}= takes a whole number: {TOO_LARGE} ({len(value)} digits)")
    if number is None or number < 1:
        raise ValueError(f"{key}= takes a whole number, not {value!r}")
    return number
