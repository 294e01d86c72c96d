"""The repository stands alone: nothing in it reaches outside its own folder.

A fresh clone has no sibling folders, so a path to a sibling (the team's
shared folder of papers and data, say) works on a developer's machine and
fails for every user. The data sets the project uses live in ``data/``.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", "var", "node_modules", "__pycache__", ".pytest_cache", ".hypothesis"}
# Built from parts so this file does not match itself.
SIBLING = ("../" + "shared").encode()


def repository_files():
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIP]
        for name in files:
            yield Path(folder) / name


def test_no_file_refers_to_a_sibling_shared_folder():
    offenders = [str(path.relative_to(ROOT)) for path in repository_files() if SIBLING in path.read_bytes()]
    assert offenders == []


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
