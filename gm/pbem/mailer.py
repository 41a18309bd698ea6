"""Turning the engine's notices into mail: Jinja templates and RFC 5322 headers.

Every message the GM sends has a deterministic Message-ID (game, event
number, position), threads with ``In-Reply-To``/``References``, carries the
game's subject tag and an ``Auto-Submitted`` header [RFC 3834], and a
Reply-To address holding the player's token. The token is left as a
placeholder here (`gm.pbem.tokens`): the archive keeps the message masked,
the outbox gets it filled in.
"""

from __future__ import annotations

import binascii
import functools
import re
import textwrap
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import HeaderRegistry
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid, parsedate_to_datetime
from html import escape
from typing import Any

import jinja2

from ..kernel.values import LIGHT_MAIL_EDITION, Notice
from ..kernel.model import MailGame
from .tokens import PLACEHOLDER

TEMPLATES = jinja2.PackageLoader("gm", "templates")
"""The templates ship inside the package as ``gm/templates`` (the project's
top-level ``templates/`` folder, mapped there by setup.cfg's package_dir), so
an installed gm finds them wherever it runs from."""
GAME_HEADER = "X-GM-Game"
"""Marks every message the GM sends, so that its own mail coming back is known."""


DEFAULT_NAME = "Spaceships GM"


@dataclass(frozen=True)
class Identity:
    """Who the GM is on the wire."""

    address: str = "gm@localhost"
    name: str = "Spaceships GM"  # DEFAULT_NAME: what games made before names came were sent under

    def name_for(self, title: str) -> str:
        """The name a game's mail is sent under: the default names the game
        ("Grid Fighters GM"); a name of the operator's own stays as it is."""
        return f"{title} GM" if self.name == DEFAULT_NAME else self.name

    @property
    def local(self) -> str:
        return self.address.split("@", 1)[0]

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1]

    def reply_address(self, game: str, player: int, token: str = PLACEHOLDER) -> str:
        """The plus-address a player replies to: ``gm+GAME.PLAYER.TOKEN@domain``."""
        return f"{self.local}+{game}.{player}.{token}@{self.domain}"


KERNEL = "gm"
"""The package of the kernel's templates; a game's own are found first."""


