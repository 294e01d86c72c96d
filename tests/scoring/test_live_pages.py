"""Small live pages: the report fragment and the agreement API carry an ETag and
answer 304 with no body after one query while the report is unchanged; the organiser page lists
one page of topics however many there are and never reads a topic's data; report tables are
capped with a sentence and a CSV of every row."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from dashboard.topics import PAGE_SIZE
from scoring import live
from scoring.templatetags.scoring_tags import SHOW_ALL_LIMIT, cap
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db
FULL = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
OTHER = {"matches": {"c1": False, "c2": False, "c3": True, "c4": False}}
AUTH_TABLES = ("django_session", "auth_user")


def submit(campaign, people, names, payload=FULL, capture=None):
    with capture(execute=True):
        for name in names:
            for topic in Topic.objects.filter(campaign=campaign, assignments__assessor=people[name]):
                save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)


@pytest.fixture
def judged(campaign, people, django_capture_on_commit_callbacks):
    submit(campaign, people, ("alice", "bob"), capture=django_capture_on_commit_callbacks)
    return campaign


def fragment_url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/report/"


def test_an_unchanged_report_is_a_304_with_no_body_after_one_query(client, people, judged):
    client.force_login(people["organiser"])
    first = client.get(fragment_url(judged))
    assert first.status_code == 200 and b'id="judgments-seen">6<' in first.content
    tag = first["ETag"]
    assert re.fullmatch(r'"r\d+-\d+-[0-9a-f]{8}"', tag) and "no-cache" in first["Cache-Control"]
    with CaptureQueriesContext(connection) as queries:
        again = client.get(fragment_url(judged), headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == tag
    # The session and its user (authentication), then one query: campaign, role and report version.
    own = [q["sql"] for q in queries if not any(f'"{t}"' in q["sql"] for t in AUTH_TABLES)]
    assert len(queries) == 3 and len(own) == 1, [q["sql"] for q in queries]
    assert '"annotate_campaign"' in own[0] and '"scoring_report"' in own[0] and '"annotate_membership"' in own[0]
    # Several tags, weak ones and * match too; another tag does not.
    assert client.get(fragment_url(judged), headers={"if-none-match": f'"x", W/{tag}'}).status_code == 304
    assert client.get(fragment_url(judged), headers={"if-none-match": '"r0-0-00000000"'}).status_code == 200


def test_the_agreement_api_answers_304_after_one_query(api, people, judged):
    client = api(people["organiser"])
    url = f"/api/campaigns/{judged.pk}/agreement/"
    first = client.get(url)
    assert first.status_code == 200 and first.json()["judgments_seen"] == 6
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, headers={"if-none-match": first["ETag"]})
    assert again.status_code == 304 and again.content == b"" and len(queries) == 1


def test_the_headline_api_is_the_reports_time_count_and_headline_in_a_few_hundred_bytes(api, people, judged):
    """What a client polls to learn whether the report moved: not the whole report (a crowd's
    carries its workers' kappa matrix, tens of megabytes as JSON), under the same ETag."""
    from kinds.registry import get_kind
    from scoring.selectors import campaign_report

    client = api(people["organiser"])
    url = f"/api/campaigns/{judged.pk}/agreement/headline/"
    first = client.get(url)
    whole = client.get(f"/api/campaigns/{judged.pk}/agreement/")
    assert first.status_code == 200 and first["ETag"] == whole["ETag"]
    body = first.json()
    expected = get_kind("pairs").reports.headline(campaign_report(judged).data)
    assert (body["kind"], body["judgments_seen"], body["computed_at"]) == ("pairs", 6, whole.json()["computed_at"])
    assert body["headline"]["label"] == expected.label == "Fleiss' kappa"
    figure = body["headline"]["figure"]
    assert figure["value"] == pytest.approx(expected.figure.value, abs=1e-12) == whole.json()["data"]["fleiss"]["kappa"]
    assert (figure["units"], figure["unit"]) == (expected.figure.units, "items")
    assert len(first.content) < 400 < len(whole.content)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url, headers={"if-none-match": first["ETag"]})
    assert again.status_code == 304 and again.content == b"" and len(queries) == 1
    for name, status in (("alice", 403), ("other_organiser", 404), ("outsider", 404)):
        assert api(people[name]).get(url).status_code == status


