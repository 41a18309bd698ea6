"""gm behind a real Postfix, set up as docs/operations.md's recipe says.

Nothing is simulated: a private Postfix from Debian's package (tests/postfix.py)
listens on a loopback port with the documented relay_domains,
relay_recipient_maps, transport_maps, recipient_delimiter and
message_size_limit, and hands the games' domain to `gm serve --smtp off
--lmtp 127.0.0.1:PORT`, its own process.  The players send their set-ups to
Postfix's port, never gm's, and the game begins; Postfix itself refuses an
unknown recipient at RCPT and an oversized mail at DATA (or at MAIL FROM,
when its size is declared), and passes a mail just under its limit, with its
own headers, to gm, which takes it.  Orders sent while gm is stopped wait in
Postfix's queue and count once gm is back and `postqueue -f` has run."""

from __future__ import annotations

import re
import signal
import smtplib
import subprocess
import sys
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from gmprocess import free_port, gm, inbox, listening, wait_for
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB
from postfix import MESSAGE_SIZE_LIMIT, Postfix, check_prerequisites
from recipe import postfix_files

pytestmark = pytest.mark.slow  # a real Postfix

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = "games.example.org"
GM = f"gm@{DOMAIN}"


def documented_postfix_files(heading: str) -> dict[str, list[str]]:
    """The Postfix files docs/operations.md gives under ``heading`` (``## Several daemons``):
    file name -> its lines, from the indented blocks whose comments name each
    file (/etc/postfix/NAME), up to the next heading of the same level."""
    text = (ROOT / "docs" / "operations.md").read_text()
    level = heading.split(" ", 1)[0]
    section = text.split(f"\n{heading}\n", 1)[1].split(f"\n{level} ", 1)[0]
    files: dict[str, list[str]] = {}
    current = None
    for line in section.splitlines():
        if not line.strip():
            continue
        if not line.startswith("    "):  # prose ends the block
            current = None
            continue
        named = re.match(r"^    # /etc/postfix/([\w.-]+)", line)
        if named:
            current = files.setdefault(named[1], [])
        elif current is not None and not line.lstrip().startswith("#"):
            current.append(line.strip())
    return files


def documented_recipe() -> dict[str, list[str]]:
    """docs/operations.md's Postfix recipe for LMTP (tests/recipe.py): file
    name -> the lines its LMTP blocks write, in /etc/postfix."""
    return postfix_files("lmtp")


def check_the_instance_follows_the_recipe(mta: Postfix, gm_port: int) -> None:
    """What tests/postfix.py wrote is the documented recipe, with this
    instance's config directory for /etc/postfix and gm's port for 2424."""
    recipe = documented_recipe()
    assert set(recipe) == {"main.cf", "gm-recipients", "transport"}, recipe
    config = mta.config_dir
    assert config is not None
    main = {}
    for line in (config / "main.cf").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            main[key.strip()] = value.strip()
    assert len(recipe["main.cf"]) == 5, recipe["main.cf"]
    for line in recipe["main.cf"]:
        key, _, value = line.partition("=")
        assert main.get(key.strip()) == value.strip().replace("/etc/postfix/", f"{config}/"), line
    assert [line.split() for line in recipe["gm-recipients"]] == [[GM, "OK"]]
    assert (config / "gm-recipients").read_text().split() == [GM, "OK"]
    [route] = recipe["transport"]
    assert route.split() == [DOMAIN, "lmtp:inet:127.0.0.1:2424"]
    assert (config / "transport").read_text().split() == [DOMAIN, f"lmtp:inet:127.0.0.1:{gm_port}"]
    for name in ("gm-recipients", "transport"):
        assert (config / f"{name}.db").is_file(), f"postmap made no {name}.db"


