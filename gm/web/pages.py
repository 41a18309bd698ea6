"""The web archive's pages: finished games read from a data directory.

Read only, and game-agnostic: each game is rebuilt from its archive (and
snapshot) as ``gm show`` rebuilds it (`gm.pbem.state.loading.load`), beside a
running daemon, never through the master's games in memory. What a page
holds is said here and in the templates, and nothing else reaches them:
aliases, the game's title and variant, its result, the date it ended, and
what the game's own hooks give (`GameRules.web_page`, `GameRules.record_text`),
never a seat's or an observer's address, a token, a player's own mail or
press, or the archive's raw mail. A game in progress is neither listed nor
shown, unless both players agreed to show it after each turn
(`Options.public_each_turn`): then only what an observer may know
(`GameRules.web_public`), and no record. The open seeks are listed by
their seekers' public names, with the GM's address to take them at.

A finished game never changes, so its page is rendered once and kept, in a
bounded cache keyed by the archive's last key (a late mail archived after
the end renders it again). Whether a game has ended is read from its
snapshot's head where that holds the archive's last event (one another gm
wrote too: `gm.pbem.state.snapshots.head_summary`), without loading the game.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.parser import BytesHeaderParser
from email.utils import parsedate_to_datetime
from typing import Any

from ..kernel.correction import awaited
from ..kernel.model import MailGame
from ..kernel.values import ENDED, SETUP
from ..league.seeks import shown
from ..mail.reading import parse_message
from ..pbem.archive.creation import parse_fields, seats_and_options
from ..pbem.archive.replay import identity_of, is_outbound
from ..pbem.data.names import public_names
from ..pbem.data.seeks import open_seeks
from ..pbem.data.store import Store
from ..pbem.state import loading, snapshots
from ..pbem.writing.mailer import render_html

CAPACITY = 256
"""Finished games' pages kept rendered at once (a long game's page is a few
hundred kilobytes)."""
LIST_SECONDS = 5.0
"""How long the list of finished games is reused before the data directory
is looked at again."""


@dataclass(frozen=True)
class Listed:
    """A finished game as the list shows it."""

    id: str
    title: str
    variant: str
    players: tuple[str, ...]
    result: str
    ended: datetime | None
    finished: bool = True
    """False for a game in progress shown by its players' agreement."""
    turn: str = ""
    """The turn being played, in words ("turn 3"), for a game in progress."""
    correcting: tuple[str, ...] = ()
    """The aliases of the seats whose corrected mail the turn waits for, in a
    game in progress (`gm.kernel.correction.awaited`): never the line."""


@dataclass(frozen=True)
class Page:
    """A finished game's page, rendered, and its record (None: no download)."""

    listed: Listed
    html: bytes
    record: bytes | None


def result_words(game: MailGame) -> str:
    """The result in words, the seats by their aliases."""
    outcome = game.outcome
    if outcome is None:
        return "The game ended without a result."
    aliases = {seat.player: seat.alias for seat in game.seats}
    reason = outcome.words(aliases)
    reason = reason[:1].upper() + reason[1:]
    if outcome.winner is not None:
        return f"{reason}. {aliases[outcome.winner]} wins."
    return f"{reason}. No one wins."


def standings(game: MailGame) -> list[dict[str, object]]:
    """Each seat's final score, best first (none where the game keeps none)."""
    outcome = game.outcome
    if outcome is None or outcome.scores is None:
        return []
    rows = [{"alias": seat.alias, "score": score, "winner": outcome.winner == seat.player}
            for seat, score in zip(game.seats, outcome.scores)]
    return sorted(rows, key=lambda r: -int(r["score"]))  # type: ignore[call-overload]


def _ended_at(store: Store, game_id: str, keys: list[str]) -> datetime | None:
    """When the game ended: the date of the last mail the GM sent in it."""
    last = next((k for k in reversed(keys) if is_outbound(k)), None)
    if last is None:
        return None
    headers = BytesHeaderParser().parsebytes(store.archive(game_id).get_bytes(last))
    try:
        moment = parsedate_to_datetime(str(headers["Date"]))
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def render(game: MailGame, ended: datetime | None) -> Page:
    """A finished game's page and record."""
    rules = game.rules
    listed = Listed(game.id, rules.title, game.variant, tuple(seat.alias for seat in game.seats),
                    result_words(game), ended)
    record = rules.record_text(game)
    data = {
        "game": game.id,
        "title": rules.title,
        "variant": game.variant,
        "players": list(listed.players),
        "result": listed.result,
        "standings": standings(game),
        "after": None if game.outcome is None else game.outcome.after_turn,
        "turn_word": rules.turn_word,
        "ended": None if ended is None else ended.strftime("%Y-%m-%d"),
        "record": record is not None,
        "web": rules.web_page(game),
    }
    html = render_html("web_game", data, rules.templates)
    assert html is not None, "the kernel's templates hold web_game.html"
    return Page(listed, html.encode(), None if record is None else record.encode())


def render_public(game: MailGame) -> Page:
    """The page of a game in progress that its players agreed to show after
    each turn: the players, the turn, the seats whose corrected mail the turn
    waits for, by name (`gm.kernel.correction.awaited`: never the line, which
    is that player's hidden orders), and what an observer may know."""
    rules = game.rules
    turn = "setting up" if game.phase == SETUP else f"{rules.turn_word} {game.turn}"
    listed = Listed(game.id, rules.title, game.variant, tuple(seat.alias for seat in game.seats), "", None,
                    finished=False, turn=turn, correcting=tuple(game.seat(p).alias for p in awaited(game)))
    data = {"game": game.id, "title": rules.title, "variant": game.variant, "players": list(listed.players),
            "turn": turn, "web": rules.web_public(game), "correcting": list(listed.correcting)}
    html = render_html("web_public", data, rules.templates)
    assert html is not None, "the kernel's templates hold web_public.html"
    return Page(listed, html.encode(), None)


