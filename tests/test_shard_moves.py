"""A game's move between shards killed at each step, then run again as
docs/operations.md ("An interrupted move") says.

`gm shard export` and `gm shard import` run as real processes; the
environment variable GM_CRASH_AT (gm/pbem/data/crashpoints.py) makes one kill
itself with SIGKILL at a named step: after each write, rename and fsync
that changes what a data directory or a bundle holds. At the kill point
the game is live on at most one shard and every mail gm accepted (answered
250) is in at most one live data directory, the rest of it in the bundle
on its way; importing what is there then (a mistake the operator may make)
changes none of that. Run again, the command completes the move: the game
is live on the new shard only, every accepted mail is in exactly one live
data directory, and `gm replay` rebuilds the game byte for byte.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from email.parser import BytesHeaderParser
from pathlib import Path

import pytest

from gm.pbem.data.store import Store
from gm.pbem.operator.admin import verify_replay
from gmprocess import free_port, listening, serving
from gmtest import GM, World, started_game

pytestmark = pytest.mark.slow  # real gm commands SIGKILLed at every step of a move and run again

GAME = "g1"
OTHER = "g2"

EXPORT_POINTS = ["export-copied", "export-staged", "export-journal", "export-left", "export-reserved",
                 "export-left-spool", "export-left-outbox", "export-manifest", "export-published"]
"""Every step of an export after which its files differ (gm/pbem/operator/shards.py)."""

RENAMES = 9
"""The renames of the import of the played game: its Maildir, six sent
markers, a queued reply, a spooled order."""

IMPORT_POINTS = (["import-copied", "import-staged", "import-synced"]
                 + [f"mid-import-commit:{n}" for n in range(1, RENAMES + 1)] + ["import-committed"])
"""Every step of an import: the copy, the staged files, the commit list
and data durable, each rename, the whole durable."""


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A data directory with two games of Alice's and Bob's: in g1, one
    order handled (its answer queued, not sent) and one accepted and
    spooled; in g2, one spooled order."""
    root = tmp_path_factory.mktemp("played")
    world = World(root)

    async def scenario() -> None:
        async with world:
            await started_game(world)
            sheets = world.alice.latest(), world.bob.latest()
            world.clock.advance(minutes=1)
            await started_game(world)
            world.clock.advance(minutes=1)
            await asyncio.to_thread(world.alice.reply, "Rv1\n", sheets[0])
            await world.daemon.step()
            await asyncio.to_thread(world.bob.reply, "Bz5\n", sheets[1])
            await asyncio.to_thread(world.alice.reply, "Rv1\n")

    asyncio.run(scenario())
    data = root / "data"
    store = Store(data, create=False)
    assert len(store.spool.keys()) == 2 and any(k.startswith(f"{GAME}.") for k in store.outbox.keys())
    assert len([k for k in os.listdir(store.sent.path) if k.startswith(f"{GAME}.")]) == RENAMES - 3
    return data


def message_id(raw: bytes) -> str:
    return str(BytesHeaderParser().parsebytes(raw)["Message-ID"] or "").strip()


def message_ids(folder: Path) -> set[str]:
    """The Message-IDs of the mail in a Maildir (none when there is none)."""
    found = set()
    for sub in ("new", "cur"):
        for path in (folder / sub).iterdir() if (folder / sub).is_dir() else []:
            found.add(message_id(path.read_bytes()))
    return found - {""}


def accepted_mail(data: Path) -> dict[str, str]:
    """Message-ID -> game of every player's mail a data directory holds:
    handled (archived, "in" in its key) or spooled."""
    found = {}
    for game in (GAME, OTHER):
        archive = data / "games" / game
        for sub in ("new", "cur"):
            for path in (archive / sub).iterdir():
                if ".in." in path.name:
                    found[message_id(path.read_bytes())] = game
    store = Store(data, create=False)
    for key in store.spool.keys():
        text = store.spool.get_bytes(key)
        game = GAME if f"+{GAME}.".encode() in text else OTHER
        found[message_id(text)] = game
    assert "" not in found, "every player's mail has a Message-ID"
    return found


def live_on(data: Path) -> set[str]:
    """The games live in a data directory (their Maildir is there)."""
    return {p.name for p in (data / "games").iterdir() if (p / "new").is_dir()}


