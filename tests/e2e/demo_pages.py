"""The pages of the demo that the browser walks open, and who opens each: the
accessibility test (tests/e2e/test_accessibility_browser.py) runs axe-core on them,
the window test (tests/e2e/test_fits_the_window_browser.py) measures their width.
The demo is annotate.demo.seed's, built by the ``demo`` fixture (tests/e2e/conftest.py).
The jobs list (/campaigns/<id>/jobs/) is a fragment the campaign page polls, opened
there.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotate.models import Campaign, Topic
from kinds.registry import get_kind


@dataclass(frozen=True)
class DemoPage:
    #: who opens it (logged in as; None: nobody)
    who: str | None
    label: str
    path: str
    status: int = 200
    #: a selector to wait for (a page that draws itself)
    ready: str | None = None
    #: axe (rule, selector) pairs of violations not in Concord's own markup, passed there only
    allowed: tuple[tuple[str, str], ...] = ()


def kind_pages(campaign: Campaign, people: dict, *, every_section: bool = False) -> list[DemoPage]:
    """Every page of one demo campaign, each opened by a role that sees it: the assessor's
    campaign and judging pages (when alice is a member), the report, a topic's report, the
    campaign's latest job, the export, uploads and assignments pages, and the kind's own
    editors. ``every_section``: the organiser's other sections too (summary, progress, flags,
    analyses), the members page, the adjudication queue and a disputed topic's adjudication."""
    kind = campaign.kind
    base = f"/campaigns/{campaign.pk}"
    mine = Topic.objects.filter(campaign=campaign, assignments__assessor=people["alice"]).order_by("position")
    topic = mine.first() or campaign.topics.order_by("position").first()
    assert topic is not None, campaign.name
    judged = campaign.topics.filter(judgments__status="submitted").order_by("position").first() or topic
    where = f"{kind} {campaign.name}"
    pages = []
    if campaign.memberships.filter(user=people["alice"]).exists():
        pages += [
            DemoPage("alice", f"{where}: campaign page (assessor)", f"{base}/"),
            DemoPage("alice", f"{where}: judging page", f"{base}/topics/{topic.external_id}/judge/"),
        ]
    pages += [
        DemoPage("organiser", f"{where}: campaign report (organiser)", f"{base}/?section=report"),
        DemoPage("organiser", f"{where}: topic report", f"{base}/topics/{judged.external_id}/report/"),
        DemoPage("organiser", f"{where}: job page", f"/jobs/{campaign.jobs.order_by('-pk').first().pk}/"),
        DemoPage("admin", f"{where}: export page", f"{base}/export/"),
        DemoPage("organiser", f"{where}: uploads page", f"{base}/uploads/"),
        DemoPage("organiser", f"{where}: assignments page", f"{base}/assignments/"),
    ]
    if not mine.exists():
        pages.append(
            DemoPage("organiser", f"{where}: judging page (organiser)", f"{base}/topics/{topic.external_id}/judge/")
        )
    if kind == "factoids":
        pages += [
            DemoPage("organiser", f"{where}: consensus editor", f"{base}/topics/{judged.external_id}/consensus/"),
            DemoPage("organiser", f"{where}: relations editor", f"{base}/topics/{judged.external_id}/relations/"),
        ]
    if every_section:
        pages += [
            DemoPage("organiser", f"{where}: summary", f"{base}/"),
            DemoPage("organiser", f"{where}: progress", f"{base}/?section=progress"),
            DemoPage("organiser", f"{where}: flags", f"{base}/?section=flags"),
            DemoPage("organiser", f"{where}: analyses", f"{base}/?section=analyses"),
            DemoPage("organiser", f"{where}: members page", f"{base}/members/"),
            DemoPage("organiser", f"{where}: quality page", f"{base}/quality/"),
            *(
                [DemoPage("organiser", f"{where}: controls page", f"{base}/controls/")]
                if get_kind(kind).data.takes_controls
                else []
            ),
            DemoPage("organiser", f"{where}: adjudication queue", f"{base}/adjudication/"),
            DemoPage("organiser", f"{where}: adjudication", f"{base}/topics/{judged.external_id}/adjudicate/"),
        ]
    return pages


def site_pages(campaigns: list[Campaign], people: dict) -> list[DemoPage]:
    """The site's own pages, as each role sees them, over the demo ``campaigns``: login,
    homes, new campaign, a members page, the 403 and 404 pages and the API docs."""
    campaign = next(c for c in campaigns if c.memberships.filter(user=people["alice"], role="assessor").exists())
    return [
        DemoPage(None, "login page", "/accounts/login/"),
        DemoPage("alice", "home (assessor)", "/"),
        DemoPage("organiser", "home (organiser)", "/"),
        DemoPage("admin", "home (admin)", "/"),
        DemoPage("organiser", "new campaign", "/campaigns/new/"),
        DemoPage("organiser", "members page", f"/campaigns/{campaign.pk}/members/"),
        DemoPage("alice", "403 page", f"/campaigns/{campaign.pk}/jobs/", 403),
        DemoPage("alice", "404 page (topic)", f"/campaigns/{campaign.pk}/topics/t9/judge/", 404),
        DemoPage("alice", "404 page (address)", "/no/such/page/", 404),
        # Swagger UI (drf-spectacular-sidecar) draws the page itself. Its operation
        # headers are buttons holding the copy and lock buttons: its markup, not
        # ours, so that rule is passed there (and only there).
        DemoPage(
            "admin",
            "API docs",
            "/api/docs/",
            ready=".swagger-ui .opblock",
            allowed=(("nested-interactive", ".opblock-summary-control"),),
        ),
    ]
