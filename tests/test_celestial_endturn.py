"""The end of the turn (gm/games/celestial_empire/endturn.py: mining,
ownership, score), the end of the game (winning.py) and research (step 1,
research.py), each pinned to its ruling (docs/celestial_empire/rulings.md)
and to the manual's own numbers."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from celestial_small import EARTH, add_ship, small_state
from gm.games.celestial_empire.empire_steps import scans_available
from gm.games.celestial_empire.endturn import income, mining, ownership, planet_income, score
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.orders import AllianceLevel
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.research import is_research_turn, research_all, research_lines
from gm.games.celestial_empire.state import NEUTRAL, Planet, new_game
from gm.games.celestial_empire.steps import END_OF_TURN
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.winning import Conditions, Length, Resource, game_over, winners


def test_the_end_of_turn_steps_are_registered_by_name():
    from gm.games.celestial_empire import steps
    assert steps.endturn and steps.movement
    names = [name for name, _ in END_OF_TURN]
    assert [n for n in names if n in ("mining", "ownership", "score")] == ["mining", "ownership", "score"]


# Income and score (step 24)

def test_a_planet_with_12_mines_and_3_industry_earns_47():
    planet = Planet(1, "x", (), mines=[12, 0, 0, 0, 0, 0, 0, 0, 0, 0], industry=3)
    assert planet_income(planet) == 47  # l.1955


# The example sheet's planet summary (l.2212-2229): mines of types 0-9 per planet, and its "Ships:" row's I 1.
SHEET = {104: "0 0 0 2 0 0 0 0 0 0", 107: "0 0 0 1 0 0 0 0 0 0", 113: "0 0 2 0 0 0 0 0 3 1",
         123: "4 3 3 3 2 1 1 0 5 5", 126: "0 0 0 2 1 0 1 0 0 0", 127: "0 0 0 0 1 0 0 5 0 0",
         152: "2 0 0 0 0 0 0 0 0 0", 250: "0 0 0 1 0 0 0 0 0 0", 290: "0 0 0 0 3 0 0 2 0 0"}


def test_the_example_sheets_income_of_539_counts_carried_industry_r69():
    state = small_state()
    state.planets = {n: Planet(n, "", (), owner=1, mines=[int(m) for m in mines.split()],
                               industry=60 if n == 123 else 0) for n, mines in SHEET.items()}
    ship = add_ship(state, 104, 1, 123, fighters=0, cargo=40)
    ship.hold.industry = 1
    assert income(state, 1) == 539  # "your income=539" (l.2139)
    ship.hold.industry, ship.hold.mines = 0, 1
    assert income(state, 1) == 535  # a carried mine is worth 1


def test_the_research_bonus_is_the_empires_r69():
    state = small_state()
    base = income(state, 1)
    for count, bonus in ((1, 1), (2, 16), (3, 81), (4, 256), (5, 256)):
        for n in (102, 103, 104, 106, EARTH)[:count]:
            state.planets[n].owner, state.planets[n].research = 1, True
        assert income(state, 1) == base + 20 * count + bonus


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 30), st.integers(0, 5)), min_size=1, max_size=8),
       st.integers(0, 3))
def test_score_changes_by_exactly_the_income_r69(owned, carried):
    state = small_state()
    for planet, (kind, mines, industry) in zip((102, 103, 104, 106), owned):
        state.planets[planet].owner = 1 + kind % 3
        state.planets[planet].mines[kind] = mines
        state.planets[planet].industry = industry
    add_ship(state, 500, 2, 101).hold.industry = carried
    before = {e: state.empires[e].score for e in state.empires}
    score(state, Report(state.turn))
    for e in state.empires:
        assert state.empires[e].score - before[e] == income(state, e) > 0


def test_a_whole_turn_adds_each_empires_income_to_its_score():
    state = new_game(generate(7, 3), ["Grok", "Winter", "Master"])
    after, _ = run_turn(state, {})
    for e in after.empires:
        assert after.empires[e].score == state.empires[e].score + income(after, e)


# Mining (step 21)

def test_owned_planets_and_earth_mine_neutral_ones_do_not_r35_r83():
    state = small_state()
    for n in (101, 103, EARTH):
        state.planets[n].mines[4] = 3
    state.planets[101].ore[4] = 10
    mining(state, Report(state.turn))
    assert state.planets[101].ore[4] == 13  # Grok's home
    assert state.planets[103].ore[4] == 0  # NEUTRAL's: "Neutral planets will not produce ore"
    assert state.planets[EARTH].ore[4] == 3  # "Earth, which produces all the time"


def test_mines_that_came_this_turn_produce_and_a_planet_taken_later_did_not_mine_r83():
    state = small_state()
    state.planets[103].mines[2] = 5
    add_ship(state, 500, 1, 103)
    report = Report(state.turn)
    state.planets[101].mines[9] += 2  # built in step 15 of this turn
    mining(state, report)
    ownership(state, report)
    assert state.planets[101].ore[9] == 2
    assert state.planets[103].owner == 1 and state.planets[103].ore[2] == 0


# Change of ownership (step 23)

def test_one_empires_ships_alone_over_an_unarmed_planet_take_it_r63():
    state = small_state()
    add_ship(state, 500, 1, 102)
    add_ship(state, 501, 1, 102)  # a fleet takes it as a scout would
    add_ship(state, 502, 1, 103)
    add_ship(state, 600, 2, 103)  # two empires: unchanged
    state.planets[104].pdus = 1
    add_ship(state, 503, 1, 104)  # armed: unchanged
    add_ship(state, 900, 2, 106, fighters=0, cargo=0)  # an empty hull takes nothing
    add_ship(state, 901, 2, 106, fighters=0, cargo=0, shields=1)  # "Empty Ship" with shields is no hull
    ownership(state, Report(state.turn))
    assert [state.planets[n].owner for n in (102, 103, 104, 106)] == [1, NEUTRAL, NEUTRAL, 2]


def test_allies_ships_do_not_take_a_planet_nor_do_allies_together_r63():
    state = small_state()
    state.empires[3].ratings[1] = AllianceLevel.ALLY  # Master rates Grok ally
    state.planets[105].pdus = 0
    add_ship(state, 500, 1, 105)
    state.empires[1].ratings[2] = state.empires[2].ratings[1] = AllianceLevel.ALLY
    add_ship(state, 501, 1, 103)
    add_ship(state, 600, 2, 103)
    ownership(state, Report(state.turn))
    assert state.planets[105].owner == 3 and state.planets[103].owner == NEUTRAL
    state.empires[3].ratings[1] = AllianceLevel.FRIENDLY  # a friend's ships do take it
    ownership(state, Report(state.turn))
    assert state.planets[105].owner == 1


def test_the_loser_is_not_told_who_took_its_planet_r82():
    state = small_state()
    state.planets[105].pdus = 0
    add_ship(state, 500, 1, 105)
    report = Report(state.turn)
    ownership(state, report)
    assert report.seen[1] == ["Planet 105 liberated from Master"]
    assert report.seen[3] == ["Planet 105 defeated by Space Attack"]
    add_ship(state, 501, 1, 103)
    report = Report(state.turn)
    ownership(state, report)
    assert report.seen == {1: ["Planet 103 liberated from NEUTRAL"]}


def test_planets_change_first_then_hulls_take_their_planets_owner_r64_r65():
    state = small_state()
    add_ship(state, 500, 1, 102)
    add_ship(state, 600, 2, 102, fighters=0, cargo=0).standing = "S600J101"  # Winter's hull
    add_ship(state, 601, 2, 103, fighters=0, cargo=0)  # at a NEUTRAL planet
    add_ship(state, 700, 3, 101, fighters=0, cargo=0)  # Master's hull over Grok's home
    report = Report(state.turn)
    ownership(state, report)
    assert [state.ships[n].owner for n in (600, 601, 700)] == [1, NEUTRAL, 1]
    assert state.ships[600].standing is None
    assert report.seen[1][1:] == ["Ship S600 has been boarded by your space marines",
                                  "Ship S700 has been boarded by your space marines"]
    assert report.seen[2] == ["Ship S600 lost to space pirates", "Ship S601 lost to space pirates"]


def test_a_taken_home_stays_its_empires_home_and_loses_its_standing_order_r22():
    state = small_state()
    state.planets[105].standing = "105=Capital"
    add_ship(state, 500, 1, 105)
    ownership(state, Report(state.turn))
    planet = state.planets[105]
    assert planet.owner == 1 and planet.home_of == 3 and state.empires[3].home == 105
    assert planet.standing is None
    assert scans_available(state, 3) == 0 and scans_available(state, 1) == 1  # no home scan for either


# Winning

def after_turn(state, turn):
    """The state as run_turn returns it after ``turn``."""
    state.turn = turn + 1
    return state


def test_the_default_conditions_are_the_example_sheets():
    assert Conditions().printed() == "Earth Score=30000 Planets=64"  # l.2142


def test_whoever_meets_a_condition_wins_several_at_once_r70():
    state = after_turn(small_state(), 20)
    assert winners(state, Conditions()) == {} and not game_over(state, Conditions())
    state.empires[1].score = 30000
    state.empires[2].score = 29999
    state.empires[3].credits = 2501
    rules = Conditions(credits=2500)
    assert winners(state, rules) == {1: "score 30000", 3: "2501 Earth credits"}
    state.empires[3].credits = 2500  # "more than 2500"
    assert winners(state, rules) == {1: "score 30000"} and game_over(state, rules)
    assert winners(state, Conditions(score=None)) == {}
    for n in (102, 103, 104):
        state.planets[n].owner = 2
    assert winners(state, Conditions(score=None, planets=4)) == {2: "4 planets"}
    assert winners(state, Conditions(score=None, income=80)) == {2: "income 80"}


def test_a_winners_allies_win_with_it_but_not_their_allies_r18():
    state = after_turn(small_state(), 20)
    state.empires[1].score = 30000
    state.empires[1].ratings[2] = AllianceLevel.ALLY
    state.empires[2].ratings[3] = AllianceLevel.ALLY
    state.empires[3].ratings[1] = AllianceLevel.ALLY  # Master's rating of Grok gives Master nothing
    assert winners(state, Conditions()) == {1: "score 30000", 2: "ally of Grok"}


def test_earth_must_be_held_for_a_full_turn_r26():
    state = small_state(turn=20)
    state.planets[EARTH].pdus = 0
    add_ship(state, 500, 1, EARTH)
    ownership(state, Report(20))  # taken in step 23 of turn 20
    assert state.earth_held == (1, 20)
    assert winners(after_turn(state, 20), Conditions()) == {}
    state.turn = 21
    ownership(state, Report(21))  # still Grok's at step 23 of turn 21
    assert winners(after_turn(state, 21), Conditions()) == {1: "held Earth for a full turn"}
    assert winners(state, Conditions(earth=False)) == {}
    state.turn = 21
    add_ship(state, 600, 2, EARTH)
    state.ships.pop(500)  # Grok's ship was destroyed
    ownership(state, Report(21))  # Winter takes it: the count starts again
    assert state.earth_held == (2, 21) and winners(after_turn(state, 21), Conditions()) == {}


def test_a_fixed_game_ends_on_its_turn_and_the_most_wins_ties_shared_r71():
    rules = Conditions(length=Length.FIXED, last_turn=30, resource=Resource.CREDITS)
    state = after_turn(small_state(), 29)
    state.empires[1].credits = state.empires[3].credits = 900
    assert not game_over(state, rules)
    after_turn(state, 30)
    assert game_over(state, rules)
    most = "the most credits (900) after turn 30"
    assert winners(state, rules) == {1: most, 3: most}
    state.empires[1].score = 30000  # a condition met first wins alone
    assert winners(state, rules) == {1: "score 30000"}


def test_a_voted_game_ends_after_the_median_vote_r72():
    rules = Conditions(length=Length.VOTED, last_turn=30)
    state = after_turn(small_state(), 25)
    assert not game_over(state, rules)  # no votes: the starting length
    for e, vote in ((1, 12), (2, 25), (3, 90)):
        state.empires[e].vote = vote
    assert game_over(state, rules) and set(winners(state, rules)) == {1, 2, 3}  # all on score 0


# Research (step 1)

def research_state():
    state = small_state(turn=10)
    for n in (102, 103):
        state.planets[n].owner, state.planets[n].research = 1, True
    state.planets[104].owner = 1
    state.planets[106].owner, state.planets[106].research = 2, True
    return state


def run_research(state, by_empire):
    report = Report(state.turn)
    research_all(state, by_empire, report)
    return report


def test_research_turns_are_10_and_every_4th_after():
    assert [t for t in range(1, 27) if is_research_turn(t)] == [10, 14, 18, 22, 26]


def test_research_orders_are_comments_starting_rp_r67():
    lines = parse_orders(";RP103 EFF S500\nS500J102 ; RP102 IND\n; just a note\n;rp 102 ind\n")
    assert research_lines(lines) == [";RP103 EFF S500", ";RP102 IND", ";rp 102 ind"]


def test_benefits_gm_carries_out_r66():
    state = research_state()
    add_ship(state, 500, 1, 103, efficiency=4)
    before = copy.deepcopy(state)
    report = run_research(state, {1: [";RP103 EFF S500", ";RP102 MINE 7"]})
    assert state.ships[500].efficiency == 5  # "the drives efficiency can exceed 4"
    assert state.planets[102].mines[7] == 1
    assert [e.done for e in report.history[1]] == ["ship 500's drive efficiency is now 5",
                                                   "one mine of type 7 on planet 102"]
    state = copy.deepcopy(before)
    report = run_research(state, {1: [";RP102 PDU 104", ";RP103 LINK 104 101"]})
    assert state.planets[104].pdus == 5 and 101 in state.planets[104].links and 104 in state.planets[101].links
    state = copy.deepcopy(before)
    state.planets[104].ore[1] = 40
    run_research(state, {1: [";RP102 ORE 1 2 104", ";RP103 CARGO S500"]})
    assert state.planets[104].ore[1:3] == [15, 25]  # 25 off the research planet
    assert state.ships[500].cargo_units == 54 and state.ships[500].hold.ore[0] == 4


def test_a_research_benefit_for_a_ship_not_yours_says_so_whether_it_exists_or_not_r5():
    state = research_state()
    add_ship(state, 600, 2, 103)
    report = run_research(state, {1: [";RP102 EFF S600", ";RP103 CARGO S999"]})
    assert [e.why for e in report.history[1]] == ["ship 600 is not yours", "ship 999 is not yours"]


def test_research_reports_go_only_to_the_orderer_r66():
    state = research_state()
    add_ship(state, 600, 2, 106, fighters=0, cargo=40)
    report = run_research(state, {1: [";RP102 SHIPS winter", ";RP103 OWNERS"]})
    assert [e.done for e in report.history[1]] == ["Winter's ships: 1 Large Cargo",
                                                   "planets owned: Grok 4, Winter 2, Master 1, NEUTRAL 1"]
    assert report.seen == {} and 2 not in report.history


def test_what_gm_cannot_read_goes_to_the_operator_r67():
    state = research_state()
    report = run_research(state, {1: [";RP103 Increase efficiency of S100", ";RP102 TELEPORT S1 101 102"]})
    assert report.operator == [(1, "research, turn 10: ;RP103 Increase efficiency of S100"),
                               (1, "research, turn 10: ;RP102 TELEPORT S1 101 102")]
    assert all("passed to the operator" in e.why for e in report.history[1])


def test_research_lines_outside_research_turns_are_only_comments_r67():
    state = research_state()
    state.turn = 11
    report = run_research(state, {1: [";RP102 IND"]})
    assert state.planets[102].industry == 0 and report.history == {}


def test_one_benefit_per_planet_and_only_the_owners_or_an_unused_allys_r68():
    state = research_state()
    report = run_research(state, {1: [";RP102 IND", ";RP102 IND", ";RP106 IND"]})
    assert state.planets[102].industry == 1 and state.planets[106].industry == 0
    assert [e.why for e in report.history[1]][1:] == [
        "research planet 102: already used this turn",
        "research planet 106 is not yours nor an ally's (ruling R-68)"]
    state = research_state()
    state.empires[2].ratings[1] = AllianceLevel.ALLY
    state.empires[1].ratings[2] = AllianceLevel.ALLY
    report = run_research(state, {1: [";RP106 MINE 3"], 2: [";RP106 IND", ";RP102 IND"]})
    assert state.planets[106].mines[3] == 0 and state.planets[106].industry == 1  # the owner first
    assert report.history[1][0].why == "research planet 106: its owner uses it this turn (ruling R-68)"
    assert state.planets[102].industry == 1  # Grok left 102 unused: its ally Winter may use it


def test_research_fuel_tells_nothing_of_the_ship_it_is_aimed_at():
    """Benefit 11 gives fuel to another empire's ship: refused, it answers the
    same whether the ship does not exist or its hold is full, so it cannot
    be used to find ships or read holds."""
    from celestial_small import add_ship

    state = research_state()
    full = add_ship(state, 700, 2, 106, cargo=5)
    full.hold.ore[1] = 5
    assert 777 not in state.ships
    report = run_research(state, {1: [";RP102 FUEL S700", ";RP103 FUEL S777"]})
    whys = [entry.why for entry in report.history[1]]
    assert whys == ["the fuel could not be delivered to ship 700", "the fuel could not be delivered to ship 777"]
