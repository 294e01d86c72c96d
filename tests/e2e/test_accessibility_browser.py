"""Every page of every kind, for every role, through axe-core: no serious or
critical violation, in light and dark mode, at desktop width and at 390 px;
no horizontal scroll at 390 px; a visible focus ring on the first Tab stop.

axe-core is vendored for the tests only (tests/e2e/vendor/, MPL-2.0) and
injected by Playwright as an init script, so it runs under the pages' strict
CSP without Concord ever serving it. The pages are those of the demo
(annotate.demo.seed), one kind per test, as tests/kinds/test_contract.py
builds it. The jobs list (/campaigns/<id>/jobs/) is a fragment the
campaign page polls, checked there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from annotate.demo import seed
from annotate.models import Campaign, Topic
from kinds.registry import KINDS
from scoring import services as scoring_services

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1" / "axe.min.js"
#: The impacts that fail the test (axe's scale: minor, moderate, serious, critical).
FAILING = ("serious", "critical")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

AXE_RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => n.target.join(" ") + " :: " + (n.failureSummary || "").replace(/\\s+/g, " ")),
  }));
}"""

FOCUS_RING = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "nothing focused";
  const style = getComputedStyle(el);
  const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
  return ring ? "" : `${el.tagName.toLowerCase()}#${el.id}.${el.className}: outline ${style.outlineStyle} ${style.outlineWidth}`;
}"""


@dataclass
class Findings:
    problems: list[str] = field(default_factory=list)
    pages: int = 0

    def check(
        self,
        browser,
        live_server,
        login,
        who: str | None,
        label: str,
        path: str,
        *,
        status: int = 200,
        ready: str | None = None,
        allowed: tuple[tuple[str, str], ...] = (),
    ) -> None:
        """One page for one person: axe in light and dark mode at both widths,
        the width at 390 px, the focus ring on the first Tab stop.

        ``ready``: a selector to wait for (a page that renders itself);
        ``allowed``: (rule, selector) pairs of violations not in Concord's own
        markup, each named where it is passed."""
        for viewport in (DESKTOP, PHONE):
            context = browser.new_context(viewport=viewport)
            context.add_init_script(path=str(AXE))
            page = context.new_page()
            try:
                if who is not None:
                    login(page, who)
                response = page.goto(f"{live_server.url}{path}")
                where = f"{label} [{who or 'anonymous'}, {viewport['width']} px]"
                if response is None or response.status != status:
                    self.problems.append(f"{where}: status {response and response.status}, not {status}")
                    continue
                if ready:
                    page.wait_for_selector(ready)
                for scheme in ("light", "dark"):
                    page.emulate_media(color_scheme=scheme)
                    # What a person sees after the switch: the page's own handlers
                    # (tables.js re-marks the tables that now scroll) run in the next
                    # frames, which axe started at once could precede.
                    page.evaluate(NEXT_FRAMES)
                    for v in page.evaluate(AXE_RUN):
                        v["nodes"] = [n for n in v["nodes"] if not any(r == v["id"] and sel in n for r, sel in allowed)]
                        if v["impact"] in FAILING and v["nodes"]:
                            nodes = "\n      ".join(v["nodes"][:4])
                            self.problems.append(
                                f"{where} {scheme}: {v['impact']} {v['id']}: {v['help']}\n      {nodes}"
                            )
                    if viewport is PHONE:
                        width = page.evaluate("document.scrollingElement.scrollWidth")
                        if width > PHONE["width"]:
                            wide = page.evaluate(WIDEST)
                            self.problems.append(f"{where} {scheme}: scrolls sideways ({width} px): {wide}")
                if viewport is DESKTOP:
                    page.keyboard.press("Tab")
                    missing = page.evaluate(FOCUS_RING)
                    if missing:
                        self.problems.append(f"{where}: no visible focus ring on the first Tab stop: {missing}")
                self.pages += 1
            finally:
                context.close()


#: Resolves after two animation frames: a change of colour scheme has been reported and handled.
NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


#: The elements reaching furthest right, for the message of a sideways scroll.
WIDEST = """() => {
  const limit = document.documentElement.clientWidth;
  const right = el => el.getBoundingClientRect().right + (parseFloat(getComputedStyle(el).marginRight) || 0);
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().replace(/\\s+/g, ".") : "");
  return [...document.querySelectorAll("body *")]
    .filter(el => right(el) > limit && ![...el.children].some(child => right(child) > limit))
    .slice(0, 5)
    .map(el => `${name(el)} (${Math.round(right(el))})`)
    .join(", ");
}"""


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
def test_every_page_of_a_kind_for_every_role_passes_axe(kind, demo, people, browser, live_server, login):
    campaigns = [c for c in demo(kind) if c.kind == kind]
    assert campaigns
    findings = Findings()
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


def test_the_sites_own_pages_pass_axe(demo, people, browser, live_server, login):
    campaigns = demo(*KINDS)
    campaign = next(c for c in campaigns if c.memberships.filter(user=people["alice"], role="assessor").exists())
    findings = Findings()
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