@functools.cache
def _loader(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.BaseLoader:
    """A game's templates (from ``folders`` of its package, first found
    first), then the kernel's."""
    if package == KERNEL:
        return TEMPLATES
    return jinja2.ChoiceLoader([*(jinja2.PackageLoader(package, folder) for folder in folders), TEMPLATES])


@functools.cache
def _text_environment(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=_loader(package, folders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        autoescape=False,
    )
    environment.filters["hang"] = _hang
    return environment


@functools.cache
def _html_environment(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.Environment:
    return jinja2.Environment(loader=_loader(package, folders), undefined=jinja2.StrictUndefined, autoescape=True)


def _hang(text: str, indent: int, width: int = 78) -> str:
    """Wrap text that starts at column ``indent`` so that no line passes
    ``width``; continuation lines start at ``indent`` too."""
    lines = textwrap.wrap(str(text), width - indent, break_on_hyphens=False, break_long_words=False)
    return ("\n" + " " * indent).join(lines)


def render_html(template: str, data: dict[str, Any], package: str = KERNEL,
                folders: tuple[str, ...] = ("templates",)) -> str | None:
    """A notice's HTML body, for the templates that have one (``package``'s
    own templates first, then the kernel's)."""
    try:
        page = _html_environment(package, folders).get_template(f"{template}.html")
    except jinja2.TemplateNotFound:
        return None
    return page.render(token=PLACEHOLDER, **data)


def render_text(template: str, data: dict[str, Any], package: str = KERNEL,
                folders: tuple[str, ...] = ("templates",)) -> str:
    """A notice's plain-text body (``package``'s own templates, from
    ``folders`` in turn, first, then the kernel's)."""
    text = _text_environment(package, folders).get_template(f"{template}.txt").render(token=PLACEHOLDER, **data)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    collapsed: list[str] = []
    for line in lines:
        if line or (collapsed and collapsed[-1]):
            collapsed.append(line)
    return "\n".join(collapsed) + "\n"


BANNER = "=" * 78
"""Above and below the title of each document a reply encloses."""


def body_text(notice: Notice, package: str = KERNEL, folders: tuple[str, ...] = ("templates",)) -> str:
    """A notice's text, then each document it encloses under a banner naming
    it. The header naming the game and the player is said once, at the top,
    and how to answer once, at the end (``bare_header``, ``bare_footer``)."""
    whole = render_text(notice.template, notice.data, package, folders)
    if not notice.enclosed:
        return whole
    own = render_text(notice.template, notice.data | {"bare_footer": True}, package, folders)
    text = own
    for enclosed in notice.enclosed:
        text += f"\n{BANNER}\n{enclosed.subject}\n{BANNER}\n\n"
        text += render_text(enclosed.template, enclosed.data | {"bare_header": True, "bare_footer": True},
                            package, folders)
    if whole != own:  # the reply says how to answer: at the very end
        text += "\n" + render_text("_reply", notice.data, package, folders)
    return text


def body_html(notice: Notice, package: str = KERNEL, folders: tuple[str, ...] = ("templates",)) -> str | None:
    """A notice's HTML alternative, if it or a document it encloses has one.

    A reply that encloses an HTML sheet becomes one page holding the same as
    its text: the reply and each document without HTML as preformatted
    text, each HTML document's body as it is (its ``<style>`` blocks moved
    into the page's head), so that the two alternatives say the same."""
    own = render_html(notice.template, notice.data, package, folders)
    pages = [render_html(e.template, e.data, package, folders) for e in notice.enclosed]
    if not notice.enclosed or not any(pages):
        return own
    styles: list[str] = []
    parts = [_inner(own, styles) if own else _pre(render_text(notice.template, notice.data, package, folders))]
    for enclosed, page in zip(notice.enclosed, pages):
        parts.append(f"<hr>\n<h2>{escape(enclosed.subject)}</h2>")
        parts.append(_inner(page, styles) if page else _pre(render_text(enclosed.template, enclosed.data, package, folders)))
    head = "".join(styles)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{escape(notice.subject)}</title>'
            f"{head}</head>\n<body>\n" + "\n".join(parts) + "\n</body></html>\n")


def _pre(text: str) -> str:
    return f"<pre>{escape(text)}</pre>"


def _inner(page: str, styles: list[str]) -> str:
    """The body of a whole HTML page, in a ``div`` that keeps the body's
    attributes; its ``<style>`` blocks are added to ``styles``."""
    styles.extend(re.findall(r"<style>.*?</style>", page, re.S))
    found = re.search(r"<body([^>]*)>(.*)</body>", page, re.S)
    if found is None:
        return page
    return f"<div{found.group(1)}>{found.group(2)}</div>"


def message_id(identity: Identity, game: MailGame, event: int, position: int) -> str:
    """The Message-ID of the GM's ``position``-th message for event ``event``.

    The game's instance tag makes it unique to the installation: a data
    directory made afresh numbers its games from g1 again, and mail providers
    drop a message whose Message-ID a mailbox already holds."""
    tag = f".{game.instance}" if game.instance else ""
    return f"<{game.id}.{event}.{position}{tag}@{identity.domain}>"


def build(
    notice: Notice,
    game: MailGame,
    identity: Identity,
    event: int,
    position: int,
    at: datetime,
    thread: list[str],
    archive: bytes | None = None,
) -> Mail | EmailMessage:
    """The message for one notice. ``thread`` is the Message-IDs of earlier
    mail in this player's conversation, oldest first; ``archive`` is the
    player's mailbox of the game so far, attached when the notice asks for it.

    It is written out here, field by field and part by part (`Mail`), in
    exactly the bytes the email package's ``EmailMessage`` with
    ``set_content``, ``add_alternative`` and ``add_attachment`` wrote for
    every edition before, at a fraction of its cost; the package still folds
    every header field that is not plain ASCII in one short line (`_field`).
    Games of `LIGHT_MAIL_EDITION` on send a part that is ASCII in lines of at
    most 998 characters as 7bit, not quoted-printable."""
    if notice.observer:
        from .observers import build_observer
        return build_observer(notice, game, identity, event, position, at, thread)
    seat = game.seat(notice.player)
    message = Mail()
    message["From"] = f"{identity.name_for(game.rules.title)} <{identity.address}>"
    message["To"] = seat.address
    message["Reply-To"] = identity.reply_address(game.id, notice.player)
    message["Subject"] = f"[gm {game.id}] {notice.subject}"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id(identity, game, event, position)
    parent = notice.answers or (thread[-1] if thread else None)
    if parent:
        message["In-Reply-To"] = parent
        references = [*thread[-8:]]
        if notice.answers and notice.answers not in references:
            references.append(notice.answers)
        message["References"] = " ".join(references)
    message["Auto-Submitted"] = "auto-replied" if notice.answers else "auto-generated"
    message[GAME_HEADER] = game.id
    message["X-GM-Player"] = str(notice.player)
    package, folders = game.rules.templates, game.rules.template_folders(game.edition)
    attached = archive if notice.attach_archive else None
    _fill(message, body_text(notice, package, folders), body_html(notice, package, folders),
          attached, f"game-{game.id}.mbox", f"gm-{game.id}-{event}-{position}", game.edition >= LIGHT_MAIL_EDITION)
    return message


# --------------------------------------------------------------------------
# Writing a message out without the email package's object model

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


def _fill(message: Mail, text: str, html: str | None, attached: bytes | None, filename: str, stem: str,
          light: bool) -> None:
    """Give ``message`` its MIME fields and body: ``text``, with ``html`` as
    its alternative and ``attached`` (an mbox) as an attachment if they are
    not None, as ``set_content``, ``add_alternative``, ``add_attachment``
    and `_fix_boundaries` (``stem``) did on an ``EmailMessage``."""
    plain = _text_part(text, "plain", light)
    if html is None and attached is None:
        for name, value in plain.fields:
            message[name] = value
        message[MIME_VERSION] = "1.0"
        message.body = plain.body
        return
    # A multipart: MIME-Version on top, then the outer Content-Type, as
    # EmailMessage.make_alternative and make_mixed leave them; boundaries
    # numbered as _fix_boundaries numbers the parts, in the order walk() goes.
    body = plain
    if html is not None:
        body = _multipart("alternative", f"=_{stem}-{0 if attached is None else 1}",
                          [plain, _text_part(html, "html", light, mime_version=True)])
    if attached is not None:
        body = _multipart("mixed", f"=_{stem}-0", [body, _attachment(attached, filename)])
    message[MIME_VERSION] = "1.0"
    for name, value in body.fields:
        message[name] = value
    message.body = body.body


def _text_part(text: str, subtype: str, light: bool, mime_version: bool = False) -> _Part:
    """A text part as ``set_content(text, subtype, charset="utf-8", cte=...)``
    makes it: quoted-printable, or 7bit when ``light`` and it can be."""
    lines = text.encode("utf-8").splitlines()
    body = b"\n".join(lines) + b"\n"
    if light and body.isascii() and max(map(len, lines), default=0) <= MAX_7BIT_LINE:
        cte, payload = "7bit", body.decode("ascii")
    else:
        cte, payload = "quoted-printable", _quoted_printable(body.decode("latin-1"))
    fields = [("Content-Type", f'text/{subtype}; charset="utf-8"'), ("Content-Transfer-Encoding", cte)]
    if mime_version:  # a part EmailMessage.add_alternative made
        fields.append((MIME_VERSION, "1.0"))
    return _Part(fields, _crlf(payload))


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
    step = MAX_LINE // 4 * 3
    payload = "".join(binascii.b2a_base64(data[i:i + step]).decode("ascii") for i in range(0, len(data), step))
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    return _Part([("Content-Type", "application/mbox"), ("Content-Transfer-Encoding", "base64"),
                  ("Content-Disposition", f'attachment; filename="{quoted}"'), (MIME_VERSION, "1.0")],
                 _crlf(payload))


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


def _field(name: str, value: str) -> str:
    """``name: value`` folded, CRLF-ended, exactly as ``EmailMessage(policy=SMTP)``
    writes a field set as ``message[name] = value``.

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
                or (kind == "date" and _DATE.fullmatch(value) and format_datetime(parsedate_to_datetime(value)) == value)):
            return f"{name}: {value}{CRLF}"
        elif kind == "content-type" and _BOUNDARY.fullmatch(value) and len(name) + 2 + len(value) < MAX_LINE:
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


def as_bytes(message: Mail | EmailMessage) -> bytes:
    if isinstance(message, Mail):
        return message.as_bytes()
    return message.as_bytes(policy=SMTP)


__all__ = ["Identity", "Mail", "build", "render_text", "as_bytes", "message_id", "make_msgid"]
