"""Celestial Empire games played by the GM's robot, for its tests and its
benchmark (tests/test_celestial_robot.py, bench/celestial_robot.py).

`play` runs a game on the rules core directly: each turn every empire's
robot writes its mail from its own sheet (`robot.robot_mail`), the mail is
read with the game's parser (`notation.parse_orders`), the turn runs, and
the variant says when the game is over. An empire given the level
``"fuzz"`` sends the fuzz test's random but plausible mail instead
(tests/celestial_fuzz.py `mail_for`). What the robots' orders did is
counted from the command history: lines the parser refused, and orders
read but not carried out, by reason.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

from celestial_fuzz import NAMES, mail_for
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.report import Report
from gm.games.celestial_empire.research import research_lines
from gm.games.celestial_empire.robot import robot_mail
from gm.games.celestial_empire.state import GameState, new_game
from gm.games.celestial_empire.turn import run_turn
from gm.games.celestial_empire.variants import variant_named
from gm.games.celestial_empire.winning import amount

FUZZ = "fuzz"


@dataclass
class Played:
    """A finished (or stopped) game and what its robots did."""

    state: GameState
    levels: tuple[str, ...]
    turns: int
    winners: list[int]
    reason: str
    rejected: int = 0
    """Robot order lines the parser could not read."""
    orders: int = 0
    """Robot orders read (standing orders run on their behalf included)."""
    not_done: Counter[str] = field(default_factory=Counter)
    """Robot orders read but not carried out at all, by reason."""
    mails: list[tuple[int, int, str]] = field(default_factory=list)
    """(turn, empire, text) of every robot mail, when asked to keep them."""
    seconds: list[float] = field(default_factory=list)
    """The time each robot mail took to write, sheet included."""

    def rank(self, empire: int) -> int:
        """The empire's finishing place (1 best): winners first, then by score."""
        if empire in self.winners:
            return 1
        score = self.state.empires[empire].score
        ahead = {e for e in self.state.empires if e in self.winners or self.state.empires[e].score > score}
        return len(ahead) + 1


def play(seed: int, levels: tuple[str, ...], variant: str = "standard+turns=100", turns: int = 100,
         keep: bool = False) -> Played:
    """A game of ``len(levels)`` empires, empire n played at ``levels[n-1]``, until the variant ends it or
    ``turns`` turns have run."""
    conditions = variant_named(variant)
    state = new_game(generate(seed, len(levels)), list(NAMES[:len(levels)]))
    state.voting = False
    report: Report | None = None
    played = Played(state, levels, 0, [], "stopped")
    fuzz = random.Random(seed)
    for turn in range(1, turns + 1):
        orders, research = {}, {}
        for empire in sorted(state.empires):
            level = levels[empire - 1]
            start = time.perf_counter()
            if level == FUZZ:
                text = mail_for(state, empire, fuzz)
            else:
                text = robot_mail(state, report, empire, conditions.conditions, level,
                                  random.Random(f"{seed}.{turn}.{empire}"))
                played.seconds.append(time.perf_counter() - start)
                if keep:
                    played.mails.append((turn, empire, text))
            lines = parse_orders(text)
            orders[empire] = [line.order for line in lines if line.order is not None]
            research[empire] = research_lines(lines)
            if level != FUZZ:
                played.rejected += sum(1 for line in lines if line.error is not None)
        state, report = run_turn(state, orders, research)
        played.state, played.turns = state, turn
        for empire, entries in report.history.items():
            if levels[empire - 1] == FUZZ:
                continue
            played.orders += len(entries)
            played.not_done.update(entry.why.split(":")[0] for entry in entries if not entry.done)
        result = conditions.result(state, report)
        if result is not None:
            played.reason, played.winners = result
            break
    if not played.winners:
        best = max(amount(state, conditions.conditions.resource, e) for e in state.empires)
        played.winners = [e for e in state.empires if amount(state, conditions.conditions.resource, e) == best]
    return played
