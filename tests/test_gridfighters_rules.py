"""Grid Fighters rules: movement, collisions, setups, the move procedure and
each ruling of ``docs/gridfighters/rulings.md``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gm.games.gridfighters import (
    PIECES,
    Grid,
    IllegalMove,
    SetupError,
    Square,
    collide,
    kind,
    parse_move,
    path,
    pieces_for,
    variant_named,
)
from gm.games.gridfighters.game import Piece

S = Square.parse
SETUP1 = ("H A5, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10, W D8, B D9, X1 C2, X2 D10, "
          "Y1 E8, Y2 E9, Z1 E1, Z2 E5, Z3 E6, Z4 E7")
SETUP2 = ("H J5, A1 J8, A2 J9, A3 J10, A4 I8, A5 I9, A6 I10, A7 H10, W G8, B G9, X1 H2, X2 G10, "
          "Y1 G6, Y2 F8, Z1 F1, Z2 F2, Z3 F3, Z4 F4")


def play(grid: Grid, *moves: str):
    """Push each move for whoever is to move; return the grid and the reports."""
    reports = []
    for text in moves:
        grid, report = grid.push(grid.to_move, parse_move(text))
        reports.append(report)
    return grid, reports


def squares(*names: str) -> tuple[Square, ...]:
    return tuple(S(n) for n in names)


def only(grid: Grid, player: int, keep: set[str]) -> Grid:
    """The same game with every piece of ``player`` not in ``keep`` destroyed (a test position)."""
    sides = [dict(grid.pieces[0]), dict(grid.pieces[1])]
    for name, piece in sides[player - 1].items():
        if name not in keep:
            sides[player - 1][name] = replace(piece, destroyed=0)
    return replace(grid, pieces=(sides[0], sides[1]))


# The board

def test_pieces_and_kinds():
    assert len(PIECES) == 18 and len(set(PIECES)) == 18
    assert [kind(p) for p in PIECES].count("A") == 7 and [kind(p) for p in PIECES].count("Z") == 4
    assert len(pieces_for(3)) == 20 and "H" not in pieces_for(3) and "H2" in pieces_for(3)


def test_collisions_by_strength():
    assert collide("X", "Y") == (False, True)   # stronger destroys weaker
    assert collide("Y", "Z") == (False, True)
    assert collide("W", "B") == (False, True)
    assert collide("Z", "Z") == (True, True)    # equal kinds both destroyed
    assert collide("A", "W") == (True, True)    # asteroids destroy and are destroyed by everything
    assert collide("Z", "A") == (True, True)
    assert collide("Z", "H") == (False, True)   # the home planet is the weakest


def test_paths_of_each_kind():
    assert path("X", S("E2"), S("A2")) == squares("D2", "C2", "B2", "A2")
    assert path("X", S("E2"), S("D3")) is None
    assert path("Y", S("D3"), S("B1")) == squares("C2", "B1")
    assert path("Y", S("D3"), S("D5")) is None
    assert path("Z", S("A1"), S("J10")) == tuple(S(f"{r}{i}") for i, r in enumerate("BCDEFGHIJ", 2))
    assert path("Z", S("E2"), S("E2")) is None
    assert path("A", S("E2"), S("E3")) is None and path("H", S("E2"), S("E3")) is None


def test_knight_path_is_its_landing_square_ruling_1():
    assert path("W", S("E1"), S("G2")) == (S("G2"),)
    assert path("W", S("E1"), S("F1")) is None
    # it jumps over its own asteroids
    grid = Grid.start(SETUP1.replace("A4 B8", "A4 D7").replace("A5 B9", "A5 C8"), SETUP2)
    assert grid.check(1, parse_move("W D8-C6")) is None


def test_b_and_z_both_move_any_distance_like_queens_ruling_2():
    assert path("B", S("D9"), S("D1")) == path("Z", S("D9"), S("D1"))
    assert path("B", S("A1"), S("J10")) == path("Z", S("A1"), S("J10"))


# Setups

def test_legal_setup_starts_with_player_one_by_default_ruling_14():
    grid = Grid.start(SETUP1, SETUP2)
    assert grid.to_move == 1 and grid.moves == 0 and grid.result is None
    assert Grid.start(SETUP1, SETUP2, first=2).to_move == 2


def test_illegal_setups_list_every_problem():
    bad1 = SETUP1.replace("W D8", "W F8").replace(", Z4 E7", "") + ", Z3 E1"
    bad2 = SETUP2.replace("A7 H10", "A7 F1")
    with pytest.raises(SetupError) as caught:
        Grid.start(bad1, bad2)
    reasons = [(p.player, p.reason) for p in caught.value.problems]
    assert any(p == 1 and "W on F8 is outside" in r for p, r in reasons)
    assert any(p == 1 and "Z3 is placed twice" in r for p, r in reasons)
    assert any(p == 1 and "not placed: Z4" in r for p, r in reasons)
    assert any(p == 2 and "asteroid A7 on F1 shares its square with Z1" in r for p, r in reasons)


def test_fighters_may_share_squares_ruling_15():
    grid = Grid.start(SETUP1.replace("Z2 E5", "Z2 E1"), SETUP2)
    grid, _ = play(grid, "Z1 E1-E4")
    assert grid.check(2, parse_move("Z1 F1-F2")) is None  # onto its own Z2 on F2
    grid, _ = play(grid, "Z1 F1-F2", "Z2 E1-E4")          # onto its own Z1, passing nothing
    assert grid.where(1, "Z2") == grid.where(1, "Z1") == S("E4")


def test_three_home_planets_are_spelt_h1_h2_h3_ruling_16():
    with pytest.raises(SetupError, match="the home planets are H1, H2 and H3"):
        Grid.start(SETUP1, SETUP2, variant="standard+homes=3")
    grid = Grid.start(SETUP1.replace("H A5", "H1 A5, H2 A1, H3 A3"), SETUP2.replace("H J5", "H1 J5, H2 J1, H3 J3"),
                      variant=variant_named("standard+homes=3"))
    assert grid.variant.homes == 3


def test_variants_and_their_options():
    assert variant_named("standard").quiet == 100
    assert variant_named("Standard + quiet=7").quiet == 7
    for bad in ("chess", "standard+homes=2", "standard+quiet=0", "standard+fast"):
        with pytest.raises(ValueError, match="unknown"):
            variant_named(bad)


# Legality

@pytest.mark.parametrize("player, move, words", [
    (2, "Z1 F1-F5", "it is player 1's move"),
    (1, "A1 A8-A7", "never moves"),
    (1, "H A5-A6", "never moves"),
    (1, "Z2 E4-A4", "does not stand on E4"),
    (1, "Z2 E5-D7", "moves like a chess queen"),
    (1, "X2 D10-A10", "may not cross your own asteroid A7 on C10"),
    (1, "Z2 E5-A5", "may not land on your own home planet H on A5"),
    (1, "Z2 E5-E5", "must leave E5"),
])
def test_illegal_moves_are_rejected_with_the_rule(player, move, words):
    grid = Grid.start(SETUP1, SETUP2)
    reason = grid.check(player, parse_move(move))
    assert reason is not None and words in reason
    with pytest.raises(IllegalMove):
        grid.push(player, parse_move(move))


def test_wrong_departure_square_is_rejected_without_spending_the_turn_ruling_17():
    grid, _ = play(Grid.start(SETUP1, SETUP2), "Z2 E5-E4", "Z1 F1-F5")
    reason = grid.check(1, parse_move("Z2 E5-E3"))
    assert "Z2 does not stand on E5" in reason and "[procedure 2]" in reason
    assert grid.check(1, parse_move("Z2 E4-E3")) is None and grid.to_move == 1


def test_ramming_ones_own_asteroid_destroys_both_at_once_ruling_4():
    grid = Grid.start(SETUP1, SETUP2)
    assert grid.check(1, parse_move("X2 D10-C10")) is None
    grid, (report,) = play(grid, "X2 D10-C10")
    assert report.rammed and report.to == S("C10")
    assert set(report.destroyed) == {"1:X2", "1:A7"}
    assert grid.destroyed(1) == ("A7", "X2")
    assert report.public().to == S("C10")   # the ram is told
    # the asteroid is gone: landing on C10 is now a plain move, not a ram
    grid, _ = play(grid, "Z1 F1-F5")
    grid, (report,) = play(grid, "B D9-C10")
    assert not report.rammed and not report.destroyed


def test_ram_checks_the_rammers_path_at_once_ruling_4():
    """A piece that rams its own asteroid never departs again, so its last
    path is checked in the same move, before the ram."""
    grid = Grid.start(SETUP1.replace("A7 C10", "A7 E1").replace("Z1 E1", "Z1 D1"), SETUP2)
    grid, _ = play(grid, "Z2 E5-I5", "W G8-H6")       # Z2 now (secretly) on I5
    grid, (report,) = play(grid, "Z2 I5-E1")          # path H4 G3 F2 E1: player 2's Z2 on F2, then the ram
    assert [(str(c.square), c.pieces, c.destroyed) for c in report.collisions] == [
        ("F2", ("2:Z2", "1:Z2"), ("2:Z2", "1:Z2")),
        ("E1", ("1:A7", "1:Z2"), ("1:A7", "1:Z2")),
    ]
    assert report.rammed and set(report.destroyed) == {"2:Z2", "1:Z2", "1:A7"}
    assert grid.result is None


def test_moving_a_piece_known_destroyed_is_rejected_not_spent_ruling_3():
    grid, reports = play(Grid.start(SETUP1, SETUP2, first=2), "Y1 G6-D3", "Z1 E1-A1", "Y1 D3-B1", "Z1 A1-A2")
    assert reports[-1].spent and grid.to_move == 2
    grid, _ = play(grid, "Z1 F1-F5")
    reason = grid.check(1, parse_move("Z1 A1-A2"))
    assert "destroyed in move 4" in reason
    assert grid.to_move == 1


# The move procedure

def test_worked_example_of_the_procedure_note():
    """You: X on C2. Opponent: Y from D3 to B1. You: Z from E1 to A1, then
    depart A1. Z and Y are destroyed; X survives; X's square C2 is revealed."""
    grid, reports = play(Grid.start(SETUP1, SETUP2, first=2), "Y1 G6-D3", "Z1 E1-A1", "Y1 D3-B1", "Z1 A1-A2")
    report = reports[-1]
    assert report.spent and report.to is None
    assert [(str(c.square), c.pieces, c.destroyed) for c in report.collisions] == [
        ("B1", ("2:Y1", "1:Z1"), ("1:Z1",)),
        ("C2", ("1:X1", "2:Y1"), ("2:Y1",)),
    ]
    assert set(report.destroyed) == {"1:Z1", "2:Y1"}
    assert "X1" not in grid.destroyed(1)
    assert [(str(r.square), r.piece, r.to) for r in report.revealed] == [("B1", "2:Y1", 1), ("C2", "1:X1", 2)]
    assert grid.view(2).sightings[0].piece == "X1" and grid.view(2).sightings[0].square == S("C2")


