"""How big a Spaceships turn-sheet mail is, as gm sends it.

A game is played through the GameMaster (bench/build_data.py's `play`:
threaded order mails, strikes that miss) to turn --turns, and each turn
sheet is taken from the outbox as it would go to the relay (the real token
in it). Printed: its size in bytes, the size and share of its HTML part as
transferred (quoted-printable or 7bit), and beside them the reference
measured in the same run: the same sheet's plain text (the text/plain
part, decoded), which says the same things. The issue's target is the same
look at a fifth of the size. The figures are for the last sheet (the
fullest: its history is the longest) and the mean over all.

The same game is played twice in the run: as a game made today (edition
`gm.kernel.values.EDITION`, 4 and on: light mail) and as a game made under
edition 3 (per-cell inline styles, quoted-printable), which is what every
sheet looked like when issue 12 was filed; the ratios compare the two.

With --parts, the last sheet is also taken apart, as a game made under
edition 6 (the sheet before the lighter one of `gm.kernel.values.FINISH_EDITION`)
and as one made today: the bytes of the header, of each part as sent (its
own header lines included), and of the blocks of the HTML part (the grids'
cells and everything else of the grids, the <style> block, the
announcements, the orders, the legend, the commitments) and of the
commitments in the text part and the header.

    python bench/mail_size.py [--turns T] [--seed S] [--quick] [--parts]
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

import gm.pbem.archive.creation
from build_data import GM_ADDRESS, STEP, play
from gm.kernel.values import EDITION
from gm.pbem.data.store import Store
from gm.pbem.intake.limits import Limits
from gm.pbem.master.game_master import GameMaster, utc_now
from gm.pbem.writing.mailer import Identity


@dataclass
class Sheet:
    subject: str
    size: int
    """The whole mail, as sent."""
    html: int
    """The HTML part's payload as transferred (quoted-printable)."""
    html_decoded: int
    html_cte: str
    plain: int
    """The plain-text part, decoded: the reference."""
    inline_styles: int


def measure(raw: bytes) -> Sheet:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    html = html_decoded = plain = styles = 0
    cte = ""
    for part in message.walk():
        if part.get_content_type() == "text/html":
            html += len(part.get_payload(decode=False).encode())
            content = part.get_content()
            html_decoded += len(content.encode())
            styles += content.count("style=")
            cte = str(part["Content-Transfer-Encoding"])
        elif part.get_content_type() == "text/plain" and not part.get_filename():
            plain += len(part.get_content().encode())
    return Sheet(str(message["Subject"]), len(raw), html, html_decoded, cte, plain, styles)


GRIDS = re.compile(r'<div class="colour">.*</div>\n', re.S)
"""The ten grids (five coloured blocks of two), up to the legend."""
CELL = re.compile(r"<td[^>]*>[^<]*</td>")
HTML_BLOCKS = {
    "<style> block": re.compile(r"<style>.*?</style>", re.S),
    "announcements": re.compile(r'<div id="announcements".*?\n</div>\n', re.S),
    "orders (last turn's, in force)": re.compile(r"<table[^>]* class=\"orders[^>]*>.*?</table>\n", re.S),
    "legend": re.compile(r'<p class="legend">.*?</p>\n', re.S),
    "commitments": re.compile(r'<h3 id="commitments">.*?</table>\n', re.S),
}


