#!/usr/bin/env python3
"""Regenerate sample-mail/: one whole game of Spaceships by email, as .eml files.

    .venv/bin/python -P sample-mail/make_samples.py            # rewrite the samples
    .venv/bin/python -P sample-mail/make_samples.py --check    # only say whether they are up to date

(gm as installed in .venv by scripts/setup-venv, as the tests use it.)

The game is tests/records/standard-win.rec played by mail: Alice
<alice@example.org> (player 1) against Bob <bob@example.net> (player 2),
with gm@example.org as the GM, created at CREATED with the default options.

Everything is deterministic: the server key comes from a fixed seed (it is
a public demo key, see README), the clock is fixed at CREATED and then set,
for each player's mail, to the moment in its Date header, and every
Message-ID and Date a player's client writes is fixed in PLAY below.

The script runs a real `gm.daemon.Daemon` on a loopback SMTP port.
For each player's mail it takes the GM's latest mail to that player (as a
player's client would), writes the reply in that client's style (headers,
quoting, MIME structure and transfer encoding), saves it, and sends it to the
daemon over SMTP. At the end it saves every message the GM delivered, as
``gm-NN-PLAYER-SUBJECT.eml``, and checks the game: player 1 wins 13-0 and
`gm replay` finds every archived message identical.

tests/test_sample_mail.py sends the saved player mails to a fresh daemon in
the same way and checks that the GM answers with exactly the saved GM mails.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import hashlib
import html
import re
import smtplib
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr, parsedate_to_datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

from gm.daemon import Config, Daemon  # noqa: E402
from gm.kernel.values import Options  # noqa: E402
from gm.mail.reading import parse_message  # noqa: E402
from gm.pbem.operator.admin import request_game, verify_replay  # noqa: E402
from gm.pbem.writing.mailer import Identity  # noqa: E402

GM = "gm@example.org"
COMMIT_KEY = hashlib.sha256(b"gm tests: the game key of commitments").digest()
"""The game key of the commitments (tests/gmtest.py's COMMIT_KEY, which the
test replaying these samples makes the game with)."""
CREATED = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
"""When the game is created (``gm new``); the GM's first two mails carry this Date."""
KEY_SEED = b"gm sample-mail demo server key, public, never use for a real game"
KEY_FILE = "demo-server.key"


def demo_key() -> bytes:
    """The public demo server key: SHA-256 of KEY_SEED (32 bytes)."""
    return hashlib.sha256(KEY_SEED).digest()


# --------------------------------------------------------------------------
# The players and what they send


@dataclass(frozen=True)
class Person:
    name: str
    address: str
    zone: timezone
    player: int

    @property
    def header(self) -> str:
        return f"{self.name} <{self.address}>"

    @property
    def slug(self) -> str:
        return self.name.split()[0].lower()


ALICE = Person("Alice Arden", "alice@example.org", timezone(timedelta(hours=1)), 1)  # Paris, winter time
BOB = Person("Bob Brandt", "bob@example.net", timezone(timedelta(hours=-5)), 2)  # New York, winter time


@dataclass(frozen=True)
class Mail:
    """One mail a player sends: the file it is saved as, when, with which
    Message-ID, from which client, and the text the player typed."""

    name: str
    who: Person
    date: str
    message_id: str
    client: Callable[[Mail, EmailMessage], bytes]
    text: str

    @property
    def moment(self) -> datetime:
        return parsedate_to_datetime(self.date)


# --------------------------------------------------------------------------
# Helpers shared by the clients


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def reply_headers(mail: Mail, original: EmailMessage, subject_prefix: str = "Re: ") -> dict[str, str]:
    """What every client puts in a reply: To the Reply-To, threading, Re:."""
    references = " ".join([*str(original.get("References", "")).split(), str(original["Message-ID"])])
    return {
        "to": str(original["Reply-To"]),
        "subject": subject_prefix + str(original["Subject"]),
        "in_reply_to": str(original["Message-ID"]),
        "references": fold("References: " + references),
    }


