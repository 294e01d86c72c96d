"""Labels downloads through the export API: the gold standard CSV under every truth set
(consensus, median, single:<assessor>, the label models, adjudicated and its fallbacks),
Label Studio JSON and doccano's zip, each read back and checked against values computed by
hand; the truth sets a scale does not have are refused naming the field."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import numpy as np
import pytest

from annotate.imports.write import import_topics
from annotate.models import Curation
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.labels.interchange import read_doccano, read_labelstudio
from kinds.registry import get_kind
from stats import labelmodels as lm
from stats import truthinference as ti

pytestmark = pytest.mark.django_db

SCALE = ["low", "mid", "high"]
ITEMS = {"t1": ["a1", "a2", "a3"], "t2": ["b1", "b2"]}
#: assessor -> topic -> labels in ITEMS' order (None: "can't tell")
LABELS = {
    "alice": {"t1": ["low", "mid", "high"], "t2": ["low", None]},
    "bob": {"t1": ["low", "high", "high"], "t2": ["mid", None]},
    "carol": {"t1": ["high", None, "high"], "t2": ["high", "mid"]},
}
HEADER = ["topic", "item", "truth", "label", "n_low", "n_mid", "n_high", "source", "posterior", "adjudicated_by"]
#: each item's label counts, in the scale's order, by hand
COUNTS = {"a1": [2, 0, 1], "a2": [0, 1, 1], "a3": [0, 0, 3], "b1": [1, 1, 1], "b2": [0, 1, 0]}
TOPIC_OF = {item: topic for topic, items in ITEMS.items() for item in items}


def labels_campaign(people, params, labels=LABELS, name="Sentiment"):
    campaign = create_campaign(creator=people["organiser"], kind="labels", name=name, overlap=3, params=params)
    for person in labels:
        add_member(campaign=campaign, username=person, role="assessor")
    topics = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": t,
                "title": f"Batch {t}",
                "data": {"items": [{"id": i, "text": f"text of {i}"} for i in ids]},
            }
            for t, ids in ITEMS.items()
        ],
    )
    for topic in topics:
        for person, given in labels.items():
            payload = {"labels": dict(zip(ITEMS[topic.external_id], given[topic.external_id]))}
            save_judgment(topic=topic, assessor=people[person], payload=payload, status="submitted", version=0)
    return campaign


@pytest.fixture
def ordinal(people):
    return labels_campaign(people, {"level": "ordinal", "categories": SCALE, "cant_tell": True})


def export(api, people, campaign, format, truth="consensus"):
    return api(people["admin"]).get(f"/api/campaigns/{campaign.pk}/export/", {"format": format, "truth": truth})


def gold(api, people, campaign, truth) -> list[dict[str, str]]:
    response = export(api, people, campaign, "csv", truth)
    assert response.status_code == 200, response.content
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert all(row["truth"] == truth for row in rows)
    for row in rows:
        assert [int(row[f"n_{label}"]) for label in SCALE] == COUNTS[row["item"]]
        assert row["topic"] == TOPIC_OF[row["item"]]
    return rows


def labels_of(rows) -> dict[str, str]:
    return {row["item"]: row["label"] for row in rows}


def test_the_vote_truth_sets_by_hand(ordinal, api, people):
    response = export(api, people, ordinal, "csv")
    assert response["Content-Type"].startswith("text/csv")
    assert next(csv.reader(io.StringIO(response.content.decode())))[: len(HEADER)] == HEADER
    # the label given most; a2 (mid / high) and b1 (one each) are ties: no row
    consensus = gold(api, people, ordinal, "consensus")
    assert labels_of(consensus) == {"a1": "low", "a3": "high", "b2": "mid"}
    assert {row["source"] for row in consensus} == {"vote"} and {row["posterior"] for row in consensus} == {""}
    # the lower middle label: a2 mid (of mid, high), b1 mid (of low, mid, high); a1 low (low, low, high)
    assert labels_of(gold(api, people, ordinal, "median")) == {
        "a1": "low",
        "a2": "mid",
        "a3": "high",
        "b1": "mid",
        "b2": "mid",
    }
    # one assessor's labels; their "can't tell" is no row
    assert labels_of(gold(api, people, ordinal, "single:bob")) == {"a1": "low", "a2": "high", "a3": "high", "b1": "mid"}
    assert labels_of(gold(api, people, ordinal, "single:carol")) == {
        "a1": "high",
        "a3": "high",
        "b1": "high",
        "b2": "mid",
    }


@pytest.mark.parametrize("model", lm.MODELS)
def test_the_model_truth_sets_are_the_models_fitted_to_the_labels(ordinal, api, people, model):
    """Each item's most probable label under the model, fitted here to the dense items x
    assessors codes (the export reads them sparse), with its posterior."""
    rows = gold(api, people, ordinal, model)
    items = [item for ids in ITEMS.values() for item in ids]
    assessors = sorted(LABELS)
    codes = np.array(
        [
            [
                np.nan if (v := LABELS[a][TOPIC_OF[i]][ITEMS[TOPIC_OF[i]].index(i)]) is None else SCALE.index(v)
                for a in assessors
            ]
            for i in items
        ]
    )
    found = lm.model_truth(codes, model, 3)
    expected = {i: SCALE[int(found.labels[k])] for k, i in enumerate(items) if not np.isnan(found.labels[k])}
    assert labels_of(rows) == expected and len(rows) == 5
    for row in rows:
        k = items.index(row["item"])
        assert row["source"] == "model" and float(row["posterior"]) == pytest.approx(found.posterior[k], abs=1e-12)
    # the unanimous a3 is "high" under every model; b2, labelled once, is its one label
    assert (labels_of(rows)["a3"], labels_of(rows)["b2"]) == ("high", "mid")
    if model == "dawid-skene":
        item, worker, label = ti.from_matrix(codes)
        direct = ti.dawid_skene(item, worker, label, n_items=5, n_workers=3, n_classes=3)
        assert [SCALE[int(c)] for c in direct.labels] == [expected[i] for i in items]


def test_the_adjudicated_gold_and_its_fallbacks(ordinal, api, people):
    t1, t2 = ordinal.topics.get(external_id="t1"), ordinal.topics.get(external_id="t2")
    save_curation(topic=t1, name="consensus", data={"labels": {"a2": "mid"}}, version=0, user=people["organiser"])
    save_curation(topic=t2, name="consensus", data={"labels": {"b1": "high"}}, version=0, user=people["admin"])
    when = {c.topic.external_id: c.updated_at.isoformat() for c in Curation.objects.filter(topic__campaign=ordinal)}
    rows = {row["item"]: row for row in gold(api, people, ordinal, "adjudicated")}
    assert {i: (r["label"], r["source"], r["adjudicated_by"]) for i, r in rows.items()} == {
        "a1": ("low", "vote", ""),
        "a2": ("mid", "adjudicated", "organiser"),
        "a3": ("high", "vote", ""),
        "b1": ("high", "adjudicated", "admin"),
        "b2": ("mid", "vote", ""),
    }
    assert (rows["a2"]["adjudicated_at"], rows["b1"]["adjudicated_at"], rows["a1"]["adjudicated_at"]) == (
        when["t1"],
        when["t2"],
        "",
    )
    assert labels_of(gold(api, people, ordinal, "adjudicated:single:bob")) == {
        "a1": "low",
        "a2": "mid",
        "a3": "high",
        "b1": "high",
    }
    behind_a_model = {row["item"]: row for row in gold(api, people, ordinal, "adjudicated:dawid-skene")}
    assert behind_a_model["a2"]["source"] == "adjudicated" and behind_a_model["a2"]["posterior"] == ""
    assert behind_a_model["a3"]["source"] == "model" and float(behind_a_model["a3"]["posterior"]) > 0.5


@pytest.mark.parametrize(
    ("format", "truth", "field"),
    [
        ("csv", "median", "truth"),
        ("csv", "adjudicated:median", "truth"),
        ("csv", "single:zed", "truth"),
        ("csv", "adjudicated:adjudicated", "truth"),
        ("csv", "union", "truth"),
        ("qrels", "consensus", "format"),
    ],
)
def test_what_a_nominal_campaign_has_not_is_refused_naming_the_field(people, api, format, truth, field):
    """The median needs an ordered scale: on a nominal one a 400 naming ``truth`` says so."""
    nominal = labels_campaign(people, {"categories": SCALE, "cant_tell": True}, name="Unordered")
    response = export(api, people, nominal, format, truth)
    assert response.status_code == 400 and response.json()["field"] == field
    if truth == "median":
        assert "ordered scale" in response.json()["detail"]
    # the same campaign's consensus is the ordinal campaign's: the label given most
    assert labels_of(gold(api, people, nominal, "consensus")) == {"a1": "low", "a3": "high", "b2": "mid"}


def test_a_numeric_scale_writes_its_numbers_as_the_scale_spells_them(people, api):
    numbers = {
        "alice": {"t1": [1, 2.5, 3], "t2": [1.5, None]},
        "bob": {"t1": [1, 2.5, 2], "t2": [1.5, None]},
        "carol": {"t1": [2, None, 3], "t2": [1, 3.0]},
    }
    campaign = labels_campaign(
        people, {"level": "interval", "minimum": 1, "maximum": 3, "step": 0.5, "cant_tell": True}, numbers
    )
    response = export(api, people, campaign, "csv", "median")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0])[4:9] == ["n_1", "n_1.5", "n_2", "n_2.5", "n_3"]
    # medians: a1 (1, 1, 2) 1; a2 (2.5, 2.5) 2.5; a3 (2, 3, 3) 3; b1 (1, 1.5, 1.5) 1.5; b2 (3) 3
    assert labels_of(rows) == {"a1": "1", "a2": "2.5", "a3": "3", "b1": "1.5", "b2": "3"}
    assert [int(rows[0][f"n_{v}"]) for v in ("1", "1.5", "2", "2.5", "3")] == [2, 0, 1, 0, 0]


def test_the_kind_declares_these_formats():
    exports = get_kind("labels").exports
    assert set(exports.formats) == {"csv", "labelstudio", "doccano"}
    assert exports.truths(["alice"]) == ["consensus", "median", "single:alice", *lm.MODELS, lm.ADJUDICATED]


def expected_payloads() -> dict[tuple[str, str], dict]:
    return {
        (person, topic): {"labels": dict(zip(ITEMS[topic], given[topic]))}
        for person, given in LABELS.items()
        for topic in ITEMS
    }


def test_label_studio_json_holds_every_label_and_reads_back(ordinal, api, people):
    response = export(api, people, ordinal, "labelstudio")
    assert response.status_code == 200
    tasks = json.loads(response.content)
    assert [(t["data"]["topic"], t["data"]["item"], t["data"]["text"]) for t in tasks] == [
        (topic, item, f"text of {item}") for topic, items in ITEMS.items() for item in items
    ]
    a2 = tasks[1]
    chosen = {
        annotation["completed_by"]["email"]: [
            (result["from_name"], choice) for result in annotation["result"] for choice in result["value"]["choices"]
        ]
        for annotation in a2["annotations"]
    }
    assert chosen == {"alice": [("label", "mid")], "bob": [("label", "high")], "carol": [("label", "can't tell")]}
    read = read_labelstudio(response.content, params=ordinal.params)
    found = {(j["assessor"], j["topic"]): j["payload"] for j in read.judgments}
    assert found == expected_payloads()


def test_doccano_zip_holds_one_file_per_assessor_and_reads_back(ordinal, api, people):
    response = export(api, people, ordinal, "doccano")
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert sorted(archive.namelist()) == ["alice.jsonl", "bob.jsonl", "carol.jsonl"]
        carol = [json.loads(line) for line in archive.read("carol.jsonl").decode().splitlines()]
    assert [(e["topic"], e["item"], e["label"]) for e in carol] == [
        ("t1", "a1", ["high"]),
        ("t1", "a2", ["can't tell"]),
        ("t1", "a3", ["high"]),
        ("t2", "b1", ["high"]),
        ("t2", "b2", ["mid"]),
    ]
    read = read_doccano(response.content, params=ordinal.params)
    assert {(j["assessor"], j["topic"]): j["payload"] for j in read.judgments} == expected_payloads()


@pytest.mark.parametrize("truth", ["consensus", "median", *lm.MODELS, "adjudicated", "adjudicated:mace"])
def test_a_campaign_without_judgments_exports_a_header(people, api, truth):
    campaign = labels_campaign(people, {"level": "ordinal", "categories": SCALE}, labels={}, name="Empty")
    response = export(api, people, campaign, "csv", truth)
    assert response.status_code == 200
    assert response.content.decode().splitlines() == [",".join([*HEADER, "adjudicated_at"])]
    for format in ("labelstudio", "doccano"):
        assert export(api, people, campaign, format).status_code == 200
