"""The repository stands alone: nothing in it reaches outside its own folder.

A fresh clone has no sibling folders, so a path to a sibling (the team's
shared folder of papers and data, say) works on a developer's machine and
fails for every user. The data sets the project uses live in ``data/``.
Nor does a file name an entry of an issue tracker or a work session kept
elsewhere: a reader of the clone cannot look them up, so the code and documents
say what is true and why, and the commit messages keep the history.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", "var", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis"}
# Built from parts so this file does not match itself.
SIBLING = ("../" + "shared").encode()
# The word and a number after one space, in any case: the same search as
# ``grep -rniE "issue [0-9]+|session [0-9]+"`` (the examples below are built from parts so
# that this file does not match itself).
TRACKER = re.compile(rb"(?:issue|session) [0-9]+", flags=re.IGNORECASE)


def repository_files():
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIP]
        for name in files:
            yield Path(folder) / name


def test_no_file_refers_to_a_sibling_shared_folder():
    offenders = [str(path.relative_to(ROOT)) for path in repository_files() if SIBLING in path.read_bytes()]
    assert offenders == []


def test_no_file_names_an_issue_or_a_session_of_a_tracker_outside_it():
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group().decode(errors='replace')}"
        for path in repository_files()
        for match in TRACKER.finditer(path.read_bytes())
    ]
    assert offenders == []


def test_the_tracker_search_finds_what_grep_finds():
    issue, session = b"Issue" + b" 34", b"session" + b" 7"
    text = b"see " + issue + b"; in " + session + b" the issue was fixed; sessions 1-3"
    assert [m.group() for m in TRACKER.finditer(text)] == [issue, session]


def test_every_data_set_has_its_licence_and_a_readme_row():
    data = ROOT / "data"
    readme = (data / "README.md").read_text(encoding="utf-8")
    folders = sorted(path.name for path in data.iterdir() if path.is_dir())
    assert folders == ["aiphes-hiersum", "snow2008", "squality-human-eval"]
    for name in folders:
        assert (data / name / "LICENSE").stat().st_size > 1000, name
        assert f"`{name}/" in readme, name


def test_the_data_files_the_tests_use_are_here():
    data = ROOT / "data"
    rte = (data / "snow2008" / "rte.csv").read_text(encoding="utf-8").splitlines()
    # 800 pairs x 10 labels, one per line, plus the header.
    assert len(rte) == 8001
    assert rte[0].startswith("!amt_annotation_ids,!amt_worker_ids,orig_id,response,gold")
    trees = sorted((data / "aiphes-hiersum" / "Trees" / "FinishedTrees").glob("Annotator*/Topic_*.xml"))
    assert len(trees) == 6