def fold(header: str, width: int = 78) -> str:
    """A header line folded at spaces, as clients do (continuations start with a space)."""
    words = header.split(" ")
    lines, line = [], words[0]
    for word in words[1:]:
        if len(line) + 1 + len(word) > width:
            lines.append(line)
            line = " " + word
        else:
            line += " " + word
    lines.append(line)
    return "\n".join(lines)


def sheet(original: EmailMessage) -> list[str]:
    """The GM's text as the player's client shows it, line by line."""
    return original.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n").rstrip("\n").split("\n")


def quote(lines: list[str], prefix: str = "> ") -> str:
    """Lines quoted with '>' (an empty line as a bare '>')."""
    return "".join((prefix + line).rstrip(" ") + "\n" if line else prefix.rstrip(" ") + "\n" for line in lines)


def when(original: EmailMessage, who: Person) -> datetime:
    """The GM mail's time, in the player's own time zone, for attribution lines."""
    return parsedate_to_datetime(str(original["Date"])).astimezone(who.zone)


def outlook_time(moment: datetime) -> str:
    """As Outlook writes a time: Saturday, November 21, 2026 7:00 AM."""
    return f"{moment:%A, %B} {moment.day}, {moment:%Y} {int(moment.strftime('%I'))}:{moment:%M %p}"


def qp(text: str, charset: str = "utf-8") -> str:
    """Quoted-printable, 76 columns, as clients write it."""
    return binascii.b2a_qp(text.encode(charset), istext=True).decode("ascii")


def b64(text: str) -> str:
    return base64.encodebytes(crlf(text).encode("utf-8")).decode("ascii")


def flowed(lines: list[str], prefix: str = "", width: int | None = None) -> str:
    """Lines as format=flowed (RFC 3676, DelSp=no) text, as Thunderbird
    writes it: long lines soft-broken after a space (at 72 columns, quoted
    lines at 78); lines that start with a space, '>' or 'From '
    space-stuffed; quoted lines prefixed '> '."""
    width = width or (78 if prefix else 72)
    out = []
    for line in lines:
        if not prefix and line.startswith((" ", ">", "From ")):
            line = " " + line
        if line == "":
            out.append(prefix.rstrip(" "))
            continue
        room = width - len(prefix)
        while len(line) > room:
            cut = max((i for i in range(1, room) if line[i - 1] == " " and line[i] != " "), default=None)
            if cut is None:
                break
            out.append(prefix + line[:cut])
            line = line[cut:]
        out.append(prefix + line)
    return "\n".join(out) + "\n"


