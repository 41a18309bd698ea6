"""What makes the master's work on an order mail cheaper (issue 27, mail at
half the ceiling; bench/master.py measures it), without changing what it
decides or a byte of what it writes: each test fails if the work it pins
comes back. That the mail is the same is what the golden sheets and
records, sample-mail and the byte-exact replays of tests/archives check."""

from __future__ import annotations

import email.policy
from email.headerregistry import HeaderRegistry

import pytest

from gm.mail import reading
from gm.mail.headers import addresses
from gm.mail.reading import parse_message
from gm.mail.screening import automatic_reason, is_own_mail
from gm.pbem.intake.addressing import envelope_from, plus_tags
from gm.pbem.writing.mailer import Identity

ORDER = (b"Return-Path: <bob@example.org>\r\nX-GM-Envelope-To: <gm+g1.2.abcdef@example.org>\r\n"
         b"From: Bob <bob@example.org>\r\nTo: gm+g1.2.abcdef@example.org\r\nSubject: orders\r\n"
         b"Message-ID: <o1@example.org>\r\n\r\nRv1\r\n")


def screen(raw: bytes) -> tuple:
    """What the master's screening reads off a mail's address fields, rule by rule."""
    message = parse_message(raw)
    return (is_own_mail(message, {"gm@example.org"}), automatic_reason(message, envelope_from(message)),
            addresses(message, "From"), plus_tags(message, Identity("gm@example.org")))


def test_the_screening_parses_each_address_field_once(monkeypatch):
    parsed: list[str] = []
    registry_call = HeaderRegistry.__call__

    def counting(registry, name, value):
        parsed.append(name.lower())
        return registry_call(registry, name, value)

    monkeypatch.setattr(HeaderRegistry, "__call__", counting)
    reading._parsed_field.cache_clear()
    assert screen(ORDER) == (False, None, ["bob@example.org"], [["g1", "2", "abcdef"]] * 2)  # envelope, To
    assert sorted(parsed) == ["from", "return-path", "to", "x-gm-envelope-to"], parsed  # each once
    parsed.clear()
    assert screen(ORDER.replace(b"<o1@", b"<o2@"))[3] == [["g1", "2", "abcdef"]] * 2  # the player's next mail
    assert parsed == [], parsed


@pytest.mark.parametrize("field", [
    b"From: Bob <bob@example.org>",
    b"From: a@example.org <b@example.com>",
    b"From: =?utf-8?q?B=C3=B6b?= <bob@example.org>, carol@example.org",
    b"From: undisclosed-recipients:;",
    b"From: \"unterminated <bob@example.org>",
    b"To: gm+g1.1.tok@example.org, (comment) <x@[127.0.0.1]>",
    b"Return-Path: <>",
])
def test_an_address_field_reads_as_policy_default_reads_it(field):
    raw = field + b"\r\nSubject: x\r\n\r\nbody\r\n"
    name = field.split(b":")[0].decode()
    for _ in range(2):  # parsed, then from the cache
        ours, reference = parse_message(raw)[name], email.message_from_bytes(raw, policy=email.policy.default)[name]
        assert read(ours) == read(reference)


def read(header) -> tuple:
    """What a reader of the field can see of it."""
    return (str(header), type(header).__name__, getattr(header, "addresses", None), [repr(d) for d in header.defects])
