"""gm.mail.screening: mail the GM must never answer automatically (RFC 3834),
and the GM's own mail coming back."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mail_samples as samples
from gm.mail.reading import parse_message
from gm.mail.screening import automatic_reason, is_own_mail


def person(**kwargs):
    return parse_message(samples.person(**kwargs))


# --------------------------------------------------------------------------
# People's mail is not automatic


@pytest.mark.parametrize("sample", [
    samples.thunderbird_flowed,
    samples.gmail_alternative,
    samples.outlook_html_only,
    samples.apple_mail_base64,
    samples.top_posted_plain,
    samples.interleaved_plain,
    samples.attachment_first,
])
def test_peoples_mail_is_not_automatic(sample):
    assert automatic_reason(parse_message(sample()), "alice@example.net") is None
    assert automatic_reason(parse_message(sample()), None) is None


@pytest.mark.parametrize("headers", [
    {"Auto-Submitted": "no"},
    {"Auto-Submitted": "No (a person wrote this)"},
    {"Precedence": "first-class"},
    {"Precedence": "normal"},
    # Outlook puts X-Auto-Response-Suppress on mail people write: not a sign.
    {"X-Auto-Response-Suppress": "All"},
    {"X-Auto-Response-Suppress": "DR, RN, NRN, OOF, AutoReply"},
    {"Return-Path": "<alice@example.net>"},
    {"X-Mailer": "Microsoft Outlook 16.0"},
    {"Reply-To": "noreply@example.org"},
])
def test_headers_people_send_are_not_automatic(headers):
    assert automatic_reason(person(headers=headers), "alice@example.net") is None


@pytest.mark.parametrize("sender", [
    "Alice <alice@example.net>",
    "Noreen Ply <noreen.ply@example.net>",
    "Postmistress <post.master.general@example.net>",
    "Reply Guy <reply@example.net>",
    "Daemon Fan <mailer-daemon-fan@example.net>",
])
def test_ordinary_senders_are_not_automatic(sender):
    assert automatic_reason(person(sender=sender), None) is None


# --------------------------------------------------------------------------
# The null return path


@pytest.mark.parametrize("envelope_from", ["", "<>", " <> ", "< >"])
def test_a_null_return_path_is_automatic(envelope_from):
    assert automatic_reason(person(), envelope_from) == "null return path"


def test_a_null_return_path_header_inside_the_message_is_automatic():
    assert automatic_reason(person(headers={"Return-Path": "<>"}), None) == "null Return-Path header"
    assert automatic_reason(person(headers={"Return-Path": "<>"}), "alice@example.net") == "null Return-Path header"


# --------------------------------------------------------------------------
# Senders


@pytest.mark.parametrize("sender, reason", [
    ("MAILER-DAEMON@mail.example.org (Mail Delivery System)", "From is mailer-daemon"),
    ("Mail Delivery Subsystem <mailer-daemon@googlemail.com>", "From is mailer-daemon"),
    ("MAILER-DAEMON (Mail Delivery System)", "From is mailer-daemon"),
    ("postmaster@example.net", "From is postmaster"),
    ("Postmaster <PostMaster@example.net>", "From is postmaster"),
    ("GitHub <noreply@github.com>", "From is a no-reply address"),
    ("Shop <no-reply@shop.example>", "From is a no-reply address"),
    ("Bank <do-not-reply@bank.example>", "From is a no-reply address"),
    ("Bank <DoNotReply@bank.example>", "From is a no-reply address"),
    ("Service <no_reply@service.example>", "From is a no-reply address"),
    ("Notifications <notifications-noreply@service.example>", "From is a no-reply address"),
    ("Tagged <noreply+gm12@service.example>", "From is a no-reply address"),
])
def test_automatic_senders_in_from(sender, reason):
    assert automatic_reason(person(sender=sender), "alice@example.net") == reason


def test_an_automatic_sender_header():
    message = person(headers={"Sender": "list-bounces <postmaster@example.net>"})
    assert automatic_reason(message, None) == "Sender is postmaster"


@pytest.mark.parametrize("envelope_from, reason", [
    ("MAILER-DAEMON", "envelope sender is mailer-daemon"),
    ("<MAILER-DAEMON@mail.example.org>", "envelope sender is mailer-daemon"),
    ("postmaster@example.net", "envelope sender is postmaster"),
    ("<noreply@example.org>", "envelope sender is a no-reply address"),
])
def test_automatic_envelope_senders(envelope_from, reason):
    assert automatic_reason(person(), envelope_from) == reason


# --------------------------------------------------------------------------
# Headers


@pytest.mark.parametrize("value, reason", [
    ("auto-replied", "Auto-Submitted: auto-replied"),
    ("auto-generated", "Auto-Submitted: auto-generated"),
    ("Auto-Notified; owner-email=\"x@example.org\"", "Auto-Submitted: auto-notified"),
    ("auto-replied (vacation)", "Auto-Submitted: auto-replied"),
    ("AUTO-REPLIED", "Auto-Submitted: auto-replied"),
    ("yes", "Auto-Submitted: yes"),
    ("", "Auto-Submitted: (empty)"),
])
def test_auto_submitted_other_than_no(value, reason):
    assert automatic_reason(person(headers={"Auto-Submitted": value}), None) == reason


@pytest.mark.parametrize("value, reason", [
    ("bulk", "Precedence: bulk"),
    ("junk", "Precedence: junk"),
    ("list", "Precedence: list"),
    ("auto_reply", "Precedence: auto_reply"),
    ("BULK", "Precedence: bulk"),
])
def test_precedence(value, reason):
    assert automatic_reason(person(headers={"Precedence": value}), None) == reason


@pytest.mark.parametrize("name", [
    "List-Id", "List-Unsubscribe", "List-Post", "List-Help", "List-Subscribe", "List-Owner", "List-Archive",
    "List-Unsubscribe-Post", "LIST-ID",
])
def test_any_list_header(name):
    assert automatic_reason(person(headers={name: "<x.lists.example.org>"}), None) == f"mailing list ({name})"


@pytest.mark.parametrize("name", ["X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Autogenerated"])
def test_autoreply_headers(name):
    assert automatic_reason(person(headers={name: "yes"}), None) == f"{name} header"


def test_x_failed_recipients():
    message = person(headers={"X-Failed-Recipients": "alice@example.net"})
    assert automatic_reason(message, None) == "bounce (X-Failed-Recipients)"


def test_multipart_report():
    raw = samples.crlf(
        "From: Alice <alice@example.net>\nTo: gm@example.org\nSubject: Read: [gm 12] Turn 3\nMIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=disposition-notification; boundary=b\n\n"
        "--b\nContent-Type: text/plain\n\nYour message was read.\n"
        "--b\nContent-Type: message/disposition-notification\n\n"
        "Disposition: manual-action/MDN-sent-manually; displayed\n"
        "--b--\n"
    )
    assert automatic_reason(parse_message(raw), "alice@example.net") == (
        "delivery or disposition report (multipart/report)"
    )


# --------------------------------------------------------------------------
# The samples


def test_a_bounce():
    message = parse_message(samples.bounce())
    assert automatic_reason(message, "") == "null return path"
    assert automatic_reason(message, None) == "null Return-Path header"


def test_a_bounce_without_return_path_or_auto_submitted():
    raw = samples.bounce().replace(b"Return-Path: <>\r\n", b"").replace(b"Auto-Submitted: auto-replied\r\n", b"")
    assert automatic_reason(parse_message(raw), None) == "delivery or disposition report (multipart/report)"


def test_a_bounce_with_only_its_sender_left():
    raw = samples.crlf(
        "From: MAILER-DAEMON@mail.example.org (Mail Delivery System)\nTo: gm@example.org\n"
        "Subject: failure notice\n\nSorry, I couldn't deliver your message.\n"
    )
    assert automatic_reason(parse_message(raw), None) == "From is mailer-daemon"


def test_a_vacation_reply():
    message = parse_message(samples.vacation_reply())
    assert automatic_reason(message, "alice@example.net") == "Auto-Submitted: auto-replied"
    assert automatic_reason(message, "<>") == "null return path"


def test_a_mailing_list_copy():
    message = parse_message(samples.mailing_list_copy())
    assert automatic_reason(message, "spaceships-bounces@lists.example.org") == "Precedence: list"
    without_precedence = parse_message(samples.mailing_list_copy().replace(b"Precedence: list\r\n", b""))
    assert automatic_reason(without_precedence, None) == "mailing list (List-Id)"


# --------------------------------------------------------------------------
# is_own_mail

OWN = {"gm@example.org", "GM-Bounces@example.org"}


@pytest.mark.parametrize("sender", [
    "GM for Spaceships <gm@example.org>",
    "gm@EXAMPLE.org",
    "GM@example.org",
    "gm-bounces@example.org",
])
def test_mail_from_the_gm_is_own_mail(sender):
    assert is_own_mail(person(sender=sender), OWN)


def test_mail_with_the_marker_header_is_own_mail():
    assert is_own_mail(person(headers={"X-GM-Game": "12"}), OWN)
    assert is_own_mail(person(headers={"x-gm-game": ""}), OWN)
    assert is_own_mail(person(headers={"X-Spaceships": "12"}), OWN, "X-Spaceships")
    assert not is_own_mail(person(headers={"X-GM-Game": "12"}), OWN, "X-Spaceships")


@pytest.mark.parametrize("sender", [
    "Alice <alice@example.net>",
    "gm@example.net",
    "xgm@example.org",
    "MAILER-DAEMON",
])
def test_other_mail_is_not_own_mail(sender):
    assert not is_own_mail(person(sender=sender), OWN)


def from_header(value: bytes):
    return parse_message(b"From: " + value + b"\r\nTo: gm@example.org\r\n\r\nbRv1Rx1 Gy3\r\n")


def test_an_encoded_display_name_is_not_an_address():
    assert not is_own_mail(from_header(b"=?utf-8?q?gm=40example.org?= <mallory@example.com>"), OWN)


def test_an_ambiguous_from_counts_as_own_mail_when_email_reads_the_gms_address_in_it():
    # email reads gm@example.org here, a mail client mallory@example.com: ignoring it is the safe mistake.
    assert is_own_mail(from_header(b"gm@example.org <mallory@example.com>"), OWN)


def test_a_bounce_of_the_gms_own_mail_is_not_itself_own_mail():
    # The marker header is inside the attached original, not on the bounce.
    assert not is_own_mail(parse_message(samples.bounce()), OWN)


def test_a_reply_to_the_gm_is_not_own_mail():
    assert not is_own_mail(parse_message(samples.gmail_alternative()), OWN)


# --------------------------------------------------------------------------
# Never raising


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=1500), st.one_of(st.none(), st.text(max_size=30)))
def test_screening_never_raises(raw, envelope_from):
    message = parse_message(raw)
    reason = automatic_reason(message, envelope_from)
    assert reason is None or isinstance(reason, str)
    assert isinstance(is_own_mail(message, OWN), bool)
