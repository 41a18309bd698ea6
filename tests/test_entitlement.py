"""What a fleet entitles its player to each turn [4.4], [4.5], [6.2.4], [8]."""

from gm.games.spaceships.geometry import STANDARD, mask_of
from gm.games.spaceships.state import max_matching
from support import FLEET_1, cells, new_game


def test_conventional_strikes_are_a_maximum_matching_4_4_1():
    assert max_matching(mask_of(cells("Rv1 Rv2 Rv3 Rw1 Rw2 Rw3")), STANDARD) == 3  # kill cruiser
    assert max_matching(mask_of(cells("Rv1 Rv2 Rv3")), STANDARD) == 1  # three in a line
    assert max_matching(mask_of(cells("Rv1 Rv2 Rv3 Rv4")), STANDARD) == 2
    assert max_matching(mask_of(cells("Rv1 Rw2")), STANDARD) == 0  # diagonal: not adjacent
    # A greedy pairing of Rw2-Rv2 first would leave Rv1 and Rv3 unpaired: 1, not 2.
    assert max_matching(mask_of(cells("Rv1 Rv2 Rv3 Rw2")), STANDARD) == 1 + 0
    assert max_matching(mask_of(cells("Rv1 Rv2 Rw2 Rw3")), STANDARD) == 2


def test_standard_fleet_at_the_start():
    e = new_game().entitlement(1)
    # DS 1 [6.2.4] + KC 3 + FS 2 + MD 1 (+ LS 0)
    assert e.conventional == 7
    assert e.conventional_by_ship == (1, 3, 2, 1, 0)
    assert e.missile_ships == (3,)  # [8.1.3]
    assert e.kamikaze_ships == ()  # the LS never [6.8.2]; the others strike
    assert set(e.beam_directions) == {0}
    assert len(e.beam_directions[0]) == 13  # a whole cube has pairs in all 13 directions
    assert e.scans == 1  # [8.3.1.2]


def test_death_star_strikes_once_until_destroyed_6_2_4():
    game = new_game()
    game.push("", "Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1")  # seven of the death star's eight cells
    e = game.entitlement(1)
    assert e.conventional_by_ship[0] == 1
    assert 0 not in e.beam_directions  # one undamaged cell: no firing pair [8.2.2]
    game.push("", "Ow2")
    assert game.entitlement(1).conventional_by_ship[0] == 0


def test_firing_pairs_limit_beam_directions_8_2_2():
    game = new_game()
    # Leave the death star Rv2 and Ov1 only: loosely adjacent along (1, 0, -1).
    game.push("", "Rv1 Rw1 Rw2 Ov2 Ow1 Ow2")
    assert game.entitlement(1).beam_directions == {0: frozenset({(1, 0, -1)})}


def test_kamikaze_for_ships_with_neither_strike_nor_missile_4_5():
    game = new_game()
    game.push("", "Bv1 Bw2")  # the flying saucer keeps Bv2 and Bw1: diagonal, no pair
    e = game.entitlement(1)
    assert e.conventional_by_ship[2] == 0
    assert e.kamikaze_ships == (2,)


def test_missile_destroyer_with_fired_missiles_may_kamikaze_4_5():
    game = new_game()
    game.push("mYz1 Rv1", "Yz2")  # Yz2 explodes: Yz1 was fired, Yz3 unfired; both adjacent -> all destroyed
    assert 3 not in game.entitlement(1).missile_ships
    game = new_game()
    game.push("mYz1 Rv1", "")
    game.push("mYz3 Rv1", "")
    game.push("mYz2 Rv1", "")
    e = game.entitlement(1)
    assert 3 not in e.missile_ships and e.conventional_by_ship[3] == 1 and 3 not in e.kamikaze_ships
    game.push("", "Yz2")  # a fired missile is no missile: no explosion; the ends are not adjacent
    e = game.entitlement(1)
    assert e.conventional_by_ship[3] == 0 and e.kamikaze_ships == (3,)


def test_light_scout_never_kamikaze_6_8_2():
    game = new_game()
    e = game.entitlement(1)
    assert 4 not in e.kamikaze_ships and e.conventional_by_ship[4] == 0


def test_scans_follow_cells_lost_last_turn_8_3_1():
    game = new_game()
    assert game.entitlement(2).scans == 1  # first turn
    game.push("Rv1 Rv2 Rw1", "")
    assert game.entitlement(2).scans == 3  # [8.3.1.1]
    game.push("", "")
    assert game.entitlement(2).scans == 1  # [8.3.1.2] at least one


def test_several_scanners_scan_as_one_8_3_1_3():
    from gm.games.spaceships.ruleset import ruleset_named
    setup = "DS Rv1-Ow2\nLS Bz5\nLS Bz3\nHS Gz1 Gz2\nAG Yz1 Yz2\nLG Yv5\nLG Yw5\nLG Yx5\nLG Yy5\nLG Yz5\n"
    game = new_game(setup, FLEET_1, ruleset=ruleset_named("2.6.1+fleet=24"))
    assert game.entitlement(1).scans == 1


def test_no_scans_without_an_undestroyed_scanner_8_3_2():
    game = new_game()
    game.push("", "Bz5")
    assert game.entitlement(1).scans == 0
