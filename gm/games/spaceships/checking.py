"""Checking one player's orders against what their fleet entitles them to.

Every order is either accepted, with what it will do, or rejected with a
reason that names the rule it breaks. Accepted orders run even when others in
the same list are rejected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from .geometry import Cell, Geometry, cells_of
from .orders import Beam, Kamikaze, Missile, Order, Scan, Strike
from .ruleset import DEFAULT, Ruleset
from .ships import ShipType
from .state import Entitlement, Side


@dataclass(frozen=True)
class Accepted:
    """An order that will run. ``cells`` are its targets (three for a beam,
    one for a strike or scan) or its launch cell (missile, kamikaze);
    ``ship`` is the index of the ship that carries it out, where one does."""

    order: Order
    cells: tuple[Cell, ...]
    ship: int | None = None
    executed: str = ""
    """The order as it will be carried out, e.g. ``missile launched from Rv2 (MD)``."""


@dataclass(frozen=True)
class Rejected:
    """An order that will not run, and why (with the clause)."""

    order: Order
    reason: str


Outcome = Accepted | Rejected


@dataclass(frozen=True)
class OrderCheck:
    """A player's orders for a turn, each accepted or rejected, in the order written."""

    outcomes: tuple[Outcome, ...]
    entitlement: Entitlement

    @cached_property
    def accepted(self) -> list[Accepted]:
        return [o for o in self.outcomes if isinstance(o, Accepted)]

    @cached_property
    def rejected(self) -> list[Rejected]:
        return [o for o in self.outcomes if isinstance(o, Rejected)]

    def accepted_of(self, kind: type) -> list[Accepted]:
        return [o for o in self.outcomes if isinstance(o, Accepted) and isinstance(o.order, kind)]

    @property
    def actions_other_than_scans(self) -> bool:
        """Whether any action but a scan was recorded, for [2.3.2]."""
        return any(not isinstance(o.order, Scan) for o in self.accepted)


def check_orders(side: Side, entitlement: Entitlement, orders: Sequence[Order],
                 ruleset: Ruleset = DEFAULT) -> OrderCheck:
    """Accept or reject each of ``orders`` for ``side`` in the coming turn.

    Beams, missile and kamikaze launches and scans are checked in the order
    written. Every launch needs one strike in the list for its target; when
    there are fewer strikes than launches, the launches written last are
    rejected. Then the strikes: the side may make one per conventional strike,
    missile launch and kamikaze launch accepted [4.4.1], [11.5.3], [11.5.5];
    strikes beyond that are rejected from the end of the list.
    """
    geometry = ruleset.geometry
    outcomes: dict[int, Outcome] = {}
    fired_beams: set[int] = set()
    launched_missiles: set[int] = set()
    launched_kamikazes: set[int] = set()
    scans = 0
    for position, order in enumerate(orders):
        if isinstance(order, Beam) and ruleset.early:
            outcomes[position] = _check_early_beam(order, side, entitlement, geometry, fired_beams)
        elif isinstance(order, Beam):
            outcomes[position] = _check_beam(order, side, entitlement, geometry, fired_beams)
        elif isinstance(order, Missile):
            outcomes[position] = _check_missile(order, side, launched_missiles)
        elif isinstance(order, Kamikaze):
            outcomes[position] = _check_kamikaze(order, side, entitlement, launched_kamikazes)
        elif isinstance(order, Scan):
            if not ruleset.scans:
                outcomes[position] = Rejected(order, "there are no scans in the early rules [early 4]")
            elif entitlement.scans == 0:
                outcomes[position] = Rejected(order, "you have no undestroyed scanner [8.3], [8.3.2]")
            elif scans >= entitlement.scans:
                outcomes[position] = Rejected(order,
                                              f"only {entitlement.scans} scan{'s' * (entitlement.scans > 1)} allowed "
                                              "this turn [8.3.1]")
            else:
                scans += 1
                outcomes[position] = Accepted(order, (order.target,), executed=f"scan {order.target}")
    # Each launch's target is one more strike in the list [11.5.3], [11.5.5]:
    # with fewer strikes than launches, the launches written last have none.
    launches = sorted(i for i, o in outcomes.items()
                      if isinstance(o, Accepted) and isinstance(o.order, (Missile, Kamikaze)))
    written_strikes = sum(isinstance(order, Strike) for order in orders)
    for position in launches[written_strikes:]:
        accepted = outcomes[position]
        assert isinstance(accepted, Accepted)
        if isinstance(accepted.order, Missile):
            launched_missiles.discard(accepted.ship)  # type: ignore[arg-type]
            what = "missile launch [8.1.3.1], [11.5.3]"
        else:
            launched_kamikazes.discard(accepted.ship)  # type: ignore[arg-type]
            what = "kamikaze launch [4.5.1], [11.5.5]"
        outcomes[position] = Rejected(accepted.order, f"a {what} needs its target: one more strike in the list")
    allowed = entitlement.conventional + len(launched_missiles) + len(launched_kamikazes)
    strikes = 0
    for position, order in enumerate(orders):
        if isinstance(order, Strike):
            if strikes < allowed:
                strikes += 1
                outcomes[position] = Accepted(order, (order.target,), executed=f"strike {order.target}")
            else:
                outcomes[position] = Rejected(
                    order,
                    f"too many strikes: {allowed} allowed this turn ({entitlement.conventional} conventional [4.4.1], "
                    f"{len(launched_missiles)} missile [8.1.3], {len(launched_kamikazes)} kamikaze [4.5])",
                )
    return OrderCheck(tuple(outcomes[i] for i in range(len(orders))), entitlement)


