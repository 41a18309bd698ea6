"""Every game of the data directory, whichever master process runs it.

With several master processes (`gm.masters`) each holds only its own games
(`gm.pbem.data.store.Part`), but some mail is about all of a player's games
at once: a vacation, settings, a deputy, the games list and the digest, the
owner's actions, a move's confirmation, an unsubscribe link. Its answer is
made by one master (the front, or the game's own for ``games`` in a game's
mail), which must see the other masters' games too. It never changes them:
what it does in another master's game it does by spooling a GM event for
that game (`gm.pbem.operator.actions.request_action`), which the spool
routes to the game's own master (`gm.pbem.master.routing`), exactly as with
one master.

`AllGames` is that view: its own games as `Games` holds them, and each
other master's game read from the disk as its master last made it durable
(or is making it so): the summary from the snapshot's head when that head
is of the archive's last event, else from the game loaded whole (snapshot
and the events after it), read-only. A summary read is kept while the
game's stamp (`gm.pbem.state.index.stamp`, three ``stat`` calls) holds.
With one master there are no other games, and `AllGames` is `Games`'s own
summaries and games, unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime

from ...kernel.model import MailGame
from ...logs import event
from ..archive.events import clock_event_name
from ..data.store import Store, spool_key
from ..writing.mailer import Identity
from . import index, loading, snapshots
from .resident import Games, GameSummary, summary_of

READ_TRIES = 2
"""How often another master's game is read before it is left out: a read
can meet a batch of that master's being renamed into place."""


def _order(game_id: str) -> tuple[int, str]:
    return len(game_id), game_id


class AllGames(Mapping[str, MailGame]):
    """Every game by id (``all_games[id]``: the whole game), and `summaries`
    of all; another master's games are read from the disk, never changed."""

    def __init__(self, games: Games, store: Store, identity: Identity):
        self.games = games
        self.store = store
        self.identity = identity
        part = store.part
        self._others: Callable[[str], bool] | None = (
            None if part is None or part.count < 2 else (lambda game_id: not part.owns(game_id)))
        """Whether a game is another master's (None: there is no other)."""
        self._known: dict[str, tuple[index.Stamp, GameSummary]] = {}

    @property
    def summaries(self) -> Mapping[str, GameSummary]:
        """Every game's summary, in the order the games were made."""
        if self._others is None:
            return self.games.summaries
        found = dict(self.games.summaries)
        for game_id in self.store.game_ids():
            if game_id not in found and self._others(game_id):
                summary = self._summary(game_id)
                if summary is not None:
                    found[game_id] = summary
        return {game_id: found[game_id] for game_id in sorted(found, key=_order)}

    def summary(self, game_id: str) -> GameSummary | None:
        """One game's summary (None: no such game), without looking at the others."""
        if self._others is None or not self._others(game_id):
            return self.games.summaries.get(game_id)
        return self._summary(game_id)

    def all(self) -> list[GameSummary]:
        """Every game's summary, in the order the games were made."""
        return list(self.summaries.values())

    def stuck_elsewhere(self, game: GameSummary, now: datetime) -> bool:
        """Whether ``game`` is another master's and the deadline (or
        reminder) event it had due by ``now`` went to the shunt: what that
        master's own ``stuck`` holds, read from ``shunt/``, which every
        master shares, under the event's one spool key."""
        if self._others is None or not self._others(game.id) or game.deadline is None:
            return False
        due = [("deadline", game.deadline), ("reminder", game.reminder_due())]
        return any(at is not None and at <= now
                   and spool_key(at, "clock", clock_event_name(kind, game.id, game.turn, at)) in self.store.shunt
                   for kind, at in due)

    def __getitem__(self, game_id: str) -> MailGame:
        if self._others is None or not self._others(game_id):
            return self.games[game_id]
        game = self._read(game_id, whole=True)
        if not isinstance(game, MailGame):
            raise KeyError(game_id)
        return game

    def __contains__(self, game_id: object) -> bool:
        if not isinstance(game_id, str):
            return False
        return self.summary(game_id) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.summaries)

    def __len__(self) -> int:
        return len(self.summaries)

    def _summary(self, game_id: str) -> GameSummary | None:
        """Another master's game's summary, kept while its stamp holds (a
        stamp taken before the read, and only one settled: `index.settled_stamp`)."""
        stamped = index.settled_stamp(self.store.root, game_id)
        known = self._known.get(game_id)
        if stamped is not None and known is not None and known[0] == stamped:
            return known[1]
        summary = self._read(game_id, whole=False)
        if not isinstance(summary, GameSummary):
            self._known.pop(game_id, None)
            return None
        if stamped is not None:
            self._known[game_id] = (stamped, summary)
        return summary

    def _read(self, game_id: str, whole: bool) -> GameSummary | MailGame | None:
        """Another master's game from the disk: its summary (``whole``
        False) or the whole game; None when it has no archive yet (being
        made) or cannot be read (logged)."""
        for attempt in range(READ_TRIES):
            try:
                keys = loading.archive_keys(self.store, game_id)
                if not keys:
                    return None
                if not whole:
                    inbound = loading.inbound_keys(keys)
                    head = snapshots.read_head(self.store.root, game_id)
                    if head is not None and inbound and head.last_in == inbound[-1]:
                        summary = head.summary if snapshots.is_current(head) else snapshots.head_summary(head)
                        if summary is not None:
                            return summary
                live, _ = loading.load(self.store, self.identity, game_id, keys)
                return live.game if whole else summary_of(live.game)
            except Exception as error:  # another master's batch half renamed, or a game that does not load
                if attempt + 1 == READ_TRIES:
                    event("game of another master not read", logging.WARNING, game=game_id,
                          reason=f"{type(error).__name__}: {error}")
        return None
