"""A plain reply to press is press back (games of `WORDS_EDITION` on).

Press is what one player sends another through the GM: a line ``message
TEXT`` (or ``press TEXT``) in their mail, which the others get as "A message
from Vega". A player who answers that mail with plain words ("Thanks, good
luck to you too!") expects them to reach Vega, as any reply does: so the
lines of such a reply that are neither orders nor commands (the lines
otherwise "not understood", and greetings) are passed to the seat whose
message it answers, as one message, and the reply says so. Orders and
commands in the same mail are read as in any other. The mail is known for
an answer to press by its subject ("Re: [gm g1] A message from Vega"), which
the replay reads back from the archive like the rest of the mail.
"""

from __future__ import annotations

import re
from datetime import datetime

from .commands import Mail
from .model import MailGame
from .values import WORDS_EDITION, Notice, PlayerMail, Reply, Seat

SUBJECT = "A message from {sender}"
"""The subject of a press notice: a reply's subject names its sender."""


def press_notice(game: MailGame, at: datetime, to: Seat, sender: str, text: str) -> Notice:
    """The notice that passes ``text`` from ``sender`` (an alias) to the seat ``to``;
    from `WORDS_EDITION` on it also says that a plain reply is passed back."""
    data = game.rules.common(game, to.player, at) | {"text": text, "sender": sender}
    if game.edition >= WORDS_EDITION:
        data["reply_passes"] = True
    return Notice(to.player, "press", SUBJECT.format(sender=sender), data)


def answered_seat(game: MailGame, event: PlayerMail) -> Seat | None:
    """The other seat whose message the player's mail replies to, from its
    subject, in games of `WORDS_EDITION` on; else None (a robot sends none)."""
    if game.edition < WORDS_EDITION:
        return None
    found = re.search(re.escape(SUBJECT.format(sender="")) + r"(.+?)\s*$", event.subject)
    if found is None:
        return None
    return next((seat for seat in game.others(event.player) if seat.alias == found.group(1) and not seat.robot),
                None)


def pass_reply(game: MailGame, event: PlayerMail, mail: Mail, reply: Reply) -> list[Notice]:
    """Pass the plain lines of a reply to press (what would be "not
    understood", and greetings) to the seat whose message it answers, as one
    message; they are then no longer the mail's slips."""
    seat = answered_seat(game, event)
    if seat is None:
        return []
    lines = sorted([(line, text) for line, text, _ in mail.not_understood] + mail.chat)
    if not lines:
        return []
    mail.not_understood.clear()
    mail.chat.clear()
    first, last = lines[0][0], lines[-1][0]
    where = f"line {first}" if first == last else f"lines {first} to {last}"
    reply.done.append(f"{where}: your answer to {seat.alias}'s message, passed to {seat.alias}")
    text = " ".join(text for _, text in lines)
    return [press_notice(game, event.at, seat, game.seat(event.player).alias, text)]
