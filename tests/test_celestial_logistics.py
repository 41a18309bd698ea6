"""Celestial Empire gifting (step 4), unloading (6), loading (7) and tending
(12): the manual's examples in its own notation, the cargo table, and each
ruling these steps follow (docs/celestial_empire/rulings.md), pinned by a
test named after it."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_text import history, orders
from gm.games.celestial_empire.cargo import SIZE, Item, loading, tending, unloading
from gm.games.celestial_empire.galaxy import ORE_TYPES, generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.orders import AllianceLevel, LoadAll, LoadMines, Order, Phase
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.state import NEUTRAL, Cargo, GameState, Ship, new_game
from gm.games.celestial_empire.turn import run_turn

GROK, MASTER, WARLORD = 1, 2, 3


@pytest.fixture(scope="module")
def galaxy_start() -> GameState:
    return new_game(generate(7, 3), ["Grok", "Master", "Warlord"])


@pytest.fixture
def state(galaxy_start: GameState) -> GameState:
    """Turn 1 with no ships: each test puts the ships it needs, numbered as the manual's examples."""
    fresh = galaxy_start.copy()
    fresh.ships = {}
    return fresh


def home(state: GameState, empire: int = GROK) -> int:
    return state.empires[empire].home


def ship(state: GameState, number: int, owner: int = GROK, planet: int | None = None, cargo: int = 200,
         **hold: object) -> Ship:
    """Ship ``number`` of ``owner`` at ``planet`` (its home when None) with ``cargo`` cargo units and ``hold``."""
    contents = Cargo()
    for kind, value in hold.items():
        setattr(contents, kind, value)
    made = Ship(number, owner, home(state, owner) if planet is None else planet, cargo_units=cargo, hold=contents)
    state.ships[number] = made
    return made


def ore(**by_type: int) -> list[int]:
    """An ore list from keywords r0=.., r1=.."""
    amounts = [0] * ORE_TYPES
    for key, value in by_type.items():
        amounts[int(key[1:])] = value
    return amounts




def answer(report: Report, written: str, empire: int = GROK) -> str:
    """What the command history says of the one order written ``written``: what was done, or why not."""
    found = [e for e in report.history.get(empire, []) if e.written == written]
    assert len(found) == 1, found
    return found[0].done or f"refused: {found[0].why}"


# The cargo table (l.600-611) ---------------------------------------------------

def test_cargo_table_sizes_and_the_example_sheets_hold_l600():
    assert SIZE == {"ore": 1, "spacemines": 1, "pdus": 2, "industry": 10, "mines": 20}
    for kind, size in SIZE.items():  # the hold's own count agrees with the table
        hold = Cargo()
        if kind == "ore":
            hold.ore[5] = 1
        else:
            setattr(hold, kind, 1)
        assert hold.space() == size == Item(kind, 5 if kind == "ore" else None).size
    # S104 on the example sheet: c=40(16) carrying "R0 4.R1 10.I 1." (l.2195-2197)
    s104 = Ship(104, GROK, 123, cargo_units=40, hold=Cargo(ore=ore(r0=4, r1=10), industry=1))
    assert s104.hold.space() == 24 and s104.free_space() == 16


def test_a_ship_loads_no_more_than_its_empty_cargo_units_hold_c(state):
    ship(state, 123, cargo=10, ore=ore(r0=4))  # a starting ship: 4 fuel in 10 cargo units
    state.planets[home(state)].industry = 70
    after, report = run_turn(state, {GROK: orders("S123L120R2\nS123L1I\n")})
    assert answer(report, "S123L120R2") == "S123L6R2, cut by C: the hold had room for 6"
    assert answer(report, "S123L1I") == "refused: nothing loaded: the hold had room for 0 (C)"
    assert after.ships[123].hold.space() == 10


# Gifting (step 4) ------------------------------------------------------------

