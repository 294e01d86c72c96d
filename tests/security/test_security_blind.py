"""Blind assessment, generated from the kinds registry and the URL configuration.

For every kind in kinds.registry.KINDS a campaign is built whose topic
carries a unique marker string (``HIDDEN-MARKER-...``) in every field the
kind declares hidden (``Kind.hidden_fields``), with runs, the other
assessor's judgment, a submitted and recomputed report (and for factoids a
consensus and Phase 2). Then the assessor alice requests EVERY URL of the
project (from concord.urls, as the permission matrix does) with GET, and
PUTs her judgment: no response may contain a marker. The organiser's topics
API must contain every marker, so the test cannot pass because markers were
never planted.

A new kind fails `test_every_kind_declares_what_it_hides` until it declares
``hidden_fields``, implements ``assessor_view`` and has a sample topic here.
"""

from __future__ import annotations

import copy
import re
from types import SimpleNamespace
from typing import Any

import pytest
from rest_framework.test import APIClient
from security_helpers import path_for, project_patterns

from annotate.imports.write import import_runs, import_topics
from annotate.models import Assignment, Control, Judgment, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.flags import create_flag
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.base import Kind
from kinds.factoids import services as factoid_services
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.models import Job

pytestmark = pytest.mark.django_db

MARKER = "HIDDEN-MARKER"


def payload(kind: str, who: str, items: list[str] | None = None) -> dict[str, Any]:
    """A complete payload of the kind's examples: alice's is the first; the
    other assessor's (and the consensus) is the second, with markers in the
    text an assessor types (``Examples.free_text``)."""
    examples = KINDS[kind].examples
    chosen = copy.deepcopy(dict(examples.payloads[0 if who == "alice" else 1]))
    if who != "alice":
        for path in examples.free_text:
            plant(chosen, path, f"{MARKER}-{kind}-judgment-of-{who}")
    if items is not None:  # one adjudicator per pair: only the pairs of this assessor
        chosen["matches"] = {c: v for c, v in chosen["matches"].items() if c in items}
    return chosen


# -- planting markers at the dotted paths a kind declares ------------------------------------


_PATH = re.compile(r"[a-z_]+(\[\])?(\.[a-z_]+(\[\])?)*")


def plant(data: Any, path: str, marker: str) -> list[str]:
    """Put a distinct marker at every place ``path`` ("nuggets[].label")
    names in ``data`` (a list value becomes a list of one marker); return the markers."""
    planted: list[str] = []

    def walk(node: Any, segments: list[str]) -> None:
        segment, rest = segments[0], segments[1:]
        key = segment.removesuffix("[]")
        if not isinstance(node, dict) or key not in node:
            return
        if segment.endswith("[]"):
            for index, element in enumerate(node[key]):
                if rest:
                    walk(element, rest)
                else:
                    planted.append(f"{marker}-{len(planted)}")
                    node[key][index] = planted[-1]
        elif rest:
            walk(node[key], rest)
        else:
            planted.append(f"{marker}-{len(planted)}")
            node[key] = [planted[-1]] if isinstance(node[key], list) else planted[-1]

    walk(data, path.split("."))
    return planted


# -- the world: one campaign per kind, plus the one-adjudicator-per-pair design -----------------


CASES = [(name, None) for name in KINDS] + [("pairs", "one-per-item")]


