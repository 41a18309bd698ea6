"""Seeks that fill their empty seats with robots (issue 25): joining one,
and beginning its game (`gm.league.filling` says what such a seek asks).

A person who takes such a seek (``accept sID``, confirmed from their own
mailbox as any taking is) joins it; the seeker is told by name. The game
begins when every seat is taken, or at the seek's fill time, from the GM's
``fill`` event (`gm.pbem.master.fills`): with the seeker, those who joined
(first come first) and the GM's robots in the seats nobody took. Everyone
in it is told, by name, which empires are the robots'. A seek nobody
joined begins nothing: its seeker is told so.

Beginning is one step of the master's batch: the game's creation request
(under a name made of the seek's id, so a redo finds it), the mail to
everyone (under deterministic outbox names) and the marker ``accepted-ID``
are written together or not at all, so the game begins exactly once
whatever is killed when.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from ...kernel.clock import utc_minute
from ...kernel.values import Options
from ...league.seeks import Seek, shown
from ..data.crashpoints import crashpoint
from ..data.names import public_names
from ..data.seeks import add_join, joiners
from ..operator.admin import request_game, seat_aliases
from .outside import Master


def begun_marker(seek_id: str) -> str:
    """The marker of a filling seek's game begun (a seek's ``taken``)."""
    return f"accepted-{seek_id}"


def closed_marker(seek_id: str) -> str:
    """The marker of a filling seek nobody joined, closed at its fill time."""
    return f"cancelled-{seek_id}"


class Filling:
    """Joining filling seeks and beginning their games, for one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master

    def join(self, request_id: str, seek: Seek, address: str, at: datetime) -> None:
        """``address`` joined ``seek`` (the confirmation ``request_id``, at
        ``at``): told, the seeker told, and the game begun once every seat is taken."""
        store = self.master.store
        assert seek.filling is not None
        add_join(store, seek.id, address, at)
        joined = joiners(store, seek.id)
        names = public_names(store)
        about = self._shown(seek, names, joined)
        self._send(f"{request_id}.done", address, f"[gm] You joined {names.get(seek.seeker, '?')}'s seek", at,
                   "seek_joined", about | {"own": False, "who": names.get(address, "?")})
        self._send(f"{request_id}.joined", seek.seeker, f"[gm] {names.get(address, '?')} joined your seek", at,
                   "seek_joined", about | {"own": True, "who": names.get(address, "?")}, listed="notices")
        if 1 + len(joined) >= seek.filling.seats:
            self.begin(seek, at)

    def fill(self, seek: Seek, at: datetime) -> None:
        """The fill time of ``seek`` came (the GM's event, at ``at``): its
        game begins with robots in the empty seats, or, if nobody joined, it closes."""
        store = self.master.store
        if begun_marker(seek.id) in store.handled or closed_marker(seek.id) in store.handled:
            return
        if joiners(store, seek.id):
            self.begin(seek, at)
            return
        self._send(f"{seek.id}.closed", seek.seeker, f"[gm] Nobody joined your seek {seek.id}", at, "seek_closed",
                   self._shown(seek, public_names(store), []))
        store.handled.add(closed_marker(seek.id))

    def begin(self, seek: Seek, at: datetime) -> None:
        """Request the game of ``seek`` with its seeker, those who joined and
        robots in the other seats, and tell everyone in it which are which."""
        store, filling = self.master.store, seek.filling
        assert filling is not None
        people = [seek.seeker, *joiners(store, seek.id)]
        robots = filling.seats - len(people)
        names = public_names(store)
        rules = seek.rules
        try:  # each person's empire by their public name, where the game takes it; the rest its own names
            aliases = seat_aliases(rules, filling.seats, [names.get(p, "") for p in people])
        except ValueError:
            aliases = seat_aliases(rules, filling.seats, [])
        options = Options(deadline=seek.deadline_time, public_each_turn=seek.public, rated=seek.rated,
                          take_over_after=rules.take_over_after,
                          take_over_level=filling.take_over or Options.take_over_level)
        _, game_id = request_game(store, self.master.identity, people, seek.variant, options, at,
                                  aliases=aliases, name=f"seek-{seek.id}",
                                  match=seek.match(), game=seek.game, robot=filling.level if robots else None,
                                  robots=max(robots, 1))
        crashpoint("mid-fill")
        about = self._shown(seek, names, people[1:]) | {
            "game_id": game_id, "robots": aliases[len(people):],
            "empires": [{"alias": alias, "name": names.get(person, "?")} for alias, person in zip(aliases, people)]}
        for person in people:
            key = hashlib.sha256(person.lower().encode()).hexdigest()[:12]
            self._send(f"{seek.id}.begun-{key}", person, f"[gm] Game {game_id} begins: seek {seek.id}", at,
                       "seek_begun", about)
        store.handled.add(begun_marker(seek.id))

    def _shown(self, seek: Seek, names: dict[str, str], joined: list[str]) -> dict[str, object]:
        return shown(seek, names) | {"joined": len(joined), "fill_at": utc_minute(seek.lapses),
                                     "names": [names.get(p, "?") for p in joined]}

    def _send(self, name: str, to: str, subject: str, at: datetime, template: str, data: dict[str, object],
              listed: str | None = None) -> None:
        self.master.outside.send(name, to, subject, at, template, data, "auto-generated", listed=listed)
