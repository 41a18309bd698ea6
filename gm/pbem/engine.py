"""What each event does to a game by mail, and what the GM says in reply.

Pure: an event carries its own time, so the same events in the same order
always give the same game and the same notices. That is what lets
``gm replay`` rebuild a game from its archive and reproduce every message.

Events:

- `Created`: a game is set up between two addresses (``gm new``, or a
  challenge accepted by mail);
- `PlayerMail`: an authenticated player's own text, from a mail;
- `DeadlinePassed` and `ReminderDue`: the GM's clock, written into the
  archive as messages of the GM's own.

Each returns `Notice` values: who is told what, as a template name and data
(``gm.pbem.render`` turns them into text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Union

from ..checking import Accepted, check_orders
from ..events import TurnReport
from ..fleet import SetupError, build_fleet
from ..game import Game
from ..notation import NotationError, parse_orders, parse_setup
from ..orders import format_orders
from ..ruleset import Ruleset
from .model import ENDED, PLAY, SETUP, MailGame, Options, Outcome, Seat


@dataclass(frozen=True)
class Created:
    at: datetime
    game_id: str
    seats: tuple[Seat, Seat]
    ruleset: Ruleset
    variant: str
    options: Options


@dataclass(frozen=True)
class PlayerMail:
    at: datetime
    player: int
    text: str
    message_id: str | None = None


@dataclass(frozen=True)
class DeadlinePassed:
    at: datetime


@dataclass(frozen=True)
class ReminderDue:
    at: datetime


Event = Union[Created, PlayerMail, DeadlinePassed, ReminderDue]


@dataclass(frozen=True)
class Notice:
    """One message the GM sends: to which player, which template, what data.

    ``answers`` is the Message-ID of the player's mail it replies to, if any."""

    player: int
    template: str
    subject: str
    data: dict[str, Any] = field(default_factory=dict)
    answers: str | None = None


def create(event: Created) -> tuple[MailGame, list[Notice]]:
    """A new game in its setup phase, and the invitations [2.1]."""
    game = MailGame(event.game_id, event.seats, event.ruleset, event.options, event.at, variant=event.variant)
    game.deadline = event.at + event.options.deadline
    game.events = 1
    notices = [
        Notice(seat.player, "invitation", "Invitation: send your setup", _common(game, seat.player))
        for seat in game.seats
    ]
    return game, notices


def apply(game: MailGame, event: Event) -> list[Notice]:
    """Apply one event to ``game`` (changing it) and return the notices."""
    game.events += 1
    if game.phase == ENDED:
        if isinstance(event, PlayerMail):
            return [Notice(event.player, "game_over", "The game is over", _common(game, event.player), event.message_id)]
        return []
    if isinstance(event, PlayerMail):
        if game.phase == SETUP:
            return _setup_mail(game, event)
        return _orders_mail(game, event)
    if isinstance(event, DeadlinePassed):
        if game.deadline is None or event.at < game.deadline:
            return []  # a stale deadline: the turn already ran early
        return _deadline(game, event.at)
    if isinstance(event, ReminderDue):
        return _reminders(game, event.at)
    raise TypeError(f"unknown event {event!r}")


def _common(game: MailGame, player: int) -> dict[str, Any]:
    return {
        "game": game.id,
        "player": player,
        "alias": game.seat(player).alias,
        "opponent": game.opponent(player).alias,
        "ruleset": game.ruleset.describe(),
        "variant": game.variant,
        "turn": game.turn,
        "phase": game.phase,
        "deadline": _utc(game.deadline),
        "wait_for_deadline": game.options.wait_for_deadline,
    }


def _utc(moment: datetime | None) -> str | None:
    return None if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


# Setup [2.1]

