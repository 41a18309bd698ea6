"""The kernel's values: what games, the kernel and the mail edge pass each other.

Plain data, no behaviour: the phases of a game, a seat, the options a game
is run by, how a game ended, the events a game's archive holds (players'
mail, the GM's clock, the operator's actions), and what the GM says
(`Notice`, `Reply`; what they ask of the edge beside their text is in
`gm.kernel.effects`; what a game's hooks hand back to the kernel is in
`gm.kernel.outcomes`). The engine (`gm.kernel.engine`) gives them meaning;
games (`gm.games`) and the edge (`gm.pbem`) import them from here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from .effects import CalendarEvent, Effect
from .settings import PlayerSettings

SETUP = "setup"
PLAY = "play"
ENDED = "ended"

DEFAULT_GAME = "spaceships"
"""The game of archives and records that name none."""
EDITION = 9
"""The edition of gm's rules for answering mail that new games are made
under. A game keeps the edition it was made under (`MailGame.edition`), so
that its archive replays byte for byte after gm changes how it answers:
edition 1 is every game made before editions were recorded."""
LIGHT_MAIL_EDITION = 4
"""The first edition whose mail is light: HTML sheets styled by a ``<style>``
block and classes in place of per-cell inline styles, and the text and HTML
parts of the players' mail sent as 7bit, not quoted-printable, when they are
ASCII in lines of at most 998 characters (`gm.pbem.writing.mailer.build`)."""
SHEETS_EDITION = 5
"""The first edition of issue 22's sheets: every plain-text part keeps to
78 columns (`gm.pbem.writing.mailer.fitted`); the final sheet attaches the
player's own record of the game in place of their whole mailbox; the Grid
Fighters HTML sheet colours each side as the web archive does; the
Celestial Empire HTML sheet fits a phone's width and names the reader's
empire in its scores, its ``check`` tries the orders against the empire as
it stands, and its turn refuses a jump to a wrong first planet for that,
not for the fuel."""
WORDS_EDITION = 5
"""The first edition whose mail says what is true where earlier ones did
not (issue 22): the footer says that only orders (or a setup) sent again
replace the earlier ones, never chat, press or commands; Celestial Empire's
footer says "or earlier" only in a game that does not wait for its deadline;
a sheet sent again after the game ended does not promise the mailbox that
only the final mail had; the sheet after a missed deadline says how many
more forfeit the game; greetings are chat, not slips of a command; a plain
reply to press goes back to its sender (`gm.kernel.press`); a syntax error
says "found the end of the order". Games of earlier editions keep the
earlier words (each game's templates/edition4 holds what differs)."""
TIME_EDITION = 6
"""The first edition of issues 24 to 26 (its features each name this
edition where they change what a game's mail holds): mail that sets or moves
a deadline carries a calendar part, deadlines are shown in the player's own
time zone, mail that is not a game's own turn mail carries list headers, and
every player's mail carries the seats' commitments. Games of earlier editions
keep their mail as it was."""
FINISH_EDITION = 7
"""The first edition of the work that finishes issues 24 to 27 (its
features each name this edition where they change what a game's mail holds):
observers' mail carries list headers and its own unsubscribe, Celestial
Empire commits to each turn's hidden state, and the Spaceships sheet mail is
lighter. Games of earlier editions keep their mail as it was."""
SETTLED_EDITION = 8
"""The first edition of the work after issues 24 to 26 (issue 27 and what
walking the first hour found; its features each name this edition where they
change what a game's mail holds). Games of earlier editions keep their mail
as it was."""
STEADY_EDITION = 9
"""The first edition of the work after edition 8 shipped (the rest of issue
27 and what its last stop left alone; its features each name this edition
where they change what a game's mail holds). Games of earlier editions keep
their mail as it was."""
CALENDAR_EDITION = TIME_EDITION
"""The first edition whose mail that sets or moves a player's deadline
carries a calendar event for it (`gm.kernel.calendar`): earlier games' mail,
and so their archives, stay as they were."""
ONE_REPLY_EDITION = 3
"""The first edition that answers ``help``, ``status`` and ``history`` inside
the reply to the mail that asked (`Notice.enclosed`), one mail per mail;
earlier editions sent each in a mail of its own."""


@dataclass(frozen=True)
class Seat:
    """A player's place in a game: number, address and the alias the others see."""

    player: int
    address: str
    alias: str
    robot: str | None = None
    """The level (``easy``, ``normal``, ``hard``) of the GM's robot that holds
    this seat, or None for a person: a robot seat is sent no mail, and its
    orders are events of the GM's own (`gm.pbem.master.robots`)."""


@dataclass(frozen=True)
class Options:
    """How a game is run by mail."""

    deadline: timedelta = timedelta(hours=72)
    """Time allowed for each turn, or each move in a game of alternating
    moves (and for setup)."""
    wait_for_deadline: bool = False
    """Run turns only at the deadline, even when every player is in."""
    reminder_before: timedelta = timedelta(hours=12)
    """When to remind a player who has not sent orders."""
    forfeit_after: int = 3
    """Consecutive deadlines missed after which a player forfeits."""
    absence_max: timedelta = timedelta(days=14)
    """The longest absence a player may declare (`gm.kernel.absence`)."""
    absence_total: timedelta = timedelta(days=28)
    """How long a player's absences in one game may add up to."""
    public_each_turn: bool = False
    """Both players agreed that the web archive (`gm.web`) may show the game
    while it is played, after each turn: only what an observer may know
    (`gm.kernel.observers`), nothing hidden. Otherwise a game is shown only
    once it has ended."""
    rated: bool = False
    """The game counts for its players' ratings (by default, a game by
    `gm new` or by challenge does not; a seek is rated unless it says
    ``unrated``). A game against the robot always counts for the robot's own
    calibration; ``rated`` makes it count for the person too."""
    take_over_after: int = 0
    """Deadlines a person's seat may miss in a row before the GM's robot
    plays it until they send orders again (`gm.kernel.takeover`); 0: never,
    the seat's standing orders (or nothing) run as before."""
    take_over_level: str = "normal"
    """The level of the robot that takes over such a seat (one of the game's
    robot levels); the creation event says it only when not ``normal``."""


class EndKind(enum.Enum):
    """Why a game ended."""

    RULES = "rules"
    """The rules say so (a fleet destroyed, a flag taken, the length ran out)."""
    RESIGNED = "resigned"
    FORFEIT = "forfeit"
    """Seats sent nothing for `Options.forfeit_after` deadlines in a row."""
    DRAW_AGREED = "draw agreed"
    CANCELLED = "cancelled"
    """The operator cancelled the game (`Cancelled`)."""


class WordedEnd(Protocol):
    """A rules core's end as a value (its reasons, each a code, the seat it
    concerns and the clause) that its game words in one place, for a reader."""

    def words(self, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
        """The end in words: each seat as "player N" (the record's third
        person) without ``names``, else by its name; ``viewer``'s own seat
        as "you", with the verb agreeing."""
        ...


@dataclass(frozen=True)
class GameEnd:
    """How a game by mail ended: what decides anything reads ``kind``, never
    the words, which `reason` (the record's) and `words` (a reader's) alone make.

    ``scores`` are by seat (None where the game keeps none); ``after_turn``
    is the last turn (or move) played."""

    kind: EndKind
    after_turn: int = 0
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()
    """The seats that resigned or forfeited."""
    scores: tuple[int, ...] | None = None
    clause: str = ""
    """The rules' own words for a `EndKind.RULES` end its game gives as a
    sentence (Celestial Empire's), or the operator's for a
    `EndKind.CANCELLED` one."""
    worded: WordedEnd | None = None
    """A `EndKind.RULES` end its game gives as a value, which words itself
    for each reader (`words`); ``clause`` is then unused."""
    who: str = ""
    """The losers' aliases, joined ("Ann and Cy")."""
    missed: int = 0
    """How many deadlines in a row a `EndKind.FORFEIT` end's losers missed."""
    steps: str = "turns"
    """What those deadlines were for, in the plural: "turns", "moves"."""
    result: Any = None
    """A `EndKind.RULES` end's result as the rules core gave it."""
    ranking: tuple[tuple[int, ...], ...] = ()
    """Every seat's final place, best first, the seats tied for a place
    grouped (allied co-winners), as the game's own standing has it: filled by
    a game of more than two seats (Celestial Empire), where ``winners`` and
    ``losers`` do not say it all; read through `standing`."""

    def standing(self, players: Sequence[int]) -> tuple[tuple[int, ...], ...]:
        """The seats ``players`` by their final place, best first, ties
        grouped: ``ranking`` where the game gave one, else the winners, then
        the seats that neither won nor lost, then the losers (an end with no
        winner and no loser, a draw, is one group of every seat)."""
        if self.ranking:
            return self.ranking
        middle = tuple(p for p in players if p not in self.winners and p not in self.losers)
        groups = (self.winners, middle, tuple(p for p in players if p in self.losers))
        return tuple(group for group in groups if group)

    @property
    def winner(self) -> int | None:
        """The one winner, or None (a draw, or more than one)."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def reason(self) -> str:
        """The end in words, as every mail, page and record says it."""
        if self.kind is EndKind.RESIGNED:
            return f"{self.who} resigned"
        if self.kind is EndKind.FORFEIT:
            return (f"{self.who} sent nothing for {self.missed} {self.steps} in a row "
                    f"and forfeit{'s' * (len(self.losers) == 1)}")
        if self.kind is EndKind.DRAW_AGREED:
            return "a draw was agreed"
        if self.kind is EndKind.CANCELLED:
            return f"the GM cancelled the game: {self.clause}"
        return self.words()

    def words(self, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
        """The end in words for one reader: a rules end its game words as a
        value is said with ``names`` for the seats and "you" for
        ``viewer`` (`WordedEnd.words`); every other end as `reason` says it."""
        if self.kind is not EndKind.RULES:
            return self.reason
        return self.worded.words(names, viewer) if self.worded is not None else self.clause


# The events of a game's archive

@dataclass(frozen=True)
class Created:
    """A game (or a match of games) is set up between its players (``gm
    new``, or a challenge accepted by mail)."""

    at: datetime
    game_id: str
    seats: tuple[Seat, ...]
    variant: str
    options: Options
    terms: Any = None
    """The game's own creation terms (a Spaceships match), if any."""
    instance: str | None = None
    game: str = DEFAULT_GAME
    edition: int = EDITION
    observers: tuple[str, ...] = ()
    """Addresses that watch the game (`MailGame.observers`)."""
    robot_seed: int | None = None
    """Where the robot seats' choices come from (`MailGame.robot_seed`)."""
    settings: tuple[tuple[int, PlayerSettings], ...] = ()
    """The seats' players' own settings when the game was made (those not
    the defaults), so that its first mail uses them (`MailGame.settings`)."""
    commit_key: bytes | None = None
    """The game key of its commitments (`MailGame.commit_key`)."""


@dataclass(frozen=True)
class PlayerMail:
    """An authenticated player's own text, from a mail, read as commands and
    notation (`gm.kernel.commands`)."""

    at: datetime
    player: int
    text: str
    message_id: str | None = None
    in_reply_to: str | None = None
    """The Message-ID the mail says it answers (its In-Reply-To)."""
    subject: str = ""
    robot: bool = False
    """The GM's robot sent it for the seat (`gm.pbem.master.robots`), not its person."""
    deputy: bool = False
    """Whether the player's deputy sent it (`gm.kernel.deputies`): it counts
    as the player's, but for what only the player may do."""


@dataclass(frozen=True)
class DeadlinePassed:
    """The clock reached a deadline. ``at`` is when gm acted on it (later
    than the deadline when the daemon was down), ``deadline`` the deadline
    it is for (None in archives written before it was recorded)."""

    at: datetime
    deadline: datetime | None = None


@dataclass(frozen=True)
class ReminderDue:
    """The clock reached the time to remind the players the game waits for."""

    at: datetime


@dataclass(frozen=True)
class Bouncing:
    """Mail to ``player`` failed for good: a bounce came back, or the relay
    refused it. The game goes on as before; the other players are told."""

    at: datetime
    player: int
    reason: str


# The operator's actions (`gm pause`, `gm resume`, `gm deadline`, `gm
# replace`, `gm cancel`, `gm answer`, or the owner's mail): events of the
# archive like a player's mail, so `gm replay` reproduces what they did.

@dataclass(frozen=True)
class Paused:
    """The operator paused the game: the clock stops until `Resumed`."""

    at: datetime


@dataclass(frozen=True)
class Resumed:
    """The operator resumed a paused game: the deadline starts again from now."""

    at: datetime


@dataclass(frozen=True)
class DeadlineSet:
    """The operator set the deadline to ``deadline``, or moved it by ``extend``."""

    at: datetime
    deadline: datetime | None = None
    extend: timedelta | None = None


@dataclass(frozen=True)
class AddressReplaced:
    """The operator gave ``player``'s seat a new address (and so a new secret)."""

    at: datetime
    player: int
    address: str


@dataclass(frozen=True)
class SeatHanded:
    """The operator gave ``player``'s seat to the GM's robot at ``level``
    until its person sends orders again, or (``level`` None) gave it back to
    its person (`gm.kernel.takeover`)."""

    at: datetime
    player: int
    level: str | None


@dataclass(frozen=True)
class Cancelled:
    """The operator cancelled the game: it ends with no winner."""

    at: datetime
    reason: str


@dataclass(frozen=True)
class Answered:
    """The operator answers ``player`` on something the rules leave to the
    GM (a Celestial Empire research result): the player is sent ``text``,
    and the game may act on it (`GameRules.answer`)."""

    at: datetime
    player: int
    text: str


@dataclass(frozen=True)
class Away:
    """The player's one vacation for all their games, asked for at the GM's
    own address and confirmed (`gm.pbem.answers.away`), as it reaches one
    game: away until ``until``, or back (None). The game applies it by its
    own absence rules (`gm.kernel.absence.away`)."""

    at: datetime
    player: int
    until: datetime | None


@dataclass(frozen=True)
class SettingsChanged:
    """``player``'s own settings (`gm.kernel.settings`), as they now are:
    recorded in each game the player is in, so that the game's mail depends
    only on its own archive."""

    at: datetime
    player: int
    settings: PlayerSettings


@dataclass(frozen=True)
class ObserverLeft:
    """Observer ``observer`` (their number, from 1) unsubscribed from the
    game's mail (`gm.pbem.answers.unsubscribe`): recorded in the game, so
    that its replay sends them nothing more either (`gm.kernel.observers.left`)."""

    at: datetime
    observer: int


OPERATOR_EVENTS = (Paused, Resumed, DeadlineSet, AddressReplaced, SeatHanded, Cancelled, Answered)
"""The operator's actions on a game (`gm pause`, ..., or by mail from the owner)."""
Action = Paused | Resumed | DeadlineSet | AddressReplaced | SeatHanded | Cancelled | Answered
Event = (Created | PlayerMail | DeadlinePassed | ReminderDue | Bouncing | Away | SettingsChanged | ObserverLeft
         | Action)


# What the GM says

@dataclass(frozen=True)
class Notice:
    """One message the GM sends: to which player, which template, what data.

    ``answers`` is the Message-ID of the player's mail it replies to, if any;
    ``attach_archive`` asks for the player's own mailbox of the game so far
    (`gm.pbem.archive.replay.player_mailbox`). A notice to an observer, who holds
    no seat, has ``player`` 0 and ``observer`` the observer's number (from 1,
    in `MailGame.observers`)."""

    player: int
    template: str
    subject: str
    data: dict[str, Any] = field(default_factory=dict)
    answers: str | None = None
    attach_archive: bool = False
    observer: int = 0
    enclosed: tuple[Notice, ...] = ()
    """Documents sent inside this notice's mail, after its own text (the
    help, a sheet, the history a player asked for in the mail it answers)."""
    effects: tuple[Effect, ...] = ()
    """In the reply to a player's mail: what the mail asks of the edge
    beside the game's own mail (the games list, an address to confirm)."""
    calendar: CalendarEvent | None = None
    """The seat's deadline as a calendar event, on the mail that sets, moves
    or cancels it (`CALENDAR_EDITION`)."""


@dataclass
class Reply:
    """The sections of the GM's answer to one mail, and the game's data for it."""

    done: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    enclosed: list[Notice] = field(default_factory=list)
    """What the mail asked to see (`ONE_REPLY_EDITION`), sent inside the reply."""
    effects: list[Effect] = field(default_factory=list)
    """What the mail asks of the edge: the games list, an address to confirm."""
    subject: Callable[[], str] | None = None
    """How the game names the reply, worked out once the whole mail is read
    (``Move 3: your move made``); "Re: your mail" when it names none."""
    read: bool = True
    """Whether anyone is sent the reply: not when the GM's robot sent the
    mail (`PlayerMail.robot`: its seat is mailed nothing, and a person it
    stands in for is not sent its reply), so the reply's data that only the
    reply shows (a game's check of the orders, what may be done next) need
    not be made."""