def test_gifts_of_a_ship_and_a_planet_the_receiver_is_told_r15(state):
    state.planets[345].owner = GROK
    state.planets[345].standing = "345B1I"
    given_ship = ship(state, 244, ore=ore(r3=7))
    given_ship.standing = "S244L"
    after, report = run_turn(state, {GROK: orders("S244GMASTER\n345GWARLORD\n")})
    assert answer(report, "S244GMASTER") == "ship 244 given to Master"
    assert answer(report, "345GWARLORD") == "planet 345 given to Warlord"
    assert after.ships[244].owner == MASTER and after.ships[244].hold.ore[3] == 7  # the cargo goes with it
    assert after.planets[345].owner == WARLORD
    assert after.ships[244].standing is None and after.planets[345].standing is None  # l.1601
    assert report.seen[MASTER] == ["Grok gave you ship 244"]
    assert report.seen[WARLORD] == ["Grok gave you planet 345"]


def test_two_ships_and_three_planets_a_turn_first_written_a_failed_gift_does_not_count_r15(state):
    for number in (101, 102, 103, 104):
        ship(state, number)
    for number in (341, 342, 343, 344):
        state.planets[number].owner = GROK
    text = "S101GNOBODY\nS102GMASTER\nS103GMASTER\nS104GMASTER\n341GMASTER\n342GNEUTRAL\n343GMASTER\n344GMASTER\n"
    after, report = run_turn(state, {GROK: orders(text)})
    assert answer(report, "S101GNOBODY") == "refused: there is no empire called NOBODY"
    assert [after.ships[n].owner for n in (101, 102, 103, 104)] == [GROK, MASTER, MASTER, GROK]
    assert answer(report, "S104GMASTER") == "refused: gift limit: 2 ships a turn (ruling R-15)"
    assert [after.planets[n].owner for n in (341, 342, 343, 344)] == [MASTER, NEUTRAL, MASTER, GROK]
    assert answer(report, "344GMASTER") == "refused: gift limit: 3 planets a turn (ruling R-15)"
    assert NEUTRAL not in report.seen


def test_no_ship_to_neutral_no_home_planet_nothing_not_yours_nor_to_oneself_r15(state):
    ship(state, 101)
    ship(state, 201, owner=MASTER)
    text = f"S101GNEUTRAL\nS101GGROK\nS201GGROK\n{home(state)}GMASTER\n{home(state, MASTER)}GGROK\n"
    after, report = run_turn(state, {GROK: orders(text)})
    assert answer(report, "S101GNEUTRAL") == "refused: ships cannot be given to NEUTRAL, only planets (ruling R-15)"
    assert answer(report, "S101GGROK") == "refused: ship 101 is already yours"
    assert answer(report, "S201GGROK") == "refused: ship 201 is not yours"
    assert answer(report, f"{home(state)}GMASTER") == "refused: you cannot give away your home planet (l.411)"
    assert answer(report, f"{home(state, MASTER)}GGROK") == f"refused: planet {home(state, MASTER)} is not yours"
    assert after.ships == state.ships and after.planets.keys() == state.planets.keys()
    assert all(after.planets[n].owner == p.owner for n, p in state.planets.items())  # nothing changed hands


def test_a_captured_home_planet_can_be_given_by_its_captor_r15(state):
    captured = home(state, MASTER)
    state.planets[captured].owner = GROK
    after, _report = run_turn(state, {GROK: orders(f"{captured}GWARLORD\n")})
    assert after.planets[captured].owner == WARLORD and after.planets[captured].home_of == MASTER


def test_a_gift_is_the_receivers_for_the_rest_of_the_turn_r5(state):
    ship(state, 244, ore=ore(r2=5))
    gift_and_load = {GROK: orders("S244GMASTER\nS244U5R2\n"), MASTER: orders("S244U3R2\n")}
    _after, report = run_turn(state, gift_and_load)
    assert answer(report, "S244U5R2") == "refused: ship 244 is not yours"
    assert answer(report, "S244U3R2", MASTER) == f"unloaded 3 ore 2 onto planet {home(state)}"
    assert report.seen[GROK] == [f"Master's ship 244 unloaded 3 ore 2 onto your planet {home(state)}"]


