"""The server is restarted while assessors submit: clients that retry the
same PUT create no duplicates, and the answer says which happened.

An exact repeat of the last save (the version it read, the same payload and
status) is a replay: 200 with ``"replayed": true`` and no new revision. A
retry whose first attempt never reached the database is saved as usual
(``"replayed": false``). A real gunicorn with two workers on a temporary
SQLite file, stopped with SIGTERM or SIGKILL and started again."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Real processes on a SQLite file of their own: the PostgreSQL pass of .ci/run would only repeat them.
pytestmark = pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="runs on its own SQLite file")
CANDIDATES = ["c1", "c2", "c3", "c4"]
ASSESSORS = ["ann", "ben", "cat", "dan"]
ERRORS = (ConnectionError, http.client.HTTPException, socket.timeout)

SEED = textwrap.dedent(
    """
    import django, json
    django.setup()
    from django.contrib.auth.models import User
    from concord import tokens as api_tokens
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member
    from annotate.models import Assignment
    organiser = User.objects.create(username="org")
    campaign = create_campaign(creator=organiser, kind="pairs", name="Restart", overlap=1)
    tokens = {}
    for name in %r:
        tokens[name] = api_tokens.issue(User.objects.create(username=name))[1]
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=[
        {"external_id": f"q{t}", "data": {"query": f"Q{t}", "candidates": [{"id": c, "text": c} for c in %r]}}
        for t in range(8)])
    # One topic of each assessor's.
    topics = {a.assessor.username: a.topic.external_id
              for a in Assignment.objects.select_related("assessor", "topic").order_by("-topic__position")}
    print(json.dumps({"campaign": campaign.pk, "tokens": tokens, "topics": topics}))
    """
) % (ASSESSORS, CANDIDATES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """gunicorn -w 2 in its own process group, so a kill takes its workers too."""

    def __init__(self, env: dict, port: int) -> None:
        self.env, self.port, self.process = env, port, None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "concord.wsgi",
                "-w",
                "2",
                "-b",
                f"127.0.0.1:{self.port}",
                "--graceful-timeout",
                "20",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env=self.env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until_up(self.port)

    def stop(self, how: signal.Signals) -> None:
        os.killpg(self.process.pid, how)
        self.process.wait(timeout=60)
        if how == signal.SIGKILL:
            # Orphaned workers die with the group; wait until none answers any more.
            while True:
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                except OSError:
                    break
                time.sleep(0.05)

    def restart(self, how: signal.Signals) -> None:
        self.stop(how)
        self.start()


def wait_until_up(port: int) -> None:
    deadline = time.monotonic() + 120  # a guard against hanging, not a measurement
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/accounts/login/")
            if connection.getresponse().status == 200:
                return
        except ERRORS:
            pass
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.05)


@pytest.fixture
def site(tmp_path, migrated_sqlite):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_SQLITE_PATH=str(migrated_sqlite(tmp_path / "restart.sqlite3")),
        ALLOWED_HOSTS="127.0.0.1",
        CONCORD_TASKS_BACKEND="db",
        # Every draft of one token shares a revision however slow the restarts (docs/api.md, "Judgment states").
        CONCORD_DRAFT_REVISION_SECONDS="3600",
    )
    for args in (["-c", SEED],):
        result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
    seeded = json.loads(result.stdout)
    server = Server(env, free_port())
    server.start()
    yield {**seeded, "server": server, "db": env["CONCORD_SQLITE_PATH"]}
    if server.process.poll() is None:
        server.stop(signal.SIGKILL)


class Client:
    def __init__(self, site: dict, name: str) -> None:
        self.port = site["server"].port
        self.token = site["tokens"][name]
        self.path = f"/api/campaigns/{site['campaign']}/topics/{site['topics'][name]}/judgment/"

    def request(self, body: dict) -> bytes:
        data = json.dumps(body).encode()
        return (
            f"PUT {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {self.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n"
        ).encode() + data

    def put(self, body: dict) -> tuple[int, dict]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(
                "PUT",
                self.path,
                json.dumps(body),
                {"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
            )
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def post(self, action: str, body: dict) -> tuple[int, dict]:
        """POST .../judgment/<action>/ (reopen, withdraw)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(
                "POST",
                f"{self.path}{action}/",
                json.dumps(body),
                {"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
            )
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    def send_only(self, body: dict, *, cut: int | None = None) -> socket.socket:
        """Send the request (or its first ``cut`` bytes) without reading the answer."""
        raw = self.request(body)
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=60)
        sock.sendall(raw[:cut])
        return sock


