"""A factoids campaign (the kind with every feature: phases, curations,
relations), organised by `organiser`, with alice and bob's submitted
annotations of topic `kuwait` and a job; and another campaign, organised by
`other_organiser`, assessed by carol (users from the root conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from security_helpers import FACTOIDS_PAYLOAD, FACTOIDS_TOPIC

from annotate.imports.write import import_topics
from annotate.models import Campaign, Flag, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.flags import create_flag
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring.models import Job


@dataclass
class World:
    campaign: Campaign
    topic: Topic
    job: Job
    other: Campaign
    #: bob's open flag on the topic (annotate/flags.py)
    flag: Flag | None = None


@pytest.fixture
def world(people, make_user) -> World:
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="Kuwait", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    # The campaign's adjudicator (docs/pages.md, "Adjudication"): the permission matrix's last column.
    people["adjudicator"] = make_user("adjudicator")
    add_member(campaign=campaign, username="adjudicator", role="adjudicator")
    (topic,) = import_topics(campaign=campaign, topics=[FACTOIDS_TOPIC])
    topic = Topic.objects.get(pk=topic.pk)
    save_judgment(topic=topic, assessor=people["bob"], payload=FACTOIDS_PAYLOAD, status="submitted", version=0)
    other = create_campaign(creator=people["other_organiser"], kind="factoids", name="Elsewhere", overlap=1)
    add_member(campaign=other, username="carol", role="assessor")
    import_topics(campaign=other, topics=[FACTOIDS_TOPIC])
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    flag = create_flag(topic=topic, author=people["bob"], comment="m1s2 reads oddly", item="")
    return World(campaign=campaign, topic=topic, job=job, other=other, flag=flag)


@pytest.fixture(autouse=True)
def fresh_cache():
    """Login failures are counted in the cache: no test sees another's."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


# -- browser tests (as in the root conftest.py) -----------------------------------
