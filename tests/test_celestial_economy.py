"""Celestial Empire's economy: Earth trade and contracting (steps 8, 9),
unbuilding, transmutation, building on planets and on ships (steps 13-16)
and Earth's end-of-turn market, each pinned to the ruling it follows
(docs/celestial_empire/rulings.md), with the manual's worked examples."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_text import history, orders
from gm.games.celestial_empire import earth as market_model
from gm.games.celestial_empire.earth import contracting, earth_market, trading
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.industry import (
    planet_building,
    ship_building,
    ship_cost,
    transmutation,
    unbuilding,
    unit_cost,
)
from gm.games.celestial_empire.notation import parse_order, parse_orders
from gm.games.celestial_empire.orders import AllianceLevel, Unit
from gm.games.celestial_empire.orders_empire import (
    BuildHyperdrives,
    BuildIndustry,
    BuildMines,
    BuildPDUs,
    BuildSpacemines,
    BuildUnits,
    Transmute,
    Unbuild,
)
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.rotation import in_rotation
from gm.games.celestial_empire.state import NEUTRAL, Cargo, GameState, Ship, new_game
from gm.games.celestial_empire.turn import run_turn

START = new_game(generate(7, 3), ["Grok", "Winter", "Master"])
for _planet in START.planets.values():  # no mining at the end of the turn: the steps' ore is all there is
    _planet.mines = [0] * 10


@pytest.fixture
def state() -> GameState:
    return copy.deepcopy(START)




def home(state: GameState, empire: int = 1):
    return state.planets[state.empires[empire].home]


def ship_of(state: GameState, empire: int = 1, cargo: int = 40, at: int | None = None) -> Ship:
    """One of the empire's ships, given ``cargo`` empty cargo units and put at ``at``."""
    ship = state.ships_of(empire)[0]
    ship.cargo_units, ship.hold = cargo, Cargo()
    if at is not None:
        ship.planet = at
    return ship


# Building on planets (step 15)

def test_the_manuals_building_example_60_industry_build_a_ship_an_industry_and_two_pdus_l1351(state):
    planet = home(state)
    planet.ore = [0, 8, 0, 0, 12, 10, 10, 10, 5, 5]  # the footnote's ore, exactly (l.1354-1356)
    p = planet.number
    before = set(state.ships)
    after, report = run_turn(state, {1: orders(f"{p}B1H0/8/0/0\n{p}B1I\n{p}B2D\n")})
    done = after.planets[p]
    assert [why for _, _, why in history(report)] == ["", "", ""]
    assert done.ore == [0] * 10 and done.industry == 61 and done.pdus == 102
    assert report.industry_used[p] == 60
    (new,) = set(after.ships) - before
    ship = after.ships[new]
    assert (ship.owner, ship.planet, ship.cargo_units, ship.fighters, ship.efficiency) == (1, p, 8, 0, 0)
    assert ship_cost(0, 8, 0, 0) == ([0, 8, 0, 0, 10, 10, 10, 10, 0, 0], 48)


def test_the_example_with_one_industry_less_leaves_the_ship_last_in_the_sequence_unbuilt(state):
    planet = home(state)
    planet.ore, planet.industry = [0, 8, 0, 0, 12, 10, 10, 10, 5, 5], 59
    p = planet.number
    _, report = run_turn(state, {1: orders(f"{p}B1H0/8/0/0\n{p}B1I\n{p}B2D\n")})
    # industry (15a) and PDUs (15c) run before hyperdrives (15e), whatever the written order
    assert [w for w, _, _ in history(report)] == [f"{p}B1I", f"{p}B2D", f"{p}B1H0/8/0/0"]
    assert history(report)[2][2] == "I: 47 industry free"


def test_an_order_is_cut_to_what_the_ore_allows_and_says_why_r25(state):
    planet = home(state)  # "build 20 mine 3s and it only has ore for 5 mines" (l.1360-1362)
    planet.ore[8], planet.ore[9], planet.industry = 25, 50, 200
    after, report = run_turn(state, {1: orders(f"{planet.number}B20M3\n")})
    assert after.planets[planet.number].mines[3] == START.planets[planet.number].mines[3] + 5
    assert history(report) == [(f"{planet.number}B20M3", f"{planet.number}B5M3, cut by R8: 25 ore 8 on the planet", "")]


