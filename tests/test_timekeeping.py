"""The kernel counts, per seat, the setups, turns and moves it was asked for
and the deadlines it missed in all (`MailGame.asked`, `MailGame.late`), and
when the game ended (`MailGame.ended_at`): what the ratings' reliability and
order of games are read from."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gm.kernel import engine
from gm.kernel.values import Created, DeadlinePassed, Options, PlayerMail, Seat
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB

AT = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)


def test_asked_late_and_ended_at():
    seats = (Seat(1, ALICE, "Alice"), Seat(2, BOB, "Bob"))
    game, _ = engine.create(Created(AT, "g1", seats, "2.6.1", Options(deadline=timedelta(hours=1))))
    assert game.asked == {1: 1, 2: 1} and game.late == {}
    engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 1, SETUP_ALICE))
    engine.apply(game, DeadlinePassed(AT + timedelta(hours=1), game.deadline))
    assert game.late == {2: 1} and game.asked == {1: 1, 2: 2}  # Bob is asked for his setup again
    engine.apply(game, PlayerMail(AT + timedelta(hours=1, minutes=5), 2, SETUP_BOB))
    assert game.phase == "play" and game.asked == {1: 2, 2: 3}
    engine.apply(game, DeadlinePassed(AT + timedelta(hours=2, minutes=5), game.deadline))
    assert game.late == {1: 1, 2: 2} and game.asked == {1: 3, 2: 4}
    assert game.ended_at is None
    ended = AT + timedelta(hours=2, minutes=7, seconds=3, microseconds=125_000)
    engine.apply(game, PlayerMail(ended, 2, "resign"))
    assert game.phase == "ended" and game.ended_at == ended and game.asked == {1: 3, 2: 4}
