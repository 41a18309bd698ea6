"""``gm serve --http``: the read-only public web archive of finished games.

Served by aiohttp, in the daemon's own asyncio loop as one more task (or
alone, with ``--web-only``): it speaks HTTP/1.1 properly (HEAD, keep-alive,
limits on request lines and headers) where the standard library's
http.server would need a thread of its own and is documented as not for
production. The routes are few and stable:

    /                          the finished games, newest first
    /games/GID                 one finished game, turn by turn (or one in
                               progress that its players agreed to show)
    /games/GID/record.txt      the game as a ``gm referee`` record
    /web.css, /web.js          the style, and the little script that steps
                               through turns (the pages work without it)

Only GET and HEAD are answered (anything else: 405); anything else, and
every game in progress that its players did not agree to show, is 404. Pages are built in a worker thread
(`gm.web.pages`), and nothing here writes to the data directory.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import re
import signal
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from typing import TypeVar

from aiohttp import web

from ..logs import event
from ..pbem.store import MissingDataDirectory
from ..process import STOP_SIGNALS, StartError
from .pages import Archive, Page, render_list

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
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
WORKERS = web.AppKey("workers", ThreadPoolExecutor)
WORKER_THREADS = 2
"""The site's own worker threads: a slow page (the first list of a large
data directory loads every game) never holds up the daemon's mail, whose
work runs in the loop's default executor."""
log = logging.getLogger("gm")
STATIC = {"/web.css": ("web.css", "text/css"), "/web.js": ("web.js", "text/javascript")}


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
    body = await _in_thread(request, render_list, games)
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
async def _headers(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """The security headers on every answer, errors included; no Server line."""
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
    response.headers.update(SECURITY)
    return response


async def _no_server_header(request: web.Request, response: web.StreamResponse) -> None:
    response.headers["Server"] = "gm"


async def _stop_workers(app: web.Application) -> None:
    app[WORKERS].shutdown(wait=False, cancel_futures=True)


def make_app(archive: Archive) -> web.Application:
    """The site's application over ``archive``."""
    app = web.Application(middlewares=[_headers], client_max_size=1024)
    app[ARCHIVE] = archive
    app[WORKERS] = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="gm-web")
    app.on_cleanup.append(_stop_workers)
    app.on_response_prepare.append(_no_server_header)
    app.router.add_get("/", games_list)
    app.router.add_get("/games/{game}", game_page)
    app.router.add_get("/games/{game}/record.txt", game_record)
    for path, (name, content_type) in STATIC.items():
        app.router.add_get(path, _static(name, content_type))
    return app


async def start(data: str, host: str, port: int) -> tuple[web.AppRunner, tuple[str, int]]:
    """Serve the finished games of the data directory ``data`` on
    host:port; returns the runner (``await runner.cleanup()`` stops it) and
    the address bound. Raises `MissingDataDirectory` for a data directory
    that does not exist, and OSError when it cannot listen."""
    runner = web.AppRunner(make_app(Archive(data)), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, reuse_address=True)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound = tuple(runner.addresses[0][:2])
    event("listening", proto="http", addr="%s:%s" % bound)
    return runner, bound


async def start_or_fail(data: str, address: tuple[str, int]) -> tuple[web.AppRunner, tuple[str, int]]:
    """`start`, with the daemon's `StartError` (one line for the operator)
    when the data directory is missing or the address cannot be listened on."""
    try:
        return await start(data, *address)
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
        runner, _ = await start_or_fail(data, address)
        try:
            await stopping.wait()
        finally:
            await runner.cleanup()
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
