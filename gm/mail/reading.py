"""What the player wrote, read from a real RFC 5322 message.

Pure: no I/O, no network, no clock. Everything here is tolerant: garbage in
gives something (possibly empty) out, never an exception.

`parse_message` turns raw bytes into an `email.message.EmailMessage`, and
`sender_trouble` says why a message has no sender gm can answer (a mail it
could not parse at all has none).
`body_text` picks the text the player typed: the first text/plain part that
is not an attachment, else the first text/html part converted to text;
charsets, quoted-printable and base64 are decoded, format=flowed (RFC 3676)
is unwrapped and CRLF becomes ``\\n``. `new_lines` keeps only the player's own
new lines, dropping quoted text, attributions, signatures and Outlook-style
original-message blocks. `player_text` is the two together. The header
readers (`clean_subject`, `addresses`, `header_text`, `message_id_of`) live in
`gm.mail.headers` and the HTML converter (`html_to_text`) in
`gm.mail.htmltext`; both are re-exported here.

The work done on any mail is bounded, whatever it holds: the text of a part
is cut after `MAX_TEXT_LINES` lines or `MAX_TEXT_CHARS` characters, and HTML
is converted as it streams, with its nesting only counted (see
`gm.mail.htmltext`).

The player's text is never re-cased or reflowed: orders are case-sensitive
(``Y`` is a colour, ``y`` a letter) and one command goes on each line, so the
only changes are those the transfer format requires (decoding, unwrapping
flowed lines, collapsing HTML whitespace).

Decisions taken here (see the tests for examples):

* A signature starts at the first line that is exactly ``-- `` (dash, dash,
  space). A line that is ``--`` with no trailing space (clients and HTML
  whitespace rules often eat the space) counts only when it is the *last*
  such line among the player's own lines, so a ``--`` the player typed higher
  up is kept. Everything from the signature on is dropped.
* An attribution line ("On ... wrote:" and common localized forms) is dropped
  wherever it appears, also when the client wrapped it over two lines; it is
  recognised by its opening word and its closing verb and colon.
* Everything from an original-message marker to the end is dropped:
  ``-----Original Message-----`` (and localized forms), a line of underscores
  followed by a ``From:`` line, a bare ``From:``/``Sent:``/``To:`` header
  block as Outlook writes it in HTML replies, and forwarded-message markers.
* A last line such as "Sent from my iPhone" (and localized forms), which
  phones add on their own, counts as a signature and is dropped.
* Leading and trailing blank lines of the player's text are dropped; blank
  lines in between are kept.
* In HTML, ``&nbsp;`` is a space, trailing spaces of a line are dropped, and
  ``<hr>`` becomes a line of underscores (as Outlook writes it in plain text),
  so that an Outlook ``<hr>`` + ``From:`` block is cut like its plain form.
* Text labelled ISO-8859-1 is read as windows-1252 where that is possible
  (as browsers do): clients label cp1252 quotes and dashes as latin-1. An
  unknown charset is read as latin-1.
* A text/plain part that is blank gives way to a text/html part if there is
  one (some clients send an empty plain alternative).
"""

from __future__ import annotations

import codecs
import contextlib
import email
import email.policy
import functools
import re
from email.errors import MessageDefect
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from typing import Any

from .headers import addresses, clean_subject, from_trouble, header_text, message_id_of
from .htmltext import MAX_TEXT_CHARS, MAX_TEXT_LINES, html_to_text

__all__ = [
    "Unparsable",
    "addresses",
    "body_text",
    "clean_subject",
    "header_text",
    "html_to_text",
    "message_id_of",
    "new_lines",
    "parse_message",
    "player_text",
    "sender_trouble",
    "unflow",
]

_REREAD_FIELDS = frozenset(("content-type", "content-transfer-encoding", "content-disposition",
                            "from", "to", "cc", "sender", "return-path", "x-gm-envelope-to"))
"""The fields that reading a mail's body reads again and again, and the
address fields that the master's screening reads again for each rule (the
From of one order mail three times, its Return-Path twice); each player's
come back in every mail they send."""
MAX_CACHED_FIELD = 256
"""The longest value of such a field whose parse is kept for the next
read (`_ReadingPolicy`); a longer one is parsed each time it is read."""


@functools.lru_cache(maxsize=1024)
def _parsed_field(name: str, value: str) -> Any:
    return email.policy.default.header_fetch_parse(name, value)


