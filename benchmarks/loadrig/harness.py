"""The load run, end to end: a database, gunicorn and a task worker on it,
seeded campaigns of every kind, locust against them, then the database checked.

Used by tests/load/test_load.py (small) and benchmarks/load.py (50 users,
60 s). Django runs only in subprocesses (``python -m benchmarks.loadrig.harness
seed|verify``), configured for the load database, so the calling process
(pytest with its own test database, or the benchmark) is never touched.

Everything started here (PostgreSQL, gunicorn, the worker) is stopped in a
``finally`` and, should the interpreter die first, by ``atexit``.
"""

from __future__ import annotations

import argparse
import atexit
import itertools
import json
import math
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.loadrig import client

ROOT = Path(__file__).resolve().parents[2]
# Every tool runs through the interpreter running this file, so the harness
# works from any virtual environment (or none), not only .venv.
PYTHON = sys.executable
LOCUSTFILE = Path(__file__).with_name("locustfile.py")
PASSWORD = "load-test-password"
KINDS = ("pairs", "ordering", "clustering", "nuggets", "factoids")

_cleanups: list[Callable[[], None]] = []
_database_numbers = itertools.count(1)


@atexit.register
def _stop_everything() -> None:
    while _cleanups:
        try:
            _cleanups.pop()()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


@contextmanager
def _cleanup(stop: Callable[[], None]) -> Iterator[None]:
    """Run ``stop`` on leaving the block, or at exit if the block never ends."""
    _cleanups.append(stop)
    try:
        yield
    finally:
        if stop in _cleanups:
            _cleanups.remove(stop)
        stop()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- databases ------------------------------------------------------------------


@dataclass
class Database:
    engine: str  # "sqlite" or "postgresql"
    env: dict[str, str]  # CONCORD_SQLITE_PATH or DATABASE_URL
    label: str
    #: postmaster.pid of a server started here (its CPU time can be measured).
    pid_file: Path | None = None


@contextmanager
def sqlite_database(directory: Path) -> Iterator[Database]:
    path = directory / "load.sqlite3"
    yield Database("sqlite", {"CONCORD_SQLITE_PATH": str(path)}, f"SQLite {path.name}")


def _as_postgres(command: list[str]) -> None:
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        command = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(map(shlex.quote, command))]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")


def _pg_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql), and DATABASE_URL is not set")
    return found[-1]


