"""Spaceships behind the kernel's interface: setups, orders, turns and matches by mail.

The kernel (`gm.kernel.engine`) reads a player's mail and handles what every
game shares; this module is what is Spaceships' own: the setup phase [2.1],
orders checked as they come [11.5] (`submission` reads and records them),
turns run when both are in or at the deadline [2.2], the end and its scores
[2.3], and matches [9], [10]. Every mail it makes is the same, byte for
byte, as before the kernel existed. A seat the GM's robot holds is mailed
nothing, so its notices (its sheets above all) are not made
(`protocol.mailed`), nor what only the reply to the robot's own mail would
show (`Reply.read`): the robot reads its seat's own view when it chooses
its orders (`robot_seat`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from random import Random
from typing import Any

from ...kernel.commands import KERNEL_HELP, Mail
from ...kernel.outcomes import Did, NextGame, Replayed, Submitted, Turn
from ...kernel.protocol import GameRules, Table, TurnPolicy, mailed
from ...kernel.schema import Step, fill_defaults
from ...kernel.values import (
    ENDED,
    FINISH_EDITION,
    LIGHT_MAIL_EDITION,
    SETUP,
    WORDS_EDITION,
    EndKind,
    GameEnd,
    Notice,
    PlayerMail,
    Reply,
)
from ..numbers import TOO_LARGE, whole_number
from . import robot_seat, sheets, submission, verification, web
from .fleet import build_fleet
from .game import Game
from .match import CONTINUED, MatchTerms, match_over, match_winner
from .notation import notation_help
from .orders import Order, Placement
from .referee import RefereeOutcome, referee_text
from .ruleset import Ruleset, ruleset_named

_NOTATION_WORD = re.compile(r"^(?:\S*\d\S*|(?:DS|KC|FS|PC|MD|HS|LS|AG|LG|HF)|m[ROYGB]?[vwxyz]?|[bmks])$")
"""A first word that makes a line notation: anything with a digit in it (a
cell, however mistyped), a ship type, or a missile selector without one."""
_MATCH = re.compile(r"^\s*match\s+(scored|continued)\s+(to\s+)?(\d+)(\s+games)?\s*$", re.I | re.M)
LIGHTER_SHEET_EDITION = FINISH_EDITION
"""The first edition whose HTML turn sheet is drawn by lighter markup (issue
27: fewer bytes, the same picture in Chromium); games of earlier editions
keep theirs, in templates/edition6."""


@dataclass
class Play:
    """A Spaceships game by mail, as only this module reads it."""

    ruleset: Ruleset
    setups: dict[int, list[Placement]] = field(default_factory=dict)
    game: Game | None = None
    pending: dict[int, list[Order]] = field(default_factory=dict)
    """Orders in force for the coming turn, by player: the last valid ones sent."""
    match: MatchTerms | None = None
    """The match this game is part of [9], [10], if any: its games are played
    one after another in this same Table."""
    match_scores: list[tuple[int, int]] = field(default_factory=list)
    """The scores of the match's games that have ended [9.4]."""
    additional_costs: tuple[int, int] = (0, 0)
    """What each player's additional ships must cost in this game [10.3]."""
    match_result: int | None = None
    """The winner of a finished match (None for a draw, or while it goes on)."""
    committed: list[tuple[str, bytes]] = field(default_factory=list)
    """What the GM committed to (`Spaceships.committed`): both setups of each
    game begun, labelled with the game's number in a match when it began, so
    that every later mail of a match still carries the earlier games' and
    its end reveals them all."""


SCHEMA = 2
"""The number of `Play`'s shape (its fields, and theirs): bump it when they
change, and say in `MIGRATIONS` how a `Play` of the number before is read
(`gm.kernel.schema`)."""
MIGRATIONS: dict[int, Step] = {1: fill_defaults}
"""How a `Play` of each earlier `SCHEMA` becomes one of the next: 2 added
``committed`` (issue 26), empty in every game made before commitments."""


def help_commands() -> list[tuple[str, str]]:
    """Each command with what it does, for the help sheet."""
    return [
        ("Rv1 bRv1Rx1 mRv2 kGy3 sBz5", "orders for this turn, several to a line; replace all you sent before"),
        ("orders", "(optional) the notation lines of this mail are orders"),
        ("check", "check the orders in this mail and say what would happen, without submitting them"),
        ("setup", "(optional) the lines of this mail are your setup, one ship per line"),
        ("status", "send me the current turn sheet again"),
        *KERNEL_HELP[1:],  # the kernel's commands after its own 'status'
    ]


