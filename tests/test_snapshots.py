"""Snapshots and lazy loading (`gm.pbem.state.snapshots`, `gm.pbem.state.loading`,
`gm.pbem.state.resident`): start-up reads a game's summary, not its history; a
whole game is loaded when its mail comes; and whatever the snapshots hold
(current, stale, torn, from other code, none at all) the games gm serves
are the ones its archives replay to, byte for byte in every mail after."""

from __future__ import annotations

import errno
import shutil
from datetime import timedelta
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from pathlib import Path

import pytest

from gm.pbem.archive.replay import identity_of, is_inbound, replay
from gm.pbem.data.store import Store, spool_key
from gm.pbem.master.game_master import GameMaster
from gm.pbem.state import loading, snapshots
from gm.pbem.state.resident import summary_of
from gm.pbem.writing.mailer import Identity
from gm.storage.batches import current_batch
from gm.storage.maildirs import DurableMaildir, unix_lines
from gmtest import GM, START, World, run, started_game, text

AFTER = START + timedelta(hours=1, microseconds=123456)
"""When the next turn's mails reach a GameMaster (the played turns take minutes)."""


def compose(player, body: str, message_id: str) -> bytes:
    """What ``player`` would send in answer to the GM's latest mail (not sent)."""
    original = player.latest()
    message = EmailMessage(policy=SMTP_POLICY)
    message["From"] = player.address
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["Date"] = format_datetime(player.world.clock())
    message["Message-ID"] = message_id
    message["In-Reply-To"] = str(original["Message-ID"])
    message.set_content(body)
    return message.as_bytes()


async def _turn(world: World) -> None:
    await world.act(world.alice.reply, "Rz5")
    await world.act(world.bob.reply, "Oz5")


def _played(tmp_path: Path, turns: int = 3, stale_after: int | None = None) -> tuple[Path, list[bytes], Path | None]:
    """A data directory with one game in play at turn ``turns`` (snapshots
    current, as a stopped daemon leaves them), the next turn's two order
    mails (not yet sent), and, with ``stale_after``, a copy of the snapshots
    as they stood after that many turns."""
    world = World(tmp_path / "played")
    stale = tmp_path / "stale-snapshots" if stale_after is not None else None

    async def scenario() -> list[bytes]:
        async with world:
            await started_game(world)
            for turn in range(1, turns):
                await _turn(world)
                if stale is not None and turn == stale_after:
                    world.daemon.master.save_snapshots()
                    shutil.copytree(tmp_path / "played" / "data" / "snapshots", stale)
            world.clock.advance(minutes=5)
            return [compose(world.alice, "Rz4", "<next-a@example.org>"),
                    compose(world.bob, "Oz4", "<next-b@example.org>")]

    mails = run(scenario())
    return tmp_path / "played" / "data", mails, stale


def _serve(data: Path, mails: list[bytes], capacity: int = 200) -> GameMaster:
    """Start a GameMaster on ``data`` and hand it ``mails`` under fixed spool keys."""
    store = Store(data, create=False)
    master = GameMaster(store, Identity(GM), clock=lambda: AFTER, capacity=capacity)
    master.load()
    for n, raw in enumerate(mails):
        store.spool.add(raw, spool_key(AFTER + timedelta(microseconds=n), "smtp", f"m{n}"))
    master.process_spool()
    return master


def _contents(data: Path) -> dict[str, bytes]:
    """Every file of the games' archives and of the outbox, by name."""
    found = {}
    for folder in ("games/g1", "outbox"):
        box = DurableMaildir(data / folder, create=False)
        for key in box.keys():
            found[f"{folder}/{key}"] = box.get_bytes(key)
    return found


def watch_bases(monkeypatch) -> list:
    """The base each replay of `gm.pbem.state.loading` starts from, as it is
    called: the event key of the snapshot it builds on, or None for a
    replay of the whole archive."""
    bases: list = []
    real_replay = loading.replay

    def watching(*args, base=None, **kwargs):
        bases.append(None if base is None else base[2])
        return real_replay(*args, base=base, **kwargs)

    monkeypatch.setattr(loading, "replay", watching)
    return bases


