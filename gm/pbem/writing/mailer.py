"""Turning the engine's notices into mail: Jinja templates and RFC 5322 headers.

Every message the GM sends has a deterministic Message-ID (game, event
number, position), threads with ``In-Reply-To``/``References``, carries the
game's subject tag and an ``Auto-Submitted`` header [RFC 3834], and a
Reply-To address holding the player's token. The token is left as a
placeholder here (`gm.pbem.data.tokens`): the archive keeps the message masked,
the outbox gets it filled in.
"""

from __future__ import annotations

import functools
import re
import textwrap
from collections.abc import MutableMapping
from dataclasses import dataclass, replace
from datetime import datetime
from email.utils import format_datetime
from html import escape
from typing import Any

import jinja2

from ...kernel import commitments
from ...kernel.model import MailGame
from ...kernel.values import LIGHT_MAIL_EDITION, SHEETS_EDITION, TIME_EDITION, Notice
from ..data.tokens import PLACEHOLDER
from .calendar import ical, method
from .lists import NOTICE_TEMPLATES, add_list_headers, unsubscribe_tag
from .writer import Mail, _fill

TEMPLATES = jinja2.PackageLoader("gm.templates", ".")
"""The kernel's templates, found as the package ``gm.templates`` (the
project's top-level ``templates/`` folder, mapped there by setup.cfg's
package_dir): asking for that package, not for a ``templates`` folder inside
gm's, is what finds them in a wheel, an sdist and an editable install alike."""
GAME_HEADER = "X-GM-Game"
"""Marks every message the GM sends, so that its own mail coming back is known."""


DEFAULT_NAME = "Spaceships GM"
"""The name gm is configured with unless the operator gives one: each game's
mail is sent under the game's own (`Identity.name_for`), and the GM's own
events are archived under this very name, as they always were."""
OUTSIDE_NAME = "Game master"
"""The name mail about no game (the games list, ratings, a tournament's
join, the how-to-play answer) is sent under by default: it names no one game."""


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
    def outside_name(self) -> str:
        """The name mail about no game is sent under: the default names no
        one game (`OUTSIDE_NAME`); a name of the operator's own stays as it is."""
        return OUTSIDE_NAME if self.name == DEFAULT_NAME else self.name

    @property
    def local(self) -> str:
        return self.address.split("@", 1)[0]

    @property
    def domain(self) -> str:
        return self.address.split("@", 1)[1]

    def reply_address(self, game: str, player: int, token: str = PLACEHOLDER) -> str:
        """The plus-address a player replies to: ``gm+GAME.PLAYER.TOKEN@domain``."""
        return f"{self.local}+{game}.{player}.{token}@{self.domain}"


LIST_HEADERS_EDITION = TIME_EDITION
"""The first edition whose reminders carry list headers (`gm.pbem.writing.lists`)."""

KERNEL = "gm"
"""The package of the kernel's templates; a game's own are found first."""


