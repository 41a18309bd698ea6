"""How a Celestial Empire game ends, and who wins (§General Overview
l.144-158, §Adjusting Game Length l.1984-2008; spec section 10).

The winning conditions and the game's length are chosen when the game is
made (l.144-146) and printed on every sheet (l.2142): `Conditions` holds
them. `winners(state, conditions)` and `game_over(state, conditions)` are
pure functions of the state *as `run_turn` returns it*, after step 24 of
the turn just played (``state.turn - 1``; ``state.turn`` is the next one).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .empire_steps import ending_turn
from .endturn import income
from .orders import AllianceLevel
from .state import NEUTRAL, GameState

SCORE, PLANETS, INCOME, CREDITS = 30000, 64, 2000, 2500
"""The manual's thresholds (l.147-156): "Scoring 30,000 pts or greater", "Taking
1/4 of the galaxy (64 planets)", "an income of 2000", "more than 2500 Earth Credits"."""


class Length(enum.Enum):
    """The three lengths of a game (l.1986-1997)."""

    UNTIL_WON = "until won"
    """Over when a winning condition is met."""
    FIXED = "fixed"
    """Over after ``Conditions.last_turn``, set at the start (R-71)."""
    VOTED = "voted"
    """Over after the players' compromise turn (`empire_steps.ending_turn`, R-72)."""


class Resource(enum.Enum):
    """What the most of wins a game that ends by its length (R-71: "such as score or credits")."""

    SCORE = "score"
    CREDITS = "credits"
    INCOME = "income"
    PLANETS = "planets"
    SHIPS = "ships"


@dataclass(frozen=True)
class Conditions:
    """The winning conditions in force and the game's length, fixed at creation.
    A threshold of None is a condition not in force (l.2123-2127). The default
    is the example sheet's "Winning Conditions: Earth Score=30000 Planets=64"
    (l.2142) in a game played until won."""

    score: int | None = SCORE
    """Wins with a score of this or more."""
    planets: int | None = PLANETS
    """Wins owning this many planets or more (Earth counts)."""
    earth: bool = True
    """Wins holding Earth for a full turn (R-26)."""
    income: int | None = None
    """Wins with an income of this or more (manual: 2000, game 15 used 1500)."""
    credits: int | None = None
    """Wins with more than this many Earth credits (manual: 2500)."""
    length: Length = Length.UNTIL_WON
    last_turn: int = 30
    """The last turn of a fixed game; in a voted game, the ending while no one has voted (R-72)."""
    resource: Resource = Resource.SCORE
    """What the most of wins when the length runs out (R-71)."""

    def printed(self) -> str:
        """The conditions as the sheet's header prints them ("Earth Score=30000 Planets=64")."""
        shown = ["Earth"] if self.earth else []
        for word, value in (("Score", self.score), ("Planets", self.planets), ("Income", self.income),
                            ("Credits", self.credits)):
            if value is not None:
                shown.append(f"{word}={value}")
        return " ".join(shown)


def _met(state: GameState, conditions: Conditions, empire: int) -> str | None:
    """The condition ``empire`` meets now, in words, or None (R-70)."""
    e = state.empires[empire]
    if conditions.score is not None and e.score >= conditions.score:
        return f"score {e.score}"
    if conditions.planets is not None and len(state.planets_of(empire)) >= conditions.planets:
        return f"{len(state.planets_of(empire))} planets"
    if conditions.earth and state.earth_held is not None:
        holder, since = state.earth_held
        if holder == empire and since < state.turn - 1 and state.planets[state.earth].owner == empire:
            return "held Earth for a full turn"
    if conditions.income is not None and income(state, empire) >= conditions.income:
        return f"income {income(state, empire)}"
    if conditions.credits is not None and e.credits > conditions.credits:
        return f"{e.credits} Earth credits"
    return None


def last_turn(state: GameState, conditions: Conditions) -> int | None:
    """The turn after which the game ends by its length, or None if it ends only when won (R-71, R-72)."""
    if conditions.length is Length.FIXED:
        return conditions.last_turn
    if conditions.length is Length.VOTED:
        voted = ending_turn(state)
        return conditions.last_turn if voted is None else voted
    return None


def amount(state: GameState, resource: Resource, empire: int) -> int:
    """How much of ``resource`` the empire has now."""
    if resource is Resource.SCORE:
        return state.empires[empire].score
    if resource is Resource.CREDITS:
        return state.empires[empire].credits
    if resource is Resource.INCOME:
        return income(state, empire)
    if resource is Resource.PLANETS:
        return len(state.planets_of(empire))
    return len(state.ships_of(empire))


def winners(state: GameState, conditions: Conditions) -> dict[int, str]:
    """The empires that have won by the end of the turn just played, each
    with why; empty while the game goes on. Every empire meeting a condition
    wins (several may, R-70); when the length runs out first, those with the
    most of the game's resource win, all of them if tied (R-71). Each winner's
    allies win with it: every empire a winner rates ALLY, not their allies in
    turn (l.445-446, R-18)."""
    found = {number: why for number in sorted(state.empires)
             if (why := _met(state, conditions, number)) is not None}
    end = last_turn(state, conditions)
    if not found and end is not None and state.turn - 1 >= end and state.empires:
        best = max(amount(state, conditions.resource, e) for e in state.empires)
        found = {e: f"the most {conditions.resource.value} ({best}) after turn {state.turn - 1}"
                 for e in sorted(state.empires) if amount(state, conditions.resource, e) == best}
    allies: dict[int, str] = {}
    for winner in sorted(found):
        for other in sorted(state.empires):
            if (other not in found and other not in allies and other != NEUTRAL
                    and state.empires[winner].rating(other) == AllianceLevel.ALLY):
                allies[other] = f"ally of {state.empires[winner].name}"
    return {**found, **allies}


def game_over(state: GameState, conditions: Conditions) -> bool:
    """Whether the turn just played was the game's last: someone won, or its length ran out (R-70..R-72)."""
    end = last_turn(state, conditions)
    return bool(winners(state, conditions)) or (end is not None and state.turn - 1 >= end)
