"""The master processes are woken once per group of mail spooled together
(`gm.daemon.Daemon.wake`), not once per mail: every DATA handler of one
spool commit resumes in the same turn of the loop and calls ``wake``."""

import asyncio

from gm.config import Config
from gm.daemon import Daemon
from gm.masters import WAKE


def test_handlers_resumed_together_wake_each_master_once(tmp_path):
    async def run() -> list[bytes]:
        daemon = Daemon(Config(data=str(tmp_path / "data"), smtp=("127.0.0.1", 0), masters=2))
        assert daemon.masters is not None
        daemon._loop = asyncio.get_running_loop()  # as `Daemon.start` sets it
        # Real processes in the masters' place, echoing what they are told.
        for index in range(2):
            daemon.masters.processes[index] = await asyncio.create_subprocess_exec(
                "cat", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        for _ in range(20):  # twenty handlers of one commit, resumed in one turn
            daemon.wake()
        for _ in range(3):
            await asyncio.sleep(0)
        for _ in range(5):  # a later group, once more
            daemon.wake()
        await asyncio.sleep(0.05)
        told = []
        for process in daemon.masters.processes.values():
            assert process.stdin is not None
            process.stdin.close()
            output, _ = await asyncio.wait_for(process.communicate(), 10.0)
            told.append(output)
        return told

    assert asyncio.run(run()) == [WAKE * 2, WAKE * 2]
