"""A game played by mail: seats, options, phase, and the rules core's `Game`.

A `MailGame` is never saved as such: it is rebuilt by replaying the events in
the game's archive (see `gm.pbem.engine`), so the archive is the one truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..games.spaceships.game import Game
from ..games.spaceships.match import MatchTerms
from ..games.spaceships.orders import Order, Placement
from ..games.spaceships.ruleset import Ruleset

SETUP = "setup"
PLAY = "play"
ENDED = "ended"


@dataclass(frozen=True)
class Seat:
    """A player's place in a game: number, address and the alias the opponent sees."""

    player: int
    address: str
    alias: str


@dataclass(frozen=True)
class Options:
    """How a game is run by mail."""

    deadline: timedelta = timedelta(hours=72)
    """Time allowed for each turn (and for setup)."""
    wait_for_deadline: bool = False
    """Run turns only at the deadline, even when both players are in."""
    reminder_before: timedelta = timedelta(hours=12)
    """When to remind a player who has not sent orders."""
    forfeit_after: int = 3
    """Consecutive turns without orders after which a player forfeits."""


@dataclass
class Outcome:
    """How a game by mail ended: the rules' result, or a forfeit or resignation."""

    reason: str
    scores: tuple[int, int] | None
    winner: int | None
    after_turn: int


@dataclass
class MailGame:
    """The state of one game by mail between events."""

    id: str
    seats: tuple[Seat, Seat]
    ruleset: Ruleset
    options: Options
    created_at: datetime
    variant: str = "2.6.1"
    phase: str = SETUP
    setups: dict[int, list[Placement]] = field(default_factory=dict)
    game: Game | None = None
    pending: dict[int, list[Order]] = field(default_factory=dict)
    """Orders in force for the coming turn, by player: the last valid ones sent."""
    deadline: datetime | None = None
    reminded: set[int] = field(default_factory=set)
    missed: dict[int, int] = field(default_factory=lambda: {1: 0, 2: 0})
    outcome: Outcome | None = None
    events: int = 0
    """How many events have been applied."""
    draw_offer: int | None = None
    """The player whose offer of a draw stands, until the next turn runs."""
    match: MatchTerms | None = None
    """The match this game is part of [9], [10], if any: its games are played
    one after another in this same MailGame."""
    match_scores: list[tuple[int, int]] = field(default_factory=list)
    """The scores of the match's games that have ended [9.4]."""
    additional_costs: tuple[int, int] = (0, 0)
    """What each player's additional ships must cost in this game [10.3]."""
    match_result: int | None = None
    """The winner of a finished match (None for a draw, or while it goes on)."""
    bouncing: set[int] = field(default_factory=set)
    """Players whose mail is bouncing, until they next write."""
    instance: str | None = None
    """Makes the game's Message-IDs unique to the installation (see
    `gm.pbem.mailer.message_id`); None in archives written before it, whose
    mail keeps the form it was sent in."""

    @property
    def secret_subject(self) -> str:
        """What the players' tokens are derived for (`gm.pbem.tokens.token`):
        the game, and in a match the game of the match, so that a reply
        address is useless once its game is over. Games made before that
        (no instance tag) keep one token for the whole match."""
        number = len(self.match_scores) + 1
        return self.id if number == 1 or self.instance is None else f"{self.id}#{number}"

    @property
    def earlier_secret_subjects(self) -> list[str]:
        """The subjects of the match's games that are over, newest first."""
        if self.instance is None:
            return []
        return [self.id if n == 1 else f"{self.id}#{n}" for n in range(len(self.match_scores), 0, -1)]

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    def opponent(self, player: int) -> Seat:
        return self.seats[2 - player]

    def seat_of(self, address: str) -> Seat | None:
        address = address.lower()
        for seat in self.seats:
            if seat.address.lower() == address:
                return seat
        return None

    @property
    def turn(self) -> int:
        """The turn being collected (0 during setup)."""
        return self.game.turn if self.game else 0

    @property
    def waiting_for(self) -> list[int]:
        """Players whose setup or orders are still missing."""
        if self.phase == SETUP:
            return [p for p in (1, 2) if p not in self.setups]
        if self.phase == PLAY:
            return [p for p in (1, 2) if p not in self.pending]
        return []

    def reminder_due(self) -> datetime | None:
        if self.deadline is None or self.phase == ENDED:
            return None
        return self.deadline - self.options.reminder_before
