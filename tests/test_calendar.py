"""Calendar events for deadlines (issue 24): in games of edition 6 each mail
that sets, moves or cancels a player's deadline carries it as a
``text/calendar`` alternative (RFC 5546 PUBLISH or CANCEL) that mail clients
offer to add to a calendar, one UID per game and seat, each change with a
higher SEQUENCE.

Through the real daemon on loopback SMTP with a clock that has sub-second
parts (`gmtest.World`), and as processes on the wall clock (`gm serve`, `gm
extend`, `gm pause`, `gm cancel`, `gm replay`). Every part is parsed back
with the ``icalendar`` package and checked for RFC 5545's (and 5546's)
required properties."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import icalendar

from gm.kernel import engine
from gm.kernel.values import (
    CALENDAR_EDITION,
    TIME_EDITION,
    AddressReplaced,
    Created,
    Options,
    Paused,
    Resumed,
    Seat,
)
from gm.pbem.operator.actions import check_action, request_action
from gm.pbem.operator.admin import verify_replay
from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB, START, Player, World, run

CAROL = "carol@example.com"


def calendar_part(message):
    """The message's text/calendar part, or None."""
    parts = [part for part in message.walk() if part.get_content_type() == "text/calendar"]
    assert len(parts) <= 1
    return parts[0] if parts else None


def event_of(message) -> tuple[str, icalendar.Event]:
    """The iTIP method and the one VEVENT of a message's calendar part,
    checked against RFC 5545 (and RFC 5546's PUBLISH and CANCEL) on the way."""
    part = calendar_part(message)
    assert part is not None, f"no calendar part in {message['Subject']}"
    assert any(p.get_content_type() == "multipart/alternative" and part in p.get_payload() for p in message.walk())
    raw = part.get_payload(decode=True)
    lines = raw.replace(b"\r\n", b"\n").split(b"\n")
    assert all(len(line) <= 75 for line in lines), "RFC 5545 3.1: content lines of at most 75 octets"
    calendar = icalendar.Calendar.from_ical(raw)
    assert calendar.name == "VCALENDAR"
    for name in ("PRODID", "VERSION", "METHOD"):
        assert name in calendar, name
    assert str(calendar["VERSION"]) == "2.0"
    method = str(calendar["METHOD"])
    assert part.get_param("method") == method and method in ("PUBLISH", "CANCEL")
    events = [c for c in calendar.subcomponents if c.name == "VEVENT"]
    assert len(events) == 1 and len(calendar.subcomponents) == 1
    (event,) = events
    for name in ("UID", "DTSTAMP", "DTSTART", "ORGANIZER", "SUMMARY", "SEQUENCE"):
        assert name in event, name
    assert event.decoded("DTSTAMP").tzinfo is not None and event.decoded("DTSTART").tzinfo is not None
    assert str(event["ORGANIZER"]).lower() == f"mailto:{GM}"
    alarms = [c for c in event.subcomponents if c.name == "VALARM"]
    if method == "PUBLISH":
        assert str(event["STATUS"]) == "CONFIRMED"
        (alarm,) = alarms
        for name in ("ACTION", "TRIGGER", "DESCRIPTION"):
            assert name in alarm, name
        assert str(alarm["ACTION"]) == "DISPLAY"
    else:
        assert str(event["STATUS"]) == "CANCELLED" and not alarms
    for address in (ALICE, BOB):  # never a player's address
        assert address.encode() not in raw
    return method, event


def told(event: icalendar.Event) -> tuple[str, int, datetime]:
    return str(event["UID"]), int(event["SEQUENCE"]), event.decoded("DTSTART")


def test_the_calendar_edition_is_the_time_edition():
    assert CALENDAR_EDITION == TIME_EDITION == 6


def test_games_before_the_calendar_edition_carry_no_calendar_event():
    seats = (Seat(1, ALICE, "Ann"), Seat(2, BOB, "Bob"))
    for edition, carried in ((CALENDAR_EDITION - 1, False), (CALENDAR_EDITION, True)):
        _, notices = engine.create(Created(START, "g1", seats, "2.6.1", Options(), edition=edition, instance="x"))
        assert notices and all((n.calendar is not None) == carried for n in notices), edition


