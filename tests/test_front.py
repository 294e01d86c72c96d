"""concord/front.py, the buffering front before gunicorn, against fake gunicorns on a
Unix socket: what reaches gunicorn (whole requests, the client's address, no hop-by-hop
fields), what the front answers itself, and that a slow or idle client never holds the
upstream. (tests/faults/test_slow_clients.py runs it before the real gunicorn.)"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import pytest

from concord.front import Front, Limits

HANG_GUARD = 30  # seconds: a guard against a test hanging, never what a test asserts


@dataclass
class Upstream:
    """What the fake gunicorn saw: each connection's bytes, and when it finished answering."""

    requests: list[bytes] = field(default_factory=list)
    answered: threading.Event = field(default_factory=threading.Event)


@dataclass
class Running:
    port: int
    upstream: Upstream
    front: Front


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return head + (await reader.readexactly(length) if length else b"")


def echo(upstream: Upstream, request: bytes) -> bytes:
    """The answer of the default fake gunicorn: what it received, as JSON."""
    body = json.dumps({"received": request.decode("latin-1")}).encode()
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body)
    return head + (body if b"\r\nHEAD " not in request else b"")


@contextmanager
def running(
    answer: Callable[[Upstream, bytes], bytes | None] = echo, socket_path: str | None = None, **limits
) -> Iterator[Running]:
    """A Front on a free loopback port, before a fake gunicorn that reads a whole request
    and writes ``answer(upstream, request)`` (None: closes without a word)."""
    directory = tempfile.TemporaryDirectory(prefix="front-")  # short: a socket's path is at most 107 bytes
    path = socket_path or os.path.join(directory.name, "up.sock")
    upstream = Upstream()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def gunicorn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(OSError, asyncio.IncompleteReadError):
            request = await read_request(reader)
            upstream.requests.append(request)
            data = answer(upstream, request)
            if data is not None:
                writer.write(data)
                await writer.drain()
                upstream.answered.set()
        writer.close()

    async def start() -> tuple[asyncio.AbstractServer | None, asyncio.Server, Front]:
        unix = await asyncio.start_unix_server(gunicorn, path) if socket_path is None else None
        front = Front(path, Limits(**limits))
        server = await front.serve("127.0.0.1", 0)
        return unix, server, front

    unix, server, front = asyncio.run_coroutine_threadsafe(start(), loop).result(HANG_GUARD)
    try:
        yield Running(server.sockets[0].getsockname()[1], upstream, front)
    finally:

        async def stop() -> None:
            server.close()
            if unix is not None:
                unix.close()
            others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(HANG_GUARD)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(HANG_GUARD)
        loop.close()
        directory.cleanup()


def connect(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)
    return connection


@dataclass
class Answer:
    status: int
    fields: dict[str, str]
    body: bytes


class Reader:
    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.buffer = b""

    def more(self) -> bool:
        data = self.connection.recv(65536)
        self.buffer += data
        return bool(data)

    def answer(self, *, head_only: bool = False) -> Answer:
        while b"\r\n\r\n" not in self.buffer:
            assert self.more(), f"closed before an answer: {self.buffer!r}"
        raw, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        status = int(lines[0].split()[1])
        if head_only or status < 200:
            return Answer(status, fields, b"")
        if "content-length" in fields:
            length = int(fields["content-length"])
            while len(self.buffer) < length:
                assert self.more(), "closed in the middle of the body"
            body, self.buffer = self.buffer[:length], self.buffer[length:]
        else:
            while self.more():
                pass
            body, self.buffer = self.buffer, b""
        return Answer(status, fields, body)

    def closed(self) -> bool:
        """Whether the server closes the connection, sending nothing more."""
        return not self.more() and not self.buffer


def exchange(port: int, request: bytes) -> Answer:
    with connect(port) as connection:
        connection.sendall(request)
        return Reader(connection).answer()


def received(answer: Answer) -> str:
    return json.loads(answer.body)["received"]


# -- what reaches gunicorn ----------------------------------------------------------------


