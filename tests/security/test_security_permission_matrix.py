"""The permission matrix, generated from the URL configuration.

Every named URL in concord.urls is requested by every role, with the
methods its view answers, and must give the status written here:

- pages: anonymous -> the login page (LOGIN); API: anonymous -> 401;
- a campaign the user has no part in -> 404 (ids leak nothing);
- a member whose role does not allow it -> 403;
- otherwise the view's success status.

A new URL, or a new method on an API view, fails `test_every_url_has_an_expectation`
until its row is added to EXPECTED. Django's admin (namespace ``admin``) is
checked as a whole: every registered model's pages are for staff only.
"""

from __future__ import annotations

import io
import json
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.contrib import admin
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import close_old_connections, transaction
from django.urls import reverse
from rest_framework.test import APIClient
from security_helpers import FACTOIDS_PAYLOAD, FACTOIDS_TOPIC, api_methods, named_patterns, path_for, project_patterns

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "alice", "carol", "organiser", "other_organiser", "admin", "adjudicator")
#: anonymous on a page: a redirect to the login page
LOGIN = "login"
#: pages for staff only (Django's admin): a redirect to the admin's login page
ADMIN_LOGIN = "admin-login"

# name -> method -> status for each of ROLES: anonymous, alice (assessor of the
# campaign, assigned the topic), carol (assessor of another campaign), organiser
# (of the campaign), other_organiser (of another campaign), admin (staff), adjudicator (the campaign's
# adjudicator: its campaign page, the adjudication pages and the topic's consensus curation, nothing else).
EXPECTED: dict[str, dict[str, tuple]] = {
    # public
    "login": {"GET": (200, 200, 200, 200, 200, 200, 200)},
    "logout": {"GET": (405,) * 7, "POST": (302,) * 7},
    "api-token": {"GET": (405,) * 7, "POST": (400, 200, 200, 200, 200, 200, 200)},
    # One's own tokens (listed, revoked); path_for's token id is nobody's: 404 for everyone.
    "api-tokens": {"GET": (401, 200, 200, 200, 200, 200, 200)},
    "api-token-detail": {"DELETE": (401, 404, 404, 404, 404, 404, 404)},
    "api-logout": {"POST": (401, 204, 204, 204, 204, 204, 204)},
    "api-logoutall": {"POST": (401, 204, 204, 204, 204, 204, 204)},
    # Who is signed in (or nobody) and a CSRF token: what the judging page asks after a refused save.
    "api-session": {"GET": (200,) * 7},
    # Where the judging page's "Sign in again" ends.
    "signed-in": {"GET": (LOGIN, 200, 200, 200, 200, 200, 200)},
    "api-schema": {"GET": (200,) * 7},
    "api-docs": {"GET": (200,) * 7},
    # Set-password links (annotate/services/accounts.py): without a link, the page reads the same for everyone.
    "set-password": {"GET": (200,) * 7, "POST": (302,) * 7},
    "password_reset_complete": {"GET": (200,) * 7},
    # The help (docs/help, docs/*.md): the repository's own text, open to anyone.
    "help": {"GET": (200,) * 7},
    "help-page": {"GET": (200,) * 7},
    "help-image": {"GET": (200,) * 7},
    # pages
    "home": {"GET": (LOGIN, 200, 200, 200, 200, 200, 200)},
    "campaign": {"GET": (LOGIN, 200, 404, 200, 404, 200, 200)},
    # Creating campaigns in pages: organisers (add_campaign) and admins.
    "campaign-new": {"GET": (LOGIN, 403, 403, 200, 200, 200, 403), "POST": (LOGIN, 403, 403, 302, 302, 302, 403)},
    # Members: a POST that worked redirects (303); new links wait in the session for that GET.
    "campaign-members": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 303, 404, 303, 403)},
    # Control items (annotate/services/controls.py): organisers and admins, of a kind that takes them; the
    # world's factoids campaign takes none, so its page is a 404 even for them.
    "campaign-controls": {"GET": (LOGIN, 403, 404, 404, 404, 404, 403), "POST": (LOGIN, 403, 404, 404, 404, 404, 403)},
    # The summary fragment the dashboard polls: organisers and admins.
    "campaign-summary": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "campaign-progress": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    # Study links (dashboard/study.py): the organisers' page and the time per worker.
    "campaign-study": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 303, 404, 303, 403)},
    "campaign-study-time": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    # A study link itself is open to anyone; path_for's token is nobody's: 404 for everyone.
    "study": {"GET": (404,) * 7},
    # Uploads and assignments pages (annotate/imports/views.py): organisers and admins.
    "campaign-uploads": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    # The import wizard: a GET goes back to the uploads page; a file is previewed (nothing written).
    "campaign-import": {"GET": (LOGIN, 403, 404, 302, 404, 302, 403), "POST": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "campaign-sample": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "campaign-assignments": {
        "GET": (LOGIN, 403, 404, 200, 404, 200, 403),
        "POST": (LOGIN, 403, 404, 302, 404, 302, 403),
    },
    # The quality page (dashboard/quality.py): organisers and admins; a pause or reinstatement redirects (303).
    "campaign-quality": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 303, 404, 303, 403)},
    "campaign-quality-csv": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "judge": {"GET": (LOGIN, 200, 404, 200, 404, 200, 403)},
    # "Next topic" (annotate/adaptive.py): POST redirects to the assessor's next topic, or to the campaign page;
    # GET allocates nothing (the page with the button); others go to the campaign page.
    "campaign-next": {"GET": (LOGIN, 200, 404, 302, 404, 302, 403), "POST": (LOGIN, 302, 404, 302, 404, 302, 403)},
    "campaign-report": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "topic-report": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    # The full matrix of a report heatmap: the world's factoids report has no assessor matrix,
    # so the organiser's 404 names the missing field once the permission check passed.
    "campaign-report-matrix": {"GET": (LOGIN, 403, 404, 404, 404, 404, 403)},
    "topic-report-matrix": {"GET": (LOGIN, 403, 404, 404, 404, 404, 403)},
    # The whole table behind a capped report table, ?rows=<field>: without it, the organiser's 404
    # names the missing list once the permission check passed.
    "campaign-report-table": {"GET": (LOGIN, 403, 404, 404, 404, 404, 403)},
    "relations-editor": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    "consensus-editor": {"GET": (LOGIN, 403, 404, 200, 404, 200, 200)},
    "campaign-phase": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    # The campaign is in Phase 1: going back to it is refused (400) once the permission check passed.
    "campaign-phase-revert": {
        "GET": (LOGIN, 403, 404, 200, 404, 200, 403),
        "POST": (LOGIN, 403, 404, 400, 404, 400, 403),
    },
    "campaign-analyses": {"GET": (LOGIN, 405, 405, 405, 405, 405, 405), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    "campaign-jobs": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "job": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403)},
    "job-cancel": {"GET": (LOGIN, 405, 405, 405, 405, 405, 405), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    # The world's job proposes no campaign params: 400 (nothing to apply or revert) shows the permission check passed.
    "job-apply": {"GET": (LOGIN, 403, 404, 200, 404, 200, 403), "POST": (LOGIN, 403, 404, 400, 404, 400, 403)},
    "job-revert": {"GET": (LOGIN, 405, 405, 405, 405, 405, 405), "POST": (LOGIN, 403, 404, 400, 404, 400, 403)},
    "campaign-export": {"GET": (LOGIN, 403, 404, 403, 404, 200, 403)},
    "campaign-export-download": {"GET": (LOGIN, 403, 404, 403, 404, 200, 403)},
    # Adjudication (dashboard/views.py): organisers, admins and the campaign's adjudicators.
    "adjudication": {"GET": (LOGIN, 403, 404, 200, 404, 200, 200)},
    "adjudicate": {"GET": (LOGIN, 403, 404, 200, 404, 200, 200), "POST": (LOGIN, 403, 404, 302, 404, 302, 302)},
    # API
    "api-campaigns": {"GET": (401, 200, 200, 200, 200, 200, 200), "POST": (401, 403, 403, 201, 201, 201, 403)},
    "api-campaign": {"GET": (401, 200, 404, 200, 404, 200, 200)},
    "api-members": {"GET": (401, 403, 404, 200, 404, 200, 403), "POST": (401, 403, 404, 201, 404, 201, 403)},
    "api-topics": {"GET": (401, 200, 404, 200, 404, 200, 403), "POST": (401, 403, 404, 201, 404, 201, 403)},
    # Factoid campaigns take no runs: 400 shows the permission check passed.
    "api-runs": {"GET": (401, 403, 404, 200, 404, 200, 403), "POST": (401, 403, 404, 400, 404, 400, 403)},
    # Pools are built for pairs campaigns: 400 here shows the permission check passed.
    "api-pools": {"POST": (401, 403, 404, 400, 404, 400, 403)},
    "api-phase": {"POST": (401, 403, 404, 200, 404, 200, 403)},
    "api-curation": {"GET": (401, 403, 404, 200, 404, 200, 200), "PUT": (401, 403, 404, 200, 404, 200, 200)},
    # Only assigned assessors write their own judgment; organisers may read the (empty) one of theirs.
    "api-judgment": {"GET": (401, 200, 404, 200, 404, 200, 403), "PUT": (401, 200, 404, 403, 404, 403, 403)},
    # alice has nothing submitted to reopen or withdraw: 400 shows the permission check passed.
    "api-judgment-reopen": {"POST": (401, 400, 404, 403, 404, 403, 403)},
    "api-judgment-withdraw": {"POST": (401, 400, 404, 403, 404, 403, 403)},
    "api-judgments": {"GET": (401, 200, 404, 200, 404, 200, 403)},
    "api-judgments-import": {"POST": (401, 403, 404, 201, 404, 201, 403)},
    "api-agreement": {"GET": (401, 403, 404, 200, 404, 200, 403)},
    "api-agreement-headline": {"GET": (401, 403, 404, 200, 404, 200, 403)},
    # a factoids report keeps no per-topic list apart: 400 naming the campaign, for those who may read it
    "api-agreement-topics": {"GET": (401, 403, 404, 400, 404, 400, 403)},
    "api-analyses": {"POST": (401, 403, 404, 202, 404, 202, 403)},
    "api-job": {"GET": (401, 403, 404, 200, 404, 200, 403)},
    "api-job-cancel": {"POST": (401, 403, 404, 200, 404, 200, 403)},
    "api-job-apply": {"POST": (401, 403, 404, 400, 404, 400, 403)},
    "api-job-revert": {"POST": (401, 403, 404, 400, 404, 400, 403)},
    "api-export": {"GET": (401, 403, 404, 403, 404, 200, 403)},
    # Skipping and flags (annotate/flags.py): only the assigned assessor skips or flags a topic (organisers
    # and admins pass the permission check and are not assigned: 403); organisers resolve the world's flag.
    "topic-skip": {"GET": (LOGIN, 405, 405, 405, 405, 405, 405), "POST": (LOGIN, 302, 404, 403, 404, 403, 403)},
    "flag-resolve": {"GET": (LOGIN, 405, 405, 405, 405, 405, 405), "POST": (LOGIN, 403, 404, 302, 404, 302, 403)},
    "api-topic-skip": {"POST": (401, 200, 404, 403, 404, 403, 403), "DELETE": (401, 200, 404, 403, 404, 403, 403)},
    "api-topic-flags": {"GET": (401, 200, 404, 200, 404, 200, 403), "POST": (401, 201, 404, 403, 404, 403, 403)},
    "api-flags": {"GET": (401, 403, 404, 200, 404, 200, 403)},
    # Assessors only (organisers and admins judge no topics through it).
    "api-next-topic": {"POST": (401, 200, 404, 403, 404, 403, 403)},
    "api-flag-resolve": {"POST": (401, 403, 404, 200, 404, 200, 403)},
}

