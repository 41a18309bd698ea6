"""A spooled message as the master's screening rules see it
(`gm.pbem.master.screening`): what is read off it once, when a rule first
asks, and what the rules found out about it."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from functools import cached_property

from ...mail.reading import addresses, parse_message
from ...mail.screening import automatic_reason
from ...storage.maildirs import unix_lines
from ..archive.replay import orders_text
from ..intake.addressing import envelope_from, plus_tags
from ..intake.limits import normalized
from ..writing.mailer import Identity


@dataclass
class Incoming:
    """A spooled message as the rules see it: what is read off it once, when
    a rule first asks, and what the rules found out (the game and seat it
    is for, once ``no-game`` has routed it)."""

    key: str
    raw: bytes
    """The message as spooled: what the shunt keeps of it."""
    attempts: int
    """Times its handling has begun, this one included."""
    identity: Identity
    alone: int = 0
    """Times its handling has begun alone (`gm.pbem.master.screening.ALONE_DEATHS`), this one included."""
    game_id: str | None = None
    player: int = 0
    secret: str | None = None
    """The token of its plus-address, or its password line."""
    deputy: bool = False
    """Whether its token is the player's deputy's (`gm.kernel.deputies`)."""

    @cached_property
    def stored(self) -> bytes:
        """The message as a game's archive keeps it (`gm.storage.maildirs.unix_lines`),
        which is what every rule reads: a replay reads these very bytes, so
        it reads what the live master read, whatever the charset and the
        line ends (a CRLF of the wire inside UTF-16 text is no line end)."""
        return unix_lines(self.raw)

    @cached_property
    def message(self) -> EmailMessage:
        return parse_message(self.stored)

    @cached_property
    def automatic(self) -> str | None:
        """Why it is automatic mail (a bounce, an auto-reply), or None (`gm.mail.screening`)."""
        return automatic_reason(self.message, envelope_from(self.message))

    @cached_property
    def sender(self) -> str:
        """The one address of its From, normalized ("" for none)."""
        return normalized((addresses(self.message, "From") or [""])[0]) or ""

    @cached_property
    def tags(self) -> list[list[str]]:
        """The parts of each plus-address of the GM's it was sent to (`gm.pbem.intake.addressing`)."""
        return plus_tags(self.message, self.identity)

    @cached_property
    def orders(self) -> tuple[str, str | None]:
        """The player's text and password line (`gm.pbem.archive.replay.orders_text`)."""
        return orders_text(self.message)