def test_hyperdrives_are_built_only_whole_r25(state):
    planet = home(state)  # ore for 25 fighter units and three hulls: two ships of 10 (l.1362-1367)
    planet.ore, planet.industry = [0, 0, 25, 25, 30, 30, 30, 30, 0, 0], 200
    after, report = run_turn(state, {1: orders(f"{planet.number}B3H10/0/0/0\n")})
    new = [s for s in after.ships.values() if s.number not in START.ships]
    assert sorted(s.fighters for s in new) == [10, 10]
    assert after.planets[planet.number].ore[2:4] == [5, 5]
    assert history(report)[0][1].startswith(f"{planet.number}B2H10/0/0/0, cut by R2")


def test_new_ships_take_unused_numbers_drawn_from_the_seed_r54(state):
    planet = home(state)
    planet.ore, planet.industry = [50] * 10, 200
    mailed = {1: orders(f"{planet.number}B3H1/1/0/0\n")}
    after, report = run_turn(state, mailed)
    again, _ = run_turn(state, mailed)
    new = sorted(set(after.ships) - set(START.ships))
    assert len(new) == 3 and sorted(set(again.ships) - set(START.ships)) == new  # a replay draws the same
    assert all(100 <= n <= 999 for n in new) and new != [n for n in range(100, 103)]
    assert all((after.ships[n].name, after.ships[n].hold, after.ships[n].efficiency) == ("", Cargo(), 0)
               for n in new)
    assert sorted(int(n) for n in history(report)[0][1].split("new ships ")[1].split(", ")) == new


def test_spacemines_are_built_from_the_ore_type_named_into_the_stockpile_r56(state):
    planet = home(state)
    after, _report = run_turn(state, {1: orders(f"{planet.number}B5S0\n")})
    built = after.planets[planet.number]
    assert (built.spacemines, built.deployed, built.ore[0]) == (5, 0, planet.ore[0] - 5)
    assert parse_orders(f"{planet.number}B5S")[0].error is not None  # no type: "which ore?"


def test_a_planet_not_yours_builds_nothing_r5(state):
    other = home(state, 2)
    after, report = run_turn(state, {1: orders(f"{other.number}B1D\n")})
    assert history(report) == [(f"{other.number}B1D", "", f"planet {other.number} is not yours")]
    assert after.planets[other.number].pdus == other.pdus


def test_earth_removes_a_tenth_of_its_spacemines_rounded_up_in_step_15_r33(state):
    for deployed, left in ((15, 13), (9, 8), (100, 90), (0, 0)):
        state.planets[state.earth].deployed = deployed
        planet_building(state, [], Report(1))
        assert state.planets[state.earth].deployed == left


# Industry used once a turn

def test_each_industry_is_used_once_a_turn_across_unbuilding_transmuting_and_building_r53(state):
    planet = home(state)
    p, ship = planet.number, ship_of(state, cargo=40)
    s = ship.number  # 10 (unbuild) + 20 (transmute) + 20 (PDUs) + 10 (industry) = all 60
    after, report = run_turn(state, {1: orders(f"S{s}Z10C\n{p}X2R1R2\n{p}B20D\n{p}B1I\nS{s}B5C\n")})
    assert [why for _, _, why in history(report)] == ["", "", "", "", "I: 0 industry free"]
    assert report.industry_used[p] == 60 and after.planets[p].industry == 61  # the new one waits


def test_industry_that_arrived_this_turn_waits_for_the_next_r53(state):
    planet = home(state)
    report = Report(1, industry_start={planet.number: 60})
    planet.industry = 70  # unloaded in step 6
    assert report.free_industry(planet) == 60
    planet.industry = 50  # loaded away in step 7
    assert report.free_industry(planet) == 50
    report.use_industry(planet, 50)
    with pytest.raises(AssertionError):
        report.use_industry(planet, 1)


# Unbuilding (step 13) and transmutation (step 14)

def test_unbuilding_returns_half_the_ore_rounded_down_to_the_planet_r52(state):
    planet = home(state)
    p, ship = planet.number, ship_of(state, cargo=40)
    ship.fighters, ship.tractors, ship.hold.ore[0] = 1, 3, 4
    s = ship.number
    after, report = run_turn(state, {1: orders(f"S{s}Z5C\nS{s}Z1F\nS{s}Z3T\nS{s}Z40C\n")})
    ore, done = after.planets[p].ore, after.ships[s]
    assert (ore[1], ore[2], ore[3], ore[7]) == (30 + 2 + 15, 30, 30, 30 + 3)  # 5/2, 31/2, 1/2 rounded down, 3 x 1
    # cargo units go only while empty: 4 fuel fill 4 of the 35 left (sub-step a runs both cargo orders first)
    assert (done.cargo_units, done.fighters, done.tractors) == (4, 0, 0)
    assert history(report)[1][1].startswith(f"S{s}Z31C, cut by C: 31 empty cargo units")
    assert report.industry_used[p] == 5 + 31 + 2 + 6