# Unloading (step 6) ----------------------------------------------------------

def test_the_manuals_unloading_examples(state):
    ship(state, 276, mines=4)
    ship(state, 234, pdus=3)
    ship(state, 286, industry=2)
    ship(state, 132, ore=ore(r2=42))
    ship(state, 322, spacemines=23)
    ship(state, 309, ore=ore(r0=4, r1=10, r9=5))
    text = "S276U4M3\nS234U3D\nS286U2I\nS132U42R2\nS322U23S\nS309U\n"
    after, report = run_turn(state, {GROK: orders(text)})
    planet, before = after.planets[home(state)], state.planets[home(state)]
    assert planet.mines[3] == before.mines[3] + 4
    assert (planet.pdus, planet.industry, planet.spacemines) == (103, 62, 23)
    assert planet.deployed == 0  # unloaded spacemines go to the stockpile (l.555-557)
    mined = before.mines  # the home planet's mines add their ore at the end of the turn (step 21)
    assert [planet.ore[t] - mined[t] for t in (2, 1, 9, 0)] == [72, 40, 35, 30]
    assert after.ships[309].hold.ore == ore(r0=4)  # the global unload leaves fuel aboard (l.572-574)
    assert answer(report, "S309U") == f"unloaded 10 ore 1, 5 ore 9 onto planet {home(state)}"
    # the history is in the order processed: industry, spacemines, PDUs, ore, mines, global (l.214-215)
    assert [w for w, _, _ in history(report)] == ["S286U2I", "S322U23S", "S234U3D", "S132U42R2", "S276U4M3", "S309U"]


def test_unloading_is_reduced_to_what_the_ship_carries_p1(state):
    ship(state, 286, industry=2, pdus=1)
    after, report = run_turn(state, {GROK: orders("S286U5I\nS286U4D\nS286U1S\nS286U0R1\nS286U\n")})
    assert answer(report, "S286U5I") == "S286U2I, cut by I: the ship carried 2"
    assert answer(report, "S286U4D") == "S286U1D, cut by PDU: the ship carried 1"
    assert answer(report, "S286U1S") == "refused: ship 286 carries no spacemines"
    assert answer(report, "S286U0R1") == "refused: the order asks for none"
    assert answer(report, "S286U") == "refused: no ore to unload (fuel, ore 0, stays aboard)"
    assert after.ships[286].hold.empty()


def test_carried_mines_have_no_type_and_join_a_type_already_there_r23(state):
    ship(state, 306, cargo=60)
    after, _ = run_turn(state, {GROK: orders("S306L2M0\n")})  # loaded as type 0...
    assert after.ships[306].hold.mines == 2 and after.planets[home(state)].mines[0] == 2
    after, report = run_turn(after, {GROK: orders("S306U1M7\nS306U1M8\nS306T1S307M\n")})
    # ...unloaded as type 8; none of type 7 is there to join (HOME_MINES has none)
    assert answer(report, "S306U1M7") == f"refused: planet {home(state)} has no type-7 mine for them to join (ruling R-23)"
    assert answer(report, "S306U1M8") == f"unloaded 1 mine of type 8 onto planet {home(state)}"
    assert after.planets[home(state)].mines[8] == state.planets[home(state)].mines[8] + 1
    assert after.planets[home(state)].mines[7] == 0 and after.ships[306].hold.mines == 1


def test_pdus_unloaded_on_another_empires_planet_are_its_and_it_is_told(state):
    theirs = home(state, MASTER)
    ship(state, 234, planet=theirs, pdus=3, ore=ore(r4=2))
    after, report = run_turn(state, {GROK: orders("S234U3D\nS234U2R4\n")})
    assert after.planets[theirs].pdus == 103 and after.planets[theirs].owner == MASTER
    assert report.seen[MASTER] == [f"Grok's ship 234 unloaded 3 PDUs onto your planet {theirs}",
                                   f"Grok's ship 234 unloaded 2 ore 4 onto your planet {theirs}"]


