"""Group commit (issue 12): what a batch shows before it is committed, what
a commit cut short leaves and how the next start completes it, what a
failure to commit does, and what a commit costs in calls that wait for the
disk. The kills at the batch boundaries of the real daemon are in
tests/test_crash.py."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gm import daemon as daemon_module
from gm.daemon import SpoolCommitter
from gm.pbem.data.store import Store, spool_key
from gm.pbem.serving.delivery import Deliverer
from gm.pbem.writing.mailer import Identity
from gm.storage import batches, syncing
from gm.storage.batches import Batch, CommitError, finish_interrupted
from gm.storage.maildirs import DurableMaildir
from gm.storage.syncing import Syncer
from gmtest import GM

MODES = ["fsync", "syncfs"] if syncing._syncfs is not None else ["fsync"]


@pytest.fixture(params=MODES)
def mode(request, monkeypatch) -> str:
    monkeypatch.setenv("GM_SYNC", request.param)
    assert syncing.sync_mode() == request.param
    return request.param


def listing(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_a_batch_is_seen_by_its_own_thread_only_until_it_is_committed(tmp_path, mode):
    box = DurableMaildir(tmp_path / "box")
    box.add(b"old\n", "a")
    seen_elsewhere: dict[str, object] = {}

    def look() -> None:
        seen_elsewhere.update(keys=box.keys(), staged="b" in box, removed="a" in box)

    with Batch(Syncer()):
        box.add(b"one\n", "b", seen=True)
        box.remove("a")
        assert box.keys() == ["b"] and "b" in box and "a" not in box and box.get_bytes("b") == b"one\n"
        other = threading.Thread(target=look)
        other.start()
        other.join()
        assert seen_elsewhere == {"keys": ["a"], "staged": False, "removed": True}
        assert listing(box.path / "cur") == [] and listing(box.path / "new") == ["a"]  # nothing published yet
    assert (listing(box.path / "cur") == ["b:2,S"] and listing(box.path / "new") == []
            and listing(box.path / "tmp") == [])
    fresh = DurableMaildir(box.path)
    assert fresh.keys() == ["b"] and fresh.get_bytes("b") == b"one\n"


def test_a_batch_ended_by_an_exception_is_committed_and_one_ended_by_the_process_is_not(tmp_path):
    box = DurableMaildir(tmp_path / "box")
    with pytest.raises(ValueError), Batch(Syncer()):
        box.add(b"kept\n", "a")
        raise ValueError("a message gm fails on")
    assert DurableMaildir(box.path).keys() == ["a"]
    with pytest.raises(KeyboardInterrupt), Batch(Syncer()):
        box.add(b"left\n", "b")
        raise KeyboardInterrupt
    assert DurableMaildir(box.path).keys() == ["a"]  # as a crash leaves it: staged only


def test_markers_and_removals_in_a_batch(tmp_path):
    store = Store(tmp_path / "data")
    store.spool.add(b"mail\n", "k1")
    with store.batch():
        store.handled.add("confirmed-c1")
        assert "confirmed-c1" in store.handled and not (store.handled.path / "confirmed-c1").exists()
        store.spool.remove("k1")
        assert "k1" not in store.spool and store.spool.keys() == []
        assert (store.spool.path / "new" / "k1").exists()  # removed only once the batch is durable
        store.outbox.add(b"reply\n", "r1")
        store.outbox.remove("r1")  # staged and removed: never published
    assert (store.handled.path / "confirmed-c1").exists() and listing(store.handled.path) == ["confirmed-c1"]
    assert listing(store.spool.path / "new") == [] and listing(store.outbox.path / "new") == []
    assert listing(store.outbox.path / "tmp") == []


BATCH = """
import sys
from gm.pbem.data.store import Store
store = Store(sys.argv[1])
with store.batch():
    for n in range(3):
        store.archive(f"g{n + 1}").add(b"event\\n", f"000001.in.k{n}", seen=True)
    store.outbox.add(b"reply\\n", "g1.000001.out.1")
    store.spool.remove("k0")
