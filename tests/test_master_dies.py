"""A master task that dies stops the daemon, logged and with a non-zero exit
status (`gm.daemon.EXIT_MASTER`), so that the service manager starts it
again, instead of leaving listeners that answer 250 to mail nobody handles."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from gm.daemon import EXIT_MASTER
from gm.pbem.data.store import Store
from gmprocess import WAIT, free_port
from gmtest import GM


def test_a_master_that_cannot_load_the_games_stops_the_daemon(tmp_path: Path):
    data = tmp_path / "data"
    archive = Store(data).archive("g1")  # a game gm cannot read from the disk: an OSError, no one game's damage
    archive.add(b"From: gm@example.org\nX-GM-Event: created\nX-GM-Game: g1\n\nnonsense\n",
                "000001.in.00000000000000000001.admin", seen=True)
    cur = data / "games" / "g1" / "cur"
    for name in cur.iterdir():
        name.unlink()
    cur.rmdir()
    cur.write_bytes(b"")  # a file where the archive's folder should be (a game whose archive does not replay
    # stops alone: tests/test_damage.py)
    daemon = subprocess.Popen([sys.executable, "-P", "-m", "gm", "serve", "--data", str(data),
                               "--smtp", f"127.0.0.1:{free_port()}", "--address", GM],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        status = daemon.wait(WAIT)
    except subprocess.TimeoutExpired:
        daemon.send_signal(signal.SIGINT)
        daemon.wait(10)
        raise AssertionError("the daemon went on without its master") from None
    log = daemon.stderr.read()
    assert status == EXIT_MASTER, log[-3000:]
    assert "stopping: the master task died (NotADirectoryError" in log and "Traceback" in log
    assert "stopped signal=none" in log
