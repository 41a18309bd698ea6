"""The GM's robot at the table: when a game waits for a seat the robot
holds, its setup, orders or move are spooled as an event of the GM's own.

The robot's text is chosen by the game (`GameRules.robot_text`) from the
seat's view alone, with a `random.Random` seeded by the game's recorded
seed, the number of the game's last event and the seat, so the same game
makes the same choices. The event is archived like any other, and applied
as that seat's mail (`gm.pbem.archive.replay.to_event`): ``gm replay`` reads the
robot's orders from the archive and never runs the robot.

    kind     body
    robot    player: N, level: LEVEL, a blank line, then the text

A seat is the robot's own (`Seat.robot`, made so) or a person's it stands in
for (`MailGame.stand_ins`, `gm.kernel.takeover`); a game may have several.
An event is spooled under the moment of the game's last event and a name
made of the game, that event's number and the seat, so a redo after a
crash spools the same key once, and a seat whose event is still spooled is
not asked again. A robot event that another event overtook (in simultaneous
play: another than the robots' of the same turn) is dropped unapplied, and
the robot asked again from the game as it now stands. A robot whose own
event left the game still waiting for it at the same turn (its text was
not accepted: a bug) is not asked again until
something else happens; one whose move the game answers with another
move of its own (Grid Fighters' ruling 11) is.
"""

from __future__ import annotations

import logging
from random import Random

from ...kernel.model import MailGame
from ...kernel.protocol import TurnPolicy
from ...kernel.values import ENDED
from ...logs import event as log_event
from ..archive.events import ROBOT as KIND
from ..archive.events import event_message
from ..archive.replay import spool_key_of
from ..data.store import Store, origin_of, spool_key, time_of
from ..state.resident import Games, Live
from ..writing.mailer import Identity

log = logging.getLogger("gm")


class RobotSeats:
    """The robot's part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    games: Games
    handled_keys: set[str]
    _robot_games: set[str]
    """Games with a robot seat that may wait for it: all of them at start-up,
    then each game an event was applied to."""

    def robots_due(self) -> int:
        """Spool the event of each robot seat a game waits for; how many. A
        seat whose event is still spooled is not asked again."""
        count = 0
        pending = {_seat_of(key) for key in self.store.spool.keys() if origin_of(key) == KIND}
        for game_id in sorted(self._robot_games):
            if game_id in self.games.pending:
                continue  # loaded first of the pending games, in the background (`Keeping.prepare`)
            summary = self.games.summaries.get(game_id)
            due = [] if summary is None or summary.phase == ENDED else [
                p for p in summary.waiting_for if summary.robot_plays(p)]
            waiting = [p for p in due if (game_id, p) in pending]
            if len(waiting) < len(due):
                live = self.games.live(game_id)
                count += sum(self._spool_robot(live, player) for player in due if player not in waiting)
            if not waiting:  # a spooled event may be one applied before a crash: the seat is asked once it is gone
                self._robot_games.discard(game_id)  # only once done: a fault leaves it to the next pass
        return count

    def robot_stale(self, key: str, game_id: str, player: int) -> bool:
        """Whether a spooled robot event no longer fits its game, and is
        dropped unapplied: another event came first (the robot chose from a
        view that is out of date, and is asked again from the new one), or
        the game no longer waits for the robot at that seat. In simultaneous
        play the robots of several seats choose from the same view: the
        events of the others, spooled after the same event, do not make it
        out of date while the turn stays the same."""
        live = self.games.live(game_id)
        game = live.game
        after = _after(key)
        if player in game.waiting_for and game.robot_level(player) is not None and (
                after == live.number or _together(live, after)):
            return False
        log_event("robot event dropped", game=game_id, key=key,
                  reason=("another event came first" if after != live.number
                          else "the game no longer waits for the robot at that seat"))
        self._robot_games.add(game_id)
        return True

    def _spool_robot(self, live: Live, player: int) -> int:
        game: MailGame = live.game
        level = game.robot_level(player)
        assert level is not None
        last = spool_key_of(live.last_in)
        name = f"{KIND}-{game.id}-{live.number}-{player}"
        number = game.events
        if (origin_of(last) == KIND and last.endswith(f"-{player}")
                and game.turn_of_event.get(number) == game.turn_of_event.get(number - 1)):
            log_event("robot still awaited", logging.ERROR, game=game.id, player=player,
                      reason="its last orders left the game waiting for it; it is asked again after the next event")
            return 0
        key = spool_key(time_of(last), KIND, name)
        if key in self.handled_keys:
            return 0
        try:
            text = game.rules.robot_text(game, player, level, Random(f"{game.robot_seed}.{live.number}.{player}"))
        except Exception:  # the robot's bug must not stop the mail: the game waits, as for a silent player
            log.exception("the robot of %s, player %d, failed", game.id, player)
            return 0
        if text is None:
            return 0
        body = [f"player: {player}", f"level: {level}", "", *text.splitlines()]
        self.store.spool.add(event_message(self.identity, KIND, time_of(last), f"<{name}@{self.identity.domain}>",
                                           game.id, body), key)
        log_event("robot moved", game=game.id, player=player, robot=level)
        return 1



def _after(key: str) -> int:
    """The number of the event a robot event's choice was made after (its
    key's name: robot-GAME-NUMBER-PLAYER)."""
    return int(key.split(".", 2)[2].split("-")[2])


def _seat_of(key: str) -> tuple[str, int]:
    """The game and seat a spooled robot event is for."""
    _, game_id, _, player = key.split(".", 2)[2].split("-")
    return game_id, int(player)


def _together(live: Live, after: int) -> bool:
    """Whether every event since event ``after`` is a robot's chosen after
    it, in the same turn of simultaneous play: by induction, when the last
    one applied is."""
    game = live.game
    last = spool_key_of(live.last_in)
    return (game.rules.policy is TurnPolicy.SIMULTANEOUS and origin_of(last) == KIND and _after(last) == after
            and game.turn_of_event.get(after) == game.turn)
