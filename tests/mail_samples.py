"""Real-looking mail for the gm.mail tests, as real clients send it.

Every builder returns the raw bytes of one message (CRLF line ends, as it
arrives over SMTP), so the tests always go through `parse_message`. The
awkward cases are written out byte for byte, transfer encoding and all; the
simple ones are built with `email.message.EmailMessage` or `email.mime`.

The game: Alice <alice@example.net> plays game 12 against Zoë
<zoe@example.net>; the GM writes from gm@example.org.
"""

from __future__ import annotations

import base64
import email.policy
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

GM = "GM for Spaceships <gm@example.org>"
GM_ADDRESS = "gm@example.org"
ALICE = "Alice Example <alice@example.net>"

# The turn sheet the GM sent (what the players quote back).
TURN_SHEET = """\
[gm 12] Turn 3 for Alice

Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC.

Turn 2 results
  1> strike Gv2: hit
  2> scan Bv5: undamaged

Your fleet
  DS Rv1-Ow2
  KC Gv1-Gx2

Reply with your orders, one line per command, e.g.
  bRv1Rx1 Gy3, mRv2 Bz5 ; comment

--
GM for Spaceships <gm@example.org>
"""


def crlf(text: str, charset: str = "utf-8") -> bytes:
    """``text`` as bytes in ``charset`` with every line ending in CRLF."""
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode(charset)


def quoted(text: str, prefix: str = "> ") -> str:
    """``text`` with every line quoted, an empty line as a bare ``>``."""
    return "".join((prefix + line).rstrip(" ") + "\n" if line else ">\n" for line in text.splitlines())


def _headers(subject: str = "Re: [gm 12] Turn 3 for Alice", sender: str = ALICE, extra: str = "") -> str:
    return (
        f"From: {sender}\n"
        f"To: {GM}\n"
        f"Subject: {subject}\n"
        "Date: Tue, 3 Nov 2026 11:15:02 +0100\n"
        "Message-ID: <reply-1@example.net>\n"
        "In-Reply-To: <turn-3-alice@example.org>\n"
        f"{extra}"
    )


# --------------------------------------------------------------------------
# Clients


def thunderbird_flowed() -> bytes:
    """Thunderbird, plain text, format=flowed (DelSp=no), 8bit UTF-8, bottom-posted.

    The player's long comment is soft-wrapped (trailing space); an indented
    order is space-stuffed; the quoted turn sheet has a soft-wrapped line too.
    """
    return crlf(
        _headers(extra="User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Thunderbird/115.4.1\n")
        + "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Language: en-GB\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
        "On 03/11/2026 10:02, GM for Spaceships wrote:\n"
        "> [gm 12] Turn 3 for Alice\n"
        ">\n"
        "> Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC. Reply \n"
        "> with your orders, one line per command.\n"
        ">\n"
        ">    DS Rv1-Ow2\n"
        "> -- \n"
        "> GM for Spaceships <gm@example.org>\n"
        "\n"
        "bRv1Rx1 Gy3, mRv2 Bz5 ; the beam goes first because the missile needs \n"
        "the cruiser out of the way, and Zoë agrees\n"
        "   kGy3\n"
        "sOz5\n"
        "\n"
        "-- \n"
        "Alice\n"
    )


def flowed_delsp() -> bytes:
    """format=flowed with DelSp=yes: the space before each soft break goes."""
    return crlf(
        _headers(subject="Re: [gm 12] Setup", extra="User-Agent: K-9 Mail for Android\n")
        + "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=us-ascii; format=flowed; delsp=yes\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
        "KC Rv1-Rw3 ; the cruiser sits along the red edge where nothing can reach  \n"
        "it\n"
        "DS Gy3-Gy5 ; supercalifragi \n"
        "listic\n"
    )


