"""Named points where the crash tests kill the daemon (and nothing else does).

``GM_CRASH_AT=NAME:N`` in the environment makes the process kill itself with
SIGKILL the N-th time it passes the point called NAME (``NAME:N,OTHER:M``:
at whichever comes first). Without the variable
a crash point costs one dictionary look-up. The points mark the steps whose
redo after a crash must neither lose nor repeat anything:

    spool-synced        a group of messages received together is written
                        and durable in spool/tmp/, none in spool/new/ yet
    mid-spool-commit    one more message of that group renamed into
                        spool/new/ (the others not yet, none durably so)
    after-spool         a message is in the spool, 250 not yet sent
    mid-handle          handling a spooled message has begun (as an
                        out-of-memory kill in the middle of reading a
                        hostile mail would stop it)
    after-count         a message's handling counted it against a daily
                        allowance (`gm.pbem.intake.limits`), which every
                        master shares; the rest of its handling not done
    after-archive       a message is archived in its game, not yet applied
    after-apply         the GM's replies are archived, not yet queued
    after-queue         the replies are queued, the message not yet marked
                        handled
    between-messages    a message of the master's batch is handled, the
                        next not begun, nothing of the batch published
    batch-synced        the batch's files and manifest (DATA/commit) are
                        durable, none renamed into place
    mid-batch-commit    one more of the batch's files renamed into place
    after-batch-commit  the batch is durable, its messages still spooled
    delivery-synced     a pass's local deliveries are durable in
                        delivered/tmp/, none in delivered/new/
    mid-delivery-commit one more of them renamed into delivered/new/
    mid-delivery        a message is delivered, not yet marked sent
    mid-sent            one more delivered message marked sent (its outbox
                        file renamed into sent/), the others not yet
    mid-fill            a filling seek's game is requested, its players
                        not yet told nor the seek marked begun
    background-loaded   a game left pending by an upgrade is loaded in the
                        daemon's idle time (`gm.pbem.master.keeping`), its
                        snapshot not yet written anew
    background-saved    its snapshot is written anew, under this gm's
                        schema numbers
    index-saved         the start-up index (`gm.pbem.state.index`) is
                        written anew: in the daemon's first idle moment
                        after its start (at the end of start-up where
                        nothing serves), now and then while serving, and
                        when the daemon stops
    master-loaded       a master process (`gm.masters`) loaded its games,
                        nothing handled yet
    master-told         a master process's pass ended (its batches durable)
                        and it told the daemon to look at the outbox
    master-restarting   the daemon saw a master process die, completed its
                        batch, and has not started it again

With several master processes, ``GM_CRASH_MASTER=K`` gives the crash point
to master K alone (each master counts its own passes); without it every
master and the daemon have it. A master started again after a crash never
has it.

In the master's batch, after-archive, after-apply and after-queue are
passed while the batch is staged: nothing of it is on disk but staged
files, and the whole batch is handled again after the restart.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_SPEC = os.environ.get("GM_CRASH_AT", "")
CRASH_MASTER = "GM_CRASH_MASTER"
"""The environment variable that names the one master process to crash."""
_passes: Counter[str] = Counter()
_WANTED = {name: int(count or 1) for name, _, count in (part.partition(":") for part in _SPEC.split(",") if part)}
"""Each point named and the pass that kills (``NAME:N``, several joined by commas)."""


def crashpoint(name: str) -> None:
    if not _SPEC:
        return
    wanted = _WANTED.get(name)
    if wanted is None:
        return
    _passes[name] += 1
    if _passes[name] == wanted:
        os.kill(os.getpid(), signal.SIGKILL)