def test_start_reads_summaries_from_snapshots_and_loads_a_game_when_its_mail_comes(tmp_path, monkeypatch):
    data, _mails, _ = _played(tmp_path)
    head = snapshots.read_head(data, "g1")
    assert head is not None and head.last_in == [k for k in Store(data).archive("g1").keys() if is_inbound(k)][-1]

    def no_history(self, key):
        raise AssertionError(f"start-up read {key} from an archive")

    master = GameMaster(Store(data, create=False), Identity(GM))
    with monkeypatch.context() as patch:
        patch.setattr(DurableMaildir, "get_bytes", no_history)
        master.load()
    assert not master.games.is_loaded("g1")
    archive = Store(data).archive("g1")
    replayed, _, _ = replay(archive, identity_of(archive), "g1", render="none")
    assert master.games.summaries["g1"] == summary_of(replayed)
    assert master.games["g1"].turn == replayed.turn == 3
    assert master.games.is_loaded("g1")


def test_the_same_mail_with_current_stale_torn_foreign_or_no_snapshots(tmp_path, monkeypatch):
    data, mails, stale = _played(tmp_path, turns=4, stale_after=2)
    assert stale is not None
    cases = {"current": lambda d: None,
             "none": lambda d: shutil.rmtree(d / "snapshots"),
             "stale": lambda d: (shutil.rmtree(d / "snapshots"), shutil.copytree(stale, d / "snapshots")),
             "torn": lambda d: (d / "snapshots" / "g1").write_bytes((d / "snapshots" / "g1").read_bytes()[:-100]),
             "garbage": lambda d: (d / "snapshots" / "g1").write_bytes(b"gm-snapshot 1\n" + b"\0" * 5000),
             "other code": lambda d: _rewrite_fingerprint(d),
             "before schema numbers": lambda d: _rewrite_as_before_schemas(d)}
    bases = watch_bases(monkeypatch)
    results = {}
    for name, spoil in cases.items():
        copy = tmp_path / name
        shutil.copytree(data, copy)
        spoil(copy)
        bases.clear()
        _serve(copy, mails)
        results[name] = _contents(copy)
        # A current or stale snapshot is the base the game is loaded from; a spoiled one is not used.
        assert (bases[0] is not None) == (name in ("current", "stale")), (name, bases)
        head = snapshots.read_head(copy, "g1")
        assert head is not None, name  # rewritten where it was spoiled (at start-up, or when the game changed)
    reference = results.pop("none")
    # Alice's mail acknowledged; Bob's acknowledged and the turn run: both sheets queued.
    assert sorted(k for k in reference if k.startswith("outbox/")) == [
        "outbox/g1.000010.out.1", "outbox/g1.000011.out.1", "outbox/g1.000011.out.2", "outbox/g1.000011.out.3"]
    for name, contents in results.items():
        assert contents == reference, name


def _rewrite_fingerprint(data: Path) -> None:
    """A snapshot of a newer gm's kernel (gm was downgraded): its body is not read."""
    head, body = snapshots.read(data, "g1")
    head.schemas = {**head.schemas, "kernel": head.schemas["kernel"] + 1}
    snapshots.write(data, head, body)
    assert snapshots.read(data, "g1") is None
    assert not snapshots.is_current(snapshots.read_head(data, "g1"))


def _rewrite_as_before_schemas(data: Path) -> None:
    """A snapshot as gm wrote it before schema numbers (a code fingerprint
    in its head): its summary stands for the game until the game is
    replayed; its body is never read."""
    head, body = snapshots.read(data, "g1")
    del head.schemas
    head.fingerprint = "written by an earlier gm"
    snapshots.write(data, head, body)
    assert snapshots.read(data, "g1") is None
    assert snapshots.read_head(data, "g1").schemas == {}


def test_replay_from_a_snapshot_equals_replay_from_the_start(tmp_path):
    """At every event of a game, the snapshot taken there plus the events
    after it give the game the whole archive gives: each later mail
    rendered byte for byte the same."""
    data, _, _ = _played(tmp_path, turns=3)
    store = Store(data, create=False)
    archive = store.archive("g1")
    identity = identity_of(archive)
    inbound = [k for k in archive.keys() if is_inbound(k)]
    _, _, whole = replay(archive, identity, "g1", render="all")
    for cut in range(1, len(inbound)):
        base, threads, done = replay(_Prefix(archive, inbound[cut - 1]), identity, "g1", render="none")
        live = loading.Live(base, threads, done[-1].number, inbound[cut - 1], [], {})
        loading.save(store, live)
        found = snapshots.read(data, "g1")
        assert found is not None
        head, (game, threads, _) = found
        game, _, tail = replay(archive, identity, "g1", render="all", base=(game, threads, head.last_in))
        assert [r.messages for r in tail] == [r.messages for r in whole[cut:]], cut
        assert summary_of(game) == summary_of(replay(archive, identity, "g1", render="none")[0])


