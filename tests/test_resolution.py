"""Resolving a turn: visible aspects and results [5], destruction and flashcube
data [7], [11.7.3], termination [2.3], and the rulings in docs/rulings.md."""

import pytest

from gm.games.spaceships.events import Result
from gm.games.spaceships.resolution import GameOverError
from support import FLEET_1, announced, new_game


def saucer_left_diagonal():
    """A game where player 1's flying saucer keeps only Bv2 and Bw1, so it may
    launch a kamikaze [4.5]; it is turn 2, player 2 reports first."""
    game = new_game()
    game.push("", "Bv1 Bw2")
    assert game.entitlement(1).kamikaze_ships == (2,)
    return game


# Strikes [5.2]

def test_miss_hit_duplicate_5_2():
    report = new_game().push("Rz5 Rv1 Rv1", "")
    assert [a[3] for a in announced(report)] == ["miss", "hit", "duplicate"]


def test_hit_destroys_when_announced_and_later_scan_sees_it_ruling_c_8_3_4_1():
    report = new_game().push("Gz1 sGz1", "")
    assert announced(report) == [(1, "strike", "Gz1", "hit"), (1, "scan", "Gz1", "destroyed")]


def test_scan_results_8_3_4_1():
    report = new_game().push("sGz2", "sRz5")
    assert [a[3] for a in announced(report)] == ["undamaged", "empty"]


# Ruling a: own-action effects before the reveal

def test_strike_on_kamikaze_launch_cell_is_a_duplicate_ruling_a_4_5_3():
    game = saucer_left_diagonal()
    report = game.push("kBv2 Rv1", "Bv2")  # player 2 reports first on turn 2
    assert announced(report)[0] == (2, "strike", "Bv2", "duplicate")
    assert (1, "kamikaze", "Bv2", None) in announced(report)


def test_strike_on_missile_launched_this_turn_is_a_plain_hit_ruling_a_8_1_3_2():
    report = new_game().push("mYz2 Rv1", "Yz2")
    assert (2, "strike", "Yz2", "hit") in announced(report)
    assert all(not a.explosions for a in report.announcements)


# Ruling b: missile explosions

def test_unfired_missile_explodes_with_adjacent_cells_of_its_ship_ruling_b_8_1_4():
    report = new_game().push("", "Yz1")
    (a,) = report.announcements
    assert a.result is Result.EXPLOSION
    assert [str(c) for c in a.explosions] == ["Yz1", "Yz2"]  # target first; Yz3 is not adjacent to Yz1


def test_explosions_do_not_chain_ruling_b():
    game = new_game()
    game.push("", "Yz1")  # Yz2, an unfired missile, is destroyed but does not explode
    side = game.state.side(1)
    assert str(next(iter([c for c in game.state.side(1).fleet.ships[3].cells if not side.destroyed & c.bit]))) == "Yz3"


def test_strike_on_cell_destroyed_by_explosion_is_a_duplicate_ruling_b():
    report = new_game().push("", "Yz1 Yz2")
    assert [a[3] for a in announced(report)] == ["explosion", "duplicate"]


def test_explosion_spares_other_ships_8_1_4_1():
    fleet = FLEET_1.replace("LS Bz5", "LS Gz1")  # Gz1 touches Yz1
    report = new_game(fleet).push("", "Yz1")
    assert [str(c) for c in report.announcements[0].explosions] == ["Yz1", "Yz2"]
    assert not report.destructions


def test_explosion_after_fired_neighbour_8_1_4():
    game = new_game()
    game.push("mYz1 Rv1", "")
    report = game.push("", "Yz2")  # Yz2 unfired: explodes, and destroys the fired Yz1 and Yz3
    assert [str(c) for c in report.announcements[0].explosions] == ["Yz2", "Yz1", "Yz3"]
    assert [str(d.ship) for d in report.destructions] == ["MD Yz1 Yz2 Yz3"]


# Ruling c: the conventional interaction ordering [11.7]

def test_initially_active_alternates_ruling_c_11_7_1():
    game = new_game()
    assert [a[0] for a in announced(game.push("Rz5", "Rz5"))] == [1, 2]
    assert [a[0] for a in announced(game.push("Rz5", "Rz5"))] == [2, 1]
    assert [a[0] for a in announced(game.push("Rz5", "Rz5"))] == [1, 2]


