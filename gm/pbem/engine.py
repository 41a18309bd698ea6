"""What each event does to a game by mail, and what the GM says in reply.

Pure: an event carries its own time, so the same events in the same order
always give the same game and the same notices. That is what lets
``gm replay`` rebuild a game from its archive and reproduce every message.

Events:

- `Created`: a game (or a match of games) is set up between two addresses
  (``gm new``, or a challenge accepted by mail);
- `PlayerMail`: an authenticated player's own text, from a mail, read as
  commands and notation (`gm.pbem.commands`);
- `DeadlinePassed` and `ReminderDue`: the GM's clock, written into the
  archive as messages of the GM's own.

Each returns `Notice` values: who is told what, as a template name and data
(``gm.pbem.mailer`` turns them into mail). The answer to a player's mail is
one ``reply`` with sections, as Mailman's are: done, not understood, ignored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Union

from ..games.spaceships.checking import check_orders
from ..games.spaceships.fleet import SetupError, build_fleet
from ..games.spaceships.game import Game
from ..games.spaceships.match import CONTINUED, MatchTerms, match_over, match_winner
from ..games.spaceships.notation import NotationError, notation_help, parse_orders, parse_setup
from ..games.spaceships.orders import format_orders
from ..games.spaceships.ruleset import Ruleset
from . import sheets
from .commands import Mail, help_commands, read_mail
from .model import ENDED, PLAY, SETUP, MailGame, Options, Outcome, Seat


@dataclass(frozen=True)
class Created:
    at: datetime
    game_id: str
    seats: tuple[Seat, Seat]
    ruleset: Ruleset
    variant: str
    options: Options
    match: MatchTerms | None = None
    instance: str | None = None


@dataclass(frozen=True)
class PlayerMail:
    at: datetime
    player: int
    text: str
    message_id: str | None = None


@dataclass(frozen=True)
class DeadlinePassed:
    """The clock reached a deadline. ``at`` is when gm acted on it (later
    than the deadline when the daemon was down), ``deadline`` the deadline
    it is for (None in archives written before it was recorded)."""

    at: datetime
    deadline: datetime | None = None


@dataclass(frozen=True)
class ReminderDue:
    at: datetime


@dataclass(frozen=True)
class Bouncing:
    """Mail to ``player`` failed for good: a bounce came back, or the relay
    refused it. The game goes on as before; the opponent is told."""

    at: datetime
    player: int
    reason: str


Event = Union[Created, PlayerMail, DeadlinePassed, ReminderDue, Bouncing]


@dataclass(frozen=True)
class Notice:
    """One message the GM sends: to which player, which template, what data.

    ``answers`` is the Message-ID of the player's mail it replies to, if any;
    ``attach_archive`` asks for the player's own mailbox of the game so far
    (`gm.pbem.archive.player_mailbox`)."""

    player: int
    template: str
    subject: str
    data: dict[str, Any] = field(default_factory=dict)
    answers: str | None = None
    attach_archive: bool = False


def create(event: Created) -> tuple[MailGame, list[Notice]]:
    """A new game in its setup phase, and the invitations [2.1]."""
    game = MailGame(event.game_id, event.seats, event.ruleset, event.options, event.at, variant=event.variant,
                    match=event.match, instance=event.instance)
    game.deadline = event.at + event.options.deadline
    game.events = 1
    return game, [_invitation(game, p, event.at) for p in (1, 2)]


def _invitation(game: MailGame, player: int, at: datetime) -> Notice:
    data = sheets.common(game, player, at) | {"fleet_cost": game.ruleset.fleet_cost}
    what = "the next game of your match" if game.match_scores else "a game"
    return Notice(player, "invitation", f"Invitation to {what}: send your setup", data)


def apply(game: MailGame, event: Event) -> list[Notice]:
    """Apply one event to ``game`` (changing it) and return the notices."""
    game.events += 1
    if isinstance(event, PlayerMail):
        return _player_mail(game, event)
    if game.phase == ENDED:
        return []
    if isinstance(event, DeadlinePassed):
        if _stale(game, event):
            return []  # the turn already ran early, or the deadline moved
        return _deadline(game, event.at)
    if isinstance(event, ReminderDue):
        return _reminders(game, event.at)
    if isinstance(event, Bouncing):
        return _bouncing(game, event)
    raise TypeError(f"unknown event {event!r}")


def _bouncing(game: MailGame, event: Bouncing) -> list[Notice]:
    """Tell the opponent, once until the player writes again, that mail to
    the player is not getting through (they may wish to reach them otherwise;
    the deadlines still apply)."""
    if event.player in game.bouncing:
        return []
    game.bouncing.add(event.player)
    other = 3 - event.player
    data = sheets.common(game, other, event.at) | {"who": game.seat(event.player).alias, "reason": event.reason}
    return [Notice(other, "bouncing", f"Mail to {game.seat(event.player).alias} is bouncing", data)]


# A player's mail

@dataclass
class _Reply:
    """The sections of the GM's answer to one mail."""

    done: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def _player_mail(game: MailGame, event: PlayerMail) -> list[Notice]:
    game.bouncing.discard(event.player)  # mail from them: their address works
    mail = read_mail(event.text)
    reply = _Reply()
    later: list[Notice] = []
    for line, text, why in mail.not_understood:
        reply.not_understood.append(f"line {line}: {text!r}: {why}")
    if mail.notation_lines:
        if game.phase == SETUP:
            _setup(game, event, mail, reply)
        elif game.phase == PLAY:
            _orders(game, event, mail, reply)
        else:
            reply.ignored.append("your orders: the game is over")
    for command in mail.commands:
        later += _command(game, event, command, reply)
    if mail.mode and not mail.notation_lines:
        reply.ignored.append(f"{mail.mode}: there were no {'setup lines' if game.phase == SETUP else 'orders'} with it")
    elif not (mail.notation_lines or mail.commands or mail.not_understood):
        reply.ignored.append("your mail held no commands and no orders, so nothing was changed")
    header = sheets.common(game, event.player, event.at)  # as things stood when the mail came
    if game.phase == SETUP and len(game.setups) == 2:
        later += _start(game, event.at)
    elif game.phase == PLAY and len(game.pending) == 2 and not game.options.wait_for_deadline:
        later += _run_turn(game, event.at)
        reply.done.append("both players' orders are in: the turn has run, and your sheet follows")
    data = header | reply.data | {
        "done": reply.done, "not_understood": reply.not_understood, "ignored": reply.ignored,
    }
    subject = "Re: your mail"
    if game.phase == ENDED and not later:
        subject = "This game is over"
    elif "orders" in reply.data:
        subject = f"Turn {reply.data['orders_turn']}: orders {'checked' if reply.data.get('checked') else 'received'}"
    elif "setup" in reply.data:
        setup = reply.data["setup"]
        subject = ("Setup checked" if setup.get("checked") else "Setup accepted") if setup["accepted"] else "Your setup breaks the rules"
    elif "syntax" in reply.data:
        subject = "Your setup could not be read" if game.phase == SETUP else f"Turn {game.turn}: your orders could not be read"
    return [Notice(event.player, "reply", subject, data, event.message_id), *later]