def test_first_departure_checks_nothing_and_departure_square_is_not_on_the_path_ruling_8():
    # player 2's Z1 departs F1, where nothing of player 1 could be; later player 1 stands on F1
    _grid, reports = play(Grid.start(SETUP1, SETUP2), "Z1 E1-F1", "Z1 F1-F5", "Z2 E5-E4", "Z1 F5-F6")
    # Player 1's Z1 landed on F1, where player 2's Z1 stood; player 2's Z1 then
    # departed F1 for F5. When it departs again, its path F2 F3 F4 F5 is checked:
    # F1, its departure square, is not on it, so the two never meet.
    assert all(not r.collisions for r in reports)


def test_landing_on_an_enemy_collides_only_when_the_path_is_checked_ruling_9():
    grid, reports = play(Grid.start(SETUP1, SETUP2), "Z2 E5-J5")
    assert not reports[0].collisions and grid.result is None
    grid, reports = play(grid, "W G8-H6", "Z2 J5-J6")
    assert reports[-1].collisions[0].pieces == ("2:H", "1:Z2") and grid.result.winner == 1


def test_a_piece_in_transit_is_hit_on_its_destination_ruling_9():
    """Player 2's Z3 goes F3-E4, then E4-E6 (in transit, counted on E6).
    Player 1's Z4 went E7-E3 across E6 before Z3 got there; when Z4 departs
    E3, its path E6 E5 E4 E3 is checked against player 2's pieces as they
    stand now: Z3 on E6. Then Z3's own last path E5 E6 is checked and meets
    player 1's Z3, which has stood on E6 since the setup."""
    grid, _ = play(Grid.start(SETUP1.replace("Z2 E5", "Z2 D5"), SETUP2), "Z1 E1-E2", "Z3 F3-E4", "Z4 E7-E3")
    grid, (report,) = play(grid, "Z3 E4-E6")     # Z3's path E4 is checked: Z4 is on E3 now, not E4
    assert not report.collisions
    grid, (report,) = play(grid, "Z4 E3-E2")
    assert [(str(c.square), c.pieces, c.destroyed) for c in report.collisions] == [
        ("E6", ("2:Z3", "1:Z4"), ("2:Z3", "1:Z4")),
        ("E6", ("1:Z3", "2:Z3"), ("1:Z3", "2:Z3")),
    ]
    assert report.spent