class _Prefix(DurableMaildir):
    """An archive as it stood when the event under ``last`` was its last."""

    def __init__(self, archive: DurableMaildir, last: str):
        super().__init__(archive.path, create=False)
        self._last = int(last.split(".")[0])

    def keys(self) -> list[str]:
        return [k for k in super().keys() if int(k.split(".")[0]) <= self._last]


def test_a_bounded_number_of_whole_games_in_memory(tmp_path):
    """With room for one whole game, two games are played turn about: each
    mail loads its game, the other leaves memory with its snapshot written."""
    world = World(tmp_path)
    world.daemon.master.games.capacity = 1

    async def scenario() -> None:
        async with world:
            await started_game(world)
            world.clock.advance(minutes=1)
            await started_game(world)
            world.clock.advance(minutes=1)
            games = world.daemon.master.games
            assert len(games) == 2 and sum(games.is_loaded(g) for g in games) == 1
            for _ in range(2):
                for game in ("g1", "g2"):
                    mine = [m for m in world.alice.inbox() if f"gm+{game}." in str(m["Reply-To"])][-1]
                    theirs = [m for m in world.bob.inbox() if f"gm+{game}." in str(m["Reply-To"])][-1]
                    await world.act(world.alice.reply, "Rz5", to=mine)
                    await world.act(world.bob.reply, "Oz5", to=theirs)
                    assert [g for g in games if games.is_loaded(g)] == [game]
                    other = "g2" if game == "g1" else "g1"
                    head = snapshots.read_head(world.daemon.store.root, other)
                    archive = world.daemon.store.archive(other)
                    assert head is not None and head.last_in == [k for k in archive.keys() if is_inbound(k)][-1]
            assert games["g1"].turn == games["g2"].turn == 3

    run(scenario())


@pytest.mark.parametrize("spoil", ["delete", "truncate"])
def test_a_crash_that_spoils_a_snapshot_costs_only_a_replay(tmp_path, spoil):
    data, mails, _ = _played(tmp_path)
    target = data / "snapshots" / "g1"
    if spoil == "delete":
        target.unlink()
    else:
        target.write_bytes(target.read_bytes()[:20])
    master = _serve(data, mails)
    assert master.games["g1"].turn == 4


def test_a_current_snapshot_whose_event_was_cut_short_is_not_trusted_for_its_replies(tmp_path):
    """The snapshot holds the last event, but that event's replies were
    never queued (as if gm died between writing them and queueing them):
    they are rendered again from the archive and queued, the same bytes."""
    data, _, _ = _played(tmp_path)
    store = Store(data, create=False)
    head = snapshots.read_head(data, "g1")
    assert head is not None and head.last_messages
    for key, _ in head.last_messages:
        (store.sent.path / f"g1.{key}").unlink()
    master = GameMaster(store, Identity(GM), clock=lambda: AFTER)
    master.load()
    queued = sorted(store.outbox.keys())
    assert queued == sorted(f"g1.{key}" for key, _ in head.last_messages)
    for key in queued:  # as first delivered (locally), before the markers were lost
        assert unix_lines(store.outbox.get_bytes(key)) == store.delivered.get_bytes(key)


def test_start_up_clears_snapshots_a_crash_left_half_written(tmp_path):
    data, _, _ = _played(tmp_path)
    torn = data / "snapshots" / ".g1.12345.tmp"
    torn.write_bytes(b"gm-snapshot 1\n")
    GameMaster(Store(data, create=False), Identity(GM)).load()
    assert not torn.exists() and snapshots.read_head(data, "g1") is not None


