"""Several daemons behind one MTA, each holding a share of the games.

docs/operations.md ("Several daemons") is the procedure; this is its tooling.

**Game ids.** A data directory that is shard K of S (the file ``DATA/shard``
holds ``K/S``, written by `gm shard init`) numbers the games it makes ``gN``
with N mod S = K (`gm.pbem.data.store.Shard`), so no two shards ever make the same id and the shard of a
game made there can be read off its id. `gm.pbem.operator.transport` writes
the Postfix maps that route each plus-address by that rule. Ids stay ``g``
and digits, as everything else in gm expects.

**Moving a game.** A game's Maildir (``games/GAME/``) is its whole state;
`export_game` takes it from a stopped shard into a *bundle*, a folder laid
out like a data directory, together with what of the game lives elsewhere in
the data directory:

- its mail waiting in ``spool/`` and ``outbox/`` (moved: the old shard must
  neither handle nor send it);
- its ``sent/`` markers (copied): the new shard must not send again what the
  old one sent, which it would otherwise do for the game's last event;
- its ``undeliverable/`` mail (copied), for the owner's daily summary;
- its seats' pending address moves, in ``challenges/`` and ``handled/``
  (copied).

Nothing else is the game's: ``limits/`` counts addresses per day, ``shunt/``
stays with the operator of the shard that shunted the mail, and
``snapshots/GAME`` is a cache, dropped on both sides and rebuilt from the
archive. The old shard keeps the Maildir under ``moved/STAMP/GAME`` and an
empty ``games/GAME/`` (a reserved id, as `gm new` makes), so that it never
makes that id again. `import_game` puts a bundle into another shard's data
directory; both refuse unless the two directories share the server key,
without which every player's address would stop working.

Either may be cut short (killed, a power cut) and is then run again
(docs/operations.md, "An interrupted move"): the export keeps a journal in
``DATA/moving-out/`` and makes the bundle appear only once the game has
left, the import publishes the game and its mail by one group commit whose
list of renames is in ``DATA/moving-in/``; run again, each completes what
had begun, or starts over. So a game is never live on two shards, and no
mail accepted with 250 is lost or handled twice.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import shutil
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ...mail.reading import addresses, parse_message
from ...storage.batches import Batch, Staged, finish_interrupted
from ...storage.maildirs import DurableMaildir
from ...storage.syncing import fsync_dir
from ..data.crashpoints import crashpoint
from ..data.store import GAME_ID, SHARD_FILE, Shard, shard_of
from ..state import snapshots

MANIFEST = "manifest"
"""The bundle's description: ``name: value`` lines."""


def init(root: str | os.PathLike[str], shard: Shard) -> bool:
    """Make the data directory at ``root`` shard ``shard``; False when it is
    that already. ValueError when it is another shard: its games were
    numbered for that one and the transport map routes them there."""
    current = shard_of(root)
    if current == shard:
        return False
    if current is not None:
        raise ValueError(f"{root} is shard {current} already; its games are routed by that. "
                         f"Remove {Path(root) / SHARD_FILE} first if you are renumbering every shard")
    path = Path(root) / SHARD_FILE
    _write(path, f"{shard}\n".encode())
    return True


# Moving a game between shards


def key_check(key: bytes) -> str:
    """What shows that two data directories share the server key, and
    reveals nothing of it."""
    return hmac.new(key, b"gm shard bundle", hashlib.sha256).hexdigest()[:16]


def _write(path: Path, data: bytes) -> None:
    """Write a small file durably, replacing it atomically."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def _make_dirs(path: Path) -> None:
    """Make a folder and those missing above it, each one's name durable."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True)
        fsync_dir(folder.parent)


def _copy_tree(source: Path, target: Path) -> None:
    """Copy a folder of files (a Maildir), every file and folder fsynced."""
    shutil.copytree(source, target, copy_function=shutil.copy2)
    for folder, _, files in os.walk(target):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(folder))
    fsync_dir(target.parent)


def _mail_names(raw: bytes, local: str, domain: str, game: str) -> bool:
    """Whether spooled mail belongs to ``game``: a GM event about it, or mail
    to one of its plus-addresses (as `gm.pbem.master.game_master` reads them)."""
    message = parse_message(raw)
    if str(message.get("X-GM-Game", "")).strip() == game:
        return True
    envelope = [str(v).strip().strip("<>") for v in message.get_all("X-GM-Envelope-To", [])]
    for address in envelope + addresses(message, "To") + addresses(message, "Cc"):
        name, _, host = address.rpartition("@")
        base, plus, tag = name.partition("+")
        if (plus and base.lower() == local.lower() and host.lower() == domain.lower()
                and tag.lower().split(".")[0] == game):
            return True
    return False