def test_every_piece_on_a_path_collides_the_mover_does_not_stop_ruling_5():
    # player 2 has Z1 and Z2 standing on F1 and F2; player 1's B sweeps F1..F3 (through both, landing on F3)
    grid, _ = play(Grid.start(SETUP1.replace("B D9", "B E1").replace("Z1 E1", "Z1 E2"), SETUP2),
                   "B E1-F1", "W G8-H6")
    grid, (report,) = play(grid, "B F1-F3")   # its previous path F1 is checked: Z1
    assert [c.pieces for c in report.collisions] == [("2:Z1", "1:B")]
    grid, _ = play(grid, "W H6-G8")
    grid, (report,) = play(grid, "B F3-E3")   # path F2 F3: Z2 then Z3, both destroyed, B survives
    assert [c.pieces[0] for c in report.collisions] == ["2:Z2", "2:Z3"]
    assert set(report.destroyed) == {"2:Z2", "2:Z3"} and not report.spent


def test_two_pieces_collide_once_and_each_path_is_checked_once_per_move_ruling_6():
    # player 1's Z1 lands on F5 where player 2's Z... construct mutual paths: each lands on the other's square
    """Player 1's Z2 and player 2's Z4 each land on E4. When Z2 departs, its
    path E4 meets Z4; Z4's own path E4 is then checked and would meet Z2 on
    E4 again: the pair has met already in this move, so once only."""
    _grid, reports = play(Grid.start(SETUP1, SETUP2), "Z2 E5-E4", "Z4 F4-E4", "Z2 E4-F4")
    assert [c.pieces for c in reports[-1].collisions] == [("2:Z4", "1:Z2")]