def test_unbuilding_needs_your_ship_at_your_planet_r52(state):
    mine, theirs = ship_of(state, 1, at=state.earth), state.ships_of(2)[0]
    _, report = run_turn(state, {1: orders(f"S{mine.number}Z1C\nS{theirs.number}Z1F\n")})
    whys = [why for _, _, why in history(report)]
    assert "not yours" in whys[0] and f"planet {state.earth}" in whys[0]
    assert whys[1] == f"ship {theirs.number} is not yours"


def test_transmutation_takes_ten_industry_a_unit_l1536(state):
    planet = home(state)
    p = planet.number
    after, report = run_turn(state, {1: orders(f"{p}X4R5R6\n{p}X9R1R2\n{p}X1R3R3\n")})
    ore = after.planets[p].ore
    assert (ore[5], ore[6], ore[1], ore[2]) == (26, 34, 28, 32)
    assert history(report)[1][1] == f"{p}X2R1R2, cut by I: 20 industry free"
    assert "already" in history(report)[2][2]


# Building on ships (step 16)

def test_units_are_built_on_a_ship_from_the_planets_ore_and_on_an_allys_ship_r55(state):
    planet = home(state)
    mine, theirs = ship_of(state, 1, cargo=10), ship_of(state, 2, at=planet.number)
    _, report = run_turn(state, {1: orders(f"S{theirs.number}B1F\n")})
    assert "rates you ALLY" in history(report)[0][2]
    state.empires[2].ratings[1] = AllianceLevel.ALLY  # Winter rates Grok ALLY: Grok may build on its ships
    after, report = run_turn(state, {1: orders(f"S{mine.number}B5C\nS{theirs.number}B2F\nS{mine.number}B3S\n")})
    assert [why for _, _, why in history(report)] == ["", "", ""]
    assert after.ships[theirs.number].fighters == theirs.fighters + 2
    assert (after.ships[mine.number].cargo_units, after.ships[mine.number].shields) == (15, 3)
    assert after.planets[planet.number].ore[1:7] == [25, 28, 28, 30, 27, 27]  # the planet's ore, not the hold's
    assert report.industry_used[planet.number] == 5 + 4 + 6


def test_building_on_anothers_ship_tells_nothing_of_it_not_even_that_it_exists_r5(state):
    """An order to build on a ship one may not build on is answered the same
    whether the ship exists or not, and never says where it is (spec 8)."""
    theirs = ship_of(state, 2, at=home(state, 2).number)
    missing = next(n for n in range(100, 1000) if n not in state.ships)
    _, report = run_turn(state, {1: orders(f"S{theirs.number}B1C\nS{missing}B1C\n")})
    (_, _, there), (_, _, nowhere) = history(report)
    assert there.replace(str(theirs.number), "N") == nowhere.replace(str(missing), "N")
    assert str(home(state, 2).number) not in there


def test_units_are_not_built_from_a_planet_not_yours_nor_over_earth_but_by_a_bid_r8_r10(state):
    at_theirs, at_earth = ship_of(state, 1, at=home(state, 2).number), state.ships_of(1)[1]  # own ships
    at_earth.planet = state.earth
    _, report = run_turn(state, {1: orders(f"S{at_theirs.number}B1C\nS{at_earth.number}B4C\n")})
    whys = [why for _, _, why in history(report)]
    assert "not yours" in whys[0]
    assert f"S{at_earth.number}B4C1" in whys[1] and "R-10" in whys[1]
    assert isinstance(parse_order("S179B23C10"), type(parse_order("S178B43F45")))  # the bid form


# Trading with Earth (step 8)