"""


@pytest.mark.parametrize("point",
                         ["batch-synced:1", "mid-batch-commit:1", "mid-batch-commit:3", "after-batch-commit:1"])
def test_a_batch_killed_during_its_commit_is_completed_at_the_next_start(tmp_path, point):
    root = tmp_path / "data"
    Store(root).spool.add(b"mail\n", "k0")
    env = dict(os.environ, GM_CRASH_AT=point)
    done = subprocess.run([sys.executable, "-P", "-c", BATCH, str(root)], env=env, capture_output=True, timeout=60)
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    renamed = int(point.split(":")[1]) if point.startswith("mid-") else 0 if point.startswith("batch-") else 4
    published = [p for p in (root / "games").glob("g*/cur/*")] + list((root / "outbox" / "new").iterdir())
    assert len(published) == renamed
    assert (root / "spool" / "new" / "k0").exists()  # the spooled message is handled again, and found done

    store = Store(root)
    assert store.finish_interrupted() == 4 - renamed
    assert [store.archive(g).keys() for g in ("g1", "g2", "g3")] == [["000001.in.k0"], ["000001.in.k1"],
                                                                     ["000001.in.k2"]]
    assert store.outbox.keys() == ["g1.000001.out.1"] and store.outbox.get_bytes("g1.000001.out.1") == b"reply\n"
    assert (root / "commit").read_bytes() == b"" and store.finish_interrupted() == 0


def test_a_batch_killed_before_its_data_barrier_is_not_published(tmp_path):
    """A torn manifest (its digest does not match) means the barrier was
    not passed: nothing of the batch was published, and nothing is."""
    root = tmp_path / "data"
    env = dict(os.environ, GM_CRASH_AT="between-messages:1")
    Store(root).spool.add(b"mail\n", "k0")
    script = BATCH.replace('store.spool.remove("k0")', 'store.spool.remove("k0")\n'
                           '    from gm.pbem.data.crashpoints import crashpoint\n    crashpoint("between-messages")')
    done = subprocess.run([sys.executable, "-P", "-c", script, str(root)], env=env, capture_output=True, timeout=60)
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    assert not (root / "commit").exists()
    staged = [p for p in (root / "games").glob("g*/tmp/*")]
    assert len(staged) == 3
    lines = [f'["{p.relative_to(root)}", "games/{p.parts[-3]}/cur/x:2,S"]' for p in staged]
    (root / "commit").write_bytes(batches._manifest_text(lines)[:-5] + b"xxxx\n")  # torn
    assert finish_interrupted(root / "commit", root) == 0
    assert list((root / "games").glob("g*/cur/*")) == [] and (root / "commit").read_bytes() == b""


def test_a_failed_data_barrier_stops_the_batch_before_anything_is_published(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")

    def broken(self, directories, entries):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Syncer, "data_barrier", broken)
    with pytest.raises(CommitError) as raised, store.batch():
        store.outbox.add(b"reply\n", "r1")
    assert isinstance(raised.value.__cause__, OSError) and raised.value.__cause__.errno == errno.EIO
    assert listing(store.outbox.path / "new") == []


def test_a_full_disk_during_the_commit_keeps_the_batch_for_later_and_the_delivery_waits(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")
    real = os.replace
    calls = []

    def full(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(source, target)

    store.spool.add(b"mail\n", "k1")
    monkeypatch.setattr(batches.os, "replace", full)
    with pytest.raises(OSError), store.batch():
        store.outbox.add(b"one\n", "r1")
        store.outbox.add(b"two\n", "r2")
        store.spool.remove("k1")
    assert listing(store.outbox.path / "new") == ["r1"] and store.batch_pending()
    assert Deliverer(store, None, Identity(GM))._outbox_keys() == []  # half published: not sent yet
    assert (store.spool.path / "new" / "k1").exists()
    store.commit_pending()
    assert listing(store.outbox.path / "new") == ["r1", "r2"] and not store.batch_pending()
    assert listing(store.spool.path / "new") == [] and (tmp_path / "data" / "commit").read_bytes() == b""


def test_a_batch_of_many_files_waits_for_the_disk_twice(tmp_path, monkeypatch):
    """The cost the group commit is for: with syncfs, a batch of 60 files
    in 20 folders makes two syncfs calls and no fsync; with fsync, one per
    file and one per folder."""
    monkeypatch.setenv("GM_SYNC", "syncfs")
    if syncing.sync_mode() != "syncfs":
        pytest.skip("no syncfs here")
    store = Store(tmp_path / "data")
    for n in range(20):
        store.archive(f"g{n}")
    counts = {"fsync": 0, "syncfs": 0}
    real_fsync, real_syncfs = os.fsync, syncing._syncfs

    def fsync(fd):
        counts["fsync"] += 1
        real_fsync(fd)

    def syncfs(fd):
        counts["syncfs"] += 1
        return real_syncfs(fd)

    monkeypatch.setattr(syncing.os, "fsync", fsync)
    monkeypatch.setattr(syncing, "_syncfs", syncfs)
    with store.batch():
        for n in range(20):
            store.archive(f"g{n}").add(b"in\n", "000002.in.k", seen=True)
            store.archive(f"g{n}").add(b"out\n", "000002.out.1", seen=True)
            store.outbox.add(b"out\n", f"g{n}.000002.out.1")
    assert counts == {"fsync": 0, "syncfs": 2}
    assert sum(len(store.archive(f"g{n}").keys()) for n in range(20)) == 40 and len(store.outbox.keys()) == 20


def test_the_spool_commits_messages_that_arrive_together_together(tmp_path, monkeypatch, mode):
    store = Store(tmp_path / "data")
    groups: list[int] = []
    real = daemon_module.publish

    def counted(staged, syncer, label):
        groups.append(len(staged))
        real(staged, syncer, label)

    monkeypatch.setattr(daemon_module, "publish", counted)

    async def scenario() -> None:
        committer = SpoolCommitter(store)
        now = datetime.now(UTC)
        await asyncio.gather(*(committer.add(b"mail %d\r\n" % n, spool_key(now, "smtp")) for n in range(30)))

    asyncio.run(scenario())
    assert sum(groups) == 30 and len(groups) < 30 and len(store.spool.keys()) == 30
    assert listing(store.spool.path / "tmp") == []


def test_a_spool_commit_that_fails_answers_every_message_of_it_with_the_error(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")

    def broken(self, directories, entries):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Syncer, "data_barrier", broken)

    async def scenario() -> list:
        committer = SpoolCommitter(store)
        now = datetime.now(UTC)
        return await asyncio.gather(*(committer.add(b"mail\r\n", spool_key(now, "smtp")) for _ in range(5)),
                                    return_exceptions=True)

    results = asyncio.run(scenario())
    assert all(isinstance(r, CommitError) for r in results), results
    assert store.spool.keys() == [] and listing(store.spool.path / "tmp") == []
    assert daemon_module._temporary_failure(results[0]).startswith("451")


def test_the_attempts_table(tmp_path):
    store = Store(tmp_path / "data")
    (store.attempts.path / "00000000000000000001.smtp.old").write_text("2")  # a file from before the table
    assert store.attempts.begin("00000000000000000001.smtp.old") == 3
    assert store.attempts.begin("k2") == 1 and store.attempts.begin("k3") == 1
    store.attempts.end("k2")
    store.attempts.end("k3")
    assert listing(store.attempts.path) == ["in-progress"]
    again = Store(tmp_path / "data")  # a shorter table written over a longer one reads right
    assert again.attempts.pending() == {"00000000000000000001.smtp.old": 3}
    again.attempts.end("00000000000000000001.smtp.old")
    assert Store(tmp_path / "data").attempts.pending() == {}


def test_a_delivered_message_is_marked_sent_by_renaming_its_outbox_file(tmp_path):
    store = Store(tmp_path / "data")
    (store.sent.path / "old-marker").touch()  # an older data directory's marker
    store.outbox.add(b"To: a@example.org\r\nSubject: x\r\n\r\nhello token\r\n", "g1.000001.out.1")
    Deliverer(store, None, Identity(GM)).deliver("g1.000001.out.1")
    assert "g1.000001.out.1" in store.sent and "old-marker" in store.sent and "other" not in store.sent
    assert (store.sent.path / "g1.000001.out.1").stat().st_size == 0  # the token is not kept
    assert store.outbox.keys() == [] and listing(store.outbox.path / "tmp") == []
    assert store.delivered.get_bytes("g1.000001.out.1") == b"To: a@example.org\nSubject: x\n\nhello token\n"
    assert listing(store.sent.path) == ["g1.000001.out.1", "old-marker"]


STOPS = """
import asyncio, sys
from gm.daemon import Config, serve
from gm.pbem.writing.mailer import Identity
from gm.storage.batches import Batch, CommitError