def _setup_mail(game: MailGame, mail: PlayerMail) -> list[Notice]:
    data = _common(game, mail.player)
    try:
        placements = parse_setup(mail.text)
        fleet = build_fleet(placements, game.ruleset)
    except NotationError as error:
        data.update(error=_syntax(error))
        return [Notice(mail.player, "syntax_error", "Your setup could not be read", data, mail.message_id)]
    except SetupError as error:
        data.update(problems=[_setup_problem(p, placements) for p in error.problems], had_setup=mail.player in game.setups)
        return [Notice(mail.player, "setup_rejected", "Your setup breaks the rules", data, mail.message_id)]
    game.setups[mail.player] = placements
    game.missed[mail.player] = 0
    data.update(fleet=fleet.setup_lines(), waiting_for_opponent=(3 - mail.player) not in game.setups)
    notices = [Notice(mail.player, "setup_accepted", "Setup accepted", data, mail.message_id)]
    if len(game.setups) == 2:
        notices += _start(game, mail.at)
    return notices


def _setup_problem(problem, placements) -> str:
    if problem.line is None:
        return problem.reason
    placement = placements[problem.line]
    return f"line {placement.line}: {placement}: {problem.reason}"


def _start(game: MailGame, at: datetime) -> list[Notice]:
    fleets = [build_fleet(game.setups[p], game.ruleset) for p in (1, 2)]
    game.game = Game(fleets[0], fleets[1], game.ruleset)
    game.phase = PLAY
    game.deadline = at + game.options.deadline
    game.reminded.clear()
    game.missed = {1: 0, 2: 0}
    return [
        Notice(p, "turn_sheet", f"Turn {game.turn}: the game begins", _sheet(game, p, None)) for p in (1, 2)
    ]


# Orders [11.5]

def _orders_mail(game: MailGame, mail: PlayerMail) -> list[Notice]:
    data = _common(game, mail.player)
    try:
        orders = parse_orders(mail.text)
    except NotationError as error:
        previous = game.pending.get(mail.player)
        data.update(error=_syntax(error), previous=None if previous is None else format_orders(previous))
        return [Notice(mail.player, "syntax_error", f"Turn {game.turn}: your orders could not be read", data, mail.message_id)]
    if not orders:
        previous = game.pending.get(mail.player)
        data.update(previous=None if previous is None else format_orders(previous))
        return [Notice(mail.player, "no_orders", f"Turn {game.turn}: no orders found", data, mail.message_id)]
    assert game.game is not None
    state = game.game.state
    check = check_orders(state.side(mail.player), state.entitlement(mail.player), orders, game.ruleset.geometry)
    replaced = mail.player in game.pending
    game.pending[mail.player] = orders
    game.missed[mail.player] = 0
    data.update(
        orders=[_outcome(o) for o in check.outcomes],
        entitlement=_entitlement(game, mail.player),
        replaced=replaced,
        waiting_for_opponent=(3 - mail.player) not in game.pending,
    )
    notices = [Notice(mail.player, "orders_ack", f"Turn {game.turn}: orders received", data, mail.message_id)]
    if len(game.pending) == 2 and not game.options.wait_for_deadline:
        notices += _run_turn(game, mail.at)
    return notices


def _outcome(outcome) -> dict[str, Any]:
    if isinstance(outcome, Accepted):
        return {"order": str(outcome.order), "accepted": True, "executed": outcome.executed}
    return {"order": str(outcome.order), "accepted": False, "reason": outcome.reason}


def _entitlement(game: MailGame, player: int) -> dict[str, Any]:
    assert game.game is not None
    e = game.game.entitlement(player)
    ships = game.game.state.side(player).fleet.ships
    return {
        "conventional": e.conventional,
        "missiles": [ships[i].label for i in e.missile_ships],
        "kamikaze": [ships[i].label for i in e.kamikaze_ships],
        "beams": [ships[i].label for i in e.beam_directions],
        "scans": e.scans,
    }


def _syntax(error: NotationError) -> dict[str, Any]:
    return {"line": error.line, "column": error.column, "text": error.text, "message": str(error), "hint": error.hint}


# Turns [2.2]

