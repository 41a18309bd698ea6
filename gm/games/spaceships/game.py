"""A game from setup to termination, one turn at a time [2].

`Game` is the object most callers want: build it from both setups, `push`
each turn's orders, read `reports` and `result`. It keeps every state, so a
game can be inspected at any turn.
"""

from __future__ import annotations

from collections.abc import Sequence

from .events import TurnReport
from .fleet import Fleet, build_fleet
from .notation import parse_orders, parse_setup
from .orders import Order, Placement
from .resolution import resolve_turn
from .ruleset import DEFAULT, Ruleset
from .state import Entitlement, GameResult, GameState


class Game:
    """One game of Spaceships between players 1 and 2."""

    def __init__(self, fleet1: Fleet, fleet2: Fleet, ruleset: Ruleset = DEFAULT):
        self.ruleset = ruleset
        self.states: list[GameState] = [GameState.new(fleet1, fleet2, ruleset)]
        self.reports: list[TurnReport] = []
        self.orders: list[tuple[list[Order], list[Order]]] = []

    @classmethod
    def from_setups(
        cls,
        setup1: str | Sequence[Placement],
        setup2: str | Sequence[Placement],
        ruleset: Ruleset = DEFAULT,
        additional_costs: tuple[int, int] = (0, 0),
    ) -> Game:
        """A game from both players' setup lines (text or parsed); raises
        `gm.fleet.SetupError` or `gm.notation.NotationError` on bad setups."""
        fleets = [
            build_fleet(parse_setup(s) if isinstance(s, str) else s, ruleset, extra)
            for s, extra in zip((setup1, setup2), additional_costs)
        ]
        return cls(fleets[0], fleets[1], ruleset)

    @property
    def state(self) -> GameState:
        """The state before the next turn (or the final state)."""
        return self.states[-1]

    @property
    def turn(self) -> int:
        """The number of the next turn to play."""
        return self.state.turn

    @property
    def result(self) -> GameResult | None:
        return self.state.result

    def entitlement(self, player: int) -> Entitlement:
        return self.state.entitlement(player)

    def push(self, orders1: str | Sequence[Order], orders2: str | Sequence[Order]) -> TurnReport:
        """Play the next turn with both players' orders (text or parsed)."""
        parsed = [parse_orders(o) if isinstance(o, str) else list(o) for o in (orders1, orders2)]
        state, report = resolve_turn(self.state, parsed[0], parsed[1])
        self.states.append(state)
        self.reports.append(report)
        self.orders.append((parsed[0], parsed[1]))
        return report
