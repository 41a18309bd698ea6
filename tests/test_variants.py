"""The older rules and the optional rules, each difference tested
(docs/variants.md lists them with their clauses)."""

import pytest

from gm.games.spaceships.fleet import SetupError, build_fleet, composition_table
from gm.games.spaceships.game import Game
from gm.games.spaceships.geometry import Cell, Geometry
from gm.games.spaceships.match import Match, MatchTerms
from gm.games.spaceships.notation import parse_setup
from gm.games.spaceships.ruleset import ruleset_named
from gm.games.spaceships.ships import ShipType
from support import FLEET_1, FLEET_2, announced

EARLY = ruleset_named("early")
EARLY_1 = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nHF Bz4 Bz5\n"
EARLY_2 = "DS Yx3-Gy4\nKC Rv1-Rx2\nFS Bv4-Bw5\nMD Ov3 Ow3 Ox3\nHF Gz1 Gz2\n"


def early_game(setup1=EARLY_1, setup2=EARLY_2, ruleset=EARLY):
    return Game.from_setups(setup1, setup2, ruleset)


def problems(text, ruleset, extra=0):
    with pytest.raises(SetupError) as caught:
        build_fleet(parse_setup(text), ruleset, extra)
    return str(caught.value)


# The early ruleset

def test_early_fleet_has_a_heavy_fighter_and_no_scouts_early_3_3():
    assert build_fleet(parse_setup(EARLY_1), EARLY).size == 8 + 6 + 4 + 3 + 2
    assert "the early rules have no light scouts" in problems(EARLY_1.replace("HF Bz4 Bz5", "LS Bz5"), EARLY)
    assert "the fleet needs a heavy fighter [early 3.3]" in problems(EARLY_1.replace("HF Bz4 Bz5\n", ""), EARLY)
    assert "heavy fighters belong to the early rules" in problems(FLEET_1.replace("LS Bz5", "HF Bz4 Bz5"),
                                                                  ruleset_named("2.6.1"))


def test_early_death_star_is_a_cube_only_early_6_1_1():
    flat = EARLY_1.replace("DS Rv1-Ow2", "DS Rv1-Rw4")  # a 4x2 death star: fine in 2.6.1 [6.2]
    assert "a death star is a 2x2x2 cube of cells [early 6.1.1]" in problems(flat, EARLY)


def test_early_has_no_scans():
    game = early_game()
    assert game.entitlement(1).scans == 0
    (rejected,) = game.push("sRv1", "").checks[0].rejected
    assert "no scans in the early rules" in rejected.reason


def test_early_beam_is_five_cells_through_the_death_star_early_6_1_3():
    game = early_game()
    report = game.push("bRv1Rz1", "")  # Rv1..Rz1 passes through our DS at Rv1 and Rw1
    assert [a[2] for a in announced(report)] == ["Rv1", "Rw1", "Rx1", "Ry1", "Rz1"]
    game = early_game()
    (rejected,) = game.push("bGv5Gz5", "").checks[0].rejected  # nowhere near our death star
    assert "does not pass through your death star" in rejected.reason
    game = early_game()
    (rejected,) = game.push("bRv1Rx1", "").checks[0].rejected  # three cells: the 2.6.1 beam
    assert "five adjacent cells" in rejected.reason


def test_early_beam_needs_an_undamaged_death_star_early_6_1_3():
    game = early_game()
    game.push("", "Rv1")
    (rejected,) = game.push("bRv1Rz1", "").checks[0].rejected
    assert "only an undamaged death star" in rejected.reason


def test_early_kamikaze_for_any_ship_without_a_conventional_strike_early_4_4():
    # The destroyer fires its middle missile, which is then struck: a plain hit,
    # leaving Yz1 and Yz3, unfired but not adjacent: no conventional strike.
    game = early_game()
    game.push("mYz2 Rz5", "")
    game.push("", "Yz2")
    entitled = game.entitlement(1)
    assert 3 in entitled.missile_ships and 3 in entitled.kamikaze_ships
    twin = Game.from_setups(FLEET_1, FLEET_2)
    twin.push("mYz2 Rz5", "")
    twin.push("", "Yz2")
    entitled = twin.entitlement(1)  # in 2.6.1 a ship with an unfired missile may not [4.5]
    assert 3 in entitled.missile_ships and 3 not in entitled.kamikaze_ships


