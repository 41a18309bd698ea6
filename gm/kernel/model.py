"""A game played by mail, as the kernel keeps it: seats, options, phase, clock.

The game's own state lives in ``play``, which only the game (its
`gm.kernel.protocol.GameRules`) reads. A `MailGame` is never saved as such: it
is rebuilt by replaying the events in the game's archive (see
`gm.kernel.engine`), so the archive is the one truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .protocol import GameRules
from .schema import Step, fill_defaults
from .settings import DEFAULT as DEFAULT_SETTINGS
from .settings import PlayerSettings
from .shown import ShownDeadline
from .values import ENDED, SETUP, GameEnd, Options, Seat

SCHEMA = 5
"""The number of `MailGame`'s shape (its fields and theirs, but not
``play``, which its game numbers): bump it when they change
(`gm.kernel.schema` says how), and say in `MIGRATIONS` how to read the last."""
MIGRATIONS: dict[int, Step] = {1: fill_defaults, 2: fill_defaults, 3: fill_defaults, 4: fill_defaults}
"""How a `MailGame` of each earlier `SCHEMA` becomes one of the next: 2
added the players' ``settings``, the robots' ``stand_ins`` and the
commitments' ``commit_key`` (issues 24 to 26), each with its default; 3
the options' ``take_over_level`` (issue 25), ``normal`` as before it; 4
``correcting`` (`gm.kernel.correction`), no seat; 5 ``unread``, no lines
(no game made before it reminds of its lines)."""


@dataclass
class MailGame:
    """The state of one game by mail between events."""

    id: str
    seats: tuple[Seat, ...]
    rules: GameRules[Any]
    options: Options
    created_at: datetime
    variant: str
    phase: str = SETUP
    play: Any = None
    """The game's own state, read only by ``rules``."""
    deadline: datetime | None = None
    reminded: set[int] = field(default_factory=set)
    missed: dict[int, int] = field(default_factory=dict)
    outcome: GameEnd | None = None
    events: int = 0
    """How many events have been applied."""
    turn_of_event: dict[int, int] = field(default_factory=dict)
    """The turn being collected after each event (by its number): what the
    GM's mail for that event asked for, to tell a late answer (the event's
    number is in each of its Message-IDs)."""
    draw_offers: set[int] = field(default_factory=set)
    """The players whose offer of a draw stands; the game is drawn when
    every seat has offered. Offers lapse when the game moves on."""
    series: int = 1
    """Which game of a series this is (a Spaceships match plays its games
    one after another in the same MailGame)."""
    bouncing: set[int] = field(default_factory=set)
    """Players whose mail is bouncing, until they next write."""
    edition: int = 1
    """The edition of gm's rules for answering mail the game was made under
    (`gm.kernel.values.EDITION`): a game answers as gm did when it was made,
    so that its archive replays byte for byte."""
    instance: str | None = None
    """Makes the game's Message-IDs unique to the installation (see
    `gm.pbem.writing.mailer.message_id`); None in archives written before it, whose
    mail keeps the form it was sent in."""
    paused: datetime | None = None
    """When the operator paused the game, until it is resumed: no deadline
    runs (``deadline`` stays None) and no reminder goes out meanwhile."""
    replaced: dict[int, int] = field(default_factory=dict)
    """How often the operator gave each seat a new address: each time the
    seat's secret (`secret_subject_of`) changes, so the old address's reply
    token stops working."""
    observers: tuple[str, ...] = ()
    """Addresses that watch the game (``gm new --observer``): not seats; they
    are told of the game when it is made and sent the whole game when it
    ends (`gm.kernel.observers`), and can do nothing in it."""

    robot_seed: int | None = None
    """Where the robot seats' choices come from (`GameRules.robot_text`):
    drawn when the game is requested and recorded in its creation event, so
    the same game and seed give the robot the same choices."""
    commit_key: bytes | None = None
    """The game key the salts of its commitments derive from
    (`gm.kernel.commitments`): drawn when the game is requested and recorded
    in its creation event; None for a game made without one."""

    stand_ins: dict[int, str] = field(default_factory=dict)
    """The person's seats the GM's robot plays for now, by the robot's level:
    each after its person missed `Options.take_over_after` deadlines in a
    row, or the operator gave it (`gm.kernel.takeover`), until the person
    sends orders again. Unlike a robot's own seat (`Seat.robot`), its
    person is still sent the seat's mail."""

    absent: dict[int, tuple[datetime, datetime]] = field(default_factory=dict)
    """Each absent player's absence, from and until (`gm.kernel.absence`)."""
    absence_used: dict[int, timedelta] = field(default_factory=dict)
    """How long each player's absences that are over lasted."""
    absence_back: set[int] = field(default_factory=set)
    """Players back early by the event being applied (to tell the others)."""
    shown: ShownDeadline | None = None
    """The deadline the notices built since it was last set show, decided
    once the event is over (`gm.kernel.shown`)."""
    normal_deadline: datetime | None = None
    """The deadline as the game set it, before any absence extended it."""
    extended_deadline: datetime | None = None
    """The deadline as absences last left it (a different one was set afresh)."""
    ended_at: datetime | None = None
    """When the game ended (the event that ended it), once it has."""
    asked: dict[int, int] = field(default_factory=dict)
    """How many setups, turns or moves each seat was asked for (each time a
    deadline began that the game waited on the seat for): with ``late``, the
    share of them the seat answered in time (the ratings' reliability)."""
    late: dict[int, int] = field(default_factory=dict)
    """How many deadlines each seat missed, in all (``missed`` counts only
    those in a row)."""
    calendar: dict[int, tuple[int, tuple[datetime, str] | None]] = field(default_factory=dict)
    """Each seat's calendar event as the seat was last told of it
    (`gm.kernel.calendar`): its sequence number, and its deadline and
    summary, or None once cancelled."""

    correcting: set[int] = field(default_factory=set)
    """The seats whose last mail had an order line that could not be read:
    the turn waits for their corrected orders, or its deadline
    (`gm.kernel.correction`, games of its edition on)."""
    unread: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """The lines of each of those seats' last mail that could not be read,
    as its reply showed them (`gm.kernel.engine.syntax_data`): what its
    reminder names (`gm.kernel.correction.REMIND_EDITION` on)."""

    settings: dict[int, PlayerSettings] = field(default_factory=dict)
    """Each seat's player's own settings, as the game's ``settings`` events
    recorded them (`gm.kernel.settings`); a seat not in it has the defaults."""

    def settings_of(self, player: int) -> PlayerSettings:
        """``player``'s settings as this game knows them."""
        return self.settings.get(player, DEFAULT_SETTINGS)

    def asked_for(self) -> None:
        """A deadline began: each seat the game waits for is asked once more."""
        for player in self.waiting_for:
            self.asked[player] = self.asked.get(player, 0) + 1

    def set_deadline(self, deadline: datetime | None) -> None:
        """Set the deadline afresh: the notices built from now on show this one."""
        self.deadline = deadline
        self.shown = None if deadline is None else ShownDeadline(deadline)

    def decide_deadline(self, deadline: datetime) -> None:
        """The event moved the deadline (an absence, quiet hours): the notices
        built since it was last set show the new one (`gm.kernel.shown`),
        naming no quiet hours as what moved it (`gm.kernel.quiet` names
        them after)."""
        if self.shown is not None and self.shown.decided == self.deadline != deadline:
            self.shown.decided, self.shown.movers = deadline, ()
        self.deadline = deadline

    def __post_init__(self) -> None:
        if not self.missed:
            self.missed = {seat.player: 0 for seat in self.seats}

    @property
    def players(self) -> list[int]:
        return [seat.player for seat in self.seats]

    @property
    def secret_subject(self) -> str:
        """What the players' tokens are derived for (`gm.pbem.data.tokens.token`):
        the game, and in a series the game of the series, so that a reply
        address is useless once its game is over. Games made before that
        (no instance tag) keep one token for the whole series."""
        number = self.series
        return self.id if number == 1 or self.instance is None else f"{self.id}#{number}"

    @property
    def earlier_secret_subjects(self) -> list[str]:
        """The subjects of the series' games that are over, newest first."""
        if self.instance is None:
            return []
        return [self.id if n == 1 else f"{self.id}#{n}" for n in range(self.series - 1, 0, -1)]

    def secret_subject_of(self, player: int) -> str:
        """What ``player``'s token is derived for: the game's subject, and
        after the operator replaced the seat's address, which address of the
        seat this is, so that the new address gets a token of its own."""
        count = self.replaced.get(player, 0)
        return self.secret_subject if not count else f"{self.secret_subject}~{count}"

    def retired_secret_subjects(self, player: int) -> list[str]:
        """The subjects of the seat's replaced addresses, whose tokens no
        longer count."""
        base = self.secret_subject
        return [base if n == 0 else f"{base}~{n}" for n in range(self.replaced.get(player, 0))]

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    @property
    def robots(self) -> list[int]:
        """The seats the GM's robot holds."""
        return [seat.player for seat in self.seats if seat.robot]

    def robot_level(self, player: int) -> str | None:
        """The level of the robot that plays ``player``'s seat now, its own
        seat or a person's it stands in for; None when a person plays it."""
        return self.seat(player).robot or self.stand_ins.get(player)

    def others(self, player: int) -> list[Seat]:
        """Every seat but ``player``'s."""
        return [seat for seat in self.seats if seat.player != player]

    def seat_of(self, address: str) -> Seat | None:
        address = address.lower()
        for seat in self.seats:
            if seat.address.lower() == address:
                return seat
        return None

    @property
    def turn(self) -> int:
        """The turn (or move) being collected (0 during setup)."""
        return self.rules.turn(self)

    @property
    def waiting_for(self) -> list[int]:
        """Players whose setup, orders or move are still missing."""
        return [] if self.phase == ENDED else self.rules.waiting_for(self)

    def reminder_due(self) -> datetime | None:
        if self.deadline is None or self.phase == ENDED:
            return None
        return self.deadline - self.options.reminder_before
