"""Benchmark: a crowd campaign of ``--items`` items (100,000 by default, 10 labels
each) on the multi-machine recipe of docs/operations.md, "Running on several
machines", run on this one machine. Not in CI.

Everything is started here as subprocesses and stopped at the end (or when this
process dies): a throw-away PostgreSQL on port ``--pg-port`` (55445; fsync off,
as .ci/run), ``redis-server`` on ``--redis-port`` (56445, no persistence), the
environment of the recipe (``DATABASE_URL``, ``CONCORD_TASKS_BACKEND=rq``,
``REDIS_URL``), ``manage.py migrate``, then ``--report-workers`` (2)
``rqworker default --with-scheduler`` and one ``rqworker analyses --with-scheduler``, and
``gunicorn concord.wsgi -w --web-workers`` (4). Then, one after the other:

1. **Import.** A CrowdTruth CSV generated like ``data/snow2008/rte.csv``
   (``!amt_worker_ids``, ``orig_id``, ``response``, ``gold``, ``text``,
   ``hypothesis``; each item labelled by 10 of ``items / 50`` workers, each
   right with probability 0.8 about a gold label drawn 50/50) imported into
   a new pairs campaign by ``manage.py import_judgments``, as an organiser
   would from a shell: its wall time, and its process's peak RSS. The upload
   limit is raised for it (``CONCORD_MAX_UPLOAD_BYTES``, 1 GB): the
   100,000-item file is about 80 MB, over the 50 MB default.
2. **First build.** From the import's end (its commit) until the organiser's
   agreement API (its headline: ``/agreement/headline/``, the report's time
   and count) counts every imported judgment (polled every second):
   ``first_build_s``.
3. **Freshness.** One assessor account (a member, assigned ``--samples``
   topics in bulk) submits one judgment every ``--interval`` seconds through
   the API, on schedule whatever the earlier ones still wait for (a fixed
   rate: at 100,000 items a rebuild took minutes, and one sample after the
   other would have taken most of an hour); each is timed from its
   acknowledgement until the organiser's agreement API (polled every 0.2 s
   per sample with If-None-Match) counts it: ``fresh_p50_s``, ``fresh_p95_s``.
4. **The organiser's page.** Signed in through the login form, the
   campaign's page fetched ``--page-loads`` times: its size in bytes and the
   median time to the last byte.
5. **The check.** The campaign holds exactly the imported judgments plus the
   acknowledged submissions, once each (``lost``: the difference, plus the
   report's count if it disagrees), no task failed (``failures`` counts
   these, failed requests and timeouts), and the database's size on disk
   (``pg_database_size``) grown since before the import, per judgment
   (``bytes_per_judgment``).

Peak memory (VmHWM, sampled every second with the children: an rqworker's work
horses, PostgreSQL's backends; the import's process) of every process is printed
at the end. Goals: first build at most 10 min, fresh p95 at most 2 s,
page at most 300 KB and 150 ms, nothing lost.

Run from the project root: ``python -m benchmarks.distributed [--items 100000]``;
develop with ``--items 2000``.
"""

from __future__ import annotations

import argparse
import csv
import http.cookiejar
import json
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks._harness import print_result, print_table
from benchmarks.loadrig import client, harness

PASSWORD = "distributed-benchmark"
LABELS_PER_ITEM = 10
#: What every poll asks for: the campaign report's time, count and headline (a few hundred
#: bytes; the whole report, at 100,000 items x 2,000 workers, is tens of megabytes of JSON
#: with its kappa matrix, which 20 samplers would fetch after each rebuild on the same two
#: cores as the rebuilds they wait for).
AGREEMENT = "/api/campaigns/{}/agreement/headline/"


# -- inside Django (``python -m benchmarks.distributed setup|assessor|check``) ----


def setup() -> dict[str, Any]:
    """The organiser (with the known password and a token) and an empty pairs campaign."""
    from django.contrib.auth.models import User

    from annotate.services.campaigns import create_campaign
    from concord import tokens

    organiser = User.objects.create_user(username="organiser", password=PASSWORD)
    campaign = create_campaign(creator=organiser, kind="pairs", name="Crowd at scale", overlap=2)
    return {"campaign": campaign.pk, "organiser": organiser.username, "token": tokens.issue(organiser)[1]}


