"""Step 17, movement (gm/games/celestial_empire/movement.py): the manual's
fuel table and effective efficiency, routes by length, partial routes,
towing, and what movement queues for battle (spacemines, passage fire),
each pinned to its ruling (docs/celestial_empire/rulings.md)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_small import EARTH, add_ship, small_state
from gm.games.celestial_empire.damage import AMNESTY_ENDS
from gm.games.celestial_empire.formulas import effective_efficiency, fuel, pdu_shots
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.movement import movement
from gm.games.celestial_empire.notation import parse_order
from gm.games.celestial_empire.orders import AllianceLevel
from gm.games.celestial_empire.orders_empire import Jump
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.state import Ship, new_game
from gm.games.celestial_empire.turn import run_turn

# Table "jump", l.1485-1495, as printed: rows are links 1-5, columns efficiency -1, 0, 1, 2, 3, 4+.
MANUAL_FUEL = """
2  1  1  1  1  1
8  4  2  2  2  2
18 9  6  3  3  3
32 16 12 8  4  4
50 25 20 15 10 5
"""


def move(state, mailed: dict[int, list[str]], report: Report | None = None) -> Report:
    """Run step 17 alone on ``state`` with the orders as mailed."""
    report = report or Report(state.turn)
    orders = [(empire, parse_order(text)) for empire, texts in mailed.items() for text in texts]
    movement(state, orders, report)
    return report


def answers(report: Report, empire: int = 1) -> list[tuple[str, str, str]]:
    return [(e.written, e.done, e.why) for e in report.history.get(empire, [])]


def test_fuel_is_the_manuals_table():
    rows = [[int(x) for x in row.split()] for row in MANUAL_FUEL.strip().splitlines()]
    for links, row in enumerate(rows, 1):
        assert [fuel(links, e) for e in range(-1, 5)] == row
        assert fuel(links, 9) == row[-1]  # "4+"
        assert fuel(links, -2) is None  # below -1 the ship cannot move (l.1472-1474)


def test_effective_efficiency_is_the_manuals_example_r57():
    ship = Ship(1, 1, 101, fighters=50, cargo_units=50, efficiency=1)
    assert effective_efficiency(ship) == 1  # "has 100 units, its effective efficiency will still be 1"
    ship.cargo_units = 160
    assert ship.units() == 210 and effective_efficiency(ship) == 0  # "210 units ... would be 0"
    ship.cargo_units = 150
    assert effective_efficiency(ship) == 1  # the first 200 cost nothing
    ship.cargo_units = 350
    assert effective_efficiency(ship) == 0  # 201-400: one down
    ship.cargo_units = 351
    assert effective_efficiency(ship) == -1  # 401: two down, a partial block counts
    ship.efficiency, ship.cargo_units = 6, 50
    assert effective_efficiency(ship) == 4  # at most 4 ...
    ship.cargo_units = 551
    assert effective_efficiency(ship) == 3  # ... after the size penalty: 6 - 3


def test_a_jump_pays_the_table_for_its_length_at_the_effective_efficiency_r58():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=20)
    add_ship(state, 501, 1, 101, fuel=20, cargo=400, efficiency=1)  # 401 units: effective -1
    report = move(state, {1: ["S500J102J103J104", "S501J102J103"]})
    assert state.ships[500].planet == 104 and state.ships[500].hold.ore[0] == 20 - 9
    assert state.ships[501].planet == 103 and state.ships[501].hold.ore[0] == 20 - 8
    assert answers(report)[0][1] == "at planet 103, 8 fuel used"  # two links before three


def test_jumps_go_by_length_and_spacemines_queue_in_the_order_of_jumping_r37():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=10)
    add_ship(state, 600, 2, 103, fuel=10)
    report = move(state, {1: ["S500J102J103"], 2: ["S600J102"]})
    assert report.minefield == [(600, 102), (500, 102), (500, 103)]


def test_every_ship_that_enters_is_queued_for_spacemines_even_at_home_r38():
    state = small_state()
    add_ship(state, 500, 1, 102, fuel=10)
    add_ship(state, 501, 1, 101, fuel=10)  # stays: not queued
    report = move(state, {1: ["S500J101"]})
    assert report.minefield == [(500, 101)]  # 101 is its owner's home


def test_a_route_flown_in_part_pays_in_full_r58():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=10)
    report = move(state, {1: ["S500J102J103J105"]})  # 105 is not linked to 103
    assert state.ships[500].planet == 103 and state.ships[500].hold.ore[0] == 10 - 9
    (_written, done, _), = answers(report)
    assert "at planet 103, 9 fuel used as for the whole route; planet 105 is not linked to 103" in done
    assert [planet for _, planet in report.minefield] == [102, 103]


def test_a_jump_that_cannot_start_costs_nothing_r60():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=10)
    report = move(state, {1: ["S500J103J104", "S500J101", "S500J999"]})
    assert state.ships[500].planet == 101 and state.ships[500].hold.ore[0] == 10
    whys = [why for _, _, why in answers(report)]
    assert whys == ["planet 101 is not linked to planet 101: no fuel used (ruling R-60)",
                    "planet 999 is not linked to planet 101: no fuel used (ruling R-60)",
                    "planet 103 is not linked to planet 101: no fuel used (ruling R-60)"]
    assert report.minefield == []


def test_without_the_fuel_for_the_whole_route_the_ship_stays_r58():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=3)
    add_ship(state, 501, 1, 101, fuel=50, fighters=0, cargo=0)  # a hull carries nothing: never moves
    report = move(state, {1: ["S500J102J103", "S501J102"]})
    assert state.ships[500].planet == 101 and state.ships[500].hold.ore[0] == 3
    assert answers(report)[1][2] == "not enough fuel: needs 4, has 3"


def test_a_wrong_first_planet_is_the_reason_before_the_fuel_r60():
    """Issue 22: a jump to a planet that does not exist, from a ship short of
    fuel, was refused "not enough fuel"; the manual's reason is the planet
    ("you got the first planet wrong, no fuel will be lost", l.1481-1482).
    Games made before edition 5 keep their answer (routes_before_fuel False)."""
    for before_fuel, answers_given in ((True, ["there is no planet 999: no fuel used (ruling R-60)",
                                               "planet 103 is not linked to planet 101: no fuel used (ruling R-60)"]),
                                       (False, ["not enough fuel: needs 1, has 0"] * 2)):
        state = small_state()
        state.routes_before_fuel = before_fuel
        add_ship(state, 500, 1, 101, fuel=0)
        add_ship(state, 501, 1, 101, fuel=0)
        report = move(state, {1: ["S500J999", "S501J103"]})
        assert [why for _, _, why in answers(report)] == answers_given
        assert state.ships[500].planet == state.ships[501].planet == 101


def test_orders_to_others_ships_are_answered_r5():
    state = small_state()
    add_ship(state, 600, 2, 101, fuel=10)
    report = move(state, {1: ["S600J102", "S777J102"]})
    assert state.ships[600].planet == 101
    assert [why for _, _, why in answers(report)] == ["ship 600 is not yours", "ship 777 is not yours"]


def test_a_ship_that_initiated_battle_does_not_jump_r49():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=10)
    report = Report(state.turn)
    report.fought = {500}  # as battle records it in step 11
    move(state, {1: ["S500J102"]}, report)
    assert state.ships[500].planet == 101 and state.ships[500].hold.ore[0] == 10
    assert "initiated battle" in answers(report)[0][2]


def test_a_towed_ship_follows_its_tower_free_and_cannot_jump_itself_r58():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=10, tractors=30)
    add_ship(state, 600, 2, 101, fuel=10)
    report = Report(state.turn)
    report.towing = {500: 600}  # as battle records it in step 11k
    move(state, {1: ["S500J102J103"], 2: ["S600J107"]}, report)
    assert (state.ships[500].planet, state.ships[600].planet) == (103, 103)
    assert state.ships[500].hold.ore[0] == 6 and state.ships[600].hold.ore[0] == 10
    assert "held by tractor beams" in answers(report, 2)[0][2]
    assert answers(report)[0][1].endswith("towing ship 600")
    assert report.seen[2] == ["Ship 600 was towed by tractor beams to planet 103"]
    assert report.minefield == [(500, 102), (600, 102),  # right after its tower
                               (500, 103), (600, 103)]


def test_pdus_fire_at_ships_passing_through_unless_friendly_r48():
    state = small_state()
    state.planets[102].owner, state.planets[102].pdus = 2, 20
    state.planets[103].pdus = 4  # NEUTRAL's, armed
    add_ship(state, 500, 1, 101, fuel=20)
    add_ship(state, 501, 1, 101, fuel=20)  # ends at 102: not fired at
    add_ship(state, 502, 1, 101, fuel=20, fighters=0, cargo=10, shields=5)  # unarmed: fired at
    report = move(state, {1: ["S500J102J103J104", "S501J102", "S502J102J103"]})
    assert [(v.ship, v.shots) for v in report.volleys] == [(502, pdu_shots(20)), (500, 40), (500, 4)]
    state = small_state()
    state.planets[102].owner, state.planets[102].pdus = 2, 20
    state.empires[2].ratings[1] = AllianceLevel.FRIENDLY  # Winter rates Grok friendly: its PDUs hold
    add_ship(state, 500, 1, 101, fuel=20)
    report = move(state, {1: ["S500J102J103"]})
    assert report.volleys == []


def test_no_passage_fire_from_own_planets_at_empty_hulls_nor_from_earth_in_the_amnesty_r48():
    state = small_state(turn=AMNESTY_ENDS - 1)
    state.planets[EARTH].pdus = 200
    state.planets[103].owner, state.planets[103].pdus = 1, 50
    state.planets[105].pdus = 0  # Master's home, unarmed here
    add_ship(state, 500, 1, 104, fuel=20, tractors=50)
    add_ship(state, 501, 1, 102, fuel=20)
    add_ship(state, 900, 3, 104, fighters=0, cargo=0)  # an empty hull, towed through
    report = Report(state.turn)
    report.towing = {500: 900}
    move(state, {1: ["S500J105J106J199J106", "S501J103J104"]}, report)
    assert report.volleys == []
    state.turn = AMNESTY_ENDS
    state.ships[500].planet = 106
    report = move(state, {1: ["S500J199J106"]})
    assert [(v.ship, v.shots) for v in report.volleys] == [(500, pdu_shots(200))]


def test_a_ship_moves_once_a_turn():
    state = small_state()
    add_ship(state, 500, 1, 101, fuel=20)
    report = move(state, {1: ["S500J102", "S500J101"]})
    assert state.ships[500].planet == 102
    assert answers(report)[1][2] == "ship 500 has already moved this turn"


def test_a_jump_by_mail_in_a_whole_turn():
    state = new_game(generate(7, 3), ["Grok", "Winter", "Master"])
    ship = next(s for s in state.ships_of(1) if s.hold.ore[0])
    to = state.planets[ship.planet].links[0]
    after, report = run_turn(state, {1: [parse_order(f"S{ship.number}J{to}")]})
    assert after.ships[ship.number].planet == to and after.ships[ship.number].hold.ore[0] == ship.hold.ore[0] - 1
    assert report.history[1][0].done


# Properties, over random routes on a generated galaxy.

@pytest.fixture(scope="module")
def galaxy_state():
    return new_game(generate(11, 2), ["Grok", "Winter"])


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fuel_never_goes_negative_and_ships_move_only_along_links(galaxy_state, data):
    state = galaxy_state.copy()
    ships = state.ships_of(1)
    numbers = sorted(state.planets)
    mailed = []
    for ship in ships:
        ship.planet = data.draw(st.sampled_from(numbers))
        ship.hold.ore[0] = data.draw(st.integers(0, 60))
        ship.efficiency = data.draw(st.integers(-2, 5))
        ship.cargo_units = data.draw(st.integers(0, 500))
        length = data.draw(st.integers(1, 5))
        here, path = ship.planet, []
        for _ in range(length):  # mostly along links, now and then anywhere
            here = data.draw(st.sampled_from(state.planets[here].links) if data.draw(st.booleans())
                             or data.draw(st.booleans()) else st.sampled_from(numbers))
            path.append(here)
        mailed.append(Jump(ship.number, tuple(path)))
    before = {s.number: (s.planet, s.hold.ore[0], effective_efficiency(s)) for s in ships}
    report = Report(state.turn)
    movement(state, [(1, order) for order in mailed], report)
    entered: dict[int, list[int]] = {}
    for number, planet in report.minefield:
        entered.setdefault(number, []).append(planet)
    for order in mailed:
        ship = state.ships[order.ship]
        start, fuel_before, efficiency = before[ship.number]
        assert ship.hold.ore[0] >= 0
        route = [start, *entered.get(ship.number, [])]
        assert all(b in state.planets[a].links for a, b in itertools.pairwise(route))
        assert ship.planet == route[-1]
        paid = fuel_before - ship.hold.ore[0]
        assert paid in (0, fuel(len(order.path), efficiency))
        assert (paid == 0) == (len(route) == 1)
