"""What the player wrote, read from a real RFC 5322 message.

Pure: no I/O, no network, no clock. Everything here is tolerant: garbage in
gives something (possibly empty) out, never an exception.

`parse_message` turns raw bytes into an `email.message.EmailMessage`.
`body_text` picks the text the player typed: the first text/plain part that
is not an attachment, else the first text/html part converted to text;
charsets, quoted-printable and base64 are decoded, format=flowed (RFC 3676)
is unwrapped and CRLF becomes ``\\n``. `new_lines` keeps only the player's own
new lines, dropping quoted text, attributions, signatures and Outlook-style
original-message blocks. `player_text` is the two together. `clean_subject`
strips reply and forward prefixes but keeps ``[tags]``; `addresses` lists the
addr-specs of a header.

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
import email
import email.policy
import re
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage, Message
from html.parser import HTMLParser

__all__ = ["parse_message", "body_text", "new_lines", "clean_subject", "player_text", "addresses"]

_POLICY = email.policy.default
_REGISTRY = HeaderRegistry()


# --------------------------------------------------------------------------
# Parsing


def parse_message(raw: bytes) -> EmailMessage:
    """The message in ``raw`` (RFC 5322 bytes), parsed with policy=default.

    Never raises: broken MIME is recorded as defects by `email`; if the parser
    fails outright, the bytes (read as latin-1) become the body of an
    otherwise empty text/plain message.
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
    except Exception:
        pass
    fallback = EmailMessage(policy=_POLICY)
    try:
        fallback.set_content(raw.decode("latin-1"))
    except Exception:
        pass
    return fallback


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
        text = _plain_text(plain)
        if text.strip() or html is None:
            return text
    if html is not None:
        return _safe(lambda: html_to_text(_decoded(html)), "")
    return ""


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
    paragraph: str | None = None
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
            out.append(render(paragraph_depth, paragraph))
            paragraph = None
        if flowed and delsp:
            content = content[:-1]
        if paragraph is None:
            paragraph, paragraph_depth = content, depth
        else:
            paragraph += content
        if not flowed:
            out.append(render(paragraph_depth, paragraph))
            paragraph = None
    if paragraph is not None:
        out.append(render(paragraph_depth, paragraph))
    return "\n".join(out) + ("\n" if ends_with_newline else "")


# --------------------------------------------------------------------------
# HTML to text

_BLOCK = frozenset(
    "address article aside blockquote body center dd details dialog dir div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hgroup html li main menu nav ol p pre section summary table tbody "
    "tfoot thead tr ul".split()
)
_SKIP = frozenset("script style head title template noscript".split())
_CELL = frozenset(("td", "th"))
_ASCII_SPACE = re.compile(r"[ \t\n\r\f]+")


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.quote_depth = 0
        self.skip_depth = 0
        self.pre_depth = 0
        self.pre_start = False

    # A line is flushed at a block boundary only if it has content; <br> always flushes.
    def _has_content(self) -> bool:
        return any(s.strip(" ") for s in self.current)

    def _flush(self, force: bool) -> None:
        if not force and not self._has_content():
            self.current = []
            return
        line = "".join(self.current).strip(" ").replace("\xa0", " ").rstrip(" ")
        self.current = []
        if self.quote_depth:
            line = ">" * self.quote_depth + (" " + line if line else "")
        self.lines.append(line)

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if tag == "br":
            self._flush(force=True)
        elif tag == "hr":
            self._flush(force=False)
            self.current = ["_" * 32]
            self._flush(force=True)
        elif tag in _BLOCK:
            self._flush(force=False)
            if tag == "blockquote":
                self.quote_depth += 1
            elif tag == "pre":
                self.pre_depth += 1
                self.pre_start = True
        elif tag in _CELL:
            self._space()

    def _space(self) -> None:
        if not (self.current and self.current[-1].endswith(" ")):
            self.current.append(" ")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag in _SKIP:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if tag in _BLOCK:
            self._flush(force=False)
            if tag == "blockquote":
                self.quote_depth = max(0, self.quote_depth - 1)
            elif tag == "pre":
                self.pre_depth = max(0, self.pre_depth - 1)
        elif tag in _CELL:
            self._space()

    def handle_data(self, data):
        if self.skip_depth:
            return
        if self.pre_depth:
            if self.pre_start and data.startswith(("\r\n", "\n", "\r")):
                data = data[2:] if data.startswith("\r\n") else data[1:]
            self.pre_start = False
            pieces = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for i, piece in enumerate(pieces):
                if i:
                    self._flush(force=True)
                self.current.append(piece.replace(" ", "\xa0"))
            return
        text = _ASCII_SPACE.sub(" ", data)
        if text.startswith(" ") and self.current and self.current[-1].endswith(" "):
            text = text[1:]
        if text:
            self.current.append(text)

    def close(self):
        super().close()
        self._flush(force=False)