def test_early_hits_destroy_at_the_end_of_the_turn_early_5_1_3():
    report = early_game().push("Gz1 Gz1", "")
    assert [a[3] for a in announced(report)] == ["hit", "hit"]  # 2.6.1: hit, duplicate [5.2.4]
    report = Game.from_setups(FLEET_1, FLEET_2).push("Gz1 Gz1", "")
    assert [a[3] for a in announced(report)] == ["hit", "duplicate"]


def test_early_duplicates_are_judged_at_the_start_of_the_turn_early_5_1_4():
    game = early_game()
    game.push("Gz1", "")
    assert [a[3] for a in announced(game.push("Gz1", ""))] == ["duplicate"]


def test_early_kamikaze_cell_is_struck_as_a_hit_early_4_4_3():
    game = early_game()
    game.push("", "Bv1 Bw2")  # the saucer keeps Bv2 and Bw1, on a diagonal
    report = game.push("kBv2 Rz5", "Bv2")
    assert (2, "strike", "Bv2", "hit") in announced(report)  # 2.6.1: a duplicate (ruling a)
    assert game.state.side(1).destroyed & Cell.parse("Bv2").bit


def test_early_explosion_destroys_at_the_end_and_later_strikes_still_hit_early_6_6_3():
    report = early_game().push("", "Yz1 Yz2")
    assert [a[3] for a in announced(report)] == ["explosion", "explosion"]  # Yz2 is still unfired
    report = Game.from_setups(FLEET_1, FLEET_2).push("", "Yz1 Yz2")
    assert [a[3] for a in announced(report)] == ["explosion", "duplicate"]


def test_early_reports_no_destruction_and_no_flashcube():
    report = early_game().push("Gz1 Gz2", "")
    assert not report.destructions
    report = Game.from_setups(EARLY_1.replace("HF Bz4 Bz5", "LS Bz5"), FLEET_2).push("Gz1 Gz2", "")
    assert [str(d.ship) for d in report.destructions] == ["HS Gz1 Gz2"]


def test_early_termination_needs_no_recorded_action_early_2_3_2():
    setup = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nHF Bz4 Bz5\n"
    game = early_game(setup, EARLY_2)
    # Player 2 takes everything but one cell of each of two ships, leaving only kamikazes.
    game.push("", "Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2")
    game.push("", "Gv1 Gv2 Gw1 Gw2 Gx1 Bv1 Bv2 Bw1")
    game.push("", "Yz1 Yz2 Bz4")
    assert game.entitlement(1).only_kamikaze_and_scans
    report = game.push("kGx2 Rz5", "")  # an action: the game goes on
    assert report.result is None
    report = game.push("", "")
    assert report.result is not None and "[early 2.3.2]" in report.result.reason


def test_early_match_carries_cells_not_cost_early_7_2():
    # Two cells carried over: one more heavy fighter (2 cells), not a
    # missile destroyer (3 cells, though the 2.6.1 cost of an MD is 3).
    assert "hold 3 cells, not the 2" in problems(EARLY_1 + "MD Rz3 Rz4 Rz5\n", EARLY, 2)
    assert build_fleet(parse_setup(EARLY_1 + "HF Rz4 Rz5\n"), EARLY, 2).size == 25
    assert "cost 2, not the 3 carried over [10.3]" in problems(FLEET_1 + "AG Rz4 Rz5\n", ruleset_named("2.6.1"), 3)


# The explanation's options

def test_colour_order_changes_adjacency():
    option = ruleset_named("2.6.1+colours=RYGOB")
    fleet = ("DS Bv1 Bv2 Bv3 Bw1 Bw2 Bw3 Bx1 Bx2\nKC Gv3 Gv4 Gv5 Gw3 Gw4 Gw5\n"
             "PC Ov1 Ow1 Ox1 Oy1\nMD Rz1 Yz1 Gz1\nLS Bz5\n")  # the MD is a line only in R-Y-G-O-B
    assert build_fleet(parse_setup(fleet), option).ships[3].type is ShipType.MD
    assert "straight line of adjacent cells" in problems(fleet, ruleset_named("2.6.1"))
    assert Geometry("RYGOB").adjacent(Cell.parse("Rv1"), Cell.parse("Yv1"))


