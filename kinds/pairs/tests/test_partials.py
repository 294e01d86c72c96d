"""Pairs: the campaign report merged from per-topic partials.

The reference is the campaign report as it was computed before partials
(one vote matrix of every judgment, the runs' results and labels looked up
item by item, every model fitted: ``_reference_campaign_report`` below, kept
verbatim); the merge of the topics' partials must equal it to 1e-12 on the
demo campaigns and on a seeded campaign with system runs, a reference run and
adjudications. A topic's partial depends on that topic only."""

from __future__ import annotations

import numpy as np
import pytest

from annotate.imports.write import import_runs, import_topics
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.pairs import demo
from kinds.pairs import report as r
from kinds.pairs.exports import gold_standard
from kinds.pairs.partials import (
    ADJUDICATED_REFERENCE,
    PairsPartial,
    _pooled_f1,
    campaign_report,
    merge,
    reference_runs,
    system_runs,
    topic_partial,
)
from scoring.partials import MergeInput, differences
from scoring.selectors import ReportInput, report_input
from stats import labelmodels as lm
from stats.intervals import interval_settings, ranking_stability
from stats.systems import precision_recall_f1, query_counts
from tests.campaigns import pairs_topics

pytestmark = pytest.mark.django_db


def _returned_matrix(v, runs):
    index = {item: i for i, item in enumerate(v.items)}
    matrix = np.zeros((len(runs), len(v.items)), bool)
    for s, run in enumerate(runs):
        for topic, results in run.data["results"].items():
            for result in results:
                if (topic, result["id"]) in index:
                    matrix[s, index[(topic, result["id"])]] = True
    return matrix


def _system_scores(v, runs):
    if not runs or not v.assessors:
        return []
    returned = _returned_matrix(v, runs)
    sets = ("consensus", "union", "intersection")
    scored = {truth: precision_recall_f1(returned, gold_standard(v, truth)) for truth in sets}
    return [
        r.PairsSystem(
            system=run.name,
            **{
                truth: r.PRF(
                    precision=float(np.atleast_1d(scored[truth].precision)[s]),
                    recall=float(np.atleast_1d(scored[truth].recall)[s]),
                    f1=float(np.atleast_1d(scored[truth].f1)[s]),
                )
                for truth in sets
            },
        )
        for s, run in enumerate(runs)
    ]


def _system_ranking_stability(v, runs, settings):
    if len(runs) < 2 or not v.assessors:
        return None
    truth = gold_standard(v, "consensus")
    topics = [topic for topic, _ in v.items]
    counts = query_counts(_returned_matrix(v, runs), truth, topics)
    _, codes = np.unique(np.array(topics), return_inverse=True)
    known = np.bincount(codes, weights=~np.isnan(truth)) > 0
    return ranking_stability(
        counts[:, known, :].astype(np.float64),
        measure="F1 (consensus)",
        statistic=_pooled_f1,
        resamples=settings.resamples,
        seed=settings.seed,
    )


def _reference_labels(v, run):
    labels = run.data.get("labels") or {}
    return np.array(
        [
            float(labels[t][c]) if isinstance(labels.get(t), dict) and isinstance(labels[t].get(c), bool) else np.nan
            for t, c in v.items
        ]
    )


def _references(input, v):
    found = [(run.name, _reference_labels(v, run)) for run in reference_runs(input.runs)]
    by_external = {t.external_id: input.curation(t, "consensus") for t in input.topics}
    adjudicated = np.array(
        [
            float(match)
            if isinstance(match := ((by_external.get(t) or {}).get("matches") or {}).get(c), bool)
            else np.nan
            for t, c in v.items
        ]
    )
    if not np.isnan(adjudicated).all():
        found.append((ADJUDICATED_REFERENCE, adjudicated))
    return found


