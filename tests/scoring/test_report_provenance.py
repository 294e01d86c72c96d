"""A stored report says exactly which judgments its figures were computed from.

``Report.judgments_seen`` is the sum of the judgments each merged partial was computed
from (``TopicPartial.judgments``, read with the partial), and ``computed_at`` is taken
before anything is read: a judgment saved while a rebuild runs, between its reads and its
store, is neither counted nor dated into a report that does not hold it. The next rebuild
holds it, and says so.
"""

from __future__ import annotations

import copy

import pytest

from annotate.imports.write import import_topics
from annotate.models import JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.registry import KINDS
from scoring import jobs
from scoring.models import Report, TopicPartial
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db

ORDERS = {"alice": ["a", "b", "c", "d"], "bob": ["a", "c", "b", "d"], "carol": ["d", "c", "b", "a"]}


def ordering_campaign(people, make_user):
    make_user("dave")
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="Provenance", overlap=3)
    for name in ORDERS:
        add_member(campaign=campaign, username=name, role="assessor")
    items = [{"id": i, "text": f"Item {i}"} for i in "abcd"]
    import_topics(
        campaign=campaign, topics=[{"external_id": t, "data": {"items": copy.deepcopy(items)}} for t in ("t1", "t2")]
    )
    return campaign


def submit(campaign, people, topic: str, name: str):
    return save_judgment(
        topic=campaign.topics.get(external_id=topic),
        assessor=people[name],
        payload={"order": ORDERS[name]},
        status="submitted",
        version=0,
    )


def agreement(campaign) -> Report:
    return Report.objects.get(campaign=campaign, name="agreement")


@pytest.mark.parametrize("saved_on", ["t1", "t2"])
def test_a_judgment_saved_during_a_rebuild_is_not_claimed_by_it(people, make_user, monkeypatch, saved_on):
    """t1 is marked (alice's new judgment) and rebuilt; t2's stored partial is merged as it is.
    Carol's judgment, saved after the rebuild has read everything, is in neither: the
    report holds 3 judgments (t1: alice and bob; t2: alice), says 3, and is dated before
    carol's save. Whichever topic carol's judgment is of, the count is what the figures hold."""
    campaign = ordering_campaign(people, make_user)
    submit(campaign, people, "t1", "bob")
    submit(campaign, people, "t2", "alice")
    jobs.recompute_reports(campaign.pk)
    submit(campaign, people, "t1", "alice")
    reports = KINDS["ordering"].reports
    # What the figures must be: the campaign report of the 3 judgments there are now.
    expected = typed.dump(reports.campaign(report_input(campaign)))

    real = jobs.report_input
    saved = {}

    def read_then_someone_saves(*args, **kwargs):
        given = real(*args, **kwargs)
        if not saved:  # the rebuild has read its judgments; carol saves before it stores
            saved["revision"] = JudgmentRevision.objects.get(
                judgment=submit(campaign, people, saved_on, "carol").judgment, version=1
            )
        return given

    monkeypatch.setattr(jobs, "report_input", read_then_someone_saves)
    jobs.recompute_reports(campaign.pk)
    monkeypatch.undo()

    stored = agreement(campaign)
    assert stored.judgments_seen == 3
    assert stored.data == expected
    assert stored.computed_at < saved["revision"].created_at
    held = dict(TopicPartial.objects.filter(campaign=campaign).values_list("topic__external_id", "judgments"))
    assert held == {"t1": 2, "t2": 1}
    # carol's judgment marked its topic: the next rebuild holds it, and says so
    jobs.recompute_reports(campaign.pk)
    stored = agreement(campaign)
    assert stored.judgments_seen == 4
    assert stored.computed_at > saved["revision"].created_at
    assert stored.data == typed.dump(reports.campaign(report_input(campaign)))
    assert jobs.check_reports(campaign) == []


def test_the_check_names_a_count_that_differs_from_what_the_partial_holds(people, make_user):
    campaign = ordering_campaign(people, make_user)
    submit(campaign, people, "t1", "bob")
    submit(campaign, people, "t1", "alice")
    jobs.recompute_reports(campaign.pk)
    assert jobs.check_reports(campaign) == []
    TopicPartial.objects.filter(topic__external_id="t1").update(judgments=1)
    Report.objects.filter(campaign=campaign, name="agreement").update(judgments_seen=3)
    assert jobs.check_reports(campaign) == [
        "topic t1.judgments: 1 != 2",
        # the running sums (scoring/sums.py) count what the report's partials held: 2
        "campaign sums: judgments_seen 2, the report 3",
        "campaign: judgments_seen 3, holds 2",
    ]


def test_a_partial_of_unknown_count_is_computed_again(people, make_user):
    """A partial stored without its count is not merged blind: its topic is computed again."""
    campaign = ordering_campaign(people, make_user)
    submit(campaign, people, "t1", "bob")
    submit(campaign, people, "t2", "alice")
    jobs.recompute_reports(campaign.pk)
    TopicPartial.objects.filter(topic__external_id="t2").update(judgments=None)
    assert jobs.recompute_reports(campaign.pk) == 1
    assert agreement(campaign).judgments_seen == 2
    assert TopicPartial.objects.get(topic__external_id="t2").judgments == 1
