"""The one writer of gm's mail: every message the GM sends or keeps (a
player's notice, an observer's, an answer about no game, a GM event) is
written out here, field by field and part by part, in exactly the bytes the
email package's ``EmailMessage`` (policy SMTP) wrote for it in every edition
before, at a fraction of its cost (issue 12); tests/test_mail_bytes.py
checks the two agree. The package still folds every header field that is
not plain printable ASCII (`_field`).

A message is a `Mail`: its header fields in order, then one body, made by
`_fill` (a notice: text, its HTML alternative, an attached mailbox),
`text_body` (a text that the package's ``set_content`` encoded as it
chose) or `with_attachments` (a text and text files attached).
"""

from __future__ import annotations

import binascii
import functools
import re
from dataclasses import dataclass
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, parsedate_to_datetime

MAX_LINE = 78
"""Where the SMTP policy (``SMTP.max_line_length``) folds header fields and
breaks quoted-printable and base64 lines."""
MAX_7BIT_LINE = 998
"""The longest line a 7bit part may hold (RFC 5322, 2.1.1)."""
CRLF = "\r\n"
MIME_VERSION = "MIME-Version"


class Mail:
    """A message of the GM's as it goes out: its header fields, each folded as
    the email package's SMTP policy folds it (`_field`), and its body,
    encoded, CRLF line ends. It has the little of ``EmailMessage`` that gm
    uses on a message it built: a field added at the end, every field of a
    name read or deleted, and ``as_bytes``."""

    def __init__(self) -> None:
        self._fields: list[tuple[str, str, str]] = []
        """(name, value, the folded field with its CRLF)."""
        self.body = ""

    def __setitem__(self, name: str, value: str) -> None:
        self._fields.append((name, value, _field(name, value)))

    def __delitem__(self, name: str) -> None:
        self._fields = [f for f in self._fields if f[0].lower() != name.lower()]

    def __getitem__(self, name: str) -> str | None:
        return self.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def get(self, name: str, default: str | None = None) -> str | None:
        return next((value for n, value, _ in self._fields if n.lower() == name.lower()), default)

    def keys(self) -> list[str]:
        return [name for name, _, _ in self._fields]

    def as_bytes(self) -> bytes:
        return ("".join(folded for _, _, folded in self._fields) + CRLF + self.body).encode("ascii", "surrogateescape")


@dataclass(frozen=True)
class _Part:
    fields: list[tuple[str, str]]
    body: str
    """Encoded, CRLF line ends."""

    def text(self) -> str:
        return "".join(_field(name, value) for name, value in self.fields) + CRLF + self.body


def _fill(message: Mail, text: str, html: str | None, attached: bytes | str | None, filename: str, stem: str,
          light: bool, calendar: tuple[str, str] | None = None) -> None:
    """Give ``message`` its MIME fields and body: ``text``, with ``html`` as
    its alternative and ``attached`` (an mbox, or a text file: a player's
    record) as an attachment if they are not None, as ``set_content``,
    ``add_alternative``, ``add_attachment`` and `_fix_boundaries`
    (``stem``) did on an ``EmailMessage``. ``calendar`` (an iCalendar
    text and its iTIP method) is the last alternative, a ``text/calendar``
    part beside the text and HTML: where mail clients look for an event to
    offer to add to a calendar."""
    plain = _text_part(text, "plain", light)
    if html is None and attached is None and calendar is None:
        _single(message, plain)
        return
    # Boundaries numbered as _fix_boundaries numbers the parts, in the order walk() goes.
    body = plain
    if html is not None or calendar is not None:
        alternatives = [plain]
        if html is not None:
            alternatives.append(_text_part(html, "html", light, mime_version=True))
        if calendar is not None:
            alternatives.append(_text_part(calendar[0], "calendar", light, method=calendar[1]))
        body = _multipart("alternative", f"=_{stem}-{0 if attached is None else 1}", alternatives)
    if attached is not None:
        file = (_text_part(attached, "plain", light, mime_version=True, filename=filename) if isinstance(attached, str)
                else _attachment(attached, filename))
        body = _multipart("mixed", f"=_{stem}-0", [body, file])
    _outer(message, body)


