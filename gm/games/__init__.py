"""The games gm hosts, each in its own package beside the kernel.

`game_named` is the registry the kernel looks games up in; a game's package
is imported only when a game of it is played.
"""

from __future__ import annotations

from importlib import import_module

from ..kernel.protocol import GameRules

GAMES = {
    "spaceships": ("gm.games.spaceships.mail", "Spaceships"),
    "gridfighters": ("gm.games.gridfighters.mail", "GridFighters"),
    "celestial-empire": ("gm.games.celestial_empire.mail", "CelestialEmpire"),
}
"""Each game's name, and where its `GameRules` class lives."""

_made: dict[str, GameRules] = {}


def register(rules: GameRules) -> None:
    """Host one more game, in this process: a game written outside gm's own
    tree, or the kernel tests' small game. Its archives replay only where it
    is registered."""
    if not rules.name or rules.name != rules.name.lower():
        raise ValueError(f"a game's name is lower case and not empty: {rules.name!r}")
    _made[rules.name] = rules


def game_named(name: str) -> GameRules:
    """The game called ``name`` (case does not matter); ValueError naming the
    games there are for any other."""
    key = name.strip().lower()
    if key in _made:
        return _made[key]
    if key not in GAMES:
        raise ValueError(f"no game {name!r}: gm hosts {', '.join(sorted(GAMES))}")
    if key not in _made:
        module, cls = GAMES[key]
        _made[key] = getattr(import_module(module), cls)()
    return _made[key]
