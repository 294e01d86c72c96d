"""Benchmark: how long a large import holds SQLite's write lock, and what a
concurrent save in another campaign waits meanwhile.

A CrowdTruth CSV of ``--rows`` rows (default 120,000: 12,000 items x 10 of 400
workers, about 2.5 MB) is imported into an
empty pairs campaign (``annotate.imports.write.import_judgment_file``, what the uploads
page, the API and ``manage.py import_judgments`` run), in a process of its
own, twice, each on a fresh copy of the same seeded SQLite file:

- baseline: the whole import inside one transaction, as the uploads page ran
  it before (``transaction.atomic()`` around reading, checking and writing);
- concord: the import as it runs now (checked first without a transaction,
  then written in one short transaction of prepared rows).

Meanwhile two other processes write to the same file: a probe (plain
``sqlite3``) that takes the write lock every 20 ms (``BEGIN IMMEDIATE``, one
insert, commit) and records how long ``BEGIN IMMEDIATE`` waited; the largest wait is
how long the import held the lock at most. And an assessor of another
campaign saving a draft through ``annotate.services.judgments.save_judgment`` every 20 ms, with
a busy timeout of 600 s so that every save waits rather than fails: its
largest latency is what a save met. The probe's and the saver's clocks run
from before the import starts until after it ends.

Run from the project root: ``python -m benchmarks.import_lock [--rows 120000]``.
``seconds`` in the RESULT line is the largest lock wait with Concord's import,
``reference_seconds`` the baseline's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAUSE = 0.02  # between two probes, and between two saves


def write_csv(path: Path, rows: int, items: int, workers: int) -> None:
    rng = random.Random(25)
    names = [f"W{rng.randrange(16**10):010X}" for _ in range(workers)]
    per = rows // items
    with path.open("w") as out:
        out.write("!amt_worker_ids,orig_id,response,gold\n")
        for item in range(1, items + 1):
            gold = rng.random() < 0.5
            for worker in rng.sample(names, per):
                label = gold if rng.random() < 0.8 else not gold
                out.write(f"{worker},{item},{int(label)},{int(gold)}\n")


def django_env(database: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONCORD_") and k != "DATABASE_URL"}
    env.update(
        DJANGO_SETTINGS_MODULE="concord.settings",
        CONCORD_SQLITE_PATH=str(database),
        PYTHONPATH=str(ROOT),
        CONCORD_LOG_LEVEL="WARNING",
        **more,
    )
    return env


def role(name: str, database: Path, *args: str, **env: str) -> list[str]:
    return [sys.executable, "-m", "benchmarks.import_lock", "--role", name, "--database", str(database), *args]


# -- the roles, each in a process of its own -----------------------------------------


def _setup() -> None:
    import django

    django.setup()


def seed(database: Path) -> None:
    _setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create(username="organiser", is_staff=True)
    big = create_campaign(creator=user, kind="pairs", name="Big import", overlap=10)
    other = create_campaign(creator=user, kind="pairs", name="Other", overlap=1)
    get_user_model().objects.create(username="saver")
    add_member(campaign=other, username="saver", role="assessor")
    candidates = [{"id": f"c{c}", "text": f"Candidate {c}"} for c in range(4)]
    import_topics(campaign=other, topics=[{"external_id": "q1", "data": {"query": "Q", "candidates": candidates}}])
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE bench_probe (at REAL)")
    print(json.dumps({"big": big.pk, "other": other.pk}))


def run_import(database: Path, csv: Path, campaign: int, whole: bool) -> None:
    _setup()
    from django.db import transaction

    from annotate.imports import write
    from annotate.models import Campaign

    target = Campaign.objects.get(pk=campaign)
    raw = csv.read_bytes()
    start = time.perf_counter()
    if whole:
        with transaction.atomic():
            summary = write.import_judgment_file(target, raw, filename=csv.name)
    else:
        summary = write.import_judgment_file(target, raw, filename=csv.name)
    print(json.dumps({"seconds": time.perf_counter() - start, "judgments": summary.judgments}))


def save_loop(database: Path, campaign: int, stop: Path, ready: Path) -> None:
    _setup()
    from django.contrib.auth import get_user_model

    from annotate.models import Topic
    from annotate.services.judgments import save_judgment

    topic = Topic.objects.select_related("campaign").get(campaign_id=campaign, external_id="q1")
    saver = get_user_model().objects.get(username="saver")
    version, latencies = 0, []
    ready.touch()
    while not stop.exists():
        start = time.perf_counter()
        result = save_judgment(
            topic=topic, assessor=saver, payload={"matches": {"c0": version % 2 == 0}}, status="draft", version=version
        )
        latencies.append(time.perf_counter() - start)
        version = result.judgment.version
        time.sleep(PAUSE)
    print(
        json.dumps({"saves": len(latencies), "max": max(latencies), "median": sorted(latencies)[len(latencies) // 2]})
    )


class Probe(threading.Thread):
    """Takes the write lock every PAUSE seconds; the longest wait for it."""

    def __init__(self, database: Path) -> None:
        super().__init__(daemon=True)
        self.database, self.waits, self.halt = database, [], threading.Event()

    def run(self) -> None:
        db = sqlite3.connect(self.database, timeout=600, isolation_level=None)
        db.execute("PRAGMA synchronous=FULL")
        while not self.halt.is_set():
            start = time.perf_counter()
            db.execute("BEGIN IMMEDIATE")
            # The wait for the lock only (its own commit's fsync, or a checkpoint it runs, is not the import's).
            self.waits.append(time.perf_counter() - start)
            db.execute("INSERT INTO bench_probe VALUES (?)", (start,))
            db.execute("COMMIT")
            time.sleep(PAUSE)
        db.close()


def measure(seeded: Path, work: Path, csv: Path, ids: dict, whole: bool) -> dict:
    database = work / ("whole.sqlite3" if whole else "concord.sqlite3")
    shutil.copy(seeded, database)
    stop, ready = work / "stop", work / "ready"
    stop.unlink(missing_ok=True)
    ready.unlink(missing_ok=True)
    env = django_env(database, CONCORD_SQLITE_TIMEOUT="600")
    saver = subprocess.Popen(
        role("save", database, "--campaign", str(ids["other"]), "--stop", str(stop), "--ready", str(ready)),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    while not ready.exists():
        if saver.poll() is not None:
            raise RuntimeError("the saver did not start")
        time.sleep(0.1)
    probe = Probe(database)
    probe.start()
    time.sleep(1)
    args = ["--csv", str(csv), "--campaign", str(ids["big"])] + (["--whole"] if whole else [])
    done = subprocess.run(role("import", database, *args), cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr)
    time.sleep(1)
    stop.touch()
    saves = json.loads(saver.communicate(timeout=600)[0])
    probe.halt.set()
    probe.join()
    imported = json.loads(done.stdout)
    return {**imported, "lock_max": max(probe.waits), "probes": len(probe.waits), "saves": saves}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=120_000)
    parser.add_argument("--items", type=int, default=12_000)
    parser.add_argument("--workers", type=int, default=400)
    parser.add_argument("--role", choices=["seed", "import", "save"])
    parser.add_argument("--database", type=Path)
    parser.add_argument("--csv", type=Path)
    parser.add_argument("--campaign", type=int)
    parser.add_argument("--whole", action="store_true")
    parser.add_argument("--stop", type=Path)
    parser.add_argument("--ready", type=Path)
    args = parser.parse_args()
    if args.role == "seed":
        return seed(args.database)
    if args.role == "import":
        return run_import(args.database, args.csv, args.campaign, args.whole)
    if args.role == "save":
        return save_loop(args.database, args.campaign, args.stop, args.ready)

    work = Path(tempfile.mkdtemp(prefix="concord-import-lock-"))
    try:
        csv = work / "crowdtruth.csv"
        write_csv(csv, args.rows, args.items, args.workers)
        seeded = work / "seeded.sqlite3"
        out = subprocess.run(role("seed", seeded), cwd=ROOT, env=django_env(seeded), capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr)
        ids = json.loads(out.stdout.strip().splitlines()[-1])
        with sqlite3.connect(seeded) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        print(f"{args.rows:,} rows ({csv.stat().st_size / 2**20:.1f} MB), {args.items:,} items, {args.workers} workers")
        results = {mode: measure(seeded, work, csv, ids, whole=mode == "baseline") for mode in ("baseline", "concord")}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = [
        [
            mode,
            r["seconds"],
            r["lock_max"],
            r["saves"]["max"],
            r["saves"]["median"],
            r["saves"]["saves"],
            r["probes"],
        ]
        for mode, r in results.items()
    ]
    from benchmarks._harness import print_result, print_table

    print_table(["import", "import s", "lock held at most s", "save max s", "save median s", "saves", "probes"], rows)
    base, now = results["baseline"], results["concord"]
    print_result(
        "import_lock",
        seconds=now["lock_max"],
        reference_seconds=base["lock_max"],
        peak_mb=0.0,
        rows=args.rows,
        import_s=round(now["seconds"], 2),
        reference_import_s=round(base["seconds"], 2),
        save_max_s=round(now["saves"]["max"], 3),
        reference_save_max_s=round(base["saves"]["max"], 3),
    )


if __name__ == "__main__":
    main()
