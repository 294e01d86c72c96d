"""manage.py create_campaign --kind K --name N [--overlap N] [--params JSON] [--organiser USER]:
docs/formats.md's import examples start with it and capture the id it prints."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Campaign, Membership


def create(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("create_campaign", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_options_create_the_campaign_with_checked_params_and_print_only_its_id(people):
    out, _ = create(
        "--kind", "relevance", "--name", "Robust04", "--overlap", "3", "--organiser", "organiser",
        "--params", '{"scale": ["no", "partly", "yes"], "threshold": 2}',
    )  # fmt: skip
    campaign = Campaign.objects.get(name="Robust04")
    assert out == f"{campaign.pk}\n"
    assert (campaign.kind, campaign.overlap) == ("relevance", 3)
    assert (campaign.params["scale"], campaign.params["threshold"]) == (["no", "partly", "yes"], 2)
    assert Membership.objects.get(campaign=campaign).user.username == "organiser"


def test_without_organiser_the_one_superuser_creates_it(people):
    out, _ = create("--kind", "pairs", "--name", "RTE")
    campaign = Campaign.objects.get(pk=int(out))
    assert campaign.created_by.username == "admin"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "X", "--organiser", "organiser"], "--kind: required"),
        (["--kind", "pairs", "--organiser", "organiser"], "--name: required"),
        (["pairs", "X", "--kind", "ordering", "--organiser", "organiser"], "--kind: given twice"),
        (["--kind", "pairs", "--name", "X", "--organiser", "organiser", "--params", '{"threshold": 1}'], "params"),
        (
            ["--kind", "relevance", "--name", "X", "--organiser", "organiser", "--params", '{"threshold": 7}'],
            "params.threshold: expected a grade of the scale, from 1 to 3, got 7 (nothing created)",
        ),
        (["--kind", "pairs", "--name", "X", "--overlap", "0"], "overlap: expected a whole number"),
    ],
)
def test_errors_name_the_field_and_create_nothing(people, args, message):
    with pytest.raises(CommandError) as error:
        create(*args)
    assert message in str(error.value)
    assert Campaign.objects.count() == 0


def test_with_two_superusers_the_organiser_must_be_named(people, make_user):
    make_user("root", staff=True)
    with pytest.raises(CommandError, match="--organiser: required"):
        create("--kind", "pairs", "--name", "X")
    assert Campaign.objects.count() == 0
