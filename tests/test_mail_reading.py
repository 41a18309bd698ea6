"""gm.mail.reading: what the player wrote, from real mail as real clients send it.

Expected texts are written out literally; the messages come from
tests/mail_samples.py, which builds them byte for byte as the clients do.
"""

from __future__ import annotations

import base64
import email.policy
import quopri
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mail_samples as samples
from gm.mail.reading import addresses, body_text, clean_subject, new_lines, parse_message, player_text


def body_of(raw: bytes) -> str:
    return body_text(parse_message(raw))


def plain(body: str, content_type: str = "text/plain; charset=utf-8", cte: str | None = "8bit",
          charset: str = "utf-8") -> EmailMessage:
    return parse_message(samples.raw_text(samples.crlf(body, charset), content_type, cte))


# --------------------------------------------------------------------------
# parse_message


def test_parse_message_gives_an_email_message_with_the_default_policy():
    message = parse_message(samples.top_posted_plain())
    assert isinstance(message, EmailMessage)
    assert message["From"].addresses[0].addr_spec == "alice@example.net"


@pytest.mark.parametrize("raw", [
    b"",
    b"\x00\xff\xfe\r\n\r\n\x80",
    b"no headers at all, just a line",
    b": empty name\r\n\r\nbody",
    b"Content-Type: multipart/mixed\r\n\r\nno boundary parameter\r\n",
    b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nunterminated",
    b"Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64===\r\n",
    b"Content-Type: text/plain\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ=\r\n=",
    b"Content-Type: text/plain; charset=\"\r\n\r\nunterminated quote",
    b"From: <<<@@@>>>\r\nTo: ,,,;;;\r\nSubject: =?bogus?X?zzz?=\r\n\r\nbody",
])
def test_parse_message_never_raises_on_broken_mime_and_still_gives_something(raw):
    message = parse_message(raw)
    assert isinstance(message, EmailMessage)
    assert isinstance(player_text(message), str)
    assert isinstance(addresses(message, "From"), list)


def test_parse_message_keeps_what_it_can_of_an_unterminated_multipart():
    raw = b"Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nsOz5\r\n"
    # email gives the last line without its line break: it could belong to a missing boundary.
    assert body_of(raw) == "sOz5"


