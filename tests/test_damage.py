"""Every file gm reads that it also wrote, damaged, under the real daemon
(`gm serve --masters 2`, so that the files each master keeps for itself are
damaged in the first master's folder and in ``masters/1/``): emptied, cut in
the middle, overwritten with random bytes, written by a gm of a later shape,
or a directory where the file should be. (Unreadable permissions are not
tried: the tests run as root, whom ``chmod`` does not stop.)

Each case copies one data directory built once for the module (four games,
both setups in, two for each master), damages every file of the table
(`FILES`) in one way at once (a start of the daemon costs seconds on a
loaded machine), starts the daemon, sends turn 1's orders of every game and
a ``ratings`` mail, and checks that the daemon served (never died), every
accepted mail was applied exactly once and every reply delivered once
(`crash_orders.each_once`), each game's state equals what a replay of its
archive gives, each file was read as none and written anew (or, where a
directory stands in its place, left alone), and the operator was told of
each, by a log record naming the file. docs/data.md is the list of the
files this table follows, with what gm does when each is damaged."""

from __future__ import annotations

import copy
import enum
import json
import os
import pickle
import shutil
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from crash_orders import delivered, each_once, orders
from gm.mail.reading import parse_message
from gm.pbem.archive.replay import prepend_header, replay
from gm.pbem.data.store import Store, spool_key
from gm.pbem.state import index, ratings, snapshots
from gm.pbem.state.resident import summary_of
from gm.pbem.writing.mailer import Identity
from gm.storage.maildirs import DurableMaildir
from gmprocess import gm
from gmtest import ALICE, GM
from test_masters import GAMES, Server, idle, send, set_up

pytestmark = pytest.mark.slow  # a real daemon with two master processes, started once a case


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, dict[str, list[str]]]:
    """Four games with both setups in, started and stopped once more after
    they settled, so that each master's start-up index holds every game of
    its own (`index.SETTLED_NS`); the Message-IDs sent to each game."""
    root = tmp_path_factory.mktemp("built") / "data"
    server, sent = set_up(root)
    time.sleep(index.SETTLED_NS / 1e9 + 0.1)
    server.start()
    idle(server, root)
    server.stop()
    assert server.crashes == 0
    return root, sent


def _served(root: Path, mails: list[tuple[bytes, str, str]]) -> str:
    """Start the daemon (``--masters 2``) on ``root``, send ``mails``, wait
    until it is idle and stop it; its log. It must have stopped cleanly,
    whatever was damaged."""
    server = Server(root)
    server.start()
    try:
        for raw, sender, recipient in mails:
            send(server, raw, sender, recipient)
        idle(server, root)
    finally:
        server.stop()
    log = server.logs.decode()
    assert server.crashes == 0 and server.process.returncode == 0, log[-3000:]
    return log


def _future_index(path: Path) -> None:
    path.write_bytes(index.MAGIC + snapshots.frame(pickle.dumps((snapshots.SCHEMA + 1, {}, frozenset()))))


def _future_snapshot(path: Path) -> None:
    """g1's snapshot as a later gm would write it: a kernel of a later schema number."""
    head, body = snapshots.read(path.parent.parent, path.name)
    head.schemas = {owner: number + 1 for owner, number in head.schemas.items()}
    snapshots.write(path.parent.parent, head, body)


def _future_ratings(path: Path) -> None:
    body = {"format": ratings.FORMAT + 1, "games": [], "tables": {}}
    path.write_text(json.dumps({**body, "checksum": ratings._checksum(body)}))


def _future_attempts(path: Path) -> None:
    path.write_text("2\n00000000000000000001.smtp.x\t1\t0\tlater\nanother\tfield\tmore\t9\n")


def _future_commit(path: Path) -> None:
    """A manifest whose lines have a field more than this gm's (its digest
    line is not this gm's either: a later gm's is not read)."""
    path.write_text(json.dumps(["tmp/x", "games/g1/new/x", "later"]) + "\nnot a digest\n")


