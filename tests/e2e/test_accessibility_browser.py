"""Every page of every kind, for every role, through axe-core: no serious or
critical violation, in light and dark mode, at desktop width and at 390 px;
no horizontal scroll at 390 px; a visible focus ring on the first Tab stop.

The checks are tests/e2e/axe.py's (axe-core vendored for the tests only,
injected as an init script under the pages' strict CSP). The pages are those of the demo
(annotate.demo.seed), one kind per test, as tests/kinds/test_contract.py
builds it. The jobs list (/campaigns/<id>/jobs/) is a fragment the
campaign page polls, checked there.
"""

from __future__ import annotations

import pytest

from annotate.demo import seed
from annotate.models import Campaign, Topic
from kinds.registry import KINDS
from scoring import services as scoring_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def demo(people, replace_spec, django_capture_on_commit_callbacks):
    """The demo campaigns of the kinds named (the others' demos switched off),
    reports computed and one finished analysis job each; people log in with
    pw-<name> (the people fixture made them, so the seed keeps their passwords)."""

    def build(*names: str) -> list[Campaign]:
        for other in KINDS:
            if other not in names:
                replace_spec(other, demo=None)
        with django_capture_on_commit_callbacks(execute=True):
            _, campaigns = seed(reset_passwords=False)
        for campaign in campaigns:
            scoring_services.recompute_reports(campaign.pk, everything=True)
            scoring_services.start_analysis(
                campaign=campaign, analysis="agreement", params=None, user=people["organiser"]
            )
        return campaigns

    return build


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_page_of_a_kind_for_every_role_passes_axe(kind, demo, people, browser, live_server, login, findings):
    campaigns = [c for c in demo(kind) if c.kind == kind]
    assert campaigns
    opened = 0
    for campaign in campaigns:
        base = f"/campaigns/{campaign.pk}"
        mine = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position")
        topic = mine.first() or campaign.topics.order_by("position").first()
        assert topic is not None
        judged = campaign.topics.filter(judgments__status="submitted").order_by("position").first() or topic
        pages = [
            ("alice", "campaign page (assessor)", f"{base}/"),
            ("alice", "judging page", f"{base}/topics/{topic.external_id}/judge/"),
            ("organiser", "campaign report (organiser)", f"{base}/?section=report"),
            ("organiser", "topic report", f"{base}/topics/{judged.external_id}/report/"),
            ("organiser", "job page", f"/jobs/{campaign.jobs.order_by('-pk').first().pk}/"),
            ("admin", "export page", f"{base}/export/"),
            ("organiser", "uploads page", f"{base}/uploads/"),
            ("organiser", "assignments page", f"{base}/assignments/"),
        ]
        if not campaign.memberships.filter(user=people["alice"]).exists():
            pages = pages[2:]
        if not mine.exists():
            pages.append(("organiser", "judging page (organiser)", f"{base}/topics/{topic.external_id}/judge/"))
        if kind == "factoids":
            pages += [
                ("organiser", "consensus editor", f"{base}/topics/{judged.external_id}/consensus/"),
                ("organiser", "relations editor", f"{base}/topics/{judged.external_id}/relations/"),
            ]
        for who, label, path in pages:
            findings.check(browser, live_server, login, who, f"{kind} {campaign.name}: {label}", path)
        opened += len(pages)
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * opened  # every page opened at both widths


def test_the_sites_own_pages_pass_axe(demo, people, browser, live_server, login, findings):
    campaigns = demo(*KINDS)
    campaign = next(c for c in campaigns if c.memberships.filter(user=people["alice"], role="assessor").exists())
    pages = [
        (None, "login page", "/accounts/login/", 200),
        ("alice", "home (assessor)", "/", 200),
        ("organiser", "home (organiser)", "/", 200),
        ("admin", "home (admin)", "/", 200),
        ("organiser", "new campaign", "/campaigns/new/", 200),
        ("organiser", "members page", f"/campaigns/{campaign.pk}/members/", 200),
        ("alice", "403 page", f"/campaigns/{campaign.pk}/jobs/", 403),
        ("alice", "404 page (topic)", f"/campaigns/{campaign.pk}/topics/t9/judge/", 404),
        ("alice", "404 page (address)", "/no/such/page/", 404),
    ]
    for who, label, path, status in pages:
        findings.check(browser, live_server, login, who, label, path, status=status)
    # Swagger UI (drf-spectacular-sidecar) draws the page itself. Its operation
    # headers are buttons holding the copy and lock buttons: its markup, not
    # ours, so that rule is passed there (and only there).
    findings.check(
        browser,
        live_server,
        login,
        "admin",
        "API docs",
        "/api/docs/",
        ready=".swagger-ui .opblock",
        allowed=(("nested-interactive", ".opblock-summary-control"),),
    )
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * (len(pages) + 1)
