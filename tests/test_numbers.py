"""A number too large to read, in every game's notation and readers (issue 21,
row 6): Python's int() reads at most 4,300 digits from text and raised a
ValueError beyond, which no reader expected, so one long number failed a
whole mail or a whole turn. Each place a game reads a number from what a
player writes now answers "number too large" where it answers any other
slip there (`gm.games.numbers`), and a number of 4,300 digits still reads."""

from __future__ import annotations

import pytest

from celestial_small import small_state
from gm.games.celestial_empire.notation import parse_order, parse_orders
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.research import research_all
from gm.games.celestial_empire.variants import variant_named
from gm.games.gridfighters.notation import parse_moves, parse_setup
from gm.games.gridfighters.variants import variant_named as gridfighters_variant
from gm.games.numbers import MAX_DIGITS, whole_number
from gm.games.spaceships.mail import Spaceships
from gm.games.spaceships.notation import parse_orders as spaceships_orders
from gm.games.spaceships.notation import parse_setup as spaceships_setup
from gm.games.spaceships.ruleset import ruleset_named
from gm.kernel.errors import NotationError

HUGE = "9" * 5000
"""More digits than Python's int() reads from text."""


def test_a_number_reads_up_to_the_limit_and_not_beyond():
    assert whole_number("9" * MAX_DIGITS) == int("9" * MAX_DIGITS) and whole_number(HUGE) is None
    assert whole_number("0" * 4999 + "7") is None  # leading zeros count, as they do for int()
    assert whole_number("\u0663") == 3  # any script's decimal digit, as int() reads it
    assert whole_number("\u00b2") is None and whole_number("") is None and whole_number("-1") is None


# Celestial Empire

def test_a_celestial_order_with_a_huge_number_is_answered_on_its_line_and_the_others_stand():
    lines = parse_orders(f"S123=Arrow\nS123L{HUGE}R1\nS124L1R{HUGE}\nTURN{HUGE}\nS125J120\n")
    assert [line.order is not None for line in lines] == [True, False, False, False, True]
    errors = [line.error for line in lines if line.error is not None]
    assert [(error.line, error.column) for error in errors] == [(2, 6), (3, 8), (4, 5)]
    assert all(str(error).startswith(f"line {error.line}, column {error.column}: unexpected number too large "
                                      "(5000 digits); expected a number of at most 4300 digits")
               for error in errors)


def test_a_celestial_order_of_4300_digits_still_reads():
    assert parse_order(f"S123L{'9' * MAX_DIGITS}R1").amount == int("9" * MAX_DIGITS)


def test_a_research_line_with_a_huge_number_or_a_superscript_is_refused_not_a_failed_turn():
    state = small_state(turn=10)
    state.planets[102].owner, state.planets[102].research = 1, True
    report = Report(state.turn)
    research_all(state, {1: [f";RP{HUGE} IND", f";RP102 PDU {HUGE}", ";RP102 MINE \u00b2", ";RP102 PDU \u00b2"]},
                 report)
    assert [entry.why for entry in report.history[1]] == [  # the lines of its own planets first
        "number too large for a planet (5000 digits)",
        "an ore or mine type is one digit, 0 to 9, not \u00b2",
        "a planet should be a number, not \u00b2",
        f"planet {HUGE} is not a research planet"]


def test_a_celestial_variant_with_a_huge_number_says_so():
    with pytest.raises(ValueError, match=r"^turns= takes a whole number: number too large \(5000 digits\)$"):
        variant_named(f"standard+turns={HUGE}")
    with pytest.raises(ValueError, match=r"^score= takes a whole number, not '\u00b2'$"):
        variant_named("standard+score=\u00b2")


# Grid Fighters

@pytest.mark.parametrize("text", [f"Z2 E{HUGE}-A2\n", f"Z2 E2-A{HUGE}\n"])
def test_a_grid_fighters_move_with_a_huge_column_is_a_notation_error(text):
    with pytest.raises(NotationError, match=r"columns run from 1 to 10 \(number too large\)$"):
        parse_moves(text)


def test_a_grid_fighters_placement_with_a_huge_column_is_a_notation_error():
    with pytest.raises(NotationError, match=r"^line 1, column 4: .*number too large"):
        parse_setup(f"Z2 E{HUGE}\n")


def test_a_grid_fighters_variant_with_a_huge_number_is_an_unknown_option():
    with pytest.raises(ValueError, match=r"^unknown option 'quiet=9+' for Grid Fighters variant standard"):
        gridfighters_variant(f"standard+quiet={HUGE}")


# Spaceships

def test_spaceships_notation_has_no_unbounded_number():
    """Its grammar bounds every number's digits (a ship's identity 3, a turn's 6)."""
    for read, text in ((spaceships_orders, f"Rv{HUGE}\n"), (spaceships_orders, f"m{HUGE}\n"),
                       (spaceships_setup, f"KC{HUGE} Rv1\n")):
        with pytest.raises(NotationError, match=r"^line 1, column 1: unexpected"):
            read(text)


def test_a_spaceships_ruleset_with_a_huge_fleet_cost_is_an_unknown_option():
    with pytest.raises(ValueError, match=r"^unknown option 'fleet=9+' for ruleset 2.6.1"):
        ruleset_named(f"2.6.1+fleet={HUGE}")


def test_a_spaceships_challenge_for_a_match_of_a_huge_number_of_games_says_so():
    with pytest.raises(ValueError, match=r"^bad match terms: number too large$"):
        Spaceships().challenge_terms(f"match scored {HUGE}\n")
