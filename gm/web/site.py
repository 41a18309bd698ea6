"""``gm serve --http``: the read-only public web archive of finished games.

Served by aiohttp, in the daemon's own asyncio loop as one more task (or
alone, with ``--web-only``): it speaks HTTP/1.1 properly (HEAD, keep-alive,
limits on request lines and headers) where the standard library's
http.server would need a thread of its own and is documented as not for
production. The routes are few and stable:

    /                          the finished games, newest first (and the
                               open seeks and the tournaments, when there
                               are any)
    /games/GID                 one finished game, turn by turn (or one in
                               progress that its players agreed to show)
    /games/GID/record.txt      the game as a ``gm referee`` record
    /ratings/GAME              a game's rating table (`gm.web.ratings`)
    /players/NAME              a player's ratings, their history, finished
                               games and tournaments
    /tournaments/ID            a tournament's standings and rounds, each
                               finished game linked (`gm.web.tournaments`)
    /web.css, /web.js          the style, and the little script that steps
                               through turns (the pages work without it)

Only GET and HEAD are answered (anything else: 405); anything else, and
every game in progress that its players did not agree to show, is 404. Pages are built in a worker thread
(`gm.web.pages`), and nothing here writes to the data directory.

Its clients are strangers, and the site shares the process, and so its file
handles, with the mail: it must never take what the mail needs. So it holds
at most `max_connections` connections (past that a connection is answered
503 and closed at once), and a client that has not sent a whole request
head `HEAD_SECONDS` after it connected, or after its last answer, is
disconnected (`Connection`). Every answer carries the `SECURITY` headers,
also aiohttp's own answer to a request it cannot parse.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import re
import resource
import signal
import socket
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from http import HTTPStatus
from importlib.resources import files
from typing import TypeVar

from aiohttp import web

from ..logs import Throttled, event
from ..pbem.data.store import MissingDataDirectory
from ..pbem.writing.mailer import Identity
from ..process import STOP_SIGNALS, StartError
from . import unsubscribe
from .pages import Archive, Page, render_list
from .ratings import RatingPages, ratings_links
from .tournaments import TournamentPages

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,32}")
"""What a public name may look like in a URL (`gm.league.names` checks the names themselves)."""
SECURITY = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self'; "
                               "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every answer: no script but the site's own, no framing."""
CACHE = {"list": "public, max-age=60", "game": "public, max-age=3600", "playing": "public, max-age=60",
         "static": "public, max-age=86400"}
ARCHIVE = web.AppKey("archive", Archive)
RATINGS = web.AppKey("ratings", RatingPages)
TOURNAMENTS = web.AppKey("tournaments", TournamentPages)
WORKERS = web.AppKey("workers", ThreadPoolExecutor)
WORKER_THREADS = 2
"""The site's own worker threads: a slow page (the first list of a large
data directory loads every game) never holds up the daemon's mail, whose
work runs in the loop's default executor."""
log = logging.getLogger("gm")
STATIC = {"/web.css": ("web.css", "text/css"), "/web.js": ("web.js", "text/javascript")}
MAX_CONNECTIONS = 256
"""The site's connections open at once, at most; and at most a quarter of
the process's file handle limit (`max_connections`), so that the rest is
the mail's whatever the web's clients do."""
HEAD_SECONDS = 15.0
"""How long a client may take to send a whole request head, from when it
connected or had its last answer; then it is disconnected. A slowloris
holds connections open by sending its heads slowly, or not at all."""
BACKLOG = 64
"""Connections the kernel queues for the site while gm takes none (the
listening sockets' backlog)."""
ACCEPT_RETRY_SECONDS = 1.0
"""The pause before accepting again after the process ran out of file handles."""
_PLAIN = {"Content-Type": "text/plain; charset=utf-8", "Server": "gm", **SECURITY}
_WORDS = {400: "the request could not be read", 500: "the page could not be made"}


