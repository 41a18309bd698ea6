"""A game's creation event, as fields: which game, who plays and watches,
under which rules, options and edition. `request_fields` writes them (for
`gm new` and challenges); `created_event` reads them back into the kernel's
`Created`, for the daemon and for `gm replay` alike."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from ...kernel.commitments import COMMITMENT_EDITION, KEY_BYTES
from ...kernel.protocol import game_named
from ...kernel.settings import PlayerSettings
from ...kernel.values import DEFAULT_GAME, EDITION, Created, Options, Seat


def exact_seconds(duration: timedelta) -> str:
    """A duration in seconds, exactly (to the microsecond), as text."""
    micro = duration // timedelta(microseconds=1)
    whole, part = divmod(micro, 1_000_000)
    return str(whole) if not part else f"{whole}.{part:06d}".rstrip("0")


def _duration_field(fields: dict[str, str], name: str, default_hours: float) -> timedelta:
    """``NAME-seconds`` (exact), or ``NAME-hours`` as archives before it wrote."""
    if f"{name}-seconds" in fields:
        return timedelta(seconds=float(fields[f"{name}-seconds"]))
    return timedelta(hours=float(fields.get(f"{name}-hours", default_hours)))


def _options_lines(options: Options) -> list[str]:
    return [
        f"deadline-seconds: {exact_seconds(options.deadline)}",
        f"wait-for-deadline: {'yes' if options.wait_for_deadline else 'no'}",
        f"reminder-seconds: {exact_seconds(options.reminder_before)}",
        f"forfeit-after: {options.forfeit_after}",
    ] + [  # only when not the default, as games made before absences have them
        f"{name}-seconds: {exact_seconds(value)}" for name, value, default in (
            ("absence-max", options.absence_max, Options.absence_max),
            ("absence-total", options.absence_total, Options.absence_total)) if value != default
    ] + (["public-each-turn: yes"] if options.public_each_turn else []) + (  # only when agreed, as for absences
        ["rated: yes"] if options.rated else []) + (
        [f"take-over-after: {options.take_over_after}"] if options.take_over_after else []) + (
        [f"take-over-level: {options.take_over_level}"]
        if options.take_over_after and options.take_over_level != Options.take_over_level else [])


def fresh_terms(game: str, terms: Any) -> Any:
    """The game's terms for a game being requested now, with a seed drawn
    here, at the edge, for a game that needs one (`GameRules.fresh_terms`)."""
    return game_named(game).fresh_terms(terms, secrets.randbits(32))


def request_fields(seats: tuple[Seat, ...], variant: str, options: Options, terms: Any = None,
                   game: str = DEFAULT_GAME, observers: tuple[str, ...] = (),
                   robot_seed: int | None = None, commit_key: bytes | None = None) -> list[str]:
    """The body of a creation event: which game, who plays (and who
    watches), under which rules and options (and the game's own terms, such
    as a Spaceships match). A seat the GM's robot holds says its level, and
    the event holds the robot's seed (`MailGame.robot_seed`). The game key
    of its commitments (`MailGame.commit_key`) is drawn here, at the edge,
    unless ``commit_key`` gives it."""
    lines = [f"game: {game}", f"edition: {EDITION}"]
    for seat in seats:
        lines.append(f"player-{seat.player}: {seat.address}")
        lines.append(f"alias-{seat.player}: {seat.alias}")
        if seat.robot:
            lines.append(f"robot-{seat.player}: {seat.robot}")
    if any(seat.robot for seat in seats):
        lines.append(f"robot-seed: {secrets.randbits(32) if robot_seed is None else robot_seed}")
    if EDITION >= COMMITMENT_EDITION:
        lines.append(f"commit-key: {(commit_key or secrets.token_bytes(KEY_BYTES)).hex()}")
    lines += [f"observer-{n}: {address}" for n, address in enumerate(observers, 1)]
    lines.append(f"variant: {variant}")
    return lines + game_named(game).creation_fields(terms) + _options_lines(options)


def parse_fields(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip().lower()] = value.strip()
    return fields


def seats_and_options(fields: dict[str, str]) -> tuple[tuple[Seat, ...], str, Options]:
    """The seats, variant and options a creation event names; an event
    without a ``game`` line is a Spaceships game, as every archive before
    the kernel is."""
    seats: list[Seat] = []
    while f"player-{len(seats) + 1}" in fields:
        p = len(seats) + 1
        seats.append(Seat(p, fields[f"player-{p}"], fields.get(f"alias-{p}") or f"Player {p}",
                          fields.get(f"robot-{p}") or None))
    options = Options(
        deadline=_duration_field(fields, "deadline", 72),
        wait_for_deadline=fields.get("wait-for-deadline", "no") == "yes",
        reminder_before=_duration_field(fields, "reminder", 12),
        forfeit_after=int(fields.get("forfeit-after", 3)),
        absence_max=_duration_field(fields, "absence-max", Options.absence_max / timedelta(hours=1)),
        absence_total=_duration_field(fields, "absence-total", Options.absence_total / timedelta(hours=1)),
        public_each_turn=fields.get("public-each-turn", "no") == "yes",
        rated=fields.get("rated", "no") == "yes",
        take_over_after=int(fields.get("take-over-after", 0)),
        take_over_level=fields.get("take-over-level") or Options.take_over_level,
    )
    return tuple(seats), fields.get("variant") or game_named(game_of(fields)).default_variant, options


def settings_lines(seats: tuple[Seat, ...], settings_of: Callable[[str], PlayerSettings]) -> list[str]:
    """The lines the master adds to a creation event for each person's seat
    whose player has settings of their own (``settings-N: timezone=...;
    quiet=...``): the game records what its mail uses (`Created.settings`)."""
    lines = []
    for seat in seats:
        fields = {} if seat.robot else settings_of(seat.address).fields()
        if fields:
            lines.append(f"settings-{seat.player}: " + "; ".join(f"{k}={v}" for k, v in fields.items()))
    return lines


def _settings(fields: dict[str, str], seats: tuple[Seat, ...]) -> tuple[tuple[int, PlayerSettings], ...]:
    found = []
    for seat in seats:
        line = fields.get(f"settings-{seat.player}")
        if line:
            found.append((seat.player, PlayerSettings.from_fields(
                dict(part.strip().split("=", 1) for part in line.split(";") if "=" in part))))
    return tuple(found)


def game_of(fields: dict[str, str]) -> str:
    """The game a creation event is for (Spaceships when it names none)."""
    return fields.get("game", DEFAULT_GAME).lower()


def created_event(at: datetime, game_id: str, fields: dict[str, str]) -> Created:
    """The `Created` event a creation event's fields stand for."""
    seats, variant, options = seats_and_options(fields)
    name = game_of(fields)
    observers: list[str] = []
    while f"observer-{len(observers) + 1}" in fields:
        observers.append(fields[f"observer-{len(observers) + 1}"])
    return Created(at, game_id, seats, variant, options, game_named(name).creation_terms(fields),
                   fields.get("instance"), name, int(fields.get("edition", 1)), tuple(observers),
                   int(fields["robot-seed"]) if "robot-seed" in fields else None, _settings(fields, seats),
                   bytes.fromhex(fields["commit-key"]) if "commit-key" in fields else None)
