"""One vocabulary on the pages and in the help (docs/help/glossary.md): a person who judges is an
*assessor* (an *imported assessor* when a file brought them), never a rater, coder or worker.

The visible text of every template and help page is scanned: template tags, variables,
comments and HTML tags are stripped roughly (so ids, classes, field names and template
variables such as ``raters`` or ``d.alpha.coders`` are not text). The few legitimate uses
are listed in ALLOWED, each by its exact phrase and why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORDS = re.compile(r"\b(raters?|coders?|workers?)\b", re.I)

#: (file, exact phrase, why): the phrase is left out of the file's text before the scan.
ALLOWED = [
    ("docs/help/dashboard.md", "the report worker", "a process (operations.md), not a person"),
    ("docs/help/admin.md", "task worker", "a process (operations.md), not a person"),
    ("docs/help/admin.md", "gunicorn worker", "a web server's process"),
    ("docs/help/admin.md", "#when-a-worker-dies", "operations.md's heading anchor"),
    ("docs/help/import.md", "`worker,item,label`", "a crowd CSV's header, as the file spells it"),
    ("docs/help/import.md", "`worker,topic,candidate,label`", "a crowd CSV's header, as the file spells it"),
    ("docs/help/import.md", "`worker` column", "a crowd CSV's column, named as the file names it"),
    ("docs/help/import.md", "(found: worker, item, answer)", "a file's columns quoted in an error message"),
    ("docs/help/import.md", "`worker 'alice' is an existing account", "the import's error message, quoted"),
]


def pages() -> list[Path]:
    folders = [ROOT / "templates", *ROOT.glob("*/templates"), *ROOT.glob("kinds/*/templates")]
    templates = (p for folder in folders for p in folder.rglob("*.html"))
    return sorted([*templates, *(ROOT / "docs" / "help").glob("*.md")])


def visible(path: Path) -> str:
    """The text a reader sees, roughly: a template's tags, variables, comments and HTML tags dropped."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        text = re.sub(r"{#.*?#}|{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", " ", text, flags=re.S)
        text = re.sub(r"{%.*?%}|{{.*?}}", " ", text, flags=re.S)
        text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S | re.I)
        text = re.sub(r"<[^>]*>", " ", text)
    return text


def name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_scan_sees_templates_and_help_pages():
    names = {name(p) for p in pages()}
    assert {"templates/annotate/import_table.html", "docs/help/import.md", "docs/help/glossary.md"} <= names
    assert any(n.startswith("kinds/labels/templates/") for n in names)


def test_the_stripping_keeps_words_and_drops_markup():
    """What visible() must get right: words between tags stay, names inside tags go."""
    sample = ROOT / "templates" / "annotate" / "import_table.html"
    text = visible(sample)
    assert "Assessors found" in text
    assert "import-raters" not in text and "table.raters" not in text


@pytest.mark.parametrize("path", pages(), ids=name)
def test_a_page_calls_a_person_who_judges_an_assessor(path):
    text = visible(path)
    for file, phrase, _why in ALLOWED:
        if file == name(path):
            text = text.replace(phrase, " ")
    found = [text[max(0, m.start() - 40) : m.end() + 40].replace("\n", " ") for m in WORDS.finditer(text)]
    assert not found, f"{name(path)} says rater/coder/worker (say assessor, or add it to ALLOWED): {found}"


@pytest.mark.parametrize(("file", "phrase", "why"), ALLOWED, ids=lambda v: str(v)[:40])
def test_every_allowed_phrase_is_still_there(file, phrase, why):
    """An entry whose phrase is gone would let a later use through unexamined: drop it."""
    assert phrase in visible(ROOT / file), f"{file}: {phrase!r} ({why}) is no longer there"
