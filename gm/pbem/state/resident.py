"""What the GameMaster keeps in memory: a small summary of every game, and
the whole of only the games it handled lately.

A whole game (its `MailGame` with every past turn the rules keep, its mail
threads, the Message-IDs of the mail applied to it) grows with its history:
about a megabyte at turn 80. Deadlines, routing by address, bounces, the
games list and the operator's summary need much less, and need it for every
game: that is a `GameSummary`, a few hundred bytes that do not grow with
history. `Games` holds every game's summary and a bounded number of whole
games, most recently used first; a game that is not in memory is loaded
when it is asked for (from its snapshot, `gm.pbem.state.snapshots`, or by replay),
and a changed game leaving memory has its snapshot written first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from ...kernel.correction import awaited, to_remind
from ...kernel.model import MailGame
from ...kernel.values import ENDED, Seat
from ..archive.replay import Threads

CAPACITY = 200
"""Whole games kept in memory at once (about 1 MB each at turn 80)."""


@dataclass(frozen=True)
class GameSummary:
    """What gm must know of every game without loading it, under the names
    `MailGame` uses, so that code reading these needs no second spelling."""

    id: str
    phase: str
    turn: int
    seats: tuple[Seat, ...]
    deadline: datetime | None
    reminder: datetime | None
    waiting_for: tuple[int, ...]
    reminded: frozenset[int]
    bouncing: frozenset[int]
    paused: datetime | None
    awaiting: tuple[str, ...]
    """What the game waits for the operator to answer (`GameRules.awaiting_operator`)."""
    secret_subjects: tuple[str, ...]
    """Each seat's `MailGame.secret_subject_of`, in seat order."""
    earlier_secret_subjects: tuple[str, ...]
    stand_ins: frozenset[int] = frozenset()
    """The person's seats the GM's robot plays for now (`MailGame.stand_ins`)."""
    correcting: frozenset[int] = frozenset()
    """The seats the turn waits for corrected orders from (`MailGame.correcting`)."""
    correction_awaited: tuple[int, ...] = ()
    """Those of them a game of `gm.kernel.correction.REMIND_EDITION` on
    reminds before the deadline and names to the owner
    (`gm.kernel.correction.awaited`); none in a summary written before it,
    which no game of that edition has."""

    def to_remind(self) -> list[int]:
        """The seats a reminder would go to that it has not gone to yet: the
        kernel's one rule (`gm.kernel.correction.to_remind`) over the summary."""
        return to_remind(self.waiting_for, self.correction_awaited, self.reminded)

    def robot_plays(self, player: int) -> bool:
        """Whether the GM's robot plays the seat now, its own or a person's."""
        return bool(self.seat(player).robot) or player in self.stand_ins

    def reminder_due(self) -> datetime | None:
        return self.reminder

    def seat(self, player: int) -> Seat:
        return self.seats[player - 1]

    def others(self, player: int) -> list[Seat]:
        return [seat for seat in self.seats if seat.player != player]

    def seat_of(self, address: str) -> Seat | None:
        address = address.lower()
        return next((seat for seat in self.seats if seat.address.lower() == address), None)

    def secret_subject_of(self, player: int) -> str:
        return self.secret_subjects[player - 1]


def summary_of(game: MailGame) -> GameSummary:
    """A game's summary as it stands now."""
    return GameSummary(
        id=game.id, phase=game.phase, turn=game.turn, seats=game.seats, deadline=game.deadline,
        reminder=game.reminder_due(), waiting_for=tuple(game.waiting_for), reminded=frozenset(game.reminded),
        bouncing=frozenset(game.bouncing), paused=game.paused,
        awaiting=() if game.phase == ENDED else tuple(game.rules.awaiting_operator(game)),
        secret_subjects=tuple(game.secret_subject_of(seat.player) for seat in game.seats),
        earlier_secret_subjects=tuple(game.earlier_secret_subjects), stand_ins=frozenset(game.stand_ins),
        correcting=frozenset(game.correcting), correction_awaited=tuple(awaited(game)))


@dataclass
class Live:
    """A whole game in memory, with what handling its next mail needs."""

    game: MailGame
    threads: Threads
    number: int
    """The number of the last event archived."""
    last_in: str
    """That event's archive key."""
    last_messages: list[tuple[str, int]]
    """The archive key and player of each message that event sent."""
    applied: dict[str, set[str]] = field(default_factory=dict)
    """Players' mail applied: Message-ID -> digests of the texts gm read."""
    changed_at: float | None = None
    """When (`time.monotonic`) it first changed after its snapshot was
    written; None while the snapshot holds it as it is."""


class Games(Mapping[str, MailGame]):
    """Every game of the data directory by id: ``games[id]`` is the whole
    game (loaded if need be), `summaries` what is known of all of them."""

    def __init__(self, load: Callable[[str], Live], save: Callable[[Live], None], capacity: int = CAPACITY):
        self._load = load
        self._save = save
        self.capacity = capacity
        self.summaries: dict[str, GameSummary] = {}
        self.pending: set[str] = set()
        """Games known by another gm's summary (a snapshot of other schema
        numbers), not loaded yet since start-up: loaded when asked for, or
        by `gm.pbem.master.keeping.Keeping.prepare`."""
        self._live: OrderedDict[str, Live] = OrderedDict()

    def __getitem__(self, game_id: str) -> MailGame:
        return self.live(game_id).game

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.summaries

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    def live(self, game_id: str) -> Live:
        """The whole game, loaded if it is not in memory (KeyError for no game)."""
        if game_id not in self.summaries:
            raise KeyError(game_id)
        found = self._live.get(game_id)
        if found is None:
            found = self._load(game_id)
            self.keep(found)
        else:
            self._live.move_to_end(game_id)
        return found

    def is_loaded(self, game_id: str) -> bool:
        return game_id in self._live

    def keep(self, live: Live, summary: GameSummary | None = None) -> None:
        """Hold a whole game (just loaded or changed) and update its summary
        (``summary``, when the caller made it already); the least recently
        used beyond `capacity` leave memory, saved first if they changed
        (the save callback must not raise: a snapshot is only a cache)."""
        game_id = live.game.id
        self._live[game_id] = live
        self._live.move_to_end(game_id)
        self.summaries[game_id] = summary or summary_of(live.game)
        self.pending.discard(game_id)
        while len(self._live) > self.capacity:
            _, oldest = next(iter(self._live.items()))
            if oldest.changed_at is not None:
                self._save(oldest)
            self._live.popitem(last=False)

    def note(self, game_id: str, summary: GameSummary, pending: bool = False) -> None:
        """Know a game by its summary alone (from its snapshot's head; another
        gm's when ``pending``)."""
        self.summaries[game_id] = summary
        if pending:
            self.pending.add(game_id)
        else:
            self.pending.discard(game_id)

    def forget(self, game_id: str) -> None:
        """Drop a game from memory entirely (its archive is rebuilt on demand)."""
        self.summaries.pop(game_id, None)
        self.pending.discard(game_id)
        self._live.pop(game_id, None)

    def changed(self) -> list[Live]:
        """The games in memory changed since their snapshot was written."""
        return [live for live in self._live.values() if live.changed_at is not None]

    def all(self) -> list[GameSummary]:
        """Every game's summary, in the order the games were made."""
        return list(self.summaries.values())
