import pytest

from concord.errors import InvalidInput
from kinds.clustering.data import rule_violations
from kinds.registry import get_kind

KIND = get_kind("clustering").data
TOPIC = KIND.clean_topic_data(
    {
        "documents": [{"id": "d1"}, {"id": "d2", "title": "Second"}],
        "sentences": [
            {"id": "a", "document": "d1", "position": 1, "text": "A"},
            {"id": "b", "document": "d1", "position": 2, "text": "B"},
            {"id": "c", "document": "d2", "position": 1, "text": "C"},
            {"id": "d", "document": "d2", "position": 2, "text": "D"},
            {"id": "e", "document": "d2", "position": 3, "text": "E"},
        ],
    }
)


def test_disjoint_clusters_of_known_sentences_with_descriptions():
    payload = {"clusters": [["a", "c"], ["b", "d"]], "descriptions": ["first", "second"]}
    assert KIND.clean_payload(payload, TOPIC, complete=True) == payload
    assert KIND.clean_payload({"clusters": [["a", "c"]]}, TOPIC, complete=True)["descriptions"] == [""]


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        ({"clusters": [["a", "zz", "yy"]]}, "payload.clusters[0]", "unknown sentence id(s): zz, yy"),
        ({"clusters": [["a", "c"], ["c", "d"]]}, "payload.clusters", "more than one cluster (or twice in one): c"),
        ({"clusters": [["a", "a"]]}, "payload.clusters", ": a"),
        ({"clusters": [[]]}, "payload.clusters[0]", "at least 1"),
        ({"clusters": [["a", 3]]}, "payload.clusters[0][1]", "sentence id"),
        (
            {"clusters": [["a", "c"]], "descriptions": ["x", "y"]},
            "payload.descriptions",
            "one description per cluster (1), got 2",
        ),
        ({"clusters": []}, "payload.clusters", "at least one cluster"),
    ],
)
def test_bad_clusterings_name_the_offending_ids(payload, field, message):
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload(payload, TOPIC, complete=True)
    assert error.value.field == field and message in error.value.message


def test_rules_three_and_four_warn_or_block():
    clusters = [["a", "b"], ["c"], ["d", "e", "a2"][:2]]
    problems = rule_violations(clusters, TOPIC)
    assert [(p["cluster"], p["rule"]) for p in problems] == [(0, 3), (1, 4), (2, 3)]
    assert (
        KIND.clean_payload({"clusters": clusters}, TOPIC, complete=True, params={"rules": "warn"})["clusters"]
        == clusters
    )
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload({"clusters": clusters}, TOPIC, complete=True, params={"rules": "block"})
    assert error.value.field == "payload.clusters[0]" and "rule 3" in error.value.message
    # Drafts are never blocked: a cluster grows one sentence at a time.
    assert KIND.clean_payload({"clusters": [["a"]]}, TOPIC, complete=False, params={"rules": "block"})


def test_topic_sentences_must_name_known_documents():
    with pytest.raises(InvalidInput) as error:
        KIND.clean_topic_data(
            {
                "documents": [{"id": "d1"}],
                "sentences": [
                    {"id": "a", "document": "d1", "position": 1, "text": "A"},
                    {"id": "b", "document": "d9", "position": 2, "text": "B"},
                ],
            }
        )
    assert error.value.field == "data.sentences[1].document"