def text_body(message: Mail, text: str) -> None:
    """Give ``message`` the body ``set_content(text, charset="utf-8")`` gave
    an ``EmailMessage``: one text part, encoded as the package chose
    (`_chosen_encoding`). GM events and answers about no game are written so."""
    _single(message, _text_fields("plain", *_chosen_encoding(text)))


def with_attachments(message: Mail, text: str, files: list[tuple[str, str]], stem: str) -> None:
    """Give ``message`` ``text``, and each of ``files`` (name, text) as an
    attached text file, as ``set_content(text, charset="utf-8",
    cte="quoted-printable")``, ``add_attachment`` of each file's text (the
    same, with its filename) and `_fix_boundaries` (``stem``) did on an
    ``EmailMessage``: an observer's mail with the players' records."""
    plain = _text_part(text, "plain", False)
    if not files:
        _single(message, plain)
        return
    attached = [_text_part(content, "plain", False, mime_version=True, filename=name) for name, content in files]
    _outer(message, _multipart("mixed", f"=_{stem}-0", [plain, *attached]))


def _single(message: Mail, part: _Part) -> None:
    """A message of one part: its fields, then MIME-Version, as ``set_content`` leaves them."""
    for name, value in part.fields:
        message[name] = value
    message[MIME_VERSION] = "1.0"
    message.body = part.body


def _outer(message: Mail, body: _Part) -> None:
    """A multipart message: MIME-Version on top, then the outer Content-Type,
    as ``EmailMessage.make_alternative`` and ``make_mixed`` leave them."""
    message[MIME_VERSION] = "1.0"
    for name, value in body.fields:
        message[name] = value
    message.body = body.body


def _text_part(text: str, subtype: str, light: bool, mime_version: bool = False,
               filename: str | None = None, method: str | None = None) -> _Part:
    """A text part as ``set_content(text, subtype, charset="utf-8", cte=...)``
    makes it: quoted-printable, or 7bit when ``light`` and it can be
    (``method``: a calendar part's iTIP method, a parameter of its type).
    The part's lines are those ``bytes.splitlines`` finds in the text's
    UTF-8, each ended by a line feed; an ASCII text without a carriage
    return (gm's own, most often) is those lines already, but for a last
    line feed it may lack, so it is neither encoded, split nor joined."""
    if "\r" not in text and text.isascii():
        ascii_body = text if text.endswith("\n") else text + "\n"
        if light and max(map(len, ascii_body.split("\n"))) <= MAX_7BIT_LINE:
            cte, payload = "7bit", ascii_body
        else:
            cte, payload = "quoted-printable", _quoted_printable(ascii_body)
        return _text_fields(subtype, cte, payload, mime_version, filename, method)
    lines = text.encode("utf-8").splitlines()
    body = b"\n".join(lines) + b"\n"
    if light and body.isascii() and max(map(len, lines), default=0) <= MAX_7BIT_LINE:
        cte, payload = "7bit", body.decode("ascii")
    else:
        cte, payload = "quoted-printable", _quoted_printable(body.decode("latin-1"))
    return _text_fields(subtype, cte, payload, mime_version, filename, method)


def _text_fields(subtype: str, cte: str, payload: str, mime_version: bool = False,
                 filename: str | None = None, method: str | None = None) -> _Part:
    """A text part with its payload encoded as ``cte`` says, its fields in
    the order ``set_content`` writes them; ``mime_version`` for a part an
    ``EmailMessage`` method made (``add_alternative``, ``add_attachment``)."""
    kind = f'text/{subtype}; charset="utf-8"' + (f"; method={method}" if method else "")
    fields = [("Content-Type", kind), ("Content-Transfer-Encoding", cte)]
    if filename is not None:
        fields.append(("Content-Disposition", _disposition(filename)))
    if mime_version:
        fields.append((MIME_VERSION, "1.0"))
    return _Part(fields, _crlf(payload))