def test_a_collision_is_told_to_both_players_ruling_7():
    grid, reports = play(Grid.start(SETUP1, SETUP2, first=2), "Y1 G6-D3", "Z1 E1-A1", "Y1 D3-B1", "Z1 A1-A2")
    for player in (1, 2):
        assert grid.view(player).destroyed == (("Z1",), ("Y1",))
    assert reports[-1].public().collisions == reports[-1].collisions


def test_checked_path_is_not_checked_again_ruling_9():
    grid, _reports = play(Grid.start(SETUP1, SETUP2, first=2), "Y1 G6-D3", "Z2 E5-E3", "Y1 D3-B5")
    # Y1 path C4 B5; now player 1's X1 moves C2-C4, and Y1 departs again: its path C4 B5 meets X1 on C4
    grid, (report,) = play(grid, "X1 C2-C4")
    grid, (report,) = play(grid, "Y1 B5-C6")
    assert report.spent and report.collisions[0].pieces == ("1:X1", "2:Y1")


def test_both_homes_destroyed_in_one_move_is_a_draw_ruling_10():
    """Constructed: player 1's Z2 came up column 7 from J7 to A7 across player
    2's home on H7; player 2's B came along row A from A1 to A7 across player
    1's home on A5. Z2 departs: its path meets H on H7 and B on A7; B's own
    path is then checked and meets player 1's H on A5. Both homes fall."""
    grid = Grid.start(SETUP1, SETUP2.replace("H J5", "H H7"))
    sides = [dict(grid.pieces[0]), dict(grid.pieces[1])]
    sides[0]["Z2"] = Piece(S("A7"), S("J7"), squares("I7", "H7", "G7", "F7", "E7", "D7", "C7", "B7", "A7"))
    sides[1]["B"] = Piece(S("A7"), S("A1"), squares("A2", "A3", "A4", "A5", "A6", "A7"))
    grid = replace(grid, pieces=(sides[0], sides[1]))
    grid, (report,) = play(grid, "Z2 A7-A6")
    assert "1:H" in report.destroyed and "2:H" in report.destroyed
    assert grid.result.winner is None and grid.result.code == "home-destroyed"
    assert "both players" in grid.result.reason