def render_list(games: list[Listed], seeks: list[dict[str, object]] | None = None,
                ratings: Sequence[dict[str, Any]] = (), tournaments: Sequence[dict[str, Any]] = ()) -> bytes:
    """The list: finished games, newest first, then the games in progress
    that their players agreed to show (each with the seats whose corrected
    mail it waits for, as its own page says), then the open seeks
    (`Archive.seeks`); and the links to the ``tournaments`` and ``ratings``
    pages."""
    rows = [{"id": g.id, "title": g.title, "variant": g.variant, "players": list(g.players), "result": g.result,
             "ended": "" if g.ended is None else g.ended.strftime("%Y-%m-%d"), "turn": g.turn,
             "correcting": list(g.correcting)} for g in games]
    html = render_html("web_list", {"games": [r for r, g in zip(rows, games) if g.finished],
                                    "playing": [r for r, g in zip(rows, games) if not g.finished],
                                    "seeks": seeks or [], "ratings": list(ratings),
                                    "tournaments": list(tournaments)})
    assert html is not None
    return html.encode()


log = logging.getLogger("gm")


class Archive:
    """The games of one data directory that the site shows: the finished
    ones, and those in progress that their players agreed to show.

    Safe to call from several threads; every read of the disk is a read."""

    def __init__(self, root: str, capacity: int = CAPACITY, list_seconds: float = LIST_SECONDS):
        self.store = Store(root, create=False)
        self.capacity = capacity
        self.list_seconds = list_seconds
        self._lock = threading.Lock()
        self._listed: dict[str, tuple[str, Listed | None]] = {}
        """Each game's last archive key when last looked at, and its row
        (None: not shown)."""
        self._pages: OrderedDict[str, tuple[str, Page]] = OrderedDict()
        self._list: tuple[float, list[Listed]] | None = None

    def _look(self, game_id: str, want_page: bool) -> tuple[Listed | None, Page | None]:
        """A game's row (None: not shown) and, with ``want_page`` or when
        it had to be loaded, its page."""
        keys = loading.archive_keys(self.store, game_id)
        inbound = loading.inbound_keys(keys)
        if not inbound:
            return None, None
        last = keys[-1]
        seen = self._listed.get(game_id)
        if seen is not None and seen[0] == last:
            cached = self._pages.get(game_id)
            if seen[1] is None:
                return None, None
            if cached is not None and cached[0] == last:
                self._pages.move_to_end(game_id)
                return seen[1], cached[1]
            if not want_page:
                return seen[1], None
        head = snapshots.read_head(self.store.root, game_id)
        summary = None if head is None or head.last_in != inbound[-1] else snapshots.head_summary(head)
        if summary is not None and summary.phase != ENDED and not self._agreed(game_id, inbound[0]):
            self._listed[game_id] = (last, None)
            return None, None
        try:
            live, _ = loading.load(self.store, identity_of(self.store.archive(game_id)), game_id, keys)
            if live.game.phase != ENDED and not live.game.options.public_each_turn:
                self._listed[game_id] = (last, None)
                return None, None
            if live.game.phase != ENDED:
                page = render_public(live.game)
            else:
                page = render(live.game, _ended_at(self.store, game_id, keys))
        except Exception:  # one archive gm cannot read must not take the site down
            log.exception("the web archive leaves out game %s: it could not be read", game_id)
            self._listed[game_id] = (last, None)  # not tried again until the archive changes
            return None, None
        self._listed[game_id] = (last, page.listed)
        self._pages[game_id] = (last, page)
        self._pages.move_to_end(game_id)
        while len(self._pages) > self.capacity:
            self._pages.popitem(last=False)
        return page.listed, page

    def _agreed(self, game_id: str, created: str) -> bool:
        """Whether the game's players agreed to show it after each turn, as
        its creation event says (read without loading the game)."""
        message = parse_message(self.store.archive(game_id).get_bytes(created))
        return seats_and_options(parse_fields(message.get_content()))[2].public_each_turn

    def shown(self) -> list[Listed]:
        """Every game the site shows: the finished ones, newest first, then
        those in progress that their players agreed to show (the list is
        reused for `list_seconds`)."""
        with self._lock:
            now = time.monotonic()
            if self._list is not None and now - self._list[0] < self.list_seconds:
                return self._list[1]
            found = []
            for game_id in self.store.game_ids():
                row, _ = self._look(game_id, want_page=False)
                if row is not None:
                    found.append(row)
            epoch = datetime.min.replace(tzinfo=UTC)
            found.sort(key=lambda g: (g.finished, g.ended or epoch, len(g.id), g.id), reverse=True)
            self._list = (now, found)
            return found

    def seeks(self, now: datetime,
              ratings: Callable[[str], Mapping[str, float]] | None = None) -> list[dict[str, object]]:
        """The seeks open at ``now``, as players are shown them: by the
        seeker's public name and their rating (``ratings``: a game's table,
        player key to rating), and the GM's address to take each at
        (`gm.league.seeks.shown`), never a player's address."""
        names = public_names(self.store)
        return [shown(seek, names, ratings(seek.game) if ratings else None) for seek in open_seeks(self.store, now)]

    def page(self, game_id: str) -> Page | None:
        """A game's page; None for no game, or one in progress that its
        players did not agree to show."""
        if game_id not in self.store.game_ids():
            return None
        with self._lock:
            return self._look(game_id, want_page=True)[1]
