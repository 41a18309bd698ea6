"""How every step answers an order, in one set of words.

* **Not yours** (ruling R-5): an order is carried out only for a ship or
  planet the empire owns when the order's step runs. An order naming one it
  does not own, or one that does not exist, is answered with the same words,
  "ship 123 is not yours" or "planet 123 is not yours", so that nobody can
  probe for ships or planets by ordering them. `own_ship` and `own_planet`
  make that check and answer it; a step's own conditions (over Earth, at a
  planet of its own, outside Earth's amnesty...) are separate checks after it.
"""

from __future__ import annotations

from .orders import Order
from .state import GameState, Planet, Ship
from .turn import Report


def ship_not_yours(number: int) -> str:
    """The one answer to an order for a ship the empire does not own or that does not exist (R-5)."""
    return f"ship {number} is not yours"


def planet_not_yours(number: int) -> str:
    """The one answer to an order for a planet the empire does not own or that does not exist (R-5)."""
    return f"planet {number} is not yours"


def owned_ship(state: GameState, empire: int, number: int) -> Ship | None:
    """Ship ``number`` if ``empire`` owns it now, else None (whether it exists or not)."""
    ship = state.ships.get(number)
    return ship if ship is not None and ship.owner == empire else None


def owned_planet(state: GameState, empire: int, number: int) -> Planet | None:
    """Planet ``number`` if ``empire`` owns it now, else None (whether it exists or not)."""
    planet = state.planets.get(number)
    return planet if planet is not None and planet.owner == empire else None


def own_ship(state: GameState, empire: int, number: int, order: Order | str, report: Report) -> Ship | None:
    """Ship ``number`` if ``empire`` owns it now; else ``order`` is refused
    "ship N is not yours" and None is returned (R-5)."""
    ship = owned_ship(state, empire, number)
    if ship is None:
        report.refused(empire, order, ship_not_yours(number))
    return ship


def own_planet(state: GameState, empire: int, number: int, order: Order | str, report: Report) -> Planet | None:
    """Planet ``number`` if ``empire`` owns it now; else ``order`` is refused
    "planet N is not yours" and None is returned (R-5)."""
    planet = owned_planet(state, empire, number)
    if planet is None:
        report.refused(empire, order, planet_not_yours(number))
    return planet
