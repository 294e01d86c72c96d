"""docs/architecture.md stays true: its tables list every registered kind, every KindSpec
slot (and the fields of each slot's typed value), every model with its fields and every
route of the API; every file, folder and module it names exists; each package's
paragraph names every module of the package; and every kind folder holds the files the
document says every kind has."""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver

from kinds import KIND_APPS, spec
from kinds.registry import KINDS
from kinds.spec import KindSpec

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGES = ("annotate", "benchmarks", "concord", "dashboard", "kinds", "scoring", "stats")


def section(title: str) -> str:
    """The text of the ``## title`` (or ``### title``) section, up to the next heading of its level or above."""
    match = re.search(rf"^(#+) {re.escape(title)}\n", DOC, flags=re.M)
    assert match, f"no section {title!r}"
    level = len(match.group(1))
    rest = DOC[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, flags=re.M)
    return rest[: end.start()] if end else rest


def table_rows(header: str, text: str = DOC) -> list[list[str]]:
    """The cells of the rows of the Markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def first_cell_names(row: list[str]) -> set[str]:
    return set(re.findall(r"`(\w+)`", row[0]))


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
        type_cell = row[1]
        for name, value_type in vars(spec).items():
            if dataclasses.is_dataclass(value_type) and re.search(rf"\b{name}\(", type_cell):
                checked.add(name)
                for field in dataclasses.fields(value_type):
                    assert re.search(rf"\b{field.name}\b", type_cell), f"{slot}: {name}.{field.name} is not named"
    assert {"JudgePage", "Reports", "Exports", "Examples", "Adjudication", "Upload"} <= checked


def test_the_folders_of_the_layout_exist():
    block = section("Layout").split("```")[1]
    folders = re.findall(r"^([a-z][\w./]*/)\s", block, flags=re.M)
    assert {"concord/", "annotate/", "scoring/", "dashboard/", "stats/", "tests/", "docs/"} <= set(folders)
    for folder in folders:
        assert (ROOT / folder).is_dir(), folder


def _exists(path: str) -> bool:
    return any((ROOT / base / path).exists() for base in ("", "templates", "static"))


def test_every_path_it_names_exists():
    """Every `path/like/this.py` or `folder/` in backticks (a ``<kind>`` placeholder stands for every kind)."""
    named = set(re.findall(r"`([\w.\-]+/[\w.<>\-]+[\w./<>\-]*)`", DOC))
    missing = []
    for path in named:
        paths = [path.replace("<kind>", app.rsplit(".", 1)[-1]) for app in KIND_APPS] if "<kind>" in path else [path]
        # a path whose first folder is not the repository's is relative to a folder the text names
        rooted = [p for p in paths if "<" not in p and _exists(p.split("/", 1)[0])]
        missing += [p for p in rooted if not _exists(p)]
    assert sorted(missing) == []


def test_every_dotted_name_it_gives_is_there():
    """``scoring.selectors.report_input``: a module of the project, or a name in one."""
    dotted = {name for name in re.findall(rf"`((?:{'|'.join(PACKAGES)})(?:\.\w+)+)`", DOC) if not name.endswith(".py")}
    assert len(dotted) > 10
    missing = []
    for name in dotted:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for attribute in parts[cut:]:
                found = getattr(found, attribute, None)
            if found is None:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert sorted(missing) == []


# Each package's paragraph (``**annotate/**: ...`` or a ``- `annotate/services/`: ...`` item)
# names every module of the package.
PARAGRAPHS = {
    "concord": r"\*\*concord/\*\*(.*?)\n\n",
    "stats": r"\*\*stats/\*\*(.*?)\n\n",
    "annotate": r"\*\*annotate/\*\*(.*?)\n\n",
    "annotate/services": r"- `annotate/services/`:(.*?)\n- ",
    "annotate/imports": r"- `annotate/imports/`:(.*?)\n\n",
    "scoring": r"\*\*scoring/\*\*(.*?)\n\n",
    "dashboard": r"\*\*dashboard/\*\*(.*?)\n\n",
}


@pytest.mark.parametrize("package", PARAGRAPHS)
def test_each_packages_paragraph_names_every_module(package):
    text = re.search(PARAGRAPHS[package], DOC, flags=re.S).group(1)
    named = set(re.findall(r"`([\w/]+\.py|[\w]+/)`", text))
    modules = {p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"}
    folders = {
        f"{p.name}/"
        for p in (ROOT / package).iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and p.name != "migrations"
    }
    if package == "annotate":
        folders -= {"services/", "imports/"}  # their own items below
    assert sorted((modules | folders) - named) == [], f"{package}/ holds modules the document does not name"
    inside = {p.name for p in (ROOT / package).rglob("*.py")} | {
        f"{p.name}/" for p in (ROOT / package).rglob("*") if p.is_dir()
    }
    assert (
        sorted(
            n
            for n in named
            if n.rstrip("/").split("/")[-1] + ("/" if n.endswith("/") else "") not in inside
            and n.split("/")[0] + "/" not in inside
        )
        == []
    )


def test_every_kind_folder_holds_what_every_kind_has():
    wanted = [row[0].strip("`") for row in table_rows("| file | what it holds |", section("A kind's folder"))]
    assert {"stats.py", "report.py", "partials.py", "exports.py", "analyses.py", "tests/"} <= set(wanted)
    for app in KIND_APPS:
        folder = ROOT / app.replace(".", "/")
        assert [name for name in wanted if not (folder / name).exists()] == [], app


def test_the_data_model_names_every_model_and_its_fields():
    text = section("Data model")
    for app in ("annotate", "scoring"):
        for model in apps.get_app_config(app).get_models():
            match = re.search(rf"`{model.__name__}\(([^`]*)\)`", text)
            assert match, f"{model.__name__} is not in the data model"
            listed = set(re.findall(r"\w+", match.group(1)))
            fields = {f.name for f in model._meta.get_fields() if f.concrete and not f.auto_created}
            assert fields <= listed, f"{model.__name__}: {sorted(fields - listed)} not listed"


def _api_routes() -> set[tuple[str, str]]:
    def walk(patterns, prefix=""):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern), pattern.callback

    routes = set()
    for route, callback in walk(get_resolver().url_patterns):
        if not route.startswith("api/"):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        methods = sorted(m.upper() for m in ("get", "post", "put", "patch", "delete") if hasattr(view, m))
        path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        routes.add((", ".join(methods), path))
    return routes


def test_the_api_table_lists_every_route_of_the_url_conf():
    rows = table_rows("| method | path | what |", section("REST API"))
    listed = {(", ".join(sorted(m.strip() for m in row[0].split(","))), row[1].strip("`")) for row in rows}
    assert listed == _api_routes()