def test_selling_pays_two_thirds_of_the_price_rounded_down_once_an_order_r28(state):
    ship = ship_of(state, cargo=100, at=state.earth)
    ship.hold.ore[1] = 40
    s = ship.number  # price of ore 1 is 16; Earth has 76 of it, so buys 24 more (Limited Selling)
    after, report = run_turn(state, {1: orders(f"S{s}X7R1\nS{s}X30R1\nS{s}X1R1\n")})
    assert after.empires[1].credits == 74 + 181  # 7 x 16 x 2/3 = 74.67; 17 x 16 x 2/3 = 181.33
    assert history(report)[1][1] == f"S{s}X17R1, cut by EL: Earth buys only 17 more ore 1 this turn; 181 credits"
    assert history(report)[2][2] == "EL: Earth buys only 0 more ore 1 this turn"
    assert after.ships[s].hold.ore[1] == 16


def test_unlimited_selling_buys_everything_r28(state):
    state.market.limited_selling = False
    ship = ship_of(state, cargo=100, at=state.earth)
    ship.hold.ore[1] = 90
    after, _report = run_turn(state, {1: orders(f"S{ship.number}X90R1\n")})
    assert after.empires[1].credits == 960 and after.ships[ship.number].hold.ore[1] == 0


def test_global_selling_keeps_fuel_and_rounds_once_an_order_r28(state):
    ship = ship_of(state, cargo=100, at=state.earth)
    ship.hold.ore = [9, 1, 1, 1, 1, 0, 1, 1, 0, 0]  # prices 16 + 6 + 6 + 15 + 5 + 3 = 51
    after, _report = run_turn(state, {1: orders(f"S{ship.number}X\n")})
    assert after.empires[1].credits == 34  # 51 x 2/3 once; rounding each type would pay 10+4+4+10+3+2 = 33
    assert after.ships[ship.number].hold.ore == [9] + [0] * 9


def test_global_selling_stops_at_earths_limit_and_says_so_r28(state):
    ship = ship_of(state, cargo=100, at=state.earth)
    ship.hold.ore[5], ship.hold.ore[3] = 4, 4  # Earth has 100 of ore 5 and 98 of ore 3
    after, report = run_turn(state, {1: orders(f"S{ship.number}X\n")})
    assert after.ships[ship.number].hold.ore[3:6] == [2, 0, 4]
    assert history(report)[0][1] == f"S{ship.number}X, cut by EL: Earth's limit on ore 3 (2 kept), " \
                                    "ore 5 (4 kept); sold 2 ore 3 for 8 credits"


def test_buying_pays_credits_first_then_score_at_the_rate_r29(state):
    ship = ship_of(state, cargo=100, at=state.earth)
    payer = state.empires[1]
    state.market.score_per_credit = 3
    payer.credits, payer.score = 10, 100  # 10 credits + 100 // 3 = 43: seven ore 2 at 6
    report = Report(state.turn)
    trading(state, [(1, parse_order(f"S{ship.number}P10R2"))], report)  # the step alone: no score step after
    assert ship.hold.ore[2] == 7 and (payer.credits, payer.score) == (0, 100 - 32 * 3)
    assert history(report)[0][1] == f"S{ship.number}P7R2, cut by $: credits and score pay for 7; " \
                                    "paid 10 credits and 96 score"


def test_buying_is_cut_by_cargo_space_and_earths_stock(state):
    ship = ship_of(state, cargo=20, at=state.earth)
    state.empires[1].credits = 10_000
    state.market.stock[3] = 12
    after, report = run_turn(state, {1: orders(f"S{ship.number}P15R3\nS{ship.number}P15R1\n")})
    assert after.ships[ship.number].hold.ore[3] == 12 and after.ships[ship.number].hold.ore[1] == 8
    assert [done.split("cut by ")[1].split(":")[0] for _, done, _ in history(report)] == ["R3", "C"]


def test_trade_needs_your_own_ship_over_earth_r5(state):
    away, theirs = ship_of(state, 1), ship_of(state, 2, at=state.earth)
    _, report = run_turn(state, {1: orders(f"S{away.number}P1R1\nS{theirs.number}X\n")})
    whys = [why for _, _, why in history(report)]  # selling (8a) before buying (8c)
    assert whys[0] == f"ship {theirs.number} is not yours" and "only over Earth" in whys[1]