def test_global_unload_then_load_back_one_type_l576(state):
    """"If you want to unload all except ore type 4 ... do a global unload, and
    then load the ore 4 back onto the ship" (l.576-580)."""
    ship(state, 309, ore=ore(r0=4, r1=10, r4=20, r8=3))
    after, _report = run_turn(state, {GROK: orders("S309L20R4\nS309U\n")})  # as written: load first
    assert after.ships[309].hold.ore == ore(r0=4, r4=20)
    mined = state.planets[home(state)].mines  # and each mine adds its ore at the end of the turn (step 21)
    assert after.planets[home(state)].ore[1] == 40 + mined[1] and after.planets[home(state)].ore[4] == 30 + mined[4]


# Loading (step 7) ------------------------------------------------------------

def test_the_manuals_loading_examples(state):
    for number in (306, 243, 345, 123, 234):
        ship(state, number, cargo=300)
    planet = state.planets[home(state)]
    planet.pdus, planet.industry, planet.spacemines = 150, 70, 40
    text = "S306L10M4\nS243L34D\nS345L3I\nS123L120R2\nS234L34S\n"
    after, report = run_turn(state, {GROK: orders(text)})
    at = home(state)
    assert answer(report, "S306L10M4") == f"S306L2M4, cut by M: planet {at} had 2"
    assert answer(report, "S243L34D") == f"loaded 34 PDUs from planet {at}"
    assert answer(report, "S345L3I") == f"loaded 3 industry from planet {at}"
    assert answer(report, "S123L120R2") == f"S123L30R2, cut by R2: planet {at} had 30"
    assert answer(report, "S234L34S") == f"loaded 34 spacemines from planet {at}"
    ships = after.ships
    assert (ships[306].hold.mines, ships[243].hold.pdus, ships[345].hold.industry) == (2, 34, 3)
    assert (ships[123].hold.ore[2], ships[234].hold.spacemines) == (30, 34)
    home_after = after.planets[at]
    assert (home_after.mines[4], home_after.pdus, home_after.industry, home_after.spacemines) == (0, 116, 67, 6)


def test_loading_mines_needs_a_type_r6():
    (line,) = parse_orders("S306L10M")  # the example move's form (l.2089)
    assert line.order is None and "mine type" in str(line.error)
    assert str(parse_orders("S306L10M4")[0].order) == "S306L10M4"


def test_the_population_keeps_100_pdus_and_60_industry_on_a_home_planet_r20(state):
    ship(state, 243, cargo=500, pdus=10, industry=2)
    after, report = run_turn(state, {GROK: orders("S243L5D\nS243L1I\n")})
    at = home(state)
    assert answer(report, "S243L5D") == f"refused: nothing loaded: planet {at} had 100 and its population keeps 100 (POP, ruling R-20)"
    assert answer(report, "S243L1I") == f"refused: nothing loaded: planet {at} had 60 and its population keeps 60 (POP, ruling R-20)"
    # whoever put them there, what is above the initial level can be loaded (R-20 (b), not a count of PDUs built)
    after, report = run_turn(after, {GROK: orders("S243U10D\nS243U2I\nS243L34D\nS243L5I\n")})
    assert answer(report, "S243L34D") == (f"S243L10D, cut by POP: "
                                          f"planet {at} had 110 and its population keeps 100")
    assert answer(report, "S243L5I").startswith("S243L2I, cut by POP")
    assert (after.planets[at].pdus, after.planets[at].industry) == (100, 60)


def test_loading_is_judged_after_the_turns_gifts_r21(state):
    state.planets[345].owner = GROK
    ship(state, 101, planet=345)
    ship(state, 201, owner=MASTER, planet=345)
    after, report = run_turn(state, {GROK: orders("345GMASTER\nS101L5R1\n"), MASTER: orders("S201L5R1\n")})
    assert answer(report, "S101L5R1") == "refused: planet 345 is not yours, nor an ally's that rates you ALLY (ruling R-17)"
    assert answer(report, "S201L5R1", MASTER).startswith("loaded")
    assert after.ships[201].hold.ore[1] == min(5, state.planets[345].ore[1])