def test_beams_then_strikes_then_scans_then_kamikaze_deaths_11_7_1_1():
    game = saucer_left_diagonal()
    report = game.push("sRz5 kBw1 Rz4 bRv5Rx5 Rz3", "")
    assert [(a[1], a[2]) for a in announced(report)] == [
        ("beam", "Rv5"), ("beam", "Rw5"), ("beam", "Rx5"),
        ("strike", "Rz4"), ("strike", "Rz3"),
        ("scan", "Rz5"),
        ("kamikaze", "Bw1"),
    ]


def test_reporting_order_does_not_change_the_outcome_11_7_2_1():
    from gm.games.spaceships.notation import parse_orders
    from gm.games.spaceships.resolution import resolve_turn
    from gm.games.spaceships.state import GameState
    start = new_game().state
    results = []
    for turn in (2, 3):  # player 2 first, then player 1 first
        state = GameState(start.sides, start.ruleset, turn)
        _, report = resolve_turn(state, parse_orders("Ow3 Ox3 sOw3"), parse_orders("Yz2 Yz3 sYz3"))
        results.append(sorted((a.by, a.kind, str(a.cell), a.result.value) for a in report.announcements))
    assert results[0] == results[1]


# Ruling d: burn-out [8.2.4]

def test_diagonal_beam_burns_out_when_both_ends_hit_ruling_d():
    game = new_game()
    report = game.push("bYx3Bz5", "")  # Yx3 (DS) hit, Gy4 (DS) hit, Bz5 miss: no burn-out
    assert not report.burn_outs
    report = game.push("bYy3Yw5", "")  # (0,-1,1) diagonal: Yy3 hit, Yx4 hit, Yw5 miss
    assert not report.burn_outs
    report = game.push("bGx3Gz1 Gz2", "")  # Gx3 hit, Gy2 miss, Gz1 hit: both ends hit
    assert [(b.player, b.ship) for b in report.burn_outs] == [(1, "DS")]
    assert 0 not in game.entitlement(1).beam_directions
    (rejected,) = game.push("bRv1Rx1", "").checks[0].rejected
    assert "burnt out [8.4]" in rejected.reason


def test_axis_beam_never_burns_out_8_2_4_1():
    report = new_game().push("bRv1Rx1", "")  # all three hit, but along an axis
    assert [a[3] for a in announced(report)] == ["hit", "hit", "hit"]
    assert not report.burn_outs


def test_duplicate_end_does_not_burn_out_ruling_d():
    game = new_game()
    game.push("Gx3", "")
    report = game.push("bGx3Gz1", "")  # Gx3 is a duplicate hit now
    assert [a[3] for a in announced(report)] == ["duplicate", "miss", "hit"]
    assert not report.burn_outs


def test_explosion_at_an_end_counts_as_a_hit_for_burn_out():
    game = new_game()
    report = game.push("bOw3Oy5", "")  # (0,1,1): Ow3 explodes (MD), Ox4 miss, Oy5 miss
    assert not report.burn_outs
    game = new_game()
    report = game.push("bOx3Gz1", "")  # (1,1,-1): Ox3 explodes, Yy2 miss, Gz1 hit (HS)
    assert [a[3] for a in announced(report)] == ["explosion", "miss", "hit"]
    assert report.burn_outs


# Destruction and flashcube data [7], [11.7.3]

def test_destruction_reported_with_the_last_cell_11_7_3():
    report = new_game().push("Gz2 Gz1 Rz5", "")
    assert [bool(a.destroyed) for a in report.announcements] == [False, True, False]
    (d,) = report.destructions
    assert (d.owner, d.ship.type.code, [str(c) for c in d.ship.cells]) == (2, "HS", ["Gz1", "Gz2"])


def test_flashcube_data_7_2():
    report = new_game().push("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2", "Rw1")
    (d,) = report.destructions
    # Player 1 reports its own cells at Player 2's kill cruiser: the death star
    # at Rv1 Rv2 Rw1 Rw2, its Rw1 not yet struck when player 1 reports first.
    assert [str(f) for f in d.flashcube] == [
        "Rv1 DS undamaged", "Rv2 DS undamaged", "Rw1 DS undamaged", "Rw2 DS undamaged", "Rx1 empty", "Rx2 empty",
    ]


def test_flashcube_shows_destroyed_cells_at_report_time_7_2_2():
    game = new_game()
    game.push("", "Rw1")
    report = game.push("Rv1 Rv2 Rw1 Rw2 Rx1 Rx2", "")
    assert "Rw1 DS destroyed" in [str(f) for f in report.destructions[0].flashcube]


