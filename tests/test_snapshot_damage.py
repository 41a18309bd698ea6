"""Damaged snapshots (`gm.pbem.state.snapshots`): a flipped bit in a length
field, a torn file, a wrong digest, random bytes, another game's snapshot.
Each is ignored, logged once, and the game rebuilt from its archive: the
mail is handled as with no snapshot at all, and `gm show`, `gm games` and
the web archive read the game all the same."""

from __future__ import annotations

import logging
import os
import shutil
import struct
from email import message_from_bytes
from pathlib import Path

import pytest

from gm.pbem.state import snapshots
from gm.web.pages import Archive
from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import ALICE, GM, send
from test_snapshots import _contents, _played, _serve

HEADER = len(snapshots.MAGIC)
"""Where the head's 8-byte length starts."""


def _body_length_at(path: Path) -> int:
    (head_length,) = struct.unpack(">Q", path.read_bytes()[HEADER:HEADER + 8])
    return HEADER + 8 + 32 + head_length


def _flip(path: Path, offset: int, mask: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def _foreign(path: Path) -> None:
    """The snapshot another game (g9) would have, put in g1's place."""
    head, body = snapshots.read(path.parent.parent, "g1")
    head.game_id = "g9"
    snapshots.write(path.parent.parent, head, body)
    os.replace(path.parent / "g9", path)


DAMAGE = {
    "head length, high bit": lambda p: _flip(p, HEADER, 0x40),  # asks for 2^62 bytes more
    "head length, low bit": lambda p: _flip(p, HEADER + 7, 0x01),
    "body length, high bit": lambda p: _flip(p, _body_length_at(p), 0x40),
    "body length, low bit": lambda p: _flip(p, _body_length_at(p) + 7, 0x01),
    "body digest": lambda p: _flip(p, _body_length_at(p) + 8, 0x01),
    "body bytes": lambda p: _flip(p, p.stat().st_size - 1, 0x01),
    "torn in the body": lambda p: p.write_bytes(p.read_bytes()[:-1]),
    "torn in the head": lambda p: p.write_bytes(p.read_bytes()[:HEADER + 20]),
    "bytes after the body": lambda p: p.write_bytes(p.read_bytes() + b"\0"),
    "random bytes": lambda p: p.write_bytes(os.urandom(p.stat().st_size)),
    "random bytes after the magic": lambda p: p.write_bytes(snapshots.MAGIC + os.urandom(p.stat().st_size)),
    "another game's": _foreign,
}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One game at turn 3 with current snapshots, the next turn's mails, and
    what handling them does with no snapshot at all (the reference)."""
    root = tmp_path_factory.mktemp("played")
    data, mails, _ = _played(root)
    reference = root / "none"
    shutil.copytree(data, reference)
    shutil.rmtree(reference / "snapshots")
    _serve(reference, mails)
    return data, mails, _contents(reference)


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_snapshot_is_ignored_logged_once_and_the_game_rebuilt(tmp_path, played, damage, caplog):
    data, mails, reference = played
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    DAMAGE[damage](copy / "snapshots" / "g1")
    caplog.set_level(logging.INFO, logger="gm")
    master = _serve(copy, mails)
    assert _contents(copy) == reference
    assert master.store.shunt.keys() == []
    assert master.games["g1"].turn == 4
    ignored = [r for r in caplog.records if r.getMessage().startswith("snapshot ignored")]
    assert len(ignored) == 1 and "game=g1" in ignored[0].getMessage(), [r.getMessage() for r in ignored]
    master.save_snapshots()
    assert snapshots.read(copy, "g1") is not None  # written anew


@pytest.mark.parametrize("damage", ["head length, high bit", "body length, high bit", "torn in the body"])
def test_the_commands_and_the_web_archive_read_a_game_with_a_damaged_snapshot(tmp_path, played, damage):
    data, _, _ = played
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    DAMAGE[damage](copy / "snapshots" / "g1")
    shown = gm("show", "g1", "--data", str(copy), cwd=tmp_path)
    assert shown.returncode == 0 and '"turn": 3' in shown.stdout, shown.stderr[-2000:]
    listed = gm("games", "--data", str(copy), cwd=tmp_path)
    assert listed.returncode == 0 and "g1" in listed.stdout, listed.stderr[-2000:]
    assert Archive(str(copy)).shown() == []  # a game in progress, not public: not listed, and no crash
    assert Archive(str(copy)).page("g1") is None


@pytest.mark.parametrize("damage", ["head length, high bit", "body length, high bit"])
def test_the_daemon_answers_mail_to_a_game_whose_snapshot_is_damaged(tmp_path, played, damage):
    """The real daemon, started on a data directory where one bit of a
    length field flipped: the game's mail is applied and answered."""
    data, mails, _ = played
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    DAMAGE[damage](copy / "snapshots" / "g1")
    before = len(inbox(copy, ALICE))
    port = free_port()
    with serving(copy, port, GM, tmp_path) as daemon:
        recipient = str(message_from_bytes(mails[0])["To"])
        assert send(port, mails[0], ALICE, [recipient]) == {}
        wait_for("Alice's acknowledgement", lambda: len(inbox(copy, ALICE)) > before)
    log = daemon.stderr.read().decode()
    assert log.count("snapshot ignored") == 1 and "game=g1" in log, log[-3000:]
    assert list((copy / "shunt" / "new").iterdir()) == [] and list((copy / "shunt" / "cur").iterdir()) == []
