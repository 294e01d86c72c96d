"""Graded relevance: topic data, payloads, params, runs and what an assessor sees."""

import copy

import pytest

from annotate.imports.write import import_topics
from annotate.models import Judgment, JudgmentRevision
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.registry import get_kind
from kinds.relevance.examples import TOPIC

SPEC = get_kind("relevance")
KIND = SPEC.data
DEFAULTS = SPEC.params.clean({})


def topic():
    return KIND.clean_topic_data(copy.deepcopy(TOPIC))


def test_topic_data_is_cleaned_and_kept():
    assert KIND.clean_topic_data(copy.deepcopy(TOPIC)) == TOPIC
    short = {"title": "q", "documents": [{"id": "d1", "text": "t"}]}
    assert KIND.clean_topic_data(short) == short


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"documents": [{"id": "d1", "text": "t"}]}, "data.title", "required"),
        ({"title": "q"}, "data.documents", "required"),
        ({"title": "q", "documents": []}, "data.documents", "at least 1"),
        ({"title": " ", "documents": [{"id": "d1", "text": "t"}]}, "data.title", "empty"),
        ({"title": "q", "description": 3, "documents": [{"id": "d1", "text": "t"}]}, "data.description", "string"),
        (
            {"title": "q", "documents": [{"id": "d1", "text": "a"}, {"id": "d1", "text": "b"}]},
            "data.documents[1].id",
            "duplicate",
        ),
        ({"title": "q", "documents": [{"id": "d 1", "text": "a"}]}, "data.documents[0].id", "white space"),
        ({"title": "q", "documents": [{"id": "d1", "text": "a", "runs": "bm25"}]}, "data.documents[0].runs", "list"),
        ({"title": "q", "documents": [{"id": "d1", "text": "a", "runs": ["a/b"]}]}, "data.documents[0].runs[0]", "'/'"),
        ({"title": "q", "documents": [{"id": "d1", "text": "a", "grade": 3}]}, "data.documents[0].grade", "unknown"),
        ({"title": "q", "query": "x", "documents": [{"id": "d1", "text": "a"}]}, "data.query", "unknown field"),
    ],
)
def test_bad_topic_data_names_the_field(data, field, message):
    with pytest.raises(InvalidInput, match=message) as error:
        KIND.clean_topic_data(data)
    assert error.value.field == field


def test_payload_is_put_in_topic_order_and_complete_when_every_document_is_graded():
    cleaned = KIND.clean_payload(
        {"grades": {"d4": 2, "d1": 3, "d3": 0, "d2": 1}}, topic(), complete=True, params=DEFAULTS
    )
    assert list(cleaned["grades"]) == ["d1", "d2", "d3", "d4"]
    assert KIND.progress(cleaned, topic()) == (4, 4)
    draft = KIND.clean_payload({"grades": {"d2": 0}}, topic(), complete=False, params=DEFAULTS)
    assert draft == {"grades": {"d2": 0}} and KIND.progress(draft, topic()) == (1, 4)
    with pytest.raises(InvalidInput, match=r"3 document\(s\) not graded: d1, d3, d4") as error:
        KIND.clean_payload({"grades": {"d2": 0}}, topic(), complete=True, params=DEFAULTS)
    assert error.value.field == "payload.grades"


@pytest.mark.parametrize(
    ("grades", "field", "message"),
    [
        ({"d1": 4}, "payload.grades.d1", "from 0 to 3"),
        ({"d1": -1}, "payload.grades.d1", "from 0 to 3"),
        ({"d1": True}, "payload.grades.d1", "got a boolean"),
        ({"d1": 1.0}, "payload.grades.d1", "whole number"),
        ({"d1": "2"}, "payload.grades.d1", "got a string"),
        ({"d9": 1}, "payload.grades.d9", "unknown document"),
    ],
)
def test_bad_grades_name_the_document(grades, field, message):
    with pytest.raises(InvalidInput, match=message) as error:
        KIND.clean_payload({"grades": grades}, topic(), complete=False, params=DEFAULTS)
    assert error.value.field == field


def test_grades_must_be_on_the_campaigns_scale():
    binary = SPEC.params.clean({"scale": ["no", "yes"]})
    assert KIND.clean_payload({"grades": {"d1": 1}}, topic(), complete=False, params=binary) == {"grades": {"d1": 1}}
    with pytest.raises(InvalidInput, match=r"from 0 to 1 \(0 no, 1 yes\), got 2") as error:
        KIND.clean_payload({"grades": {"d1": 2}}, topic(), complete=False, params=binary)
    assert error.value.field == "payload.grades.d1"


def test_params_default_to_trecs_scale_and_check_the_threshold_against_it():
    assert DEFAULTS["scale"] == ["non-relevant", "related", "relevant", "highly relevant"]
    assert DEFAULTS["threshold"] == 1 and DEFAULTS["design"] == "overlap"
    assert SPEC.params.clean({"threshold": 3})["threshold"] == 3
    for params, field in [
        ({"scale": ["no", "yes"], "threshold": 2}, "params.threshold"),
        ({"threshold": 4}, "params.threshold"),
        ({"threshold": 0}, "params.threshold"),
        ({"scale": ["only"]}, "params.scale"),
        ({"scale": ["a", "a"]}, "params.scale[1]"),
        ({"scale": [str(i) for i in range(11)]}, "params.scale"),
        ({"grades": 4}, "params.grades"),
    ]:
        with pytest.raises(InvalidInput) as error:
            SPEC.params.clean(params)
        assert error.value.field == field, params


