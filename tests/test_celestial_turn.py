"""The Celestial Empire turn: the frame every step runs in (`turn.run_turn`)
and the empire's own steps (`empire_steps`), each pinned to the ruling it
follows (docs/celestial_empire/rulings.md)."""

from __future__ import annotations

import copy

import pytest

from celestial_text import history, orders
from gm.games.celestial_empire import orders_empire  # noqa: F401 (defines the rest of the order kinds)
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.orders import AllianceLevel, Order, Phase
from gm.games.celestial_empire.rotation import in_rotation
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.steps import END_OF_TURN, STEPS
from gm.games.celestial_empire.turn import run_turn


@pytest.fixture(scope="module")
def start() -> GameState:
    return new_game(generate(7, 3), ["Grok", "Winter", "Master"])




def test_a_turn_leaves_the_state_it_was_given_unchanged(start):
    before = copy.deepcopy(start)
    ship = start.ships_of(1)[0].number
    after, _ = run_turn(start, {1: orders(f"S{ship}=Black\n+Winter\n")})
    assert start == before and after != before and after.turn == start.turn + 1


def test_every_kind_of_order_has_its_step_and_the_steps_run_in_the_manuals_order_r5():
    def kinds(kind: type[Order]) -> list[type[Order]]:
        return [kind] + [k for sub in kind.__subclasses__() for k in kinds(sub)]
    assert len(kinds(Order)) > 50 and {k.phase for k in kinds(Order)} <= set(STEPS)  # no order left unanswered
    assert list(STEPS) == [*sorted(set(Phase) - {Phase.RESEARCH}), None]  # research (step 1) reads ;RP lines
    assert [name for name, _ in END_OF_TURN] == ["spacemine attacks", "mining", "damage", "ownership", "score",
                                                 "earth market"]


def test_orders_are_taken_empire_by_empire_in_a_rotation_by_turn_r11():
    mailed = {1: ["a"], 2: ["b"], 3: ["c"], 9: ["z"]}
    assert [e for e, _ in in_rotation(1, mailed)] == [1, 2, 3, 9]
    assert [e for e, _ in in_rotation(3, mailed)] == [3, 9, 1, 2]
    assert [e for e, _ in in_rotation(10, mailed)] == [1, 2, 3, 9]  # nine turns make a round


def test_names_own_things_only_and_cut_to_23_characters_r13(start):
    from gm.games.celestial_empire.orders import NameShip
    mine, theirs = start.ships_of(1)[0].number, start.ships_of(2)[0].number
    assert parse_orders(f"S{mine}=The Very Long Name Of A Ship")[0].error is not None  # by mail: refused as written
    after, report = run_turn(start, {1: [NameShip(mine, "The Very Long Name Of A Ship"), *orders(f"S{theirs}=Mine")]})
    assert after.ships[mine].name == "The Very Long Name Of A"  # an order made otherwise than by mail is cut too
    assert history(report)[1] == (f"S{theirs}=Mine", "", f"ship {theirs} is not yours")
    assert after.ships[theirs].name == ""


def test_a_rating_moves_one_level_a_turn_increases_first_r16(start):
    after, report = run_turn(start, {1: orders("-Winter\n+Winter\n+Winter\n+Nobody\n+Grok\n")})
    assert after.empires[1].rating(2) == AllianceLevel.FRIENDLY  # +Winter ran first (step 5a)
    answered = history(report)
    assert [written for written, _, _ in answered] == ["+Winter", "+Winter", "+Nobody", "+Grok", "-Winter"]
    whys = [why for _, _, why in answered]
    assert whys[0] == "" and "one level a turn" in whys[1] and "one level a turn" in whys[4]
    assert "no empire called Nobody" in whys[2] and "yourself" in whys[3]
    after, _ = run_turn(after, {1: orders("+WINTER\n")})  # names in any case
    assert after.empires[1].rating(2) == AllianceLevel.ALLY and after.empires[2].rating(1) == AllianceLevel.NEUTRAL


def test_one_scan_for_the_home_planet_and_a_planet_once_r61(start):
    earth, other = start.earth, next(p for p in start.planets if p != start.earth)
    _, report = run_turn(start, {1: orders(f"SCAN{earth}\nSCAN{earth}\nSCAN{other}\n")})
    assert report.scanned[1] == [earth]
    assert [why for _, _, why in history(report)] == ["", "no scans left: you have 1 this turn"]


def test_a_standing_order_runs_from_the_next_turn_in_its_own_step_every_turn_r62(start):
    home = start.empires[1].home
    after, report = run_turn(start, {1: orders(f"O{home}=Capital\n")})
    assert after.planets[home].name == start.planets[home].name != "Capital"
    assert after.planets[home].standing == f"{home}=Capital"
    after, report = run_turn(after, {})  # no mail from the empire: it runs all the same
    assert after.planets[home].name == "Capital"
    (entry,) = report.history[1]
    assert entry.standing and entry.done
    after, report = run_turn(after, {1: orders(f"X{home}\n")})
    assert report.history[1][0].standing  # it ran once more, this turn, before it was cleared
    assert after.planets[home].standing is None


def test_a_standing_order_is_marked_and_the_same_order_mailed_is_not_r62(start):
    home = start.empires[1].home
    state = copy.deepcopy(start)
    state.planets[home].standing = f"{home}=Capital"
    mailed = orders(f"{home}=Capital\n")
    _, report = run_turn(state, {1: mailed})
    assert [(e.written, e.standing) for e in report.history[1]] == [(f"{home}=Capital", False),
                                                                    (f"{home}=Capital", True)]
    assert not mailed[0].standing  # the mailed order is not changed by the turn


def test_a_standing_order_of_something_else_is_answered_every_turn_r62(start):
    home = start.empires[1].home
    state = copy.deepcopy(start)
    state.planets[home].standing = "SCAN200"
    _, report = run_turn(state, {})
    (entry,) = report.history[1]
    assert entry.standing and "its own ship or planet" in entry.why


def test_the_game_length_vote_is_kept_in_range_and_the_median_rules_r72(start):
    from gm.games.celestial_empire.empire_steps import ending_turn
    after, report = run_turn(start, {1: orders("TURN 5\n"), 2: orders("TURN40\n"), 3: orders("TURN 200\n")})
    assert [e.vote for e in after.empires.values()] == [10, 40, 100]
    assert "votes are 10 to 100" in history(report)[0][1]
    assert ending_turn(after) == 40


def test_messages_reach_only_their_recipients_with_the_senders_name_r80(start):
    mailed = {1: orders("{hello all}\n&winter just you&\n(ALLY friends?)\n"), 2: orders("+Master\n")}
    _after, report = run_turn(start, mailed)
    assert report.messages[2] == ["Grok: hello all", "From Grok: just you"]
    assert report.messages[3] == ["Grok: hello all"]
    assert history(report) == [("(ALLY friends?)", "", "you rate no empire ALLY")]  # messages are not history
