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

from gm.pbem.serving.listener import ConnectionGate, GuardedLMTP, GuardedSMTP, plain_address


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
