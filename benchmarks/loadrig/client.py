"""The measuring client of the load run: plain ``http.client`` in threads, no locust.

- :func:`cost`: requests sent one at a time; the server's CPU time before and
  after, divided by the count: gunicorn's processes and the task workers' (read
  from /proc; the workers' until the reports count the submits).
- :func:`closed_loop`: N clients, each sending its next submit when the last
  is answered: the most submits per second the server sustains.
- :func:`open_loop`: submits at a fixed arrival rate, whatever the answers do
  (a scheduler thread hands each request to a pool of senders at its time, and
  its latency counts from that time, so a late sender is counted, not hidden).
- :func:`freshness`: one submission, then the organiser's agreement API polled
  (If-None-Match: an unchanged report is a 304) until its ``judgments_seen``
  counts it.

Every acknowledged save is returned as an ack (the locustfile's format), so the
harness's exactly-once and revision checks cover these requests too. gunicorn's
sync workers close every connection after answering, so each request opens
one (the client's keep-alive is offered, not used).
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Slot:
    """One judgment to write: a topic of a campaign, as one assessor."""

    kind: str
    campaign: int
    topic: str
    assessor: str
    token: str
    payload: dict[str, Any]

    @property
    def url(self) -> str:
        return f"/api/campaigns/{self.campaign}/topics/{self.topic}/judgment/"


@dataclass
class Outcome:
    """What one phase sent and got back."""

    latencies_ms: dict[str, list[float]] = field(default_factory=dict)  # by kind
    acks: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    sent: int = 0
    seconds: float = 0.0
    client_cpu_s: float = 0.0
    exhausted: bool = False  # ran out of slots before the end

    def all_latencies(self) -> list[float]:
        return sorted(t for times in self.latencies_ms.values() for t in times)


class Connection:
    """One HTTP connection (reopened when the server closed it)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname, parts.port

    def request(
        self, method: str, path: str, token: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            sent = {"Authorization": f"Token {token}", "Connection": "keep-alive", **(headers or {})}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                sent["Content-Type"] = "application/json"
            connection.request(method, path, body=data, headers=sent)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


def _ack(slot: Slot, step: str, answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "campaign": slot.campaign,
        "topic": slot.topic,
        "assessor": slot.assessor,
        "kind": slot.kind,
        "step": step,
        "version": answer["version"],
        "status": answer["status"],
        "replayed": answer["replayed"],
        "at": time.time(),
    }


def save(
    connection: Connection,
    slot: Slot,
    status: str,
    version: int,
    outcome: Outcome,
    lock: threading.Lock | None = None,
    since: float | None = None,
) -> float | None:
    """PUT the slot's payload in ``status`` at ``version``; the latency in ms
    (from ``since``, a perf_counter time, if given), or None on a failure."""
    started = time.perf_counter() if since is None else since
    try:
        code, _, content = connection.request(
            "PUT", slot.url, slot.token, {"payload": slot.payload, "status": status, "version": version}
        )
    except (OSError, http.client.HTTPException) as error:
        failure, ack = f"{slot.url} {status}: {error!r}", None
    else:
        if code == 200:
            answer = json.loads(content)
            ack = _ack(slot, "submit" if status == "submitted" else "draft", answer)
            failure = None
            if answer["replayed"] or answer["version"] != version + 1:
                failure = f"{slot.url} {status}: expected version {version + 1}, got {answer}"
        else:
            failure, ack = f"{slot.url} {status}: {code}: {content[:300]!r}", None
    elapsed = (time.perf_counter() - started) * 1000
    with lock or _nolock:
        if ack is not None:
            outcome.acks.append(ack)
        if failure is not None:
            outcome.failures.append(failure)
        else:
            outcome.latencies_ms.setdefault(slot.kind, []).append(elapsed)
    return None if failure else elapsed


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *_: object) -> None:
        return None


_nolock = _NoLock()


#: CPU seconds used so far by each part of the server ("web", "workers", ...).
CpuReader = Callable[[], dict[str, float]]


def spent(before: dict[str, float], after: dict[str, float], count: int) -> dict[str, float]:
    """CPU ms per request of each part between two readings, and their ``total``
    (every part but ``database``, which only a PostgreSQL server started by the
    harness has: it is reported beside the total, so both engines' totals compare)."""
    parts = {part: 1000 * (after[part] - before[part]) / count for part in after}
    return parts | {"total": sum(ms for part, ms in parts.items() if part != "database")}


def cost(
    base: str, slots: list[Slot], cpu: CpuReader, settle: Callable[[int], None]
) -> tuple[dict[str, float], dict[str, float], Outcome]:
    """Each slot saved as a draft (version 0 -> 1), all of them, then each
    submitted (1 -> 2), one request at a time. Returns the server's CPU ms per
    draft PUT and per submit, by part: gunicorn's at once, the task workers'
    once ``settle(submitted)`` has returned (the reports count the submits: the
    rebuilds they queued are paid for), so ``total`` is all a save costs."""
    connection = Connection(base)
    outcome = Outcome()
    per_request = []
    for status in ("draft", "submitted"):
        before = cpu()
        for slot in slots:
            save(connection, slot, status, 0 if status == "draft" else 1, outcome)
        answered = cpu()
        settle(len(slots) if status == "submitted" else 0)
        # The web part up to the last answer: settling polls the web API.
        after = cpu() | {"web": answered["web"]}
        per_request.append(spent(before, after, len(slots)))
    return per_request[0], per_request[1], outcome