def test_a_captured_home_gives_its_captor_no_home_rights_and_its_empire_none_r22(state):
    captured = home(state, MASTER)
    state.planets[captured].owner = GROK
    ship(state, 101, planet=captured, cargo=500)
    ship(state, 201, owner=MASTER, planet=captured, cargo=500)
    text = "S101L3I\nS101L1M0\nS101L120D\n"
    after, report = run_turn(state, {GROK: orders(text), MASTER: orders("S201L1I\nS201L1M0\n")})
    assert answer(report, "S101L3I") == "refused: industry can be loaded only from your home planet (or an ally's, ruling R-22)"
    assert answer(report, "S101L1M0").startswith("refused: mines can be loaded only from your home planet")
    assert answer(report, "S101L120D") == f"S101L100D, cut by PDU: planet {captured} had 100"
    assert answer(report, "S201L1I", MASTER).startswith("refused: planet")  # not Master's while Grok holds it
    assert after.planets[captured].pdus == 0 and after.planets[captured].industry == 60


def test_an_ally_may_load_from_the_planets_of_the_empire_that_rates_it_ally_r17(state):
    at = home(state, MASTER)
    ship(state, 101, planet=at, cargo=500)
    state.empires[MASTER].ratings[GROK] = AllianceLevel.FRIENDLY
    _, report = run_turn(state, {GROK: orders("S101L5R1\n")})
    assert answer(report, "S101L5R1").startswith("refused: planet")  # friendly is not enough
    state.empires[GROK].ratings[MASTER] = AllianceLevel.ALLY  # Grok's own rating gives Grok nothing (P2)
    _, report = run_turn(state, {GROK: orders("S101L5R1\n")})
    assert answer(report, "S101L5R1").startswith("refused: planet")
    state.empires[MASTER].ratings[GROK] = AllianceLevel.ALLY
    state.planets[at].industry = 61
    after, report = run_turn(state, {GROK: orders("S101L5R1\nS101L5I\nS101L1M0\nS101L(D)\n")})
    assert answer(report, "S101L5R1") == f"loaded 5 ore 1 from planet {at}"
    assert answer(report, "S101L5I").startswith("S101L1I, cut by POP")  # the ally's home floors hold
    assert answer(report, "S101L1M0") == f"loaded 1 mine of type 0 from planet {at}"
    assert after.planets[at].pdus == 100  # the global load's PDUs: none above the floor
    assert report.seen[MASTER][0] == f"Grok's ship 101 loaded 1 industry from your planet {at}"


def test_global_load_priority_list_then_ore_1_to_9_after_all_other_loads_r24(state):
    """``S276L(78D)``: "Load all ore 7, then all ore 8, then PDUs and then load ore from 1 to 9" (l.730)."""
    at = home(state)
    planet = state.planets[at]
    planet.ore, planet.pdus = ore(r0=50, r1=100, r7=5, r8=6), 110
    ship(state, 276, cargo=40)
    ship(state, 123, cargo=40)
    # written first, the global load still runs after every other load of every empire (l.711)
    after, report = run_turn(state, {GROK: orders("S276L(78D)\nS123L50R1\n")})
    assert answer(report, "S276L(78D)") == ("S276L(78D), cut by C: the hold is full; "
                                            f"loaded 5 ore 7, 6 ore 8, 10 PDUs, 9 ore 1 from planet {at}")
    assert after.ships[276].hold.ore == ore(r1=9, r7=5, r8=6) and after.ships[276].hold.pdus == 10
    assert after.ships[123].hold.ore[1] == 40
    assert [w for w, _, _ in history(report)] == ["S123L50R1", "S276L(78D)"]
    # plain L never loads fuel; a listed 0 does, a repeated entry counts once
    planet = after.planets[at]
    planet.ore = ore(r0=50, r2=3)
    ship(after, 277, cargo=100)
    ship(after, 278, cargo=100)
    again, report = run_turn(after, {GROK: orders("S277L\nS278L(202)\n")})
    assert again.ships[277].hold.ore == ore(r2=3)
    assert answer(report, "S278L(202)") == f"loaded 50 ore 0 from planet {at}"