def _syntax(error: NotationError, lines: list[str]) -> dict[str, Any]:
    source = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
    expected = "\n".join(sheets.wrap("Expected " + ", ".join(error.expected) + ".", "", "  "))
    found = error.found or (f"'{error.text}'" if error.text else "the end of the line")
    return {
        "line": error.line, "column": error.column, "text": error.text, "source": source.rstrip(),
        "caret": " " * (error.column - 1) + "^", "found": found, "expected": expected, "hint": error.hint,
        "message": str(error), "hint_lines": sheets.wrap("Hint: " + error.hint, "", "  ") if error.hint else [],
    }


_SHIP_CODES = ("DS", "KC", "FS", "PC", "MD", "HS", "LS", "AG", "LG", "HF")


def _first_words(notation: str) -> list[str]:
    return [line.split()[0] for line in notation.split("\n") if line.strip()]


def _looks_like_setup(notation: str) -> bool:
    """Every notation line starts with a ship type."""
    words = _first_words(notation)
    return bool(words) and all(w.rstrip("0123456789") in _SHIP_CODES for w in words)


def _looks_like_orders(notation: str) -> bool:
    """No notation line starts with a ship type."""
    words = _first_words(notation)
    return bool(words) and not any(w.rstrip("0123456789") in _SHIP_CODES for w in words)