def live_mail(data: Path) -> set[str]:
    """The Message-IDs of the mail a data directory will handle or has
    handled: its spool and its live games' archives."""
    found = message_ids(data / "spool")
    for game in live_on(data):
        found |= message_ids(data / "games" / game)
    return found


def in_flight(bundle: Path) -> set[str]:
    """The Message-IDs a bundle (or its folder being made) carries."""
    found = set()
    for folder in (bundle, bundle.with_name(f".{bundle.name}.partial")):
        found |= message_ids(folder / "spool") | message_ids(folder / "games" / GAME)
    return found


def never_twice(shards: tuple[Path, Path], bundle: Path, accepted: dict[str, str]) -> None:
    """What holds at every kill point: the game live on at most one shard;
    each accepted mail in at most one live data directory, and if in none,
    in the bundle (on its way)."""
    assert sum(GAME in live_on(d) for d in shards) <= 1, [live_on(d) for d in shards]
    live = [live_mail(d) for d in shards]
    carried = in_flight(bundle)
    for message_id, game in accepted.items():
        holders = sum(message_id in mail for mail in live)
        assert holders == 1 or (holders == 0 and message_id in carried), (message_id, game, holders)


def moved_once(a: Path, b: Path, accepted: dict[str, str]) -> None:
    """What holds when the move is done: g1 live on B only and g2 on A;
    every accepted mail in exactly one live data directory, its game's;
    g1's unsent reply queued on B only; `gm replay` exact."""
    assert GAME not in live_on(a) and (a / "games" / GAME).is_dir(), "A keeps the id taken"
    assert GAME in live_on(b) and OTHER not in live_on(b) and OTHER in live_on(a)
    mail = {a: live_mail(a), b: live_mail(b)}
    for message_id, game in accepted.items():
        assert [d for d in (a, b) if message_id in mail[d]] == [b if game == GAME else a], (message_id, game)
    queued = {d: [k for k in Store(d, create=False).outbox.keys() if k.startswith(f"{GAME}.")] for d in (a, b)}
    sent = set(os.listdir(a / "sent"))
    assert queued[b] and not set(queued[a]) - sent, queued
    compared, differences = verify_replay(str(b / "games" / GAME))
    assert compared and differences == [], differences
    assert not (a / "moving-out").exists() and not (b / "moving-in").exists()


