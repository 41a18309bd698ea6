"""A Celestial Empire end holds every empire's final place (`GameEnd.ranking`,
which the ratings read): the winners, or the empires still played after an
agreed draw, tied first; then the rest by score, those that resigned last."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gm.games.celestial_empire.mail import Terms
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat

AT = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
NAMES = ("Grok", "Winter", "Master", "Vega")


def four_empires(scores: dict[int, int]):
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(NAMES, 1))
    game, _ = engine.create(Created(AT, "g1", seats, "standard", Options(), Terms(7), game="celestial-empire"))
    for empire, score in scores.items():
        game.play.state.empires[empire].score = score
    return game


def test_the_last_resignation_but_one_ranks_the_winner_then_the_resigned_by_score():
    game = four_empires({1: 50, 2: 500, 3: 900, 4: 100})
    for minute, player in enumerate((4, 2, 3), 1):
        engine.apply(game, PlayerMail(AT + timedelta(minutes=minute), player, "resign"))
    assert game.phase == "ended" and game.outcome.winners == (1,)
    assert game.outcome.ranking == ((1,), (3,), (2,), (4,))
    assert game.outcome.standing([1, 2, 3, 4]) == game.outcome.ranking


def test_an_agreed_draw_ties_the_empires_still_played():
    game = four_empires({1: 50, 2: 500, 3: 900, 4: 500})
    engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 3, "resign"))
    for minute, player in enumerate((1, 2, 4), 2):
        engine.apply(game, PlayerMail(AT + timedelta(minutes=minute), player, "draw"))
    assert game.phase == "ended" and game.outcome.winner is None
    assert game.outcome.ranking == ((1, 2, 4), (3,))
