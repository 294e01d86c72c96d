"""Campaign params and analysis params are declared (concord/params.py) and
checked before anything is stored or queued: 400 naming the field and the
allowed range or choices, nothing written."""

from __future__ import annotations

import json
import math
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotate.imports.backup import dump_campaign, load_campaign
from annotate.imports.write import import_runs
from annotate.models import Campaign
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from concord.errors import InvalidInput
from concord.params import Bool, Choice, Float, Int, ListOf, Object, ParamsSchema, Str
from kinds.factoids import services as factoid_services
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.models import Job

pytestmark = pytest.mark.django_db


# -- the schema module ------------------------------------------------------------------------

SCHEMA = ParamsSchema(
    Int("draws", 100, min=1, max=5000, help="Draws."),
    Float("alpha", 0.05, min=0.0, max=1.0, exclusive=True),
    Choice("rules", "warn", ("warn", "block")),
    Bool("position", False),
    Str("topic"),
    ListOf("tasks", Choice("task", None, ("labels", "matches")), ["labels"], min_items=1, max_items=2, unique=True),
    Object("frespa", [Float("min_sup", 0.75, min=0.0, max=1.0)]),
    Int("phase", min=1, max=2, internal=True),
)


def refused(schema: ParamsSchema, value, **kwargs) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        schema.clean(value, "params", **kwargs)
    return caught.value


def test_defaults_are_filled_and_optional_params_left_out():
    assert SCHEMA.clean({}) == {"draws": 100, "alpha": 0.05, "rules": "warn", "position": False, "tasks": ["labels"]}
    assert SCHEMA.clean({"frespa": {}})["frespa"] == {"min_sup": 0.75}
    assert SCHEMA.clean(None) == SCHEMA.clean({})
    cleaned = SCHEMA.clean({})
    cleaned["tasks"].append("matches")  # a default is copied, never shared
    assert SCHEMA.clean({})["tasks"] == ["labels"]


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ({"draws": 1_000_000_000}, "params.draws", "from 1 to 5000"),
        ({"draws": 0}, "params.draws", "from 1 to 5000"),
        ({"draws": "lots"}, "params.draws", "a whole number"),
        ({"draws": True}, "params.draws", "a whole number"),  # a boolean is not a number
        ({"draws": 10.0}, "params.draws", "a whole number"),
        ({"alpha": 1}, "params.alpha", "between 0 and 1"),
        ({"alpha": math.inf}, "params.alpha", "between 0 and 1"),
        ({"alpha": False}, "params.alpha", "between 0 and 1"),
        ({"rules": "blokc"}, "params.rules", "one of: warn, block"),
        ({"position": "yes"}, "params.position", "true or false"),
        ({"topic": ""}, "params.topic", "1 to 200 characters"),
        ({"tasks": 5}, "params.tasks", "a list of 1 to 2 entries"),
        ({"tasks": []}, "params.tasks", "a list of 1 to 2 entries"),
        ({"tasks": ["labels", "nope"]}, "params.tasks[1]", "one of: labels, matches"),
        ({"tasks": ["labels", "labels"]}, "params.tasks[1]", "listed twice"),
        ({"frespa": "x"}, "params.frespa", "an object"),
        ({"frespa": {"bogus": 1}}, "params.frespa.bogus", "unknown parameter (allowed: min_sup)"),
        ({"frespa": {"min_sup": 2}}, "params.frespa.min_sup", "from 0 to 1"),
        ({"nope": 1}, "params.nope", "unknown parameter"),
        ({"phase": 2}, "params.phase", "set by Concord"),
        ([], "params", "an object"),
    ],
)
def test_bad_values_name_the_field_and_what_is_allowed(value, field, words):
    error = refused(SCHEMA, value)
    assert error.field == field
    assert words in error.message, error.message