def test_earth_held_by_an_empire_still_trades_but_rebuilds_no_pdus_r34(state):
    earth = state.planets[state.earth]
    earth.owner, earth.pdus = 2, 0
    ship = ship_of(state, cargo=100, at=state.earth)
    state.empires[1].credits = 100
    after, _report = run_turn(state, {1: orders(f"S{ship.number}P4R1\n")})
    assert after.ships[ship.number].hold.ore[1] == 4 and after.planets[state.earth].pdus == 0
    state.planets[state.earth].owner = NEUTRAL
    ship.planet = home(state).number  # alone over an unarmed Earth, it would take it (step 23)
    after, _ = run_turn(state, {})
    assert after.planets[state.earth].pdus == market_model.PDU_REBUILD


# Contracting Earth's industry (step 9)

def bidder(state: GameState, empire: int, ore1: int) -> Ship:
    ship = ship_of(state, empire, cargo=100, at=state.earth)
    ship.hold.ore[1] = ore1
    state.empires[empire].credits = 1000
    return ship


def test_earth_trades_on_with_an_empire_that_fired_on_it_r32(state):
    """Hostility to Earth brings the neutral planets' fire (l.1258-1264), not
    a closed market: Earth still sells, buys and takes the bids of an empire
    it lists as hostile (R-32)."""
    ship = bidder(state, 1, 50)
    ship.hold.ore[2] = 10
    state.empires[1].hostile_to_earth = True
    credits = state.empires[1].credits
    after, report = run_turn(state, {1: orders(f"S{ship.number}X1R2\nS{ship.number}P4R3\nS{ship.number}B50C2\n")})
    assert [done for _, done, _ in history(report)] == [f"S{ship.number}X1R2; 4 credits",
                                                        f"S{ship.number}P4R3; paid 24 credits",
                                                        f"S{ship.number}B50C2; paid 100 credits"]
    built = after.ships[ship.number]
    assert (built.hold.ore[2], built.hold.ore[3], built.cargo_units) == (9, 4, 150)
    assert after.empires[1].credits == credits + 4 - 24 - 100 and after.empires[1].hostile_to_earth


def test_bids_are_taken_highest_first_and_the_rest_goes_to_the_next_r30(state):
    low, high = bidder(state, 1, 50), bidder(state, 2, 30)
    after, report = run_turn(state, {1: orders(f"S{low.number}B50C2\n"), 2: orders(f"S{high.number}B30C5\n")})
    assert after.ships[high.number].cargo_units == 130 and after.empires[2].credits == 1000 - 150
    assert after.ships[low.number].cargo_units == 130 and after.empires[1].credits == 1000 - 60
    assert history(report)[0][1].startswith(f"S{low.number}B30C2, cut by I: higher bids left 30")
    assert after.ships[low.number].hold.ore[1] == 20 and after.ships[high.number].hold.ore[1] == 0


def test_equal_bids_are_taken_in_the_rotation_of_the_turn_r30_r11(state):
    one, two = bidder(state, 1, 60), bidder(state, 2, 60)
    mailed = {1: orders(f"S{one.number}B60C3\n"), 2: orders(f"S{two.number}B60C3\n")}
    after, _ = run_turn(state, mailed)  # turn 1: Grok first
    assert (after.ships[one.number].cargo_units, after.ships[two.number].cargo_units) == (160, 100)
    state.turn = 2  # turn 2: Winter first
    after, report = run_turn(state, mailed)
    assert (after.ships[one.number].cargo_units, after.ships[two.number].cargo_units) == (100, 160)
    assert "nothing built, nothing paid" in history(report)[0][2] and after.empires[1].credits == 1000


def test_a_bid_below_the_minimum_or_onto_an_empty_hull_is_refused_r30(state):
    ship = bidder(state, 1, 10)
    ship.hold.ore[2] = ship.hold.ore[3] = 10
    hull = state.ships_of(1)[1]
    hull.planet, hull.fighters, hull.cargo_units, hull.hold = state.earth, 0, 0, Cargo()
    _, report = run_turn(state, {1: orders(f"S{ship.number}B5F2\nS{hull.number}B1C1\n")})
    whys = [why for _, _, why in history(report)]
    assert whys[0] == "ignored: the minimum bid for fighter units is 3" and "empty hull" in whys[1]