def html_text(lines: list[str], nbsp: str = "\xa0") -> str:
    """Plain lines as a webmail shows them in HTML: escaped, runs of spaces
    kept with no-break spaces (``nbsp``: the character or ``&nbsp;``), one
    <br> per line end."""
    def line_html(line: str) -> str:
        escaped = html.escape(line, quote=False)
        return re.sub(r"  +", lambda m: (nbsp + " ") * (len(m.group(0)) // 2) + nbsp * (len(m.group(0)) % 2), escaped)
    return "<br>".join(line_html(line) for line in lines) + "<br>"


# --------------------------------------------------------------------------
# The clients


def mutt(mail: Mail, original: EmailMessage) -> bytes:
    """Mutt: plain text, 7bit us-ascii, Mutt's attribution, the quote trimmed
    to the one line answered, the reply below it."""
    h = reply_headers(mail, original)
    moment = parsedate_to_datetime(str(original["Date"]))  # Mutt's %d: the date as the mail gives it
    attribution = f"On {moment:%a, %b %d, %Y at %I:%M:%S%p %z}, Spaceships GM wrote:"
    body = attribution + "\n" + quote([line for line in sheet(original) if line.startswith("Send your "
                                                                                           "setup")]) + "\n" + mail.text
    return crlf(
        f"Date: {mail.date}\n"
        f"From: {mail.who.header}\n"
        f"To: {h['to']}\n"
        f"Subject: {h['subject']}\n"
        f"Message-ID: {mail.message_id}\n"
        f"{h['references']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/plain; charset=us-ascii\n"
        "Content-Disposition: inline\n"
        "User-Agent: Mutt/2.2.12 (2023-09-09)\n"
        "\n" + body
    ).encode("ascii")


def outlook_desktop(mail: Mail, original: EmailMessage) -> bytes:
    """Outlook for Windows: HTML only, windows-1252, quoted-printable,
    top-posted above '-----Original Message-----' and the original unquoted."""
    h = reply_headers(mail, original, "RE: ")
    moment = when(original, mail.who)
    paragraphs = "".join(
        f"<p class=MsoNormal>{html.escape(line, quote=False) + '<o:p></o:p>' if line else '<o:p>&nbsp;</o:p>'}</p>\n"
        for line in [*mail.text.rstrip("\n").split("\n"), ""]
    )
    original_html = (
        "<p class=MsoNormal>-----Original Message-----<br>\n"
        f"From: Spaceships GM &lt;{GM}&gt; <br>\n"
        f"Sent: {outlook_time(moment)}<br>\n"
        f"To: {mail.who.address}<br>\n"
        f"Subject: {html.escape(str(original['Subject']), quote=False)}<o:p></o:p></p>\n"
        "<p class=MsoNormal><o:p>&nbsp;</o:p></p>\n"
        "<p class=MsoNormal>" + html_text(sheet(original), "&nbsp;").removesuffix("<br>").replace("<br>", "<br>\n")
        + "<o:p></o:p></p>\n"
    )
    document = (
        '<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
        'xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" '
        'xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; '
        'charset=windows-1252"><meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!--\n'
        "/* Style Definitions */\n"
        "p.MsoNormal, li.MsoNormal, div.MsoNormal\n"
        "\t{margin:0cm;\n"
        "\tfont-size:11.0pt;\n"
        '\tfont-family:"Calibri",sans-serif;}\n'
        "--></style></head><body lang=EN-US link=\"#0563C1\" vlink=\"#954F72\" style='word-wrap:break-word'>"
        "<div class=WordSection1>\n" + paragraphs + original_html + "</div></body></html>\n"
    )
    return crlf(
        f"From: {mail.who.header}\n"
        f"To: \"{h['to']}\" <{h['to']}>\n"
        f"Subject: {h['subject']}\n"
        f"Date: {mail.date}\n"
        f"Message-ID: {mail.message_id}\n"
        "MIME-Version: 1.0\n"
        "Content-Type: text/html;\n"
        '\tcharset="windows-1252"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "X-Mailer: Microsoft Outlook 16.0\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"{h['references']}\n"
        "Thread-Index: AQHbW8m2Xk0rNv9fQ0e2mB1n7TqZ3A==\n"
        "Content-Language: en-us\n"
        "\n" + qp(document, "cp1252")
    ).encode("ascii")


def thunderbird_flowed(mail: Mail, original: EmailMessage) -> bytes:
    """Thunderbird: plain text, format=flowed, 8bit UTF-8; the quote trimmed to
    the last two lines answered, the reply below (long lines soft-wrapped)."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    kept = [line for line in sheet(original) if line.startswith(("Your remaining", "For turn"))]
    body = (f"On {moment:%d/%m/%Y %H:%M}, Spaceships GM wrote:\n" + flowed(kept, "> ") + "\n"
            + flowed(mail.text.rstrip("\n").split("\n")))
    return crlf(
        "Content-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Transfer-Encoding: 8bit\n"
        f"Message-ID: {mail.message_id}\n"
        f"Date: {mail.date}\n"
        "MIME-Version: 1.0\n"
        "User-Agent: Mozilla Thunderbird\n"
        "Content-Language: en-GB\n"
        f"To: {h['to']}\n"
        f"From: {mail.who.header}\n"
        f"Subject: {h['subject']}\n"
        f"{h['references']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        "\n" + body
    ).encode("utf-8")


def gmail(mail: Mail, original: EmailMessage) -> bytes:
    """Gmail on the web: multipart/alternative (plain and HTML, both
    quoted-printable UTF-8), top-posted above the whole mail, which the
    plain part quotes with '>' and the HTML part in a gmail_quote blockquote."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    said = f"On {moment:%a, %b} {moment.day}, {moment:%Y} at {int(moment.strftime('%I'))}:{moment:%M %p}"
    attribution = f"{said} Spaceships GM <{GM}> wrote:"
    wrapped = "\n".join(textwrap.wrap(attribution, 78))  # Gmail wraps a long attribution line
    own = mail.text.rstrip("\n").split("\n")
    plain = "\n".join(own) + "\n\n" + wrapped + "\n\n" + quote(sheet(original))
    own_html = "".join(f"<div>{html.escape(line, quote=False) or '<br>'}</div>" for line in own[1:])
    rich = (
        f'<div dir="ltr">{html.escape(own[0], quote=False)}{own_html}</div><br>'
        '<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
        f"{said} Spaceships GM &lt;"
        f'<a href="mailto:{GM}">{GM}</a>&gt; wrote:<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
        'rgb(204,204,204);padding-left:1ex">' + html_text(sheet(original)) + "</blockquote></div>\n"
    )
    boundary = "000000000000e3c1a20625f4b7d1"
    return crlf(
        "MIME-Version: 1.0\n"
        f"References: {h['references'][len('References: '):]}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"From: {mail.who.header}\n"
        f"Date: {mail.date}\n"
        f"Message-ID: {mail.message_id}\n"
        f"Subject: {h['subject']}\n"
        f"To: {h['to']}\n"
        f'Content-Type: multipart/alternative; boundary="{boundary}"\n'
        "\n"
        f"--{boundary}\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + qp(plain) + "\n"
        f"--{boundary}\n"
        'Content-Type: text/html; charset="UTF-8"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + qp(rich) + "\n"
        f"--{boundary}--\n"
    ).encode("ascii")


def evolution(mail: Mail, original: EmailMessage) -> bytes:
    """Evolution set to start typing at the top: plain text, the GM's whole
    turn sheet bottom-quoted with '>' below the reply."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    body = mail.text + "\n" + f"On {moment:%a, %Y-%m-%d at %H:%M %z}, Spaceships GM wrote:\n" + quote(sheet(original))
    return crlf(
        f"Message-ID: {mail.message_id}\n"
        f"Subject: {h['subject']}\n"
        f"From: {mail.who.header}\n"
        f"To: {h['to']}\n"
        f"Date: {mail.date}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"{h['references']}\n"
        'Content-Type: text/plain; charset="UTF-8"\n'
        "User-Agent: Evolution 3.52.4\n"
        "MIME-Version: 1.0\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n" + body
    ).encode("utf-8")


def apple_mail(mail: Mail, original: EmailMessage) -> bytes:
    """Apple Mail on a Mac: plain text, UTF-8, base64 (it has non-ASCII),
    top-posted above the whole mail quoted with '>' (attribution inside)."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    body = (mail.text + "\n" + f"> On {moment.day} {moment:%b %Y}, at {moment:%H:%M}, Spaceships GM <{GM}> wrote:\n"
            + "> \n" + quote(sheet(original)))
    return crlf(
        "Content-Type: text/plain;\n"
        "\tcharset=utf-8\n"
        "Content-Transfer-Encoding: base64\n"
        "Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3826.300.87.4.3\\))\n"
        f"Subject: {h['subject']}\n"
        f"From: {mail.who.header}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"Date: {mail.date}\n"
        f"{h['references']}\n"
        f"To: {h['to']}\n"
        f"Message-Id: {mail.message_id}\n"
        "X-Mailer: Apple Mail (2.3826.300.87.4.3)\n"
        "\n" + b64(body)
    ).encode("ascii")


def iphone(mail: Mail, original: EmailMessage) -> bytes:
    """Mail on an iPhone: plain text, UTF-8 quoted-printable, 'Sent from my
    iPhone' under the reply, the whole mail quoted below."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    body = (mail.text + "\nSent from my iPhone\n\n"
            + f"> On {moment.day} {moment:%b %Y}, at {moment:%H:%M}, Spaceships GM <{GM}> wrote:\n> \n"
            + quote(sheet(original)))
    return crlf(
        "Content-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: quoted-printable\n"
        f"From: {mail.who.header}\n"
        "Mime-Version: 1.0 (1.0)\n"
        f"Subject: {h['subject']}\n"
        f"Date: {mail.date}\n"
        f"Message-Id: {mail.message_id}\n"
        f"{h['references']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"To: {h['to']}\n"
        "X-Mailer: iPhone Mail (22B91)\n"
        "\n" + qp(body)
    ).encode("ascii")


def roundcube(mail: Mail, original: EmailMessage) -> bytes:
    """Roundcube webmail: format=flowed plain text, the reply on top, then
    the signature ('-- '), then the whole mail quoted."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    body = (flowed(mail.text.rstrip("\n").split("\n")) + "\n"
            + f"On {moment:%Y-%m-%d %H:%M}, Spaceships GM wrote:\n" + flowed(sheet(original), "> "))
    return crlf(
        "MIME-Version: 1.0\n"
        f"Date: {mail.date}\n"
        f"From: {mail.who.header}\n"
        f"To: {h['to']}\n"
        f"Subject: {h['subject']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        f"{h['references']}\n"
        f"Message-ID: {mail.message_id}\n"
        f"X-Sender: {mail.who.address}\n"
        "User-Agent: Roundcube Webmail/1.6.9\n"
        "Content-Type: text/plain; charset=US-ASCII;\n"
        " format=flowed\n"
        "Content-Transfer-Encoding: 7bit\n"
        "\n" + body
    ).encode("ascii")


