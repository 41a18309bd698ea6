"""The daemon over real SMTP on loopback: a game from invitation to result,
and everything the issue promises about trust and durability."""

import asyncio
import mailbox
import re
import smtplib

import pytest

from gm.pbem.operator.admin import export_mbox, verify_replay
from gmtest import ALICE, BOB, GM, World, run, started_game, text


def test_invitations_are_mailed_with_threading_and_trust_headers(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            (invitation,) = world.alice.inbox()
            assert str(invitation["From"]).endswith(f"<{GM}>")
            assert str(invitation["Subject"]).startswith("[gm g1] ")
            assert str(invitation["Reply-To"]).startswith("gm+g1.1.")
            assert str(invitation["Auto-Submitted"]) == "auto-generated"
            assert re.fullmatch(r"<g1\.1\.1\.[0-9a-f]{10}@example\.org>", str(invitation["Message-ID"]))
            assert "DS Rv1-Ow2" in text(invitation)
            token = str(invitation["Reply-To"]).split(".")[2].split("@")[0]
            assert f"password {token}" in text(invitation)
            (bob_invitation,) = world.bob.inbox()
            assert str(bob_invitation["Reply-To"]) != str(invitation["Reply-To"])
    run(scenario())


def test_a_whole_game_by_mail_then_replay_and_export(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            ack = world.alice.inbox()[-2]
            assert "Setup accepted" in str(ack["Subject"])
            assert str(ack["Auto-Submitted"]) == "auto-replied"
            sheet = world.alice.latest()
            assert "the game begins" in str(sheet["Subject"])
            assert str(sheet["In-Reply-To"]) and str(sheet["References"])
            for alice, bob in [
                ("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
                ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"),
                ("Gz1 Gz2", "Ov1"),
            ]:
                await world.act(world.alice.reply, alice)
                assert "orders received" in str(world.alice.latest()["Subject"])
                await world.act(world.bob.reply, bob)
            final = world.alice.latest_text()
            assert "== The game is over ==" in final and "You win." in final
            assert "Scores: you 13, Player 2 0." in final
            assert "Player 1 wins." in world.bob.latest_text()
            assert "Player 2 has no ships left [2.3.1]." in final
            assert "You have no ships left [2.3.1]." in world.bob.latest_text()
            (attachment,) = list(world.alice.latest().iter_attachments())
            assert attachment.get_filename() == "game-g1-player-1.txt"  # her record (edition 5 on, issue 22)
            record = attachment.get_content()
            assert record.startswith("Spaceships game g1: you are Player 1") and "Your setup:" in record
            assert "== Turn 1 (" in record and "== Turn 3 (" in record and "== Turn 4" not in record
            assert "@@GM-SECRET" not in record and BOB not in record
            archive = world.daemon.store.games_dir / "g1"
        count, differences = verify_replay(str(archive))
        assert differences == [] and count == len(list((archive / "cur").iterdir())) - 9
        exported = tmp_path / "g1.mbox"
        n = export_mbox(world.daemon.store, "g1", str(exported))
        box = mailbox.mbox(str(exported))
        assert len(box) == n and str(box[0]["X-GM-Event"]) == "created"
    run(scenario())


def test_resubmitting_replaces_all_orders(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rz5")
            await world.act(world.alice.reply, "Rv1 Rv2")
            ack = world.alice.latest_text()
            assert "your orders for turn 1, replacing all you sent before" in ack
            await world.act(world.bob.reply, "")  # no orders: changes nothing, turn does not run
            assert "held no commands and no orders, so nothing was changed" in world.bob.latest_text()
            assert world.daemon.master.games["g1"].turn == 1
            await world.act(world.bob.reply, "Bz5")
            sheet = world.bob.latest_text()
            assert "they  strike Rv1: hit" in sheet and "Rz5" not in sheet
    run(scenario())


def test_syntax_error_names_line_and_column_and_the_readable_lines_stand(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1 Rv2")
            await world.act(world.alice.reply, "Rv1\nRw2 rx1")
            text = world.alice.latest_text()
            assert "Line 2, column 5: unexpected 'rx1'.\n    Rw2 rx1\n        ^\n" in text
            assert "Hint: colours are capital letters, so write Rx1 [11.4.5]" in text
            assert "Orders in force for turn 1:\n    Rv1\n" in text  # line 1 replaced Rv1 Rv2 [ruling v]
            await world.act(world.alice.reply, "Rw2 rx1")  # nothing readable: what is in force stays
            assert "Your previous orders stay in force:\n    Rv1\n" in world.alice.latest_text()
            await world.act(world.bob.reply, "Bz5")
            world.clock.advance(hours=72)  # her last mail had a line it could not read: the deadline runs it [v2]
            await world.settle()
            assert "strike Rv1" in world.bob.latest_text() and "strike Rv2" not in world.bob.latest_text()
    run(scenario())


def test_forged_mail_changes_nothing_and_only_the_real_player_hears(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            before = len(world.alice.inbox())
            game_address = re.sub(r"\.[a-z2-7]{16}@", ".aaaaaaaaaaaaaaaa@",
                                  str(world.alice.latest()["Reply-To"]))  # a wrong token
            forged = (f"From: {ALICE}\r\nTo: {game_address}\r\nSubject: orders\r\n"
                      f"Message-ID: <forged@evil.example>\r\n\r\nRv1 Rv2\r\n").encode()
            await world.asend(forged, "mallory@evil.example", [game_address])
            await world.settle()
            store = world.daemon.store
            assert [k for k in store.shunt.keys()]
            assert b"not proven to come from player 1" in store.shunt.get_bytes(store.shunt.keys()[0])
            assert world.daemon.master.games["g1"].play.pending == {}
            inbox = world.alice.inbox()
            assert len(inbox) == before + 1 and "Someone tried" in str(inbox[-1]["Subject"])
            delivered_to = {str(parse["To"]) for parse in inbox}
            assert "mallory@evil.example" not in delivered_to
            await world.asend(forged.replace(b"forged@", b"forged2@"), "mallory@evil.example", [GM])
            await world.settle()
            assert len(world.alice.inbox()) == before + 1  # one warning a day at most
    run(scenario())


def test_a_forged_warning_never_names_another_players_address(tmp_path):
    """Bob writes to Alice's game address without her token (a slip, or a
    guess): Alice is warned, but not told the address it came from, which
    may be her opponent's."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game_address = re.sub(r"\.[a-z2-7]{16}@", ".aaaaaaaaaaaaaaaa@", str(world.alice.latest()["Reply-To"]))
            forged = (f"From: {BOB}\r\nTo: {game_address}\r\nSubject: orders\r\n"
                      f"Message-ID: <slip@example.net>\r\n\r\nresign\r\n").encode()
            await world.asend(forged, BOB, [game_address])
            await world.settle()
            warning = world.alice.latest()
            assert "Someone tried" in str(warning["Subject"])
            assert BOB not in warning.as_string() and "from an address that is not" in text(warning).replace("\n", " ")
            assert world.daemon.master.games["g1"].phase == "play"
    run(scenario())


def test_password_line_proves_the_player(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            token = str(world.alice.latest()["Reply-To"]).split(".")[2].split("@")[0]
            raw = (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: my orders\r\nMessage-ID: <pw@example.org>\r\n\r\n"
                   f"password {token}\r\nRv1 Rv2\r\n").encode()
            await world.asend(raw, ALICE, [GM])
            await world.settle()
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1", "Rv2"]
    run(scenario())


@pytest.mark.parametrize("headers, envelope_from", [
    ("Auto-Submitted: auto-replied\r\n", "alice@example.org"),
    ("Precedence: bulk\r\n", "alice@example.org"),
    ("List-Id: <games.example.org>\r\n", "alice@example.org"),
    ("X-Autoreply: yes\r\n", "alice@example.org"),
    ("", ""),  # a bounce: null return path
])
def test_automatic_mail_is_never_answered(tmp_path, headers, envelope_from):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            before = len(world.alice.inbox())
            reply_to = str(world.alice.latest()["Reply-To"])
            raw = (f"From: {ALICE}\r\nTo: {reply_to}\r\nSubject: Out of office\r\n{headers}Message-ID: "
                   "<auto@x>\r\n\r\nRv1\r\n").encode()
            await world.asend(raw, envelope_from, [reply_to])
            await world.settle()
            assert len(world.alice.inbox()) == before
            assert world.daemon.master.games["g1"].play.pending == {}
            assert b"automatic mail" in world.daemon.store.shunt.get_bytes(world.daemon.store.shunt.keys()[0])
    run(scenario())


def test_strangers_and_the_gms_own_mail_change_nothing(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            stranger = b"From: someone@else.example\r\nTo: gm@example.org\r\nSubject: hi\r\nMessage-ID: <s@x>\r\n\r\nRv1\r\n"
            await world.asend(stranger, "someone@else.example", [GM])
            own = world.daemon.store.delivered.get_bytes(world.daemon.store.delivered.keys()[0]).replace(b"\n", b"\r\n")
            await world.asend(own, GM, [GM])
            await world.settle()
            reasons = [world.daemon.store.shunt.get_bytes(k).split(b"\r\n")[0] for k in world.daemon.store.shunt.keys()]
            assert any(b"not addressed to any game" in r for r in reasons)
            assert any(b"own mail" in r for r in reasons)
            assert world.daemon.master.games["g1"].events == 3
    run(scenario())


def test_a_duplicate_delivery_is_applied_once(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            raw = await asyncio.to_thread(world.alice.reply, "Rv1")
            await world.asend(raw, ALICE, [str(world.alice.inbox()[-1]["Reply-To"])])
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.events == 4
            assert len([m for m in world.alice.inbox() if "orders received" in str(m["Subject"])]) == 1
    run(scenario())


def test_oversize_mail_is_refused_with_552(tmp_path):
    async def scenario():
        async with World(tmp_path, max_message_bytes=10_000) as world:
            big = b"From: a@b.example\r\nTo: gm@example.org\r\nSubject: big\r\n\r\n" + b"x" * 20_000 + b"\r\n"
            with pytest.raises(smtplib.SMTPException) as caught:
                await world.asend(big, "a@b.example", [GM])
            assert "552" in str(caught.value)
            assert world.daemon.store.spool.keys() == []
    run(scenario())


def test_mail_for_other_domains_is_refused_at_rcpt(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                await world.asend(b"Subject: x\r\n\r\nx\r\n", "a@b.example", ["someone@elsewhere.example"])
    run(scenario())


def test_250_only_after_the_message_is_in_the_spool(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            raw = b"From: a@b.example\r\nTo: gm@example.org\r\nSubject: x\r\nMessage-ID: <m@x>\r\n\r\nhello\r\n"
            await world.asend(raw, "a@b.example", [GM])
            (key,) = world.daemon.store.spool.keys()
            kept = world.daemon.store.spool.get_bytes(key)
            assert kept.endswith(raw) and kept.startswith(b"Return-Path: <a@b.example>\r\nX-GM-Envelope-To: "
                                                          b"<gm@example.org>\r\n")
    run(scenario())


def test_a_game_started_by_a_challenge_by_mail(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            challenge = (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: a game?\r\nMessage-ID: <ch@example.org>\r\n\r\n"
                         f"challenge {BOB}\r\n").encode()
            await world.asend(challenge, ALICE, [GM])
            await world.settle()
            assert world.bob.inbox() == []  # nothing reaches the challenged before the challenger confirms
            (confirmation,) = world.alice.inbox()
            assert f"Confirm your challenge to {BOB}" in str(confirmation["Subject"])
            await world.act(world.alice.reply, "yes please", to=confirmation)
            assert world.bob.inbox() == []  # only 'confirm' confirms
            await world.act(world.alice.reply, "confirm", to=confirmation)
            (invite,) = world.bob.inbox()
            assert "alice@example.org challenges you" in str(invite["Subject"])
            await world.act(world.alice.reply, "confirm", to=confirmation)
            assert len(world.bob.inbox()) == 1  # confirmed once only
            await world.act(world.bob.reply, "thanks, I'll think about it")
            assert world.daemon.master.games == {}
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert [s.address for s in game.seats] == [ALICE, BOB]
            assert ("Invitation" in str(world.alice.latest()["Subject"])
                    and "Invitation" in str(world.bob.latest()["Subject"]))
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            assert list(world.daemon.master.games) == ["g1"]  # accepted once only
    run(scenario())


def test_challenges_cannot_be_aimed_at_third_parties(tmp_path):
    """A forged From gets its owner one confirmation a day at most, and
    nothing reaches the challenged address until its owner confirms;
    address spellings and several recipients do not get round the count."""
    async def scenario():
        async with World(tmp_path) as world:
            spellings = [BOB, f"<{BOB}>,", f"{BOB.upper()},", f"Bob <{BOB}>"]
            for n, spelling in enumerate(spellings):
                raw = (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: game\r\nMessage-ID: <ch{n}@example.org>\r\n\r\n"
                       f"challenge {spelling}\r\n").encode()
                await world.asend(raw, ALICE, [GM])
            several = (f"From: carol@example.com\r\nTo: {GM}\r\nSubject: game\r\nMessage-ID: <chs@example.org>\r\n\r\n"
                       f"challenge {BOB}, dave@example.com\r\n").encode()
            await world.asend(several, "carol@example.com", [GM])
            await world.settle()
            assert world.bob.inbox() == []
            assert len(world.alice.inbox()) == 1  # one confirmation a day, however often she is named
            reasons = b" ".join(world.daemon.store.shunt.get_bytes(k).split(b"\r\n")[0]
                                for k in world.daemon.store.shunt.keys())
            assert b"about no game today already" in reasons and b"must name one address" in reasons
            assert not [k for k in world.daemon.store.delivered.keys()
                        if b"carol@" in world.daemon.store.delivered.get_bytes(k)]
        # The count is on disk: a restart gives no fresh allowance.
        async with World(tmp_path) as world:
            raw = (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: game\r\nMessage-ID: <again@example.org>\r\n\r\n"
                   f"challenge {BOB}\r\n").encode()
            await world.asend(raw, ALICE, [GM])
            await world.settle()
            assert len(world.alice.inbox()) == 1
            world.clock.advance(days=1)
            raw = raw.replace(b"<again@", b"<tomorrow@")
            await world.asend(raw, ALICE, [GM])
            await world.settle()
            assert len(world.alice.inbox()) == 2
    run(scenario())


def test_a_mail_gm_fails_on_goes_to_the_shunt_and_changes_nothing(tmp_path, monkeypatch):
    """A bug must not lose the mail, change the game halfway, or block the spool."""
    from gm.kernel import engine

    real_apply = engine.apply

    def apply(game, event):
        if "BOOM" in getattr(event, "text", ""):
            game.play.pending[1] = ["half-applied"]  # a change made before the failure
            raise RuntimeError("a bug")
        return real_apply(game, event)

    monkeypatch.setattr(engine, "apply", apply)

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            before = world.daemon.master.games["g1"].events
            await world.act(world.alice.reply, "BOOM Rv1")
            store = world.daemon.store
            (key,) = store.shunt.keys()
            assert store.shunt.get_bytes(key).startswith(b"X-GM-Shunt-Reason: gm failed on this mail: RuntimeError: a "
                                                         b"bug")
            game = world.daemon.master.games["g1"]
            assert game.events == before and game.play.pending == {}
            assert not [k for k in (store.games_dir / "g1" / "cur").iterdir() if ".in." in k.name and key in k.name]
            await world.act(world.alice.reply, "Rv1")
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1"]
            assert store.spool.keys() == []
    run(scenario())


def test_first_orders_in_reply_to_the_setup_acknowledgment_are_not_late(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            ack = world.alice.inbox()[-2]
            assert "Setup accepted" in str(ack["Subject"])
            await world.act(world.alice.reply, "Rv1", to=ack)  # turn 1's orders, in the setup's thread
            subject = str(world.alice.inbox()[-2]["Subject"]) + " | " + str(world.alice.latest()["Subject"])
            assert "had run" not in subject, subject
            assert world.daemon.master.games["g1"].play.pending.get(1), "turn 1's orders were not taken"
    run(scenario())
