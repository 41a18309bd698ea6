"""A game's archive: its events as mail, and rebuilding the game from them.

The archive of a game is a Maildir whose keys sort in the order things
happened:

    000001.in.created            the game's creation (a message of the GM's)
    000001.out.1                 the invitation to player 1 (token masked)
    000001.out.2                 the invitation to player 2
    000001.out.2.deputy          its copy to player 2's deputy (`gm.kernel.deputies`)
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
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from email.utils import parseaddr

from ...kernel import commitments, engine
from ...kernel.deputies import deputy_of
from ...kernel.model import MailGame
from ...kernel.values import SHEETS_EDITION, Bouncing, Created, Event, Notice, PlayerMail
from ...mail.headers import message_id_of
from ...mail.reading import parse_message, player_text
from ...storage.maildirs import DurableMaildir
from ..data.tokens import mask
from ..writing.mailer import DEPUTY_COPY, Identity, build, deputy_message_id, message_id
from ..writing.observers import build_observer
from ..writing.writer import as_bytes
from .events import message_time, own_event, read_event

BOUNCE_HEADER = "X-GM-Bounce"
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


_PLAIN_TEXT = re.compile(r"[!-~]+(?: [!-~]+)*")
"""Printable ASCII words, one space between them: a field's value that
reads as it is written."""


def field_text(message: Message, name: str) -> str:
    """``str(message.get(name, ""))``: the first ``name`` field's text as the
    email package reads an unstructured field (Subject, gm's own X-GM-*).
    A value of plain words (`_PLAIN_TEXT`, no encoded word) reads as it is
    written, so it is taken as written: the package parses a field anew
    each time it is read, which was most of the cost of reading an archived
    player's mail besides parsing it. Any other value is the package's to
    read."""
    wanted = name.lower()
    for field, value in message.raw_items():
        if field.lower() == wanted:
            if isinstance(value, str) and _PLAIN_TEXT.fullmatch(value) and "=?" not in value:
                return value
            break
    return str(message.get(name, ""))


def accepted_fields(message: Message, header: str = ACCEPTED_HEADER) -> dict[str, str]:
    """The X-GM-Accepted header gm put on top of a player's mail (or another
    of gm's ``name=value; ...`` headers)."""
    value = field_text(message, header)
    return dict(part.strip().split("=", 1) for part in value.split(";") if "=" in part)


FORMAT = 2
"""The archive format gm writes: events carry exact times (X-GM-At), a
player's mail is marked ``format=2`` in its X-GM-Accepted line. Events of
format 1 (before) replay as they were sent: whole-second times, players'
Message-IDs as written, and the whole-archive attachment."""


def gm_line(raw: bytes) -> tuple[str, str]:
    """The first header line of an archived message, as (name, value) in
    lower case and as written. gm puts its own line (X-GM-Accepted,
    X-GM-Bounce) on top; the same names lower down are the sender's, and
    are stripped from incoming mail anyway (`without_gm_headers`)."""
    first = raw.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace")
    name, _, value = first.partition(":")
    return name.strip().lower(), value.strip()


def format_of(raw: bytes) -> int:
    """The archive format an archived inbound message was written in."""
    name, value = gm_line(raw)
    if name == BOUNCE_HEADER.lower() or (name == ACCEPTED_HEADER.lower() and "format=2" in value):
        return 2
    if name == ACCEPTED_HEADER.lower():
        return 1
    head = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]
    return 2 if re.search(rb"(?im)^X-GM-At:", head) else 1


_GM_FIELD = re.compile(rb"(?i)^x-gm-")


def without_gm_headers(raw: bytes) -> bytes:
    """Incoming mail without any X-GM-* header field of the sender's (with
    its continuation lines): only gm writes those, on top of what it keeps."""
    parts = re.split(rb"(\r?\n\r?\n)", raw, maxsplit=1)
    kept, dropping, dropped = [], False, False
    for line in parts[0].splitlines(keepends=True):
        if line[:1] not in (b" ", b"\t"):
            dropping = bool(_GM_FIELD.match(line))
        if dropping:
            dropped = True
        else:
            kept.append(line)
    if not dropped:
        return raw
    head = b"".join(kept).rstrip(b"\r\n")  # the separator below brings the last line's end
    rest = b"".join(parts[1:])
    if head:
        return head + rest
    return rest[2:] if rest.startswith(b"\r\n") else rest[1:]  # no field left: the blank line, then the body


