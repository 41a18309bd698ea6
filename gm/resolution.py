"""Simultaneous resolution of a turn [2.2]: both players' checked orders
become a new state and the announcements both players hear.

The sequence follows the rulings in ``docs/rulings.md``:

1. Each player's own-action effects apply first (ruling a): kamikaze launch
   cells become destroyed [4.5.3] and launched missiles become fired
   [8.1.3.2], before any visible aspect is revealed.
2. Announcements follow the conventional interaction ordering [11.7]: the
   initially active player (1 on odd turns, 2 on even) reports beam strikes,
   then strikes in the order written, then scans, then kamikaze deaths; then
   the other player does the same (ruling c). A hit destroys its cell as it is
   announced [5.2.3], so later strikes there are duplicate hits [5.2.4].
3. A hit on a cell that was an unfired missile just after the reveal
   explodes [8.1.4] (ruling b), without chaining.
4. A destroyed ship is reported with the announcement that destroyed its last
   cell, and flashcube data comes back at once [11.7.3].
5. Termination is checked at the end of the turn [2.3].
"""

from __future__ import annotations

from .checking import OrderCheck, check_orders
from .events import Announcement, BurnOut, Destruction, FlashcubeCell, Result, TurnReport
from .geometry import Cell, cells_of, is_axis
from .orders import Beam, Kamikaze, Missile, Order, Scan, Strike
from .state import GameResult, GameState, Side


class GameOverError(RuntimeError):
    """A turn was asked of a game that has already ended [2.3]."""


def resolve_turn(state: GameState, orders1: list[Order], orders2: list[Order]) -> tuple[GameState, TurnReport]:
    """Play one turn: check both players' orders, resolve them together,
    and return the next state with the report of the turn."""
    if state.result is not None:
        raise GameOverError(f"the game ended after turn {state.result.ended_after_turn} [2.3]")
    geometry = state.ruleset.geometry
    checks = (
        check_orders(state.sides[0], state.entitlement(1), orders1, geometry),
        check_orders(state.sides[1], state.entitlement(2), orders2, geometry),
    )
    return _Turn(state, checks).resolve()


def _destroyed_by(result: Result, target: Cell, explosions: tuple[Cell, ...]) -> list[Cell]:
    """The cells a strike destroyed: none for a miss or a duplicate hit."""
    if result is Result.HIT:
        return [target]
    if result is Result.EXPLOSION:
        return list(explosions)
    return []


