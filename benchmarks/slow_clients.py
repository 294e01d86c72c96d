"""Benchmark: slow and idle clients against a running server.

Opens ``--slow`` TCP connections to the server: half of them send the start of
a request and then one more header line every ``--every`` seconds, never
finishing it (slowloris); the other half send nothing at all. Each opens its
connection again whenever the server closes it. Meanwhile it
probes ``--path`` ``--probes`` times, one probe every ``--every`` seconds, each
on a fresh connection with ``--probe-timeout`` seconds to answer, and prints
how many were answered, with which status, and how long each took.

Run from the project root against the server ``./run`` started:
``python -m benchmarks.slow_clients --port 8000 --slow 100``. Ends with
``RESULT name=slow_clients slow=<n> answered=<probes answered 200> probes=<n>
median_ms=<median latency of the answered ones> max_ms=<...>``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import threading
import time


def _hold(port: int, index: int, every: float, stop: threading.Event, opened: list[int]) -> None:
    """One slow client: even ones trickle header lines, odd ones stay silent; each opens
    its connection again whenever the server closes it, as a persistent one would."""
    while not stop.is_set():
        try:
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        except OSError:
            stop.wait(0.1)
            continue
        opened[index] += 1
        try:
            if index % 2 == 0:
                connection.sendall(b"GET /help/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                line = 0
                while not stop.wait(every):
                    line += 1
                    connection.sendall(f"X-Slow-{line}: {line}\r\n".encode())
            else:
                connection.settimeout(None)
                connection.recv(1)  # until the server closes it (or answers)
        except OSError:
            pass  # the server closed it: that is its right
        finally:
            connection.close()


def probe(port: int, path: str, timeout: float) -> tuple[int | None, float]:
    """(status or None, seconds) of one GET on a fresh connection."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
            connection.settimeout(max(0.01, timeout - (time.monotonic() - started)))
            connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            head = b""
            while b"\r\n" not in head:
                chunk = connection.recv(4096)
                if not chunk:
                    return None, time.monotonic() - started
                head += chunk
            status = int(head.split(b" ", 2)[1])
            while connection.recv(65536):
                pass
            return status, time.monotonic() - started
    except (OSError, ValueError, IndexError):
        return None, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--slow", type=int, default=100, help="slow connections (default 100)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between header lines and probes")
    parser.add_argument("--probes", type=int, default=10)
    parser.add_argument("--probe-timeout", type=float, default=5.0)
    parser.add_argument("--path", default="/help/")
    args = parser.parse_args()

    stop = threading.Event()
    opened = [0] * args.slow  # connections each slow client opened
    holders = [
        threading.Thread(target=_hold, args=(args.port, i, args.every, stop, opened), daemon=True)
        for i in range(args.slow)
    ]
    for holder in holders:
        holder.start()
    time.sleep(1)  # every slow connection opened before the first probe
    print(f"{sum(1 for n in opened if n)} of {args.slow} slow connections open", flush=True)
    results = []
    for number in range(args.probes):
        status, seconds = probe(args.port, args.path, args.probe_timeout)
        results.append((status, seconds))
        print(f"probe {number + 1}: {status or 'no answer'} in {seconds * 1000:.0f} ms", flush=True)
        time.sleep(max(0.0, args.every - seconds))
    stop.set()
    print(f"the slow clients opened {sum(opened)} connections in all (again when the server closed one)")
    answered = [seconds for status, seconds in results if status == 200]
    median = statistics.median(answered) * 1000 if answered else float("nan")
    largest = max(answered) * 1000 if answered else float("nan")
    print(
        f"RESULT name=slow_clients slow={args.slow} answered={len(answered)} probes={args.probes} "
        f"median_ms={median:.1f} max_ms={largest:.1f}"
    )


if __name__ == "__main__":
    main()
