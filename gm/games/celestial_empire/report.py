"""The values of one Celestial Empire turn, which every step writes to and
no step defines: the turn's `Report` (each empire's command history of
`Entry` lines, what it saw, its messages; what the battle steps leave for
the steps after them, such as the `Volley`s waiting for step 22) and the
shapes of a step (`Step`, `EndStep`).

This module imports no step, so that the step modules can import it and
`steps` can list them (spec section 7; ruling R-5: every order is answered).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .orders import Order
from .state import GameState, Planet, no_ore


@dataclass
class Entry:
    """One line of an empire's command history (l.2368-2417): the order as
    desired, and what was carried out, or why not."""

    written: str
    done: str = ""
    why: str = ""
    standing: bool = False
    """A standing order, run on the empire's behalf (l.1574-1619)."""

    @property
    def carried_out(self) -> bool:
        """Done at least in part; a refused order has only its reason."""
        return bool(self.done)


@dataclass
class Volley:
    """``shots`` aimed at ship ``ship`` from ``source`` ("ship 231 (Grok)",
    "the PDUs of planet 123", "40 spacemines at planet 123")."""

    ship: int
    shots: int
    source: str
    cargo: bool = True
    """Whether these shots can destroy cargo units: ship and spacemine shots
    can, PDU shots cannot (R-44)."""
    entry: Entry | None = None
    """The attacker's line in its command history, finished when the damage is known."""
    attacker: int | None = None
    """The empire that fired, if an empire did."""


@dataclass
class EarthTrade:
    """What Earth's market did this turn, for its end-of-turn adjustment (R-27)."""

    bought: list[int] = field(default_factory=no_ore)
    """Units of each ore type empires bought from Earth."""
    sold: list[int] = field(default_factory=no_ore)
    """Units of each ore type empires sold to Earth."""
    industry_asked: int = 0
    """Industry the turn's valid bids asked Earth for."""
    industry_offered: int = 0
    """Industry Earth had for hire when the bids were taken."""


@dataclass
class Report:
    """What a turn did, for the turn sheets: by empire, only what it may know."""

    turn: int
    history: dict[int, list[Entry]] = field(default_factory=dict)
    seen: dict[int, list[str]] = field(default_factory=dict)
    """Events each empire saw or was told of: battles it fought or was fought
    in, losses, planets and ships changing hands, Earth's retaliation."""
    messages: dict[int, list[str]] = field(default_factory=dict)
    """The messages each empire receives this turn, as the sheet prints them."""
    scanned: dict[int, list[int]] = field(default_factory=dict)
    """The planets each empire scanned this turn."""
    operator: list[tuple[int, str]] = field(default_factory=list)
    """What the game's operator must answer by hand (research results, R-66):
    (empire, what it asked), for `gm answer`."""
    industry_start: dict[int, int] = field(default_factory=dict)
    """Each planet's industry when the turn began: only that may be used this
    turn; industry built, unloaded or made this turn waits for the next (R-53)."""
    industry_used: dict[int, int] = field(default_factory=dict)
    """Industry of each planet used so far this turn, by every step that uses
    industry (contracting at Earth, unbuilding, transmuting, building): each
    industry once a turn (l.1347-1349, R-53)."""
    earth_trade: EarthTrade = field(default_factory=EarthTrade)

    def free_industry(self, planet: Planet) -> int:
        """The industry of ``planet`` still usable this turn: what it had at
        the start and still has, less what was used (R-53)."""
        start = self.industry_start.get(planet.number, planet.industry)
        return max(0, min(planet.industry, start) - self.industry_used.get(planet.number, 0))

    def use_industry(self, planet: Planet, amount: int) -> None:
        """Mark ``amount`` of ``planet``'s industry used for the rest of the turn."""
        assert 0 <= amount <= self.free_industry(planet), "industry used twice in a turn"
        self.industry_used[planet.number] = self.industry_used.get(planet.number, 0) + amount

    # What the battle steps (10, 11, 20, 22: battle.py, spacemines.py,
    # damage.py) leave for the steps after them, this turn only.
    fought: set[int] = field(default_factory=set)
    """Ships that initiated battle in step 11 (R-49): movement (step 17)
    refuses their own jumps ("initiated battle"); they can still be towed."""
    towing: dict[int, int] = field(default_factory=dict)
    """Tractor links made in step 11k (R-59), engager -> target: movement
    moves each target with its engager, free of fuel, and refuses the
    target's own jump ("held by tractor beams"). A ship is in at most one
    link, as engager or as target. The links end with the turn."""
    retrieved: set[int] = field(default_factory=set)
    """Ships that retrieved spacemines in step 10c: their tractors cannot engage (R-39)."""
    minefield: list[tuple[int, int]] = field(default_factory=list)
    """(ship, planet): each entry of a ship into a planet during movement,
    in the order of jumping, queued by `spacemines.spacemine_attack` for
    step 20 (R-37, R-38)."""
    volleys: list[Volley] = field(default_factory=list)
    """Shots waiting for the damage resolution of step 22: PDU passage fire
    (`damage.pdu_passage_fire`, R-48) and spacemine attacks (step 20)."""

    def did(self, empire: int, order: Order | str, done: str, standing: bool = False) -> Entry:
        """Record that ``order`` was carried out: ``done`` says how much. The
        line is a standing order's if ``standing`` says so or the order is one."""
        entry = Entry(str(order), done=done, standing=standing or (isinstance(order, Order) and order.standing))
        self.history.setdefault(empire, []).append(entry)
        return entry

    def refused(self, empire: int, order: Order | str, why: str, standing: bool = False) -> Entry:
        """Record that ``order`` could not be carried out at all, and why (standing: as for `did`)."""
        entry = Entry(str(order), why=why, standing=standing or (isinstance(order, Order) and order.standing))
        self.history.setdefault(empire, []).append(entry)
        return entry

    def tell(self, empire: int, text: str) -> None:
        """Something ``empire`` learns this turn (shown on its sheet)."""
        self.seen.setdefault(empire, []).append(text)


Step = Callable[[GameState, Sequence[tuple[int, Order]], Report], None]
"""A step that takes orders (2 to 19, and the messages): given the orders of
its step in processing order (`rotation.in_rotation`, R-11), it carries
them out on the state and answers each in the report."""

EndStep = Callable[[GameState, Report], None]
"""A step that takes no orders (20 to 24, and Earth's market)."""
