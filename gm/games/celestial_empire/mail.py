"""Celestial Empire behind the kernel's interface: 2 to 9 empires by mail.

The conventions are the manual's and PBEM players': one command a line,
``;`` comments, a mail with readable orders replaces every order the empire
sent before for the turn (R-12), and the turn runs once every empire still
playing is in, or at the deadline; an empire that sent nothing has its
standing orders, defences, mining and score all the same (R-84), so silence
forfeits nothing. Each empire gets its own sheet after every turn
(`sheets.sheet_data`), holding only what it may know; an empire the GM's
robot holds is mailed nothing, so its sheet is not made (`protocol.mailed`):
the robot makes its own view when it chooses its orders (`robot.robot_mail`).

The galaxy is generated from a seed drawn when the game is requested
(`fresh_terms`) and kept in the creation event (``seed: N``), so a replay
rebuilds the same galaxy and the same turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from random import Random
from typing import Any

from ...kernel.commands import KERNEL_HELP, Mail
from ...kernel.engine import late_for, syntax_data, unexpected_in
from ...kernel.outcomes import Did, Replayed, Submitted, Turn
from ...kernel.protocol import GameRules, Table, TurnPolicy, mailed
from ...kernel.schema import REPLAY, Step
from ...kernel.values import (
    ENDED,
    PLAY,
    SHEETS_EDITION,
    EndKind,
    GameEnd,
    Notice,
    PlayerMail,
    Reply,
)
from . import sheets
from .checking import check_lines
from .command_help import COMMANDS_HELP
from .galaxy import generate
from .notation import parse_orders
from .orders import Order
from .research import is_research_line, research_comments
from .robot import LEVELS, robot_mail
from .state import GameState, new_game
from .turn import Report, run_turn
from .variants import Variant, variant_named
from .verification import TURN_STATE_EDITION, Ran, galaxy_value, ran, record_text, turn_label, turn_value
from .verification import replayed as replayed_record
from .winning import Length

NAMES = ("Altair", "Boreas", "Cygnus", "Draco", "Eridani", "Fornax", "Gemini", "Hydra", "Indus")
"""The empires' names when the operator gives none: nine stars and constellations."""
NAME_RULE = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,8}$")
RESERVED = {"neutral", "earth", "ally", "friend", "friendly", "enemy", "hostile"}
"""Words an empire may not be called, since orders and messages use them (R-14)."""
_NOTATION_WORD = re.compile(r"^(?:[0-9+\-{&(]|[SsOoXx][0-9Ss]|scan|turn)", re.I)
"""A first word that makes a line an order: a planet or ship number, an
alliance change, a message, a standing order, a scan or a vote."""


MANY_PLAYERS = {
    "message": "pass TEXT to every other empire's player, naming your empire (your address is never shown); "
               "also: press TEXT",
    "draw": "offer a draw; the game is drawn when every player still playing offers one",
    "resign": "give up: your empire stays in the galaxy and plays on by its standing orders",
}
"""The kernel's commands in the words of a game of many empires."""
COMMANDS = [(command, MANY_PLAYERS.get(command.split()[0], what)) for command, what in KERNEL_HELP]


@dataclass(frozen=True)
class Terms:
    """The creation terms: the seed the galaxy and every draw derive from."""

    seed: int


@dataclass
class Play:
    """A game of Celestial Empire by mail, as only this module reads it."""

    terms: Terms
    variant: Variant
    state: GameState
    pending: dict[int, list[Order]] = field(default_factory=dict)
    """Each empire's orders for the turn being collected (the last mail's, R-12)."""
    research: dict[int, list[str]] = field(default_factory=dict)
    """Each empire's research lines (``;RP ...``) for the turn (R-67)."""
    reports: list[Report] = field(default_factory=list)
    resigned: set[int] = field(default_factory=set)
    """Empires whose players resigned: they play on by their standing orders (R-84)."""
    awaiting: list[tuple[int, str]] = field(default_factory=list)
    """What waits for the operator's answer (`gm answer`): research orders
    the rules leave to the GM (R-66, R-67), by empire."""
    ran: list[Ran] = field(default_factory=list)
    """Each turn run, with the orders it ran with and its state's digest, in
    games of `TURN_STATE_EDITION` on: the record their end reveals."""


SCHEMA = 2
"""The number of `Play`'s shape (its fields, and theirs): bump it when they
change, and say in `MIGRATIONS` how a `Play` of the number before is read
(`gm.kernel.schema`)."""
MIGRATIONS: dict[int, Step] = {1: REPLAY}
"""How a `Play` of each earlier `SCHEMA` becomes one of the next: a `Play`
of 1 kept no `Play.ran`, which only a replay of its archive fills in."""