def test_a_global_load_with_an_unknown_item_or_nothing_to_take_is_refused_r24(state):
    ship(state, 276, cargo=40)
    state.planets[home(state)].ore = ore(r0=9)
    _, report = run_turn(state, {GROK: [LoadAll(276, ("7", "X")), *orders("S276L\n")]})
    assert answer(report, "S276L(7X)") == "refused: X in the priority list is not an ore type, D, P or S (ruling R-24)"
    assert answer(report, "S276L") == f"refused: nothing loaded: planet {home(state)} had nothing the order takes"


def test_earths_ore_is_bought_not_loaded_but_a_ship_may_unload_there_l676(state):
    ship(state, 123, planet=state.earth, ore=ore(r3=5))
    after, report = run_turn(state, {GROK: orders("S123L10R2\nS123U5R3\n")})
    assert answer(report, "S123L10R2") == "refused: Earth's ore is bought, not loaded (SxxxPyyRz, l.676-677)"
    assert after.planets[state.earth].ore[3] == state.planets[state.earth].ore[3] + 5  # "onto any planet" (l.483-485)


def test_cargo_unloaded_by_one_ship_is_loaded_by_another_the_same_turn_l597(state):
    ship(state, 101, ore=ore(r5=50))
    ship(state, 102)
    after, _ = run_turn(state, {GROK: orders("S102L80R5\nS101U50R5\n")})
    assert after.ships[102].hold.ore[5] == 80 and after.ships[101].hold.ore[5] == 0


def test_the_example_sheets_ship_s104_unloads_a_mine_as_type_3_and_loads_fuel_l2404(state):
    """The example's command history: ``S104U1M3`` and ``S104L10R0`` carried out as written (l.2404-2405)."""
    ship(state, 104, cargo=30, mines=1)
    after, report = run_turn(state, {GROK: orders("S104U1M3\nS104L10R0\n")})
    assert [done for _, done, _ in history(report)] == [f"unloaded 1 mine of type 3 onto planet {home(state)}",
                                                        f"loaded 10 ore 0 from planet {home(state)}"]
    assert after.ships[104].hold == Cargo(ore=ore(r0=10))


# Tending (step 12) -----------------------------------------------------------

def test_the_manuals_tending_examples(state):
    ship(state, 276, ore=ore(r5=4))
    ship(state, 123, industry=1)
    ship(state, 134, mines=9)
    ship(state, 145, pdus=120, cargo=240)
    ship(state, 100, spacemines=59)
    ship(state, 103, ore=ore(r0=4, r1=10, r9=2))
    for number in (206, 200, 270, 104):
        ship(state, number, cargo=240)
    text = "S276T4S123R5\nS123T1S276I\nS134T9S200M\nS145T120S206D\nS100T59S270S\nS103TS104\n"
    after, report = run_turn(state, {GROK: orders(text)})
    ships = after.ships
    assert ships[123].hold.ore[5] == 4 and ships[276].hold.industry == 1 and ships[200].hold.mines == 9
    assert ships[206].hold.pdus == 120 and ships[270].hold.spacemines == 59
    assert ships[104].hold.ore == ore(r1=10, r9=2) and ships[103].hold.ore == ore(r0=4)  # fuel stays (l.1288)
    assert answer(report, "S103TS104") == "tended 10 ore 1, 2 ore 9 to ship 104"
    assert [w for w, _, _ in history(report)][:3] == ["S123T1S276I", "S100T59S270S", "S145T120S206D"]


