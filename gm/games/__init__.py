"""The games gm hosts, each in its own package beside the kernel.

Importing this package adds them to the kernel's registry
(`gm.kernel.protocol.REGISTRY`) by name: a game's package is imported only
when a game of it is played.
"""

from __future__ import annotations

from functools import partial
from importlib import import_module
from typing import Any

from ..kernel.protocol import REGISTRY, GameRules

GAMES = {
    "spaceships": ("gm.games.spaceships.mail", "Spaceships"),
    "gridfighters": ("gm.games.gridfighters.mail", "GridFighters"),
    "celestial-empire": ("gm.games.celestial_empire.mail", "CelestialEmpire"),
}
"""Each game gm ships, and where its `GameRules` class lives."""


def _loader(module: str, cls: str) -> GameRules[Any]:
    rules: GameRules[Any] = getattr(import_module(module), cls)()
    return rules


for _name, (_module, _cls) in GAMES.items():
    REGISTRY.add(_name, partial(_loader, _module, _cls))