#: Query strings and bodies that make a request succeed for a role it is allowed to.
QUERY = {
    "campaign-export-download": {"format": "csv", "truth": "annotations"},
    "api-export": {"format": "csv", "truth": "annotations"},
}


def body(name: str, method: str, role: str, world) -> tuple[object, str]:
    """(data, format) for a write."""
    new_topic = {**FACTOIDS_TOPIC, "external_id": "fresh"}
    entries = [{"assessor": "newcomer", "topic": "kuwait", "payload": FACTOIDS_PAYLOAD}]
    judgments = io.BytesIO(json.dumps(entries).encode())
    judgments.name = "judgments.json"
    topics_file = io.BytesIO(json.dumps([{**FACTOIDS_TOPIC, "external_id": "fresh-upload"}]).encode())
    topics_file.name = "topics.json"
    bodies = {
        ("logout", "POST"): ({}, "multipart"),
        ("campaign-next", "POST"): ({}, "multipart"),
        ("set-password", "POST"): ({"action": "open", "link": "x.y.z"}, "multipart"),
        ("api-token", "POST"): (
            {"username": "nobody" if role == "anonymous" else role, "password": f"pw-{role}"},
            "json",
        ),
        ("api-token-detail", "DELETE"): (None, "json"),
        ("api-logout", "POST"): ({}, "json"),
        ("api-logoutall", "POST"): ({}, "json"),
        ("relations-editor", "POST"): ({"version": "0"}, "multipart"),
        ("adjudicate", "POST"): ({"action": "assessor", "assessor": "bob", "version": "0"}, "multipart"),
        ("campaign-phase", "POST"): ({}, "multipart"),
        ("campaign-analyses", "POST"): ({"analysis": "agreement"}, "multipart"),
        ("campaign-new", "POST"): ({"kind": "factoids", "name": "Fresh page", "overlap": "1"}, "multipart"),
        ("campaign-members", "POST"): ({"action": "add", "usernames": "newcomer2", "role": "assessor"}, "multipart"),
        ("campaign-study", "POST"): (
            {"action": "make", "platform": "prolific", "completion_code": "ABC123"},
            "multipart",
        ),
        ("campaign-controls", "POST"): ({"action": "mark", "answers": "kuwait,m1s1,yes"}, "multipart"),
        ("job-cancel", "POST"): ({}, "multipart"),
        ("campaign-uploads", "POST"): ({"what": "topics", "file": topics_file}, "multipart"),
        ("campaign-import", "POST"): ({"step": "preview", "file": topics_file}, "multipart"),
        ("campaign-assignments", "POST"): ({"action": "topup"}, "multipart"),
        ("campaign-quality", "POST"): ({"action": "pause", "username": "alice", "reason": "matrix"}, "multipart"),
        ("job-apply", "POST"): ({}, "multipart"),
        ("job-revert", "POST"): ({}, "multipart"),
        ("campaign-phase-revert", "POST"): ({}, "multipart"),
        ("api-campaigns", "POST"): ({"kind": "factoids", "name": "Fresh"}, "json"),
        ("api-members", "POST"): ({"username": "carol", "role": "assessor"}, "json"),
        ("api-topics", "POST"): ([new_topic], "json"),
        ("api-runs", "POST"): ([{"name": "sys-9", "data": {}}], "json"),
        ("api-pools", "POST"): ({"queries": {"q1": "Ann"}, "runs": []}, "json"),
        ("api-phase", "POST"): ({"phase": 2}, "json"),
        ("api-curation", "PUT"): ({"data": FACTOIDS_PAYLOAD, "version": 0}, "json"),
        ("api-judgment", "PUT"): ({"payload": FACTOIDS_PAYLOAD, "status": "submitted", "version": 0}, "json"),
        ("api-judgment-reopen", "POST"): ({"version": 0}, "json"),
        ("api-judgment-withdraw", "POST"): ({"version": 0, "reason": "a test"}, "json"),
        ("api-judgments-import", "POST"): ({"file": judgments}, "multipart"),
        ("api-analyses", "POST"): ({"analysis": "agreement"}, "json"),
        ("api-job-cancel", "POST"): ({}, "json"),
        ("topic-skip", "POST"): ({"action": "skip", "reason": "unclear"}, "multipart"),
        ("flag-resolve", "POST"): ({"answer": "fixed"}, "multipart"),
        ("api-topic-skip", "POST"): ({"reason": "unclear"}, "json"),
        ("api-topic-skip", "DELETE"): (None, "json"),
        ("api-topic-flags", "POST"): ({"comment": "a typo in m1s2"}, "json"),
        ("api-flag-resolve", "POST"): ({"answer": "fixed"}, "json"),
        ("api-job-apply", "POST"): ({}, "json"),
        ("api-next-topic", "POST"): ({}, "json"),
        ("api-job-revert", "POST"): ({}, "json"),
    }
    if (name, method) not in bodies:
        raise AssertionError(f"add a request body for {method} {name} to body()")
    return bodies[(name, method)]


