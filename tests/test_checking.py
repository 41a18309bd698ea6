"""Accepting or rejecting each order, with the rule as the reason."""

from gm.games.spaceships.checking import Accepted, Rejected
from gm.games.spaceships.ruleset import ruleset_named
from support import new_game


def outcomes(game, player, text):
    report = game.push(text, "") if player == 1 else game.push("", text)
    return report.checks[player - 1].outcomes


def reasons(game, player, text):
    return [o.reason for o in outcomes(game, player, text) if isinstance(o, Rejected)]


def test_all_legal_orders_accepted():
    result = outcomes(new_game(), 1, "bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1")
    assert all(isinstance(o, Accepted) for o in result)


def test_too_many_strikes_rejected_from_the_end_4_4_1():
    result = outcomes(new_game(), 1, "Rv1 Rv2 Rv3 Rv4 Rv5 Rw1 Rw2 Rw3 Rw4")  # 7 conventional
    assert [type(o).__name__ for o in result] == ["Accepted"] * 7 + ["Rejected"] * 2
    assert "too many strikes: 7 allowed" in result[-1].reason and "[4.4.1]" in result[-1].reason


def test_missile_launch_adds_a_strike_11_5_3():
    result = outcomes(new_game(), 1, "Rv1 Rv2 Rv3 Rv4 Rv5 Rw1 Rw2 Rw3 mYz2")
    assert all(isinstance(o, Accepted) for o in result)
    assert result[-1].executed == "missile launched from Yz2 (MD)"


def test_rejected_missile_does_not_add_a_strike():
    result = outcomes(new_game(), 1, "mRv1 Rv1 Rv2 Rv3 Rv4 Rv5 Rw1 Rw2 Rw3")
    assert "no unfired missile of yours matches Rv1" in result[0].reason
    assert isinstance(result[-1], Rejected) and "too many strikes" in result[-1].reason
    assert sum(isinstance(o, Accepted) for o in result) == 7


def test_ambiguous_missile_lists_the_candidates_11_5_3():
    (reason,) = reasons(new_game(), 1, "mz Rv1")
    assert "mz is ambiguous" in reason
    assert "Yz1 (MD), Yz2 (MD), Yz3 (MD)" in reason


def test_missile_selectors_one_to_three_coordinates_11_5_3():
    for selector, cell in (("m2", "Yz2"), ("mYz3", "Yz3"), ("m1", "Yz1"), ("mY3", "Yz3")):
        result = outcomes(new_game(), 1, f"{selector} Rv1")
        assert result[0].cells[0].__str__() == cell


def test_one_missile_per_ship_per_turn_8_1_3():
    (reason,) = reasons(new_game(), 1, "m1 m2 Rv1 Rv2")
    assert "already launched a missile this turn" in reason and "[8.1.3]" in reason


def test_fired_missile_cannot_launch_again_8_1_3_1():
    game = new_game()
    game.push("m1 Rv1", "")
    (reason,) = reasons(game, 1, "m1")
    assert "no unfired missile" in reason


def test_kamikaze_from_a_ship_with_a_conventional_strike_4_5():
    (reason,) = reasons(new_game(), 1, "kBv1 Rv1")
    assert "FS still entitles you to a conventional strike [4.4.1]" in reason and "[4.5]" in reason


def test_kamikaze_from_light_scout_6_8_2():
    (reason,) = reasons(new_game(), 1, "kBz5")
    assert "[6.8.2]" in reason


def test_kamikaze_from_empty_or_destroyed_cell_4_5_2():
    game = new_game()
    game.push("", "Bv1 Bw2")
    assert "not part of any of your ships" in reasons(game, 1, "kRz5")[0]
    game = new_game()
    game.push("", "Bv1 Bw2")
    assert "is destroyed" in reasons(game, 1, "kBv1")[0]


def test_kamikaze_accepted_once_per_ship_4_5():
    game = new_game()
    game.push("", "Bv1 Bw2")
    result = outcomes(game, 1, "kBv2 kBw1 Rv1 Rv2")
    assert isinstance(result[0], Accepted) and isinstance(result[1], Rejected)
    assert "already launched a kamikaze" in result[1].reason