def test_a_request_reaches_gunicorn_whole_with_the_clients_address_and_no_hop_by_hop_fields():
    with running() as run, connect(run.port) as connection:
        body = b"x" * 200_000  # over body_memory: spooled to a file on the way
        connection.sendall(
            b"POST /api/things/?a=1 HTTP/1.1\r\nHost: here\r\nKeep-Alive: 5\r\nConnection: keep-alive, X-Hop\r\n"
            b"X-Hop: 1\r\nX-Kept: yes\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        answer = Reader(connection).answer()
        client_port = connection.getsockname()[1]
    assert answer.status == 200
    sent = received(answer)
    head, _, got = sent.partition("\r\n\r\n")
    lines = head.split("\r\n")
    assert lines[0] == f"PROXY TCP4 127.0.0.1 127.0.0.1 {client_port} {run.port}"
    assert lines[1:] == [
        "POST /api/things/?a=1 HTTP/1.1",
        "Host: here",
        "X-Kept: yes",
        f"Content-Length: {len(body)}",
        "Connection: close",
    ]
    assert got.encode("latin-1") == body
    assert run.front.budget.left == Limits().spool_budget  # the spooled body's share given back


def test_a_kept_alive_connection_carries_requests_one_after_another_and_pipelined():
    with running() as run, connect(run.port) as connection:
        reader = Reader(connection)
        connection.sendall(b"GET /one HTTP/1.1\r\nHost: h\r\n\r\n")
        first = reader.answer()
        connection.sendall(b"GET /two HTTP/1.1\r\nHost: h\r\n\r\nHEAD /three HTTP/1.1\r\nHost: h\r\n\r\n")
        second = reader.answer()
        third = reader.answer(head_only=True)
        connection.sendall(b"GET /four HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        fourth = reader.answer()
        assert reader.closed()
    assert [a.status for a in (first, second, third, fourth)] == [200] * 4
    assert [a.fields["connection"] for a in (first, second, third, fourth)] == ["keep-alive"] * 3 + ["close"]
    assert [r.split(b"\r\n")[1] for r in run.upstream.requests] == [
        b"GET /one HTTP/1.1",
        b"GET /two HTTP/1.1",
        b"HEAD /three HTTP/1.1",
        b"GET /four HTTP/1.1",
    ]


def test_http_1_0_and_answers_without_a_length_close_the_connection():
    def chunked(upstream, request):
        return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"

    with running() as run:
        old = exchange(run.port, b"GET / HTTP/1.0\r\n\r\n")
    with running(chunked) as run:
        streamed = exchange(run.port, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    assert (old.status, old.fields["connection"]) == (200, "close")
    assert (streamed.fields["connection"], streamed.body) == ("close", b"5\r\nhello\r\n0\r\n\r\n")


def test_expect_100_continue_is_met_by_the_front():
    with running() as run, connect(run.port) as connection:
        reader = Reader(connection)
        connection.sendall(b"PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
        interim = reader.answer()
        connection.sendall(b"abc")
        final = reader.answer()
    assert (interim.status, final.status) == (100, 200)
    assert "expect" not in received(final).lower() and received(final).endswith("\r\n\r\nabc")


# -- what the front answers itself ----------------------------------------------------------


@pytest.mark.parametrize(
    ("request_bytes", "status", "says"),
    [
        (b"GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411, "Content-Length"),
        (b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 411, "Content-Length"),
        (b"POST / HTTP/1.1\r\nContent-Length: 2000\r\n\r\n", 413, "limited to 1000 bytes"),
        (b"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400, "Content-Length"),
        (b"POST / HTTP/1.1\r\nContent-Length: -3\r\n\r\n", 400, "Content-Length"),
        (b"GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400, "header line"),
        (b"GET / HTTP/1.1\r\nBad Name: h\r\n\r\n", 400, "header line"),
        (b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n", 400, "control character"),
        (b"GET /\r\n\r\n", 400, "request line"),
        (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "request line"),
        (b"GET / HTTP/1.1\r\nExpect: something\r\n\r\n", 417, "100-continue"),
        (b"GET / HTTP/1.1\r\nX: " + b"a" * 3000 + b"\r\n\r\n", 431, "larger than 2048 bytes"),
    ],
)
def test_requests_it_cannot_pass_on_safely_are_refused_and_never_reach_gunicorn(request_bytes, status, says):
    with running(max_body=1000, max_head=2048) as run, connect(run.port) as connection:
        connection.sendall(request_bytes)
        reader = Reader(connection)
        answer = reader.answer()
        assert reader.closed()
    assert (answer.status, answer.fields["connection"]) == (status, "close")
    assert says in answer.body.decode()
    assert run.upstream.requests == []


def test_refusals_of_api_requests_are_json():
    with running(max_body=1000) as run:
        answer = exchange(run.port, b"POST /api/campaigns/ HTTP/1.1\r\nContent-Length: 2000\r\n\r\n")
    assert (answer.status, answer.fields["content-type"]) == (413, "application/json")
    assert json.loads(answer.body) == {
        "detail": "The request is too large: uploads are limited to 1000 bytes.",
        "field": "body",
    }


def test_a_request_gunicorn_ends_without_answering_gets_502():
    """A request still running after gunicorn's timeout: its worker is killed, the socket closed."""
    with running(lambda upstream, request: None) as run:
        answer = exchange(run.port, b"GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
    assert answer.status == 502 and "without answering" in answer.body.decode()


def test_no_gunicorn_to_talk_to_gets_503_with_retry_after(tmp_path):
    with running(socket_path=str(tmp_path / "nobody.sock")) as run:
        answer = exchange(run.port, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    assert (answer.status, answer.fields["retry-after"]) == (503, "5")


def test_large_bodies_beyond_the_spool_budget_wait_their_turn():
    with running(body_memory=100, spool_budget=1000) as run:
        with connect(run.port) as holding:
            holding.sendall(b"POST / HTTP/1.1\r\nContent-Length: 800\r\n\r\nabc")  # its 800 bytes reserved
            deadline = time.monotonic() + HANG_GUARD
            while run.front.budget.left == 1000:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            refused = exchange(run.port, b"POST / HTTP/1.1\r\nContent-Length: 300\r\n\r\n" + b"x" * 300)
            small = exchange(run.port, b"POST / HTTP/1.1\r\nContent-Length: 50\r\n\r\n" + b"x" * 50)  # in memory
        deadline = time.monotonic() + HANG_GUARD
        while run.front.budget.left != 1000:  # the held body's share back once its client went
            assert time.monotonic() < deadline
            time.sleep(0.01)
        later = exchange(run.port, b"POST / HTTP/1.1\r\nContent-Length: 300\r\n\r\n" + b"x" * 300)
    assert (refused.status, refused.fields["retry-after"]) == (503, "5")
    assert (small.status, later.status) == (200, 200)


def test_too_many_connections_get_503():
    with running(max_connections=2) as run, connect(run.port) as one, connect(run.port) as two:
        one.sendall(b"GET")
        two.sendall(b"GET")
        deadline = time.monotonic() + HANG_GUARD
        while run.front.connections < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        third = exchange(run.port, b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
    assert third.status == 503


# -- slow and idle clients ------------------------------------------------------------------


def test_a_head_that_does_not_arrive_in_time_gets_408_and_an_idle_connection_is_closed():
    with running(header_timeout=0.5, idle_timeout=0.5) as run:
        with connect(run.port) as slow:
            slow.sendall(b"GET / HTTP/1.1\r\nHost: h\r\n")  # never finished
            reader = Reader(slow)
            answer = reader.answer()
            assert reader.closed()
        with connect(run.port) as idle:
            assert Reader(idle).closed()  # nothing sent, nothing answered
        with connect(run.port) as kept:
            reader = Reader(kept)
            kept.sendall(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            assert reader.answer().status == 200
            assert reader.closed()  # idle after its request
    assert answer.status == 408 and "did not arrive within 0.5 s" in answer.body.decode()
    assert len(run.upstream.requests) == 1


def test_a_body_that_stops_arriving_gets_408():
    with running(body_timeout=0.5) as run, connect(run.port) as connection:
        connection.sendall(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc")
        answer = Reader(connection).answer()
    assert answer.status == 408 and "stopped arriving for 0.5 s" in answer.body.decode()
    assert run.upstream.requests == []


def test_a_hundred_slow_and_idle_connections_leave_every_other_request_answered():
    with running() as run:
        held = [connect(run.port) for _ in range(100)]
        try:
            for number, connection in enumerate(held):
                if number % 2:
                    connection.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nX-Slow: 1\r\n")
            answers = [exchange(run.port, b"GET /probe HTTP/1.1\r\nHost: h\r\n\r\n").status for _ in range(10)]
            assert run.front.connections >= 100  # still held while the probes were answered
        finally:
            for connection in held:
                connection.close()
    assert answers == [200] * 10
    assert len(run.upstream.requests) == 10


def test_gunicorn_is_done_with_a_large_answer_before_a_slow_client_reads_it():
    """The answer is spooled (past response_memory, to a file): the worker is free at once.
    (16 MiB: more than the kernel's socket buffers take for a client that reads nothing.)"""
    body = os.urandom(16 * 2**20)

    def large(upstream, request):
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)

    with running(large, response_memory=64 * 1024) as run, connect(run.port) as connection:
        connection.sendall(b"GET /export HTTP/1.1\r\nHost: h\r\n\r\n")
        assert run.upstream.answered.wait(HANG_GUARD)  # all written, while the client has read nothing
        answer = Reader(connection).answer()
        assert run.front.budget.left == Limits().spool_budget
    assert hashlib.sha256(answer.body).digest() == hashlib.sha256(body).digest()


def test_past_the_spool_budget_a_large_answer_goes_at_the_clients_pace_and_arrives_whole():
    body = os.urandom(3 * 2**20)

    def large(upstream, request):
        return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)

    with running(large, response_memory=64 * 1024, spool_budget=256 * 1024) as run:
        answer = exchange(run.port, b"GET /export HTTP/1.1\r\nHost: h\r\n\r\n")
        assert run.front.budget.left == 256 * 1024
    assert hashlib.sha256(answer.body).digest() == hashlib.sha256(body).digest()