def test_forced_pass_is_announced_and_both_stuck_is_a_draw_ruling_11():
    three = variant_named("standard+homes=3")
    setup1 = ("H1 B1, H2 B3, H3 E10, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10, W D8, B D9, X1 C2, "
              "X2 D10, Y1 A2, Y2 E9, Z1 E1, Z2 E5, Z3 E6, Z4 E7")
    setup2 = ("H1 I2, H2 J3, H3 J7, A1 J8, A2 J9, A3 J10, A4 I8, A5 I9, A6 I10, A7 H10, W G8, B G9, X1 H2, "
              "X2 G10, Y1 J1, Y2 F8, Z1 F1, Z2 F2, Z3 F3, Z4 F4")
    grid = Grid.start(setup1, setup2, variant=three)
    grid = only(only(grid, 2, {"H1", "H2", "H3", "Y1"}), 1, {"H1", "H2", "H3", "Y1", "X2", "A7", "Z4"})
    grid, (report,) = play(grid, "Z4 E7-E8")     # player 2's Y1 on J1 can only go to I2, its own home
    assert report.passes == (2,) and grid.to_move == 1
    assert grid.legal_moves(2) == []
    grid, (report,) = play(grid, "X2 D10-C10")   # a ram; Z4 still has moves, so player 2 passes again
    assert report.passes == (2,)
    grid, (report,) = play(grid, "Z4 E8-J3")     # Z4 lands on player 2's H2 (secretly), then:
    grid, (report,) = play(grid, "Z4 J3-I3")     # H2 destroyed; Z4 goes on
    assert "2:H2" in report.destroyed and grid.result is None


def test_both_players_without_a_legal_move_is_a_draw_ruling_11():
    three = variant_named("standard+homes=3")
    setup1 = ("H1 B1, H2 B3, H3 E10, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10, W D8, B D9, X1 C2, "
              "X2 D10, Y1 A2, Y2 E9, Z1 E1, Z2 E5, Z3 E6, Z4 E7")
    setup2 = ("H1 I2, H2 J3, H3 J7, A1 J8, A2 J9, A3 J10, A4 I8, A5 I9, A6 I10, A7 H10, W G8, B G9, X1 H2, "
              "X2 G10, Y1 J1, Y2 F8, Z1 F1, Z2 F2, Z3 F3, Z4 F4")
    grid = Grid.start(setup1, setup2, variant=three)
    grid = only(only(grid, 2, {"H1", "H2", "H3", "Y1"}), 1, {"H1", "H2", "H3", "Y1", "X2", "A7"})
    grid, (report,) = play(grid, "X2 D10-C10")   # the ram leaves Y1 on A2 boxed in by H1 and H2
    assert report.passes == (2, 1)
    assert grid.result.code == "no-legal-move" and grid.result.winner is None


def test_the_no_destruction_limit_draws_the_game_ruling_12():
    grid = Grid.start(SETUP1, SETUP2, variant="standard+quiet=4")
    grid, reports = play(grid, "Z2 E5-E4", "Z1 F1-F5", "Z2 E4-E5", "Z1 F5-F1")
    assert reports[-1].result.code == "no-destruction-limit" and grid.result.ended_after_move == 4
    assert grid.to_move is None and grid.legal_moves(1) == []


