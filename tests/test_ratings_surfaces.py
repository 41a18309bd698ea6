"""The ratings through the real daemon (issue 23): finished games played by
mail give the tables that ``gm ratings``, the ``ratings`` mail and the web
archive's rating pages show; the derived file is rebuilt, byte for byte the
same, when it is deleted, damaged, out of date or its writer killed; and no
address reaches a player or the web.

The data directory: Alice (public name Ahab) and Bob (no public name) play
two rated Spaceships games (each wins one, by resignation), one unrated
(which rates no one), Alice plays the robot unrated (which rates the robot
only), and one rated game is still in progress.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gm.cli import main
from gm.kernel.values import Options
from gm.league import glicko2
from gm.pbem.data.store import Store
from gm.pbem.intake.limits import Limits
from gm.pbem.operator.admin import load_games, request_game
from gm.pbem.state import ratings as store_ratings
from gmtest import ALICE, BOB, World, shunt_reasons, text
from test_names import name
from test_web import Site

LIMIT = 4
"""The day's allowance of mail about no game, in this test's daemon."""


async def _resign(world: World, player, **options) -> None:
    """A new game between Alice and Bob that ``player`` resigns at once."""
    world.clock.advance(hours=1, seconds=0.25)
    await world.new_game(**options)
    await world.act(player.reply, "resign")


async def _build(tmp_path: Path) -> dict:
    answers = {}
    async with World(tmp_path, limits=Limits(answers_outside_games_per_day=LIMIT,
                                                  answers_outside_games_to_players_per_day=LIMIT)) as world:
        await name(world, world.alice, "Ahab")
        await _resign(world, world.bob, rated=True)     # g1: Alice wins
        await _resign(world, world.alice, rated=True)   # g2: Bob wins
        await _resign(world, world.bob)                 # g3: unrated
        world.clock.advance(days=2)
        request_game(world.daemon.store, world.config.identity, [ALICE], "2.6.1", Options(), world.clock(),
                     robot="normal", robot_seed=7)       # g4: unrated, the robot wins
        await world.settle()
        await world.act(world.alice.reply, "resign")
        world.clock.advance(hours=1)
        await world.new_game(rated=True)                # g5: still in progress
        assert [world.daemon.master.games[g].phase for g in ("g1", "g2", "g3", "g4", "g5")] == [
            "ended", "ended", "ended", "ended", "setup"]
        for ask in ("ratings", "ratings gridfighters", "ratings chess", "ratings", "ratings"):
            answers[ask] = [*answers.get(ask, []), await world.write_gm(world.alice, ask)]
        answers["shunted"] = shunt_reasons(world)
    return answers


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("ratings")
    answers = asyncio.run(_build(root))
    return root / "data", answers


def _gm_ratings(capsys, data: Path, *extra: str) -> str:
    assert main(["ratings", "--data", str(data), *extra]) == 0
    return capsys.readouterr().out


def test_the_tables_count_rated_games_and_the_robots_always(built, capsys):
    data, _ = built
    tables = json.loads(_gm_ratings(capsys, data, "--json"))
    assert {"celestial-empire", "gridfighters", "spaceships"} <= set(tables)  # and any game a test registered
    assert all(rows == [] for game, rows in tables.items() if game != "spaceships")
    rows = {row["player"]: row for row in tables["spaceships"]}
    assert set(rows) == {ALICE, BOB, "robot:normal"}
    assert rows[ALICE]["games"] == rows[BOB]["games"] == 2 and rows["robot:normal"]["games"] == 1
    assert rows["robot:normal"]["rating"] > 1500 and rows["robot:normal"]["reliability"] is None
    assert rows[ALICE]["reliability"] == rows[BOB]["reliability"] == 1.0
    first = glicko2.update(glicko2.Rating(), [(glicko2.Rating(), 1.0)])
    assert rows[ALICE]["rating"] < first.rating and rows[BOB]["rating"] > 1500  # Bob won the later game
    listing = _gm_ratings(capsys, data, "--game", "spaceships")
    assert ALICE in listing and BOB in listing and "robot (normal)" in listing  # the operator sees addresses


def test_deleting_the_file_and_rebuilding_changes_nothing_byte_for_byte(built, capsys):
    data, _ = built
    table = _gm_ratings(capsys, data, "--json")
    kept = (data / store_ratings.FILE).read_bytes()
    (data / store_ratings.FILE).unlink()
    assert _gm_ratings(capsys, data, "--rebuild", "--json") == table
    assert (data / store_ratings.FILE).read_bytes() == kept
    assert _gm_ratings(capsys, data, "--rebuild", "--json") == table
    assert (data / store_ratings.FILE).read_bytes() == kept


@pytest.mark.parametrize("damage", ["truncated", "checksum", "not json", "empty", "stale"])
def test_a_damaged_or_stale_file_is_rebuilt(built, capsys, tmp_path, damage):
    original, _ = built
    data = tmp_path / "data"
    shutil.copytree(original, data)
    table = _gm_ratings(capsys, data, "--json")
    path = data / store_ratings.FILE
    kept = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(kept[: len(kept) // 2])
    elif damage == "checksum":
        path.write_bytes(kept.replace(b'"games": 2', b'"games": 3', 1))
    elif damage == "not json":
        path.write_bytes(b"\x00\xff" * 40)
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # derived before the robot's game ended
        store = Store(data, create=False)
        games = dict(load_games(store))
        store_ratings.write(data, store_ratings.derive(games[g] for g in ("g1", "g2", "g3")))
        assert path.read_bytes() != kept
    assert _gm_ratings(capsys, data, "--json") == table
    assert path.read_bytes() == kept


def test_a_rebuild_killed_at_any_point_leaves_the_old_file_or_the_new(built, capsys, tmp_path):
    original, _ = built
    data = tmp_path / "data"
    shutil.copytree(original, data)
    _gm_ratings(capsys, data)
    path = data / store_ratings.FILE
    kept = path.read_bytes()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for delay in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.7):
        if delay < 0.5:  # killed with no file, or with the old one there
            path.unlink(missing_ok=True)
        process = subprocess.Popen([sys.executable, "-P", "-m", "gm", "ratings", "--rebuild", "--data", str(data)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(delay)
        process.kill()
        process.wait(timeout=30)
        assert not path.exists() or path.read_bytes() == kept, delay
    _gm_ratings(capsys, data)
    assert path.read_bytes() == kept


def test_ratings_by_mail_shows_public_names_only_to_the_sender(built, capsys):
    data, answers = built
    first = answers["ratings"][0]
    assert str(first["To"]) == ALICE and str(first["Subject"]) == "[gm] Ratings"
    body = text(first)
    assert "Spaceships ratings" in body and "Grid Fighters ratings" in body and "Celestial Empire ratings" in body
    spaceships = body.split("Spaceships ratings", 1)[1]
    assert "Ahab" in spaceships and "robot (normal)" in spaceships
    assert "and 1 player without a public name" in spaceships
    assert "@" not in body and "alice" not in body.lower() and "bob" not in body.lower()
    only = text(answers["ratings gridfighters"][0])
    assert "Grid Fighters ratings" in only and "No rated games yet." in only and "Spaceships" not in only
    assert answers["ratings chess"] == [None]
    assert answers["ratings"][1] is not None  # past the day's allowance, Alice (a player) is told so, once:
    assert str(answers["ratings"][2]["Subject"]) == "[gm] No more answers today"
    reasons = b"\n".join(answers["shunted"])
    assert b"ratings of an unknown game" in reasons
    assert f"ratings: {ALICE} was sent {LIMIT} mails about no game today already".encode() in reasons
    # the daemon wrote the file the operator's rebuild writes
    kept = (data / store_ratings.FILE).read_bytes()
    _gm_ratings(capsys, data, "--rebuild")
    assert (data / store_ratings.FILE).read_bytes() == kept


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_the_web_archive_shows_each_games_ratings_by_public_name(built, tmp_path):
    original, _ = built
    data = tmp_path / "data"
    shutil.copytree(original, data)
    (data / store_ratings.FILE).unlink(missing_ok=True)  # derived in memory: the site writes nothing
    before = _tree(data)
    site = Site(data, "--web-only")
    try:
        status, _, index = site.get("/")
        assert status == 200 and b'href="/ratings/spaceships"' in index and b'href="/ratings/gridfighters"' in index
        status, headers, body = site.get("/ratings/spaceships")
        page = body.decode()
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert "Ahab" in page and "robot (normal)" in page and "And 1 player without a public name." in page
        assert "@" not in page and "alice" not in page.lower() and "bob" not in page.lower()
        assert "example" not in page
        assert "No rated games yet." in site.get("/ratings/gridfighters")[2].decode()
        assert site.get("/ratings/chess")[0] == 404
    finally:
        site.stop()
    assert _tree(data) == before


def test_each_named_player_has_a_page_with_their_ratings_history_and_games(built, tmp_path):
    original, _ = built
    data = tmp_path / "data"
    shutil.copytree(original, data)
    before = _tree(data)
    site = Site(data, "--web-only")
    try:
        status, _, body = site.get("/ratings/spaceships")
        assert status == 200 and b'<a href="/players/Ahab">Ahab</a>' in body
        status, headers, body = site.get("/players/ahab")  # a name in any capitals
        page = body.decode()
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert "<h1>Ahab</h1>" in page and '<a href="/ratings/spaceships">Spaceships</a>' in page
        history = re.search(r'<span class="note">(\d+) → (\d+)</span>', page)  # g1 won, then g2 lost
        assert history and int(history[1]) > 1500 and int(history[2]) < int(history[1])
        alice = next(row for row in store_ratings.read(original).table("spaceships") if row.player == ALICE)
        assert int(history[2]) == round(alice.rating) and "<polyline" in page
        results = re.findall(r'<a href="/games/(g\d)">g\d</a></td><td data-label="Of">Spaceships</td>'
                             r'<td data-label="Ended">[^<]+</td><td data-label="Result">(\w+)</td>', page)
        assert results == [("g4", "lost"), ("g3", "won"), ("g2", "lost"), ("g1", "won")]
        assert "@" not in page and "alice" not in page.lower() and "bob" not in page.lower()
        for missing in ("/players/Ishmael", "/players/bob@example.net", "/players/" + "x" * 40):
            assert site.get(missing)[0] == 404
    finally:
        site.stop()
    assert _tree(data) == before