def thunderbird_html(mail: Mail, original: EmailMessage) -> bytes:
    """Thunderbird composing HTML: multipart/alternative, a format=flowed plain
    part and an HTML part with moz-cite-prefix and blockquote type=cite; the
    reply interleaved with two pieces of the quoted turn sheet.

    ``mail.text`` holds the player's lines and, on lines of their own,
    ``[[QUOTE /regex/]]`` marks: each stands for the lines of the GM's mail
    that match the regex, quoted."""
    h = reply_headers(mail, original)
    moment = when(original, mail.who)
    attribution = f"On {moment:%d/%m/%Y %H:%M}, Spaceships GM wrote:"
    plain = [attribution + "\n"]
    rich = [f'<div class="moz-cite-prefix">{attribution}<br>\n</div>']
    mid = str(original["Message-ID"]).strip("<>")
    own: list[str] = []

    def flush_own() -> None:
        if own:
            plain.append(flowed(own))
            rich.append("".join(f"<p>{html.escape(line, quote=False)}<br>\n</p>\n" for line in own if line))
            own.clear()

    for line in mail.text.rstrip("\n").split("\n"):
        mark = re.fullmatch(r"\[\[QUOTE /(.*)/\]\]", line)
        if not mark:
            own.append(line)
            continue
        flush_own()
        picked = [s for s in sheet(original) if re.search(mark.group(1), s)]
        plain.append(flowed(picked, "> "))
        rich.append(f'<blockquote type="cite" cite="mid:{mid}">\n<pre class="moz-quote-pre" wrap="">'
                    + "\n".join(html.escape(s, quote=False) for s in picked) + "\n</pre>\n</blockquote>\n")
    flush_own()
    plain_text = "".join(plain)
    rich_text = ("<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv=\"Content-Type\" content=\"text/html; "
                 "charset=UTF-8\">\n  </head>\n  <body>\n" + "".join(rich) + "  </body>\n</html>\n")
    boundary = "------------8sQ2b0Yt3Vd1Lq9KxW7pZ4cM"
    return crlf(
        "Content-Type: multipart/alternative;\n"
        f' boundary="{boundary}"\n'
        f"Message-ID: {mail.message_id}\n"
        f"Date: {mail.date}\n"
        "MIME-Version: 1.0\n"
        "User-Agent: Mozilla Thunderbird\n"
        "Content-Language: en-GB\n"
        f"To: {h['to']}\n"
        f"From: {mail.who.header}\n"
        f"Subject: {h['subject']}\n"
        f"{h['references']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        "\n"
        "This is a multi-part message in MIME format.\n"
        f"--{boundary}\n"
        "Content-Type: text/plain; charset=UTF-8; format=flowed\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n" + plain_text + "\n"
        f"--{boundary}\n"
        "Content-Type: text/html; charset=UTF-8\n"
        "Content-Transfer-Encoding: 8bit\n"
        "\n" + rich_text + "\n"
        f"--{boundary}--\n"
    ).encode("utf-8")


