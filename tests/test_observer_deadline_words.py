"""An observer's note words a deadline of part of an hour in minutes
(issue 22, a small one: "Each turn may take up to 0.05 hours"); whole
hours are worded as they always were, so old archives replay byte for byte."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gm.kernel.values import Options
from gm.pbem.operator.admin import request_game
from gmtest import ALICE, BOB, Player, World, run, text

CAROL = "carol@example.com"


@pytest.mark.parametrize("deadline, said", [
    (timedelta(minutes=3), "Each turn may take up to 3 minutes."),
    (timedelta(hours=1), "Each turn may take up to 1 hour."),
    (timedelta(hours=72), "Each turn may take up to 72 hours."),
])
def test_the_observers_note_words_the_deadline(tmp_path, deadline, said):
    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1",
                         Options(deadline=deadline), world.clock(), observers=[CAROL])
            await world.settle()
            (note,) = Player(CAROL, world).inbox()
            assert said in text(note)
    run(scenario())
