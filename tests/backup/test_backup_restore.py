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
    from scoring.models import Report
    from scoring.services import recompute_reports
    out = {}
    for campaign in Campaign.objects.order_by("name"):
        recompute_reports(campaign.pk, everything=True)
        reports = {
            (r.topic.external_id if r.topic else ""): r.data
            for r in Report.objects.filter(campaign=campaign).select_related("topic")
        }
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


def test_every_demo_campaign_survives_backup_and_restore(tmp_path):
    source, target = instance(tmp_path, "source"), instance(tmp_path, "target")
    manage(source, "migrate", "-v0")
    manage(source, "seed_demo")
    ids = json.loads(
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import django, json; django.setup(); from annotate.models import Campaign; "
                "print(json.dumps(list(Campaign.objects.values_list('pk', flat=True))))",
            ],
            cwd=ROOT,
            env=source,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    assert len(ids) == len(KINDS) + 1  # one demo per kind, two for pairs
    for pk in ids:
        manage(source, "export_campaign", str(pk), str(tmp_path / f"campaign-{pk}.json"))
    manage(target, "migrate", "-v0")
    for pk in ids:
        manage(target, "import_campaign", str(tmp_path / f"campaign-{pk}.json"))
    before, after = reports(source), reports(target)
    assert set(before) == set(after)
    for name in before:
        assert after[name]["revisions"] == before[name]["revisions"], name
        assert after[name]["reports"] == before[name]["reports"], name


def test_a_broken_backup_restores_nothing(tmp_path):
    env = instance(tmp_path, "empty")
    manage(env, "migrate", "-v0")
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