def _setup(game: MailGame, event: PlayerMail, mail: Mail, reply: _Reply) -> None:
    player = event.player
    try:
        placements = parse_setup(mail.notation)
    except NotationError as error:
        if _looks_like_orders(mail.notation):
            if player in game.setups:
                reply.not_understood.append(f"orders: the game has not begun; it begins when {game.opponent(player).alias} has sent a setup too")
            else:
                reply.not_understood.append("orders: the game has not begun; send your setup first, one ship per line")
            return
        reply.data["syntax"] = _syntax(error, mail.lines)
        reply.data["previous"] = None
        reply.data["had_setup"] = player in game.setups
        reply.not_understood.append(f"your setup: line {error.line}, column {error.column}")
        return
    try:
        fleet = build_fleet(placements, game.ruleset, game.additional_costs[player - 1])
    except SetupError as error:
        problems = []
        for problem in error.problems:
            if problem.line is None:
                problems.append(problem.reason)
            else:
                placement = placements[problem.line]
                problems.append(f"line {placement.line}: {placement}: {problem.reason}")
        reply.data["setup"] = {"accepted": False, "problems": problems, "had_setup": player in game.setups}
        reply.not_understood.append("your setup breaks the rules (see below)")
        return
    if mail.mode == "check":
        reply.data["setup"] = {"accepted": True, "checked": True, "fleet": fleet.setup_lines()}
        reply.done.append("checked your setup: it is legal (not submitted, as you asked)")
        return
    replaced = player in game.setups
    game.setups[player] = placements
    game.missed[player] = 0
    reply.data["setup"] = {"accepted": True, "fleet": fleet.setup_lines(), "replaced": replaced,
                           "waiting_for_opponent": (3 - player) not in game.setups}
    reply.done.append("your setup is accepted" + (", replacing the one you sent before" if replaced else ""))


def _orders(game: MailGame, event: PlayerMail, mail: Mail, reply: _Reply) -> None:
    player = event.player
    previous = game.pending.get(player)
    if _looks_like_setup(mail.notation):
        reply.ignored.append("your setup lines: the game has begun, so your fleet can no longer change")
        return
    try:
        orders = parse_orders(mail.notation)
    except NotationError as error:
        reply.data["syntax"] = _syntax(error, mail.lines)
        reply.data["previous"] = None if previous is None else format_orders(previous)
        reply.not_understood.append(f"your orders: line {error.line}, column {error.column}")
        return
    assert game.game is not None
    state = game.game.state
    check = check_orders(state.side(player), state.entitlement(player), orders, game.ruleset)
    checked = mail.mode == "check"
    reply.data.update(orders=sheets.command_history(check), orders_turn=game.turn, checked=checked,
                      next=sheets.next_turn(game, player), accepted_count=len(check.accepted),
                      rejected_count=len(check.rejected))
    if checked:
        reply.done.append(f"checked {len(orders)} order{'s' * (len(orders) != 1)} for turn {game.turn}: not submitted, as you asked")
        reply.data["previous"] = None if previous is None else format_orders(previous)
        return
    game.pending[player] = orders
    game.missed[player] = 0
    reply.data["replaced"] = previous is not None
    reply.data["waiting_for_opponent"] = (3 - player) not in game.pending
    reply.done.append(f"your orders for turn {game.turn}" + (", replacing all you sent before" if previous is not None else ""))