def to_event(raw: bytes, game: str) -> Event:
    """The event an archived inbound message stands for: a player's mail
    (under gm's X-GM-Accepted line), a bounce (X-GM-Bounce), or one of the
    GM's own events (`gm.pbem.archive.events`; those written as gm writes
    them now are read without the email package: `own_event`)."""
    name, _ = gm_line(raw)
    if name == BOUNCE_HEADER.lower():
        bounce = accepted_fields(parse_message(raw), BOUNCE_HEADER)
        return Bouncing(datetime.fromisoformat(bounce["at"]), int(bounce["player"]), bounce.get("reason", "a bounce"))
    if name != ACCEPTED_HEADER.lower():
        return own_event(raw, game) or read_event(parse_message(raw), game)
    message = parse_message(raw)
    accepted = accepted_fields(message)
    at = datetime.fromisoformat(accepted["at"])
    text, _ = orders_text(message)
    message_id = player_message_id(message) if format_of(raw) == FORMAT else _message_id_as_written(message)
    return PlayerMail(at, int(accepted["player"]), text, message_id, *answering(message),
                      deputy=accepted.get("deputy") == "yes")


_FIELD_ON_TOP = re.compile(rb"[!-9;-~]+:")
"""A header field's name and its colon (the email package's ``headerRE``
for a field, but a name of at least one character): a mail that begins so
begins with a field."""


def accepted_event(stored: bytes, message: Message, text: str, at: datetime, player: int,
                   deputy: bool) -> PlayerMail | None:
    """The event `to_event` reads from ``stored`` under gm's X-GM-Accepted
    line saying ``at``, ``player`` and ``deputy`` (in today's `FORMAT`),
    read from what the master read off ``stored`` already: ``message``, its
    parse, and ``text``, its `orders_text`. The email package parses a line
    put on top of a mail that begins with a field as one more field before
    the same fields and the same body (it treats only a mail's first line
    apart: a "From " line, a continuation, a body with no field); gm's line
    is the first X-GM-Accepted field, which `to_event` reads. None for a
    mail that does not begin with a field: `to_event` must read it anew.
    The master read every order mail twice before (the mail, then the mail
    as archived), a twentieth of its work on one."""
    if not _FIELD_ON_TOP.match(stored):
        return None
    return PlayerMail(at, player, text, player_message_id(message), *answering(message), deputy=deputy)


def _message_id_as_written(message: Message) -> str | None:
    """How format-1 archives read a player's Message-ID (so that they replay
    as sent); new mail is read by `player_message_id`."""
    value = message.get("Message-ID")
    return str(value).strip() if value else None


def player_message_id(message: Message) -> str | None:
    """A player's Message-ID, if it is a well-formed one; None otherwise.
    gm repeats it in its own In-Reply-To and References headers, so nothing
    else may pass (a header that decodes to a line break and a Bcc: must not
    become a header of the GM's). The master and replay both read it here,
    so that duplicates are recognised alike before and after a restart."""
    return message_id_of(message)


def answering(message: Message) -> tuple[str | None, str]:
    """What a player's mail says it answers: the Message-ID in its
    In-Reply-To (when it is a well-formed one) and its Subject. The master
    and replay both read it here, so a game is rebuilt as it was played."""
    replied = message_id_of(message, "In-Reply-To")
    return replied, field_text(message, "Subject")[:200]


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
        self._ids: dict[int, list[str]] = {}

    def of(self, player: int) -> list[str]:
        return self._ids.setdefault(player, [])

    def add(self, player: int, message_id: str | None) -> None:
        if message_id:
            self.of(player).append(message_id)
            del self._ids[player][:-20]


_ARCHIVE_KEY = re.compile(r"^(\d+)\.(in|out)\.(.+)$")