def stored(db: str, name: str, topic: str) -> tuple[int, int, list[tuple]]:
    """(judgments, their version, revisions: version, payload, status, saves held) of this
    assessor's topic, read from the database itself."""
    connection = sqlite3.connect(db, timeout=30)
    try:
        judgments = connection.execute(
            "SELECT j.id, j.version FROM annotate_judgment j JOIN auth_user u ON u.id = j.assessor_id "
            "JOIN annotate_topic t ON t.id = j.topic_id WHERE u.username = ? AND t.external_id = ?",
            (name, topic),
        ).fetchall()
        if not judgments:
            return 0, 0, []
        revisions = connection.execute(
            # the newest revision keeps no copy of its judgment's payload (JudgmentRevision.kept_payload)
            "SELECT r.version, COALESCE(r.kept_payload, j.payload), r.status, r.saves FROM annotate_judgmentrevision r "
            "JOIN annotate_judgment j ON j.id = r.judgment_id WHERE r.judgment_id = ? ORDER BY r.id",
            (judgments[0][0],),
        ).fetchall()
        return len(judgments), judgments[0][1], [(v, json.loads(p), s, n) for v, p, s, n in revisions]
    finally:
        connection.close()


def payload(i: int) -> dict:
    """Consecutive saves differ: a repeat is only ever a retry."""
    bits = (i + 1) % 16
    return {"matches": {c: bool(bits >> k & 1) for k, c in enumerate(CANDIDATES)}}


def wait_for(condition) -> None:
    deadline = time.monotonic() + 120  # a guard against hanging, not a measurement
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_retry_after_a_restart_says_whether_the_first_attempt_was_applied(site):
    server, ann, topic = site["server"], Client(site, "ann"), site["topics"]["ann"]
    first = {"payload": payload(0), "status": "draft", "version": 0}
    assert ann.put(first)[0] == 200

    # Applied, but the answer never came back: the server was killed after the commit.
    second = {"payload": payload(1), "status": "draft", "version": 1}
    sock = ann.send_only(second)
    wait_for(lambda: stored(site["db"], "ann", topic)[1] == 2)
    server.stop(signal.SIGKILL)
    sock.close()
    server.start()
    status, body = ann.put(second)  # the client retries the very same request
    assert (status, body["replayed"], body["version"]) == (200, True, 2)
    assert [(v, n) for v, _, _, n in stored(site["db"], "ann", topic)[2]] == [(2, 2)]  # the two drafts, nothing new

    # Never applied: the server died while the body was still arriving.
    third = {"payload": payload(2), "status": "submitted", "version": 2}
    sock = ann.send_only(third, cut=len(ann.request(third)) - 10)
    server.stop(signal.SIGKILL)
    sock.close()
    assert stored(site["db"], "ann", topic)[1] == 2
    server.start()
    status, body = ann.put(third)
    assert (status, body["replayed"], body["version"], body["status"]) == (200, False, 3, "submitted")

    # A retry that is no longer the last save (another device reopened it since) is a conflict, never an overwrite.
    assert ann.post("reopen", {"version": 3})[0] == 200
    status, body = ann.put(third)
    assert (status, body["current_version"]) == (409, 4)

    judgments, version, revisions = stored(site["db"], "ann", topic)
    assert (judgments, version) == (1, 4)
    assert revisions == [
        (3, payload(2), "submitted", 3),  # the two drafts (one token) and the submission that ended them
        (4, payload(2), "reopened", 1),
    ]


SAVES = 12


def test_clients_retrying_through_restarts_create_no_duplicates(site):
    """Four assessors save continuously while the server is stopped gracefully
    and then killed; each retries a failed PUT until it gets an answer."""
    server, db = site["server"], site["db"]
    acknowledged = {name: 0 for name in ASSESSORS}
    retries: list[tuple[str, int, bool, bool]] = []  # (who, save, applied before the retry, answer said replayed)
    failures: list[str] = []

    def assess(name: str) -> None:
        client, topic = Client(site, name), site["topics"][name]
        version = 0
        try:
            for i in range(SAVES):
                body = {"payload": payload(i), "status": "submitted" if i == SAVES - 1 else "draft", "version": version}
                retried = False
                while True:
                    if retried:
                        wait_until_up(client.port)
                        # The old server is gone: whether the first attempt was applied is settled.
                        applied = stored(db, name, topic)[1] == version + 1
                    try:
                        status, answer = client.put(body)
                    except ERRORS:
                        retried = True
                        continue
                    break
                assert status == 200, answer
                if retried:
                    retries.append((name, i, applied, answer["replayed"]))
                else:
                    assert answer["replayed"] is False
                version = answer["version"]
                assert version == i + 1
                acknowledged[name] += 1
        except BaseException as error:  # reported by the main thread
            failures.append(f"{name}: {error!r}")

    threads = [threading.Thread(target=assess, args=(name,)) for name in ASSESSORS]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: failures or min(acknowledged.values()) >= 3)
        server.restart(signal.SIGTERM)  # graceful: requests in progress finish
        wait_for(lambda: failures or min(acknowledged.values()) >= 7)
        server.restart(signal.SIGKILL)  # abrupt: requests in progress die
    finally:
        for thread in threads:
            thread.join(timeout=300)
    assert not failures, failures

    assert retries, "no client saw the restarts"
    for name, i, applied, replayed in retries:
        assert replayed == applied, (name, i, applied, replayed)
    for name in ASSESSORS:
        judgments, version, revisions = stored(db, name, site["topics"][name])
        assert (judgments, version) == (1, SAVES)
        # Every save exactly once: the drafts (one token's) and the submission ending them in one revision.
        assert revisions == [(SAVES, payload(SAVES - 1), "submitted", SAVES)]
