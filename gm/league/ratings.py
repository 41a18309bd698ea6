"""The rating tables, folded from the finished games in the order they ended.

Ratings are derived data: `fold` is a pure function of the finished games
(`Finished`, one small value per game, which the mail edge reads from the
archives), so the same games always give the same tables, to the last bit.

What counts:

- A two-seat game (Spaceships, Grid Fighters) is one Glicko-2 rating period
  (`gm.league.glicko2`): a win scores 1, a draw ½, a loss 0, and a seat that
  resigned or forfeited lost. Before it, each side's deviation grows by the
  whole days since their last rated game (`glicko2.idle`).
- A game of more seats (Celestial Empire) rates by the game's own final
  standing with Plackett-Luce (`gm.league.multiplayer`).
- The robot's levels are players (``robot:normal``): a game against the
  robot always updates the robot's rating, and the person's only when the
  game is rated (`Options.rated`). An unrated game between people changes no
  rating.
- A cancelled game, or one in which every seat forfeited, has no result and
  changes no rating.
- Reliability is a person's share of setups, turns or moves answered before
  their deadline over their last 20 finished games of that game, rated or
  not, cancelled or not: it measures how a player keeps time, which every
  game shows alike. A table lists only players with at least one rated game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..kernel.values import EndKind, GameEnd
from . import glicko2, multiplayer

RELIABILITY_GAMES = 20
"""How many of a player's latest games the reliability looks at."""
ROBOT = "robot:"
"""How a robot level's player key begins (``robot:normal``)."""


@dataclass(frozen=True)
class Seated:
    """One seat of a finished game: who held it and how they kept time."""

    player: str
    """The player's key: their normalised address, or ``robot:LEVEL``."""
    asked: int = 0
    """Setups, turns or moves the seat was asked for."""
    late: int = 0
    """Deadlines the seat missed."""

    @property
    def robot(self) -> bool:
        return self.player.startswith(ROBOT)


@dataclass(frozen=True)
class Finished:
    """What the ratings need of one finished game."""

    game_id: str
    game: str
    """The game's name (``spaceships``): each game has a table of its own."""
    ended: datetime
    seats: tuple[Seated, ...]
    """In seat order: ``seats[0]`` is player 1."""
    end: GameEnd
    rated: bool
    multiplayer: bool = False
    """Rated by standing (`gm.league.multiplayer`) rather than Glicko-2."""


@dataclass(frozen=True)
class Row:
    """One player's line of a rating table. For a multiplayer game, ``rating``
    and ``deviation`` are OpenSkill's μ and sigma, and ``volatility`` is None."""

    player: str
    rating: float
    deviation: float
    volatility: float | None
    games: int
    """Rated games played (for a robot, every game it was rated by)."""
    reliability: float | None
    """The share of turns in time over the last `RELIABILITY_GAMES` games;
    None for a robot, or a player never asked for anything."""


@dataclass
class _Table:
    glicko: dict[str, glicko2.Rating] = field(default_factory=dict)
    skills: dict[str, multiplayer.Skill] = field(default_factory=dict)
    last: dict[str, datetime] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    timekeeping: dict[str, list[tuple[int, int]]] = field(default_factory=dict)

    def rows(self) -> tuple[Row, ...]:
        rows = []
        for player, count in self.games.items():
            if player in self.skills:
                skill = self.skills[player]
                rating, deviation, volatility = skill.mu, skill.sigma, None
            else:
                g = self.glicko[player]
                rating, deviation, volatility = g.rating, g.deviation, g.volatility
            rows.append(Row(player, rating, deviation, volatility, count, self._reliability(player)))
        return tuple(sorted(rows, key=lambda row: (-row.rating, row.player)))

    def _reliability(self, player: str) -> float | None:
        kept = self.timekeeping.get(player, [])[-RELIABILITY_GAMES:]
        asked = sum(a for a, _ in kept)
        return None if player.startswith(ROBOT) or not asked else max(0, asked - sum(late for _, late in kept)) / asked


def _places(game: Finished) -> list[int] | None:
    """Each seat's place (1 the best, ties alike), or None for a game with no result."""
    end = game.end
    if end.kind is EndKind.CANCELLED:
        return None
    standing = end.standing(range(1, len(game.seats) + 1))
    if end.kind is EndKind.FORFEIT and not end.winners and len(standing) == 1:
        return None
    places = [0] * len(game.seats)
    place = 1
    for group in standing:
        for player in group:
            places[player - 1] = place
        place += len(group)
    return places


def _score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def _play(table: _Table, game: Finished) -> None:
    for seat in game.seats:
        if not seat.robot:
            table.timekeeping.setdefault(seat.player, []).append((seat.asked, seat.late))
    keys = [seat.player for seat in game.seats]
    counted = [i for i, seat in enumerate(game.seats)  # a robot level at several seats played itself: unrated
               if (keys.count(seat.player) == 1 if seat.robot else game.rated)]
    places = _places(game)
    if not counted or places is None:
        return
    if game.multiplayer:
        after = multiplayer.rate([table.skills.get(k, multiplayer.Skill()) for k in keys], places)
        for i in counted:
            table.skills[keys[i]] = after[i]
    else:
        before = [glicko2.idle(table.glicko.get(k, glicko2.Rating()),
                               (game.ended - table.last[k]).days if k in table.last else 0) for k in keys]
        for i in counted:
            others = [(before[j], _score(places[i], places[j])) for j in range(len(keys)) if j != i]
            table.glicko[keys[i]] = glicko2.update(before[i], others)
    for i in counted:
        table.last[keys[i]] = game.ended
        table.games[keys[i]] = table.games.get(keys[i], 0) + 1


def ordered(games: Iterable[Finished]) -> list[Finished]:
    """The games in the order they ended, ties by game id: the order `fold` takes them in."""
    return sorted(games, key=lambda game: (game.ended, game.game_id))


@dataclass(frozen=True)
class Point:
    """A player's rating just after one of their rated games (`history`)."""

    game_id: str
    ended: datetime
    rating: float


def history(games: Iterable[Finished], player: str) -> dict[str, tuple[Point, ...]]:
    """``player``'s rating after each game that changed it, by game name,
    oldest first: the same fold as `fold`, read after every game."""
    tables: dict[str, _Table] = {}
    points: dict[str, list[Point]] = {}
    for game in ordered(games):
        table = tables.setdefault(game.game, _Table())
        before = table.games.get(player, 0)
        _play(table, game)
        if table.games.get(player, 0) > before:
            rating = table.skills[player].mu if game.multiplayer else table.glicko[player].rating
            points.setdefault(game.game, []).append(Point(game.game_id, game.ended, rating))
    return {name: tuple(points[name]) for name in sorted(points)}


def fold(games: Iterable[Finished]) -> dict[str, tuple[Row, ...]]:
    """Every game's rating table, by game name, from its finished games
    (taken in the order they ended, `ordered`): rows by rating, best first."""
    tables: dict[str, _Table] = {}
    for game in ordered(games):
        _play(tables.setdefault(game.game, _Table()), game)
    return {name: tables[name].rows() for name in sorted(tables)}