def build(people, kind: str, design: str | None) -> SimpleNamespace:
    params = {**KINDS[kind].examples.params, **({"design": design} if design else {})}
    campaign = create_campaign(creator=people["organiser"], kind=kind, name=f"Blind {kind}", overlap=2, params=params)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign,
        topics=[{"external_id": "t1", "title": "Topic one", "data": copy.deepcopy(dict(KINDS[kind].examples.topic))}],
    )
    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    items: dict[str, list[str] | None] = {"alice": None, "bob": None}
    if design == "one-per-item":  # a fixed split, so alice surely has some pairs and bob the others
        Assignment.objects.filter(topic=topic).delete()
        items = {"alice": ["c1", "c2"], "bob": ["c3", "c4"]}
        for name, chosen in items.items():
            Assignment.objects.create(topic=topic, assessor=people[name], items=chosen)
    # Markers go in after validation (some hidden fields are enums, e.g. a nugget's label).
    data = copy.deepcopy(topic.data)
    markers = []
    for path in KINDS[kind].data.hidden_fields:
        found = plant(data, path, f"{MARKER}-{kind}-{re.sub(r'[^a-z]+', '-', path)}")
        assert found, f"the {kind} kind's examples.topic has no {path}: add one so a marker can be planted there"
        markers += found
    Topic.objects.filter(pk=topic.pk).update(data=data)
    topic.refresh_from_db()
    if KINDS[kind].examples.run is not None:
        import_runs(
            campaign=campaign,
            runs=[{"name": f"{MARKER}-{kind}-run-name", "data": copy.deepcopy(dict(KINDS[kind].examples.run))}],
        )
    save_judgment(
        topic=topic, assessor=people["bob"], payload=payload(kind, "bob", items["bob"]), status="submitted", version=0
    )
    save_judgment(
        topic=topic, assessor=people["alice"], payload=payload(kind, "alice", items["alice"]), status="draft", version=0
    )
    if kind == "factoids":
        save_curation(
            topic=topic, name="consensus", data=payload(kind, "consensus"), version=0, user=people["organiser"]
        )
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    # bob's flag for the organisers: his own words, never shown to alice (the walk finds any marker).
    flag = create_flag(topic=topic, author=people["bob"], comment=f"{MARKER}-{kind}-bobs-flag")
    return SimpleNamespace(
        campaign=campaign, topic=topic, job=job, flag=flag, markers=markers, items=items["alice"], kind=kind
    )


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def leaks(response) -> list[str]:
    # A streamed file (a help image) is read whole: it is small, and a marker could hide in it too.
    content = b"".join(response.streaming_content) if response.streaming else response.content
    body = content.decode("utf-8", "replace")
    return sorted(set(re.findall(rf"{MARKER}[\w-]*", body)))


# -- the tests ------------------------------------------------------------------------------


def test_every_kind_declares_what_it_hides():
    for name, kind in ((name, spec.data) for name, spec in KINDS.items()):
        own = [c for c in type(kind).__mro__ if c is not Kind and "hidden_fields" in vars(c)]
        assert own, f"kind {name!r} declares no hidden_fields (use () if an assessor may see all of a topic)"
        hidden = kind.hidden_fields
        assert isinstance(hidden, tuple) and all(isinstance(p, str) and _PATH.fullmatch(p) for p in hidden), (
            name,
            hidden,
        )
        assert type(kind).assessor_view is not Kind.assessor_view, f"kind {name!r} does not define assessor_view()"


def test_a_kind_without_hidden_fields_is_refused():
    """The base class gives no default: forgetting the declaration is an error, not 'hide nothing'."""

    class Forgetful(Kind):
        name = "forgetful"

    with pytest.raises(AttributeError):
        Forgetful().hidden_fields  # noqa: B018 (the access itself must fail)
    with pytest.raises(NotImplementedError):
        Forgetful().assessor_view({}, None)


@pytest.mark.parametrize(("kind", "design"), CASES, ids=[f"{k}-{d}" if d else k for k, d in CASES])
def test_no_url_shows_an_assessor_a_hidden_field(people, kind, design):
    world = build(people, kind, design)
    alice = client_for(people["alice"])
    organiser = client_for(people["organiser"])

    # The organiser sees every marker: they were planted, and organisers see full data.
    topics_url = f"/api/campaigns/{world.campaign.pk}/topics/"
    shown = organiser.get(topics_url)
    assert shown.status_code == 200
    assert set(world.markers) <= set(leaks(shown)), (world.markers, leaks(shown))

    # The assessor's PUT (submitting the judgment) answers without a marker.
    url = f"/api/campaigns/{world.campaign.pk}/topics/t1/judgment/"
    answer = alice.put(
        url, {"payload": payload(kind, "alice", world.items), "status": "submitted", "version": 1}, format="json"
    )
    assert answer.status_code == 200, answer.content
    assert leaks(answer) == [], ("PUT", url, leaks(answer))
    assert Judgment.objects.get(topic=world.topic, assessor=people["alice"]).status == "submitted"
    if kind == "factoids":
        factoid_services.start_phase_two(campaign=world.campaign)  # the page now lists discrepancies with bob
        world.campaign.refresh_from_db()
    scoring_services.recompute_reports(world.campaign.pk, everything=True)

    walked = []
    for name, pattern in sorted(project_patterns().items()):
        url = path_for(name, pattern, world)
        response = alice.get(url)
        walked.append((name, response.status_code))
        assert leaks(response) == [], (name, url, response.status_code, leaks(response))
    statuses = dict(walked)
    # The walk really reached the assessor's pages and endpoints.
    for name in ("home", "campaign", "judge", "api-topics", "api-judgment", "api-judgments", "api-campaign"):
        assert statuses[name] == 200, (name, statuses[name])
    # bob's flag is there to be leaked: the organisers' inbox shows it.
    inbox = organiser.get(f"/campaigns/{world.campaign.pk}/?section=flags")
    assert f"{MARKER}-{kind}-bobs-flag" in leaks(inbox)
    # Assessors never reach the adjudication pages, where the others' judgments are shown by name.
    for name in ("adjudication", "adjudicate", "consensus-editor"):
        assert statuses[name] == 403, (name, statuses[name])