def test_kamikaze_that_destroys_its_ship_is_reported_with_the_death_11_7_3():
    game = saucer_left_diagonal()
    game.push("", "Bv2")
    report = game.push("kBw1 Rz5", "")
    death = next(a for a in report.announcements if a.kind == "kamikaze")
    assert [str(d.ship) for d in death.destroyed] == ["FS Bv1 Bv2 Bw1 Bw2"]


# Termination [2.3]

def test_game_ends_when_a_side_has_no_ships_2_3_1():
    game = new_game()
    game.push("Yx3 Yx4 Yy3 Yy4 Gx3 Gx4 Gy3", "")
    game.push("Gy4 Rv1 Rv2 Rw1 Rw2 Rx1 Rx2", "")
    game.push("Rx1 Rx2 Bv5 Bw5 Bx5 By5 Ov3", "")  # MD explodes from Ov3: Ow3 goes too
    assert game.result is None
    report = game.push("Ox3 Gz1 Gz2", "Rv1")
    assert report.result is not None and "[2.3.1]" in report.result.reason
    assert report.result.scores == (21, 0) and report.result.winner == 1
    with pytest.raises(GameOverError):
        game.push("", "")


def test_mutual_destruction_is_a_draw_2_3_4():
    game = new_game("LG Rv1\n", "LG Rv1\n",
                    ruleset=__import__("gm.games.spaceships.ruleset").games.spaceships.ruleset.ruleset_named(
                        "2.6.1+fleet=1"))
    report = game.push("mRv1 Rv1", "mRv1 Rv1")
    assert report.result.scores == (0, 0) and report.result.winner is None


def test_no_orders_means_no_actions_ruling_e():
    game = new_game()
    for _ in range(5):
        report = game.push("", "")
    assert game.result is None and not report.announcements


def test_only_kamikaze_and_scans_ends_the_game_2_3_2():
    ruleset = __import__("gm.games.spaceships.ruleset").games.spaceships.ruleset.ruleset_named("2.6.1+fleet=5")
    setup = "FS Rv1-Rw2\nLG Bz5\n"
    game = new_game(setup, setup, ruleset=ruleset)
    game.push("mBz5 Gz5", "Rv1 Rw2")  # player 2 leaves player 1's saucer on a diagonal
    assert game.entitlement(1).only_kamikaze_and_scans
    report = game.push("", "Rz5")
    assert report.result is not None and "player 1" in report.result.reason and "[2.3.2]" in report.result.reason
    assert report.result.scores == (3, 5)  # Bz5 fired is still undamaged


def test_kamikaze_keeps_the_game_going_2_3_2():
    ruleset = __import__("gm.games.spaceships.ruleset").games.spaceships.ruleset.ruleset_named("2.6.1+fleet=5")
    setup = "FS Rv1-Rw2\nLG Bz5\n"
    game = new_game(setup, setup, ruleset=ruleset)
    game.push("mBz5 Gz5", "Rv1 Rw2")
    report = game.push("kRv2 Rz5", "Rz5")
    assert report.result is None


def test_rejected_orders_are_no_actions_for_2_3_2():
    ruleset = __import__("gm.games.spaceships.ruleset").games.spaceships.ruleset.ruleset_named("2.6.1+fleet=5")
    setup = "FS Rv1-Rw2\nLG Bz5\n"
    game = new_game(setup, setup, ruleset=ruleset)
    game.push("mBz5 Gz5", "Rv1 Rw2")
    report = game.push("Rz5 kRv1", "Rz5")  # no strike entitled; kRv1 is destroyed
    assert len(report.checks[0].rejected) == 2
    assert report.result is not None and "[2.3.2]" in report.result.reason


def test_score_is_remaining_materiel_2_3_3():
    game = new_game()
    game.push("Rv1", "Rv1 Rv2 Bz5")
    assert game.state.side(1).remaining_materiel == 22 - 3
    assert game.state.side(2).remaining_materiel == 23 - 1


def test_duplicate_on_a_kamikaze_cell_does_not_carry_the_destruction_11_7_3():
    game = saucer_left_diagonal()
    game.push("", "Bv2")  # turn 2; the saucer keeps only Bw1
    game.push("", "")  # turn 3, so that player 2 reports first in turn 4
    report = game.push("kBw1 Rz5", "Bw1")
    duplicate, = [a for a in report.announcements if a.by == 2]
    assert duplicate.result is Result.DUPLICATE and not duplicate.destroyed
    death, = [a for a in report.announcements if a.kind == "kamikaze"]
    assert [str(d.ship) for d in death.destroyed] == ["FS Bv1 Bv2 Bw1 Bw2"]