real = Batch._publish

def broken(self, items):
    if self.label == "batch":
        raise CommitError("a batch of files could not be made durable: Input/output error")
    real(self, items)

Batch._publish = broken
asyncio.run(serve(Config(data=sys.argv[1], smtp=("127.0.0.1", 0), identity=Identity(sys.argv[2])), grace=1.0))
"""


def test_the_daemon_stops_when_the_masters_batch_cannot_be_made_durable(tmp_path):
    """The games in memory would be ahead of the disk: gm stops with exit
    status 3 (systemd starts it again), the mail still spooled, nothing
    queued."""
    data = tmp_path / "data"
    store = Store(data)
    raw = b"From: someone@example.com\r\nTo: gm@example.org\r\nSubject: help\r\nMessage-ID: <h@example.com>\r\n\r\nhelp\r\n"
    store.spool.add(raw, spool_key(datetime.now(UTC), "smtp"))
    done = subprocess.run([sys.executable, "-P", "-c", STOPS, str(data), GM], capture_output=True, timeout=60)
    assert done.returncode == daemon_module.EXIT_COMMIT, done.stderr.decode()[-2000:]
    assert b"stopping: a batch could not be made durable" in done.stderr
    assert len(Store(data).spool.keys()) == 1 and Store(data).outbox.keys() == [] and Store(data).shunt.keys() == []


def test_the_ingest_benchmark_counts_straced_calls_per_order_mail(tmp_path):
    """bench/ingest.py --strace: what it counts in an `strace -f -ttt` log."""
    import importlib.util

    name = "gm_bench_ingest"
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "bench" / "ingest.py")
    assert spec is not None and spec.loader is not None
    ingest = importlib.util.module_from_spec(spec)
    sys.modules[name] = ingest  # (its dataclasses look their module up)
    try:
        spec.loader.exec_module(ingest)
    finally:
        del sys.modules[name]
    log = tmp_path / "trace"
    log.write_text("\n".join([
        '7 100.000001 openat(AT_FDCWD, "/d/attempts/k", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)',
        '7 100.000002 openat(AT_FDCWD, "/d/attempts/k", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3',
        '7 100.000003 openat(AT_FDCWD, "/d/attempts/k", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3',
        '8 100.000004 openat(AT_FDCWD, "/d/spool/tmp/x", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0644 <unfinished ...>',
        '7 100.000005 fsync(3) = 0',
        '8 100.000006 <... openat resumed>) = 4',
        '8 100.000007 syncfs(5) = 0',
        '8 100.000008 rename("/d/spool/tmp/x", "/d/spool/new/x") = 0',
        '7 100.000009 unlink("/d/spool/new/y") = 0',
        '7 100.000010 openat(AT_FDCWD, "/d/spool/new", O_RDONLY|O_DIRECTORY) = 3',
        '7 200.000000 fsync(3) = 0',
    ]) + "\n")
    calls = ingest.count_calls(log, 100.0, 150.0)
    assert (calls.sync, calls.created, calls.renames, calls.unlinks) == (2, 2, 1, 1)
    assert calls.by_name == {"openat": 4, "fsync": 1, "syncfs": 1, "rename": 1, "unlink": 1}


@pytest.mark.parametrize("names", [("spool/tmp/0001.smtp.ab.12-f.3.host", "spool/new/0001.smtp.ab"),
                                   ("games/g1/tmp/000002.out.1.9-e.4.h", "games/g1/cur/000002.out.1:2,S"),
                                   ('odd/"quoted"', "back\\slash"), ("caf\u00e9", "tab\there"), ("~ok", "x\x7f")])
def test_a_manifest_line_is_what_json_wrote(names):
    """The manifest's lines are written directly for plain names: byte for
    byte what json.dumps writes, which `finish_interrupted` reads back."""
    assert batches._manifest_line(*names) == json.dumps(list(names))
    assert json.loads(batches._manifest_line(*names)) == list(names)
