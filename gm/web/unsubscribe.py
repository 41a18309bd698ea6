"""One-click unsubscribing on the web archive (RFC 8058), for the links in
the ``List-Unsubscribe`` headers of digests, notices and observers' mail
(`gm.pbem.writing.lists`); an observer's LIST is the game's id.

    GET  /unsubscribe/LIST/WHO/TOKEN   a page with one button (a GET never
                                       unsubscribes: mail scanners and
                                       prefetchers follow links)
    POST /unsubscribe/LIST/WHO/TOKEN   unsubscribes (the mailbox provider's
                                       one-click POST, or the button)

The web never writes a game or a setting: a valid POST spools the mail the
link's mailto stands for (origin ``web``), and the daemon, the only writer,
handles it as it handles that mail (`gm.pbem.answers.unsubscribe`). A token
that is not the one gm made for that address and list is a 404, and
nothing is written. A web archive served alone (``--web-only``, which writes
nothing) answers 503 and points to the mailto. Neither page shows the
address or the token.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from datetime import UTC, datetime
from typing import NamedTuple

from aiohttp import web

from ..pbem.data.store import Store, spool_key
from ..pbem.data.tokens import verify
from ..pbem.writing.lists import LISTS, OBSERVER, address_in_path, is_observer_secret, unsubscribe_tag
from ..pbem.writing.mailer import Identity, render_html

PATH = "/unsubscribe/{list}/{who}/{token}"
_GAME = re.compile(r"g\d+")
class Spooling(NamedTuple):
    """Where a valid one-click spools its mail, and as which GM (None: the site writes nothing)."""

    store: Store
    identity: Identity | None


SPOOLING = web.AppKey("spooling", Spooling)
HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'self'; "
                                      "frame-ancestors 'none'", "Cache-Control": "no-store"}


def add_routes(app: web.Application, store: Store, identity: Identity | None) -> None:
    """Serve the unsubscribe links; spool with ``identity`` (None: write nothing)."""
    app[SPOOLING] = Spooling(store, identity)
    app.router.add_get(PATH, _page)
    app.router.add_post(PATH, _one_click)


def _checked(request: web.Request) -> tuple[Store, Identity | None, str, str, str]:
    """The store, identity, list, address and token of a valid link; 404 otherwise."""
    store, identity = request.app[SPOOLING]
    name, token = request.match_info["list"], request.match_info["token"]
    address = address_in_path(request.match_info["who"])
    if address is None or "@" not in address or not _valid(store, name, address, token):
        raise web.HTTPNotFound()
    return store, identity, name, address, token


def _valid(store: Store, name: str, address: str, token: str) -> bool:
    """Whether ``token`` is ``address``'s way out of the list ``name`` (a game's id: of watching it)."""
    if name in LISTS:
        return verify(store.key, f"unsubscribe/{name}/{address.lower()}", 1, token)
    return bool(_GAME.fullmatch(name)) and is_observer_secret(store.key, name, address, token)


def _html(template: str, data: dict[str, object], status: int = 200) -> web.Response:
    return web.Response(status=status, text=render_html(template, data), content_type="text/html", charset="utf-8",
                        headers=HEADERS)


async def _page(request: web.Request) -> web.Response:
    _store, identity, name, _address, _token = _checked(request)
    return _html("web_unsubscribe", {"list": name, "done": False, "alone": identity is None})


async def _one_click(request: web.Request) -> web.Response:
    store, identity, name, address, token = _checked(request)
    if identity is None:
        return _html("web_unsubscribe", {"list": name, "done": False, "alone": True}, status=503)
    raw = _mail(identity, name, address, token)
    key = spool_key(datetime.now(UTC), "web", "unsubscribe-" + hashlib.sha256(raw).hexdigest()[:16])
    await asyncio.get_running_loop().run_in_executor(None, store.spool.add, raw, key)
    return _html("web_unsubscribe", {"list": name, "done": True, "alone": False})


def _mail(identity: Identity, name: str, address: str, token: str) -> bytes:
    """The mail the link's mailto stands for, from the address it unsubscribes."""
    to = identity.reply_address(unsubscribe_tag(name), 1 if name in LISTS else OBSERVER, token)
    stamp = datetime.now(UTC)
    return (f"From: <{address}>\r\nTo: <{to}>\r\nX-GM-Envelope-To: <{to}>\r\nSubject: unsubscribe\r\n"
            f"Date: {stamp.strftime('%a, %d %b %Y %H:%M:%S +0000')}\r\n"
            f"Message-ID: <unsubscribe.{stamp.timestamp():.6f}.{name}@{identity.domain}>\r\n"
            "\r\nunsubscribe (one click on the web archive)\r\n").encode()
