"""The Spaceships robot: legal orders that survive the notation, a view of
its seat only, a sound model of the opponent's space, and determinism.

How well it plays is measured in bench/robot.py, not asserted here.
"""

from __future__ import annotations

import dataclasses
from random import Random

import pytest

from gm.games.spaceships.bot import random_orders
from gm.games.spaceships.fleet import Fleet, build_fleet
from gm.games.spaceships.game import Game
from gm.games.spaceships.notation import parse_orders
from gm.games.spaceships.orders import format_orders
from gm.games.spaceships.robot import LEVELS, SeatView, robot_orders, robot_setup, seat_view
from gm.games.spaceships.robot_model import Density, read_views
from gm.games.spaceships.ruleset import Ruleset, ruleset_named
from gm.games.spaceships.ships import Ship, ShipType
from gm.games.spaceships.state import GameState, Side

VARIANTS = ["2.6.1", "early", "2.6.1+fleet=30", "2.6.1+colours=RYGOB+scoring-by-hits+hypothetical-hits"]
"""The default rules (with scans), the early rules (no scans, no reports, a
cube death star), a fleet of any ships by cost [3.7.1], and a colour order."""


def new_game(rng: Random, ruleset: Ruleset, levels: tuple[str, str]) -> Game:
    fleets = [build_fleet(robot_setup(ruleset, level, rng), ruleset) for level in levels]
    return Game(fleets[0], fleets[1], ruleset)


def play(seed: int, variant: str, levels: tuple[str | None, str | None], max_turns: int = 60):
    """A game between two robots of these levels (None: the random bot),
    yielding (game, player, view, orders) for every robot turn before it is pushed."""
    rng = Random(seed)
    ruleset = ruleset_named(variant)
    game = new_game(rng, ruleset, tuple(level or "easy" for level in levels))  # type: ignore[arg-type]
    while game.result is None and game.turn <= max_turns:
        both = []
        for player, level in ((1, levels[0]), (2, levels[1])):
            if level is None:
                both.append(random_orders(game.state, player, rng))
                continue
            view = seat_view(game.state, player, game.reports)
            orders = robot_orders(view, level, rng)
            yield game, player, view, orders
            both.append(orders)
        game.push(both[0], both[1])


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("level", LEVELS)
def test_orders_are_legal_and_survive_the_notation(variant, level):
    for seed in range(3):
        opponent = None if seed % 2 else "hard"
        for game, _player, _view, orders in play(seed, variant, (level, opponent)):  # noqa: B007 (the last game is read below)
            assert parse_orders(format_orders(orders)) == orders, format_orders(orders)
        robots = (0,) if opponent is None else (0, 1)
        for report in game.reports:
            for p in robots:
                assert not report.checks[p].rejected, (variant, level, seed, report.turn, report.checks[p].rejected)
        assert game.result is not None or game.turn > 60


def test_robot_uses_its_whole_entitlement():
    """Every strike, missile and beam the seat is entitled to is ordered
    (scans too), so the strength measured is not thrown away."""
    for game, player, _view, orders in play(5, "2.6.1", ("hard", "normal"), max_turns=4):
        check = game.state.entitlement(player)
        kinds = [type(o).__name__ for o in orders]
        assert kinds.count("Beam") == len(check.beam_directions)
        assert kinds.count("Missile") == len(check.missile_ships)
        assert kinds.count("Scan") == check.scans
        assert kinds.count("Strike") == check.conventional + len(check.missile_ships) + kinds.count("Kamikaze")


