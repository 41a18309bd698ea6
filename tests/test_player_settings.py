"""A player's own settings (issue 24's groundwork): asked for at the GM's own
address, confirmed from the player's mailbox, kept beside the games, and
recorded in each game of theirs (and in games made later), so that each game
replays from its own archive alone."""

from __future__ import annotations

from datetime import time

import pytest

from gm.kernel.settings import DEFAULT, PlayerSettings, parse_quiet
from gm.kernel.values import SettingsChanged
from gm.mail.reading import parse_message
from gm.pbem.archive.events import event_fields, event_message
from gm.pbem.archive.replay import to_event
from gm.pbem.data.settings import all_settings, settings_of
from gm.pbem.operator.admin import verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, START, World, run, shunt_reasons, text


def test_settings_round_trip_through_their_fields():
    settings = PlayerSettings("Europe/Berlin", (time(23), time(7)), "digest", "deputy@example.net")
    assert PlayerSettings.from_fields(settings.fields()) == settings
    assert settings.fields() == {"timezone": "Europe/Berlin", "quiet": "23:00-07:00", "reminders": "digest",
                                 "deputy": "deputy@example.net"}
    assert DEFAULT.fields() == {} and PlayerSettings.from_fields({"later-setting": "x"}) == DEFAULT


@pytest.mark.parametrize(("text", "why"), [("23-7", "HH:MM-HH:MM"), ("24:00-07:00", "00:00 to 23:59"),
                                          ("07:00-07:00", "another time")])
def test_quiet_hours_that_are_no_hours_are_refused_with_the_reason(text, why):
    with pytest.raises(ValueError, match=why):
        parse_quiet(text)


def _archived_kinds(world: World, game: str) -> list[str]:
    archive = world.daemon.store.archive(game)
    return [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]


def test_settings_are_confirmed_then_recorded_in_every_game_and_in_games_made_later(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            await world.new_game()
            listing = await world.write_gm(world.alice, "settings")
            assert "UTC (none set)" in text(listing) and "reminders       each" in text(listing)
            confirmation = await world.write_gm(world.alice, "Timezone europe/berlin\nquiet 23:00-07:00\n"
                                                "reminders digest")
            assert str(confirmation["Subject"]) == "[gm] Confirm your settings"
            assert "Europe/Berlin" in text(confirmation)
            assert all_settings(store) == {} and "settings" not in _archived_kinds(world, "g1")
            world.clock.advance(seconds=1.25)
            await world.act(world.alice.reply, "confirm", to=confirmation)
            want = PlayerSettings("Europe/Berlin", (time(23), time(7)), "digest")
            assert settings_of(store, ALICE.upper()) == want and settings_of(store, BOB) == DEFAULT
            done = world.alice.latest()
            assert str(done["Subject"]) == "[gm] Your settings" and "games g1" in text(done)
            await world.settle()  # the spooled settings event is applied to g1
            assert world.daemon.master.games["g1"].settings == {1: want}
            assert _archived_kinds(world, "g1").count("settings") == 1
            # The same confirmation again changes nothing and records nothing more.
            await world.act(world.alice.reply, "confirm", to=confirmation)
            await world.settle()
            assert _archived_kinds(world, "g1").count("settings") == 1
            assert any(b"confirmed already" in reason for reason in shunt_reasons(world))
            # A game made later records them at its creation.
            await world.new_game()
            assert world.daemon.master.games["g2"].settings == {1: want}
            created = store.archive("g2").get_bytes(store.archive("g2").keys()[0])
            assert b"settings-1: timezone=Europe/Berlin; quiet=23:00-07:00; reminders=digest" in created
            for game in ("g1", "g2"):
                count, differences = verify_replay(str(tmp_path / "data" / "games" / game))
                assert count and not differences, differences

    run(scenario())


def test_a_wrong_setting_is_answered_by_its_line_and_nothing_is_kept(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            answer = await world.write_gm(world.alice, "timezone Europe/Berlin\ntimezone europe/berln\nquiet 9-5")
            said = text(answer)
            assert "line 2: timezone europe/berln" in said and "did you mean Europe/Berlin" in said
            assert "line 3: quiet 9-5" in said and "HH:MM-HH:MM" in said
            assert "line 1" not in said
            assert not world.daemon.store.requests.keys() and all_settings(world.daemon.store) == {}

    run(scenario())


def test_a_forged_request_changes_nothing_and_tells_the_forger_nothing(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            forged = await world.write_gm(world.bob, "reminders off", from_=ALICE)
            assert str(forged["To"]) == ALICE  # the confirmation goes to the address claimed, not to the forger
            assert not world.bob.inbox()
            assert all_settings(world.daemon.store) == {}

    run(scenario())


def test_a_settings_event_reads_back_as_it_was_written():
    event = SettingsChanged(START, 2, PlayerSettings("America/New_York", None, "off"))
    kind, body = event_fields(event)
    raw = event_message(Identity("gm@example.org"), kind, START, "<s@example.org>", "g1", body)
    assert to_event(raw, "g1") == event
