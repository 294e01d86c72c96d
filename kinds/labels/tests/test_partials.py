"""Labels: the campaign report merged from per-topic partials (kinds/labels/partials.py).

The reference is the report from scratch: every submitted judgment of every topic coded at
once (``coded`` over the campaign's topics, one SparseRatings of the whole campaign), its
figures by ``agreement_of``, the label models fitted to the dense items x assessors matrix
and the references read item by item from the runs and the curations
(``_reference_campaign_report`` below). The merge of the topics' partials must equal it to
1e-12 on seeded random sparse campaigns (assessors who label some topics and some items only,
"can't tell"s, a topic nobody judges, reference runs and adjudicated topics). A topic's
partial depends on that topic only; the accuracy rows against each reference are
scikit-learn's; the campaign's labels stay sparse, one entry per label.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotate.demo import SIMULATED
from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign, Judgment, Run, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import reopen_judgment, save_judgment
from annotate.services.members import add_member
from concord import typed
from kinds.labels import demo
from kinds.labels import partials as p
from kinds.labels.data import Scale
from kinds.labels.report import LabelsCampaignReport, agreement_of, coded, topic_report
from kinds.labels.stats import consensus
from scoring.partials import MergeInput, differences
from scoring.selectors import ReportInput, report_input
from stats import labelmodels as lm
from stats.intervals import interval_settings
from stats.ratings import SparseRatings

pytestmark = pytest.mark.django_db

nan = float("nan")

SCALES = {
    "nominal": {"level": "nominal", "categories": ["cat", "dog", "bird"], "cant_tell": True},
    "ordinal": {"level": "ordinal", "categories": ["none", "low", "mid", "high"], "cant_tell": True},
    "interval": {"level": "interval", "minimum": 1, "maximum": 5, "cant_tell": True, "weights": "linear"},
}


# -- the report from scratch ----------------------------------------------------------------------


def _reference_codes(scale: Scale, labels, items) -> np.ndarray:
    found = []
    for topic, item in items:
        value = ((labels or {}).get(topic) or {}).get(item)
        try:
            found.append(nan if value is None else float(scale.code(value)))
        except (TypeError, ValueError):
            found.append(nan)
    return np.array(found)


def _reference_campaign_report(input: ReportInput) -> LabelsCampaignReport:
    scale = Scale.of(input.campaign.params)
    q = len(scale.values)
    found = coded(input.topics, input.judgments, scale)
    dense = found.ratings.dense()
    references = [
        (run.name, _reference_codes(scale, run.data.get("labels"), found.items)) for run in p.reference_runs(input.runs)
    ]
    curated = {t.external_id: (input.curation(t, "consensus") or {}).get("labels") for t in input.topics}
    adjudicated = _reference_codes(scale, curated, found.items)
    if not np.isnan(adjudicated).all():
        references.append((p.ADJUDICATED_REFERENCE, adjudicated))
    fits = {model: lm.model_truth(dense, model, q) for model in lm.MODELS}
    packed = np.full(dense.shape, nan)  # each item's labels packed left, as the kind's consensus takes them
    for i, row in enumerate(dense):
        packed[i, : int((~np.isnan(row)).sum())] = row[~np.isnan(row)]
    models = {"majority vote": consensus(packed, q), **{m: f.labels for m, f in fits.items()}}
    return LabelsCampaignReport(
        **agreement_of(
            found.ratings,
            found.assessors,
            found.cant_tell,
            scale,
            interval_settings(input.campaign.params),
            keep=p.LIVE_PAIRS,
            matrix=p.MATRIX_ASSESSORS,
        ),
        topics=len(input.topics),
        reliability=p.reliability(found.ratings, found.assessors, fits["dawid-skene"], q),
        references=[
            p.reference_accuracy(name, codes, found.ratings, found.assessors, models, q) for name, codes in references
        ],
    )


def assert_merge_equals_reference(given: ReportInput) -> LabelsCampaignReport:
    merged = p.campaign_report(given)
    assert differences(typed.dump(merged), typed.dump(_reference_campaign_report(given)), tolerance=1e-12) == []
    # the topics a merge sees carry no data (scoring.jobs reads id, external_id, position), and
    # the partials come back from storage
    bare = [copy.copy(t) for t in given.topics]
    for t in bare:
        t.data, t.title = None, None
    partials = [
        typed.unpack(typed.pack(p.topic_partial(given, t, topic_report(given, t))), p.LabelsPartial)
        for t in given.topics
    ]
    again = p.merge(MergeInput(given.campaign, bare, given.runs), partials)
    assert typed.dump(again) == typed.dump(merged)
    return merged


# -- campaigns ----------------------------------------------------------------------------------------


def random_campaign(people, make_user, seed: int, level: str = "ordinal") -> Campaign:
    """Ten topics of 1-7 items, five assessors of different skill: each submits about 70% of
    the topics and says "can't tell" of about 15% of their items; t6 nobody opens. A reference
    run labels some topics (one label off the scale, one item "can't tell"), another a few
    items; t2 and t4 are adjudicated."""
    rng = random.Random(seed)
    params = SCALES[level]
    scale = Scale.of(params)
    q = len(scale.values)
    assessors = [make_user(f"lab{seed}{level[0]}-{k}") for k in range(5)]
    campaign = create_campaign(
        creator=people["organiser"], kind="labels", name=f"L{seed}{level}", overlap=5, params=params
    )
    for person in assessors:
        add_member(campaign=campaign, username=person.username, role="assessor")
    items = {f"t{t}": [f"t{t}i{i}" for i in range(rng.choice([1, 2, 4, 7]))] for t in range(1, 11)}
    truth = {item: rng.randrange(q) for ids in items.values() for item in ids}
    import_topics(
        campaign=campaign,
        topics=[
            {"external_id": t, "title": t, "data": {"items": [{"id": i, "text": f"text {i}"} for i in ids]}}
            for t, ids in items.items()
        ],
    )
    skill = [0.9, 0.8, 0.6, 0.4, 0.1]
    for topic in campaign.topics.order_by("position"):
        if topic.external_id == "t6":
            continue
        for k, person in enumerate(assessors):
            if rng.random() < 0.3:
                continue
            labels = {}
            for item in items[topic.external_id]:
                if rng.random() < 0.15:
                    labels[item] = None
                else:
                    code = truth[item] if rng.random() < skill[k] else rng.randrange(q)
                    labels[item] = scale.value(code)
            save_judgment(topic=topic, assessor=person, payload={"labels": labels}, status="submitted", version=0)
    gold = {
        t: {item: scale.value(truth[item]) for item in ids[:3]} for t, ids in items.items() if t in ("t1", "t3", "t5")
    }
    gold.setdefault("t1", {})[items["t1"][0]] = "off the scale" if not scale.numeric else 99
    gold["t7"] = {items["t7"][0]: None}
    silver = {"t2": {items["t2"][0]: scale.value(0)}, "t8": {i: scale.value(q - 1) for i in items["t8"]}}
    import_runs(
        campaign=campaign,
        runs=[
            {"name": "silver", "data": {"reference": True, "labels": silver}},
            {"name": "gold", "data": {"reference": True, "labels": gold}},
        ],
    )
    for external_id in ("t2", "t4"):
        topic = campaign.topics.get(external_id=external_id)
        labels = {item: scale.value(truth[item]) for item in items[external_id][:2]}
        save_curation(topic=topic, name="consensus", data={"labels": labels}, version=0, user=people["organiser"])
    return campaign


# -- tests --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", list(SCALES))
@pytest.mark.parametrize("seed", range(3))
def test_random_sparse_campaigns_merge_to_the_report_from_scratch(people, make_user, seed, level):
    campaign = random_campaign(people, make_user, seed, level)
    given = report_input(campaign)
    merged = assert_merge_equals_reference(given)
    assert merged.topics == 10 and len(merged.assessors) == 5
    assert [r.reference for r in merged.references] == ["gold", "silver", p.ADJUDICATED_REFERENCE]
    assert merged.items == sum(len(t.data["items"]) for t in given.topics)
    # without runs, without judgments, without topics
    assert_merge_equals_reference(ReportInput(campaign, given.topics, given.judgments, [], given.curations))
    assert_merge_equals_reference(ReportInput(campaign, given.topics, [], given.runs))
    assert_merge_equals_reference(ReportInput(campaign, [], [], given.runs))


def test_the_demo_campaign_merges_to_the_report_from_scratch(make_user):
    """The demo as ``manage.py seed`` builds it (annotate/demo: four simulated assessors, alice
    and bob): its figures before the people label anything, as kinds/labels/demo.py's docstring
    states them."""
    simulated = [make_user(name) for name in SIMULATED]
    campaign = demo.build(make_user("organiser", organiser=True), simulated, [make_user("alice"), make_user("bob")])
    merged = assert_merge_equals_reference(report_input(campaign))
    assert (merged.topics, merged.items, merged.items_paired) == (6, 60, 56)
    assert [a.judged for a in merged.assessors] == [50, 50, 50, 42]
    assert [a.cant_tell for a in merged.assessors] == [0, 0, 0, 8]
    assert (round(merged.alpha.value, 2), round(merged.alpha.low, 2), round(merged.alpha.high, 2)) == (0.72, 0.61, 0.79)
    assert round(merged.ac2.value, 2) == 0.76 and round(merged.fleiss.kappa, 2) == 0.20


def test_accuracy_rows_are_scikit_learns_against_each_reference(people, make_user):
    campaign = random_campaign(people, make_user, 11, "nominal")
    given = report_input(campaign)
    report = p.campaign_report(given)
    scale = Scale.of(campaign.params)
    found = coded(given.topics, given.judgments, scale)
    dense = found.ratings.dense()
    runs = {run.name: run.data["labels"] for run in given.runs}
    curated = {t.external_id: (given.curation(t, "consensus") or {}).get("labels") for t in given.topics}
    expected = {
        "gold": _reference_codes(scale, runs["gold"], found.items),
        "silver": _reference_codes(scale, runs["silver"], found.items),
        p.ADJUDICATED_REFERENCE: _reference_codes(scale, curated, found.items),
    }
    # the gold run's label off the scale and its "can't tell" are no reference; t1-t5's first
    # three items less that one, and the adjudicated topics' first two items
    assert report.references[0].items == int((~np.isnan(expected["gold"])).sum())
    assert report.references[2].items == sum(min(2, len(t.data["items"])) for t in given.topics[1:4:2])
    majority = consensus(found.ratings.packed(), len(scale.values))
    for reference in report.references:
        truth = expected[reference.reference]
        assert reference.items == int((~np.isnan(truth)).sum())
        columns = {name: dense[:, k] for k, name in enumerate(found.assessors)}
        rows = {row.name: row for row in reference.assessors}
        truth_sets = {row.name: row for row in reference.truth_sets}
        assert list(truth_sets) == ["majority vote", *lm.MODELS]
        for name, predicted in [*columns.items(), ("majority vote", majority)]:
            row = rows.get(name) or truth_sets[name]
            both = ~np.isnan(predicted) & ~np.isnan(truth)
            assert row.n == int(both.sum()), (reference.reference, name)
            if not both.any():
                assert np.isnan(row.accuracy) and np.isnan(row.kappa)
                continue
            a, b = predicted[both].astype(int), truth[both].astype(int)
            assert row.accuracy == pytest.approx(float(np.mean(a == b)), abs=1e-12)
            if len(set(a) | set(b)) > 1:
                assert row.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12), (reference.reference, name)


def test_dawid_skene_reliability_rows(people, make_user):
    """Each assessor's accuracy is the mean posterior of the labels they gave, their per-label
    figures the diagonal of their confusion matrix, from one fit to the dense matrix; the
    skilled assessors rank above the guesser (skills 0.9 ... 0.1 on every topic)."""
    campaign = random_campaign(people, make_user, 5, "ordinal")
    given = report_input(campaign)
    report = p.campaign_report(given)
    scale = Scale.of(campaign.params)
    q = len(scale.values)
    found = coded(given.topics, given.judgments, scale)
    dense = found.ratings.dense()
    fit = lm.model_truth(dense, "dawid-skene", q).fit
    posteriors, confusion = np.asarray(fit.posteriors), np.asarray(fit.confusion)
    for k, row in enumerate(report.reliability):
        items = np.flatnonzero(~np.isnan(dense[:, k]))
        assert (row.assessor, row.n_labels) == (found.assessors[k], len(items))
        chosen = posteriors[items, dense[items, k].astype(int)]
        assert row.accuracy == pytest.approx(float(chosen.mean()), abs=1e-12)
        assert row.per_label == pytest.approx(np.diag(confusion[k]).tolist(), abs=1e-12)
    accuracy = [row.accuracy for row in report.reliability]
    assert min(accuracy[:2]) > accuracy[4]


def test_a_topics_partial_depends_on_that_topic_only(people, make_user):
    campaign = random_campaign(people, make_user, 7, "interval")
    topics = list(campaign.topics.order_by("position"))
    before = report_input(campaign)
    packed = {t.pk: typed.pack(p.topic_partial(before, t)) for t in topics}
    changed = Judgment.objects.filter(topic=topics[0]).select_related("assessor").first()
    reopen_judgment(topic=topics[0], assessor=changed.assessor, version=changed.version)
    flipped = {i: (6 - v if v is not None else 3) for i, v in changed.payload["labels"].items()}
    save_judgment(
        topic=topics[0],
        assessor=changed.assessor,
        payload={"labels": flipped},
        status="submitted",
        version=changed.version + 1,
    )
    after = report_input(campaign)
    assert typed.pack(p.topic_partial(after, topics[0])) != packed[topics[0].pk]
    for t in topics[1:]:
        assert typed.pack(p.topic_partial(after, t)) == packed[t.pk]
    # the partial read from the topic's own input (what a recompute of it reads) is the same bytes
    alone = report_input(campaign, topic_ids=[topics[2].pk])
    assert typed.pack(p.topic_partial(alone, topics[2])) == packed[topics[2].pk]
    assert_merge_equals_reference(after)


def test_a_topic_nobody_judged_has_an_empty_partial(people, make_user):
    campaign = random_campaign(people, make_user, 2, "nominal")
    given = report_input(campaign)
    t6 = next(t for t in given.topics if t.external_id == "t6")
    partial = p.topic_partial(given, t6)
    n = len(t6.data["items"])
    assert (partial.items, partial.item_ids, partial.assessors, partial.codes) == (
        n,
        [item["id"] for item in t6.data["items"]],
        [],
        [],
    )
    assert partial.references == ["gold", "silver"] and len(partial.reference_codes) == 2 * n
    assert np.isnan(partial.adjudicated).all()


# -- the campaign's labels stay sparse ----------------------------------------------------------------


def crowd(topics: int, workers: int, per_topic: int, seed: int = 3) -> tuple[MergeInput, list[p.LabelsPartial], int]:
    """Topics of four items, each labelled by ``per_topic`` of ``workers`` workers (some can't
    tell): the partials the merge reads, and how many labels they hold."""
    rng = np.random.default_rng(seed)
    names = [f"w{k:04d}" for k in range(workers)]
    partials, given = [], 0
    for _ in range(topics):
        who = np.sort(rng.choice(workers, per_topic, replace=False))
        truth = rng.integers(0, 3, 4)
        codes = np.where(rng.random((4, per_topic)) < 0.7, truth[:, None], rng.integers(0, 3, (4, per_topic)))
        codes = codes.astype(float)
        unsure = rng.random(codes.shape) < 0.1
        codes[unsure] = nan
        given += int((~unsure).sum())
        partials.append(
            p.LabelsPartial(
                items=4,
                item_ids=[f"i{i}" for i in range(4)],
                assessors=[names[k] for k in who],
                codes=codes.ravel().tolist(),
                cant_tell=unsure.sum(axis=0).tolist(),
                references=[],
                reference_codes=[],
                adjudicated=[nan] * 4,
            )
        )
    campaign = Campaign(kind="labels", params={"categories": ["a", "b", "c"], "cant_tell": True, "resamples": 50})
    stub = [Topic(id=t + 1, external_id=f"t{t}", position=t) for t in range(topics)]
    runs = [Run(name="gold", data={"reference": True, "labels": {}})]
    return MergeInput(campaign, stub, runs), partials, given


def test_a_crowds_merge_holds_one_entry_per_label(monkeypatch):
    """3,000 items (750 topics of 4) each labelled by about 5 of 400 workers: the merge's
    labels are one SparseRatings of exactly as many entries as labels were given (can't tells
    left out), never laid out as the 3,000 x 400 matrix (SparseRatings.dense and from_dense are
    never called),
    and the report still counts every label."""
    given, partials, labels = crowd(750, 400, 5)
    built: list[SparseRatings] = []
    original = SparseRatings.from_entries.__func__

    def recording(cls, *args, **kwargs):
        made = original(cls, *args, **kwargs)
        built.append(made)
        return made

    def refused(self):
        raise AssertionError("the merge laid the labels out as items x raters")

    monkeypatch.setattr(SparseRatings, "from_entries", classmethod(recording))
    monkeypatch.setattr(SparseRatings, "dense", refused)
    monkeypatch.setattr(SparseRatings, "from_dense", classmethod(lambda cls, matrix: refused(matrix)))
    report = p.merge(given, partials)
    campaign_table = [r for r in built if (r.n_items, r.n_raters) == (3000, 400)]
    assert campaign_table and all(len(r.values) == len(r.items) == len(r.raters) == labels for r in campaign_table)
    assert labels < 3000 * 400 / 50  # the sparse table: 1 cell in 80 of the matrix
    assert sum(a.judged for a in report.assessors) == labels
    assert sum(a.cant_tell for a in report.assessors) == 750 * 4 * 5 - labels
    assert report.items == 3000 and report.pair_count > p.LIVE_PAIRS == len(report.pairs)
    # the pairs listed are those sharing the most items (ties: the earlier pair), in pair order
    shared: dict[tuple[str, str], int] = {}
    for partial in partials:
        codes = np.array(partial.codes).reshape(partial.items, len(partial.assessors))
        for i, first in enumerate(partial.assessors):
            for j in range(i + 1, len(partial.assessors)):
                both = int((~np.isnan(codes[:, i]) & ~np.isnan(codes[:, j])).sum())
                if both:
                    key = (first, partial.assessors[j])
                    shared[key] = shared.get(key, 0) + both
    assert report.pair_count == len(shared)
    most = sorted(shared, key=lambda pair: (-shared[pair], pair))[: p.LIVE_PAIRS]
    assert [tuple(pair.assessors) for pair in report.pairs] == sorted(most)
    assert all(pair.n == shared[tuple(pair.assessors)] for pair in report.pairs)
    assert [(r.reference, r.items) for r in report.references] == [("gold", 0)]