def _check_beam(order: Beam, side: Side, entitlement: Entitlement, geometry: Geometry, fired: set[int]) -> Outcome:
    targets = geometry.line_of_three(order.start, order.end)
    if targets is None:
        return Rejected(order,
                        f"the end cells {order.start} and {order.end} are not two steps apart on a straight line "
                        "[8.2.1]")
    direction = geometry.direction(targets[0], targets[1])
    assert direction is not None
    reverse = (-direction[0], -direction[1], -direction[2])
    fleet = side.fleet
    if order.ship is not None:
        index = fleet.find(order.ship.type, order.ship.identity)
        if index is None:
            return Rejected(order, f"you have no ship {order.ship} [11.5.2.1]")
        if not order.ship.type.beam:
            return Rejected(order, f"{order.ship} has no beam weapon [8.2], [6.2.5]")
        candidates = [index]
    else:
        candidates = [i for i, s in enumerate(fleet.ships) if s.type.beam]
        if not candidates:
            return Rejected(order, "you have no ship with a beam weapon [8.2], [6.2.5]")
    able = []
    why = []
    for index in candidates:
        ship = fleet.ships[index]
        if side.is_destroyed(ship):
            why.append(f"{ship.label} is destroyed [3.10]")
        elif index in side.burnt_out:
            why.append(f"{ship.label}'s beam weapon has burnt out [8.4]")
        elif index in fired:
            why.append(f"{ship.label} has already fired its beam this turn [8.2]")
        elif not {direction, reverse} & entitlement.beam_directions.get(index, frozenset()):
            why.append(f"{ship.label} has no two undamaged loosely adjacent cells in a line parallel to the targets "
                       "[8.2.2]")
        else:
            able.append(index)
    if not able:
        return Rejected(order, "; ".join(why))
    if len(able) > 1:
        names = ", ".join(fleet.ships[i].label for i in able)
        return Rejected(order,
                        f"several ships could fire this beam ({names}): name one, as in "
                        f"{order}({fleet.ships[able[0]].label}) [8.2.3.1], [11.5.2.1]")
    index = able[0]
    fired.add(index)
    line = " ".join(map(str, targets))
    return Accepted(order, targets, index, executed=f"beam from {fleet.ships[index].label} on {line}")


