"""The contract every kind fulfils, checked over the registry (as scikit-learn's
test_common.py checks every estimator): a new kind is tested here the moment
its line is added to kinds.KIND_APPS.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.template.loader import get_template

from annotate.demo import seed
from annotate.models import Campaign, Judgment
from annotate.services.campaigns import create_campaign
from concord import help as docs
from concord.params import ParamsSchema
from kinds import KIND_APPS
from kinds.base import Kind
from kinds.registry import KINDS, get_kind
from kinds.spec import Analysis, Examples, Exports, JudgePage, KindSpec, Reports
from scoring import services as scoring_services
from scoring.selectors import campaign_report
from stats.plain import SCALES, sentence

NAMES = sorted(KINDS)
ROOT = Path(__file__).resolve().parents[2]


def test_the_registry_lists_every_kind_folder_once():
    assert [name.rsplit(".", 1)[-1] for name in KIND_APPS] == list(KINDS)
    folders = sorted(path.parent.name for path in (ROOT / "kinds").glob("*/spec.py"))
    assert folders == NAMES, "a kind folder is not in kinds.KIND_APPS (or the other way round)"


def test_an_unknown_kind_is_refused_naming_the_field():
    with pytest.raises(Exception) as error:
        get_kind("no-such-kind")
    assert (error.value.field, "pairs" in error.value.message) == ("kind", True)


@pytest.mark.parametrize("name", NAMES)
def test_every_slot_is_filled_with_its_type(name):
    spec = KINDS[name]
    assert isinstance(spec, KindSpec) and spec.name == name
    assert isinstance(spec.data, Kind) and spec.label and spec.description
    assert isinstance(spec.params, ParamsSchema)
    assert isinstance(spec.judge, JudgePage) and isinstance(spec.reports, Reports)
    assert isinstance(spec.exports, Exports) and spec.exports.formats and spec.exports.help
    assert isinstance(spec.examples, Examples)
    assert all(isinstance(a, Analysis) and isinstance(a.params, ParamsSchema) for a in spec.analyses)
    assert callable(spec.reports.topic) and callable(spec.reports.campaign) and callable(spec.exports.write)


@pytest.mark.parametrize("name", NAMES)
def test_every_template_and_script_exists_in_the_kind_folder(name):
    spec = KINDS[name]
    folder = ROOT / "kinds" / name
    templates = [
        spec.judge.template,
        spec.reports.template,
        spec.reports.topic_template,
        *(a.template for a in spec.analyses),
    ]
    for template in templates:
        origin = Path(get_template(template).origin.name)
        assert folder in origin.parents, f"{template} is not in kinds/{name}/"
    script = finders.find(spec.judge.script)
    assert script and folder in Path(script).parents, f"{spec.judge.script} is not in kinds/{name}/static/"


@pytest.mark.parametrize("name", NAMES)
def test_every_kind_adjudicates_its_examples(name):
    """KindSpec.adjudication (docs/pages.md, "Adjudication"): compare works on the examples (the
    topic's assessor view and the two disagreeing payloads), the fragment renders with
    both assessors' names, and the consensus, if any, is a payload the kind accepts."""
    from django.template.loader import render_to_string

    spec = KINDS[name]
    assert spec.adjudication is not None, f"{name}: no KindSpec.adjudication"
    origin = Path(get_template(spec.adjudication.template).origin.name)
    assert ROOT / "kinds" / name in origin.parents, f"{spec.adjudication.template} is not in kinds/{name}/"
    params = spec.params.clean(dict(spec.examples.params))
    topic = spec.data.clean_topic_data(copy.deepcopy(dict(spec.examples.topic)))
    view = spec.data.assessor_view(copy.deepcopy(topic))
    payloads = [
        spec.data.clean_payload(copy.deepcopy(dict(p)), topic, complete=True, params=params)
        for p in spec.examples.payloads
    ]
    comparison = spec.adjudication.compare(view, [("ann-first", payloads[0]), ("bea-second", payloads[1])])
    campaign = Campaign(kind=name, name="Contract", params=params)
    html = render_to_string(
        spec.adjudication.template,
        {"comparison": comparison, "view": view, "assessors": ["ann-first", "bea-second"], "campaign": campaign},
    )
    assert "ann-first" in html and "bea-second" in html, f"{name}: the comparison does not name the assessors"
    if spec.adjudication.consensus is not None:
        gold = spec.adjudication.consensus(view, payloads)
        assert spec.data.clean_payload(copy.deepcopy(gold), topic, complete=False, params=params) == gold


@pytest.mark.parametrize("name", NAMES)
def test_params_schemas_validate_their_defaults(name):
    spec = KINDS[name]
    assert spec.params.clean({}) == spec.params.clean(spec.params.clean({}))
    spec.params.clean(dict(spec.examples.params))
    for analysis in spec.analyses:
        defaults = analysis.params.clean({})
        assert analysis.params.clean(defaults) == defaults, analysis.name


@pytest.mark.parametrize("name", NAMES)
def test_example_payloads_round_trip(name):
    spec = KINDS[name]
    topic = spec.data.clean_topic_data(copy.deepcopy(dict(spec.examples.topic)))
    params = spec.params.clean(dict(spec.examples.params))
    for payload in spec.examples.payloads:
        once = spec.data.clean_payload(copy.deepcopy(dict(payload)), topic, complete=True, params=params)
        assert spec.data.clean_payload(copy.deepcopy(once), topic, complete=True, params=params) == once
        done, needed = spec.data.progress(once, topic)
        assert 0 < done <= needed
    assert spec.examples.payloads[0] != spec.examples.payloads[1], "the two examples must disagree somewhere"


@pytest.mark.parametrize("name", NAMES)
def test_the_assessor_view_hides_what_the_kind_declares(name):
    data = KINDS[name].data
    topic = data.clean_topic_data(copy.deepcopy(dict(KINDS[name].examples.topic)))
    view = data.assessor_view(copy.deepcopy(topic), None)
    for path in data.hidden_fields:
        assert _values_at(topic, path), f"examples.topic has no {path}"
        assert not _values_at(view, path), f"the assessor view shows {path}"


def _values_at(node, path: str) -> list:
    head, _, rest = path.partition(".")
    key = head.removesuffix("[]")
    if not isinstance(node, dict) or key not in node:
        return []
    value = node[key]
    children = value if head.endswith("[]") else [value]
    return [v for child in children for v in (_values_at(child, rest) if rest else [child])]


@pytest.fixture
def demo_of(db, django_capture_on_commit_callbacks, replace_spec):
    """The demo campaign(s) of one kind only (the others' demos switched off), reports computed."""

    def build(name: str) -> list[Campaign]:
        for other in NAMES:
            if other != name:
                replace_spec(other, demo=None)
        with django_capture_on_commit_callbacks(execute=True):
            _, campaigns = seed(reset_passwords=False)
        for campaign in campaigns:
            scoring_services.recompute_reports(campaign.pk, everything=True)
        return campaigns

    return build


@pytest.mark.parametrize("name", NAMES)
def test_the_demo_validates_against_the_kind_and_every_export_runs(demo_of, name, admin_client_for):
    spec = KINDS[name]
    campaigns = [c for c in demo_of(name) if c.kind == name]
    assert campaigns, f"the {name} kind has no demo campaign"
    for campaign in campaigns:
        params = spec.params.clean(dict(campaign.params), internal=True)
        for topic in campaign.topics.all():
            assert spec.data.clean_topic_data(copy.deepcopy(topic.data)) == topic.data
        for judgment in Judgment.objects.filter(topic__campaign=campaign, status="submitted").select_related("topic"):
            spec.data.clean_payload(copy.deepcopy(judgment.payload), judgment.topic.data, complete=True, params=params)
        assert campaign_report(campaign) is not None, "the demo campaign has no stored report"
        client = admin_client_for()
        assessors = sorted(
            Judgment.objects.filter(topic__campaign=campaign, status="submitted")
            .values_list("assessor__username", flat=True)
            .distinct()
        )
        for truth in spec.exports.truths(assessors):
            answers = {}
            for format in spec.exports.formats:
                response = client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": format, "truth": truth})
                # 400: a format this truth set does not come in, or a table that needs an analysis first.
                assert response.status_code in (200, 400), (format, truth, response.content[:200])
                if response.status_code == 400:
                    assert response.json()["field"] in ("format", "truth"), response.content
                else:
                    assert response.content, (format, truth)
                answers[format] = response
            needs_analysis = all(b"analysis" in r.content or b"evaluation" in r.content for r in answers.values())
            assert needs_analysis or any(r.status_code == 200 for r in answers.values()), f"no format for {truth}"


@pytest.fixture
def admin_client_for(django_user_model):
    from rest_framework.test import APIClient

    def make():
        admin = django_user_model.objects.filter(is_staff=True).first()
        client = APIClient()
        client.force_authenticate(admin)
        return client

    return make


@pytest.mark.parametrize("name", NAMES)
def test_a_spec_with_analyses_named_twice_is_refused(name):
    spec = KINDS[name]
    twice = Analysis(name="twice", run=lambda *a: {}, params=ParamsSchema(), template="scoring/results/default.html")
    with pytest.raises(ValueError, match="analyses named twice"):
        dataclasses.replace(spec, analyses=(twice, twice))


def test_campaigns_of_every_kind_are_created_with_their_default_params(people):
    for name in NAMES:
        campaign = create_campaign(creator=people["organiser"], kind=name, name=f"c-{name}")
        assert Campaign.objects.get(pk=campaign.pk).params == KINDS[name].params.clean({})


def test_generic_code_never_names_a_kind():
    """Generic code reaches kinds through their specs only: no quoted kind name,
    no import of a kind's module (that the shared statistics, stats/, import no kind
    is tests/test_layers.py's)."""
    # "labels" is a kind and also a plain word of data (the pairs' payload key, a count of
    # crowd labels): quoted, it names the kind only where a kind is expected.
    words = {"labels"}
    names = "|".join(NAMES)
    plain = "|".join(name for name in NAMES if name not in words)
    pattern = re.compile(
        rf"""["']({plain})["']|kinds\.({names})\b|if [\w.]*kind\s*[!=]="""
        rf"""|(kind\s*[!=]=\s*|kind=|KINDS\[|get_kind\(|["']kind["']:\s*)["']({names})["']"""
    )
    generic = [*ROOT.glob("annotate/**/*.py"), *ROOT.glob("concord/**/*.py"), *ROOT.glob("templates/**/*.html")]
    generic += [*ROOT.glob("scoring/**/*.py"), *ROOT.glob("dashboard/**/*.py")]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in generic
        if "migrations" not in path.parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


def _json_schema(openapi: object) -> object:
    """OpenAPI 3.0's ``nullable`` as JSON Schema's null type (for jsonschema)."""
    if isinstance(openapi, list):
        return [_json_schema(item) for item in openapi]
    if not isinstance(openapi, dict):
        return openapi
    schema = {key: _json_schema(value) for key, value in openapi.items() if key != "nullable"}
    return {"anyOf": [schema, {"type": "null"}]} if openapi.get("nullable") else schema


@pytest.mark.parametrize("name", NAMES)
def test_reports_are_typed_round_trip_and_match_the_api_schema(demo_of, name, admin_client_for):
    """Reports are the kind's dataclass trees: the builders return the declared
    types, stored reports load back field by field (an older shape is
    refused, not shown blank), and the API's report validates against the
    schema /api/schema/ publishes for the kind."""
    import typing

    import jsonschema

    from concord import typed
    from scoring.models import Report
    from scoring.selectors import report_input

    reports = KINDS[name].reports
    for slot, declared in (("topic", reports.topic_type), ("campaign", reports.campaign_type)):
        assert dataclasses.is_dataclass(declared), f"{name}: {slot}_type is not a dataclass"
        assert typing.get_type_hints(getattr(reports, slot))["return"] is declared, (
            f"{name}: {slot} returns another type"
        )
        assert declared.__name__.lower().startswith(name), (
            f"{name}: {declared.__name__} should start with the kind's name"
        )
    campaign = next(c for c in demo_of(name) if c.kind == name)
    given = report_input(campaign)
    built = reports.campaign(given)
    assert isinstance(built, reports.campaign_type)
    assert typed.dump(typed.load(reports.campaign_type, typed.dump(built))) == typed.dump(built)
    topic = given.topics[0]
    built_topic = reports.topic(given, topic)
    assert isinstance(built_topic, reports.topic_type)
    assert typed.dump(typed.load(reports.topic_type, typed.dump(built_topic))) == typed.dump(built_topic)
    # the queue's order and reason: a typed Disagreement of every topic judged twice
    from kinds.spec import Disagreement

    measured = [reports.disagreement(reports.topic(given, t)) for t in given.topics if len(given.judgments_of(t)) >= 2]
    found = [m for m in measured if m is not None]
    assert found and all(isinstance(m, Disagreement) and m.value >= 0 and m.reason for m in found), name
    # the dashboard's headline: a named figure of the report with its interval (or no headline slot)
    from kinds.spec import Headline
    from stats.intervals import FigureCI

    if reports.headline is not None:
        headline = reports.headline(built)
        assert isinstance(headline, Headline) and headline.label and isinstance(headline.figure, FigureCI), name
        # what the figure is, for its plain reading: a known scale, and a "?" that reaches its section
        assert headline.reading.scale in SCALES and headline.reading.symbol, name
        assert docs.target("methods", headline.reading.help)[0].endswith("#" + headline.reading.help), name
        assert sentence(headline.figure, headline.reading).endswith("."), name

    stored = Report.objects.get(campaign=campaign, name="agreement")
    first_field = dataclasses.fields(reports.campaign_type)[0].name
    with pytest.raises(typed.Outdated, match=first_field):
        typed.load(reports.campaign_type, {k: v for k, v in stored.data.items() if k != first_field})
    Report.objects.filter(pk=stored.pk).update(data={k: v for k, v in stored.data.items() if k != first_field})
    assert campaign_report(campaign) is None  # an outdated shape reads as "not computed yet"
    Report.objects.filter(pk=stored.pk).update(data=stored.data)

    client = admin_client_for()
    schema = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    body = client.get(f"/api/campaigns/{campaign.pk}/agreement/").json()
    assert body["kind"] == name and body["data"] is not None
    components = _json_schema(schema["components"]["schemas"])
    jsonschema.validate(
        body["data"],
        {"$ref": f"#/components/schemas/{reports.campaign_type.__name__}", "components": {"schemas": components}},
    )
    data_schema = components["Report"]["properties"]["data"]
    jsonschema.validate(body["data"], {**data_schema, "components": {"schemas": components}})


@pytest.mark.parametrize("name", NAMES)
def test_analyses_say_why_they_cannot_run_and_the_demo_runs_them_all(demo_of, name, people):
    """Analysis.ready: on an empty campaign an analysis that needs data says
    why before any job is stored (the page shows the reason instead of the
    form); on the kind's demo campaign every analysis is ready."""
    from concord.errors import InvalidInput
    from scoring.models import Job
    from scoring.selectors import campaign_facts

    spec = KINDS[name]
    empty = create_campaign(creator=people["organiser"], kind=name, name="Empty")
    for analysis in spec.analyses:
        if analysis.ready is None:
            continue
        reason = analysis.ready(campaign_facts(empty))
        assert reason, f"{name}: {analysis.name} claims to be ready on an empty campaign"
        with pytest.raises(InvalidInput, match="cannot run on this campaign yet") as refused:
            scoring_services.start_analysis(campaign=empty, analysis=analysis.name, params={}, user=None)
        assert refused.value.field == "analysis"
    assert not Job.objects.filter(campaign=empty).exists()
    # The kind's demo with systems' runs, where there are several (pairs: adjudication, name search).
    campaign = max((c for c in demo_of(name) if c.kind == name), key=lambda c: c.runs.count())
    facts = campaign_facts(campaign)
    not_ready = {a.name: a.ready(facts) for a in spec.analyses if a.ready and a.ready(facts)}
    assert not not_ready, f"{name}: the demo cannot run {not_ready}"


@pytest.mark.parametrize("name", NAMES)
def test_campaign_reports_merge_stored_partials(demo_of, name):
    """Live at any size (docs/benchmarks.md): every kind's campaign report is the merge of
    per-topic partials, which store as MessagePack and load back equal, and the
    stored report the worker merged equals one built from every judgment."""
    from concord import typed
    from scoring import jobs
    from scoring.models import TopicPartial
    from scoring.selectors import report_input

    reports = KINDS[name].reports
    assert reports.incremental, f"{name}: Reports gives no partial/merge"
    assert dataclasses.is_dataclass(reports.partial_type)
    assert reports.partial_type.__name__.lower().startswith(name)
    campaign = next(c for c in demo_of(name) if c.kind == name)
    given = report_input(campaign)
    topic = given.topics[0]
    partial = reports.partial(given, topic, reports.topic(given, topic))
    assert isinstance(partial, reports.partial_type)
    packed = typed.pack(partial)
    assert typed.pack(typed.unpack(packed, reports.partial_type)) == packed
    assert TopicPartial.objects.filter(campaign=campaign).count() == campaign.topics.count()
    assert jobs.check_reports(campaign) == []


@pytest.mark.parametrize("name", [n for n in NAMES if KINDS[n].reports.partial_disagreement is not None])
def test_a_disagreement_read_from_the_partial_is_the_reports(demo_of, name):
    """A kind that gives ``partial_disagreement`` has its topics rebuilt without their reports
    (scoring.jobs._topic_reports): on every topic of its demo, the partial computed without the
    report is the one computed with it, and its disagreement (value and reason) is the report's."""
    from concord import typed
    from scoring.selectors import report_input

    reports = KINDS[name].reports
    campaign = next(c for c in demo_of(name) if c.kind == name)
    given = report_input(campaign)
    disputed = 0
    for topic in given.topics:
        report = reports.topic(given, topic)
        alone = reports.partial(given, topic, None)
        assert typed.pack(alone) == typed.pack(reports.partial(given, topic, report)), topic.external_id
        expected = reports.disagreement(report)
        assert reports.partial_disagreement(alone, campaign) == expected, topic.external_id
        disputed += expected is not None and expected.value > 0
    assert disputed >= 2, f"{name}: the demo has too few disputed topics to compare"
