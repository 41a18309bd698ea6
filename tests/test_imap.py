"""Reading players' mail from a real Dovecot IMAP server."""

import asyncio
import contextlib
import dataclasses
import logging

import pytest

from dovecot import dovecot_factory, dovecot_server
from gm.pbem.serving.imap import HANDLED_FLAG, ImapAccount, ImapPoller
from gmtest import ALICE, SETUP_ALICE, World

pytestmark = pytest.mark.slow  # a real Dovecot

__all__ = ["dovecot_factory", "dovecot_server"]  # fixtures used below


def test_imap_url_parsing():
    account = ImapAccount.from_url("imaps://mail.example.org/Games%20In", "gm", "pw")
    assert (account.host, account.port, account.folder, account.tls) == ("mail.example.org", 993, "Games In", True)
    assert ImapAccount.from_url("imap://u:p@127.0.0.1:1143", None, None).port == 1143


def test_poller_spools_replies_then_flags_them_and_deletes_nothing(tmp_path, dovecot_server):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            invitation = world.alice.latest()
            raw = (f"From: {ALICE}\r\nTo: {invitation['Reply-To']}\r\nSubject: Re: {invitation['Subject']}\r\n"
                   f"Message-ID: <imap-setup@example.org>\r\nIn-Reply-To: {invitation['Message-ID']}\r\n\r\n{SETUP_ALICE}").encode()
            dovecot_server.deliver(raw)
            world.config.imap = f"imap://{dovecot_server.host}:{dovecot_server.port}/INBOX"
            world.config.imap_user, world.config.imap_password = dovecot_server.user, dovecot_server.password
            poller = ImapPoller(world.daemon.store, world.config, world.clock)
            client = poller.connect()
            try:
                assert poller.poll_once(client) == 1
                assert poller.poll_once(client) == 0  # flagged: not spooled twice
            finally:
                client.logout()
            await world.settle()
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
            with dovecot_server.client() as imap:
                imap.select_folder("INBOX")
                (uid,) = imap.search(["ALL"])
                flags = imap.get_flags([uid])[uid]
                assert HANDLED_FLAG.encode() in flags and b"\\Seen" in flags
    asyncio.run(scenario())


def test_daemon_picks_up_imap_mail_through_idle(tmp_path, dovecot_server):
    async def scenario():
        world = World(tmp_path)
        world.config.imap = f"imap://{dovecot_server.host}:{dovecot_server.port}/INBOX"
        world.config.imap_user, world.config.imap_password = dovecot_server.user, dovecot_server.password
        async with world:
            await world.new_game()
            invitation = world.alice.latest()
            raw = (f"From: {ALICE}\r\nTo: {invitation['Reply-To']}\r\nSubject: Re: setup\r\n"
                   f"Message-ID: <imap-idle@example.org>\r\n\r\n{SETUP_ALICE}").encode()
            await asyncio.to_thread(dovecot_server.deliver, raw)
            for _ in range(100):  # bounded: at most 10 s
                await asyncio.sleep(0.1)
                if world.daemon.store.spool.keys():
                    break
            await world.settle()
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
    asyncio.run(scenario())


def test_the_log_says_which_mailbox_gm_polls_when_it_connects_fails_and_reconnects(tmp_path, dovecot_factory,
                                                                                     caplog):
    """The operator sees in gm's log where it reads mail (host, port, user,
    mailbox, TLS or not) and why it does not: never the password."""
    first = dovecot_factory()
    caplog.set_level(logging.INFO, logger="gm")

    def imap_lines() -> list[str]:
        return [record.getMessage() for record in caplog.records if record.getMessage().startswith("imap ")]

    async def until(what: str, count: int = 1, seconds: float = 15.0) -> str:
        for _ in range(int(seconds * 20)):  # bounded
            found = [line for line in imap_lines() if line.startswith(what + " ")]
            if len(found) >= count:
                return found[count - 1]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no {what!r} line in the log: {imap_lines()}")

    async def scenario():
        async with World(tmp_path) as world:
            world.config.imap = f"imap://{first.host}:{first.port}/INBOX"
            world.config.imap_user, world.config.imap_password = first.user, first.password
            poller = ImapPoller(world.daemon.store, world.config, world.clock)
            task = asyncio.create_task(poller.run())
            try:
                where = f"host={first.host} port={first.port} user={first.user} mailbox=INBOX tls=no"
                assert await until("imap connected") == f"imap connected {where}"
                await asyncio.to_thread(first.stop)  # the server goes away under gm
                lost = await until("imap connection lost")
                assert lost.startswith(f"imap connection lost {where} error=") and lost.endswith(" retry-in=1s")
                failed = await until("imap connection failed")
                assert failed.startswith(f"imap connection failed {where} error=") and failed.endswith(" retry-in=2s")
                second = await asyncio.to_thread(dovecot_factory)  # the operator mends it: a server elsewhere
                poller.account = dataclasses.replace(poller.account, port=second.port, password=second.password)
                again = await until("imap reconnected")
                assert again == f"imap reconnected host={second.host} port={second.port} user={second.user} " \
                                "mailbox=INBOX tls=no"
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            assert [line.split(" host=")[0] for line in imap_lines()][:1] == ["imap connected"]
            text = caplog.text
            assert first.password not in text and second.password not in text
    asyncio.run(scenario())
