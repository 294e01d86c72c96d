"""Every page fits the window: no page of any kind's demo, nor any of the site's own
pages, scrolls sideways at 1280 px or at 390 px. A table wider than its place scrolls
inside its own box (.table-box), never the page.

The pages are those the accessibility test opens (tests/e2e/demo_pages.py) and the
organiser's other sections, the adjudication queue and a topic's adjudication, over one
demo of every kind. Each is measured with every <details> open, so a table folded
away in a long report is measured as a reader who opens it sees it.

The long reports (labels, pairs, relevance, nuggets) open with a list of their sections,
each link leading to a heading on the page, and fold their tables of one row per pair or
per assessor away until the reader opens them.
"""

from __future__ import annotations

import pytest

from kinds.registry import KINDS
from tests.e2e.axe import DESKTOP, NEXT_FRAMES, PHONE
from tests.e2e.demo_pages import kind_pages, site_pages

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Every <details> opened, then (two frames later: tables.js and the charts have
#: answered the new sizes) how wide the page is and how wide the window.
OPEN_AND_MEASURE = """async () => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return [document.documentElement.scrollWidth, window.innerWidth];
}"""

#: A report's list of sections (the targets of its links, and those missing from the
#: page) and the tables folded away (in a closed <details>), as the page opens.
CONTENTS = """() => {
  const links = [...document.querySelectorAll("#report nav.report-contents a")].map(a => a.getAttribute("href"));
  return {
    links: links,
    missing: links.filter(href => !href.startsWith("#") || !document.getElementById(href.slice(1))),
    folded: [...document.querySelectorAll("#report details:not([open]) table[id]")].map(t => t.id),
  };
}"""

#: The tables a long report folds away, by kind.
FOLDED = {
    "labels": {"pairs-table", "reliability-table"},
    "pairs": {"pairs-table", "reliability-table"},
    "relevance": {"pairs-table", "reliability-table", "stability-table"},
    "nuggets": {"label-pairs-table", "reliability-table"},
}

#: The element whose right edge is furthest right, among those no scrolling box clips
#: (a table inside a .table-box may reach past the window: its box scrolls, not the
#: page), named with its two nearest ancestors.
WIDEST = """() => {
  const clipped = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") return true;
    }
    return false;
  };
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().replace(/\\s+/g, ".") : "");
  let widest = null, right = -Infinity;
  for (const el of document.body.querySelectorAll("*")) {
    const edge = el.getBoundingClientRect().right;
    if (edge > right && !clipped(el)) { widest = el; right = edge; }
  }
  if (!widest) return "nothing";
  const path = [];
  for (let el = widest; el && el !== document.body && path.length < 3; el = el.parentElement) path.unshift(name(el));
  return `${path.join(" > ")} (right edge at ${Math.round(right)} px)`;
}"""


def test_no_page_of_any_kind_scrolls_sideways(demo, people, browser, live_server, login):
    campaigns = demo(*KINDS)
    assert {c.kind for c in campaigns} == set(KINDS)
    pages = site_pages(campaigns, people) + [
        page for campaign in campaigns for page in kind_pages(campaign, people, every_section=True)
    ]
    tabs, problems, measured, reports = {}, [], 0, {}
    try:
        for page in pages:
            if page.who not in tabs:
                context = browser.new_context(viewport=DESKTOP)
                tabs[page.who] = context.new_page()
                if page.who is not None:
                    login(tabs[page.who], page.who)
            tab = tabs[page.who]
            for viewport in (DESKTOP, PHONE):
                tab.set_viewport_size(viewport)
                where = f"{page.label} [{page.who or 'anonymous'}, {viewport['width']} px] {page.path}"
                response = tab.goto(f"{live_server.url}{page.path}")
                if response is None or response.status != page.status:
                    problems.append(f"{where}: status {response and response.status}, not {page.status}")
                    continue
                if page.ready:
                    tab.wait_for_selector(page.ready)
                tab.evaluate(NEXT_FRAMES)
                if page.path.endswith("?section=report") and viewport is DESKTOP:
                    reports[page.label] = tab.evaluate(CONTENTS)
                width, window = tab.evaluate(OPEN_AND_MEASURE)
                assert window == viewport["width"]
                if width > window:
                    problems.append(f"{where}: {width} px wide; reaching furthest: {tab.evaluate(WIDEST)}")
                measured += 1
    finally:
        for tab in tabs.values():
            tab.context.close()
    assert problems == [], f"{len(problems)} page(s) scroll sideways:\n" + "\n".join(problems)
    assert measured == 2 * len(pages)

    for campaign in campaigns:
        contents = next(
            found for label, found in reports.items() if label.startswith(f"{campaign.kind} {campaign.name}:")
        )
        assert contents["missing"] == [], campaign.name
        if campaign.kind in FOLDED:
            assert len(contents["links"]) >= 2, campaign.name
            assert FOLDED[campaign.kind] <= set(contents["folded"]), (campaign.name, contents["folded"])
