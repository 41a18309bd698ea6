"""One Celestial Empire turn: every empire's orders carried out in the
manual's sequence of steps (§Turn Sequence, l.207-326; spec section 7).

`run_turn(state, orders)` is pure: it copies the state, runs each step on
the copy, and returns the copy with the turn's `Report` (each empire's
command history, what each empire saw happen, the messages). The steps live
in their own modules; each is a function

    step(state, orders, report) -> None

given the orders of its step in processing order (`in_rotation`, ruling
R-11), which it carries out on ``state`` and answers in ``report``: every
order gets a line in its empire's command history, carried out (perhaps in
part, with the limit that cut it, ruling P1) or refused with the reason. An
order no step takes is answered too, never dropped (R-5). The exceptions
are the manual's own: messages are not in the command history (l.2370),
and a planet scanned twice is listed once (l.2379, R-61).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .orders import Order, Phase
from .state import GameState, Planet, no_ore

if TYPE_CHECKING:
    from .damage import Volley

SEATS = 9


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
        entry = Entry(str(order), done=done, standing=standing or isinstance(order, Order) and order.standing)
        self.history.setdefault(empire, []).append(entry)
        return entry

    def refused(self, empire: int, order: Order | str, why: str, standing: bool = False) -> Entry:
        """Record that ``order`` could not be carried out at all, and why (standing: as for `did`)."""
        entry = Entry(str(order), why=why, standing=standing or isinstance(order, Order) and order.standing)
        self.history.setdefault(empire, []).append(entry)
        return entry

    def tell(self, empire: int, text: str) -> None:
        """Something ``empire`` learns this turn (shown on its sheet)."""
        self.seen.setdefault(empire, []).append(text)


Step = Callable[[GameState, Sequence[tuple[int, Order]], Report], None]

STEPS: dict[Phase | None, Step] = {}
"""The step function of each phase that gm carries out, filled by `step`;
None is the messages', which are in no step of the manual's sequence."""

END_OF_TURN: list[tuple[str, Callable[[GameState, Report], None]]] = []
"""Steps 20 to 24 (spacemine attacks, mining, damage, ownership, score),
which take no orders. Modules append theirs by these names; `run_turn`
runs them in the manual's order (`END_ORDER`) whatever order the modules
were imported in."""

END_ORDER = ("spacemine attacks", "mining", "damage", "ownership", "score", "earth market")
"""The names of steps 20 to 24, in the manual's order (l.207-320), then
Earth's market at the very end of the turn (R-27)."""


def end_of_turn_in_order() -> list[Callable[[GameState, Report], None]]:
    """The steps of `END_OF_TURN` in the manual's order; a name not in
    `END_ORDER` runs after them, in the order it was added."""
    def rank(item: tuple[int, tuple[str, Callable[[GameState, Report], None]]]) -> tuple[int, int]:
        added, (name, _) = item
        return (END_ORDER.index(name) if name in END_ORDER else len(END_ORDER), added)

    return [end for _, (_, end) in sorted(enumerate(END_OF_TURN), key=rank)]


def step(phase: Phase | None) -> Callable[[Step], Step]:
    """Register the function that carries out ``phase``'s orders."""
    def register(function: Step) -> Step:
        STEPS[phase] = function
        return function
    return register


def rotation(turn: int, empires: Iterable[int]) -> list[int]:
    """``empires`` in the order of ruling R-11 on ``turn``: starting on turn t
    with empire ((t - 1) mod 9) + 1 and wrapping, fair over nine turns and
    the same on every replay."""
    first = (turn - 1) % SEATS + 1
    return sorted(empires, key=lambda e: (e - first) % SEATS)


def in_rotation(turn: int, orders: dict[int, list[Order]]) -> list[tuple[int, Order]]:
    """Every empire's orders, empire by empire in the `rotation` of R-11,
    each empire's in the order written."""
    return [(empire, order) for empire in rotation(turn, orders) for order in orders[empire]]


def in_sub_steps(orders: Sequence[tuple[int, Order]], sub_steps: Sequence[object],
                 key: Callable[[Order], object] = type) -> list[tuple[int, Order]]:
    """A step's orders in its sub-steps, in the manual's order ``sub_steps``:
    the order classes of each sub-step by default, or what ``key`` gives of
    an order (its unit, say). The sort is stable, so within a sub-step the
    orders stay in the rotation of R-11; an order of no listed sub-step goes last."""
    def rank(item: tuple[int, Order]) -> int:
        sub_step = key(item[1])
        return sub_steps.index(sub_step) if sub_step in sub_steps else len(sub_steps)
    return sorted(orders, key=rank)


def standing(state: GameState, empire: int, report: Report) -> list[Order]:
    """The standing orders of ``empire``'s ships and planets, read now (they
    were not checked when set, l.1592-1594); one that cannot be read, or is
    not an order of its own ship or planet, is answered every turn (R-62)."""
    from ...kernel.errors import NotationError
    from .notation import parse_order
    from .orders import PlanetOrder, ShipOrder

    found: list[Order] = []
    texts: list[tuple[str | None, type, int]] = [(s.standing, ShipOrder, s.number) for s in state.ships_of(empire)]
    texts += [(p.standing, PlanetOrder, p.number) for p in state.planets_of(empire)]
    for text, kind, number in texts:
        if text is None:
            continue
        try:
            order = parse_order(text)
        except NotationError as error:
            report.refused(empire, text, f"standing order cannot be read: {error}", standing=True)
            continue
        subject = order.ship if isinstance(order, ShipOrder) else order.planet if isinstance(order, PlanetOrder) else None
        if not isinstance(order, kind) or subject != number:
            report.refused(empire, text, "a standing order must be an order of its own ship or planet", standing=True)
            continue
        found.append(dataclasses.replace(order, standing=True))
    return found


def run_turn(state: GameState, orders: dict[int, list[Order]],
             research: dict[int, list[str]] | None = None) -> tuple[GameState, Report]:
    """Carry out one turn: ``orders`` are each empire's, as its mail gave them
    (standing orders are added here, after them), and ``research`` its
    ``;RP`` lines, which run first, on research turns (step 1, R-67).
    ``state`` is not changed."""
    from . import steps  # noqa: F401 (registers the steps)
    from .research import research_all

    after = state.copy()
    report = Report(state.turn, industry_start={n: p.industry for n, p in after.planets.items()})
    research_all(after, research or {}, report)
    ordered = in_rotation(state.turn, {e: list(orders.get(e, [])) + standing(after, e, report)
                                       for e in sorted(set(orders) | set(after.empires))})
    phases: list[Phase | None] = [*sorted(Phase), None]
    for phase in phases:
        mine = [(empire, order) for empire, order in ordered if order.phase == phase]
        if phase in STEPS:
            STEPS[phase](after, mine, report)
        else:
            for empire, order in mine:
                report.refused(empire, order, "gm does not carry out this order yet")
    for end in end_of_turn_in_order():
        end(after, report)
    after.turn += 1
    return after, report