@functools.cache
def _loader(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.BaseLoader:
    """A game's templates (from ``folders`` of its package, first found
    first), then the kernel's."""
    if package == KERNEL:
        return TEMPLATES
    return jinja2.ChoiceLoader([*(jinja2.PackageLoader(package, folder) for folder in folders), TEMPLATES])


_DICT_ATTRIBUTES = frozenset(dir(dict))
"""What ``getattr`` finds on a plain dict: its methods and object's."""


class _Environment(jinja2.Environment):
    """Jinja's environment, but ``data.name`` on a plain dict (what every
    notice's data is) looks up the key straight away. Jinja asks for an
    attribute first and catches the AttributeError before it looks up the
    key: a raised error for every field a template shows (some 18,000 in a
    Spaceships game of 40 turns), about 4% of `gm replay`'s time. Anything
    else (a dict's own method, another object, a missing key) goes as
    Jinja's own ``getattr`` goes, so each name resolves to what it did.

    Two more costs of every render, and of every template it includes or
    imports from, are kept once instead (`make_globals`, `get_template`)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._found: dict[tuple[str, str | None], jinja2.Template] = {}

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """A template's globals as one plain dict, where Jinja makes a
        ChainMap over the environment's: each render, and each template it
        includes, copies them into its context and makes a set of their
        names, and iterating a ChainMap for that builds a dict of its maps
        every time. The same names and values, as gm sets no global after
        its environments are made."""
        return {**self.globals, **(d or {})}

    def get_template(self, name: str | jinja2.Template, parent: str | None = None,
                     globals: MutableMapping[str, Any] | None = None) -> jinja2.Template:
        """The template ``name``, kept once found: each ``include`` and
        ``from ... import`` asks for its template on every render, and Jinja
        looks it up in its locked LRU cache under a new weak reference to
        the loader each time. The environments never reload a template
        (``auto_reload=False``), so the one kept is the one Jinja would
        give; a name not found is asked for again, as before."""
        if globals or not isinstance(name, str):
            return super().get_template(name, parent, globals)
        key = (name, parent)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = super().get_template(name, parent)
        return found

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        try:  # as Jinja's own (without the call to it: most names are a grid cell's attributes)
            return getattr(obj, attribute)
        except AttributeError:
            return super().getattr(obj, attribute)


@functools.cache
def _text_environment(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.Environment:
    """The environment of a game's text templates. Like the HTML one, it
    keeps each template as first compiled (``auto_reload=False``): they are
    gm's package data, which do not change while it runs, and looking at
    each file's time whenever a template (or one it imports) was used was a
    tenth of the time of rendering a sheet."""
    environment = _Environment(
        loader=_loader(package, folders),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
        autoescape=False,
        auto_reload=False,
    )
    environment.filters["hang"] = _hang
    return environment


@functools.cache
def _html_environment(package: str, folders: tuple[str, ...] = ("templates",)) -> jinja2.Environment:
    environment = _Environment(loader=_loader(package, folders), undefined=jinja2.StrictUndefined, autoescape=True,
                               auto_reload=False)
    environment.filters["grouped"] = _grouped
    return environment


@functools.lru_cache(maxsize=4096)
def _grouped(text: str, size: int) -> str:
    """``text`` in groups of ``size`` characters, a space between them: what
    ``text|batch(size)|map("join")|join(" ")`` gave (a plain string, which
    ``{{ }}`` escapes as it escaped that one), in a fraction of its time.
    The commitments' digests on a sheet (templates/_commitments.html) are
    the same in every mail of a game: each is grouped once."""
    return " ".join(text[i:i + size] for i in range(0, len(text), size))


def _hang(text: str, indent: int, width: int = 78) -> str:
    """Wrap text that starts at column ``indent`` so that no line passes
    ``width``; continuation lines start at ``indent`` too."""
    return _hung(str(text), indent, width)


@functools.lru_cache(maxsize=4096)
def _hung(text: str, indent: int, width: int) -> str:
    """`_hang`'s text, wrapped once: the same headers, footers and lines come
    back in mail after mail (and in every event that `gm replay` renders)."""
    lines = textwrap.wrap(text, width - indent, break_on_hyphens=False, break_long_words=False)
    return ("\n" + " " * indent).join(lines)


WIDTH = 78
"""The widest line of a plain-text part gm sends (games of `SHEETS_EDITION` on)."""


def fitted(text: str, width: int = WIDTH) -> str:
    """``text`` with every line over ``width`` broken to fit, so that no
    alias, date or name a template could not foresee pushes a line past it.
    A line is broken after the colon that introduces the rest, when the
    rest then fits, or else at the last space that fits; what follows
    hangs at the line's indentation (under the text of a ``- `` item), or,
    when the line's sentence goes on in the next line (the line ends
    without a stop and the next, as indented, starts in lower case), runs
    on into it. A line holding a word too long to fit beside its
    indentation (a grid row, a URL, an address, a token) cannot be broken
    and stays whole. Lines that fit are left as they are."""
    lines = text.split("\n")
    if max(map(len, lines)) <= width:  # most texts: nothing to break
        return text
    out: list[str] = []
    for n, line in enumerate(lines):
        if len(line) <= width:  # most lines: nothing to break, nothing to run on
            out.append(line)
            continue
        pieces = _fit(line, width)
        following = lines[n + 1] if n + 1 < len(lines) else ""
        if len(pieces) > 1 and _runs_on(pieces[-1], following):
            lines[n + 1] = following[:_indent(following)] + pieces.pop().strip() + " " + following.lstrip(" ")
        out.extend(pieces)
    return "\n".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _runs_on(rest: str, following: str) -> bool:
    """Whether the words left over from breaking a line belong in front of
    ``following``: the sentence goes on there."""
    body = following.lstrip(" ")
    return (bool(body) and body[0].islower() and not rest.rstrip().endswith((".", ":", ";", "?", "!"))
            and _indent(following) == _indent(rest))


def _fit(line: str, width: int) -> list[str]:
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    if len(line) <= width or any(indent + len(word) > width for word in body.split()):
        return [line]
    hang = " " * (indent + 2 if body.startswith("- ") else indent)
    colon = line.find(": ", indent)
    if 0 <= colon < width and len(hang) + len(line) - colon - 2 <= width:
        return [line[:colon + 1], hang + line[colon + 2:]]
    return textwrap.wrap(body, width, initial_indent=" " * indent, subsequent_indent=hang,
                         break_long_words=False, break_on_hyphens=False)


def render_html(template: str, data: dict[str, Any], package: str = KERNEL,
                folders: tuple[str, ...] = ("templates",)) -> str | None:
    """A notice's HTML body, for the templates that have one (``package``'s
    own templates first, then the kernel's)."""
    page = _html_template(package, folders, template)
    return None if page is None else page.render(token=PLACEHOLDER, **data)


