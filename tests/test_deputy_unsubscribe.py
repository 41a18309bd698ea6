"""A deputy's copy of a reminder (issue 24, "deputies" and "fewer mails"):
its ``List-Unsubscribe`` mailto holds the deputy's own secret, and works.
The deputy's mail counts as the player's (`gm.kernel.deputies`), and
reminders are not among what only the player may decide, so the deputy's
unsubscribing sets the player's ``reminders off``: no more reminders to the
seat, and so no more copies to the deputy. Both are told; a token that is
neither the seat's nor its deputy's changes nothing. Through the daemon,
with a clock that has sub-second parts."""

from __future__ import annotations

import re
from datetime import timedelta

from gm.pbem.data.settings import settings_of
from gm.pbem.operator.admin import verify_replay
from gmtest import BOB, START, Player, World, run, shunt_reasons, text
from test_away import CAROL, named_deputy
from test_digest import plain, unsubscribe_ways, until


def reminders(player: Player) -> list:
    return [m for m in player.inbox() if "Reminder" in str(m["Subject"])]


def test_a_deputy_unsubscribes_from_the_reminders_of_the_seats_they_stand_in_for(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = Player(CAROL, world)
            await world.new_game()
            await named_deputy(world, world.bob, carol)
            await until(world, START + timedelta(hours=60, seconds=0.5))
            (own,) = reminders(world.bob)
            (copy,) = reminders(carol)
            _, seats = unsubscribe_ways(own)
            _, deputys = unsubscribe_ways(copy)
            assert re.fullmatch(r"gm\+ug1\.2\.[a-z2-7]{16}@example\.org", deputys) and deputys != seats
            forged = re.sub(r"\.[a-z2-7]{16}@", ".aaaaaaaaaaaaaaaa@", deputys)
            await world.asend(plain(CAROL, forged), CAROL, [forged])
            await world.settle()
            assert settings_of(world.daemon.store, BOB).reminders == "each"
            assert any(b"not a seat's token" in reason for reason in shunt_reasons(world))
            bob_before, carol_before = len(world.bob.inbox()), len(carol.inbox())
            await world.asend(plain(CAROL, deputys), CAROL, [deputys])
            await world.settle()
            await world.settle()
            assert settings_of(world.daemon.store, BOB).reminders == "off"
            assert world.daemon.master.games["g1"].settings_of(2).reminders == "off"
            assert settings_of(world.daemon.store, CAROL).reminders == "each"  # her own settings are hers
            (told,) = world.bob.inbox()[bob_before:]
            assert str(told["Subject"]) == "[gm] Unsubscribed"
            said = " ".join(text(told).split())
            assert f"Your deputy, {CAROL}, unsubscribed your seats from the reminders" in said
            assert 'write "reminders each"' in said
            (answer,) = carol.inbox()[carol_before:]
            assert str(answer["Subject"]) == "[gm] Unsubscribed" and str(answer["To"]) == CAROL
            assert f"As the deputy of {BOB}, you unsubscribed their seats" in " ".join(text(answer).split())
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count and not differences, differences

    run(scenario())
