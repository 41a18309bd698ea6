"""Scored matches [9] and continued matches [10]."""

import pytest

from gm.games.spaceships.fleet import SetupError
from gm.games.spaceships.match import CONTINUED, SCORED, Match, MatchError, MatchTerms
from support import FLEET_1, FLEET_2

# Player 1 destroys player 2's whole fleet in three turns, losing 9 cells
# (the game of tests/records/standard-win.rec): 13 to 0.
WIN_TURNS = [
    ("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
    ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"),
    ("Gz1 Gz2", "Ov1"),
]


def play_win(game):
    for orders in WIN_TURNS:
        game.push(*orders)
    assert game.result.scores == (13, 0)


def test_scored_match_adds_scores_9_4():
    match = Match(MatchTerms(SCORED, games=2))
    play_win(match.start_game(FLEET_1, FLEET_2))
    assert match.overall_scores == (13, 0) and not match.over
    assert match.additional_costs() == (0, 0)  # [9.2] no additional ships
    game = match.start_game(FLEET_1, FLEET_2)
    play_win(game)
    assert match.over and match.overall_scores == (26, 0) and match.winner == 1  # [9.5]
    with pytest.raises(MatchError):
        match.start_game(FLEET_1, FLEET_2)


def test_scored_match_to_a_target_ends_only_after_a_game_9_3_1():
    match = Match(MatchTerms(SCORED, target=20))
    game = match.start_game(FLEET_1, FLEET_2)
    assert not match.over
    with pytest.raises(MatchError):
        match.start_game(FLEET_1, FLEET_2)  # the game has not ended
    play_win(game)
    assert not match.over
    play_win(match.start_game(FLEET_1, FLEET_2))
    assert match.over and match.winner == 1


def test_continued_match_carries_remaining_materiel_10_3():
    match = Match(MatchTerms(CONTINUED, games=2))
    play_win(match.start_game(FLEET_1, FLEET_2))
    assert match.additional_costs() == (13, 0)
    with pytest.raises(SetupError, match=r"the additional ships cost 0, not the 13 carried over \[10.3\]"):
        match.start_game(FLEET_1, FLEET_2)
    extra = "KC Rz1 Rz2 Rz3 Oz1 Oz2 Oz3\nMD Gz3 Gz4 Gz5\nFS Yv4 Yv5 Yw4 Yw5\n"  # 6 + 3 + 4 = 13
    game = match.start_game(FLEET_1 + extra, FLEET_2)
    assert game.state.sides[0].fleet.cost == 24 + 13
    assert [s.label for s in game.state.sides[0].fleet.ships][:3] == ["DS", "KC1", "FS1"]


def test_continued_match_winner_is_last_games_materiel_10_6():
    match = Match(MatchTerms(CONTINUED, games=1))
    play_win(match.start_game(FLEET_1, FLEET_2))
    assert match.over and match.winner == 1


def test_terms_must_say_when_the_match_ends_9_3():
    with pytest.raises(ValueError, match=r"\[9.3\]"):
        MatchTerms(SCORED)
    with pytest.raises(ValueError):
        MatchTerms("friendly", games=3)
