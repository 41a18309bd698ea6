"""Mail shunted through gm's own fault (`gm.pbem.master.faults`) is handled again once
that fault can be gone: when its game loads cleanly, or when other code
runs; never in a loop while the fault stays."""

from __future__ import annotations

import logging

from gm.kernel import engine
from gm.pbem.archive.replay import prepend_header
from gm.pbem.data.store import spool_key
from gm.pbem.master import faults
from gm.pbem.state import loading
from gmtest import World, run, started_game, text


def _pending(world: World) -> list[str]:
    return [str(o) for o in world.daemon.master.games["g1"].play.pending.get(1, [])]


def _reasons(world: World) -> list[str]:
    store = world.daemon.store
    return [store.shunt.get_bytes(k).split(b"\r\n")[0].decode() for k in store.shunt.keys()]


def test_mail_an_earlier_gm_failed_on_is_tried_again_when_gm_starts(tmp_path):
    """As an earlier gm left it after a snapshot whose body's length was
    damaged: the mail shunted 'gm failed on this mail: MemoryError'."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            reply = world.alice.latest()
            to = str(reply["Reply-To"])
            mail = (f"From: {world.alice.address}\r\nTo: {to}\r\nSubject: Re: {reply['Subject']}\r\n"
                    f"Message-ID: <lost@example.org>\r\n\r\nRv1\r\n").encode()
            spooled = prepend_header(prepend_header(mail, "X-GM-Envelope-To", f"<{to.lower()}>"),
                                     "Return-Path", f"<{world.alice.address}>")
            key = spool_key(world.clock(), "smtp")
            world.daemon.store.shunt_message(spooled, key, "gm failed on this mail: MemoryError: ")
        async with World(tmp_path) as world:
            await world.settle()
            assert world.daemon.store.shunt.keys() == []
            assert _pending(world) == ["Rv1"]
            assert "Rv1" in text(world.alice.latest())

    run(scenario())


def test_mail_to_a_game_that_did_not_load_waits_until_it_loads_cleanly(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="gm")
    real_load = loading.load

    def out_of_memory(store, identity, game_id, keys=None):
        raise MemoryError()

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
        with monkeypatch.context() as patch:
            patch.setattr(loading, "load", out_of_memory)
            async with World(tmp_path) as world:  # g1 known by its snapshot's head, not loaded
                await world.act(world.alice.reply, "Rv1")
                (reason,) = _reasons(world)
                assert reason.startswith("X-GM-Shunt-Reason: gm could not load g1: MemoryError")
                assert f"[gm's own fault: g1 did not load; code {faults.code()}]" in reason
                shunted = world.daemon.store.shunt.keys()
            for _ in range(2):  # the fault stays: the mail stays, untouched, however often gm starts
                async with World(tmp_path) as world:
                    await world.settle()
                    assert world.daemon.store.shunt.keys() == shunted and world.daemon.store.spool.keys() == []
        assert loading.load is real_load
        async with World(tmp_path) as world:  # the fault is gone
            await world.settle()
            assert world.daemon.store.shunt.keys() == []
            assert _pending(world) == ["Rv1"]
        assert sum("mail retried" in r.getMessage() for r in caplog.records) == 1

    run(scenario())


def test_mail_gm_failed_on_is_tried_again_by_other_code_only(tmp_path, monkeypatch):
    real_apply = engine.apply

    def apply(game, event):
        if "BOOM" in getattr(event, "text", ""):
            raise RuntimeError("a bug")
        return real_apply(game, event)

    async def scenario():
        with monkeypatch.context() as patch:
            patch.setattr(engine, "apply", apply)
            async with World(tmp_path) as world:
                await started_game(world)
                await world.act(world.alice.reply, "BOOM Rv1")
                (reason,) = _reasons(world)
                assert reason.endswith(f"RuntimeError: a bug [gm's own fault: code {faults.code()}]")
                shunted = world.daemon.store.shunt.keys()
            async with World(tmp_path) as world:  # the same code: the same bug, not tried again
                await world.settle()
                assert world.daemon.store.shunt.keys() == shunted
            patch.setattr(faults, "code", lambda: "0ther0c0de000")
            async with World(tmp_path) as world:  # other code, with the bug still in: shunted once more, marked so
                await world.settle()
                (reason,) = _reasons(world)
                assert reason.endswith("RuntimeError: a bug [gm's own fault: code 0ther0c0de000]")
            async with World(tmp_path) as world:
                await world.settle()
                assert len(world.daemon.store.shunt.keys()) == 1
        async with World(tmp_path) as world:  # the code that failed is gone, and the bug with it
            await world.settle()
            assert world.daemon.store.shunt.keys() == []
            archive = world.daemon.store.archive("g1")
            assert sum(b"BOOM Rv1" in archive.get_bytes(k) for k in archive.keys() if ".in." in k) == 1

    run(scenario())
