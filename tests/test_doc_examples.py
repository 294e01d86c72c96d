"""Every example in the README and docs/ works as written.

The fenced code blocks say what they are:

- ```` ```sh run ````: a shell example, run here with ``bash -e -o pipefail`` from a
  scratch folder that holds the repository's ``.venv``, ``manage.py``, ``data`` and
  ``tests`` (so files an example writes land there), against this test's database
  (a fresh one: the demo's organiser and a stand-in campaign as #1, the demo's first),
  through the real settings, as a person pasting it would. ``http://127.0.0.1:8000``
  stands for the live server and ``password=...`` for the organiser's password.
  It must end well, and leave the stand-in campaigns as they were: an example
  writes only into campaigns it creates.
- ```` ```sh skip: <reason> ````: not run (it starts servers, or needs another
  instance); the reason is required.
- ``json``, ``python``, ``ini``, ``csv`` blocks must parse; ``text`` and untagged
  blocks are prose.
"""

from __future__ import annotations

import configparser
import csv
import io
import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection

from annotate.models import Campaign, Judgment, Membership, Run, Topic

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)[ \t]*([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
SHELL = {"sh", "bash", "shell", "console"}
PARSED = {"json", "python", "ini", "csv"}
PASSWORD = "docs-example-password"
#: What the scratch folder links from the repository (paths the examples name).
LINKED = (".venv", "manage.py", "data", "tests")


@dataclass(frozen=True)
class Example:
    path: Path
    line: int
    language: str
    marker: str
    body: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def examples() -> list[Example]:
    found = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(Example(path, line, m.group(1), m.group(2).strip(), m.group(3)))
    return found


EXAMPLES = examples()
RUN = [e for e in EXAMPLES if e.language in SHELL and e.marker == "run"]


def test_every_shell_example_says_whether_it_runs():
    for example in EXAMPLES:
        if example.language in SHELL:
            assert example.marker == "run" or re.fullmatch(r"skip: \S.{9,}", example.marker), (
                f"{example}: mark it `{example.language} run` or `{example.language} skip: <why>`"
            )
        else:
            assert not example.marker, f"{example}: only shell examples take a marker"
    assert len(RUN) >= 6


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.language in PARSED], ids=str)
def test_every_data_example_parses(example):
    if example.language == "json":
        json.loads(example.body)
    elif example.language == "python":
        compile(example.body, str(example), "exec")
    elif example.language == "ini":
        configparser.ConfigParser(interpolation=None, strict=False).read_string(example.body)
    else:
        rows = list(csv.reader(io.StringIO(example.body)))
        assert rows and len({len(row) for row in rows}) == 1, f"{example}: rows of different lengths"


def stand_ins() -> dict[int, tuple[int, int, int, int]]:
    """What an example must not change: the campaigns the test made, counted."""
    return {
        c.pk: (
            Topic.objects.filter(campaign=c).count(),
            Judgment.objects.filter(topic__campaign=c).count(),
            Run.objects.filter(campaign=c).count(),
            Membership.objects.filter(campaign=c).count(),
        )
        for c in Campaign.objects.order_by("pk")
    }


@pytest.mark.django_db(transaction=True, reset_sequences=True)
@pytest.mark.parametrize("example", RUN, ids=str)
def test_every_shell_example_runs(example, campaign, people, live_server, tmp_path):
    if connection.vendor != "sqlite":
        # The commands the examples call have their own PostgreSQL tests; here each
        # costs two Django start-ups, once is enough (.ci/run's SQLite pass).
        pytest.skip("the examples run in the SQLite pass")
    people["organiser"].set_password(PASSWORD)
    people["organiser"].save()
    assert campaign.pk == 1
    before = stand_ins()
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    script = example.body.replace("http://127.0.0.1:8000", live_server.url).replace(
        "password=...", f"password={PASSWORD}"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "concord.settings",
        "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
        "PYTHONPATH": str(ROOT),
        "CONCORD_SQLITE_SYNCHRONOUS": "normal",
    }
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{example} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    after = stand_ins()
    assert {pk: after[pk] for pk in before} == before, f"{example} wrote into a campaign it did not create"
