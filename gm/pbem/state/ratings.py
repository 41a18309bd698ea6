"""The rating tables as derived data: a file in the data directory, rebuilt
from the finished games whenever it cannot be trusted.

The archives are the truth. Each finished game, replayed, gives a small
value (`finished_of`) and `gm.league.ratings.fold` turns them all, in the
order the games ended, into the tables. ``ratings.json`` keeps the result
with the ids of the games it was derived from and a checksum; it is used
only when it reads whole (JSON, format, checksum) and names exactly the
games finished now. Otherwise (missing, damaged, older than the set of
finished games) the tables are derived again from every finished game and
the file is written anew, atomically (a rename over the old one), so a
process killed at any point leaves the old file or the new one, never a
game counted twice. Nothing here is fatal: a file that cannot be read is
rebuilt, one that cannot be written is derived again next time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...kernel.model import MailGame
from ...kernel.values import ENDED
from ...league.ratings import ROBOT, Finished, Row, Seated, fold
from ...logs import event as log_event

FILE = "ratings.json"
FORMAT = 1


@dataclass(frozen=True)
class Ratings:
    """Every game's rating table, and the finished games they were derived from."""

    games: tuple[str, ...]
    """The ids of the finished games, sorted."""
    tables: Mapping[str, tuple[Row, ...]]
    """By game name (``spaceships``), rows best first."""

    def table(self, game: str) -> tuple[Row, ...]:
        return self.tables.get(game, ())


def player_key(address: str) -> str:
    """A person's key in the tables: their address as gm compares addresses (case aside)."""
    return address.lower()


def finished_of(game: MailGame) -> Finished:
    """What the ratings need of a finished game."""
    assert game.phase == ENDED and game.outcome is not None
    seats = tuple(Seated(f"{ROBOT}{seat.robot}" if seat.robot else player_key(seat.address),
                         game.asked.get(seat.player, 0), game.late.get(seat.player, 0)) for seat in game.seats)
    return Finished(game.id, game.rules.name, game.ended_at or game.created_at, seats, game.outcome,
                    game.options.rated, multiplayer=max(game.rules.seats) > 2)


def derive(games: Iterable[MailGame]) -> Ratings:
    """The tables of these finished games."""
    finished = [finished_of(game) for game in games]
    return Ratings(tuple(sorted(game.game_id for game in finished)), fold(finished))


def _body(ratings: Ratings) -> dict[str, Any]:
    return {"format": FORMAT, "games": list(ratings.games),
            "tables": {name: [row_json(row) for row in rows] for name, rows in sorted(ratings.tables.items())}}


def row_json(row: Row) -> dict[str, Any]:
    """A table row as JSON (``gm ratings --json`` and the file)."""
    return {"player": row.player, "rating": row.rating, "deviation": row.deviation, "volatility": row.volatility,
            "games": row.games, "reliability": row.reliability}


def _checksum(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def encode(ratings: Ratings) -> bytes:
    """The file's bytes: the same tables always give the same bytes."""
    body = _body(ratings)
    return (json.dumps({**body, "checksum": _checksum(body)}, sort_keys=True, indent=1) + "\n").encode()


def read(root: Path) -> Ratings | None:
    """The tables the file holds, or None when it is missing or is not one gm wrote whole."""
    try:
        data = json.loads((root / FILE).read_bytes())
        body = {key: data[key] for key in ("format", "games", "tables")}
        if data["format"] != FORMAT or data["checksum"] != _checksum(body):
            raise ValueError("its checksum or format is not gm's")
        tables = {name: tuple(Row(r["player"], float(r["rating"]), float(r["deviation"]),
                                  None if r["volatility"] is None else float(r["volatility"]), int(r["games"]),
                                  None if r["reliability"] is None else float(r["reliability"])) for r in rows)
                  for name, rows in data["tables"].items()}
        return Ratings(tuple(str(game) for game in data["games"]), tables)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        log_event("ratings file damaged", logging.WARNING, file=str(root / FILE),
                  reason=str(error) or type(error).__name__)
        return None


def write(root: Path, ratings: Ratings) -> None:
    """Write the file atomically: a rename over the old one."""
    target = root / FILE
    tmp = root / f".{FILE}.{os.getpid()}.tmp"
    try:
        tmp.write_bytes(encode(ratings))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def rebuild(root: Path, ended: Collection[str], load: Callable[[str], MailGame]) -> Ratings:
    """Derive the tables from the finished games ``ended`` (each loaded by
    ``load``) and write the file; a file that cannot be written is logged."""
    ratings = derive(load(game_id) for game_id in sorted(ended))
    try:
        write(root, ratings)
    except OSError as error:
        log_event("ratings file not written", logging.WARNING, file=str(root / FILE), reason=str(error))
    return ratings


def current(root: Path, ended: Collection[str], load: Callable[[str], MailGame]) -> Ratings:
    """The tables for the finished games ``ended``: the file's when it reads
    whole and was derived from exactly these games, else rebuilt."""
    found = read(root)
    if found is not None and set(found.games) == set(ended):
        return found
    return rebuild(root, ended, load)


def shown_row(row: Row, place: int, name: str) -> dict[str, Any]:
    """A row as the tables show it: the rating and deviation rounded as the
    model's scale wants (Glicko-2's in whole points, OpenSkill's to a tenth),
    the reliability in per cent."""
    digits = 0 if row.volatility is not None else 1
    return {"place": place, "name": name, "rating": f"{row.rating:.{digits}f}",
            "deviation": f"{row.deviation:.{digits}f}", "games": row.games,
            "reliability": "-" if row.reliability is None else f"{round(row.reliability * 100)}%"}


def robot_name(player: str) -> str | None:
    """How a robot level is shown ("robot (normal)"), or None for a person."""
    return f"robot ({player.removeprefix(ROBOT)})" if player.startswith(ROBOT) else None


def public_table(rows: Iterable[Row], names: Mapping[str, str]) -> tuple[list[dict[str, Any]], int]:
    """A table as anyone may see it: each person by their public name
    (``names``: address -> name), never by address, and the robot's levels;
    and how many players were left out for want of a public name."""
    shown: list[dict[str, Any]] = []
    hidden = 0
    for row in rows:
        name = robot_name(row.player) or names.get(row.player)
        if name is None:
            hidden += 1
            continue
        shown.append(shown_row(row, len(shown) + 1, name))
    return shown, hidden
