"""Properties of the rules core, checked on random games played by the
random-but-legal bot (`gm.games.spaceships.bot`) and on arbitrary order lists."""

from random import Random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gm.games.spaceships.bot import random_fleet, random_orders
from gm.games.spaceships.fleet import Fleet
from gm.games.spaceships.game import Game
from gm.games.spaceships.geometry import ALL_CELLS, Cell
from gm.games.spaceships.notation import parse_orders
from gm.games.spaceships.orders import Beam, Kamikaze, Missile, MissileSelector, Scan, ShipRef, Strike
from gm.games.spaceships.resolution import resolve_turn
from gm.games.spaceships.ruleset import ruleset_named
from gm.games.spaceships.ships import Ship, ShipType
from gm.games.spaceships.state import GameState

seeds = st.integers(min_value=0, max_value=2**32 - 1)

VARIANTS = ["2.6.1", "early", "2.6.1+colours=RYGOB", "2.6.1+scoring-by-hits+hypothetical-hits",
            "early+scoring-by-hits+hypothetical-hits"]
"""The hidden-information and soundness properties hold under every ruleset."""
variants = pytest.mark.parametrize("variant", VARIANTS)


def play(seed: int, max_turns: int = 3000, eagerness: float = 0.8, variant: str = "2.6.1") -> Game:
    rng = Random(seed)
    ruleset = ruleset_named(variant)
    game = Game(random_fleet(rng, ruleset), random_fleet(rng, ruleset), ruleset)
    while game.result is None and game.turn <= max_turns:
        game.push(random_orders(game.state, 1, rng, eagerness), random_orders(game.state, 2, rng, eagerness))
    return game


@variants
@settings(max_examples=25, deadline=None)
@given(seed=seeds)
def test_random_legal_games_run_to_the_end_and_materiel_never_grows(variant, seed):
    game = play(seed, variant=variant)
    assert game.result is not None, "a bot that always strikes ends every game"
    for before, after, report in zip(game.states, game.states[1:], game.reports):
        for p in (0, 1):
            b, a = before.sides[p], after.sides[p]
            assert a.destroyed & b.destroyed == b.destroyed  # destroyed cells stay destroyed
            assert a.fired & b.fired == b.fired
            assert b.burnt_out <= a.burnt_out
            assert a.remaining_materiel <= b.remaining_materiel  # [2.3.5] materiel never grows
            assert a.remaining_materiel == b.remaining_materiel - report.lost[p]
        assert not report.checks[0].rejected and not report.checks[1].rejected, "the bot's orders are legal"
    if game.ruleset.scoring_by_hits:
        assert game.result.scores == (game.state.sides[0].hits, game.state.sides[1].hits)
    else:
        assert game.result.scores == (game.state.sides[0].remaining_materiel, game.state.sides[1].remaining_materiel)


cells = st.sampled_from(ALL_CELLS)
ship_refs = st.builds(ShipRef, st.sampled_from(list(ShipType)), st.one_of(st.none(), st.integers(1, 3)))
selectors = st.tuples(
    st.one_of(st.none(), st.sampled_from("ROYGB")),
    st.one_of(st.none(), st.sampled_from("vwxyz")),
    st.one_of(st.none(), st.integers(1, 5)),
).filter(lambda t: t != (None, None, None)).map(lambda t: MissileSelector(*t))
any_order = st.one_of(
    st.builds(Strike, cells),
    st.builds(Beam, cells, cells, st.one_of(st.none(), ship_refs)),
    st.builds(Missile, selectors),
    st.builds(Kamikaze, cells),
    st.builds(Scan, cells),
)


@variants
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=seeds, turns=st.integers(0, 6), orders1=st.lists(any_order, max_size=20),
       orders2=st.lists(any_order, max_size=20))
def test_arbitrary_orders_never_raise_and_every_rejection_names_a_clause(variant, seed, turns, orders1, orders2):
    game = play(seed, max_turns=turns, variant=variant)
    assume(game.result is None)
    report = game.push(orders1, orders2)
    for check, orders in zip(report.checks, (orders1, orders2)):
        assert [o.order for o in check.outcomes] == orders
        for rejected in check.rejected:
            assert "[" in rejected.reason and "]" in rejected.reason, rejected.reason


# Hidden information: player 1's view of the game is unchanged when player 2's
# fleet is moved in cells that player 1 was never told anything about.

def _cells_known_to_player_1(game: Game) -> set[Cell]:
    """Cells of player 2's space that some event in player 1's views touched."""
    known: set[Cell] = set()
    for report in game.reports:
        view = report.view(1)
        for a in view.announcements:
            if (a.by == 1) != (a.kind == "kamikaze"):  # player 1's targets, or player 2's launch cells
                known.add(a.cell)
                known.update(a.explosions)
            for d in a.destroyed:
                known.update(d.ship.cells)  # player 2's ship, or the flashcube cells for player 1's
            if game.ruleset.early and a.by == 2 and a.kind == "beam":
                known.add(a.cell)  # an early beam's line passes through its death star [early 6.1.3.3]
    return known