def test_parse_message_falls_back_to_the_bytes_as_a_body_when_the_parser_fails(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("parser bug")

    monkeypatch.setattr("gm.mail.reading.email.message_from_bytes", broken)
    message = parse_message(b"Subject: x\r\n\r\nRv1 \xe9\r\n")
    assert isinstance(message, EmailMessage)
    assert body_text(message) == "Subject: x\n\nRv1 é\n"


def test_parse_message_accepts_str_and_bytearray():
    assert body_text(parse_message("Subject: x\n\nsOz5\n")) == "sOz5\n"
    assert body_text(parse_message(bytearray(b"Subject: x\n\nsOz5\n"))) == "sOz5\n"


# --------------------------------------------------------------------------
# body_text: the clients


def test_thunderbird_format_flowed_is_unwrapped_and_unstuffed():
    assert body_of(samples.thunderbird_flowed()) == (
        "On 03/11/2026 10:02, GM for Spaceships wrote:\n"
        "> [gm 12] Turn 3 for Alice\n"
        ">\n"
        "> Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC. Reply with your orders, one line per command.\n"
        ">\n"
        ">    DS Rv1-Ow2\n"
        "> -- \n"
        "> GM for Spaceships <gm@example.org>\n"
        "\n"
        "bRv1Rx1 Gy3, mRv2 Bz5 ; the beam goes first because the missile needs the cruiser out of the way, "
        "and Zoë agrees\n"
        "  kGy3\n"
        "sOz5\n"
        "\n"
        "-- \n"
        "Alice\n"
    )


def test_format_flowed_delsp_yes_drops_the_space_before_each_soft_break():
    assert body_of(samples.flowed_delsp()) == (
        "KC Rv1-Rw3 ; the cruiser sits along the red edge where nothing can reach it\n"
        "DS Gy3-Gy5 ; supercalifragilistic\n"
    )


def test_gmail_alternative_gives_the_quoted_printable_plain_part():
    assert body_of(samples.gmail_alternative()) == (
        "bRv1Rx1 Gy3, mRv2 Bz5 ; déjà vu\n"
        "sOz5 ; this comment is long enough that quoted-printable has to break it with a soft line break, "
        "and 2+2=4\n"
        "\n"
        "On Tue, 3 Nov 2026 at 10:02, GM for Spaceships <gm@example.org>\n"
        "wrote:\n"
        "\n"
        "> [gm 12] Turn 3 for Alice\n"
        ">\n"
        "> Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC.\n"
        ">\n"
        "> Turn 2 results\n"
        ">   1> strike Gv2: hit\n"
        ">   2> scan Bv5: undamaged\n"
        ">\n"
        "> --\n"
        "> GM for Spaceships <gm@example.org>\n"
        ">\n"
    )


def test_gmail_html_only_is_converted_with_the_blockquote_marked_as_quoted():
    assert body_of(samples.gmail_alternative(with_plain=False)) == (
        "bRv1Rx1 Gy3, mRv2 Bz5 ; déjà vu\n"
        "sOz5 ; this comment is long enough that quoted-printable has to break it with a soft line break, "
        "and 2+2=4\n"
        "\n"
        "On Tue, 3 Nov 2026 at 10:02, GM for Spaceships <gm@example.org> wrote:\n"
        "> [gm 12] Turn 3 for Alice\n"
        ">\n"
        "> Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC.\n"
        ">\n"
        "> Turn 2 results\n"
        ">   1> strike Gv2: hit\n"
        ">> nested\n"
        "> --\n"
        "> GM for Spaceships <gm@example.org>\n"
    )


def test_outlook_html_only_in_windows_1252():
    assert body_of(samples.outlook_html_only()) == (
        "KC Rv1-Rw3\n"
        "DS Gy3-Gy5 ; the death star goes behind\n"
        "\n"
        "; Zoë – setup as agreed, it’s <fine> & done\n"
        "\n"
        "-----Original Message-----\n"
        "From: GM for Spaceships <gm@example.org>\n"
        "Sent: Tuesday, November 3, 2026 10:02 AM\n"
        "To: Zoë <zoe@example.net>\n"
        "Subject: [gm 12] Setup for Zoë\n"
        "\n"
        "Send your fleet, one ship per line.\n"
    )


def test_apple_mail_base64_utf8():
    assert body_of(samples.apple_mail_base64()) == (
        "KC Rv1-Rw3\n"
        "DS Gy3-Gy5 ; Zoë’s fleet 🚀 stays put\n"
        "\n"
        "> On 3 Nov 2026, at 10:02, GM for Spaceships <gm@example.org> wrote:\n"
        "> \n"
        "> [gm 12] Setup for Zoë\n"
        "> \n"
        "> Send your fleet, one ship per line.\n"
    )


def test_an_attachment_before_the_text_part_is_skipped():
    assert body_of(samples.attachment_first()) == "bRv1Rx1 Gy3\nsOz5\n"


def test_without_text_plain_the_first_html_part_that_is_not_an_attachment_is_used():
    assert body_of(samples.html_attachment_then_html_body()) == "sOz5\nGy3\n"


def test_text_inside_an_attached_message_is_not_the_players():
    assert body_of(samples.forwarded_as_attachment()) == "see attached\n"


def test_a_bounce_gives_its_human_readable_part():
    assert body_of(samples.bounce()) == (
        "This is the mail system at host mail.example.org.\n"
        "\n"
        "<alice@example.net>: host mx.example.net said: 550 5.1.1 User unknown\n"
    )


def test_a_blank_plain_part_gives_way_to_the_html_part():
    raw = samples.crlf(
        "From: a@example.net\nMIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=b\n\n"
        "--b\nContent-Type: text/plain; charset=utf-8\n\n\n\n"
        "--b\nContent-Type: text/html; charset=utf-8\n\n<div>sOz5</div>\n"
        "--b--\n"
    )
    assert body_of(raw) == "sOz5\n"


def test_a_message_with_no_text_part_gives_the_empty_string():
    raw = samples.crlf(
        "From: a@example.net\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n"
        "--b\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n"
        "--b--\n"
    )
    assert body_of(raw) == ""


def test_a_message_without_content_type_is_plain_text():
    assert body_of(b"From: a@example.net\r\nSubject: x\r\n\r\nbRv1Rx1 Gy3\r\n") == "bRv1Rx1 Gy3\n"


# --------------------------------------------------------------------------
# body_text: charsets and transfer encodings


@pytest.mark.parametrize("charset, body, expected", [
    ("utf-8", "Zo\u00eb \u2013 Rv1".encode("utf-8"), "Zoë – Rv1\n"),
    ("iso-8859-1", b"Zo\xeb Rv1", "Zoë Rv1\n"),
    ("ISO-8859-1", b"it\x92s Rv1", "it’s Rv1\n"),  # really windows-1252, as browsers read it
    ("latin1", b"\x81 Rv1", "\x81 Rv1\n"),  # not windows-1252 after all

    ("windows-1252", b"Zo\xeb \x96 it\x92s Rv1", "Zoë – it’s Rv1\n"),
    ("x-unknown-charset", b"Zo\xeb Rv1", "Zoë Rv1\n"),
    ("base64", b"Zo\xeb Rv1", "Zoë Rv1\n"),  # a codec, but not a text encoding
    ("rot13", b"Rv1", "Rv1\n"),
])
def test_charsets(charset, body, expected):
    raw = samples.raw_text(body + b"\r\n", f"text/plain; charset={charset}", "8bit")
    assert body_of(raw) == expected


def test_invalid_utf8_is_replaced_not_raised():
    raw = samples.raw_text(b"Rv1 \xff\r\n", "text/plain; charset=utf-8", "8bit")
    assert body_of(raw) == "Rv1 \ufffd\n"


@pytest.mark.parametrize("body, expected", [
    ("Zoë Rv1".encode(), "Zoë Rv1\n"),  # a careless client's undeclared UTF-8
    (b"Zo\xeb Rv1", "Zoë Rv1\n"),  # undeclared and not UTF-8: latin-1
])
def test_undeclared_charset(body, expected):
    assert body_of(samples.raw_text(body + b"\r\n", "text/plain", "8bit")) == expected


def test_quoted_printable_is_decoded():
    raw = samples.raw_text(b"KC Rv1-Rw3 ; Zo=C3=AB=20\r\nbRv1Rx1 G=\r\ny3 =3D\r\n", "text/plain; charset=utf-8",
                           "quoted-printable")
    assert body_of(raw) == "KC Rv1-Rw3 ; Zoë \nbRv1Rx1 Gy3 =\n"


def test_base64_is_decoded_and_crlf_normalised():
    encoded = base64.encodebytes("KC Rv1-Rw3\r\nsOz5 ; Zoë\r\n".encode()).replace(b"\n", b"\r\n")
    assert body_of(samples.raw_text(encoded, "text/plain; charset=utf-8", "base64")) == "KC Rv1-Rw3\nsOz5 ; Zoë\n"


def test_crlf_and_lone_cr_become_newlines():
    raw = samples.raw_text(b"Rv1\r\nRv2\rRv3\r\n", "text/plain; charset=us-ascii", "7bit")
    assert body_of(raw) == "Rv1\nRv2\nRv3\n"


# --------------------------------------------------------------------------
# body_text: format=flowed (RFC 3676)


@pytest.mark.parametrize("params, body, expected", [
    # DelSp=no: the soft break's space stays.
    ("format=flowed", "bRv1Rx1 Gy3 ; a \ncomment\nsOz5\n", "bRv1Rx1 Gy3 ; a comment\nsOz5\n"),
    # DelSp=yes: it goes, so a word can be split.
    ("format=flowed; delsp=yes", "; super \ncalifragi \nlistic\n", "; supercalifragilistic\n"),
    ("Format=Flowed; DelSp=Yes", "; a \nb\n", "; ab\n"),
    # Space-stuffing is removed (a line starting with a space, 'From ' or '>').
    ("format=flowed", "  kGy3\n From here\n", " kGy3\nFrom here\n"),
    # The signature separator is never flowed, and ends a paragraph before it.
    ("format=flowed", "sOz5 ; end \n-- \nAlice\n", "sOz5 ; end \n-- \nAlice\n"),
    # A change of quote depth ends a paragraph; quoted lines come back marked.
    ("format=flowed", "> quoted \n>> deeper \n>> still\nmine\n", "> quoted \n>> deeper still\nmine\n"),
    # A flowed last line stays as it is.
    ("format=flowed", "sOz5 ", "sOz5 "),
    # Without format=flowed nothing is joined.
    ("charset=utf-8", "sOz5 \nRv1\n", "sOz5 \nRv1\n"),
])
def test_format_flowed(params, body, expected):
    assert body_text(plain(body, f"text/plain; {params}")) == expected


# --------------------------------------------------------------------------
# body_text: HTML


def html(body: str, charset: str = "utf-8") -> str:
    return body_text(plain(body, f"text/html; charset={charset}", "8bit", charset))


@pytest.mark.parametrize("source, expected", [
    # Block elements and <br> break lines; whitespace collapses as in a browser.
    ("<div>bRv1Rx1\n   Gy3</div><div>sOz5</div>", "bRv1Rx1 Gy3\nsOz5\n"),
    ("<p>KC Rv1-Rw3</p><p>DS Gy3-Gy5</p>", "KC Rv1-Rw3\nDS Gy3-Gy5\n"),
    ("Rv1<br>Rv2<br/>Rv3", "Rv1\nRv2\nRv3\n"),
    ("<div>Rv1</div><div><br></div><div>Rv2</div>", "Rv1\n\nRv2\n"),
    ("<div>Rv1<br></div><div>Rv2</div>", "Rv1\nRv2\n"),
    ("<ul><li>Rv1</li><li>Rv2</li></ul><h1>T</h1><table><tr><td>a</td><td>b</td></tr></table>",
     "Rv1\nRv2\nT\na b\n"),
    ("<b>bRv1Rx1</b> <i>Gy3</i>", "bRv1Rx1 Gy3\n"),
    # Entities are decoded; &nbsp; is a space and a line of it is blank.
    ("<p>; a &lt;b&gt; &amp; &eacute; &#8211; &#x2019;</p><p>&nbsp;</p><p>x&nbsp;&nbsp;y&nbsp;</p>",
     "; a <b> & é – ’\n\nx  y\n"),
    # Script, style, head and comments are dropped.
    ("<head><title>T</title><style>p {x}</style></head><script>var a = '<p>';</script><!-- c --><p>Rv1</p>",
     "Rv1\n"),
    # Blockquotes are marked as quoted, one > per level.
    ("mine<blockquote>theirs<br><br>more<blockquote>older</blockquote></blockquote>mine again",
     "mine\n> theirs\n>\n> more\n>> older\nmine again\n"),
    # <pre> keeps its spaces and line breaks (but not the first one).
    ("<pre>\nKC Rv1-Rw3\n  DS  Gy3-Gy5\tMD</pre>", "KC Rv1-Rw3\n  DS  Gy3-Gy5\tMD\n"),
    # <hr> is a line of underscores, as Outlook writes it in plain text.
    ("Rv1<hr>Rv2", "Rv1\n________________________________\nRv2\n"),
    # Case is kept; leading and trailing blank lines go.
    ("<br><br><div>bRv1Rx1 gY3</div><br><br>", "bRv1Rx1 gY3\n"),
    ("", ""),
    # Malformed HTML still gives text.
    ("<div><p>Rv1<div>Rv2</blockquote></blockquote>Rv3", "Rv1\nRv2\nRv3\n"),
    ("<![if !supportLists]>Rv1<![endif]><!DOCTYPE x><?xml x?>", "Rv1\n"),
    # html.parser raises AssertionError on "<![ x [": the declaration is dropped and parsing retried.
    ("<p>Rv1</p><![ x [<p>Rv2</p>", "Rv1\nRv2\n"),
])
def test_html_to_text(source, expected):
    assert html(source) == expected


def test_html_in_windows_1252():
    assert html("<p>Zoë – it’s Rv1</p>", "windows-1252") == "Zoë – it’s Rv1\n"


# --------------------------------------------------------------------------
# new_lines


def test_quoted_lines_are_dropped_at_any_depth_with_or_without_a_space():
    text = "> a\n>b\n>> c\n>>d\n> > e\n>\nRv1\n"
    assert new_lines(text) == "Rv1"


def test_a_line_starting_with_a_space_then_gt_is_not_a_quote():
    assert new_lines(" > Rv1\n") == " > Rv1"


def test_blank_lines_and_comment_lines_are_kept_but_not_at_the_ends():
    text = "\n\n; my orders\nbRv1Rx1 Gy3\n\n\nsOz5 ; scan\n\n\n"
    assert new_lines(text) == "; my orders\nbRv1Rx1 Gy3\n\n\nsOz5 ; scan"


def test_case_and_spacing_are_kept():
    assert new_lines("  bRv1Rx1   gY3 ,mRv2\t\n") == "  bRv1Rx1   gY3 ,mRv2\t"


def test_crlf_input():
    assert new_lines("Rv1\r\n> q\r\nRv2\r\n") == "Rv1\nRv2"


def test_everything_from_the_signature_separator_on_is_dropped():
    assert new_lines("Rv1\nRv2\n-- \nAlice\nRv3\n") == "Rv1\nRv2"


def test_the_first_dash_dash_space_separator_counts():
    assert new_lines("Rv1\n-- \nAlice\n-- \nmore\n") == "Rv1"


def test_dash_dash_without_the_space_counts_only_as_the_last_such_line():
    assert new_lines("Rv1\n--\nRv2\n--\nAlice\n") == "Rv1\n--\nRv2"
    assert new_lines("Rv1\n--\nAlice\n") == "Rv1"


def test_dash_dash_space_wins_over_an_earlier_dash_dash():
    assert new_lines("Rv1\n--\nRv2\n-- \nAlice\n--\nx\n") == "Rv1\n--\nRv2"


def test_a_quoted_signature_separator_is_not_the_players():
    assert new_lines("> -- \n> GM\nRv1\n>--\nRv2\n") == "Rv1\nRv2"


def test_dash_dash_after_a_cut_does_not_count():
    text = "Rv1\n--\nAlice\n-----Original Message-----\nFrom: GM\n--\nGM\n"
    assert new_lines(text) == "Rv1"


@pytest.mark.parametrize("attribution", [
    "On Tue, 3 Nov 2026 at 10:02, GM <gm@example.org> wrote:",
    "On 03/11/2026 10:02, GM for Spaceships wrote:",
    "On 3 Nov 2026, at 10:02, GM <gm@example.org> wrote:",
    "On Tuesday, 3 November 2026, 10:02:00 GMT, GM <gm@example.org> wrote:",
    "Le mar. 3 nov. 2026 à 10:02, GM <gm@example.org> a écrit :",
    "Le 03/11/2026 à 10:02, GM a écrit\u00a0:",
    "Am Di., 3. Nov. 2026 um 10:02 Uhr schrieb GM <gm@example.org>:",
    "Am 03.11.2026 um 10:02 schrieb GM:",
    "El mar, 3 nov 2026 a las 10:02, GM (<gm@example.org>) escribió:",
    "Il giorno mar 3 nov 2026 alle ore 10:02 GM <gm@example.org> ha scritto:",
    "Op di 3 nov. 2026 om 10:02 schreef GM <gm@example.org>:",
    "Den tis 3 nov. 2026 kl 10:02 skrev GM <gm@example.org>:",
    "Em ter., 3 de nov. de 2026 às 10:02, GM <gm@example.org> escreveu:",
])
def test_attribution_lines_are_dropped(attribution):
    assert new_lines(f"bRv1Rx1 Gy3\n\n{attribution}\n> turn sheet\n") == "bRv1Rx1 Gy3"
    assert new_lines(f"{attribution}\n> turn sheet\n\nbRv1Rx1 Gy3\n") == "bRv1Rx1 Gy3"


@pytest.mark.parametrize("first, second", [
    ("On Tue, 3 Nov 2026 at 10:02, GM for Spaceships <gm@example.org>", "wrote:"),
    ("On Tue, 3 Nov 2026 at 10:02, GM for Spaceships", "<gm@example.org> wrote:"),
    ("Le mar. 3 nov. 2026 à 10:02, GM for Spaceships <gm@example.org> a", "écrit :"),
    ("Am Di., 3. Nov. 2026 um 10:02 Uhr schrieb GM for Spaceships <", "gm@example.org>:"),
])
def test_an_attribution_wrapped_over_two_lines_is_dropped(first, second):
    assert new_lines(f"sOz5\n\n{first}\n{second}\n\n> turn sheet\n") == "sOz5"


def test_an_attribution_without_a_following_quote_is_still_dropped():
    assert new_lines("sOz5\nOn Tue, 3 Nov 2026 at 10:02, GM <gm@example.org> wrote:\n") == "sOz5"


@pytest.mark.parametrize("marker", [
    "-----Original Message-----",
    "----- Original Message -----",
    "-----Ursprüngliche Nachricht-----",
    "-----Message d'origine-----",
    "---------- Forwarded message ---------",
    "-------- Forwarded Message --------",
    "Begin forwarded message:",
    "---------- Weitergeleitete Nachricht ----------",
])
def test_everything_from_an_original_or_forwarded_message_marker_is_dropped(marker):
    text = f"KC Rv1-Rw3\n\n{marker}\nFrom: GM <gm@example.org>\nSent: Tuesday\n\n[gm 12] Setup\n  KC Rv1-Rw3\n"
    assert new_lines(text) == "KC Rv1-Rw3"


def test_underscores_then_from_cut_the_rest():
    text = (
        "sOz5\n\n________________________________\n"
        "From: GM <gm@example.org>\nSent: Tuesday, November 3, 2026 10:02\nTo: Alice\n"
        "Subject: [gm 12] Turn 3\n\nYour fleet\n  DS Rv1-Ow2\n"
    )
    assert new_lines(text) == "sOz5"


def test_underscores_without_a_from_line_are_kept():
    assert new_lines("Rv1\n________________________________\nRv2\n") == "Rv1\n________________________________\nRv2"


@pytest.mark.parametrize("block", [
    "From: GM <gm@example.org>\nSent: Tuesday, November 3, 2026 10:02 AM\nTo: Alice\nSubject: [gm 12] Turn 3",
    "Von: GM <gm@example.org>\nGesendet: Dienstag, 3. November 2026 10:02\nAn: Alice\nBetreff: [gm 12] Zug 3",
    "De : GM <gm@example.org>\nEnvoyé : mardi 3 novembre 2026 10:02\nÀ : Alice\nObjet : [gm 12] Tour 3",
])
def test_a_bare_outlook_header_block_cuts_the_rest(block):
    assert new_lines(f"sOz5\n\n{block}\n\nYour fleet\n  DS Rv1-Ow2\n") == "sOz5"


def test_a_lone_from_line_is_not_a_header_block():
    assert new_lines("From: here on\nRv1\n") == "From: here on\nRv1"


def test_a_quoted_original_message_marker_does_not_cut_the_players_later_lines():
    text = "> -----Original Message-----\n> From: GM\n> Sent: x\n> To: y\nRv1\n> ____________\nRv2\n"
    assert new_lines(text) == "Rv1\nRv2"


@pytest.mark.parametrize("phone", [
    "Sent from my iPhone", "Sent from my Galaxy", "Get Outlook for Android", "Von meinem iPhone gesendet",
    "Envoyé de mon iPad",
])
def test_a_closing_sent_from_my_phone_line_is_dropped(phone):
    assert new_lines(f"sOz5\n\n{phone}\n\n> On x wrote:\n> y\n") == "sOz5"


def test_a_sent_from_line_that_is_not_last_is_kept():
    assert new_lines("Sent from my iPhone\nsOz5\n") == "Sent from my iPhone\nsOz5"


def test_empty_and_all_quoted_texts_give_the_empty_string():
    assert new_lines("") == ""
    assert new_lines("> a\n> b\n") == ""
    assert new_lines("\n\n\n") == ""


# --------------------------------------------------------------------------
# player_text: the clients, end to end


@pytest.mark.parametrize("sample, expected", [
    (samples.thunderbird_flowed,
     "bRv1Rx1 Gy3, mRv2 Bz5 ; the beam goes first because the missile needs the cruiser out of the way, "
     "and Zoë agrees\n"
     "  kGy3\n"
     "sOz5"),
    (samples.flowed_delsp,
     "KC Rv1-Rw3 ; the cruiser sits along the red edge where nothing can reach it\n"
     "DS Gy3-Gy5 ; supercalifragilistic"),
    (samples.gmail_alternative,
     "bRv1Rx1 Gy3, mRv2 Bz5 ; déjà vu\n"
     "sOz5 ; this comment is long enough that quoted-printable has to break it with a soft line break, and 2+2=4"),
    (lambda: samples.gmail_alternative(with_plain=False),
     "bRv1Rx1 Gy3, mRv2 Bz5 ; déjà vu\n"
     "sOz5 ; this comment is long enough that quoted-printable has to break it with a soft line break, and 2+2=4"),
    (samples.outlook_html_only,
     "KC Rv1-Rw3\n"
     "DS Gy3-Gy5 ; the death star goes behind\n"
     "\n"
     "; Zoë – setup as agreed, it’s <fine> & done"),
    (samples.apple_mail_base64,
     "KC Rv1-Rw3\n"
     "DS Gy3-Gy5 ; Zoë’s fleet 🚀 stays put"),
    (samples.top_posted_plain,
     "bRv1Rx1 Gy3, mRv2 Bz5 ; comment\n"
     "sOz5"),
    (samples.interleaved_plain,
     "bRv1Rx1 Gy3, mRv2 Bz5 ; first the beam\n"
     "\n"
     "\n"
     "sOz5\n"
     "; that's all -- really"),
    (samples.attachment_first, "bRv1Rx1 Gy3\nsOz5"),
    (samples.mailing_list_copy, "bRv1Rx1 Gy3"),
])
def test_player_text(sample, expected):
    assert player_text(parse_message(sample())) == expected


# --------------------------------------------------------------------------
# clean_subject


@pytest.mark.parametrize("subject, expected", [
    ("[gm 12] Turn 3", "[gm 12] Turn 3"),
    ("Re: [gm 12] Turn 3", "[gm 12] Turn 3"),
    ("Re: Fwd: RE: [gm 12] Turn 3", "[gm 12] Turn 3"),
    ("RE:RE:re: [gm 12] Turn 3", "[gm 12] Turn 3"),
    ("Fw: FWD: AW: WG: SV: Antw: [gm 12] Turn 3", "[gm 12] Turn 3"),
    ("Re[2]: Re(3): [gm 12] Turn 3", "[gm 12] Turn 3"),
    ("AW: [gm 12] AW: Re: Turn 3", "[gm 12] Turn 3"),
    ("[Spaceships] Re: [gm 12] Turn 3", "[Spaceships] [gm 12] Turn 3"),
    ("  Re:   [gm 12]   Turn 3  ", "[gm 12] Turn 3"),
    ("Re: Turn 3 Re: again", "Turn 3 Re: again"),
    ("Return of the fleet", "Return of the fleet"),
    ("Rev: [gm 12]", "Rev: [gm 12]"),
    ("Re: [gm 12]", "[gm 12]"),
    ("Re:", ""),
    ("", ""),
    ("=?utf-8?q?Re=3A_=5Bgm_12=5D_Tour_3_pour_Zo=C3=AB?=", "[gm 12] Tour 3 pour Zoë"),
    ("=?UTF-8?B?QVc6IFtnbSAxMl0gWnVnIDM=?=", "[gm 12] Zug 3"),
    ("Re: =?iso-8859-1?q?=5Bgm_12=5D?= =?iso-8859-1?q?_Zo=EB?=", "[gm 12] Zoë"),
    ("Re: [gm 12]\r\n Turn 3", "[gm 12] Turn 3"),
    # An unknown charset in an encoded word: email still decodes it (as ASCII).
    ("=?bogus?q?x?= Re: y", "x Re: y"),
])
def test_clean_subject(subject, expected):
    assert clean_subject(subject) == expected


def test_clean_subject_of_a_parsed_header_and_of_none():
    message = parse_message(samples.outlook_html_only())
    assert clean_subject(message["Subject"]) == "[gm 12] Setup for Zoë"
    assert clean_subject(None) == ""


# --------------------------------------------------------------------------
# addresses


def with_headers(headers: str) -> EmailMessage:
    return parse_message(samples.crlf(headers + "\n\nbody\n"))


@pytest.mark.parametrize("header, expected", [
    ("From: Alice Example <alice@example.net>", ["alice@example.net"]),
    ("From: alice@example.net (Alice)", ["alice@example.net"]),
    ("From: Alice <Alice.Example@EXAMPLE.Net>", ["Alice.Example@example.net"]),
    ('From: "Example, Alice" <alice@example.net>, bob@example.org', ["alice@example.net", "bob@example.org"]),
    ('From: "alice smith"@example.net', ['"alice smith"@example.net']),
    ("From: players: alice@example.net, bob@example.org;", ["alice@example.net", "bob@example.org"]),
    ("From: undisclosed-recipients:;", []),
    # An encoded display name cannot smuggle in an address.
    ("From: =?utf-8?q?gm=40example.org=2C?= <mallory@example.com>", ["mallory@example.com"]),
    ("From: =?utf-8?q?Zo=C3=AB?= <zoe@example.net>", ["zoe@example.net"]),
    ("From: MAILER-DAEMON (Mail Delivery System)", []),
    ("From: Dr. Alice <alice@example.net>", ["alice@example.net"]),  # obsolete syntax is fine
    ('From: "=?utf-8?q?Zo=C3=AB?=" <zoe@example.net>', ["zoe@example.net"]),  # sloppy encoding is fine
    ("From: Zoë <zoë@Exämple.net>", ["zoë@exämple.net"]),  # raw UTF-8 (RFC 6532)
    # Ambiguous: email would read gm@example.org, a mail client mallory@example.com.
    ("From: gm@example.org <mallory@example.com>", []),
    ("From: Alice <alice@example.net> junk", []),
    ("From: Alice Smith alice@example.net", []),
    ("From: Alice [work] <alice@example.net>", []),
    ("From: <<<@@@>>>", []),
    ("From: ,,,;;;", []),
    ("From:", []),
])
def test_addresses_from(header, expected):
    assert addresses(with_headers(header), "From") == expected


def test_addresses_of_every_field_of_a_header_and_of_other_headers():
    message = with_headers(
        "To: a@example.net\nTo: B <b@EXAMPLE.net>\nReturn-Path: <bounce+x@Example.org>\nDelivered-To: gm@example.org"
    )
    assert addresses(message, "To") == ["a@example.net", "b@example.net"]
    assert addresses(message, "to") == ["a@example.net", "b@example.net"]
    assert addresses(message, "Return-Path") == ["bounce+x@example.org"]
    assert addresses(message, "Delivered-To") == ["gm@example.org"]
    assert addresses(message, "Cc") == []


def test_addresses_of_a_null_return_path_is_empty():
    assert addresses(with_headers("Return-Path: <>"), "Return-Path") == []


def test_addresses_never_raises():
    class Broken(EmailMessage):
        def get_all(self, name, failobj=None):
            raise ValueError("broken header")

    assert addresses(Broken(), "From") == []


# --------------------------------------------------------------------------
# Properties


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(raw):
    message = parse_message(raw)
    assert isinstance(player_text(message), str)
    assert isinstance(addresses(message, "From"), list)
    assert isinstance(clean_subject(message.get("Subject")), str)


_HEADER_LINES = st.sampled_from([
    b"Content-Type: multipart/mixed; boundary=b",
    b"Content-Type: multipart/alternative; boundary=\"b\"",
    b"Content-Type: multipart/report; report-type=delivery-status; boundary=b",
    b"Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
    b"Content-Type: text/plain; charset=x-bogus",
    b"Content-Type: text/plain; charset=base64",
    b"Content-Type: text/plain; charset*=utf-8''%E9",
    b"Content-Type: text/html; charset=windows-1252",
    b"Content-Type: message/rfc822",
    b"Content-Type: ",
    b"Content-Transfer-Encoding: base64",
    b"Content-Transfer-Encoding: quoted-printable",
    b"Content-Transfer-Encoding: x-uuencode",
    b"Content-Disposition: attachment; filename=\"x.txt",
    b"From: =?utf-8?q?=ZZ?= <a@",
    b"From: \"unterminated <a@example.net>",
    b"Subject: =?utf-8?b?!!!?= Re: [x]",
    b"Auto-Submitted: (",
    b"--b",
    b"--b--",
    b"",
])


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_HEADER_LINES, st.binary(max_size=40)), max_size=25))
def test_mime_shaped_garbage_never_raises(lines):
    message = parse_message(b"\r\n".join(lines))
    assert isinstance(player_text(message), str)
    assert isinstance(addresses(message, "From"), list)


