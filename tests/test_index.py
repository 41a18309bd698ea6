"""The start-up index (`gm.pbem.state.index`): a start opens every game whose
folders and snapshot did not change since the index was written from the
index alone, with no archive listed and no snapshot read, and knows exactly
what a start without it knows (summaries, games pending, spool keys handled
before); any other game is opened from its archive; an index that fails to
read is ignored and written anew."""

from __future__ import annotations

import importlib.util
import logging
import shutil
import sys
import time
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

import pytest

from gm.pbem.archive.replay import identity_of, replay
from gm.pbem.data.store import Markers, Store, spool_key
from gm.pbem.data.tokens import token
from gm.pbem.master.game_master import GameMaster
from gm.pbem.state import index, loading, snapshots
from gm.pbem.state.resident import summary_of
from gm.pbem.writing.mailer import Identity

ROOT = Path(__file__).resolve().parents[1]
GM_ADDRESS = "gm@example.org"  # bench/build_data.py's
SETTLED = 0.3
"""`index.SETTLED_NS` in these tests, seconds: a game's files must be this old for an entry."""

_spec = importlib.util.spec_from_file_location("bench_build_data", ROOT / "bench" / "build_data.py")
assert _spec is not None and _spec.loader is not None
_build_data = sys.modules.setdefault("bench_build_data", importlib.util.module_from_spec(_spec))
if not hasattr(_build_data, "build"):
    _spec.loader.exec_module(_build_data)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """Six Spaceships games at turn 3, played and cloned by bench/build_data.py (snapshots current)."""
    data = tmp_path_factory.mktemp("built") / "data"
    _build_data.build(data, 6, 3, prototypes=2, verify=0)
    return data


@pytest.fixture
def data(built, tmp_path, monkeypatch) -> Path:
    """A copy of ``built`` (its own inodes, so no index entry of another copy holds), settled."""
    monkeypatch.setattr(index, "SETTLED_NS", int(SETTLED * 1e9))
    copy = tmp_path / "data"
    shutil.copytree(built, copy)
    time.sleep(SETTLED + 0.05)
    return copy


def _master(data: Path) -> GameMaster:
    return GameMaster(Store(data, create=False), Identity(GM_ADDRESS))


def _listing(monkeypatch) -> list[str]:
    """The games whose archive start-up lists, from now on."""
    listed: list[str] = []
    real = loading.archive_keys

    def watching(store, game_id):
        listed.append(game_id)
        return real(store, game_id)

    monkeypatch.setattr(loading, "archive_keys", watching)
    return listed


def _order(data: Path, game: str, n: int = 0, message_id: bool = True) -> tuple[str, bytes]:
    """Player 1's order mail for ``game`` (one strike), spooled as the listener spools it: (key, bytes).
    Without ``message_id`` it has none, so that only its spool key tells it was applied before."""
    store = Store(data, create=False)
    reply_to = f"gm+{game}.1.{token(store.key, game, 1)}@example.org"
    sender = f"{game}.p1@players.example"
    raw = (f"Return-Path: <{sender}>\r\nX-GM-Envelope-To: <{reply_to}>\r\n"
           f"From: {sender}\r\nTo: {reply_to}\r\nSubject: [gm {game}] orders\r\n"
           f"Date: {format_datetime(datetime.now(UTC))}\r\n"
           + (f"Message-ID: <index-{game}-{n}@players.example>\r\n" if message_id else "")
           + "\r\nRv1\r\n").encode()
    return spool_key(datetime.now(UTC), "smtp", f"{game}m{n}"), raw


def _known(master: GameMaster) -> tuple:
    games = master.games
    return dict(games.summaries), set(games.pending), set(master.handled_keys), {g for g in games
                                                                                   if games.is_loaded(g)}


def test_a_start_with_the_index_knows_what_a_start_without_it_knows_and_lists_no_archive(data, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG, logger="gm")
    without = _master(data)
    without.load()
    assert "games opened games=6 listed=6" in caplog.text
    assert set(index.read(data).entries) == {f"g{n}" for n in range(1, 7)}
    caplog.clear()
    listed = _listing(monkeypatch)
    reading = []
    real_head = snapshots.read_head
    monkeypatch.setattr(snapshots, "read_head", lambda root, game: reading.append(game) or real_head(root, game))
    with_index = _master(data)
    with_index.load()
    assert listed == [] and reading == []
    assert "games opened games=6 listed=0" in caplog.text
    assert _known(with_index) == _known(without)


def test_a_start_with_the_index_looks_for_no_sent_marker_it_found_before(data, monkeypatch):
    """Every game's last replies were sent (build_data leaves their markers)
    when the index was written: the next start knows it from the index, and
    looks for none of them in sent/ (a stat call each)."""
    _master(data).load()
    assert all(e.sent == e.present and e.sent for e in index.read(data).entries.values())
    looked: list[str] = []
    real = Markers.__contains__
    monkeypatch.setattr(Markers, "__contains__", lambda markers, name: looked.append(name) or real(markers, name))
    with_index = _master(data)
    with_index.load()
    assert looked == []
    assert len(with_index.games) == 6 and not with_index.unfinished


