"""HTML to the text a reader sees, in bounded time and memory.

Pure: no I/O. `html_to_text` streams the HTML through `html.parser` and
keeps only counters for nesting (no tree is built), so hostile HTML costs
work in proportion to its size, never more:

* at most `MAX_HTML_CHARS` characters of HTML are read (a mail is at most
  1,000,000 bytes on the wire; the player's text comes first anyway);
* a quoted line gets at most `MAX_QUOTE_MARKS` ``>`` marks, however deep
  its ``<blockquote>`` nesting (an HTML bomb of nested blockquotes otherwise
  writes depth x lines marks: gigabytes);
* the text stops after `MAX_TEXT_LINES` lines or `MAX_TEXT_CHARS` characters;
* before parsing, a ``<`` that cannot open a tag (another ``<`` comes before
  its ``>``, or no ``>`` follows) or an unclosed ``<!--`` is read as the
  character ``<``, and declarations (``<!DOCTYPE ...>``, ``<![ ...``) are
  dropped up to their ``>``: `html.parser` (before Python 3.13.4) otherwise rescans the
  rest of the input from each of them, so 100 KB of ``<a<a<a`` took minutes.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["MAX_HTML_CHARS", "MAX_QUOTE_MARKS", "MAX_TEXT_CHARS", "MAX_TEXT_LINES", "html_to_text"]

MAX_HTML_CHARS = 1_000_000
"""Characters of HTML read; the rest is ignored."""
MAX_QUOTE_MARKS = 16
"""``>`` marks written before a quoted line at most, however deep the quote."""
MAX_TEXT_LINES = 20_000
"""Lines of text made from one part at most."""
MAX_TEXT_CHARS = 1_000_000
"""Characters of text made from one part at most."""

_BLOCK = frozenset(
    ["address", "article", "aside", "blockquote", "body", "center", "dd", "details", "dialog", "dir", "div", "dl", "dt",
     "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
     "html", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead",
     "tr", "ul"]
)
_SKIP = frozenset(["script", "style", "head", "title", "template", "noscript"])
_CELL = frozenset(("td", "th"))
_ASCII_SPACE = re.compile(r"[ \t\n\r\f]+")


class _Full(Exception):
    """The text has reached its bounds: stop parsing."""


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.chars = 0
        self.current: list[str] = []
        self.quote_depth = 0
        self.skip_depth = 0
        self.pre_depth = 0
        self.pre_start = False

    # A line is flushed at a block boundary only if it has content; <br> always flushes.
    def _has_content(self) -> bool:
        return any(s.strip(" ") for s in self.current)

    def _flush(self, force: bool) -> None:
        if not force and not self._has_content():
            self.current = []
            return
        line = "".join(self.current).strip(" ").replace("\xa0", " ").rstrip(" ")
        self.current = []
        if self.quote_depth:
            line = ">" * min(self.quote_depth, MAX_QUOTE_MARKS) + (" " + line if line else "")
        self.lines.append(line)
        self.chars += len(line) + 1
        if len(self.lines) >= MAX_TEXT_LINES or self.chars >= MAX_TEXT_CHARS:
            raise _Full

    def handle_starttag(self, tag, attrs):
        if tag in _SKIP:
            self.skip_depth += 1
            return
        if self.skip_depth:
            return
        if tag == "br":
            self._flush(force=True)
        elif tag == "hr":
            self._flush(force=False)
            self.current = ["_" * 32]
            self._flush(force=True)
        elif tag in _BLOCK:
            self._flush(force=False)
            if tag == "blockquote":
                self.quote_depth += 1
            elif tag == "pre":
                self.pre_depth += 1
                self.pre_start = True
        elif tag in _CELL:
            self._space()

    def _space(self) -> None:
        if not (self.current and self.current[-1].endswith(" ")):
            self.current.append(" ")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag in _SKIP:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _SKIP:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth:
            return
        if tag in _BLOCK:
            self._flush(force=False)
            if tag == "blockquote":
                self.quote_depth = max(0, self.quote_depth - 1)
            elif tag == "pre":
                self.pre_depth = max(0, self.pre_depth - 1)
        elif tag in _CELL:
            self._space()

    def handle_data(self, data):
        if self.skip_depth:
            return
        if self.pre_depth:
            if self.pre_start and data.startswith(("\r\n", "\n", "\r")):
                data = data[2:] if data.startswith("\r\n") else data[1:]
            self.pre_start = False
            pieces = data.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for i, piece in enumerate(pieces):
                if i:
                    self._flush(force=True)
                self.current.append(piece.replace(" ", "\xa0"))
            return
        text = _ASCII_SPACE.sub(" ", data)
        if text.startswith(" ") and self.current and self.current[-1].endswith(" "):
            text = text[1:]
        if text:
            self.current.append(text)

    def close(self):
        super().close()
        self._flush(force=False)


def _defuse(html: str) -> str:
    """``html`` with each ``<`` that cannot start a tag or a comment as ``&lt;``.

    Linear: the next ``>`` and ``-->`` are looked up once and reused."""
    out: list[str] = []
    done = 0
    close = comment_end = -1  # the next ">" / "-->" at or after the current "<"; -2: none left
    pos = html.find("<")
    while pos != -1:
        following = html.find("<", pos + 1)
        if html.startswith("<!--", pos):
            if comment_end != -2 and comment_end < pos + 4:
                comment_end = html.find("-->", pos + 4)
                comment_end = -2 if comment_end == -1 else comment_end
            if comment_end >= 0:
                pos = html.find("<", comment_end + 3)
                continue
            bad = True
        elif html.startswith("<!", pos):
            # A declaration (<!DOCTYPE>, <![CDATA[...]]>, or a malformed one on
            # which html.parser fails): dropped up to its ">", as it shows nothing.
            if close != -2 and close < pos:
                close = html.find(">", pos + 1)
                close = -2 if close == -1 else close
            out.append(html[done:pos])
            done = len(html) if close == -2 else close + 1
            pos = html.find("<", done)
            continue
        else:
            if close != -2 and close < pos:
                close = html.find(">", pos + 1)
                close = -2 if close == -1 else close
            bad = close == -2 or (following != -1 and following < close)
        if bad:
            out.append(html[done:pos])
            out.append("&lt;")
            done = pos + 1
        pos = following
    out.append(html[done:])
    return "".join(out)


def _html_lines(html: str) -> list[str] | None:
    parser = _HTMLText()
    try:
        parser.feed(html)
        parser.close()
    except _Full:
        pass
    except Exception:
        return None
    return parser.lines


def html_to_text(html: str) -> str:
    """Text from HTML as a reader sees it: one line per block or ``<br>``.

    Whitespace collapses as in a browser (except in ``<pre>``); entities are
    decoded; script, style and head are dropped; lines inside
    ``<blockquote>`` are marked as quoted with ``>`` (one per level, at most
    `MAX_QUOTE_MARKS`). Leading and trailing blank lines are dropped; the
    text ends with a line break unless it is empty. Only the first
    `MAX_HTML_CHARS` characters are read, and the text is cut after
    `MAX_TEXT_LINES` lines or `MAX_TEXT_CHARS` characters.
    """
    html = _defuse(html[:MAX_HTML_CHARS])
    lines = _html_lines(html)
    if lines is None:
        # html.parser fails (AssertionError) on some malformed declarations
        # such as "<![ x [": drop every declaration but comments and retry.
        lines = _html_lines(re.sub(r"<!(?!--)[^>]*>?", "", html))
    if lines is None:
        lines = [_ASCII_SPACE.sub(" ", re.sub(r"<[^>]*>?", " ", html)).strip()[:MAX_TEXT_CHARS]]
    while lines and not lines[-1].strip():
        lines.pop()
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    lines = lines[start:]
    return "\n".join(lines) + "\n" if lines else ""