def test_scoring_by_hits_explanation_6_2():
    setup = "FS Rv1-Rw2\nLG Bz5\n"
    scores = {}
    for name in ("2.6.1+fleet=5", "2.6.1+fleet=5+scoring-by-hits"):
        game = Game.from_setups(setup, setup, ruleset_named(name))
        game.push("Rv1 Rv2", "Rz5")  # two hits, and a miss
        report = game.push("Rw1 Rw2 mBz5 Bz5", "Rv1 mBz5 Rv2")  # player 2 is wiped out
        scores[name] = report.result.scores
    assert scores["2.6.1+fleet=5"] == (3, 0)  # remaining materiel [2.3.3]
    assert scores["2.6.1+fleet=5+scoring-by-hits"] == (5, 2)  # hits [explanation 6.2]


def test_scoring_by_hits_counts_strikes_on_kamikaze_cells_explanation_6_2():
    option = ruleset_named("2.6.1+fleet=5+scoring-by-hits")
    setup = "FS Rv1-Rw2\nLG Bz5\n"
    game = Game.from_setups(setup, setup, option)
    game.push("mBz5 Rz5", "Rv1 Rw2")  # player 1's saucer is left on a diagonal, its LG fired
    report = game.push("kRv2 Rv1", "Rv2")  # player 2 strikes the kamikaze cell: a duplicate
    assert (2, "strike", "Rv2", "duplicate") in announced(report)
    assert game.state.side(2).hits == 3  # the two hits, and the strike on the kamikaze cell


def test_hypothetical_hits_decide_a_draw_explanation_6_1():
    setup = "FS Rv1-Rw2\n"
    turns = [("Rv1 Rw2", "Rv1 Rw2"),  # both saucers are left on a diagonal
             ("kRv2 Rw1", "kRw1 Rv2"),  # both kamikaze; one cell each is left
             ("kRw1 Rv2", "kRv2 Rz5")]  # player 1 strikes player 2's kamikaze cell; both fleets are gone
    results = {}
    for name in ("2.6.1+fleet=4", "2.6.1+fleet=4+hypothetical-hits"):
        game = Game.from_setups(setup, setup, ruleset_named(name))
        for orders in turns:
            report = game.push(*orders)
        results[name] = report.result
    plain, option = results["2.6.1+fleet=4"], results["2.6.1+fleet=4+hypothetical-hits"]
    assert plain.scores == option.scores == (0, 0) and plain.ended_after_turn == 3
    assert plain.winner is None
    assert option.tiebreak == (1, 0) and option.winner == 1


def test_composition_tables_explanation_6_3():
    assert [tuple(t.code for t in g) for g in composition_table(5, "one")] == [("FS", "PC"), ("LG",)]
    assert [tuple(t.code for t in g) for g in composition_table(8, "one")] == [("KC",), ("AG",)]
    assert [tuple(t.code for t in g) for g in composition_table(8, "many")] == [("DS",)]
    assert [tuple(t.code for t in g) for g in composition_table(11, "one")] == [("KC",), ("FS", "PC"), ("LG",)]
    assert [tuple(t.code for t in g) for g in composition_table(11, "many")] == [("DS",), ("MD",)]
    option = ruleset_named("2.6.1+composition=one")
    extra = "PC Rz1 Rz2 Rz3 Rz4\nLG Oz5\n"  # 5 carried: FS or PC + LG
    assert build_fleet(parse_setup(FLEET_1 + extra), option, 5).cost == 29
    other = "AG Rz1 Rz2\nMD Oz3 Oz4 Oz5\n"  # also costs 5, but not the table's ships
    assert build_fleet(parse_setup(FLEET_1 + other), ruleset_named("2.6.1"), 5).cost == 29
    assert "by the 'one death star' table" in problems(FLEET_1 + other, option, 5)


def test_cumulative_points_match_explanation_5_1():
    terms = MatchTerms("scored", target=20)  # first to 20 points
    match = Match(terms)
    game = match.start_game(FLEET_1, FLEET_2)
    for a, b in [("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
                 ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"), ("Gz1 Gz2", "Ov1")]:
        game.push(a, b)
    assert not match.over and match.overall_scores == (13, 0)


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="unknown option"):
        ruleset_named("2.6.1+colours=ROYGG")
    with pytest.raises(ValueError, match="no fleets by cost"):
        ruleset_named("early+fleet=24")
    assert "early rules" in EARLY.describe()
    assert "scoring by hits" in ruleset_named("2.6.1+scoring-by-hits").describe()