def outlook_web(mail: Mail, original: EmailMessage) -> bytes:
    """Outlook on the web: multipart/alternative, quoted-printable; the reply
    on top, then a line of underscores and a From:/Sent:/To:/Subject: block
    (<hr> in HTML) above the original, which is not quoted."""
    h = reply_headers(mail, original, "RE: ")
    moment = when(original, mail.who)
    sent = outlook_time(moment)
    own = mail.text.rstrip("\n").split("\n")
    plain = ("\n".join(own) + "\n\n" + "_" * 32 + "\n"
             f"From: Spaceships GM <{GM}>\nSent: {sent}\nTo: {mail.who.address} <{mail.who.address}>\n"
             f"Subject: {original['Subject']}\n\n" + "\n".join(sheet(original)) + "\n")
    style = ('style="font-family: Aptos, Aptos_EmbeddedFont, Aptos_MSFontService, Calibri, Helvetica, sans-serif; '
             'font-size: 12pt; color: rgb(0, 0, 0);"')
    rich = (
        '<html>\n<head>\n<meta http-equiv="Content-Type" content="text/html; charset=us-ascii">\n'
        '<style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style>\n'
        '</head>\n<body dir="ltr">\n'
        + "".join(f'<div class="elementToProof" {style}>\n{html.escape(line, quote=False) or "<br>"}</div>\n'
                  for line in own)
        + '<div id="appendonsend"></div>\n<hr style="display:inline-block;width:98%" tabindex="-1">\n'
        '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000">'
        f"<b>From:</b> Spaceships GM &lt;{GM}&gt;<br>\n<b>Sent:</b> {sent}<br>\n"
        f"<b>To:</b> {mail.who.address} &lt;{mail.who.address}&gt;<br>\n"
        f"<b>Subject:</b> {html.escape(str(original['Subject']), quote=False)}</font>\n<div>&nbsp;</div>\n</div>\n"
        '<div class="BodyFragment"><font size="2"><span style="font-size:11pt;">\n'
        '<div class="PlainText">' + html_text(sheet(original), "&nbsp;").replace("<br>", "<br>\n") + "</div>\n"
        "</span></font></div>\n</body>\n</html>\n"
    )
    boundary = "_000_SJ0PR04MB7342C1D0E8A4F2B7D3E6A9C1SJ0PR04MB7342namp_"
    return crlf(
        f"From: {mail.who.header}\n"
        f"To: \"{h['to']}\" <{h['to']}>\n"
        f"Subject: {h['subject']}\n"
        "Thread-Topic: " + str(original["Subject"]) + "\n"
        "Thread-Index: AQHbXQnKc4hT2m1Wz0yE6u8v2J5p8g==\n"
        f"Date: {mail.date}\n"
        f"Message-ID: {mail.message_id}\n"
        f"{h['references']}\n"
        f"In-Reply-To: {h['in_reply_to']}\n"
        "Accept-Language: en-US\n"
        "Content-Language: en-US\n"
        "X-MS-Has-Attach:\n"
        "X-MS-TNEF-Correlator:\n"
        f'Content-Type: multipart/alternative;\n\tboundary="{boundary}"\n'
        "MIME-Version: 1.0\n"
        "\n"
        f"--{boundary}\n"
        'Content-Type: text/plain; charset="us-ascii"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + qp(plain, "ascii") + "\n"
        f"--{boundary}\n"
        'Content-Type: text/html; charset="us-ascii"\n'
        "Content-Transfer-Encoding: quoted-printable\n"
        "\n" + qp(rich, "ascii") + "\n"
        f"--{boundary}--\n"
    ).encode("ascii")


