"""The Django admin keeps the revision history: it neither writes judgments
nor deletes anything that has history under it, and no add form answers 500.

Logged in as a superuser (the `admin` of conftest.py) against the admin
URLs, with the factoids campaign of tests/security/conftest.py (bob's
submitted annotation of `kuwait`, with its revision)."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from security_helpers import FACTOIDS_PAYLOAD

from annotate.models import Campaign, Curation, CurationRevision, Judgment, JudgmentRevision, Topic
from annotate.services.curations import save_curation

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(people) -> Client:
    client = Client()
    client.force_login(people["admin"])
    return client


@pytest.fixture
def curated(world, people):
    """The organiser's consensus on `kuwait`: a curation with a revision."""
    save_curation(topic=world.topic, name="consensus", data=FACTOIDS_PAYLOAD, version=0, user=people["organiser"])
    return world


def history() -> tuple[int, int, int, int, int]:
    return (
        Campaign.objects.count(),
        Topic.objects.count(),
        Judgment.objects.count(),
        JudgmentRevision.objects.count(),
        CurationRevision.objects.count(),
    )


def url(obj, view: str) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_{view}", args=[obj.pk])


# -- add forms -------------------------------------------------------------------


def test_an_empty_add_judgment_form_is_refused_not_a_500(superuser, world):
    before = history()
    assert superuser.get(reverse("admin:annotate_judgment_add")).status_code == 403
    response = superuser.post(reverse("admin:annotate_judgment_add"), {})
    assert response.status_code == 403
    assert history() == before


