"""A private, real Postfix for the integration tests, set up as the recipe in
docs/operations.md ("Postfix and Dovecot, from a fresh Debian", LMTP) sets
it up: Postfix receives the games' domain's mail and hands it to gm over
LMTP.

Usage::

    from postfix import Postfix

    with Postfix(domain="games.example.org", lmtp_port=gm_port) as mta:
        smtplib.SMTP(mta.host, mta.port)        # Postfix's smtpd, not gm
        ...
        mta.log_tail()                          # what Postfix logged

Each instance runs ``postfix -c DIR start`` with its own main.cf and
master.cf in DIR, and its own queue_directory, data_directory and log file,
all in one temporary directory that is removed when it stops.  main.cf holds
the documented recipe (relay_domains, relay_recipient_maps, transport_maps,
recipient_delimiter, message_size_limit; the maps made with ``postmap``) and
around it only what a private instance on loopback needs:

* inet_interfaces = 127.0.0.1 and one smtpd, in master.cf, on a free
  ephemeral port (not 25); no other inet listener;
* no DNS lookups at all (``*_dns_support_level = disabled``, no reverse
  lookup of clients) and no mail out: every destination but the games'
  domain goes to the ``error`` transport, so no bounce ever leaves;
* no chroot, no local delivery, no TLS; logs to a file (``maillog_file``)
  instead of syslog;
* ``mynetworks`` holds no address the tests connect from, so the test's
  client is "the world": Postfix must refuse to relay elsewhere for it.

Postfix's master must be started by root; as another user the fixture skips
(fails under CI, as tests/dovecot.py does).  Every wait is bounded.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from dovecot import _group_alive, free_port, require_or_skip
from gmprocess import read_greeting

HOST = "127.0.0.1"
DEFAULT_DOMAIN = "games.example.org"
START_TIMEOUT = 20.0  # seconds for `postfix start` and the first greeting
STOP_TIMEOUT = 15.0  # seconds for `postfix stop` and then for any leftover
COMMAND_TIMEOUT = 20.0  # seconds for postmap and other one-shot commands
PORT_ATTEMPTS = 5  # fresh ports tried when the chosen one was taken meanwhile
MESSAGE_SIZE_LIMIT = 950000  # as in docs/operations.md

_SBIN_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")

# master.cf: every service the instance uses, none chrooted (a chroot would
# need copies of /etc files in the queue directory).  No local, no tlsmgr,
# no pipe services; smtpd is added on its own port by _write_config.
_SERVICES = """\
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
proxywrite unix -       -       n       -       1       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


class PostfixError(RuntimeError):
    """The private Postfix could not be started or stopped."""


def find_postfix() -> str | None:
    """Path of the postfix command, or None (/usr/sbin is often not on a
    non-root user's PATH, so it is searched as well)."""
    found = shutil.which("postfix")
    if found:
        return found
    for directory in _SBIN_DIRS:
        candidate = os.path.join(directory, "postfix")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def check_prerequisites() -> None:
    """Skip (fail under CI) when this private Postfix cannot run here."""
    if find_postfix() is None:
        require_or_skip("postfix not found (Debian: postfix)")
    if os.getuid() != 0:
        require_or_skip("a private Postfix must be started by root")
    try:
        pwd.getpwnam("postfix")
    except KeyError:
        require_or_skip("no 'postfix' user (Debian: install the postfix package)")


