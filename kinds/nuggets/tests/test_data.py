import pytest

from concord.errors import InvalidInput
from kinds.registry import get_kind

KIND = get_kind("nuggets").data
TOPIC = KIND.clean_topic_data(
    {
        "target": "AARP",
        "nuggets": [
            {"id": "n1", "text": "Lobby for over-50s", "label": "vital"},
            {"id": "n2", "text": "38 million members"},
            {"id": "n3", "text": "Founded 1958", "label": "okay"},
        ],
        "responses": [{"id": "r1", "run": "sysA", "text": "AARP is a lobby."}, {"id": "r2", "run": "sysB", "text": ""}],
    }
)


def test_labels_and_matches_in_topic_order():
    payload = {"labels": {"n3": "okay", "n1": "vital", "n2": "okay"}, "matches": {"r2": [], "r1": ["n3", "n1"]}}
    assert KIND.clean_payload(payload, TOPIC, complete=True, params={"tasks": ["labels", "matches"]}) == {
        "labels": {"n1": "vital", "n2": "okay", "n3": "okay"},
        "matches": {"r1": ["n1", "n3"], "r2": []},
    }


@pytest.mark.parametrize(
    ("payload", "params", "field", "message"),
    [
        ({"labels": {"n1": "vital"}}, None, "payload.labels", "2 nugget(s) not labelled: n2, n3"),
        ({"labels": {"n9": "vital"}}, None, "payload.labels.n9", "unknown nugget id"),
        ({"labels": {"n1": "important"}}, None, "payload.labels.n1", "expected vital or okay"),
        ({"matches": {"r1": ["n1"]}}, {"tasks": ["matches"]}, "payload.matches", "1 response(s) not judged: r2"),
        ({"matches": {"r9": []}}, {"tasks": ["matches"]}, "payload.matches.r9", "unknown response id"),
        ({"matches": {"r1": ["n1", "n7"]}}, {"tasks": ["matches"]}, "payload.matches.r1", "unknown nugget id(s): n7"),
        ({"matches": {"r1": ["n1", "n1"]}}, {"tasks": ["matches"]}, "payload.matches.r1", "twice"),
        ({"labels": [], "matches": {}}, None, "payload.labels", "expected an object"),
    ],
)
def test_bad_payloads_name_the_field(payload, params, field, message):
    with pytest.raises(InvalidInput) as error:
        KIND.clean_payload(payload, TOPIC, complete=True, params=params)
    assert error.value.field == field and message in error.value.message


def test_labels_only_campaigns_do_not_need_matches():
    assert (
        KIND.clean_payload({"labels": {"n1": "vital", "n2": "okay", "n3": "okay"}}, TOPIC, complete=True)["matches"]
        == {}
    )


def test_run_data_takes_text_or_length_and_checks_matches():
    topics = {"q1": TOPIC}
    assert KIND.clean_run_data(
        {"responses": {"q1": {"text": "a b  c", "matches": ["n3", "n1"]}}}, topics, field="d"
    ) == {"responses": {"q1": {"length": 3, "matches": ["n1", "n3"]}}}
    with pytest.raises(InvalidInput, match="unknown nugget id"):
        KIND.clean_run_data({"responses": {"q1": {"length": 10, "matches": ["zz"]}}}, topics, field="d")
    with pytest.raises(InvalidInput, match="text, or its length"):
        KIND.clean_run_data({"responses": {"q1": {"length": -1}}}, topics, field="d")


@pytest.mark.django_db
def test_the_judging_page_of_a_question_without_responses_renders(client, people):
    """A labels-only question has no responses; the page's item labels (for the
    conflict box) once made its template fail with a 500."""
    from annotate.imports.write import import_topics
    from annotate.services.campaigns import create_campaign
    from annotate.services.members import add_member

    campaign = create_campaign(creator=people["organiser"], kind="nuggets", name="Labels", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    topic = {"target": "AARP", "nuggets": [{"id": "n1", "text": "founded 1958", "label": "vital"}]}
    import_topics(campaign=campaign, topics=[{"external_id": "q1", "data": topic}])
    client.force_login(people["alice"])
    page = client.get(f"/campaigns/{campaign.pk}/topics/q1/judge/")
    assert page.status_code == 200
    assert '<script id="item-labels" type="application/json">{"n1": "founded 1958"}</script>' in page.content.decode()


def test_a_control_is_a_nugget_whose_label_is_known():
    assert KIND.takes_controls
    assert KIND.clean_control_answer(" Vital", TOPIC, "n2", {}, field="controls.n2") == "vital"
    with pytest.raises(InvalidInput, match="neither vital nor okay") as error:
        KIND.clean_control_answer("maybe", TOPIC, "n2", {}, field="controls.n2")
    assert error.value.field == "controls.n2"
    with pytest.raises(InvalidInput, match="no nugget 'n9'"):
        KIND.clean_control_answer("okay", TOPIC, "n9", {}, field="controls.n9")
    payload = {"labels": {"n1": "vital", "n2": "okay"}, "matches": {"r1": ["n1"]}}
    assert KIND.control_labels(payload) == {"n1": "vital", "n2": "okay"}
    assert KIND.control_credit("vital", "okay", {}) == 0.0