def test_contracted_units_use_the_ships_ore_bought_the_same_turn_and_score_pays_r29(state):
    ship = ship_of(state, cargo=20, at=state.earth)
    state.market.score_per_credit = 3
    state.empires[1].credits, state.empires[1].score = 0, 3000  # score pays for all: 3 points a credit
    after, report = run_turn(state, {1: orders(f"S{ship.number}P10R2\nS{ship.number}P10R3\nS{ship.number}B10F4\n")})
    done = after.ships[ship.number]
    assert (done.fighters, done.hold.ore[2], done.hold.ore[3]) == (1 + 10, 0, 0)
    # 10 ore 2 and 10 ore 3 at 6 = 120 credits; 10 fighters x 2 industry x 4 = 80 credits; 3 points each
    assert [done.split("; ")[-1] for _, done, _ in history(report)] == [
        "paid 0 credits and 180 score", "paid 0 credits and 180 score", "paid 0 credits and 240 score"]


def test_contracting_is_limited_by_the_ore_in_the_ship_not_earths_r30(state):
    ship = bidder(state, 1, 3)
    after, report = run_turn(state, {1: orders(f"S{ship.number}B10C1\n")})
    assert after.ships[ship.number].cargo_units == 103
    assert history(report)[0][1].startswith(f"S{ship.number}B3C1, cut by R1: 3 ore 1 in the ship's hold")


# Earth's market at the end of the turn

def test_prices_follow_trade_stock_drifts_to_100_and_industry_grows_with_demand_r27(state):
    ship = bidder(state, 1, 0)
    ship.hold.ore[4] = 5
    after, _ = run_turn(state, {1: orders(f"S{ship.number}P20R1\nS{ship.number}X5R4\nS{ship.number}B100C1\n")})
    price, stock = after.market.price, after.market.stock
    assert (price[1], price[4], price[2]) == (17, 14, 6)  # bought: up; sold: down; no trade: same
    assert stock[1] == 76 - 20 + 10 and stock[4] == 71 + 5 + 10 and stock[0] == 89 + 10 and stock[5] == 100
    assert after.planets[state.earth].industry == 60 + market_model.INDUSTRY_GROWTH  # 100 asked, 60 for hire


def test_damaged_earth_withholds_half_its_ore_and_industry_r27(state):
    earth = state.planets[state.earth]
    earth.pdus = market_model.RESERVE_BELOW - 1
    ship = bidder(state, 1, 50)
    state.market.stock[1] = 21
    after, report = run_turn(state, {1: orders(f"S{ship.number}P20R1\nS{ship.number}B100C1\n")})
    assert after.ships[ship.number].cargo_units == 130  # 60 industry, 30 withheld
    assert history(report)[0][1].startswith(f"S{ship.number}P10R1, cut by R1: Earth has 10 ore 1 for sale")
    assert after.planets[state.earth].pdus == market_model.RESERVE_BELOW - 1 + market_model.PDU_REBUILD


def test_the_market_runs_last_at_the_end_of_the_turn():
    from gm.games.celestial_empire import steps  # noqa: F401
    from gm.games.celestial_empire.steps import END_OF_TURN, END_ORDER
    assert END_ORDER[-1] == "earth market" and ("earth market", earth_market) in END_OF_TURN
    assert sum(1 for name, _ in END_OF_TURN if name == "earth market") == 1


# Properties

BUILD_ORDERS = st.one_of(
    st.builds(BuildIndustry, st.just(0), st.integers(0, 8)),
    st.builds(BuildPDUs, st.just(0), st.integers(0, 40)),
    st.builds(BuildMines, st.just(0), st.integers(0, 8), st.integers(0, 9)),
    st.builds(BuildSpacemines, st.just(0), st.integers(0, 40), st.integers(0, 9)),
    st.builds(BuildHyperdrives, st.just(0), st.integers(0, 3), st.integers(0, 5), st.integers(0, 5),
              st.integers(0, 5), st.integers(0, 5)),
    st.builds(Transmute, st.just(0), st.integers(0, 8), st.integers(0, 9), st.integers(0, 9)),
    st.builds(Unbuild, st.just(-1), st.integers(0, 30), st.sampled_from(list(Unit))),
    st.builds(BuildUnits, st.just(-1), st.integers(0, 30), st.sampled_from(list(Unit))),
)


@settings(max_examples=60, deadline=None)
@given(written=st.lists(BUILD_ORDERS, max_size=10), ore=st.lists(st.integers(0, 60), min_size=10, max_size=10),
       industry=st.integers(0, 150), fighters=st.integers(0, 10), fuel=st.integers(0, 20))
