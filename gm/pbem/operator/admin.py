"""Requests from the administrator's command line, spooled for the daemon.

``gm new`` does not touch any game: it writes a creation request into the
spool, where the daemon (the only writer of games) picks it up, so that a
running daemon and the command line never race.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from ...kernel.addresses import is_mail_address
from ...kernel.clock import utc_minute
from ...kernel.model import MailGame
from ...kernel.observers import watching
from ...kernel.protocol import GameRules, game_named
from ...kernel.takeover import stand_in_level
from ...kernel.values import DEFAULT_GAME, Options, Seat
from ...mail.reading import parse_message
from ...storage.maildirs import DurableMaildir, unix_lines
from ..archive.creation import fresh_terms, game_of, parse_fields, request_fields, seats_and_options
from ..archive.events import EVENT_HEADER, event_message
from ..archive.replay import identity_of, iter_out, mbox_of, player_mailbox, replay
from ..data.store import Store, origin_of, spool_key
from ..data.tokens import mask
from ..state import loading
from ..writing.mailer import Identity

ROBOT_ADDRESS = "robot"
"""What a robot seat's creation event names as its address: no mail address,
so that no mail can go to it nor come from it."""
ROBOT_ALIAS = "Robot"


def seat_aliases(rules: GameRules, count: int, given: list[str]) -> list[str]:
    """The seats' aliases: those given, in seat order, then the game's
    defaults for the rest; ValueError for too many, a repeated one, or one
    the game refuses (`GameRules.alias_problem`)."""
    if len(given) > count:
        raise ValueError(f"{len(given)} aliases for {count} players")
    aliases = [*given, *rules.default_aliases(count)[len(given):]]
    for alias in given:
        problem = rules.alias_problem(alias)
        if problem:
            raise ValueError(f"alias {alias!r}: {problem}")
    if len({a.lower() for a in aliases}) != len(aliases):
        raise ValueError("each player needs an alias of their own")
    return aliases


def request_game(store: Store, identity: Identity, players: list[str], variant: str, options: Options,
                 at: datetime, aliases: list[str] | None = None, name: str | None = None,
                 match: Any = None, game: str = DEFAULT_GAME,
                 observers: list[str] | None = None, robot: str | None = None,
                 robot_seed: int | None = None, tournament: tuple[str, int] | None = None,
                 robots: int = 1, commit_key: bytes | None = None) -> tuple[str, str]:
    """Spool a request for a new game of ``game``; returns its spool key and
    the game's id, reserved now (`Store.reserve_game_id`). ``name`` makes
    the key deterministic (so that redoing the request finds it there).
    ``match`` is the game's own terms (a Spaceships match); ``observers``
    are addresses that watch the game (`gm.kernel.observers`). ``robot``
    is the level of the GM's robot, which then holds the last seat, or the
    last ``robots`` seats, after the people's (`gm.pbem.master.robots`); its
    seed is drawn here unless ``robot_seed`` says. The robot of a
    two-player game is called Robot; in a game of more seats the robots'
    take the game's own names.
    ``tournament`` (its id and the round) is recorded in the creation event
    of a tournament's game (`gm.pbem.answers.tournaments`). ``commit_key``
    fixes the game key of its commitments, drawn here otherwise (tests that
    compare mail byte for byte fix it)."""
    rules = game_named(game)  # refuse an unknown game, or variant, now, not in the daemon
    for address in players:
        if not is_mail_address(address):
            raise ValueError(f"player {address!r} is not a mail address (write it as name@domain, "
                             "e.g. alice@example.org or you@localhost)")
    if robot is not None:
        if not rules.robot_levels:
            raise ValueError(f"{rules.title} has no robot to play")
        if robot not in rules.robot_levels:
            raise ValueError(f"the robot's level is one of {', '.join(rules.robot_levels)}, not {robot!r}")
        if robots < 1:
            raise ValueError("give the robots one seat at least")
        players = [*players, *[ROBOT_ADDRESS] * robots]
    if len(players) not in rules.seats:
        raise ValueError(f"a game of {rules.title} has {_how_many(rules.seats)} players")
    people = [p for p in players if p != ROBOT_ADDRESS]
    if len({p.lower() for p in people}) != len(people):
        raise ValueError(f"the {'two ' if len(players) == 2 else ''}players need different addresses")
    rules.describe_variant(variant)
    observers = observers or []
    for address in observers:
        if not is_mail_address(address):
            raise ValueError(f"observer {address!r} is not a mail address")
    if len({o.lower() for o in observers} | {p.lower() for p in people}) != len(observers) + len(people):
        raise ValueError("an observer needs an address of their own, neither a player's nor another observer's")
    given = aliases or []
    if robot is not None and rules.seats.stop - 1 == 2 and len(given) < 2:  # the robot's seat is called so
        given = [*given, *rules.default_aliases(len(players))[len(given):-1], ROBOT_ALIAS]
    aliases = seat_aliases(rules, len(players), given)
    seats = tuple(Seat(n, address, alias, robot if address == ROBOT_ADDRESS and robot else None)
                  for n, (address, alias) in enumerate(zip(players, aliases), 1))
    key = spool_key(at, "admin", name)
    if key in store.spool:  # a redo: the request, and its id, are there already
        return key, requested_id(store.spool.get_bytes(key)) or ""
    game_id = store.reserve_game_id()
    terms = fresh_terms(rules.name, match)
    fields = [f"id: {game_id}", *request_fields(seats, variant, options, terms, rules.name, tuple(observers),
                                                         robot_seed, commit_key)]
    if tournament is not None:
        fields += [f"tournament: {tournament[0]}", f"round: {tournament[1]}"]
    raw = event_message(identity, "create", at, f"<{key}@{identity.domain}>", None, fields)
    store.spool.add(raw, key)
    return key, game_id


def requested_id(raw: bytes) -> str | None:
    """The game id a spooled creation request reserved (None in requests
    spooled before ids were reserved)."""
    return parse_fields(parse_message(raw).get_content()).get("id")


def pending_requests(store: Store) -> list[dict[str, Any]]:
    """Creation requests spooled and not yet made into games, for ``gm games``."""
    found = []
    for key in store.spool.keys():
        if origin_of(key) != "admin":
            continue
        message = parse_message(store.spool.get_bytes(key))
        if str(message.get(EVENT_HEADER, "")).strip() != "create":
            continue
        fields = parse_fields(message.get_content())
        seats, variant, _ = seats_and_options(fields)
        found.append({"game": fields.get("id", "?"), "kind": game_of(fields), "variant": variant,
                      "players": [f"{s.alias} <{s.address}>" for s in seats]})
    return found


def _how_many(seats: range) -> str:
    words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    low, high = seats.start, seats.stop - 1

    def name(n: int) -> str:
        return words[n] if n < len(words) else str(n)

    return name(low) if low == high else f"from {name(low)} to {name(high)}"


def load_games(store: Store, identity: Identity | None = None) -> list[tuple[str, MailGame]]:
    """Every game in the data directory, as its archive replays to (from its
    snapshot and the events after it, where there is one; read only)."""
    games = []
    for game_id in store.game_ids():
        game = load_game(store, game_id, identity)
        if game is not None:
            games.append((game_id, game))
    return games


def load_game(store: Store, game_id: str, identity: Identity | None = None) -> MailGame | None:
    """One game of the data directory, as `load_games` reads it; None for
    an id reserved with no mail yet. An archive that does not replay raises
    what replaying it raised, for the caller to name that game alone."""
    archive = store.archive(game_id)
    keys = archive.keys()
    if not keys:
        return None
    live, _ = loading.load(store, identity or identity_of(archive), game_id, keys)
    return live.game


def describe_game(game: MailGame) -> dict:
    """A game's public summary, for ``gm games`` and ``gm show``: the turn
    (or move) being collected, or for a game that has ended the last one
    played (its outcome's ``after_turn``), not the one that never came; for
    a game whose robot takes over silent seats, after how many missed
    deadlines and at which level; and the seats whose corrected orders the
    turn waits for, when there are any (`gm.kernel.correction`)."""
    take_over = game.options.take_over_after
    return {
        "game": game.id,
        "players": [f"{s.alias} <{s.address}>" for s in game.seats],
        "kind": game.rules.name,
        "policy": game.rules.policy.value,
        "variant": game.variant,
        "phase": game.phase,
        "turn": game.turn if game.outcome is None else game.outcome.after_turn,
        "deadline": utc_minute(game.deadline) if game.deadline else None,
        "waiting_for": [game.seat(p).alias for p in game.waiting_for],
        "bouncing": [game.seat(p).alias for p in sorted(game.bouncing)],
        "paused": None if game.paused is None else utc_minute(game.paused),
        "absent": {game.seat(p).alias: utc_minute(until) for p, (_, until) in sorted(game.absent.items())},
        "observers": [address for _, address in watching(game)],
        "awaiting_operator": game.rules.awaiting_operator(game),
        "outcome": None if game.outcome is None else {
            "reason": game.outcome.reason,
            "after_turn": game.outcome.after_turn,
            "scores": game.outcome.scores,
            "winner": None if game.outcome.winner is None else game.seat(game.outcome.winner).alias,
        },
    } | ({"take_over": {"after": take_over, "level": stand_in_level(game)}} if take_over else {}) | (
        {"waiting_for_correction": [game.seat(p).alias for p in sorted(game.correcting)]} if game.correcting else {})


def export_mbox(store: Store, game_id: str, path: str, player: int | None = None) -> int:
    """Write a game's archive, in order, as an mbox file; returns the count.

    The whole archive is the operator's (it holds both players' own mail);
    with ``player``, only what the GM sent that player is written, which is
    what may be handed to a player."""
    archive = store.archive(game_id)
    keys = archive.keys()
    if not keys:
        raise KeyError(f"no game {game_id}")
    if player is not None:
        seats, _, _ = seats_and_options(parse_fields(parse_message(archive.get_bytes(keys[0])).get_content()))
        if not 1 <= player <= len(seats):
            raise KeyError(f"game {game_id} has no player {player}: its players are 1 to {len(seats)}")
    if player is None:
        data = mbox_of([archive.get_bytes(k) for k in keys], read=True)
    else:
        data = player_mailbox(archive, int(keys[-1].split(".")[0]) + 1, player, [])
    with open(path, "wb") as handle:
        handle.write(data)
    return data.count(b"\nFrom gm ") + data.startswith(b"From gm ")


def verify_replay(path: str) -> tuple[int, list[str]]:
    """Rebuild a game from its Maildir alone and compare every message the GM
    sent with the archived copy; returns (messages compared, differences)."""
    archive = DurableMaildir(path, create=False)
    game_id = Path(path).resolve().name
    _, _, replayed = replay(archive, identity_of(archive), game_id, render="all")
    rendered = {key: unix_lines(mask(data)) for r in replayed for key, _, data in r.messages}
    differences = []
    archived = {key: unix_lines(data) for key, data in iter_out(archive)}  # format-1 archives kept CRLF
    for key in sorted(set(rendered) | set(archived)):
        if key not in archived:
            differences.append(f"{key}: the replay sends it, the archive does not have it")
        elif key not in rendered:
            differences.append(f"{key}: archived, but the replay does not send it")
        elif rendered[key] != archived[key]:
            differences.append(f"{key}: differs from the archived copy")
    return len(rendered), differences