def test_global_tend_names_the_receiving_ship_r9():
    (line,) = parse_orders("S103T")  # the Quick Reference's form (l.2870)
    assert line.order is None and "receiving ship" in str(line.error)


def test_tending_to_own_or_to_an_allys_ship_that_rates_you_ally_at_the_same_planet_r51(state):
    ship(state, 101, ore=ore(r1=10), pdus=5)
    ship(state, 201, owner=MASTER, planet=home(state), cargo=6)
    ship(state, 102, planet=home(state, MASTER))
    text = "S101T1S201R1\nS101T1S102R1\nS101T1S101R1\nS101T1S999R1\n"
    _, report = run_turn(state, {GROK: orders(text)})
    assert answer(report, "S101T1S201R1") == "refused: ship 201 is not yours, nor an ally's that rates you ALLY (ruling R-51)"
    assert answer(report, "S101T1S102R1") == f"refused: there is no ship 102 at planet {home(state)}"
    assert answer(report, "S101T1S101R1") == "refused: a ship cannot tend to itself"
    assert answer(report, "S101T1S999R1") == f"refused: there is no ship 999 at planet {home(state)}"
    state.empires[MASTER].ratings[GROK] = AllianceLevel.ALLY
    after, report = run_turn(state, {GROK: orders("S101T10S201R1\nS101T5S201D\n"), MASTER: orders("S201T1S101R1\n")})
    # PDUs (12c) go before ore (12d), whatever the order written
    assert answer(report, "S101T5S201D") == "S101T3S201D, cut by C: ship 201 had room for 3"
    assert answer(report, "S101T10S201R1") == "refused: ship 201 has no room for any (C)"
    assert answer(report, "S201T1S101R1", MASTER).startswith("refused: ship 101 is not yours")  # Grok rates Master NEUTRAL
    assert report.seen[MASTER] == ["Grok's ship 101 tended 3 PDUs to your ship 201"]
    assert after.ships[201].hold.pdus == 3 and after.ships[101].hold.pdus == 2 and after.ships[101].hold.ore[1] == 10


def test_two_ships_tending_to_each_other_are_taken_in_the_rotation_r51(state):
    """The manual leaves it "undefined which will occur first" (l.1274-1277): the turn's rotation decides (R-11)."""
    state.empires[MASTER].ratings[GROK] = AllianceLevel.ALLY
    state.empires[GROK].ratings[MASTER] = AllianceLevel.ALLY
    ship(state, 101, cargo=15, ore=ore(r1=10))
    ship(state, 201, owner=MASTER, planet=home(state), cargo=15, ore=ore(r2=10))
    mutual = {GROK: orders("S101T10S201R1\n"), MASTER: orders("S201T10S101R2\n")}
    after, report = run_turn(state, mutual)  # turn 1: Grok's order first
    assert answer(report, "S101T10S201R1") == "S101T5S201R1, cut by C: ship 201 had room for 5"
    assert answer(report, "S201T10S101R2", MASTER) == "tended 10 ore 2 to ship 101"
    assert (after.ships[101].hold.ore, after.ships[201].hold.ore) == (ore(r1=5, r2=10), ore(r1=5))
    state.turn = 2  # turn 2: Master's first
    after, report = run_turn(state, mutual)
    assert (after.ships[101].hold.ore, after.ships[201].hold.ore) == (ore(r2=5), ore(r1=10, r2=5))


# Properties -------------------------------------------------------------------

HOLDS = st.builds(lambda r, m, i, d, s: Cargo(ore=r, mines=m, industry=i, pdus=d, spacemines=s),
                  st.lists(st.integers(0, 30), min_size=ORE_TYPES, max_size=ORE_TYPES),
                  st.integers(0, 3), st.integers(0, 3), st.integers(0, 40), st.integers(0, 40))
