"""docs/operations.md's recipe, "Postfix and Dovecot, from a fresh Debian",
followed literally.

The blocks the recipe marks (tests/recipe.py reads them) run as written,
in order, with bash as root, against this machine's real Postfix and
Dovecot; only the settings block is the test's own, with the recipe's
names and temporary values: configuration, queue, data and log directories
under /var/tmp (Postfix writes its log only under /var), free loopback
ports, the games' domain, and for POSTFIX_RELAYHOST a real SMTP server
(aiosmtpd) that stands for the players' mail providers. The directories
Debian's packages make (/etc/postfix, /var/spool/postfix, /var/lib,
/var/log, /etc/dovecot, /var/lib/dovecot, /run) are made here, empty; the
packages block itself is not run but checked against what
scripts/install-test-packages installs. gm then runs as the systemd unit
runs it, `gm serve --config GM_CONF/gm.toml`.

Then a game is made, its invitations reach the players through Postfix,
the players' set-ups go to Postfix's SMTP port and reach gm (by LMTP, or
through the Maildir Dovecot serves), and gm's answers come back out through
Postfix. Postfix's log shows the players' tokens, readable by root only, as
the recipe says. Every process started is stopped at the end."""

from __future__ import annotations

import contextlib
import email
import email.policy
import os
import re
import shlex
import shutil
import signal
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from dovecot import _group_alive, find_dovecot
from gmprocess import free_port, gm, listening, reply_to, stop, wait_for
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB
from postfix import check_prerequisites, find_postfix
from recipe import ROOT, blocks, script, settings

pytestmark = pytest.mark.slow  # a real Postfix and Dovecot set up by the operator's recipe

DOMAIN = "games.example.org"
STOP_TIMEOUT = 15.0  # seconds for `postfix stop`, `dovecot stop` and gm's SIGINT


class Providers:
    """The players' mail providers: an SMTP server on loopback that keeps
    every mail Postfix relays to it (POSTFIX_RELAYHOST)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mails: list[tuple[list[str], email.message.EmailMessage]] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos), message))
        return "250 OK"

    def to(self, player: str, subject: str = "") -> list:
        """The mails for ``player`` whose subject holds ``subject``."""
        with self.lock:
            return [m for rcpts, m in self.mails if player in rcpts and subject in str(m["Subject"])]


def own_settings(root: Path, relayhost: int) -> dict[str, str]:
    """The test's settings block: the recipe's names, temporary values."""
    values = {
        "GM_DOMAIN": DOMAIN,
        "GM_HOST": "mx.recipe-test.invalid",
        "GM_CONF": f"{root}/etc/gm",
        "GM_DATA": f"{root}/lib/gm",
        "GM_LMTP": f"127.0.0.1:{free_port()}",
        "GM_MAILHOME": f"{root}/mail/gm",
        "MAIL_USER": "dovecot",  # a system user that exists: adduser leaves it as it is
        "POSTFIX_CONF": f"{root}/etc/postfix",
        "POSTFIX_QUEUE": f"{root}/spool/postfix",
        "POSTFIX_DATA": f"{root}/lib/postfix",
        "POSTFIX_LOG": f"{root}/log/postfix.log",
        "POSTFIX_INTERFACES": "127.0.0.1",
        "POSTFIX_PORT": str(free_port()),
        "POSTFIX_RELAYHOST": f"[127.0.0.1]:{relayhost}",
        "DOVECOT_CONF": f"{root}/etc/dovecot",
        "DOVECOT_RUN": f"{root}/run/dovecot",
        "DOVECOT_STATE": f"{root}/lib/dovecot",
        "DOVECOT_LOG": f"{root}/log/dovecot.log",
        "DOVECOT_PORT": str(free_port()),
    }
    assert list(values) == list(settings()), "the recipe's settings are not the ones this test sets"
    return values


def make_the_packages_directories(values: dict[str, str]) -> None:
    """What Debian's packages make before the recipe runs: empty directories."""
    for folder in (values["POSTFIX_CONF"], values["POSTFIX_QUEUE"], values["DOVECOT_CONF"], values["DOVECOT_STATE"],
                   *(str(Path(values[name]).parent) for name in
                     ("POSTFIX_DATA", "POSTFIX_LOG", "DOVECOT_RUN", "GM_MAILHOME", "GM_CONF"))):
        Path(folder).mkdir(mode=0o755, parents=True, exist_ok=True)


