"""Schema numbers (`gm.kernel.schema`): a kept state's fields change only with
a new number, each earlier number is migrated or replayed, and a snapshot
written under an earlier number loads through its migration into the game
its archive replays to (or, where it cannot, is replayed: never trusted).

The shapes each number stands for are recorded in tests/schemas/OWNER-N.txt
(one line a field, through every dataclass the state holds)."""

from __future__ import annotations

import dataclasses
import difflib
import inspect
import os
import pickle
import shutil
import typing
from pathlib import Path

import pytest

import gm.games
from gm.kernel import model
from gm.kernel.protocol import GameRules, game_named
from gm.kernel.schema import REPLAY, NotMigrated, complete, fill_defaults, migrate, shape
from gm.kernel.values import Seat
from gm.pbem.archive.replay import Threads
from gm.pbem.data.store import Store
from gm.pbem.master.game_master import GameMaster
from gm.pbem.state import snapshots
from gm.pbem.state.resident import summary_of
from gm.pbem.writing.mailer import Identity
from gmtest import GM
from test_snapshots import AFTER, _contents, _played, _serve, watch_bases

SHAPES = Path(__file__).resolve().parent / "schemas"


def _state_type(rules: GameRules) -> type:
    """``S`` of a game's ``GameRules[S]``: the class of its state."""
    for base in getattr(type(rules), "__orig_bases__", ()):
        if typing.get_origin(base) is GameRules:
            return typing.get_args(base)[0]
    raise AssertionError(f"{type(rules).__name__} names no state type")


def _owners() -> dict[str, tuple[int, dict, list[str], str]]:
    """Each owner of a kept state: its number, its migrations, its shape, and where the number is."""
    owners = {
        "snapshot": (snapshots.SCHEMA, {}, sorted({*shape(snapshots.Head), *shape(Threads)}),
                     "gm/pbem/state/snapshots.py (a snapshot of another number is not read: no migration)"),
        "kernel": (model.SCHEMA, model.MIGRATIONS, shape(model.MailGame, (GameRules,)),
                   "gm/kernel/model.py"),
    }
    for name in gm.games.GAMES:
        rules = game_named(name)
        where = Path(inspect.getsourcefile(type(rules)) or "?").relative_to(Path(gm.__file__).parent.parent)
        owners[name] = (rules.schema, rules.migrations, shape(_state_type(rules)), str(where))
    return owners


@pytest.mark.parametrize("owner", ["snapshot", "kernel", *gm.games.GAMES])
def test_a_state_changes_its_fields_only_with_a_new_schema_number(owner):
    number, _, lines, where = _owners()[owner]
    recorded = SHAPES / f"{owner}-{number}.txt"
    text = "".join(line + "\n" for line in lines)
    if not recorded.exists():
        if os.environ.get("GM_RECORD_SHAPES"):
            recorded.write_text(text)
            return
        pytest.fail(f"no shape recorded for {owner} schema {number}: once the number is bumped and the migration "
                    f"from {number - 1} registered, record it with "
                    f"GM_RECORD_SHAPES=1 scripts/test tests/test_schemas.py (it writes {recorded.name})")
    diff = "".join(difflib.unified_diff(recorded.read_text().splitlines(True), text.splitlines(True),
                                        f"{owner} schema {number}, as recorded", "the code now"))
    assert not diff, (
        f"The fields of {owner}'s kept state changed, but its schema number is still {number}, so a snapshot "
        f"written before would be read as if nothing changed. Bump it, in {where}: make SCHEMA {number + 1}, add "
        f"MIGRATIONS[{number}] = a function that turns a state of {number} into one of {number + 1} "
        f"(gm.kernel.schema.fill_defaults where fields were only added with defaults), or "
        f"gm.kernel.schema.REPLAY (those games are replayed, lazily, at the first start); then "
        f"GM_RECORD_SHAPES=1 scripts/test tests/test_schemas.py records {owner}-{number + 1}.txt "
        f"(see docs/operations.md, \"Upgrades\").\n{diff}")


@pytest.mark.parametrize("owner", ["snapshot", "kernel", *gm.games.GAMES])
def test_every_earlier_number_is_migrated_or_replayed_and_its_shape_kept(owner):
    number, steps, _, where = _owners()[owner]
    assert number >= 1
    for earlier in range(1, number):
        assert (SHAPES / f"{owner}-{earlier}.txt").exists(), f"the shape of {owner} schema {earlier} is kept"
        if owner != "snapshot":
            assert earlier in steps and (steps[earlier] is REPLAY or callable(steps[earlier])), (
                f"{owner} schema {earlier} needs a migration to {earlier + 1}, or REPLAY ({where})")


