"""Repeated SIGKILLs that are no doing of the mail being handled: the poison
rule must not shunt valid mail that crashes caught in a batch with others;
every accepted mail is applied exactly once (`gm.pbem.master.screening.ALONE_DEATHS`).

The daemon is killed, start after start, as it handles the second message
of its first batch (as a kill at the same moment after each start would):
before, that was the same mail each time (its batch was handled again from
the start), and after three deaths it went to the shunt, never applied."""

import signal
from datetime import UTC, datetime

import pytest

from crash_orders import each_once, orders
from gm.pbem.archive.replay import prepend_header
from gm.pbem.data.store import Store, spool_key
from test_crash import GAMES, WAIT, games_set_up, wait_until_idle

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed start after start

KILLS = 3


def test_valid_mail_caught_in_batches_with_repeated_kills_is_applied_once(tmp_path):
    root = tmp_path / "data"
    server, sent = games_set_up(root)
    for raw, sender, recipient in orders(root, GAMES, sent):  # as the SpoolHandler writes them
        spooled = prepend_header(prepend_header(raw, "X-GM-Envelope-To", f"<{recipient.lower()}>"),
                                 "Return-Path", f"<{sender}>")
        Store(root).spool.add(spooled, spool_key(datetime.now(UTC), "smtp"))
    try:
        for _ in range(KILLS):
            server.start("mid-handle:2")
            assert server.process.wait(WAIT) == -signal.SIGKILL, server.process.stderr.read().decode()[-3000:]
        server.start(None)
        wait_until_idle(server, root)
    finally:
        server.stop()
    shunted = Store(root).shunt
    assert [shunted.get_bytes(k).split(b"\r\n")[0] for k in shunted.keys()] == []
    each_once(root, GAMES, sent)