def assessor(campaign_id: int, samples: int) -> dict[str, Any]:
    """An assessor member assigned the first ``samples`` topics in bulk (as an
    organiser's reassignment would), with a token."""
    from django.contrib.auth.models import User

    from annotate.models import Assignment, Campaign, Membership
    from concord import tokens

    campaign = Campaign.objects.get(pk=campaign_id)
    user = User.objects.create_user(username="fresh-assessor", password=PASSWORD)
    Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.ASSESSOR)
    topics = list(campaign.topics.order_by("position")[:samples])
    Assignment.objects.bulk_create(Assignment(topic=topic, assessor=user) for topic in topics)
    return {"username": user.username, "token": tokens.issue(user)[1], "topics": [t.external_id for t in topics]}


def check(campaign_id: int, expected: int) -> dict[str, Any]:
    """The campaign's judgments against ``expected``; failed tasks; the database's size."""
    from django.db.models import Count

    from annotate.models import Judgment

    judgments = Judgment.objects.filter(topic__campaign_id=campaign_id)
    duplicates = judgments.values("topic_id", "assessor_id").annotate(n=Count("id")).filter(n__gt=1).count()
    size = database_bytes()
    return {
        "judgments": judgments.count(),
        "submitted": judgments.filter(status__in=Judgment.COUNTING).count(),
        "expected": expected,
        "duplicates": duplicates,
        "database_bytes": size,
    }


