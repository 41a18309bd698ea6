"""The games gm hosts, each in its own package beside the kernel.

Importing this package adds them to the kernel's registry
(`gm.kernel.protocol.REGISTRY`) by name: a game's package is imported only
when a game of it is played.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from ..kernel.protocol import REGISTRY, GameRules


def _loader(module: str, cls: str) -> GameRules[Any]:
    rules: GameRules[Any] = getattr(import_module(module), cls)()
    return rules


REGISTRY.add("spaceships", lambda: _loader("gm.games.spaceships.mail", "Spaceships"))
REGISTRY.add("gridfighters", lambda: _loader("gm.games.gridfighters.mail", "GridFighters"))
REGISTRY.add("celestial-empire", lambda: _loader("gm.games.celestial_empire.mail", "CelestialEmpire"))