def _moves_of(box: DurableMaildir, game: str) -> list[str]:
    """The keys of a game's seats' address moves waiting for confirmation."""
    found = []
    for key in box.keys():
        if not key.startswith("a"):
            continue
        fields = str(parse_message(box.get_bytes(key)).get("X-GM-Move", ""))
        if re.search(rf"(^|;)\s*game={re.escape(game)}\s*(;|$)", fields):
            found.append(key)
    return found


@dataclass
class Bundle:
    """What `export_game` carried, for the operator: counts by kind."""

    game: str
    spool: int = 0
    outbox: int = 0
    sent: int = 0
    undeliverable: int = 0
    moves: int = 0

    def summary(self) -> str:
        return (f"{self.game}: the archive, {self.spool} spooled, {self.outbox} queued, {self.sent} sent markers, "
                f"{self.undeliverable} undeliverable, {self.moves} address moves")


def _game_keys(keys: list[str], game: str) -> list[str]:
    """Outbox and marker keys of a game's own mail: ``GAME.ARCHIVE-KEY`` and
    the forgery warnings ``warning.GAME.PLAYER.DAY``."""
    return [k for k in keys if k.startswith(f"{game}.") or k.startswith(f"warning.{game}.")]


OUTGOING = "moving-out"
"""``DATA/moving-out/GAME``: the journal of an export under way."""
INCOMING = "moving-in"
"""``DATA/moving-in/``: an import's copy of the game and its commit list."""


def _fields(path: Path) -> dict[str, str]:
    """The ``name: value`` lines of a manifest or journal."""
    fields = {}
    for line in path.read_text().splitlines():
        name, sep, value = line.partition(": ")
        if sep:
            fields[name] = value
    return fields


def unfinished_move(root: str | os.PathLike[str]) -> str | None:
    """What an export or import cut short left in the data directory at
    ``root`` (its journal or its copy of the game), as what the operator
    must run to finish it; None when there is none. A daemon must not start
    meanwhile (docs/operations.md, "An interrupted move")."""
    outgoing, incoming = Path(root) / OUTGOING, Path(root) / INCOMING
    for journal in sorted(outgoing.iterdir()) if outgoing.is_dir() else []:
        if GAME_ID.fullmatch(journal.name):
            bundle = _fields(journal).get("bundle", "BUNDLE")
            return (f"the export of {journal.name} was cut short ({journal}): finish it with "
                    f"`gm shard export {journal.name} --to {bundle}`")
    for left in sorted(incoming.iterdir()) if incoming.is_dir() else []:
        game = left.name.removesuffix(".commit")
        if GAME_ID.fullmatch(game):
            return (f"the import of {game} was cut short ({left}): finish it with the same "
                    f"`gm shard import BUNDLE` again")
    return None


def _live(store, game: str) -> bool:
    """Whether ``game`` is live in this data directory (its Maildir is there)."""
    return (store.games_dir / game / "new").is_dir()


def _carried(folder: Path, game: str) -> Bundle:
    """What a bundle (or its staging folder) holds, counted by kind."""
    def count(name: str) -> int:
        return len(DurableMaildir(folder / name, create=False).keys()) if (folder / name / "new").is_dir() else 0
    sent = folder / "sent"
    return Bundle(game, spool=count("spool"), outbox=count("outbox"),
                  sent=len([m for m in os.listdir(sent) if not m.startswith(".")]) if sent.is_dir() else 0,
                  undeliverable=count("undeliverable"), moves=count("challenges"))


