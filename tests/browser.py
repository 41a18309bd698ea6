"""Headless Chromium for the tests of the HTML mail: find it, run it with a
time limit and a fresh profile, and read what it makes (the DOM it dumps,
the PNG screenshots it takes) with the standard library only."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    # Without the networking flags its connections are refused here; the
    # rest keep a headless run quick, quiet and the same on every machine.
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
    "--force-color-profile=srgb", "--lang=en-US",
)
TIMEOUT = 60.0


def find_chromium() -> str | None:
    """The Chromium to use: $GM_CHROMIUM, or the first of NAMES on the PATH."""
    chosen = os.environ.get("GM_CHROMIUM")
    if chosen:
        return shutil.which(chosen) or (chosen if os.access(chosen, os.X_OK) else None)
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One binary; every run gets a new profile directory, removed after."""

    def __init__(self, binary: str, timeout: float = TIMEOUT):
        self.binary = binary
        self.timeout = timeout

    def run(self, url: str, *args: str) -> str:
        """Run headless on ``url`` with extra ``args``; its standard output."""
        with tempfile.TemporaryDirectory(prefix="gm-chromium-", ignore_cleanup_errors=True) as profile:
            command = [self.binary, *FLAGS, f"--user-data-dir={profile}", *args, url]
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=True)
            try:
                out, err = process.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise AssertionError(f"chromium took longer than {self.timeout:.0f} s: {' '.join(command)}") from None
            finally:
                _kill_group(process)  # helpers it may have left behind in its session
            if process.returncode != 0:
                raise AssertionError(f"chromium exited {process.returncode}: {' '.join(command)}\n"
                                     + err.decode(errors="replace")[-3000:])
            return out.decode("utf-8", errors="replace")

    def dump_dom(self, page: Path, width: int = 1024, height: int = 2400) -> str:
        """The DOM after the page has loaded and its scripts have run."""
        return self.run(page.as_uri(), f"--window-size={width},{height}", "--virtual-time-budget=2000", "--dump-dom")

    def screenshot(self, page: Path, out: Path, width: int, height: int) -> Path:
        """A PNG of the window (``width`` x ``height``) showing the page."""
        out.unlink(missing_ok=True)
        self.run(page.as_uri(), f"--window-size={width},{height}", "--virtual-time-budget=2000", f"--screenshot={out}")
        assert out.is_file(), f"chromium wrote no screenshot to {out}"
        return out


def _kill_group(process: subprocess.Popen) -> None:
    """End the process group of a Chromium this module started (it leads it)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


# --- measuring the layout in a window of a given width -----------------------

MEASURED = re.compile(r'<pre id="gm-measure">(.*?)</pre>', re.S)

_FRAME = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>measure</title></head><body style="margin:0">
<iframe id="sheet" style="width:{width}px;height:{height}px;border:0;display:block" srcdoc="{srcdoc}"></iframe>
<script>
document.getElementById("sheet").addEventListener("load", function () {{
  var doc = this.contentDocument, root = doc.documentElement, over = [];
  function box(e) {{ if (!e) return null; var r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }}
  doc.querySelectorAll("body *").forEach(function (e) {{
    var r = e.getBoundingClientRect();
    if (r.right > root.clientWidth + 0.5) {{
      over.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "")
                + " right=" + Math.round(r.right));
    }}
  }});
  var out = {{
    scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, innerWidth: this.contentWindow.innerWidth,
    bodyHeight: doc.body.getBoundingClientRect().bottom, overflowing: over.slice(0, 30),
    smallestCell: Array.prototype.reduce.call(doc.querySelectorAll("table.grid td"), function (m, td) {{
      var r = td.getBoundingClientRect(); return [Math.min(m[0], r.width), Math.min(m[1], r.height)];
    }}, [1e9, 1e9]),
    colours: Array.prototype.map.call(doc.querySelectorAll("div.colour"), function (d) {{
      return {{own: box(d.querySelector("table.grid.own")), known: box(d.querySelector("table.grid.known"))}};
    }})
  }};
  var p = document.createElement("pre");
  p.id = "gm-measure";
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
}});
</script></body></html>
"""


def measuring_page(sheet: str, width: int, height: int = 8000) -> str:
    """A page that shows ``sheet`` in an iframe ``width`` pixels wide (as a
    mail client's reading pane would) and writes the iframe document's
    layout into its own DOM as JSON, for `measured` to read from --dump-dom.

    A frame, not --window-size: headless Chromium keeps its window at least
    500 pixels wide when dumping the DOM, but a frame can be any width. The
    frame is taller than the sheet so that no vertical scrollbar takes width.
    The sheet goes in ``srcdoc`` so that it shares the page's origin."""
    return _FRAME.format(width=width, height=height, srcdoc=html.escape(sheet, quote=True))


