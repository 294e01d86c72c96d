"""axe-core and the layout checks on one page after another, for the browser
tests (tests/e2e/test_accessibility_browser.py walks every page of every kind
with it; other tests check the pages they reach).

axe-core is vendored for the tests only (tests/e2e/vendor/, MPL-2.0) and
injected by Playwright as an init script, so it runs under the pages' strict
CSP without Concord ever serving it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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
    """What axe and the layout checks found, page after page. Each person logs in
    once, through the login form, and keeps one browser tab for every page checked
    for them (a new context and a login cost about 1.6 s each, four times what
    opening and checking a page costs); ``close()`` (or ``with``) closes the tabs."""

    problems: list[str] = field(default_factory=list)
    pages: int = 0
    _tabs: dict = field(default_factory=dict, repr=False)

    def __enter__(self) -> Findings:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for context in self._tabs.values():
            context.close()
        self._tabs.clear()

    def _tab(self, browser, login, who: str | None):
        if who not in self._tabs:
            context = browser.new_context(viewport=DESKTOP)
            context.add_init_script(path=str(AXE))
            self._tabs[who] = context
            page = context.new_page()
            if who is not None:
                login(page, who)
        return self._tabs[who].pages[0]

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
        the width at 390 px, the focus ring on the first Tab stop. The page is
        opened afresh at each width, as it would be on that screen.

        ``ready``: a selector to wait for (a page that renders itself);
        ``allowed``: (rule, selector) pairs of violations not in Concord's own
        markup, each named where it is passed."""
        page = self._tab(browser, login, who)
        for viewport in (DESKTOP, PHONE):
            page.set_viewport_size(viewport)
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
                        self.problems.append(f"{where} {scheme}: {v['impact']} {v['id']}: {v['help']}\n      {nodes}")
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