def _orders_with_full_missiles(game: Game, player: int, moved: dict[Cell, Cell]) -> list[list]:
    """Player's orders per turn, each missile written with its whole launch cell
    (moved where the ship moved), so the same missiles launch in both games."""
    turns = []
    for report in game.reports:
        orders = []
        for outcome in report.checks[player - 1].outcomes:
            order = outcome.order
            if isinstance(order, Missile):
                cell = moved.get(outcome.cells[0], outcome.cells[0])
                order = Missile(MissileSelector(cell.colour, cell.letter, cell.number))
            orders.append(order)
        turns.append(orders)
    return turns


def _replay(fleet1: Fleet, fleet2: Fleet, orders1, orders2, ruleset) -> Game:
    game = Game(fleet1, fleet2, ruleset)
    for a, b in zip(orders1, orders2):
        game.push(a, b)
    return game


@variants
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(seed=seeds, turns=st.integers(1, 10), data=st.data())
def test_views_do_not_depend_on_unrevealed_cells(variant, seed, turns, data):
    game = play(seed, max_turns=turns, eagerness=0.5, variant=variant)
    geometry = game.ruleset.geometry
    known = _cells_known_to_player_1(game)
    fleet2 = game.state.sides[1].fleet
    movable = [i for i, s in enumerate(fleet2.ships) if not set(s.cells) & known]
    assume(movable)
    index = data.draw(st.sampled_from(movable))
    ship = fleet2.ships[index]
    others = set(c for i, s in enumerate(fleet2.ships) if i != index for c in s.cells)
    shifts = []
    for dx in range(-4, 5):
        for dy in range(-4, 5):
            for dz in range(-4, 5):
                moved = geometry.translate(ship.cells, (dx, dy, dz))
                if moved and (dx, dy, dz) != (0, 0, 0) and not set(moved) & (others | known):
                    shifts.append(moved)
    assume(shifts)
    moved_cells = data.draw(st.sampled_from(shifts))
    mapping = dict(zip(ship.cells, moved_cells))
    ships = list(fleet2.ships)
    ships[index] = Ship(ship.type, ship.identity, tuple(moved_cells))
    moved_fleet = Fleet(tuple(ships))

    fleet1 = game.state.sides[0].fleet
    orders1 = [o[0] for o in game.orders]
    original = _replay(fleet1, fleet2, orders1, _orders_with_full_missiles(game, 2, {}), game.ruleset)
    changed = _replay(fleet1, moved_fleet, orders1, _orders_with_full_missiles(game, 2, mapping), game.ruleset)
    assert len(original.reports) == len(changed.reports)
    for a, b in zip(original.reports, changed.reports):
        assert a.view(1) == b.view(1)


def test_hidden_information_property_detects_a_leak():
    """The comparison above would notice a change: moving a ship onto a cell
    that player 1 struck and missed turns the miss into a hit."""
    game = Game.from_setups(
        "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
        "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n",
    )
    before = game.push("Bz4", "")
    moved = Game.from_setups(
        "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
        "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Bz3 Bz4\n",
    ).push("Bz4", "")
    assert before.view(1) != moved.view(1)


@variants
@settings(max_examples=25, deadline=None)
@given(seed=seeds, turns=st.integers(0, 8))
def test_who_reports_first_does_not_change_results_11_7_2_1(variant, seed, turns):
    game = play(seed, max_turns=turns, variant=variant)
    assume(game.result is None)
    rng = Random(seed ^ 0x5A5A)
    orders = [random_orders(game.state, p, rng) for p in (1, 2)]
    outcomes = []
    for turn in (game.turn, game.turn + 1):
        state = GameState(game.state.sides, game.state.ruleset, turn)
        if (state.turn == 1) != (game.turn == 1):
            continue  # the first turn's scan entitlement differs [8.3.1.2]
        after, report = resolve_turn(state, *orders)
        outcomes.append((
            sorted((a.by, a.kind, str(a.cell), str(a.result), tuple(map(str, a.explosions)))
                   for a in report.announcements),
            [(s.destroyed, s.fired, s.burnt_out) for s in after.sides],
        ))
    assume(len(outcomes) == 2)
    assert outcomes[0] == outcomes[1]


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_orders_round_trip_through_text_without_changing_play(seed):
    game = play(seed, max_turns=30)
    replayed = Game(game.states[0].sides[0].fleet, game.states[0].sides[1].fleet)
    for orders1, orders2 in game.orders:
        replayed.push(parse_orders(" ".join(map(str, orders1))), parse_orders(",".join(map(str, orders2))))
    assert [r.announcements for r in replayed.reports] == [r.announcements for r in game.reports]
    assert replayed.result == game.result
