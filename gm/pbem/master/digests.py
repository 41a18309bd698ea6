"""The daily digest (issue 24): one mail a day to each player who chose
``reminders digest``, listing every game that waits for their orders (or,
from `gm.kernel.correction.REMIND_EDITION` on, their corrected orders), in
place of a reminder per game.

It is due at `DIGEST_TIME` in the player's own time zone (UTC for one who
set none), or at the time of day the operator chose (``digest-time``, which
may hold seconds and their parts, so that a test on the wall clock reaches
it). Like a deadline it is an event of the GM's own, spooled under
the moment it fell due with a key made of the player and the day, and once
handled a marker ``digest-ID-DAY`` in ``handled/`` says so, written in the
batch that queued the mail (under the same name), so a player gets at most
one digest a day whatever is killed when. It belongs to no game: it is
never archived in one, and a game's reminders to that player are not sent
(`gm.kernel.engine`). No digest goes out on a day when nothing waits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

from ...kernel.settings import PlayerSettings
from ...kernel.values import ENDED
from ..answers.outside import OutsideMail
from ..archive.creation import parse_fields
from ..archive.events import AT_HEADER, event_message
from ..data.settings import all_settings
from ..data.stamps import FolderCache
from ..data.store import Store, spool_key
from ..writing.mailer import Identity

DIGEST = "digest"
"""The kind of a digest's GM event."""
DIGEST_TIME = time(7, 0)
"""When a player's digest is due, in their own time."""
_DIGESTING: FolderCache[tuple[tuple[str, PlayerSettings], ...]] = FolderCache()
"""The players in digest mode, kept while the settings folder stays as it was."""


def _zone(settings: PlayerSettings) -> ZoneInfo:
    return ZoneInfo(settings.zone or "UTC")


def due_at(settings: PlayerSettings, day: date, at: time = DIGEST_TIME) -> datetime:
    """When the digest of ``day`` (the player's own day) is due, ``at`` their time of day."""
    return datetime.combine(day, at, tzinfo=_zone(settings)).astimezone(ZoneInfo("UTC"))


def latest_due(settings: PlayerSettings, now: datetime, at: time = DIGEST_TIME) -> tuple[date, datetime]:
    """The player's day whose digest fell due last at ``now``, and when."""
    day = now.astimezone(_zone(settings)).date()
    moment = due_at(settings, day, at)
    if moment > now:
        day -= timedelta(days=1)
        moment = due_at(settings, day, at)
    return day, moment


def digest_subject(count: int) -> str:
    """The subject of a digest of ``count`` waiting games ("1 game waits for you")."""
    return "[gm] 1 game waits for you" if count == 1 else f"[gm] {count} games wait for you"


def marker(address: str, day: str) -> str:
    """The name of ``address``'s digest of ``day`` (ISO): its event's, its
    mail's and its marker's in ``handled/``."""
    return f"{DIGEST}-{hashlib.sha256(address.lower().encode()).hexdigest()[:12]}-{day}"


class Digests:
    """The digest's part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    clock: Callable[[], datetime]
    handled_keys: set[str]
    outside: OutsideMail
    digest_time: time

    def _digesting(self) -> tuple[tuple[str, PlayerSettings], ...]:
        """Each player in ``digest`` mode and their settings (read again only when a record was added)."""
        folder = self.store.settings.path
        return _DIGESTING.get((folder / "new", folder / "cur"), lambda: tuple(
            (address, settings) for address, settings in all_settings(self.store).items()
            if settings.reminders == DIGEST))

    def digests_due(self, now: datetime) -> int:
        """Spool the digest event of each player in ``digest`` mode whose day's digest fell due."""
        count = 0
        for address, settings in self._digesting():
            day, moment = latest_due(settings, now, self.digest_time)
            name = marker(address, day.isoformat())
            key = spool_key(moment, "clock", name)
            if name in self.store.handled or key in self.store.spool or key in self.handled_keys:
                continue
            self.store.spool.add(event_message(self.identity, DIGEST, now, f"<{name}@{self.identity.domain}>", None,
                                               [f"address: {address}", f"day: {day.isoformat()}"]), key)
            count += 1
        return count

    def next_digest(self, now: datetime) -> datetime | None:
        """When the next digest falls due, if any player chose them."""
        moments = [latest_due(settings, now, self.digest_time)[1] + timedelta(days=1)
                   for _, settings in self._digesting()]
        return min(moments) if moments else None

    def send_digest(self, key: str, message: EmailMessage) -> None:
        """A digest event: the mail, if any game waits for the player, and the marker."""
        fields = parse_fields(message.get_content())
        address, day = fields["address"], fields["day"]
        name = marker(address, day)
        if name in self.store.handled:
            return
        waiting = [g for g in self.outside.games_of(address) if g["phase"] != ENDED and (g["waiting"] or g["awaited"])]
        if waiting:
            self.outside.send(name, address, digest_subject(len(waiting)),
                              datetime.fromisoformat(str(message[AT_HEADER])), "digest", {"games": waiting},
                              "auto-generated",
                              reply_to=None, listed="reminders")
        self.store.handled.add(name)