@pytest.mark.parametrize(("kind", "design"), CASES, ids=[f"{k}-{d}" if d else k for k, d in CASES])
def test_an_adjudicator_sees_judgments_by_name_and_nothing_hidden(people, make_user, kind, design):
    """docs/pages.md, "Adjudication": an adjudicator sees the assessors' judgments with their names
    on the adjudication pages, and nothing else: no hidden field of a topic, no run, no flag."""
    world = build(people, kind, design)
    alice_put = client_for(people["alice"]).put(
        f"/api/campaigns/{world.campaign.pk}/topics/t1/judgment/",
        {"payload": payload(kind, "alice", world.items), "status": "submitted", "version": 1},
        format="json",
    )
    assert alice_put.status_code == 200, alice_put.content
    scoring_services.recompute_reports(world.campaign.pk, everything=True)
    adjudicator = make_user("dana")
    add_member(campaign=world.campaign, username="dana", role="adjudicator")
    dana = client_for(adjudicator)
    statuses = {}
    for name, pattern in sorted(project_patterns().items()):
        url = path_for(name, pattern, world)
        response = dana.get(url)
        statuses[name] = response.status_code
        # What the assessors typed is theirs to show here; a hidden field, a run or a flag never is.
        shown = [m for m in leaks(response) if "-judgment-of-" not in m]
        assert shown == [], (name, url, response.status_code, shown)
    for name in ("campaign", "adjudication", "adjudicate", "consensus-editor", "api-campaign"):
        assert statuses[name] == 200, (name, statuses[name])
    for name in ("judge", "topic-report", "campaign-report", "api-topics", "api-judgments", "api-agreement"):
        assert statuses[name] == 403, (name, statuses[name])
    page = dana.get(f"/campaigns/{world.campaign.pk}/topics/t1/adjudicate/").content.decode()
    assert "Accept alice&#x27;s judgment" in page or "Accept alice's judgment" in page
    assert "Accept bob's judgment" in page or "Accept bob&#x27;s judgment" in page


def test_an_assessor_gets_only_their_own_part_of_a_topic(people, api):
    """One adjudicator per pair: the topics API scopes the data as the judging page does."""
    world = build(people, "pairs", "one-per-item")
    topics = api(people["alice"]).get(f"/api/campaigns/{world.campaign.pk}/topics/").json()
    assert [[c["id"] for c in t["data"]["candidates"]] for t in topics] == [["c1", "c2"]]
    assert topics[0]["data"]["candidates"][0] == {"id": "c1", "text": "Jon Smith"}
    full = api(people["organiser"]).get(f"/api/campaigns/{world.campaign.pk}/topics/").json()
    assert [c["id"] for c in full[0]["data"]["candidates"]] == ["c1", "c2", "c3", "c4"]