_CELL = st.builds(lambda c, le, n: c + le + n, st.sampled_from("ROYGB"), st.sampled_from("vwxyz"),
                  st.sampled_from("12345"))
_ORDER = st.one_of(
    _CELL,
    st.builds(lambda a, b: f"b{a}{b}", _CELL, _CELL),
    st.builds(lambda a: f"m{a}", _CELL),
    st.just("m2"),
    st.builds(lambda a: f"k{a}", _CELL),
    st.builds(lambda a: f"s{a}", _CELL),
)
_COMMENT = st.text(
    st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30
).map(lambda s: "; " + s)
_SETUP = st.builds(lambda t, a, b: f"{t} {a}-{b}", st.sampled_from(["DS", "KC", "FS2", "MD"]), _CELL, _CELL)
_ORDER_LINE = st.builds(
    lambda indent, orders, seps, comment: indent + "".join(o + s for o, s in zip(orders, seps)).rstrip(", ")
    + comment,
    st.sampled_from(["", "  "]),
    st.lists(_ORDER, min_size=1, max_size=5),
    st.lists(st.sampled_from([" ", ", ", ",", "  "]), min_size=5, max_size=5),
    st.one_of(st.just(""), _COMMENT.map(lambda c: " " + c)),
)
_LINE = st.one_of(_ORDER_LINE, _SETUP, _COMMENT)
_ORDER_TEXT = st.builds(
    lambda first, middle, last: "\n".join([first, *middle, last]),
    _LINE,
    st.lists(st.one_of(_LINE, st.just("")), max_size=8),
    _LINE,
)