def test_the_assessor_view_hides_the_runs_and_keeps_the_query():
    view = KIND.assessor_view(topic())
    assert [set(d) for d in view["documents"]] == [{"id", "text"}] * 4
    assert (view["title"], view["description"], view["narrative"]) == (
        TOPIC["title"],
        TOPIC["description"],
        TOPIC["narrative"],
    )
    assert "runs" not in str(view)


def test_documents_are_items_an_assignment_can_split():
    assert KIND.items(topic()) == ["d1", "d2", "d3", "d4"]
    assert [d["id"] for d in KIND.scoped(topic(), ["d3", "d1"])["documents"]] == ["d1", "d3"]
    assert [d["id"] for d in KIND.assessor_view(topic(), ["d2"])["documents"]] == ["d2"]
    scoped = {**DEFAULTS, "scope": ["d2", "d4"]}
    assert KIND.clean_payload({"grades": {"d2": 1, "d4": 0}}, topic(), complete=True, params=scoped) == {
        "grades": {"d2": 1, "d4": 0}
    }
    with pytest.raises(InvalidInput, match="not assigned to you") as error:
        KIND.clean_payload({"grades": {"d1": 1}}, topic(), complete=False, params=scoped)
    assert error.value.field == "payload.grades.d1"


def test_run_data_is_a_ranking_per_topic():
    topics = {"t1": topic()}
    run = {"ranking": {"t1": [["d1", 2.5], ["d9", 1]]}}
    assert KIND.clean_run_data(copy.deepcopy(run), topics, field="data") == run
    for data, field in [
        ({"results": {}}, "data.results"),
        ({"ranking": {}}, "data.ranking"),
        ({"ranking": {"t2": [["d1", 1]]}}, "data.ranking.t2"),
        ({"ranking": {"t1": []}}, "data.ranking.t1"),
        ({"ranking": {"t1": [["d1"]]}}, "data.ranking.t1[0]"),
        ({"ranking": {"t1": [["d 1", 1]]}}, "data.ranking.t1[0][0]"),
        ({"ranking": {"t1": [["d1", True]]}}, "data.ranking.t1[0][1]"),
        ({"ranking": {"t1": [["d1", float("inf")]]}}, "data.ranking.t1[0][1]"),
        ({"ranking": {"t1": [["d1", 2], ["d1", 1]]}}, "data.ranking.t1[1][0]"),
    ]:
        with pytest.raises(InvalidInput) as error:
            KIND.clean_run_data(data, topics, field="data")
        assert error.value.field == field, data


@pytest.mark.django_db
def test_a_bad_grade_over_the_api_is_a_400_naming_the_document_and_changes_nothing(people, api):
    campaign = create_campaign(creator=people["organiser"], kind="relevance", name="TREC", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "title": "reefs", "data": copy.deepcopy(TOPIC)}])
    url = f"/api/campaigns/{campaign.pk}/topics/t1/judgment/"
    client = api(people["alice"])
    saved = client.put(url, {"payload": {"grades": {"d1": 2}}, "status": "draft", "version": 0}, format="json")
    assert saved.status_code == 200, saved.content
    response = client.put(url, {"payload": {"grades": {"d1": 7}}, "status": "draft", "version": 1}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "payload.grades.d1"
    judgment = Judgment.objects.get(topic__campaign=campaign)
    assert (judgment.payload, judgment.version, JudgmentRevision.objects.filter(judgment=judgment).count()) == (
        {"grades": {"d1": 2}},
        1,
        1,
    )


def test_a_control_grade_is_read_by_number_or_label_and_stored_as_the_number():
    data = topic()
    first = data["documents"][0]["id"]
    assert KIND.takes_controls
    assert KIND.clean_control_answer("relevant", data, first, DEFAULTS, field="f") == 2
    assert KIND.clean_control_answer("3", data, first, DEFAULTS, field="f") == 3
    assert KIND.clean_control_answer(0, data, first, DEFAULTS, field="f") == 0
    for bad in (4, "4", True, "very", 1.5):
        with pytest.raises(InvalidInput, match="not a grade of the scale") as error:
            KIND.clean_control_answer(bad, data, first, DEFAULTS, field="controls.d")
        assert error.value.field == "controls.d"
    with pytest.raises(InvalidInput, match="no document 'nope'"):
        KIND.clean_control_answer(1, data, "nope", DEFAULTS, field="f")


def test_a_near_grade_earns_part_credit_on_the_scale():
    assert KIND.control_credit(3, 3, DEFAULTS) == 1.0
    assert KIND.control_credit(3, 2, DEFAULTS) == pytest.approx(2 / 3)
    assert KIND.control_credit(0, 3, DEFAULTS) == 0.0
    assert KIND.control_labels({"grades": {"d1": 2}}) == {"d1": 2}