def cases() -> list[tuple[str, str]]:
    return [(name, method) for name in sorted(EXPECTED) for method in sorted(EXPECTED[name])]


# -- the tests ------------------------------------------------------------------------------


def test_every_url_has_an_expectation():
    patterns = project_patterns()
    unnamed = [name for name in patterns if name.startswith("<unnamed")]
    assert not unnamed, f"name these URLs so the permission matrix can list them: {unnamed}"
    assert sorted(set(patterns) - set(EXPECTED)) == [], "add these URL names to EXPECTED (statuses per role)"
    assert sorted(set(EXPECTED) - set(patterns)) == [], "these URL names are gone: remove them from EXPECTED"
    for name, pattern in patterns.items():
        methods = api_methods(pattern)
        if methods is not None:
            listed = set(EXPECTED[name])
            assert methods <= listed, f"{name}: the view answers {sorted(methods)}; EXPECTED lists {sorted(listed)}"
        for statuses in EXPECTED[name].values():
            assert len(statuses) == len(ROLES), f"{name}: one status per role in {ROLES}"


def client_for(role: str, people) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        client.force_login(people[role])
    return client


@pytest.mark.parametrize(("name", "method"), cases())
def test_permission_matrix(people, world, name, method):
    """Every role in turn, each request in a savepoint rolled back after it (so each role
    meets the world as made, as a test of its own would) with no login failures counted
    from the role before: one world per URL and method instead of one per role (made
    1,455 times, one per role would be 270 s of the SQLite pass's test time)."""
    pattern = project_patterns()[name]
    url = path_for(name, pattern, world)
    wrong = []
    for role in ROLES:
        cache.clear()
        with transaction.atomic():
            where = _requested(people, world, name, method, role, url)
            transaction.set_rollback(True)
        if where is not None:
            wrong.append(where)
    assert not wrong, "\n".join(map(str, wrong))


