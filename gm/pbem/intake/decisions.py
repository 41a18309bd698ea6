"""What handling a spooled message can end in, as the master's screening
rules decide it (`gm.pbem.master.screening`): a rule lets the message through to the
next, or decides, and the master records each decision with the rule's name.

A message is *handled* (applied to a game, or answered), *dropped* (there is
nothing to do: it was handled before a crash, or is a copy of one applied),
or *shunted*: kept in the shunt with the reason, never lost, for the operator.
"""

from __future__ import annotations

from dataclasses import dataclass

HANDLED, DROPPED, SHUNTED = "handled", "dropped", "shunted"


@dataclass(frozen=True)
class Decision:
    """What a rule decided about a message, and why."""

    outcome: str
    """`HANDLED`, `DROPPED` or `SHUNTED`."""
    reason: str = ""


def handled(reason: str = "") -> Decision:
    return Decision(HANDLED, reason)


def dropped(reason: str) -> Decision:
    return Decision(DROPPED, reason)


def shunted(reason: str) -> Decision:
    return Decision(SHUNTED, reason)


class Shunted(Exception):
    """Ends a message's handling: it goes to the shunt with this reason.
    Raised where a decision is made deep in an answer (`gm.pbem.answers.outside`,
    `gm.pbem.answers.owner`, `gm.pbem.answers.moving`); ``rule`` names the screening rule
    that was deciding, once the master knows it."""

    def __init__(self, reason: str, rule: str | None = None):
        super().__init__(reason)
        self.rule = rule
