"""The spooled messages a master's batch handled leave ``spool/new`` when the
batch is durable, and are unlinked by a thread of their own
(`gm.storage.removals`): on ext4 under the spool's stream of fsyncs an
unlink takes milliseconds, which the master no longer waits for."""

import os
import sys
import threading

from gm.config import Config
from gm.daemon import Daemon
from gm.pbem.data.store import Store
from gm.storage.removals import GONE, removed_later

UNLINKED: list[tuple[str, str]] = []
"""(path, the thread that unlinked it), for every unlink in this process (an audit hook)."""


def _audit(name: str, args: tuple) -> None:
    if name == "os.remove":
        UNLINKED.append((os.fsdecode(args[0]), threading.current_thread().name))


sys.addaudithook(_audit)


def test_the_masters_batch_unlinks_what_it_removed_in_another_thread(tmp_path):
    store = Store(tmp_path / "data")
    for n in range(5):
        store.spool.add(b"mail %d\n" % n, f"k{n}")
    UNLINKED.clear()
    with store.batch():
        for n in range(5):
            store.spool.remove(f"k{n}")
        store.outbox.add(b"reply\n", "r1")
    assert os.listdir(store.spool.path / "new") == [] and store.spool.keys() == []  # gone at once
    assert removed_later(10.0)
    assert os.listdir(store.spool.path / "tmp") == []
    spool = [(path, thread) for path, thread in UNLINKED if path.startswith(str(store.spool.path))]
    assert len(spool) == 5 and {thread for _, thread in spool} == {"gm-remover"}, spool
    assert all(os.path.basename(path).startswith(GONE) for path, _ in spool)
    assert store.outbox.keys() == ["r1"]


def test_the_daemon_deletes_what_a_killed_process_left_to_unlink(tmp_path):
    store = Store(tmp_path / "data")
    left = store.spool.path / "tmp" / f"{GONE}00000000000000000001.smtp.abc.1234-ff.7"
    left.write_bytes(b"handled, not yet unlinked when its process was killed\n")
    staged = store.spool.path / "tmp" / "00000000000000000002.smtp.def.1234-ff-00.1.host"
    staged.write_bytes(b"a message being spooled\n")
    Daemon(Config(data=str(tmp_path / "data"), smtp=("127.0.0.1", 0)))
    assert not left.exists() and staged.exists()