def test_migrate_runs_each_step_and_refuses_a_gap_a_replay_or_a_downgrade():
    steps = {1: lambda s: [*s, 2], 2: lambda s: [*s, 3]}
    assert migrate([1], 1, 3, steps) == [1, 2, 3]
    assert migrate([1], 3, 3, steps) == [1]
    for bad_steps, have, want in (({1: steps[1]}, 1, 3), ({1: REPLAY, 2: steps[2]}, 1, 3), (steps, 3, 2)):
        with pytest.raises(NotMigrated):
            migrate([1], have, want, bad_steps)


def _written_under_kernel_1(data: Path, drop: str) -> None:
    """Rewrite g1's snapshot as gm would have written it if ``MailGame`` had
    had no field ``drop`` under kernel schema 1 (the tests then run as a gm
    of kernel schema 2, which has it)."""
    head, (game, threads, applied) = snapshots.read(data, "g1")
    del game.__dict__[drop]
    head.schemas = {**head.schemas, "kernel": 1}
    snapshots.write(data, head, (game, threads, applied))


@pytest.mark.parametrize("migration", ["fill_defaults", "REPLAY", "one that forgets the field", "one that fails"])
def test_a_snapshot_of_the_previous_kernel_schema_loads_through_its_migration_and_equals_the_replay(
        tmp_path, monkeypatch, migration):
    """A snapshot written under kernel schema 1 (no ``late`` field), read by a
    gm of schema 2 (``MIGRATIONS[1]``): through a migration that fills the
    field, the snapshot is the base of the loaded game; through REPLAY, or a
    migration that leaves the state short or raises, it is not, and the
    game is replayed. Either way start-up serves the game at once (pending,
    on its old summary) and every mail after is the replay's, byte for byte."""
    data, mails, _ = _played(tmp_path, turns=3)
    reference = tmp_path / "reference"
    shutil.copytree(data, reference)
    shutil.rmtree(reference / "snapshots")
    expected = _serve(reference, mails)
    steps = {"fill_defaults": fill_defaults, "REPLAY": REPLAY, "one that forgets the field": lambda game: game,
             "one that fails": lambda game: 1 / 0}
    _written_under_kernel_1(data, "late")
    monkeypatch.setattr(model, "SCHEMA", 2)
    monkeypatch.setattr(model, "MIGRATIONS", {1: steps[migration]})
    found = snapshots.read(data, "g1")
    assert (found is not None) == (migration == "fill_defaults")
    if found is not None:
        head, (game, _, _) = found
        assert head.schemas["kernel"] == 1 and not snapshots.is_current(head)  # to be written anew
        assert game.late == {} and complete(game)
    bases = watch_bases(monkeypatch)
    opened = GameMaster(Store(data, create=False), Identity(GM), clock=lambda: AFTER)
    opened.load()
    assert opened.games.pending == {"g1"} and not opened.games.is_loaded("g1")
    prepared = tmp_path / "prepared"
    shutil.copytree(data, prepared)
    idle = GameMaster(Store(prepared, create=False), Identity(GM), clock=lambda: AFTER)
    idle.load()
    assert idle.prepare() == "g1" and idle.prepare() is None  # as the daemon does when idle
    assert snapshots.is_current(snapshots.read_head(prepared, "g1"))  # migrated or replayed: written anew
    bases.clear()
    master = _serve(data, mails)
    assert (bases[0] is not None) == (migration == "fill_defaults"), bases
    assert _contents(data) == _contents(reference)
    assert summary_of(master.games["g1"]) == summary_of(expected.games["g1"])
    assert not master.games.pending
    master.save_snapshots()
    head = snapshots.read_head(data, "g1")
    assert head is not None and snapshots.is_current(head)  # written anew, under this gm's numbers


def test_complete_finds_a_field_missing_or_one_too_many():
    data = pickle.loads(pickle.dumps(Seat(1, "a@example.org", "A")))
    assert complete(data)
    del data.__dict__["alias"]
    assert not complete([data])
    data.__dict__["alias"], data.__dict__["colour"] = "A", "red"
    assert not complete({"x": (data,)})


def test_fill_defaults_gives_a_field_with_a_plain_default_to_the_instance_itself():
    # A plain default is a class attribute too, so a pickle of a class without the field reads it through
    # the class: the instance's own dict must still get it, or `complete` refuses what was filled.
    @dataclasses.dataclass
    class Later:
        kept: int
        added: frozenset[int] = frozenset()
        listed: list[int] = dataclasses.field(default_factory=list)

    old = Later.__new__(Later)
    old.__dict__.update({"kept": 1})
    assert not complete(old)
    assert complete(fill_defaults(old)) and old.added == frozenset() and old.listed == []