def test_a_fault_after_archiving_a_mail_never_applies_it_twice(tmp_path, monkeypatch):
    """Writing the reply fails (a full disk) after the mail, which has no
    Message-ID to be told apart by, was archived: when the disk is back,
    the mail is not applied again, and its one reply goes out once."""
    world = World(tmp_path)

    async def scenario() -> None:
        async with world:
            await started_game(world)
            raw = compose(world.alice, "Rz5", "<x@example.org>").replace(b"Message-ID: <x@example.org>\r\n", b"")
            assert b"Message-ID" not in raw
            real_add = DurableMaildir.add
            failures = []

            def full_outbox(self, data, key, seen=False):
                if self.path.name == "outbox" and not failures:
                    failures.append(key)
                    raise OSError(errno.ENOSPC, "No space left on device")
                return real_add(self, data, key, seen)

            monkeypatch.setattr(DurableMaildir, "add", full_outbox)
            await world.asend(raw, world.alice.address, [str(world.alice.latest()["Reply-To"])])
            for _ in range(3):
                await world.settle()
            assert failures
            archive = world.daemon.store.archive("g1")
            assert sum(b"Rz5" in archive.get_bytes(k) for k in archive.keys() if ".in." in k) == 1
            assert world.daemon.store.spool.keys() == []
            acks = [m for m in world.alice.inbox() if "Rz5" in text(m) and m["X-GM-Player"] is not None]
            assert len(acks) == 1, [str(m["Subject"]) for m in acks]

    run(scenario())


def test_a_snapshot_that_cannot_be_written_does_not_stop_the_mail(tmp_path, monkeypatch, caplog):
    """With room for one whole game and no snapshot writable, mail to two
    games turn about is handled all the same (each game is rebuilt from its
    archive when it comes back), and the failures are logged."""
    world = World(tmp_path)
    world.daemon.master.games.capacity = 1

    def unwritable(store, live):
        raise OSError(errno.EROFS, "Read-only file system")

    async def scenario() -> None:
        async with world:
            await started_game(world)
            world.clock.advance(minutes=1)
            await started_game(world)
            monkeypatch.setattr(loading, "save", unwritable)
            for game in ("g1", "g2", "g1"):
                mine = [m for m in world.alice.inbox() if f"gm+{game}." in str(m["Reply-To"])][-1]
                await world.act(world.alice.reply, "Rz5", to=mine)
            assert world.daemon.store.spool.keys() == [] and world.daemon.store.shunt.keys() == []
            games = world.daemon.master.games
            assert games["g1"].play.pending.get(1) and games["g2"].play.pending.get(1)

    run(scenario())
    assert "snapshot of g" in caplog.text and "Read-only file system" in caplog.text


def test_games_leaving_and_coming_back_within_one_batch(tmp_path, monkeypatch):
    """Four order mails for two games handled in one batch with room for
    one whole game: each game leaves memory and comes back within the
    batch, read back from what the batch wrote and has not committed yet.
    The mail is the same bytes as with room for both."""
    world = World(tmp_path / "played")

    async def scenario() -> list[bytes]:
        async with world:
            await started_game(world)
            world.clock.advance(minutes=1)
            await started_game(world)
            world.clock.advance(minutes=1)
            mails = []
            for player in (world.alice, world.bob):
                for game in ("g1", "g2"):
                    latest = [m for m in player.inbox() if f"gm+{game}." in str(m["Reply-To"])][-1]
                    mail = EmailMessage(policy=SMTP_POLICY)
                    mail["From"], mail["To"] = player.address, str(latest["Reply-To"])
                    mail["Subject"], mail["Message-ID"] = "orders", f"<{game}-{player.address}@example.org>"
                    mail.set_content("Rz5" if player is world.alice else "Oz5")
                    mails.append(mail.as_bytes())
            return mails

    mails = run(scenario())
    real_save, saved_in_batch = loading.save, []

    def watched(store, live):
        saved_in_batch.append(current_batch() is not None)
        real_save(store, live)

    monkeypatch.setattr(loading, "save", watched)
    results = {}
    for capacity in (1, 200):
        copy = tmp_path / f"room-{capacity}"
        shutil.copytree(tmp_path / "played" / "data", copy)
        shutil.rmtree(copy / "snapshots")
        master = _serve(copy, mails, capacity=capacity)
        assert master.games["g1"].turn == master.games["g2"].turn == 2
        found = {}
        for folder in ("games/g1", "games/g2", "outbox"):
            box = DurableMaildir(copy / folder, create=False)
            found |= {f"{folder}/{k}": box.get_bytes(k) for k in box.keys()}
        results[capacity] = found
        for game in ("g1", "g2"):  # every snapshot written is one of what the archive holds
            head = snapshots.read_head(copy, game)
            archive = DurableMaildir(copy / "games" / game, create=False)
            assert head is None or head.last_in in archive.keys()
    assert results[1] == results[200]
    assert saved_in_batch and not any(saved_in_batch)  # never a snapshot of what a batch has not committed
