"""Every page of every kind, for every role, through axe-core: no serious or
critical violation, in light and dark mode, at desktop width and at 390 px;
no horizontal scroll at 390 px; a visible focus ring on the first Tab stop.

The checks are tests/e2e/axe.py's (axe-core vendored for the tests only,
injected as an init script under the pages' strict CSP). The pages are the demo's
(annotate.demo.seed), one kind per test, as tests/e2e/demo_pages.py lists them.
"""

from __future__ import annotations

import pytest

from kinds.registry import KINDS
from tests.e2e.demo_pages import kind_pages, site_pages

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_page_of_a_kind_for_every_role_passes_axe(kind, demo, people, browser, live_server, login, findings):
    campaigns = [c for c in demo(kind) if c.kind == kind]
    assert campaigns
    pages = [page for campaign in campaigns for page in kind_pages(campaign, people)]
    for page in pages:
        findings.check(browser, live_server, login, page.who, page.label, page.path, status=page.status)
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * len(pages)  # every page opened at both widths


def test_the_sites_own_pages_pass_axe(demo, people, browser, live_server, login, findings):
    pages = site_pages(demo(*KINDS), people)
    for page in pages:
        findings.check(
            browser,
            live_server,
            login,
            page.who,
            page.label,
            page.path,
            status=page.status,
            ready=page.ready,
            allowed=page.allowed,
        )
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * len(pages)