def _run_turn(game: MailGame, at: datetime) -> list[Notice]:
    assert game.game is not None
    orders = (game.pending.get(1, []), game.pending.get(2, []))
    report = game.game.push(*orders)
    game.pending.clear()
    game.reminded.clear()
    if report.result is not None:
        r = report.result
        game.phase = ENDED
        game.deadline = None
        game.outcome = Outcome(r.reason, r.scores, r.winner, r.ended_after_turn)
    else:
        game.deadline = at + game.options.deadline
    return [Notice(p, "turn_sheet", _sheet_subject(game, report), _sheet(game, p, report)) for p in (1, 2)]


def _sheet_subject(game: MailGame, report: TurnReport) -> str:
    if game.phase == ENDED:
        return f"Turn {report.turn}: the game is over"
    return f"Turn {report.turn} results; orders for turn {game.turn}"


def _sheet(game: MailGame, player: int, report: TurnReport | None) -> dict[str, Any]:
    data = _common(game, player) | {"resolved_turn": None, "outcome": None}
    if report is not None:
        view = report.view(player)
        data.update(
            resolved_turn=report.turn,
            initially_active=report.initially_active,
            announcements=[
                {
                    "by": "you" if a.by == player else "opponent",
                    "text": str(a),
                    "destroyed": [
                        {"owner": "your" if d.owner == player else "the opponent's", "ship": d.ship.type.title,
                         "label": d.ship.label, "cells": " ".join(map(str, d.ship.cells)),
                         "flashcube": ", ".join(map(str, d.flashcube))}
                        for d in a.destroyed
                    ],
                }
                for a in view.announcements
            ],
            orders=[_outcome(o) for o in view.check.outcomes],
            burn_outs=[b.ship for b in view.burn_outs],
        )
    if game.phase == ENDED:
        data.update(outcome=_outcome_data(game, player))
    else:
        data.update(entitlement=_entitlement(game, player), remaining=game.game.state.side(player).remaining_materiel)  # type: ignore[union-attr]
    return data


def _outcome_data(game: MailGame, player: int) -> dict[str, Any]:
    outcome = game.outcome
    assert outcome is not None
    return {
        "reason": outcome.reason,
        "scores": list(outcome.scores) if outcome.scores else None,
        "you_won": outcome.winner == player,
        "draw": outcome.winner is None,
    }


def _deadline(game: MailGame, at: datetime) -> list[Notice]:
    missing = game.waiting_for
    for player in (1, 2):
        game.missed[player] = game.missed[player] + 1 if player in missing else 0
    forfeits = [p for p in missing if game.missed[p] >= game.options.forfeit_after]
    if forfeits:
        return _forfeit(game, forfeits, at)
    if game.phase == SETUP:
        game.deadline = at + game.options.deadline
        game.reminded.clear()
        return [
            Notice(p, "setup_late", "Deadline passed: your setup is still missing", _common(game, p) | {"missed": game.missed[p], "forfeit_after": game.options.forfeit_after})
            for p in missing
        ]
    return _run_turn(game, at)


def _forfeit(game: MailGame, players: list[int], at: datetime) -> list[Notice]:
    winner = None if len(players) == 2 else 3 - players[0]
    names = " and ".join(game.seat(p).alias for p in players)
    after = game.game.turn - 1 if game.game else 0
    game.outcome = Outcome(
        f"{names} sent no orders for {game.options.forfeit_after} turns in a row and forfeit{'s' * (len(players) == 1)}",
        None, winner, after,
    )
    game.phase = ENDED
    game.deadline = None
    game.pending.clear()
    return [Notice(p, "forfeit", "The game is over: forfeit", _common(game, p) | {"outcome": _outcome_data(game, p)}) for p in (1, 2)]


def _reminders(game: MailGame, at: datetime) -> list[Notice]:
    notices = []
    for player in game.waiting_for:
        if player not in game.reminded:
            game.reminded.add(player)
            what = "setup" if game.phase == SETUP else f"orders for turn {game.turn}"
            notices.append(Notice(player, "reminder", f"Reminder: your {what}", _common(game, player) | {"what": what}))
    return notices