def _chosen_encoding(text: str) -> tuple[str, str]:
    """(cte, payload): how ``set_content(text, charset="utf-8")`` without a
    cte encoded a text under the SMTP policy (``contentmanager._encode_text``):
    7bit when every line is short and ASCII, 8bit when short and not; else
    quoted-printable or base64, whichever was shorter on the first ten lines
    (written with CRLF line ends, which the shorter text keeps as its own
    when the whole text is those ten lines)."""
    lines = text.encode("utf-8").splitlines()
    normal = b"\n".join(lines) + b"\n"
    if max(map(len, lines), default=0) <= MAX_LINE:
        if normal.isascii():
            return "7bit", normal.decode("ascii")
        return "8bit", normal.decode("ascii", "surrogateescape")
    sniff = b"\r\n".join(lines[:10]) + b"\r\n"
    sniff_qp = _quoted_printable(sniff.decode("latin-1"))
    if len(sniff_qp) > len(binascii.b2a_base64(sniff)):
        return "base64", _base64(b"\r\n".join(lines) + b"\r\n")
    if len(lines) <= 10:
        return "quoted-printable", sniff_qp
    return "quoted-printable", _quoted_printable(normal.decode("latin-1"))


_QP_OTHERS = re.compile(r"[^\t\n\r -~]")
"""What quoted-printable encodes besides "=": all but printable ASCII, tab, CR and LF."""


