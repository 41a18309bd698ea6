"""The web archive's tournament pages: ``/tournaments/ID``, each linked
from the list (`gm.pbem.state.tournaments` says what they show).

A tournament's games are read from their archives, here, read only; each
finished game is linked to its own page (a game in progress is not shown
on the site, and so not linked). Entrants are shown by their public name
(or "Entrant N" without one), never by address.
"""

from __future__ import annotations

from typing import Any

from ..kernel.model import MailGame
from ..kernel.protocol import game_named
from ..pbem.archive.replay import identity_of
from ..pbem.data import tournaments as data
from ..pbem.data.names import public_names
from ..pbem.state import loading
from ..pbem.state import tournaments as view
from ..pbem.writing.mailer import render_html
from .pages import Archive


class TournamentPages:
    """The tournament pages of one `Archive`'s data directory."""

    def __init__(self, archive: Archive):
        self.archive = archive

    def _game(self, game_id: str) -> MailGame | None:
        store = self.archive.store
        archive = store.archive(game_id)
        if not archive.keys():
            return None
        return loading.load(store, identity_of(archive), game_id)[0].game

    def listing(self) -> list[dict[str, Any]]:
        """Every tournament, oldest first, as the list links it."""
        store = self.archive.store
        found = []
        for tournament_id in data.ids(store):
            record = data.record(store, tournament_id)
            if record is not None:
                state = ("over" if data.ended(store, tournament_id) else
                         f"round {len(data.rounds(store, tournament_id))}" if data.rounds(store, tournament_id)
                         else "sign-up open")
                found.append({"id": record.id, "title": game_named(record.game).title,
                              "format": record.system.value, "state": state})
        return found

    def results_of(self, address: str) -> list[dict[str, Any]]:
        """Where the player at ``address`` stands in each tournament they
        entered, oldest first (for their page: `gm.web.ratings`)."""
        store, found = self.archive.store, []
        for tournament_id in data.ids(store):
            st = view.state(store, tournament_id, self._game)
            if st is None or address.lower() not in [e.lower() for e in st.entrants]:
                continue
            table = st.standings()
            mine = next(s for s in table if s.entrant.lower() == address.lower())
            found.append({"id": tournament_id, "title": game_named(st.record.game).title,
                          "format": st.record.system.value, "place": mine.place_text, "of": len(table),
                          "points": f"{mine.points:g}", "over": data.ended(store, tournament_id)})
        return found

    def page(self, tournament_id: str) -> bytes | None:
        """A tournament's page; None when there is no such tournament."""
        store = self.archive.store
        if not data.ID.fullmatch(tournament_id):
            return None
        st = view.state(store, tournament_id, self._game)
        if st is None:
            return None
        shown = view.shown(st, public_names(store))
        html = render_html("web_tournament", {"t": shown, "title": game_named(st.record.game).title,
                                              "over": data.ended(store, tournament_id)})
        assert html is not None, "the kernel's templates hold web_tournament.html"
        return html.encode()