@functools.cache
def _html_template(package: str, folders: tuple[str, ...], template: str) -> jinja2.Template | None:
    """A notice's HTML template, None if it has none; looked for once, since
    the environment does not keep a template it did not find."""
    try:
        return _html_environment(package, folders).get_template(f"{template}.html")
    except jinja2.TemplateNotFound:
        return None


def render_text(template: str, data: dict[str, Any], package: str = KERNEL,
                folders: tuple[str, ...] = ("templates",)) -> str:
    """A notice's plain-text body (``package``'s own templates, from
    ``folders`` in turn, first, then the kernel's)."""
    text = _text_template(package, folders, template).render(token=PLACEHOLDER, **data)
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    collapsed: list[str] = []
    for line in lines:
        if line or (collapsed and collapsed[-1]):
            collapsed.append(line)
    return "\n".join(collapsed) + "\n"


@functools.cache
def _text_template(package: str, folders: tuple[str, ...], template: str) -> jinja2.Template:
    """A notice's text template, looked for once."""
    return _text_environment(package, folders).get_template(f"{template}.txt")


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
        parts.append(_inner(page, styles) if page
                     else _pre(render_text(enclosed.template, enclosed.data, package, folders)))
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
    given_id: str | None = None,
    to: str | None = None,
    committed: list[tuple[str, str]] | None = None,
) -> Mail:
    """The message for a notice to a player (an observer's is
    `gm.pbem.writing.observers.build_observer`). ``thread`` is the Message-IDs of
    earlier mail in this player's conversation, oldest first; ``archive`` is
    the player's mailbox of the game so far, attached when the notice asks
    for it in games before `SHEETS_EDITION` (from it, their record,
    `own_record`); ``given_id`` is the Message-ID of a message that answers no
    event (an event's is `message_id`), or of a deputy's copy, which ``to``
    sends to the deputy's address instead of the seat's (`deputy_message_id`).
    ``committed`` is the game's commitment fields (`commitments.headers`)
    when the caller has them already: they are the same in every message
    of one event, and after the end they hold the game's record, which
    some rules make by playing the whole game again.

    A notice that carries the seat's deadline as a calendar event
    (`Notice.calendar`) has it as an iCalendar alternative
    (`gm.pbem.writing.calendar`). It is written out by the one writer of
    gm's mail (`gm.pbem.writing.writer`).
    Games of `LIGHT_MAIL_EDITION` on send a part that is ASCII in lines of at
    most 998 characters as 7bit, not quoted-printable."""
    seat = game.seat(notice.player)
    message = Mail()
    message["From"] = f"{identity.name_for(game.rules.title)} <{identity.address}>"
    message["To"] = to or seat.address
    message["Reply-To"] = identity.reply_address(game.id, notice.player)
    message["Subject"] = f"[gm {game.id}] {notice.subject}"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = given_id or message_id(identity, game, event, position)
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
    if notice.template in NOTICE_TEMPLATES and game.edition >= LIST_HEADERS_EDITION:
        add_list_headers(message, identity.domain, "reminders",
                         identity.reply_address(unsubscribe_tag(game.id), notice.player))
    for name, value in commitments.headers(game) if committed is None else committed:
        message[name] = value
    notice = _with_data(notice, commitments.sheet_fields(game))
    package, folders = game.rules.templates, game.rules.template_folders(game.edition)
    attached: bytes | str | None = archive if notice.attach_archive else None
    filename = f"game-{game.id}.mbox"
    if notice.attach_archive and game.edition >= SHEETS_EDITION:
        attached, filename = own_record(notice.player, game, at, package, folders), record_name(game, notice.player)
    text = body_text(notice, package, folders)
    if game.edition >= SHEETS_EDITION:
        text = fitted(text)
    event_part = None
    if notice.calendar is not None:
        event_part = (ical(notice.calendar, game, notice.player, identity.address, identity.name_for(game.rules.title),
                           identity.domain, at), method(notice.calendar))
    _fill(message, text, body_html(notice, package, folders),
          attached, filename, f"gm-{game.id}-{event}-{position}", game.edition >= LIGHT_MAIL_EDITION, event_part)
    return message


