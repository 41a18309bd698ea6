"""A game's lifecycle, for every game: when play starts, when a turn runs, how a game ends.

The kernel alone keeps a game's bookkeeping: the phase, the deadline, the
reminders sent, the offers of a draw, the deadlines each seat missed, the
outcome and the game of a series. A game changes only its own state and
says what happened (`gm.kernel.outcomes.Turn`, `Submitted`, `NextGame`);
this module does the rest, the same way for every game:

- the setup phase ends when the game waits for no seat's setup (`start`);
- a turn of simultaneous play (`TurnPolicy.SIMULTANEOUS`) runs when the game
  waits for no seat's orders, nor for their correction (`gm.kernel.correction`),
  unless the game waits for its deadline (`Options.wait_for_deadline`); in
  alternating play (`ALTERNATING`) each accepted move takes effect at once;
  at a deadline the turn runs (or the move passes) without the seats missing;
- what a mail completes takes effect at once, before its later commands, in
  the editions a game says (`GameRules.completes_at_once_from`: Spaceships
  from edition 2), else after them;
- a game's notices are built after the kernel set the deadline they show.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from .correction import cleared, holding
from .model import MailGame
from .outcomes import Turn
from .protocol import TurnPolicy
from .values import ENDED, PLAY, SETUP, Notice, PlayerMail, Reply


def at_once(game: MailGame) -> bool:
    """Whether what a mail completes (the start, a turn) takes effect before
    the mail's later commands (else after them)."""
    since = game.rules.completes_at_once_from
    return since is not None and game.edition >= since


def due(game: MailGame) -> bool:
    """Whether the game waits for no seat: its setup phase is over, or (in
    simultaneous play) its turn is ready to run: every seat's orders are in,
    none waiting for its correction."""
    if game.phase == SETUP:
        return not game.waiting_for
    return (game.phase == PLAY and game.rules.policy is TurnPolicy.SIMULTANEOUS
            and not game.waiting_for and not game.options.wait_for_deadline and not holding(game))


def completed_by(game: MailGame, event: PlayerMail, reply: Reply, before: dict[str, object] | None) -> list[Notice]:
    """Start the game or run the turn a player's mail completed; the reply
    says the turn ran, and (``before``) shows the game as the mail found it."""
    if before is not None:
        reply.data.update(before)
    if game.phase == SETUP:
        return start(game, event.at)
    turn = game.rules.run(game, event.at, [])
    notices = _went_on(game, event.at, turn)
    reply.done.extend(turn.done)
    return notices


def start(game: MailGame, at: datetime) -> list[Notice]:
    """Every setup is in: play begins."""
    turn = game.rules.start(game, at)
    game.phase = PLAY
    _new_deadline(game, at)
    game.reminded.clear()
    game.missed = {p: 0 for p in game.players}
    game.draw_offers.clear()
    return finish(game, at, turn) if turn.end is not None else turn.sheets()


def run(game: MailGame, at: datetime, missing: list[int]) -> list[Notice]:
    """Run the turn (or pass the move) without the ``missing`` seats."""
    return _went_on(game, at, game.rules.run(game, at, missing))


def _went_on(game: MailGame, at: datetime, turn: Turn) -> list[Notice]:
    """A turn ran or a move was made: offers of a draw lapse, reminders are
    due again, orders wait for no correction, and a new deadline runs,
    unless the game ended."""
    game.reminded.clear()
    game.draw_offers.clear()
    cleared(game)
    if turn.end is not None:
        return finish(game, at, turn)
    _new_deadline(game, at)
    return turn.sheets()


def ended(game: MailGame, at: datetime, turn: Turn) -> list[Notice]:
    """What a resignation, forfeit or agreed draw produced (`GameRules.end`):
    the end, or (a resigned seat that plays on) the turn it completed."""
    if turn.end is not None:
        return finish(game, at, turn)
    notices = turn.sheets()
    if game.phase == PLAY and due(game):
        notices += run(game, at, [])
    return notices


def finish(game: MailGame, at: datetime, turn: Turn) -> list[Notice]:
    """The game is over: its outcome, the final sheets, and in a series the
    next game (`GameRules.next_game`)."""
    game.outcome = turn.end
    game.phase = ENDED
    cleared(game)
    game.ended_at = at
    game.set_deadline(None)
    notices = turn.sheets()
    assert turn.end is not None
    following = game.rules.next_game(game, at, turn.end)
    if following is None:
        return notices
    if following.ranking:
        game.outcome = replace(turn.end, ranking=following.ranking)
    game.series += 1
    if following.begins:
        game.phase = SETUP
        game.outcome = None
        game.missed = {p: 0 for p in game.players}
        game.reminded.clear()
        _new_deadline(game, at)
    return notices + following.notices()


def _new_deadline(game: MailGame, at: datetime) -> None:
    """A new turn (or move, or game) is due by ``at`` plus the game's time
    for it; none while the operator has the game paused (`Paused`), so its
    notices show none."""
    game.set_deadline(None if game.paused else at + game.options.deadline)
    game.asked_for()