def _message_with_body(body: bytes, cte: str) -> bytes:
    return samples.crlf(
        "From: Alice <alice@example.net>\nTo: gm@example.org\nSubject: Re: [gm 12] Turn 3\n"
        f"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: {cte}\n\n"
    ) + body


@settings(max_examples=200)
@given(_ORDER_TEXT, st.sampled_from(["8bit", "quoted-printable", "base64"]), st.booleans())
def test_order_text_comes_back_exactly(text, cte, trailing_newline):
    canonical = samples.crlf(text + ("\n" if trailing_newline else ""))
    if cte == "8bit":
        body = canonical
    elif cte == "quoted-printable":
        body = quopri.encodestring(canonical.replace(b"\r\n", b"\n")).replace(b"\n", b"\r\n")
    else:
        body = base64.encodebytes(canonical).replace(b"\n", b"\r\n")
    assert player_text(parse_message(_message_with_body(body, cte))) == text


@settings(max_examples=100)
@given(_ORDER_TEXT, st.sampled_from(["8bit", "quoted-printable", "base64"]))
def test_order_text_built_by_email_comes_back_exactly(text, cte):
    message = EmailMessage()
    message["From"] = "Alice <alice@example.net>"
    message["Subject"] = "Re: [gm 12] Turn 3"
    message.set_content(text, charset="utf-8", cte=cte)
    assert player_text(parse_message(message.as_bytes(policy=email.policy.SMTP))) == text