def test_industry_and_ore_are_spent_exactly_per_the_tables_never_twice_never_below_zero(
        written, ore, industry, fighters, fuel):
    state = copy.deepcopy(START)
    planet = home(state)
    planet.ore, planet.industry = list(ore), industry
    ship = ship_of(state, cargo=20)
    ship.fighters, ship.tractors, ship.shields, ship.hold.ore[0] = fighters, 3, 2, fuel
    mine = [o.__class__(**{**o.__dict__, **({"planet": planet.number} if hasattr(o, "planet")
                                            else {"ship": ship.number})}) for o in written]
    report = Report(state.turn, industry_start={planet.number: industry})
    for phase_step in (unbuilding, transmutation, planet_building, ship_building):
        phase_step(state, [(1, o) for o in mine if phase_step.__name__ in _steps_of(o)], report)
    ore_spent, industry_spent = [0] * 10, 0
    assert len(report.history[1] if mine else []) == len(mine)  # every order answered once
    for entry in report.history.get(1, []):
        if not entry.carried_out:
            continue
        done = parse_order(entry.done.split(",")[0].split(";")[0])
        spent, used = _cost(done)
        ore_spent = [a + b for a, b in zip(ore_spent, spent)]
        industry_spent += used
    assert [before - after for before, after in zip(ore, planet.ore)] == ore_spent
    assert industry_spent == report.industry_used.get(planet.number, 0) <= industry
    assert min(planet.ore) >= 0 and min(ship.fighters, ship.cargo_units, ship.tractors, ship.shields) >= 0
    assert ship.free_space() >= 0


def _steps_of(order) -> str:
    return {Unbuild: "unbuilding", Transmute: "transmutation", BuildUnits: "ship_building"}.get(
        type(order), "planet_building")


def _cost(order) -> tuple[list[int], int]:
    """Ore taken from the planet (negative: given back) and industry used by an order as carried out."""
    from gm.games.celestial_empire.formulas import UNBUILD_SHIP_UNIT
    from gm.games.celestial_empire.industry import _item_cost
    if isinstance(order, Unbuild):
        types, back, industry = UNBUILD_SHIP_UNIT[order.unit]
        return [-int(order.amount * back) if t in types else 0 for t in range(10)], order.amount * industry
    if isinstance(order, Transmute):
        ore = [0] * 10
        ore[order.from_type] += order.amount
        ore[order.to_type] -= order.amount
        return ore, 10 * order.amount
    if isinstance(order, BuildUnits):
        ore, industry = unit_cost(order.unit)
    else:
        (ore, industry), _ = _item_cost(order)
    return [order.amount * o for o in ore], order.amount * industry


TRADE_ORDERS = st.lists(st.tuples(st.sampled_from([1, 2]), st.sampled_from("XSP"), st.integers(0, 60),
                                  st.integers(0, 9)), max_size=12)


@settings(max_examples=60, deadline=None)
@given(trades=TRADE_ORDERS, credits=st.integers(0, 300), score=st.integers(0, 300), limited=st.booleans())
def test_trade_conserves_ore_and_never_leaves_anything_negative(trades, credits, score, limited):
    state = copy.deepcopy(START)
    state.market.limited_selling = limited
    ships = {}
    for empire in (1, 2):
        ships[empire] = ship_of(state, empire, cargo=80, at=state.earth)
        ships[empire].hold.ore = [5] * 10
        state.empires[empire].credits, state.empires[empire].score = credits, score
    total = [state.market.stock[t] + sum(s.hold.ore[t] for s in ships.values()) for t in range(10)]
    mailed: dict[int, list] = {1: [], 2: []}
    for empire, kind, amount, ore_type in trades:
        s = ships[empire].number
        mailed[empire].append(parse_order({"X": f"S{s}X", "S": f"S{s}X{amount}R{ore_type}",
                                           "P": f"S{s}P{amount}R{ore_type}"}[kind]))
    report = Report(state.turn)
    trading(state, in_rotation(state.turn, mailed), report)
    contracting(state, [], report)
    assert total == [state.market.stock[t] + sum(s.hold.ore[t] for s in ships.values()) for t in range(10)]
    assert all(min(s.hold.ore) >= 0 and s.free_space() >= 0 for s in ships.values())
    assert all(e.credits >= 0 and e.score >= 0 for e in state.empires.values())
    if limited:
        assert all(stock <= max(100, before) for stock, before in zip(state.market.stock, START.market.stock))
    assert sum(len(v) for v in report.history.values()) == len(trades)