def _requested(people, world, name: str, method: str, role: str, url: str) -> tuple | None:
    """None if ``role``'s request gives what EXPECTED says, else what it gave."""
    client = client_for(role, people)
    if method == "GET":
        response = client.get(url, QUERY.get(name, {}))
    else:
        data, fmt = body(name, method, role, world)
        response = getattr(client, method.lower())(url, data, format=fmt)
    expected = EXPECTED[name][method][ROLES.index(role)]
    body_start = b"(a file)" if response.streaming else response.content[:200]
    # Closed as the test client closes a response: without close_old_connections, which
    # would close the connection, and the savepoint with it, inside this test's transaction.
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)
    where = (name, method, role, url, response.status_code, f"expected {expected}", body_start)
    if expected == LOGIN:
        target = urlparse(response.url) if response.status_code == 302 else None
        if target is None or target.path != reverse(settings.LOGIN_URL) or not target.query.startswith("next="):
            return where
        return None
    return None if response.status_code == expected else where


def admin_urls() -> list[str]:
    """The admin's index and every registered model's list and add pages."""
    urls = [reverse("admin:index")]
    for model in admin.site._registry:
        meta = model._meta
        urls += [
            reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"),
            reverse(f"admin:{meta.app_label}_{meta.model_name}_add"),
        ]
    return urls


@pytest.mark.parametrize("role", ROLES)
def test_the_admin_is_for_staff_only(people, world, role):
    client = client_for(role, people)
    for url in admin_urls():
        response = client.get(url)
        if role == "admin":
            # Staff see every list; some models (task results) refuse additions.
            refused_add = url.endswith("/add/") and response.status_code == 403
            assert response.status_code == 200 or refused_add, (url, response.status_code)
        else:
            assert response.status_code == 302, (url, role, response.status_code)
            assert urlparse(response.url).path == reverse("admin:login"), (url, response.url)


def test_the_admin_namespace_is_the_only_include():
    """Other includes would escape the matrix: give their URLs expectations (or extend it)."""
    namespaces = {name.split(":")[0] for name, _ in named_patterns() if ":" in name}
    assert namespaces <= {"admin"}, namespaces