def test_internal_params_keep_their_stored_value_and_are_set_only_by_concord():
    assert SCHEMA.clean({"phase": 2}, internal=True)["phase"] == 2
    current = SCHEMA.clean({"phase": 2}, internal=True)
    assert SCHEMA.clean({"rules": "block"}, current=current)["phase"] == 2  # an edit keeps it
    assert SCHEMA.clean({**current, "rules": "block"}, current=current)["phase"] == 2  # repeated unchanged
    assert refused(SCHEMA, {"phase": 1}, current=current).field == "params.phase"


def test_json_schema_carries_types_bounds_choices_and_help():
    schema = SCHEMA.json_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["draws"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 5000,
        "description": "Draws.",
        "default": 100,
    }
    assert schema["properties"]["rules"]["enum"] == ["warn", "block"]
    assert schema["properties"]["frespa"]["properties"]["min_sup"]["maximum"] == 1.0
    assert schema["properties"]["phase"]["readOnly"] is True
    json.dumps(schema)  # plain JSON


# -- campaign params, every kind ----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_declares_its_params_and_its_defaults_validate(kind):
    schema = KINDS[kind].params
    defaults = schema.clean({})
    assert schema.clean(defaults) == defaults  # a fixed point
    assert schema.clean({"demo": True})["demo"] is True
    assert refused(schema, {"unknown": 1}).field == "params.unknown"


#: Bad params: (kind, params, field named).
BAD_CAMPAIGN_PARAMS = [
    ("nuggets", {"tasks": 5}, "params.tasks"),
    ("nuggets", {"tasks": ["labels", "votes"]}, "params.tasks[1]"),
    ("ordering", {"frespa": {"bogus": 1}}, "params.frespa.bogus"),
    ("ordering", {"frespa": "x"}, "params.frespa"),
    ("ordering", {"frespa": {"min_sup": 1.5}}, "params.frespa.min_sup"),
    ("ordering", {"design": "one-per-item"}, "params.design"),
    ("clustering", {"design": "one-per-item"}, "params.design"),
    ("factoids", {"phase": 2}, "params.phase"),
    ("factoids", {"phase2_started_at": "2020-01-01T00:00:00"}, "params.phase2_started_at"),
    ("clustering", {"rules": "blokc"}, "params.rules"),
    ("pairs", {"design": "one-per-iten"}, "params.design"),
    ("pairs", {"scope": ["c1"]}, "params.scope"),  # the service's own per-assessor option, never stored
]