def test_an_index_entry_without_sent_markers_has_them_looked_for_once_and_kept(data, monkeypatch):
    """An index written by a gm before entries kept their sent markers (its
    entries unpickle with the class's default, None): the first start
    looks for the markers and writes them into the index, the next looks
    for none."""
    _master(data).load()
    old = index.read(data)
    for entry in old.entries.values():
        object.__delattr__(entry, "sent")  # as pickled by that gm: no such field
    monkeypatch.setattr(index, "SETTLED_NS", 0)
    index.write(data, old, data / "spool")
    assert all(e.sent is None for e in index.read(data).entries.values())
    _master(data).load()
    assert all(e.sent == e.present and e.sent for e in index.read(data).entries.values())


def test_a_game_changed_behind_the_index_is_opened_from_its_archive(data, monkeypatch):
    """The index was written; then g4 took a mail and gm was killed before
    writing the index again: the next start lists g4's archive (only it),
    and knows g4 as its archive replays to."""
    first = _master(data)
    first.load()
    key, raw = _order(data, "g4")
    first.store.spool.add(raw, key)
    assert first.process_spool() == 1  # the index is written at most every INDEX_AFTER seconds: not now
    assert index.read(data).entries["g4"].stamp != index.stamp(data, "g4")
    listed = _listing(monkeypatch)
    second = _master(data)
    second.load()
    assert listed == ["g4"]
    archive = second.store.archive("g4")
    replayed, _, _ = replay(archive, identity_of(archive), "g4", render="none")
    assert second.games.summaries["g4"] == summary_of(replayed) == first.games.summaries["g4"]


def _flip(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 1
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("spoil", ["torn", "flipped", "garbage", "empty", "other shape"])
def test_an_index_that_fails_to_read_is_ignored_and_written_anew(data, monkeypatch, caplog, spoil):
    with monkeypatch.context() as written:
        if spoil == "other shape":  # a later gm's (after a downgrade); an earlier one's is read (below)
            written.setattr(snapshots, "SCHEMA", snapshots.SCHEMA + 1)
        _master(data).load()
    path = data / "snapshots" / ".index"
    if spoil == "torn":
        path.write_bytes(path.read_bytes()[:-20])
    elif spoil == "flipped":
        _flip(path)
    elif spoil == "garbage":
        path.write_bytes(index.MAGIC + b"\xff" * 10_000)
    elif spoil == "empty":
        path.write_bytes(b"")
    caplog.set_level(logging.DEBUG, logger="gm")
    listed = _listing(monkeypatch)
    master = _master(data)
    master.load()
    assert "index ignored" in caplog.text
    assert sorted(listed) == sorted(f"g{n}" for n in range(1, 7))
    assert set(index.read(data).entries) == set(master.games)


def test_an_index_of_an_earlier_snapshot_shape_opens_every_game_from_it(data, monkeypatch, caplog):
    """The release before an upgrade that changed the snapshot's shape
    leaves an index of that shape: each entry whose head has today's fields
    opens its game from its head, as that release's snapshot file would,
    and the start knows what a start that lists every archive knows
    (tests/test_upgrade.py has the release itself)."""
    with monkeypatch.context() as written:
        written.setattr(snapshots, "SCHEMA", snapshots.SCHEMA - 1)
        _master(data).load()
    caplog.set_level(logging.DEBUG, logger="gm")
    listed = _listing(monkeypatch)
    master = _master(data)
    master.load()
    assert "index ignored" not in caplog.text
    assert listed == []
    (data / "snapshots" / ".index").unlink()
    without = _master(data)
    without.load()
    assert sorted(listed) == sorted(f"g{n}" for n in range(1, 7))
    assert _known(master) == _known(without)


def test_a_game_changed_within_the_settling_time_gets_no_entry_until_it_settles(data):
    """A file system's times are coarse: an entry is kept only for a game
    whose folders and snapshot are older than `index.SETTLED_NS`."""
    master = _master(data)
    master.load()
    key, raw = _order(data, "g2")
    master.store.spool.add(raw, key)
    master.process_spool()
    master.save_snapshots()
    assert master.save_index()
    assert "g2" not in index.read(data).entries and len(index.read(data).entries) == 5
    time.sleep(SETTLED + 0.05)
    assert master.save_index()
    entry = index.read(data).entries["g2"]
    assert entry.stamp == index.stamp(data, "g2") and entry.head.summary == master.games.summaries["g2"]


def test_a_mail_archived_and_still_spooled_when_the_index_was_written_is_not_applied_again(data, monkeypatch):
    """gm archived a mail for g3 and was killed before its spool file was
    removed (as a power cut can undo the removal); the next start knew it
    from g3's archive and wrote the index; killed again before the first
    pass, the start after that opens g3 from the index, not its archive,
    and still knows the mail as handled before (it has no Message-ID, by
    which the rule ``duplicate`` would know it)."""
    first = _master(data)
    first.load()
    key, raw = _order(data, "g3", message_id=False)
    first.store.spool.add(raw, key)
    first.process_spool()
    first.save_snapshots()
    first.store.spool.add(raw, key)  # its removal lost
    time.sleep(SETTLED + 0.05)
    second = _master(data)
    second.load()
    assert key in second.handled_keys and index.read(data).spooled == {key}
    listed = _listing(monkeypatch)
    third = _master(data)
    third.load()
    assert listed == []
    third.process_spool()
    archive = Store(data, create=False).archive("g3")
    assert sum(k.endswith(f".in.{key}") for k in archive.keys()) == 1
    assert third.store.spool.keys() == []
