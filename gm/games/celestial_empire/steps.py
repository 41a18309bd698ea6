"""The steps of a Celestial Empire turn, in the order the manual runs them
(§Turn Sequence, l.207-326; spec section 7), each written here once.

Step 1 (research) reads the empires' ``;RP`` lines, not their orders, and
runs before these (`research.research_all`, R-67). Then `STEPS`: steps 2
to 19, each under the phase of the orders it takes, and the messages
(None), which are in no step of the manual's sequence; each is given its
phase's orders in the rotation of R-11. Then `END_OF_TURN`: steps 20 to 24,
which take no orders, and Earth's market, which moves last, after the turn
was scored on the prices the sheet printed (R-27). `turn.run_turn` runs
them in the order they are written here.
"""

from __future__ import annotations

from . import battle, cargo, damage, earth, empire_steps, endturn, gifts, industry, movement, spacemines
from .orders import Phase
from .report import EndStep, Step

STEPS: dict[Phase | None, Step] = {
    Phase.GAME_LENGTH: empire_steps.game_length,  # 2
    Phase.NAMING: empire_steps.naming,  # 3
    Phase.GIFTING: gifts.gifting,  # 4
    Phase.ALLIANCES: empire_steps.alliances,  # 5
    Phase.UNLOADING: cargo.unloading,  # 6
    Phase.LOADING: cargo.loading,  # 7
    Phase.TRADING: earth.trading,  # 8
    Phase.CONTRACTING: earth.contracting,  # 9
    Phase.SPACEMINES: spacemines.spacemines,  # 10
    Phase.BATTLE: battle.battle,  # 11
    Phase.TENDING: cargo.tending,  # 12
    Phase.UNBUILDING: industry.unbuilding,  # 13
    Phase.TRANSMUTATION: industry.transmutation,  # 14
    Phase.PLANET_BUILDING: industry.planet_building,  # 15
    Phase.SHIP_BUILDING: industry.ship_building,  # 16
    Phase.MOVEMENT: movement.movement,  # 17
    Phase.SCANNING: empire_steps.scanning,  # 18
    Phase.STANDING_ORDERS: empire_steps.standing_orders,  # 19
    None: empire_steps.messages,
}
"""The steps that take orders, by the phase of their orders, in the order
they run. Every phase an order can have is here (R-5: no order is dropped)."""

END_OF_TURN: tuple[tuple[str, EndStep], ...] = (
    ("spacemine attacks", spacemines.spacemine_attacks),  # 20
    ("mining", endturn.mining),  # 21
    ("damage", damage.damage),  # 22
    ("ownership", endturn.ownership),  # 23
    ("score", endturn.score),  # 24
    ("earth market", earth.earth_market),
)
"""The steps that take no orders, by name, in the order they run."""

END_ORDER = tuple(name for name, _ in END_OF_TURN)
"""The names of `END_OF_TURN`, in its order."""


def end_of_turn_in_order() -> list[EndStep]:
    """The functions of `END_OF_TURN`, in its order."""
    return [end for _, end in END_OF_TURN]