@pytest.mark.parametrize(("kind", "params", "field"), BAD_CAMPAIGN_PARAMS)
def test_bad_campaign_params_are_refused_through_the_api_and_nothing_is_stored(api, people, kind, params, field):
    before = Campaign.objects.count()
    response = api(people["organiser"]).post(
        "/api/campaigns/", {"kind": kind, "name": "X", "params": params}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert Campaign.objects.count() == before


def test_messages_say_what_is_allowed(api, people):
    client = api(people["organiser"])
    rules = client.post(
        "/api/campaigns/", {"kind": "clustering", "name": "X", "params": {"rules": "blokc"}}, format="json"
    ).json()["detail"]
    assert "one of: warn, block" in rules
    design = client.post(
        "/api/campaigns/", {"kind": "ordering", "name": "X", "params": {"design": "one-per-item"}}, format="json"
    ).json()["detail"]
    assert "cannot be split" in design


@pytest.mark.parametrize(("kind", "params", "field"), BAD_CAMPAIGN_PARAMS[:4])
def test_the_create_campaign_command_refuses_them_too(people, kind, params, field):
    with pytest.raises(CommandError, match=field.replace("[", r"\[").replace("]", r"\]")):
        call_command(
            "create_campaign",
            kind,
            "X",
            "--organiser",
            "organiser",
            "--params",
            json.dumps(params),
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert not Campaign.objects.exists()


def test_good_params_are_stored_cleaned_with_defaults(api, people):
    client = api(people["organiser"])
    response = client.post(
        "/api/campaigns/", {"kind": "nuggets", "name": "N", "params": {"tasks": ["matches"]}}, format="json"
    )
    assert response.status_code == 201
    assert Campaign.objects.get(pk=response.json()["id"]).params == {"tasks": ["matches"], "design": "overlap"}
    response = client.post(
        "/api/campaigns/", {"kind": "pairs", "name": "P", "params": {"design": "one-per-item"}}, format="json"
    )
    assert response.status_code == 201 and response.json()["params"]["design"] == "one-per-item"
    response = client.post(
        "/api/campaigns/", {"kind": "ordering", "name": "O", "params": {"frespa": {"w_len": 5}}}, format="json"
    )
    assert response.json()["params"]["frespa"] == {
        "min_sup": 0.75,
        "w_len": 5,
        "w_sup": 1.0,
        "min_len_ratio": 0.0,
        "max_len_ratio": 1.0,
    }


def test_phase_two_starts_only_through_the_phase_service_and_survives_a_backup(people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F")
    campaign = factoid_services.start_phase_two(campaign=campaign)
    assert campaign.params["phase"] == 2 and campaign.params["phase2_started_at"]
    restored = load_campaign(json.loads(json.dumps(dump_campaign(campaign))))
    assert restored.params == campaign.params
    document = dump_campaign(campaign)
    document["campaign"]["params"]["phase"] = 3
    before = Campaign.objects.count()
    with pytest.raises(InvalidInput) as caught:
        load_campaign(document)
    assert caught.value.field == "file.campaign.params.phase"
    assert Campaign.objects.count() == before


def test_the_admin_checks_params_and_keeps_the_phase(client, people):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F")
    campaign = factoid_services.start_phase_two(campaign=campaign)
    stored = dict(campaign.params)
    client.force_login(people["admin"])
    url = f"/admin/annotate/campaign/{campaign.pk}/change/"
    form = {"name": "F", "guidelines": "", "overlap": 2, "memberships-TOTAL_FORMS": 0, "memberships-INITIAL_FORMS": 0}
    response = client.post(url, {**form, "params": json.dumps({"phase": 1})})
    assert response.status_code == 200 and b"params.phase" in response.content  # the form again, with the error
    assert Campaign.objects.get(pk=campaign.pk).params == stored
    response = client.post(url, {**form, "params": json.dumps({"design": "one-per-item"})})
    assert response.status_code == 200 and b"params.design" in response.content
    assert Campaign.objects.get(pk=campaign.pk).params == stored
    response = client.post(url, {**form, "params": json.dumps({"demo": True})})
    assert response.status_code == 302
    assert Campaign.objects.get(pk=campaign.pk).params == {**stored, "demo": True}


# -- analysis params ------------------------------------------------------------------------------


def every_analysis() -> list[tuple[str, str]]:
    return [
        (kind, name)
        for kind in sorted(KINDS)
        for name in ["agreement", *(analysis.name for analysis in KINDS[kind].analyses)]
    ]


def numbers(schema: ParamsSchema, path: str = "params"):
    """(field path, declaration) of every number, nested ones and list items included."""
    for param in schema:
        if isinstance(param, Object):
            yield from numbers(param.fields, f"{path}.{param.name}")
        elif isinstance(param, ListOf) and isinstance(param.item, (Int, Float)):
            yield f"{path}.{param.name}[0]", param.item
        elif isinstance(param, (Int, Float)):
            yield f"{path}.{param.name}", param


@pytest.mark.parametrize(("kind", "analysis"), every_analysis())
def test_every_analysis_declares_bounded_params_whose_defaults_validate(kind, analysis):
    schema = scoring_services.analysis_schemas(kind)[analysis]
    defaults = schema.clean({})
    assert schema.clean(defaults) == defaults
    assert refused(schema, {"unknown": 1}).field == "params.unknown"
    for field, param in numbers(schema):
        assert math.isfinite(param.max), field
        name = field.rsplit(".", 1)[1]
        too_big = param.max + 1
        value = {name.removesuffix("[0]"): [too_big]} if name.endswith("[0]") else {name: too_big}
        error = refused(schema, value)
        shown = str(param.max) if isinstance(param, Int) else f"{param.max:g}"
        assert error.field == field and shown in error.message, (field, error)
        if isinstance(param, Int):
            assert (
                refused(schema, {name.removesuffix("[0]"): True if not name.endswith("[0]") else [True]}).field == field
            )


#: Upper bounds that keep one job within the budget (scoring/services.py JOB_BUDGET).
BOUNDS = {
    ("factoids", "growth"): {"draws": 5_000},
    ("factoids", "wfs-stability"): {"max_n": 200, "pairs": 10_000, "n": 200},
    ("pairs", "evaluation"): {"n_random": 10_000, "n_resamples": 10_000, "chunk_size": 500},
    ("nuggets", "stability"): {"max_subsets": 5_000},
    ("ordering", "noise"): {"seeds": 50},
}


@pytest.mark.parametrize(("kind", "analysis"), sorted(BOUNDS))
def test_the_costly_params_have_the_documented_bounds(kind, analysis):
    schema = scoring_services.analysis_schemas(kind)[analysis]
    for name, bound in BOUNDS[(kind, analysis)].items():
        assert schema.params[name].max == bound, name
        assert schema.clean({name: bound})[name] == bound
        assert refused(schema, {name: bound + 1}).field == f"params.{name}"
    if (kind, analysis) == ("ordering", "noise"):
        ratios = schema.params["ratios"]
        assert (ratios.max_items, ratios.item.max) == (10, 2.0)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"draws": 1_000_000_000}, "params.draws"),
        ({"draws": "lots"}, "params.draws"),
        ({"draws": 100, "seed": -1}, "params.seed"),
        ({"drawz": 100}, "params.drawz"),
        (["draws"], "params"),
    ],
)
def test_bad_analysis_params_are_refused_before_a_job_is_stored_or_queued(
    api, people, params, field, django_capture_on_commit_callbacks
):
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="F")
    with django_capture_on_commit_callbacks() as queued:
        response = api(people["organiser"]).post(
            f"/api/campaigns/{campaign.pk}/analyses/", {"analysis": "growth", "params": params}, format="json"
        )
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert not Job.objects.exists() and not queued