def test_each_mail_that_sets_or_moves_a_deadline_carries_the_seats_one_event(tmp_path):
    """The invitation, the sheets of a turn that ran early, an absence, a
    pause, the resumption and the end: one UID per seat, each change one
    more SEQUENCE; mail that moves nothing carries nothing; replay is exact."""
    async def scenario():
        async with World(tmp_path) as world:
            alice, bob = world.alice, world.bob
            await world.new_game(deadline=timedelta(hours=72), reminder_before=timedelta(hours=10))
            method, invited = event_of(alice.latest())
            uid, sequence, start = told(invited)
            assert method == "PUBLISH" and sequence == 0
            assert START.microsecond and start == (START + timedelta(hours=72)).replace(microsecond=0)
            assert str(invited["SUMMARY"]) == "Spaceships g1: deadline for the setup"
            assert invited.subcomponents[0].decoded("TRIGGER") == -timedelta(hours=10)
            assert "alice" not in uid.lower() and "example.org" in uid
            bob_uid = told(event_of(bob.latest())[1])[0]
            assert bob_uid != uid
            alice.new_mail(), bob.new_mail()

            world.clock.advance(hours=1, microseconds=250_000)
            await world.act(alice.reply, SETUP_ALICE)
            assert [calendar_part(m) for m in alice.new_mail()] == [None]  # "Setup accepted": nothing moved
            world.clock.advance(minutes=5)
            began_at = world.clock()
            await world.act(bob.reply, SETUP_BOB)
            (sheet,) = [m for m in alice.new_mail()]
            _, event = event_of(sheet)
            assert told(event) == (uid, 1, (began_at + timedelta(hours=72)).replace(microsecond=0))
            assert str(event["SUMMARY"]) == "Spaceships g1: deadline for turn 1"
            assert told(event_of(bob.new_mail()[-1])[1])[:2] == (bob_uid, 1)

            world.clock.advance(hours=2)  # Bob goes away: every seat's deadline waits for him
            away = world.clock()
            await world.act(bob.reply, "vacation 5d")
            (news,) = alice.new_mail()
            assert "away" in str(news["Subject"])
            assert told(event_of(news)[1]) == (uid, 2, (away + timedelta(days=5)).replace(microsecond=0))
            assert told(event_of(bob.new_mail()[-1])[1])[:2] == (bob_uid, 2)

            world.clock.advance(minutes=1)
            assert check_action(world.daemon.master.games, "g1", Paused(world.clock())) is None
            request_action(world.daemon.store, world.config.identity, "g1", Paused(world.clock()))
            await world.settle()
            (paused,) = alice.new_mail()
            method, event = event_of(paused)
            assert method == "CANCEL" and told(event) == (uid, 3, (away + timedelta(days=5)).replace(microsecond=0))
            bob.new_mail()

            world.clock.advance(minutes=1)
            resumed_at = world.clock()
            request_action(world.daemon.store, world.config.identity, "g1", Resumed(resumed_at))
            await world.settle()
            method, event = event_of(alice.new_mail()[-1])
            assert method == "PUBLISH"  # Bob is still away: the deadline waits for him
            assert told(event) == (uid, 4, (away + timedelta(days=5)).replace(microsecond=0))
            await world.act(bob.reply, "back")
            bob.new_mail(), alice.new_mail()

            world.clock.advance(minutes=1)
            await world.act(alice.reply, "resign")
            final = alice.new_mail()
            method, event = event_of(final[-1])
            assert method == "CANCEL" and told(event)[:2] == (uid, 6)
            assert [calendar_part(m) for m in final[:-1]] == [None] * (len(final) - 1)
            assert event_of(bob.new_mail()[-1])[0] == "CANCEL"

            count, differences = verify_replay(str(world.daemon.store.games_dir / "g1"))
            assert count and differences == []
    run(scenario())