def _command(game: MailGame, event: PlayerMail, command, reply: _Reply) -> list[Notice]:
    player, keyword = event.player, command.keyword
    where = f"line {command.line}: {keyword}"
    if keyword == "help":
        reply.done.append(f"{where}: the help sheet follows")
        data = sheets.common(game, player, event.at) | {"commands": help_commands(), "notation": notation_help()}
        return [Notice(player, "help", "Help", data)]
    if keyword == "status":
        reply.done.append(f"{where}: the current sheet follows")
        return [_status(game, player, event.at)]
    if keyword == "games":
        reply.done.append(f"{where}: the list of your games follows in a separate mail")
        return []
    if keyword == "history":
        reply.done.append(f"{where}: the game so far follows")
        return [Notice(player, "history", "The game so far", _history(game, player, event.at))]
    if keyword == "message":
        if not command.argument:
            reply.not_understood.append(f"{where}: the message is missing (write: message TEXT)")
            return []
        reply.done.append(f"{where}: passed to {game.opponent(player).alias}")
        data = sheets.common(game, 3 - player, event.at) | {"text": command.argument}
        return [Notice(3 - player, "press", f"A message from {game.seat(player).alias}", data)]
    if keyword in ("orders", "check", "setup"):
        return []
    if game.phase == ENDED:
        reply.ignored.append(f"{where}: the game is over")
        return []
    if keyword == "resign":
        reply.done.append(f"{where}: you resign this game")
        return _end(game, event.at, f"{game.seat(player).alias} resigned", winner=3 - player,
                    scores=_scores_if_destroyed(game, player))
    if keyword == "draw":
        if game.draw_offer == 3 - player:
            reply.done.append(f"{where}: you accept the offer of a draw")
            return _end(game, event.at, "a draw was agreed", winner=None, scores=_current_scores(game))
        game.draw_offer = player
        until = "the game begins" if game.phase == SETUP else "the turn runs"
        reply.done.append(f"{where}: your offer of a draw stands until {until}")
        data = sheets.common(game, 3 - player, event.at)
        return [Notice(3 - player, "draw_offer", f"{game.seat(player).alias} offers a draw", data)]
    if keyword in ("challenge", "accept"):
        reply.ignored.append(f"{where}: send it to the GM's own address, not within a game")
        return []
    reply.not_understood.append(f"{where}: not understood")
    return []


def _status(game: MailGame, player: int, at: datetime) -> Notice:
    if game.game is None and game.phase == ENDED:
        return Notice(player, "game_over", "The game is over", sheets.common(game, player, at) | {"outcome": sheets.outcome_data(game, player)})
    if game.game is None:
        return _invitation(game, player, at)
    last = game.game.reports[-1] if game.game.reports else None
    return Notice(player, "turn_sheet", f"Turn {game.turn}: your sheet", sheets.sheet(game, player, at, last))


def _history(game: MailGame, player: int, at: datetime) -> dict[str, Any]:
    data = sheets.common(game, player, at)
    turns = []
    if game.game is not None:
        for report in game.game.reports:
            turns.append(sheets.happened(report, player) | {"orders": sheets.command_history(report.view(player).check)})
    data.update(setup=[str(p) for p in game.setups.get(player, [])], turns=turns, past_games=list(game.match_scores))
    return data


# Setting up and playing [2.1], [2.2]

def _start(game: MailGame, at: datetime) -> list[Notice]:
    fleets = [build_fleet(game.setups[p], game.ruleset, game.additional_costs[p - 1]) for p in (1, 2)]
    game.game = Game(fleets[0], fleets[1], game.ruleset)
    game.phase = PLAY
    game.deadline = at + game.options.deadline
    game.reminded.clear()
    game.missed = {1: 0, 2: 0}
    game.draw_offer = None
    return [Notice(p, "turn_sheet", f"Turn {game.turn}: the game begins", sheets.sheet(game, p, at, None)) for p in (1, 2)]


def _run_turn(game: MailGame, at: datetime) -> list[Notice]:
    assert game.game is not None
    report = game.game.push(game.pending.get(1, []), game.pending.get(2, []))
    game.pending.clear()
    game.reminded.clear()
    game.draw_offer = None
    if report.result is not None:
        r = report.result
        return _finish(game, at, Outcome(r.reason, r.scores, r.winner, r.ended_after_turn), report)
    game.deadline = at + game.options.deadline
    return [
        Notice(p, "turn_sheet", f"Turn {report.turn} results; orders for turn {game.turn}", sheets.sheet(game, p, at, report))
        for p in (1, 2)
    ]


def _current_scores(game: MailGame) -> tuple[int, int] | None:
    if game.game is None:
        return None
    return (game.game.state.side(1).remaining_materiel, game.game.state.side(2).remaining_materiel)


def _scores_if_destroyed(game: MailGame, loser: int) -> tuple[int, int] | None:
    """A resignation or forfeit scores as if the loser's fleet were destroyed."""
    scores = _current_scores(game)
    if scores is None:
        return None
    return (0, scores[1]) if loser == 1 else (scores[0], 0)


