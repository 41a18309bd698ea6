"""gm writes its messages out itself (`gm.pbem.writing.writer.Mail`) in the bytes the
email package's ``EmailMessage`` (policy SMTP) wrote for them before, so
that every archive replays byte for byte (tests/test_format1.py,
tests/test_editions.py and tests/test_edition3.py replay real ones). Here
the same is checked on values made up to reach the corners: header fields
folded or not, encoded or not, bodies in every line ending and character,
and each shape of message (text; text and HTML; either with an attached
mailbox)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from email import quoprimime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gm.pbem.writing.writer import (
    Mail,
    _field,
    _fill,
    _fix_boundaries,
    _folded_by_package,
    _quoted_printable,
    text_body,
    with_attachments,
)

pytestmark = pytest.mark.slow  # hypothesis with hundreds of examples a test

NAMES = ["Subject", "References", "In-Reply-To", "Auto-Submitted", "X-GM-Game", "X-GM-Player", "Message-ID",
         "Date", "From", "To", "Reply-To", "Content-Type", "MIME-Version", "Content-Transfer-Encoding"]

atext = st.text("abcxyzABCXYZ0189!#$%&'*+/=?^_`{|}~-", min_size=1, max_size=12)
word = st.one_of(
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12),
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=60, max_size=90),
    st.builds(lambda a, b: f"<{a}@{b}>", atext, atext),
    st.sampled_from(["=?utf-8?q?caf=C3=A9?=", "caf\u00e9", "\u4e2d", "(comment)", '"quoted"', "a,b", "@", ":"]),
)
spacing = st.sampled_from([" ", " ", " ", "  ", "\t"])
value = st.builds(lambda words, gaps, lead, trail: lead + "".join(w + g for w, g in zip(words, gaps))[:-1] + trail,
                  st.lists(word, min_size=1, max_size=14), st.lists(spacing, min_size=14, max_size=14),
                  st.sampled_from(["", "", "", " "]), st.sampled_from(["", "", "", " "]))


def by_package(name: str, text: str) -> str:
    return _folded_by_package.__wrapped__(name, text)  # type: ignore[attr-defined]


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(NAMES), value)
@example("Subject", "[gm g1] " + "x" * 69)  # the whole value alone on the next line
@example("Subject", "[gm g1] " + "x" * 70)
@example("References", " ".join(f"<g1.{n}.1.98165c07f9@example.org>" for n in range(9)))
@example("References", "<179548985867.25191.2659966449489636407@example.net> " * 3 + "<a@b>")
@example("Message-ID", "<g1.12345.67.98165c07f9@" + "d" * 60 + ".example.org>")
@example("Content-Type", 'multipart/alternative; boundary="=_gm-g1-5-2-0"')
@example("Content-Type", 'multipart/mixed; boundary="=_gm-' + "g" * 40 + '-123456-12-0"')
@example("Content-Type", 'multipart/mixed; boundary="=_gm-' + "g" * 38 + '-123456-12-0"')
def test_a_field_is_folded_as_the_email_package_folds_it(name, text):
    try:
        expected = by_package(name, text)
    except Exception as error:  # the package refuses it: so does gm
        with pytest.raises(type(error)):
            _field(name, text)
        return
    assert _field(name, text) == expected


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(2999, 12, 30)),
       st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-9, minutes=-30)), None]))
def test_a_date_is_written_as_the_email_package_writes_it(moment, zone):
    text = format_datetime(moment.replace(tzinfo=zone))
    assert _field("Date", text) == by_package("Date", text)


@pytest.mark.parametrize("text", ["Sun, 22 Nov 2026 12:00:00 +0000",  # a Saturday: the package writes Sat
                                  "Sat, 21 Nov 2026 12:00:00 +0000", "Sat, 21 Nov 2026 12:00:00 -0000"])
def test_a_date_the_package_would_change_is_the_packages_to_write(text):
    assert _field("Date", text) == by_package("Date", text)


latin1 = st.text(st.sampled_from([chr(c) for c in range(256)] + ["=", " ", "\t", "\n", "a", "\r"] * 8), max_size=400)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(latin1, st.builds(lambda n, end: "x" * n + end, st.integers(0, 240),
                                              st.sampled_from(["", " ", "\t", "=", "\xe9", " \n", "=\n"]))),
                max_size=8))
@example(["x" * 74 + " "])
@example(["x" * 75 + "\t"])
@example(["x" * 76 + " "])
@example(["x" * 75 + "=" + "y" * 10])
def test_quoted_printable_is_the_email_packages(pieces):
    body = "".join(pieces)
    assert _quoted_printable(body) == quoprimime.body_encode(body, 78)


def reference(text: str, html: str | None, attached: bytes | None, stem: str, cte: str) -> bytes:
    """The message as gm built it with the email package up to edition 3."""
    message = EmailMessage(policy=SMTP)
    message["Subject"] = "a message"
    message.set_content(text, charset="utf-8", cte=cte)
    if html is not None:
        message.add_alternative(html, subtype="html", charset="utf-8", cte=cte)
    if attached is not None:
        message.add_attachment(attached, maintype="application", subtype="mbox", filename="game-g1.mbox")
    _fix_boundaries(message, stem)
    return message.as_bytes(policy=SMTP)


line = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=120),
    st.text("abc =.<>\t", max_size=1100),
    st.sampled_from(["", "From here", ".", " trailing  ", "=3D", "caf\u00e9", "\u2028x", "a\x0cb", "tab\tend\t"]),
)
body = st.builds(lambda lines, ends: "".join(a + b for a, b in zip(lines, ends)),
                 st.lists(line, max_size=12), st.lists(st.sampled_from(["\n", "\n", "\r\n", "\r", ""]), min_size=12,
                                                        max_size=12))


@settings(max_examples=300, deadline=None)
@given(body, st.one_of(st.none(), body), st.one_of(st.none(), st.binary(max_size=400)), st.booleans())
@example("Hello\n", "<p>Hello</p>\n", None, False)
@example("Hello\n", None, b"From gm\n\nold mail\n", False)
@example("Hello\n", "<p>Hello</p>\n", b"x" * 1000, True)
def test_each_shape_of_message_is_written_as_the_email_package_writes_it(text, html, attached, light):
    message = Mail()
    message["Subject"] = "a message"
    _fill(message, text, html, attached, "game-g1.mbox", "gm-g1-5-2", light)
    written = message.as_bytes()
    # Light mail (edition 4 on) sends 7bit each part that can go so; else quoted-printable, as before.
    ctes = [b"7bit" if light and part.encode().isascii()
            and max(map(len, part.encode().splitlines()), default=0) <= 998 else b"quoted-printable"
            for part in [text] + ([html] if html is not None else [])]
    assert written.count(b"Content-Transfer-Encoding: 7bit") == ctes.count(b"7bit")
    if ctes.count(ctes[0]) == len(ctes):  # the package takes one cte for them all here
        assert written == reference(text, html, attached, "gm-g1-5-2", ctes[0].decode())


def test_a_warning_takes_a_new_message_id_as_an_email_message_did():
    """gm.pbem.master.game_master gives a forged-sender warning its own Message-ID: the
    old field goes, the new one comes last."""
    mail, message = Mail(), EmailMessage(policy=SMTP)
    for m in (mail, message):
        m["Subject"] = "Someone tried to send orders as you"
        m["Message-ID"] = "<g1.0.0@example.org>"
    _fill(mail, "text\n", None, None, "", "gm-g1-0-0", False)
    message.set_content("text\n", charset="utf-8", cte="quoted-printable")
    for m in (mail, message):
        del m["Message-ID"]
        m["Message-ID"] = "<warning.g1.1.2026-11-21@example.org>"
    assert mail.as_bytes() == message.as_bytes(policy=SMTP)
    assert mail["Message-ID"] == "<warning.g1.1.2026-11-21@example.org>" and "Subject" in mail


@settings(max_examples=300, deadline=None)
@given(body)
@example("")
@example("x" * 78 + "\n")
@example("x" * 79 + "\n")
@example(("y" * 100 + "\n") * 11)
@example(("\u00e9" * 90 + "\n") * 3)
@example(("\u00e9" * 90 + "\n") * 12)
def test_a_text_whose_encoding_the_package_chose_is_written_as_it_wrote_it(text):
    """GM events and answers about no game: ``set_content(text, charset="utf-8")``,
    which picks 7bit, 8bit, quoted-printable or base64 by itself."""
    message, reference_message = Mail(), EmailMessage(policy=SMTP)
    for m in (message, reference_message):
        m["Subject"] = "[gm g1] cancel"
    text_body(message, text)
    reference_message.set_content(text, charset="utf-8")
    assert message.as_bytes() == reference_message.as_bytes(policy=SMTP)


@settings(max_examples=200, deadline=None)
@given(body, st.lists(body, max_size=3))
def test_an_observers_mail_with_records_is_written_as_the_email_package_wrote_it(text, records):
    files = [(f"game-g1-player-{n}.txt", record) for n, record in enumerate(records, 1)]
    message, reference_message = Mail(), EmailMessage(policy=SMTP)
    for m in (message, reference_message):
        m["Subject"] = "[gm g1] Turn 3"
    with_attachments(message, text, files, "gm-g1-3-2")
    reference_message.set_content(text, charset="utf-8", cte="quoted-printable")
    for name, record in files:
        reference_message.add_attachment(record, charset="utf-8", cte="quoted-printable", filename=name)
    _fix_boundaries(reference_message, "gm-g1-3-2")
    assert message.as_bytes() == reference_message.as_bytes(policy=SMTP)
