"""Celestial Empire spacemines (step 10, step 20) and battle (step 11, step
22): the manual's numbers reproduced, and each ruling of
docs/celestial_empire/rulings.md these steps follow pinned by a test that
names it."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_text import history, orders
from gm.games.celestial_empire.battle import battle
from gm.games.celestial_empire.damage import pdu_passage_fire
from gm.games.celestial_empire.formulas import absorbed, mass, pdu_shots, shots
from gm.games.celestial_empire.orders import AllianceLevel
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.spacemines import spacemine_attack
from gm.games.celestial_empire.state import (
    NEUTRAL,
    START_MINIMUM_BIDS,
    START_PRICES,
    START_SCORE_PER_CREDIT,
    START_STOCK,
    Cargo,
    Empire,
    GameState,
    Market,
    Planet,
    Ship,
)
from gm.games.celestial_empire.steps import END_OF_TURN, end_of_turn_in_order
from gm.games.celestial_empire.turn import run_turn

EARTH = 105
GROK, WINTER, MASTER = 1, 2, 3


def world(turn: int = 20) -> GameState:
    """Five planets in a row, 101-102-103-104-105 (Earth); Grok's home 101,
    Winter's 102, Master's 103; 104 neutral."""
    links = {101: (102,), 102: (101, 103), 103: (102, 104), 104: (103, 105), 105: (104,)}
    planets = {n: Planet(n, f"P{n}", links[n]) for n in links}
    empires = {}
    for seat, name in ((GROK, "Grok"), (WINTER, "Winter"), (MASTER, "Master")):
        home = 100 + seat
        planets[home].owner, planets[home].home_of = seat, seat
        empires[seat] = Empire(seat, name, home)
    market = Market(list(START_PRICES), list(START_STOCK), dict(START_MINIMUM_BIDS), START_SCORE_PER_CREDIT)
    return GameState(turn, 5, planets, {}, empires, EARTH, market)


def add(state: GameState, number: int, owner: int, planet: int, f: int = 0, c: int = 0, t: int = 0, s: int = 0,
        **hold: object) -> Ship:
    ship = Ship(number, owner, planet, fighters=f, cargo_units=c, tractors=t, shields=s,
                hold=Cargo(**hold))  # type: ignore[arg-type]
    state.ships[number] = ship
    return ship



def turn(state: GameState, mailed: dict[int, str]):
    return run_turn(state, {e: orders(text) for e, text in mailed.items()})



def gunner(state: GameState, number: int, owner: int, planet: int, wanted: int, s: int = 0) -> Ship:
    """A ship of ``owner`` at ``planet``, with ``s`` shields, that fires
    exactly ``wanted`` shots with all its fighters (found by trying)."""
    for c in range(0, 200):
        for f in range(1, 400):
            if shots(Ship(0, 0, 0, fighters=f, cargo_units=c, shields=s)) == wanted:
                return add(state, number, owner, planet, f=f, c=c, s=s)
    raise AssertionError(f"no ship fires {wanted}")


# The manual's numbers ------------------------------------------------------

def test_the_shot_example_gives_124_by_the_vertices_not_127_r41():
    # l.963-980: f=102, c=20 of which 10 full, t=10, s=20: mass 51.2, ratio ~2.0.
    ship = Ship(231, GROK, 101, fighters=102, cargo_units=20, tractors=10, shields=20, hold=Cargo(ore=[10] + [0] * 9))
    assert mass(ship) == Fraction(512, 10)
    assert shots(ship) == 124  # floor(102 * (1 + (102/51.2 - 1) * 2/9)); the text's "around 1.25" gives 127
    # the sheet's small ships, f=1 c=10 with 4 fuel, show shots=0 (l.2183-2190)
    assert shots(Ship(100, GROK, 101, fighters=1, cargo_units=10, hold=Cargo(ore=[4] + [0] * 9))) == 0
    state = world()
    state.ships[231] = ship
    add(state, 321, WINTER, 101, c=200)
    _, report = turn(state, {GROK: "S231AS321\n"})
    assert history(report)[0][1].startswith("102 fighter units fired 124 shots at ship 321")


def test_pdu_shots_are_the_sheets_4_366_650_r41():
    assert [pdu_shots(n) for n in (4, 120, 200)] == [4, 366, 650]  # l.2277, l.2317, l.2297
    assert pdu_shots(500) == 2000 and pdu_shots(1000) == 4000  # the curve tops out at 4, not 3.99
    state = world()
    state.planets[101].pdus = 200
    state.empires[GROK].ratings[WINTER] = AllianceLevel.HOSTILE
    add(state, 321, WINTER, 101, f=1000)
    after, report = turn(state, {GROK: "101A120S321\n"})
    assert history(report)[0][1].startswith("120 PDUs fired 366 shots at ship 321")
    assert after.ships[321].fighters == 1000 - 366


def test_shield_absorption_is_the_polyline_through_its_vertices_r42():
    assert absorbed(Ship(1, GROK, 101, fighters=80, shields=20)) == 40  # 20%: 2 a shield
    assert absorbed(Ship(1, GROK, 101, fighters=10, shields=90)) == 360  # 90%: 4 a shield, not 3.99
    assert absorbed(Ship(1, GROK, 101, fighters=90, shields=10)) == 15  # 10%: 1.5 a shield


def test_thresholds_pdus_3_industry_10_ore_1_spacemines_1_r46():
    state = world()
    planet = state.planets[102]
    planet.pdus, planet.industry, planet.ore[4], planet.deployed = 100, 50, 30, 40
    for number, wanted in ((201, 8), (202, 25), (203, 7), (204, 9)):
        gunner(state, number, GROK, 102, wanted, s=1000)  # shields: the PDUs' reply does nothing
    after, report = turn(state, {GROK: "S201AD\nS202AI\nS203AR4\nS204ASM\n"})
    there = after.planets[102]
    assert (there.pdus, there.industry, there.ore[4], there.deployed) == (100 - 2, 50 - 2, 30 - 7, 40 - 9)
    assert [done.split("; ")[1] for _, done, _ in history(report)] == [
        "destroyed 2 PDUs", "destroyed 2 industry", "destroyed 7 ore of type 4", "destroyed 9 spacemines"]
    assert "planet 102 was attacked by ship 201 (Grok): 2 PDUs destroyed" in report.seen[WINTER]


def test_nine_shots_from_each_of_two_ships_destroy_no_mine_r46():
    state = world()
    state.planets[102].mines[3] = 5
    gunner(state, 201, GROK, 102, 9)
    gunner(state, 202, GROK, 102, 9)
    gunner(state, 203, MASTER, 102, 10)
    after, _ = turn(state, {GROK: "S201AM3\nS202AM3\n"})
    assert after.planets[102].mines[3] == 5  # l.947-950
    after, _ = turn(state, {GROK: "S201AM3\nS202AM3\n", MASTER: "S203AM3\n"})
    assert after.planets[102].mines[3] == 4


def test_shots_left_after_all_the_mines_destroy_ore_of_that_type_and_totals_are_capped_r46():
    state = world()
    planet = state.planets[102]
    planet.mines[3], planet.ore[3], planet.pdus = 1, 5, 10
    gunner(state, 201, GROK, 102, 13, s=100)
    gunner(state, 202, MASTER, 102, 30, s=100)
    after, report = turn(state, {GROK: "S201AM3\n", MASTER: "S202AD\n"})
    assert (after.planets[102].mines[3], after.planets[102].ore[3]) == (0, 2)  # 13 shots: 1 mine, then 3 ore
    assert history(report)[0][1].endswith("destroyed 1 mines of type 3, 3 ore of type 3")
    assert after.planets[102].pdus == 0  # 30 shots: 10 of the 10 PDUs


# Simultaneous battle, shields, fighters ---------------------------------------

def test_ship_and_pdus_fire_at_full_strength_at_the_same_time_r40_r45():
    state = world()
    state.planets[102].pdus = 120
    attacker = add(state, 201, GROK, 102, f=60)
    assert shots(attacker) == 160
    after, report = turn(state, {GROK: "S201AD\n"})
    assert after.planets[102].pdus == 120 - 53  # the ship fired with all 60 fighters...
    assert after.ships[201].fighters == 0  # ...while 120 PDUs fired their 366 shots at it (l.1093-1096)
    assert any("took 366 shots from the PDUs of planet 102" in line for line in report.seen[GROK])


def test_two_ships_fire_at_each_other_with_all_they_had_at_the_start_r40():
    state = world()
    big, small = add(state, 201, GROK, 101, f=100, c=10), add(state, 321, WINTER, 101, f=20, c=5)
    fire_big, fire_small = shots(big), shots(small)
    after, _ = turn(state, {GROK: "S201AS321\n", WINTER: "S321AS201\n"})
    assert after.ships[201].fighters == 100 - fire_small  # 321 fired in full although it was wiped out
    assert (after.ships[321].fighters, after.ships[321].cargo_units) == (0, max(0, 5 - (fire_big - 20)))


def test_pdus_answer_each_attacking_ship_in_full_but_not_attacks_on_spacemines_r45():
    state = world()
    state.planets[102].pdus, state.planets[102].industry, state.planets[102].deployed = 20, 10, 10
    for number in (201, 202, 203):
        add(state, number, GROK, 102, f=50)
    after, _ = turn(state, {GROK: "S201AI\nS202AD\nS203ASM\n"})
    assert after.ships[201].fighters == after.ships[202].fighters == 50 - pdu_shots(20)
    assert after.ships[203].fighters == 50


def test_shots_at_a_ship_are_pooled_before_its_shields_absorb_r42():
    state = world()
    add(state, 321, WINTER, 101, f=80, s=20)  # absorbs 40
    gunner(state, 201, GROK, 101, 30)
    gunner(state, 202, GROK, 101, 30)
    after, report = turn(state, {GROK: "S201AS321\nS202AS321\n"})
    assert (after.ships[321].shields, after.ships[321].fighters) == (0, 80)  # 60 - 40 = 20 shots: the shields
    assert "ship 321 took 60 shots this turn (30 of them yours) and lost 20 units" in history(report)[0][1]


def test_each_fighter_fires_once_a_turn_and_the_rest_is_all_that_is_left_r43():
    state = world()
    add(state, 201, GROK, 101, f=10)
    add(state, 321, WINTER, 101, c=100)
    add(state, 322, WINTER, 101, c=100)
    _after, report = turn(state, {GROK: "S201A4S321\nS201AS322\nS201A2S321\n"})
    lines = history(report)
    assert lines[0][1].startswith("4 fighter units fired") and lines[1][1].startswith("6 fighter units fired")
    assert "no fighter units left this turn" in lines[2][2]
    state.ships[201].fighters = 3
    _, report = turn(state, {GROK: "S201A5S321\n"})
    assert history(report)[0][1].startswith("S201A3S321, cut by F: ship 201 had 3 fighter units left; "
                                            "3 fighter units fired 3 shots at ship 321")


def test_pdu_shots_never_destroy_cargo_units_r44():
    state = world()
    state.planets[101].pdus = 200
    state.empires[GROK].ratings[WINTER] = AllianceLevel.HOSTILE
    add(state, 321, WINTER, 101, f=5, t=5, c=40)
    after, _ = turn(state, {GROK: "101AS321\n"})
    assert (after.ships[321].fighters, after.ships[321].tractors, after.ships[321].cargo_units) == (0, 0, 40)


def test_in_a_mixed_pool_the_pdu_shots_count_first_r42_r44():
    state = world()
    state.planets[101].pdus = 8  # 11 shots
    state.empires[GROK].ratings[WINTER] = AllianceLevel.HOSTILE
    add(state, 321, WINTER, 101, t=11, c=40)
    gunner(state, 201, GROK, 101, 10)
    after, _ = turn(state, {GROK: "101AS321\nS201AS321\n"})
    assert (after.ships[321].tractors, after.ships[321].cargo_units) == (0, 30)


def test_who_may_fire_at_what_r47():
    state = world()
    state.empires[GROK].ratings.update({WINTER: AllianceLevel.FRIENDLY, MASTER: AllianceLevel.ALLY})
    state.planets[102].pdus = 5
    state.planets[103].pdus = 5
    state.planets[103].deployed = 4
    add(state, 201, GROK, 102, f=50)
    add(state, 202, GROK, 102, c=10)
    add(state, 203, GROK, 103, f=50)
    add(state, 321, WINTER, 102, c=10)
    add(state, 331, MASTER, 101, c=10)
    mail = "S201AS321\nS201AS201\nS201A1S202\nS203AD\nS203A1SM\n101AS331\n101AS999\nS999AD\n"
    after, report = turn(state, {GROK: mail})
    why = {written: why for written, _, why in history(report)}
    assert "you rate Winter FRIENDLY" in why["S201AS321"] and why["S201AS201"] == "a ship cannot attack itself"
    assert why["S201A1S202"] == ""  # your own other ship: "for whatever nefarious reasons" (l.1059-1060)
    assert "Master's, whom you rate ALLY" in why["S203AD"]
    assert why["S203A1SM"] == ""  # an ally's spacemines may be shot
    assert "PDUs may fire only at ships of empires you rate HOSTILE" in why["101AS331"]
    assert "no ship 999 over planet 101" in why["101AS999"] and why["S999AD"] == "ship 999 is not yours"
    assert [w for w, _, _ in history(report)][:2] == ["101AS331", "101AS999"]  # sub-step a comes first
    assert after.ships[321].cargo_units == 10 and after.planets[103].pdus == 5


def test_earth_amnesty_until_turn_15_and_earth_hostility_after_r31_r32():
    state = world(turn=14)
    state.planets[EARTH].pdus, state.planets[EARTH].deployed = 200, 10
    add(state, 201, GROK, EARTH, f=300, s=500, c=10, spacemines=5)  # destroys more PDUs than Earth rebuilds
    add(state, 202, GROK, 104, f=1, s=500)
    state.planets[104].pdus = 4
    add(state, 321, WINTER, EARTH, c=10)
    after, report = turn(state, {GROK: "S201AD\nS201AS321\nS201D5\n"})
    assert [why for _, _, why in history(report)] == [  # spacemines are no shots: they may be deployed
        "", "Earth amnesty in effect until turn 15: no shots allowed (ruling R-31)",
        "Earth amnesty in effect until turn 15: no shots allowed (ruling R-31)"]
    assert not after.empires[GROK].hostile_to_earth and report.fought == set()
    state.turn = 15
    after, report = turn(state, {GROK: "S201AD\n"})
    assert after.empires[GROK].hostile_to_earth and report.fought == {201}
    assert after.planets[EARTH].pdus < 200
    assert any("hostile" in line for line in report.seen[GROK])
    # the neutral planet 104 fires its unfired PDUs at Grok's ship there, after all normal attacks
    assert any("the PDUs of neutral planet 104" in line for line in report.seen[GROK])
    after, report = turn(after, {})  # from then on, with no orders at all
    assert any("the PDUs of neutral planet 104" in line for line in report.seen[GROK])


def test_only_an_attack_carried_out_initiates_battle_r49():
    state = world()
    add(state, 201, GROK, 101, f=10)
    add(state, 202, GROK, 101, f=0)
    add(state, 321, WINTER, 101, c=10)
    state.empires[GROK].ratings[MASTER] = AllianceLevel.FRIENDLY
    _, report = turn(state, {GROK: "S201AS321\nS202AS321\nS201AD\n"})
    assert report.fought == {201}
    assert history(report)[2][2] == "planet 101 is yours (ruling R-47)"
    state.planets[101].owner = MASTER
    _, report = turn(state, {GROK: "S201AD\n"})  # no PDUs there: nothing to attack, no battle begun
    assert history(report)[0][2] == "planet 101 has no PDUs: nothing to attack" and report.fought == set()


def test_an_attack_of_no_shots_still_initiates_battle_draws_pdu_fire_and_stops_the_jump_r49():
    """The example sheet's small ship (one fighter, ten cargo units, four
    fuel, l.2183-2190) fires 0 shots; its attack is carried out all the same:
    the planet's PDUs fire back, the ship cannot jump, and at Earth the
    empire becomes hostile to NEUTRAL (R-32)."""
    state = world()
    state.planets[102].pdus = 20
    add(state, 201, GROK, 102, f=1, c=10, ore=[4] + [0] * 9)
    after, report = turn(state, {GROK: "S201AD\nS201J103\n"})
    assert history(report) == [
        ("S201AD", "1 fighter units fired 0 shots at the PDUs of planet 102; destroyed 0 PDUs", ""),
        ("S201J103", "", "ship 201 initiated battle this turn and cannot jump by itself (ruling R-49)")]
    assert report.fought == {201} and after.ships[201].planet == 102
    assert report.seen[GROK] == ["ship 201 at planet 102 took 40 shots from the PDUs of planet 102; "
                                 "its shields absorbed 0; lost 1 fighter units"]
    state.ships[201].planet = EARTH
    state.planets[EARTH].pdus = 20
    after, report = turn(state, {GROK: "S201AD\n"})
    assert history(report)[0][1].startswith("1 fighter units fired 0 shots") and after.empires[GROK].hostile_to_earth


def test_what_no_longer_fits_falls_mines_first_then_ore_from_type_9_r50():
    state = world()
    state.planets[101].mines[2] = 1
    state.planets[101].mines[7] = 1
    ore = [0] * 10
    ore[9], ore[1] = 5, 5
    add(state, 321, WINTER, 101, c=60, mines=2, spacemines=3, ore=ore)  # 40 + 3 + 10 = 53 of 60
    gunner(state, 201, GROK, 101, 40)
    after, report = turn(state, {GROK: "S201AS321\n"})
    ship, planet = after.ships[321], after.planets[101]
    assert ship.cargo_units == 20 and ship.hold.space() <= 20
    assert ship.hold.mines == 0 and planet.mines[2] + planet.mines[7] == 4  # both mines joined the planet's types
    assert ship.hold.spacemines == 3 and ship.hold.ore[9] == 5 and ship.hold.ore[1] == 5  # 18 fit: nothing more fell
    again, _ = turn(state, {GROK: "S201AS321\n"})
    assert again.planets[101].mines == planet.mines  # the draw is the seed's, the same on every replay
    assert any("unloaded: 2 mines" in line for line in report.seen[WINTER])


# Spacemines -----------------------------------------------------------------

def test_deploying_and_retrieving_r39():
    state = world()
    state.planets[101].spacemines = 10
    state.planets[102].spacemines, state.planets[102].deployed = 10, 5
    add(state, 201, GROK, 102, c=10, t=3, spacemines=5)
    add(state, 202, GROK, 102, c=4, t=10, ore=[2] + [0] * 9)
    mail = "101D30\n102D5\nS201D2\nS202R8\nS202ES201\n"
    after, report = turn(state, {GROK: mail})
    lines = history(report)
    assert lines[0][1] == "101D10, cut by SM: planet 101 had 10 spacemines stored"
    assert lines[1][2] == "planet 102 is not yours"  # a planet's stockpile: its owner's only
    assert lines[2][1] == "2 spacemines deployed around planet 102"  # from a ship: anywhere
    assert lines[3][1] == "S202R2, cut by C: ship 202 had 2 free cargo units"
    assert "retrieved spacemines this turn" in lines[4][2]  # tractors retrieve or engage, not both
    assert (after.planets[101].deployed, after.planets[102].deployed, after.ships[202].hold.spacemines) == (10, 5, 2)


def test_spacemines_fire_half_a_shot_each_lose_a_tenth_rounded_up_and_hit_cargo_r36():
    state = world()
    state.planets[102].deployed = 41
    ship = add(state, 201, GROK, 102, c=30)
    report = Report(state.turn)
    spacemine_attack(state, ship, 102, report)
    for end in end_of_turn_in_order():  # steps 20 and 22 (and whatever other end steps there are)
        end(state, report)
    assert state.planets[102].deployed == 41 - 5 and ship.cargo_units == 30 - 20


def test_spacemine_attacks_in_the_order_of_jumping_each_meeting_what_is_left_r37_r38():
    state = world()
    state.planets[103].deployed = 100
    state.planets[103].owner = GROK  # "even if you own the planet you will be attacked"
    first, second = add(state, 201, GROK, 103, c=200), add(state, 202, WINTER, 103)  # an empty hull too
    report = Report(state.turn)
    spacemine_attack(state, first, 103, report)
    spacemine_attack(state, second, 103, report)
    assert state.planets[103].deployed == 100  # nothing happens before step 20
    next(end for name, end in END_OF_TURN if name == "spacemine attacks")(state, report)
    assert [(v.ship, v.shots) for v in report.volleys] == [(201, 50), (202, 45)]
    assert state.planets[103].deployed == 100 - 10 - 9


def test_pdus_fire_at_ships_passing_through_but_not_at_friends_or_hulls_r48():
    state = world()
    state.planets[102].pdus = 20
    state.empires[WINTER].ratings[MASTER] = AllianceLevel.FRIENDLY
    grok, master = add(state, 201, GROK, 102, f=10, c=10), add(state, 301, MASTER, 102, f=10)
    hull, own = add(state, 202, GROK, 102), add(state, 203, WINTER, 102, f=5)
    report = Report(state.turn)
    assert [pdu_passage_fire(state, s, 102, report) for s in (grok, master, hull, own)] == [pdu_shots(20), 0, 0, 0]
    next(end for name, end in END_OF_TURN if name == "damage")(state, report)
    assert (grok.fighters, grok.cargo_units) == (0, 10)  # PDU shots: never cargo, so the jump goes on
    state.planets[EARTH].pdus, grok.fighters = 50, 10
    state.turn = 14
    assert pdu_passage_fire(state, grok, EARTH, report) == 0  # Earth amnesty
    state.turn = 15
    assert pdu_passage_fire(state, grok, EARTH, report) == pdu_shots(50)


def test_end_of_turn_steps_run_in_the_manuals_order_whatever_the_import_order():
    names = [name for name, _ in END_OF_TURN]
    assert {"spacemine attacks", "damage"} <= set(names)
    order = [next(n for n, f in END_OF_TURN if f is end) for end in end_of_turn_in_order()]
    known = [n for n in ("spacemine attacks", "mining", "damage", "ownership", "score") if n in names]
    assert [n for n in order if n in known] == known


# Tractor beams ---------------------------------------------------------------

def test_the_most_tractors_win_no_daisy_chains_and_mass_after_damage_r59():
    state = world()
    add(state, 201, GROK, 101, t=50)
    add(state, 301, MASTER, 101, t=80)
    add(state, 321, WINTER, 101, c=10)  # mass 11
    add(state, 322, WINTER, 101, t=20, c=10)  # mass 21
    add(state, 323, WINTER, 101, c=60)  # mass 61: too heavy for 50 tractors
    _, report = turn(state, {GROK: "S201ES321\nS201ES323\n", MASTER: "S301ES321\n", WINTER: "S322ES201\n"})
    assert report.towing == {301: 321}  # the most tractors win 321
    assert "already held" in history(report)[0][2] and "too weak" in history(report)[1][2]
    assert "too weak" in history(report, WINTER)[0][2]  # 20 tractors cannot hold 201 (mass 26)
    _, report = turn(state, {GROK: "S201ES323\n", WINTER: "S322ES201\n", MASTER: "S301ES322\n"})
    assert report.towing == {301: 322}  # 322, held by 301, cannot engage 201 (no daisy chains)
    assert "already held" in history(report, WINTER)[0][2] and "too weak" in history(report)[0][2]
    assert any("held by the tractor beams of ship 301 (Master)" in line for line in report.seen[WINTER])
    gunner(state, 202, GROK, 101, 20)  # strips 20 cargo units off 323 first: mass 41
    _, report = turn(state, {GROK: "S202AS323\nS201ES323\n"})
    assert report.towing == {201: 323} and report.fought == {202}  # engaging is not an attack


# Properties --------------------------------------------------------------------

ATTACKS = ("S{s}AS{t}", "S{s}A{n}S{t}", "S{s}AD", "S{s}AI", "S{s}AM{y}", "S{s}AR{y}", "S{s}ASM", "S{s}A{n}D",
           "{p}AS{t}", "{p}A{n}S{t}", "{p}ASM")


@st.composite
def battles(draw):
    state = world(turn=draw(st.integers(12, 30)))
    for seat in (GROK, WINTER, MASTER):
        state.empires[seat].hostile_to_earth = draw(st.booleans())
        for other in (GROK, WINTER, MASTER):
            if other != seat:
                state.empires[seat].ratings[other] = draw(st.sampled_from(list(AllianceLevel)))
        if draw(st.booleans()):
            state.planets[100 + seat].owner = NEUTRAL  # some planets neutral, some not
    state.planets[104].owner = draw(st.sampled_from((GROK, WINTER, MASTER, NEUTRAL)))
    for planet in state.planets.values():
        planet.pdus = draw(st.integers(0, 150))
        planet.industry = draw(st.integers(0, 30))
        planet.deployed = draw(st.integers(0, 40))
        planet.mines = [draw(st.integers(0, 3)) for _ in range(10)]
        planet.ore = [draw(st.integers(0, 20)) for _ in range(10)]
    numbers = draw(st.lists(st.integers(100, 130), min_size=2, max_size=10, unique=True))
    for number in numbers:
        c = draw(st.integers(0, 40))
        add(state, number, draw(st.sampled_from((GROK, WINTER, MASTER, NEUTRAL))),
            draw(st.sampled_from((102, 104, 105))), f=draw(st.integers(0, 200)), c=c,
            t=draw(st.integers(0, 20)), s=draw(st.integers(0, 60)),
            ore=[draw(st.integers(0, c // 20)) for _ in range(10)], mines=draw(st.integers(0, 1)) if c >= 40 else 0)
    mailed = {}
    for seat in (GROK, WINTER, MASTER):
        lines = []
        own = [n for n in numbers if state.ships[n].owner == seat] or numbers
        for _ in range(draw(st.integers(0, 6))):
            lines.append(draw(st.sampled_from(ATTACKS)).format(
                s=draw(st.sampled_from(own)), t=draw(st.sampled_from(numbers)), n=draw(st.integers(1, 150)),
                y=draw(st.integers(0, 3)), p=draw(st.sampled_from((101, 102, 103, 104, 105)))))
        mailed[seat] = orders("\n".join(lines))
    return state, mailed


@pytest.mark.slow  # hypothesis with 150 examples
@settings(max_examples=150, deadline=None)
@given(battles())
def test_hulls_stay_units_never_go_negative_and_holds_fit(case):
    state, mailed = case
    after, _ = run_turn(state, mailed)
    assert set(after.ships) == set(state.ships)
    for ship in after.ships.values():
        assert min(ship.fighters, ship.cargo_units, ship.tractors, ship.shields) >= 0
        assert ship.hold.space() <= ship.cargo_units
    for planet in after.planets.values():
        assert min(planet.pdus, planet.industry, planet.deployed, *planet.mines, *planet.ore) >= 0


@pytest.mark.slow  # hypothesis with 150 examples
@settings(max_examples=150, deadline=None)
@given(battles(), st.permutations((GROK, WINTER, MASTER)))
def test_a_battle_does_not_depend_on_the_order_the_empires_orders_are_taken_in_r40(case, rotation):
    state, mailed = case
    outcomes = []
    for empires in ((GROK, WINTER, MASTER), tuple(rotation)):
        copy_ = copy.deepcopy(state)
        battle(copy_, [(e, o) for e in empires for o in mailed[e]], Report(state.turn))
        outcomes.append(copy_)
    assert outcomes[0] == outcomes[1]