def _with_data(notice: Notice, extra: dict[str, Any]) -> Notice:
    """``notice``, and each document it encloses, with ``extra`` in its data."""
    if not extra:
        return notice
    return replace(notice, data=notice.data | extra, enclosed=tuple(_with_data(e, extra) for e in notice.enclosed))


DEPUTY_COPY = ".deputy"
"""How the archive key (and outbox key) of a copy for a player's deputy ends."""


def deputy_message_id(identity: Identity, game: MailGame, event: int, position: int) -> str:
    """The Message-ID of the copy of a message to a player that their deputy
    is sent (`gm.kernel.deputies`): the message's own, marked as the copy.
    The copy's reply address holds the deputy's own secret once it is sent
    (`gm.pbem.data.tokens.deputy_subject`)."""
    return message_id(identity, game, event, position).replace("@", ".deputy@", 1)


def record_name(game: MailGame, player: int) -> str:
    """The file name of a player's record of the game, attached to their final
    sheet and to an observer's result alike."""
    return f"game-{game.id}-player-{player}.txt"


def own_record(player: int, game: MailGame, at: datetime, package: str, folders: tuple[str, ...]) -> str:
    """The record a final sheet attaches to a player's mail in games of
    `SHEETS_EDITION` on: their ``history`` sheet as it stands, all that
    the rules let them know of the game, without the footer on how to
    answer. Games before it attached the player's whole mailbox, which
    for a long game made a mail of half a megabyte."""
    return fitted(render_text("history", game.rules.history(game, player, at) | {"bare_footer": True}, package,
                              folders))


__all__ = ["DEPUTY_COPY", "Identity", "build", "deputy_message_id", "fitted", "message_id", "render_text"]