def test_before_the_first_report_the_headline_api_says_so(api, people, campaign):
    body = api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/agreement/headline/").json()
    assert body == {"kind": "pairs", "computed_at": None, "judgments_seen": 0, "headline": None}


def test_a_new_report_is_a_200_with_a_new_etag(client, people, judged, django_capture_on_commit_callbacks):
    client.force_login(people["organiser"])
    old = client.get(fragment_url(judged))["ETag"]
    topic = Topic.objects.filter(campaign=judged, assignments__assessor=people["alice"]).first()
    with django_capture_on_commit_callbacks(execute=True):
        reopen_judgment(topic=topic, assessor=people["alice"], version=1)
        save_judgment(topic=topic, assessor=people["alice"], payload=OTHER, status="submitted", version=2)
    new = client.get(fragment_url(judged), headers={"if-none-match": old})
    assert new.status_code == 200 and new["ETag"] != old and b'id="judgments-seen">6<' in new.content
    assert client.get(fragment_url(judged), headers={"if-none-match": new["ETag"]}).status_code == 304
    # A change of the campaign's params (the fragment's stop signals read them) is a new version too.
    judged.params = {**judged.params, "precision": 0.2}
    judged.save(update_fields=["params"])
    assert client.get(fragment_url(judged), headers={"if-none-match": new["ETag"]}).status_code == 200


def test_before_the_first_report_the_fragment_has_an_etag_too(client, people, campaign):
    client.force_login(people["organiser"])
    first = client.get(fragment_url(campaign))
    assert first.status_code == 200 and first["ETag"].startswith('"r0-0-')
    assert client.get(fragment_url(campaign), headers={"if-none-match": first["ETag"]}).status_code == 304


def test_a_matching_etag_opens_nothing_to_who_may_not_read_the_report(client, people, judged):
    client.force_login(people["organiser"])
    tag = client.get(fragment_url(judged))["ETag"]
    for name, status in (("alice", 403), ("other_organiser", 404), ("outsider", 404)):
        client.force_login(people[name])
        for given in (tag, "*"):
            response = client.get(fragment_url(judged), headers={"if-none-match": given})
            assert response.status_code == status and "ETag" not in response
    client.logout()
    assert client.get(fragment_url(judged), headers={"if-none-match": tag}).status_code == 302
    client.force_login(people["admin"])  # staff: admin of every campaign
    assert client.get(fragment_url(judged), headers={"if-none-match": tag}).status_code == 304


def test_the_organiser_page_sends_the_report_etag_to_its_first_poll(client, people, judged):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{judged.pk}/?section=report").content.decode()
    tag = client.get(fragment_url(judged))["ETag"]
    assert f'<div id="report" data-etag="{tag.replace(chr(34), "&quot;")}"' in page
    assert "annotate/live" in page and ".js" in page  # static/annotate/live.js: If-None-Match, keeps it on 304


def test_the_etag_names_the_report_row_its_time_and_the_params():
    from datetime import UTC, datetime

    when = datetime(2025, 1, 2, tzinfo=UTC)
    assert live.etag(3, when, {"a": 1}) != live.etag(3, when, {"a": 2}) != live.etag(4, when, {"a": 2})
    assert live.etag(3, when, {"a": 1, "b": 2}) == live.etag(3, when, {"b": 2, "a": 1})
    assert live.etag(None, None, None) == '"r0-0-a3a6bf43"'


# -- the organiser page: one page of topics ---------------------------------------------------


def big_campaign(people, n: int):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name=f"Big {n}", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(n))
    return campaign


def topic_rows(page: str) -> int:
    table = page.split('<details id="topics">', 1)[1].split("</table>", 1)[0]
    return table.count("<tr><td>")


