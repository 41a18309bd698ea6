"""``check`` in Celestial Empire: a mail's orders tried against the empire as
it stands, with nothing resolved (issue 22).

The turn answers each order at its step, ownership judged when the step
runs (R-5). Before the turn, a check can try only what is settled already:
whose the ships and planets are, which planets and empires there are, where
the empire's ships are and what their planets link to. Those are the turn's
own tests, in the turn's own words (`answers`, `movement.route_problem`), so
a problem found is the one the turn would answer, unless a gift earlier in
the same turn (step 4) changes whose a ship or planet is. What the turn
itself decides (fuel after loading, free industry, battle, the scans left)
is left to it, and a check tells no more than the turn would: a ship that is
not the empire's, or does not exist, is "not yours" alike (R-4, R-5).
"""

from __future__ import annotations

from .answers import no_such_empire, no_such_planet, owned_planet, owned_ship, planet_not_yours, ship_not_yours
from .gifts import recipient
from .movement import route_problem
from .notation import Line
from .orders import GiftShip, Order, PlanetOrder, ShipOrder
from .orders_empire import (
    ClearPlanetStandingOrder,
    ClearShipStandingOrder,
    GiftPlanet,
    Jump,
    MoreFriendly,
    MoreHostile,
    PersonalMessage,
    Scan,
    SetStandingOrder,
)
from .state import NEUTRAL, GameState


def problems(state: GameState, empire: int, order: Order) -> list[str]:
    """Why the turn would refuse ``order`` of ``empire``, as far as the
    empire as it stands decides it; empty when nothing is found."""
    if isinstance(order, SetStandingOrder):
        return problems(state, empire, order.order)
    if isinstance(order, (ShipOrder, ClearShipStandingOrder)):
        ship = owned_ship(state, empire, order.ship)
        if ship is None:
            return [ship_not_yours(order.ship)]
        if isinstance(order, Jump):
            return [why] if (why := route_problem(state, ship, order.path)) else []
        return _recipient(state, order)
    if isinstance(order, (PlanetOrder, ClearPlanetStandingOrder)):
        if owned_planet(state, empire, order.planet) is None:
            return [planet_not_yours(order.planet)]
        return _recipient(state, order)
    if isinstance(order, Scan) and order.planet not in state.planets:
        return [no_such_planet(order.planet)]
    if isinstance(order, (MoreFriendly, MoreHostile)) and state.empire_named(order.player) is None:
        return [no_such_empire(order.player)]
    if isinstance(order, PersonalMessage) and state.empire_named(order.to) in (None, NEUTRAL):
        return [no_such_empire(order.to)]
    return []


def _recipient(state: GameState, order: Order) -> list[str]:
    """A gift to an empire that is not in the game (l.406, R-15)."""
    if isinstance(order, (GiftShip, GiftPlanet)) and recipient(state, order.player) is None:
        return [no_such_empire(order.player)]
    return []


def check_lines(state: GameState, empire: int, lines: list[Line]) -> list[str]:
    """Each problem of the mail's orders, with the line it is on and the
    order as gm reads it: ``line 2: S777J120: ship 777 is not yours``."""
    return [f"line {line.number}: {line.order}: {why}" for line in lines if line.order is not None
            for why in problems(state, empire, line.order)]