def test_a_job_stores_its_params_cleaned(api, people, campaign):
    # The evaluation is ready: two systems' results and a submitted adjudication.
    import_runs(
        campaign=campaign,
        runs=[{"name": n, "data": {"results": {"q1": [{"id": "c1", "text": "Candidate 1.1"}]}}} for n in ("A", "B")],
    )
    topic = campaign.topics.get(external_id="q1")
    save_judgment(
        topic=topic,
        assessor=people["alice"],
        payload={"matches": {c["id"]: True for c in topic.data["candidates"]}},
        status="submitted",
        version=0,
    )
    response = api(people["organiser"]).post(
        f"/api/campaigns/{campaign.pk}/analyses/", {"analysis": "evaluation", "params": {"n_random": 10}}, format="json"
    )
    assert response.status_code == 202
    assert Job.objects.get().params == {
        **scoring_services.analysis_schemas("pairs")["evaluation"].clean({}),
        "n_random": 10,
    }


def test_both_schemas_are_in_the_openapi_document(api, people):
    document = json.loads(
        api(people["organiser"]).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content
    )
    schemas = document["components"]["schemas"]
    campaign_params = schemas["CampaignCreateRequest"]["properties"]["params"]
    assert {v["title"] for v in campaign_params["anyOf"]} == set(KINDS)
    nuggets = next(v for v in campaign_params["anyOf"] if v["title"] == "nuggets")
    assert nuggets["properties"]["tasks"]["items"]["enum"] == ["labels", "matches"]
    analysis_params = schemas["AnalysisRequestRequest"]["properties"]["params"]
    growth = next(v for v in analysis_params["anyOf"] if v["title"] == "factoids: growth")
    assert growth["properties"]["draws"]["maximum"] == 5_000 and growth["additionalProperties"] is False
    assert {v["title"] for v in analysis_params["anyOf"]} >= {"agreement", "pairs: evaluation", "ordering: noise"}
