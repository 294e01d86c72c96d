"""The headline's series (scoring/history.py) and its chart, "Agreement over time"
(``{% agreement_over_time %}``): one point per rebuild, equal to the headline that rebuild
stored and written with it; none for a rebuild that saw nothing new; bounded, keeping its
first and last points; drawn on the summary (its polled fragment too) and the report's top."""

from __future__ import annotations

import io
import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment, withdraw_judgment
from annotate.services.members import add_member
from concord import typed
from scoring import fields, history, jobs, live
from scoring.models import Report
from stats.intervals import FigureCI
from stats.stopping import stop_signal, units_needed
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db

AGREE = {"matches": {"c1": True, "c2": False, "c3": True, "c4": False}}
DIFFER = {"matches": {"c1": True, "c2": True, "c3": True, "c4": False}}


@pytest.fixture
def stepped(people):
    """A pairs campaign of 16 topics of 4 candidates, alice and bob on each; ``step()`` has
    both submit the next 4 topics (bob differing on every third) and rebuilds its reports, their
    intervals refreshed, then returns the headline that rebuild stored (its row)."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Stepped", overlap=2)
    add_member(campaign=campaign, username="alice", role="assessor")
    add_member(campaign=campaign, username="bob", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(16))
    topics = list(Topic.objects.filter(campaign=campaign).order_by("position"))
    done = []

    def step() -> Report:
        for topic in topics[len(done) : len(done) + 4]:
            save_judgment(topic=topic, assessor=people["alice"], payload=AGREE, status="submitted", version=0)
            payload = DIFFER if topic.position % 3 == 0 else AGREE
            save_judgment(topic=topic, assessor=people["bob"], payload=payload, status="submitted", version=0)
            done.append(topic)
        jobs.recompute_reports(campaign.pk)
        # the intervals as the background refresh of the running sums' fits makes them
        # (scoring/sums.py): then the rebuild that takes them up, from the same judgments
        if jobs.refresh_fits(campaign.pk):
            jobs.recompute_reports(campaign.pk)
        return Report.objects.get(campaign=campaign, name=jobs.HEADLINE)

    campaign.step = step
    return campaign


def test_each_rebuild_adds_one_point_equal_to_the_headline_it_stored(stepped):
    headlines = []
    for count in (1, 2, 3):
        if count == 3:  # the precision of its time goes with each point
            stepped.params = {**stepped.params, "precision": 0.2}
            stepped.save(update_fields=["params"])
        headlines.append(stepped.step())
        series = history.read(stepped)
        assert series.label == "Fleiss' kappa" and len(series.points) == count
        row = Report.objects.get(campaign=stepped, name=history.NAME)
        assert (row.computed_at, row.judgments_seen) == (headlines[-1].computed_at, 8 * count)
    for stored, headline, precision in zip(series.points, headlines, (0.05, 0.05, 0.2)):
        figure = typed.load(FigureCI, headline.data["figure"])
        assert (stored.at, stored.judgments) == (headline.computed_at, headline.judgments_seen)
        assert (stored.value, stored.low, stored.high, stored.units, stored.unit) == (
            figure.value,
            figure.low,
            figure.high,
            figure.units,
            figure.unit,
        )
        assert stored.precision == precision
        signal = stop_signal(figure, precision)
        assert (stored.half_width, stored.reached, stored.more) == (
            signal.half_width,
            signal.reached,
            signal.more_units,
        )
    first, second, third = series.points
    assert (first.units, first.low, first.more, first.reached) == (16, None, None, False)  # too few for an interval
    assert second.units == 32 and second.half_width > 0.05 and not second.reached
    assert second.more == units_needed(32, second.half_width, 0.05) - 32
    assert third.half_width <= 0.2 and third.reached and third.more == 0


def test_a_rebuild_with_nothing_new_adds_no_point(stepped):
    stepped.step()
    stepped.step()
    before = history.read(stepped)
    jobs.recompute_reports(stepped.pk)
    jobs.recompute_reports(stepped.pk, everything=True)
    call_command("recompute_reports", "--full", "--campaign", str(stepped.pk), stdout=io.StringIO())
    after = history.read(stepped)
    assert after == before and [p.judgments for p in after.points] == [8, 16]
    # the newest headline is newer than its point: the point keeps the time it was first seen
    headline = Report.objects.get(campaign=stepped, name=jobs.HEADLINE)
    assert headline.computed_at > after.points[-1].at


def test_fewer_judgments_replace_the_points_past_their_count(stepped, people):
    stepped.step()
    stepped.step()
    topic = Topic.objects.get(campaign=stepped, position=7)
    withdraw_judgment(topic=topic, assessor=people["bob"], version=1)
    jobs.recompute_reports(stepped.pk)
    points = history.read(stepped).points
    assert [p.judgments for p in points] == [8, 15]
    assert points[-1].at == Report.objects.get(campaign=stepped, name=jobs.HEADLINE).computed_at


def test_the_series_is_thinned_to_its_bound_keeping_its_first_and_last_points():
    start = datetime(2025, 1, 1, tzinfo=UTC)
    series = history.History("kappa")
    for n in range(1, 1001):
        new = history.Point(start + timedelta(minutes=n), n, n / 1000, None, None, n, "items", 0.05, None, False, None)
        series = history.appended(series, "kappa", new)
        assert len(series.points) <= history.MAX_POINTS
    judgments = [p.judgments for p in series.points]
    assert judgments[0] == 1 and judgments[-1] == 1000
    assert judgments == sorted(set(judgments))
    # the newer half as it came, every point of it; the older thinned across the whole span
    newest = judgments[len(judgments) // 2 :]
    assert newest == list(range(newest[0], 1001))
    assert max(b - a for a, b in zip(judgments, judgments[1:])) > 8


def test_a_full_series_is_a_few_kilobytes():
    """What docs/security.md's limits say: 120 points of figures that do not compress (every
    float a different, long one) pack into 6.6 KB."""
    draw = random.Random(0).random
    start = datetime(2025, 1, 1, tzinfo=UTC)
    points = tuple(
        history.Point(
            start + timedelta(seconds=7.123456 * n), 3 * n, draw(), draw(), draw(), n, "items", 0.05, draw(), False, n
        )
        for n in range(history.MAX_POINTS)
    )
    assert len(fields.pack_stored(typed.dump(history.History("Krippendorff's alpha (ordinal)", points)))) < 7_000


def test_a_rebuild_past_the_bound_thins_the_stored_series(stepped, monkeypatch):
    monkeypatch.setattr(history, "MAX_POINTS", 3)
    for _ in range(4):
        stepped.step()
    assert [p.judgments for p in history.read(stepped).points] == [8, 24, 32]


def test_recording_a_point_reads_and_writes_one_row_whatever_the_series_holds(stepped):
    stepped.step()
    headline = live.campaign_headline(stepped, None).data
    start = datetime(2030, 1, 1, tzinfo=UTC)
    for n in range(200):
        with CaptureQueriesContext(connection) as queries:
            history.record(stepped, headline, 100 + n, start + timedelta(minutes=n))
        assert len(queries) == 2, [q["sql"] for q in queries]  # the series's row, read and rewritten
    assert len(history.read(stepped).points) <= history.MAX_POINTS
    with CaptureQueriesContext(connection) as queries:
        history.record(stepped, headline, 299, start + timedelta(days=1))  # nothing new: read only
    assert len(queries) == 1


def test_deleting_the_reports_deletes_the_series_and_the_next_rebuild_starts_a_new_one(stepped):
    stepped.step()
    stepped.step()
    stepped.reports.all().delete()
    assert history.read(stepped) is None
    stepped.step()
    assert [p.judgments for p in history.read(stepped).points] == [24]


# -- the chart ----------------------------------------------------------------------------------


def _section(page: str) -> str:
    return page.split('<section class="over-time"', 1)[1].split("</section>", 1)[0]


def test_the_summary_draws_each_rebuild_s_figure_as_a_line_with_its_interval(client, stepped, people):
    headlines = [typed.load(FigureCI, stepped.step().data["figure"]) for _ in range(3)]
    client.force_login(people["organiser"])
    for path in (f"/campaigns/{stepped.pk}/", f"/campaigns/{stepped.pk}/summary/"):  # the page and its poll
        section = _section(client.get(path).content.decode())
        [line] = re.findall(r'<polyline class="over-time-line" points="([^"]+)"', section)
        vertices = [tuple(map(float, xy.split(","))) for xy in line.split()]
        assert len(vertices) == 3
        xs, ys = zip(*vertices)
        assert xs[0] < xs[1] < xs[2]
        # a higher figure is drawn higher (a smaller y): the figures rise here
        assert headlines[0].value < headlines[1].value < headlines[2].value and ys[0] > ys[1] > ys[2]
        # the band: the second and third points' intervals (the first rests on too few items)
        [band] = re.findall(r'<polygon class="over-time-band" points="([^"]+)"', section)
        assert len(band.split()) == 4
        rows = re.findall(r'<tr><th scope="row">(\d+)</th><td>[^<]+</td><td>([^<]+)</td><td>([^<]+)</td>', section)
        assert rows == [
            ("8", f"{headlines[0].value:.3f}", "—"),
            ("16", f"{headlines[1].value:.3f}", f"[{headlines[1].low:.3f}, {headlines[1].high:.3f}]"),
            ("24", f"{headlines[2].value:.3f}", f"[{headlines[2].low:.3f}, {headlines[2].high:.3f}]"),
        ]
        more = stop_signal(headlines[2], 0.05).more_units
        assert f"About {more} more items to reach ±0.05 (now ±{headlines[2].half_width:.3f})." in section
        assert 'role="img"' in section and "<title" in section and "<desc" in section
    report = client.get(f"/campaigns/{stepped.pk}/report/").content.decode()
    assert report.index('id="over-time"') < report.index('id="report-meta"')  # on the report's top
    assert "<polyline" in _section(report)


def test_precise_enough_since_the_first_point_of_the_latest_run_that_reaches_the_precision(client, stepped, people):
    for _ in range(3):
        stepped.step()
    widths = [p.half_width for p in history.read(stepped).points]
    assert widths[0] is None and widths[1] > widths[2]
    stepped.params = {**stepped.params, "precision": round(widths[1] + 0.01, 2)}  # the 2nd and 3rd reach it
    stepped.save(update_fields=["params"])
    client.force_login(people["organiser"])
    section = _section(client.get(f"/campaigns/{stepped.pk}/").content.decode())
    assert "Precise enough since 16 judgments" in section
    stepped.params = {**stepped.params, "precision": round(widths[2] + 0.01, 2)}  # only the 3rd
    stepped.save(update_fields=["params"])
    section = _section(client.get(f"/campaigns/{stepped.pk}/").content.decode())
    assert "Precise enough since 24 judgments" in section


def test_with_fewer_than_two_points_a_sentence_instead_of_a_chart(client, stepped, people):
    client.force_login(people["organiser"])
    section = _section(client.get(f"/campaigns/{stepped.pk}/").content.decode())
    assert "No figure yet" in section and "<svg" not in section
    figure = typed.load(FigureCI, stepped.step().data["figure"])
    section = _section(client.get(f"/campaigns/{stepped.pk}/").content.decode())
    assert "<svg" not in section
    assert f"Computed once so far (Fleiss&#x27; kappa {figure.value:.3f} from 8 judgments)" in section
    assert "Too few items to judge yet: 16 of at least 30." in section


def test_a_kind_without_a_headline_has_no_chart(client, people):
    factoids = create_campaign(creator=people["organiser"], kind="factoids", name="Facts", overlap=2)
    client.force_login(people["organiser"])
    assert 'class="over-time"' not in client.get(f"/campaigns/{factoids.pk}/").content.decode()
    assert 'class="over-time"' not in client.get(f"/campaigns/{factoids.pk}/report/").content.decode()
