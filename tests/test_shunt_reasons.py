"""A shunted mail's reason says what was really wrong with it (issue 21,
row 9): mail gm could not parse at all, and a From field it could not read,
were both shunted as "no sender address", which sends the operator looking
for the wrong thing.

Each mail goes in over real SMTP to the daemon on loopback and is handled
as any other; the reason is the shunt's ``X-GM-Shunt-Reason`` line."""

from __future__ import annotations

import pytest

from gm.mail.reading import parse_message, sender_trouble
from gmtest import ALICE, GM, World, run, shunt_reasons

NESTING = 3000


def _nested(levels: int) -> bytes:
    """A mail from Alice whose multipart parts nest ``levels`` deep."""
    parts = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(levels))
    return (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n" + parts
            + "Content-Type: text/plain\r\n\r\nRv1\r\n").encode()


def _from(field: str) -> bytes:
    return f"{field}To: {GM}\r\nSubject: orders\r\n\r\nRv1\r\n".encode()


CASES = {
    "parts nested 3,000 deep": (
        _nested(NESTING), "the mail could not be parsed (its MIME parts nest too deeply), so it has no sender"),
    "an encoded CR LF in the display name": (
        _from(f"From: =?utf-8?q?Alice=0D=0AX-Evil=3A_1?= <{ALICE}>\r\n"),
        "the From field cannot be read: a line break (CR or LF) in it"),
    "a CR LF inside the quoted display name": (
        _from(f'From: "Alice\r\nX-Evil: 1" <{ALICE}>\r\n'),
        "the From field ends inside a quoted name (a line break in the name?)"),
    "no From field": (_from(""), "no From field"),
    "a group with no address": (_from("From: undisclosed-recipients:;\r\n"), "the From field names no address"),
    "two addresses that disagree": (
        _from(f"From: {ALICE} <mallory@example.com>\r\n"), "the From field cannot be read as one address"),
    "an address without a domain": (_from("From: Alice <alice>\r\n"), "the From address has no domain"),
    # (alice@localhost is an address: the one address policy takes a dotless domain, gm.kernel.addresses)
    "an address literal for a domain": (
        _from("From: Alice <alice@[127.0.0.1]>\r\n"), "the From address cannot be replied to"),
}


def _shunted_for(tmp_path, raw: bytes) -> list[str]:
    async def scenario() -> list[str]:
        async with World(tmp_path) as world:
            await world.asend(raw, ALICE, [GM])
            await world.settle()
            return [reason.decode() for reason in shunt_reasons(world)]
    return run(scenario())


@pytest.mark.parametrize("raw, reason", CASES.values(), ids=CASES.keys())
def test_the_shunt_reason_says_why_there_is_no_sender(tmp_path, raw, reason):
    assert _shunted_for(tmp_path, raw) == [f"X-GM-Shunt-Reason: {reason}"]


def test_a_mail_nested_a_little_less_deep_is_read_and_has_its_sender():
    assert str(parse_message(_nested(50))["From"]) == ALICE


def test_the_stand_in_for_an_unparsable_mail_says_why():
    message = parse_message(_nested(NESTING))
    assert message["From"] is None and sender_trouble(message).startswith("the mail could not be parsed")
    assert sender_trouble(parse_message(_from(""))) == "no From field"