# --------------------------------------------------------------------------
# Hostile mail: bounded work, defensive headers (issue 8, section 6)

_BOMB_READER = r"""
import resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, 512 * 2**20))
from gm.mail.reading import body_text, parse_message, player_text
raw = sys.stdin.buffer.read()
start = time.process_time()  # the reader's own CPU seconds: a loaded machine does not inflate them
message = parse_message(raw)
body = body_text(message)
text = player_text(message)
print(len(raw), len(body), len(text), body.count("\n"), round(time.process_time() - start, 2))
"""


def html_bomb(nesting: int) -> bytes:
    """A stranger's text/html mail of ``nesting`` nested blockquotes, each with a word."""
    html = "<html><body>" + "<blockquote>Rv1\n" * nesting + "</body></html>\n"
    return samples.crlf("From: stranger@evil.example\nTo: gm@example.org\nSubject: hi\nMIME-Version: 1.0\n"
                        "Content-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n") + html.encode()


def test_an_html_bomb_of_nested_blockquotes_is_read_in_bounded_memory_and_time():
    import subprocess
    import sys
    from pathlib import Path

    raw = html_bomb(58_000)
    assert 900_000 < len(raw) < 1_000_000  # what the SMTP listener takes
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-P", "-c", _BOMB_READER], input=raw, capture_output=True, timeout=60,
                          cwd=root, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    _size, body, text, lines, seconds = done.stdout.split()
    assert int(body) <= 1_000_000 and int(lines) <= 20_000
    assert int(text) == 0  # every line is quoted
    assert float(seconds) < 10


