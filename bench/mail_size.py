"""How big a Spaceships turn-sheet mail is, as gm sends it.

A game is played through the GameMaster (bench/build_data.py's `play`:
threaded order mails, strikes that miss) to turn --turns, and each turn
sheet is taken from the outbox as it would go to the relay (the real token
in it). Printed: its size in bytes, the size and share of its HTML part as
transferred (quoted-printable), and beside them the reference measured in
the same run: the same sheet's plain text (the text/plain part, decoded),
which says the same things. The issue's target is the same look at a fifth
of the size. The figures are for the last sheet (the fullest: its history
is the longest) and the mean over all.

    python bench/mail_size.py [--turns T] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import email
import email.policy
import random
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_data import GM_ADDRESS, STEP, play  # noqa: E402

from gm.pbem.mailer import Identity  # noqa: E402
from gm.pbem.master import GameMaster, Limits, utc_now  # noqa: E402
from gm.pbem.store import Store  # noqa: E402


@dataclass
class Sheet:
    subject: str
    size: int
    """The whole mail, as sent."""
    html: int
    """The HTML part's payload as transferred (quoted-printable)."""
    html_decoded: int
    plain: int
    """The plain-text part, decoded: the reference."""
    inline_styles: int


def measure(raw: bytes) -> Sheet:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    html = html_decoded = plain = styles = 0
    for part in message.walk():
        if part.get_content_type() == "text/html":
            html += len(part.get_payload(decode=False).encode())
            content = part.get_content()
            html_decoded += len(content.encode())
            styles += content.count("style=")
        elif part.get_content_type() == "text/plain" and not part.get_filename():
            plain += len(part.get_content().encode())
    return Sheet(str(message["Subject"]), len(raw), html, html_decoded, plain, styles)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="the turn the game is played to (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the orders (default 1)")
    parser.add_argument("--quick", action="store_true", help="3 turns, for the smoke test")
    args = parser.parse_args(argv)
    turns = 3 if args.quick else args.turns

    sheets: list[Sheet] = []

    def sent(key: str, raw: bytes) -> None:
        sheet = measure(raw)
        if sheet.html and re.search(r"Turn \d+ results|the game begins", sheet.subject):
            sheets.append(sheet)

    with tempfile.TemporaryDirectory(prefix="gm-bench-mail-") as temporary:
        store = Store(Path(temporary) / "data")
        clock = [utc_now() - STEP * (2 * turns + 8)]
        master = GameMaster(store, Identity(GM_ADDRESS), lambda: clock[0], Limits(replies_per_day=10 ** 9))
        play(store, master, clock, "g1", turns, random.Random(args.seed), sent)
    if not sheets:
        print("error: no turn sheet was sent", file=sys.stderr)
        return 1
    last = sheets[-1]
    print(f"turn sheets sent: {len(sheets)} (the last: {last.subject!r})")
    print(f"bytes per turn-sheet mail: {last.size:,} (mean {statistics.fmean(s.size for s in sheets):,.0f})")
    print(f"bytes of its HTML part, quoted-printable: {last.html:,} ({last.html / last.size:.0%} of the mail; "
          f"{last.html_decoded:,} decoded, {last.inline_styles} inline style attributes)")
    print(f"reference bytes of the same sheet's plain text: {last.plain:,} "
          f"(mean {statistics.fmean(s.plain for s in sheets):,.0f})")
    print(f"ratio mail/plain text: {last.size / last.plain:.1f}")
    print(f"target: the same look at a fifth of the 57 KB measured when issue 12 was filed (11.4 KB): "
          f"{'MET' if last.size * 5 <= 57_000 else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
