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
from .state import NO_SHIPS, ONLY_KAMIKAZE_NO_ACTION, ONLY_KAMIKAZE_SCANS, Ending, GameResult, GameState, Side


class GameOverError(RuntimeError):
    """A turn was asked of a game that has already ended [2.3]."""


def resolve_turn(state: GameState, orders1: list[Order], orders2: list[Order]) -> tuple[GameState, TurnReport]:
    """Play one turn: check both players' orders, resolve them together,
    and return the next state with the report of the turn."""
    if state.result is not None:
        raise GameOverError(f"the game ended after turn {state.result.ended_after_turn} [2.3]")
    checks = (
        check_orders(state.sides[0], state.entitlement(1), orders1, state.ruleset),
        check_orders(state.sides[1], state.entitlement(2), orders2, state.ruleset),
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
        self.ruleset = state.ruleset
        self.geometry = state.ruleset.geometry
        self.early = state.ruleset.destroy_at_end_of_turn
        self.start = [side.destroyed for side in state.sides]
        """Destroyed cells at the start of the turn [2.4]."""
        self.pending = [0, 0]
        """Cells to be destroyed at the end of the turn (early rules [early 5.1.3])."""
        self.kamikaze_cells = [0, 0]
        self.exploded = [0, 0]
        """Cells destroyed by explosions this turn, not counting the targets."""
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
        # Ruling a: own-action effects before anything is revealed. In the
        # early rules the kamikaze cell is destroyed at the end of the turn.
        for p in (0, 1):
            for accepted in self.checks[p].accepted:
                if isinstance(accepted.order, Kamikaze):
                    self.kamikaze_cells[p] |= accepted.cells[0].bit
                    if self.early:
                        self.pending[p] |= accepted.cells[0].bit  # [early 4.4.3]
                    else:
                        self.destroyed[p] |= accepted.cells[0].bit  # [4.5.3]
                elif isinstance(accepted.order, Missile):
                    self.fired[p] |= accepted.cells[0].bit  # [8.1.3.2]
        # [8.1.4] which cells are still unfired missiles just after the reveal.
        self.live_missiles = [self.fleets[p].missiles & ~self.fired[p] & ~self.destroyed[p] for p in (0, 1)]
        first = state.initially_active - 1
        for active in (first, 1 - first):
            self._announce_actions(active)
        for p in (0, 1):
            self.destroyed[p] |= self.pending[p]  # the end of the turn [early 5.1.3]
        sides = tuple(
            Side(
                fleet=self.fleets[p],
                destroyed=self.destroyed[p],
                fired=self.fired[p],
                burnt_out=frozenset(self.burnt[p]),
                lost_last_turn=bin(self.destroyed[p] & ~state.sides[p].destroyed).count("1"),
                hits=state.sides[p].hits + self._hits(p + 1),
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
                    self._add(Announcement(by, "beam", target, result, explosions,
                                           beam=(accepted.order.start, accepted.order.end)),
                              passive, _destroyed_by(result, target, explosions))
                self._maybe_burn_out(active, accepted.ship, accepted.cells, results)
        for accepted in check.accepted:
            if isinstance(accepted.order, Strike):
                target = accepted.cells[0]
                result, explosions = self._strike(passive, target)
                self._add(Announcement(by, "strike", target, result, explosions), passive,
                          _destroyed_by(result, target, explosions))
        for accepted in check.accepted:
            if isinstance(accepted.order, Scan):
                self._add(Announcement(by, "scan", accepted.cells[0], self._scan(passive, accepted.cells[0])),
                          passive, [])
        for accepted in check.accepted:
            if isinstance(accepted.order, Kamikaze):
                launch = accepted.cells[0]
                self._add(Announcement(by, "kamikaze", launch, None), active, [launch])

    def _strike(self, passive: int, target: Cell) -> tuple[Result, tuple[Cell, ...]]:
        """A strike on the passive player's cell [5.2], with explosions [8.1.4].
        Under the early rules a duplicate hit is judged against the start of
        the turn and the destruction waits for its end [early 5.1.3], [early 5.1.4]."""
        fleet = self.fleets[passive]
        index = fleet.ship_at[target.index]
        if index < 0:
            return Result.MISS, ()  # [5.2.2]
        judged = self.start[passive] if self.early else self.destroyed[passive]
        if judged & target.bit:
            return Result.DUPLICATE, ()  # [5.2.4]
        into = self.pending if self.early else self.destroyed
        into[passive] |= target.bit  # [5.2.3]
        if self.live_missiles[passive] & target.bit:
            ship = fleet.ships[index]
            blast = self.geometry.adjacent_mask(target) & ship.mask & ~judged & ~target.bit
            if not self.early:
                blast &= ~self.destroyed[passive]
            into[passive] |= blast  # [8.1.4.1]
            self.exploded[passive] |= blast
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
        death's launch cell counts: it was destroyed just before the reveal).
        The early rules report no destructions."""
        if not self.ruleset.destruction_reports:
            self.announcements.append(announcement)
            return
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
        if self.early:
            return  # no burn-out in the early rules
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
                reasons.append(Ending(NO_SHIPS, p + 1))
        for p in (0, 1):
            entitled = self.state.entitlement(p + 1)
            if self.early:
                if entitled.only_kamikaze_and_scans and not self.checks[p].accepted:
                    reasons.append(Ending(ONLY_KAMIKAZE_NO_ACTION, p + 1))
            elif entitled.only_kamikaze_and_scans and not self.checks[p].actions_other_than_scans:
                reasons.append(Ending(ONLY_KAMIKAZE_SCANS, p + 1))
        if not reasons:
            return None
        if self.ruleset.scoring_by_hits:
            scores = (sides[0].hits, sides[1].hits)  # [explanation 6.2]
        else:
            scores = (sides[0].remaining_materiel, sides[1].remaining_materiel)
        tiebreak = None
        if self.ruleset.hypothetical_hits and scores[0] == scores[1]:
            tiebreak = (self._hits(1, hypothetical=True), self._hits(2, hypothetical=True))  # [explanation 6.1]
        return GameResult(turn, tuple(reasons), scores, tiebreak)  # type: ignore[arg-type]

    def _hits(self, by: int, hypothetical: bool = False) -> int:
        """This turn's hits by player ``by``. Scoring by hits [explanation 6.2]
        adds strikes on cells that launched kamikaze strikes or were destroyed
        by exploding missiles in the same turn; hypothetical hits [6.1] count
        as if the enemy had launched no kamikaze strikes."""
        passive = 2 - by
        extra = self.kamikaze_cells[passive] if hypothetical else self.kamikaze_cells[passive] | self.exploded[passive]
        hits = 0
        counted = 0
        for a in self.announcements:
            if a.by != by or a.kind not in ("strike", "beam"):
                continue
            if a.result in (Result.HIT, Result.EXPLOSION):
                hits += 1
            elif a.result is Result.DUPLICATE and extra & a.cell.bit and not counted & a.cell.bit:
                hits += 1
                if hypothetical:  # a second strike there would have been a duplicate anyway
                    counted |= a.cell.bit
        return hits
