"""A seat's deadline as an iCalendar object (RFC 5545, sent as RFC 5546's
PUBLISH or CANCEL), the part that lets a mail client add it to a calendar.

The kernel says what to tell (`gm.kernel.effects.CalendarEvent`); this
writes it with the ``icalendar`` package. Everything in it comes from the
game and the event being answered (``at`` is the event's time), so a
replay writes the same bytes. The event's UID is one per game and seat,
stable and opaque: the game, the seat's number and the installation's tag,
never an address.

The package builds a tree of property objects for each part and folds each
line anew, which was a sixth of the time of `gm replay` (every turn sheet
carries one); so the parts of plain games (`_written`) are written here,
line by line, exactly as the package writes them, and only the rest is the
package's. tests/test_calendar_text.py checks that the two agree.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import icalendar

from ...kernel.effects import CalendarEvent
from ...kernel.model import MailGame

PRODID = "-//gm-pbem//Game master deadlines//EN"


def uid(game: MailGame, player: int, domain: str) -> str:
    """The UID of ``player``'s deadline event in ``game``: the same for
    every mail of the game to the seat, so each update moves one event.
    Made as the game's Message-IDs are (`gm.pbem.writing.mailer.message_id`):
    the game, the seat's number and the installation's tag for the game,
    which make it unique and say nothing of the player."""
    tag = f".{game.instance}" if game.instance else ""
    return f"deadline.{game.id}.{player}{tag}@{domain}"


def method(event: CalendarEvent) -> str:
    """The iTIP method (RFC 5546) the part is sent with."""
    return "CANCEL" if event.cancelled else "PUBLISH"


def ical(event: CalendarEvent, game: MailGame, player: int, organizer: str, name: str, domain: str,
         at: datetime) -> str:
    """The iCalendar text of ``event``, sent to ``player`` by the GM
    (``organizer``, its address, under ``name``) at ``at``: one VEVENT at
    the deadline, a display alarm ``event.alarm`` before it, or its
    cancellation. Times are UTC, to the second (the deadline's fraction of
    a second dropped, so the event is never later than the deadline)."""
    written = _written(event, game, player, organizer, name, domain, at)
    return _by_package(event, game, player, organizer, name, domain, at) if written is None else written


def _by_package(event: CalendarEvent, game: MailGame, player: int, organizer: str, name: str, domain: str,
                at: datetime) -> str:
    """`ical`'s text as the ``icalendar`` package writes it."""
    calendar = icalendar.Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("method", method(event))
    vevent = icalendar.Event()
    vevent.add("uid", uid(game, player, domain))
    vevent.add("sequence", event.sequence)
    vevent.add("dtstamp", at.replace(microsecond=0))
    vevent.add("dtstart", event.start.replace(microsecond=0))
    vevent.add("summary", event.summary)
    vevent.add("organizer", icalendar.vCalAddress(f"mailto:{organizer}"), parameters={"cn": name})
    vevent.add("transp", "TRANSPARENT")
    vevent.add("status", "CANCELLED" if event.cancelled else "CONFIRMED")
    if not event.cancelled:
        alarm = icalendar.Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", event.summary)
        alarm.add("trigger", -event.alarm)
        vevent.add_component(alarm)
    calendar.add_component(vevent)
    return str(calendar.to_ical().decode("utf-8"))


_TEXT = re.compile(r"[ !#-+\--:<-\[\]-~]+")
"""Printable ASCII but for what a TEXT value escapes (backslash, semicolon,
comma) and the double quote: such a value is written as it is."""
_NAME = re.compile(r"[ !#-&(-+\--9<-\]_-~]+")
"""Printable ASCII but for what a parameter's value quotes or escapes
(comma, semicolon, colon, apostrophe, double quote, circumflex)."""
LONGEST_LINE = 74
"""The longest content line the package leaves unfolded (it folds where a
line would reach 75 octets)."""


def _written(event: CalendarEvent, game: MailGame, player: int, organizer: str, name: str, domain: str,
             at: datetime) -> str | None:
    """`ical`'s text, written line by line in the package's order and form,
    when nothing in it needs escaping, quoting beyond the spaces of a name,
    folding or a time zone: UTC times, and plain ASCII values on lines of
    at most `LONGEST_LINE` characters. None otherwise (`_by_package`)."""
    summary, ident = event.summary, uid(game, player, domain)
    if (at.tzinfo is not UTC or event.start.tzinfo is not UTC or not _TEXT.fullmatch(summary)
            or not _TEXT.fullmatch(ident) or not _TEXT.fullmatch(organizer) or not _NAME.fullmatch(name)):
        return None
    cn = f'"{name}"' if " " in name else name
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", f"METHOD:{method(event)}", "BEGIN:VEVENT",
             f"SUMMARY:{summary}", f"DTSTART:{_utc(event.start)}", f"DTSTAMP:{_utc(at)}", f"UID:{ident}",
             f"SEQUENCE:{int(event.sequence)}", f"ORGANIZER;CN={cn}:mailto:{organizer}",
             f"STATUS:{'CANCELLED' if event.cancelled else 'CONFIRMED'}", "TRANSP:TRANSPARENT"]
    if not event.cancelled:
        lines += ["BEGIN:VALARM", "ACTION:DISPLAY", f"DESCRIPTION:{summary}", f"TRIGGER:{_duration(-event.alarm)}",
                  "END:VALARM"]
    lines += ["END:VEVENT", "END:VCALENDAR", ""]
    if any(len(line) > LONGEST_LINE for line in lines):
        return None
    return "\r\n".join(lines)


def _utc(moment: datetime) -> str:
    """A UTC DATE-TIME value, to the second, as the package writes it."""
    return (f"{moment.year:04}{moment.month:02}{moment.day:02}"
            f"T{moment.hour:02}{moment.minute:02}{moment.second:02}Z")


def _duration(span: timedelta) -> str:
    """A DURATION value as the package writes it (``-PT12H``, ``P1DT30M``; the
    fraction of a second dropped)."""
    sign = ""
    if span.days < 0:
        sign, span = "-", -span
    time = ""
    if span.seconds:
        hours, minutes, seconds = span.seconds // 3600, span.seconds % 3600 // 60, span.seconds % 60
        time = "T" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes or (hours and seconds) else "") + (
            f"{seconds}S" if seconds else "")
    if span.days == 0 and time:
        return f"{sign}P{time}"
    return f"{sign}P{abs(span.days)}D{time}"