def test_beam_end_cells_must_be_two_steps_apart_on_a_line_8_2_1():
    for beam in ("bRv1Rv2", "bRv1Rw3", "bRv1Rv4", "bRv1Rv1"):
        (reason,) = reasons(new_game(), 1, beam)
        assert "not two steps apart on a straight line [8.2.1]" in reason


def test_beam_needs_a_parallel_firing_pair_8_2_2():
    game = new_game()
    game.push("", "Rv1 Rw1 Rw2 Ov2 Ow1 Ow2")  # leaves Rv2 and Ov1: direction (1, 0, -1)
    assert "parallel" in reasons(game, 1, "bRv1Rv3")[0]
    game = new_game()
    game.push("", "Rv1 Rw1 Rw2 Ov2 Ow1 Ow2")
    assert reasons(game, 1, "bRv3Yv1") == []  # parallel to Rv2-Ov1
    game = new_game()
    game.push("", "Rv1 Rw1 Rw2 Ov2 Ow1 Ow2")
    assert reasons(game, 1, "bYv1Rv3") == []  # the other sense of the same line


def test_one_beam_per_beam_weapon_8_2():
    (reason,) = reasons(new_game(), 1, "bRv1Rx1 bRv2Rx2")
    assert "already fired its beam this turn" in reason


def test_beam_needs_a_ship_name_when_several_could_fire_8_2_3_1():
    setup = "DS Rv1-Ow2\nDS Gv1-Bw2\nLS Bz5\nAG Yz4 Yz5\nLG Rz5\nLG Oz5\nLG Yz1\n"
    ruleset = ruleset_named("2.6.1+fleet=24")
    game = new_game(setup, setup, ruleset=ruleset)
    (reason,) = reasons(game, 1, "bRv1Rx1")
    assert "several ships could fire this beam (DS1, DS2)" in reason and "[8.2.3.1]" in reason
    game = new_game(setup, setup, ruleset=ruleset)
    result = outcomes(game, 1, "bRv1Rx1(DS2) bRv1Rx1")
    assert result[0].executed.startswith("beam from DS2")
    assert result[1].executed.startswith("beam from DS1")  # DS2 has fired: only DS1 could
    game = new_game(setup, setup, ruleset=ruleset)
    assert "no ship DS3" in reasons(game, 1, "bRv1Rx1(DS3)")[0]
    game = new_game(setup, setup, ruleset=ruleset)
    assert "has no beam weapon" in reasons(game, 1, "bRv1Rx1(AG)")[0]


def test_scans_8_3_1():
    (reason,) = reasons(new_game(), 1, "sRv1 sRv2")
    assert "only 1 scan allowed this turn [8.3.1]" in reason
    game = new_game()
    game.push("", "Bz5")
    assert "no undestroyed scanner" in reasons(game, 1, "sRv1")[0]


def test_accepted_orders_run_when_others_are_rejected():
    game = new_game()
    report = game.push("bRv1Rv2 Rv1 kBv1", "")
    assert [a.cell.__str__() for a in report.announcements] == ["Rv1"]
    assert len(report.checks[0].rejected) == 2


def test_orders_keep_the_order_written():
    result = outcomes(new_game(), 1, "Rv1 sGz1 mYz1 Rv2")
    assert [str(o.order) for o in result] == ["Rv1", "sGz1", "mYz1", "Rv2"]


def test_every_launch_needs_its_strike_8_1_3_1_4_5_1():
    (reason,) = reasons(new_game(), 1, "mYz1")
    assert "missile launch [8.1.3.1], [11.5.3] needs its target" in reason
    saucer_game = new_game()
    saucer_game.push("", "Bv1 Bw2")
    result = outcomes(saucer_game, 1, "kBv2 mYz1 Rz5")  # one strike for two launches
    assert isinstance(result[0], Accepted)
    assert isinstance(result[1], Rejected) and "needs its target" in result[1].reason
    assert isinstance(result[2], Accepted)


def test_launch_without_target_has_no_effect():
    game = new_game()
    game.push("mYz1", "")
    assert game.state.side(1).fired == 0
