"""What every gm process that serves until it is told to stop shares: the
signals that stop it, and the one-line error for an operator when it cannot
start. The daemon (`gm.daemon`) and the web archive served alone
(`gm.web.site`) both use them, so they live below both."""

from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
"""Each stops a serving gm cleanly (``stopped signal=SIGTERM`` in the log)."""


class StartError(RuntimeError):
    """The process cannot start (a port in use, an unusable data directory or
    IMAP URL); the message is one line for the operator."""


EXIT_COMMIT = 3
"""The exit status of a daemon that stopped because a batch could not be
made durable (an I/O error): restarting it recovers from the disk."""
EXIT_MASTER = 4
"""The exit status of a daemon whose master task died (the games could not
be loaded, or a fault outside the handling of one pass): without it no mail
would be handled while the listeners still answered 250, so the daemon
stops, and its service manager starts it again from the disk."""
