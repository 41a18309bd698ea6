"""The store of tournaments (`gm.league.tournaments` says what one is).

Everything about a tournament is a message in ``DATA/tournaments/``, each
a JSON body under one header naming what it is, written once and never
changed:

- ``t1``: the record (`Record`), written by ``gm tournament new``;
- ``t1.start``: the operator's ``gm tournament start`` (sign-up closes then);
- ``t1.join.DIGEST``: one player's sign-up by mail;
- ``t1.r1``, ``t1.r2``...: a round as it was paired: its moment, and each
  pairing with its game's id (byes and games not played with their points).

A round's message is written in the batch that requests its games (each
under a name made of the tournament, round and board, `round_game_name`),
so a round is started once, even when redone after a crash. The games' own
results stay in their archives, whose creation events name the tournament
and round too.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...league.standings import System
from ...league.tournaments import Played
from .store import Store

HEADER = "X-GM-Tournament"
ID = re.compile(r"t[1-9][0-9]*")


@dataclass(frozen=True)
class Record:
    """A tournament as the operator made it."""

    id: str
    game: str
    system: System
    created: datetime
    players: tuple[str, ...] = ()
    """The entrants the operator named (addresses), in that order."""
    rounds: int | None = None
    """The operator's number of rounds (a Swiss's); None: the default."""
    variant: str | None = None
    deadline_hours: float | None = None
    signup_until: datetime | None = None
    rated: bool = True

    def fields(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "format": self.system.value, "created": self.created.isoformat(),
                "players": list(self.players), "rounds": self.rounds, "variant": self.variant,
                "deadline_hours": self.deadline_hours,
                "signup_until": self.signup_until.isoformat() if self.signup_until else None, "rated": self.rated}

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Record:
        until = f.get("signup_until")
        return cls(f["id"], f["game"], System(f["format"]), datetime.fromisoformat(f["created"]),
                   tuple(f.get("players", ())), f.get("rounds"), f.get("variant"), f.get("deadline_hours"),
                   datetime.fromisoformat(until) if until else None, bool(f.get("rated", True)))


def _message(kind: str, body: dict[str, Any]) -> bytes:
    return f"{HEADER}: {kind}\n\n".encode() + json.dumps(body, sort_keys=True).encode() + b"\n"


def _body(store: Store, key: str) -> dict[str, Any] | None:
    if key not in store.tournaments:
        return None
    result: dict[str, Any] = json.loads(store.tournaments.get_bytes(key).split(b"\n\n", 1)[1])
    return result


def new_id(store: Store) -> str:
    """The next tournament id: t1, t2..."""
    numbers = [int(key[1:]) for key in store.tournaments.keys() if ID.fullmatch(key)]
    return f"t{max(numbers, default=0) + 1}"


def ids(store: Store) -> list[str]:
    """Every tournament's id, oldest first."""
    return sorted((key for key in store.tournaments.keys() if ID.fullmatch(key)), key=lambda k: int(k[1:]))


def add_record(store: Store, record: Record) -> None:
    store.tournaments.add(_message("record", record.fields()), record.id)


def record(store: Store, tournament_id: str) -> Record | None:
    """The tournament of that id, or None."""
    body = _body(store, tournament_id) if ID.fullmatch(tournament_id) else None
    return None if body is None else Record.from_fields(body)


def start_early(store: Store, tournament_id: str, at: datetime) -> None:
    """The operator closes the sign-up now."""
    store.tournaments.add(_message("start", {"at": at.isoformat()}), f"{tournament_id}.start")


def started_early(store: Store, tournament_id: str) -> datetime | None:
    body = _body(store, f"{tournament_id}.start")
    return None if body is None else datetime.fromisoformat(body["at"])


def opens_at(store: Store, rec: Record) -> datetime:
    """When sign-up closes and round 1 may start."""
    early = started_early(store, rec.id)
    if early is not None:
        return early
    return rec.signup_until or rec.created


def join_key(tournament_id: str, address: str) -> str:
    return f"{tournament_id}.join.{hashlib.sha256(address.lower().encode()).hexdigest()[:16]}"


def add_join(store: Store, tournament_id: str, address: str, at: datetime) -> None:
    store.tournaments.add(_message("join", {"address": address, "at": at.isoformat()}),
                          join_key(tournament_id, address))


def entrants(store: Store, rec: Record) -> list[str]:
    """Every entrant: the operator's, then those who joined by mail, by when they did."""
    joined = []
    for key in store.tournaments.keys():
        if key.startswith(f"{rec.id}.join."):
            body = _body(store, key)
            assert body is not None
            joined.append((body["at"], body["address"]))
    named = {p.lower() for p in rec.players}
    return [*rec.players, *[address for _, address in sorted(joined) if address.lower() not in named]]


def round_key(tournament_id: str, number: int) -> str:
    return f"{tournament_id}.r{number}"


def round_game_name(tournament_id: str, number: int, board: int) -> str:
    """The deterministic name of a round's game request (`request_game`'s ``name``)."""
    return f"tournament-{tournament_id}-r{number}-b{board}"


def add_round(store: Store, tournament_id: str, number: int, at: datetime, games: list[Played]) -> None:
    body = {"round": number, "at": at.isoformat(),
            "games": [{"first": g.first, "second": g.second, "game": g.game_id, "points_first": g.points_first}
                      for g in games]}
    store.tournaments.add(_message("round", body), round_key(tournament_id, number))


def rounds(store: Store, tournament_id: str) -> list[tuple[datetime, list[Played]]]:
    """The rounds started, in order: each one's moment and its pairings (as recorded: results not yet read)."""
    found: list[tuple[datetime, list[Played]]] = []
    number = 1
    while True:
        body = _body(store, round_key(tournament_id, number))
        if body is None:
            return found
        found.append((datetime.fromisoformat(body["at"]),
                       [Played(number, g["first"], g["second"], g["game"], g["points_first"]) for g in body["games"]]))
        number += 1


def add_end(store: Store, tournament_id: str, at: datetime) -> None:
    """The tournament is over (no round left to pair)."""
    store.tournaments.add(_message("end", {"at": at.isoformat()}), f"{tournament_id}.end")


def ended(store: Store, tournament_id: str) -> bool:
    return f"{tournament_id}.end" in store.tournaments