_SUMMARY = "gm.pbem.state.resident.GameSummary."


def test_every_snapshot_shape_from_body_since_differs_only_in_the_summary_and_its_new_fields_have_defaults():
    """`snapshots.BODY_SINCE` says the body of every shape from it on is read
    as today's: their recorded shapes may differ only in `GameSummary`'s
    lines, and only by fields added with a default (which `head_summary`
    fills in); a change to `Head` or `Threads` must raise it."""
    now = (SHAPES / f"snapshot-{snapshots.SCHEMA}.txt").read_text().splitlines()
    defaults = {f.name for f in dataclasses.fields(snapshots.GameSummary)
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
    assert 1 <= snapshots.BODY_SINCE <= snapshots.SCHEMA
    for number in range(snapshots.BODY_SINCE, snapshots.SCHEMA + 1):
        then = (SHAPES / f"snapshot-{number}.txt").read_text().splitlines()
        assert [x for x in then if not x.startswith(_SUMMARY)] == [x for x in now if not x.startswith(_SUMMARY)], (
            f"the snapshot's body or head changed since shape {number}: raise BODY_SINCE past it")
        added = {line[len(_SUMMARY):].split(":")[0] for line in set(now) - set(then)}
        assert not {x for x in then if x.startswith(_SUMMARY)} - set(now), f"a summary field of {number} was removed"
        assert added <= defaults, f"summary fields added since {number} without a default: {added - defaults}"


def _written_under_snapshot_shape(data: Path, number: int) -> None:
    """Rewrite g1's snapshot as a gm of snapshot shape ``number`` would have
    written it: that number in its head, and a summary without the fields
    added since (the shapes kept in tests/schemas say which)."""
    head, body = snapshots.read(data, "g1")
    then = (SHAPES / f"snapshot-{number}.txt").read_text().splitlines()
    for line in (SHAPES / f"snapshot-{snapshots.SCHEMA}.txt").read_text().splitlines():
        if line.startswith(_SUMMARY) and line not in then:
            del head.summary.__dict__[line[len(_SUMMARY):].split(":")[0]]
    head.schemas = {**head.schemas, "snapshot": number}
    snapshots.write(data, head, body)


@pytest.mark.parametrize("shape", ["the shape before", "BODY_SINCE", "a later shape", "before BODY_SINCE"])
def test_a_snapshot_of_an_earlier_shape_with_the_same_body_is_read_not_replayed(tmp_path, monkeypatch, shape):
    """An upgrade that only added summary fields (snapshot shapes from
    `BODY_SINCE`) keeps each game's snapshot as the base it loads from, and
    writes it anew under today's shape; a snapshot of a later shape (a
    downgrade) or of one before `BODY_SINCE` is not read, and its game is
    replayed. Either way every mail after is the replay's, byte for byte."""
    data, mails, _ = _played(tmp_path, turns=3)
    reference = tmp_path / "reference"
    shutil.copytree(data, reference)
    shutil.rmtree(reference / "snapshots")
    expected = _serve(reference, mails)
    number = {"the shape before": snapshots.SCHEMA - 1, "BODY_SINCE": snapshots.BODY_SINCE,
              "a later shape": snapshots.SCHEMA + 1, "before BODY_SINCE": snapshots.BODY_SINCE - 1}[shape]
    if shape == "a later shape":
        head, body = snapshots.read(data, "g1")
        head.schemas = {**head.schemas, "snapshot": number}
        snapshots.write(data, head, body)
    elif shape == "before BODY_SINCE":
        monkeypatch.setattr(snapshots, "BODY_SINCE", snapshots.SCHEMA)
        _written_under_snapshot_shape(data, snapshots.SCHEMA - 1)
    else:
        _written_under_snapshot_shape(data, number)
    read = shape in ("the shape before", "BODY_SINCE")
    found = snapshots.read(data, "g1")
    assert (found is not None) == read
    if found is not None:
        assert not snapshots.is_current(found[0]) and complete(found[1][0])  # to be written anew
        assert snapshots.head_summary(found[0]) is not None
    bases = watch_bases(monkeypatch)
    master = _serve(data, mails)
    assert (bases[0] is not None) == read, bases
    assert _contents(data) == _contents(reference)
    assert summary_of(master.games["g1"]) == summary_of(expected.games["g1"])
    master.save_snapshots()
    head = snapshots.read_head(data, "g1")
    assert head is not None and snapshots.is_current(head)
