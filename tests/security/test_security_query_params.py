"""Every query parameter every view reads, and what a hostile value of it gets.

QUERY_PARAMS lists them per URL name. Two tests keep it honest: the source
(every ``GET.get("x")``, ``query_params.get("x")``, ``request.GET.x`` in a
template, and each ``data.get("x")`` of the filter readers that views hand
``request.GET``) names no parameter missing from it; and a walk of every URL
of the project, recording each key read from the query string, finds none
either. Then every parameter gets hostile values: never a 500; a number
that is not ASCII digits in range (``²`` passes ``isdigit()`` and fails
``int()``; ``int()`` refuses 5,000 digits; ``float()`` takes ``٣`` and
``nan``) is refused with 400 naming the parameter; a report field that is not
one is a 404. Numbers are read with concord.digits, the one parser.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from django.core.handlers.wsgi import WSGIRequest, get_bytes_from_wsgi
from django.http import QueryDict
from django.test import Client
from django.utils.functional import cached_property
from security_helpers import api_methods, path_for, project_patterns

from annotate import flags
from dashboard import queue, topics
from scoring import jobs

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TEXT, NUMBER, DECIMAL, FIELD = "text", "number", "decimal", "report field"

QUERY_PARAMS: dict[str, dict[str, str]] = {
    "campaign-new": {"kind": TEXT},
    "consensus-editor": {"from": TEXT},
    # kinds/factoids/templates/factoids/judge.html marks the consensus editor's ?from= choice.
    "judge": {"from": TEXT},
    "campaign-assignments": {
        "q": TEXT,
        "state": TEXT,
        "assessor": TEXT,
        "sort": TEXT,
        "disagreement": DECIMAL,
        "page": NUMBER,
        "flagged": TEXT,
    },
    "adjudication": {"assessor": TEXT, "other": TEXT, "flagged": TEXT, "state": TEXT, "page": NUMBER},
    "api-flags": {"state": TEXT, "page": NUMBER},
    "api-topic-flags": {"page": NUMBER},
    # The organiser's flag inbox (annotate.flags.inbox, handed request.GET): one page number per list.
    # The dashboard's section and a capped table's "show all" (scoring_tags.capped).
    "campaign": {**dict.fromkeys(flags.INBOX_PAGES, NUMBER), "section": TEXT, "all": TEXT},
    "campaign-progress": {"all": TEXT, "format": TEXT},
    "campaign-report": {"all": TEXT},
    "api-export": {"format": TEXT, "truth": TEXT},
    "api-agreement-topics": {"offset": NUMBER, "limit": NUMBER},
    "campaign-export-download": {"format": TEXT, "truth": TEXT},
    "campaign-report-matrix": {"names": FIELD, "values": FIELD, "layout": TEXT},
    "topic-report-matrix": {"names": FIELD, "values": FIELD, "layout": TEXT},
    "campaign-report-table": {"rows": FIELD},
    # Where a sign-in from a judging page ends (concord/auth_pages.py): the judging page's path.
    "signed-in": {"topic": TEXT},
}
#: What Django's and drf-spectacular's own views read (not Concord's code; they parse no numbers from it).
LIBRARY_PARAMS = {"api-schema": {"format", "lang", "version"}, "api-docs": {"lang", "script"}, "login": {"next"}}

NOT_NUMBERS = ["²", "٣", "３", "1_000", "+3", "9" * 5000, "1e999", "nan", "inf", "0x10", "-", "3.5.1", "\u0663.5"]
TEXTS = ["", "x" * 5000, "²", "-1", "__class__", "a.b.c", "../..", "<script>", "9" * 5000]


# -- the table is honest ------------------------------------------------------------


def names_in_source() -> set[str]:
    found: set[str] = set()
    for folder in ("annotate", "scoring", "kinds", "concord"):
        for path in ROOT.glob(f"{folder}/**/*.py"):
            text = path.read_text()
            found |= set(re.findall(r"(?:\bGET|query_params)\.get\(\s*[\"']([^\"']+)[\"']", text))
            found |= set(re.findall(r"(?:\bGET|query_params)\[\s*[\"']([^\"']+)[\"']\]", text))
    for path in [*ROOT.glob("templates/**/*.html"), *ROOT.glob("kinds/*/templates/**/*.html")]:
        found |= set(re.findall(r"request\.GET\.(\w+)", path.read_text()))
    for reader in (queue.read_filters, topics.read_filters):  # handed request.GET by their views
        found |= set(re.findall(r"\bdata\.get\([\"'](\w+)[\"']", inspect.getsource(reader)))
    return found | set(flags.INBOX_PAGES)  # flags.inbox reads each name of the tuple


def test_every_parameter_the_source_reads_is_in_the_table():
    tabled = {name for params in QUERY_PARAMS.values() for name in params}
    assert names_in_source() - tabled == set()
    assert {"page", "disagreement", "rows", "names", "values", "topic"} <= names_in_source()


class Recorded(QueryDict):
    """A query string that notes every key read from it."""

    read: set[str] = set()

    def get(self, key, default=None):
        Recorded.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        Recorded.read.add(key)
        return super().__getitem__(key)

    def getlist(self, key, default=None):
        Recorded.read.add(key)
        return super().getlist(key, default)

    def __contains__(self, key):
        Recorded.read.add(key)
        return super().__contains__(key)


@pytest.fixture
def recording(monkeypatch):
    def recorded_get(self):  # as WSGIRequest.GET builds it
        return Recorded(get_bytes_from_wsgi(self.environ, "QUERY_STRING", ""), encoding=self._encoding)

    prop = cached_property(recorded_get)
    prop.__set_name__(WSGIRequest, "GET")
    monkeypatch.setattr(WSGIRequest, "GET", prop)
    return Recorded


@pytest.fixture
def reported(world):
    jobs.recompute_reports(world.campaign.pk, everything=True)
    return world


def test_every_url_reads_only_the_parameters_of_the_table(recording, reported, people):
    """Every URL of the project (Django's admin aside), GET, as the admin and as the
    assessor (the judging page): the keys read from the query string."""
    for name, pattern in project_patterns().items():
        methods = api_methods(pattern)
        if methods is not None and "GET" not in methods:
            continue
        url = path_for(name, pattern, reported)
        for user in ("admin", "alice"):
            client = Client(raise_request_exception=False)
            client.force_login(people[user])
            recording.read = set()
            status = client.get(url).status_code
            assert status < 500, (name, user, status)
            allowed = set(QUERY_PARAMS.get(name, {})) | LIBRARY_PARAMS.get(name, set())
            read = recording.read - {None}  # DRF looks up URL_FORMAT_OVERRIDE, None here (settings.py)
            assert read <= allowed, f"{name} reads {sorted(read - allowed)}: add them to QUERY_PARAMS"


# -- hostile values ---------------------------------------------------------------------


def cases() -> list[tuple[str, str, str]]:
    return [(name, param, kind) for name, params in QUERY_PARAMS.items() for param, kind in params.items()]


@pytest.mark.parametrize(("name", "param", "kind"), cases())
def test_hostile_values_of_every_parameter(reported, people, name, param, kind):
    patterns = project_patterns()
    url = path_for(name, patterns[name], reported)
    client = Client(raise_request_exception=False)
    client.force_login(people["alice" if name == "judge" else "admin"])
    values = NOT_NUMBERS if kind in (NUMBER, DECIMAL) else TEXTS
    if kind == FIELD:
        values = [*TEXTS, *(f"pairs.{v}" for v in NOT_NUMBERS), "pairs.99999999999", "pairs.0.__class__"]
    for value in values:
        response = client.get(url, {param: value})
        where = f"{name}?{param}={value[:20]!r}"
        assert response.status_code < 500, where
        if kind in (NUMBER, DECIMAL):
            assert response.status_code == 400, where
            assert param in response.content.decode(), where
        if kind == FIELD and value not in ("",):
            assert response.status_code in (400, 404), where


def test_the_issues_report_urls_are_404(reported, people):
    """``table.csv?rows=pairs.%C2%B2``, ``rows=pairs.<5000 digits>`` and
    ``matrix.csv?names=pairs.%C2%B2`` answered 500."""
    client = Client(raise_request_exception=False)
    client.force_login(people["organiser"])
    base = f"/campaigns/{reported.campaign.pk}/report"
    for url in (
        f"{base}/table.csv?rows=pairs.%C2%B2",
        f"{base}/table.csv?rows=pairs.{'9' * 5000}",
        f"{base}/matrix.csv?names=pairs.%C2%B2&values=pairs.%C2%B2",
    ):
        assert client.get(url).status_code == 404, url
    assert client.get(f"{base}/table.csv?rows=pairs").status_code == 200
