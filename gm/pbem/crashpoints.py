"""Named points where the crash tests kill the daemon (and nothing else does).

``GM_CRASH_AT=NAME:N`` in the environment makes the process kill itself with
SIGKILL the N-th time it passes the point called NAME. Without the variable
a crash point costs one dictionary look-up. The points mark the steps whose
redo after a crash must neither lose nor repeat anything:

    after-spool    a message is in the spool, 250 not yet sent
    mid-handle     handling a spooled message has begun (as an out-of-memory
                   kill in the middle of reading a hostile mail would stop it)
    after-archive  a message is archived in its game, not yet applied
    after-apply    the GM's replies are archived, not yet queued
    after-queue    the replies are queued, the message not yet marked handled
    mid-delivery   a message is delivered, not yet marked sent
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_SPEC = os.environ.get("GM_CRASH_AT", "")
_passes: Counter[str] = Counter()


def crashpoint(name: str) -> None:
    if not _SPEC:
        return
    wanted, _, count = _SPEC.partition(":")
    if name != wanted:
        return
    _passes[name] += 1
    if _passes[name] == int(count or 1):
        os.kill(os.getpid(), signal.SIGKILL)
