"""Load: assessors saving judgments of every kind while an organiser watches the reports.

Run by ``benchmarks/loadrig/harness.py`` (locust headless, in a subprocess of its own,
since locust monkey-patches the standard library) with two environment
variables:

- ``CONCORD_LOAD_PLAN``: the seeded campaigns and API tokens (JSON, written
  by ``harness.seed``);
- ``CONCORD_LOAD_OUT``: where this file writes, when locust quits, every
  acknowledged save, the 409s, the time-to-report samples and locust's stats.

Optional: ``CONCORD_LOAD_THINK`` (mean seconds an assessor pauses between two
requests, default 0.5), ``CONCORD_LOAD_SAMPLE_EVERY`` (every n-th submission
is timed until the organiser's report reflects it, default 10).

Each assessor loops over its topics (drawn at random, so it comes back to
some after submitting them): read the judgment, save a draft with the
version read, edit it, submit it. Every 3rd cycle it repeats the submission
as a client whose answer was lost would (the server answers
``"replayed": true`` and writes nothing); every 4th it sends an edit
from a stale tab (the server must answer 409 and write nothing). A 409 on an
ordinary save is the version check working, not a failure: the assessor
reloads and applies its change again; they are counted apart.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from locust import FastHttpUser, events, task

PLAN_PATH = os.environ.get("CONCORD_LOAD_PLAN")
if not PLAN_PATH:
    raise RuntimeError("CONCORD_LOAD_PLAN is not set: run this file through benchmarks/loadrig/harness.py")
PLAN: dict[str, Any] = json.loads(Path(PLAN_PATH).read_text())
THINK = float(os.environ.get("CONCORD_LOAD_THINK", "0.5"))
SAMPLE_EVERY = int(os.environ.get("CONCORD_LOAD_SAMPLE_EVERY", "10"))
ORGANISER_POLL = 0.25

SUBMIT = "PUT judgment (submit)"

#: Everything the harness needs afterwards; written out when locust quits.
ACKS: list[dict[str, Any]] = []
CONFLICTS: Counter[str] = Counter()  # 409 on an ordinary save, by step
EXPECTED_CONFLICTS = Counter()  # 409 on the deliberate stale edit
SUBMIT_MS_BY_KIND: dict[str, list[float]] = defaultdict(list)
#: Submissions waiting for the organiser's report to reflect them.
PENDING: list[dict[str, Any]] = []
TIME_TO_REPORT: list[dict[str, Any]] = []
IN_FLIGHT = Counter()
_accounts = itertools.count()
_submissions = itertools.count(1)


# -- payloads: what an assessor sends, per kind -------------------------------
# ``complete`` says whether the payload must pass as a submission.


def pairs_payload(data: dict, rng: random.Random, complete: bool) -> dict:
    ids = [c["id"] for c in data["candidates"]]
    judged = ids if complete else rng.sample(ids, rng.randint(0, len(ids)))
    return {"matches": {c: rng.random() < 0.4 for c in judged}}


def ordering_payload(data: dict, rng: random.Random, complete: bool) -> dict:
    order = [item["id"] for item in data["items"]]
    rng.shuffle(order)  # a draft is a whole ordering too
    return {"order": order}


def clustering_payload(data: dict, rng: random.Random, complete: bool) -> dict:
    ids = [s["id"] for s in data["sentences"]]
    rng.shuffle(ids)
    used = ids[: rng.randint(max(2, len(ids) // 2), len(ids))] if complete else ids[: rng.randint(0, len(ids) // 2)]
    clusters, start = [], 0
    while start < len(used):
        size = rng.randint(2, 4)
        clusters.append(used[start : start + size])
        start += size
    return {"clusters": clusters, "descriptions": [f"cluster {i + 1}" for i in range(len(clusters))]}


def nuggets_payload(data: dict, rng: random.Random, complete: bool) -> dict:
    nuggets = [n["id"] for n in data["nuggets"]]
    responses = [r["id"] for r in data.get("responses", [])]
    labelled = nuggets if complete else rng.sample(nuggets, rng.randint(0, len(nuggets)))
    judged = responses if complete else rng.sample(responses, rng.randint(0, len(responses)))
    return {
        "labels": {n: rng.choice(("vital", "okay")) for n in labelled},
        "matches": {r: [n for n in nuggets if rng.random() < 0.3] for r in judged},
    }


def factoids_payload(data: dict, rng: random.Random, complete: bool) -> dict:
    sentences = [s["id"] for summary in data["summaries"] for s in summary["sentences"]]
    factoids = [{"id": f"f{i}", "text": f"factoid {i}"} for i in range(1, rng.randint(1 if complete else 0, 6) + 1)]
    ids = [f["id"] for f in factoids]
    marks = {}
    for sentence in sentences if complete else rng.sample(sentences, rng.randint(0, len(sentences))):
        found = [f for f in ids if rng.random() < 0.4]
        if found:
            marks[sentence] = found
    return {"factoids": factoids, "marks": marks}


PAYLOADS = {
    "pairs": pairs_payload,
    "ordering": ordering_payload,
    "clustering": clustering_payload,
    "nuggets": nuggets_payload,
    "factoids": factoids_payload,
}


def parse_time(value: str | None) -> float | None:
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


# -- users --------------------------------------------------------------------


class Assessor(FastHttpUser):
    def wait_time(self) -> float:
        return random.uniform(0, 2 * THINK)

    def on_start(self) -> None:
        account = PLAN["assessors"][next(_accounts) % len(PLAN["assessors"])]
        self.username = account["username"]
        self.headers = {"Authorization": f"Token {account['token']}"}
        self.rng = random.Random(self.username)
        self.cycle = 0
        self.topics: list[tuple[int, str, str, dict]] = []
        for campaign in PLAN["campaigns"]:
            response = self.client.get(
                f"/api/campaigns/{campaign['id']}/topics/", headers=self.headers, name="GET topics"
            )
            if response.status_code == 200:
                self.topics += [
                    (campaign["id"], campaign["kind"], t["external_id"], t["data"]) for t in response.json()
                ]
        self.rng.shuffle(self.topics)

    def think(self) -> None:
        if THINK:
            time.sleep(self.rng.uniform(0, 2 * THINK))

    @task
    def judge(self) -> None:
        if not self.topics:
            return
        self.cycle += 1
        # Drawn at random, so topics come round again: edits after a submission, longer histories.
        campaign_id, kind, topic, data = self.rng.choice(self.topics)
        url = f"/api/campaigns/{campaign_id}/topics/{topic}/judgment/"
        key = {"campaign": campaign_id, "topic": topic, "assessor": self.username, "kind": kind}
        version = self.open(url, key)
        if version is None:
            return
        build = PAYLOADS[kind]
        submitted = None
        for step, status, complete in (
            ("draft", "draft", False),
            ("edit", "draft", False),
            ("submit", "submitted", True),
        ):
            self.think()
            body = {"payload": build(data, self.rng, complete), "status": status, "version": version}
            saved = self.save(url, key, step, body)
            if saved == "conflict":  # someone else saved: reload, apply the change again
                version = self.open(url, key)
                if version is None:
                    return
                body["version"] = version
                saved = self.save(url, key, step, body)
            if not isinstance(saved, int):
                return
            if step == "submit":
                submitted = body
            version = saved
        if self.cycle % 3 == 2:
            self.think()
            self.replay(url, key, submitted, version)
        if self.cycle % 4 == 3:
            self.think()
            self.stale_edit(url, data, kind, version)

    def read(self, url: str) -> int | None:
        response = self.client.get(url, headers=self.headers, name="GET judgment")
        return response.json()["version"] if response.status_code == 200 else None

    def open(self, url: str, key: dict) -> int | None:
        """The version to edit: a submitted judgment is reopened first (it is never edited live)."""
        response = self.client.get(url, headers=self.headers, name="GET judgment")
        if response.status_code != 200:
            return None
        read = response.json()
        if read["status"] != "submitted":
            return read["version"]
        IN_FLIGHT["saves"] += 1
        with self.client.post(
            f"{url}reopen/",
            json={"version": read["version"]},
            headers=self.headers,
            name="POST judgment reopen",
            catch_response=True,
        ) as answered:
            IN_FLIGHT["saves"] -= 1
            if answered.status_code != 200:
                answered.failure(f"reopen: {answered.status_code}: {answered.text[:300]}")
                return None
            answer = answered.json()
            ACKS.append(
                {
                    **key,
                    "step": "reopen",
                    "version": answer["version"],
                    "status": answer["status"],
                    "replayed": answer["replayed"],
                    "at": time.time(),
                }
            )
            if answer["replayed"] or answer["version"] != read["version"] + 1 or answer["status"] != "reopened":
                answered.failure(f"reopen: expected version {read['version'] + 1} (reopened), got {answer}")
                return None
            return answer["version"]

    def save(self, url: str, key: dict, step: str, body: dict) -> int | str | None:
        name = SUBMIT if step == "submit" else f"PUT judgment ({step})"
        IN_FLIGHT["saves"] += 1
        started = time.perf_counter()
        with self.client.put(url, json=body, headers=self.headers, name=name, catch_response=True) as response:
            elapsed_ms = (time.perf_counter() - started) * 1000
            IN_FLIGHT["saves"] -= 1
            if response.status_code == 409:
                CONFLICTS[step] += 1
                response.success()
                return "conflict"
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {response.text[:300]}")
                return None
            answer = response.json()
            ACKS.append(
                {
                    **key,
                    "step": step,
                    "version": answer["version"],
                    "status": answer["status"],
                    "replayed": answer["replayed"],
                    "at": time.time(),
                }
            )
            # A draft saved on a reopened judgment leaves it reopened.
            expected = {"draft", "reopened"} if body["status"] == "draft" else {body["status"]}
            if answer["replayed"] or answer["version"] != body["version"] + 1 or answer["status"] not in expected:
                response.failure(f"expected a new version {body['version'] + 1} ({body['status']}), got {answer}")
                return None
        if step == "submit":
            SUBMIT_MS_BY_KIND[key["kind"]].append(elapsed_ms)
            if next(_submissions) % SAMPLE_EVERY == 0:
                PENDING.append({"campaign": key["campaign"], "kind": key["kind"], "acked": time.time()})
        return answer["version"]

    def replay(self, url: str, key: dict, body: dict, version: int) -> None:
        """The submission again, as a client whose answer was lost: nothing new is written."""
        IN_FLIGHT["saves"] += 1
        with self.client.put(
            url, json=body, headers=self.headers, name="PUT judgment (replay)", catch_response=True
        ) as response:
            IN_FLIGHT["saves"] -= 1
            if response.status_code != 200:
                response.failure(f"replay: {response.status_code}: {response.text[:300]}")
                return
            answer = response.json()
            ACKS.append(
                {
                    **key,
                    "step": "replay",
                    "version": answer["version"],
                    "status": answer["status"],
                    "replayed": answer["replayed"],
                    "at": time.time(),
                }
            )
            if not answer["replayed"] or answer["version"] != version:
                response.failure(f"replay: expected replayed version {version}, got {answer}")

    def stale_edit(self, url: str, data: dict, kind: str, version: int) -> None:
        """An edit from a tab that read an older version: 409, nothing written."""
        body = {"payload": PAYLOADS[kind](data, self.rng, False), "status": "draft", "version": version - 1}
        IN_FLIGHT["saves"] += 1
        with self.client.put(
            url, json=body, headers=self.headers, name="PUT judgment (stale)", catch_response=True
        ) as response:
            IN_FLIGHT["saves"] -= 1
            if response.status_code == 409 and response.json().get("current_version") == version:
                EXPECTED_CONFLICTS["stale"] += 1
                response.success()
            else:
                response.failure(
                    f"stale edit: expected 409 at version {version}, got {response.status_code}: {response.text[:300]}"
                )


class Organiser(FastHttpUser):
    """Polls the agreement report of each campaign with a sampled submission
    waiting, and times how long until the report was computed after it.

    A report reflects a submission when its ``computed_at`` is later than the
    submission's acknowledgement (same machine, same clock): the recompute
    stamps ``computed_at`` just after it has read the judgments, and the
    judgment was committed before it was acknowledged. (``judgments_seen``
    cannot say it: an assessor who re-opens a submitted judgment as a draft
    takes one away.) The time is the organiser's: from the acknowledgement to
    the poll that first showed the new report, so it includes up to one
    polling interval (0.25 s)."""

    fixed_count = 1

    def wait_time(self) -> float:
        return ORGANISER_POLL

    def on_start(self) -> None:
        self.headers = {"Authorization": f"Token {PLAN['organiser']['token']}"}

    @task
    def watch(self) -> None:
        for campaign_id in sorted({p["campaign"] for p in PENDING}):
            response = self.client.get(
                f"/api/campaigns/{campaign_id}/agreement/", headers=self.headers, name="GET agreement"
            )
            seen = time.time()
            if response.status_code != 200:
                continue
            computed_at = parse_time(response.json()["computed_at"])
            if computed_at is None:
                continue
            # No yield between here and the reassignment: greenlets cannot interleave.
            done = [p for p in PENDING if p["campaign"] == campaign_id and computed_at > p["acked"]]
            for p in done:
                TIME_TO_REPORT.append({**p, "seconds": seen - p["acked"], "computed_after": computed_at - p["acked"]})
            PENDING[:] = [p for p in PENDING if p not in done]


# -- results ------------------------------------------------------------------


def _entry(entry) -> dict[str, Any]:
    return {
        "requests": entry.num_requests,
        "failures": entry.num_failures,
        "p50_ms": entry.get_response_time_percentile(0.5),
        "p95_ms": entry.get_response_time_percentile(0.95),
        "p99_ms": entry.get_response_time_percentile(0.99),
        "max_ms": entry.max_response_time,
        "mean_ms": entry.avg_response_time,
        "rps": entry.total_rps,
    }


@events.quitting.add_listener
def write_results(environment, **_kwargs) -> None:
    out = os.environ.get("CONCORD_LOAD_OUT")
    if not out:
        return
    stats = environment.stats
    results = {
        "acks": ACKS,
        "conflicts": dict(CONFLICTS),
        "expected_conflicts": dict(EXPECTED_CONFLICTS),
        "time_to_report": TIME_TO_REPORT,
        "unresolved_samples": PENDING,
        "in_flight_at_exit": IN_FLIGHT["saves"],
        "submit_ms_by_kind": SUBMIT_MS_BY_KIND,
        "stats": {e.name: _entry(e) for e in stats.entries.values()},
        "total": _entry(stats.total),
        "errors": [
            {"name": e.name, "method": e.method, "error": str(e.error), "occurrences": e.occurrences}
            for e in stats.errors.values()
        ],
    }
    Path(out).write_text(json.dumps(results))
