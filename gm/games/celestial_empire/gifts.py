"""Step 4 of the turn, gifting: ``S244GMASTER`` gives a ship, ``345GWARLORD``
a planet (§Gifts, manual l.385-424; spec section 7.4).

Gifts run before every step that uses ships and planets, so that what is
given is the receiver's for the rest of the turn (R-5, R-21): the giver can
no longer order it, the receiver can. Ore, mines, industry and PDUs are
given by unloading them on the other empire's planet (l.394-395, step 6);
money cannot be given at all (l.391-392).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .answers import no_such_empire, own_planet, own_ship
from .orders import GiftShip, Order
from .orders_empire import GiftPlanet
from .report import Report
from .state import NEUTRAL, GameState, Planet, Ship

SHIP_GIFTS = 2
"""At most two ships a turn, "otherwise your merchant families will have you assassinated" (l.398-399)."""
PLANET_GIFTS = 3
"""At most three planets a turn (l.412-413)."""


def recipient(state: GameState, name: str) -> int | None:
    """The empire called ``name`` (any case, R-2), NEUTRAL for "NEUTRAL"
    (a name no empire may take, R-14), None for an unknown name."""
    found = state.empire_named(name)
    if found is None and name.strip().upper() == "NEUTRAL":
        return NEUTRAL
    return found


def gifting(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Give each ship or planet away, in the order written: the first two
    ships and first three planets an empire gives succeed, a failed gift does
    not count, planets may go to NEUTRAL but ships not, the giver's own home
    never (R-15). Everything aboard or on it goes with it; its standing order
    is cleared (l.1601). The receiver is told."""
    given: Counter[str] = Counter()
    for empire, order in orders:
        thing: Ship | Planet | None
        if isinstance(order, GiftShip):
            thing = own_ship(state, empire, order.ship, order, report)
            what, kind, limit = f"ship {order.ship}", "ship", SHIP_GIFTS
        else:
            assert isinstance(order, GiftPlanet)
            thing = own_planet(state, empire, order.planet, order, report)
            what, kind, limit = f"planet {order.planet}", "planet", PLANET_GIFTS
        if thing is None:
            continue
        to = recipient(state, order.player)
        why = ""
        if to is None:
            why = no_such_empire(order.player)
        elif to == empire:
            why = f"{what} is already yours"
        elif kind == "ship" and to == NEUTRAL:
            why = "ships cannot be given to NEUTRAL, only planets (ruling R-15)"
        elif isinstance(thing, Planet) and thing.home_of == empire:
            why = "you cannot give away your home planet (l.411)"
        elif given[f"{empire}:{kind}"] >= limit:
            why = f"gift limit: {limit} {kind}s a turn (ruling R-15)"
        if why or to is None:
            report.refused(empire, order, why)
            continue
        given[f"{empire}:{kind}"] += 1
        thing.owner = to
        thing.standing = None
        report.did(empire, order, f"{what} given to {state.name_of(to)}")
        if to != NEUTRAL:
            report.tell(to, f"{state.empires[empire].name} gave you {what}")