# --------------------------------------------------------------------------
# The game: tests/records/standard-win.rec, by mail, in play order

PLAY: list[Mail] = [
    Mail("01-alice-setup", ALICE, "Sat, 21 Nov 2026 14:12:09 +0100",
         "<20261121131209.GA4711@wonderland.example.org>", mutt,
         "; my fleet for g1: the example fleet, why not\n"
         "DS Rv1-Ow2        ; the 2x2x2 cube Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2\n"
         "KC Gv1-Gx2\n"
         "FS Bv1-Bw2\n"
         "MD Yz1 Yz2 Yz3\n"
         "LS Bz5\n"),
    Mail("02-bob-setup", BOB, "Sat, 21 Nov 2026 09:47:31 -0500",
         "<000001dd59f3$6a1b2c40$3e518480$@example.net>", outlook_desktop,
         "DS Yx3-Gy4\n"
         "KC Rv1-Rx2\n"
         "PC Bv5-By5\n"
         "MD Ov3 Ow3 Ox3\n"
         "HS Gz1 Gz2\n"
         "\n"
         "; that\u2019s my fleet \u2013 good luck!\n"),
    Mail("03-alice-turn1", ALICE, "Sat, 21 Nov 2026 18:30:55 +0100",
         "<4b7e2c1a-9f3d-4e8b-a6c2-1d5f0e9b7a31@example.org>", thunderbird_flowed,
         "bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1 ; the beam along the red edge, "
         "strikes all round it, the missile from Yz1 onto By5 and a scan of Gz1\n"),
    Mail("04-bob-turn1", BOB, "Sun, 22 Nov 2026 08:03:12 -0500",
         "<CAH7Lk4pQ2xVb8nZr3JtY5u0cWm9eD1fGs6aB4kN2oP=Xq7Rz_w@mail.gmail.com>", gmail,
         "Rv1 Rw2 Yz2 Bz5\n"
         "; a few shots in the dark\n"),
    Mail("05-alice-turn2", ALICE, "Sun, 22 Nov 2026 19:20:40 +0100",
         "<8f2d6c0b9a7e5d3c1b0a9f8e7d6c5b4a3f2e1d0c.camel@example.org>", evolution,
         "bYx3Yx5 Yy3 Yy4 ; the beam along the yellow edge first\n"),
    Mail("06-alice-turn2-slip", ALICE, "Sun, 22 Nov 2026 21:02:17 +0100",
         "<6D1F0C8A-2B4E-4F7A-9C3D-5E8B1A7F2C90@example.org>", apple_mail,
         "; on second thoughts, let\u2019s put the other four strikes on the green too\n"
         "bYx3Yx5\n"
         "Yy3 Yy4\n"
         "Gx3 Gx4 gy3 Gy4\n"),
    Mail("07-alice-turn2-resend", ALICE, "Sun, 22 Nov 2026 21:09:48 +0100",
         "<B3E9A5D2-7C1F-4A6B-8E0D-2F5C9B1A4D73@example.org>", iphone,
         "; oops \u2013 a lower-case g. All of it again:\n"
         "bYx3Yx5\n"
         "Yy3 Yy4\n"
         "Gx3 Gx4 Gy3 Gy4\n"),
    Mail("08-bob-turn2", BOB, "Mon, 23 Nov 2026 07:55:03 -0500",
         "<3f9c0b6f2d8e4a1c7b5e9d0a2c4f6e81@example.net>", roundcube,
         "Gv1 Gw1 sBv1 sBw1\n"
         "\n"
         "-- \n"
         "Bob Brandt\n"
         "Rv1 was where I kept my kill cruiser.\n"),
    Mail("09-alice-turn3", ALICE, "Mon, 23 Nov 2026 19:41:26 +0100",
         "<0c5a7e91-3d2b-4f68-b1e4-9a8c7d6f5e20@example.org>", thunderbird_html,
         "[[QUOTE /opponent  scan/]]\n"
         "\n"
         "; they have found my flying saucer, so let's finish this\n"
         "\n"
         "[[QUOTE /^For turn/]]\n"
         "\n"
         "Gz1 Gz2 ; my scan in turn 1 found something at Gz1\n"),
    Mail("10-bob-turn3", BOB, "Tue, 24 Nov 2026 06:12:50 -0500",
         "<SJ0PR04MB7342C1D0E8A4F2B7D3E6A9C1@SJ0PR04MB7342.namprd04.prod.outlook.com>", outlook_web,
         "Ov1 ; one strike left. Good game!\n"),
]


