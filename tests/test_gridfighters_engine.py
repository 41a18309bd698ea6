"""Grid Fighters through the kernel's pure engine: the clock of alternating moves."""

from __future__ import annotations

from datetime import timedelta
from random import Random

from gm.games.gridfighters.bot import random_setup
from gm.kernel import engine
from gm.kernel.engine import Created, DeadlinePassed, PlayerMail
from gm.kernel.model import ENDED, Options, Seat
from gmtest import START

SEATS = (Seat(1, "alice@example.org", "Alice"), Seat(2, "bob@example.org", "Bob"))


def test_when_both_players_vanish_the_first_to_miss_three_moves_forfeits_ruling_19():
    """Each deadline counts against the player to move only; the other's count
    stands until they send a move. (Counting the other as present would reset
    both in turn, and a game of two absent players would never end.)"""
    game, _ = engine.create(Created(START, "g1", SEATS, "standard", Options(deadline=timedelta(hours=1)),
                                    game="gridfighters"))
    rng = Random(5)
    for player in (1, 2):
        text = "\n".join(f"{p.piece} {p.square}" for p in random_setup(player, rng))
        engine.apply(game, PlayerMail(START + timedelta(minutes=player), player, text))
    late = []
    while game.phase != ENDED and len(late) < 10:
        late.append(game.play.grid.to_move)
        engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert late == [1, 2, 1, 2, 1]
    assert game.outcome.winner == 2 and game.outcome.reason == "Alice sent nothing for 3 moves in a row and forfeits"
