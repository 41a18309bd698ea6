"""The web archive's rating pages: one per game (``/ratings/GAME``), linked
from the list.

The tables are the derived store's (`gm.pbem.state.ratings`): its file when
it is whole and was derived from exactly the finished games the site shows,
else derived here again from those games' archives, in memory: the site
writes nothing in the data directory. Players are shown by their public
name only (`gm.pbem.data.names`); those without one are left out and
counted, and no address ever reaches the page.
"""

from __future__ import annotations

import threading
from typing import Any

from ..kernel.protocol import REGISTRY, game_named
from ..pbem.archive.replay import identity_of
from ..pbem.data.names import public_names
from ..pbem.state import loading
from ..pbem.state.ratings import Ratings, derive, public_table, read
from ..pbem.writing.mailer import render_html
from .pages import Archive


def ratings_links() -> list[dict[str, Any]]:
    """Each hosted game's rating page, as the list links it."""
    return [{"game": name, "title": game_named(name).title} for name in REGISTRY.names()]


class RatingPages:
    """The rating pages of one `Archive`'s data directory. Safe to call from several threads."""

    def __init__(self, archive: Archive):
        self.archive = archive
        self._lock = threading.Lock()
        self._derived: Ratings | None = None

    def ratings(self) -> Ratings:
        """The tables of the finished games the site shows."""
        ended = {listed.id for listed in self.archive.shown() if listed.finished}
        found = read(self.archive.store.root)
        if found is not None and set(found.games) == ended:
            return found
        with self._lock:
            if self._derived is None or set(self._derived.games) != ended:
                store = self.archive.store
                self._derived = derive(
                    loading.load(store, identity_of(store.archive(game_id)), game_id)[0].game
                    for game_id in sorted(ended))
            return self._derived

    def page(self, game: str) -> bytes | None:
        """The page of ``game``'s table; None for a game not hosted here."""
        if game not in REGISTRY.names():
            return None
        rows, hidden = public_table(self.ratings().table(game), public_names(self.archive.store))
        html = render_html("web_ratings", {"game": game, "title": game_named(game).title, "rows": rows,
                                           "hidden": hidden, "others": ratings_links()})
        assert html is not None, "the kernel's templates hold web_ratings.html"
        return html.encode()
