"""A Spaceships match's outcome carries the match's own result as its final
places (`NextGame.ranking` -> `GameEnd.ranking`), which the ratings read: a
match is won by its overall score [9.5], not by its last game."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gm.games.spaceships.match import MatchTerms
from gm.kernel import engine
from gm.kernel.values import Created, DeadlinePassed, EndKind, Options, PlayerMail, Seat
from gmtest import ALICE, BOB

AT = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
TWO_GUNBOATS = "LG Rv1\nLG Rv3\n"


def test_the_match_winner_ranks_first_whoever_won_the_last_game():
    seats = (Seat(1, ALICE, "Alice"), Seat(2, BOB, "Bob"))
    game, _ = engine.create(Created(AT, "g1", seats, "2.6.1+fleet=2", Options(deadline=timedelta(hours=24)),
                                    MatchTerms("scored", games=2)))
    engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 1, TWO_GUNBOATS))
    engine.apply(game, PlayerMail(AT + timedelta(minutes=2), 2, TWO_GUNBOATS))
    engine.apply(game, PlayerMail(AT + timedelta(minutes=3), 1, "mRv1 Rv1 mRv3 Rv3"))
    engine.apply(game, DeadlinePassed(AT + timedelta(hours=25), game.deadline))
    assert game.phase == "setup" and game.play.match_scores == [(2, 0)]
    engine.apply(game, PlayerMail(AT + timedelta(hours=26), 1, "resign"))
    assert game.phase == "ended" and game.play.match_result == 1
    assert game.outcome.kind is EndKind.RESIGNED and game.outcome.winners == (2,)  # the last game's
    assert game.outcome.ranking == ((1,), (2,)) == game.outcome.standing([1, 2])
    assert game.outcome.reason == "Alice resigned"  # what players read is the last game's, as before


def test_a_game_that_is_no_match_keeps_no_ranking():
    seats = (Seat(1, ALICE, "Alice"), Seat(2, BOB, "Bob"))
    game, _ = engine.create(Created(AT, "g1", seats, "2.6.1", Options()))
    engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 2, "resign"))
    assert game.outcome.ranking == () and game.outcome.standing([1, 2]) == ((1,), (2,))
