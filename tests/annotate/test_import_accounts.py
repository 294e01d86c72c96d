"""Imports never write under an account they did not create.

Imported crowd workers are accounts of their own (no usable password,
inactive, marked ``imported`` on their membership). A worker name that is an
existing account is refused with its line unless the import asks to map
existing members (``map_members`` / ``--map-members``), and then only
assessors of this campaign may be mapped. Worker names are validated as
usernames are. Every refusal writes nothing.
"""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from annotate.imports import backup, read
from annotate.imports.write import import_crowd_file, import_topics
from annotate.models import Assignment, Campaign, Judgment, JudgmentRevision, Membership, Run, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db

User = get_user_model()
MODELS = [User, Campaign, Membership, Topic, Assignment, Judgment, JudgmentRevision, Run]


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in MODELS}


@pytest.fixture
def unchanged():
    before = counts()
    yield
    assert counts() == before


def rows(*workers: str, topic: str = "q1") -> str:
    """One complete judgment of ``topic`` (four candidates) per worker."""
    return "worker,topic,candidate,label\n" + "".join(
        f"{w},{topic},c{c},{c % 2}\n" for w in workers for c in (1, 2, 3, 4)
    )


def upload(api, user, campaign, text: str, name: str = "crowd.csv", **fields):
    handle = io.BytesIO(text.encode())
    handle.name = name
    return api(user).post(
        f"/api/campaigns/{campaign.pk}/judgments/import/", {"file": handle, **fields}, format="multipart"
    )


def command(campaign, tmp_path, text: str, *options: str, name: str = "crowd.csv") -> str:
    path = tmp_path / name
    path.write_text(text)
    out = io.StringIO()
    call_command("import_judgments", str(campaign.pk), str(path), *options, stdout=out, stderr=io.StringIO())
    return out.getvalue()


# -- the reported attack: names of existing accounts ---------------------------------------


def test_an_outsiders_account_is_refused_with_its_line(api, people, campaign, unchanged):
    """carol is an account of another campaign: she must not become an assessor here."""
    response = upload(api, people["organiser"], campaign, rows("w1", "carol"))
    assert response.status_code == 400
    assert response.json()["field"] == "line 6"
    assert "'carol' is an existing account" in response.json()["detail"]
    assert "map_members" in response.json()["detail"]
    assert not Membership.objects.filter(campaign=campaign, user=people["carol"]).exists()
    listed = api(people["carol"]).get("/api/campaigns/").json()
    assert campaign.pk not in [c["id"] for c in listed]


def test_the_organisers_own_account_is_refused_even_when_mapping(api, people, campaign, unchanged):
    for fields in ({}, {"map_members": "true"}):
        response = upload(api, people["organiser"], campaign, rows("organiser"), **fields)
        assert response.status_code == 400, fields
        assert response.json()["field"] == "line 2"
        assert "organiser" in response.json()["detail"]
    assert Membership.objects.get(campaign=campaign, user=people["organiser"]).role == "organiser"


def test_an_assessor_of_the_campaign_needs_map_members(api, people, campaign, unchanged):
    response = upload(api, people["organiser"], campaign, rows("alice"))
    assert response.status_code == 400 and response.json()["field"] == "line 2"
    assert "map_members=true" in response.json()["detail"]


def test_map_members_never_maps_an_account_outside_the_campaign(api, people, campaign, unchanged):
    response = upload(api, people["organiser"], campaign, rows("alice", "carol"), map_members="true")
    assert response.status_code == 400 and response.json()["field"] == "line 6"
    assert "not an assessor of this campaign" in response.json()["detail"]


def test_map_members_attributes_judgments_to_assessors_of_the_campaign(api, people, campaign):
    before = User.objects.count()
    response = upload(api, people["organiser"], campaign, rows("alice", "w1"), map_members="true")
    assert response.status_code == 201, response.json()
    assert response.json() == {"assessors_created": 1, "judgments": 2, "topics": 1}
    assert User.objects.count() == before + 1
    judgment = Judgment.objects.get(topic__campaign=campaign, assessor=people["alice"])
    assert judgment.status == "submitted" and judgment.revisions.get().source == "import"
    alice = Membership.objects.get(campaign=campaign, user=people["alice"])
    assert (alice.role, alice.imported) == ("assessor", False)
    assert Membership.objects.get(campaign=campaign, user__username="w1").imported is True


