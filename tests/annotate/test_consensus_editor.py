"""The consensus editor (the adjudication page's "Edit") renders the kind's judging page
with everything that page gets from the kind: the relevance grade
scale, the other kinds' campaign params. Both views take it from one place
(annotate.views.judging_context), so the two cannot drift."""

from __future__ import annotations

import copy

import pytest
from django.test import Client

from annotate.imports.write import import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS

pytestmark = pytest.mark.django_db


def _campaign(people, name: str, **params):
    spec = KINDS[name]
    campaign = create_campaign(
        creator=people["organiser"],
        kind=name,
        name=f"{name} editor",
        overlap=2,
        params={**spec.examples.params, **params},
    )
    for assessor in ("alice", "bob"):
        add_member(campaign=campaign, username=assessor, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(spec.examples.topic)}])
    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    for assessor, payload in zip(("alice", "bob"), spec.examples.payloads, strict=True):
        save_judgment(
            topic=topic, assessor=people[assessor], payload=copy.deepcopy(payload), status="submitted", version=0
        )
    return campaign, topic


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("name", sorted(KINDS))
def test_the_editor_gets_what_the_judging_page_gets_from_the_kind(people, name):
    spec = KINDS[name]
    campaign, topic = _campaign(people, name)
    judging = _client(people["alice"]).get(f"/campaigns/{campaign.pk}/topics/t1/judge/")
    editor = _client(people["organiser"]).get(f"/campaigns/{campaign.pk}/topics/t1/consensus/?from=alice")
    assert judging.status_code == editor.status_code == 200
    own = spec.judge.context(campaign, topic, None) if spec.judge.context else {}
    for key in own:
        assert key in editor.context, f"the {name} consensus editor misses {key!r}"
    assert editor.context["campaign"].params == judging.context["campaign"].params
    assert editor.context["topic"].data == spec.data.assessor_view(topic.data)


def test_the_relevance_editor_has_the_grade_buttons_and_keys_of_the_campaign_scale(people):
    campaign, _ = _campaign(people, "relevance", scale=["no", "some", "very", "key"])
    body = _client(people["organiser"]).get(f"/campaigns/{campaign.pk}/topics/t1/consensus/?from=alice").content
    for grade, label in enumerate(["no", "some", "very", "key"]):
        assert f'data-grade="{grade}" aria-pressed="false"><kbd>{grade}</kbd> {label}</button>'.encode() in body
