"""Grid Fighters behind the kernel's interface: setups, then alternating hidden moves by mail.

Both players send their setups at the same time (the game begins when both
are in); then one player moves at a time, and each move is answered at
once: the mover gets their move as recorded and whatever it revealed, the
opponent the announcement (``Red Z2 departs E2``), any collisions, and the
news that it is their move. The deadline is per move: a missed one passes
the move (ruling 19), and missing ``forfeit_after`` in a row forfeits.
A seat the GM's robot holds is mailed nothing, so its notices (its sheets
above all) are not made (`protocol.mailed`): the robot reads its seat's own
view when it chooses its move (`robot_seat`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from random import Random
from typing import Any

from ...kernel.commands import KERNEL_HELP, Mail
from ...kernel.engine import syntax_data
from ...kernel.errors import NotationError
from ...kernel.outcomes import Did, Replayed, Submitted, Turn
from ...kernel.protocol import GameRules, Table, TurnPolicy, mailed
from ...kernel.schema import Step
from ...kernel.values import (
    ENDED,
    SETUP,
    SHEETS_EDITION,
    EndKind,
    GameEnd,
    Notice,
    PlayerMail,
    Reply,
)
from . import robot_seat, sheets, verification, web
from .events import MoveReport
from .game import Grid, IllegalMove
from .notation import NOTATION_HELP, Placement, parse_move, parse_setup
from .referee import referee_text
from .setup import setup_problems
from .variants import Variant, variant_named

_NOTATION_WORD = re.compile(r"^(?:\S*\d\S*|[hwbHWB])$")
"""A first word that makes a line notation: anything with a digit in it (a
piece such as Z2, a square), or the pieces without a number: H, W, B."""


@dataclass(frozen=True)
class Missed:
    """A deadline passed: ``late`` lost their move, and ``passes`` (``late``
    first) had it pass over them (ruling 19, ruling 11)."""

    after_move: int
    late: int
    passes: tuple[int, ...]


@dataclass
class Play:
    """A game of Grid Fighters by mail, as only this module reads it."""

    variant: Variant
    setups: dict[int, list[Placement]] = field(default_factory=dict)
    grid: Grid | None = None
    log: list[MoveReport | Missed] = field(default_factory=list)
    """Every move made and every deadline missed, in order (the truth: each
    player's history shows their view of it)."""


SCHEMA = 1
"""The number of `Play`'s shape (its fields, and theirs): bump it when they
change, and say in `MIGRATIONS` how a `Play` of the number before is read
(`gm.kernel.schema`)."""
MIGRATIONS: dict[int, Step] = {}
"""How a `Play` of each earlier `SCHEMA` becomes one of the next."""


def help_commands() -> list[tuple[str, str]]:
    return [
        ("Z2 E2", "(in setup) place piece Z2 on square E2; several to a line, separated by commas"),
        ("Z2 E2-A2", "(in play) your move: piece Z2, from E2 where it stands, to A2; one move a mail"),
        ("check", "check the setup or move in this mail without submitting it"),
        *KERNEL_HELP,
    ]


class GridFighters(GameRules[Play]):
    """Grid Fighters: two seats, a simultaneous setup, then alternating hidden moves."""

    schema = SCHEMA
    migrations = MIGRATIONS
    name = "gridfighters"
    title = "Grid Fighters"
    seats = range(2, 3)
    policy = TurnPolicy.ALTERNATING
    default_variant = "standard"
    turn_word = "move"
    orders_word = "move"
    templates = "gm.games.gridfighters"
    ended_reply_subject = "This game is over"

    def template_folders(self, edition: int) -> tuple[str, ...]:
        """The HTML sheet of games made before `SHEETS_EDITION`, which
        coloured the squares by whose sheet it was, is kept in
        templates/edition4."""
        return ("templates/edition4", "templates") if edition < SHEETS_EDITION else ("templates",)

    def describe_variant(self, variant: str) -> str:
        return variant_named(variant).describe()

    def new_play(self, game: Table[Play], terms: Any) -> Play:
        return Play(variant_named(game.variant))

    def invitations(self, game: Table[Play], at: datetime) -> list[Notice]:
        return [_invitation(game, p, at) for p in mailed(game)]

    def is_notation(self, first_word: str) -> bool:
        return bool(_NOTATION_WORD.match(first_word))

    def submit(self, game: Table[Play], event: PlayerMail, mail: Mail, reply: Reply) -> Submitted:
        """A setup waits for the other's; a move is made at once, and the
        kernel announces it (`run`) before any ``draw`` or ``resign`` later
        in the same mail, so an offer standing before the move lapses with
        it (ruling 19), and a move that ends the game ends it before those
        lines are read."""
        if game.phase == SETUP:
            return Submitted(_setup(game, event, mail, reply))
        return Submitted(_move(game, event, mail, reply))

    def start(self, game: Table[Play], at: datetime) -> Turn:
        """Both setups are in: the grid, and the first move's sheets."""
        play: Play = game.play
        play.grid = Grid.start(play.setups[1], play.setups[2], 1, play.variant)
        if play.grid.result is not None:
            return _by_rules(game, at, None)
        return Turn(lambda: [Notice(p, "turn_sheet", _subject(game, p, "The game begins"),
                                    sheets.sheet(game, p, at, None))
                             for p in mailed(game)])

    def run(self, game: Table[Play], at: datetime, missing: list[int]) -> Turn:
        """The move just made, told to both players: the mover's sheet with
        the whole report, the opponent's with what they may know of it. Or,
        at a deadline, the player to move let it pass: the move goes to the
        other player (ruling 19)."""
        play: Play = game.play
        assert play.grid is not None
        if missing:
            before = play.grid.moves
            play.grid, passes = play.grid.missed()
            play.log.append(Missed(before, missing[0], passes))
            if play.grid.result is not None:
                return _by_rules(game, at, None)
            note = {"passes": list(passes), "late": missing}
            return Turn(lambda: [
                Notice(p, "turn_sheet", _subject(game, p, f"{sheets.side(missing[0])} missed the deadline"),
                       sheets.sheet(game, p, at, None) | {"deadline_passed": sheets.passes_lines(game, p, note)})
                for p in mailed(game)])
        report = play.log[-1]
        assert isinstance(report, MoveReport)
        if play.grid.result is not None:
            return _by_rules(game, at, report)
        mover = report.by
        return Turn(lambda: [
            Notice(p, "turn_sheet",
                   _subject(game, p, f"Move {report.n}: " + (f"you moved {report.piece} from {report.frm}" if p == mover
                                                              else sheets.announcement(report))),
                   sheets.sheet(game, p, at, report))
            for p in mailed(game)])

    def nothing_with_mode(self, game: Table[Play], mode: str) -> str:
        return f"{mode}: there was no {'setup' if game.phase == SETUP else 'move'} with it"

    def waiting_for(self, game: Table[Play]) -> list[int]:
        play: Play = game.play
        if game.phase == SETUP:
            return [p for p in game.players if p not in play.setups]
        if play.grid is None or play.grid.to_move is None:
            return []
        return [play.grid.to_move]

    def turn(self, game: Table[Play]) -> int:
        grid = game.play.grid
        return 0 if grid is None else grid.moves + (grid.result is None)

    def common(self, game: Table[Play], player: int, at: datetime | None) -> dict[str, Any]:
        return sheets.common(game, player, at)

    def help_data(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        return sheets.common(game, player, at) | {"commands": help_commands(), "notation": NOTATION_HELP}

    def status(self, game: Table[Play], player: int, at: datetime) -> Notice:
        play: Play = game.play
        if play.grid is None and game.phase == ENDED:
            return Notice(player, "game_over", "The game is over",
                          sheets.common(game, player, at) | sheets.outcome(game, player))
        if play.grid is None:
            return _invitation(game, player, at)
        return Notice(player, "turn_sheet", f"Move {game.turn}: your sheet", sheets.sheet(game, player, at, None))

    def history(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        play: Play = game.play
        data = sheets.common(game, player, at)
        data["setup"] = [f"{p.piece} {p.square}" for p in play.setups.get(player, [])]
        data["moves"] = [sheets.happened(entry, player) if isinstance(entry, MoveReport) else
                         {"n": None,
                          "lines": sheets.passes_lines(game, player,
                                                       {"late": [entry.late], "passes": list(entry.passes)})}
                         for entry in play.log]
        return data

    def end(self, game: Table[Play], at: datetime, end: GameEnd) -> Turn:
        play: Play = game.play
        if play.grid is not None and play.grid.result is None and end.kind is EndKind.DRAW_AGREED:
            play.grid = play.grid.agreed_draw()
        after = play.grid.moves if play.grid is not None else 0
        return _final(game, at, replace(end, after_turn=after), None)

    def draw_lapses(self, game: Table[Play]) -> str:
        return "the next move is made"

    robot_levels = ("easy", "normal", "hard")

    def robot_text(self, game: Table[Play], player: int, level: str, rng: Random) -> str | None:
        return robot_seat.robot_text(game, player, level, rng)

    def referee(self, record: str) -> _Refereed:
        return _Refereed(referee_text(record))

    def web_page(self, game: Table[Play]) -> dict[str, Any] | None:
        return web.web_page(game)

    def web_public(self, game: Table[Play]) -> dict[str, Any] | None:
        return web.web_public(game)

    def record_text(self, game: Table[Play]) -> str | None:
        return web.record_text(game)

    def committed(self, game: Table[Play]) -> list[tuple[str, bytes]]:
        """Both setups once the game began (`verification.setup_value`)."""
        play: Play = game.play
        if play.grid is None:
            return []
        return [(f"setup-{p}", verification.setup_value(play.setups[p])) for p in (1, 2)]

    def replayed(self, record: str, player: int) -> Replayed:
        return verification.replayed(record, player)

    def reminder_what(self, game: Table[Play]) -> str:
        return "setup" if game.phase == SETUP else f"move {game.turn}"


class _Refereed:
    """The referee's outcome in the kernel's terms (`gm.kernel.records.Refereed`)."""

    def __init__(self, outcome: Any):
        self.outcome = outcome

    @property
    def exit_status(self) -> int:
        return int(self.outcome.exit_status)

    def text(self) -> str:
        return str(self.outcome.text())

    def json(self) -> str:
        return str(self.outcome.json_text())


def _subject(game: Table[Play], player: int, what: str) -> str:
    grid = game.play.grid
    if grid is None or grid.result is not None:
        return f"{what}: the game is over"
    return f"{what}; {'your move' if grid.to_move == player else 'waiting for ' + game.seat(3 - player).alias}"


def _invitation(game: Table[Play], player: int, at: datetime) -> Notice:
    variant = game.play.variant
    data = sheets.common(game, player, at) | {"pieces": list(variant.pieces), "homes": variant.homes,
                                              "example": sheets.example_setup(player, variant)}
    return Notice(player, "invitation", "Invitation to a game: send your setup", data)


def _setup(game: Table[Play], event: PlayerMail, mail: Mail, reply: Reply) -> Did:
    play: Play = game.play
    player = event.player
    try:
        placements = parse_setup(mail.notation)
    except NotationError as error:
        if _is_a_move(mail.notation):
            if player in play.setups:
                reply.not_understood.append("your move: the game has not begun; it begins when "
                                            f"{sheets.opponent(game, player).alias} has sent a setup too")
            else:
                reply.not_understood.append("your move: the game has not begun; send your setup first")
            return Did.REJECTED
        reply.data["syntax"] = syntax_data(error, mail.lines, game.edition)
        reply.subject = lambda: _unread(game)
        reply.data["had_setup"] = player in play.setups
        reply.not_understood.append(f"your setup: line {error.line}, column {error.column}")
        return Did.REJECTED
    problems = setup_problems(player, placements, play.variant)
    if problems:
        reply.data["setup"] = {"accepted": False, "had_setup": player in play.setups,
                               "problems": [p.reason if p.line is None else f"line {p.line}: {p.reason}"
                                            for p in problems]}
        reply.subject = lambda: "Your setup breaks the rules"
        reply.not_understood.append("your setup breaks the rules (see below)")
        return Did.REJECTED
    board = sheets.setup_board(player, placements)
    if mail.mode == "check":
        reply.data["setup"] = {"accepted": True, "checked": True, "board": board}
        reply.subject = lambda: "Setup checked"
        reply.done.append("checked your setup: it is legal (not submitted, as you asked)")
        return Did.CHECKED
    replaced = player in play.setups
    play.setups[player] = placements
    reply.data["setup"] = {"accepted": True, "board": board, "replaced": replaced,
                           "waiting_for_opponent": (3 - player) not in play.setups}
    reply.subject = lambda: "Setup accepted"
    reply.done.append("your setup is accepted" + (", replacing the one you sent before" if replaced else ""))
    return Did.ACCEPTED


def _unread(game: Table[Play]) -> str:
    """The reply's subject when the setup or move could not be read."""
    return "Your setup could not be read" if game.phase == SETUP else f"Move {game.turn}: your move could not be read"


def _is_a_move(notation: str) -> bool:
    """Whether text that is no setup reads as a move (sent before the game began)."""
    try:
        parse_move(notation)
    except NotationError:
        return False
    return True


def _move(game: Table[Play], event: PlayerMail, mail: Mail, reply: Reply) -> Did:
    """Read, check and make the move of a mail (its report the last of ``Play.log``)."""
    play: Play = game.play
    player = event.player
    assert play.grid is not None
    if play.grid.to_move != player:
        reply.ignored.append(f"your move: it is {game.seat(3 - player).alias}'s move, not yours; "
                             "send yours when the GM tells you it is your move")
        return Did.REJECTED
    try:
        move = parse_move(mail.notation)
    except NotationError as error:
        reply.data["syntax"] = syntax_data(error, mail.lines, game.edition)
        reply.subject = lambda: _unread(game)
        reply.not_understood.append(f"your move: line {error.line}, column {error.column}")
        return Did.REJECTED
    n = play.grid.moves + 1
    written = f"{move.piece} {move.frm}-{move.to}"
    reason = play.grid.check(player, move)
    if reason is not None:
        reply.data["move"] = {"n": n, "written": written, "rejected": reason, "checked": False, "spent": False}
        reply.subject = lambda: f"Move {n}: your move rejected"
        reply.not_understood.append(f"line {move.line}: {written}: rejected; it is still your move")
        return Did.REJECTED
    if mail.mode == "check":
        reply.data["move"] = {"n": n, "written": written, "rejected": None, "checked": True, "spent": False}
        reply.subject = lambda: f"Move {n}: your move checked"
        reply.done.append(f"checked your move {written}: it is legal (not made, as you asked)")
        return Did.CHECKED
    try:
        grid, report = play.grid.push(player, move)
    except IllegalMove as error:  # check() said yes; kept for safety, as the rules core decides
        reply.data["move"] = {"n": n, "written": written, "rejected": error.reason, "checked": False, "spent": False}
        reply.subject = lambda: f"Move {n}: your move rejected"
        return Did.REJECTED
    play.grid = grid
    play.log.append(report)
    reply.data["move"] = {"n": n, "written": written, "rejected": None, "checked": False, "spent": report.spent}
    reply.subject = lambda: f"Move {n}: your move {'spent' if report.spent else 'made'}"
    reply.done.append(f"your move {n}: {written}" + (" (spent: see below)" if report.spent else ""))
    return Did.ACCEPTED


def _by_rules(game: Table[Play], at: datetime, report: MoveReport | None) -> Turn:
    """The game ended as the rules core says (``grid.result``)."""
    assert game.play.grid is not None and game.play.grid.result is not None
    result = game.play.grid.result
    winners = () if result.winner is None else (result.winner,)
    return _final(game, at,
                  GameEnd(EndKind.RULES, result.ended_after_move, winners, worded=result, result=result),
                  report)


def _final(game: Table[Play], at: datetime, end: GameEnd, report: MoveReport | None) -> Turn:
    """The game is over: each player's final sheet, with the game's mailbox."""
    play: Play = game.play

    def final(p: int) -> Notice:
        if play.grid is not None:
            subject = f"Move {report.n}: the game is over" if report is not None else "The game is over"
            return Notice(p, "turn_sheet", subject, sheets.sheet(game, p, at, report), attach_archive=True)
        return Notice(p, "game_over", "The game is over", sheets.common(game, p, at) | sheets.outcome(game, p))

    return Turn(lambda: [final(p) for p in mailed(game)], end)