@pytest.mark.parametrize("value", ["yes please", "2", ""])
def test_map_members_takes_true_or_false_only(api, people, campaign, unchanged, value):
    response = upload(api, people["organiser"], campaign, rows("w1"), map_members=value)
    assert response.status_code == 400 and response.json()["field"] == "map_members"


def test_the_command_refuses_and_maps_with_the_flag(people, campaign, tmp_path):
    before = counts()
    with pytest.raises(CommandError, match=r"line 2: worker 'bob' is an existing account.*--map-members"):
        command(campaign, tmp_path, rows("bob"))
    assert counts() == before
    output = command(campaign, tmp_path, rows("bob"), "--map-members")
    assert "0 new assessors" in output
    assert Judgment.objects.get(topic__campaign=campaign, assessor=people["bob"]).status == "submitted"


def test_json_judgments_name_the_entry(people, campaign, tmp_path, unchanged):
    entries = [
        {"assessor": "w1", "topic": "q1", "payload": {"matches": {f"c{c}": True for c in range(1, 5)}}},
        {"assessor": "carol", "topic": "q2", "payload": {"matches": {f"c{c}": True for c in range(1, 5)}}},
    ]
    with pytest.raises(CommandError, match=r"judgments\[1\]\.assessor: worker 'carol' is an existing account"):
        command(campaign, tmp_path, json.dumps(entries), name="judgments.json")


def test_an_imported_worker_of_another_campaign_is_an_existing_account(people, campaign, tmp_path):
    other = create_campaign(creator=people["organiser"], kind="pairs", name="Other", overlap=1)
    import_topics(
        campaign=other,
        topics=[
            {
                "external_id": "q1",
                "data": {"query": "Q", "candidates": [{"id": f"c{c}", "text": f"C{c}"} for c in range(1, 5)]},
            }
        ],
    )
    command(other, tmp_path, rows("w1"))
    before = counts()
    with pytest.raises(CommandError, match=r"line 2: worker 'w1' is an existing account"):
        command(campaign, tmp_path, rows("w1"))
    assert counts() == before


# -- re-importing into the same campaign keeps working ---------------------------------------


def test_workers_of_an_earlier_import_of_this_campaign_are_reused(api, people, campaign):
    assert upload(api, people["organiser"], campaign, rows("w1", "w2")).json()["assessors_created"] == 2
    response = upload(api, people["organiser"], campaign, rows("w1", "w3", topic="q2"))
    assert response.status_code == 201, response.json()
    assert response.json() == {"assessors_created": 1, "judgments": 2, "topics": 1}
    assert Judgment.objects.filter(topic__campaign=campaign, assessor__username="w1").count() == 2


# -- worker names are validated as usernames are ---------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "x" * 300,
        "x" * 151,
        "two words",
        "bell\x07ring",
        "<b>bold</b>",
        '=HYPERLINK("http://example.invalid")',
        "ａｌｉｃｅ",  # NFKC: alice
        "Carol",  # differs from the account carol only in case
    ],
    ids=["300-chars", "151-chars", "space", "control", "markup", "formula", "fullwidth", "case"],
)
def test_bad_worker_names_are_refused_with_their_line(api, people, campaign, unchanged, name):
    text = rows("w1") + "".join(f'"{name}",q1,c{c},1\n' for c in (1, 2, 3, 4))
    response = upload(api, people["organiser"], campaign, text)
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "line 6"
    assert not User.objects.filter(username=name).exists()


def test_a_150_character_name_is_accepted(api, people, campaign):
    response = upload(api, people["organiser"], campaign, rows("x" * 150))
    assert response.status_code == 201, response.json()


# -- what an imported worker is ---------------------------------------------------------------


