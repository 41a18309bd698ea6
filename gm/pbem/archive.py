"""A game's archive: its events as mail, and rebuilding the game from them.

The archive of a game is a Maildir whose keys sort in the order things
happened:

    000001.in.created            the game's creation (a message of the GM's)
    000001.out.1                 the invitation to player 1 (token masked)
    000001.out.2                 the invitation to player 2
    000002.in.KEY                a player's mail, as received, with an
                                 X-GM-Accepted header on top saying who and when
    000002.out.1                 the GM's acknowledgement
    000003.in.KEY                the GM's own deadline event
    ...

`replay` reads such a Maildir alone (no key, no configuration) and rebuilds
the game, rendering every message the GM sent so that it can be compared
with the archived copy byte for byte.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage, Message
from email.policy import SMTP
from email.utils import format_datetime, parsedate_to_datetime
from typing import Iterator

from ..mail.reading import parse_message, player_text
from ..match import MatchTerms
from ..ruleset import ruleset_named
from ..storage import DurableMaildir
from . import engine
from .engine import Created, DeadlinePassed, Event, Notice, PlayerMail, ReminderDue
from .mailer import Identity, as_bytes, build
from .model import MailGame, Options, Seat

EVENT_HEADER = "X-GM-Event"
ACCEPTED_HEADER = "X-GM-Accepted"
MAX_LINES = 300
"""Lines of a player's mail that are read; the rest is ignored."""

_PASSWORD = re.compile(r"^\s*password\s+(\S+)\s*$", re.I)


def orders_text(message: Message) -> tuple[str, str | None]:
    """The player's own text from a mail, without any password line, and the
    password if one was given. Only the first `MAX_LINES` lines count."""
    lines = player_text(message).split("\n")[:MAX_LINES]
    password = None
    kept = []
    for line in lines:
        match = _PASSWORD.match(line)
        if match:
            password = match.group(1)
            kept.append("")  # keep line numbers as the player sees them
        else:
            kept.append(line)
    return "\n".join(kept), password


def prepend_header(raw: bytes, name: str, value: str) -> bytes:
    """Put a header on top of a raw message, in the message's own line ending."""
    eol = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
    return f"{name}: {value}".encode() + eol + raw


def _options_lines(options: Options) -> list[str]:
    return [
        f"deadline-hours: {options.deadline.total_seconds() / 3600:g}",
        f"wait-for-deadline: {'yes' if options.wait_for_deadline else 'no'}",
        f"reminder-hours: {options.reminder_before.total_seconds() / 3600:g}",
        f"forfeit-after: {options.forfeit_after}",
    ]


def request_fields(seats: tuple[Seat, Seat], variant: str, options: Options, match: MatchTerms | None = None) -> list[str]:
    """The body of a creation event: who plays, under which rules and options."""
    lines = []
    for seat in seats:
        lines.append(f"player-{seat.player}: {seat.address}")
        lines.append(f"alias-{seat.player}: {seat.alias}")
    lines.append(f"variant: {variant}")
    if match is not None:
        lines.append(f"match: {match.kind}")
        if match.games is not None:
            lines.append(f"match-games: {match.games}")
        if match.target is not None:
            lines.append(f"match-target: {match.target}")
    return lines + _options_lines(options)


def match_terms(fields: dict[str, str]) -> MatchTerms | None:
    """The match agreed in a creation event, if any [9], [10]."""
    if "match" not in fields:
        return None
    games = fields.get("match-games")
    target = fields.get("match-target")
    return MatchTerms(fields["match"], int(games) if games else None, int(target) if target else None)


def event_message(identity: Identity, kind: str, at: datetime, message_id: str, game: str | None, body: list[str]) -> bytes:
    """A GM event (creation, deadline, reminder) as a message of the GM's own."""
    message = EmailMessage(policy=SMTP)
    message["From"] = f"{identity.name} <{identity.address}>"
    message["To"] = identity.address
    message["Subject"] = f"[gm {game}] {kind}" if game else f"[gm] {kind}"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id
    message[EVENT_HEADER] = kind
    if game:
        message["X-GM-Game"] = game
    message["Auto-Submitted"] = "auto-generated"
    message.set_content("\n".join(body) + "\n")
    return as_bytes(message)


def parse_fields(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name.strip().lower()] = value.strip()
    return fields


def seats_and_options(fields: dict[str, str]) -> tuple[tuple[Seat, Seat], str, Options]:
    seats = tuple(
        Seat(p, fields[f"player-{p}"], fields.get(f"alias-{p}") or f"Player {p}") for p in (1, 2)
    )
    options = Options(
        deadline=timedelta(hours=float(fields.get("deadline-hours", 72))),
        wait_for_deadline=fields.get("wait-for-deadline", "no") == "yes",
        reminder_before=timedelta(hours=float(fields.get("reminder-hours", 12))),
        forfeit_after=int(fields.get("forfeit-after", 3)),
    )
    return seats, fields.get("variant", "2.6.1"), options  # type: ignore[return-value]


def message_time(message: Message) -> datetime:
    moment = parsedate_to_datetime(str(message["Date"]))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def accepted_fields(message: Message) -> dict[str, str]:
    """The X-GM-Accepted header gm put on top of a player's mail."""
    value = str(message.get(ACCEPTED_HEADER, ""))
    return dict(part.strip().split("=", 1) for part in value.split(";") if "=" in part)


