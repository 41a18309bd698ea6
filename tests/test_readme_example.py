"""The README's own example, played as it says, against the real daemon.

"Then try your own game: `scripts/serve new --player you@localhost --player
friend@localhost`, read the invitation in gm-data/delivered/, and answer it
(any SMTP client on 127.0.0.1:2525 will do)." So: `gm serve` on its defaults
(the GM is gm@localhost; only the port and the data folder are the test's
own), `gm new` with those two players, and you@localhost answers the
invitation over SMTP. An address whose domain has no dot is a real address
on a local system, and gm must answer it as any other."""

from __future__ import annotations

from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import SETUP_ALICE
from test_deadline_real_clock import reply

YOU, FRIEND = "you@localhost", "friend@localhost"


def _shunted(data) -> list[str]:
    shunt = data / "shunt"
    return [p.read_bytes().decode(errors="replace")[:300] for sub in ("new", "cur") if (shunt / sub).is_dir()
            for p in (shunt / sub).iterdir()]


def test_the_readme_example_is_answered(tmp_path):
    data, port = tmp_path / "gm-data", free_port()
    with serving(data, port, None, tmp_path):
        made = gm("new", "--data", str(data), "--player", YOU, "--player", FRIEND, cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        invitation = wait_for("your invitation", lambda: inbox(data, YOU))[-1]
        assert "Invitation" in str(invitation["Subject"]), invitation["Subject"]
        assert str(invitation["Reply-To"]).endswith("@localhost"), invitation["Reply-To"]
        reply(port, YOU, invitation, SETUP_ALICE)
        answered = wait_for("the GM's answer to your setup", lambda: inbox(data, YOU)[1:],
                            lambda: f"shunted: {_shunted(data)}")
        assert "Invitation" not in str(answered[0]["Subject"]), answered[0]["Subject"]
        assert not _shunted(data)