def test_the_organiser_page_of_600_topics_lists_one_page_of_them(client, people):
    campaign = big_campaign(people, 600)
    topic = Topic.objects.get(campaign=campaign, external_id="q1")
    save_judgment(topic=topic, assessor=people["alice"], payload=FULL, status="draft", version=0)
    client.force_login(people["organiser"])
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/campaigns/{campaign.pk}/?section=progress")
    page = response.content.decode()
    assert topic_rows(page) == PAGE_SIZE == 50
    assert "<summary>600 topics</summary>" in page
    assert (
        f'The first 50 of 600 topics in the campaign\'s order; <a href="/campaigns/{campaign.pk}/assignments/?page=2">'
        "the next 50</a>" in page
    )
    # Each state's count, linked to the Assignments page's filter.
    states = page.split('id="assignment-states">', 1)[1].split("</p>", 1)[0]
    assert f'<a href="/campaigns/{campaign.pk}/assignments/?state=new">1199 not started</a>' in states
    assert f'<a href="/campaigns/{campaign.pk}/assignments/?state=draft">1 draft</a>' in states
    # No query reads a topic's data (the titles come from their own column).
    topic_reads = [q["sql"] for q in queries if 'FROM "annotate_topic"' in q["sql"]]
    assert topic_reads and not any('"annotate_topic"."data"' in sql for sql in topic_reads), topic_reads


def test_the_organiser_page_does_not_grow_with_the_topics(client, people):
    client.force_login(people["organiser"])
    sizes = {}
    for n in (60, 600):
        campaign = big_campaign(people, n)
        page = client.get(f"/campaigns/{campaign.pk}/?section=progress").content.decode()
        assert topic_rows(page) == 50
        sizes[n] = len(page.replace(campaign.name, ""))
    # Only the counts' digits differ (60 -> 600, 120 -> 1200).
    assert sizes[600] - sizes[60] < 20, sizes


def test_a_small_campaign_lists_every_topic_without_the_sentence(client, people, campaign):
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/?section=progress").content.decode()
    assert topic_rows(page) == 3 and 'id="topics-shown"' not in page


# -- capped report tables ---------------------------------------------------------------------


class Row:
    def __init__(self, n):
        self.n = n


def test_capped_keeps_the_largest_in_their_order_or_the_first():
    rows = [Row(n) for n in (5, 1, 9, 3, 7)]
    table = cap(rows, by="n", limit=3)
    assert [r.n for r in table.rows] == [5, 9, 7] and (table.total, table.hidden) == (5, 2)
    assert [r.n for r in cap(rows, limit=2).rows] == [5, 1]
    assert cap({"a": 1, "b": 2, "c": 3}, limit=2).rows == [("a", 1), ("b", 2)]
    assert cap(rows).hidden == 0 and cap(None).total == 0