_GMAIL_PLAIN_QP = """\
bRv1Rx1 Gy3, mRv2 Bz5 ; d=C3=A9j=C3=A0 vu
sOz5 ; this comment is long enough that quoted-printable has to break it wi=
th a soft line break, and 2+2=3D4

On Tue, 3 Nov 2026 at 10:02, GM for Spaceships <gm@example.org>
wrote:

> [gm 12] Turn 3 for Alice
>
> Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 UTC.
>
> Turn 2 results
>   1> strike Gv2: hit
>   2> scan Bv5: undamaged
>
> --
> GM for Spaceships <gm@example.org>
>
"""

_GMAIL_HTML_QP = """\
<div dir=3D"ltr"><div>bRv1Rx1 Gy3, mRv2 Bz5 ; d=C3=A9j=C3=A0 vu</div><div>s=
Oz5 ; this comment is long enough that quoted-printable has to break it wit=
h a soft line break, and 2+2=3D4</div></div><br><div class=3D"gmail_quote">=
<div dir=3D"ltr" class=3D"gmail_attr">On Tue, 3 Nov 2026 at 10:02, GM for S=
paceships &lt;<a href=3D"mailto:gm@example.org">gm@example.org</a>&gt; wrot=
e:<br></div><blockquote class=3D"gmail_quote" style=3D"margin:0px 0px 0px 0=
.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">[gm 12] Turn =
3 for Alice<br><br>Your orders for turn 3 are due by Thu 5 Nov 2026 10:00 U=
TC.<br><br>Turn 2 results<br>=C2=A0 1&gt; strike Gv2: hit<br><blockquote cl=
ass=3D"gmail_quote">nested</blockquote>-- <br>GM for Spaceships &lt;<a href=
=3D"mailto:gm@example.org">gm@example.org</a>&gt;<br></blockquote></div>
"""


def gmail_alternative(with_plain: bool = True) -> bytes:
    """Gmail web: multipart/alternative, quoted-printable UTF-8, top-posted.

    The plain part wraps the attribution over two lines as Gmail does; the
    HTML part has ``<div class="gmail_quote">`` and a blockquote. With
    ``with_plain=False`` only the HTML part is sent.
    """
    head = _headers() + "MIME-Version: 1.0\n"
    html_part = (
        'Content-Type: text/html; charset="UTF-8"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + _GMAIL_HTML_QP
    )
    if not with_plain:
        return crlf(head + html_part)
    return crlf(
        head + 'Content-Type: multipart/alternative; boundary="000000000000a1b2c3d4e5f60718"\n'
        "\n"
        "--000000000000a1b2c3d4e5f60718\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + _GMAIL_PLAIN_QP + "\n"
        "--000000000000a1b2c3d4e5f60718\n" + html_part + "\n"
        "--000000000000a1b2c3d4e5f60718--\n"
    )