class Postfix:
    """A private Postfix relaying ``domain`` to gm's LMTP listener on
    127.0.0.1:``lmtp_port``; use as a context manager.

    Attributes once started: host, port (smtpd), domain, recipients, root,
    config_dir, queue_dir, log_path, hostname (myhostname, which the SMTP
    banner names) and start_seconds."""

    host = HOST

    def __init__(
        self,
        *,
        lmtp_port: int,
        domain: str = DEFAULT_DOMAIN,
        recipients: tuple[str, ...] | None = None,
        message_size_limit: int = MESSAGE_SIZE_LIMIT,
        binary: str | None = None,
        start_timeout: float = START_TIMEOUT,
        stop_timeout: float = STOP_TIMEOUT,
    ) -> None:
        self.lmtp_port = lmtp_port
        self.domain = domain
        self.recipients = recipients or (f"gm@{domain}",)
        self.message_size_limit = message_size_limit
        self.binary = binary or find_postfix()
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._token = secrets.token_hex(6)
        self.hostname = f"mx-{self._token}.gm-test.invalid"
        self.port: int | None = None
        self.root: Path | None = None
        self.config_dir: Path | None = None
        self.queue_dir: Path | None = None
        self.log_path: Path | None = None
        self.start_seconds: float | None = None
        self.stop_seconds: float | None = None
        self._master: int | None = None

    # -- life cycle ---------------------------------------------------------

    def __enter__(self) -> Postfix:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def start(self) -> Postfix:
        if self._master is not None:
            raise PostfixError("this Postfix is already running")
        if self.binary is None:
            raise PostfixError("the postfix command was not found "
                               "(install postfix: scripts/install-test-packages)")
        began = time.monotonic()
        self.root = Path(tempfile.mkdtemp(prefix="gm-postfix-", dir="/tmp"))
        try:
            self._prepare_tree()
            last_error = ""
            for _ in range(PORT_ATTEMPTS):
                self.port = free_port(self.host)
                self._write_config()
                outcome = self._launch_and_wait()
                if outcome is None:
                    self.start_seconds = time.monotonic() - began
                    return self
                last_error = outcome
                if "in use" not in outcome:
                    break
            raise PostfixError(f"Postfix did not start: {last_error}")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """``postfix -c DIR stop`` (bounded), then SIGKILL to whatever is left
        of the master's session, then remove the temporary directory.
        Harmless when not running."""
        began = time.monotonic()
        try:
            if self._master is not None:
                self._stop_master(self._master)
        finally:
            self._master = None
            if self.root is not None:
                shutil.rmtree(self.root, ignore_errors=True)
                self.root = None
            self.stop_seconds = time.monotonic() - began

    @property
    def running(self) -> bool:
        return self._master is not None and _alive(self._master)

    # -- helpers for tests --------------------------------------------------

    def log(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def log_tail(self, lines: int = 60) -> str:
        text = self.log().splitlines()
        return "\n".join(text[-lines:]) or "(the Postfix log is empty)"

    def flush(self) -> None:
        """``postqueue -f``: try every queued mail again now."""
        assert self.config_dir is not None, "Postfix is not running"
        done = self._run(self._postfix_bin("postqueue"), "-c", str(self.config_dir), "-f")
        if done.returncode != 0:
            raise PostfixError(f"postqueue -f failed: {done.stderr.strip()}")

    def queue_ids(self) -> list[str]:
        """Files left in the queue (incoming, active, deferred, hold)."""
        assert self.queue_dir is not None, "Postfix is not running"
        found = []
        for name in ("incoming", "active", "deferred", "hold", "maildrop"):
            folder = self.queue_dir / name
            if folder.is_dir():
                found += [p.name for p in folder.rglob("*") if p.is_file()]
        return found

    # -- internals ----------------------------------------------------------

    def _postfix_bin(self, name: str) -> str:
        assert self.binary is not None
        return str(Path(self.binary).with_name(name))

    def _run(self, *argv: str, timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess[str]:
        environment = {k: v for k, v in os.environ.items() if k != "MAIL_CONFIG"}
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=environment)

    def _prepare_tree(self) -> None:
        assert self.root is not None
        owner = pwd.getpwnam("postfix")
        # The master runs as root, its daemons as the postfix user: they must
        # be able to reach the queue directory through the temporary one.
        self.root.chmod(0o755)
        self.config_dir = self.root / "config"
        self.queue_dir = self.root / "queue"
        data_dir = self.root / "data"
        logs = self.root / "log"
        for folder in (self.config_dir, self.queue_dir, logs):
            folder.mkdir(mode=0o755)
        data_dir.mkdir(mode=0o700)
        os.chown(data_dir, owner.pw_uid, owner.pw_gid)
        self.log_path = logs / "maillog"

    def _write_config(self) -> None:
        assert self.config_dir is not None and self.queue_dir is not None
        assert self.root is not None and self.port is not None and self.log_path is not None
        config = self.config_dir
        recipients = config / "gm-recipients"
        transport = config / "transport"
        (config / "main.cf").write_text(f"""\
# A private Postfix for gm's tests; written by tests/postfix.py.
compatibility_level = 3.6
queue_directory = {self.queue_dir}
data_directory = {self.root / "data"}
maillog_file = {self.log_path}
maillog_file_prefixes = {self.log_path.parent}
myhostname = {self.hostname}
mydomain = gm-test.invalid
myorigin = $myhostname
mydestination =
mynetworks =
smtpd_banner = $myhostname ESMTP gm-test-{self._token}
inet_interfaces = {self.host}
inet_protocols = ipv4
smtp_dns_support_level = disabled
lmtp_dns_support_level = disabled
smtpd_peername_lookup = no
default_transport = error:this test Postfix sends no mail out
relay_transport = error:the games' domain goes through transport_maps
local_transport = error:this test Postfix delivers no mail locally
alias_maps =
alias_database =
biff = no
queue_run_delay = 2s
minimal_backoff_time = 2s
maximal_backoff_time = 4s

# The LMTP lines of docs/operations.md's recipe, for this instance.
relay_domains = {self.domain}
relay_recipient_maps = hash:{recipients}
transport_maps = hash:{transport}
recipient_delimiter = +
message_size_limit = {self.message_size_limit}
""")
        (config / "master.cf").write_text(
            "# A private Postfix for gm's tests; written by tests/postfix.py.\n"
            f"{self.host}:{self.port} inet n - n - - smtpd\n" + _SERVICES)
        recipients.write_text("".join(f"{address}    OK\n" for address in self.recipients))
        transport.write_text(f"{self.domain}       lmtp:inet:{self.host}:{self.lmtp_port}\n")
        made = self._run(self._postfix_bin("postmap"), "-c", str(config), str(recipients), str(transport))
        if made.returncode != 0:
            raise PostfixError(f"postmap failed: {made.stderr.strip()}")

    def _launch_and_wait(self) -> str | None:
        """``postfix start``, then wait for this instance's own banner on its
        port.  None when it answers; else a description of the failure (the
        instance is then stopped)."""
        assert self.binary is not None and self.config_dir is not None and self.queue_dir is not None
        deadline = time.monotonic() + self.start_timeout
        try:
            started = self._run(self.binary, "-c", str(self.config_dir), "start", timeout=self.start_timeout)
        except subprocess.TimeoutExpired:
            self._forget_failed_master()
            return f"`postfix start` took over {self.start_timeout:.0f} s\n{self.log_tail()}"
        pid_file = self.queue_dir / "pid" / "master.pid"
        with contextlib.suppress(OSError, ValueError):
            self._master = int(pid_file.read_text().split()[0])
        if started.returncode != 0:
            self._forget_failed_master()
            return (f"`postfix start` exited with status {started.returncode}: "
                    f"{started.stderr.strip()}\n{self.log_tail()}")
        if self._master is None:
            return f"no master pid in {pid_file}\n{self.log_tail()}"
        expected = f"gm-test-{self._token}".encode()
        while time.monotonic() < deadline:
            banner = read_greeting(self.host, self.port or 0, b"QUIT\r\n")
            if banner is not None and expected in banner:
                return None
            if not _alive(self._master):
                break
            time.sleep(0.05)
        self._forget_failed_master()
        return (f"no SMTP banner of this instance on {self.host}:{self.port} within "
                f"{self.start_timeout:.0f} s\n{self.log_tail()}")

    def _forget_failed_master(self) -> None:
        if self._master is not None:
            self._stop_master(self._master)
        self._master = None

    def _stop_master(self, master: int) -> None:
        assert self.binary is not None and self.config_dir is not None
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            self._run(self.binary, "-c", str(self.config_dir), "stop", timeout=self.stop_timeout)
        # The master is a session (and process group) leader; whatever of its
        # group is left after `postfix stop` is killed.
        deadline = time.monotonic() + self.stop_timeout
        while _alive(master) or _group_alive(master):
            if time.monotonic() >= deadline:
                raise PostfixError(f"Postfix master {master} or its children survived SIGKILL")
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(master, signal.SIGKILL)
            time.sleep(0.02)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (not a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return not Path("/proc/self/stat").exists()
    return stat[stat.rfind(")") + 2:].split()[0] not in "ZX"