def _check_early_beam(order: Beam, side: Side, entitlement: Entitlement, geometry: Geometry,
                      fired: set[int]) -> Outcome:
    """[early 6.1.3]: an undamaged death star fires on five adjacent cells in
    a straight line, whose cells in the firing player's own space intersect
    the death star."""
    targets = geometry.line_of_five(order.start, order.end)
    if targets is None:
        return Rejected(order,
                        f"the end cells {order.start} and {order.end} are not the ends of five adjacent cells in a "
                        "straight line [early 6.1.3.2]")
    fleet = side.fleet
    candidates = [i for i, s in enumerate(fleet.ships) if s.type.beam]
    if order.ship is not None:
        candidates = [i for i in candidates if fleet.ships[i].type is order.ship.type
                      and fleet.ships[i].identity in (order.ship.identity, None)]
    if not candidates:
        return Rejected(order, "you have no death star [early 6.1.3]")
    line_mask = sum(c.bit for c in targets)
    why = []
    for index in candidates:
        ship = fleet.ships[index]
        if index not in entitlement.beam_directions:
            why.append(f"only an undamaged death star fires its beam, and {ship.label} is damaged [early 6.1.3]")
        elif index in fired:
            why.append(f"{ship.label} has already fired its beam this turn [early 6.1.3]")
        elif not ship.mask & line_mask:
            why.append(f"the line {order.start}-{order.end} does not pass through your death star in your own space "
                       "[early 6.1.3.3]")
        else:
            fired.add(index)
            return Accepted(order, targets, index, executed=f"beam from {ship.label} on {' '.join(map(str, targets))}")
    return Rejected(order, "; ".join(why))


def _check_missile(order: Missile, side: Side, launched: set[int]) -> Outcome:
    fleet = side.fleet
    unfired = [c for c in cells_of(side.unfired_missiles) if order.launch.matches(c)]
    if not unfired:
        return Rejected(order, f"no unfired missile of yours matches {order.launch} [8.1.3.1], [11.5.3]")
    if len(unfired) > 1:
        listed = ", ".join(f"{c} ({ship.label})" for c in unfired if (ship := fleet.ship_of(c)) is not None)
        return Rejected(order, f"{order} is ambiguous: it could launch any of {listed}; give more coordinates [11.5.3]")
    cell = unfired[0]
    index = fleet.ship_at[cell.index]
    ship = fleet.ships[index]
    if index in launched:
        return Rejected(order,
                        f"{ship.label} has already launched a missile this turn; a ship launches one missile a turn "
                        "[8.1.3]")
    launched.add(index)
    return Accepted(order, (cell,), index, executed=f"missile launched from {cell} ({ship.label})")


def _check_kamikaze(order: Kamikaze, side: Side, entitlement: Entitlement, launched: set[int]) -> Outcome:
    fleet = side.fleet
    cell = order.launch
    index = fleet.ship_at[cell.index]
    if index < 0:
        return Rejected(order, f"{cell} is not part of any of your ships [4.5.2]")
    ship = fleet.ships[index]
    if side.destroyed & cell.bit:
        return Rejected(order, f"{cell} is destroyed; the launch cell must be undamaged [4.5.2]")
    if ship.type is ShipType.LS:
        return Rejected(order, "a light scout never launches a kamikaze strike [6.8.2]")
    if index not in entitlement.kamikaze_ships:
        reasons = []
        if entitlement.conventional_by_ship[index]:
            reasons.append("a conventional strike [4.4.1]")
        if index in entitlement.missile_ships:
            reasons.append("a missile strike [8.1.3]")
        return Rejected(order,
                        f"{ship.label} still entitles you to {' and '.join(reasons)}, so it cannot launch a kamikaze "
                        "strike [4.5]")
    if index in launched:
        return Rejected(order, f"{ship.label} has already launched a kamikaze strike this turn [4.5]")
    launched.add(index)
    return Accepted(order, (cell,), index, executed=f"kamikaze launched from {cell} ({ship.label})")