def _future_counts(path: Path) -> None:
    with open(path, "a") as handle:
        handle.write(f"\n{ALICE}\t00000000000000000001.smtp.x\t1\tlater\t.\n")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _cut(path: Path) -> None:
    data = path.read_bytes() if path.is_file() else b""
    path.write_bytes(data[:len(data) // 2])


def _random(path: Path) -> None:
    size = path.stat().st_size if path.is_file() else 0
    path.write_bytes(os.urandom(max(size, 256)))


def _directory(path: Path) -> None:
    if path.is_file():
        path.unlink()
    path.mkdir()
    (path / "left-here").write_bytes(b"")


Damage = Callable[[Path], None]
DAMAGES: dict[str, Damage] = {"empty": _empty, "cut": _cut, "random": _random, "directory": _directory}


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


@dataclass(frozen=True)
class File:
    """One file gm reads that it wrote, as this table damages it."""

    where: Callable[[], str]
    """Its path in the data directory."""
    future: Damage
    """How a gm of a later shape would write it."""
    logged: frozenset[str]
    """The damages the operator is told of: the others leave a file this gm
    reads as it reads a fresh one (an empty table of attempts or counts, a
    cut of the empty manifest), or are a later gm's that this one, like any
    downgrade, quietly does not read (a snapshot's numbers)."""
    rebuilt: Callable[[Path, Path], bool]
    """Whether the file (its path, and the data directory) was written anew and reads."""


def _no_attempts(path: Path) -> bool:
    """Whether a table of attempts says none is begun (written whole over
    the old bytes, which may go on after it: its first line says how many
    lines count)."""
    return path.read_bytes().split(b"\n", 1)[0] == b"0"


ALL = frozenset([*DAMAGES, "future"])
FILES: dict[str, File] = {
    "index": File(lambda: "snapshots/.index", _future_index, ALL,
                  lambda path, root: index.read(root) is not None),
    "index of master 1": File(lambda: "masters/1/snapshots/.index", _future_index, ALL,
                              lambda path, root: index.read(root / "masters" / "1") is not None),
    "snapshot": File(lambda: "snapshots/g1", _future_snapshot, ALL - {"future"},
                     lambda path, root: snapshots.read(root, "g1") is not None),
    "counts": File(lambda: f"limits/{_today()}", _future_counts, frozenset({"random", "future", "directory"}),
                   lambda path, root: path.is_file()),
    "attempts": File(lambda: "attempts/in-progress", _future_attempts, frozenset({"random", "future", "directory"}),
                     lambda path, root: _no_attempts(path)),
    "attempts of master 1": File(lambda: "masters/1/attempts/in-progress", _future_attempts,
                                 frozenset({"random", "future", "directory"}), lambda path, root: _no_attempts(path)),
    "commit": File(lambda: "commit", _future_commit, frozenset({"random", "future"}),
                   lambda path, root: path.read_bytes() == b""),
    "commit of master 1": File(lambda: "masters/1/commit", _future_commit, frozenset({"random", "future"}),
                               lambda path, root: path.read_bytes() == b""),
    "ratings": File(lambda: "ratings.json", _future_ratings, ALL,
                    lambda path, root: ratings.read(root) is not None),
}
MANIFESTS = ("commit", "commit of master 1")
"""The batches' manifests: no derived files but the journal of a batch being
published, without which no batch is; a directory in their place stops the
start (`test_a_file_gm_cannot_do_without_damaged_stops_the_start`)."""


def _ratings_mail() -> tuple[bytes, str, str]:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = ALICE, GM, "ratings"
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content("ratings")
    return message.as_bytes(), ALICE, GM


def _named(log: str, root: Path, name: str) -> bool:
    """Whether a warning of ``log`` names the damaged file ``name``."""
    path = root / FILES[name].where()
    told = f"game={path.name}" if name == "snapshot" else str(path)
    return any(told in line and ("WARNING" in line or "ERROR" in line) for line in log.splitlines())


def _take_the_ratings_answer(root: Path) -> None:
    """Check that Alice got her one answer to ``ratings``, and take it out of
    the delivered mail, which then holds only the games' (`each_once`)."""
    box = DurableMaildir(root / "delivered", create=False)
    answers = [k for k in box.keys() if "[gm] Ratings" in str(parse_message(box.get_bytes(k))["Subject"])]
    assert len(answers) == 1, answers
    box.remove(answers[0])


def _plain(value: object, within: frozenset[int] = frozenset()) -> object:
    """``value`` as plain nested tuples, compared by what it holds rather than
    by which objects it shares (a game loaded from its snapshot shares less
    than one replayed, so their pickles differ where their states do not)."""
    if isinstance(value, (str, bytes, int, float, bool, type(None), enum.Enum, type, types.FunctionType)):
        return value
    if id(value) in within:
        return "<cycle>"
    within |= {id(value)}
    if isinstance(value, dict):
        return "dict", sorted((repr(_plain(k, within)), _plain(v, within)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_plain(item, within) for item in value]
    if isinstance(value, (set, frozenset)):
        return "set", sorted(repr(_plain(item, within)) for item in value)
    reduced = value.__reduce_ex__(5)
    return type(value).__qualname__, [_plain(part, within) for part in reduced[1:3]]


def _state_is_its_replay(root: Path, game: str) -> None:
    """The game as the daemon left it (its snapshot, written when it
    stopped) is the game its archive replays to."""
    found = snapshots.read(root, game)
    assert found is not None, f"{game}: no snapshot written"
    _, (kept, threads, _) = found
    replayed = replay(DurableMaildir(root / "games" / game, create=False), Identity(GM), game, "none")
    assert summary_of(kept) == summary_of(replayed[0]), game
    assert _plain((kept, threads)) == _plain(replayed[:2]), game


@pytest.mark.parametrize("damage", [*DAMAGES, "future"])
def test_every_derived_file_damaged_and_no_mail_lost(tmp_path, built, damage):
    """Every file of the table damaged the same way at once; the daemon
    serves turn 1's orders of every game and Alice's ``ratings``, and each
    file is written anew and, where it was damaged, named in the log."""
    source, sent = built
    root = tmp_path / "data"
    shutil.copytree(source, root)
    sent = copy.deepcopy(sent)
    names = [name for name in FILES if not (damage == "directory" and name in MANIFESTS)]
    for name in names:
        file = FILES[name]
        (file.future if damage == "future" else DAMAGES[damage])(root / file.where())
    log = _served(root, [*orders(root, GAMES, sent), _ratings_mail()])
    _take_the_ratings_answer(root)
    each_once(root, GAMES, sent, ())
    for game in GAMES:
        if not (damage == "directory" and game == "g1"):  # g1's snapshot cannot be written: a directory is there
            _state_is_its_replay(root, game)
    told = "\n".join(line for line in log.splitlines() if "INFO" not in line)
    for name in names:
        file, path = FILES[name], root / FILES[name].where()
        if damage in file.logged:
            assert _named(log, root, name), f"{name}: not named in the log\n{told}"
        if damage == "directory":
            assert path.is_dir(), name  # left as it was: gm removes nothing it did not write
        else:
            assert file.rebuilt(path, root), name


@pytest.mark.parametrize(("where", "damage"), [("commit", "directory"), ("masters/1/commit", "directory"),
                                               ("secret.key", "empty")])
def test_a_file_gm_cannot_do_without_damaged_stops_the_start(tmp_path, built, where, damage):
    """A batch's manifest cannot be done without (a batch is published
    through it), nor the server key (under an emptied one every player's
    mail would read as forged): a directory in a manifest's place, or an
    empty key, stops `gm serve` at its start, with exit status 1 and the
    file named, before it takes any mail."""
    source, _ = built
    root = tmp_path / "data"
    shutil.copytree(source, root)
    DAMAGES[damage](root / where)
    done = gm("serve", "--data", str(root), "--smtp", "127.0.0.1:0", "--address", GM, "--masters", "2", cwd=tmp_path)
    assert done.returncode == 1 and str(root / where) in done.stderr, done.stderr[-3000:]


def test_a_missing_key_where_games_are_stops_the_start_and_a_new_directory_gets_one(tmp_path, built):
    """A ``secret.key`` gone from a directory that holds games is a key
    lost, not a new installation: made anew, it would turn every player's
    reply address into a forgery. `gm serve` stops at its start (exit
    status 1), names the file and says to restore it from the backup, and
    makes no key. A directory with nothing gm keeps in it (none at all,
    an empty one, or the empty folders of a first start cut short) still
    gets a new key, as README's first command needs."""
    source, _ = built
    root = tmp_path / "data"
    shutil.copytree(source, root)
    (root / "secret.key").unlink()
    done = gm("serve", "--data", str(root), "--smtp", "127.0.0.1:0", "--address", GM, "--masters", "2", cwd=tmp_path)
    assert done.returncode == 1 and str(root / "secret.key") in done.stderr, done.stderr[-3000:]
    assert "restore it from the backup" in done.stderr, done.stderr[-3000:]
    assert not (root / "secret.key").exists()
    empty, cut = tmp_path / "empty", tmp_path / "cut"
    empty.mkdir()
    (cut / "games").mkdir(parents=True)
    DurableMaildir(cut / "spool")
    for new in (tmp_path / "none", empty, cut):
        assert len(Store(new).key) == 32, new


def _damaged_archive(source: Path, root: Path, damage: str) -> DurableMaildir:
    """A copy of ``source`` at ``root`` where g1's archived setup mail from
    Alice is damaged, and g1 has no snapshot to start from (nor an entry of
    its master's index): it must be replayed from that archive."""
    shutil.copytree(source, root)
    archive = DurableMaildir(root / "games" / "g1", create=False)
    setup = [key for key in archive.keys() if ".in." in key][1]
    DAMAGES[damage](archive.file_of(setup))
    snapshots.path_of(root, "g1").unlink()
    for folder in (root, root / "masters" / "1"):
        index.path_of(folder).unlink()
    return archive


@pytest.mark.parametrize("damage", ["empty", "random"])
def test_a_damaged_archive_stops_its_game_loudly_and_the_others_go_on(tmp_path, built, damage):
    """The archive is the record, not derived (`_damaged_archive`): g1's
    archive no longer replays, so g1 stops, its mail neither applied to a
    game rebuilt without that event nor dropped: it goes to the shunt as
    gm's own fault (spooled again at a start where g1 opens), the log names
    the game, and every other game is served, each mail once. (Before, the
    master died at its start, and with it the daemon.)"""
    source, sent = built
    root = tmp_path / "data"
    archive = _damaged_archive(source, root, damage)
    sent = copy.deepcopy(sent)
    log = _served(root, orders(root, GAMES, sent))
    assert "game g1 not opened" in log, log[-3000:]
    store = Store(root)
    reasons = [store.shunt.get_bytes(key).split(b"\r\n", 1)[0].decode() for key in store.shunt.keys()]
    assert len(reasons) == 2 and all("could not load g1" in r and "did not load" in r for r in reasons), reasons
    assert [key for key in archive.keys() if ".in." in key] == [key for key in
                                                                 DurableMaildir(source / "games" / "g1").keys()
                                                                 if ".in." in key]  # nothing applied to g1
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids)) == 10 * (len(GAMES) - 1) + 6  # g1's six before its orders
    for game in GAMES[1:]:
        inbound = [parse_message(archive.get_bytes(k))
                   for archive in [DurableMaildir(root / "games" / game, create=False)]
                   for k in archive.keys() if ".in." in k]
        assert sorted(str(m["Message-ID"]) for m in inbound if m.get("X-GM-Accepted")) == sorted(sent[game]), game
        _state_is_its_replay(root, game)


def test_gm_games_and_show_name_a_game_that_does_not_load_and_show_the_others(tmp_path, built):
    """`gm games` and `gm show` read g1's archive that no longer replays
    (`_damaged_archive`) as the daemon does, without a traceback: the
    listing names g1 as not loading, with the error on its one line, lists
    every other game, and exits 1; `gm show g1` says so in one line (exit
    1), and `gm show g2` shows g2 (exit 0)."""
    source, _ = built
    root = tmp_path / "data"
    _damaged_archive(source, root, "random")
    listed = gm("games", "--data", str(root), cwd=tmp_path)
    assert listed.returncode == 1 and "Traceback" not in listed.stderr, listed.stderr[-3000:]
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == GAMES, listed.stdout
    assert "not loading" in lines[0] and "Error" in lines[0], lines[0]
    assert all("not loading" not in line for line in lines[1:]), listed.stdout
    shown = gm("show", "g1", "--data", str(root), cwd=tmp_path)
    assert shown.returncode == 1 and "Traceback" not in shown.stderr, shown.stderr[-3000:]
    assert shown.stderr.startswith("gm show: g1 does not load: ") and shown.stderr.count("\n") == 1, shown.stderr
    other = gm("show", "g2", "--data", str(root), cwd=tmp_path)
    assert other.returncode == 0 and json.loads(other.stdout)["game"] == "g2", other.stderr[-3000:]


def test_an_archived_mail_cut_short_is_found_by_gm_replay(tmp_path, built):
    """An archived mail cut in the middle may still read as a mail: the game
    then replays to another state, which nothing in the archive lets the
    daemon tell (docs/data.md); ``gm replay`` does, as it rebuilds every
    message the GM sent and compares it with the archived copy."""
    source, _ = built
    root = tmp_path / "data"
    _damaged_archive(source, root, "cut")
    done = gm("replay", str(root / "games" / "g1"), cwd=tmp_path)
    assert done.returncode != 0 and "all identical" not in done.stdout, done.stdout + done.stderr


def test_a_damaged_spooled_mail_goes_to_the_shunt_and_the_others_are_applied(tmp_path, built):
    """The spool is the record of mail accepted and not yet handled: turn
    1's orders of every game wait there when gm starts, one of them (Alice's
    to g1, the second master's) overwritten with random bytes. It goes to the shunt with its
    reason, kept; every other order is applied once."""
    source, sent = built
    root = tmp_path / "data"
    shutil.copytree(source, root)
    sent = copy.deepcopy(sent)
    store = Store(root)
    keys = []
    for raw, sender, recipient in orders(root, GAMES, sent):
        spooled = prepend_header(prepend_header(raw, "X-GM-Envelope-To", f"<{recipient.lower()}>"),
                                 "Return-Path", f"<{sender}>")
        keys.append(spool_key(datetime.now(UTC), "smtp"))
        store.spool.add(spooled, keys[-1])
    _random(store.spool.file_of(keys[0]))
    lost = sent["g1"].pop(2)  # Alice's orders to g1: never applied
    log = _served(root, [])
    shunted = store.shunt.keys()
    assert shunted == [keys[0]], shunted
    assert f"mail shunted key={keys[0]}" in log
    inbound = [parse_message(archive.get_bytes(k)) for archive in [DurableMaildir(root / "games" / "g1", create=False)]
               for k in archive.keys() if ".in." in k]
    assert lost not in [str(m["Message-ID"]) for m in inbound]
    for game in GAMES:
        archive = DurableMaildir(root / "games" / game, create=False)
        applied = [str(parse_message(archive.get_bytes(k))["Message-ID"]) for k in archive.keys()
                   if ".in." in k and parse_message(archive.get_bytes(k)).get("X-GM-Accepted")]
        assert sorted(applied) == sorted(sent[game]), game
        _state_is_its_replay(root, game)