class _HiddenInputs(HTMLParser):
    """The hidden inputs of a page: the inline formsets' management forms."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "hidden" and attrs.get("name") != "csrfmiddlewaretoken":
            self.values[attrs["name"]] = attrs.get("value") or ""


def empty_form(client: Client, add: str) -> dict[str, str]:
    """What the browser sends when "Save" is pressed on an untouched add page."""
    page = client.get(add)
    if page.status_code != 200:
        return {}
    parser = _HiddenInputs()
    parser.feed(page.content.decode())
    return parser.values


def test_the_empty_add_judgment_form_the_browser_sends_is_refused(superuser, world):
    add = reverse("admin:annotate_judgment_add")
    before = history()
    response = superuser.post(
        add, empty_form(superuser, add) or {"revisions-TOTAL_FORMS": "0", "revisions-INITIAL_FORMS": "0"}
    )
    assert response.status_code == 403
    assert history() == before


@pytest.mark.parametrize(
    "model", sorted(admin.site._registry, key=lambda m: m._meta.label), ids=lambda m: m._meta.label
)
def test_no_empty_add_form_of_any_admin_answers_500(superuser, world, model):
    add = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
    rows = model.objects.count()
    response = superuser.post(add, empty_form(superuser, add))
    # 200: the form again with its errors; 403: this admin adds nothing.
    assert response.status_code in (200, 403), (model._meta.label, response.status_code)
    assert model.objects.count() == rows


def test_a_judgment_cannot_be_edited_in_the_admin(superuser, world):
    judgment = Judgment.objects.get()
    before = (judgment.payload, judgment.status, judgment.version)
    response = superuser.post(url(judgment, "change"), {"status": "draft", "payload": "{}"})
    assert response.status_code == 403
    judgment.refresh_from_db()
    assert (judgment.payload, judgment.status, judgment.version) == before
    page = superuser.get(url(judgment, "change"))
    assert page.status_code == 200  # viewing it (and its revisions) is fine
    assert 'name="_save"' not in page.content.decode()


def test_revisions_cannot_be_changed_or_deleted(superuser, world):
    revision = JudgmentRevision.objects.get()
    assert superuser.post(url(revision, "change"), {"status": "draft", "payload": "{}"}).status_code == 403
    assert superuser.post(url(revision, "delete"), {"post": "yes"}).status_code == 403
    revision.refresh_from_db()
    assert revision.status == "submitted" and JudgmentRevision.objects.count() == 1


def test_no_revision_model_is_writable_in_the_admin(people):
    """Judgment revisions are view-only; curation revisions are not in the admin at all."""
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = people["admin"]
    assert CurationRevision not in admin.site._registry and Curation not in admin.site._registry
    revisions = admin.site._registry[JudgmentRevision]
    assert not (
        revisions.has_add_permission(request)
        or revisions.has_change_permission(request)
        or revisions.has_delete_permission(request)
    )
    (inline,) = admin.site._registry[Judgment].get_inline_instances(request)
    assert not (
        inline.has_add_permission(request, None)
        or inline.has_change_permission(request)
        or inline.has_delete_permission(request)
    )


# -- deleting --------------------------------------------------------------------


def test_deleting_a_judgment_with_revisions_is_refused(superuser, world):
    judgment = Judgment.objects.get()
    before = history()
    response = superuser.post(url(judgment, "delete"), {"post": "yes"})
    assert response.status_code in (200, 403)
    assert history() == before


def test_deleting_a_topic_with_judgments_is_refused(superuser, world):
    before = history()
    page = superuser.get(url(world.topic, "delete"))
    assert page.status_code == 200 and "revision history" in page.content.decode()
    response = superuser.post(url(world.topic, "delete"), {"post": "yes"})
    assert response.status_code == 200  # the refusal again, nothing deleted
    assert history() == before


def test_deleting_a_topic_with_curation_revisions_is_refused(superuser, curated):
    Judgment.objects.all().delete()  # test setup: leave the topic with its curation alone
    before = history()
    assert before[4] == 1
    superuser.post(url(curated.topic, "delete"), {"post": "yes"})
    assert history() == before and Curation.objects.count() == 1


def test_deleting_a_campaign_with_judgments_asks_for_a_backup(superuser, world):
    before = history()
    page = superuser.get(url(world.campaign, "delete"))
    text = page.content.decode()
    assert page.status_code == 200
    assert f"manage.py export_campaign {world.campaign.pk} " in text
    response = superuser.post(url(world.campaign, "delete"), {"post": "yes"})
    assert response.status_code == 200
    assert f"manage.py export_campaign {world.campaign.pk} " in response.content.decode()
    assert history() == before


def test_the_delete_action_refuses_the_same(superuser, world):
    before = history()
    for model, objs in (
        (Campaign, [world.campaign, world.other]),
        (Topic, [world.topic]),
        (Judgment, list(Judgment.objects.all())),
    ):
        changelist = reverse(f"admin:annotate_{model._meta.model_name}_changelist")
        response = superuser.post(
            changelist, {"action": "delete_selected", "post": "yes", "_selected_action": [o.pk for o in objs]}
        )
        assert response.status_code in (200, 403), model
    assert history() == before


def test_what_has_no_history_can_still_be_deleted(superuser, world):
    """The refusal is about history, not a blanket ban (a campaign and topic nobody judged)."""
    (topic,) = world.other.topics.all()
    response = superuser.post(url(topic, "delete"), {"post": "yes"})
    assert response.status_code == 302 and not Topic.objects.filter(pk=topic.pk).exists()
    response = superuser.post(url(world.other, "delete"), {"post": "yes"})
    assert response.status_code == 302 and not Campaign.objects.filter(pk=world.other.pk).exists()


def test_deleting_an_assessor_with_judgments_is_refused(superuser, world, people):
    before = history()
    superuser.post(url(people["bob"], "delete"), {"post": "yes"})
    assert get_user_model().objects.filter(username="bob").exists()
    assert history() == before


def test_the_command_the_refusal_names_backs_up_then_deletes(world, tmp_path):
    from django.core.management import call_command

    from annotate.imports.backup import load_campaign

    backup = tmp_path / "kuwait.json"
    revisions = JudgmentRevision.objects.filter(judgment__topic__campaign=world.campaign).count()
    call_command("export_campaign", world.campaign.pk, backup, delete=True)
    assert not Campaign.objects.filter(pk=world.campaign.pk).exists()
    import json

    restored = load_campaign(json.loads(backup.read_text()))
    assert JudgmentRevision.objects.filter(judgment__topic__campaign=restored).count() == revisions == 1


def test_a_campaign_of_an_unknown_kind_is_refused(superuser, world):
    add = reverse("admin:annotate_campaign_add")
    form = {**empty_form(superuser, add), "kind": "bogus", "name": "X", "overlap": "2", "params": "{}"}
    response = superuser.post(add, form)
    assert response.status_code == 200 and "unknown kind" in response.content.decode()
    assert not Campaign.objects.filter(name="X").exists()
    response = superuser.post(add, {**form, "kind": "pairs"})
    assert response.status_code == 302 and Campaign.objects.get(name="X").kind == "pairs"