def _reference_campaign_report(input: ReportInput) -> r.PairsCampaignReport:
    topics, judgments, runs = input.topics, input.judgments, input.runs
    v = r.votes(topics, judgments)
    fits = {model: lm.model_truth(v.matrix, model, 2) for model in lm.MODELS}
    settings = interval_settings(input.campaign.params)
    # every pair and every assessor (these campaigns have fewer than LIVE_PAIRS and MATRIX_ASSESSORS)
    agreement = r._agreement(v, settings)
    return r.PairsCampaignReport(
        **agreement,
        pair_count=len(agreement["pairs"]),
        matrix_names=list(v.assessors),
        topics=len(topics),
        systems=_system_scores(v, system_runs(runs)),
        ranking=_system_ranking_stability(v, system_runs(runs), settings),
        reliability=lm.binary_reliability(v.matrix, v.assessors, fits["dawid-skene"]),
        references=[
            lm.reference_accuracy(
                name,
                reference,
                v.matrix,
                v.assessors,
                {model: fit.labels for model, fit in fits.items()},
            )
            for name, reference in _references(input, v)
        ],
    )


@pytest.fixture
def judged(people):
    """Three assessors on eight topics of five candidates (seeded labels, carol skips two
    topics, one topic unjudged, one without candidates' votes), two systems, a reference run
    that labels some items, and two adjudicated topics."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="P", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(8, 5))
    rng = np.random.default_rng(11)
    truth = rng.random((8, 5)) < 0.4
    for topic in campaign.topics.all():
        t = int(topic.external_id[1:]) - 1
        if t == 7:
            continue  # nobody judged q8
        for assignment in topic.assignments.select_related("assessor"):
            if assignment.assessor.username == "carol" and t in (2, 5):
                continue
            flips = rng.random(5) < 0.25
            matches = {f"c{c + 1}": bool(truth[t, c] ^ flips[c]) for c in range(5)}
            save_judgment(
                topic=topic, assessor=assignment.assessor, payload={"matches": matches}, status="submitted", version=0
            )
    results = {
        f"sys{s}": {
            f"q{t + 1}": [{"id": f"c{c + 1}", "text": "x", "score": 1.0} for c in range(5) if rng.random() < 0.5]
            for t in range(8)
        }
        for s in range(3)
    }
    import_runs(
        campaign=campaign,
        runs=[
            *({"name": name, "data": {"results": data}} for name, data in results.items()),
            {
                "name": "gold",
                "data": {
                    "reference": True,
                    "labels": {f"q{t + 1}": {f"c{c + 1}": bool(truth[t, c]) for c in range(4)} for t in range(6)},
                },
            },
        ],
    )
    for external_id, matches in (("q2", {"c1": True, "c2": False}), ("q4", {"c3": True})):
        topic = campaign.topics.get(external_id=external_id)
        save_curation(topic=topic, name="consensus", data={"matches": matches}, version=0, user=people["organiser"])
    return campaign


@pytest.fixture
def demo_campaigns(make_user):
    organiser = make_user("organiser", organiser=True)
    simulated = [make_user(name) for name in demo.SIMULATED_THRESHOLDS]
    return demo.build(organiser, simulated, [make_user("visitor")])


def _merged(input: ReportInput) -> r.PairsCampaignReport:
    partials = [topic_partial(input, t, r.topic_report(input, t)) for t in input.topics]
    return merge(MergeInput(input.campaign, input.topics, input.runs), partials)


def _check_equal(campaign) -> dict:
    given = report_input(campaign)
    before = typed.dump(_reference_campaign_report(given))
    after = typed.dump(_merged(given))
    assert differences(after, before, tolerance=1e-12) == []
    assert typed.dump(campaign_report(given)) == after
    return after


def test_the_merge_of_partials_equals_the_report_before_partials(judged):
    after = _check_equal(judged)
    assert after["topics"] == 8 and after["items"] == 40 and after["items_judged"] == 35
    assert [s["system"] for s in after["systems"]] == ["sys0", "sys1", "sys2"]
    assert after["ranking"]["units"] == 7 and after["ranking"]["method"] == "bootstrap"
    assert [ref["reference"] for ref in after["references"]] == ["gold", ADJUDICATED_REFERENCE]
    assert [ref["items"] for ref in after["references"]] == [24, 3]
    assert [a["judged"] for a in after["assessors"]] == [35, 35, 25]
    # Literals of the report before partials.
    assert after["ac1"]["high"] == pytest.approx(0.3905425181687813, abs=1e-12)
    assert after["ranking"]["p5"] == pytest.approx(-1 / 3, abs=1e-12)
    assert after["systems"][0]["union"]["f1"] == pytest.approx(0.6086956521739131, abs=1e-12)
    assert after["reliability"][0]["specificity"] == pytest.approx(0.46901008313031867, abs=1e-12)


def test_the_demo_campaigns(demo_campaigns):
    people, systems = (_check_equal(c) for c in demo_campaigns)
    # Literals of the report before partials (the seeded demo campaigns).
    assert (people["topics"], people["items"], len(people["pairs"])) == (30, 235, 6)
    assert people["fleiss"]["kappa"] == pytest.approx(0.7470486111111109, abs=1e-12)
    assert people["ac1"]["low"] == pytest.approx(0.7162178786325597, abs=1e-12)
    assert people["reliability"][0]["sensitivity"] == pytest.approx(0.9850931658188429, abs=1e-12)
    assert (systems["topics"], len(systems["systems"]), systems["ranking"]["units"]) == (40, 13, 40)
    assert systems["systems"][0]["consensus"]["f1"] == pytest.approx(0.9375709421112373, abs=1e-12)
    assert (systems["ranking"]["median"], systems["ranking"]["p5"]) == pytest.approx(
        (0.8974358974358975, 0.8205128205128205), abs=1e-12
    )
    assert systems["pairs"][0]["kappa_ci"]["high"] == pytest.approx(0.6214101839783048, abs=1e-12)


def test_without_judgments_or_runs(campaign):
    after = _check_equal(campaign)
    assert after["pairs"] == [] and after["systems"] == [] and after["ranking"] is None


def _partials(campaign) -> dict[str, bytes]:
    given = report_input(campaign)
    return {t.external_id: typed.pack(topic_partial(given, t, r.topic_report(given, t))) for t in given.topics}


def test_a_topic_partial_depends_on_that_topic_only(judged, people):
    before = _partials(judged)
    topic = judged.topics.get(external_id="q3")
    judgment = Judgment.objects.get(topic=topic, assessor=people["bob"])
    reopen_judgment(topic=topic, assessor=people["bob"], version=judgment.version)
    flipped = {c: not m for c, m in judgment.payload["matches"].items()}
    save_judgment(
        topic=topic,
        assessor=people["bob"],
        payload={"matches": flipped},
        status="submitted",
        version=judgment.version + 1,
    )
    q8 = judged.topics.get(external_id="q8")
    save_judgment(
        topic=q8,
        assessor=q8.assignments.first().assessor,
        payload={"matches": {f"c{c}": c % 2 == 0 for c in range(1, 6)}},
        status="submitted",
        version=0,
    )
    after = _partials(judged)
    assert after["q3"] != before["q3"] and after["q8"] != before["q8"]
    unchanged = {t for t in before if t not in ("q3", "q8")}
    assert {t: after[t] for t in unchanged} == {t: before[t] for t in unchanged}
    _check_equal(judged)


def test_a_partial_round_trips_bit_for_bit(judged):
    given = report_input(judged)
    for topic in given.topics:
        partial = topic_partial(given, topic, r.topic_report(given, topic))
        packed = typed.pack(partial)
        assert typed.pack(typed.unpack(packed, PairsPartial)) == packed
    q2 = next(t for t in given.topics if t.external_id == "q2")
    partial = topic_partial(given, q2, r.topic_report(given, q2))
    assert partial.items == 5 and partial.assessors == ["alice", "bob", "carol"]
    assert partial.adjudicated[:2] == [1.0, 0.0] and all(np.isnan(partial.adjudicated[2:]))
    assert partial.systems == ["sys0", "sys1", "sys2"] and partial.references == ["gold"]