def test_the_packages_are_those_the_tests_install():
    """The packages block is not run here; its packages are what
    scripts/install-test-packages installs, with the same answer for Postfix."""
    [packages] = [block.code for block in blocks() if block.tags == {"packages"}]
    installer = (ROOT / "scripts" / "install-test-packages").read_text()
    preseed = "postfix postfix/main_mailer_type select No configuration"
    assert preseed in packages and preseed in installer
    [install] = [line for line in packages.splitlines() if line.startswith("apt-get install")]
    wanted = [word for word in shlex.split(install)[2:] if not word.startswith("-")]
    listed = re.search(r"^packages=\((.*)\)$", installer, re.M)
    assert listed and set(wanted) <= set(listed[1].split()), (wanted, listed)


def _stop(command: list[str], pid_file: Path) -> None:
    """Stop a daemon the recipe started (``postfix stop``, ``dovecot
    stop``), bounded; then kill whatever is left of its process group."""
    try:
        master = int(pid_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        master = None
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=STOP_TIMEOUT)
    if master is None:
        return
    deadline = time.monotonic() + STOP_TIMEOUT
    while _group_alive(master):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{command[0]}'s processes (group {master}) survived SIGKILL")
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(master, signal.SIGKILL)
        time.sleep(0.05)


@contextlib.contextmanager
def the_recipe_followed(setup: str, tmp_path: Path) -> Iterator[tuple[dict[str, str], Providers, Callable[[], str]]]:
    """Follow the recipe for ``setup`` (``lmtp`` or ``imap``) and start gm as
    the unit does; yield (the settings, the players' providers, a function
    that gathers the logs). Everything started is stopped, and every
    temporary file removed, at the end, even when a step failed."""
    with contextlib.ExitStack() as cleanup:
        root = Path(tempfile.mkdtemp(prefix="gm-recipe-", dir="/var/tmp"))
        cleanup.callback(shutil.rmtree, root, ignore_errors=True)
        root.chmod(0o755)  # Postfix's and Dovecot's unprivileged processes go through it
        providers = Providers()
        relayhost = Controller(providers, hostname="127.0.0.1", port=free_port())
        relayhost.start()
        cleanup.callback(relayhost.stop)
        values = own_settings(root, relayhost.port)
        cleanup.callback(_stop, [find_postfix() or "postfix", "-c", values["POSTFIX_CONF"], "stop"],
                         Path(values["POSTFIX_QUEUE"]) / "pid" / "master.pid")
        if setup == "imap":
            cleanup.callback(_stop, [find_dovecot() or "dovecot", "-c", f"{values['DOVECOT_CONF']}/dovecot.conf",
                                     "stop"], Path(values["DOVECOT_RUN"]) / "master.pid")
        ran, gm_log = tmp_path / "recipe.out", tmp_path / "gm-serve.log"

        def explain() -> str:
            logs = [ran, gm_log, Path(values["POSTFIX_LOG"]), Path(values["DOVECOT_LOG"])]
            return "\n".join(f"--- {path} ---\n{path.read_text(errors='replace')[-4000:]}" for path in logs
                             if path.exists())

        make_the_packages_directories(values)
        (tmp_path / "recipe.sh").write_text(script(setup, values))
        environment = {k: v for k, v in os.environ.items() if k != "MAIL_CONFIG"}
        environment["PATH"] = f"{Path(find_postfix() or '/usr/sbin/postfix').parent}:{environment.get('PATH', '')}"
        with open(ran, "wb") as output:  # not a pipe: the daemons it starts keep their copies open
            done = subprocess.run(["bash", str(tmp_path / "recipe.sh")], stdin=subprocess.DEVNULL, stdout=output,
                                  stderr=subprocess.STDOUT, env=environment, timeout=60)
        assert done.returncode == 0, explain()
        assert listening(int(values["POSTFIX_PORT"])), explain()

        # gm, as contrib/gm.service runs it: `gm serve --config /etc/gm/gm.toml`.
        unit = (ROOT / "contrib" / "gm.service").read_text()
        started = re.search(r"^ExecStart=\S+/gm (.*)$", unit, re.M)
        assert started and started[1] == "serve --config /etc/gm/gm.toml" and settings()["GM_CONF"] == "/etc/gm"
        with open(gm_log, "wb") as log:
            daemon = subprocess.Popen([sys.executable, "-P", "-m", "gm", "serve", "--config",
                                       f"{values['GM_CONF']}/gm.toml"], cwd=tmp_path,
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        cleanup.callback(stop, daemon, signal.SIGINT, STOP_TIMEOUT)
        if setup == "lmtp":
            wait_for("gm's LMTP listener", lambda: f"listening proto=lmtp addr={values['GM_LMTP']}" in
                     gm_log.read_text(), explain)
        else:
            connected = (f"imap connected host=127.0.0.1 port={values['DOVECOT_PORT']} user=gm mailbox=INBOX "
                         "tls=no")
            wait_for("gm to log in to Dovecot", lambda: connected in gm_log.read_text(), explain)
        yield values, providers, explain


@pytest.mark.parametrize("setup", ["lmtp", "imap"])
def test_the_recipe_as_written_brings_players_mail_to_gm_and_its_answers_back(setup, tmp_path):
    check_prerequisites()
    if setup == "imap" and find_dovecot() is None:
        pytest.skip("dovecot not found (Debian: dovecot-imapd)")
    with the_recipe_followed(setup, tmp_path) as (values, providers, explain):
        config = f"{values['GM_CONF']}/gm.toml"
        gm_log, postfix_log = tmp_path / "gm-serve.log", Path(values["POSTFIX_LOG"])
        relayhost = values["POSTFIX_RELAYHOST"].rsplit(":", 1)[1]
        made = gm("new", "--config", config, "--player", ALICE, "--player", BOB, cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        invitations = [wait_for(f"{player}'s invitation, through Postfix", lambda p=player: providers.to(p), explain)[0]
                       for player in (ALICE, BOB)]
        for invitation in invitations:
            assert values["GM_HOST"] in str(invitation["Received"]), invitation["Received"]

        with smtplib.SMTP("127.0.0.1", int(values["POSTFIX_PORT"]), timeout=10) as client:
            client.ehlo()
            assert client.mail(ALICE)[0] == 250
            code, answer = client.rcpt(f"nobody@{DOMAIN}")  # refused while the sender waits
            assert code == 550 and b"User unknown" in answer, (code, answer)
            client.rset()
            for player, invitation, setup_orders in ((ALICE, invitations[0], SETUP_ALICE),
                                                     (BOB, invitations[1], SETUP_BOB)):
                assert client.send_message(reply_to(invitation, player, setup_orders)) == {}
        for player in (ALICE, BOB):
            wait_for(f"{player}'s turn-1 sheet, through Postfix", lambda p=player: providers.to(p, "the game begins"),
                     explain)

        # As the recipe warns: Postfix's log shows the players' tokens, and
        # only root may read it; gm's own log masks them.
        replies = [str(invitation["Reply-To"]) for invitation in invitations]
        text = postfix_log.read_text()
        for address in replies:
            assert re.fullmatch(rf"gm\+g1\.[12]\.\w{{16}}@{re.escape(DOMAIN)}", address), address
            assert re.search(rf"to=<{re.escape(address)}>, .*status=sent", text), explain()
            assert address not in gm_log.read_text()
        assert postfix_log.stat().st_mode & 0o777 == 0o600
        assert re.search(rf"from=<gm@{re.escape(DOMAIN)}>", text)
        assert re.search(rf"to=<{re.escape(ALICE)}>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:{relayhost}, "
                         r".*status=sent", text), explain()
