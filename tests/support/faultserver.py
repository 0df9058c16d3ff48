"""A loopback HTTP server that misbehaves on purpose, for faults the emulator cannot make.

It speaks just enough HTTP/1.1 over a raw asyncio socket server to break a response anywhere:
reset the connection halfway through a body, never answer, close without answering, or send a
status and body of the test's choosing. Every other request is forwarded to an in-process
emulator app, so a test can compare what got through with the right answer.

Each request takes the next reply of the script; the last reply repeats. `write_org_file`
makes the small organizations (chosen keys and labels) that these tests serve through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import struct
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from http import HTTPStatus
from pathlib import Path
from typing import Literal, Self

import httpx

Action = Literal["answer", "reset", "hang", "close"]


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Without `body` the emulator's answer is sent (after `transform`)."""

    status: int | None = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    action: Action = "answer"
    transform: Callable[[bytes], bytes] | None = None


PASS = Reply()


@dataclass
class Seen:
    """A request as it arrived, and the trace id the server stamped on its answer."""

    method: str
    target: str
    headers: dict[str, str]
    trace_id: str


class FaultServer:
    """`with FaultServer(app, [Reply(503), PASS]) as server:` then point clients at base_url."""

    def __init__(self, upstream: object | None, script: list[Reply] | None = None) -> None:
        self.upstream = upstream
        self.script = list(script or [PASS])
        self.seen: list[Seen] = []
        self.base_url = ""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._http: httpx.AsyncClient | None = None

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    async def _start(self) -> None:
        if self.upstream is not None:
            self._http = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=self.upstream),  # type: ignore[arg-type]
                base_url="http://upstream",
            )
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}"

    async def _stop(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._http is not None:
            await self._http.aclose()

    def _next_reply(self) -> Reply:
        index = min(len(self.seen), len(self.script) - 1)
        return self.script[index]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if request is None:
                return
            method, target, headers, body = request
            reply = self._next_reply()
            trace_id = f"fault-{len(self.seen)}-{uuid.uuid4().hex[:8]}"
            self.seen.append(Seen(method, target, headers, trace_id))
            await self._answer(reply, method, target, headers, body, trace_id, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            if not writer.is_closing():
                writer.close()

    async def _answer(
        self,
        reply: Reply,
        method: str,
        target: str,
        headers: dict[str, str],
        body: bytes,
        trace_id: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        if reply.action == "close":
            return
        if reply.action == "hang":
            # Say nothing until the client gives up (bounded, so a broken test cannot hang).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader.read(), timeout=15)
            return
        status, content, content_type = reply.status, reply.body, reply.content_type
        if content is None:
            status, content, content_type = await self._forward(method, target, headers, body)
            if reply.transform is not None:
                content = reply.transform(content)
            status = reply.status or status
        status = status or 200
        phrase = HTTPStatus(status).phrase
        lines = [
            f"HTTP/1.1 {status} {phrase}",
            f"Content-Type: {content_type}",
            f"Content-Length: {len(content)}",
            f"X-Trace-ID: {trace_id}",
            "Connection: close",
            *(f"{name}: {value}" for name, value in reply.headers.items()),
        ]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        if reply.action == "reset":
            writer.write(content[: len(content) // 2])
            await writer.drain()
            raw = writer.get_extra_info("socket")
            # Linger 0: close() sends RST instead of FIN, as a crashed proxy would.
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return
        writer.write(content)
        await writer.drain()

    async def _forward(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, bytes, str]:
        assert self._http is not None, "a forwarding reply needs an upstream app"
        passed = {k: v for k, v in headers.items() if k in ("authorization", "content-type")}
        response = await self._http.request(method, target, headers=passed, content=body)
        return (
            response.status_code,
            response.content,
            response.headers.get("content-type", "application/json"),
        )


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, dict[str, str], bytes] | None:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = await reader.readexactly(length) if length else b""
    return parts[0], parts[1], headers, body


def write_org_file(path: Path, labels: dict[str, str], days: list[date], admin: str) -> Path:
    """An emulator organization file: the given keys and labels, usage on every given day.

    `admin` is the administrator key (also enrolled in the detection beta); the numbers differ
    per key and day so that sums and orderings are checkable.
    """
    lines = []
    for key, label in labels.items():
        flags = "admin = true\ndetect_beta = true\n" if key == admin else ""
        lines.append(f"[[keys]]\nkey = {_toml(key)}\nlabel = {_toml(label)}\n{flags}")
    for k, key in enumerate(labels):
        for d, day in enumerate(days):
            lines.append(
                f"[[usage]]\nkey = {_toml(key)}\ndate = {day.isoformat()}\n"
                f"text_translation_characters = {1000 * (k + 1) + d}\n"
                f"document_translation_characters = {100 * k + 7 * d}\n"
                f"text_improvement_characters = {k + d}\n"
                f"speech_to_text_minutes = {0.25 * (k + d)}\n"
                f"speech_to_speech_minutes = {0.5 * k}\n"
            )
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _toml(text: str) -> str:
    """A TOML basic string (JSON string escapes are valid TOML escapes)."""
    return json.dumps(text, ensure_ascii=False)