@contextmanager
def postgres_server(port: int | None = None, *, max_connections: int = 100) -> Iterator[tuple[str, Path]]:
    """A throw-away server on 127.0.0.1 (as .ci/run starts one), on ``port`` or a
    free one; yields its URL and data directory."""
    pgbin = _pg_bin()
    data = Path(tempfile.mkdtemp(prefix="concord-load-pg."))
    port = port or free_port()

    def stop() -> None:
        if (data / "postmaster.pid").exists():
            try:
                _as_postgres([str(pgbin / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
            except RuntimeError:
                pass
        shutil.rmtree(data, ignore_errors=True)

    with _cleanup(stop):
        if os.geteuid() == 0:
            shutil.chown(data, "postgres")
        _as_postgres([str(pgbin / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
        options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections={max_connections}"
        _as_postgres(
            [str(pgbin / "pg_ctl"), "-D", str(data), "-l", str(data / "server.log"), "-w", "-o", options, "start"]
        )
        yield f"postgres://postgres@127.0.0.1:{port}/postgres", data


@contextmanager
def postgres_database(server_url: str | None = None, *, data: Path | None = None) -> Iterator[Database]:
    """A fresh database ``concord_load_<pid>_<n>`` on the server of ``server_url``
    (DATABASE_URL), or on a throw-away server started here; dropped afterwards."""
    if server_url is None:
        with postgres_server() as (url, data), postgres_database(url, data=data) as database:
            yield database
        return
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    parts = urlsplit(server_url)
    name = f"concord_load_{os.getpid()}_{next(_database_numbers)}"
    admin = urlunsplit(parts._replace(path="/postgres", scheme="postgresql"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    with _cleanup(drop):
        url = urlunsplit(parts._replace(path=f"/{name}"))
        yield Database(
            "postgresql",
            {"DATABASE_URL": url},
            f"PostgreSQL {name} on port {parts.port}",
            pid_file=data / "postmaster.pid" if data else None,
        )


def django_env(database: Database) -> dict[str, str]:
    # Nothing of the caller's configuration leaks in (a DATABASE_URL, an RQ
    # tasks backend, ...): the load run is ./run's setup on its own database.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CONCORD_")
        and k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE", "ALLOWED_HOSTS", "SECRET_KEY"}
    }
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_ENV="development",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CONCORD_LOG_LEVEL="WARNING",
        PYTHONDONTWRITEBYTECODE="1",
        **database.env,
    )
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 600) -> str:
    result = subprocess.run([PYTHON, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


# -- seeding and checking (these run inside Django, in a subprocess) -------------


def topic_data(kind: str, index: int) -> dict[str, Any]:
    """A small topic of ``kind``, shaped as in DESIGN.md ("Topic data")."""
    if kind == "pairs":
        return {
            "query": f"Name {index}",
            "candidates": [{"id": f"c{c}", "text": f"Candidate {index}.{c}", "runs": ["sysA"]} for c in range(1, 9)],
        }
    if kind == "ordering":
        return {"items": [{"id": f"s{i}", "text": f"Step {i} of process {index}"} for i in range(1, 7)]}
    if kind == "clustering":
        return {
            "documents": [{"id": f"d{d}", "title": f"Report {d}"} for d in range(1, 4)],
            "sentences": [
                {"id": f"d{d}s{p}", "document": f"d{d}", "position": p, "text": f"Sentence {p} of report {d}."}
                for d in range(1, 4)
                for p in range(1, 5)
            ],
        }
    if kind == "nuggets":
        return {
            "target": f"Target {index}",
            "nuggets": [
                {"id": f"n{n}", "text": f"Nugget {n}", "label": "vital" if n % 3 == 1 else "okay"} for n in range(1, 9)
            ],
            "responses": [
                {"id": f"r{r}", "run": f"sys{r}", "text": f"Answer {r} about target {index}."} for r in range(1, 4)
            ],
        }
    if kind == "factoids":
        return {
            "text": f"Story {index}.",
            "summaries": [
                {
                    "id": f"m{m}",
                    "author": f"person-{m}",
                    "sentences": [{"id": f"m{m}.{s}", "text": f"Sentence {s} of summary {m}."} for s in range(1, 4)],
                }
                for m in range(1, 4)
            ],
        }
    raise ValueError(f"unknown kind {kind!r}")


PARAMS = {"nuggets": {"tasks": ["labels", "matches"]}}


def seed(
    *,
    users: int,
    per_assessor: int = 3,
    overlap: int = 2,
    cost_topics: int = 100,
    rate_slots: int = 2000,
    rate_assessors: int = 4,
) -> dict[str, Any]:
    """Users, tokens and one campaign per kind; each assessor gets about
    ``per_assessor`` topics in each. Returns the plan the locustfile reads."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member
    from concord import tokens

    password = make_password(PASSWORD)  # hashed once: the same known password for everyone
    organiser = User.objects.create(username="load-organiser", password=password)
    assessors = [User.objects.create(username=f"load-{i:03d}", password=password) for i in range(users)]
    topics = math.ceil(users * per_assessor / overlap)
    campaigns = []
    for kind in KINDS:
        campaign = create_campaign(
            creator=organiser, kind=kind, name=f"Load {kind}", overlap=min(overlap, users), params=PARAMS.get(kind)
        )
        for user in assessors:  # members first, so the topics are spread least-loaded first
            add_member(campaign=campaign, username=user.username, role="assessor")
        import_topics(
            campaign=campaign,
            topics=[
                {"external_id": f"{kind[0]}{t:04d}", "title": f"{kind} {t}", "data": topic_data(kind, t)}
                for t in range(1, topics + 1)
            ],
        )
        campaigns.append({"id": campaign.pk, "kind": kind, "topics": topics})
    token = lambda user: tokens.issue(user)[1]  # noqa: E731
    return {
        "password": PASSWORD,
        "organiser": {"username": organiser.username, "token": token(organiser)},
        "assessors": [{"username": u.username, "token": token(u)} for u in assessors],
        "campaigns": campaigns,
        **seed_measured(organiser, cost_topics=cost_topics, rate_slots=rate_slots, rate_assessors=rate_assessors),
    }


def _example_campaign(organiser, kind: str, name: str, members: list, topics: int, prefix: str = "t"):
    """A campaign of ``kind`` whose every member is assigned ``topics`` copies of
    the kind's example topic (``KINDS[kind].examples``), external ids ``<prefix>00001``..."""
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member
    from kinds.registry import KINDS as REGISTRY

    examples = REGISTRY[kind].examples
    campaign = create_campaign(
        creator=organiser, kind=kind, name=name, overlap=max(1, len(members)), params=dict(examples.params)
    )
    for user in members:
        add_member(campaign=campaign, username=user.username, role="assessor")
    ids = [f"{prefix}{i:05d}" for i in range(1, topics + 1)]
    batch = 2000
    for start in range(0, len(ids), batch):
        import_topics(
            campaign=campaign,
            topics=[{"external_id": t, "data": dict(examples.topic)} for t in ids[start : start + batch]],
        )
    return campaign, ids, [dict(p) for p in examples.payloads]


def seed_measured(organiser, *, cost_topics: int, rate_slots: int, rate_assessors: int) -> dict[str, Any]:
    """The campaigns of the measured phases, every registered kind (copies of its example topic):

    - ``Load cost <kind>``: one assessor, ``cost_topics`` topics (one draft PUT
      and one submit each, sent one at a time);
    - ``Load rate <kind>``: ``rate_assessors`` assessors on the same topics, at
      least ``rate_slots`` (topic, assessor) pairs over all kinds (one submit each,
      the kinds interleaved);
    - the bare reference: one judgment of its own user, in a campaign of its own.
    """
    from django.contrib.auth.models import User

    from annotate.services.judgments import save_judgment
    from concord import tokens
    from kinds.registry import KINDS as REGISTRY

    token = lambda user: tokens.issue(user)[1]  # noqa: E731
    cost, rate = [], []
    rate_topics = math.ceil(rate_slots / len(REGISTRY) / rate_assessors)
    raters = [User.objects.create(username=f"load-rate-{i:02d}") for i in range(rate_assessors)]
    for kind in REGISTRY:
        user = User.objects.create(username=f"load-cost-{kind}")
        campaign, ids, payloads = _example_campaign(organiser, kind, f"Load cost {kind}", [user], cost_topics)
        cost.append(
            {"kind": kind, "campaign": campaign.pk, "assessor": user.username, "token": token(user), "topics": ids}
            | {"payload": payloads[0]}
        )
        campaign, ids, payloads = _example_campaign(organiser, kind, f"Load rate {kind}", raters, rate_topics)
        rate.append({"kind": kind, "campaign": campaign.pk, "topics": ids, "payloads": payloads})
    bare_user = User.objects.create(username="bare-reference")
    campaign, ids, payloads = _example_campaign(organiser, "pairs", "Bare reference", [bare_user], 1)
    saved = save_judgment(
        topic=campaign.topics.get(), assessor=bare_user, payload=payloads[0], status="draft", version=0
    )
    return {
        "cost": cost,
        "rate": rate,
        "rate_assessors": [{"username": u.username, "token": token(u)} for u in raters],
        "bare": {"judgment": saved.judgment.pk, "token": token(bare_user)},
    }


FRESH_ASSESSORS = 10


def seed_fresh(*, topics: int, samples: int, kinds: tuple[str, ...] = (), spare: int = 0) -> dict[str, Any]:
    """For every registered kind (or those of ``kinds``), a campaign ``Fresh <kind> <topics>`` of
    ``topics`` copies of its example topic and 10 assessors per topic, written
    in bulk (not through the API): topics and assignments by
    ``annotate.imports.write.import_topics``, then every (topic, assessor)'s judgment
    submitted at version 1 with its revision (as ``import_judgments`` writes
    them), the example's two payloads alternating between assessors (each cleaned
    as that assessor's own save of that topic cleans it), and every
    topic marked stale, which queues one recompute. The last assessor's
    judgments of the first ``samples`` topics are left unwritten: the timed
    submissions, sent through the API; so are those of the ``spare`` topics
    after them: the submissions whose CPU is measured at this size. Returns
    what the timing needs."""
    from django.contrib.auth.models import User

    from annotate.models import Judgment, JudgmentRevision
    from concord import tokens
    from kinds.base import ASSESSOR_SEED, assessor_seed
    from kinds.registry import KINDS as REGISTRY
    from scoring import services as scoring_services

    organiser = User.objects.get(username="load-organiser")
    members = [User.objects.get_or_create(username=f"fresh-{i:02d}")[0] for i in range(FRESH_ASSESSORS)]
    last = members[-1]
    token = tokens.issue(last)[1]
    campaigns = []
    for kind in REGISTRY:
        if kinds and kind not in kinds:
            continue
        campaign, ids, payloads = _example_campaign(organiser, kind, f"Fresh {kind} {topics}", members, topics, "f")
        kind_data = REGISTRY[kind].data
        rows = list(campaign.topics.order_by("position").values_list("id", "external_id", "data"))
        skipped = {pk for pk, _, _ in rows[: samples + spare]}
        batch = 1000
        for start in range(0, len(rows), batch):
            chunk = [
                (index, user, pk, external, data)
                for pk, external, data in rows[start : start + batch]
                for index, user in enumerate(members)
                if not (user is last and pk in skipped)
            ]
            made = Judgment.objects.bulk_create(
                Judgment(
                    topic_id=pk,
                    assessor=user,
                    # cleaned as the assessor's own save cleans it: a kind may fill in what the
                    # server knows of the page it showed them (the preference kind's sides)
                    payload=kind_data.clean_judgment(
                        payloads[index % 2],
                        data,
                        complete=True,
                        params={**campaign.params, ASSESSOR_SEED: assessor_seed(user.pk, external)},
                    ),
                    status="submitted",
                    version=1,
                    submitted_version=1,
                    submitted_at=timezone_now(),
                )
                for index, user, pk, external, data in chunk
            )
            if any(j.pk is None for j in made):
                made = list(Judgment.objects.filter(topic_id__in={pk for _, _, pk, _, _ in chunk}))
            JudgmentRevision.objects.bulk_create(
                JudgmentRevision(
                    judgment=j,
                    version=1,
                    author_id=j.assessor_id,
                    payload=j.payload,
                    status="submitted",
                    source="import",
                )
                for j in made
            )
        scoring_services.mark_all_stale(campaign)
        campaigns.append(
            {
                "kind": kind,
                "campaign": campaign.pk,
                "topics": [external for _, external, _ in rows[:samples]],
                "spare": [external for _, external, _ in rows[samples : samples + spare]],
                "payload": payloads[(FRESH_ASSESSORS - 1) % 2],
                "judgments": topics * FRESH_ASSESSORS - min(samples + spare, topics),
            }
        )
    return {"assessor": last.username, "token": token, "campaigns": campaigns}


def fits_cost(campaigns: list[int]) -> dict[str, float]:
    """What the refresh of each campaign's costly figures (``scoring.jobs.refresh_fits``) costs
    each save, amortised: its CPU seconds, timed here on the benchmark's database, over the
    changed topics that wait for it (``scoring.jobs.FITS_SHARE`` of the judgments it holds;
    every timed submit changes one topic); per campaign id, in ms. A kind whose reports take
    nothing from fits costs nothing."""
    import time as clock

    from annotate.models import Campaign
    from kinds.registry import get_kind
    from scoring import jobs, sums
    from scoring.models import Report

    found = {}
    for campaign_id in campaigns:
        running = get_kind(Campaign.objects.get(pk=campaign_id).kind).reports.sums
        if running is None or not running.fits:
            found[str(campaign_id)] = 0.0
            continue
        started = clock.process_time()
        jobs.refresh_fits(campaign_id)
        cpu = clock.process_time() - started
        held = Report.objects.filter(campaign_id=campaign_id, name=sums.FITS).values_list("judgments_seen", flat=True)
        found[str(campaign_id)] = round(1000 * cpu / max(1.0, jobs.FITS_SHARE * (held.first() or 0)), 3)
    return found


def timezone_now():
    from django.utils import timezone

    return timezone.now()


def verify(acks: list[dict[str, Any]], *, settle_timeout: float = 300) -> dict[str, Any]:
    """Every acknowledged judgment exactly once, its revisions holding every
    acknowledged save once (versions 1..n; every submission and reopening, and
    the last save, a revision at its own version; drafts in a row from one token
    may share one, which the submission ending them takes over:
    annotate.services.judgments.save_judgment; statuses as acknowledged;
    replays add nothing), nothing unacknowledged; then wait for the task worker
    to catch up and check each campaign's report counts every submitted judgment."""
    from collections import defaultdict

    from django.db.models import Count
    from django_tasks_db.models import DBTaskResult

    from annotate.models import Campaign, Judgment, JudgmentRevision
    from scoring.models import Report, StaleTopic

    saves: dict[tuple, list[dict]] = defaultdict(list)
    replays: dict[tuple, list[dict]] = defaultdict(list)
    for ack in acks:
        key = (ack["campaign"], ack["topic"], ack["assessor"])
        (replays if ack["replayed"] else saves)[key].append(ack)
    problems: list[str] = []
    rows = list(
        Judgment.objects.filter(assessor__username__startswith="load-").values_list(
            "id", "topic__campaign_id", "topic__external_id", "assessor__username", "version", "status"
        )
    )
    judgments: dict[tuple, list[tuple]] = defaultdict(list)
    for pk, campaign, topic, assessor, version, status in rows:
        judgments[(campaign, topic, assessor)].append((pk, version, status))
    revisions: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for judgment, version, status, held in (
        JudgmentRevision.objects.filter(judgment_id__in=[r[0] for r in rows])
        .order_by("judgment_id", "version")
        .values_list("judgment_id", "version", "status", "saves")
    ):
        revisions[judgment].append((version, status, held))
    for key, acked in saves.items():
        acked.sort(key=lambda a: a["version"])
        n = len(acked)
        if [a["version"] for a in acked] != list(range(1, n + 1)):
            problems.append(f"{key}: acknowledged versions {[a['version'] for a in acked]} are not 1..{n}")
        found = judgments.get(key, [])
        if len(found) != 1:
            problems.append(f"{key}: {len(found)} judgments in the database, expected exactly 1")
            continue
        pk, version, status = found[0]
        history = revisions[pk]
        versions = [v for v, _, _ in history]
        own = {a["version"] for a in acked if a["step"] not in ("draft", "edit")} | {n}
        status_at = {a["version"]: a["status"] for a in acked}
        if not own <= set(versions) <= set(status_at) or sum(held for *_, held in history) != n:
            problems.append(
                f"{key}: revisions {versions} holding {[held for *_, held in history]} saves do not hold the "
                f"acknowledged saves 1..{n} once each, with {sorted(own)} their own"
            )
        elif [s for _, s, _ in history] != [status_at[v] for v in versions]:
            problems.append(f"{key}: revision statuses {[s for _, s, _ in history]} differ from the acknowledged ones")
        if (version, status) != (n, acked[-1]["status"]):
            problems.append(
                f"{key}: judgment at version {version} ({status}), last acknowledged {n} ({acked[-1]['status']})"
            )
    for key, repeated in replays.items():
        versions = {a["version"] for a in saves.get(key, [])}
        stray = [a["version"] for a in repeated if a["version"] not in versions]
        if stray:
            problems.append(f"{key}: replays answered versions {stray} that were never acknowledged")
    unacknowledged = sorted(set(judgments) - set(saves))
    problems += [f"{key}: in the database but never acknowledged" for key in unacknowledged]
    duplicates = Judgment.objects.values("topic_id", "assessor_id").annotate(n=Count("id")).filter(n__gt=1).count()
    if duplicates:
        problems.append(f"{duplicates} (topic, assessor) pairs have more than one judgment")

    # The reports: the worker must catch up and count every submitted judgment.
    campaigns = list(Campaign.objects.filter(name__startswith="Load "))
    started = time.monotonic()
    while True:
        busy = DBTaskResult.objects.filter(status__in=["READY", "RUNNING"]).exists()
        stale = StaleTopic.objects.filter(campaign__in=campaigns).exists()
        seen = {
            r.campaign_id: r.judgments_seen for r in Report.objects.filter(campaign__in=campaigns, name="agreement")
        }
        submitted = {
            c.pk: Judgment.objects.filter(topic__campaign=c, status__in=Judgment.COUNTING).count() for c in campaigns
        }
        behind = {
            c.name: (seen.get(c.pk, 0), submitted[c.pk]) for c in campaigns if seen.get(c.pk, 0) != submitted[c.pk]
        }
        if not busy and not stale and not behind:
            break
        if time.monotonic() - started > settle_timeout:
            problems.append(
                f"reports still behind after {settle_timeout:.0f} s: (seen, submitted) {behind}; "
                f"tasks queued or running: {busy}; stale topics left: {stale}"
            )
            break
        time.sleep(0.5)
    tasks = {
        row["status"]: row["n"] for row in DBTaskResult.objects.values("status").annotate(n=Count("id")).order_by()
    }
    if tasks.get("FAILED"):
        failed = DBTaskResult.objects.filter(status="FAILED").first()
        problems.append(
            f"{tasks['FAILED']} background task(s) failed; the first: "
            f"{failed.exception_class_path}: {failed.traceback[-1500:] if failed.traceback else ''}"
        )
    return {
        "judgments": len(saves),
        "saves": sum(len(a) for a in saves.values()),
        "replays": sum(len(a) for a in replays.values()),
        "revisions": sum(len(revisions[found[0][0]]) for found in judgments.values()),
        "revision_saves": sum(held for found in judgments.values() for *_, held in revisions[found[0][0]]),
        "submitted": sum(submitted.values()),
        "reports_settled_s": round(time.monotonic() - started, 2),
        "tasks": tasks,
        "problems": problems[:30],
        "problem_count": len(problems),
    }


# -- servers --------------------------------------------------------------------


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM it if the process that started it dies
    (even by SIGKILL, when no finally or atexit runs)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    handle = log.open("ab")
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=_die_with_parent,
    )
    handle.close()
    return process


def _stop(process: subprocess.Popen, grace: float = 20) -> None:
    """SIGTERM (gunicorn and the worker finish what they are doing), then SIGKILL; then
    SIGKILL whatever of its descendants is left: an RQ work horse runs in a process
    group of its own (rq's fork_work_horse calls setpgrp), so the group's signals miss it
    and it outlived its worker (a 100,000-item rebuild kept running after the benchmark)."""
    if process.poll() is not None:
        return
    below = _descendants(process.pid)
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, theirs, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        parent = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the (name) and the state
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@dataclass
class Server:
    url: str
    gunicorn: subprocess.Popen
    worker: subprocess.Popen
    logs: Path
    analyses: subprocess.Popen | None = None
    #: postmaster.pid of a PostgreSQL server started by the harness (its CPU is measured too).
    database_pid_file: Path | None = None

    def peak_mb(self) -> dict[str, float]:
        """Peak resident memory (VmHWM) of each gunicorn worker and of the task worker."""
        peaks = {}
        for pid in [*_children(self.gunicorn.pid), self.worker.pid]:
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
            peaks["worker" if pid == self.worker.pid else f"web-{pid}"] = kb / 1024
        return peaks

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds used so far by gunicorn (master and workers), the task
        workers (reports and analyses) and, for a PostgreSQL server started
        here, the whole server: every process that serves a save."""
        workers = [p for p in (self.worker, self.analyses) if p is not None]
        used = {"web": _tree_cpu(self.gunicorn.pid), "workers": sum(_tree_cpu(p.pid) for p in workers)}
        if self.database_pid_file is not None:
            used["database"] = _tree_cpu(int(self.database_pid_file.read_text().split()[0]))
        return used


def _tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid``, its children that have exited, and its live descendants."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK") + sum(_tree_cpu(child) for child in _children(pid))


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@contextmanager
def server(
    env: dict[str, str],
    logs: Path,
    *,
    workers: int = 4,
    worker_interval: float = 0.5,
    database_pid_file: Path | None = None,
) -> Iterator[Server]:
    """gunicorn with ``workers`` sync workers on a free loopback port, and a
    ``db_worker`` (as ./run starts it) on the same database."""
    port = free_port()
    gunicorn = _start(
        [
            PYTHON,
            "-m",
            "gunicorn",
            "concord.wsgi",
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "--timeout",
            "120",
            "--graceful-timeout",
            "20",
            "--log-level",
            "warning",
        ],
        # The app's settings plus the bare reference endpoint (benchmarks/loadrig/settings.py).
        {**env, "DJANGO_SETTINGS_MODULE": "benchmarks.loadrig.settings"},
        logs / "gunicorn.log",
    )
    with _cleanup(lambda: _stop(gunicorn)):
        # As ./run: one worker for the report rebuilds, one for the analyses queue.
        worker = _start(
            [
                PYTHON,
                "manage.py",
                "db_worker",
                "--queue-name",
                "default",
                "--no-startup-delay",
                "--interval",
                str(worker_interval),
            ],
            env,
            logs / "worker.log",
        )
        analyses = _start(
            [
                PYTHON,
                "manage.py",
                "db_worker",
                "--queue-name",
                "analyses",
                "--no-startup-delay",
                "--interval",
                str(worker_interval),
            ],
            env,
            logs / "analyses-worker.log",
        )
        with _cleanup(lambda: _stop(worker)), _cleanup(lambda: _stop(analyses)):
            url = f"http://127.0.0.1:{port}"
            _wait_until_up(url, gunicorn, logs / "gunicorn.log")
            _warm_up(url, workers)
            yield Server(url, gunicorn, worker, logs, analyses, database_pid_file)


def _wait_until_up(url: str, process: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/accounts/login/", timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def _warm_up(url: str, workers: int) -> None:
    """A few requests at once, so every worker has imported the app before
    the clock starts (gunicorn loads it in each worker on its first request)."""
    from concurrent.futures import ThreadPoolExecutor

    def get(_):
        try:
            urllib.request.urlopen(f"{url}/accounts/login/", timeout=30).read()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass

    with ThreadPoolExecutor(2 * workers) as pool:
        list(pool.map(get, range(4 * workers)))


def run_locust(
    url: str, plan: Path, out: Path, *, users: int, seconds: float, think: float, logs: Path, sample_every: int = 10
) -> dict[str, Any]:
    """locust headless in a subprocess: ``users`` assessors plus one organiser."""
    env = {
        **os.environ,
        "CONCORD_LOAD_PLAN": str(plan),
        "CONCORD_LOAD_OUT": str(out),
        "CONCORD_LOAD_THINK": str(think),
        "CONCORD_LOAD_SAMPLE_EVERY": str(sample_every),
    }
    command = [
        PYTHON,
        "-m",
        "locust",
        "-f",
        str(LOCUSTFILE),
        "--headless",
        "--host",
        url,
        "-u",
        str(users + 1),
        "-r",
        str(users + 1),
        "-t",
        f"{max(1, round(seconds))}s",
        # Users finish the cycle they are in: no save is cut off between the
        # server's commit and its answer, so every write is acknowledged.
        "--stop-timeout",
        "120",
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--exit-code-on-error",
        "0",
    ]
    with (logs / "locust.log").open("ab") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        with _cleanup(lambda: _stop(process, grace=5)):
            returncode = process.wait(seconds + 300)
    if returncode != 0 or not out.exists():
        raise RuntimeError(f"locust exited with {returncode}:\n{(logs / 'locust.log').read_text()[-3000:]}")
    return json.loads(out.read_text())


# -- one run --------------------------------------------------------------------


@dataclass
class Figures:
    """What the measured phases found (see :func:`run_load`)."""

    cost_requests: int
    #: kind -> {"draft_ms", "submit_ms"}: gunicorn's CPU ms per request, sent one at a time;
    #: "draft_total_ms", "submit_total_ms": every process's ("..._workers_ms": the task workers',
    #: "..._database_ms": a PostgreSQL server's started here, outside the total).
    cost: dict[str, dict[str, float]]
    bare_ms: float  # the same for the bare read-plus-write endpoint
    #: the bare endpoint's CPU ms per request by part ("web", "workers", "total"; "database" on a server started here)
    bare_parts: dict[str, float]
    clients: int  # closed-loop clients (= gunicorn workers)
    max_rate: float  # submits per second answered by ``clients`` closed-loop clients
    closed_p50_ms: float | None
    open_rate: float  # the open-loop arrival rate: half of max_rate
    open_sent: int
    open_seconds: float
    open_p50_ms: float | None
    open_p95_ms: float | None
    open_by_kind: dict[str, tuple[float | None, float | None, int]]  # kind -> (p50, p95, n)
    generator_cpu_pct: float  # the open-loop generator's own CPU, % of one core
    #: topics -> kind -> {"initial_s", "samples_s", "p50_s", "p95_s"}
    fresh: dict[int, dict[str, dict[str, Any]]]
    #: topics -> {"rate", "saves", "settled_s", "web_ms", "workers_ms", "total_ms"(, "database_ms")}:
    #: CPU per save of submits at a fixed rate into those campaigns, every process counted.
    at_size: dict[int, dict[str, float]]
    failures: list[str]

    @property
    def cpu_ratio(self) -> float:
        """The worst kind's submit CPU over the bare endpoint's."""
        worst = max((c["submit_ms"] for c in self.cost.values()), default=0.0)
        return worst / self.bare_ms if self.bare_ms else float("inf")

    @property
    def cpu_ratio_total(self) -> float:
        """The worst kind's submit CPU over the bare endpoint's, every process counted
        (web and task workers; the submits' until their report counted them)."""
        worst = max((c["submit_total_ms"] for c in self.cost.values()), default=0.0)
        bare = self.bare_parts.get("total", 0.0)
        return worst / bare if bare else float("inf")

    def fresh_p95_s(self, topics: int | None = None) -> float | None:
        """The worst kind's p95 freshness at ``topics`` (the largest size measured by default)."""
        if not self.fresh:
            return None
        found = [k["p95_s"] for k in self.fresh[topics or max(self.fresh)].values() if k["p95_s"] is not None]
        return max(found) if len(found) == len(self.fresh[topics or max(self.fresh)]) else None


@dataclass
class LoadResult:
    engine: str
    users: int
    seconds: float
    workers: int
    requests: int  # locust's
    failures: int  # locust's failed requests and the measuring client's
    rps: float
    submits: int
    submit_p50_ms: float
    submit_p95_ms: float
    submit_p99_ms: float
    conflicts: int  # 409 on ordinary saves
    stale_409: int  # 409 on the deliberate stale edits (expected)
    replays: int
    report_samples: int
    report_p50_s: float | None
    report_max_s: float | None
    report_unresolved: int
    peak_mb: float  # largest peak RSS of one gunicorn worker
    cpu_seconds: dict[str, float]  # during the locust phase: web workers, task worker, PostgreSQL backends
    verification: dict[str, Any]
    figures: Figures
    locust: dict[str, Any] = field(repr=False)
    logs: str = ""

    @property
    def ok(self) -> bool:
        return self.failures == 0 and self.verification["problem_count"] == 0

    @property
    def lost(self) -> int:
        """Acknowledged judgments the database check found missing, doubled or wrong."""
        return self.verification["problem_count"]


def _rate_slots(plan: dict[str, Any]) -> Iterator[client.Slot]:
    """Every (topic, assessor) of the rate campaigns once, the kinds interleaved."""
    assessors = plan["rate_assessors"]
    longest = max(len(c["topics"]) for c in plan["rate"])
    for t in range(longest):
        for a, assessor in enumerate(assessors):
            for campaign in plan["rate"]:
                if t < len(campaign["topics"]):
                    yield client.Slot(
                        campaign["kind"],
                        campaign["campaign"],
                        campaign["topics"][t],
                        assessor["username"],
                        assessor["token"],
                        campaign["payloads"][a % 2],
                    )


def _measure_cost(
    running: Server, plan: dict[str, Any], log: Callable[[str], None], timeout: float = 300
) -> tuple[dict, dict, list, list]:
    cost, acks, failures = {}, [], []
    organiser = plan["organiser"]["token"]
    for c in plan["cost"]:
        slots = [client.Slot(c["kind"], c["campaign"], t, c["assessor"], c["token"], c["payload"]) for t in c["topics"]]
        settle = _settler(running, organiser, c, timeout, failures)
        draft, submit, outcome = client.cost(running.url, slots, running.cpu_seconds, settle)
        cost[c["kind"]] = {
            "draft_ms": round(draft["web"], 2),
            "submit_ms": round(submit["web"], 2),
            **{f"draft_{part}_ms": round(ms, 2) for part, ms in draft.items() if part != "web"},
            **{f"submit_{part}_ms": round(ms, 2) for part, ms in submit.items() if part != "web"},
        }
        acks += outcome.acks
        failures += outcome.failures
        log(
            f"  {c['kind']}: server CPU per draft PUT {draft['web']:.1f} ms (all processes {draft['total']:.1f}), "
            f"per submit {submit['web']:.1f} ms (all processes {submit['total']:.1f}, until its report counted it)"
        )
    count = len(plan["cost"][0]["topics"])
    bare, bare_failures = client.bare_cost(
        running.url, plan["bare"]["token"], plan["bare"]["judgment"], count, running.cpu_seconds
    )
    failures += [f"PUT /bare/: {bare_failures} failed"] if bare_failures else []
    log(f"  bare read-plus-write: {bare['web']:.1f} ms per request (all processes {bare['total']:.1f})")
    return cost, {part: round(ms, 2) for part, ms in bare.items()}, acks, failures


def _settler(
    running: Server, organiser: str, campaign: dict[str, Any], timeout: float, failures: list[str]
) -> Callable[[int], None]:
    """A wait until ``campaign``'s report counts a number of submits (a failure noted if it never does)."""

    def settle(submitted: int) -> None:
        if submitted and not _wait_fresh_computed(
            running, organiser, [_counted(campaign["campaign"], submitted)], timeout
        ):
            failures.append(
                f"cost {campaign['kind']}: the report did not count the {submitted} submits within {timeout:.0f} s"
            )

    return settle


def _counted(campaign: int, judgments: int) -> dict[str, int]:
    """What :func:`_wait_fresh_computed` waits for: ``campaign``'s report counting ``judgments``."""
    return {"campaign": campaign, "judgments": judgments}


def _wait_fresh_computed(running: Server, token: str, campaigns: list[dict], timeout: float) -> dict[int, float]:
    """Seconds until each campaign's stored report counts its seeded judgments."""
    connection = client.Connection(running.url)
    started = time.monotonic()
    done: dict[int, float] = {}
    while len(done) < len(campaigns) and time.monotonic() - started < timeout:
        for c in campaigns:
            if c["campaign"] in done:
                continue
            code, _, content = connection.request("GET", f"/api/campaigns/{c['campaign']}/agreement/", token)
            if code == 200 and json.loads(content)["judgments_seen"] >= c["judgments"]:
                done[c["campaign"]] = round(time.monotonic() - started, 2)
        time.sleep(0.5)
    return done


def _measure_freshness(
    env: dict[str, str],
    running: Server,
    plan: dict[str, Any],
    directory: Path,
    *,
    sizes: tuple[int, ...],
    samples: int,
    timeout: float,
    log: Callable[[str], None],
    kinds: tuple[str, ...] = (),
    save_rate: float = 0,
    save_seconds: float = 0,
) -> tuple[dict, dict, list[str]]:
    fresh: dict[int, dict[str, dict[str, Any]]] = {}
    at_size: dict[int, dict[str, float]] = {}
    failures: list[str] = []
    organiser = plan["organiser"]["token"]
    for size in sizes:
        out = directory / f"fresh-{size}.json"
        started = time.monotonic()
        # Every kind gets enough spare topics for the whole run (the kinds share it).
        spare = max(0, min(size - samples, math.ceil(save_rate * save_seconds)))
        manage(
            env, "-m", "benchmarks.loadrig.harness", "seed-fresh", "--topics", str(size), "--samples", str(samples),
            "--kinds", ",".join(kinds), "--spare", str(spare), "--out", str(out), timeout=3600,
        )  # fmt: skip
        seeded = json.loads(out.read_text())
        log(
            f"  {size} topics x {FRESH_ASSESSORS} assessors per kind seeded in bulk in {time.monotonic() - started:.0f} s"
        )
        initial = _wait_fresh_computed(running, organiser, seeded["campaigns"], timeout)
        fresh[size] = {}
        for c in seeded["campaigns"]:
            if c["campaign"] not in initial:
                failures.append(f"fresh {c['kind']} {size}: the first report was not stored within {timeout:.0f} s")
                continue
            times = []
            for topic in c["topics"]:
                slot = client.Slot(c["kind"], c["campaign"], topic, seeded["assessor"], seeded["token"], c["payload"])
                seconds, problem = client.freshness(running.url, slot, organiser, timeout=timeout)
                if problem:
                    failures.append(f"fresh {c['kind']} {size}: {problem}")
                else:
                    times.append(round(seconds, 3))
                time.sleep(0.5)  # not in step with the rebuilds
            fresh[size][c["kind"]] = {
                "initial_s": initial[c["campaign"]],
                "samples_s": times,
                "p50_s": statistics.median(times) if times else None,
                "p95_s": client.percentile(times, 0.95),
            }
            log(f"  {c['kind']} at {size}: first report after {initial[c['campaign']]} s; fresh after a submit {times}")
        # Only with every first build done: the workers' CPU must be the submits' alone.
        if spare and len(initial) < len(seeded["campaigns"]):
            failures.append(f"cost at {size}: not measured, the first builds did not finish within {timeout:.0f} s")
        elif spare:
            at_size[size], problems = _cost_at_size(
                env, running, seeded, seeded["campaigns"], organiser, save_rate, save_seconds, timeout
            )
            failures += [f"cost at {size}: {problem}" for problem in problems]
            found = at_size[size]
            log(
                f"  CPU per save at {size} topics, {found['saves']} submits at {save_rate:g}/s: web "
                f"{found['web_ms']:.1f} ms, task workers {found['workers_ms']:.1f} ms, total {found['total_ms']:.1f} ms; "
                f"the refreshes of the costly figures, later, {found['fits_ms']:.1f} ms more "
                f"(total with them {found['total_with_fits_ms']:.1f} ms)"
            )
    return fresh, at_size, failures


def _cost_at_size(
    env: dict[str, str],
    running: Server,
    seeded: dict[str, Any],
    campaigns: list[dict[str, Any]],
    organiser: str,
    rate: float,
    seconds: float,
    timeout: float,
) -> tuple[dict[str, float], list[str]]:
    """Submits of the campaigns' spare topics (the kinds interleaved) arriving at
    ``rate`` per second for ``seconds``, then a wait until every report counts
    them: every process's CPU over that time, per acknowledged save (the web
    part up to the last answer, the task workers' until the reports caught up)."""
    slots = (
        client.Slot(c["kind"], c["campaign"], topic, seeded["assessor"], seeded["token"], c["payload"])
        for topics in itertools.zip_longest(*(c["spare"] for c in campaigns))
        for c, topic in zip(campaigns, topics)
        if topic is not None
    )
    seen = {c["campaign"]: c["judgments"] + len(c["topics"]) for c in campaigns}
    before = running.cpu_seconds()
    outcome = client.open_loop(running.url, slots, rate=rate, seconds=seconds)
    answered = running.cpu_seconds()
    for ack in outcome.acks:
        seen[ack["campaign"]] += 1
    waited = _wait_fresh_computed(running, organiser, [_counted(c, n) for c, n in seen.items()], timeout)
    after = running.cpu_seconds() | {"web": answered["web"]}
    problems = list(outcome.failures)
    if len(waited) < len(seen):
        problems.append(f"the reports did not count the submits within {timeout:.0f} s")
    per_save = client.spent(before, after, max(1, len(outcome.acks)))
    # The saves' share of the refreshes of the costly figures, which come later (every 1% of a
    # campaign's judgments): timed here, amortised over the saves that wait for each.
    amortised = json.loads(
        manage(env, "-m", "benchmarks.loadrig.harness", "fits-cost",
               "--campaigns", ",".join(str(c["campaign"]) for c in campaigns), timeout=3600)
    )  # fmt: skip
    saves = Counter(ack["campaign"] for ack in outcome.acks)
    fits_ms = sum(amortised[str(c)] * n for c, n in saves.items()) / max(1, len(outcome.acks))
    figures = {f"{part}_ms": round(ms, 2) for part, ms in per_save.items()}
    return {
        "rate": rate,
        "saves": len(outcome.acks),
        "settled_s": max(waited.values(), default=0.0),
        **figures,
        "fits_ms": round(fits_ms, 2),
        "total_with_fits_ms": round(figures["total_ms"] + fits_ms, 2),
    }, problems


def run_load(
    engine: str,
    *,
    users: int,
    seconds: float,
    workers: int = 4,
    think: float = 0.5,
    per_assessor: int = 3,
    cost_requests: int = 100,
    rate_seconds: float = 10,
    open_seconds: float = 20,
    rate_slots: int | None = None,
    sizes: tuple[int, ...] = (100,),
    fresh_samples: int = 5,
    fresh_timeout: float = 600,
    fresh_kinds: tuple[str, ...] = (),
    save_rate: float = 20,
    save_seconds: float = 10,
    database_url: str | None = None,
    directory: Path | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> LoadResult:
    """One whole run on ``engine`` ("sqlite" or "postgresql"; with
    ``database_url`` a fresh database on that PostgreSQL server, else a
    throw-away server), its phases one after the other against one gunicorn
    (``workers`` sync workers) and the task workers:

    1. cost: per kind, ``cost_requests`` draft PUTs then as many submits, one
       at a time, and as many PUTs of the bare endpoint; the CPU time (/proc)
       of gunicorn and of the task workers before and after each batch (the
       workers' once the report counts the batch's submits);
    2. rate: ``workers`` closed-loop clients submit for ``rate_seconds`` (the
       maximum rate), then an open-loop generator submits at half that rate
       for ``open_seconds`` (latency p50/p95, the generator's own CPU);
    3. concurrency: locust, ``users`` assessors for ``seconds`` (reads, drafts,
       edits, submits, reopenings, replays, stale edits); skipped at 0 s;
    4. the database check: every acknowledged save of phases 1-3 once, one
       revision each, and the reports caught up;
    5. freshness: for each of ``sizes``, campaigns of every kind seeded in bulk
       with that many topics, computed once, then ``fresh_samples`` timed
       submissions each through the API until the organiser's report counts them;
       then submits arriving at ``save_rate`` per second for ``save_seconds``
       (the kinds interleaved) and every process's CPU per save until the
       reports count them (0 skips it).
    """
    own = directory is None
    directory = Path(tempfile.mkdtemp(prefix=f"concord-load-{engine}.")) if own else directory
    directory.mkdir(parents=True, exist_ok=True)
    # Enough (topic, assessor) pairs for the closed and open loops at up to 800 submits per second
    # (a quiet 2-core machine reaches 400 on SQLite).
    rate_slots = rate_slots or math.ceil(800 * (rate_seconds + open_seconds / 2))
    try:
        database_context = sqlite_database(directory) if engine == "sqlite" else postgres_database(database_url)
        with database_context as database:
            env = django_env(database)
            log(f"{database.label}: migrating and seeding")
            manage(env, "manage.py", "migrate", "--no-input", "-v0")
            plan_path = directory / "plan.json"
            manage(
                env, "-m", "benchmarks.loadrig.harness", "seed", "--users", str(users), "--per-assessor", str(per_assessor),
                "--cost-topics", str(cost_requests), "--rate-slots", str(rate_slots), "--out", str(plan_path),
            )  # fmt: skip
            plan = json.loads(plan_path.read_text())
            with server(env, directory, workers=workers, database_pid_file=database.pid_file) as running:
                log(f"{running.url}: gunicorn -w {workers} and the task workers up")
                log(f"cost: {cost_requests} draft PUTs and submits per kind, one at a time")
                cost, bare, acks, failures = _measure_cost(running, plan, log)
                slots = _rate_slots(plan)
                closed = client.closed_loop(running.url, slots, clients=workers, seconds=rate_seconds)
                answered = closed.all_latencies()
                max_rate = len(answered) / closed.seconds if closed.seconds else 0.0
                log(f"rate: {workers} closed-loop clients: {max_rate:.1f} submits/s")
                opened = client.open_loop(running.url, slots, rate=max(0.5, max_rate / 2), seconds=open_seconds)
                log(f"open loop at {max_rate / 2:.1f}/s: {len(opened.all_latencies())} answered")
                for outcome in (closed, opened):
                    acks += outcome.acks
                    failures += outcome.failures
                    if outcome.exhausted:
                        failures.append("the rate campaigns ran out of topics (raise rate_slots)")
                if seconds > 0:
                    log(f"concurrency: locust, {users} assessors for {seconds:.0f} s")
                    before = running.cpu_seconds()
                    stats = run_locust(
                        running.url, plan_path, directory / "results.json",
                        users=users, seconds=seconds, think=think, logs=directory,
                    )  # fmt: skip
                    after = running.cpu_seconds()
                    cpu = {part: round(after[part] - before[part], 2) for part in after}
                else:
                    stats, cpu = _no_locust(), {}
                log("verifying the database")
                acks_path = directory / "acks.json"
                acks_path.write_text(json.dumps(stats["acks"] + acks))
                verification = json.loads(
                    manage(env, "-m", "benchmarks.loadrig.harness", "verify", "--acks", str(acks_path))
                )
                log(f"freshness at {', '.join(map(str, sizes)) or 'no sizes'} topics per kind")
                fresh, at_size, fresh_failures = _measure_freshness(
                    env,
                    running,
                    plan,
                    directory,
                    sizes=sizes,
                    samples=fresh_samples,
                    timeout=fresh_timeout,
                    log=log,
                    kinds=fresh_kinds,
                    save_rate=save_rate,
                    save_seconds=save_seconds,
                )
                failures += fresh_failures
                peaks = running.peak_mb()
        figures = Figures(
            cost_requests=cost_requests,
            cost=cost,
            bare_ms=bare["web"],
            bare_parts=bare,
            clients=workers,
            max_rate=round(max_rate, 1),
            closed_p50_ms=client.percentile(answered, 0.5),
            open_rate=round(max_rate / 2, 1),
            open_sent=opened.sent,
            open_seconds=round(opened.seconds, 1),
            open_p50_ms=client.percentile(opened.all_latencies(), 0.5),
            open_p95_ms=client.percentile(opened.all_latencies(), 0.95),
            open_by_kind={
                kind: (client.percentile(times, 0.5), client.percentile(times, 0.95), len(times))
                for kind, times in opened.latencies_ms.items()
            },
            generator_cpu_pct=round(100 * opened.client_cpu_s / opened.seconds, 1) if opened.seconds else 0.0,
            fresh=fresh,
            at_size=at_size,
            failures=failures,
        )
        return _summarise(engine, users, seconds, workers, stats, verification, peaks, cpu, directory, figures)
    finally:
        if own and not os.environ.get("CONCORD_LOAD_KEEP"):
            shutil.rmtree(directory, ignore_errors=True)


def _no_locust() -> dict[str, Any]:
    return {
        "acks": [],
        "conflicts": {},
        "expected_conflicts": {},
        "time_to_report": [],
        "unresolved_samples": [],
        "in_flight_at_exit": 0,
        "submit_ms_by_kind": {},
        "stats": {},
        "total": {"requests": 0, "failures": 0, "rps": 0.0},
        "errors": [],
    }


def _summarise(engine, users, seconds, workers, stats, verification, peaks, cpu, directory, figures) -> LoadResult:
    submit = stats["stats"].get("PUT judgment (submit)", {})
    samples = [s["seconds"] for s in stats["time_to_report"]]
    web = [mb for name, mb in peaks.items() if name.startswith("web")]
    return LoadResult(
        engine=engine,
        users=users,
        seconds=seconds,
        workers=workers,
        requests=stats["total"]["requests"],
        failures=stats["total"]["failures"] + len(figures.failures),
        rps=stats["total"]["rps"],
        submits=submit.get("requests", 0),
        submit_p50_ms=submit.get("p50_ms", 0),
        submit_p95_ms=submit.get("p95_ms", 0),
        submit_p99_ms=submit.get("p99_ms", 0),
        conflicts=sum(stats["conflicts"].values()),
        stale_409=sum(stats["expected_conflicts"].values()),
        replays=sum(1 for a in stats["acks"] if a["replayed"]),
        report_samples=len(samples),
        report_p50_s=statistics.median(samples) if samples else None,
        report_max_s=max(samples) if samples else None,
        report_unresolved=len(stats["unresolved_samples"]),
        peak_mb=max(web, default=0.0),
        cpu_seconds=cpu,
        verification=verification,
        figures=figures,
        locust={k: v for k, v in stats.items() if k != "acks"},
        logs=str(directory),
    )


# -- command line: the parts that run inside Django ------------------------------


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seeding = commands.add_parser("seed", help="users, tokens, one campaign per kind; writes the plan")
    seeding.add_argument("--users", type=int, required=True)
    seeding.add_argument("--per-assessor", type=int, default=3)
    seeding.add_argument("--cost-topics", type=int, default=100)
    seeding.add_argument("--rate-slots", type=int, default=2000)
    seeding.add_argument("--rate-assessors", type=int, default=4)
    seeding.add_argument("--out", type=Path, required=True)
    fresh = commands.add_parser("seed-fresh", help="bulk-seeded campaigns of every kind at one size")
    fresh.add_argument("--topics", type=int, required=True)
    fresh.add_argument("--samples", type=int, required=True)
    fresh.add_argument("--kinds", default="", help="comma-separated kinds (default every kind)")
    fresh.add_argument("--spare", type=int, default=0, help="topics per kind left for the CPU measure")
    fresh.add_argument("--out", type=Path, required=True)
    costing = commands.add_parser("fits-cost", help="each campaign's refresh of its costly figures, timed")
    costing.add_argument("--campaigns", required=True, help="comma-separated campaign ids")
    checking = commands.add_parser("verify", help="check the database against the acknowledged saves")
    checking.add_argument("--acks", type=Path, required=True)
    checking.add_argument("--settle-timeout", type=float, default=300)
    args = parser.parse_args(argv)

    import django

    django.setup()
    if args.command == "seed":
        plan = seed(
            users=args.users,
            per_assessor=args.per_assessor,
            cost_topics=args.cost_topics,
            rate_slots=args.rate_slots,
            rate_assessors=args.rate_assessors,
        )
        args.out.write_text(json.dumps(plan))
    elif args.command == "seed-fresh":
        args.out.write_text(
            json.dumps(
                seed_fresh(
                    topics=args.topics,
                    samples=args.samples,
                    kinds=tuple(k for k in args.kinds.split(",") if k),
                    spare=args.spare,
                )
            )
        )
    elif args.command == "fits-cost":
        print(json.dumps(fits_cost([int(c) for c in args.campaigns.split(",") if c])))
    else:
        acks = json.loads(args.acks.read_text())
        print(json.dumps(verify(acks, settle_timeout=args.settle_timeout)))


if __name__ == "__main__":
    main()
