"""Observers: addresses that watch a game without holding a seat.

An observer is told of the game when it is made (what they will be sent, and
when) and, when the game ends, sent the result and the whole game: each
seat's own record as the game keeps it (`GameRules.history`, the setup and
every turn's orders and announcements, with aliases only). Nothing else:
no turn sheets during play (they hold what a seat may not show the other),
no press (the players' words to each other), no reply to a player's mail
(it quotes the player's own text), no mail header of a player's. So an
observer learns nothing hidden before the end, and never a player's address
or token.

The notices are the kernel's, for any game: ``player`` 0 and ``observer``
the observer's number (`gm.pbem.writing.observers` turns them into mail). A game
without observers gets none, so it sends exactly what it sent before.

An observer who unsubscribes (`ObserverLeft`, games of `FINISH_EDITION` on,
whose observer mail carries the way out) is sent nothing more: their place
in `MailGame.observers` keeps its number, so the others' stay the same, but
holds no address any more.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .model import MailGame
from .values import Notice, ObserverLeft


def _common(game: MailGame, number: int) -> dict[str, Any]:
    return {
        "title": game.rules.title,
        "game": game.id,
        "observer": number,
        "players": [seat.alias for seat in game.seats],
        "variant": game.variant,
    }


def watching(game: MailGame) -> list[tuple[int, str]]:
    """The observers still watching the game: their numbers and addresses."""
    return [(n, address) for n, address in enumerate(game.observers, 1) if address]


def left(game: MailGame, event: ObserverLeft) -> list[Notice]:
    """Observer ``event.observer`` is sent nothing more of this game; no one
    else is told (the unsubscribing itself is answered by the GM's own
    address, `gm.pbem.answers.unsubscribe`)."""
    if 1 <= event.observer <= len(game.observers):
        game.observers = tuple("" if n == event.observer else address for n, address in enumerate(game.observers, 1))
    return []


def invited(game: MailGame, at: datetime) -> list[Notice]:
    """The note each observer gets when the game is made."""
    return [Notice(0, "observer_invitation", f"You may watch a game of {game.rules.title}",
                   _common(game, n) | {"deadline_hours": game.options.deadline.total_seconds() / 3600},
                   observer=n)
            for n, _ in watching(game)]


def game_over(game: MailGame, at: datetime) -> list[Notice]:
    """The one mail each observer gets when the game has ended: the result,
    and every seat's record of the game."""
    if not watching(game):
        return []
    outcome = game.outcome
    result = {
        "reason": outcome.reason if outcome else "the game is over",
        "winner": None if outcome is None or outcome.winner is None else game.seat(outcome.winner).alias,
        "scores": None if outcome is None or outcome.scores is None
        else [(seat.alias, score) for seat, score in zip(game.seats, outcome.scores)],
    }
    records = [{"player": seat.player, "alias": seat.alias, "data": game.rules.history(game, seat.player, at)}
               for seat in game.seats]
    return [Notice(0, "observer_result", "The game is over: the whole game",
                   _common(game, n) | {"result": result, "records": records}, observer=n)
            for n, _ in watching(game)]