_OUTLOOK_HTML_QP = """\
<html xmlns:v=3D"urn:schemas-microsoft-com:vml" xmlns:o=3D"urn:schemas-micr=
osoft-com:office:office" xmlns:w=3D"urn:schemas-microsoft-com:office:word" =
xmlns:m=3D"http://schemas.microsoft.com/office/2004/12/omml" xmlns=3D"http:=
//www.w3.org/TR/REC-html40"><head><meta http-equiv=3DContent-Type content=
=3D"text/html; charset=3Dwindows-1252"><meta name=3DGenerator content=3D"Mi=
crosoft Word 15 (filtered medium)"><style><!--
/* Font Definitions */
@font-face
	{font-family:"Cambria Math";}
p.MsoNormal, li.MsoNormal, div.MsoNormal
	{margin:0cm;
	font-size:11.0pt;}
--></style><!--[if gte mso 9]><xml>
<o:shapedefaults v:ext=3D"edit" spidmax=3D"1026" />
</xml><![endif]--></head><body lang=3DEN-GB link=3D"#0563C1" vlink=3D"#954F=
72" style=3D'word-wrap:break-word'><div class=3DWordSection1><p class=3DMso=
Normal>KC Rv1-Rw3<o:p></o:p></p><p class=3DMsoNormal><span lang=3DEN-GB>DS =
Gy3-Gy5 ; the death star=
 goes
behind<o:p></o:p></span></p><p class=3DMsoNormal><o:p>&nbsp;</o:p></p><p cl=
ass=3DMsoNormal>; Zo=EB =96 setup as agreed, it=92s &lt;fine&gt; &amp; done=
<o:p></o:p></p><p class=3DMsoNormal><o:p>&nbsp;</o:p></p><p class=3DMsoNorm=
al>-----Original Message-----<br>From: GM for Spaceships &lt;gm@example.org=
&gt; <br>Sent: Tuesday, November 3, 2026 10:02 AM<br>To: Zo=EB &lt;zoe@exam=
ple.net&gt;<br>Subject: [gm 12] Setup for Zo=EB<o:p></o:p></p><p class=3DMs=
oNormal><o:p>&nbsp;</o:p></p><p class=3DMsoNormal>Send your fleet, one ship=
 per line.<o:p></o:p></p><script>alert("x")</script></div></body></html>
"""


def outlook_html_only() -> bytes:
    """Outlook desktop: HTML only, windows-1252, quoted-printable, top-posted
    above ``-----Original Message-----``."""
    return crlf(
        "From: =?iso-8859-1?Q?Zo=EB?= <zoe@example.net>\n"
        f"To: {GM}\n"
        "Subject: RE: [gm 12] Setup for =?iso-8859-1?Q?Zo=EB?=\n"
        "Date: Tue, 3 Nov 2026 10:40:00 +0000\n"
        "Message-ID: <000001d9aaaa$bbbbbbbb$cccccccc@example.net>\n"
        "X-Mailer: Microsoft Outlook 16.0\n"
        "Thread-Index: AQHZ0000000000000000000000000==\n"
        "Content-Language: en-gb\n"
        "X-Auto-Response-Suppress: All\n"
        "MIME-Version: 1.0\n"
        'Content-Type: text/html; charset="windows-1252"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + _OUTLOOK_HTML_QP
    )


APPLE_MAIL_TEXT = """\
KC Rv1-Rw3
DS Gy3-Gy5 ; Zoë’s fleet 🚀 stays put

> On 3 Nov 2026, at 10:02, GM for Spaceships <gm@example.org> wrote:
>\u0020
> [gm 12] Setup for Zoë
>\u0020
> Send your fleet, one ship per line.
"""


def apple_mail_base64() -> bytes:
    """Apple Mail: plain text, UTF-8, base64, top-posted above a quoted attribution."""
    body = base64.encodebytes(crlf(APPLE_MAIL_TEXT)).decode("ascii")
    return crlf(
        "From: =?utf-8?Q?Zo=C3=AB?= <zoe@example.net>\n"
        "Content-Type: text/plain;\n"
        "\tcharset=utf-8\n"
        "Content-Transfer-Encoding: base64\n"
        "Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3731.500.231\\))\n"
        "Subject: =?utf-8?Q?Re=3A_=5Bgm_12=5D_Setup_for_Zo=C3=AB?=\n"
        "Date: Tue, 3 Nov 2026 10:42:00 +0100\n"
        "Message-Id: <5A0B1C2D-3E4F-5061-7283-94A5B6C7D8E9@example.net>\n"
        f"To: {GM}\n"
        "X-Mailer: Apple Mail (2.3731.500.231)\n"
        "\n" + body
    )


def top_posted_plain() -> bytes:
    """A plain 7bit top-post above the whole quoted turn sheet, with a signature."""
    return crlf(
        _headers()
        + "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n"
        "bRv1Rx1 Gy3, mRv2 Bz5 ; comment\n"
        "sOz5\n"
        "\n"
        "-- \n"
        "Alice\n"
        "\n"
        "On Tue, 3 Nov 2026 at 10:02, GM for Spaceships <gm@example.org> wrote:\n"
        "\n" + quoted(TURN_SHEET)
    )