def max_connections() -> int:
    """`MAX_CONNECTIONS`, or a quarter of the file handle limit if less."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft // 4))


def _plain_answer(status: int) -> str:
    """The text of an error answer: its status and a few words, nothing of the request."""
    return f"{status}: {_WORDS.get(status) or HTTPStatus(status).phrase.lower()}\n"


def _busy_answer() -> bytes:
    body = _plain_answer(503).encode()
    head = {**_PLAIN, "Content-Length": str(len(body)), "Retry-After": "10", "Connection": "close"}
    return ("HTTP/1.1 503 Service Unavailable\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items())
            + "\r\n").encode() + body


BUSY = _busy_answer()
"""The whole answer to a connection past `max_connections`, sent as it is accepted."""


def _answer(request: web.Request, body: bytes, content_type: str, cache: str,
            extra: dict[str, str] | None = None) -> web.Response:
    """A 200 with an ETag, or a 304 when the client holds the same body."""
    tag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"Cache-Control": cache, "ETag": tag, **(extra or {})}
    if tag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    response = web.Response(body=body, content_type=content_type, charset="utf-8", headers=headers)
    response.enable_compression()
    return response


T = TypeVar("T")


async def _in_thread(request: web.Request, function: Callable[..., T], *args: object) -> T:
    """Read the disk and render in one of the site's worker threads, not in
    the loop (nor in the daemon's)."""
    return await asyncio.get_running_loop().run_in_executor(request.app[WORKERS], function, *args)


async def games_list(request: web.Request) -> web.Response:
    archive = request.app[ARCHIVE]
    games = await _in_thread(request, archive.shown)
    ratings = functools.cache(request.app[RATINGS].ratings)  # read only if a seek is listed, and then once
    seeks = await _in_thread(request, archive.seeks, datetime.now(UTC),  # what is open now: shown, never decided
                             lambda game: {row.player: row.rating for row in ratings().table(game)})
    tournaments = await _in_thread(request, request.app[TOURNAMENTS].listing)
    body = await _in_thread(request, render_list, games, seeks, ratings_links(), tournaments)
    return _answer(request, body, "text/html", CACHE["list"])


async def ratings_page(request: web.Request) -> web.Response:
    body = await _in_thread(request, request.app[RATINGS].page, request.match_info["game"])
    if body is None:
        raise web.HTTPNotFound()
    return _answer(request, body, "text/html", CACHE["list"])


async def player_page(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    body = (await _in_thread(request, request.app[RATINGS].player_page, name, request.app[TOURNAMENTS].results_of)
            if _NAME.fullmatch(name) else None)
    if body is None:
        raise web.HTTPNotFound()
    return _answer(request, body, "text/html", CACHE["list"])


async def tournament_page(request: web.Request) -> web.Response:
    body = await _in_thread(request, request.app[TOURNAMENTS].page, request.match_info["tournament"])
    if body is None:
        raise web.HTTPNotFound()
    return _answer(request, body, "text/html", CACHE["list"])


async def _page(request: web.Request) -> Page:
    game_id = request.match_info["game"]
    if not _GAME_ID.match(game_id):
        raise web.HTTPNotFound()
    page = await _in_thread(request, request.app[ARCHIVE].page, game_id)
    if page is None:
        raise web.HTTPNotFound()
    return page


async def game_page(request: web.Request) -> web.Response:
    page = await _page(request)
    return _answer(request, page.html, "text/html", CACHE["game" if page.listed.finished else "playing"])


async def game_record(request: web.Request) -> web.Response:
    page = await _page(request)
    if page.record is None:
        raise web.HTTPNotFound()
    filename = f"{page.listed.id}.rec.txt"
    return _answer(request, page.record, "text/plain", CACHE["game"],
                   {"Content-Disposition": f'attachment; filename="{filename}"'})


def _static(name: str, content_type: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    body = files("gm.templates").joinpath(name).read_bytes()

    async def handler(request: web.Request) -> web.Response:
        return _answer(request, body, content_type, CACHE["static"])
    return handler


@web.middleware
async def _headers(request: web.Request,
                   handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """The security headers on every answer, errors included; no Server line."""
    if isinstance(request.protocol, Connection):
        request.protocol.head_read()
    try:
        response = await handler(request)
    except web.HTTPException as error:
        if error.status == 404:
            error.text = "404: no such page (only finished games are shown)\n"
        error.headers.update(SECURITY)
        raise
    except Exception:  # a bug: logged here, and the visitor told nothing of it
        log.exception("the web archive failed on %s", request.path)
        response = web.Response(status=500, text="500: the page could not be made\n")
    for name, value in SECURITY.items():  # a page that needs more (a form: `gm.web.unsubscribe`) says so itself
        response.headers.setdefault(name, value)
    return response


async def _no_server_header(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Server"] = "gm"


async def _stop_workers(app: web.Application) -> None:
    app[WORKERS].shutdown(wait=False, cancel_futures=True)


def make_app(archive: Archive, identity: Identity | None = None) -> web.Application:
    """The site's application over ``archive``; with the GM's ``identity``,
    its one-click unsubscribe links spool what they stand for (`gm.web.unsubscribe`)."""
    app = web.Application(middlewares=[_headers], client_max_size=1024)
    app[ARCHIVE] = archive
    app[RATINGS] = RatingPages(archive)
    app[TOURNAMENTS] = TournamentPages(archive)
    app[WORKERS] = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="gm-web")
    app.on_cleanup.append(_stop_workers)
    app.on_response_prepare.append(_no_server_header)
    app.router.add_get("/", games_list)
    app.router.add_get("/games/{game}", game_page)
    app.router.add_get("/games/{game}/record.txt", game_record)
    app.router.add_get("/ratings/{game}", ratings_page)
    app.router.add_get("/players/{name}", player_page)
    app.router.add_get("/tournaments/{tournament}", tournament_page)
    for path, (name, content_type) in STATIC.items():
        app.router.add_get(path, _static(name, content_type))
    unsubscribe.add_routes(app, archive.store, identity)
    return app


class Connection(web.RequestHandler):
    """aiohttp's protocol for one HTTP connection, with gm's deadline for the
    first request head and gm's answers where aiohttp answers by itself.

    aiohttp's keep-alive timeout (set to `HEAD_SECONDS`) closes a connection
    that has not sent a whole head that long after its last answer; whether
    it also counts from the connection's start depends on aiohttp's
    version, so the first head has a deadline of its own here, which a
    complete head (`head_read`) lifts."""

    def __init__(self, manager: web.Server, closings: Throttled):
        # access_log=None: no access log (aiohttp documents it; its annotation says Logger only)
        super().__init__(manager, loop=asyncio.get_running_loop(), keepalive_timeout=HEAD_SECONDS,
                         access_log=None)  # type: ignore[arg-type]
        self._closings = closings
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._head_deadline = asyncio.get_running_loop().call_later(HEAD_SECONDS, self._head_too_slow, transport)

    def head_read(self) -> None:
        """A whole request head has come: its deadline is lifted."""
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def connection_lost(self, exc: BaseException | None) -> None:
        self.head_read()
        super().connection_lost(exc)

    def _head_too_slow(self, transport: asyncio.BaseTransport) -> None:
        self._head_deadline = None
        peer = transport.get_extra_info("peername")
        self._closings.log("connection closed", proto="http", client=peer[0] if peer else None,
                           reason=f"no request within {HEAD_SECONDS:g} s")
        self.force_close()

    def handle_error(self, request: web.BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's answer to a request it cannot parse (400), or to a
        failure past gm's middleware: that status with gm's headers, a few
        words and nothing of the request; then the connection is closed.
        A 400 is the client's doing and is not logged (strangers would
        fill the log); anything else is."""
        self.head_read()
        if status != 400:
            log.error("the web archive failed on a request (%d)", status, exc_info=exc)
        if request.writer.output_size > 0:  # an answer was begun: the connection cannot carry another
            raise ConnectionError("an answer was sent already")
        response = web.Response(status=status, text=_plain_answer(status), headers=_PLAIN)
        response.force_close()
        return response


async def _listening(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address ``host`` names, made as asyncio's
    ``create_server`` makes them (address reuse; IPv6 sockets for IPv6 only)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                                         flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
            sock.setblocking(False)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


class Site:
    """The web archive being served: its listening sockets, the tasks that
    accept on them, and aiohttp's runner.

    gm accepts connections itself (asyncio's server would accept a hundred
    at a time before any could be refused, each taking a file handle): one
    at a time, each becomes a `Connection` while fewer than ``limit`` are
    open; past that it is answered `BUSY` and closed at once, so that the
    site never holds more than ``limit`` handles and one more."""

    def __init__(self, runner: web.AppRunner, sockets: list[socket.socket], limit: int):
        assert runner.server is not None  # made by runner.setup()
        self.runner = runner
        self.server: web.Server = runner.server
        self.sockets = sockets
        self.limit = limit
        self._refusals = Throttled()
        self._closings = Throttled(logging.INFO)
        self._no_handles = Throttled(logging.ERROR)
        self._accepting = [asyncio.create_task(self._accept(sock), name="http-accept") for sock in sockets]

    async def _accept(self, listening: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                connection, peer = await loop.sock_accept(listening)
            except OSError as error:  # out of file handles, most likely: the mail's are not touched
                self._no_handles.log("cannot accept a connection", proto="http",
                                     reason=(error.strerror or str(error)).lower())
                await asyncio.sleep(ACCEPT_RETRY_SECONDS)
                continue
            if len(self.server.connections) >= self.limit:
                self._refusals.log("connection refused", proto="http", client=peer[0], cap="all", limit=self.limit)
                with contextlib.suppress(OSError):
                    connection.send(BUSY)
                connection.close()
                continue
            try:
                await loop.connect_accepted_socket(lambda: Connection(self.server, self._closings), connection)
            except OSError:
                connection.close()

    async def cleanup(self) -> None:
        """Stop serving: take no more connections, then close the open ones
        (aiohttp's shutdown) and the site's worker threads."""
        for task in self._accepting:
            task.cancel()
        await asyncio.gather(*self._accepting, return_exceptions=True)
        for sock in self.sockets:
            sock.close()
        await self.runner.cleanup()


async def start(data: str, host: str, port: int, identity: Identity | None = None) -> tuple[Site, tuple[str, int]]:
    """Serve the finished games of the data directory ``data`` on
    host:port; returns the `Site` (``await site.cleanup()`` stops it) and
    the address bound. Raises `MissingDataDirectory` for a data directory
    that does not exist, and OSError when it cannot listen."""
    runner = web.AppRunner(make_app(Archive(data), identity), handle_signals=False)
    await runner.setup()
    try:
        sockets = await _listening(host, port)
    except OSError:
        await runner.cleanup()
        raise
    limit = max_connections()
    bound = tuple(sockets[0].getsockname()[:2])
    event("listening", proto="http", addr="{}:{}".format(*bound), max_connections=limit)
    return Site(runner, sockets, limit), bound


async def start_or_fail(data: str, address: tuple[str, int],
                        identity: Identity | None = None) -> tuple[Site, tuple[str, int]]:
    """`start`, with the daemon's `StartError` (one line for the operator)
    when the data directory is missing or the address cannot be listened on."""
    try:
        return await start(data, *address, identity)
    except MissingDataDirectory as error:
        raise StartError(str(error)) from None
    except OSError as error:
        reason = os.strerror(error.errno).lower() if error.errno else str(error)
        raise StartError(f"cannot listen for HTTP on {address[0]}:{address[1]}: {reason}") from None


async def serve_alone(data: str, address: tuple[str, int]) -> str:
    """Serve only the web archive until SIGTERM or SIGINT (``gm serve
    --web-only``): it reads the data directory and writes nothing there, so
    it may run beside the daemon that owns it. Returns the signal's name."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    received: list[str] = []

    def on_signal(number: signal.Signals) -> None:
        received.append(number.name)
        stopping.set()

    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, on_signal, number)
    try:
        site, _ = await start_or_fail(data, address)
        try:
            await stopping.wait()
        finally:
            await site.cleanup()
        event("stopped", signal=received[0])
        return received[0]
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)


def run_alone(data: str, address: tuple[str, int], exit_start: int) -> int:
    """``gm serve --web-only``: the web archive alone, until a signal; the
    exit status (``exit_start`` when it cannot start)."""
    print(f"gm serving the web archive of {data}/ on http://{address[0]}:{address[1]}/ (read only; no mail)",
          flush=True)
    try:
        asyncio.run(serve_alone(data, address))
    except StartError as error:
        print(f"gm serve: {error}", file=sys.stderr)
        return exit_start
    return 0