def test_organisers_see_consensus_in_the_agreement_api_and_only_admins_export(people, api):
    """docs/pages.md, Roles: organisers see everything of their campaigns (the agreement API
    shows what their page shows, consensus orderings included); exporting gold
    standards is for admins."""
    world = build(people, "ordering", None)
    alice_put = api(people["alice"]).put(
        f"/api/campaigns/{world.campaign.pk}/topics/t1/judgment/",
        {"payload": payload("ordering", "alice"), "status": "submitted", "version": 1},
        format="json",
    )
    assert alice_put.status_code == 200
    scoring_services.recompute_reports(world.campaign.pk, everything=True)
    agreement = api(people["organiser"]).get(f"/api/campaigns/{world.campaign.pk}/agreement/")
    assert agreement.status_code == 200
    assert agreement.json()["judgments_seen"] == 2
    topics = api(people["organiser"]).get(f"/api/campaigns/{world.campaign.pk}/agreement/topics/")
    assert topics.status_code == 200 and topics.json()["computed_at"] == agreement.json()["computed_at"]
    assert topics.json()["rows"][0]["topic"] == "t1" and topics.json()["rows"][0]["consensus"][0] in {"a", "b"}
    assert api(people["alice"]).get(f"/api/campaigns/{world.campaign.pk}/agreement/topics/").status_code == 403
    assert api(people["alice"]).get(f"/api/campaigns/{world.campaign.pk}/agreement/").status_code == 403
    organiser = client_for(people["organiser"])
    assert organiser.get(f"/api/campaigns/{world.campaign.pk}/export/", {"truth": "consensus"}).status_code == 403
    assert organiser.get(f"/campaigns/{world.campaign.pk}/export/download/", {"truth": "consensus"}).status_code == 403
    assert organiser.get(f"/campaigns/{world.campaign.pk}/export/").status_code == 403
    admin = client_for(people["admin"])
    assert (
        admin.get(f"/api/campaigns/{world.campaign.pk}/export/", {"format": "csv", "truth": "consensus"}).status_code
        == 200
    )


# -- control topics: indistinguishable from the others --------------------------------------

CONTROL_KINDS = sorted(name for name, spec in KINDS.items() if spec.data.takes_controls)


def control_world(people, kind: str, who: str, *, controlled: bool) -> SimpleNamespace:
    """A campaign of two topics with the same data, ``t1`` and ``t2``, both ``who``'s (its one
    assessor), under a quiz of one control and a rate of one in two; with ``controlled``, ``t1``
    is a control topic (a known answer and an attention check, each a marker), else nothing is.
    Either way ``t1`` comes first: the quiz's control, or the first by position. No rule pauses
    (a quiz that needs nothing, no accuracy threshold): a pause follows a control's submission,
    which is what pausing on controls is (docs/security.md), not what a page shows."""
    examples = KINDS[kind].examples
    params = {**examples.params, "quiz_controls": 1, "control_rate": 0.5, "quiz_minimum": 0.0, "pause_threshold": 0.0}
    campaign = create_campaign(creator=people["organiser"], kind=kind, name="Blind controls", overlap=1, params=params)
    add_member(campaign=campaign, username=who, role="assessor")
    data = copy.deepcopy(dict(examples.topic))
    import_topics(
        campaign=campaign,
        topics=[{"external_id": t, "title": "Topic", "data": copy.deepcopy(data)} for t in ("t1", "t2")],
    )
    topic = Topic.objects.get(campaign=campaign, external_id="t1")
    if controlled:
        kind_data = KINDS[kind].data
        cleaned = kind_data.clean_payload(
            copy.deepcopy(dict(examples.payloads[0])), topic.data, complete=False, params=campaign.params
        )
        first, second, *_ = [*kind_data.control_labels(cleaned), None]
        Control.objects.create(topic=topic, item=first, answer=f"{MARKER}-{kind}-known-answer")
        if second is not None:
            Control.objects.create(topic=topic, item=second, answer=f"{MARKER}-{kind}-attention", attention=True)
    job = Job.objects.create(campaign=campaign, analysis="agreement")
    flag = create_flag(topic=topic, author=people[who], comment="the same words")
    return SimpleNamespace(
        campaign=campaign, topic=topic, job=job, flag=flag, kind=kind, who=who, user_pk=people[who].pk
    )


_VOLATILE = [
    (re.compile(r'(name="csrfmiddlewaretoken" value=|"csrf_token": ?|csrf-token" content=)"[^"]*"'), r'\1"CSRF"'),
    (re.compile(r'nonce="[^"]*"'), 'nonce="NONCE"'),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?"), "TIME"),
]


