from collections import Counter

import pytest

from annotate.imports.write import import_topics
from annotate.models import Assignment
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db


def test_each_topic_gets_overlap_distinct_assessors_least_loaded_first(people, make_user):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="C", overlap=2)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(6))
    rows = list(Assignment.objects.filter(topic__campaign=campaign).values_list("topic_id", "assessor__username"))
    per_topic = Counter(topic for topic, _ in rows)
    assert set(per_topic.values()) == {2}
    assert len(set(rows)) == len(rows)  # never the same assessor twice on a topic
    assert Counter(name for _, name in rows) == {"alice": 4, "bob": 4, "carol": 4}


def test_a_late_assessor_takes_the_new_topics_first(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="C", overlap=2)
    add_member(campaign=campaign, username="alice", role="assessor")
    add_member(campaign=campaign, username="bob", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(4))
    add_member(campaign=campaign, username="carol", role="assessor")
    # Existing topics are full; carol gets nothing until new topics arrive.
    assert not Assignment.objects.filter(assessor=people["carol"]).exists()
    import_topics(campaign=campaign, topics=[{**t, "external_id": "n" + t["external_id"]} for t in pairs_topics(2)])
    new = Assignment.objects.filter(topic__external_id__startswith="nq")
    assert sorted(new.values_list("assessor__username", flat=True)) == ["alice", "bob", "carol", "carol"]


def test_overlap_larger_than_the_team_assigns_everyone_once(people):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="C", overlap=5)
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(2))
    assert Assignment.objects.filter(topic__campaign=campaign).count() == 2