def _end(game: MailGame, at: datetime, reason: str, winner: int | None, scores) -> list[Notice]:
    after = game.game.turn - 1 if game.game else 0
    return _finish(game, at, Outcome(reason, scores, winner, after), None)


def _finish(game: MailGame, at: datetime, outcome: Outcome, report) -> list[Notice]:
    """A game has ended: the final sheets, and in a match the next game."""
    game.outcome = outcome
    game.phase = ENDED
    game.deadline = None
    game.pending.clear()
    notices = []
    for p in (1, 2):
        if game.game is not None:
            data = sheets.sheet(game, p, at, report)
            notices.append(Notice(p, "turn_sheet", _final_subject(game, report), data, attach_archive=True))
        else:
            notices.append(Notice(p, "game_over", "The game is over", sheets.common(game, p, at) | {"outcome": sheets.outcome_data(game, p)}))
    if game.match is not None:
        notices += _next_in_match(game, at, outcome)
    return notices


def _final_subject(game: MailGame, report) -> str:
    return f"Turn {report.turn}: the game is over" if report is not None else "The game is over"


def _next_in_match(game: MailGame, at: datetime, outcome: Outcome) -> list[Notice]:
    """Record the game's scores in the match; start the next game unless the
    agreed end has come [9.3.1], [10.6.1]."""
    assert game.match is not None
    scores = outcome.scores or (0, 0)
    game.match_scores.append(scores)
    if "forfeit" in outcome.reason or match_over(game.match, game.match_scores):
        winner = outcome.winner if "forfeit" in outcome.reason else match_winner(game.match, game.match_scores)
        game.match_result = winner
        return [Notice(p, "match_over", "The match is over", sheets.common(game, p, at) | {
            "match_winner": None if winner is None else ("you" if winner == p else game.seat(winner).alias),
            "games": [list(s if p == 1 else (s[1], s[0])) for s in game.match_scores],
        }) for p in (1, 2)]
    game.additional_costs = scores if game.match.kind == CONTINUED else (0, 0)  # [10.3], [9.2]
    game.phase = SETUP
    game.setups = {}
    game.game = None
    game.outcome = None
    game.missed = {1: 0, 2: 0}
    game.reminded.clear()
    game.deadline = at + game.options.deadline
    return [_invitation(game, p, at) for p in (1, 2)]


# The clock

def _stale(game: MailGame, event: DeadlinePassed) -> bool:
    """Whether a deadline event is for a deadline the game no longer has."""
    if game.deadline is None:
        return True
    if event.deadline is not None:
        return event.deadline != game.deadline
    return event.at < game.deadline  # archives from before X-GM-Deadline


def _deadline(game: MailGame, at: datetime) -> list[Notice]:
    missing = game.waiting_for
    for player in (1, 2):
        game.missed[player] = game.missed[player] + 1 if player in missing else 0
    forfeits = [p for p in missing if game.missed[p] >= game.options.forfeit_after]
    if forfeits:
        winner = None if len(forfeits) == 2 else 3 - forfeits[0]
        names = " and ".join(game.seat(p).alias for p in forfeits)
        reason = f"{names} sent nothing for {game.options.forfeit_after} turns in a row and forfeit{'s' * (len(forfeits) == 1)}"
        scores = _scores_if_destroyed(game, forfeits[0]) if len(forfeits) == 1 else ((0, 0) if game.game else None)
        return _end(game, at, reason, winner, scores)
    if game.phase == SETUP:
        game.deadline = at + game.options.deadline
        game.reminded.clear()
        return [
            Notice(p, "setup_late", "Deadline passed: your setup is still missing",
                   sheets.common(game, p, at) | {"missed": game.missed[p], "forfeit_after": game.options.forfeit_after})
            for p in missing
        ]
    return _run_turn(game, at)


def _reminders(game: MailGame, at: datetime) -> list[Notice]:
    notices = []
    for player in game.waiting_for:
        if player not in game.reminded:
            game.reminded.add(player)
            what = "setup" if game.phase == SETUP else f"orders for turn {game.turn}"
            notices.append(Notice(player, "reminder", f"Reminder: your {what}", sheets.common(game, player, at) | {"what": what}))
    return notices
