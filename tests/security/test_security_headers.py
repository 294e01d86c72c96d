"""Security headers on every response, a CSP without inline script or style,
and pages that need none: every URL of the project, for an admin (who may
open them all) and for anonymous visitors, plus error pages and static files."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client
from security_helpers import FACTOIDS_PAYLOAD, path_for, project_patterns

from annotate.services.judgments import save_judgment
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db

QUERY = {
    "campaign-export-download": {"format": "csv", "truth": "annotations"},
    "api-export": {"format": "csv", "truth": "annotations"},
}


def policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def check_headers(response, where, *, framed_page: bool = True) -> None:
    csp = policy(response)
    assert csp["frame-ancestors"] == ["'none'"], where
    assert csp["object-src"] == ["'none'"], where
    assert response["X-Content-Type-Options"] == "nosniff", where
    assert response["Referrer-Policy"] == "same-origin", where
    if framed_page:  # WhiteNoise answers static files before XFrameOptionsMiddleware; CSP covers them
        assert response["X-Frame-Options"] == "DENY", where
    assert "Permissions-Policy" in response, where


class InlineCode(HTMLParser):
    """Collects what a strict CSP would block: inline scripts, style elements
    and attributes, event-handler attributes, javascript: URLs."""

    def __init__(self):
        super().__init__()
        self.problems: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes and attributes.get("type") != "application/json":
            self.problems.append(f"inline <script {attrs}>")
        if tag == "style":
            self.problems.append("<style> element")
        for name, value in attrs:
            if name == "style":
                self.problems.append(f"style attribute on <{tag}>: {value}")
            if name.startswith("on"):
                self.problems.append(f"{name} handler on <{tag}>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"javascript: URL on <{tag}>")


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    return parser.problems


def strict(csp: dict[str, list[str]]) -> bool:
    return csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"] and csp["default-src"] == ["'self'"]


@pytest.fixture
def admin_browser(people, world):
    save_judgment(topic=world.topic, assessor=people["alice"], payload=FACTOIDS_PAYLOAD, status="submitted", version=0)
    browser = Client()
    browser.force_login(people["admin"])
    return browser


@pytest.mark.parametrize("who", ["admin", "anonymous"])
def test_every_url_answers_with_the_headers_and_pages_carry_no_inline_code(people, world, admin_browser, who):
    browser = admin_browser if who == "admin" else Client()
    for name, pattern in project_patterns().items():
        response = browser.get(path_for(name, pattern, world), QUERY.get(name, {}))
        where = (who, name, response.status_code)
        check_headers(response, where)
        assert strict(policy(response)), where  # the API docs too (tests/security/test_security_api_docs.py)
        if response["Content-Type"].startswith("text/html") and response.status_code == 200:
            assert inline_code(response.content.decode()) == [], where


@pytest.mark.parametrize(
    ("path", "status"),
    [("/no/such/page/", 404), ("/api/campaigns/999999/", 401), ("/static/concord.css", 200), ("/admin/", 302)],
)
def test_error_pages_static_files_and_the_admin_carry_the_headers_too(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    check_headers(response, path, framed_page=not path.startswith("/static/"))
    assert strict(policy(response))


def test_the_message_pages_of_the_defences_carry_no_inline_code(client, people):
    for _ in range(5):
        client.post("/accounts/login/", {"username": "alice", "password": "wrong"})
    response = client.post("/accounts/login/", {"username": "alice", "password": "pw-alice"})
    assert response.status_code == 429
    check_headers(response, "throttled login")
    assert inline_code(response.content.decode()) == []


def test_the_demo_pages_of_every_kind_carry_no_inline_code():
    """The demo has reports of every kind (heatmaps, charts): the organiser's
    pages and alice's judging pages, rendered with data."""
    import io

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.urls import reverse

    from annotate.models import Campaign

    call_command("seed_demo", stdout=io.StringIO())
    users = get_user_model().objects
    organiser, alice = Client(), Client()
    organiser.force_login(users.get(username="admin"))  # every demo campaign, as an organiser sees it
    alice.force_login(users.get(username="alice"))
    seen = set()
    for campaign in Campaign.objects.filter(params__demo=True):
        topic = campaign.topics.order_by("position").first()
        mine = campaign.topics.filter(assignments__assessor__username="alice").first()
        pages = [
            (organiser, reverse("campaign", args=[campaign.pk])),
            (organiser, reverse("campaign-report", args=[campaign.pk])),
            (organiser, reverse("topic-report", args=[campaign.pk, topic.external_id])),
            (organiser, reverse("campaign-jobs", args=[campaign.pk])),
            (alice, reverse("home")),
        ]
        if mine is not None:
            pages += [
                (alice, reverse("campaign", args=[campaign.pk])),
                (alice, reverse("judge", args=[campaign.pk, mine.external_id])),
            ]
        for browser, url in pages:
            response = browser.get(url)
            assert response.status_code == 200, url
            check_headers(response, url)
            assert inline_code(response.content.decode()) == [], url
        seen.add(campaign.kind)
    assert seen == set(KINDS)
