"""A seat's deadline as an iCalendar object (RFC 5545, sent as RFC 5546's
PUBLISH or CANCEL), the part that lets a mail client add it to a calendar.

The kernel says what to tell (`gm.kernel.effects.CalendarEvent`); this
writes it with the ``icalendar`` package. Everything in it comes from the
game and the event being answered (``at`` is the event's time), so a
replay writes the same bytes. The event's UID is one per game and seat,
stable and opaque: the game, the seat's number and the installation's tag,
never an address.
"""

from __future__ import annotations

from datetime import datetime

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