class _ReadingPolicy(EmailPolicy):
    """policy=default, but a MIME or address field read again (in this
    message or another: every Content-Type of a plain mail is the same, and
    a player's From comes in every mail they send) is not parsed again.
    The email package parses a field each time it is read, and reading a
    mail's body reads its Content-Type five times or more; that parsing
    was most of the cost of reading an archived mail in `gm replay`, and
    the address fields a seventh of the master's (issue 27).
    A field's value parses to the same header whenever it is read (the
    registry's parse is a function of name and value alone, and the header
    it makes is never changed after), so what is read is exactly what
    policy=default reads. Only short values of `_REREAD_FIELDS` are kept,
    so that the memory the cache holds stays small whatever mail comes."""

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if (isinstance(value, str) and not hasattr(value, "name") and len(value) <= MAX_CACHED_FIELD
                and name.lower() in _REREAD_FIELDS):
            return _parsed_field(name, value)
        return email.policy.default.header_fetch_parse(name, value)


_POLICY = _ReadingPolicy()


# --------------------------------------------------------------------------
# Parsing


class Unparsable(MessageDefect):
    """The defect `parse_message` records on the stand-in it gives for a
    mail it could not parse at all; its text says why."""


def parse_message(raw: bytes) -> EmailMessage:
    """The message in ``raw`` (RFC 5322 bytes), parsed with policy=default
    (`_ReadingPolicy`: its MIME fields are not parsed again when read again).

    Never raises: broken MIME is recorded as defects by `email`; if the parser
    fails outright (parts nested a few hundred deep exhaust its recursion),
    the bytes (read as latin-1) become the body of an otherwise empty
    text/plain message, with an `Unparsable` defect that says why.
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    try:
        raw = bytes(raw)
    except Exception:
        raw = b""
    try:
        message = email.message_from_bytes(raw, _class=EmailMessage, policy=_POLICY)
        if isinstance(message, EmailMessage):
            return message
        why = f"the parser gave a {type(message).__name__}"
    except RecursionError:
        why = "its MIME parts nest too deeply"
    except Exception as error:
        why = f"{type(error).__name__} in the parser"
    fallback = EmailMessage(policy=_POLICY)
    with contextlib.suppress(Exception):
        fallback.set_content(raw.decode("latin-1"))
    fallback.defects.append(Unparsable(why))
    return fallback


def sender_trouble(message: Message) -> str:
    """Why ``message`` has no sender gm can answer, in a few words for the
    log and the shunt: it could not be parsed at all (`Unparsable`), or
    what is wrong with its From field (`gm.mail.headers.from_trouble`)."""
    for defect in _safe(lambda: list(message.defects), []):
        if isinstance(defect, Unparsable):
            return f"the mail could not be parsed ({defect}), so it has no sender"
    return from_trouble(message)


def _safe(function, default):
    try:
        return function()
    except Exception:
        return default


# --------------------------------------------------------------------------
# Picking and decoding the body


def body_text(message: Message) -> str:
    """The text the player typed, decoded; ``""`` if there is none.

    The first text/plain part that is not an attachment, else the first
    text/html part (not an attachment) converted to text. Parts inside an
    attached message (message/rfc822) are not looked at.
    """
    plain = html = None
    for part in _leaf_parts(message):
        content_type = _safe(part.get_content_type, "text/plain")
        if content_type not in ("text/plain", "text/html"):
            continue
        if _safe(part.get_content_disposition, None) == "attachment":
            continue
        if content_type == "text/plain" and plain is None:
            plain = part
        elif content_type == "text/html" and html is None:
            html = part
    if plain is not None:
        text = _capped(_plain_text(plain))
        if text.strip() or html is None:
            return text
    if html is not None:
        return _safe(lambda: html_to_text(_decoded(html)), "")
    return ""


def _capped(text: str) -> str:
    """At most `MAX_TEXT_CHARS` characters and `MAX_TEXT_LINES` lines of ``text``."""
    text = text[:MAX_TEXT_CHARS]
    end = -1
    for _ in range(MAX_TEXT_LINES):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[: end + 1]


def _leaf_parts(message: Message):
    """Non-multipart parts in order, without descending into message/* parts."""
    stack = [message]
    seen = 0
    while stack and seen < 10_000:
        seen += 1
        part = stack.pop()
        if _safe(part.is_multipart, False):
            maintype = _safe(part.get_content_maintype, "multipart")
            if maintype == "message" and part is not message:
                continue
            children = _safe(part.get_payload, [])
            if isinstance(children, list):
                stack.extend(reversed([c for c in children if isinstance(c, Message)]))
            continue
        yield part


def _decoded(part: Message) -> str:
    """The part's payload: transfer encoding undone, charset decoded, CRLF -> LF."""
    payload = _safe(lambda: part.get_payload(decode=True), None)
    if payload is None:
        payload = _safe(lambda: str(part.get_payload()).encode("utf-8", "surrogateescape"), b"")
    if not isinstance(payload, bytes):
        payload = b""
    charset = _safe(part.get_content_charset, None)
    text = _decode_bytes(payload, charset)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _decode_bytes(payload: bytes, charset: str | None) -> str:
    if charset in (None, "", "us-ascii", "ascii", "us_ascii"):
        # Undeclared or ASCII: often really UTF-8 from a careless client.
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload.decode("latin-1")
    try:
        if codecs.lookup(charset).name == "iso8859-1":
            # As browsers do (WHATWG): mail labelled ISO-8859-1 is often
            # really windows-1252, whose quotes and dashes sit in 0x80-0x9F.
            try:
                return payload.decode("cp1252")
            except UnicodeDecodeError:
                return payload.decode("latin-1")
        return payload.decode(charset, errors="replace")
    except Exception:
        # Unknown charset, or a codec that is not a text encoding.
        return payload.decode("latin-1")


def _plain_text(part: Message) -> str:
    text = _decoded(part)
    if (_safe(lambda: part.get_param("format"), None) or "").lower() == "flowed":
        delsp = (_safe(lambda: part.get_param("delsp"), None) or "").lower() == "yes"
        text = unflow(text, delsp=delsp)
    return text


def unflow(text: str, delsp: bool = False) -> str:
    """Unwrap format=flowed text (RFC 3676) with ``\\n`` line ends.

    A line ending in a space is soft-broken and joins the next line of the
    same quote depth (with DelSp=yes the space goes). Space-stuffing is
    removed. ``-- `` is a signature separator, never flowed. Quoted lines come
    back with ``>`` marks (one per level, then a space).
    """
    ends_with_newline = text.endswith("\n")
    lines = text.split("\n")
    if ends_with_newline:
        lines.pop()
    out: list[str] = []
    paragraph: list[str] | None = None  # pieces, joined once (no quadratic +=)
    paragraph_depth = 0

    def render(depth: int, content: str) -> str:
        return content if depth == 0 else ">" * depth + (" " + content if content else "")

    for line in lines:
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        is_signature = content == "-- "
        flowed = content.endswith(" ") and not is_signature
        if paragraph is not None and (depth != paragraph_depth or is_signature):
            out.append(render(paragraph_depth, "".join(paragraph)))
            paragraph = None
        if flowed and delsp:
            content = content[:-1]
        if paragraph is None:
            paragraph, paragraph_depth = [content], depth
        else:
            paragraph.append(content)
        if not flowed:
            out.append(render(paragraph_depth, "".join(paragraph)))
            paragraph = None
    if paragraph is not None:
        out.append(render(paragraph_depth, "".join(paragraph)))
    return "\n".join(out) + ("\n" if ends_with_newline else "")


# --------------------------------------------------------------------------
# The player's own lines

_ATTRIBUTION = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^On\s.+\swrote\s?:$",  # English: Gmail, Thunderbird, Apple Mail
        r"^Le\s.+\sa\s+écrit\s?:$",  # French
        r"^Am\s.+\sschrieb(\s.*)?:$",  # German
        r"^El\s.+\sescribió\s?:$",  # Spanish
        r"^Il\s.+\sha\s+scritto\s?:$",  # Italian
        r"^Op\s.+\sschreef(\s.*)?:$",  # Dutch
        r"^(Den|På)\s.+\sskrev(\s.*)?:$",  # Swedish, Danish, Norwegian
        r"^Em\s.+\sescreveu\s?:$",  # Portuguese
    )
]
_ATTRIBUTION_OPENER = re.compile(r"^(On|Le|Am|El|Il|Op|Den|På|Em)\s", re.IGNORECASE)

_ORIGINAL_MESSAGE = re.compile(
    r"^-{3,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original"
    r"|Messaggio originale|Oorspronkelijk bericht|Originalmeddelande|Mensagem original)\s*-{3,}$",
    re.IGNORECASE,
)
_FORWARDED = re.compile(
    r"^(-{3,}\s*(Forwarded message|Weitergeleitete Nachricht|Message transféré|Mensaje reenviado"
    r"|Messaggio inoltrato|Doorgestuurd bericht|Vidarebefordrat meddelande)\s*-{3,}"
    r"|Begin forwarded message:)$",
    re.IGNORECASE,
)
_MOBILE_SIGNATURE = re.compile(
    r"^(Sent from my \S.*|Sent from (Mail|Outlook) for \S.*|Get Outlook for \S.*|Von meinem \S.* gesendet"
    r"|Envoyé de mon \S.*|Enviado desde mi \S.*|Inviato da \S.*|Verzonden met \S.*|Skickat från min \S.*)$",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^_{10,}$")
_FROM_FIELD = re.compile(r"^\*?(From|Von|De|Da|Van|Från|Fra|Od)\s?:\*?\s*\S", re.IGNORECASE)
_DATE_FIELD = re.compile(
    r"^\*?(Sent|Date|Gesendet|Datum|Envoyé|Date d'envoi|Inviato|Data|Verzonden|Skickat|Sendt|Enviado|Fecha)\s?:",
    re.IGNORECASE,
)
_TO_FIELD = re.compile(
    r"^\*?(To|Subject|Cc|An|Betreff|À|Objet|A|Oggetto|Aan|Onderwerp|Till|Ämne|Til|Emne|Para|Asunto|Assunto)\s?:",
    re.IGNORECASE,
)


def _is_quoted(line: str) -> bool:
    return line.startswith(">")


def _is_attribution(line: str) -> bool:
    line = line.strip()
    return len(line) <= 300 and any(p.match(line) for p in _ATTRIBUTION)


def _is_header_block(lines: list[str], i: int) -> bool:
    """A From: line followed within five lines by a date line and a To:/Subject: line."""
    if not _FROM_FIELD.match(lines[i].strip()):
        return False
    following = [line.strip() for line in lines[i + 1 : i + 6]]
    return any(_DATE_FIELD.match(f) for f in following) and any(_TO_FIELD.match(f) for f in following)


def _cut_index(lines: list[str]) -> int:
    """Where the original (quoted-without-'>') message starts, or len(lines)."""
    for i, line in enumerate(lines):
        if _is_quoted(line):
            continue
        stripped = line.strip()
        if _ORIGINAL_MESSAGE.match(stripped) or _FORWARDED.match(stripped):
            return i
        if _UNDERSCORES.match(stripped):
            for j in range(i + 1, min(i + 4, len(lines))):
                if lines[j].strip():
                    if _FROM_FIELD.match(lines[j].strip()):
                        return i
                    break
        if _is_header_block(lines, i):
            return i
    return len(lines)


def _signature_index(lines: list[str]) -> int:
    """Where the player's signature starts, or len(lines)."""
    weak = None
    for i, line in enumerate(lines):
        if _is_quoted(line):
            continue
        if line == "-- ":
            return i
        if line.rstrip() == "--":
            weak = i
    return len(lines) if weak is None else weak


def new_lines(text: str) -> str:
    """Only the player's own new lines of ``text``, joined with ``\\n``.

    Drops lines quoted with ``>`` (any depth), attribution lines (also wrapped
    over two lines), everything from the signature separator on, everything
    from an original-message or forwarded-message marker on, and a closing
    "Sent from my iPhone". Blank lines and ``;`` comment lines are kept;
    leading and trailing blank lines are not. Works for top-posted,
    bottom-posted and interleaved replies alike.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = lines[: _cut_index(lines)]
    lines = lines[: _signature_index(lines)]
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_quoted(line):
            i += 1
            continue
        if _is_attribution(line):
            i += 1
            continue
        if (
            i + 1 < len(lines)
            and _ATTRIBUTION_OPENER.match(line.strip())
            and not _is_quoted(lines[i + 1])
            and _is_attribution(line.strip() + " " + lines[i + 1].strip())
        ):
            i += 2
            continue
        kept.append(line)
        i += 1
    while kept and not kept[-1].strip():
        kept.pop()
    if kept and _MOBILE_SIGNATURE.match(kept[-1].strip()):
        kept.pop()
        while kept and not kept[-1].strip():
            kept.pop()
    start = 0
    while start < len(kept) and not kept[start].strip():
        start += 1
    return "\n".join(kept[start:])


def player_text(message: Message) -> str:
    """``new_lines(body_text(message))``: what the player wrote in this mail."""
    return new_lines(body_text(message))


