"""The organiser's controls page (/campaigns/<id>/controls/): mark items as controls, change and
remove them, read them back, set the rules; organisers only, CSRF, bad input 400 naming the field
with nothing changed."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotate.models import Assignment, Control
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from tests.annotate.test_controls import labels_campaign, topics

pytestmark = pytest.mark.django_db


def page(campaign):
    return f"/campaigns/{campaign.pk}/controls/"


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def known(campaign):
    return sorted(
        Control.objects.filter(topic__campaign=campaign).values_list(
            "topic__external_id", "item", "answer", "attention"
        )
    )


@pytest.fixture
def setup(people):
    from annotate.imports.write import import_topics

    campaign = labels_campaign(people)
    import_topics(campaign=campaign, topics=topics(6, 0))
    return campaign, client_of(people["organiser"])


def test_mark_change_remove_and_read_back(setup):
    campaign, client = setup
    response = client.post(
        page(campaign), {"action": "mark", "answers": "topic,item,answer\nt01,a,yes\nt02,b,no,yes\n"}
    )
    assert response.status_code == 303
    assert known(campaign) == [("t01", "a", "yes", False), ("t02", "b", "no", True)]
    listed = client.get(page(campaign)).content.decode()
    assert "t01" in listed and "attention check" in listed and "<code>yes</code>" in listed

    client.post(page(campaign), {"action": "mark", "answers": "t01,a,no"})  # changed
    assert known(campaign)[0] == ("t01", "a", "no", False)

    assert client.post(page(campaign), {"action": "remove", "topic": "t02", "item": "b"}).status_code == 303
    assert known(campaign) == [("t01", "a", "no", False)]
    client.post(page(campaign), {"action": "remove", "topic": "t01"})
    assert known(campaign) == []
    assert "No control topics yet" in client.get(page(campaign)).content.decode()


def test_an_upload_of_rows_marks_them(setup):
    campaign, client = setup
    upload = SimpleUploadedFile("controls.csv", "\ufefftopic,item,answer\nt03,b,yes\n".encode(), "text/csv")
    assert client.post(page(campaign), {"action": "mark", "file": upload}).status_code == 303
    assert known(campaign) == [("t03", "b", "yes", False)]


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ("t01,a,yes\nt02,a,maybe", "answers: line 2, answer.a", "not a label of the scale"),
        ("t01,a,yes\nt99,a,yes", "answers: line 2, topic", "no topic 't99'"),
        ("t01,z,yes", "answers: line 1, answer.z", "no item 'z'"),
        ("t01,a,yes,perhaps", "answers: line 1, attention", "expected yes"),
        ("t01,a", "answers: line 1", "expected topic, item, answer"),
        ("t01,a,yes\nt01,a,no", "answers: line 2, item", "earlier line"),
        ("", "answers", "no rows"),
    ],
)
def test_a_bad_row_is_refused_naming_its_line_and_column_and_nothing_changes(setup, rows, field, message):
    campaign, client = setup
    client.post(page(campaign), {"action": "mark", "answers": "t05,a,no"})
    response = client.post(page(campaign), {"action": "mark", "answers": rows})
    assert response.status_code == 400
    body = response.content.decode()
    assert f"Nothing changed: {field}: " in body.replace("&#x27;", "'") and message in body.replace("&#x27;", "'")
    assert known(campaign) == [("t05", "a", "no", False)]


def test_removing_what_is_not_there_is_refused(setup):
    campaign, client = setup
    response = client.post(page(campaign), {"action": "remove", "topic": "t01", "item": "a"})
    assert response.status_code == 400 and "has no known answer" in response.content.decode()
    assert client.post(page(campaign), {"action": "nonsense"}).status_code == 400


def test_the_rules_are_saved_and_control_topics_handed_out(setup, people):
    campaign, client = setup
    before = Assignment.objects.count()
    client.post(page(campaign), {"action": "mark", "answers": "t04,a,yes\nt05,a,yes"})
    assert Assignment.objects.count() == before  # no quiz, no rate yet: marking hands nothing out
    response = client.post(page(campaign), {"action": "rules", "params.quiz_controls": "2", "params.control_rate": ""})
    assert response.status_code == 303
    campaign.refresh_from_db()
    assert campaign.params["quiz_controls"] == 2 and campaign.params["categories"] == ["no", "yes"]
    for name in ("alice", "bob"):  # each held one of them as a regular topic, and gets the other
        held = Assignment.objects.filter(assessor=people[name], topic__controls__isnull=False).distinct()
        assert sorted(held.values_list("topic__external_id", flat=True)) == ["t04", "t05"]
    shown = client.get(page(campaign)).content.decode()
    assert 'name="params.quiz_controls" value="2"' in shown


def test_a_bad_rule_is_refused_naming_it(setup):
    campaign, client = setup
    before = dict(campaign.params)
    response = client.post(page(campaign), {"action": "rules", "params.control_rate": "0.9"})
    assert response.status_code == 400
    assert "Nothing changed: params.control_rate" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.params == before


def test_only_organisers_and_admins(setup, people):
    campaign, _ = setup
    assert client_of(people["admin"]).get(page(campaign)).status_code == 200
    assert client_of(people["alice"]).get(page(campaign)).status_code == 403
    assert (
        client_of(people["alice"]).post(page(campaign), {"action": "mark", "answers": "t01,a,yes"}).status_code == 403
    )
    assert client_of(people["outsider"]).get(page(campaign)).status_code == 404
    assert client_of(people["other_organiser"]).get(page(campaign)).status_code == 404
    assert known(campaign) == []


def test_a_post_without_the_csrf_token_is_refused(setup, people):
    campaign, _ = setup
    client = Client(enforce_csrf_checks=True)
    client.force_login(people["organiser"])
    assert client.post(page(campaign), {"action": "mark", "answers": "t01,a,yes"}).status_code == 403
    assert known(campaign) == []


def test_a_kind_without_known_answers_has_no_controls_page_nor_link(people):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=1)
    client = client_of(people["organiser"])
    assert client.get(page(campaign)).status_code == 404
    assert page(campaign) not in client.get(f"/campaigns/{campaign.pk}/members/").content.decode()


def test_the_section_bar_links_to_it(setup):
    campaign, client = setup
    add_member(campaign=campaign, username="carol", role="assessor")
    assert page(campaign) in client.get(f"/campaigns/{campaign.pk}/members/").content.decode()


def test_the_page_lists_a_bounded_number_of_known_answers(setup, monkeypatch):
    from annotate.services import controls as control_items

    campaign, client = setup
    client.post(page(campaign), {"action": "mark", "answers": "t01,a,yes\nt01,b,no\nt03,a,no"})
    monkeypatch.setattr(control_items, "LISTED_ANSWERS", 2)
    monkeypatch.setattr(control_items, "LISTED", 1)
    shown = client.get(page(campaign)).content.decode()
    assert shown.count('name="item"') == 2  # one remove form per answer listed
    assert "2 control topics, the first 1 listed" in shown