def interleaved_plain() -> bytes:
    """Orders written between the quoted blocks of the whole turn sheet,
    signed with ``--`` (the client ate the space)."""
    sheet = TURN_SHEET.split("\n")
    return crlf(
        _headers()
        + "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n"
        "On 03/11/2026 10:02, GM for Spaceships wrote:\n"
        + quoted("\n".join(sheet[0:8]))
        + "\n"
        "bRv1Rx1 Gy3, mRv2 Bz5 ; first the beam\n"
        "\n"
        + quoted("\n".join(sheet[8:15]))
        + "\n"
        "sOz5\n"
        "; that's all -- really\n"
        "\n"
        + quoted("\n".join(sheet[15:17]))
        + "\n"
        "--\n"
        "Alice\n"
    )


def attachment_first() -> bytes:
    """multipart/mixed whose first part is a text/plain *attachment*, then the body."""
    outer = MIMEMultipart("mixed")
    outer["From"] = ALICE
    outer["To"] = GM
    outer["Subject"] = "Re: [gm 12] Turn 3 for Alice"
    attached = MIMEText("DS Rv1-Ow2\nKC Gv1-Gx2\n", "plain", "utf-8")
    attached.add_header("Content-Disposition", "attachment", filename="my-fleet.txt")
    outer.attach(attached)
    alternative = MIMEMultipart("alternative")
    alternative.attach(MIMEText("bRv1Rx1 Gy3\nsOz5\n", "plain", "utf-8"))
    alternative.attach(MIMEText("<div>not this</div>", "html", "utf-8"))
    outer.attach(alternative)
    return outer.as_bytes(policy=email.policy.SMTP)


def html_attachment_then_html_body() -> bytes:
    """No text/plain at all: an HTML attachment, then the HTML body."""
    outer = MIMEMultipart("mixed")
    outer["From"] = ALICE
    outer["To"] = GM
    outer["Subject"] = "Re: [gm 12] Turn 3 for Alice"
    attached = MIMEText("<p>Rv1</p>", "html", "utf-8")
    attached.add_header("Content-Disposition", "attachment", filename="board.html")
    outer.attach(attached)
    outer.attach(MIMEText("<p>sOz5</p><p>Gy3</p>", "html", "utf-8"))
    return outer.as_bytes(policy=email.policy.SMTP)


def forwarded_as_attachment() -> bytes:
    """Only an attached message (message/rfc822) holds text/plain: it is not the player's."""
    inner = EmailMessage()
    inner["From"] = GM
    inner["Subject"] = "[gm 12] Turn 3 for Alice"
    inner.set_content(TURN_SHEET)
    outer = EmailMessage()
    outer["From"] = ALICE
    outer["To"] = GM
    outer["Subject"] = "Fwd: [gm 12] Turn 3 for Alice"
    outer.set_content("<p>see attached</p>", subtype="html")
    outer.add_attachment(inner)
    return outer.as_bytes(policy=email.policy.SMTP)


