"""In the browser: an organiser imports prompts with three systems' outputs on the uploads page,
two assessors judge every pair by keyboard only (never shown a system's name), and the leaderboard
with its intervals appears on the organiser's report without a reload; a battles file with a model
judge among its raters puts the judge's leaderboard beside the people's. Axe (serious, critical)
on the judging page and the report, at 1280 and 390 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from kinds.preference.importers import upload_battles, upload_prompts
from scoring.jobs import recompute_reports

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SYSTEMS = ("gpt", "llama", "mistral")
PROMPTS = "prompt_id,prompt,system,output\n" + "".join(
    f"q{k},Question {k}?,{system},Answer {j} to question {k}\n" for k in range(1, 4) for j, system in enumerate(SYSTEMS)
)


@pytest.fixture
def arena(people):
    campaign = create_campaign(
        creator=people["organiser"], kind="preference", name="Arena", overlap=2, params={"resamples": 200}
    )
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    return campaign


def judge_every_pair(page, live_server, campaign, topic: str, keys: list[str]) -> None:
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/{topic}/judge/")
    expect(page.locator("#remaining")).to_have_text("3 of 3 pairs left to judge.")
    expect(page.locator("#side-a")).to_contain_text("Answer")
    html = page.content()
    assert not any(system in html for system in SYSTEMS), "the judging page names a system"
    for key in keys:
        page.keyboard.press(key)
    expect(page.locator("#remaining")).to_contain_text("Every pair is judged")
    here = page.url
    page.keyboard.press("Enter")  # asks first, with a summary
    expect(page.locator("#confirm-summary")).to_contain_text("3 of 3 pairs judged")
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: url != here)


def test_import_judge_by_keyboard_and_the_leaderboard_appears_live(
    new_page, live_server, login, people, arena, tmp_path, intervals_on_few_units
):
    prompts = tmp_path / "prompts.csv"
    prompts.write_text(PROMPTS)
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{arena.pk}/uploads/")
    form = organiser.locator("#upload-prompts")
    form.get_by_label("Prompts with outputs (CSV, .xlsx or JSONL)").set_input_files(str(prompts))
    form.get_by_role("button", name="Upload prompts with outputs").click()
    expect(organiser.locator("#upload-done")).to_have_text("Imported 3 prompts with 9 outputs.")
    organiser.goto(f"{live_server.url}/campaigns/{arena.pk}/?section=report")

    for name, keys in (("alice", ["ArrowLeft", "ArrowDown", "ArrowRight"]), ("bob", ["ArrowRight", "x", "ArrowLeft"])):
        page = new_page()
        login(page, name)
        for topic in ("q1", "q2", "q3"):
            judge_every_pair(page, live_server, arena, topic, keys)
    assert Judgment.objects.filter(topic__campaign=arena, status="submitted").count() == 6
    # The server recorded the sides each assessor was shown, by position: never a system's name.
    for judgment in Judgment.objects.filter(topic__campaign=arena):
        assert all({v["left"], v["right"]} <= {1, 2, 3} for v in judgment.payload["verdicts"])

    # the organiser's open report refreshes itself: 18 votes, a leaderboard of three with intervals
    expect(organiser.locator("#report-meta")).to_contain_text("18 votes", timeout=30_000)
    rows = organiser.locator("#leaderboard-table tbody tr")
    expect(rows).to_have_count(3)
    expect(organiser.locator("#tie-model")).to_contain_text("Bradley-Terry")
    expect(organiser.locator("#leaderboard-table")).to_contain_text("[")
    expect(organiser.locator("#leaderboard-chart svg")).to_be_visible()


def test_battles_with_a_model_judge_show_both_leaderboards_side_by_side(
    new_page, live_server, login, people, arena, intervals_on_few_units
):
    upload_prompts(arena, {"prompts": [("prompts.csv", PROMPTS.encode())]}, {})
    lines = ["prompt_id,system_a,system_b,winner,rater"]
    for k in range(1, 4):
        for rater, order in (("ann", SYSTEMS), ("bea", SYSTEMS), ("llm-judge", SYSTEMS[::-1])):
            best, middle, worst = order
            lines += [
                f"q{k},{best},{middle},a,{rater}",
                f"q{k},{worst},{best},b,{rater}",
                f"q{k},{middle},{worst},a,{rater}",
            ]
            # the best loses once (on q1), so that every score is finite
            lines += [
                f"q{k},{middle},{best},{'model_a' if k == 1 else 'model_b'},{rater}",
                f"q{k},{worst},{middle},tie,{rater}",
            ]
    raw = ("\n".join(lines) + "\n").encode()
    upload_battles(arena, {"battles": [("battles.csv", raw)]}, {"model_judges": "llm-judge"})
    recompute_reports(arena.pk, everything=True)
    organiser = new_page()
    login(organiser, "organiser")
    organiser.goto(f"{live_server.url}/campaigns/{arena.pk}/?section=report")
    expect(organiser.locator("#leaderboard-table tbody tr").first).to_contain_text("gpt")
    judge = organiser.locator("#judge-1")
    expect(judge.locator("h4")).to_have_text("llm-judge")
    expect(judge.locator("#judge-1-tau")).to_contain_text("Kendall's tau with the people's leaderboard: -1.000")
    side_by_side = judge.locator("#judge-1-side-by-side tbody tr")
    expect(side_by_side).to_have_count(3)
    expect(side_by_side.first).to_contain_text("mistral")


def test_axe_on_the_judging_page_and_the_report(browser, live_server, login, people, arena, findings):
    upload_prompts(arena, {"prompts": [("prompts.csv", PROMPTS.encode())]}, {})
    raw = "prompt_id,system_a,system_b,winner,rater\n" + "".join(
        f"q{k},gpt,llama,a,ann\nq{k},llama,mistral,b,ann\nq{k},mistral,gpt,tie,bea\n" for k in range(1, 4)
    )
    upload_battles(arena, {"battles": [("battles.csv", raw.encode())]}, {"model_judges": "bea"})
    recompute_reports(arena.pk, everything=True)
    base = f"/campaigns/{arena.pk}"
    pages = [
        ("alice", "judging page", f"{base}/topics/q1/judge/"),
        ("organiser", "campaign report", f"{base}/?section=report"),
        ("organiser", "topic report", f"{base}/topics/q1/report/"),
    ]
    for who, label, path in pages:
        findings.check(browser, live_server, login, who, f"preference {label}", path)
    assert findings.problems == [], "\n" + "\n".join(findings.problems)
    assert findings.pages == 2 * len(pages)
