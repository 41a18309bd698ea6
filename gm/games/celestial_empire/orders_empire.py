"""Celestial Empire orders, continued: the ships' battle, building and
movement orders, the planets' orders, the empire's orders, standing orders
and messages. See `gm.games.celestial_empire.orders` for the shared types
and what every order class promises (``str()`` prints the canonical command;
``phase`` is its step of the turn sequence).
"""

from __future__ import annotations

from dataclasses import dataclass

from .orders import AllianceLevel, Order, Phase, PlanetOrder, ShipOrder, Unit, written_count

# Battle [l.936]: ``fighters`` None means with all fighter units.

@dataclass(frozen=True)
class AttackShip(ShipOrder):
    """``S231AS321`` / ``S231A34S321``: attack ship ``target``."""

    target: int
    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}S{self.target}"


@dataclass(frozen=True)
class AttackPDUs(ShipOrder):
    """``S309AD`` / ``S309A2D``: attack the planet's PDUs."""

    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}D"


@dataclass(frozen=True)
class AttackMines(ShipOrder):
    """``S165AM0`` / ``S165A10M0``: attack the planet's mines of ``mine_type``."""

    mine_type: int
    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}M{self.mine_type}"


@dataclass(frozen=True)
class AttackOre(ShipOrder):
    """``S165AR0`` / ``S165A10R0``: attack the planet's ore of ``ore_type``."""

    ore_type: int
    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}R{self.ore_type}"


@dataclass(frozen=True)
class AttackIndustry(ShipOrder):
    """``S164AI`` / ``S164A20I``: attack the planet's industry."""

    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}I"


@dataclass(frozen=True)
class AttackSpacemines(ShipOrder):
    """``S123ASM`` / ``S123A6SM``: attack the spacemines deployed around the planet."""

    fighters: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.fighters)}SM"


@dataclass(frozen=True)
class Engage(ShipOrder):
    """``S123ES234``: engage ship ``target`` with tractor beams [l.1919];
    the last step of battle."""

    target: int
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"ES{self.target}"


# Unbuilding, building, movement [l.1302, l.1345, l.1442]

@dataclass(frozen=True)
class Unbuild(ShipOrder):
    """``S123Z30C``: remove ``amount`` units of ``unit`` from the ship."""

    amount: int
    unit: Unit
    phase = Phase.UNBUILDING

    def action(self) -> str:
        return f"Z{self.amount}{self.unit.value}"


@dataclass(frozen=True)
class BuildUnits(ShipOrder):
    """``S123B30C``: build ``amount`` units of ``unit`` onto the ship with the
    planet's industry and ore (with a bid after the letter it is a `Contract`)."""

    amount: int
    unit: Unit
    phase = Phase.SHIP_BUILDING

    def action(self) -> str:
        return f"B{self.amount}{self.unit.value}"


MAX_JUMPS = 5
"""A ship jumps at most five links a turn (manual l.1448, l.1519)."""


@dataclass(frozen=True)
class Jump(ShipOrder):
    """``S123J120J240``: jump along ``path``, the planets in order, the last
    being the destination (one to `MAX_JUMPS`)."""

    path: tuple[int, ...]
    phase = Phase.MOVEMENT

    def action(self) -> str:
        return "".join(f"J{planet}" for planet in self.path)


# Planets [Naming l.373, Gifts l.410, Spacemines l.925, Battle l.1195 and
# l.1238, Transmutation l.1529, Building l.1385]

@dataclass(frozen=True)
class NamePlanet(PlanetOrder):
    """``234=ARAKOS I``: call the planet ``name`` (as written: case kept)."""

    name: str
    phase = Phase.NAMING

    def action(self) -> str:
        return f"={self.name}"


@dataclass(frozen=True)
class GiftPlanet(PlanetOrder):
    """``345GWARLORD``: give the planet to the empire ``player``."""

    player: str
    phase = Phase.GIFTING

    def action(self) -> str:
        return f"G{self.player}"


@dataclass(frozen=True)
class DeployFromPlanet(PlanetOrder):
    """``234D2``: the planet deploys ``amount`` spacemines from its stockpile."""

    amount: int
    phase = Phase.SPACEMINES

    def action(self) -> str:
        return f"D{self.amount}"


@dataclass(frozen=True)
class PlanetAttackShip(PlanetOrder):
    """``123AS234`` / ``123A120S234``: the planet's PDUs (``pdus`` of them,
    None for all) fire at ship ``target``."""

    target: int
    pdus: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.pdus)}S{self.target}"


@dataclass(frozen=True)
class PlanetAttackSpacemines(PlanetOrder):
    """``123ASM`` / ``123A20SM``: the planet's PDUs fire at the spacemines
    deployed around it."""

    pdus: int | None = None
    phase = Phase.BATTLE

    def action(self) -> str:
        return f"A{written_count(self.pdus)}SM"