def normalised(response, world) -> str:
    """A response's body with what differs between two campaigns of two assessors made one after
    the other put to one side: the campaign's and topics' ids, the assessor's name, CSRF tokens and
    nonces, times. What is left must be the same for a control topic as for any other."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    body = content.decode("utf-8", "replace")
    for pattern, replacement in _VOLATILE:
        body = pattern.sub(replacement, body)
    # Ids, by where they are: JSON keys naming an object, paths, the page's user id.
    body = re.sub(r'"(id|\w+_id|campaign|topic|assessor|user|author|job|flag)": ?\d+', r'"\1": ID', body)
    body = re.sub(r"(campaigns|jobs|flags|tokens)(/|%2F|%252F)\d+", r"\1\2ID", body)
    body = re.sub(r'(data-user-id=")\d+', r"\1ID", body)
    body = re.sub(r'(data-storage-key="concord:)\d+:(\w+):\d+', r"\1ID:\2:ID", body)
    body = re.sub(r'(concord-user-id" content=")\d+', r"\1ID", body)
    body = re.sub(rf"\bc{world.campaign.pk}-", "cID-", body)
    # The sides each preference pair is shown on are drawn per assessor (kinds.preference.data.sides).
    body = re.sub(r'(<script id="pref-shown" type="application/json">)[^<]*', r"\1SIDES", body)
    # (each key alone: PostgreSQL's jsonb returns a payload's keys sorted, "left", "pair", "right")
    body = re.sub(r'"(left|right)": ?\d+', r'"\1": SIDE', body)
    return body.replace(world.who, "ASSESSOR")


def seen_by_assessor(world, user) -> dict[str, tuple[int, str]]:
    """Every URL of the project as the assessor sees it (GET), then their PUT of a draft and a
    submission of the first topic, and Next: name -> (status, normalised body)."""
    client = client_for(user)
    seen = {}
    first = client.post(f"/api/campaigns/{world.campaign.pk}/next-topic/")
    seen["POST api-next-topic"] = (first.status_code, normalised(first, world))
    for name, pattern in sorted(project_patterns().items()):
        response = client.get(path_for(name, pattern, world))
        seen[name] = (response.status_code, normalised(response, world))
    payload = copy.deepcopy(dict(KINDS[world.kind].examples.payloads[0]))
    url = f"/api/campaigns/{world.campaign.pk}/topics/t1/judgment/"
    for status, version in (("draft", 0), ("submitted", 1)):
        response = client.put(url, {"payload": payload, "status": status, "version": version}, format="json")
        seen[f"PUT {status}"] = (response.status_code, normalised(response, world))
    for name in ("api-judgment", "api-judgments", "judge", "home", "campaign"):
        response = client.get(path_for(name, project_patterns()[name], world))
        seen[f"{name} after"] = (response.status_code, normalised(response, world))
    following = client.post(f"/api/campaigns/{world.campaign.pk}/next-topic/")
    seen["POST api-next-topic after"] = (following.status_code, normalised(following, world))
    return seen


@pytest.mark.parametrize("kind", CONTROL_KINDS)
def test_a_control_topic_looks_to_its_assessor_exactly_like_any_other(people, kind):
    """docs/security.md, "Blind assessment": alice's campaign, whose first topic is a control, and
    bob's, the same but with no control, look the same through every page and endpoint they reach
    (GET of every URL, Next, saving and submitting the topic), byte for byte once the ids, names,
    tokens and times are put aside; and no known answer reaches either."""
    control = control_world(people, kind, "alice", controlled=True)
    plain = control_world(people, kind, "bob", controlled=False)
    assert control.topic.controls.count() >= 1 and not plain.topic.controls.exists()
    with_control = seen_by_assessor(control, people["alice"])
    without = seen_by_assessor(plain, people["bob"])
    for name, (status, body) in with_control.items():
        assert MARKER not in body, (name, status)
        assert (status, body) == without[name], (name, status, without[name][0])
    # The walk reached the assessor's pages, with the control served first ...
    for name in (
        "home",
        "campaign",
        "judge",
        "api-topics",
        "api-judgment",
        "api-judgments",
        "api-next-topic",
        "PUT submitted",
    ):
        status = with_control.get(f"POST {name}", with_control.get(name))[0]
        assert status == 200, (name, status)
    assert '"t1"' in with_control["POST api-next-topic"][1]
    assert '"t2"' in with_control["POST api-next-topic after"][1]
    # The rules would tell which topics are controls (the quiz's length, the rate): not shown to them.
    for name in ("api-campaign", "api-campaigns"):
        assert "quiz_controls" not in with_control[name][1] and "control_rate" not in with_control[name][1], name
    # ... and not the organisers': reports, agreement, exports, the controls page.
    for name in (
        "campaign-report",
        "api-agreement",
        "api-agreement-headline",
        "api-export",
        "campaign-export",
        "campaign-controls",
    ):
        assert with_control[name][0] in (403, 404), (name, with_control[name][0])
    # The organiser does see the known answers (the markers were planted).
    organiser = client_for(people["organiser"])
    assert (
        f"{MARKER}-{kind}-known-answer" in organiser.get(f"/campaigns/{control.campaign.pk}/controls/").content.decode()
    )
