"""The daily cap on a player's mail (issue 22, point 3): it counts each
player's mail to each game, with a larger allowance for a game against the
robot alone; a capped player is told once a day, in words, why and until
when; and the operator's `gm shunt release` applies a capped mail."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from gm.cli import main
from gm.pbem.intake.limits import DailyCounts, Limits
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, START, World, run, shunt_reasons, text


def capped_notices(world: World) -> list:
    return [m for m in world.alice.inbox() if "set aside until tomorrow" in str(m["Subject"])]


def test_a_capped_player_is_told_once_a_day_why_and_until_when(tmp_path):
    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=2)) as world:
            await world.new_game()
            for line in ("status", "help", "status", "help"):
                await world.act(world.alice.reply, line, to=world.alice.inbox()[0])
            assert sum(b"more than 2 mails today" in r for r in shunt_reasons(world)) == 2
            (notice,) = capped_notices(world)
            said = " ".join(text(notice).split())
            assert "You have sent 2 mails to game g1 today" in said
            assert "set aside, not applied, until 2026-11-22 00:00 UTC, in about 12 hours" in said
            assert str(notice["To"]) == ALICE and "gm+g1.1." in str(notice["Reply-To"])

            world.clock.advance(days=1)  # a new day: a new allowance, and a new notice once it is used up
            for line in ("status", "help", "status"):
                await world.act(world.alice.reply, line, to=world.alice.inbox()[0])
            assert len(capped_notices(world)) == 2
    run(scenario())


def test_the_operator_releases_a_capped_mail_the_same_day_and_it_is_applied(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=1)) as world:
            await world.new_game()
            first = world.alice.inbox()[0]
            await world.act(world.alice.reply, "status", to=first)
            await world.act(world.alice.reply, "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n", to=first)
            store = world.daemon.store
            (capped,) = store.shunt.keys()
            assert main(["shunt", "release", capped, "--data", world.config.data]) == 0
            assert "spooled again" in capsys.readouterr().out
            await world.settle()
            assert store.shunt.keys() == []  # not capped again
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
            assert world.daemon.master.games["g1"].waiting_for == [2]
            count, differences = verify_replay(str(store.games_dir / "g1"))
            assert count and differences == []
    run(scenario())


def test_each_game_and_a_game_against_the_robot_have_their_own_allowance(tmp_path):
    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=2, replies_to_robot_per_day=4)) as world:
            await world.challenge(world.alice, "challenge robot\nlevel easy\n")
            await world.new_game()
            await world.new_game()
            robot, g2, g3 = world.daemon.master.games.all()
            assert [s.robot for s in robot.seats] == [None, "easy"]
            firsts = {game.id: next(m for m in world.alice.inbox() if f"[gm {game.id}]" in str(m["Subject"]))
                      for game in (robot, g2, g3)}
            for game in (g2, g3):  # two mails to each of two games: none held back
                for line in ("status", "help"):
                    await world.act(world.alice.reply, line, to=firsts[game.id])
            assert shunt_reasons(world) == []
            for _ in range(4):
                await world.act(world.alice.reply, "status", to=firsts[robot.id])
            assert shunt_reasons(world) == []
            await world.act(world.alice.reply, "status", to=firsts[robot.id])
            assert [r for r in shunt_reasons(world) if b"more than 4 mails today" in r]
    run(scenario())


def test_the_days_counts_survive_a_restart_and_a_line_a_crash_cut_short_counts_for_nothing(tmp_path):
    at = datetime(2026, 11, 27, 9, 30, 0, 250_000, tzinfo=UTC)
    counts = DailyCounts(tmp_path / "limits")
    assert [counts.add(at, "reply g1 a@x.example") for _ in range(3)] == [1, 2, 3]
    assert counts.add(at, "reply  g2\tb@x.example") == 1  # one line per counter, whatever the name held
    day = tmp_path / "limits" / "2026-11-27"
    with open(day, "a", encoding="utf-8") as file:
        file.write("\nreply g1 a@x.example\t\t0")  # the process died inside the write of a fourth count
    again = DailyCounts(tmp_path / "limits")  # the daemon started again
    assert again.add(at, "reply g1 a@x.example") == 4
    assert again.add(at, "reply g2 b@x.example") == 2
    assert again.add(at + timedelta(days=1), "reply g1 a@x.example") == 1  # a new day counts from nothing
    assert not day.exists()  # and yesterday's file is gone


def test_a_record_cut_short_inside_its_spool_key_counts_for_nothing(tmp_path):
    # Cut after the first digits of its spool key, a record has the shape of
    # the release before's ``name<TAB>count`` line: it must not read as one.
    at = datetime(2026, 11, 27, 9, 30, 0, 250_000, tzinfo=UTC)
    counts = DailyCounts(tmp_path / "limits")
    counts.begin("0001764235800250000000.smtp.1")
    assert counts.add(at, "reply g1 a@x.example") == 1
    counts.end()
    with open(tmp_path / "limits" / "2026-11-27", "a", encoding="utf-8") as file:
        file.write("\nreply g1 a@x.example\t000176423")  # the process died inside the write of a second count
    assert DailyCounts(tmp_path / "limits").add(at, "reply g1 a@x.example") == 2


def test_damaged_records_are_logged_once_a_day_and_a_record_a_crash_cut_short_is_not(tmp_path, caplog):
    # A record cut short at every place a crash can cut one, each followed
    # by the next count's record, is the file's normal state after crashes:
    # not logged. Random bytes and a record of a later shape are damage: the
    # operator is told once that day, the file named; the next day anew.
    caplog.set_level(logging.WARNING, logger="gm")
    at = datetime(2026, 11, 27, 9, 30, 0, 250_000, tzinfo=UTC)
    name = "reply g1 a@x.example"
    counts = DailyCounts(tmp_path / "limits")
    counts.begin("0001764235800250000000.smtp.1")
    assert counts.add(at, name) == 1
    counts.end()
    record = f"\n{name}\t0001764235800250000000.smtp.2\t1\t."
    for count, cut in enumerate(range(1, len(record)), start=2):
        with open(tmp_path / "limits" / "2026-11-27", "a", encoding="utf-8") as file:
            file.write(record[:cut])  # the process died inside this write
        assert DailyCounts(tmp_path / "limits").add(at, name) == count  # the daemon started again
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    counts = DailyCounts(tmp_path / "limits")
    for day in (at, at + timedelta(days=1)):
        path = tmp_path / "limits" / day.strftime("%Y-%m-%d")
        assert counts.add(day, name) >= 1
        for damage in (b"\x93\x07\xfe\x00 k\xc3\n", f"\n{name}\tkey\t1\tlater\t.\n".encode()):
            with open(path, "ab") as file:
                file.write(damage)
            counts.add(day, name)
        told = [r.getMessage() for r in caplog.records]
        assert len(told) == 1 and told[0].startswith(f"daily count records skipped file={path} "), told
        assert caplog.records[0].levelno == logging.WARNING
        caplog.clear()


def test_upgrade_day_goes_on_from_the_release_befores_counts_in_every_masters_file(tmp_path):
    # The release before: each master appended ``name<TAB>count`` lines to a
    # file of its own, the first to limits/, master K to masters/K/limits/.
    data = tmp_path / "data"
    day = START.strftime("%Y-%m-%d")
    yesterday = (START - timedelta(days=1)).strftime("%Y-%m-%d")
    own, second = data / "limits", data / "masters" / "1" / "limits"
    for folder in (own, second):
        folder.mkdir(parents=True)
    name = f"mail {ALICE} g1"
    (own / day).write_text(f"{name}\t1\n")
    (second / day).write_text(f"{name}\t1\n{name}\t2\nmail bob@example.org g1\t7\n{name}\t9")  # 9: cut short
    (second / yesterday).write_text(f"{name}\t40\n")

    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=3)) as world:
            await world.new_game()
            for line in ("status", "help"):
                await world.act(world.alice.reply, line, to=world.alice.inbox()[0])
            # The old count was 2 (the largest of every master's), so the second reply is the day's fourth.
            assert [r for r in shunt_reasons(world) if b"more than 3 mails today" in r] == [
                b"X-GM-Shunt-Reason: more than 3 mails today from alice@example.org to g1"]
            assert len(capped_notices(world)) == 1
            assert not (second / yesterday).exists() and (second / day).exists()  # today's is read all day

            world.clock.advance(days=1)  # the next day: its counts start from nothing, the old folder goes
            for line in ("status", "help", "status"):
                await world.act(world.alice.reply, line, to=world.alice.inbox()[0])
            assert not second.exists()
            assert sum(b"more than 3 mails today" in r for r in shunt_reasons(world)) == 1
    run(scenario())
