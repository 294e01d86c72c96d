"""The buffering front ``./run`` puts before gunicorn (``concord.serve`` starts both).

gunicorn's sync workers serve one connection at a time, from the moment they
accept it until they have answered: a client that is slow to send its request,
or sends nothing at all, holds a whole worker while it dawdles (three idle
connections hold ``./run``'s three workers, and every other request waits).
The front takes the clients' connections instead, with asyncio, where a slow
client costs a socket and a coroutine; a worker only ever talks to the front, at
memory speed:

- a request is read whole before gunicorn hears of it: its head within
  ``header_timeout`` seconds of the connection (or of its first byte on a kept-alive
  one; a connection idle for ``idle_timeout`` is closed), its body with no pause
  longer than ``body_timeout``; a body over ``body_memory`` bytes is spooled to a
  temporary file, all such files together at most ``spool_budget`` bytes (503 with
  ``Retry-After`` beyond: they wait for their turn);
- then it goes to gunicorn on a Unix socket, one connection per request, behind a
  PROXY protocol line with the client's address (Django's ``REMOTE_ADDR``, which
  login throttling counts by);
- the answer is read as fast as gunicorn writes it, held in memory up to
  ``response_memory`` bytes and beyond that in a temporary file (within the same
  budget; past it the front reads no faster than the client), and sent on at the
  client's pace: a client that takes nothing for ``send_timeout`` seconds is dropped.

What it refuses, it answers itself (a line of text; JSON under /api/): 400 (a request it cannot
frame), 408 (too slow), 411 (a chunked request body: Django reads only bodies
with a Content-Length), 413 (a body over ``max_body``, which is Django's
``CONCORD_MAX_UPLOAD_BYTES``), 417, 431 (a head over ``max_head``), 502 (gunicorn
ended the request without answering: a request still running after the request
timeout is stopped), 503 (gunicorn not there, or the spool budget spent). Every
other answer is gunicorn's, byte for byte but for the ``Connection`` header.

On servers nginx (or another buffering proxy) stands in front of gunicorn instead:
docs/operations.md, "Slow clients and the buffering front".
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import re
import tempfile
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

#: The request's own framing and the connection's: never passed on (RFC 9110, 7.6.1).
HOP_BY_HOP = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"te", b"trailer", b"transfer-encoding", b"upgrade"}
)
TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
REQUEST_LINE = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e]+) HTTP/(1\.[01])")
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([0-9]{3})(?: [^\r\n]*)?")
FIELD_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")
CHUNK = 64 * 1024
REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    417: "Expectation Failed",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Limits:
    header_timeout: float = 10.0
    idle_timeout: float = 15.0
    body_timeout: float = 30.0
    send_timeout: float = 60.0
    max_head: int = 64 * 1024
    max_body: int = 50 * 2**20
    body_memory: int = 64 * 1024
    response_memory: int = 256 * 1024
    spool_budget: int = 256 * 2**20
    max_connections: int = 4096


class Refused(Exception):
    """A request the front answers itself, and then closes the connection."""

    def __init__(self, status: int, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class Gone(Exception):
    """The client closed its connection, or never finished: nothing to answer."""


@dataclass
class Head:
    method: bytes
    target: bytes
    version: bytes
    fields: list[tuple[bytes, bytes]]  # (name as sent, value), in order

    def values(self, name: bytes) -> list[bytes]:
        return [value for key, value in self.fields if key.lower() == name]

    @property
    def keep_alive(self) -> bool:
        tokens = {t.strip().lower() for v in self.values(b"connection") for t in v.split(b",")}
        return self.version == b"1.1" and b"close" not in tokens


def parse_request_head(data: bytes) -> Head:
    """The request line and fields of a head (its final CRLF CRLF removed), strictly:
    what gunicorn would refuse, or read otherwise than the front, is refused here."""
    lines = data.split(b"\r\n")
    match = REQUEST_LINE.fullmatch(lines[0])
    if match is None:
        raise Refused(400, "The request line is not an HTTP/1.x request line.")
    fields = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or TOKEN.fullmatch(name) is None:
            raise Refused(400, "A header line is not a name, a colon and a value.")
        value = value.strip(b" \t")
        if FIELD_VALUE.fullmatch(value) is None:
            raise Refused(400, f"The header {name.decode()} holds a control character.")
        fields.append((name, value))
    return Head(match.group(1), match.group(2), match.group(3), fields)


def body_length(head: Head, limits: Limits) -> int:
    if head.values(b"transfer-encoding"):
        raise Refused(411, "A request body must come with a Content-Length (no Transfer-Encoding).")
    values = set(head.values(b"content-length"))
    if not values:
        return 0
    value = values.pop() if len(values) == 1 else b""
    if not value.isdigit() or len(value) > 18:  # bytes.isdigit: ASCII digits only
        raise Refused(400, "The Content-Length is not one whole number.")
    length = int(value)
    if length > limits.max_body:
        raise Refused(413, f"The request is too large: uploads are limited to {size_text(limits.max_body)}.")
    return length


def size_text(n: int) -> str:
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"


def refusal(refused: Refused, api: bool) -> bytes:
    """The answer to a refused request: JSON ``{"detail": ...}`` under /api/ (as the API's own
    refusals), else a line of text."""
    if api:
        body = json.dumps({"detail": refused.message, **({"field": "body"} if refused.status in (411, 413) else {})})
        kind = "application/json"
    else:
        body, kind = refused.message + "\n", "text/plain; charset=utf-8"
    data = body.encode()
    retry = f"Retry-After: {refused.retry_after}\r\n" if refused.retry_after is not None else ""
    return (
        f"HTTP/1.1 {refused.status} {REASONS[refused.status]}\r\nContent-Type: {kind}\r\n"
        f"Content-Length: {len(data)}\r\n{retry}Connection: close\r\n\r\n"
    ).encode() + data


class Budget:
    """Bytes that spooled bodies and answers may take on disk, all together."""

    def __init__(self, total: int) -> None:
        self.left = total

    def take(self, n: int) -> bool:
        if n > self.left:
            return False
        self.left -= n
        return True

    def give(self, n: int) -> None:
        self.left += n


class Spool:
    """A queue of bytes: in memory up to ``memory`` bytes, then in a temporary file
    (counted against ``budget``), read back in the order it came."""

    def __init__(self, memory: int, budget: Budget) -> None:
        self.memory = memory
        self.budget = budget
        self.chunks: deque[bytes] = deque()
        self.in_memory = 0
        self.file: BinaryIO | None = None
        self.written = self.read = self.taken = 0
        self.ended = False
        self.changed = asyncio.Event()

    @property
    def size(self) -> int:
        return self.in_memory + self.written - self.read

    def room(self, n: int) -> bool:
        """Whether ``n`` more bytes fit now: in memory, or in the file within the budget
        (then taken from it until they have been read)."""
        if self.file is None and self.in_memory + n <= self.memory:
            return True
        if not self.budget.take(n):
            return False
        self.taken += n
        return True

    def put(self, data: bytes) -> None:
        """Queue ``data`` (past the memory, in the file: room() first says whether it may)."""
        if self.file is None and self.in_memory + len(data) <= self.memory:
            self.chunks.append(data)
            self.in_memory += len(data)
        else:
            if self.file is None:
                self.file = tempfile.TemporaryFile(prefix="concord-front-")  # noqa: SIM115 - closed by close()
            os.pwrite(self.file.fileno(), data, self.written)
            self.written += len(data)
        self.changed.set()

    def end(self) -> None:
        self.ended = True
        self.changed.set()

    async def get(self) -> bytes | None:
        """The next bytes in order, or None once the end is reached."""
        while True:
            if self.chunks:
                data = self.chunks.popleft()
                self.in_memory -= len(data)
                self.changed.set()
                return data
            if self.file is not None and self.read < self.written:
                data = os.pread(self.file.fileno(), min(4 * CHUNK, self.written - self.read), self.read)
                self.read += len(data)
                if self.read == self.written:
                    self.close()  # all read: the disk and the budget back, and memory first again
                    self.written = self.read = 0
                self.changed.set()
                return data
            if self.ended:
                return None
            self.changed.clear()
            await self.changed.wait()

    async def drained(self) -> None:
        """Until everything queued has been read (the reader keeps up again)."""
        while self.size:
            self.changed.clear()
            await self.changed.wait()

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.budget.give(self.taken)
        self.taken = 0


class Connection:
    """One client's connection: the bytes it sent that are not read yet, and the deadlines."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.buffer = bytearray()
        self.api = False  # the request being read is for the API: refusals in JSON

    async def fill(self, timeout: float) -> bool:
        """Read more into the buffer: False at the end of the stream; TimeoutError after ``timeout``."""
        data = await asyncio.wait_for(self.reader.read(CHUNK), timeout)
        self.buffer += data
        return bool(data)

    async def head(self, limits: Limits, first: bool) -> bytes | None:
        """The next request's head (without its final empty line), or None when the client
        sent nothing of one: it closed, or stayed idle. A new connection has
        ``header_timeout`` for its whole head; a kept-alive one may idle for
        ``idle_timeout``, then has ``header_timeout`` from the first byte of its next request."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limits.header_timeout if first else None
        while True:
            while self.buffer[:2] == b"\r\n":
                del self.buffer[:2]  # empty lines before a request are allowed (RFC 9112, 2.2)
            end = self.buffer.find(b"\r\n\r\n")
            if end > limits.max_head:
                raise Refused(431, f"The request's head is larger than {limits.max_head} bytes.")
            if end >= 0:
                head = bytes(self.buffer[:end])
                del self.buffer[: end + 4]
                return head
            if len(self.buffer) > limits.max_head:
                raise Refused(431, f"The request's head is larger than {limits.max_head} bytes.")
            if deadline is None and self.buffer:
                deadline = loop.time() + limits.header_timeout
            wait = limits.idle_timeout if deadline is None else deadline - loop.time()
            try:
                more = await self.fill(max(wait, 0.0))
            except TimeoutError:
                if not self.buffer:
                    return None  # idle: closed without a word
                raise Refused(408, f"The request's head did not arrive within {limits.header_timeout:g} s.") from None
            if not more:
                if self.buffer:
                    raise Gone
                return None

    async def body(self, length: int, limits: Limits, budget: Budget) -> Spool:
        spool = Spool(limits.body_memory, budget)
        try:
            if length > limits.body_memory and not spool.room(length):
                raise Refused(
                    503, "The server is receiving too many large requests at once: try again shortly.", retry_after=5
                )
            left = length
            while left:
                if not self.buffer:
                    try:
                        more = await self.fill(limits.body_timeout)
                    except TimeoutError:
                        raise Refused(
                            408, f"The request's body stopped arriving for {limits.body_timeout:g} s."
                        ) from None
                    if not more:
                        raise Gone
                data = bytes(self.buffer[:left])
                del self.buffer[: len(data)]
                spool.put(data)
                left -= len(data)
            spool.end()
            return spool
        except BaseException:
            spool.close()
            raise


class Front:
    def __init__(self, upstream: str, limits: Limits) -> None:
        self.upstream = upstream
        self.limits = limits
        self.budget = Budget(limits.spool_budget)
        self.connections = 0

    async def serve(self, host: str, port: int) -> asyncio.Server:
        return await asyncio.start_server(self.handle, host, port, limit=self.limits.max_head, backlog=1024)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        connection = Connection(reader, writer)
        try:
            if self.connections > self.limits.max_connections:
                busy = Refused(503, "The server has too many connections open: try again shortly.", retry_after=5)
                writer.write(refusal(busy, api=False))
                await asyncio.wait_for(writer.drain(), self.limits.send_timeout)
                return
            first = True
            while await self.exchange(connection, first):
                first = False
        except Refused as refused:
            with contextlib.suppress(OSError, TimeoutError):
                writer.write(refusal(refused, connection.api))
                await asyncio.wait_for(writer.drain(), self.limits.send_timeout)
        except (Gone, OSError, TimeoutError, asyncio.IncompleteReadError):
            pass
        finally:
            self.connections -= 1
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 5)

    async def exchange(self, connection: Connection, first: bool) -> bool:
        """One request and its answer: whether the connection stays open for another."""
        raw = await connection.head(self.limits, first)
        if raw is None:
            return False
        connection.api = raw.partition(b" ")[2].startswith(b"/api/")
        head = parse_request_head(raw)
        length = body_length(head, self.limits)
        expect = [v.lower() for v in head.values(b"expect")]
        if expect and expect != [b"100-continue"]:
            raise Refused(417, "The only expectation this server meets is 100-continue.")
        if expect and length and not connection.buffer:
            connection.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = await connection.body(length, self.limits, self.budget)
        try:
            return await self.forward(connection, head, body)
        finally:
            body.close()

    def upstream_head(self, connection: Connection, head: Head) -> bytes:
        client = connection.writer.get_extra_info("peername") or ("0.0.0.0", 0)
        server = connection.writer.get_extra_info("sockname") or ("0.0.0.0", 0)
        family = "TCP6" if ipaddress.ip_address(client[0]).version == 6 else "TCP4"
        named = {t.strip().lower() for v in head.values(b"connection") for t in v.split(b",")}
        lines = [
            f"PROXY {family} {client[0]} {server[0]} {client[1]} {server[1]}".encode(),
            b"%s %s HTTP/%s" % (head.method, head.target, head.version),
            *(
                b"%s: %s" % (name, value)
                for name, value in head.fields
                if name.lower() not in HOP_BY_HOP and name.lower() not in named and name.lower() != b"expect"
            ),
            b"Connection: close",
        ]
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def forward(self, connection: Connection, head: Head, body: Spool) -> bool:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream, limit=self.limits.max_head)
        except OSError:
            raise Refused(503, "The server is starting or stopping: try again shortly.", retry_after=5) from None
        try:
            up_writer.write(self.upstream_head(connection, head))
            while (data := await body.get()) is not None:
                up_writer.write(data)
                await up_writer.drain()
            return await self.answer(connection, head, up_reader)
        finally:
            up_writer.close()

    async def answer(self, connection: Connection, request: Head, up_reader: asyncio.StreamReader) -> bool:
        try:
            raw = await up_reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
            raise Refused(
                502,
                "The server ended this request without answering (a request still running after "
                "the time limit is stopped).",
            ) from None
        lines = raw[:-4].split(b"\r\n")
        status = STATUS_LINE.fullmatch(lines[0])
        if status is None:
            raise Refused(502, "The server's answer could not be read.")
        code = int(status.group(1))
        fields = [line.partition(b":") for line in lines[1:]]
        names = {name.strip().lower() for name, _, _ in fields}
        lengths = {value.strip() for name, _, value in fields if name.strip().lower() == b"content-length"}
        no_body = request.method == b"HEAD" or code in (204, 304)
        length = int(next(iter(lengths))) if len(lengths) == 1 and next(iter(lengths)).isdigit() else None
        # Kept alive only when the answer says where it ends; a chunked one may be cut
        # short (a worker stopped mid-answer), which only the end of the stream tells.
        keep = (
            request.keep_alive
            and code >= 200
            and (no_body or (length is not None and b"transfer-encoding" not in names))
        )
        out = [
            lines[0],
            *(
                line
                for line, (name, _, _) in zip(lines[1:], fields)
                if name.strip().lower() not in {b"connection", b"keep-alive"}
            ),
        ]
        out.append(b"Connection: keep-alive" if keep else b"Connection: close")
        head = b"\r\n".join(out) + b"\r\n\r\n"
        if no_body:  # whatever might follow the head is not this answer's: never passed on
            connection.writer.write(head)
            await asyncio.wait_for(connection.writer.drain(), self.limits.send_timeout)
            return keep
        sent = await self.relay(connection, head, up_reader)
        return keep and sent == length

    async def relay(self, connection: Connection, head: bytes, up_reader: asyncio.StreamReader) -> int:
        """Send the answer's head and body to the client at its pace, reading gunicorn's as
        fast as it comes; the body's length."""
        spool = Spool(self.limits.response_memory, self.budget)
        spool.put(head)

        async def take_in() -> None:
            try:
                while data := await up_reader.read(min(4 * CHUNK, self.limits.response_memory)):
                    if not spool.room(len(data)):
                        # The budget is spent: no faster than the client reads (then in memory).
                        await spool.drained()
                    spool.put(data)
            finally:
                spool.end()

        reading = asyncio.ensure_future(take_in())
        sent = -len(head)
        try:
            while (data := await spool.get()) is not None:
                connection.writer.write(data)
                sent += len(data)
                await asyncio.wait_for(connection.writer.drain(), self.limits.send_timeout)
            await reading
            return sent
        finally:
            reading.cancel()
            with contextlib.suppress(BaseException):
                await reading
            spool.close()
