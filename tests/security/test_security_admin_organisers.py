"""The Django admin cannot leave a campaign without an organiser either: the last organiser's membership can be neither demoted, moved nor deleted
there, as the members API refuses to demote them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotate.models import Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser(people) -> Client:
    client = Client()
    client.force_login(people["admin"])
    return client


def organiser_of(world):
    return Membership.objects.get(campaign=world.campaign, role="organiser")


def test_the_last_organiser_cannot_be_demoted_in_the_admin(superuser, world):
    membership = organiser_of(world)
    url = reverse("admin:annotate_membership_change", args=[membership.pk])
    response = superuser.post(url, {"campaign": world.campaign.pk, "user": membership.user.pk, "role": "assessor"})
    assert response.status_code == 200 and b"last organiser" in response.content
    assert Membership.objects.get(pk=membership.pk).role == "organiser"


def test_the_last_organiser_cannot_be_deleted_in_the_admin(superuser, world):
    membership = organiser_of(world)
    response = superuser.post(reverse("admin:annotate_membership_delete", args=[membership.pk]), {"post": "yes"})
    assert response.status_code == 302 and Membership.objects.filter(pk=membership.pk).exists()
    response = superuser.post(
        reverse("admin:annotate_membership_changelist"),
        {"action": "delete_selected", "_selected_action": [membership.pk], "post": "yes"},
    )
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_another_organiser_first_then_the_first_may_step_down(superuser, world, people):
    Membership.objects.create(campaign=world.campaign, user=people["carol"], role="organiser")
    membership = (
        organiser_of(world) if False else Membership.objects.get(campaign=world.campaign, user=people["organiser"])
    )
    url = reverse("admin:annotate_membership_change", args=[membership.pk])
    response = superuser.post(url, {"campaign": world.campaign.pk, "user": membership.user.pk, "role": "assessor"})
    assert response.status_code == 302
    assert Membership.objects.get(pk=membership.pk).role == "assessor"


def test_the_campaign_page_of_the_admin_keeps_an_organiser(superuser, world):
    membership = organiser_of(world)
    others = list(Membership.objects.filter(campaign=world.campaign).exclude(pk=membership.pk).order_by("pk"))
    rows = [membership, *others]
    form = {
        "kind": world.campaign.kind,
        "name": world.campaign.name,
        "guidelines": world.campaign.guidelines,
        "overlap": world.campaign.overlap,
        "params": "{}",
        "memberships-TOTAL_FORMS": str(len(rows)),
        "memberships-INITIAL_FORMS": str(len(rows)),
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
    }
    for i, row in enumerate(rows):
        form |= {
            f"memberships-{i}-id": row.pk,
            f"memberships-{i}-campaign": world.campaign.pk,
            f"memberships-{i}-user": row.user.pk,
            f"memberships-{i}-role": row.role,
        }
    form["memberships-0-DELETE"] = "on"
    response = superuser.post(reverse("admin:annotate_campaign_change", args=[world.campaign.pk]), form)
    assert Membership.objects.filter(pk=membership.pk, role="organiser").exists(), response.status_code