def database_bytes() -> int:
    """The database's size on disk (SQLite, as the suite runs these parts: its pages)."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_database_size(current_database())")
            return cursor.fetchone()[0]
        cursor.execute("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        return cursor.fetchone()[0]


# -- the crowd file -------------------------------------------------------------


def write_crowd_csv(path: Path, items: int, *, seed: int = 27) -> int:
    """A CrowdTruth CSV shaped like data/snow2008/rte.csv: ``items`` items, each
    labelled by 10 distinct workers of ``max(20, items // 50)``, each right with
    probability 0.8. Returns the number of rows (judgments)."""
    rng = random.Random(seed)
    workers = [f"W{i:06d}" for i in range(max(LABELS_PER_ITEM * 2, items // 50))]
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(["!amt_annotation_ids", "!amt_worker_ids", "orig_id", "response", "gold", "hypothesis", "text"])
        for item in range(1, items + 1):
            gold = rng.randint(0, 1)
            text, hypothesis = f"Premise {item} says a thing.", f"Hypothesis {item}."
            for worker in rng.sample(workers, LABELS_PER_ITEM):
                rows += 1
                label = gold if rng.random() < 0.8 else 1 - gold
                out.writerow([rows, worker, item, label, gold, hypothesis, text])
    return rows


# -- the processes --------------------------------------------------------------


@dataclass
class Cluster:
    env: dict[str, str]
    url: str
    logs: Path
    gunicorn: subprocess.Popen
    report_workers: list[subprocess.Popen]
    analyses_worker: subprocess.Popen
    redis: subprocess.Popen
    pg_data: Path

    def processes(self) -> dict[str, int]:
        """Name -> pid of every server process (PostgreSQL: the postmaster)."""
        found = {f"web-{i}": pid for i, pid in enumerate(harness._children(self.gunicorn.pid), 1)}
        found |= {f"report-worker-{i}": p.pid for i, p in enumerate(self.report_workers, 1)}
        found |= {"analyses-worker": self.analyses_worker.pid, "redis": self.redis.pid}
        found["postgresql"] = int((self.pg_data / "postmaster.pid").read_text().split()[0])
        return found

    def peak_mb(self) -> dict[str, float]:
        """Peak RSS (VmHWM) of each process and of its children (an rqworker's
        work horse, a PostgreSQL backend) as seen now."""
        parents = _parents()
        return {
            name: max(_hwm_mb(p) for p in [pid, *(child for child, parent in parents.items() if parent == pid)])
            for name, pid in self.processes().items()
        }


@contextmanager
def watching(running: Cluster, every: float = 1.0) -> Iterator[dict[str, float]]:
    """Peak RSS by process, sampled every ``every`` s while the block runs, so the
    children that come and go (RQ forks a work horse per task) are caught too."""
    peaks: dict[str, float] = {}
    stop = threading.Event()

    def sample() -> None:
        while True:
            for name, mb in running.peak_mb().items():
                peaks[name] = max(peaks.get(name, 0.0), mb)
            if stop.wait(every):
                return

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peaks
    finally:
        stop.set()
        thread.join()


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (one pass over /proc)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            found[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return found


def _hwm_mb(pid: int, field: str = "VmHWM:") -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith(field)), 0.0)


@contextmanager
def redis_server(port: int, directory: Path) -> Iterator[subprocess.Popen]:
    redis = shutil.which("redis-server")
    if redis is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    command = [redis, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = harness._start([*command, "--dir", str(directory)], {}, directory / "redis.log")
    with harness._cleanup(lambda: harness._stop(process)):
        yield process


@contextmanager
def cluster(args: argparse.Namespace, directory: Path) -> Iterator[Cluster]:
    with ExitStack() as stack:
        url, data = stack.enter_context(harness.postgres_server(args.pg_port))
        redis = stack.enter_context(redis_server(args.redis_port, directory))
        database = harness.Database("postgresql", {"DATABASE_URL": url.rsplit("/", 1)[0] + "/concord"}, "concord")
        harness._as_postgres(
            [
                str(harness._pg_bin() / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(args.pg_port),
                "-U",
                "postgres",
                "concord",
            ]
        )
        env = harness.django_env(database) | {
            "CONCORD_TASKS_BACKEND": "rq",
            "REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
            "CONCORD_MAX_UPLOAD_BYTES": str(2**30),
        }
        harness.manage(env, "manage.py", "migrate", "--no-input", "-v0")
        rq = [harness.PYTHON, "manage.py", "rqworker", "--job-class", "django_tasks_rq.Job"]
        workers = []
        for i in range(args.report_workers):
            log = directory / f"report-worker-{i + 1}.log"
            command = [*rq, "--worker-class", args.worker_class, "default", "--with-scheduler"]
            workers.append(harness._start(command, env, log))
            stack.enter_context(harness._cleanup(lambda p=workers[-1]: harness._stop(p)))
        analyses = harness._start([*rq, "analyses", "--with-scheduler"], env, directory / "analyses-worker.log")
        stack.enter_context(harness._cleanup(lambda: harness._stop(analyses)))
        port = harness.free_port()
        command = [harness.PYTHON, "-m", "gunicorn", "concord.wsgi", "-w", str(args.web_workers)]
        gunicorn = harness._start(
            [*command, "-b", f"127.0.0.1:{port}", "--timeout", "120", "--log-level", "warning"],
            env,
            directory / "gunicorn.log",
        )
        stack.enter_context(harness._cleanup(lambda: harness._stop(gunicorn)))
        base = f"http://127.0.0.1:{port}"
        harness._wait_until_up(base, gunicorn, directory / "gunicorn.log")
        harness._warm_up(base, args.web_workers)
        yield Cluster(env, base, directory, gunicorn, workers, analyses, redis, data)


def inside(env: dict[str, str], *args: str, timeout: float = 3600) -> Any:
    """Run one of this module's Django commands in a subprocess; its JSON answer."""
    return json.loads(harness.manage(env, "-m", "benchmarks.distributed", *args, timeout=timeout).splitlines()[-1])


# -- the phases -----------------------------------------------------------------


def run_import(running: Cluster, campaign: int, path: Path) -> tuple[float, float, str]:
    """``manage.py import_judgments``: wall seconds, the process's peak RSS (MB), its output."""
    started = time.monotonic()
    process = subprocess.Popen(
        [harness.PYTHON, "manage.py", "import_judgments", str(campaign), str(path)],
        cwd=harness.ROOT,
        env=running.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, _hwm_mb(process.pid))
        time.sleep(0.2)
    output = process.stdout.read() if process.stdout else ""
    if process.returncode != 0:
        raise RuntimeError(f"import_judgments failed:\n{output[-3000:]}")
    return time.monotonic() - started, peak, output.strip().splitlines()[-1]


def wait_counted(running: Cluster, token: str, campaign: int, judgments: int, timeout: float) -> float | None:
    """Seconds until the organiser's agreement API counts ``judgments`` (None: not within ``timeout``)."""
    connection = client.Connection(running.url)
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        code, _, content = connection.request("GET", AGREEMENT.format(campaign), token)
        if code == 200 and json.loads(content)["judgments_seen"] >= judgments:
            return time.monotonic() - started
        time.sleep(1)
    return None


#: How often each sample polls the agreement API (an ETag check: 304 until the report changes).
POLL_S = 0.2


def freshness(
    running: Cluster, campaign: int, fresh: dict[str, Any], organiser: str, interval: float, timeout: float
) -> tuple[list[float], list[str]]:
    """One submission every ``interval`` s, on schedule whatever the earlier ones still
    wait for (a fixed rate: a slow rebuild makes each wait longer, not the run), each
    timed from its acknowledgement until the report counts it. Sample i (from 0) is
    counted when the report counts ``base + i + 1`` judgments: the samples are
    committed ``interval`` apart and in order, and a report counts a prefix of them."""
    connection = client.Connection(running.url)
    code, _, content = connection.request("GET", AGREEMENT.format(campaign), organiser)
    if code != 200:
        return [], [f"{AGREEMENT.format(campaign)}: {code}"]
    base = json.loads(content)["judgments_seen"]
    started = time.monotonic()

    def sample(i: int, topic: str) -> tuple[float | None, str | None]:
        pause = started + i * interval - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        slot = client.Slot("pairs", campaign, topic, fresh["username"], fresh["token"], {"matches": {"item": True}})
        return _counted_after(running, slot, organiser, base + i + 1, timeout)

    with ThreadPoolExecutor(max_workers=max(1, len(fresh["topics"]))) as pool:
        results = list(pool.map(sample, range(len(fresh["topics"])), fresh["topics"]))
    return [round(s, 3) for s, problem in results if problem is None], [p for _, p in results if p]


def _counted_after(
    running: Cluster, slot: client.Slot, organiser: str, judgments: int, timeout: float
) -> tuple[float | None, str | None]:
    """Submit ``slot``, then seconds from its acknowledgement until the report counts ``judgments``."""
    connection = client.Connection(running.url)
    body = {"payload": slot.payload, "status": "submitted", "version": 0}
    code, _, content = connection.request("PUT", slot.url, slot.token, body)
    acked = time.perf_counter()
    if code != 200:
        return None, f"{slot.url}: {code}: {content[:300]!r}"
    path, etag = AGREEMENT.format(slot.campaign), ""
    while time.perf_counter() - acked < timeout:
        code, headers, content = connection.request("GET", path, organiser, headers={"If-None-Match": etag})
        if code == 200:
            etag = headers.get("etag", "")
            if json.loads(content)["judgments_seen"] >= judgments:
                return time.perf_counter() - acked, None
        elif code != 304:
            return None, f"{path}: {code}"
        time.sleep(POLL_S)
    return None, f"{path}: the report did not count submission {slot.topic} within {timeout:.0f} s"


def organiser_page(running: Cluster, campaign: int, loads: int) -> tuple[int, float]:
    """Signed in through the login form: the campaign page's bytes and median seconds to the last byte."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    login = f"{running.url}/accounts/login/"
    page = opener.open(login, timeout=60).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = urllib.parse.urlencode({"username": "organiser", "password": PASSWORD, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(login, data=form.encode(), headers={"Referer": login})
    opener.open(request, timeout=60).read()
    sizes, times = [], []
    for _ in range(loads):
        started = time.perf_counter()
        with opener.open(f"{running.url}/campaigns/{campaign}/", timeout=120) as response:
            if response.geturl().rstrip("/").endswith("/accounts/login"):
                raise RuntimeError("the organiser's sign-in did not hold")
            body = response.read()
        times.append(time.perf_counter() - started)
        sizes.append(len(body))
    return max(sizes), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description="A 100,000-item crowd campaign on the multi-machine recipe.")
    parser.add_argument("--items", type=int, default=100_000, help="crowd items, 10 labels each (default 100,000)")
    parser.add_argument("--samples", type=int, default=20, help="timed single submissions (default 20)")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between them (default 2)")
    parser.add_argument("--page-loads", type=int, default=5, help="organiser page loads (default 5)")
    parser.add_argument("--web-workers", type=int, default=4, help="gunicorn workers (default 4)")
    parser.add_argument("--report-workers", type=int, default=2, help="rqworkers of the default queue (default 2)")
    parser.add_argument(
        "--worker-class",
        default="rq.SimpleWorker",
        help="the report rqworkers' class (default rq.SimpleWorker, as docs/operations.md recommends: each job runs "
        "in the worker itself, so what a rebuild kept decoded survives to the next; rq.Worker forks a work horse "
        "per job)",
    )
    parser.add_argument("--pg-port", type=int, default=55445)
    parser.add_argument("--redis-port", type=int, default=56445)
    parser.add_argument("--timeout", type=float, default=7200, help="longest wait for the first build, s")
    args = parser.parse_args()
    # A plain kill should stop the servers too: SystemExit runs the cleanups.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    directory = Path(tempfile.mkdtemp(prefix="concord-distributed."))
    log = lambda line: print(line, flush=True)  # noqa: E731
    try:
        path = directory / "crowd.csv"
        rows = write_crowd_csv(path, args.items)
        log(f"{path.name}: {args.items:,} items, {rows:,} labels, {path.stat().st_size / 2**20:.1f} MB")
        with ExitStack() as stack:
            running = stack.enter_context(cluster(args, directory))
            log(
                f"{running.url}: PostgreSQL :{args.pg_port}, Redis :{args.redis_port}, gunicorn -w "
                f"{args.web_workers}, {args.report_workers} report rqworkers and 1 analyses rqworker"
            )
            peaks = stack.enter_context(watching(running))
            plan = inside(running.env, "setup")
            campaign, token = plan["campaign"], plan["token"]
            before_bytes = inside(running.env, "size")["database_bytes"]
            import_s, import_mb, said = run_import(running, campaign, path)
            log(f"import: {import_s:.1f} s ({said})")
            first_build_s = wait_counted(running, token, campaign, rows, args.timeout)
            log(f"first build: {first_build_s if first_build_s is None else round(first_build_s, 1)} s")
            failures = [] if first_build_s is not None else [f"no first build within {args.timeout:.0f} s"]
            fresh = inside(running.env, "assessor", "--campaign", str(campaign), "--samples", str(args.samples))
            times, problems = freshness(running, campaign, fresh, token, args.interval, timeout=600)
            failures += problems
            log(f"fresh after a submit, s: {times}")
            page_bytes, page_s = organiser_page(running, campaign, args.page_loads)
            log(f"organiser page: {page_bytes / 1000:.0f} KB, {1000 * page_s:.0f} ms")
            expected = rows + len(times)
            found = inside(running.env, "check", "--campaign", str(campaign), "--expected", str(expected))
            counted = wait_counted(running, token, campaign, found["submitted"], 600)
            lost = abs(found["judgments"] - expected) + found["duplicates"] + (counted is None)
            failures += _failed_jobs(running)
            peaks["import"] = import_mb
        bytes_per_judgment = (found["database_bytes"] - before_bytes) / max(1, found["judgments"])
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print()
    print_table(
        ["", "figure", "goal"],
        [
            ["items x labels", f"{args.items:,} x {LABELS_PER_ITEM}", ""],
            ["import, s", f"{import_s:.1f}", ""],
            ["first build, s", _s(first_build_s), "<= 600"],
            ["fresh after a submit, p50 / p95 s", f"{_s(_p(times, 0.5))} / {_s(_p(times, 0.95))}", "p95 <= 2"],
            ["organiser page, KB / ms", f"{page_bytes / 1000:.0f} / {1000 * page_s:.0f}", "<= 300 / 150"],
            ["database bytes per judgment", f"{bytes_per_judgment:.0f}", ""],
            ["judgments (expected)", f"{found['judgments']:,} ({expected:,})", ""],
            ["failures / lost", f"{len(failures)} / {lost}", "0 / 0"],
        ],
    )
    print()
    print_table(["process", "peak RSS MB"], [[name, f"{mb:.0f}"] for name, mb in peaks.items()])
    for failure in failures[:10]:
        print(f"  {failure[:300]}")
    print_result(
        "distributed",
        seconds=first_build_s or 0.0,
        reference_seconds=import_s,
        peak_mb=max(peaks.values()),
        items=args.items,
        failures=len(failures),
        lost=lost,
        import_s=round(import_s, 1),
        first_build_s=_s(first_build_s),
        fresh_p50_s=_s(_p(times, 0.5)),
        fresh_p95_s=_s(_p(times, 0.95)),
        page_kb=round(page_bytes / 1000, 1),
        page_ms=round(1000 * page_s, 1),
        bytes_per_judgment=round(bytes_per_judgment),
    )


def _failed_jobs(running: Cluster) -> list[str]:
    """RQ's failed jobs of both queues (a task that raised)."""
    found = inside(running.env, "failed")
    return [f"{n} failed task(s) on the {queue} queue" for queue, n in found.items() if n]


def failed_jobs() -> dict[str, int]:
    import django_rq

    return {queue: django_rq.get_queue(queue).failed_job_registry.count for queue in ("default", "analyses")}


def _p(values: list[float], q: float) -> float | None:
    return client.percentile(values, q) if q != 0.5 or not values else statistics.median(values)


def _s(value: float | None) -> float | str:
    return "none" if value is None else round(value, 2)


def command(argv: list[str]) -> None:
    """The parts that run inside Django, answering one JSON line."""
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["setup", "assessor", "check", "size", "failed"])
    parser.add_argument("--campaign", type=int)
    parser.add_argument("--samples", type=int)
    parser.add_argument("--expected", type=int)
    args = parser.parse_args(argv)
    import django

    django.setup()
    answer = {
        "setup": lambda: setup(),
        "assessor": lambda: assessor(args.campaign, args.samples),
        "check": lambda: check(args.campaign, args.expected),
        "size": lambda: {"database_bytes": database_bytes()},
        "failed": lambda: failed_jobs(),
    }[args.command]()
    print(json.dumps(answer))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("setup", "assessor", "check", "size", "failed"):
        command(sys.argv[1:])
    else:
        main()
