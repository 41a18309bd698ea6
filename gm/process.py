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
