"""Helpers for the daemon's tests: a clock the test moves, and players who
read their mail from the GM's local delivery Maildir and answer over SMTP."""

from __future__ import annotations

import asyncio
import hashlib
import re
import smtplib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime, make_msgid

from gm.daemon import Config, Daemon
from gm.mail.reading import parse_message
from gm.pbem.writing.mailer import BANNER, Identity

GM = "gm@example.org"
ALICE = "alice@example.org"
BOB = "bob@example.net"

COMMIT_KEY = hashlib.sha256(b"gm tests: the game key of commitments").digest()
"""The game key of the commitments of the games `World.new_game` makes:
fixed, so that the mail of a game is (the golden sheets, sample-mail/)."""
SETUP_ALICE = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n"
SETUP_BOB = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n"


def text(message) -> str:
    """A message's plain-text body, with plain newlines."""
    return message.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def enclosures(message) -> dict[str, str]:
    """What a reply encloses (help, a sheet, the history), by the title of
    its banner (`gm.pbem.writing.mailer.BANNER`); the last runs on to the mail's end."""
    parts = text(message).split(f"\n{BANNER}\n")
    titles, bodies = parts[1::2], parts[2::2]
    assert len(titles) == len(bodies) and len(set(titles)) == len(titles), titles
    return {title: body.removeprefix("\n") for title, body in zip(titles, bodies)}


def own_text(message) -> str:
    """A reply's own text, before anything it encloses."""
    return text(message).split(f"\n{BANNER}\n")[0]


def grids(sheet: str) -> tuple[dict[str, str], dict[str, str]]:
    """The marks of a sheet's two spaces: (own, opponent's), cell -> mark."""
    own: dict[str, str] = {}
    known: dict[str, str] = {}
    colour = None
    for line in sheet.split("== The spaces ==\n", 1)[1].splitlines():
        heading = re.match(r"^\w+ \(([ROYGB])\)", line)
        if heading:
            colour = heading[1]
            continue
        tokens = line.split()
        if colour and len(tokens) == 12 and tokens[0] in "vwxyz" and tokens[6] == tokens[0]:
            for number in range(1, 6):
                own[f"{colour}{tokens[0]}{number}"] = tokens[number]
                known[f"{colour}{tokens[0]}{number}"] = tokens[6 + number]
        elif line.startswith("Your space:"):
            break
    assert len(own) == len(known) == 125, "the sheet does not draw both spaces"
    return own, known


def rows(block: str) -> list[str]:
    """The rows of a table of orders (as written, then as carried out or
    REJECTED), each whole: a line indented further than the first row goes on
    the row above and is joined onto it here."""
    found: list[str] = []
    indent = None
    for line in block.splitlines():
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if found and depth > indent:
            found[-1] += " " + line.strip()
        else:
            found.append(line)
    return found


START = datetime(2026, 11, 21, 12, 0, 0, 417_123, tzinfo=UTC)
"""The test clock's start: with a sub-second part, as a real clock has (a
clock that ticked in whole seconds once hid deadlines that never fired)."""


class Clock:
    """Time that moves only when the test says."""

    def __init__(self, start: datetime = START):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def send(port: int, raw: bytes, sender: str, recipients: list[str], lmtp: bool = False) -> dict:
    """Send a raw message over real SMTP (or LMTP) to 127.0.0.1:port."""
    client_class = smtplib.LMTP if lmtp else smtplib.SMTP
    with client_class("127.0.0.1", port, timeout=10) as client:
        return client.sendmail(sender, recipients, raw)


@dataclass
class Player:
    """A player who reads the GM's mail and replies to the latest one."""

    address: str
    world: World
    read: set[str] = field(default_factory=set)

    def inbox(self) -> list:
        """Every message delivered to this player, oldest first."""
        store = self.world.daemon.store
        found = []
        for key in store.delivered.keys():
            message = parse_message(store.delivered.get_bytes(key))
            if message["To"] and self.address in str(message["To"]):
                found.append((key, message))
        return [m for _, m in sorted(found, key=lambda km: (km[1]["Date"].datetime, km[0]))]

    def latest(self):
        return self.inbox()[-1]

    def new_mail(self) -> list:
        fresh = [m for m in self.inbox() if str(m["Message-ID"]) not in self.read]
        self.read |= {str(m["Message-ID"]) for m in fresh}
        return fresh

    def reply(self, body: str, to=None, **headers) -> bytes:
        """Reply to the GM's latest mail (or ``to``) as a mail client would."""
        original = to or self.latest()
        message = EmailMessage(policy=SMTP_POLICY)
        message["From"] = self.address
        message["To"] = str(original["Reply-To"])
        message["Subject"] = "Re: " + str(original["Subject"])
        message["Date"] = format_datetime(self.world.clock())
        message["Message-ID"] = make_msgid(domain=self.address.split("@")[1])
        message["In-Reply-To"] = str(original["Message-ID"])
        for name, value in headers.items():
            message[name.replace("_", "-")] = value
        message.set_content(body)
        raw = message.as_bytes()
        self.world.send(raw, self.address, [str(original["Reply-To"])])
        return raw

    def latest_text(self) -> str:
        """The body of the GM's latest mail, with plain newlines."""
        return text(self.latest())


