"""Back up every demo campaign, restore into an empty instance: the same reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from kinds.registry import KINDS

ROOT = Path(__file__).resolve().parents[2]

REPORTS = textwrap.dedent(
    """
    import django, json, sys
    django.setup()
    from annotate.models import Campaign, JudgmentRevision
    from concord import typed
    from scoring.models import Report, TopicPartial
    from scoring.selectors import topic_report
    from scoring.services import recompute_reports
    out = {}
    for campaign in Campaign.objects.order_by("name"):
        recompute_reports(campaign.pk, everything=True)
        # Not the headline's series (scoring.history): it holds each rebuild's time, and a
        # restored campaign's series starts at its restoring (the backup holds no report); nor
        # the running sums' bookkeeping (scoring.sums, scoring.progress_sums), keyed by database ids.
        internal = ["headline_history", "sums", "progress_sums"]
        reports = {r.name: r.data for r in Report.objects.filter(campaign=campaign).exclude(name__in=internal)}
        for topic in campaign.topics.order_by("position"):
            found = topic_report(topic)
            reports[topic.external_id] = typed.dump(found.data) if found else None
        reports["disagreements"] = sorted(
            (p.topic.external_id, p.disagreement, p.disagreement_reason)
            for p in TopicPartial.objects.filter(campaign=campaign).select_related("topic")
        )
        revisions = sorted(
            (r.judgment.topic.external_id, r.judgment.assessor.username, r.version, r.status, json.dumps(r.payload, sort_keys=True))
            for r in JudgmentRevision.objects.filter(judgment__topic__campaign=campaign).select_related("judgment__topic", "judgment__assessor")
        )
        out[campaign.name] = {"reports": reports, "revisions": revisions}
    print(json.dumps(out, sort_keys=True))
    """
)


def instance(tmp_path: Path, name: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(DJANGO_SETTINGS_MODULE="concord.settings", CONCORD_SQLITE_PATH=str(tmp_path / f"{name}.sqlite3"))
    return env


def manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def reports(env: dict) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", REPORTS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


#: Every campaign of the instance backed up with ``export_campaign``, one file each,
#: in one process (a process costs ~4 s of start-up; the command is the same).
EXPORT_ALL = textwrap.dedent(
    """
    import django, json, sys
    django.setup()
    from django.core.management import call_command
    from annotate.models import Campaign
    ids = list(Campaign.objects.order_by("pk").values_list("pk", flat=True))
    for pk in ids:
        call_command("export_campaign", str(pk), f"{sys.argv[1]}/campaign-{pk}.json")
    print(json.dumps(ids))
    """
)
#: Each file given restored with ``import_campaign``, in one process.
IMPORT_ALL = textwrap.dedent(
    """
    import django, sys
    django.setup()
    from django.core.management import call_command
    for path in sys.argv[1:]:
        call_command("import_campaign", path)
    """
)


def run_script(env: dict, script: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_every_demo_campaign_survives_backup_and_restore(tmp_path, migrated_sqlite):
    source, target = instance(tmp_path, "source"), instance(tmp_path, "target")
    for env in (source, target):
        migrated_sqlite(env["CONCORD_SQLITE_PATH"])  # the target stays an empty instance
    manage(source, "seed_demo")
    ids = json.loads(run_script(source, EXPORT_ALL, str(tmp_path)).splitlines()[-1])
    assert len(ids) == len(KINDS) + 1  # one demo per kind, two for pairs
    run_script(target, IMPORT_ALL, *(str(tmp_path / f"campaign-{pk}.json") for pk in ids))
    before, after = reports(source), reports(target)
    assert set(before) == set(after)
    for name in before:
        assert after[name]["revisions"] == before[name]["revisions"], name
        assert after[name]["reports"] == before[name]["reports"], name


def test_a_broken_backup_restores_nothing(tmp_path, migrated_sqlite):
    env = instance(tmp_path, "empty")
    migrated_sqlite(env["CONCORD_SQLITE_PATH"])
    (tmp_path / "bad.json").write_text(
        json.dumps(
            {
                "format": "concord-campaign",
                "version": 1,
                "campaign": {"kind": "pairs", "name": "X"},
                "topics": [{"external_id": "q1", "data": {"query": "Q", "candidates": []}}],
            }
        )
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "import_campaign", str(tmp_path / "bad.json")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "file.topics[0].data.candidates" in result.stderr
    count = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from annotate.models import Campaign; print(Campaign.objects.count())",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert count == "0"