@dataclass(frozen=True)
class Transmute(PlanetOrder):
    """``145X4R5R6``: turn ``amount`` of ore type ``from_type`` into ``to_type``."""

    amount: int
    from_type: int
    to_type: int
    phase = Phase.TRANSMUTATION

    def action(self) -> str:
        return f"X{self.amount}R{self.from_type}R{self.to_type}"


@dataclass(frozen=True)
class BuildPDUs(PlanetOrder):
    """``345B50D``: build ``amount`` PDUs."""

    amount: int
    phase = Phase.PLANET_BUILDING

    def action(self) -> str:
        return f"B{self.amount}D"


@dataclass(frozen=True)
class BuildMines(PlanetOrder):
    """``235B5M8``: build ``amount`` mines of type ``mine_type``."""

    amount: int
    mine_type: int
    phase = Phase.PLANET_BUILDING

    def action(self) -> str:
        return f"B{self.amount}M{self.mine_type}"


@dataclass(frozen=True)
class BuildIndustry(PlanetOrder):
    """``103B10I``: build ``amount`` industry."""

    amount: int
    phase = Phase.PLANET_BUILDING

    def action(self) -> str:
        return f"B{self.amount}I"


@dataclass(frozen=True)
class BuildSpacemines(PlanetOrder):
    """``100B50S0``: build ``amount`` spacemines from ore type ``ore_type``."""

    amount: int
    ore_type: int
    phase = Phase.PLANET_BUILDING

    def action(self) -> str:
        return f"B{self.amount}S{self.ore_type}"


@dataclass(frozen=True)
class BuildHyperdrives(PlanetOrder):
    """``327B1H0/5/0/7``: build ``amount`` new ships, each with ``fighters``,
    ``cargo``, ``tractors`` and ``shields`` units."""

    amount: int
    fighters: int
    cargo: int
    tractors: int
    shields: int
    phase = Phase.PLANET_BUILDING

    def action(self) -> str:
        return f"B{self.amount}H{self.fighters}/{self.cargo}/{self.tractors}/{self.shields}"


# The empire [Alliances l.427, Scans l.1548, Game length l.1984]

@dataclass(frozen=True)
class MoreFriendly(Order):
    """``+Assassin``: become one level more friendly with ``player``."""

    player: str
    phase = Phase.ALLIANCES

    def __str__(self) -> str:
        return f"+{self.player}"


@dataclass(frozen=True)
class MoreHostile(Order):
    """``-PsiNinja``: become one level more hostile with ``player``."""

    player: str
    phase = Phase.ALLIANCES

    def __str__(self) -> str:
        return f"-{self.player}"


@dataclass(frozen=True)
class Scan(Order):
    """``SCAN123``: scan planet ``planet``."""

    planet: int
    phase = Phase.SCANNING

    def __str__(self) -> str:
        return f"SCAN{self.planet}"


@dataclass(frozen=True)
class GameLength(Order):
    """``TURN30``: the empire wishes the game to end on turn ``turn``."""

    turn: int
    phase = Phase.GAME_LENGTH

    def __str__(self) -> str:
        return f"TURN{self.turn}"


# Standing orders [l.1574]: entered in step 19, carried out from the next
# turn on in their own order's step.

@dataclass(frozen=True)
class SetStandingOrder(Order):
    """``OS123AI`` / ``O234B3D``: ``order`` becomes its ship's or planet's
    standing order."""

    order: ShipOrder | PlanetOrder
    phase = Phase.STANDING_ORDERS

    def __str__(self) -> str:
        return f"O{self.order}"


@dataclass(frozen=True)
class ClearShipStandingOrder(Order):
    """``XS123``: clear ship ``ship``'s standing order (from the next turn)."""

    ship: int
    phase = Phase.STANDING_ORDERS

    def __str__(self) -> str:
        return f"XS{self.ship}"


@dataclass(frozen=True)
class ClearPlanetStandingOrder(Order):
    """``X234``: clear planet ``planet``'s standing order (from the next turn)."""

    planet: int
    phase = Phase.STANDING_ORDERS

    def __str__(self) -> str:
        return f"X{self.planet}"


# Messages [Diplomacy l.1805]: one line each, not in the turn sequence
# (phase None) nor in the command history (manual l.2369-2373).

@dataclass(frozen=True)
class Broadcast(Order):
    """``{Death to Grok the infidel.}``: ``text`` to every player."""

    text: str

    def __str__(self) -> str:
        return "{" + self.text + "}"


@dataclass(frozen=True)
class PersonalMessage(Order):
    """``&Winter Leave #306 now or face war.&``: ``text`` to player ``to``."""

    to: str
    text: str

    def __str__(self) -> str:
        return f"&{self.to} {self.text}&"


@dataclass(frozen=True)
class AllianceMessage(Order):
    """``(ALLY We must strike at P304 now)``: ``text`` to every player this
    empire holds at ``level``."""

    level: AllianceLevel
    text: str

    def __str__(self) -> str:
        return f"({self.level.value} {self.text})"
