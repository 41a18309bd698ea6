"""The log's format and its secret filter (gm/logs.py), in-process; the
daemon's whole log is checked for secrets in test_service.py."""

from __future__ import annotations

import io
import logging
import os
import re

import pytest

from gm import logs


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, {n: logging.getLogger(n).level for n in logs.SMTP_LOGGERS})
    yield
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for name, level in saved[2].items():
        logging.getLogger(name).setLevel(level)


def logged(level: str = "info", stream: io.StringIO | None = None) -> io.StringIO:
    stream = stream or io.StringIO()
    logs.setup(level, stream)
    return stream


SECRET = "abcdefghijklmno2"


def test_tokens_and_passwords_are_masked_from_any_logger_in_message_args_and_tracebacks(restore_logging, monkeypatch):
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    out = logged()
    logging.getLogger("some.library").warning("rcpt %r", f"<gm+g12.2.{SECRET}@example.org>".encode())
    logging.getLogger("gm").info(f"To: GM+G1.1.{SECRET.upper()}@example.org")
    logging.getLogger("gm").info("body %s", f"Password {SECRET}\nRv1")
    try:
        raise ValueError(f"bad address gm+g3.1.{SECRET}@example.org")
    except ValueError:
        logging.getLogger("gm").exception("failed")
    text = out.getvalue()
    assert SECRET not in text.lower()
    assert f"rcpt b'<gm+g12.2.{'*' * 16}@example.org>'" in text
    assert f"GM+G1.1.{'*' * 16}@example.org" in text and f"Password {'*' * 16}" in text
    assert "ValueError: bad address gm+g3.1.****************@example.org" in text


def test_aiosmtpd_chatter_is_quiet_unless_debugging(restore_logging):
    out = logged("info")
    logging.getLogger("mail.log").info("('127.0.0.1', 1) >> b'RCPT TO:<x>'")
    logging.getLogger("mail.log").warning("too many bogus commands")
    assert out.getvalue() == "WARNING mail.log: too many bogus commands\n"
    out = logged("debug")
    logging.getLogger("mail.log").info("recip: x")
    assert out.getvalue() == "INFO mail.log: recip: x\n"


def test_one_line_per_record_without_a_timestamp_when_not_a_terminal(restore_logging, monkeypatch):
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    out = logged()
    logs.event("mail accepted", game="g1", player=2, reason='two words "quoted"', absent=None)
    try:
        1 / 0  # noqa: B018 (raises, to log a traceback)
    except ZeroDivisionError:
        logging.getLogger("gm").exception("step failed\nsecond line")
    lines = out.getvalue().splitlines()
    assert lines[0] == 'INFO gm: mail accepted game=g1 player=2 reason="two words \\"quoted\\""'
    assert len(lines) == 2 and lines[1].startswith("ERROR gm: step failed | second line | Traceback")
    assert "ZeroDivisionError" in lines[1]


def test_a_terminal_gets_iso_timestamps_and_journald_gets_priorities(restore_logging, monkeypatch, tmp_path):
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    leader, follower = os.openpty()
    with open(follower, "w") as terminal:
        logs.setup("info", terminal)
        logging.getLogger("gm").info("hello")
        terminal.flush()
        line = os.read(leader, 1000).decode()
    os.close(leader)
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d INFO gm: hello\r?\n$", line), line
    with open(tmp_path / "journal", "w+") as journal:
        status = os.fstat(journal.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{status.st_dev}:{status.st_ino}")
        logs.setup("info", journal)
        logging.getLogger("gm").warning("careful")
        logging.getLogger("gm").info("fine")
        journal.seek(0)
        assert journal.read() == "<4>WARNING gm: careful\n<6>INFO gm: fine\n"


def test_mask_secrets_leaves_other_text_alone():
    assert logs.mask_secrets("gm@example.org and gm+anything@example.org, g1.1") == \
        "gm@example.org and gm+anything@example.org, g1.1"
