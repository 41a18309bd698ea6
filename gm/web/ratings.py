"""The web archive's rating pages: one per game (``/ratings/GAME``), linked
from the list, and one per player with a public name (``/players/NAME``):
their ratings, each with its history as a small chart, and their finished
games the site shows.

The tables are the derived store's (`gm.pbem.state.ratings`): its file when
it is whole and was derived from exactly the finished games the site shows,
else derived here again from those games' archives, in memory: the site
writes nothing in the data directory. Players are shown by their public
name only (`gm.pbem.data.names`); those without one are left out and
counted, and no address ever reaches the page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..kernel.clock import utc_minute
from ..kernel.protocol import REGISTRY, game_named
from ..kernel.values import EndKind
from ..league.ratings import Finished, Point, fold, history
from ..pbem.archive.replay import identity_of
from ..pbem.data.names import address_of, public_names
from ..pbem.state import loading
from ..pbem.state.ratings import Ratings, finished_of, player_key, public_table, read, shown_row
from ..pbem.writing.mailer import render_html
from .pages import Archive


def ratings_links() -> list[dict[str, Any]]:
    """Each hosted game's rating page, as the list links it."""
    return [{"game": name, "title": game_named(name).title} for name in REGISTRY.names()]


class RatingPages:
    """The rating pages of one `Archive`'s data directory. Safe to call from several threads."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self._lock = threading.RLock()
        self._derived: Ratings | None = None
        self._finished: list[Finished] | None = None

    def _ended(self) -> set[str]:
        return {listed.id for listed in self.archive.shown() if listed.finished}

    def ratings(self) -> Ratings:
        """The tables of the finished games the site shows."""
        ended = self._ended()
        found = read(self.archive.store.root)
        if found is not None and set(found.games) == ended:
            return found
        with self._lock:
            if self._derived is None or set(self._derived.games) != ended:
                self._derived = Ratings(tuple(sorted(ended)), fold(self.finished(ended)))
            return self._derived

    def finished(self, ended: set[str] | None = None) -> list[Finished]:
        """What the ratings need of each finished game the site shows, read from their archives."""
        ended = self._ended() if ended is None else ended
        with self._lock:
            if self._finished is None or {f.game_id for f in self._finished} != ended:
                store = self.archive.store
                self._finished = [finished_of(loading.load(store, identity_of(store.archive(game_id)), game_id)[0].game)
                                  for game_id in sorted(ended)]
            return self._finished

    def player_page(self, name: str,
                    tournaments: Callable[[str], list[dict[str, Any]]] = lambda address: []) -> bytes | None:
        """The page of the player whose public name is ``name`` (with where
        they stand in each tournament, ``tournaments`` of their address);
        None for no such name."""
        store = self.archive.store
        address = address_of(store, name)
        if address is None:
            return None
        key, shown_name = player_key(address), public_names(store).get(address, name)
        finished = self.finished()
        points = history(finished, key)
        tables = self.ratings()
        games = []
        for game in REGISTRY.names():
            row = next((r for r in tables.table(game) if r.player == key), None)
            if row is not None:
                games.append({"game": game, "title": game_named(game).title, "row": shown_row(row, 0, shown_name),
                              "chart": chart(points.get(game, ()))})
        played = [{"id": f.game_id, "title": game_named(f.game).title, "ended": utc_minute(f.ended),
                   "result": _result(f, [s.player for s in f.seats].index(key))}
                  for f in reversed(finished) if any(s.player == key for s in f.seats)]
        html = render_html("web_player", {"name": shown_name, "games": games, "played": played,
                                          "tournaments": tournaments(address)})
        assert html is not None, "the kernel's templates hold web_player.html"
        return html.encode()

    def page(self, game: str) -> bytes | None:
        """The page of ``game``'s table; None for a game not hosted here."""
        if game not in REGISTRY.names():
            return None
        rows, hidden = public_table(self.ratings().table(game), public_names(self.archive.store))
        html = render_html("web_ratings", {"game": game, "title": game_named(game).title, "rows": rows,
                                           "hidden": hidden, "others": ratings_links()})
        assert html is not None, "the kernel's templates hold web_ratings.html"
        return html.encode()


CHART_WIDTH, CHART_HEIGHT = 320, 80
"""The size of a player's rating chart, in CSS pixels."""


def chart(points: Sequence[Point]) -> dict[str, Any]:
    """A rating history as an SVG polyline's points (oldest left, higher
    ratings up), with the figures it shows in words for who cannot see it."""
    ratings = [round(p.rating) for p in points]
    if not ratings:
        return {"points": "", "words": "", "width": CHART_WIDTH, "height": CHART_HEIGHT}
    low, high = min(ratings) - 10, max(ratings) + 10
    step = CHART_WIDTH / max(1, len(ratings) - 1)
    xy = [(i * step, CHART_HEIGHT - (r - low) / (high - low) * CHART_HEIGHT) for i, r in enumerate(ratings)]
    return {"points": " ".join(f"{x:.1f},{y:.1f}" for x, y in xy), "width": CHART_WIDTH, "height": CHART_HEIGHT,
            "words": " → ".join(str(r) for r in ratings), "single": len(ratings) == 1}


def _result(game: Finished, seat: int) -> str:
    """How the seat ``seat`` (0-based) did: won, lost, drawn, or its place."""
    if game.end.kind is EndKind.CANCELLED:
        return "cancelled"
    standing = game.end.standing(range(1, len(game.seats) + 1))
    before = 0
    for group in standing:
        if seat + 1 in group:
            if len(group) == len(game.seats):
                return "drawn" if len(group) > 1 else "won"
            if len(game.seats) == 2:
                return "won" if before == 0 else "lost"
            return f"place {before + 1} of {len(game.seats)}" + (" (shared)" if len(group) > 1 else "")
        before += len(group)
    return "no result"
