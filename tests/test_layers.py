"""The layers of the code base and the direction between them (docs/architecture.md, "Layers").

Read from the source (the module-level imports: a function-level import is
taken when it runs, and carries a comment saying why), so a new module is
checked the day it is added:

- the shared statistics (``stats/``) and each kind's own (``kinds/<kind>/stats.py``
  and what it imports of its folder) import neither Django nor the project's
  apps, and a kind's statistics no other kind's;
- ``stats/`` holds no module named after a kind;
- nothing outside ``stats/`` imports a private name of it;
- ``annotate`` imports nothing of ``scoring`` or ``dashboard`` (scoring builds on annotate,
  the dashboard on both; a change reaches scoring through ``annotate.changes``), and
  ``scoring`` nothing of ``dashboard``;
- ``benchmarks/`` imports nothing of ``tests/`` (the load rig is ``benchmarks/loadrig/``);
- no two modules import each other, directly or round a longer loop.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from kinds import KIND_APPS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("annotate", "benchmarks", "concord", "dashboard", "kinds", "scoring", "stats", "tests")
KIND_NAMES = [app.rsplit(".", 1)[-1] for app in KIND_APPS]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module_name(path): path
    for package in PACKAGES
    for path in (ROOT / package).rglob("*.py")
    if "migrations" not in path.parts
}


def _imported(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of each module-level import; imports under ``if TYPE_CHECKING`` are left out."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if isinstance(node, ast.Import):
                found.extend((alias.name, []) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                module = ".".join([*base, node.module] if node.module else base)
                found.append((module, [alias.name for alias in node.names]))
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                visit(ast.iter_child_nodes(node))

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def _project_targets(path: Path) -> set[str]:
    """The project's modules a module imports at module level (``from a import b`` counts ``a.b``
    where ``b`` is a module, else ``a``)."""
    targets = set()
    for module, names in _imported(path):
        for candidate in [f"{module}.{name}" for name in names] or [module]:
            while candidate and candidate not in MODULES:
                candidate = candidate.rpartition(".")[0]
            if candidate:
                targets.add(candidate)
        if module in MODULES:
            targets.add(module)
    return targets - {_module_name(path)}


GRAPH = {name: _project_targets(path) for name, path in MODULES.items()}


@pytest.mark.parametrize("module", ["stats", *(f"{app}.stats" for app in KIND_APPS)])
def test_statistics_import_neither_django_nor_the_apps_nor_another_kind(module):
    """Imported alone in a fresh interpreter, the statistics bring in no Django and no
    module of the project but ``stats`` and their own kind's folder (and the
    Django-free core modules of ``concord`` they name: errors, digits, typed)."""
    probe = (
        f"import importlib, pkgutil, sys, stats; importlib.import_module({module!r})\n"
        "[importlib.import_module(m.name) for m in pkgutil.iter_modules(stats.__path__, 'stats.')]\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    own = module.rsplit(".", 1)[0] if module.startswith("kinds.") else None
    allowed = {"stats", "concord", "concord.errors", "concord.digits", "concord.typed", "kinds"}
    project = [m for m in loaded if m.split(".")[0] in PACKAGES]
    strangers = [
        m
        for m in project
        if m not in allowed and not m.startswith("stats.") and not (own and (m == own or m.startswith(own + ".")))
    ]
    assert [m for m in loaded if m == "django" or m.startswith("django.")] == []
    assert strangers == []


def test_the_shared_statistics_hold_no_module_named_after_a_kind():
    """A kind's own statistics are its ``kinds/<kind>/stats.py``; ``stats/`` holds what kinds share."""
    assert sorted(name for name in MODULES if name.split(".")[0] == "stats" and name.split(".")[-1] in KIND_NAMES) == []


def test_nothing_outside_stats_imports_a_private_name_of_it():
    offenders = [
        f"{name} imports {module}.{imported}"
        for name, path in MODULES.items()
        if not name.startswith("stats")
        for module, names in _imported(path)
        if module == "stats" or module.startswith("stats.")
        for imported in names
        if imported.startswith("_")
    ]
    assert offenders == []


def test_no_module_imports_another_in_a_loop():
    """Tarjan's strongly connected components of the module-level import graph: each is one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in GRAPH.get(node, ()):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(GRAPH)))
    for node in GRAPH:
        if node not in index:
            connect(node)
    assert loops == []


def test_the_loop_finder_finds_a_loop():
    """The check above is not vacuous: two modules of the graph made to import each other are found."""
    global GRAPH
    kept = GRAPH
    try:
        GRAPH = {**kept, "stats.rank": {*kept["stats.rank"], "stats.agreement"}, "stats.agreement": {"stats.rank"}}
        with pytest.raises(AssertionError):
            test_no_module_imports_another_in_a_loop()
    finally:
        GRAPH = kept


def test_benchmarks_import_nothing_of_the_tests():
    assert (
        sorted(
            f"{s} -> {t}" for s, ts in GRAPH.items() if s.startswith("benchmarks") for t in ts if t.startswith("tests")
        )
        == []
    )


@pytest.mark.parametrize(
    ("lower", "upper"), [("annotate", "scoring"), ("annotate", "dashboard"), ("scoring", "dashboard")]
)
def test_a_lower_app_imports_nothing_of_an_upper_one(lower, upper):
    edges = [
        f"{s} -> {t}" for s, ts in GRAPH.items() if s.split(".")[0] == lower for t in ts if t.split(".")[0] == upper
    ]
    assert sorted(edges) == []
