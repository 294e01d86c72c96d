"""A small topic of every kind, and a campaign of each organised by `organiser`
and assessed by alice and bob (fixtures `people`, `api` from the root conftest.py)."""

from __future__ import annotations

import pytest
from hostile_samples import TOPICS

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member


@pytest.fixture
def every_kind(people):
    """kind -> campaign with one topic ``t1`` assigned to alice and bob."""
    campaigns = {}
    for kind, data in TOPICS.items():
        campaign = create_campaign(creator=people["organiser"], kind=kind, name=f"{kind} campaign", overlap=2)
        for name in ("alice", "bob"):
            add_member(campaign=campaign, username=name, role="assessor")
        import_topics(campaign=campaign, topics=[{"external_id": "t1", "title": "Topic one", "data": data}])
        campaigns[kind] = campaign
    return campaigns


@pytest.fixture(autouse=True)
def fresh_cache():
    """Failed logins (the token endpoint) are counted in the cache: none outlive a test."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