def shunted(data: Path) -> list[Path]:
    folder = data / "shunt" / "new"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def mail(sender: str, to: str, subject: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = make_msgid(domain=sender.split("@")[1])
    message.set_content(body)
    return message


class Daemon:
    """`gm serve` with LMTP only, its own process; start() again after stop()
    runs it again on the same data directory and port.  Its log goes to a
    file (a pipe nobody reads could fill and stall it)."""

    def __init__(self, data: Path, cwd: Path):
        self.data, self.cwd, self.port = data, cwd, free_port()
        self.process: subprocess.Popen | None = None
        self.runs = 0

    @property
    def log_path(self) -> Path:
        return self.cwd / f"gm-serve-{self.runs}.log"

    def start(self) -> None:
        self.runs += 1
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-P", "-m", "gm", "serve", "--data", str(self.data), "--smtp", "off",
                 "--lmtp", f"127.0.0.1:{self.port}", "--address", GM],
                cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        process = self.process
        wait_for("gm's LMTP listener", lambda: listening(self.port) or process.poll() is not None)
        assert process.poll() is None, self.log()

    def stop(self) -> None:
        if self.process is None:
            return
        process, self.process = self.process, None
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
            raise AssertionError(f"gm serve did not stop on SIGINT within 10 s\n{self.log()}") from None
        assert status == 0, self.log()
        wait_for("gm's LMTP port to close", lambda: not listening(self.port))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-5000:] if self.log_path.exists() else ""


@pytest.fixture
def gm_behind_postfix(tmp_path):
    """(the running gm, the running Postfix): gm serving LMTP only, and a
    private Postfix relaying the games' domain to it."""
    check_prerequisites()
    daemon = Daemon(tmp_path / "data", tmp_path)
    try:
        daemon.start()
        with Postfix(domain=DOMAIN, lmtp_port=daemon.port) as mta:
            yield daemon, mta
    finally:
        daemon.stop()