# --------------------------------------------------------------------------
# Running the game through the daemon


class FixedClock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def envelope(raw: bytes) -> tuple[str, list[str]]:
    """MAIL FROM and RCPT TO as a client (or ``sendmail -t``) takes them from the headers."""
    message = parse_message(raw)
    sender = parseaddr(str(message["From"]))[1]
    recipients = [a for _, a in getaddresses([str(v) for f in ("To", "Cc") for v in message.get_all(f, [])]) if a]
    return sender, recipients


def send(port: int, raw: bytes) -> None:
    sender, recipients = envelope(raw)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(sender, recipients, raw)


def latest_to(daemon: Daemon, address: str) -> EmailMessage:
    """The GM's latest mail to ``address`` (outbox keys sort in the order sent)."""
    store = daemon.store
    mine = [k for k in store.delivered.keys() if address in str(parse_message(store.delivered.get_bytes(k))["To"])]
    return parse_message(store.delivered.get_bytes(mine[-1]))


def gm_file_name(number: int, raw: bytes) -> str:
    """gm-NN-PLAYER-SUBJECT.eml, from the GM's message itself."""
    message = parse_message(raw)
    who = {"1": ALICE, "2": BOB}[str(message["X-GM-Player"])].slug
    subject = re.sub(r"^\[[^]]*\]\s*", "", str(message["Subject"])).lower()
    subject = re.sub(r"turn (\d+)", r"turn\1", subject)
    slug = re.sub(r"[^a-z0-9]+", "-", subject).strip("-")
    while len(slug) > 40 and "-" in slug:
        slug = slug.rsplit("-", 1)[0]
    return f"gm-{number:02d}-{who}-{slug}.eml"


