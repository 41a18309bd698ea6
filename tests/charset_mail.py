"""Helpers for the charset tests: a player's mail whose text part is in any
charset, transfer encoding and line ends, and the check that a game's
archive rebuilds what the live daemon did, state and mail, byte for byte."""

from __future__ import annotations

import asyncio
import base64
import pickle
import quopri
import re
import threading
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from gm.pbem.archive.replay import identity_of, is_inbound, iter_out, replay, spool_key_of
from gm.pbem.data.tokens import mask
from gm.storage.maildirs import DurableMaildir, unix_lines
from gmprocess import WAIT, gm
from gmtest import World

LINE_ENDS = ("\r\n", "\r", "\n", "\r\r\n", "\n\r")
"""Line ends players' mail arrives with: the wire's, bare CR, bare LF, and
two mixtures that CRLF-to-LF conversions read as one or two line ends."""

TRANSFER_ENCODINGS = ("8bit", "base64", "quoted-printable")

T = TypeVar("T")

BOMS = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00",
        "utf-32-be": b"\x00\x00\xfe\xff"}


@dataclass(frozen=True)
class Body:
    """How a text part is written: the charset it declares (None: no charset
    parameter; ``""``: ``charset=""``), the codec its bytes are really in,
    whether a byte order mark leads (for the codecs that have one), and
    its transfer encoding."""

    declared: str | None
    codec: str
    bom: bool = False
    transfer: str = "8bit"

    def encode(self, text: str) -> bytes:
        data = text.encode(self.codec, errors="replace")
        return BOMS.get(self.codec, b"") + data if self.bom else data


def joined(lines: list[str], ends: list[str]) -> str:
    """``lines``, each ended by the next of ``ends`` in turn."""
    return "".join(line + ends[n % len(ends)] for n, line in enumerate(lines))


def player_mail(sender: str, to: str, message_id: str, body: Body, payload: bytes, header_end: bytes = b"\r\n",
                wire_crlf: bool = False) -> bytes:
    """A player's mail of one text/plain part holding ``payload`` (bytes in
    the body's charset), under the body's transfer encoding. With
    ``wire_crlf``, every LF byte that no CR byte leads gets one, as mail
    programs and relays that end every line in CRLF do, text or not."""
    charset = b"" if body.declared is None else b'; charset="' + body.declared.encode() + b'"'
    if body.transfer == "base64":
        encoded = base64.encodebytes(payload).replace(b"\n", b"\r\n")
    elif body.transfer == "quoted-printable":
        encoded = quopri.encodestring(payload)
    else:
        encoded = payload
    fields = [b"From: " + sender.encode(), b"To: " + to.encode(), b"Subject: Re: orders",
              b"Message-ID: " + message_id.encode(), b"MIME-Version: 1.0", b"Content-Type: text/plain" + charset,
              b"Content-Transfer-Encoding: " + body.transfer.encode()]
    raw = header_end.join(fields) + header_end + header_end + encoded
    return re.sub(rb"(?<!\r)\n", b"\r\n", raw) if wire_crlf else raw


def live_state(world, game_id: str) -> bytes:
    """The live master's game and threads, pickled (as a snapshot holds them)."""
    live = world.daemon.master.games.live(game_id)
    return pickle.dumps((live.game, live.threads), protocol=5)


def archived_spool_keys(data: Path, game_id: str) -> list[str]:
    """The spool key of every inbound message of a game's archive, in order."""
    archive = DurableMaildir(data / "games" / game_id, create=False)
    return [spool_key_of(k) for k in archive.keys() if is_inbound(k)]


def replayed_last_event(data: Path, game_id: str) -> tuple[bytes, list[str]]:
    """The game rebuilt from its archive alone (pickled, as `live_state`),
    and the archive keys of the GM's messages for its last event that the
    rebuilding does not render byte for byte (compared as `gm replay`
    compares them, `gm.pbem.operator.admin.verify_replay`)."""
    archive = DurableMaildir(data / "games" / game_id, create=False)
    game, threads, replayed = replay(archive, identity_of(archive), game_id, render="last")
    last = replayed[-1]
    rendered = {key: unix_lines(mask(message)) for key, _, message in last.messages}
    archived = {key: unix_lines(message) for key, message in iter_out(archive)
                if key.startswith(f"{last.number:06d}.")}
    differing = sorted(key for key in rendered.keys() | archived.keys() if rendered.get(key) != archived.get(key))
    return pickle.dumps((game, threads), protocol=5), differing


def replays_with_the_command(data: Path, game_id: str, cwd: Path) -> str:
    """``gm replay`` (the installed command) on a game: its output; fails the
    test unless every message is rebuilt identical."""
    done = gm("replay", str(data / "games" / game_id), cwd=cwd)
    assert done.returncode == 0 and "all identical" in done.stdout, done.stdout + done.stderr
    return done.stdout


class ThreadedWorld:
    """A `gmtest.World` whose event loop runs in a thread of its own, so that
    a synchronous test (a hypothesis property) can send it mail over SMTP
    and let it settle between examples, one world for every example."""

    def __init__(self, tmp_path: Path, **config):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="world", daemon=True)
        self.world = World(tmp_path, **config)

    def __enter__(self) -> World:
        self.thread.start()
        self.call(self.world.__aenter__())
        return self.world

    def __exit__(self, *exc) -> None:
        try:
            self.call(self.world.__aexit__(*exc))
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(WAIT)
            self.loop.close()

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the world's loop; its result, within `WAIT` seconds."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(WAIT)
