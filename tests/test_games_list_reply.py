"""Replies to the GM's "Your games" list (issue 22, point 8), through the
real daemon: a list of two or more games says where orders go, and a reply
to it is answered with each game's address, never swallowed."""

from __future__ import annotations

from gmtest import ALICE, GM, World, run, text
from test_master_faults import plain


def test_a_reply_to_the_games_list_of_two_games_is_answered_with_where_the_orders_go(tmp_path):
    """Issue 22, point 8: with two games the list had no Reply-To, and the
    reply (orders, say) was swallowed: the day's one answer about no game
    was the list itself. The list now says to write to each game, and a
    reply to it is answered with each game's address, past that answer."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.new_game()
            await world.asend(plain(ALICE, "games", "<list@example.org>"), ALICE, [GM])
            await world.settle()
            listing = world.alice.latest()
            assert "Your games" in str(listing["Subject"])
            # A mail program answers the list's From (as before, when it had no Reply-To)
            reply = plain(ALICE, "DS Rv1-Ow2\nKC Gv1-Gx2\n", "<orders@example.org>",
                          extra=f"In-Reply-To: {listing['Message-ID']}\r\n")
            await world.asend(reply, ALICE, [GM])
            await world.settle()
            answer = world.alice.latest()
            assert "reached no game" in str(answer["Subject"])
            said = " ".join(text(answer).split())
            assert "it answers the GM's list of your games" in said
            assert "game g1 (" in said and "game g2 (" in said and said.count("gm+g") == 2
            games = world.daemon.master.games
            assert [games[g].events for g in ("g1", "g2")] == [1, 1]  # nothing applied
            # The list says where replies go, and that orders go to each game
            assert str(listing["Reply-To"]) == GM
            assert "A reply to this mail reaches no game" in " ".join(text(listing).split())
            await world.act(world.alice.reply, "DS Rv1-Ow2\n", to=listing)  # its Reply-To: answered again
            assert sum("reached no game" in str(m["Subject"]) for m in world.alice.inbox()) == 2
    run(scenario())