def test_a_turn_that_runs_early_moves_the_event(tmp_path):
    """Both players' orders in before the deadline: the turn runs at once,
    and its sheets carry the event for the next turn, moved."""
    async def scenario():
        async with World(tmp_path) as world:
            alice, bob = world.alice, world.bob
            await world.new_game()
            await world.act(alice.reply, SETUP_ALICE)
            await world.act(bob.reply, SETUP_BOB)
            uid, sequence, start = told(event_of(alice.latest())[1])
            alice.new_mail()
            world.clock.advance(hours=3, microseconds=600_000)
            await world.act(alice.reply, "Rv1")
            ran = world.clock()
            await world.act(bob.reply, "Rv1")
            fresh = alice.new_mail()
            with_event = [m for m in fresh if calendar_part(m) is not None]
            assert len(with_event) == 1 and "Turn 1 results" in str(with_event[0]["Subject"])
            new = told(event_of(with_event[0])[1])
            assert new == (uid, sequence + 1, (ran + timedelta(hours=72)).replace(microsecond=0)) and new[2] > start
    run(scenario())


def test_a_seats_new_address_is_sent_the_seats_event(tmp_path):
    """The operator gives Alice's seat to Carol: Carol's first sheet carries
    the seat's event (the same UID, the next SEQUENCE), as she was told of none."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            uid, sequence, start = told(event_of(world.alice.latest())[1])
            world.clock.advance(minutes=7)
            request_action(world.daemon.store, world.config.identity, "g1",
                           AddressReplaced(world.clock(), 1, CAROL))
            await world.settle()
            carol = Player(CAROL, world).inbox()
            assert [calendar_part(m) is not None for m in carol] == [False, True]
            assert told(event_of(carol[-1])[1]) == (uid, sequence + 1, start)
    run(scenario())


def test_gm_extend_moves_the_event_and_pause_and_the_end_cancel_it(tmp_path):
    """`gm serve` on the wall clock; `gm extend g1 +2h` (the alias of `gm
    deadline g1 --extend 2h`) sends the same UID with a higher SEQUENCE and
    the new time; `gm pause` and `gm cancel` cancel it; `gm replay` rebuilds
    every message, calendar parts and all, byte for byte."""
    data, port = tmp_path / "data", free_port()
    where = ["--data", str(data), "--address", GM]

    def mail(subject: str):
        return wait_for(subject, lambda: next((m for m in inbox(data, ALICE) if str(m["Subject"]) == subject), None))

    with serving(data, port, GM, tmp_path):
        made = datetime.now(UTC)
        assert gm("new", *where, "--player", ALICE, "--player", BOB, "--deadline", "1h", cwd=tmp_path).returncode == 0
        method, event = event_of(mail("[gm g1] Invitation to a game: send your setup"))
        uid, sequence, start = told(event)
        assert method == "PUBLISH" and sequence == 0
        assert made + timedelta(hours=1) - timedelta(seconds=1) <= start <= datetime.now(UTC) + timedelta(hours=1)

        extended = gm("extend", "g1", "+2h", *where, cwd=tmp_path)
        assert extended.returncode == 0, extended.stderr
        method, event = event_of(mail("[gm g1] The deadline has moved"))
        assert method == "PUBLISH" and told(event) == (uid, 1, start + timedelta(hours=2))

        refused = gm("extend", "g1", "soon", *where, cwd=tmp_path)
        assert refused.returncode == 2 and "give a number and a unit" in refused.stderr

        assert gm("pause", "g1", *where, cwd=tmp_path).returncode == 0
        method, event = event_of(mail("[gm g1] The game is paused"))
        assert method == "CANCEL" and told(event) == (uid, 2, start + timedelta(hours=2))
        assert gm("resume", "g1", *where, cwd=tmp_path).returncode == 0
        method, event = event_of(mail("[gm g1] The game goes on"))
        assert method == "PUBLISH" and told(event)[:2] == (uid, 3)
        assert gm("cancel", "g1", "--reason", "a test", *where, cwd=tmp_path).returncode == 0
        method, event = event_of(mail("[gm g1] The game is cancelled"))
        assert method == "CANCEL" and told(event)[:2] == (uid, 4)
        cancelled = wait_for("Bob's cancellation", lambda: [m for m in inbox(data, BOB) if "cancelled" in m["Subject"]])
        assert told(event_of(cancelled[0])[1])[1] == 4
    replay = gm("replay", str(data / "games" / "g1"), cwd=tmp_path)
    assert replay.returncode == 0 and "all identical" in replay.stdout, replay.stdout + replay.stderr