def to_event(raw: bytes, game: str) -> Event:
    """The event an archived inbound message stands for."""
    message = parse_message(raw)
    kind = str(message.get(EVENT_HEADER, "")).strip()
    accepted = accepted_fields(message)
    if accepted:
        at = datetime.fromisoformat(accepted["at"])
        text, _ = orders_text(message)
        return PlayerMail(at, int(accepted["player"]), text, _message_id(message))
    at = message_time(message)
    if kind == "created":
        fields = parse_fields(message.get_content())
        seats, variant, options = seats_and_options(fields)
        return Created(at, game, seats, ruleset_named(variant), variant, options, match_terms(fields))
    if kind == "deadline":
        return DeadlinePassed(at)
    if kind == "reminder":
        return ReminderDue(at)
    raise ValueError(f"archived message is no event: {kind!r}")


def _message_id(message: Message) -> str | None:
    value = message.get("Message-ID")
    return str(value).strip() if value else None


@dataclass
class Replayed:
    """One event as replayed: its number, its time, the notices and their
    messages as archived (token masked)."""

    number: int
    at: datetime
    event: Event
    messages: list[tuple[str, int, bytes]]
    """(archive key, player, bytes with the token placeholder) for each notice."""


class Threads:
    """The Message-IDs of each player's conversation with the GM, for threading."""

    def __init__(self) -> None:
        self._ids: dict[int, list[str]] = {1: [], 2: []}

    def of(self, player: int) -> list[str]:
        return self._ids[player]

    def add(self, player: int, message_id: str | None) -> None:
        if message_id:
            self._ids[player].append(message_id)
            del self._ids[player][:-20]


def mbox_of(messages: list[bytes]) -> bytes:
    """Messages as one mbox (the mboxrd form: ``>From`` lines escaped), with
    "From " lines dated from each message's Date, so the same messages always
    give the same bytes. mutt and Thunderbird open it."""
    out = []
    for raw in messages:
        text = raw.replace(b"\r\n", b"\n")
        try:
            moment = message_time(parse_message(raw))
            stamp = moment.astimezone(timezone.utc).strftime("%a %b %d %H:%M:%S %Y")
        except (TypeError, ValueError):
            stamp = "Thu Jan 01 00:00:00 1970"
        body = re.sub(rb"(?m)^(>*From )", rb">\1", text)
        if not body.endswith(b"\n"):
            body += b"\n"
        out.append(f"From gm {stamp}\n".encode() + body + b"\n")
    return b"".join(out)


def archive_so_far(archive: DurableMaildir, number: int, pending: bytes | None = None) -> bytes:
    """The game's archive up to and including event ``number``'s own message
    (``pending`` when that message is not archived yet)."""
    keys = [k for k in archive.keys() if int(k.split(".")[0]) < number or (int(k.split(".")[0]) == number and ".in." in k)]
    messages = [archive.get_bytes(k) for k in keys]
    if pending is not None and not any(int(k.split(".")[0]) == number for k in keys):
        messages.append(pending)
    return mbox_of(messages)


def notice_messages(game: MailGame, notices: list[Notice], identity: Identity, number: int, at: datetime,
                    threads: Threads, render: bool = True, archive: DurableMaildir | None = None,
                    pending: bytes | None = None) -> list[tuple[str, int, bytes]]:
    """The GM's messages for one event's notices, with their archive keys and
    the token still a placeholder (`gm.pbem.tokens`); the threads are brought
    up to date whether or not the messages are rendered."""
    out = []
    for position, notice in enumerate(notices, 1):
        threads.add(notice.player, notice.answers)
        data = b""
        if render:
            attachment = archive_so_far(archive, number, pending) if notice.attach_archive and archive is not None else None
            message = build(notice, game, identity, number, position, at, threads.of(notice.player), attachment)
            data = as_bytes(message)
        threads.add(notice.player, f"<{game.id}.{number}.{position}@{identity.domain}>")
        out.append((f"{number:06d}.out.{position}", notice.player, data))
    return out


def replay(archive: DurableMaildir, identity: Identity, game_id: str, render: str = "all") -> tuple[MailGame, Threads, list[Replayed]]:
    """Rebuild a game from its archive. ``render`` is ``all`` (every message,
    for checking), ``last`` (only the last event's, for recovery) or ``none``."""
    inbound = [k for k in archive.keys() if ".in." in k]
    game: MailGame | None = None
    threads = Threads()
    replayed: list[Replayed] = []
    for index, key in enumerate(inbound):
        number = int(key.split(".")[0])
        event = to_event(archive.get_bytes(key), game_id)
        if isinstance(event, Created):
            game, notices = engine.create(event)
        else:
            assert game is not None, f"{key}: the archive does not start with the game's creation"
            notices = engine.apply(game, event)
        do_render = render == "all" or (render == "last" and index == len(inbound) - 1)
        messages = notice_messages(game, notices, identity, number, event.at, threads, do_render, archive)
        replayed.append(Replayed(number, event.at, event, messages))
    if game is None:
        raise ValueError(f"{archive.path} holds no game")
    return game, threads, replayed


def identity_of(archive: DurableMaildir) -> Identity:
    """The GM identity a game was run under, read from its creation event."""
    first = next((k for k in archive.keys() if ".in." in k), None)
    if first is None:
        raise ValueError(f"{archive.path} holds no game")
    message = parse_message(archive.get_bytes(first))
    name, address = _name_address(str(message["From"]))
    return Identity(address=address, name=name)


def _name_address(value: str) -> tuple[str, str]:
    from email.utils import parseaddr

    name, address = parseaddr(value)
    return name, address


def iter_out(archive: DurableMaildir) -> Iterator[tuple[str, bytes]]:
    for key in archive.keys():
        if ".out." in key:
            yield key, archive.get_bytes(key)