def test_imported_workers_are_marked_on_the_members_api_and_cannot_log_in(api, people, campaign):
    assert upload(api, people["organiser"], campaign, rows("w1")).status_code == 201
    members = {m["username"]: m for m in api(people["organiser"]).get(f"/api/campaigns/{campaign.pk}/members/").json()}
    assert members["w1"] == {
        "username": "w1",
        "role": "assessor",
        "imported": True,
        "model_judge": False,
        "account": "imported",
    }
    assert members["alice"]["imported"] is False
    worker = User.objects.get(username="w1")
    assert not worker.has_usable_password() and not worker.is_active
    # Even if someone gives the account a password, it cannot log in.
    worker.set_password("a-password-123")
    worker.save()
    page = Client()
    response = page.post("/accounts/login/", {"username": "w1", "password": "a-password-123"})
    assert response.status_code == 200 and "_auth_user_id" not in page.session  # the form again, not signed in
    assert Client().post("/api/auth/token/", {"username": "w1", "password": "a-password-123"}).status_code == 400


def test_imported_workers_get_no_new_topics(api, people, campaign):
    """They never log in: topics added later go to the assessors who do."""
    assert upload(api, people["organiser"], campaign, rows("w1", "w2", "w3")).status_code == 201
    (topic,) = import_topics(
        campaign=campaign,
        topics=[{"external_id": "q9", "data": {"query": "Q", "candidates": [{"id": "c1", "text": "C"}]}}],
    )
    assert sorted(topic.assignments.values_list("assessor__username", flat=True)) == ["alice", "bob"]


def test_the_import_summary_through_the_service(people, campaign):
    crowd = read.read_crowd_csv(rows("w1"))
    with pytest.raises(InvalidInput) as error:
        import_crowd_file(
            campaign=campaign, topics=crowd.topics, labels=read.read_crowd_csv(rows("bob")).labels, reference={}
        )
    assert error.value.field == "line 2"
    summary = import_crowd_file(campaign=campaign, topics=crowd.topics, labels=crowd.labels, reference={})
    assert summary.assessors_created == 1


# -- backups keep the mark, and restore only valid names -------------------------------------------


def test_a_backup_keeps_the_imported_mark(api, people, campaign):
    assert upload(api, people["organiser"], campaign, rows("w1")).status_code == 201
    document = backup.dump_campaign(campaign)
    assert {"username": "w1", "role": "assessor", "imported": True, "model_judge": False} in document["members"]
    Campaign.objects.filter(pk=campaign.pk).delete()
    User.objects.filter(username="w1").delete()
    restored = backup.load_campaign(json.loads(json.dumps(document)))
    membership = Membership.objects.get(campaign=restored, user__username="w1")
    assert membership.imported is True
    assert not membership.user.is_active and not membership.user.has_usable_password()
    assert Membership.objects.get(campaign=restored, user__username="alice").imported is False


@pytest.mark.parametrize("name", ["two words", "<b>x</b>", "x" * 151])
def test_a_backup_with_a_bad_username_restores_nothing(people, campaign, unchanged, name):
    document = backup.dump_campaign(campaign)
    document["members"].append({"username": name, "role": "assessor"})
    with pytest.raises(InvalidInput) as error:
        backup.load_campaign(json.loads(json.dumps(document)))
    assert error.value.field == f"file.members[{len(document['members']) - 1}].username"


def test_a_backup_never_turns_a_login_account_into_an_imported_worker(people, campaign, unchanged):
    document = backup.dump_campaign(campaign)
    document["members"] = [m for m in document["members"] if m["username"] != "alice"]
    document["members"].append({"username": "carol", "role": "assessor", "imported": True})
    with pytest.raises(InvalidInput) as error:
        backup.load_campaign(json.loads(json.dumps(document)))
    assert error.value.field == f"file.members[{len(document['members']) - 1}].username"


def test_the_migration_marks_the_workers_earlier_imports_created(people, campaign):
    """Existing data: workers of earlier imports (no usable password, only imported
    revisions) are marked, so importing into their campaign again keeps working."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("annotate.migrations.0004_membership_imported")
    crowd = read.read_crowd_csv(rows("w1"))
    import_crowd_file(campaign=campaign, topics=[], labels=crowd.labels, reference={})
    save_judgment(
        topic=campaign.topics.get(external_id="q1"),
        assessor=people["alice"],
        payload={"matches": {f"c{c}": True for c in range(1, 5)}},
        status="submitted",
        version=0,
        source="import",
    )
    Membership.objects.filter(campaign=campaign).update(imported=False)
    migration.mark_imported_workers(apps, None)
    assert set(
        Membership.objects.filter(campaign=campaign, imported=True).values_list("user__username", flat=True)
    ) == {"w1"}
