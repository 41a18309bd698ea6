"""The public web archive (``gm serve --http``), end to end.

A data directory is built by playing real games through the real daemon: a
finished Grid Fighters game (g1), a finished Spaceships game with an
observer (g2, tests/test_final_sheet.py's game, won by the rules), a
Spaceships game in progress (g3), and one in progress whose players agreed
to show it after each turn (g4, `Options.public_each_turn`). Then the installed gm serves it, as
``gm serve --http 127.0.0.1:PORT --smtp off`` (the whole daemon, with no
mail listener) and as ``--web-only`` (which must write nothing), and the
site is read with urllib and with headless Chromium.

The secrecy property: no answer, body or header, of any page reachable
from the list, nor of any URL of the game in progress, holds an address
(a player's, an observer's, the GM's: no "@" at all), a token of any seat,
a player's own words, or anything of the game in progress.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from datetime import UTC, timedelta
from html.parser import HTMLParser
from pathlib import Path
from random import Random

import pytest

from browser import Chromium, find_chromium, measured, measuring_page, read_png
from gm.kernel.records import referee_record
from gm.kernel.values import Options
from gm.pbem.data.store import Store
from gm.pbem.data.tokens import token
from gm.pbem.operator.admin import load_games, request_game
from gmprocess import free_port, listening, wait_for
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, World
from test_final_sheet import TURNS
from test_gridfighters_by_mail import play_to_the_end, setup_text

CAROL = "carol@example.com"
"""The observer of the finished Spaceships game."""
DAVE = "dave@example.com"
"""The observer of the game in progress."""
SECRET_WORDS = "XYZZY plugh secret plans"
"""What the players write beside their orders and in their press."""
IN_PROGRESS_ALIASES = ("Zephyrine", "Quillon")
UNREAD = "Gz1 plugh"
"""Pia's orders for turn 2 of the game shown after each turn: a line that
cannot be read, holding a word of `SECRET_WORDS` (no page may show it)."""
CRAWL_LIMIT = 60


def _request(world: World, aliases: list[str], observers: list[str], game: str = "spaceships",
             variant: str = "2.6.1", **options) -> None:
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], variant, Options(**options),
                 world.clock(), aliases=aliases, game=game, observers=observers)


async def _build(tmp_path: Path) -> None:
    async with World(tmp_path) as world:
        _request(world, ["Red Baron", "Blue Max"], [], game="gridfighters", variant="standard+quiet=20")
        await world.settle()
        rng = Random(20261123)
        await world.act(world.alice.reply, setup_text(1, rng))
        await world.act(world.bob.reply, setup_text(2, rng))
        await play_to_the_end(world, rng)

        world.clock.advance(hours=1)
        _request(world, ["Ann", "Ben"], [CAROL])
        await world.settle()
        await world.act(world.alice.reply, SETUP_ALICE + f"; {SECRET_WORDS}\n")
        await world.act(world.bob.reply, SETUP_BOB)
        await world.act(world.alice.reply, f"message {SECRET_WORDS}\n")
        for alice, bob in TURNS:
            world.clock.advance(hours=1)
            await world.act(world.alice.reply, f"{alice}\n; {SECRET_WORDS}\n")
            await world.act(world.bob.reply, bob)
        assert world.daemon.master.games["g2"].phase == "ended"

        world.clock.advance(hours=1)
        _request(world, list(IN_PROGRESS_ALIASES), [DAVE], deadline=timedelta(days=3650))
        await world.settle()
        await world.act(world.alice.reply, SETUP_ALICE)
        await world.act(world.bob.reply, SETUP_BOB)
        await world.act(world.alice.reply, TURNS[0][0])
        await world.act(world.bob.reply, TURNS[0][1])
        assert world.daemon.master.games["g3"].phase == "play"

        world.clock.advance(hours=1)
        _request(world, ["Pia", "Per"], [], deadline=timedelta(days=3650), public_each_turn=True)
        await world.settle()
        await world.act(world.alice.reply, SETUP_ALICE)
        await world.act(world.bob.reply, SETUP_BOB)
        await world.act(world.alice.reply, f"{TURNS[0][0]}\n; {SECRET_WORDS}\n")
        await world.act(world.bob.reply, TURNS[0][1])
        assert world.daemon.master.games["g4"].turn == 2
        await world.act(world.alice.reply, UNREAD)  # turn 2 waits for Pia's corrected mail (edition 9 shows it)
        assert world.daemon.master.games["g4"].correcting == {1}


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("web")
    asyncio.run(_build(root))
    return root / "data"


class Site:
    """A ``gm serve`` process of the installed gm, serving the web archive."""

    def __init__(self, data: Path, *extra: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "gm", "serve", "--data", str(data), "--http", f"127.0.0.1:{self.port}",
             *extra], cwd=data.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wait_for("the web archive to listen", lambda: listening(self.port) or self.process.poll() is not None)
        assert self.process.poll() is None, self.process.communicate()[0]

    def stop(self) -> str:
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=30)
        assert self.process.returncode == 0, out
        return out

    def get(self, path: str, method: str = "GET", headers: dict | None = None) -> tuple[int, dict, bytes]:
        request = urllib.request.Request(self.base + path, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()


@pytest.fixture(scope="module")
def site(data) -> Site:
    running = Site(data, "--smtp", "off")
    yield running
    running.stop()


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append(value)


def links(body: bytes) -> list[str]:
    parser = Links()
    parser.feed(body.decode())
    return parser.found


def test_the_list_shows_the_finished_games_newest_first_and_not_the_one_in_progress(site):
    status, headers, body = site.get("/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    page = body.decode()
    rows = re.findall(r'<tr><td data-label="Game"><a href="/games/(g\d+)">', page)
    assert rows == ["g2", "g1", "g4"], rows
    assert page.index('id="playing"') > page.index("Red Baron") and "Pia v Per" in page
    assert ('<td data-label="Now">turn 2<span class="correcting">; waiting for a corrected mail from Pia</span></td>'
            in page)  # as the game's own page says (#correcting): the seat, never the line
    assert "Ann v Ben" in page and "Red Baron v Blue Max" in page
    assert "Spaceships" in page and "Grid Fighters" in page and "2.6.1" in page and "standard+quiet=20" in page
    assert "Ben has no ships left [2.3.1]. Ann wins." in page
    assert re.search(r'data-label="Ended">2026-11-2\d<', page)
    assert headers["Cache-Control"].startswith("public") and headers["ETag"]
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    again = site.get("/", headers={"If-None-Match": headers["ETag"]})
    assert again[0] == 304 and again[2] == b""


def test_a_game_page_steps_through_every_turn_with_both_spaces_revealed(site, data):
    status, _, body = site.get("/games/g2")
    page = body.decode()
    assert status == 200
    assert 'id="result"' in page and "Ben has no ships left [2.3.1]. Ann wins." in page
    assert re.search(r"<td>Ann</td><td>13</td>.*<td>Ben</td><td>0</td>", page, re.S)
    sections = re.findall(r'<section class="turn" id="turn-(\d+)"', page)
    assert sections == ["0", "1", "2", "3"]
    turn1 = page.split('id="turn-1"')[1].split('id="turn-2"')[0]
    assert "Ann: beam strike Rv1: " in turn1 and "Ben: strike Rv1: " in turn1
    assert '<a class="next" href="#turn-2">' in turn1 and '<a class="prev" href="#turn-0">' in turn1
    # Both spaces, revealed: every ship of both setups in the setups' section.
    turn0 = page.split('id="turn-0"')[1].split('id="turn-1"')[0]
    assert turn0.count("<caption>") == 10 and "&middot; Ann</caption>" in turn0 and "&middot; Ben</caption>" in turn0
    for ship in ("DS", "KC", "FS", "MD*", "LS", "PC", "HS"):
        assert f">{ship}</td>" in turn0, ship
    assert '<td class="destroyed">' not in turn0 and '<td class="destroyed">' in page.split('id="turn-3"')[1]
    _, _, grid = site.get("/games/g1")
    assert grid.decode().count('<section class="turn"') > 2 and "Red Baron" in grid.decode()


@pytest.mark.parametrize("game", ["g1", "g2"])
def test_the_record_download_referees_to_the_games_result(site, data, game):
    status, headers, body = site.get(f"/games/{game}/record.txt")
    assert status == 200 and headers["Content-Type"] == "text/plain; charset=utf-8"
    assert headers["Content-Disposition"] == f'attachment; filename="{game}.rec.txt"'
    refereed = referee_record(body.decode())
    assert refereed.exit_status == 0, refereed.text()
    result = json.loads(refereed.json())["result"]
    (finished,) = [g for i, g in load_games(Store(data, create=False)) if i == game]
    outcome = finished.outcome
    assert result["winner"] == outcome.winner and result["reason"] == outcome.reason
    assert result.get("ended_after_turn", result.get("ended_after_move")) == outcome.after_turn


def test_a_game_its_players_agreed_to_show_shows_only_what_both_were_told(site, data):
    status, headers, body = site.get("/games/g4")
    page = body.decode()
    assert status == 200 and headers["Cache-Control"] == "public, max-age=60"
    assert "in progress: turn 2" in page and "Pia v Per" in page
    assert "Turn 1 (" in page and "Pia: beam strike Rv1: " in page and "Per: strike Rv1: " in page
    assert "grid" not in page and "record" not in page and "Turn 2 (" not in page
    assert TURNS[0][0] not in page and "mYz1" not in page  # orders are each player's own
    assert '<p id="correcting">Waiting for a corrected mail from Pia.</p>' in page and UNREAD not in page
    assert site.get("/games/g4/record.txt")[0] == 404
    store = Store(data, create=False)
    created = [store.archive(g).get_bytes(store.archive(g).keys()[0]) for g in ("g2", "g4")]
    assert b"public-each-turn" not in created[0] and b"\npublic-each-turn: yes" in created[1].replace(b"\r", b"")


def test_gm_new_public_each_turn_records_the_agreement(tmp_path):
    from gm.cli import main

    Store(tmp_path / "d")
    assert main(["new", "--data", str(tmp_path / "d"), "--player", ALICE, "--player", BOB, "--public-each-turn"]) == 0
    assert main(["new", "--data", str(tmp_path / "d"), "--player", ALICE, "--player", BOB]) == 0
    store = Store(tmp_path / "d", create=False)
    requests = sorted(store.spool.get_bytes(k).replace(b"\r", b"") for k in store.spool.keys())
    assert [b"\npublic-each-turn: yes" in r for r in requests].count(True) == 1


def test_only_get_and_head_and_404_for_anything_else(site):
    for path in ("/games/g3", "/games/g3/record.txt", "/games/g99", "/games/../secret.key", "/secret.key",
                 "/games/g2/turn", "/games/g2/record.txt/x"):
        assert site.get(path)[0] == 404, path
    status, headers, body = site.get("/games/g2", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1000
    for method in ("POST", "PUT", "DELETE"):
        assert site.get("/games/g2", method=method)[0] == 405, method
        assert site.get("/", method=method)[0] == 405, method


def crawl(site: Site) -> dict[str, tuple[int, dict, bytes]]:
    """Every page reachable from the list (bounded), and every URL of the
    game in progress."""
    seen: dict[str, tuple[int, dict, bytes]] = {}
    queue = ["/", "/games/g3", "/games/g3/record.txt", "/games/g3/turn/1", "/games/g3#turn-1",
             "/games/g4/record.txt"]
    while queue and len(seen) < CRAWL_LIMIT:
        path = queue.pop(0).split("#")[0]
        if path in seen:
            continue
        seen[path] = answer = site.get(path)
        if answer[1].get("Content-Type", "").startswith("text/html"):
            for link in links(answer[2]):
                assert link.startswith(("/", "#")), link  # nothing off the site
                if link.startswith("/"):
                    queue.append(link)
    assert not queue, f"more than {CRAWL_LIMIT} pages"
    assert {"/", "/games/g1", "/games/g2", "/games/g1/record.txt", "/games/g2/record.txt", "/games/g4",
            "/web.css", "/web.js"} <= set(seen)
    return seen


def test_nothing_served_holds_an_address_a_token_a_players_words_or_the_game_in_progress(site, data):
    store = Store(data, create=False)
    games = dict(load_games(store))
    tokens = {token(store.key, subject, seat.player) for game in games.values() for seat in game.seats
              for subject in (game.secret_subject_of(seat.player), *game.earlier_secret_subjects,
                              *game.retired_secret_subjects(seat.player))}
    assert games["g3"].observers == (DAVE,) and games["g2"].observers == (CAROL,)
    assert len(tokens) >= 8
    needles = [*tokens, *SECRET_WORDS.split(), *IN_PROGRESS_ALIASES, "example.org", "example.net", "example.com"]
    for path, (_status, headers, body) in crawl(site).items():
        blob = body + "\n".join(f"{k}: {v}" for k, v in headers.items()).encode()
        assert b"@" not in blob.replace(b"@media", b""), path
        found = [n for n in needles if n.lower().encode() in blob.lower()]
        assert not found, (path, found)
        assert not re.search(rb"\bg3\b", blob), path


def test_a_game_gm_cannot_read_is_left_out_and_the_rest_is_served(data, tmp_path):
    """One archive with an event gm cannot read (a disk's damage, a bug):
    the list leaves that game out, its page is a 404, and every other
    game is served as before; the fault is logged, never shown."""
    import shutil

    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    bad = copy / "games" / "g1" / "cur" / "000099.in.00000000000000000001.smtp.damaged:2,S"
    bad.write_bytes(b"X-GM-Accepted: game=g1; player=1; at=not a time; format=2\n\nRv1\n")
    damaged = Site(copy, "--web-only")
    try:
        status, headers, body = damaged.get("/")
        assert status == 200, body
        assert re.findall(r'<a href="/games/(g\d+)">', body.decode()) == ["g2", "g4"]
        status, headers, body = damaged.get("/games/g1")
        assert status == 404 and "Content-Security-Policy" in headers
        assert b"Traceback" not in body and b"not a time" not in body
        assert damaged.get("/games/g2")[0] == 200
    finally:
        out = damaged.stop()
    assert "leaves out game g1" in out


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_web_only_writes_nothing_in_the_data_directory(data, site):
    before = _tree(data)
    alone = Site(data, "--web-only")
    try:
        assert alone.get("/")[0] == 200 and alone.get("/games/g2")[0] == 200 and alone.get("/games/g3")[0] == 404
    finally:
        out = alone.stop()
    assert "read only" in out
    assert _tree(data) == before


# --- in headless Chromium ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def chromium() -> Chromium:
    binary = find_chromium()
    if binary is None:
        pytest.skip("no Chromium (scripts/test installs it)")
    return Chromium(binary)


def based(site: Site, path: str, script: str = "") -> str:
    """The page at ``path`` as the site serves it, its links to the site
    made absolute so that a copy on disk loads the site's style and script
    (a <base> would take its #turn links off the copy), and ``script`` run
    once it has loaded."""
    _, _, body = site.get(path)
    page = body.decode().replace('="/', f'="{site.base}/')
    return page.replace("</body>", f"<script>{script}</script></body>", 1) if script else page


REPORT = """window.addEventListener("load", function () {
  var out = {steps: []};
  function note() {
    out.steps.push({shown: document.body.getAttribute("data-shown"),
                    visible: Array.prototype.filter.call(document.querySelectorAll("section.turn"),
                                                         function (s) { return !s.hidden; }).map(function (s) { return s.id; }),
                    label: (document.getElementById("step-shown") || {}).textContent});
  }
  note();
  %s
  var p = document.createElement("pre"); p.id = "gm-measure"; p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
});"""


@pytest.mark.slow  # headless Chromium
def test_chromium_shows_the_list_and_a_game_page(site, chromium, tmp_path):
    for path, name in (("/", "list"), ("/games/g2", "spaceships"), ("/games/g1", "gridfighters")):
        out = tmp_path / f"{name}.png"
        chromium.run(site.base + path, "--window-size=1000,1400", "--virtual-time-budget=3000", f"--screenshot={out}")
        image = read_png(out.read_bytes())
        assert image.width == 1000 and len(image.colours()) > 5, name
        if os.environ.get("GM_WEB_SHOTS"):
            (Path(os.environ["GM_WEB_SHOTS"]) / out.name).write_bytes(out.read_bytes())
    dom = chromium.run(site.base + "/games/g2", "--window-size=1000,1400", "--virtual-time-budget=3000", "--dump-dom")
    assert 'data-shown="0"' in dom and "Ann wins" in dom
    assert len(re.findall(r'<section class="turn"[^>]*hidden', dom)) == 3  # the script shows one turn


@pytest.mark.slow  # headless Chromium
def test_stepping_through_turns_with_the_script(site, chromium, tmp_path):
    clicks = """["step-next", "step-next", "step-prev"].forEach(function (id) {
      document.getElementById(id).click(); note(); });
    document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight"})); note();
    document.querySelector("#turn-2 nav.step a.next").click(); note();"""
    page = tmp_path / "step.html"
    page.write_text(based(site, "/games/g2", REPORT % clicks), encoding="utf-8")
    steps = measured(chromium.dump_dom(page, 1000, 1400))["steps"]
    assert [s["shown"] for s in steps] == ["0", "1", "2", "1", "2", "3"], steps
    assert [s["visible"] for s in steps] == [["turn-0"], ["turn-1"], ["turn-2"], ["turn-1"], ["turn-2"], ["turn-3"]]
    assert steps[1]["label"] == "Turn 1 (2 of 4)"


@pytest.mark.slow  # headless Chromium
def test_stepping_through_turns_without_script(site, chromium, tmp_path):
    """The page as it is without its script (the tag removed): every turn is
    shown, the stepper's buttons are not, and following a turn's next link
    brings the next turn to the top of the window."""
    follow = """var before = window.scrollY;
    document.querySelector("#turn-1 nav.step a.next").click();
    out.hash = location.hash; out.moved = window.scrollY > before;
    out.top = Math.round(document.getElementById("turn-2").getBoundingClientRect().top);
    out.displayed = Array.prototype.filter.call(document.querySelectorAll("section.turn"),
        function (s) { return s.offsetParent !== null; }).length;
    out.stepper = document.getElementById("stepper").offsetParent !== null;"""
    page = based(site, "/games/g2", REPORT % follow).replace(f'<script src="{site.base}/web.js" defer></script>', "")
    assert "web.js" not in page
    file = tmp_path / "plain.html"
    file.write_text(page, encoding="utf-8")
    found = measured(chromium.dump_dom(file, 1000, 900))
    assert found["steps"][0]["shown"] is None and len(found["steps"][0]["visible"]) == 4
    assert found["displayed"] == 4 and not found["stepper"]
    assert found["hash"] == "#turn-2" and found["moved"] and abs(found["top"]) <= 1, found


@pytest.mark.slow  # headless Chromium
@pytest.mark.parametrize("path", ["/", "/games/g2", "/games/g1"])
def test_a_phone_wide_window_does_not_scroll_sideways(site, chromium, tmp_path, path):
    frame = tmp_path / "narrow.html"
    frame.write_text(measuring_page(based(site, path), 390), encoding="utf-8")
    layout = measured(chromium.dump_dom(frame, 1000, 1000))
    assert layout["scrollWidth"] <= layout["clientWidth"] == 390, layout
    assert not layout["overflowing"], layout
    shot = tmp_path / f"narrow-{path.strip('/').replace('/', '-') or 'list'}.png"
    frame.write_text(measuring_page(based(site, path), 390, 1400), encoding="utf-8")
    chromium.screenshot(frame, shot, 500, 1400)
    assert len(read_png(shot.read_bytes()).colours()) > 5
    if os.environ.get("GM_WEB_SHOTS"):
        (Path(os.environ["GM_WEB_SHOTS"]) / shot.name).write_bytes(shot.read_bytes())


def test_a_game_without_pages_of_its_own_shows_its_result_and_standings():
    """Celestial Empire has no web hooks: the kernel's page, with the result,
    no turns and no record (rendered from a game played through the kernel)."""
    from gm.kernel import engine
    from gm.kernel.values import PlayerMail
    from gm.web.pages import render
    from test_celestial_by_mail import ADDRESSES, engine_game

    game, at = engine_game()
    for player in (1, 2, 3):
        engine.apply(game, PlayerMail(at + timedelta(minutes=player), player, "draw"))
    assert game.phase == "ended"
    page = render(game, None)
    html = page.html.decode()
    assert page.record is None and page.listed.players == ("Grok", "Winter", "Master")
    assert "Celestial Empire game g1" in html and "A draw was agreed. No one wins." in html
    assert 'class="turn"' not in html and "record" not in html
    assert not any(address in html for address in ADDRESSES) and "@" not in html


def test_a_match_shows_its_last_game(tmp_path):
    """Several games in one MailGame: the page shows the last game, with the
    match's points, and its record referees to that game's result."""
    from gm.games.spaceships.match import MatchTerms
    from gm.web.pages import render
    from test_match_by_mail import alice_wins_a_game, new_match

    async def scenario():
        async with World(tmp_path) as world:
            await new_match(world, MatchTerms("scored", games=2))
            await alice_wins_a_game(world)
            await alice_wins_a_game(world)
            return world.daemon.master.games["g1"]

    game = asyncio.run(scenario())
    assert game.phase == "ended"
    page = render(game, None)
    html = page.html.decode()
    assert "The last game of a match (2 games; points: Player 1 4, Player 2 0)" in html
    assert html.count('<section class="turn"') == 2  # the setups and the one turn of the last game
    refereed = referee_record(page.record.decode())
    assert refereed.exit_status == 0 and json.loads(refereed.json())["result"]["winner"] == 1


def test_grid_fighters_records_of_random_games_referee_to_their_results():
    """Games played by the random-legal bot on the rules core, kept as a game
    by mail keeps them (`Play.log`): the record referees to the game's result
    and the page has a position for every move, spent moves included (their
    destination is not kept: any legal one plays the same)."""
    from datetime import datetime

    from gm.games.gridfighters.bot import random_move, random_setup
    from gm.games.gridfighters.game import Grid
    from gm.games.gridfighters.mail import Play
    from gm.games.gridfighters.variants import variant_named
    from gm.kernel.model import MailGame
    from gm.kernel.protocol import game_named
    from gm.kernel.values import ENDED, EndKind, GameEnd, Seat

    spent = 0
    for seed in range(4):
        rng = Random(seed)
        variant = variant_named("standard+quiet=20")
        setups = {p: random_setup(p, rng) for p in (1, 2)}
        grid = Grid.start(setups[1], setups[2], 1, variant)
        play = Play(variant, setups)
        while grid.result is None:
            grid, report = grid.push(grid.to_move, random_move(grid, grid.to_move, rng))
            play.log.append(report)
            spent += report.spent
        play.grid = grid
        result = grid.result
        game = MailGame(f"g{seed}", (Seat(1, ALICE, "Ann"), Seat(2, BOB, "Ben")), game_named("gridfighters"),
                        Options(), datetime(2026, 11, 21, tzinfo=UTC), "standard+quiet=20", phase=ENDED,
                        play=play,
                        outcome=GameEnd(EndKind.RULES, result.ended_after_move,
                                        winners=(result.winner,) if result.winner else (),
                                                        clause=result.reason, result=result))
        refereed = referee_record(game.rules.record_text(game))
        assert refereed.exit_status == 0, (seed, refereed.text())
        found = json.loads(refereed.json())["result"]
        assert (found["ended_after_move"], found["winner"], found["reason"]) == (
            result.ended_after_move, result.winner, result.reason), seed
        assert len(game.rules.web_page(game)["turns"]) == grid.moves + 1
    assert spent > 0, "no game had a spent move"
