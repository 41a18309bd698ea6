"""The games a process hosts, by name: filled by `gm.games`, read by the kernel.

The kernel never imports a game: the edge imports `gm.games`, which adds
each game it ships here by name with a loader, so that a game's package is
imported only when a game of it is played. A game written outside gm's own
tree (or the kernel tests' small game) is `register`-ed whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar


class Named(Protocol):
    """What the registry needs of a game: its name."""

    @property
    def name(self) -> str: ...


G = TypeVar("G", bound=Named)


class Registry(Generic[G]):
    """Games by lower-case name, each made once, when first asked for."""

    def __init__(self) -> None:
        self._loaders: dict[str, Callable[[], G]] = {}
        self._made: dict[str, G] = {}

    def add(self, name: str, loader: Callable[[], G]) -> None:
        """Host the game called ``name``, made by ``loader`` when first asked for."""
        self._loaders[_checked(name)] = loader

    def register(self, rules: G) -> None:
        """Host one more game, made already, in this process: its archives
        replay only where it is registered."""
        self._made[_checked(rules.name)] = rules

    def names(self) -> list[str]:
        """Every game hosted, in order of name."""
        return sorted(set(self._loaders) | set(self._made))

    def named(self, name: str) -> G:
        """The game called ``name`` (case does not matter); ValueError naming the
        games there are for any other."""
        key = name.strip().lower()
        if key not in self._made:
            if key not in self._loaders:
                raise ValueError(f"no game {name!r}: gm hosts {', '.join(self.names())}")
            self._made[key] = self._loaders[key]()
        return self._made[key]


def _checked(name: str) -> str:
    if not name or name != name.lower():
        raise ValueError(f"a game's name is lower case and not empty: {name!r}")
    return name
