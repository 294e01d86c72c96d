import pytest

from concord.errors import InvalidInput
from kinds.registry import get_kind

KIND = get_kind("pairs").data
TOPIC = {
    "query": "Mohamed Hammadi",
    "candidates": [{"id": "c1", "text": "Muhammad Hamadi"}, {"id": "c2", "text": "Olga Petrova"}],
}


def test_topic_data_is_cleaned_and_kept():
    assert KIND.clean_topic_data(TOPIC) == TOPIC


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"query": "x"}, "data.candidates", "required"),
        ({"query": "", "candidates": [{"id": "c1", "text": "t"}]}, "data.query", "empty"),
        ({"query": "x", "candidates": []}, "data.candidates", "at least 1"),
        (
            {"query": "x", "candidates": [{"id": "c1", "text": "a"}, {"id": "c1", "text": "b"}]},
            "data.candidates[1].id",
            "duplicate",
        ),
        ({"query": "x", "candidates": [{"id": "has space", "text": "a"}]}, "data.candidates[0].id", "white space"),
        ({"query": "x", "candidates": [{"id": "c1", "text": 5}]}, "data.candidates[0].text", "string"),
        ({"query": "x", "candidates": [], "extra": 1}, "data.extra", "unknown field"),
    ],
)
def test_bad_topic_data_names_the_field(data, field, message):
    with pytest.raises(InvalidInput, match=message) as error:
        KIND.clean_topic_data(data)
    assert error.value.field == field


def test_payload_is_put_in_topic_order():
    cleaned = KIND.clean_payload({"matches": {"c2": False, "c1": True}}, TOPIC, complete=True)
    assert list(cleaned["matches"]) == ["c1", "c2"]


def test_draft_may_be_partial_but_submission_may_not():
    assert KIND.clean_payload({"matches": {"c1": True}}, TOPIC, complete=False) == {"matches": {"c1": True}}
    with pytest.raises(InvalidInput, match="1 candidate\\(s\\) not judged: c2") as error:
        KIND.clean_payload({"matches": {"c1": True}}, TOPIC, complete=True)
    assert error.value.field == "payload.matches"


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"matches": {"c9": True}}, "payload.matches.c9"),
        ({"matches": {"c1": 1}}, "payload.matches.c1"),
        ({"matches": {"c1": "yes"}}, "payload.matches.c1"),
        ({"matches": ["c1"]}, "payload.matches"),
        ({}, "payload.matches"),
        ({"matches": {}, "assessor": "bob"}, "payload.assessor"),
        ([], "payload"),
    ],
)
def test_bad_payload_names_the_field(payload, field):
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload(payload, TOPIC, complete=False)
    assert error.value.field == field


def test_progress_counts_judged_candidates():
    assert KIND.progress({"matches": {"c1": False}}, TOPIC) == (1, 2)
