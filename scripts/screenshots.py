"""Screenshots of Concord's pages for the docs and help guides, taken from the demo.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--help-out docs/help/img]

Builds a throwaway SQLite database with the demo (manage.py seed_demo, as
./run does), starts the server and a task worker on a free port, logs in as
the demo's organiser, assessor and admin with Playwright (Debian's chromium,
found with shutil.which) and writes one PNG per page: the organiser's
campaign page, the new-campaign and members pages, each kind's judging page,
a topic report, a job page, the export page, a 390 px judging page and a
dark-mode page. The help guides' images (docs/help/img/) are a few of the same
pages at a smaller window, each kept under 150 KB. Nothing outside the
temporary directory, --out and --help-out is touched.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "screenshots-only"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict[str, str], *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, **kwargs)


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the server did not answer at {url}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    parser.add_argument("--help-out", default=str(ROOT / "docs" / "help" / "img"))
    args = parser.parse_args()
    out, help_out = Path(args.out), Path(args.help_out)
    out.mkdir(parents=True, exist_ok=True)
    help_out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("needs Debian's chromium (apt install chromium)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "concord.settings",
            "DATABASE_URL": f"sqlite:///{tmp}/demo.sqlite3",
        }
        manage(env, "migrate", "--no-input", "-v0")
        manage(env, "seed_demo", stdout=subprocess.DEVNULL)
        setup = (
            "from django.contrib.auth import get_user_model\n"
            "for u in get_user_model().objects.filter(username__in=['admin', 'organiser', 'alice']):\n"
            f"    u.set_password({PASSWORD!r}); u.save()\n"
        )
        manage(env, "shell", "-c", setup)
        port = free_port()
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--queue-name", "*", "--no-startup-delay", "--interval", "0.2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for(f"{base}/accounts/login/")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium)
                shoot(browser, base, out)
                shoot_help(browser, base, help_out)
                browser.close()
        finally:
            server.terminate()
            worker.terminate()
            server.wait(10)
            worker.wait(10)
    print(f"screenshots written to {out}")


def shoot(browser, base: str, out: Path) -> None:
    def session(username: str, **options):
        page = browser.new_context(**{"viewport": {"width": 1280, "height": 860}, **options}).new_page()
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{base}/")
        return page

    def save(page, name: str, url: str | None = None, full: bool = True) -> None:
        if url is not None:
            page.goto(url)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(out / f"{name}.png"), full_page=full)

    organiser = session("organiser")
    save(organiser, "home-organiser")
    campaigns = organiser.locator("a[href^='/campaigns/'][href$='/']").evaluate_all(
        "links => links.map(a => [a.textContent.trim(), a.getAttribute('href')])"
    )
    campaigns = [(name, href) for name, href in campaigns if href.rstrip("/").split("/")[-1].isdigit()]
    # Wait until the worker has computed the demo's reports (the first campaign's page says so).
    first = campaigns[0][1]
    for _ in range(100):
        organiser.goto(base + first + "?section=report")
        if "Computed" in organiser.content():
            break
        time.sleep(0.3)
    for index, (_, href) in enumerate(campaigns):
        save(organiser, f"campaign-organiser-{index + 1}", base + href)
        save(organiser, f"campaign-report-{index + 1}", base + href + "?section=report")
    save(organiser, "campaign-new", f"{base}/campaigns/new/")
    save(organiser, "campaign-new-ordering", f"{base}/campaigns/new/?kind=ordering")
    save(organiser, "members", f"{base}{first}members/")
    topic = organiser.locator("a[href*='/report/']").first
    if topic.count():
        save(organiser, "topic-report", base + topic.get_attribute("href"))
    # The adjudication queue of the first campaign and its most disputed open topic.
    save(organiser, "adjudication", f"{base}{first}adjudication/")
    disputed = organiser.locator("#most-disputed")
    if disputed.count():
        save(organiser, "adjudicate", base + disputed.get_attribute("href"))

    alice = session("alice")
    save(alice, "home-assessor")
    judge_links = alice.locator("a[href*='/judge/']").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    for index, href in enumerate(judge_links[:8]):
        save(alice, f"judge-{index + 1}", base + href, full=False)
    narrow = session("alice", viewport={"width": 390, "height": 844})
    if judge_links:
        save(narrow, "judge-390px", base + judge_links[0])
    dark = session("organiser", color_scheme="dark")
    save(dark, "campaign-organiser-dark", base + first)
    admin = session("admin")
    save(admin, "export", f"{base}{first}export/")


#: The help guides' images: small enough to keep in the repository (bytes).
HELP_IMAGE_BYTES = 150_000


def shoot_help(browser, base: str, out: Path) -> None:
    """The few pages the guides show, at 1000 x 640 (the window only, not the whole page)."""
    context = browser.new_context(viewport={"width": 1000, "height": 640})

    def session(username: str):
        page = context.new_page()
        context.clear_cookies()
        page.goto(f"{base}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{base}/")
        return page

    def save(page, name: str, url: str) -> None:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        path = out / f"{name}.png"
        page.screenshot(path=str(path))
        if path.stat().st_size > HELP_IMAGE_BYTES:
            raise SystemExit(f"{path} is {path.stat().st_size} bytes, more than {HELP_IMAGE_BYTES}")

    organiser = session("organiser")
    links = organiser.locator("a[href^='/campaigns/'][href$='/']").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"
    )
    campaigns = [href for href in links if href.rstrip("/").split("/")[-1].isdigit()]
    first = campaigns[0]
    save(organiser, "campaign", base + first)
    save(organiser, "members", f"{base}{first}members/")
    # The first campaign with a disputed topic still open: its queue and that topic.
    for href in campaigns:
        save(organiser, "adjudication-queue", f"{base}{href}adjudication/")
        disputed = organiser.locator("#most-disputed")
        if disputed.count():
            save(organiser, "adjudicate", base + disputed.get_attribute("href"))
            break
    alice = session("alice")
    # A pairs topic: its keys (j/k, y/n) are the ones the assessor's guide names.
    for judge in alice.locator("a[href*='/judge/']").evaluate_all("links => links.map(a => a.getAttribute('href'))"):
        alice.goto(base + judge)
        alice.wait_for_load_state("networkidle")
        if "no match" in alice.locator("#key-help").inner_text():
            save(alice, "judge", base + judge)
            break
    admin = session("admin")
    save(admin, "export", f"{base}{first}export/")
    context.close()


if __name__ == "__main__":
    main()
