"""The organiser's dashboard (dashboard/selectors.py): the summary the campaign page opens on,
its sections, the home page's counts, capped tables and the members' links at once."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services import accounts
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.flags import create_flag, resolve_flag
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from dashboard import selectors as dashboard
from scoring import jobs
from scoring.models import Job
from scoring.templatetags.scoring_tags import TABLE_LIMIT
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db

FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
OTHER = {"matches": {"c1": False, "c2": False, "c3": True, "c4": True}}


def submit(campaign, user, external_id, payload=FULL):
    topic = Topic.objects.get(campaign=campaign, external_id=external_id)
    save_judgment(topic=topic, assessor=user, payload=payload, status="submitted", version=0)
    return topic


def test_the_summary_counts_progress_and_what_needs_the_organiser(campaign, people):
    alice, bob = people["alice"], people["bob"]
    q1 = submit(campaign, alice, "q1")
    submit(campaign, bob, "q1", OTHER)
    submit(campaign, alice, "q2")
    draft = Topic.objects.get(campaign=campaign, external_id="q3")
    save_judgment(topic=draft, assessor=bob, payload={"matches": {"c1": True}}, status="draft", version=0)
    create_flag(topic=q1, author=alice, comment="c2?", item="c2")
    resolved = create_flag(topic=q1, author=bob, comment="typo")
    resolve_flag(flag=resolved, organiser=people["organiser"])
    Job.objects.create(campaign=campaign, analysis="evaluation", status=Job.Status.FAILED)
    Job.objects.create(campaign=campaign, analysis="evaluation", status=Job.Status.DONE)  # a rerun clears it
    Job.objects.create(campaign=campaign, analysis="evaluation", status=Job.Status.RUNNING)
    Job.objects.create(campaign=campaign, analysis="agreement", status=Job.Status.FAILED)

    a = dashboard.attention([campaign.pk])[campaign.pk]
    # 3 topics x 2 assessors assigned; 3 submitted, 1 draft.
    assert (a.assigned, a.judged, a.drafts, a.open, a.percent) == (6, 3, 1, 3, 50)
    assert (a.open_flags, a.to_adjudicate, a.running_jobs) == (1, 1, 1)
    assert a.failed_jobs == 1  # agreement's latest; evaluation's failure was followed by another run
    save_curation(topic=q1, name="consensus", data=FULL, version=0, user=people["organiser"])
    assert dashboard.attention([campaign.pk])[campaign.pk].to_adjudicate == 0


def test_the_summary_page_shows_the_headline_figure_with_its_interval_and_stop_signal(client, campaign, people):
    for name in ("alice", "bob"):
        for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people[name]):
            submit(campaign, people[name], topic.external_id)
    jobs.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    headline = page.split('id="summary-headline">', 1)[1].split("</div>", 1)[0]
    assert "Fleiss&#x27; kappa" in headline and '<span class="value">1.000</span>' in headline
    # 6 judgments on 3 topics: too few for an interval, said where the interval goes
    assert 'class="ci-bounds ci-too-few' in headline and "for an interval" in headline and "stop-signal" in headline
    # in plain words too, with a "?" to what the words mean: too few to judge, no band
    reading = headline.split('id="headline-reading"', 1)[1].split("</p>", 1)[0]
    assert "Too few items to judge yet: kappa 1.00 rests on 12 items, and an interval needs at least 30." in reading
    assert 'href="/help/methods/#kappa-and-ac1-landis-and-kochs-scale"' in reading
    assert 'aria-label="What this figure means"' in reading
    # the counts name what they count: judgments here, items in the figure
    progress = page.split('id="summary-progress">', 1)[1].split("</div>", 1)[0]
    assert '<span class="label">Judgments submitted <a href="/help/glossary/#what-is-judged"' in progress
    assert "of 6 assigned</span>" in progress
    assert 'id="summary-judged">6<' in page and 'id="summary-open">0<' in page
    assert f'hx-get="/campaigns/{campaign.pk}/summary/"' in page
    fragment = client.get(f"/campaigns/{campaign.pk}/summary/").content.decode()
    assert 'id="summary-judged">6<' in fragment and "<html" not in fragment
    client.force_login(people["alice"])
    assert client.get(f"/campaigns/{campaign.pk}/summary/").status_code == 403


def _headline_html(client, campaign) -> str:
    page = client.get(f"/campaigns/{campaign.pk}/").content.decode()
    return page.split('id="summary-headline">', 1)[1].split("</div>", 1)[0]


def test_the_summary_reads_the_headline_stored_beside_the_report_not_the_report(client, campaign, people, monkeypatch):
    """Each rebuild stores the kind's headline beside the campaign report (same time, same
    count); the summary reads that and never decodes the report, megabytes for a crowd. A
    report stored without one (an older version), or a headline older than its report, is
    read from the report itself."""
    from scoring import live
    from scoring.models import Report

    alice, bob = people["alice"], people["bob"]
    submit(campaign, alice, "q1")
    submit(campaign, bob, "q1", OTHER)
    submit(campaign, alice, "q2")
    submit(campaign, bob, "q2")
    jobs.recompute_reports(campaign.pk, everything=True)
    report = Report.objects.get(campaign=campaign, name="agreement")
    stored = Report.objects.get(campaign=campaign, name=jobs.HEADLINE)
    assert (
        (stored.computed_at, stored.judgments_seen)
        == (report.computed_at, report.judgments_seen)
        == (
            report.computed_at,
            4,
        )
    )
    kappa = report.data["fleiss"]["bootstrap"]["value"]
    reading = {"scale": "kappa", "symbol": "kappa", "help": "kappa-and-ac1-landis-and-kochs-scale", "baseline": None}
    assert stored.data == {"label": "Fleiss' kappa", "figure": report.data["fleiss"]["bootstrap"], "reading": reading}
    client.force_login(people["organiser"])
    expected = f'<span class="value">{kappa:.3f}</span>'
    with monkeypatch.context() as patched:
        patched.setattr(live, "campaign_report", lambda *args: pytest.fail("the summary decoded the report"))
        assert expected in _headline_html(client, campaign)
        live._headlines.clear()
        # a change of the headline's row shows: the page reads it, not the report
        Report.objects.filter(pk=stored.pk).update(data={**stored.data, "label": "Stored beside"})
        assert "Stored beside" in _headline_html(client, campaign)
    # a headline stored without what the figure is (an older version's shape): the report's, with its plain reading
    Report.objects.filter(pk=stored.pk).update(data={"label": "Older shape", "figure": stored.data["figure"]})
    live._headlines.clear()
    found = _headline_html(client, campaign)
    assert "Older shape" not in found and "Fleiss&#x27; kappa" in found and expected in found
    assert 'id="headline-reading"' in found and "Too few items to judge yet: kappa" in found
    # an older version's report, with no headline beside it: the report's
    Report.objects.filter(pk=stored.pk).delete()
    live._headlines.clear()
    found = _headline_html(client, campaign)
    assert "Fleiss&#x27; kappa" in found and expected in found
    # a headline older than its report: the report's
    Report.objects.create(
        campaign=campaign,
        name=jobs.HEADLINE,
        data={**stored.data, "label": "Older"},
        computed_at=report.computed_at.replace(year=2000),
        judgments_seen=1,
    )
    live._headlines.clear()
    found = _headline_html(client, campaign)
    assert "Fleiss&#x27; kappa" in found and expected in found and "Older" not in found


def test_the_summary_costs_the_same_queries_whatever_the_size(client, people, make_user):
    client.force_login(people["organiser"])
    counts = []
    for n, workers in ((3, 2), (24, 6)):
        campaign = create_campaign(creator=people["organiser"], kind="pairs", name=f"S{n}", overlap=2)
        users = [make_user(f"w{n}-{i}") for i in range(workers)]
        for user in users:
            add_member(campaign=campaign, username=user.username, role="assessor")
        import_topics(campaign=campaign, topics=pairs_topics(n))
        for topic in Topic.objects.filter(campaign=campaign):
            for assignment in topic.assignments.all():
                submit(campaign, assignment.assessor, topic.external_id)
            create_flag(topic=topic, author=topic.assignments.first().assessor, comment="?")
        jobs.recompute_reports(campaign.pk, everything=True)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/campaigns/{campaign.pk}/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts


def test_the_summary_query_bound(client, campaign, people, django_assert_max_num_queries):
    client.force_login(people["organiser"])
    # session, user, campaign and role, the report's ETag and row, the headline's series
    # (scoring.history), whether the campaign's progress is stored (scoring.progress: a small
    # one is counted now), the five grouped counts, the topics, the per-assessor table's five
    # grouped counts, the header's raters per topic, and a first build's progress (stale and
    # all topics, chunks left: one query).
    with django_assert_max_num_queries(21):
        client.get(f"/campaigns/{campaign.pk}/")


def test_each_section_has_its_url_and_marks_itself_current(client, campaign, people):
    client.force_login(people["organiser"])
    base = f"/campaigns/{campaign.pk}/"
    expected = {
        "summary": "Where the campaign stands",
        "report": "Agreement report",
        "progress": "Progress per assessor",
        "flags": "Flags and comments",
        "analyses": "Analyses",
    }
    for section, heading in expected.items():
        page = client.get(base, {"section": section} if section != "summary" else {}).content.decode()
        assert heading in page, section
        href = base if section == "summary" else f"{base}?section={section}"
        assert f'<a href="{href}" aria-current="page">' in page, section
        assert page.count('aria-current="page"') == 1
        for other in ("adjudication/", "assignments/", "members/", "uploads/"):
            assert f'href="{base}{other}"' in page
    refused = client.get(base, {"section": "secrets"})
    assert refused.status_code == 400 and "section" in refused.content.decode()
    members = client.get(f"{base}members/").content.decode()
    assert f'<a href="{base}members/" aria-current="page">' in members
    # The uploads page and the import wizard's preview are the Uploads section.
    preview = client.post(f"{base}uploads/import/", {"step": "preview", "file": SimpleUploadedFile("a.csv", b"x\n")})
    for page in (client.get(f"{base}uploads/").content.decode(), preview.content.decode()):
        assert f'<a href="{base}uploads/" aria-current="page">' in page
        assert page.count('aria-current="page"') == 1 and 'aria-label="Campaign sections"' in page


def test_the_home_page_counts_per_campaign_in_the_same_queries_for_any_number(client, people):
    client.force_login(people["organiser"])
    counts, made = [], []
    for total in (1, 4):
        while len(made) < total:
            campaign = create_campaign(creator=people["organiser"], kind="pairs", name=f"H{len(made)}")
            made.append(campaign)
            add_member(campaign=campaign, username="alice", role="assessor")
            add_member(campaign=campaign, username="bob", role="assessor")
            import_topics(campaign=campaign, topics=pairs_topics(2))
            q1 = submit(campaign, people["alice"], "q1")
            submit(campaign, people["bob"], "q1", OTHER)
            create_flag(topic=q1, author=people["alice"], comment="?")
        with CaptureQueriesContext(connection) as queries:
            page = client.get("/").content.decode()
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    row = page.split(f'data-campaign="{campaign.pk}"', 1)[1].split("</tr>", 1)[0]
    assert "2 of 4" in row and "1 open flag<" in row and "1 to adjudicate" in row
    client.force_login(people["alice"])
    home = client.get("/").content.decode()
    assert home.count("<strong>1</strong> topic") == 4  # each campaign: q2 waits for alice


def test_the_progress_table_is_capped_with_show_all_and_a_csv_of_every_row(client, campaign, people, django_user_model):
    # Accounts without a password (hashing 105 of them is the slow part of making them).
    django_user_model.objects.bulk_create(django_user_model(username=f"p{i:03d}") for i in range(TABLE_LIMIT + 5))
    for i in range(TABLE_LIMIT + 5):
        add_member(campaign=campaign, username=f"p{i:03d}", role="assessor")
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/", {"section": "progress"}).content.decode()
    table = page.split('id="progress-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr><td>") == TABLE_LIMIT
    note = page.split('id="progress-shown">', 1)[1].split("</p>", 1)[0]
    assert note.startswith("Showing the 100 of 107 assessors")
    assert f'href="/campaigns/{campaign.pk}/?section=progress&amp;all=progress" class="show-all"' in note
    assert "agreement API" not in note
    whole = client.get(f"/campaigns/{campaign.pk}/", {"section": "progress", "all": "progress"}).content.decode()
    assert whole.split('id="progress-table"', 1)[1].split("</table>", 1)[0].count("<tr><td>") == 107
    assert f'hx-get="/campaigns/{campaign.pk}/progress/?all=progress"' in whole  # the poll keeps them all
    assert "Show the first 100 only" in whole
    response = client.get(f"/campaigns/{campaign.pk}/progress/", {"format": "csv"})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 107 and rows[0]["assessor"] == "alice" and rows[0]["assigned"] == "3"
    refused = client.get(f"/campaigns/{campaign.pk}/progress/", {"format": "xlsx"})
    assert refused.status_code == 400 and "format" in refused.content.decode()


def test_a_finished_job_reads_done_once(client, campaign, people):
    job = Job.objects.create(campaign=campaign, analysis="agreement", status=Job.Status.DONE, message="done")
    client.force_login(people["organiser"])
    status = client.get(f"/jobs/{job.pk}/").content.decode().split('id="job-status">', 1)[1].split("</p>", 1)[0]
    assert status.count("done") == 1
    jobs_list = client.get(f"/campaigns/{campaign.pk}/jobs/").content.decode()
    assert jobs_list.count(">done<") == 1 and "<td>done</td>" not in jobs_list


def test_adding_several_members_gives_every_new_account_s_link_at_once(client, campaign, people):
    client.force_login(people["organiser"])
    url = f"/campaigns/{campaign.pk}/members/"
    added = {"action": "add", "usernames": "dora\nerik carol", "role": "assessor"}
    page = client.post(url, added, follow=True).content.decode()
    text = page.split('id="links-text"', 1)[1].split(">", 1)[1].split("</textarea>", 1)[0]
    lines = [line.split("\t") for line in text.splitlines()]
    # carol is an existing account: no link for her (she signs in with her own password).
    assert [name for name, _ in lines] == ["dora", "erik"]
    for name, link in lines:
        assert link.startswith("http://testserver/accounts/set-password/#")
        assert accounts.link_holder(link.split("#", 1)[1]).get_username() == name
    assert 'id="copy-links"' in page and "Copy all links" in page
    # Later, every new account's link again from the page, in one go.
    again = client.post(url, {"action": "links"}, follow=True).content.decode()
    assert again.count("/accounts/set-password/#") == 2
    alone = create_campaign(creator=people["organiser"], kind="pairs", name="Alone")
    refused = client.post(f"/campaigns/{alone.pk}/members/", {"action": "links"})
    assert refused.status_code == 400 and "no member has a new account" in refused.content.decode()
