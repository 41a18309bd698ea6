"""A tournament as it stands: its recorded rounds with each game's result
read from the game itself, its standings, and what anyone may be shown.

Shared by the master (which starts rounds), ``gm tournament show`` and the
answers by mail; each reads the games its own way (``load``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ...kernel.model import MailGame
from ...kernel.values import ENDED, EndKind
from ...league.standings import Standing, standings
from ...league.tournaments import Played, planned_rounds
from ..data import tournaments as data
from ..data.store import Store

Load = Callable[[str], MailGame | None]
"""A game by id, or None when there is no such game (yet)."""


@dataclass(frozen=True)
class State:
    """A tournament with its results so far."""

    record: data.Record
    entrants: list[str]
    rounds: list[tuple[datetime, list[Played]]]
    ended: dict[str, datetime]
    """When each finished game of the tournament ended."""

    @property
    def played(self) -> list[Played]:
        return [game for _, games in self.rounds for game in games]

    @property
    def planned(self) -> int:
        return planned_rounds(self.record.system, len(self.entrants), self.record.rounds)

    def standings(self) -> tuple[Standing, ...]:
        return standings(self.entrants, [r for r in (g.result for g in self.played) if r is not None],
                         self.record.system)


def scored(game: Played, mail_game: MailGame | None) -> tuple[Played, datetime | None]:
    """``game`` with its result, when its game has ended; and when it ended."""
    if game.game_id is None or mail_game is None or mail_game.phase != ENDED or mail_game.outcome is None:
        return game, None
    end = mail_game.outcome
    groups = end.standing((1, 2))
    first_place = next(i for i, group in enumerate(groups) if 1 in group)
    second_place = next(i for i, group in enumerate(groups) if 2 in group)
    points = 1.0 if first_place < second_place else 0.5 if first_place == second_place else 0.0
    if end.kind is EndKind.CANCELLED:
        points = 0.5
    seats = {1: game.first, 2: game.second or ""}
    forfeited = tuple(seats[s] for s in end.losers) if end.kind is EndKind.FORFEIT else ()
    return replace(game, points_first=points, forfeited=forfeited), mail_game.ended_at or mail_game.created_at


def state(store: Store, tournament_id: str, load: Load) -> State | None:
    """The tournament of that id as it stands, or None when there is none."""
    record = data.record(store, tournament_id)
    if record is None:
        return None
    rounds, ended = [], {}
    for at, games in data.rounds(store, tournament_id):
        now = []
        for game in games:
            done, when = scored(game, load(game.game_id) if game.game_id else None)
            now.append(done)
            if when is not None and game.game_id is not None:
                ended[game.game_id] = when
        rounds.append((at, now))
    return State(record, data.entrants(store, record), rounds, ended)


def shown(st: State, names: Mapping[str, str]) -> dict[str, Any]:
    """The tournament as anyone may see it: entrants by public name, never by address."""
    def who(address: str | None) -> str | None:
        if address is None:
            return None
        if address in names:
            return names[address]
        return f"Entrant {st.entrants.index(address) + 1}" if address in st.entrants else "?"

    rec = st.record
    rounds = []
    for number, (at, games) in enumerate(st.rounds, 1):
        rounds.append({"round": number, "at": at.isoformat(), "games": [
            {"first": who(g.first), "second": who(g.second), "game": g.game_id, "points_first": g.points_first,
             "bye": g.second is None, "forfeited": [who(f) for f in g.forfeited]} for g in games]})
    return {
        "id": rec.id, "game": rec.game, "format": rec.system.value, "tiebreak": rec.system.tiebreak,
        "variant": rec.variant, "rated": rec.rated, "rounds_planned": st.planned,
        "entrants": [who(e) for e in st.entrants],
        "signup_until": rec.signup_until.isoformat() if rec.signup_until else None,
        "started": bool(st.rounds), "rounds": rounds,
        "standings": [{"place": s.place_text, "name": who(s.entrant), "points": s.points, "tiebreak": s.tiebreak,
                       "played": s.played, "won": s.won, "drawn": s.drawn, "lost": s.lost}
                      for s in st.standings()],
    }
