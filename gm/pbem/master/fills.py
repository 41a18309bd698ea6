"""The fill time of a seek that fills its empty seats with robots
(`gm.pbem.answers.filling`): the GM's ``fill`` event.

Like a deadline or a digest it is an event of the GM's own, spooled under
the moment it fell due (so mail that came before it, a late joining, is
handled first and mail after it finds the seek closed) with a key made of
the seek's id, and it belongs to no game: it is never archived, the game it
begins is (its creation event). Handling it is one step of the master's
batch, which writes the game's request, everyone's mail and the seek's
marker together (``accepted-ID``, or ``cancelled-ID`` if nobody joined), so
the fill runs exactly once whatever is killed when.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage

from ...league.seeks import Seek, Status
from ..answers.league import LeagueMail
from ..archive.creation import parse_fields
from ..archive.events import AT_HEADER, event_message
from ..data.seeks import status_of, stored_seek
from ..data.stamps import FolderCache
from ..data.store import Store, spool_key
from ..writing.mailer import Identity

FILL = "fill"
"""The kind of a seek's fill event."""
_SEEK_ID = re.compile(r"s[0-9a-f]{10}")
_FILLING: FolderCache[tuple[Seek, ...]] = FolderCache()
"""The filling seeks, kept while the seeks' folder and their markers' stay as they were."""


class Fills:
    """The fill events' part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    clock: Callable[[], datetime]
    handled_keys: set[str]
    league: LeagueMail

    def _filling(self) -> tuple[Seek, ...]:
        """The filling seeks whose games have neither begun nor closed (read
        again only when a seek was added, or a marker of one: `FolderCache`)."""
        seeks = self.store.seeks.path
        return _FILLING.get((seeks / "new", seeks / "cur", self.store.handled.path), self._read_filling)

    def _read_filling(self) -> tuple[Seek, ...]:
        found = []
        for seek_id in self.store.seeks.keys():
            if _SEEK_ID.fullmatch(seek_id) and status_of(self.store, seek_id) is Status.OPEN:
                seek = stored_seek(self.store, seek_id)
                if seek is not None and seek.filling is not None:
                    found.append(seek)
        return tuple(found)

    def fills_due(self, now: datetime) -> int:
        """Spool the fill event of each open filling seek whose fill time has come."""
        count = 0
        for seek in self._filling():
            if seek.lapses > now:
                continue
            name = f"{FILL}-{seek.id}"
            key = spool_key(seek.lapses, "clock", name)
            if key in self.store.spool or key in self.handled_keys:
                continue
            self.store.spool.add(event_message(self.identity, FILL, now, f"<{name}@{self.identity.domain}>", None,
                                               [f"seek: {seek.id}"]), key)
            count += 1
        return count

    def next_fill(self) -> datetime | None:
        """When the next open filling seek's fill time comes, if any."""
        moments = [seek.lapses for seek in self._filling()]
        return min(moments) if moments else None

    def run_fill(self, message: EmailMessage) -> None:
        """A fill event: the seek's game begins, or it closes (once: its markers say whether it ran)."""
        seek = stored_seek(self.store, parse_fields(message.get_content())["seek"])
        if seek is None or status_of(self.store, seek.id) is not Status.OPEN:
            return  # withdrawn, or every seat was taken before its time
        self.league.filling.fill(seek, datetime.fromisoformat(str(message[AT_HEADER])))