def walk(value, seen: set[int], found: list) -> None:
    """Every object reachable through dataclass fields and containers."""
    if id(value) in seen:
        return
    seen.add(id(value))
    found.append(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            walk(getattr(value, f.name), seen, found)
    elif isinstance(value, dict):
        for k, v in value.items():
            walk(k, seen, found)
            walk(v, seen, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            walk(item, seen, found)


@pytest.mark.parametrize("variant", ["2.6.1", "early"])
def test_seat_view_holds_no_hidden_state(variant):
    """Walking the SeatView finds the robot's own side and fleet, and of the
    opponent's ships only those reported destroyed [2.2.4]: never the
    opponent's Side or Fleet."""
    checked = 0
    for game, player, view, _orders in play(11, variant, ("hard", None)):
        found: list = []
        walk(view, set(), found)
        opponent = game.state.side(3 - player)
        assert not any(o is opponent or o is opponent.fleet for o in found)
        assert [o for o in found if isinstance(o, Side)] == [view.side]
        assert [o for o in found if isinstance(o, Fleet)] == [view.side.fleet]
        reported = {id(d.ship) for v in view.views for a in v.announcements for d in a.destroyed if d.owner != player}
        for ship in (o for o in found if isinstance(o, Ship)):
            assert ship in view.side.fleet.ships or id(ship) in reported
        checked += 1
    assert checked > 3


@pytest.mark.parametrize("variant", ["2.6.1", "early"])
def test_orders_do_not_depend_on_the_opponents_hidden_fleet(variant):
    """The same position with the opponent's fleet and damage replaced gives
    the seat the same view and the robot the same orders."""
    other = Random(99)
    ruleset = ruleset_named(variant)
    checked = 0
    for game, player, view, _orders in play(21, variant, ("hard", "normal")):
        state = game.state
        stranger = Side(build_fleet(robot_setup(ruleset, "easy", other), ruleset), destroyed=other.getrandbits(125))
        sides = [state.sides[0], state.sides[1]]
        sides[2 - player] = stranger
        swapped = GameState((sides[0], sides[1]), state.ruleset, state.turn)
        view2 = seat_view(swapped, player, game.reports)
        assert view2 == view
        assert robot_orders(view2, "hard", Random(checked)) == robot_orders(view, "hard", Random(checked))
        checked += 1
    assert checked > 3


@pytest.mark.parametrize("variant", VARIANTS)
def test_model_never_rules_out_the_opponents_real_ships(variant):
    """In many positions, every cell of the opponent's afloat ships that the
    seat has not seen destroyed has weight, at the normal and hard levels;
    under a known fleet each afloat ship's real placement is still kept."""
    positions = 0
    for seed in range(6):
        levels = ("hard", None) if seed % 2 else ("hard", "hard")
        for game, player, view, _orders in play(100 + seed, variant, levels):
            opponent = game.state.side(3 - player)
            known = read_views(player, view.views)
            for level in ("normal", "hard"):
                model = Density(known, view.ruleset, view.side.fleet, level)
                weights = model.cell_map()
                for ship in opponent.fleet.ships:
                    if opponent.is_destroyed(ship):
                        continue
                    for cell in ship.cells:
                        if not known.destroyed & cell.bit:
                            assert weights[cell.index] > 0, (variant, seed, game.turn, level, ship, cell)
                    if model.exact:
                        assert any(a.type is ship.type and ship.mask in a.masks
                                   for alternatives in model.slots for a in alternatives), (variant, seed, ship)
            positions += 1
    assert positions > 20


def test_same_seed_same_orders():
    first = [format_orders(o) for _, _, _, o in play(7, "2.6.1", ("hard", "normal"))]
    again = [format_orders(o) for _, _, _, o in play(7, "2.6.1", ("hard", "normal"))]
    assert first == again and len(first) > 4


@pytest.mark.parametrize("ruleset,additional", [
    (ruleset_named("2.6.1"), 0),
    (ruleset_named("early"), 0),
    (ruleset_named("2.6.1+fleet=30"), 0),
    (Ruleset(fleet_cost=10, allowed_types=frozenset({ShipType.AG, ShipType.LG, ShipType.MD})), 0),
    (ruleset_named("2.6.1"), 7),
    (ruleset_named("2.6.1+composition=many"), 13),
    (ruleset_named("early+composition=one"), 5),
])
@pytest.mark.parametrize("level", LEVELS)
def test_setup_is_legal_and_varied(ruleset, additional, level):
    setups = set()
    for seed in range(8):
        lines = robot_setup(ruleset, level, Random(seed), additional)
        fleet = build_fleet(lines, ruleset, additional)  # raises SetupError if illegal
        setups.add(str(fleet))
    assert len(setups) == 8, "the setup is not predictable from one game to the next"


def test_unknown_level_is_refused():
    view = next(play(1, "2.6.1", ("easy", None)))[2]
    assert isinstance(view, SeatView)
    with pytest.raises(ValueError):
        robot_orders(view, "expert", Random(1))


@pytest.mark.parametrize("variant", ["2.6.1+composition=many", "2.6.1+fleet=40"])
def test_continued_match_with_additional_ships(variant):
    """Fleets with ships the model does not expect (a continued match's
    additional ships [10.2]) or several death stars, each beam then named
    [8.2.3.1]: still only legal orders."""
    from gm.games.spaceships.match import CONTINUED, Match, MatchTerms

    ruleset = ruleset_named(variant)
    rng = Random(3)
    match = Match(MatchTerms(CONTINUED, games=2), ruleset)
    while not match.over:
        extra = match.additional_costs()
        game = match.start_game(robot_setup(ruleset, "hard", rng, extra[0]),
                                robot_setup(ruleset, "normal", rng, extra[1]))
        while game.result is None and game.turn <= 100:
            report = game.push(robot_orders(seat_view(game.state, 1, game.reports), "hard", rng),
                               robot_orders(seat_view(game.state, 2, game.reports), "normal", rng))
            assert not report.checks[0].rejected and not report.checks[1].rejected
    assert len(match.games) == 2
