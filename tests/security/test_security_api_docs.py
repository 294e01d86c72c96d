"""/api/docs/ (Swagger UI) is served from the installed drf-spectacular-sidecar
under the same strict Content-Security-Policy as every page: no CDN, no
inline script or style."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.django_db


class Resources(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[str | None] = []
        self.styles: list[str] = []
        self.inline_styles = 0

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script":
            self.scripts.append(attributes.get("src"))
        if tag == "link" and attributes.get("rel") in ("stylesheet", "icon"):
            self.styles.append(attributes["href"])
        if tag == "style" or "style" in attributes:
            self.inline_styles += 1


def policy(response) -> dict[str, list[str]]:
    return {
        part.split()[0]: part.split()[1:] for part in response["Content-Security-Policy"].split(";") if part.strip()
    }


def same_origin(url: str) -> bool:
    parsed = urlparse(url)
    return not parsed.scheme and not parsed.netloc and url.startswith("/")


def test_the_docs_page_has_the_strict_policy_and_only_same_origin_resources(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    csp = policy(response)
    assert csp["script-src"] == ["'self'"] and csp["style-src"] == ["'self'"] and csp["default-src"] == ["'self'"]
    assert csp["img-src"] == ["'self'", "data:"]
    page = Resources()
    page.feed(response.content.decode())
    assert page.scripts and None not in page.scripts, page.scripts  # no inline script
    assert page.inline_styles == 0
    for url in page.scripts + page.styles:
        assert same_origin(url), url
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert "no-store" not in answer.get("Cache-Control", "") or url.startswith("/api/docs/")
    assert any("swagger-ui-bundle" in url for url in page.scripts)


def test_the_init_script_points_at_the_schema(client):
    page = Resources()
    page.feed(client.get("/api/docs/").content.decode())
    (init,) = [url for url in page.scripts if url.startswith("/api/docs/")]
    answer = client.get(init)
    assert answer.status_code == 200 and answer["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in answer.content.decode()
    assert policy(answer)["script-src"] == ["'self'"]


# -- in a real browser -------------------------------------------------------------------

RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", e => window.cspViolations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_swagger_ui_runs_under_the_strict_policy(browser, live_server):
    """Swagger UI renders the API's operations offline (nothing from another
    origin) and the browser reports no CSP violation."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(RECORD_VIOLATIONS)
    complaints, elsewhere = [], []
    page.on("console", lambda m: complaints.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda error: complaints.append(f"page error: {error}"))
    page.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith(live_server.url) else None)
    try:
        page.goto(f"{live_server.url}/api/docs/")
        page.locator(".opblock-summary-path", has_text="/api/auth/token/").first.wait_for(timeout=15_000)
        page.wait_for_load_state("networkidle")
        assert complaints + page.evaluate("window.cspViolations") == []
        assert [url for url in elsewhere if not url.startswith("data:")] == []
    finally:
        context.close()
