"""The GameMaster's part that opens its games at start-up, loads a whole
game when its mail comes, and writes their snapshots (`gm.pbem.state.loading`,
`gm.pbem.state.resident`, `gm.pbem.state.snapshots`).

After an upgrade of gm, games whose snapshot was written under other schema
numbers start *pending* (`Games.pending`): served at once on their old
summary, each is loaded (by migration, else by replay) when its mail comes,
and meanwhile the daemon loads them one at a time in its idle moments
(`prepare`), most urgent first: those waiting for their robot's move, then
by deadline or reminder, soonest first, ended games last (a pending game's
deadline, reminder or robot waits for it to be loaded). Mail for a pending
game waits only for its own game's loading (and at most the end of one
other's already begun)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ...kernel.values import ENDED
from ...logs import event as log_event
from ...storage.batches import current_batch
from ..data.crashpoints import crashpoint
from ..data.store import Store
from ..state import index, loading, snapshots
from ..state.resident import Games, Live
from ..writing.mailer import Identity

log = logging.getLogger("gm")


class Keeping:
    """The games' part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    clock: Callable[[], datetime]
    started: datetime | None
    games: Games
    handled_keys: set[str]
    unfinished: set[str]
    _left: list[Live]
    _robot_games: set[str]
    _queue: list[str]
    """The pending games in the order `prepare` takes them, most urgent last."""
    _entries: dict[str, index.Entry]
    """Each game's entry of the start-up index, as last read or written."""
    _index_written: float
    """When (`time.monotonic`) the index was last looked at by `save_index`."""
    _index_file: index.Index | None
    """The index as last read or written (None: none)."""
    index_due: bool
    """The start-up index waits for the first idle moment (`load`, `idle`)."""
    unopened: dict[str, Exception]
    """Games that did not open at start-up (an archive that does not replay:
    damaged, or gm's own fault), with the error: stopped, their mail goes to
    the shunt as gm's own fault (`gm.pbem.master.faults`), retried at a start
    where they open."""

    def _send(self, game_id: str, messages: list[tuple[str, int, bytes]]) -> None:
        raise NotImplementedError  # `gm.pbem.master.applying.Applying`'s

    def load(self, write_index: bool = True) -> None:
        """Open every game (its summary; the whole game only where its
        snapshot is not current), from the start-up index where its entry
        still holds (`gm.pbem.state.index`); finish any half-done reply
        queueing; and write the snapshots that were missing or stale, and
        the index, for the next start. Without ``write_index`` (a daemon's
        start, whose first mail waits for the end of `load`) the index is
        left for the first idle moment once serving began (`idle`): it is
        only a faster next start, and an index missing, stale or torn by a
        crash meanwhile is read as none, entry by entry (`gm.pbem.state.index`)."""
        began = time.monotonic()
        self.started = self.clock()
        root, part = self.store.root, self.store.part
        snapshots.clear_unfinished(root, part.owns if part is not None else None)
        if part is not None and not part.front:  # its own index's leftovers
            snapshots.clear_unfinished(part.folder(root))
        spooled = set(self.store.spool.keys())
        known = index.read(self._index_folder())
        entries = known.entries if known is not None else {}
        self._entries = {}
        for game_id in self.store.game_ids():
            if part is not None and not part.owns(game_id):  # of several masters, only its own
                continue
            entry = entries.get(game_id)
            if entry is not None and entry.stamp != index.stamp(root, game_id):
                entry = None
            try:
                self._open_game(game_id, spooled, entry)
            except OSError:
                raise
            except Exception as error:  # that game stops, loudly; the others are served
                self.games.forget(game_id)
                self.unopened[game_id] = error
                log.exception("game %s not opened: its archive does not replay; it stops, and its mail goes to "
                              "the shunt until a start where it opens", game_id)
        if known is not None:  # archived and still spooled when it was written: handled before
            self.handled_keys |= known.spooled & spooled
        self._index_file = known
        # opened from the index: its entry holds the index's own head (one it completed is a copy)
        from_index = sum(game_id in entries and entries[game_id].head is entry.head
                         for game_id, entry in self._entries.items())
        log_event("games opened", logging.DEBUG, games=len(self.games), listed=len(self.games) - from_index,
                  seconds=f"{time.monotonic() - began:.2f}")
        self.save_snapshots()
        if write_index:
            self.save_index()
        else:
            self.index_due = True
            self._index_written = time.monotonic()  # not at the end of the first pass over the spool either

    @property
    def idle_work(self) -> bool:
        """Whether work waits for the master's idle moments (`idle`)."""
        return self.index_due or bool(self.games.pending)

    def idle(self) -> None:
        """One piece of the work left for idle moments, when no mail waits:
        the start-up index the start left (`load`), written without looking
        at the games' stamps again (`save_index`); else the most urgent
        game left pending by an upgrade (`prepare`)."""
        if self.index_due:
            self.index_due = False
            self.save_index(restamp=False)
            return
        self.prepare()

    def _open_game(self, game_id: str, spooled: set[str] | None = None, known: index.Entry | None = None) -> None:
        """Open one game from its archive (and snapshot), or from its entry of
        the start-up index (``known``), and queue whatever replies of its
        last event are not queued yet. Only the last event can have been
        cut short (by a crash or a fault), and only then are its messages
        rendered again."""
        if spooled is None:
            spooled = set(self.store.spool.keys())
        opened = loading.open_game(self.store, self.identity, game_id, spooled, known)
        if opened is not None and opened.entry is not None:
            self._entries[game_id] = opened.entry
        if opened is None:
            self.games.forget(game_id)
            self.unfinished.discard(game_id)
            return
        self.handled_keys |= opened.handled
        if any(seat.robot for seat in opened.summary.seats) or opened.summary.stand_ins:
            self._robot_games.add(game_id)  # it may wait for its robot (`gm.pbem.master.robots`)
        if opened.live is None:
            self.games.note(game_id, opened.summary, opened.pending)
        else:
            self.games.keep(opened.live)
        if opened.unfinished:
            self.unfinished.add(game_id)
            self._send(game_id, opened.unfinished)
        self.unfinished.discard(game_id)

    def prepare(self) -> str | None:
        """Load the most urgent pending game (`Games.pending`) and write its
        snapshot under this gm's schema numbers; the game's id, or None when
        none is pending. A game that does not load (a fault of the disk, or
        gm's own, logged) stays known by its old summary and is not tried
        again in the background, but when its mail comes, as any game."""
        if not self.games.pending:
            return None
        far = datetime.max.replace(tzinfo=UTC)

        def urgency(game_id: str) -> tuple[bool, bool, datetime, str]:
            summary = self.games.summaries[game_id]
            moments = [m for m in (summary.reminder_due(), summary.deadline) if m is not None]
            robot = summary.phase != ENDED and any(summary.seat(p).robot for p in summary.waiting_for)
            return summary.phase == ENDED, not robot, min(moments, default=far), game_id

        while self._queue and self._queue[-1] not in self.games.pending:  # loaded since, by their mail
            self._queue.pop()
        if not self._queue:  # put in order once for all the games pending now, not each time one is taken
            self._queue = sorted(self.games.pending, key=urgency, reverse=True)
        game_id = self._queue.pop()
        self.games.pending.discard(game_id)
        try:
            live = self.games.live(game_id)
        except OSError as error:  # a fault of the disk: the game loads when its mail comes
            log.warning("game %s not loaded in the background: %s", game_id, error)
            return game_id
        except Exception:  # logged by the GameMaster's loader
            return game_id
        crashpoint("background-loaded")
        if live.changed_at is not None:
            self._save_leaving(live)
        crashpoint("background-saved")
        return game_id

    def _load_live(self, game_id: str) -> Live:
        """Load a whole game that is known but not in memory (`Games`)."""
        live, unfinished = loading.load(self.store, self.identity, game_id)
        if unfinished:  # not after a clean open; kept safe all the same
            self.games.keep(live)
            self._send(game_id, unfinished)
        return live

    def _save_leaving(self, live: Live) -> None:
        """Write the snapshot of a changed game leaving memory; inside a batch,
        once the batch is committed (`_save_left`): a snapshot must never hold
        an event the archive may not keep. A snapshot is a cache: one that
        cannot be written costs a replay later, and must not stop the mail
        (the game leaves memory all the same)."""
        if current_batch() is not None:
            self._left.append(live)
            return
        try:
            loading.save(self.store, live)
        except Exception as error:  # OSError, or a state that does not pickle: both only cost speed
            log.warning("snapshot of %s not written: %s", live.game.id, error)

    def _save_left(self) -> None:
        """Write the snapshots of the games that left memory during the batch just committed."""
        left, self._left = self._left, []
        for live in left:
            self._save_leaving(live)

    def save_for_next_start(self) -> None:
        """Write every changed game's snapshot, then the start-up index (the daemon stops)."""
        self.save_snapshots()
        self.save_index()

    def _index_folder(self) -> Path:
        """Where this master's start-up index is: the data directory's, or,
        for master K of several (`gm.masters`), its own folder's."""
        part = self.store.part
        return self.store.root if part is None else part.folder(self.store.root)

    def save_index(self, older_than: float = 0.0, restamp: bool = True) -> bool:
        """Write the start-up index (`gm.pbem.state.index`), when it was
        written more than ``older_than`` seconds ago and some game's entry
        changed since: each game's entry is kept while its stamp holds, and
        read again from the disk otherwise. Not while a batch waits to be
        committed (its removals from the spool are not done). Whether it
        was written; one that cannot be written is only a slower next start.

        Without ``restamp`` (the index the start left, `idle`, where mail
        that comes meanwhile waits) an entry is kept without looking at its
        game's stamp again (three ``stat`` calls a game: 1.6 s at 10,000
        games): a stamp is taken before what its entry holds was read, so an
        entry written with a stamp the game no longer has is only not used
        by the next start, which opens that game from its archive, as it
        would have had the entry been left out. Games without an entry are
        surveyed still."""
        if time.monotonic() - self._index_written < older_than or self.store.batch_pending():
            return False
        root = self.store.root
        entries: dict[str, index.Entry] = {}
        for game_id in self.games:
            entry = self._entries.get(game_id)
            if entry is None or (entry.stamp != index.stamp(root, game_id) if restamp else entry.stamp is None):
                entry = loading.survey(self.store, game_id)
            if entry is not None:
                entries[game_id] = entry
        self._entries = entries
        spool = set(self.store.spool.keys())
        made = index.Index(entries, frozenset(k for k in self.handled_keys if k in spool))
        self._index_written = time.monotonic()
        if self._index_file is not None and made == self._index_file:
            return False
        try:
            index.write(self._index_folder(), made, self.store.spool.path)
        except OSError as error:
            log.warning("start-up index not written: %s: %s", index.path_of(self._index_folder()),
                        error.strerror or error)
            return False
        self._index_file = made
        crashpoint("index-saved")
        return True

    def save_snapshots(self, older_than: float = 0.0) -> int:
        """Write the snapshot of every game in memory changed more than
        ``older_than`` seconds ago; the number written. A snapshot that
        cannot be written is only a slower next start."""
        now, count = time.monotonic(), 0
        for live in self.games.changed():
            if live.changed_at is not None and now - live.changed_at >= older_than:
                self._save_leaving(live)
                count += live.changed_at is None
        return count
