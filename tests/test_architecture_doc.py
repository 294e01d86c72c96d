"""docs/architecture.md stays true: its table of kinds lists every registered kind, its
KindSpec table names every slot (and the fields of each slot's typed value), and the
folders its layout names exist."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from kinds import spec
from kinds.registry import KINDS
from kinds.spec import KindSpec

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def table_rows(header: str) -> list[str]:
    """The rows of the Markdown table whose header line starts with ``header``."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def first_cell_names(row: str) -> set[str]:
    return set(re.findall(r"`(\w+)`", row.split("|")[1]))


def test_the_table_of_kinds_lists_every_registered_kind():
    listed = set().union(*(first_cell_names(row) for row in table_rows("| kind (`Campaign.kind`)")))
    assert listed == set(KINDS)
    words = {5: "five", 6: "six", 7: "seven", 8: "eight"}
    assert f"implements {words[len(KINDS)]} published methods" in DOC


def test_the_kindspec_table_names_every_slot_and_its_values_fields():
    rows = {name: row for row in table_rows("| slot | type |") for name in first_cell_names(row)}
    assert set(rows) == {f.name for f in dataclasses.fields(KindSpec)}
    checked = set()
    for slot, row in rows.items():
        type_cell = row.split("|")[2]
        for name, value_type in vars(spec).items():
            if dataclasses.is_dataclass(value_type) and re.search(rf"\b{name}\(", type_cell):
                checked.add(name)
                for field in dataclasses.fields(value_type):
                    assert re.search(rf"\b{field.name}\b", type_cell), f"{slot}: {name}.{field.name} is not named"
    assert {"JudgePage", "Reports", "Exports", "Examples", "Adjudication", "Upload"} <= checked


def test_the_folders_of_the_layout_exist():
    block = DOC.split("## Layout", 1)[1].split("```")[1]
    folders = re.findall(r"^([a-z][\w./]*/)\s", block, flags=re.M)
    assert {"concord/", "annotate/", "scoring/", "tests/", "docs/"} <= set(folders)
    for folder in folders:
        if "<" not in folder:
            assert (ROOT / folder).is_dir(), folder
