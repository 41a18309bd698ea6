"""Hostile HTTP clients against the web archive (issue 21, row 9): every
answer carries the security headers, also the ones aiohttp itself gives to a
request it cannot parse, before any of gm's handlers sees it; and none names
the server's software or repeats what the client sent.

The site runs in the test's own loop on a loopback port; the requests are
raw bytes over real sockets."""

from __future__ import annotations

import asyncio

import pytest

from gm.pbem.data.store import Store
from gm.web.site import SECURITY, start
from gmtest import run

MALFORMED = {
    "a header without a colon": b"GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
    "an unknown method": b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n",
    "a request line of 9,000 bytes": b"GET /" + b"a" * 9000 + b"<script> HTTP/1.1\r\nHost: x\r\n\r\n",
    "a header of 9,000 bytes": b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"<b>" * 3000 + b"\r\n\r\n",
    "a TLS hello on the HTTP port": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,
    "a bad HTTP version": b"GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    "a control character in a header": b"GET / HTTP/1.1\r\nHost: x\r\nX-Evil: a\x01b\r\n\r\n",
    "two Content-Lengths": b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
}


async def _exchange(address: tuple[str, int], request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(*address)
    try:
        writer.write(request)
        await writer.drain()
        answer = b""
        while len(answer) < 100_000:
            chunk = await asyncio.wait_for(reader.read(65536), 10)
            if not chunk:
                break
            answer += chunk
        return answer
    finally:
        writer.close()


def _answer_to(tmp_path, request: bytes) -> bytes:
    Store(str(tmp_path / "data"))

    async def scenario() -> bytes:
        site, address = await start(str(tmp_path / "data"), "127.0.0.1", 0)
        try:
            return await _exchange(address, request)
        finally:
            await site.cleanup()
    return run(scenario())


@pytest.mark.parametrize("request_bytes", MALFORMED.values(), ids=MALFORMED.keys())
def test_aiohttps_own_400_answers_carry_the_security_headers(tmp_path, request_bytes):
    answer = _answer_to(tmp_path, request_bytes)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.") and b" 400 " in head.split(b"\r\n")[0], answer[:300]
    lines = head.decode("latin-1").split("\r\n")[1:]
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines)}
    for name, value in SECURITY.items():
        assert headers.get(name.lower()) == value, (name, head)
    assert headers["server"] == "gm"
    assert headers["content-type"].startswith("text/plain")
    assert body == b"400: the request could not be read\n", body[:300]


def test_a_normal_404_is_unchanged(tmp_path):
    answer = _answer_to(tmp_path, b"GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"\r\nX-Content-Type-Options: nosniff\r\n" in answer and b"\r\nServer: gm\r\n" in answer
    assert answer.endswith(b"\r\n\r\n404: no such page (only finished games are shown)\n")