def measured(dom: str) -> dict:
    found = MEASURED.search(dom)
    assert found, "the measuring script wrote nothing (did the frame load?):\n" + dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


_SHOWN = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>shown</title></head><body style="margin:0">
<iframe id="sheet" style="width:{width}px;height:{height}px;border:0;display:block" srcdoc="{srcdoc}"></iframe>
<script>
document.getElementById("sheet").addEventListener("load", function () {{
  var doc = this.contentDocument, view = this.contentWindow;
  function behind(e) {{
    for (; e; e = e.parentElement) {{
      var colour = view.getComputedStyle(e).backgroundColor;
      if (colour !== "transparent" && colour !== "rgba(0, 0, 0, 0)") return colour;
    }}
    return "canvas";
  }}
  var out = Array.prototype.map.call(doc.querySelectorAll({selector}), function (e) {{
    var style = view.getComputedStyle(e);
    return {{tag: e.tagName.toLowerCase(), id: e.id, classes: e.className, text: e.textContent,
             background: behind(e), color: style.color, font: style.fontFamily}};
  }});
  var p = document.createElement("pre");
  p.id = "gm-measure";
  p.textContent = JSON.stringify(out);
  document.body.appendChild(p);
}});
</script></body></html>
"""


def shown_page(sheet: str, selector: str, width: int = 1024, height: int = 8000) -> str:
    """A page that shows ``sheet`` in an iframe and writes into its own DOM,
    as JSON for `shown`, what Chromium displays of each element of the sheet
    that the CSS ``selector`` picks, in document order: its tag, id,
    classes and text, its computed colour and font family, and the
    background a reader sees behind it (its own computed background colour,
    or the first ancestor's that is not transparent; "canvas" if none is),
    so that a test checks what is displayed, however the sheet styles it."""
    assert "<" not in selector, selector
    return _SHOWN.format(width=width, height=height, srcdoc=html.escape(sheet, quote=True),
                         selector=json.dumps(selector))


def shown(dom: str) -> list[dict]:
    found = MEASURED.search(dom)
    assert found, "the script wrote nothing (did the frame load?):\n" + dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


def rgb(colour: str) -> str:
    """``#9ecae1`` as getComputedStyle writes it: ``rgb(158, 202, 225)``."""
    red, green, blue = hex_colour(colour)
    return f"rgb({red}, {green}, {blue})"


# --- PNG ------------------------------------------------------------------------

@dataclass
class Image:
    width: int
    height: int
    channels: int
    rows: list[bytes]

    def colours(self) -> Counter:
        """How many pixels have each (r, g, b) colour (alpha is ignored)."""
        counts: Counter = Counter()
        c = self.channels
        for row in self.rows:
            counts.update(zip(row[0::c], row[1::c], row[2::c]))
        return counts


def hex_colour(text: str) -> tuple[int, int, int]:
    text = text.lstrip("#")
    return (int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16))


def read_png(data: bytes) -> Image:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    assert header is not None, "PNG without IHDR"
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    assert len(raw) == height * (stride + 1), "PNG data of the wrong length"
    rows: list[bytes] = []
    previous = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        row = _unfilter(raw[start], raw[start + 1:start + 1 + stride], previous, channels)
        rows.append(row)
        previous = row
    return Image(width, height, channels, rows)


@lru_cache(maxsize=8)
def _byte_masks(n: int) -> tuple[int, int]:
    return int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")


def _unfilter(kind: int, line: bytes, previous: bytes, bpp: int) -> bytes:
    if kind == 0:
        return line
    if kind == 2:  # Up: a bytewise sum mod 256, done on the whole row at once
        n = len(line)
        low, high = _byte_masks(n)
        a, b = int.from_bytes(line, "big"), int.from_bytes(previous, "big")
        return (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(n, "big")
    out = bytearray(line)
    n = len(out)
    if kind == 1:  # Sub
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 3:  # Average
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + previous[i]) >> 1)) & 0xFF
    elif kind == 4:  # Paeth
        for i in range(n):
            up = previous[i]
            if i >= bpp:
                left, corner = out[i - bpp], previous[i - bpp]
            else:
                left = corner = 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            if pa <= pb and pa <= pc:
                predictor = left
            elif pb <= pc:
                predictor = up
            else:
                predictor = corner
            out[i] = (out[i] + predictor) & 0xFF
    else:
        raise AssertionError(f"unknown PNG filter type {kind}")
    return bytes(out)