def _received(turn: int, reply: Reply) -> str:
    """The reply's subject: the turn, and how many lines of the whole mail were not understood."""
    unread = len(reply.not_understood)
    return f"Turn {turn}: orders received" + (f", {unread} line{'s' * (unread != 1)} not understood" if unread else "")


class CelestialEmpire(GameRules[Play]):
    """Celestial Empire: 2 to 9 empires, simultaneous turns."""

    schema = SCHEMA
    migrations = MIGRATIONS
    name = "celestial-empire"
    title = "Celestial Empire"
    seats = range(2, 10)
    policy = TurnPolicy.SIMULTANEOUS
    default_variant = "standard"
    templates = "gm.games.celestial_empire"
    forfeit_for_silence = False
    take_over_after = 2
    """An empire whose player sends nothing for two turns in a row is played
    by the GM's robot until they send orders again (`gm.kernel.takeover`)."""
    has_setup = False
    """No setup: every empire starts from its home planet."""

    def template_folders(self, edition: int) -> tuple[str, ...]:
        """The HTML sheet of games made before `SHEETS_EDITION` (scores by
        number alone, a reply's text too wide for a phone) is kept in
        templates/edition4."""
        return ("templates/edition4", "templates") if edition < SHEETS_EDITION else ("templates",)

    def describe_variant(self, variant: str) -> str:
        """The variant's rules in words, for invitations (its conditions of victory and length)."""
        return variant_named(variant).describe()

    def default_aliases(self, count: int) -> list[str]:
        """Empire names for seats the operator leaves unnamed: the first ``count`` of `NAMES`, all
        valid by R-14."""
        return list(NAMES[:count])

    def alias_problem(self, alias: str) -> str | None:
        """An empire's name: 1 to 9 letters and digits, starting with a
        letter, and no word orders use (R-14)."""
        if not NAME_RULE.match(alias):
            return "an empire's name is 1 to 9 letters and digits, starting with a letter (ruling R-14)"
        if alias.lower() in RESERVED:
            return f"orders use the word {alias}: choose another name (ruling R-14)"
        return None

    def fresh_terms(self, terms: Any, seed: int) -> Terms:
        """The seed the galaxy is generated from, recorded at creation so every replay builds the
        same galaxy."""
        return terms if isinstance(terms, Terms) else Terms(seed)

    def creation_fields(self, terms: Any) -> list[str]:
        """The seed as a line of the creation event, so the archive alone rebuilds the game."""
        return [f"seed: {terms.seed}"] if isinstance(terms, Terms) else []

    def creation_terms(self, fields: dict[str, str]) -> Terms | None:
        """The seed read back from the creation event's lines (None if it has none)."""
        return Terms(int(fields["seed"])) if "seed" in fields else None

    def new_play(self, game: Table[Play], terms: Any) -> Play:
        """Turn 1: the galaxy from the seed, each empire at its home with its five ships, and
        whether the empires vote on the length (R-72)."""
        if not isinstance(terms, Terms):
            raise ValueError("a game of Celestial Empire is made with a seed (its creation event has none)")
        galaxy = generate(terms.seed, len(game.seats))
        variant = variant_named(game.variant)
        state = new_game(galaxy, [s.alias for s in game.seats])
        state.voting = variant.conditions.length is Length.VOTED
        state.routes_before_fuel = game.edition >= SHEETS_EDITION
        return Play(terms, variant, state)

    def invitations(self, game: Table[Play], at: datetime) -> list[Notice]:
        """Each empire's turn-1 sheet: there is no setup, so the first mail is the first sheet."""
        return [Notice(p, "turn_sheet", "The game begins: turn 1", self._sheet(game, p, at, None) | {"first": True})
                for p in mailed(game)]

    def is_notation(self, first_word: str) -> bool:
        """Whether a line is an order (``S123J120``, ``123B3I``, ``SCAN101``...) rather than a
        command such as ``check``."""
        return bool(_NOTATION_WORD.match(first_word))

    def is_notation_comment(self, line: str) -> bool:
        """Research orders are written as comments, ``;RP219 LINK 220`` (l.1798, R-67)."""
        return is_research_line(line)

    def submit(self, game: Table[Play], event: PlayerMail, mail: Mail, reply: Reply) -> Submitted:
        """Read the mail's orders line by line: the lines that read stand,
        each line that does not is answered with its line and column. A mail
        with any readable order replaces all the empire sent before (R-12)."""
        play: Play = game.play
        empire = event.player
        if empire in play.resigned:
            reply.ignored.append("your orders: you resigned; your empire plays on by its standing orders")
            return Submitted(Did.IGNORED)
        answered = late_for(game, event)
        if answered is not None and mail.mode != "check":
            reply.ignored.append(f"your orders: they answer turn {answered}, which ran before your mail came, so "
                                 f"they were not used for turn {play.state.turn}; to use them, send them again "
                                 f"in reply to the turn {play.state.turn} sheet (ruling R-12)")
            reply.data["turn"] = turn = play.state.turn
            reply.data["late"] = answered
            reply.subject = lambda: f"Turn {turn}: your mail answers turn {answered}: not used"
            reply.data["in_force"] = [str(order) for order in play.pending.get(empire, [])]
            # Nothing ran: whoever the turn still waits for, the sender among them, is named.
            self._waiting(game, reply, self.waiting_for(game))
            return Submitted(Did.LATE)
        lines = parse_orders(mail.notation)
        orders = [line.order for line in lines if line.order is not None]
        errors = [line.error for line in lines if line.error is not None]
        for error in errors:
            reply.not_understood.append(f"line {error.line}, column {error.column}: "
                                        f"{unexpected_in(error, game.edition)} (see below)")
        if errors:
            reply.data["syntax"] = syntax_data(errors[0], mail.lines, game.edition)
            reply.data["syntax_more"] = [syntax_data(error, mail.lines, game.edition) for error in errors[1:]]
        research = research_comments(mail.lines)
        if mail.mode == "check":
            reply.data["checked"] = [str(order) for order in orders]
            counted = f"checked {len(orders)} order{'s' * (len(orders) != 1)}"
            if game.edition < SHEETS_EDITION:  # a check only read the orders
                reply.done.append(f"{counted}: not submitted, as you asked")
                return Submitted(Did.CHECKED)
            refused = reply.data["check_refused"] = check_lines(play.state, empire, lines)
            found = f"{len(refused)} the turn would refuse (below)" if refused else "none the turn would refuse"
            reply.done.append(f"{counted} against your empire as it stands: {found}; not submitted, as you asked")
            return Submitted(Did.CHECKED)
        did = Did.ACCEPTED
        if orders:
            play.pending[empire] = orders
            play.research[empire] = research
            reply.done.append(f"your orders for turn {play.state.turn}: {len(orders)} read"
                              + (f", {len(errors)} not" if errors else "") + ", replacing all you sent before")
        elif research:  # research lines alone replace only the research lines sent before
            play.research[empire] = research
            play.pending.setdefault(empire, [])
            reply.done.append(f"your research orders for turn {play.state.turn}: {len(research)}, replacing "
                              "the research orders you sent before; your other orders stand")
        else:
            if errors:
                reply.ignored.append("no order could be read, so the orders you sent before stand")
            did = Did.REJECTED
        reply.data["turn"] = turn = play.state.turn
        reply.subject = lambda: _received(turn, reply)
        if not event.robot:  # the kernel sends no reply to the GM's robot: no one would read the list
            in_force = [str(order) for order in play.pending.get(empire, [])]
            reply.data["in_force"] = in_force + play.research.get(empire, [])
        self._waiting(game, reply, [p for p in self.waiting_for(game) if p != empire])
        correcting = [game.seat(p).alias for p in sorted(game.correcting) if p != empire and p in self.playing(game)]
        if correcting:  # only in games that wait for corrected orders (gm.kernel.correction)
            reply.data["correcting"] = correcting
            reply.data["correcting_names"] = _listed(correcting)
        return Submitted(did)

    @staticmethod
    def _waiting(game: Table[Play], reply: Reply, players: list[int]) -> None:
        """What the reply says the turn waits for: these empires' orders, or the deadline."""
        waiting = [game.seat(p).alias for p in players]
        reply.data["waiting_for"] = waiting
        reply.data["waits_for_deadline"] = game.options.wait_for_deadline
        reply.data["waiting_names"] = _listed(waiting)

    def run(self, game: Table[Play], at: datetime, missing: list[int]) -> Turn:
        """Every empire still played has sent orders (the kernel runs the turn after the mail's
        commands), or the deadline passed: the turn runs without the missing empires' orders; their
        standing orders, defences, mining and score go on (R-84)."""
        play: Play = game.play
        after, report = run_turn(play.state, play.pending, play.research)
        if game.edition >= TURN_STATE_EDITION:
            play.ran.append(ran(report.turn, play.pending, play.research, after))
        play.state = after
        play.reports.append(report)
        play.awaiting += [(empire, what) for empire, what in report.operator]
        play.pending.clear()
        play.research.clear()
        result = play.variant.result(after, report, frozenset(play.resigned))
        if result is not None:
            reason, winners = result
            end = GameEnd(EndKind.RULES, report.turn, tuple(winners), clause=reason, result=result)
            return self._final(game, at, end, report)
        return Turn(lambda: [Notice(p, "turn_sheet", f"Turn {report.turn} results; orders for turn {after.turn}",
                                    self._sheet(game, p, at, report)) for p in mailed(game)])

    def playing(self, game: Table[Play]) -> list[int]:
        """The empires not resigned: a resigned empire stays in the game on its standing orders, but
        has no say (R-84)."""
        return [p for p in game.players if p not in game.play.resigned]

    def waiting_for(self, game: Table[Play]) -> list[int]:
        """The empires still played whose orders for this turn are not in."""
        play: Play = game.play
        if game.phase != PLAY:
            return []
        return [p for p in game.players if p not in play.pending and p not in play.resigned]

    def turn(self, game: Table[Play]) -> int:
        """The turn the orders are collected for."""
        return int(game.play.state.turn)

    def common(self, game: Table[Play], player: int, at: datetime | None) -> dict[str, Any]:
        """The kernel's header, with the empire's name, the variant's rules and the turn, which
        every sheet shows."""
        play: Play = game.play
        return super().common(game, player, at) | {
            "empire": game.seat(player).alias, "ruleset": play.variant.describe(), "turn": play.state.turn,
            "wait_for_deadline": game.options.wait_for_deadline}

    def help_data(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        """The help sheet: the commands, and every order's form with its meaning and an example."""
        return self.common(game, player, at) | {
            "commands": [("check", "check the orders in this mail without submitting them"), *COMMANDS],
            "forms": [(form.syntax, form.meaning, form.example) for form in COMMANDS_HELP]}

    def status(self, game: Table[Play], player: int, at: datetime) -> Notice:
        """The empire's sheet again, as of the last turn run (the final one once the game is over)."""
        play: Play = game.play
        last = play.reports[-1] if play.reports else None
        subject = "The game is over: your final sheet" if game.phase == ENDED else f"Turn {play.state.turn}: your sheet"
        return Notice(player, "turn_sheet", subject, self._sheet(game, player, at, last))

    def history(self, game: Table[Play], player: int, at: datetime) -> dict[str, Any]:
        """Every turn's command history and events of this empire, and only its own (spec section 8)."""
        play: Play = game.play
        turns = [{"turn": r.turn, "entries": r.history.get(player, []), "seen": r.seen.get(player, [])}
                 for r in play.reports]
        return self.common(game, player, at) | {"turns": turns}

    def committed(self, game: Table[Play]) -> list[tuple[str, bytes]]:
        """The galaxy, from the game's first mail on: the seed it (and every
        draw of the game) derives from, and how many empires it was made
        for, as the lines ``seed N`` and ``empires N``; in games of
        `TURN_STATE_EDITION` on, also each turn's state, from the sheets of
        that turn on, as ``turn N`` and ``state DIGEST`` (docs/verification.md)."""
        play: Play = game.play
        turns = [(turn_label(t.turn), turn_value(t.turn, t.state)) for t in play.ran]
        return [("galaxy", galaxy_value(play.terms.seed, len(game.seats))), *turns]

    def revealed_record(self, game: Table[Play]) -> str | None:
        """In games of `TURN_STATE_EDITION` on, the whole game: the variant,
        the seed, the empires and each turn's orders and research lines."""
        play: Play = game.play
        if game.edition < TURN_STATE_EDITION:
            return None
        return record_text(play.variant.name, play.terms.seed, [s.alias for s in game.seats], play.ran)

    def replayed(self, record: str, player: int) -> Replayed:
        """The record played again from its galaxy, turn by turn, as empire
        ``player`` was told it (`verification.replayed`)."""
        return replayed_record(record, player)

    def end(self, game: Table[Play], at: datetime, end: GameEnd) -> Turn:
        """A resignation leaves the empire in play, run by its standing
        orders (R-84), while two or more empires are still played; an agreed
        draw, or the last resignation but one, ends the game."""
        play: Play = game.play
        losers = end.losers
        if losers and all(p in play.resigned for p in losers):
            return Turn(list)  # resigned already
        playing = [p for p in game.players if p not in play.resigned and p not in losers]
        if losers and len(playing) >= 2:
            play.resigned.update(losers)
            for p in losers:
                play.pending.pop(p, None)
                play.research.pop(p, None)
            names = " and ".join(game.seat(p).alias for p in losers)
            return Turn(lambda: [Notice(p, "resigned", f"{names} resigned", self.common(game, p, at) | {"who": names})
                                 for p in mailed(game)])
        if end.winner is None and losers and len(playing) == 1:
            end = replace(end, winners=(playing[0],))
        return self._final(game, at, replace(end, after_turn=play.state.turn - 1))

    robot_levels = LEVELS

    def robot_text(self, game: Table[Play], player: int, level: str, rng: Random) -> str | None:
        """The robot's orders for the turn being collected, chosen from the
        empire's own sheet (`robot.robot_mail`); None once it has sent them,
        or when the empire resigned and plays by its standing orders (R-84)."""
        play: Play = game.play
        if game.phase != PLAY or player in play.pending or player in play.resigned:
            return None
        last = play.reports[-1] if play.reports else None
        return robot_mail(play.state, last, player, play.variant.conditions, level, rng)

    def awaiting_operator(self, game: Table[Play]) -> list[str]:
        """The research orders passed to the operator and not yet answered (R-67), for `gm show`."""
        play: Play = game.play
        return [f"player {empire} ({game.seat(empire).alias}): {what}" for empire, what in play.awaiting]

    def answer(self, game: Table[Play], at: datetime, player: int, text: str) -> list[Notice]:
        """The operator's answer to what the empire asked of the GM: mailed to
        it, and the empire's questions count as answered (R-67)."""
        play: Play = game.play
        asked = [what for empire, what in play.awaiting if empire == player]
        play.awaiting = [(empire, what) for empire, what in play.awaiting if empire != player]
        return [Notice(player, "answer", "The GM answers your research order" if asked else "The GM answers you",
                       self.common(game, player, at) | {"text": text, "asked": asked})]

    def draw_lapses(self, game: Table[Play]) -> str:
        """An offer of a draw lapses when the turn runs."""
        return f"turn {game.play.state.turn} runs"

    def reminder_what(self, game: Table[Play]) -> str:
        """A reminder asks for the orders of the turn being collected."""
        return f"orders for turn {game.play.state.turn}"

    def _final(self, game: Table[Play], at: datetime, end: GameEnd, report: Report | None = None) -> Turn:
        """The game is over: each empire's final sheet, with the game's mailbox."""
        play: Play = game.play
        end = replace(end, ranking=_ranking(game, end))
        last = report or (play.reports[-1] if play.reports else None)
        return Turn(lambda: [Notice(p, "turn_sheet", "The game is over: your final sheet",
                                    self._sheet(game, p, at, last) | {"outcome": end.reason}, attach_archive=True)
                             for p in mailed(game)], end)

    def _sheet(self, game: Table[Play], player: int, at: datetime, report: Report | None) -> dict[str, Any]:
        play: Play = game.play
        common = self.common(game, player, at)
        return common | sheets.sheet_data(play.state, report, player, play.variant.conditions) | {
            "conditions": play.variant.describe(), "in_force": [str(o) for o in play.pending.get(player, [])]}


def _ranking(game: Table[Play], end: GameEnd) -> tuple[tuple[int, ...], ...]:
    """The empires' final standing, best first, ties grouped (the ratings'
    order, `GameEnd.ranking`): the winners (allied co-winners among them), or
    after an agreed draw every empire still played; then the other empires
    still played, then those that resigned or forfeited, each by score."""
    play: Play = game.play
    lost = set(play.resigned) | set(end.losers)
    first = end.winners or (tuple(p for p in game.players if p not in lost)
                            if end.kind is EndKind.DRAW_AGREED else ())
    ranking = [first] if first else []
    for side in (False, True):
        rest = [p for p in game.players if p not in first and (p in lost) == side]
        for score in sorted({play.state.empires[p].score for p in rest}, reverse=True):
            ranking.append(tuple(p for p in rest if play.state.empires[p].score == score))
    return tuple(ranking)


def _listed(aliases: list[str]) -> str:
    """Empires named in a sentence: "Alpha", "Alpha and Beta", "Alpha, Beta and Gamma"."""
    return ", ".join(aliases[:-1]) + " and " + aliases[-1] if len(aliases) > 1 else "".join(aliases)
