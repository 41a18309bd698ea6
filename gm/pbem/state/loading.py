"""Opening a game at start-up, and loading the whole of it when it is needed.

At start-up each game is *opened*: its archive is listed (the truth), and
when its snapshot's head (`gm.pbem.state.snapshots`) was written after the
archive's last event, the head's summary is all that is read. When that
head was written by another gm (other schema numbers: the first start after
an upgrade), its summary stands for the game, *pending*, until the game is
loaded, when its mail comes or in the background. Otherwise,
or when that event's replies are not all queued (a crash cut it short), the
game is *loaded*: from the snapshot's body when it holds an earlier event of
this archive, with the later events replayed onto it, or else by replaying
the whole archive. Either way the state is the one a replay of the archive
gives; `tests/test_snapshots.py` holds gm to that. What the listing and
the head told of a game is kept in the start-up index
(`gm.pbem.state.index`), so that the next start need not list the archive
nor read the head while neither changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from dataclasses import dataclass, field, replace

from ...kernel.values import PlayerMail
from ...storage.batches import current_batch
from ..archive.replay import Replayed, is_inbound, replay, spool_key_of
from ..data.store import Store, origin_of
from ..writing.mailer import Identity
from . import index, snapshots
from .resident import GameSummary, Live, summary_of

Messages = list[tuple[str, int, bytes]]


@dataclass
class Opened:
    """A game as start-up found it."""

    summary: GameSummary
    live: Live | None
    """The whole game, when it had to be loaded."""
    unfinished: Messages = field(default_factory=list)
    """Replies of its last event that are not queued yet (rendered again)."""
    handled: set[str] = field(default_factory=set)
    """Spool keys that must not be handled again: those of the given spooled
    messages that the archive holds (handled before a crash that came before
    their removal), and the clock's events of the turn being collected."""
    pending: bool = False
    """Whether ``summary`` is another gm's (from a snapshot of other schema
    numbers), standing for the game until it is loaded."""
    entry: index.Entry | None = None
    """What the start-up index keeps of it (`gm.pbem.state.index`), when it
    was opened on its snapshot's head."""