def export_game(store, game: str, bundle: str | os.PathLike[str], local: str, domain: str,
                now: datetime | None = None) -> Bundle:
    """Take ``game`` out of a shard's data directory (``store``, a
    `gm.pbem.data.store.Store`) into the new folder ``bundle``. The shard's
    daemon must be stopped (and the game's mail held in the MTA's queue).

    The bundle is made in ``.BUNDLE.partial`` beside it and is complete and
    durable before anything leaves the data directory. Then a journal
    (``DATA/moving-out/GAME``) is written, and the game leaves: its Maildir
    moves to ``moved/STAMP/GAME`` (the one step after which the game is no
    longer live here), an empty ``games/GAME`` keeps its id taken, and its
    mail leaves the spool and the outbox. Only then is the manifest written
    and the bundle renamed to ``bundle``: a bundle that can be imported is
    one whose game has left, so the game is never live on two shards.

    Run again after being cut short (killed, a power cut), it finds the
    journal and completes the move if the game had left, or starts over
    if it had not. ValueError when there is no such game, the bundle
    exists, or an earlier export of the game to another folder was cut short."""
    target = Path(bundle)
    staging = target.with_name(f".{target.name}.partial")
    journal = store.root / OUTGOING / game
    if GAME_ID.fullmatch(game) and journal.is_file():
        begun = _fields(journal)
        if begun.get("bundle") != str(target.resolve()):
            raise ValueError(f"an export of {game} to {begun.get('bundle')} was cut short: "
                             f"run it again with --to {begun.get('bundle')}")
        if not _live(store, game):
            return _leave(store, game, target, journal, begun)
        journal.unlink()  # cut short before the game left: nothing left, start over
    if not GAME_ID.fullmatch(game) or not _live(store, game):
        raise ValueError(f"no game {game} in {store.root}")
    if target.exists():
        raise ValueError(f"{target} exists already: give a new folder for the bundle")
    now = now or datetime.now(UTC)
    if staging.exists():
        shutil.rmtree(staging)
    _make_dirs(staging)
    _copy_tree(store.games_dir / game, staging / "games" / game)
    crashpoint("export-copied")

    spooled = [k for k in store.spool.keys() if _mail_names(store.spool.get_bytes(k), local, domain, game)]
    queued = [k for k in _game_keys(store.outbox.keys(), game) if k not in store.sent]
    for name, box, keys in (("spool", store.spool, spooled), ("outbox", store.outbox, queued),
                            ("undeliverable", store.undeliverable, _game_keys(store.undeliverable.keys(), game))):
        copy = DurableMaildir(staging / name)
        for key in keys:
            copy.add(box.get_bytes(key), key)
    moves = _moves_of(store.challenges, game)
    challenges = DurableMaildir(staging / "challenges")
    for key in moves:
        challenges.add(store.challenges.get_bytes(key), key)
    markers = [(staging / "sent", k) for k in _game_keys(sorted(os.listdir(store.sent.path)), game)]
    markers += [(staging / "handled", f"moved-{k}") for k in moves if f"moved-{k}" in store.handled]
    for folder, name in markers:
        _make_dirs(folder)
        _write(folder / name, b"")
    crashpoint("export-staged")

    kept = Path("moved") / now.strftime("%Y%m%dT%H%M%S%fZ") / game
    _make_dirs(journal.parent)
    _write(journal, f"bundle: {target.resolve()}\nkept: {kept}\nexported: {now.isoformat()}\n".encode())
    crashpoint("export-journal")
    _make_dirs((store.root / kept).parent)
    os.rename(store.games_dir / game, store.root / kept)
    crashpoint("export-left")
    return _leave(store, game, target, journal, _fields(journal))


def _leave(store, game: str, target: Path, journal: Path, begun: dict[str, str]) -> Bundle:
    """The rest of an export whose game's Maildir has left ``games/``:
    every step may be done again."""
    staging = target.with_name(f".{target.name}.partial")
    if not (staging / "games" / game / "new").is_dir() and not (target / MANIFEST).is_file():
        raise ValueError(f"the bundle of the export of {game} that was cut short is gone ({staging}); "
                         f"the game's Maildir is {store.root / begun.get('kept', 'moved')}")
    home = store.games_dir / game
    if not home.exists():
        os.mkdir(home)  # the id stays taken here
    fsync_dir(store.games_dir)
    fsync_dir((store.root / begun["kept"]).parent)
    crashpoint("export-reserved")
    if staging.is_dir():
        for name, box in (("spool", store.spool), ("outbox", store.outbox)):
            for key in DurableMaildir(staging / name, create=False).keys():
                box.remove(key)
                if name == "spool":
                    store.attempts.end(key)
                crashpoint(f"export-left-{name}")
        snapshots.remove(store.root, game)
        done = _carried(staging, game)
        _write(staging / MANIFEST, (f"game: {game}\nkey-check: {key_check(store.key)}\nfrom: {store.root.resolve()}\n"
                                    f"exported: {begun['exported']}\n{done.summary()}\n").encode())
        crashpoint("export-manifest")
        os.rename(staging, target)
        fsync_dir(target.parent)
        crashpoint("export-published")
    journal.unlink()
    fsync_dir(journal.parent)
    with suppress(OSError):  # another game's export, cut short, left its journal there
        journal.parent.rmdir()
    return _carried(target, game)


