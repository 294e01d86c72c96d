"""manage.py create_campaign: the examples of docs/formats.md start with it."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign, Membership


def test_prints_only_the_new_id_and_makes_the_creator_organiser(people):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "create_campaign", "pairs", "RTE", "--organiser", "organiser", "--overlap", "3", stdout=out, stderr=err
    )
    campaign = Campaign.objects.get(name="RTE")
    assert out.getvalue().strip() == str(campaign.pk)
    assert (campaign.kind, campaign.overlap) == ("pairs", 3)
    assert Membership.objects.get(campaign=campaign).user.username == "organiser"
    assert Membership.objects.get(campaign=campaign).role == "organiser"
    assert f"#{campaign.pk}" in err.getvalue()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pairs", "X", "--organiser", "nobody"], "--organiser: no account 'nobody'"),
        (["pairs", "X", "--organiser", "organiser", "--params", "{oops"], "--params: not JSON"),
        (["pairs", "X", "--organiser", "organiser", "--overlap", "0"], "overlap:"),
        (["pairs", "", "--organiser", "organiser"], "name:"),
    ],
)
def test_bad_arguments_name_the_field_and_create_nothing(people, args, message):
    with pytest.raises(CommandError) as error:
        call_command("create_campaign", *args, stdout=io.StringIO(), stderr=io.StringIO())
    assert message in str(error.value)
    assert Campaign.objects.count() == 0