@pytest.mark.parametrize("unit", ["<a", "<a ", '<a b="', "<!--", "</a", "<b>", "<"])
def test_html_that_html_parser_rescans_is_read_in_linear_time(unit):
    """html.parser rescans the rest from each '<' it cannot finish: 100 KB of '<a' took a minute."""
    import subprocess
    import sys
    from pathlib import Path

    html = unit * (300_000 // len(unit))
    raw = samples.crlf("From: stranger@evil.example\nSubject: hi\nContent-Type: text/html\n\n") + html.encode()
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-P", "-c", _BOMB_READER], input=raw, capture_output=True, timeout=20,
                          cwd=root, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert float(done.stdout.split()[-1]) < 5


def test_a_lone_lt_in_html_text_is_text():
    from gm.mail.reading import html_to_text

    assert html_to_text("<p>a<b and c<d</p><p>x < y <i>z</i></p><!-- <b> -->") == "a<b and c<d\nx < y z\n"


def test_html_quote_marks_are_capped_but_still_mark_the_line_as_quoted():
    from gm.mail.reading import html_to_text

    text = html_to_text("<p>Rv1</p>" + "<blockquote>q" * 100 + "</blockquote>" * 100 + "<p>Rw2</p>")
    lines = text.splitlines()
    assert lines[0] == "Rv1" and lines[-1] == "Rw2"
    assert all(line.startswith(">") and len(line) < 40 for line in lines[1:-1])
    assert new_lines(text) == "Rv1\nRw2"


def test_the_text_of_a_huge_plain_part_is_capped():
    raw = samples.crlf("From: a@example.net\nSubject: x\n\n") + b"Rv1\r\n" + b"x" * 1_500_000 + b"\r\n"
    body = body_of(raw)
    assert body.startswith("Rv1\n") and len(body) <= 1_000_000


_EVIL_ID = "=?utf-8?q?<a=0D=0ABcc:_victim@evil.example>?="


def message_with(headers: bytes) -> EmailMessage:
    return parse_message(b"From: alice@example.net\r\n" + headers + b"\r\nSubject: x\r\n\r\nRv1\r\n")


@pytest.mark.parametrize("header, expected", [
    (b"<abc.123@example.net>", "<abc.123@example.net>"),
    (b"  <abc.123@example.net>  (a comment)", "<abc.123@example.net>"),
    (b"\r\n <folded@example.net>", "<folded@example.net>"),
    (b"<x@[192.0.2.1]>", "<x@[192.0.2.1]>"),
    (b"abc@example.net", "<abc@example.net>"),  # angle brackets forgotten
    (_EVIL_ID.encode(), None),  # an encoded word hiding CR LF and a Bcc header
    (b"<a b c@example.net>", None),
    (b'<"quoted local"@example.net>', None),
    (b"<" + b"a" * 5000 + b"@example.net>", None),
    (b"=?bogus?Q?zz", None),
    (b"<\xff\xfe@example.net>", None),
    (b"<caf\xc3\xa9@example.net>", None),
    (b"<no-at-sign>", None),
    (b"<a@b@c>", None),
    (b"<a@b>\x00", None),
    (b"", None),
])
def test_message_id_of_gives_a_valid_msg_id_or_none(header, expected):
    from gm.mail.reading import message_id_of

    message = message_with(b"Message-ID: " + header)
    assert message_id_of(message) == expected


def test_message_id_of_a_mail_without_one_and_of_a_broken_message():
    from gm.mail.reading import message_id_of

    class Broken(EmailMessage):
        def get_all(self, name, failobj=None):
            raise ValueError("broken header")

        def raw_items(self):
            raise ValueError("broken header")

    assert message_id_of(message_with(b"X-Other: 1")) is None
    assert message_id_of(Broken()) is None
    assert message_id_of(message_with(b"Message-ID: <first@example.net>\r\nMessage-ID: <second@example.net>")) \
        == "<first@example.net>"


def test_a_message_id_gm_reads_can_go_into_the_gms_own_headers():
    """What the GM copies into In-Reply-To and References must be settable and stay one header."""
    from gm.mail.reading import message_id_of

    for header in (_EVIL_ID.encode(), b"<ok@example.net>", b"<a\r\n b@example.net>", b"<" + b"x" * 300 + b"@y>"):
        found = message_id_of(message_with(b"Message-ID: " + header))
        reply = EmailMessage(policy=email.policy.SMTP)
        reply["Subject"] = "ack"
        if found:
            reply["In-Reply-To"] = found
            reply["References"] = found
        out = reply.as_bytes()
        assert b"Bcc" not in out and out.count(b"\r\n") == (4 if found else 2)


@pytest.mark.parametrize("header, expected", [
    (b"X-Test: =?utf-8?q?Zo=C3=AB?= orders", "Zoë orders"),
    (b"X-Test: =?utf-8?q?a=0D=0ABcc:_x@evil.example?=", "a  Bcc: x@evil.example"),
    (b"X-Test: =?bogus?Q?zz", "=?bogus?Q?zz"),
    (b"X-Test: =?utf-8?b?!!!?= Re: x", None),  # whatever email makes of it, without raising
    (b"X-Test: caf\xc3\xa9 \xff orders", "café \ufffd orders"),
    (b"X-Test: " + b"x" * 5000, "x" * 998),
    (b"X-Test: a\r\n\tb", "a\tb"),
    (b"X-Other: 1", ""),
])
def test_header_text_is_one_line_of_printable_text(header, expected):
    from gm.mail.reading import header_text

    value = header_text(message_with(header), "X-Test")
    assert isinstance(value, str) and "\r" not in value and "\n" not in value
    assert not any(ord(c) < 32 and c != "\t" for c in value)
    if expected is not None:
        assert value == expected


def test_addresses_never_give_an_address_with_control_characters():
    message = parse_message(b'From: "a\x01b"@example.net\r\nTo: "x\x7fy"@example.org, <a\x0bb@example.org>\r\n'
                            b'Cc: "a\x00b"@example.net, ok@example.net\r\n\r\nx\r\n')
    assert addresses(message, "From") == []
    assert addresses(message, "To") == []
    assert addresses(message, "Cc") == ["ok@example.net"]


def test_an_upper_cased_plus_address_keeps_its_tag_for_routing():
    """Relays may upper-case a whole address; reading must not lose or change the tag."""
    message = with_headers("To: GM+G1.1.ABCDEFGHIJKLMNOP@EXAMPLE.ORG")
    assert addresses(message, "To") == ["GM+G1.1.ABCDEFGHIJKLMNOP@example.org"]