def test_unreachable_home_is_a_draw_decided_by_movement_alone_ruling_13():
    grid = Grid.start(SETUP1, SETUP2)
    # player 1 keeps Y1 on E8 (colour 1: (4+7)%2), player 2's home J5 is colour 1: reachable
    grid = only(only(grid, 1, {"H", "Y1", "Z1"}), 2, {"H", "Y1"})
    grid, (_report,) = play(grid, "Z1 E1-A1")
    assert grid.result is None
    grid = Grid.start(SETUP1, SETUP2)
    grid = only(only(grid, 1, {"H", "Y2", "Z1"}), 2, {"H", "Y2"})  # Y2 E9: colour 0; J5 colour 1
    grid, (_report,) = play(grid, "Z1 E1-D2")
    assert grid.result is None                 # Z1 could still reach J5
    grid = only(grid, 1, {"H", "Y2"})
    grid, (_report,) = play(grid, "Y2 F8-G9")   # player 2's Y2 (F8: colour 0) can reach A5 (colour 0): go on
    assert grid.result is None


def test_agreed_draw():
    grid, _ = play(Grid.start(SETUP1, SETUP2), "Z2 E5-E4")
    drawn = grid.agreed_draw()
    assert drawn.result.code == "agreed" and drawn.result.ended_after_move == 1 and drawn.result.winner is None
    with pytest.raises(ValueError):
        drawn.agreed_draw()
    assert "the game is over" in drawn.check(2, parse_move("Z1 F1-F5"))


def test_a_path_met_in_a_chain_is_checked_again_when_its_piece_departs_ruling_9():
    """Player 2's B lands on G7, on the path of player 1's Z4 (E7-H7). When Z4
    departs, its path meets B: Z4 is destroyed and B's own path G8 G7 is
    checked (nothing of player 1's on it then). Player 1's Z3 then lands on
    G8. When B departs, its previous path is checked again [procedure 3],
    against player 1's pieces as they stand now: it meets Z3 in transit on G8."""
    grid, reports = play(Grid.start(SETUP1, SETUP2), "Z4 E7-H7", "B G9-G7", "Z4 H7-H6")
    assert reports[-1].spent and [c.pieces for c in reports[-1].collisions] == [("2:B", "1:Z4")]
    grid, reports = play(grid, "Z1 F1-F2", "Z3 E6-G8", "B G7-G6")
    first = reports[-1].collisions[0]
    assert (str(first.square), first.pieces, first.destroyed) == ("G8", ("1:Z3", "2:B"), ("1:Z3",))
    assert "1:Z3" in reports[-1].destroyed and not reports[-1].spent


def test_a_ram_chain_still_meets_pieces_destroyed_earlier_in_the_move_ruling_5():
    """Ruling 5: 'Who stands where is taken once, when the move's check
    begins; a piece destroyed in this move still stands for the rest of its
    chain.' A ram (ruling 4) runs a second _settle, which recomputes who
    stands: Blue Z1, destroyed by Red X1 earlier in the same move, no longer
    stands on C6, so Red B's ram route through C6 meets nothing there."""
    from gm.games.gridfighters.game import Grid
    from gm.games.gridfighters.notation import parse_move

    red = ("H A5, A1 C2, A2 A1, A3 A2, A4 A3, A5 A4, A6 A6, A7 A7, W A10, B A8, X1 C3, X2 D1, "
           "Y1 D2, Y2 D3, Z1 E1, Z2 E2, Z3 E3, Z4 E4")
    blue = ("H J5, A1 J1, A2 J2, A3 J3, A4 J4, A5 J6, A6 J7, A7 J8, W J9, B J10, X1 I1, X2 I2, "
            "Y1 F5, Y2 I4, Z1 F6, Z2 G1, Z3 G2, Z4 G3")
    grid = Grid.start(red, blue)
    for player, text in ((1, "X1 C3-C8"), (2, "Z1 F6-C6"), (1, "B A8-C10"), (2, "Y1 F5-B9")):
        grid, _ = grid.push(player, parse_move(text))
    grid, report = grid.push(1, parse_move("B C10-C2"))
    assert report.rammed and "2:Z1" in report.destroyed and "2:Y1" in report.destroyed
    at_c6 = [c for c in report.collisions if str(c.square) == "C6"]
    assert any(set(c.pieces) == {"1:B", "2:Z1"} for c in at_c6), report.collisions
