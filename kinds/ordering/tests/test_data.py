import pytest

from concord.errors import InvalidInput
from kinds.registry import get_kind

KIND = get_kind("ordering").data
TOPIC = {"items": [{"id": i, "text": f"Item {i}"} for i in ("a", "b", "c", "d")]}


def test_a_permutation_is_accepted_for_drafts_and_submissions():
    for complete in (False, True):
        assert KIND.clean_payload({"order": ["d", "a", "c", "b"]}, TOPIC, complete=complete) == {
            "order": ["d", "a", "c", "b"]
        }


@pytest.mark.parametrize(
    ("order", "message"),
    [
        (["a", "b", "c"], "missing item id(s): d"),
        (["a", "b", "c", "c"], "duplicated item id(s): c; missing item id(s): d"),
        (["a", "b", "c", "d", "e"], "unknown item id(s): e"),
        (["a", "b", "c", "x"], "unknown item id(s): x; missing item id(s): d"),
    ],
)
def test_not_a_permutation_names_the_ids(order, message):
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload({"order": order}, TOPIC, complete=False)
    assert error.value.field == "payload.order" and error.value.message.startswith(message)


def test_wrong_types_name_the_position():
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload({"order": ["a", 2, "c", "d"]}, TOPIC, complete=True)
    assert error.value.field == "payload.order[1]"


def test_topics_need_two_items_with_unique_ids():
    with pytest.raises(InvalidInput, match="at least 2"):
        KIND.clean_topic_data({"items": [{"id": "a", "text": "A"}]})
    with pytest.raises(InvalidInput, match="duplicate id 'a'"):
        KIND.clean_topic_data({"items": [{"id": "a", "text": "A"}, {"id": "a", "text": "B"}]})


def test_starting_order_is_stable_per_assessor_and_differs_between_them():
    items = {"items": [{"id": f"s{i}", "text": "x"} for i in range(12)]}
    first = KIND.initial_payload(items, seed="7:3")["order"]
    assert KIND.initial_payload(items, seed="7:3")["order"] == first
    assert sorted(first) == sorted(i["id"] for i in items["items"])
    others = {tuple(KIND.initial_payload(items, seed=f"{user}:3")["order"]) for user in range(8)}
    assert len(others) == 8  # 12! orders: eight assessors never share a start


def test_run_data_is_checked_against_the_topics():
    topics = {"t1": TOPIC}
    assert KIND.clean_run_data({"orderings": {"t1": ["a", "b", "c", "d"]}}, topics, field="runs[0].data") == {
        "orderings": {"t1": ["a", "b", "c", "d"]}
    }
    with pytest.raises(InvalidInput) as error:
        KIND.clean_run_data({"orderings": {"t9": ["a"]}}, topics, field="runs[0].data")
    assert error.value.field == "runs[0].data.orderings.t9"
    with pytest.raises(InvalidInput, match="missing item id"):
        KIND.clean_run_data({"orderings": {"t1": ["a", "b"]}}, topics, field="runs[0].data")