def is_inbound(key: str) -> bool:
    """``NNNNNN.in.SPOOLKEY``: a message that changed the game (the spool key
    may itself hold ``.out.`` or ``.in.``, so only the prefix counts)."""
    found = _ARCHIVE_KEY.match(key)
    return found is not None and found.group(2) == "in"


def is_outbound(key: str) -> bool:
    """``NNNNNN.out.P``: a message the GM sent."""
    found = _ARCHIVE_KEY.match(key)
    return found is not None and found.group(2) == "out"


def spool_key_of(key: str) -> str:
    """The spool key an inbound archive key was archived under."""
    return key.split(".", 2)[2]


def mbox_of(messages: list[bytes], read: bool = False) -> bytes:
    """Messages as one mbox (the mboxrd form: ``>From`` lines escaped), with
    "From " lines dated from each message's Date, so the same messages always
    give the same bytes. mutt and Thunderbird open it; with ``read`` each
    message is marked read (``Status: RO``), as a record to look back on.
    (Only the attachment of games from before the player's mailbox is made
    without it, so that a replay rebuilds those exactly.)"""
    out = []
    for raw in messages:
        text = raw.replace(b"\r\n", b"\n")
        try:
            moment = message_time(parse_message(raw))
            stamp = moment.astimezone(UTC).strftime("%a %b %d %H:%M:%S %Y")
        except (TypeError, ValueError):
            stamp = "Thu Jan 01 00:00:00 1970"
        body = re.sub(rb"(?m)^(>*From )", rb">\1", text)
        if read:
            body = b"Status: RO\n" + body
        if not body.endswith(b"\n"):
            body += b"\n"
        out.append(f"From gm {stamp}\n".encode() + body + b"\n")
    return b"".join(out)


_PLAYER_LINE = re.compile(rb"^X-GM-Player: (\d+)\r?$", re.M)
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def _addressed_to(data: bytes) -> int | None:
    """The player a message of the GM's was sent to (its X-GM-Player header)."""
    found = _PLAYER_LINE.search(_HEADER_END.split(data, 1)[0])
    return int(found[1]) if found else None


def player_mailbox(archive: DurableMaildir, number: int, player: int, earlier: list[tuple[int, bytes]]) -> bytes:
    """Everything the GM has sent ``player`` in this game, before event
    ``number``, then ``earlier`` (this event's messages so far), as an mbox:
    what the player may keep and show. It holds no mail of the opponent's
    (no address, no token, no signature, no Received line), only what the
    GM relayed in its own mail, and the player's own token is masked.
    When the operator gave the seat a new address, only the mail sent to
    the address it has now is the player's: the mail to the earlier one
    names that address, which may be another person's."""
    messages = [data for key, data in iter_out(archive)  # (a deputy's copies are the deputy's)
                if int(key.split(".")[0]) < number and _addressed_to(data) == player and not key.endswith(DEPUTY_COPY)]
    messages += [mask(data) for p, data in earlier if p == player]
    if messages:
        now = recipient(messages[-1])
        messages = [data for data in messages if recipient(data) == now]
    return mbox_of(messages, read=True)


_TO_LINE = re.compile(rb"^To:[ \t]*(.*)$", re.M | re.I)


def recipient(data: bytes) -> bytes:
    """The To line of a message of the GM's (its seat's address when sent)."""
    found = _TO_LINE.search(_HEADER_END.split(data, 1)[0])
    return found[1].strip().lower() if found else b""


def _whole_archive_so_far(archive: DurableMaildir, number: int, pending: bytes | None) -> bytes:
    """What games created before the player's mailbox existed attached: the
    whole archive so far, opponent's mail and all. Kept only so that `replay`
    rebuilds those games' final sheets exactly; no new game sends it."""
    keys = [k for k in archive.keys()
            if int(k.split(".")[0]) < number or (int(k.split(".")[0]) == number and is_inbound(k))]
    messages = [archive.get_bytes(k) for k in keys]
    if pending is not None and not any(int(k.split(".")[0]) == number for k in keys):
        messages.append(pending)
    return mbox_of(messages)