def test_players_reach_gm_through_postfix_which_refuses_unknown_and_oversized_mail(gm_behind_postfix, tmp_path):
    daemon, mta = gm_behind_postfix
    data = daemon.data
    check_the_instance_follows_the_recipe(mta, daemon.port)
    made = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    alice, bob = wait_for("the invitations",
                          lambda: len(inbox(data, BOB)) == 1 and (inbox(data, ALICE)[-1], inbox(data, BOB)[-1]))
    replies = [str(alice["Reply-To"]), str(bob["Reply-To"])]
    for address, player in zip(replies, ("1", "2")):
        assert re.fullmatch(rf"gm\+g1\.{player}\.\w+@{re.escape(DOMAIN)}", address), address

    # The set-ups go to Postfix's port, not gm's; Postfix takes them for the
    # plus-addresses (recipient_delimiter) and hands them on over LMTP.
    with smtplib.SMTP(mta.host, mta.port, timeout=10) as client:
        assert mta.hostname in client.ehlo()[1].decode()
        for sender, original, setup in ((ALICE, alice, SETUP_ALICE), (BOB, bob, SETUP_BOB)):
            refused = client.send_message(mail(sender, str(original["Reply-To"]), "Re: " + str(original["Subject"]),
                                               setup))
            assert refused == {}

    explain = lambda: (f"--- Postfix log ---\n{mta.log_tail()}\n--- gm log ---\n{daemon.log()}\n"  # noqa: E731
                       f"--- shunted: {shunted(data)}")
    for player in (ALICE, BOB):
        wait_for(f"{player}'s turn-1 sheet",
                 lambda: [m for m in inbox(data, player) if "the game begins" in str(m["Subject"])],
                 explain)
    assert shunted(data) == [], explain()
    log = mta.log()
    for address in replies:
        # Delivered by Postfix's lmtp client to gm, the original plus-address kept.
        assert re.search(rf"to=<{re.escape(address)}>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:\d+, .*status=sent \(250",
                         log), explain()
    assert not re.search(r"to=<[^>]*@games\.example\.org>.*status=(deferred|bounced)", log), explain()
    shown = gm("show", "g1", "--data", str(data), cwd=tmp_path)
    assert '"turn": 1' in shown.stdout, shown.stdout + shown.stderr

    with smtplib.SMTP(mta.host, mta.port, timeout=10) as client:
        client.ehlo()
        # An unknown mailbox of the domain: refused while the sender waits
        # (relay_recipient_maps), not accepted and bounced later.
        assert client.mail(ALICE)[0] == 250
        code, answer = client.rcpt(f"nobody@{DOMAIN}")
        assert code == 550 and b"User unknown in relay recipient table" in answer, (code, answer)
        # Nor does Postfix relay anywhere else for a client of the world.
        code, answer = client.rcpt("someone@elsewhere.example")
        assert 400 <= code < 600 and b"Relay access denied" in answer, (code, answer)
        client.rset()

        # Over message_size_limit: refused at DATA (here no SIZE is declared) ...
        big = mail(ALICE, replies[0], "Too big", "x" * 76 + "\n").as_bytes()
        big += (b"y" * 998 + b"\r\n") * (MESSAGE_SIZE_LIMIT // 1000 + 10)
        assert len(big) > MESSAGE_SIZE_LIMIT
        assert client.mail(ALICE)[0] == 250
        assert client.rcpt(replies[0])[0] == 250
        code, answer = client.data(big)
        assert code == 552 and answer.startswith(b"5.3.4 "), (code, answer)
        client.rset()
        # ... and at MAIL FROM when the client declares its size, as smtplib does.
        with pytest.raises(smtplib.SMTPSenderRefused) as at_mail:
            client.sendmail(ALICE, [replies[0]], big)
        assert at_mail.value.smtp_code == 552, at_mail.value

    # Just under Postfix's limit, with the headers Postfix adds, the mail is
    # still under gm's own limit: Postfix hands it on and gm takes it (and
    # shunts it: it names no game), rather than refusing it into a bounce.
    near = mail(BOB, GM, "Nearly too big", "z" * 76 + "\n").as_bytes()
    near += (b"z" * 998 + b"\r\n") * ((MESSAGE_SIZE_LIMIT - len(near)) // 1000 - 2)
    assert MESSAGE_SIZE_LIMIT - 5000 < len(near) < MESSAGE_SIZE_LIMIT
    with smtplib.SMTP(mta.host, mta.port, timeout=10) as client:
        assert client.sendmail(BOB, [GM], near) == {}
    wait_for("gm to take the nearly oversized mail", lambda: shunted(data), explain)
    wait_for("Postfix to log its delivery",
             lambda: re.search(rf"to=<{re.escape(GM)}>, relay=127\.0\.0\.1.*status=sent \(250",
                                                              mta.log()), explain)
    assert b"Nearly too big" in shunted(data)[0].read_bytes()
    assert not re.search(r"status=(deferred|bounced)", mta.log()), explain()

    # While gm is stopped, Postfix keeps a player's orders in its queue; when
    # gm is back, `postqueue -f` hands them over and they count.
    begun = inbox(data, ALICE)[-1]
    assert "the game begins" in str(begun["Subject"])
    daemon.stop()
    orders = mail(ALICE, str(begun["Reply-To"]), "Re: " + str(begun["Subject"]), "Rv1\n")
    with smtplib.SMTP(mta.host, mta.port, timeout=10) as client:
        assert client.mail(ALICE)[0] == 250 and client.rcpt(str(begun["Reply-To"]))[0] == 250
        code, answer = client.data(orders.as_bytes())
    queued = re.fullmatch(rb"2\.0\.0 Ok: queued as (\w+)", answer)
    assert code == 250 and queued, (code, answer)
    queue_id = queued[1].decode()
    wait_for("Postfix to defer the orders",
             lambda: re.search(rf"{queue_id}: to=<.*status=deferred \(.*refused", mta.log()),
             explain)
    wait_for("the orders in Postfix's queue", lambda: queue_id in mta.queue_ids(), explain)
    daemon.start()
    mta.flush()
    wait_for("the orders to reach gm", lambda: re.search(rf"{queue_id}: to=<.*status=sent \(250", mta.log()), explain)
    waiting = re.compile(r'"waiting_for": \[\s*"Player 2"\s*\]')
    wait_for("gm to take Alice's orders",
             lambda: waiting.search(gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout),
             lambda: gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout + explain())
    deferred = re.findall(r"(\w+): to=<.*status=deferred", mta.log())
    assert set(deferred) == {queue_id} and "status=bounced" not in mta.log(), explain()
    wait_for("Postfix's queue to empty", lambda: not mta.queue_ids(), explain)
    assert len(shunted(data)) == 1, explain()