def bounce() -> bytes:
    """A Postfix delivery status notification (multipart/report) from MAILER-DAEMON."""
    return crlf(
        "Return-Path: <>\n"
        "Received: by mail.example.org (Postfix) id 4ABC; Tue,  3 Nov 2026 10:02:05 +0000 (UTC)\n"
        "Date: Tue,  3 Nov 2026 10:02:05 +0000 (UTC)\n"
        "From: MAILER-DAEMON@mail.example.org (Mail Delivery System)\n"
        "Subject: Undelivered Mail Returned to Sender\n"
        "To: gm@example.org\n"
        "Auto-Submitted: auto-replied\n"
        "MIME-Version: 1.0\n"
        "Content-Type: multipart/report; report-type=delivery-status;\n"
        '\tboundary="4ABC.1793700125/mail.example.org"\n'
        "Message-Id: <20261103100205.4ABC@mail.example.org>\n"
        "\n"
        "This is a MIME-encapsulated message.\n"
        "\n"
        "--4ABC.1793700125/mail.example.org\n"
        "Content-Description: Notification\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "\n"
        "This is the mail system at host mail.example.org.\n"
        "\n"
        "<alice@example.net>: host mx.example.net said: 550 5.1.1 User unknown\n"
        "\n"
        "--4ABC.1793700125/mail.example.org\n"
        "Content-Description: Delivery report\n"
        "Content-Type: message/delivery-status\n"
        "\n"
        "Reporting-MTA: dns; mail.example.org\n"
        "\n"
        "Final-Recipient: rfc822; alice@example.net\n"
        "Action: failed\n"
        "Status: 5.1.1\n"
        "\n"
        "--4ABC.1793700125/mail.example.org\n"
        "Content-Description: Undelivered Message\n"
        "Content-Type: message/rfc822\n"
        "\n"
        f"From: {GM}\n"
        "To: alice@example.net\n"
        "Subject: [gm 12] Turn 3 for Alice\n"
        "X-GM-Game: 12\n"
        "\n" + TURN_SHEET + "\n"
        "--4ABC.1793700125/mail.example.org--\n"
    )


def vacation_reply() -> bytes:
    """A Sieve vacation auto-reply (RFC 5230)."""
    return crlf(
        "From: Alice Example <alice@example.net>\n"
        f"To: {GM}\n"
        "Subject: Auto: [gm 12] Turn 3 for Alice\n"
        "Date: Tue, 3 Nov 2026 10:02:30 +0100\n"
        "Auto-Submitted: auto-replied (vacation)\n"
        "In-Reply-To: <turn-3-alice@example.org>\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "I am away until 10 November.\n"
    )


def mailing_list_copy() -> bytes:
    """A person's mail as a Mailman list delivers it."""
    return crlf(
        "From: Alice Example <alice@example.net>\n"
        "To: spaceships@lists.example.org\n"
        "Subject: [Spaceships] Re: [gm 12] Turn 3 for Alice\n"
        "Date: Tue, 3 Nov 2026 11:00:00 +0100\n"
        "Precedence: list\n"
        "List-Id: Spaceships players <spaceships.lists.example.org>\n"
        "List-Unsubscribe: <https://lists.example.org/mailman/options/spaceships>,\n"
        " <mailto:spaceships-request@lists.example.org?subject=unsubscribe>\n"
        "List-Post: <mailto:spaceships@lists.example.org>\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=utf-8\n"
        "\n"
        "bRv1Rx1 Gy3\n"
    )


def person(body: str = "bRv1Rx1 Gy3\n", sender: str = ALICE, headers: dict[str, str] | None = None,
           subtype: str = "plain") -> bytes:
    """An ordinary message from a person, with ``headers`` added."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = GM
    message["Subject"] = "Re: [gm 12] Turn 3 for Alice"
    message["Date"] = "Tue, 3 Nov 2026 11:15:02 +0100"
    message["Message-ID"] = "<reply-2@example.net>"
    for name, value in (headers or {}).items():
        message[name] = value
    message.set_content(body, subtype=subtype)
    return message.as_bytes(policy=email.policy.SMTP)


def raw_text(body: bytes, content_type: str = "text/plain; charset=utf-8", cte: str | None = None,
             sender: str = ALICE) -> bytes:
    """A single-part message whose body bytes are given as is (already encoded)."""
    head = f"From: {sender}\nTo: {GM}\nSubject: Re: [gm 12] Turn 3\nMIME-Version: 1.0\nContent-Type: {content_type}\n"
    if cte:
        head += f"Content-Transfer-Encoding: {cte}\n"
    return crlf(head + "\n") + body