def notice_messages(game: MailGame, notices: list[Notice], identity: Identity, number: int, at: datetime,
                    threads: Threads, render: bool = True, archive: DurableMaildir | None = None,
                    pending: bytes | None = None, legacy: bool = False) -> list[tuple[str, int, bytes]]:
    """The GM's messages for one event's notices, with their archive keys and
    the token still a placeholder (`gm.pbem.data.tokens`); the threads are brought
    up to date whether or not the messages are rendered. The game's
    commitment fields are made once for all the event's messages (after
    the end they hold its record: Grid Fighters plays the whole game again
    to write it)."""
    out: list[tuple[str, int, bytes]] = []
    committed: list[tuple[str, str]] | None = None
    for position, notice in enumerate(notices, 1):
        who = notice.player or -notice.observer  # an observer's thread is their own
        threads.add(who, notice.answers)
        data = copy = b""
        deputy = None if notice.observer else deputy_of(game, notice.player)
        if render:
            attachment = None
            if notice.attach_archive and archive is not None and game.edition < SHEETS_EDITION:  # later: a record
                if legacy:  # replaying an event of format 1 as it was sent
                    attachment = _whole_archive_so_far(archive, number, pending)
                else:
                    attachment = player_mailbox(archive, number, notice.player, [(p, d) for _, p, d in out])
            if notice.observer:
                message = build_observer(notice, game, identity, number, position, at, threads.of(who))
            else:
                if committed is None:
                    committed = commitments.headers(game)
                message = build(notice, game, identity, number, position, at, threads.of(who), attachment,
                                committed=committed)
            data = as_bytes(message)
            if deputy is not None:
                copy = as_bytes(build(notice, game, identity, number, position, at, threads.of(who), attachment,
                                      deputy_message_id(identity, game, number, position), deputy, committed))
        threads.add(who, message_id(identity, game, number, position))
        out.append((f"{number:06d}.out.{position}", notice.player, data))
        if deputy is not None:
            out.append((f"{number:06d}.out.{position}{DEPUTY_COPY}", notice.player, copy))
    return out


def replay(archive: DurableMaildir, identity: Identity, game_id: str, render: str = "all",
           base: tuple[MailGame, Threads, str] | None = None) -> tuple[MailGame, Threads, list[Replayed]]:
    """Rebuild a game from its archive. ``render`` is ``all`` (every message,
    for checking), ``last`` (only the last event's, for recovery) or ``none``.

    With a ``base`` (a game and its threads as they stood after the event
    archived under the given key, from a snapshot), only the events after
    that one are replayed onto it, and only those are returned."""
    inbound = [k for k in archive.keys() if is_inbound(k)]
    game: MailGame | None = None
    threads = Threads()
    if base is not None:
        game, threads, after = base
        inbound = inbound[inbound.index(after) + 1:]
    replayed: list[Replayed] = []
    for index, key in enumerate(inbound):
        number = int(key.split(".")[0])
        raw = archive.get_bytes(key)
        event = to_event(raw, game_id)
        if isinstance(event, Created):
            game, notices = engine.create(event)
        else:
            assert game is not None, f"{key}: the archive does not start with the game's creation"
            notices = engine.apply(game, event)
        do_render = render == "all" or (render == "last" and index == len(inbound) - 1)
        messages = notice_messages(game, notices, identity, number, event.at, threads, do_render, archive,
                                   legacy=format_of(raw) < FORMAT)
        replayed.append(Replayed(number, event.at, event, messages))
    if game is None:
        raise ValueError(f"{archive.path} holds no game")
    return game, threads, replayed


def identity_of(archive: DurableMaildir) -> Identity:
    """The GM identity a game was run under, read from its creation event."""
    first = next((k for k in archive.keys() if is_inbound(k)), None)
    if first is None:
        raise ValueError(f"{archive.path} holds no game")
    message = parse_message(archive.get_bytes(first))
    name, address = parseaddr(str(message["From"]))
    return Identity(address=address, name=name)


def iter_out(archive: DurableMaildir) -> Iterator[tuple[str, bytes]]:
    for key in archive.keys():
        if is_outbound(key):
            yield key, archive.get_bytes(key)
