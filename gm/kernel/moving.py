"""A player moving their seat to another address, by mail (issue 10, point 9).

``address NEW`` in a player's mail (games of edition 2 on) asks for it; the
kernel only checks the line, says what happens next, and asks the edge for
it (a `ConfirmAddress` effect). The GM then mails NEW a confirmation
(`gm.pbem.answers.moving`), and only a ``confirm`` from NEW moves
the seat, as the operator's `gm replace` does (an `AddressReplaced` event in
the game's archive). So a move is confirmed from both addresses: the old one,
whose mail carries the seat's secret, and the new one.
"""

from __future__ import annotations

from .addresses import is_mail_address
from .commands import Command
from .effects import ConfirmAddress
from .model import MailGame
from .values import Notice, PlayerMail, Reply

MOVING_EDITION = 2
KEYWORDS = ("address",)


def keywords(game: MailGame) -> tuple[str, ...]:
    """The command, in games whose edition has it."""
    return KEYWORDS if game.edition >= MOVING_EDITION else ()


def refusal(game: MailGame, player: int, new: str) -> str | None:
    """Why the seat cannot move to ``new`` (None when it can)."""
    if not is_mail_address(new):
        return f"{new!r} is not one mail address (write: address you@example.org)"
    if new.lower() == game.seat(player).address.lower():
        return "that is the address you play from already"
    if game.seat_of(new) is not None or new.lower() in (o.lower() for o in game.observers):
        return "that address is in this game already"
    return None


def command(game: MailGame, event: PlayerMail, command: Command, reply: Reply) -> list[Notice]:
    """Check an ``address NEW`` line and say what happens next."""
    where = f"line {command.line}: address"
    new = command.argument.strip()
    why = refusal(game, event.player, new)
    if why:
        reply.not_understood.append(f"{where}: {why}")
        return []
    if not any(isinstance(effect, ConfirmAddress) for effect in reply.effects):  # the first one only
        reply.effects.append(ConfirmAddress(event.player, new))
    reply.done.append(f"{where}: a mail has gone to {new} to confirm it; your seat moves there once it is "
                      "confirmed from that address, and until then your mail keeps coming here")
    return []