def _quoted_printable(body: str) -> str:
    """``email.quoprimime.body_encode(body, 78)``, the same string, in a
    fraction of its time: its ``str.translate`` of every character is most
    of it; here "=" is replaced first and the rest (rare in gm's mail) after.
    ``body`` holds one character a byte (latin-1)."""
    if not body:
        return body
    body = _QP_OTHERS.sub(lambda found: f"={ord(found.group()):02X}", body.replace("=", "=3D"))
    out: list[str] = []
    for line in body.splitlines():
        start, last = 0, len(line) - 1 - MAX_LINE
        while start <= last:  # a soft break every 77 characters, never inside an =XX
            stop = start + MAX_LINE - 1
            if line[stop - 2] == "=":
                out.append(line[start:stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                out.append(line[start:stop])
                start = stop - 1
            else:
                out.append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":  # whitespace ending a line is quoted
            room = start - last
            ending = f"={ord(line[-1]):02X}"
            if room >= 3:
                out.append(line[start:-1] + ending)
            elif room == 2:
                out.append(line[start:] + "=\n")
            else:
                out.append(line[start:-1] + "=\n" + ending)
        else:
            out.append(line[start:])
    if body[-1] in "\r\n":
        out.append("")
    return "\n".join(out)


def _attachment(data: bytes, filename: str) -> _Part:
    """A part as ``add_attachment(data, "application", "mbox", filename=...)`` makes it."""
    return _Part([("Content-Type", "application/mbox"), ("Content-Transfer-Encoding", "base64"),
                  ("Content-Disposition", _disposition(filename)), (MIME_VERSION, "1.0")], _crlf(_base64(data)))


def _disposition(filename: str) -> str:
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'attachment; filename="{quoted}"'


def _base64(data: bytes) -> str:
    """``data`` in base64 lines of `MAX_LINE` characters at most, LF-ended."""
    step = MAX_LINE // 4 * 3
    return "".join(binascii.b2a_base64(data[i:i + step]).decode("ascii") for i in range(0, len(data), step))


def _multipart(subtype: str, boundary: str, parts: list[_Part]) -> _Part:
    """Parts inside a multipart, as the email package's generator writes them."""
    inside = f"--{boundary}{CRLF}" + f"{CRLF}--{boundary}{CRLF}".join(p.text() for p in parts)
    return _Part([("Content-Type", f'multipart/{subtype}; boundary="{boundary}"')],
                 inside + f"{CRLF}--{boundary}--{CRLF}")


def _crlf(payload: str) -> str:
    """The payload's lines as the generator writes them, CRLF-ended. An
    encoded payload holds no CR: the text was split into lines before it was
    encoded, and quoted-printable and base64 end their lines in LF."""
    return payload.replace("\n", CRLF)


_REGISTRY = HeaderRegistry()
_PLAIN = re.compile(r"[!-~]+(?: [!-~]+)*")
"""Printable ASCII words, one space between them."""
_MSG_ID = re.compile(r"<[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+>")
_DATE = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
                   r"\d\d:\d\d:\d\d [+-]\d{4}")
_BOUNDARY = re.compile(r'multipart/(alternative|mixed); boundary="[A-Za-z0-9=_.+-]+"')


MAX_KEPT_FIELD = 1000
"""The longest value whose folded field is kept for the next message
(`_field`); a longer one (a game's record) is folded each time."""


def _field(name: str, value: str) -> str:
    """``name: value`` folded, CRLF-ended, exactly as ``EmailMessage(policy=SMTP)``
    writes a field set as ``message[name] = value`` (`_folded`). Kept for
    the next message when short: most of a message's fields are the same
    in the game's every mail (From, To, Reply-To, the commitments, the
    parts' MIME fields)."""
    return _kept_field(name, value) if len(value) <= MAX_KEPT_FIELD else _folded(name, value)


@functools.lru_cache(maxsize=4096)
def _kept_field(name: str, value: str) -> str:
    return _folded(name, value)


def _folded(name: str, value: str) -> str:
    """`_field`'s text, written now.

    The email package parses each value into a structured header and folds
    it again on output: the cost issue 12 measured. Plain values (printable
    ASCII words, one space apart, no encoded word) of a few kinds come out
    of that as they went in, or, when unstructured and too long for one
    line, folded between words (`_fold_words`); they are written here. Any
    other value (an address, non-ASCII, a long Message-ID) is the package's
    to fold, once for each name and value (`_folded_by_package`).
    tests/test_mail_bytes.py checks the two agree."""
    if _PLAIN.fullmatch(value) and "=?" not in value:
        kind = name.lower()
        if kind == "subject" or kind not in _REGISTRY.registry:
            folded = _fold_words(name, value)
            if folded is not None:
                return folded
        elif len(name) + 2 + len(value) <= MAX_LINE and (
                (kind == "message-id" and _MSG_ID.fullmatch(value))
                or (kind == "date" and _DATE.fullmatch(value)
                    and format_datetime(parsedate_to_datetime(value)) == value)
                or (kind == "content-type" and _BOUNDARY.fullmatch(value) and len(name) + 2 + len(value) < MAX_LINE)):
            return f"{name}: {value}{CRLF}"
    return _folded_by_package(name, value)


def _fold_words(name: str, value: str) -> str | None:
    """An unstructured field of plain words folded as the email package folds
    it (``_header_value_parser._refold_parse_tree``): on one line if it fits;
    else the whole value alone on the next line if it fits there; else word
    by word, each line as full as it goes, a line broken before a word. None
    for a word too long for a line, which the package would encode."""
    first = f"{name}: "
    if len(first) + len(value) <= MAX_LINE:
        return f"{first}{value}{CRLF}"
    if len(value) + 1 <= MAX_LINE:
        return f"{name}:{CRLF} {value}{CRLF}"
    lines = [first]
    for n, word in enumerate(value.split(" ")):
        if len(word) + 1 > MAX_LINE:
            return None
        if n:
            if len(lines[-1]) + 1 <= MAX_LINE:
                lines[-1] += " "
            else:
                lines.append(" ")
        if len(lines[-1]) + len(word) <= MAX_LINE:
            lines[-1] += word
        else:  # the space before the word starts the next line
            lines[-1] = lines[-1][:-1]
            lines.append(" " + word)
    return CRLF.join(lines) + CRLF


@functools.lru_cache(maxsize=4096)
def _folded_by_package(name: str, value: str) -> str:
    """The field as the email package writes it (its values repeat: a game's
    From, a player's To and Reply-To, the parts' MIME fields)."""
    return SMTP.fold_binary(name, SMTP.header_store_parse(name, value)[1]).decode("ascii", "surrogateescape")


def _fix_boundaries(message: EmailMessage, stem: str) -> None:
    """Deterministic MIME boundaries, so that a replay rebuilds the same bytes."""
    for n, part in enumerate(message.walk()):
        if part.is_multipart():
            part.set_boundary(f"=_{stem}-{n}")


def as_bytes(message: Mail) -> bytes:
    return message.as_bytes()