ACTIONS = st.sampled_from(["U{n}I", "U{n}S", "U{n}D", "U{n}R{t}", "U{n}M{t}", "U", "L{n}I", "L{n}S", "L{n}D",
                           "L{n}R{t}", "L{n}M{t}", "L", "L(D{t}S)", "T{n}S{o}I", "T{n}S{o}D", "T{n}S{o}R{t}",
                           "T{n}S{o}M", "TS{o}", "T{n}S{o}S"])
ORDERS = st.lists(st.tuples(st.sampled_from([101, 102, 201]), ACTIONS, st.integers(0, 300), st.integers(0, 9),
                            st.sampled_from([101, 102, 201])), max_size=12)


def totals(state: GameState) -> tuple[int, ...]:
    """Every item on the planets and in the holds, by kind: what these steps may move but never make or destroy."""
    planets, holds = state.planets.values(), [s.hold for s in state.ships.values()]
    return (*[sum(p.ore[t] for p in planets) + sum(h.ore[t] for h in holds) for t in range(ORE_TYPES)],
            sum(sum(p.mines) for p in planets) + sum(h.mines for h in holds),
            sum(p.industry for p in planets) + sum(h.industry for h in holds),
            sum(p.pdus for p in planets) + sum(h.pdus for h in holds),
            sum(p.spacemines for p in planets) + sum(h.spacemines for h in holds))


@pytest.mark.slow  # hypothesis with 150 examples
@settings(max_examples=150, deadline=None)
@given(holds=st.lists(HOLDS, min_size=3, max_size=3), cargo=st.lists(st.integers(0, 400), min_size=3, max_size=3),
       written=ORDERS, ally=st.booleans(), turn=st.integers(1, 9))
def test_cargo_is_moved_never_made_nor_lost_nor_over_the_hold(galaxy_start, holds, cargo, written, ally, turn):
    start = galaxy_start.copy()
    start.ships, start.turn = {}, turn
    for number, owner, hold, units in zip((101, 102, 201), (GROK, GROK, MASTER), holds, cargo):
        start.ships[number] = Ship(number, owner, home(start), cargo_units=max(units, hold.space()), hold=hold)
    if ally:
        start.empires[MASTER].ratings[GROK] = AllianceLevel.ALLY
    mail: dict[int, list[Order]] = {GROK: [], MASTER: []}
    for number, action, n, t, other in written:
        mail[start.ships[number].owner].append(*orders(f"S{number}" + action.format(n=n, t=t, o=other)))
    before = copy.deepcopy(start)
    state, report = start.copy(), Report(turn)
    for phase, function in ((Phase.UNLOADING, unloading), (Phase.LOADING, loading), (Phase.TENDING, tending)):
        function(state, [(e, o) for e in (GROK, MASTER) for o in mail[e] if o.phase == phase], report)
    assert start == before
    assert totals(state) == totals(start)
    for s in state.ships.values():
        assert s.hold.space() <= s.cargo_units
        assert min(s.hold.ore) >= 0 and min(s.hold.mines, s.hold.industry, s.hold.pdus, s.hold.spacemines) >= 0
    planet = state.planets[home(state)]
    assert planet.pdus >= min(100, start.planets[home(start)].pdus)  # loading never goes below the floor
    assert planet.industry >= 60 and min(planet.ore) >= 0 and min(planet.mines) >= 0 and planet.spacemines >= 0
    assert sum(len(v) for v in report.history.values()) == sum(len(v) for v in mail.values())  # each order answered


def test_a_turn_never_changes_the_state_it_was_given(state):
    ship(state, 101, ore=ore(r1=5), mines=1)
    before = copy.deepcopy(state)
    run_turn(state, {GROK: orders("S101U\nS101L\nS101U1M3\nS101L1M3\n")})
    assert state == before


def test_load_mines_of_a_type_outside_0_to_9_is_refused_not_a_crash(state):
    ship(state, 101)
    _, report = run_turn(state, {GROK: [LoadMines(101, 1, 12)]})
    assert answer(report, "S101L1M12") == "refused: there is no mine type 12 (types are 0 to 9)"
