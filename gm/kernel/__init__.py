"""The kernel: everything about running a game by mail that knows no game.

A game plugs in behind `gm.kernel.protocol.GameRules`; the kernel finds it by
name in `gm.kernel.protocol.REGISTRY`, which `gm.games` fills.
"""