class Spaceships(GameRules[Play]):
    """Spaceships 2.6.1 and its variants: two seats, simultaneous turns."""

    schema = SCHEMA
    migrations = MIGRATIONS
    name = "spaceships"
    title = "Spaceships"
    seats = range(2, 3)
    policy = TurnPolicy.SIMULTANEOUS
    default_variant = "2.6.1"
    templates = "gm.games.spaceships"
    ended_reply_subject = "This game is over"

    def template_folders(self, edition: int) -> tuple[str, ...]:
        """Edition 1's turn sheets are kept as they were in templates/edition1,
        the HTML sheet of editions 2 and 3 (inline styles) in
        templates/edition3, that of editions 4 to 6 (before `LIGHTER_SHEET_EDITION`)
        in templates/edition6, and the words of editions before
        `WORDS_EDITION` in templates/edition4."""
        if edition < 2:
            return ("templates/edition1", "templates/edition4", "templates")
        if edition < LIGHT_MAIL_EDITION:
            return ("templates/edition3", "templates/edition4", "templates")
        if edition < WORDS_EDITION:
            return ("templates/edition6", "templates/edition4", "templates")
        return ("templates/edition6", "templates") if edition < LIGHTER_SHEET_EDITION else ("templates",)

    def describe_variant(self, variant: str) -> str:
        return ruleset_named(variant).describe()

    def creation_terms(self, fields: dict[str, str]) -> MatchTerms | None:
        if "match" not in fields:
            return None
        return MatchTerms(fields["match"], int(fields["match-games"]) if fields.get("match-games") else None,
                          int(fields["match-target"]) if fields.get("match-target") else None)

    def creation_fields(self, terms: MatchTerms | None) -> list[str]:
        if terms is None:
            return []
        lines = [f"match: {terms.kind}"]
        if terms.games is not None:
            lines.append(f"match-games: {terms.games}")
        if terms.target is not None:
            lines.append(f"match-target: {terms.target}")
        return lines

    def challenge_terms(self, text: str) -> MatchTerms | None:
        """``match scored 3``, ``match continued 2`` or ``match scored to 50`` [9], [10]."""
        found = _MATCH.search(text)
        if found is None:
            if re.search(r"^\s*match\b", text, re.I | re.M):
                raise ValueError("a match line gm cannot read (write: match scored 3, match continued 2, "
                                 "or match scored to 50)")
            return None
        kind, to, number = found.group(1).lower(), found.group(2), whole_number(found.group(3))
        if number is None:
            raise ValueError(f"bad match terms: {TOO_LARGE}")
        try:
            return MatchTerms(kind, None if to else number, number if to else None)
        except ValueError as error:
            raise ValueError(f"bad match terms: {error}") from None

    def describe_terms(self, terms: MatchTerms | None) -> str:
        if terms is None:
            return ""
        return f"{terms.kind} match, " + (f"{terms.games} games" if terms.games else f"first to {terms.target} points")

    def new_play(self, game: Table[Play], terms: Any) -> Play:
        return Play(ruleset_named(game.variant), match=terms)

    def invitations(self, game: Table[Play], at: datetime) -> list[Notice]:
        return [_invitation(game, p, at) for p in mailed(game)]

    def is_notation(self, first_word: str) -> bool:
        return bool(_NOTATION_WORD.match(first_word))

    completes_at_once_from = 2
    """The setup or the orders that complete what the game waits for start
    the game or run the turn at once, before the mail's commands: a
    ``draw`` offered in the mail that completes a turn stands until the
    next turn runs, and reaches the opponent after their sheet. Games of
    edition 1 ran it after the commands."""

    def submit(self, game: Table[Play], event: PlayerMail, mail: Mail, reply: Reply) -> Submitted:
        """Setups and orders are recorded [2.1], [11.5]; orders that answer
        a turn that has run are not used (edition 2 on) [ruling w]."""
        if game.phase == SETUP:
            return Submitted(submission.setup(game, event, mail, reply))
        if game.edition >= 2 and submission.late(game, event, reply):
            return Submitted(Did.LATE, (self.status(game, event.player, event.at),))
        did = submission.orders(game, event, mail, reply)
        if game.edition < 2 or not reply.read:
            return Submitted(did)
        return Submitted(did, then=lambda: submission.in_force(game, event.player, reply))

    def start(self, game: Table[Play], at: datetime) -> Turn:
        """Both setups are in: the fleets, and turn 1's sheets."""
        play: Play = game.play
        fleets = [build_fleet(play.setups[p], play.ruleset, play.additional_costs[p - 1]) for p in (1, 2)]
        play.game = Game(fleets[0], fleets[1], play.ruleset)
        play.committed += [(verification.setup_label(p, game.series), verification.setup_value(play.setups[p]))
                           for p in (1, 2)]
        return Turn(lambda: [Notice(p, "turn_sheet", f"Turn {game.turn}: the game begins",
                                    sheets.sheet(game, p, at, None))
                             for p in mailed(game)])

    def run(self, game: Table[Play], at: datetime, missing: list[int]) -> Turn:
        """Both players' orders are in, or the deadline passed: the turn runs
        with the orders in force, none for a player who sent none [2.2]."""
        play: Play = game.play
        assert play.game is not None
        report = play.game.push(play.pending.get(1, []), play.pending.get(2, []))
        play.pending.clear()
        done = ("both players' orders are in: the turn has run, and your sheet follows",)
        if report.result is not None:
            r = report.result
            winners = () if r.winner is None else (r.winner,)
            end = GameEnd(EndKind.RULES, r.ended_after_turn, winners, scores=r.scores, worded=r, result=r)
            return _final(game, at, end, report, done)
        return Turn(lambda: [Notice(p, "turn_sheet", f"Turn {report.turn} results; orders for turn {game.turn}",
                                    sheets.sheet(game, p, at, report)) for p in mailed(game)], done=done)

    def next_game(self, game: Table[Play], at: datetime, end: GameEnd) -> NextGame | None:
        """Record the game's scores in the match; set up the next game unless
        the agreed end has come [9.3.1], [10.6.1]. A forfeit ends the match."""
        play: Play = game.play
        if play.match is None:
            return None
        scores = end.scores or (0, 0)
        play.match_scores.append((scores[0], scores[1]))
        forfeit = end.kind is EndKind.FORFEIT
        if forfeit or match_over(play.match, play.match_scores):
            winner = end.winner if forfeit else match_winner(play.match, play.match_scores)
            play.match_result = winner
            return NextGame(lambda: [Notice(p, "match_over", "The match is over", sheets.common(game, p, at) | {
                "match_winner": None if winner is None else ("you" if winner == p else game.seat(winner).alias),
                "games": [list(s if p == 1 else (s[1], s[0])) for s in play.match_scores],
            }) for p in mailed(game)], begins=False,
                ranking=((1, 2),) if winner is None else ((winner,), (3 - winner,)))
        play.additional_costs = (scores[0], scores[1]) if play.match.kind == CONTINUED else (0, 0)  # [10.3], [9.2]
        play.setups = {}
        play.game = None
        return NextGame(lambda: [_invitation(game, p, at) for p in mailed(game)], begins=True)

    def nothing_with_mode(self, game: Table[Play], mode: str) -> str:
        return f"{mode}: there were no {'setup lines' if game.phase == SETUP else 'orders'} with it"

    def waiting_for(self, game: Table[Play]) -> list[int]:
        play: Play = game.play
        if game.phase == SETUP:
            return [p for p in (1, 2) if p not in play.setups]
        return [p for p in (1, 2) if p not in play.pending]

    def turn(self, game: Table[Play]) -> int:
        return game.play.game.turn if game.play.game else 0

    def common(self, game: Table[Play], player: int, at: datetime | None) -> dict[str, Any]:
        return sheets.common(game, player, at)

    def help_data(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        return sheets.common(game, player, at) | {"commands": help_commands(), "notation": notation_help()}

    def status(self, game: Table[Play], player: int, at: datetime) -> Notice:
        play: Play = game.play
        if play.game is None and game.phase == ENDED:
            return Notice(player, "game_over", "The game is over",
                          sheets.common(game, player, at) | {"outcome": sheets.outcome_data(game, player)})
        if play.game is None:
            return _invitation(game, player, at)
        last = play.game.reports[-1] if play.game.reports else None
        ended = game.phase == ENDED and game.edition >= 2
        subject = "The game is over: your final sheet" if ended else f"Turn {game.turn}: your sheet"
        data = sheets.sheet(game, player, at, last)
        if game.phase == ENDED and game.edition >= WORDS_EDITION:  # no mailbox this time: the final mail had it
            data["mailbox_sent_before"] = True
        return Notice(player, "turn_sheet", subject, data)

    def history(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        play: Play = game.play
        data = sheets.common(game, player, at)
        turns = []
        if play.game is not None:
            for report in play.game.reports:
                turns.append(sheets.happened(report, player)
                             | {"orders": sheets.command_history(report.view(player).check)})
        data.update(setup=[str(p) for p in play.setups.get(player, [])], turns=turns,
                    past_games=list(play.match_scores))
        return data

    def end(self, game: Table[Play], at: datetime, end: GameEnd) -> Turn:
        if len(end.losers) == 1:
            scores = _scores_if_destroyed(game, end.losers[0])
        elif end.losers:
            scores = (0, 0) if game.play.game else None
        else:
            scores = _current_scores(game)
        after = game.play.game.turn - 1 if game.play.game else 0
        return _final(game, at, replace(end, scores=scores, after_turn=after), None)

    def draw_lapses(self, game: Table[Play]) -> str:
        """Named by its number, so that an offer made in the mail that ran a
        turn is plainly the next turn's."""
        return f"turn {game.turn} runs" if game.edition >= 2 else "the turn runs"

    robot_levels = ("easy", "normal", "hard")

    def robot_text(self, game: Table[Play], player: int, level: str, rng: Random) -> str | None:
        return robot_seat.robot_text(game, player, level, rng)

    def referee(self, record: str) -> RefereeOutcome:
        return referee_text(record)

    def web_page(self, game: Table[Play]) -> dict[str, Any] | None:
        return web.web_page(game)

    def web_public(self, game: Table[Play]) -> dict[str, Any] | None:
        return web.web_public(game)

    def record_text(self, game: Table[Play]) -> str | None:
        return web.record_text(game)

    def committed(self, game: Table[Play]) -> list[tuple[str, bytes]]:
        """Both setups of each game once it began: each side's setup lines as
        the record writes them (`verification.setup_value`)."""
        return list(game.play.committed)

    def replayed(self, record: str, player: int) -> Replayed:
        return verification.replayed(record, player)

    def reminder_what(self, game: Table[Play]) -> str:
        return "setup" if game.phase == SETUP else f"orders for turn {game.turn}"


def _invitation(game: Table[Play], player: int, at: datetime) -> Notice:
    data = sheets.common(game, player, at) | {"fleet_cost": game.play.ruleset.fleet_cost}
    what = "the next game of your match" if game.play.match_scores else "a game"
    return Notice(player, "invitation", f"Invitation to {what}: send your setup", data)


# Setting up and playing [2.1], [2.2]

def _current_scores(game: Table[Play]) -> tuple[int, int] | None:
    play: Play = game.play
    if play.game is None:
        return None
    return (play.game.state.side(1).remaining_materiel, play.game.state.side(2).remaining_materiel)


def _scores_if_destroyed(game: Table[Play], loser: int) -> tuple[int, int] | None:
    """A resignation or forfeit scores as if the loser's fleet were destroyed."""
    scores = _current_scores(game)
    if scores is None:
        return None
    return (0, scores[1]) if loser == 1 else (scores[0], 0)


def _final(game: Table[Play], at: datetime, end: GameEnd, report: Any, done: tuple[str, ...] = ()) -> Turn:
    """A game has ended: the final sheets (in a match, `Spaceships.next_game` follows)."""
    play: Play = game.play
    play.pending.clear()

    def final(p: int) -> Notice:
        if play.game is not None:
            subject = f"Turn {report.turn}: the game is over" if report is not None else "The game is over"
            return Notice(p, "turn_sheet", subject, sheets.sheet(game, p, at, report), attach_archive=True)
        return Notice(p, "game_over", "The game is over",
                      sheets.common(game, p, at) | {"outcome": sheets.outcome_data(game, p)})

    return Turn(lambda: [final(p) for p in mailed(game)], end, done)
