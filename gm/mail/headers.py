"""Reading a message's headers defensively.

Pure: no I/O, and nothing here raises, whatever the header holds. Header
values come from strangers: an encoded word (RFC 2047) may decode to CR LF
and a forged header, a field may hold bytes that are not UTF-8, a Message-ID
may be 5,000 characters of junk. So:

* `header_text` gives one line of printable text (encoded words decoded,
  control characters made spaces, length capped), for showing or matching;
* `message_id_of` gives a syntactically valid ``<left@right>`` msg-id or
  None; it is the only form of a player's header gm may copy into its own
  headers (In-Reply-To, References);
* `addresses` gives addr-specs without control characters, and
  `from_trouble` says in a few words why the From field gave none;
* `clean_subject` strips reply and forward prefixes but keeps ``[tags]``.
"""

from __future__ import annotations

import re
from email.headerregistry import HeaderRegistry
from email.message import Message

__all__ = [
    "MAX_HEADER_CHARS",
    "MAX_MESSAGE_ID_CHARS",
    "addresses",
    "clean_subject",
    "from_trouble",
    "header_text",
    "message_id_of",
]

_REGISTRY = HeaderRegistry()
MAX_HEADER_CHARS = 998
"""Characters of a header's text `header_text` gives at most (RFC 5322's line limit)."""
MAX_MESSAGE_ID_CHARS = 250
"""A longer Message-ID is not taken as one."""
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

# --------------------------------------------------------------------------
# Subjects

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
            if strict and any(a in str(d) for d in getattr(parsed, "defects", ()) for a in _AMBIGUOUS):
                continue
            for address in parsed.addresses:
                spec = _unescape(address.addr_spec)
                domain = _unescape(address.domain)
                local = spec.rpartition("@")[0] if domain else spec
                if local and local != "<>" and not _ANY_CONTROL.search(local + domain):
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


def from_trouble(message: Message) -> str:
    """Why the From field of ``message`` names no sender gm can answer, in a
    few words for the log and the shunt (never the field's own text): no
    From field; a line break or other control character in it, also one
    hidden in an encoded word; a quoted name that does not end (a line
    break in it ends the field); no address in it; an address `email` reads
    differently from a mail client (see `_mailboxes`); an address without a
    domain; else an address that cannot be replied to."""
    raw = _raw_values(message, "From")
    if not raw:
        return "no From field"
    decoded = "".join(_decode_header_text(value) for value in raw)
    if "\r" in decoded or "\n" in decoded:
        return "the From field cannot be read: a line break (CR or LF) in it"
    if _ANY_CONTROL.search(decoded.replace("\t", " ")):
        return "the From field cannot be read: a control character in it"
    if any(re.sub(r"\\.", "", value).count('"') % 2 for value in raw):
        return "the From field ends inside a quoted name (a line break in the name?)"
    if not _mailboxes(message, "From"):
        return "the From field names no address"
    strict = _mailboxes(message, "From", strict=True)
    if not strict:
        return "the From field cannot be read as one address"
    if not any(domain for _, domain in strict):
        return "the From address has no domain"
    return "the From address cannot be replied to"


# --------------------------------------------------------------------------
# Any header, and the Message-ID


def _raw_values(message: Message, name: str) -> list[str]:
    """The fields ``name`` as they came, unfolded (no encoded words decoded)."""
    try:
        items = message.raw_items()
        values = [str(v) for k, v in items if str(k).lower() == name.lower()]
    except Exception:
        return []
    return [re.sub(r"\r?\n(?=[ \t])", "", v) for v in values]


def header_text(message: Message, name: str) -> str:
    """The first ``name`` field's text, decoded, on one line; ``""`` if none.

    Encoded words are decoded and bytes that are not UTF-8 replaced; CR, LF
    and every other control character but tab become spaces, so the text can
    never start a new header line; at most `MAX_HEADER_CHARS` characters.
    """
    try:
        value = message.get(name)
        text = None if value is None else str(value)
    except Exception:
        raw = _raw_values(message, name)
        text = _decode_header_text(raw[0]) if raw else None
    if text is None:
        return ""
    return _CONTROL.sub(" ", _unescape(text)).strip()[:MAX_HEADER_CHARS]


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATEXT}(?:\.{_ATEXT})*"
_MSG_ID = re.compile(rf"<({_DOT_ATOM}@(?:{_DOT_ATOM}|\[[!-Z^-~]*\]))>|({_DOT_ATOM}@{_DOT_ATOM})")
_COMMENT = re.compile(r"\([^()]*\)")


def message_id_of(message: Message, field: str = "Message-ID") -> str | None:
    """The message's Message-ID (or the msg-id in another ``field``, such as
    In-Reply-To) as a valid msg-id ``<left@right>``, or None.

    Read from the first Message-ID field as it came: comments and folding
    are dropped, a missing pair of angle brackets is added. Anything else
    that is not exactly a msg-id of RFC 5322 (dot-atom ``@`` dot-atom or
    ``[literal]``, printable ASCII only) gives None: an encoded word (which
    a msg-id may not hold, and which may hide CR LF), spaces, quotes,
    non-ASCII, and ids longer than `MAX_MESSAGE_ID_CHARS`. The result is
    safe to copy into In-Reply-To and References.
    """
    values = _raw_values(message, field)
    if not values:
        return None
    value = values[0]
    if len(value) > 4 * MAX_MESSAGE_ID_CHARS:
        return None
    for _ in range(3):  # comments nest, a little
        value = _COMMENT.sub(" ", value)
    found = _MSG_ID.fullmatch(value.strip(" \t"))
    if found is None:
        return None
    msg_id = f"<{found.group(1) or found.group(2)}>"
    return msg_id if len(msg_id) <= MAX_MESSAGE_ID_CHARS else None
