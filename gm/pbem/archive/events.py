"""The GM's own events as mail: written into the spool, archived in the game,
and read back into the kernel's events, by the daemon and by `gm replay`.

Each is a message of the GM's to itself, its kind in ``X-GM-Event`` and
its fields (``name: value`` lines) in the body:

    kind              spooled by          body lines
    create            gm new, challenges  the game's creation fields (`gm.pbem.archive.creation`)
    created           the master          the same, and the game's instance tag
    deadline          the clock           (a sentence; the deadline is in X-GM-Deadline)
    reminder          the clock           (a sentence)
    robot             the robot's seat    player: N, level: LEVEL, a blank line, the text
    bouncing          the delivery        player: N, reason: TEXT
    pause             the operator        -
    resume            the operator        -
    set-deadline      the operator        deadline: ISO    or    extend-seconds: N
    replace-address   the operator        player: N, address: ADDR
    hand-seat         the operator        player: N, robot: LEVEL    or    robot: person
    cancel            the operator        reason: TEXT
    answer            the operator        player: N, text: TEXT
    absence           a player's vacation player: N, until: ISO (or: until: back)
                      for all games
    settings          a player's settings player: N, then the settings (`PlayerSettings.lines`)
    observer-left     an observer's       observer: N
                      unsubscribing

Its time is kept exactly in ``X-GM-At`` (``Date:`` is for mail clients and
holds whole seconds only, so it is never read back, but in archives from
before ``X-GM-At``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage, Message
from email.utils import format_datetime, parsedate_to_datetime

from ...kernel.settings import PlayerSettings
from ...kernel.values import (
    AddressReplaced,
    Answered,
    Away,
    Bouncing,
    Cancelled,
    DeadlinePassed,
    DeadlineSet,
    Event,
    ObserverLeft,
    Paused,
    PlayerMail,
    ReminderDue,
    Resumed,
    SeatHanded,
    SettingsChanged,
)
from ..writing.mailer import GAME_HEADER, Identity
from ..writing.writer import Mail, as_bytes, text_body
from .creation import created_event, exact_seconds, parse_fields

EVENT_HEADER = "X-GM-Event"
AT_HEADER = "X-GM-At"
DEADLINE_HEADER = "X-GM-Deadline"
PERSON = "person"
"""What a ``hand-seat`` event names in place of a level: the seat goes back to its person."""
ROBOT = "robot"
"""The kind (and spool key origin) of the GM's robot's events (`gm.pbem.master.robots`)."""
ABSENCE = "absence"
"""The kind of a player's vacation for all games as it reaches one game (`Away`)."""
BACK = "back"
"""An `ABSENCE` event's ``until`` when the player is back."""
SETTINGS = "settings"
"""The kind of a player's settings recorded in a game (`gm.pbem.answers.settings`)."""
OBSERVER_LEFT = "observer-left"
"""The kind of an observer's unsubscribing from a game's mail (`ObserverLeft`)."""
OPERATOR_KINDS = ("pause", "resume", "set-deadline", "replace-address", "hand-seat", "cancel", "answer")
"""The kinds of the operator's actions on a game (`gm.pbem.operator.actions`)."""


def exact_time(at: datetime) -> str:
    """gm's one way to write a moment: UTC, to the microsecond."""
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def clock_event_name(kind: str, game_id: str, turn: int, due: datetime) -> str:
    """The name of a game's ``deadline`` or ``reminder`` event due at
    ``due``: its spool key's last part (``spool_key(due, "clock", name)``)
    and its Message-ID's, the same in every master and at every start, so
    that it is spooled once and found in the shunt by any master."""
    return f"{kind}-{game_id}-{turn}-{due.strftime('%Y%m%dT%H%M%S.%fZ')}"


def event_message(identity: Identity, kind: str, at: datetime, message_id: str, game: str | None, body: list[str],
                  deadline: datetime | None = None) -> bytes:
    """A GM event as a message of the GM's own (a deadline event names the
    deadline it is for in ``X-GM-Deadline``)."""
    message = Mail()
    message["From"] = f"{identity.name} <{identity.address}>"
    message["To"] = identity.address
    message["Subject"] = f"[gm {game}] {kind}" if game else f"[gm] {kind}"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id
    message[EVENT_HEADER] = kind
    message[AT_HEADER] = exact_time(at)
    if deadline is not None:
        message[DEADLINE_HEADER] = exact_time(deadline)
    if game:
        message[GAME_HEADER] = game
    message["Auto-Submitted"] = "auto-generated"
    text_body(message, "\n".join(body) + "\n")
    return as_bytes(message)


def message_time(message: Message) -> datetime:
    """A message's Date, as a moment (UTC when it names no zone)."""
    moment = parsedate_to_datetime(str(message["Date"]))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _event_time(message: Message, header: str = AT_HEADER) -> datetime | None:
    value = message.get(header)
    return datetime.fromisoformat(str(value).strip()) if value else None


def read_event(message: EmailMessage, game: str) -> Event:
    """The event a GM event's message stands for."""
    kind = str(message.get(EVENT_HEADER, "")).strip()
    at = _event_time(message) or message_time(message)  # archives before X-GM-At: whole seconds
    return _event_of(kind, at, lambda: _event_time(message, DEADLINE_HEADER), message.get_content, game)


_FIELD_NAME = re.compile(rb"[\x21-\x39\x3b-\x7e]+")
"""A field's name as the email package's parser reads one: printable, no colon."""
_OWN_BODY = {"content-type": 'text/plain; charset="utf-8"', "content-transfer-encoding": "7bit"}
"""How `event_message` writes every event's body (`gm.pbem.writing.writer.text_body`)."""