class _Turn:
    """The working state of one turn's resolution."""

    def __init__(self, state: GameState, checks: tuple[OrderCheck, OrderCheck]):
        self.state = state
        self.checks = checks
        self.geometry = state.ruleset.geometry
        self.fleets = (state.sides[0].fleet, state.sides[1].fleet)
        self.destroyed = [side.destroyed for side in state.sides]
        self.fired = [side.fired for side in state.sides]
        self.reported = [
            {i for i, ship in enumerate(side.fleet.ships) if side.is_destroyed(ship)} for side in state.sides
        ]
        self.announcements: list[Announcement] = []
        self.burn_outs: list[BurnOut] = []
        self.burnt = [set(side.burnt_out) for side in state.sides]

    def resolve(self) -> tuple[GameState, TurnReport]:
        state = self.state
        # Ruling a: own-action effects before anything is revealed.
        for p in (0, 1):
            for accepted in self.checks[p].accepted:
                if isinstance(accepted.order, Kamikaze):
                    self.destroyed[p] |= accepted.cells[0].bit  # [4.5.3]
                elif isinstance(accepted.order, Missile):
                    self.fired[p] |= accepted.cells[0].bit  # [8.1.3.2]
        # [8.1.4] which cells are still unfired missiles just after the reveal.
        self.live_missiles = [self.fleets[p].missiles & ~self.fired[p] & ~self.destroyed[p] for p in (0, 1)]
        first = state.initially_active - 1
        for active in (first, 1 - first):
            self._announce_actions(active)
        sides = tuple(
            Side(
                fleet=self.fleets[p],
                destroyed=self.destroyed[p],
                fired=self.fired[p],
                burnt_out=frozenset(self.burnt[p]),
                lost_last_turn=bin(self.destroyed[p] & ~state.sides[p].destroyed).count("1"),
            )
            for p in (0, 1)
        )
        result = self._termination(sides)
        next_state = GameState(sides, state.ruleset, state.turn + 1, result)  # type: ignore[arg-type]
        report = TurnReport(
            turn=state.turn,
            initially_active=state.initially_active,
            checks=self.checks,
            announcements=tuple(self.announcements),
            burn_outs=tuple(self.burn_outs),
            lost=(sides[0].lost_last_turn, sides[1].lost_last_turn),
            result=result,
        )
        return next_state, report

    def _announce_actions(self, active: int) -> None:
        """One player's report of their visible aspects [11.7.1.1]."""
        check = self.checks[active]
        by = active + 1
        passive = 1 - active
        for accepted in check.accepted:
            if isinstance(accepted.order, Beam):
                results = []
                for target in accepted.cells:
                    result, explosions = self._strike(passive, target)
                    results.append(result)
                    self._add(Announcement(by, "beam", target, result, explosions, beam=(accepted.order.start, accepted.order.end)),
                              passive, _destroyed_by(result, target, explosions))
                self._maybe_burn_out(active, accepted.ship, accepted.cells, results)
        for accepted in check.accepted:
            if isinstance(accepted.order, Strike):
                target = accepted.cells[0]
                result, explosions = self._strike(passive, target)
                self._add(Announcement(by, "strike", target, result, explosions), passive, _destroyed_by(result, target, explosions))
        for accepted in check.accepted:
            if isinstance(accepted.order, Scan):
                self._add(Announcement(by, "scan", accepted.cells[0], self._scan(passive, accepted.cells[0])), passive, [])
        for accepted in check.accepted:
            if isinstance(accepted.order, Kamikaze):
                launch = accepted.cells[0]
                self._add(Announcement(by, "kamikaze", launch, None), active, [launch])

    def _strike(self, passive: int, target: Cell) -> tuple[Result, tuple[Cell, ...]]:
        """A strike on the passive player's cell [5.2], with explosions [8.1.4]."""
        fleet = self.fleets[passive]
        index = fleet.ship_at[target.index]
        if index < 0:
            return Result.MISS, ()  # [5.2.2]
        if self.destroyed[passive] & target.bit:
            return Result.DUPLICATE, ()  # [5.2.4]
        self.destroyed[passive] |= target.bit  # [5.2.3]
        if self.live_missiles[passive] & target.bit:
            ship = fleet.ships[index]
            blast = self.geometry.adjacent_mask(target) & ship.mask & ~self.destroyed[passive]
            self.destroyed[passive] |= blast  # [8.1.4.1]
            return Result.EXPLOSION, (target, *cells_of(blast))
        return Result.HIT, ()

    def _scan(self, passive: int, target: Cell) -> Result:
        """[8.3.4.1] is the cell part of a ship, and is it destroyed now."""
        if self.fleets[passive].ship_at[target.index] < 0:
            return Result.EMPTY
        return Result.DESTROYED if self.destroyed[passive] & target.bit else Result.UNDAMAGED

    def _add(self, announcement: Announcement, owner: int, touched: list[Cell]) -> None:
        """Record an announcement with the destructions it reveals [11.7.3]:
        ``touched`` are the cells this announcement destroyed (a kamikaze
        death's launch cell counts: it was destroyed just before the reveal)."""
        fleet = self.fleets[owner]
        destroyed = []
        for cell in touched:
            index = fleet.ship_at[cell.index]
            if index < 0 or index in self.reported[owner]:
                continue
            ship = fleet.ships[index]
            if not ship.mask & ~self.destroyed[owner]:
                self.reported[owner].add(index)
                destroyed.append(Destruction(owner + 1, ship, self._flashcube(1 - owner, ship.cells)))
        if destroyed:
            announcement = Announcement(
                announcement.by, announcement.kind, announcement.cell, announcement.result,
                announcement.explosions, tuple(destroyed), announcement.beam,
            )
        self.announcements.append(announcement)

    def _flashcube(self, reporter: int, cells: tuple[Cell, ...]) -> tuple[FlashcubeCell, ...]:
        """[7.1], [7.2] the reporter's own cells corresponding to a destroyed ship."""
        fleet = self.fleets[reporter]
        data = []
        for cell in cells:
            index = fleet.ship_at[cell.index]
            if index < 0:
                data.append(FlashcubeCell(cell, None, False))
            else:
                data.append(FlashcubeCell(cell, fleet.ships[index].label, bool(self.destroyed[reporter] & cell.bit)))
        return tuple(data)

    def _maybe_burn_out(self, active: int, ship: int | None, targets: tuple[Cell, ...], results: list[Result]) -> None:
        """[8.2.4] (ruling d): a diagonal beam whose two end cells both hit burns out."""
        direction = self.geometry.direction(targets[0], targets[1])
        if direction is None or is_axis(direction) or ship is None:
            return
        hits = (Result.HIT, Result.EXPLOSION)
        if results[0] in hits and results[2] in hits:
            self.burnt[active].add(ship)
            self.burn_outs.append(BurnOut(active + 1, self.fleets[active].ships[ship].label))

    def _termination(self, sides: tuple[Side, ...]) -> GameResult | None:
        """[2.3.1] a side has no ships left; [2.3.2] a side could do nothing
        but kamikaze strikes and scans and recorded only scans."""
        turn = self.state.turn
        reasons = []
        for p in (0, 1):
            if not sides[p].afloat:
                reasons.append(f"player {p + 1} has no ships left [2.3.1]")
        for p in (0, 1):
            entitled = self.state.entitlement(p + 1)
            if entitled.only_kamikaze_and_scans and not self.checks[p].actions_other_than_scans:
                reasons.append(f"player {p + 1} could do nothing but kamikaze strikes and scans, and recorded no action but scans [2.3.2]")
        if not reasons:
            return None
        scores = (sides[0].remaining_materiel, sides[1].remaining_materiel)
        return GameResult(turn, "; ".join(reasons), scores)  # type: ignore[arg-type]
