"""The SMTP and LMTP protocols the daemon listens with: aiosmtpd's, guarded.

Two changes to aiosmtpd's `SMTP` and `LMTP`:

* **A cap on concurrent connections**, shared by every listener of one
  daemon (`ConnectionGate`). A connection past the cap is answered
  ``421 4.7.0 Too many connections, try again later`` and closed at once
  (RFC 5321 4.3.2: 421 is a temporary refusal, so the sender tries again).
* **Long lines.** aiosmtpd refuses a message with a line over 1000 bytes
  (RFC 5321 4.5.3.1.6) with a permanent ``500 Line too long``. Mail clients
  and MTAs do send such mail, and mail with bare LF line ends arrives as one
  "line" (aiosmtpd splits DATA at CR LF only, which is right: treating a
  bare LF as a line end in DATA is what SMTP smuggling abuses). So the line
  limit is raised to the message size limit: a message is refused for its
  size only, and the end of DATA is still CR LF "." CR LF and nothing else.
  What this costs: one connection may buffer one line of up to the size
  limit, also in a command (which is then refused), and connections are
  capped.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

log = logging.getLogger("gm")

TOO_MANY = b"421 4.7.0 Too many connections, try again later\r\n"


class ConnectionGate:
    """How many connections are open across a daemon's listeners, and the cap."""

    def __init__(self, limit: int):
        self.limit = limit
        self.open = 0


class _Guarded:
    """Mixed into aiosmtpd's SMTP and LMTP (see the module's docstring)."""

    def __init__(self, handler: Any, *, gate: ConnectionGate, data_size_limit: int | None, **kwargs: Any):
        # SMTP.__init__ sizes its stream reader from this attribute.
        self.line_length_limit = max(SMTP.line_length_limit, (data_size_limit or 0) + 3)
        self._gate = gate
        self._counted = False
        self._refused = False
        super().__init__(handler, data_size_limit=data_size_limit, **kwargs)  # type: ignore[call-arg]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self._counted:
            if self._gate.open >= self._gate.limit:
                self._refused = True
                log.warning("refused a connection from %s: %d open already",
                            transport.get_extra_info("peername"), self._gate.open)
                transport.write(TOO_MANY)  # type: ignore[attr-defined]
                transport.close()
                return
            self._gate.open += 1
            self._counted = True
        super().connection_made(transport)  # type: ignore[misc]

    def connection_lost(self, error: Exception | None) -> None:
        if self._refused:
            return
        if self._counted:
            self._gate.open -= 1
            self._counted = False
        super().connection_lost(error)  # type: ignore[misc]

    def eof_received(self) -> bool | None:
        if self._refused:
            return False
        return super().eof_received()  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if not self._refused:
            super().data_received(data)  # type: ignore[misc]


class GuardedSMTP(_Guarded, SMTP):
    """aiosmtpd's SMTP with a connection cap and lines as long as a message."""


class GuardedLMTP(_Guarded, LMTP):
    """aiosmtpd's LMTP with a connection cap and lines as long as a message."""


__all__ = ["TOO_MANY", "ConnectionGate", "GuardedLMTP", "GuardedSMTP"]