def run(coroutine):
    """Run a test's scenario coroutine to its end."""
    return asyncio.run(coroutine)


async def started_game(world: World) -> None:
    """A new game between Alice and Bob, both setups in: turn 1 is being collected."""
    await world.new_game()
    await world.act(world.alice.reply, SETUP_ALICE)
    await world.act(world.bob.reply, SETUP_BOB)


def shunt_reasons(world: World) -> list[bytes]:
    """The X-GM-Shunt-Reason line of everything in the shunt."""
    store = world.daemon.store
    return [store.shunt.get_bytes(k).split(b"\r\n")[0] for k in store.shunt.keys()]


class World:
    """A daemon on a real loopback SMTP port with a test clock, and its players."""

    def __init__(self, tmp_path, **config):
        self.clock = Clock()
        self.config = Config(data=str(tmp_path / "data"), smtp=("127.0.0.1", 0), identity=Identity(GM), **config)
        self.daemon = Daemon(self.config, self.clock)
        self.alice = Player(ALICE, self)
        self.bob = Player(BOB, self)

    async def __aenter__(self) -> World:
        await self.daemon.start(background=False)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.daemon.stop()

    @property
    def port(self) -> int:
        return self.daemon.bound["smtp"][1]

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> dict:
        return send(self.port, raw, sender, recipients)

    async def asend(self, raw: bytes, sender: str, recipients: list[str]) -> dict:
        return await asyncio.to_thread(self.send, raw, sender, recipients)

    async def settle(self) -> None:
        """Let the GM handle everything spooled and deliver everything queued."""
        await self.daemon.step()
        await self.daemon.deliverer.deliver_due(self.clock())

    async def act(self, function, *args, **kwargs):
        """Run a blocking player action (which talks SMTP) and then settle."""
        result = await asyncio.to_thread(function, *args, **kwargs)
        await self.settle()
        return result

    async def write_gm(self, sender: Player, lines: str, from_: str | None = None):
        """``sender`` mails the GM's own address ``lines`` (From ``from_``,
        which may be forged, or the sender's own); returns the GM's answer
        to the address it claims, if it sent one."""
        claimed = from_ or sender.address
        self.clock.advance(seconds=1)  # its answer is the latest mail (`Player.latest`) by its Date
        before = {str(m["Message-ID"]) for m in Player(claimed, self).inbox()}
        raw = (f"From: {claimed}\r\nTo: {GM}\r\nSubject: to the GM\r\nMessage-ID: {make_msgid(domain='example.org')}"
               "\r\n\r\n" + lines.replace("\n", "\r\n") + "\r\n").encode()
        await self.asend(raw, sender.address, [GM])
        await self.settle()
        fresh = [m for m in Player(claimed, self).inbox() if str(m["Message-ID"]) not in before]
        return fresh[-1] if fresh else None

    async def challenge(self, challenger: Player, lines: str, message_id: str = "<challenge@example.org>"):
        """``challenger`` mails the GM's own address a challenge (``lines``)
        and confirms it by replying ``confirm``; returns the confirmation."""
        raw = (f"From: {challenger.address}\r\nTo: {GM}\r\nSubject: a game?\r\nMessage-ID: {message_id}\r\n\r\n"
               + lines.replace("\n", "\r\n") + "\r\n").encode()
        await self.asend(raw, challenger.address, [GM])
        await self.settle()
        confirmation = challenger.latest()
        assert "Confirm your challenge" in str(confirmation["Subject"]), str(confirmation["Subject"])
        await self.act(challenger.reply, "confirm", to=confirmation)
        return confirmation

    async def new_game(self, **options) -> None:
        from gm.kernel.protocol import game_named
        from gm.kernel.values import Options
        from gm.pbem.operator.admin import request_game

        game = options.pop("game", "spaceships")
        variant = options.pop("variant", game_named(game).default_variant)
        request_game(self.daemon.store, self.config.identity, [ALICE, BOB], variant,
                     Options(**options), self.clock(), game=game, commit_key=COMMIT_KEY)
        await self.settle()