def digest(text: str) -> str:
    """What tells two mails with one Message-ID apart: the text gm reads."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def archive_keys(store: Store, game_id: str) -> list[str]:
    """The keys of a game's archive, sorted, as `DurableMaildir.keys` gives
    them, listed without opening the Maildir (which would make its folders
    durable again: two fsyncs a game, at every start). Inside a batch (a
    game reopened after a fault) the Maildir is asked: only it sees what the
    batch wrote and has not committed yet."""
    if current_batch() is not None:
        return store.archive(game_id).keys()
    root = store.games_dir / game_id
    names: set[str] = set()
    for sub in ("new", "cur"):
        with contextlib.suppress(FileNotFoundError):
            names.update(name.partition(":2,")[0] for name in os.listdir(root / sub) if name[:1] != ".")
    return sorted(names)


def inbound_keys(keys: list[str]) -> list[str]:
    """The archive keys of the events (`gm.pbem.archive.replay.is_inbound`), in
    order. gm numbers them with six digits, which a slice tests faster than
    the pattern does, at every start, for every archived message."""
    def inbound(key: str) -> bool:
        if key[6:7] == "." and key[:6].isdigit():
            return key[7:10] == "in."
        return is_inbound(key)

    return [k for k in keys if inbound(k)]


def open_game(store: Store, identity: Identity, game_id: str, spooled: set[str],
              known: index.Entry | None = None) -> Opened | None:
    """Open one game for start-up (None when its archive is empty): from
    ``known``, its entry of the start-up index whose stamp still holds, when
    that is enough, else from its archive and snapshot."""
    if known is not None:
        opened = _open_known(store, game_id, known)
        if opened is not None:
            return opened
    stamped = index.settled_stamp(store.root, game_id)  # before reading: a change meanwhile shows next time
    keys = archive_keys(store, game_id)
    if not keys:
        return None
    present = set(keys)
    inbound = inbound_keys(keys)
    head = snapshots.read_head(store.root, game_id)
    if head is not None and head.last_in == inbound[-1]:
        entry = _entry(store, stamped, head, inbound, present, game_id)
        opened = None if entry is None else _open_known(store, game_id, entry)
        if opened is not None:
            if spooled:
                opened.handled |= {k for k in map(spool_key_of, inbound) if k in spooled}
            return opened
    live, unfinished = load(store, identity, game_id, keys)
    return Opened(summary_of(live.game), live, unfinished, _handled(inbound, spooled, game_id, live.game.turn))


def survey(store: Store, game_id: str) -> index.Entry | None:
    """A game's entry for the start-up index, read from the disk as
    `open_game` reads it; None when it has none to keep (its snapshot's head
    is missing, or not of its archive's last event, or changed too lately)."""
    stamped = index.settled_stamp(store.root, game_id)
    if stamped is None:
        return None
    keys = archive_keys(store, game_id)
    inbound = inbound_keys(keys)
    head = snapshots.read_head(store.root, game_id)
    if head is None or not inbound or head.last_in != inbound[-1]:
        return None
    return _entry(store, stamped, head, inbound, set(keys), game_id)


def _entry(store: Store, stamped: index.Stamp | None, head: snapshots.Head, inbound: list[str], present: set[str],
           game_id: str) -> index.Entry | None:
    """What opening keeps of a game whose snapshot's head is of its archive's
    last event; None when that head's summary cannot stand for the game."""
    summary = head.summary if snapshots.is_current(head) else snapshots.head_summary(head)
    if summary is None:
        return None
    archived = frozenset(k for k, _ in head.last_messages if k in present)
    return index.Entry(stamped, head, archived, frozenset(_handled(inbound, set(), game_id, summary.turn)),
                       _sent(store, game_id, archived))


def _sent(store: Store, game_id: str, keys: frozenset[str]) -> frozenset[str]:
    """Those of a game's archive ``keys`` whose sent/ marker is on the disk
    (not one staged in a batch, which may yet be discarded)."""
    sent = store.sent.path
    return frozenset(k for k in keys if os.path.exists(os.path.join(sent, f"{game_id}.{k}")))


def _open_known(store: Store, game_id: str, entry: index.Entry) -> Opened | None:
    """A game opened on its snapshot's head alone (``entry``): None when the
    whole game must be loaded (its last event's replies are not all queued,
    or the head's summary cannot stand for it)."""
    head = entry.head
    if entry.sent is None:  # an entry of a gm that did not keep them
        entry = replace(entry, sent=_sent(store, game_id, entry.present))
    sent = entry.sent or frozenset()
    if _unfinished(store, game_id, set(entry.present), [m for m in head.last_messages if m[0] not in sent]):
        return None
    if snapshots.is_current(head):
        return Opened(head.summary, None, handled=set(entry.clock), entry=entry)
    summary = snapshots.head_summary(head)
    if summary is None:
        return None
    return Opened(summary, None, handled=set(entry.clock), pending=True, entry=entry)


def load(store: Store, identity: Identity, game_id: str, keys: list[str] | None = None) -> tuple[Live, Messages]:
    """The whole game, from its snapshot and the events after it, or from its
    whole archive; and the replies of its last event that are not queued yet
    (rendered again, to be queued)."""
    archive = store.archive(game_id)
    keys = archive.keys() if keys is None else keys
    present = set(keys)
    inbound = inbound_keys(keys)
    live, replayed = _rebuild(store, identity, game_id, inbound, "none")
    if not _unfinished(store, game_id, present, live.last_messages):
        return live, []
    if replayed:
        live, replayed = _rebuild(store, identity, game_id, inbound, "last")
    else:  # the snapshot holds the last event: its replies are rendered from the one before
        live, replayed = _rebuild(store, identity, game_id, inbound, "last", trust_snapshot=False)
    return live, [m for m in replayed[-1].messages if _unqueued(store, game_id, present, m[0])]


def _rebuild(store: Store, identity: Identity, game_id: str, inbound: list[str], render: str,
             trust_snapshot: bool = True) -> tuple[Live, list[Replayed]]:
    """The game from its snapshot (when it holds an event of this archive)
    and the events after it, else from the whole archive; and the events
    replayed, rendered as ``render`` says (see `gm.pbem.archive.replay.replay`)."""
    archive = store.archive(game_id)
    found = snapshots.read(store.root, game_id) if trust_snapshot else None
    if found is not None and found[0].last_in in inbound:
        head, (game, threads, applied) = found
        game, threads, replayed = replay(archive, identity, game_id, render, base=(game, threads, head.last_in))
        last_messages = head.last_messages
        changed = bool(replayed) or not snapshots.is_current(head)  # a migrated snapshot is written anew
    else:
        game, threads, replayed = replay(archive, identity, game_id, render)
        applied, changed = {}, True
    for r in replayed:
        if isinstance(r.event, PlayerMail) and r.event.message_id:
            applied.setdefault(r.event.message_id, set()).add(digest(r.event.text))
    if replayed:
        last_messages = [(k, player) for k, player, _ in replayed[-1].messages]
    number = int(inbound[-1].split(".")[0])
    live = Live(game, threads, number, inbound[-1], last_messages, applied, time.monotonic() if changed else None)
    return live, replayed


def save(store: Store, live: Live) -> None:
    """Write a game's snapshot, as it stands in memory."""
    head = snapshots.Head(snapshots.schemas_of(live.game.rules.name), live.game.id, live.last_in, live.number,
                          summary_of(live.game), live.last_messages)
    snapshots.write(store.root, head, (live.game, live.threads, live.applied))
    live.changed_at = None


def _unqueued(store: Store, game_id: str, present: set[str], archive_key: str) -> bool:
    key = f"{game_id}.{archive_key}"
    return archive_key not in present or (key not in store.sent and key not in store.outbox)


def _unfinished(store: Store, game_id: str, present: set[str], messages: list[tuple[str, int]]) -> bool:
    """Whether some reply of the last event is not archived or not queued
    (nor sent): a crash or a fault cut the event short."""
    return any(_unqueued(store, game_id, present, k) for k, _ in messages)


def _handled(inbound: list[str], spooled: set[str], game_id: str, turn: int) -> set[str]:
    this_turn = f"-{game_id}-{turn}-"
    clock = {spool_key_of(k) for k in inbound if ".clock." in k and this_turn in k}
    clock = {k for k in clock if origin_of(k) == "clock"}
    if not spooled:
        return clock
    return {k for k in map(spool_key_of, inbound) if k in spooled} | clock