def test_a_capped_table_says_so_and_its_csv_has_every_row(client, people, make_user, monkeypatch):
    """100 assessors judge one topic: 4,950 pairs, 100 shown, the CSV has them all. (The
    campaign report lists every pair here: the mechanism under test is the page's cap; the
    report's own, LIVE_PAIRS, is kinds/pairs/tests/test_live_pairs.py's.)"""
    from kinds.pairs import partials as pairs_partials

    monkeypatch.setattr(pairs_partials, "LIVE_PAIRS", 5000)
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=100)
    names = [make_user(f"w{i:03d}").username for i in range(100)]
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(1))
    topic = Topic.objects.get(campaign=campaign)
    from django.contrib.auth import get_user_model

    from scoring import jobs

    users = {u.username: u for u in get_user_model().objects.filter(username__in=names)}
    for i, name in enumerate(names):
        save_judgment(
            topic=topic, assessor=users[name], payload=FULL if i % 3 else OTHER, status="submitted", version=0
        )
    jobs.recompute_reports(campaign.pk, everything=True)
    client.force_login(people["organiser"])
    fragment = client.get(fragment_url(campaign)).content.decode()
    table = fragment.split('id="pairs-table"', 1)[1].split("</table>", 1)[0]
    assert table.count('<td class="kappa">') == 100
    note = fragment.split('id="pairs-shown">', 1)[1].split("</p>", 1)[0]
    csv_url = f"/campaigns/{campaign.pk}/report/table.csv?rows=pairs"
    assert note.startswith("Showing the 100 of 4950 pairs (with the most shared items); every one: ")
    assert f'<a href="{csv_url}" class="table-csv">the whole table as CSV</a>' in note
    show_all = f"/campaigns/{campaign.pk}/?section=report&amp;all=pairs"
    assert f'<a href="{show_all}" class="show-all">show all 4950</a>' in note
    # "Show all": the page asks its fragment for every row of that one table, up to the bound.
    whole = client.get(fragment_url(campaign), {"all": "pairs"}).content.decode()
    table = whole.split('id="pairs-table"', 1)[1].split("</table>", 1)[0]
    assert table.count('<td class="kappa">') == SHOW_ALL_LIMIT == 2000
    assert "Showing the 2000 of 4950 pairs; every one: <a" in whole and 'class="show-all"' not in whole
    # The heatmap: 30 of the 120 assessors, with its sentence and the full matrix.
    assert "Showing the 30 of 100 assessors who share items with the most others" in fragment
    response = client.get(csv_url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 4950
    assert {"assessors.0", "assessors.1", "n", "kappa", "kappa_ci.low"} <= set(rows[0])
    assert (rows[0]["assessors.0"], rows[0]["assessors.1"], rows[0]["n"]) == ("w000", "w001", "4")
    # Only lists of the report; not a member: 404.
    assert client.get(f"/campaigns/{campaign.pk}/report/table.csv?rows=fleiss").status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/report/table.csv?rows=__class__").status_code == 404
    client.force_login(people["other_organiser"])
    assert client.get(csv_url).status_code == 404


def test_a_topic_report_is_computed_once_per_change_and_its_page_polls_answer_304(
    client, people, judged, replace_spec, django_capture_on_commit_callbacks
):
    """The topic page computes its report when read (scoring.selectors.topic_report); its polls
    carry an ETag of what the report is computed from, so an unchanged topic costs no recompute,
    and a submission, a curation or the campaign's params each change it."""
    import dataclasses

    from kinds.registry import get_kind

    reports = get_kind("pairs").reports
    built = []

    def counted(given, topic):
        built.append(topic.pk)
        return reports.topic(given, topic)

    replace_spec("pairs", reports=dataclasses.replace(reports, topic=counted))
    live._topic_reports.clear()
    topic = Topic.objects.filter(campaign=judged, assignments__assessor=people["alice"]).order_by("position").first()
    url = f"/campaigns/{judged.pk}/topics/{topic.external_id}/report/"
    client.force_login(people["organiser"])
    first = client.get(url)
    assert first.status_code == 200 and first["ETag"].startswith(f'"t{topic.pk}-') and built == [topic.pk]
    assert client.get(url).status_code == 200 and built == [topic.pk]  # the same tag: kept, not computed again
    assert client.get(url, headers={"if-none-match": first["ETag"]}).status_code == 304
    with django_capture_on_commit_callbacks(execute=True):
        reopen_judgment(topic=topic, assessor=people["alice"], version=1)
        save_judgment(topic=topic, assessor=people["alice"], payload=OTHER, status="submitted", version=2)
    second = client.get(url, headers={"if-none-match": first["ETag"]})
    assert second.status_code == 200 and second["ETag"] != first["ETag"] and built == [topic.pk, topic.pk]
    # alice now says c1 is no match (OTHER), bob still match (FULL): c1 has 1 match vote of 2
    shown = live.topic_report(topic, second["ETag"]).data  # the one the page showed: kept, not computed again
    assert [(c.id, c.matches, c.judged) for c in shown.candidates][0] == ("c1", 1, 2) and len(built) == 2
    save_curation(topic=topic, name="consensus", data={"matches": {"c1": True}}, version=0, user=people["organiser"])
    third = live.topic_etag(topic)
    assert third != second["ETag"]
    judged.params = {**judged.params, "resamples": 500}
    judged.save(update_fields=["params"])
    topic.campaign.params = judged.params
    assert live.topic_etag(topic) not in (third, second["ETag"])
    for name, status in (("alice", 403), ("other_organiser", 404)):
        client.force_login(people[name])
        assert client.get(url, headers={"if-none-match": first["ETag"]}).status_code == status
    live._topic_reports.clear()