def _html_lines(html: str) -> list[str] | None:
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except Exception:
        return None
    return parser.lines


def html_to_text(html: str) -> str:
    """Text from HTML as a reader sees it: one line per block or ``<br>``.

    Whitespace collapses as in a browser (except in ``<pre>``); entities are
    decoded; script, style and head are dropped; lines inside
    ``<blockquote>`` are marked as quoted with ``>`` (one per level).
    Leading and trailing blank lines are dropped; the text ends with a line
    break unless it is empty.
    """
    lines = _html_lines(html)
    if lines is None:
        # html.parser fails (AssertionError) on some malformed declarations
        # such as "<![ x [": drop every declaration but comments and retry.
        lines = _html_lines(re.sub(r"<!(?!--)[^>]*>?", "", html))
    if lines is None:
        lines = [_ASCII_SPACE.sub(" ", re.sub(r"<[^>]*>?", " ", html)).strip()]
    while lines and not lines[-1].strip():
        lines.pop()
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    lines = lines[start:]
    return "\n".join(lines) + "\n" if lines else ""


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


# --------------------------------------------------------------------------
# Headers

_PREFIX = re.compile(
    r"(Re|Fwd|Fw|AW|WG|SV|VS|Antw|Doorst|TR|RV|Enc|Rif|Odp|PD)\s*(\[\d+\]|\(\d+\))?\s*[:：]\s*",
    re.IGNORECASE,
)
_TAG = re.compile(r"\[[^\[\]]*\]\s*")


def _decode_header_text(value: str) -> str:
    """A raw header value with RFC 2047 encoded words decoded and folding undone."""
    value = re.sub(r"\r?\n(?=[ \t])", "", str(value))
    if "=?" not in value:
        return value
    try:
        return str(_REGISTRY("subject", value))
    except Exception:
        return value


def clean_subject(subject: str | None) -> str:
    """The subject without reply/forward prefixes.

    The prefixes are Re, Fwd, Fw, AW, WG, SV, VS, Antw, Doorst, TR, RV, Enc,
    Rif, Odp and PD, in any case, with an optional counter (``Re[2]:``) and
    an ASCII or full-width colon.

    Prefixes are stripped wherever they repeat among the leading prefixes and
    ``[tags]``; the tags are kept, in order, e.g.
    ``Re: Fwd: RE: [gm 12] Re: Turn 3`` -> ``[gm 12] Turn 3``. Encoded words
    (``=?utf-8?q?...?=``) are decoded.
    """
    if subject is None:
        return ""
    text = _decode_header_text(subject).strip()
    tags: list[str] = []
    position = 0
    while position < len(text):
        prefix = _PREFIX.match(text, position)
        if prefix:
            position = prefix.end()
            continue
        tag = _TAG.match(text, position)
        if tag:
            tags.append(tag.group(0).strip())
            position = tag.end()
            continue
        break
    rest = text[position:].strip()
    return " ".join(tags + ([rest] if rest else []))


_AMBIGUOUS = ("invalid address", "local-part is not")


def _unescape(text: str) -> str:
    """Raw UTF-8 bytes in a header (RFC 6532) come from `email` as surrogate escapes."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except Exception:
        return text


def _mailboxes(message: Message, header: str, strict: bool = False) -> list[tuple[str, str]]:
    """(local part, domain) of each address in every ``header`` field; domain may be "".

    With ``strict``, a field of which `email` could not read every part as an
    address gives nothing: the part it skipped may be the real address (it
    reads ``a@example.org <b@example.com>`` as a@example.org, a mail client
    as b@example.com).
    """
    found: list[tuple[str, str]] = []
    try:
        values = message.get_all(header) or []
    except Exception:
        return []
    for value in values:
        try:
            parsed = value if hasattr(value, "addresses") else _REGISTRY("to", str(value))
            if strict and any(a in str(d) for d in parsed.defects for a in _AMBIGUOUS):
                continue
            for address in parsed.addresses:
                spec = _unescape(address.addr_spec)
                domain = _unescape(address.domain)
                local = spec.rpartition("@")[0] if domain else spec
                if local and local != "<>":
                    found.append((local, domain.lower()))
        except Exception:
            continue
    return found


def addresses(message: Message, header: str) -> list[str]:
    """The addr-specs (``local@domain``) in every ``header`` field of ``message``.

    The domain is lowercased, the local part kept as written (quoted if it
    must be). Addresses without a domain are left out, and so is a whole
    field that `email` could only partly read as addresses (ambiguous, see
    `_mailboxes`); a header that cannot be parsed at all gives ``[]``.
    """
    return [f"{local}@{domain}" for local, domain in _mailboxes(message, header, strict=True) if domain]