def read_manifest(bundle: str | os.PathLike[str]) -> dict[str, str]:
    """A bundle's manifest, ``name -> value``."""
    return _fields(Path(bundle) / MANIFEST)


class _Games:
    """``DATA/games`` as a place a batch renames a game's Maildir into."""

    def __init__(self, path: Path):
        self.path = path

    def _published(self, key: str) -> None:
        pass

    def _removed(self, key: str) -> None:
        pass


def import_game(store, bundle: str | os.PathLike[str]) -> Bundle:
    """Put a bundle made by `export_game` into a shard's data directory
    (``store``); the shard's daemon must be stopped, and needs a (re)start
    to take the game. ValueError when the bundle is not one, the server
    keys differ, or the game is here already.

    The game goes live with all its mail or not at all: its Maildir is
    copied into ``DATA/moving-in/GAME``, its mail and markers are staged
    beside their folders, and the whole is published by one group commit
    (`gm.storage.batches.Batch`) whose list of renames, ``DATA/moving-in/GAME.commit``,
    is durable before the first rename. Run again after being cut short,
    it completes a commit that had begun (and then reports the import
    done), or starts over if none had."""
    source = Path(bundle)
    try:
        fields = read_manifest(source)
    except FileNotFoundError:
        raise ValueError(f"{source} is no game bundle (no {MANIFEST}): `gm shard export` makes them") from None
    game = fields.get("game", "")
    if not GAME_ID.fullmatch(game) or not (source / "games" / game / "new").is_dir():
        raise ValueError(f"{source}: the bundle holds no game")
    if fields.get("key-check") != key_check(store.key):
        raise ValueError(f"{source}: exported from a data directory with another secret.key; every shard "
                         f"needs the same key, or the players' addresses stop working")
    incoming = store.root / INCOMING
    commit = incoming / f"{game}.commit"
    staging = incoming / game
    if commit.exists():  # an import cut short: finish its commit if it had begun
        finish_interrupted(commit, store.root)
        if _live(store, game):
            _end_import(commit)
            return _carried(source, game)
    if _live(store, game):
        raise ValueError(f"{store.root} has a game {game} already")
    if staging.exists():
        shutil.rmtree(staging)
    _make_dirs(incoming)
    _copy_tree(source / "games" / game, staging)
    crashpoint("import-copied")
    snapshots.remove(store.root, game)
    # The game first, then its markers, then its mail (the spool last),
    # all renamed into place by one commit.
    batch = Batch(store.syncer("import"), label="import", manifest=commit, root=store.root,
                  after_commit="import-committed")
    with batch:
        try:
            batch.stage(Staged(_Games(store.games_dir), game, staging, store.games_dir / game))
            _stage_mail(store, source)
        except BaseException:  # nothing of it published: not the game without its mail
            batch.staged.pop((str(store.games_dir), game))
            batch.discard()
            raise
        crashpoint("import-staged")
    _end_import(commit)
    return _carried(source, game)


def _stage_mail(store, source: Path) -> None:
    """Add a bundle's markers and mail to the data directory (staged, in the
    batch open in this thread): its markers first, then its mail, the
    spool last."""
    for name, markers in (("sent", store.sent), ("handled", store.handled)):
        folder = source / name
        for marker in sorted(os.listdir(folder)) if folder.is_dir() else []:
            if not marker.startswith("."):
                markers.add(marker)
    for name in ("undeliverable", "challenges", "outbox", "spool"):
        if (source / name / "new").is_dir():
            copy = DurableMaildir(source / name, create=False)
            box = getattr(store, name)
            for key in copy.keys():
                box.add(copy.get_bytes(key), key)


def _end_import(commit: Path) -> None:
    """Drop an import's finished commit list (its emptied copy folder with it)."""
    commit.unlink(missing_ok=True)
    fsync_dir(commit.parent)
    with suppress(OSError):  # another game's import, cut short, left its files there
        commit.parent.rmdir()