def shard(*args: str, crash: str | None = None, cwd: Path) -> subprocess.CompletedProcess:
    """``gm shard ARGS`` as a process, killed at ``crash`` if given."""
    env = {k: v for k, v in os.environ.items() if k != "GM_CRASH_AT"}
    if crash:
        env["GM_CRASH_AT"] = crash
    return subprocess.run([sys.executable, "-P", "-m", "gm", "shard", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def two_shards(played: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A (a copy of the played data directory) and B (empty, the same key),
    and the mail A accepted."""
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(played, a)
    b.mkdir()
    shutil.copy2(a / "secret.key", b / "secret.key")
    Store(b)
    accepted = accepted_mail(a)
    assert sorted(accepted.values()).count(GAME) >= 3, accepted
    return a, b, accepted


@pytest.mark.parametrize("point", EXPORT_POINTS)
def test_an_export_killed_at_any_step_and_run_again_moves_the_game_once(played, tmp_path, point):
    a, b, accepted = two_shards(played, tmp_path)
    bundle = tmp_path / "bundles" / GAME
    export = ("export", GAME, "--data", str(a), "--to", str(bundle), "--address", GM)
    killed = shard(*export, crash=point, cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    never_twice((a, b), bundle, accepted)
    # Importing what is there now (the mistake): refused unless the game has left A.
    early = shard("import", str(bundle), "--data", str(b), cwd=tmp_path)
    never_twice((a, b), bundle, accepted)
    again = shard(*export, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    if early.returncode != 0:
        imported = shard("import", str(bundle), "--data", str(b), cwd=tmp_path)
        assert imported.returncode == 0, imported.stderr
    moved_once(a, b, accepted)


@pytest.mark.parametrize("point", IMPORT_POINTS)
def test_an_import_killed_at_any_step_and_run_again_moves_the_game_once(played, tmp_path, point):
    a, b, accepted = two_shards(played, tmp_path)
    bundle = tmp_path / "bundles" / GAME
    exported = shard("export", GAME, "--data", str(a), "--to", str(bundle), "--address", GM, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    killed = shard("import", str(bundle), "--data", str(b), crash=point, cwd=tmp_path)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    never_twice((a, b), bundle, accepted)
    again = shard("import", str(bundle), "--data", str(b), cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.startswith(f"imported {GAME}: the archive"), again.stderr
    moved_once(a, b, accepted)
    twice = shard("import", str(bundle), "--data", str(b), cwd=tmp_path)
    assert twice.returncode == 2 and f"has a game {GAME} already" in twice.stderr, twice.stderr


def test_an_export_cut_short_is_finished_into_its_own_bundle_only(played, tmp_path):
    a, b, accepted = two_shards(played, tmp_path)
    bundle = tmp_path / "bundles" / GAME
    export = ("export", GAME, "--data", str(a), "--address", GM, "--to")
    assert shard(*export, str(bundle), crash="export-left", cwd=tmp_path).returncode == -signal.SIGKILL
    elsewhere = shard(*export, str(tmp_path / "bundles" / "other"), cwd=tmp_path)
    assert elsewhere.returncode == 2 and f"run it again with --to {bundle.resolve()}" in elsewhere.stderr
    assert not (tmp_path / "bundles" / "other").exists() and not (tmp_path / "bundles" / ".other.partial").exists()
    assert shard(*export, str(bundle), cwd=tmp_path).returncode == 0
    assert shard("import", str(bundle), "--data", str(b), cwd=tmp_path).returncode == 0
    moved_once(a, b, accepted)


def test_an_export_cut_short_before_the_game_left_starts_over_from_the_game_as_it_is(played, tmp_path):
    a, b, accepted = two_shards(played, tmp_path)
    bundle = tmp_path / "bundles" / GAME
    export = ("export", GAME, "--data", str(a), "--address", GM, "--to", str(bundle))
    assert shard(*export, crash="export-journal", cwd=tmp_path).returncode == -signal.SIGKILL
    # Meanwhile A took one more of g1's mails (gm started there by mistake, say).
    store = Store(a, create=False)
    spooled = next(k for k in store.spool.keys() if f"+{GAME}.".encode() in store.spool.get_bytes(k))
    late = store.spool.get_bytes(spooled).replace(b"Message-ID: <", b"Message-ID: <late.")
    assert message_id(late) not in accepted
    store.spool.add(late, spooled + "-late")
    accepted[message_id(late)] = GAME
    assert shard(*export, cwd=tmp_path).returncode == 0
    assert shard("import", str(bundle), "--data", str(b), cwd=tmp_path).returncode == 0
    moved_once(a, b, accepted)


@pytest.mark.parametrize("step, point", [("export", "export-left"), ("import", "import-copied"),
                                         ("import", "import-synced")])
def test_gm_serve_refuses_to_start_on_a_shard_whose_move_was_cut_short(played, tmp_path, step, point):
    a, b, _ = two_shards(played, tmp_path)
    bundle = tmp_path / "bundles" / GAME
    export = ("export", GAME, "--data", str(a), "--to", str(bundle), "--address", GM)
    if step == "import":
        assert shard(*export, cwd=tmp_path).returncode == 0
    command = export if step == "export" else ("import", str(bundle), "--data", str(b))
    assert shard(*command, crash=point, cwd=tmp_path).returncode == -signal.SIGKILL
    cut, port = (a if step == "export" else b), free_port()
    serve = [sys.executable, "-P", "-m", "gm", "serve", "--data", str(cut), "--smtp", f"127.0.0.1:{port}"]
    refused = subprocess.run(serve, cwd=tmp_path, capture_output=True, text=True, timeout=15)
    assert refused.returncode == 2 and refused.stdout == "" and not listening(port), refused.stderr
    assert refused.stderr.startswith(f"gm serve: {cut}: the {step} of {GAME} was cut short")
    assert refused.stderr.count("\n") == 1 and "An interrupted move" in refused.stderr, refused.stderr
    if step == "export":
        assert f"finish it with `gm shard export {GAME} --to {bundle.resolve()}`" in refused.stderr
    else:
        assert "finish it with the same `gm shard import BUNDLE` again" in refused.stderr
    assert shard(*command, cwd=tmp_path).returncode == 0
    with serving(cut, port, GM, tmp_path) as daemon:  # finished, it starts
        assert daemon.poll() is None
