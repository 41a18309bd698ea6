"""The SMTP and LMTP protocols the daemon listens with: aiosmtpd's, guarded.

Three changes to aiosmtpd's `SMTP` and `LMTP`, and a shortcut:

* **Caps on concurrent connections**, shared by every listener of one
  daemon (`ConnectionGate`): at most ``Config.max_connections`` in all, and at most
  `PER_CLIENT` from one client (one IPv4 address, or one IPv6 /64, which a
  single host may hold whole), so that one client holding idle sessions
  cannot lock the others out. A connection past either cap is answered
  ``421 4.7.0 Too many connections[ from your address], try again later``
  and closed at once (RFC 5321 4.3.2: 421 is a temporary refusal, so the
  sender tries again). The refusals are logged, at most one line a minute
  (a flood would otherwise fill the log).
* **An idle timeout** of `IDLE_SECONDS`: a session that sends no command
  for that long is closed (aiosmtpd's ``timeout``, set here so it is gm's).
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
* **Plain envelope addresses read at once** (`plain_address`): aiosmtpd
  reads the address of every MAIL FROM and RCPT TO with the email
  package's RFC 5322 parser, and defines a class for it on every call,
  which cost about a tenth of the daemon's CPU time per order mail
  (bench/README, "the front's CPU per order mail"). An address that is
  plainly ``<local@domain>``, both of them dot-atoms of ASCII atext, is
  read by a regular expression into exactly what that parser returns;
  anything else still goes through aiosmtpd's own reading.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from typing import Any

from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from ...logs import Throttled

TOO_MANY = b"421 4.7.0 Too many connections, try again later\r\n"
TOO_MANY_FROM_YOU = b"421 4.7.0 Too many connections from your address, try again later\r\n"
PER_CLIENT = 20
"""SMTP and LMTP connections open at once from one client. An MTA in front
of gm opens several: Postfix at most 20 to one destination by default
(``default_destination_concurrency_limit``)."""
IDLE_SECONDS = 300.0
"""A session that sends no command for this long is closed: the five
minutes RFC 5321 4.5.3.2.7 asks a server to wait for the next command."""


def client_of(peer: Any) -> str:
    """Whom a connection from ``peer`` (a socket's peer name) counts
    against: its IPv4 address (also when mapped into IPv6), or its IPv6
    /64 network."""
    host = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class ConnectionGate:
    """How many connections are open across a daemon's listeners, in all and
    from each client (`client_of`), and the caps on both."""

    def __init__(self, limit: int, per_client: int = PER_CLIENT):
        self.limit = limit
        self.per_client = per_client
        self.open = 0
        self.by_client: dict[str, int] = {}
        self._refusals = Throttled()

    def admit(self, client: str, proto: str) -> bytes | None:
        """Count a new connection from ``client``, or refuse it: None, or
        the 421 line to send before closing it."""
        if self.open >= self.limit:
            self._refusals.log("connection refused", proto=proto, client=client, cap="all", limit=self.limit)
            return TOO_MANY
        if self.by_client.get(client, 0) >= self.per_client:
            self._refusals.log("connection refused", proto=proto, client=client, cap="client",
                               limit=self.per_client)
            return TOO_MANY_FROM_YOU
        self.open += 1
        self.by_client[client] = self.by_client.get(client, 0) + 1
        return None

    def leave(self, client: str) -> None:
        """A connection `admit` counted has closed."""
        self.open -= 1
        left = self.by_client.pop(client) - 1
        if left:
            self.by_client[client] = left


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN = re.compile(rf"<({_ATEXT}(?:\.{_ATEXT})*)@({_ATEXT}(?:\.{_ATEXT})*)>")
"""An angle address of ASCII dot-atoms (RFC 5322 3.2.3 and 3.4.1), no
comment, quoting, route or literal: what mail software writes."""


def plain_address(arg: str) -> tuple[str, str, str] | None:
    """Local part, domain and the rest of a MAIL FROM or RCPT TO argument
    that is a plain angle address (`_PLAIN`), as aiosmtpd's ``_getaddr``
    (the email package's ``get_angle_addr``) reads them, or None for
    anything else: the whitespace after ``>`` is skipped as that parser
    skips it (everything ``str.lstrip`` strips), and a comment after it is
    left to that parser."""
    found = _PLAIN.match(arg)
    if found is None:
        return None
    rest = arg[found.end():]
    if rest[:1] in (" ", "\t"):
        rest = rest.lstrip()
    if rest[:1] == "(":
        return None
    return found[1], found[2], rest


class _Guarded:
    """Mixed into aiosmtpd's SMTP and LMTP (see the module's docstring)."""

    def __init__(self, handler: Any, *, gate: ConnectionGate, data_size_limit: int | None, **kwargs: Any):
        # SMTP.__init__ sizes its stream reader from this attribute.
        self.line_length_limit = max(SMTP.line_length_limit, (data_size_limit or 0) + 3)
        self._gate = gate
        self._client = ""
        self._counted = False
        self._refused = False
        kwargs.setdefault("timeout", IDLE_SECONDS)
        super().__init__(handler, data_size_limit=data_size_limit, **kwargs)  # type: ignore[call-arg]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self._counted:  # else STARTTLS made a new transport for this connection
            self._client = client_of(transport.get_extra_info("peername"))
            refusal = self._gate.admit(self._client, "lmtp" if isinstance(self, LMTP) else "smtp")
            if refusal is not None:
                self._refused = True
                transport.write(refusal)  # type: ignore[attr-defined]
                transport.close()
                return
            self._counted = True
        super().connection_made(transport)  # type: ignore[misc]

    def connection_lost(self, error: Exception | None) -> None:
        if self._refused:
            return
        if self._counted:
            self._gate.leave(self._client)
            self._counted = False
        super().connection_lost(error)  # type: ignore[misc]

    def eof_received(self) -> bool | None:
        if self._refused:
            return False
        return super().eof_received()  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if not self._refused:
            super().data_received(data)  # type: ignore[misc]

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        """aiosmtpd's reading of an envelope address, at once for a plain one (`plain_address`)."""
        plain = plain_address(arg)
        if plain is None:
            return super()._getaddr(arg)  # type: ignore[misc]
        local, domain, rest = plain
        limit = self.local_part_limit  # type: ignore[attr-defined]
        if limit and len(local) > limit:
            return None, None
        return f"{local}@{domain}", rest


class GuardedSMTP(_Guarded, SMTP):
    """aiosmtpd's SMTP with connection caps, gm's idle timeout and lines as long as a message."""


class GuardedLMTP(_Guarded, LMTP):
    """aiosmtpd's LMTP with connection caps, gm's idle timeout and lines as long as a message."""


__all__ = [
    "IDLE_SECONDS",
    "PER_CLIENT",
    "TOO_MANY",
    "TOO_MANY_FROM_YOU",
    "ConnectionGate",
    "GuardedLMTP",
    "GuardedSMTP",
    "client_of",
    "plain_address",
]