def parts_of(raw: bytes) -> dict[str, int]:
    """Where the bytes of a sheet mail are: the header, each part as sent (its
    header lines and the boundary line before it included), the blocks of the
    HTML part and the commitments of the text part and the header, each
    counted as sent (CRLF line ends when the mail has them)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    eol = "\r\n" if b"\r\n" in raw else "\n"

    def sent(text: str) -> int:
        return len(text.replace("\r\n", "\n").replace("\n", eol).encode())

    head, _, body = raw.partition((eol * 2).encode())
    sizes = {"whole mail": len(raw), "header": len(head) + 2 * len(eol),
             "  of which X-GM-Commitment fields": sum(sent(f"X-GM-Commitment: {v}\n")
                                                       for v in message.get_all("X-GM-Commitment") or ())}
    boundary = message.get_boundary()
    for chunk in body.split(f"--{boundary}".encode())[1:-1]:
        kind = email.message_from_bytes(chunk.lstrip(), policy=email.policy.default).get_content_type()
        sizes[f"part {kind}"] = len(chunk) + len(boundary) + 2
    plain = message.get_body(preferencelist=("plain",))
    text = plain.get_content().replace("\r\n", "\n") if plain is not None else ""
    found = re.search(r"\n== The GM's commitments.*?\n\n", text, re.S)
    sizes["  text: commitments"] = sent(found.group()[1:]) if found else 0
    page = message.get_body(preferencelist=("html",))
    html = page.get_content().replace("\r\n", "\n") if page is not None else ""
    grids = GRIDS.search(html)
    grid_text = grids.group() if grids else ""
    cells = sum(sent(c) for c in CELL.findall(grid_text))
    sizes["  html: grids, 250 cells"] = cells
    sizes["  html: grids, the rest (captions, heads, table tags)"] = sent(grid_text) - cells
    rest = sent(html) - sent(grid_text)
    for name, pattern in HTML_BLOCKS.items():
        size = sum(sent(m) for m in pattern.findall(html))
        sizes[f"  html: {name}"] = size
        rest -= size
    sizes["  html: the rest"] = rest
    return sizes


def last_raw(turns: int, seed: int, edition: int) -> bytes:
    """The last turn-sheet mail (as sent) of the game ``sheets_of`` plays."""
    raws: list[bytes] = []
    sheets_of(turns, seed, edition, raws)
    return raws[-1]


def sheets_of(turns: int, seed: int, edition: int, raws: list[bytes] | None = None) -> list[Sheet]:
    """The turn sheets of a game played to turn ``turns``, made under ``edition``
    (and each mail's bytes added to ``raws``, if given)."""
    sheets: list[Sheet] = []

    def sent(key: str, raw: bytes) -> None:
        sheet = measure(raw)
        if sheet.html and re.search(r"Turn \d+ results|the game begins", sheet.subject):
            sheets.append(sheet)
            if raws is not None:
                raws.append(raw)

    made_under = gm.pbem.archive.creation.EDITION
    gm.pbem.archive.creation.EDITION = edition  # what `gm new` writes into the creation event
    try:
        with tempfile.TemporaryDirectory(prefix="gm-bench-mail-") as temporary:
            store = Store(Path(temporary) / "data")
            clock = [utc_now() - STEP * (2 * turns + 8)]
            master = GameMaster(store, Identity(GM_ADDRESS), lambda: clock[0], Limits(replies_per_day=10 ** 9))
            play(store, master, clock, "g1", turns, random.Random(seed), sent)
    finally:
        gm.pbem.archive.creation.EDITION = made_under
    return sheets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="the turn the game is played to (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the orders (default 1)")
    parser.add_argument("--quick", action="store_true", help="3 turns, for the smoke test")
    parser.add_argument("--parts", action="store_true",
                        help="also where the bytes of the last sheet are, editions 6 and now")
    args = parser.parse_args(argv)
    turns = 3 if args.quick else args.turns

    before, after = sheets_of(turns, args.seed, 3), sheets_of(turns, args.seed, EDITION)
    if not before or not after:
        print("error: no turn sheet was sent", file=sys.stderr)
        return 1
    last, old = after[-1], before[-1]
    mean = statistics.fmean
    print(f"turn sheets sent: {len(after)} (the last: {last.subject!r}), edition {EDITION}; "
          f"beside each figure, the same game's as a game of edition 3 (before)")
    print(f"bytes per turn-sheet mail: {last.size:,} (mean {mean(s.size for s in after):,.0f}); "
          f"edition 3: {old.size:,} (mean {mean(s.size for s in before):,.0f})")
    print(f"bytes of its HTML part as sent: {last.html:,} ({last.html_cte}, {last.html / last.size:.0%} of the mail; "
          f"{last.html_decoded:,} decoded, {last.inline_styles} inline style attributes); edition 3: {old.html:,} "
          f"({old.html_cte}, {old.html / old.size:.0%}; {old.html_decoded:,} decoded, {old.inline_styles} inline style "
          "attributes)")
    print(f"reference bytes of the same sheet's plain text: {last.plain:,} (mean {mean(s.plain for s in after):,.0f})")
    print(f"ratio mail/plain text: {last.size / last.plain:.1f} (edition 3: {old.size / old.plain:.1f})")
    print(f"ratio edition 3/edition {EDITION}: mail {old.size / last.size:.1f}, HTML part {old.html / last.html:.1f}")
    print("target: the same look at a fifth of the size: "
          f"HTML part {'MET' if last.html * 5 <= old.html else 'NOT MET'}, "
          f"whole mail {'MET' if last.size * 5 <= old.size else 'NOT MET'}")
    print(f"target: the whole mail in at most 12,500 bytes (issue 27): {'MET' if last.size <= 12_500 else 'NOT MET'}")
    if args.parts:
        before_parts = parts_of(last_raw(turns, args.seed, 6))
        after_parts = parts_of(last_raw(turns, args.seed, EDITION))
        print(f"the last sheet by part, bytes: {'edition 6':>10} {f'edition {EDITION}':>10}")
        for name in dict.fromkeys([*before_parts, *after_parts]):
            print(f"  {name:<56} {before_parts.get(name, 0):>10,} {after_parts.get(name, 0):>10,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