async def play(data: Path) -> dict[str, bytes]:
    """Play the game through a daemon on ``data``; return every file to write."""
    files: dict[str, bytes] = {KEY_FILE: demo_key()}
    data.mkdir(parents=True)
    key = data / "secret.key"
    key.write_bytes(demo_key())
    key.chmod(0o600)
    clock = FixedClock(CREATED)
    identity = Identity(GM)
    daemon = Daemon(Config(data=str(data), smtp=("127.0.0.1", 0), identity=identity), clock)
    await daemon.start(background=False)

    async def settle() -> None:
        await daemon.step()
        await daemon.deliverer.deliver_due(clock())

    try:
        request_game(daemon.store, identity, [ALICE.address, BOB.address], "2.6.1", Options(), clock(),
                     commit_key=COMMIT_KEY)
        await settle()
        for mail in PLAY:
            raw = mail.client(mail, latest_to(daemon, mail.who.address))
            files[f"{mail.name}.eml"] = raw
            clock.now = mail.moment
            await asyncio.to_thread(send, daemon.bound["smtp"][1], raw)
            await settle()
        store = daemon.store
        for number, key_name in enumerate(store.delivered.keys(), 1):
            raw = store.delivered.get_bytes(key_name)
            files[gm_file_name(number, raw)] = raw
        assert not store.shunt.keys(), "the GM shunted a player's mail"
        game = daemon.master.games["g1"]
        assert game.outcome is not None and game.outcome.scores == (13, 0) and game.outcome.winner == 1, game.outcome
    finally:
        await daemon.stop()
    _count, differences = verify_replay(str(data / "games" / "g1"))
    assert not differences, differences
    return files


def generated() -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(play(Path(tmp) / "data"))


def existing() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(HERE.iterdir()) if p.name.endswith(".eml") or p.name == KEY_FILE}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the samples are out of date")
    args = parser.parse_args(argv)
    files = generated()
    old = existing()
    changed = sorted(name for name in files if old.get(name) != files[name])
    stale = sorted(set(old) - set(files))
    if args.check:
        for name in changed:
            print(f"would write {name}")
        for name in stale:
            print(f"would remove {name}")
        print("sample-mail is up to date" if not (changed or stale)
              else "sample-mail is out of date: run make_samples.py")
        return 1 if changed or stale else 0
    for name in stale:
        (HERE / name).unlink()
        print(f"removed {name}")
    for name in changed:
        (HERE / name).write_bytes(files[name])
        print(f"wrote {name}")
    print(f"{len(files)} files, {len(changed)} changed, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