#: The bare reference keeps sending until the web workers have spent this much
#: CPU: /proc counts in clock ticks (10 ms), and a handful of 1.5 ms requests
#: could read as none at all.
BARE_MINIMUM_CPU_SECONDS = 0.3
BARE_MAXIMUM_REQUESTS = 20_000


def bare_cost(base: str, token: str, judgment: int, count: int, cpu: CpuReader) -> tuple[dict[str, float], int]:
    """The reference: at least ``count`` PUTs of the bare endpoint one at a time, and more
    until their web CPU is measurable to a few per cent; CPU ms per request by part, failures."""
    connection = Connection(base)
    failures = sent = 0
    before = cpu()
    while sent < BARE_MAXIMUM_REQUESTS and (sent < count or cpu()["web"] - before["web"] < BARE_MINIMUM_CPU_SECONDS):
        for _ in range(max(count, 10)):
            code, _, _ = connection.request("PUT", f"/bare/{judgment}/", token, {})
            failures += code != 200
            sent += 1
    return spent(before, cpu(), sent), failures


def closed_loop(base: str, slots: Iterator[Slot], *, clients: int, seconds: float) -> Outcome:
    """``clients`` threads submitting (version 0 -> 1) back to back for ``seconds``."""
    outcome = Outcome()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def run() -> None:
        connection = Connection(base)
        while time.monotonic() < deadline:
            with lock:
                slot = next(slots, None)
                if slot is None:
                    outcome.exhausted = True
                    return
                outcome.sent += 1
            save(connection, slot, "submitted", 0, outcome, lock)

    started, cpu = time.monotonic(), time.process_time()
    threads = [threading.Thread(target=run, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcome.seconds = time.monotonic() - started
    outcome.client_cpu_s = time.process_time() - cpu
    return outcome


def open_loop(base: str, slots: Iterator[Slot], *, rate: float, seconds: float, senders: int = 32) -> Outcome:
    """Submits (version 0 -> 1) arriving every 1/``rate`` s for ``seconds``; the
    latency of each from its scheduled time to its answer."""
    outcome = Outcome()
    lock = threading.Lock()
    work: queue.Queue[tuple[float, Slot] | None] = queue.Queue()

    def send() -> None:
        connection = Connection(base)
        while (item := work.get()) is not None:
            scheduled, slot = item
            # From the scheduled time: a request that waited for a free sender counts its wait.
            save(connection, slot, "submitted", 0, outcome, lock, since=scheduled)

    threads = [threading.Thread(target=send, daemon=True) for _ in range(senders)]
    for thread in threads:
        thread.start()
    cpu = time.process_time()
    start = time.perf_counter()
    count = max(1, round(rate * seconds))
    for i in range(count):
        scheduled = start + i / rate
        pause = scheduled - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        slot = next(slots, None)
        if slot is None:
            outcome.exhausted = True
            break
        outcome.sent += 1
        work.put((scheduled, slot))
    for _ in threads:
        work.put(None)
    for thread in threads:
        thread.join()
    outcome.seconds = time.perf_counter() - start
    outcome.client_cpu_s = time.process_time() - cpu
    return outcome


def freshness(
    base: str, slot: Slot, organiser_token: str, *, timeout: float = 600, poll: float = 0.05
) -> tuple[float | None, str | None]:
    """Submit ``slot`` (version 0 -> 1), then poll the campaign's agreement API
    until ``judgments_seen`` counts one more judgment than before: the seconds
    from the acknowledgement to the poll that showed it (None and the reason on
    a failure or a timeout)."""
    connection = Connection(base)
    path = f"/api/campaigns/{slot.campaign}/agreement/"
    code, headers, content = connection.request("GET", path, organiser_token)
    if code != 200:
        return None, f"{path}: {code}"
    seen = json.loads(content)["judgments_seen"]
    etag = headers.get("etag", "")
    code, _, content = connection.request(
        "PUT", slot.url, slot.token, {"payload": slot.payload, "status": "submitted", "version": 0}
    )
    acked = time.perf_counter()
    if code != 200:
        return None, f"{slot.url}: {code}: {content[:300]!r}"
    while time.perf_counter() - acked < timeout:
        code, headers, content = connection.request("GET", path, organiser_token, headers={"If-None-Match": etag})
        if code == 200:
            etag = headers.get("etag", "")
            if json.loads(content)["judgments_seen"] > seen:
                return time.perf_counter() - acked, None
        elif code != 304:
            return None, f"{path}: {code}"
        time.sleep(poll)
    return None, f"{path}: the report did not count the submission within {timeout:.0f} s"


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