def own_event(raw: bytes, game: str) -> Event | None:
    """The event a GM event's message stands for, read without the email
    package when it is written as `event_message` writes every event: one
    line a field, unfolded, in plain ASCII (no encoded word), ``X-GM-At``
    among them, and a plain text body in 7 bits, in line feeds. Read so, it
    is what `read_event` reads from the parsed message (the first field of
    each name, its value stripped; the body's bytes in UTF-8); None for any
    other message, which the email package reads. Most of a game's events
    with robot seats are the robots' orders, which `gm replay` reads."""
    head, blank, body = raw.partition(b"\n\n")
    if not blank or b"\r" in raw or not head.isascii() or b"=?" in head:
        return None
    fields: dict[str, str] = {}
    for line in head.split(b"\n"):
        name, colon, value = line.partition(b":")
        if not colon or not _FIELD_NAME.fullmatch(name):
            return None  # a folded line, or none the parser reads as a field
        fields.setdefault(name.decode().lower(), value.decode().strip())
    if any(fields.get(name) != value for name, value in _OWN_BODY.items()) or AT_HEADER.lower() not in fields:
        return None
    text = body.decode("utf-8", "replace")
    deadline = fields.get(DEADLINE_HEADER.lower())
    return _event_of(fields.get(EVENT_HEADER.lower(), ""), datetime.fromisoformat(fields[AT_HEADER.lower()]),
                     lambda: datetime.fromisoformat(deadline) if deadline else None, lambda: text, game)


def _event_of(kind: str, at: datetime, deadline: Callable[[], datetime | None], content: Callable[[], str],
              game: str) -> Event:
    """The event of ``kind`` at ``at``, its ``deadline`` field and its
    message's text (`email.message.EmailMessage.get_content`) read when its
    kind has them."""
    if kind == "created":
        return created_event(at, game, parse_fields(content()))
    if kind == "deadline":
        return DeadlinePassed(at, deadline())
    if kind == "reminder":
        return ReminderDue(at)
    if kind == ROBOT:
        head, _, text = content().replace("\r\n", "\n").partition("\n\n")  # (`gm.pbem.master.robots`)
        return PlayerMail(at, int(parse_fields(head)["player"]), text, robot=True)
    if kind == "bouncing":
        fields = parse_fields(content())
        return Bouncing(at, int(fields["player"]), fields.get("reason", "the relay refused it"))
    if kind == ABSENCE:
        fields = parse_fields(content())
        until = fields["until"]
        return Away(at, int(fields["player"]), None if until == BACK else datetime.fromisoformat(until))
    if kind == SETTINGS:
        fields = parse_fields(content())
        return SettingsChanged(at, int(fields["player"]), PlayerSettings.from_fields(fields))
    action = operator_event(kind, at, parse_fields(content()))
    if action is not None:
        return action
    raise ValueError(f"archived message is no event: {kind!r}")


# The operator's actions on a game, and a player's vacation: events <-> the lines of their messages

def event_fields(event: Event) -> tuple[str, list[str]]:
    """The kind and body lines of the message that stands for the operator's
    ``event``, or for a player's vacation as it reaches a game (`Away`)."""
    if isinstance(event, Away):
        until = BACK if event.until is None else exact_time(event.until)
        return ABSENCE, [f"player: {event.player}", f"until: {until}"]
    if isinstance(event, Paused):
        return "pause", []
    if isinstance(event, Resumed):
        return "resume", []
    if isinstance(event, DeadlineSet):
        if event.deadline is not None:
            return "set-deadline", [f"deadline: {exact_time(event.deadline)}"]
        assert event.extend is not None
        return "set-deadline", [f"extend-seconds: {exact_seconds(event.extend)}"]
    if isinstance(event, AddressReplaced):
        return "replace-address", [f"player: {event.player}", f"address: {event.address}"]
    if isinstance(event, SeatHanded):
        return "hand-seat", [f"player: {event.player}", f"robot: {event.level or PERSON}"]
    if isinstance(event, Cancelled):
        return "cancel", [f"reason: {' '.join(event.reason.split())}"]
    if isinstance(event, Answered):
        return "answer", [f"player: {event.player}", f"text: {' '.join(event.text.split())}"]
    if isinstance(event, SettingsChanged):
        return SETTINGS, [f"player: {event.player}", *event.settings.lines()]
    if isinstance(event, ObserverLeft):
        return OBSERVER_LEFT, [f"observer: {event.observer}"]
    raise TypeError(f"no action of the operator's: {event!r}")


def operator_event(kind: str, at: datetime, fields: dict[str, str]) -> Event | None:
    """The event an archived action of the operator's stands for; None for
    another kind."""
    if kind == "pause":
        return Paused(at)
    if kind == "resume":
        return Resumed(at)
    if kind == "set-deadline":
        if "deadline" in fields:
            return DeadlineSet(at, deadline=datetime.fromisoformat(fields["deadline"]))
        return DeadlineSet(at, extend=timedelta(seconds=float(fields["extend-seconds"])))
    if kind == "replace-address":
        return AddressReplaced(at, int(fields["player"]), fields["address"])
    if kind == "hand-seat":
        level = fields["robot"]
        return SeatHanded(at, int(fields["player"]), None if level == PERSON else level)
    if kind == "cancel":
        return Cancelled(at, fields.get("reason", ""))
    if kind == "answer":
        return Answered(at, int(fields["player"]), fields.get("text", ""))
    if kind == OBSERVER_LEFT:
        return ObserverLeft(at, int(fields["observer"]))
    return None
