"""A player's deputy: someone they trust to play their seats while they
cannot (issue 24).

The player names the deputy at the GM's own address (``deputy ADDRESS``),
confirmed from the player's mailbox and agreed from the deputy's
(`gm.pbem.answers.deputies`); each game then holds it in the player's
settings (`PlayerSettings.deputy`, by a `SettingsChanged` event), so a
replay knows it. In a game the deputy is sent a copy of everything the
player is sent, with a reply address and secret of their own, and their
mail counts as the player's (`PlayerMail.deputy`), but for what only the
player may decide: resigning, a draw, and moving the seat (`REFUSED`). The
other players are never told.
"""

from __future__ import annotations

from .model import MailGame
from .values import TIME_EDITION

REFUSED = {
    "resign": "a deputy cannot resign the game for the player; only the player can",
    "draw": "a deputy cannot offer or accept a draw for the player; only the player can",
    "address": "a deputy cannot move the player's seat to another address; only the player can",
}
"""What a deputy's mail may not do, and the answer it gets instead."""


def deputy_of(game: MailGame, player: int) -> str | None:
    """The address of the player's deputy in this game, if they have one
    here: not in games made before `TIME_EDITION` (whose mail stays as it
    was), nor where the deputy's address has a seat of its own or watches
    the game (a player would see both sides)."""
    if game.edition < TIME_EDITION or game.seat(player).robot:
        return None
    deputy = game.settings_of(player).deputy
    if deputy is None or refusal(game, deputy) is not None:
        return None
    return deputy


def refusal(game: MailGame, deputy: str) -> str | None:
    """Why ``deputy`` cannot be anyone's deputy in this game (None when they can)."""
    if game.edition < TIME_EDITION:
        return f"game {game.id} was made before deputies were known"
    if game.seat_of(deputy) is not None:
        return f"{deputy} plays in game {game.id} already"
    if deputy.lower() in (observer.lower() for observer in game.observers):
        return f"{deputy} watches game {game.id}"
    return None
