"""What makes the daemon's own work on an order mail cheaper (issue 27, mail
at half the ceiling; bench/ingest.py prints the daemon's CPU per order mail),
without changing what it answers, writes or sends: each test fails if the
work it pins comes back, or if the shortcut reads anything differently from
the code it stands in for."""

from __future__ import annotations

import asyncio

import aiosmtpd.smtp
import pytest
from aiosmtpd.smtp import SMTP
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.pbem.data.store import Store
from gm.pbem.serving.delivery import Deliverer
from gm.pbem.serving.listener import ConnectionGate, GuardedLMTP, GuardedSMTP, plain_address
from gm.pbem.writing.mailer import Identity
from gm.storage.maildirs import DurableMaildir
from gmtest import GM


@pytest.fixture
def sessions():
    """A GuardedSMTP, a GuardedLMTP and aiosmtpd's own SMTP, not connected."""
    loop = asyncio.new_event_loop()
    try:
        made = [kind(object(), gate=ConnectionGate(4), data_size_limit=1000, loop=loop)
                for kind in (GuardedSMTP, GuardedLMTP)]
        yield made, SMTP(object(), data_size_limit=1000, loop=loop)
    finally:
        loop.close()


PLAIN = ["<player1.n37@players.example>", "<gm+t3kq8xk2m9r7v5jwb@example.org>", "<a@b> size=332",
         "<a@b>\t\tSIZE=1 BODY=8BITMIME", "<a@b> \u00a0 x", "<a@b>x", "<a@b>\x0bx", "<o'neil#{x}@e-x.a_b>"]
OTHERS = ["", "<>", " <a@b>", "a@b", "<a..b@c>", "<.a@b>", "<a@b.>", "<a@[1.2.3.4]>", '<"a b"@c>', "<\u00e9@b>",
          "<a@b> (comment) size=3", "<a@b>(c)", "<@r.example:a@b>", "<a@b", "<a b@c>", "<a@b@c>",
          "<a\udcff@b>"]


@pytest.mark.parametrize("arg", PLAIN + OTHERS)
def test_addresses_are_read_as_aiosmtpd_reads_them(sessions, arg):
    guarded, plain = sessions
    for session in guarded:
        assert session._getaddr(arg) == plain._getaddr(arg)
        session.local_part_limit = 5
        plain.local_part_limit = 5
        assert session._getaddr(arg) == plain._getaddr(arg)
        session.local_part_limit = plain.local_part_limit = 0


def outcome(read, arg: str) -> object:
    """What reading ``arg`` gives, or the kind of error it raises (the
    email package fails on some, such as a lone ``<``)."""
    try:
        return read(arg)
    except Exception as error:
        return type(error)


ALPHABET = st.sampled_from([*"ab.-_+'#@<>() \t\"[]:;,\\\u00a0\u00e9\x0b=", "SIZE=3"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=24).map("".join))
def test_any_argument_is_read_as_aiosmtpd_reads_it(arg):
    loop = asyncio.new_event_loop()
    try:
        guarded = GuardedSMTP(object(), gate=ConnectionGate(4), data_size_limit=1000, loop=loop)
        for text in ("<" + arg, arg):
            assert outcome(guarded._getaddr, text) == outcome(lambda t: SMTP._getaddr(guarded, t), text)
    finally:
        loop.close()


def test_a_plain_address_is_read_without_the_email_package(sessions, monkeypatch):
    calls: list[str] = []
    parse = aiosmtpd.smtp.get_angle_addr

    def counting(value):
        calls.append(value)
        return parse(value)

    monkeypatch.setattr(aiosmtpd.smtp, "get_angle_addr", counting)
    guarded, _ = sessions
    for arg in PLAIN:
        assert plain_address(arg) is not None
        guarded[0]._getaddr(arg)
    assert calls == []
    guarded[0]._getaddr("<a@b> (comment)")
    assert calls == ["<a@b> (comment)"]


def test_local_delivery_looks_each_outbox_message_up_once(tmp_path, monkeypatch):
    store = Store(tmp_path / "data")
    keys = [f"g1.00000{n}.out.{n}" for n in range(1, 4)]
    for n, key in enumerate(keys):
        store.outbox.add(f"To: a@example.org\r\nSubject: {n}\r\n\r\ntoken {n}\r\n".encode(), key)
    looked: list[str] = []
    find = DurableMaildir._find

    def counting(maildir, key):
        if maildir is store.outbox:
            looked.append(key)
        return find(maildir, key)

    monkeypatch.setattr(DurableMaildir, "_find", counting)
    assert Deliverer(store, None, Identity(GM)).deliver_locally(keys) == {}
    assert looked == keys  # read and marked sent from the one lookup
    assert store.outbox.keys() == [] and all(key in store.sent for key in keys)
    assert all((store.sent.path / key).stat().st_size == 0 for key in keys)
    assert [store.delivered.get_bytes(key) for key in keys] == [
        f"To: a@example.org\nSubject: {n}\n\ntoken {n}\n".encode() for n in range(3)]


def test_a_message_is_found_where_gm_or_a_mail_client_put_it(tmp_path):
    maildir = DurableMaildir(tmp_path / "box")
    maildir.add(b"new", "a")
    maildir.add(b"seen", "b", seen=True)
    (maildir.path / "cur" / "c").write_bytes(b"bare")
    (maildir.path / "cur" / "d:2,RS").write_bytes(b"flagged")
    assert [maildir.get_bytes(key) for key in "abcd"] == [b"new", b"seen", b"bare", b"flagged"]
    assert maildir.file_of("a") == maildir.path / "new" / "a"
    assert maildir.file_of("b") == maildir.path / "cur" / "b:2,S"
    assert "e" not in maildir
    with pytest.raises(KeyError):
        maildir.get_bytes("e")
