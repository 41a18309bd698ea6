"""Odd charsets and line ends (issue 21, row 7): whatever charset, transfer
encoding and line ends a player's mail arrives in over SMTP, the live daemon
reads it as `gm replay` later reads the archived copy, so the game rebuilds
byte for byte (the daemon reads the stored form: `Incoming.stored`)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from charset_mail import (
    LINE_ENDS,
    TRANSFER_ENCODINGS,
    Body,
    ThreadedWorld,
    archived_spool_keys,
    joined,
    live_state,
    player_mail,
    replayed_last_event,
    replays_with_the_command,
)
from gm.pbem.data.store import spool_key
from gm.pbem.intake.limits import Limits
from gmtest import ALICE, World, run, started_game

BODIES = {
    "utf-16 with a BOM (LE)": Body("utf-16", "utf-16-le", bom=True),
    "utf-16 with a BOM (BE)": Body("utf-16", "utf-16-be", bom=True),
    "utf-16 without a BOM": Body("utf-16", "utf-16-le"),
    "utf-16le": Body("utf-16le", "utf-16-le"),
    "utf-16be": Body("utf-16be", "utf-16-be"),
    "utf-32 with a BOM": Body("utf-32", "utf-32-le", bom=True),
    "utf-32be": Body("utf-32be", "utf-32-be"),
    'charset=""': Body("", "utf-8"),
    "an unknown charset": Body("x-no-such-charset", "latin-1"),
    "utf-8": Body("utf-8", "utf-8"),
}

LINES = ["Rz5 Oz4", "; a comment with ünïcödé and a rocket \U0001F680 beyond the BMP", "Gx2"]
"""Orders, and a comment line that is ignored whatever becomes of it."""


@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_every_line_end_and_transfer_encoding_replays_byte_for_byte(tmp_path, body):
    """Each body in each transfer encoding, with each kind of line end and
    all of them mixed, as written and as a relay that ends every line in
    CRLF passes it on. Fails on main: seen for the UTF-16 and UTF-32
    bodies (a CRLF of the wire decodes to U+0A0D live, the archive holds LF
    and reads U+FFFD or a line end)."""
    data = tmp_path / "data"

    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=1000)) as world:
            await started_game(world)
            reply_to = str(world.alice.latest()["Reply-To"])
            sent = 0
            for transfer in TRANSFER_ENCODINGS:
                for ends in [[end] for end in LINE_ENDS] + [list(LINE_ENDS)]:
                    written = Body(body.declared, body.codec, body.bom, transfer)
                    for wire_crlf in (False, True) if transfer == "8bit" else (False,):  # base64, QP: no matter
                        raw = player_mail(ALICE, reply_to, f"<m{sent}@example.org>", written,
                                          written.encode(joined(LINES, ends)), wire_crlf=wire_crlf)
                        await world.asend(raw, ALICE, [reply_to])
                        await world.settle()
                        sent += 1
                        assert replayed_last_event(data, "g1") == (live_state(world, "g1"), []), (transfer, ends)
            assert world.daemon.store.shunt.keys() == []
            keys = archived_spool_keys(data, "g1")
            assert len(keys) == len(set(keys)) == 1 + 2 + sent  # the creation, two setups, each mail once

    run(scenario())
    replays_with_the_command(data, "g1", tmp_path)


# --------------------------------------------------------------------------
# The fuzz: any charset, transfer encoding, line ends and content


LABELS = [None, "", "utf-8", "UTF-16", "utf-16le", "utf-16be", "utf-32", "utf-32le", "utf-32be", "iso-8859-1",
          "windows-1252", "us-ascii", "koi8-r", "shift_jis", "utf-7", "x-no-such-charset", "base64"]
"""Declared charsets: none, empty, real ones, an unknown one and a codec that is no text encoding."""
CODECS = ["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "latin-1", "cp1252", "koi8-r", "shift_jis"]
"""What the text is really written in (a label may lie)."""

bodies = st.builds(Body, declared=st.sampled_from(LABELS), codec=st.sampled_from(CODECS), bom=st.booleans(),
                   transfer=st.sampled_from(["7bit", "binary", *TRANSFER_ENCODINGS]))
lines = st.one_of(
    st.sampled_from(["Rz5", "Oz4 Gx2", "Bz3 Yz1", "orders", "status", "; a comment", ""]),
    st.builds(lambda text: "message " + text, st.text(max_size=20)),
    st.text(max_size=30),  # garbage, with CR, LF and any character
    st.text(st.characters(min_codepoint=0x10000), max_size=6),  # beyond the BMP
)
texts = st.builds(joined, st.lists(lines, max_size=6), st.lists(st.sampled_from(LINE_ENDS), min_size=1, max_size=4))
payloads = st.one_of(st.tuples(bodies, texts).map(lambda bt: (bt[0], bt[0].encode(bt[1]))),
                     st.tuples(bodies, st.binary(max_size=120)))  # bytes no charset makes sense of


def test_any_mail_a_player_sends_is_archived_once_and_replays_byte_for_byte(tmp_path):
    """Every mail of Alice's, in any charset, transfer encoding and line
    ends, with orders, garbage or characters beyond the BMP: it lands once
    (in the game's archive, or in the shunt), and the game rebuilt from the
    archive after it equals the live game, with this mail's answers byte for
    byte; at the end `gm replay` rebuilds the whole game. Fails on main:
    seen (a UTF-16 body under 8bit)."""
    data = tmp_path / "data"
    threaded = ThreadedWorld(tmp_path, limits=Limits(replies_per_day=100_000))
    with threaded as world:
        threaded.call(started_game(world))
        reply_to = str(world.alice.latest()["Reply-To"])
        store = world.daemon.store
        sent = iter(range(10**6))

        @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(payload=payloads, header_end=st.sampled_from([b"\r\n", b"\n"]), wire_crlf=st.booleans())
        def each(payload, header_end, wire_crlf):
            body, content = payload
            archived, shunted = len(archived_spool_keys(data, "g1")), len(store.shunt.keys())
            raw = player_mail(ALICE, reply_to, f"<fuzz{next(sent)}@example.org>", body, content, header_end,
                              wire_crlf)
            world.send(raw, ALICE, [reply_to])
            threaded.call(world.settle())
            assert store.spool.keys() == []
            keys = archived_spool_keys(data, "g1")
            assert len(keys) == len(set(keys))
            assert (len(keys) - archived) + (len(store.shunt.keys()) - shunted) == 1
            assert replayed_last_event(data, "g1") == (live_state(world, "g1"), [])

        each()
    replays_with_the_command(data, "g1", tmp_path)


def test_a_line_not_in_the_mails_charset_is_answered_by_its_number_and_the_rest_stand(tmp_path):
    """A UTF-32 body whose second line is four bytes that are no character:
    the mail is accepted and archived once (nothing lost), the answer names
    line 2 and shows it as read (U+FFFD where the bytes were), the orders of
    lines 1 and 3 stand, and the game replays byte for byte. (Passes on main
    too: a guard.)"""
    data = tmp_path / "data"
    body = Body("utf-32", "utf-32-le")
    content = "Rz5\n".encode("utf-32-le") + b"\xde\xad\xbe\xef" + "\nOz4\n".encode("utf-32-le")

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            reply_to = str(world.alice.latest()["Reply-To"])
            await world.asend(player_mail(ALICE, reply_to, "<bad@example.org>", body, content), ALICE, [reply_to])
            await world.settle()
            assert world.daemon.store.shunt.keys() == [] and world.daemon.store.spool.keys() == []
            assert len(archived_spool_keys(data, "g1")) == 1 + 2 + 1
            assert "orders received" in str(world.alice.latest()["Subject"])
            answer = world.alice.latest_text()
            assert "Not understood:\n  - line 2: '\ufffd': not a command" in answer, answer
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rz5", "Oz4"]

    run(scenario())
    replays_with_the_command(data, "g1", tmp_path)


def test_a_mail_that_begins_with_a_folded_line_cannot_change_whose_mail_it_is(tmp_path):
    """A mail fetched over IMAP may begin with a folded line, which would
    continue gm's own X-GM-Accepted line on top of it: read back, "; player=2"
    in it would make Alice's mail Bob's. The master reads the event from the
    archived bytes, sees that, and shunts the mail (kept whole) instead of
    applying it to either seat. Fails on main: seen (applied as Alice's
    live, as Bob's by the replay)."""
    data = tmp_path / "data"

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            reply_to = str(world.alice.latest()["Reply-To"])
            raw = (b" ; player=2\r\n" + player_mail(ALICE, reply_to, "<folded@example.org>", Body("utf-8", "utf-8"),
                                                     b"Rz5\r\n"))
            store = world.daemon.store
            store.spool.add(raw, spool_key(world.clock(), "imap"))
            await world.settle()
            assert len(archived_spool_keys(data, "g1")) == 1 + 2
            (shunted,) = store.shunt.keys()
            assert b"begins with a folded line" in store.shunt.get_bytes(shunted).split(b"\n")[0]
            assert store.shunt.get_bytes(shunted).endswith(raw)

    run(scenario())
    replays_with_the_command(data, "g1", tmp_path)
