"""The relevance kind's running sums (kinds/relevance/sums.py): the report from the sums equals
the merge's (kinds/relevance/partials.py) on random campaigns: topics without a document or
without a grade, assessors who grade some topics (some documents) only or a topic with no
grade at all, grades above the scale (stored before it was shortened), qrels sets that some
topics only have, systems tied on scores that add up to the same in another order. The
grades' NaN marks a document not graded; a system's score is finite (trec_eval's measures
are in [0, 1]), so that is the only NaN there is.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from annotate.models import Campaign, Judgment, Run, Topic
from annotate.services.judgments import reopen_judgment, save_judgment
from concord import typed
from kinds.relevance import partials as rp
from kinds.relevance.sums import RelevanceSums, contribution, refresh
from kinds.relevance.tests.test_partials import random_campaign
from scoring import sums
from scoring.partials import MergeInput, differences, merge_input
from scoring.selectors import report_input

SCALE = ["non-relevant", "related", "relevant", "highly relevant"]
SYSTEMS = ("bm25", "dense", "sparse")
#: scores of one topic: P@10's tenths, and a few values the others share, so that systems tie
SCORES = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1 / 3, 0.25, 1.0)


def random_partial(rng: random.Random, external_id: str, *, above_scale: bool = False) -> rp.RelevancePartial:
    """A topic of 0-5 documents graded by some of five assessors (one of them, at times, with a
    judgment that grades nothing), its qrels sets those its grades make, every system scored on
    each."""
    documents = [f"{external_id}-d{k}" for k in range(rng.choice([0, 1, 2, 3, 5]))]
    assessors = sorted(name for name in ("ann", "bob", "cy", "dee", "eve") if rng.random() < 0.6)
    top = 5 if above_scale else 3
    grades = [
        float(rng.randint(0, top)) if rng.random() < (0.0 if name == "eve" and rng.random() < 0.3 else 0.8) else np.nan
        for name in assessors
        for _ in documents
    ]
    matrix = np.array(grades, dtype=np.float64).reshape(len(assessors), len(documents))
    graded = [name for a, name in enumerate(assessors) if (~np.isnan(matrix[a])).any()]
    sets = [name for name in rp.vote_truths(assessors) if name == "consensus" and graded or name[7:] in graded]
    scores = [
        rng.choice(SCORES) if rng.random() < 0.7 else rng.random() for _ in sets for _ in SYSTEMS for _ in rp.MEASURES
    ]
    return rp.RelevancePartial(
        documents=documents,
        assessors=assessors,
        grades=grades,
        sets=sets,
        systems=list(SYSTEMS) if sets else [],
        scores=scores,
    )


def random_campaign_partials(seed: int, topics: int = 12, *, above_scale: bool = False, threshold: int = 1):
    rng = random.Random(seed)
    campaign = Campaign(kind="relevance", params={"scale": SCALE, "threshold": threshold, "resamples": 50})
    runs = [Run(name=name, data={"ranking": {}}) for name in SYSTEMS]
    rows = [Topic(pk=500 - t, external_id=f"q{t:02d}", position=t) for t in range(topics)]
    made = [random_partial(rng, t.external_id, above_scale=above_scale and rng.random() < 0.2) for t in rows]
    return MergeInput(campaign, rows, runs), made


def without(partial: rp.RelevancePartial, name: str) -> rp.RelevancePartial:
    """``partial`` as if ``name`` had not judged the topic."""
    if name not in partial.assessors:
        return partial
    a, n = partial.assessors.index(name), len(partial.documents)
    kept = [s for s in partial.sets if s != f"single:{name}"]
    cells = len(partial.systems) * len(rp.MEASURES)
    return dataclasses.replace(
        partial,
        assessors=[x for x in partial.assessors if x != name],
        grades=partial.grades[: a * n] + partial.grades[(a + 1) * n :],
        sets=kept,
        scores=[
            v for q, s in enumerate(partial.sets) if s in kept for v in partial.scores[q * cells : (q + 1) * cells]
        ],
    )


def summed(given: MergeInput, partials) -> RelevanceSums:
    return sums.total(RelevanceSums(), (contribution(given.campaign, t, p) for t, p in zip(given.topics, partials)))


@pytest.mark.parametrize("above_scale", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_report_from_the_sums_is_the_merges(seed, above_scale):
    given, partials = random_campaign_partials(seed, above_scale=above_scale, threshold=1 + seed % 3)
    merged = rp.merge(given, partials)
    assert differences(typed.dump(refresh(given, merged, summed(given, partials))), typed.dump(merged)) == []


def test_campaigns_without_grades_or_topics_refresh_to_their_merge():
    given, partials = random_campaign_partials(3)
    bare = [dataclasses.replace(p, assessors=[], grades=[], sets=[], systems=[], scores=[]) for p in partials]
    for topics, made in ((given.topics, bare), ([], [])):
        inputs = MergeInput(given.campaign, topics, given.runs)
        merged = rp.merge(inputs, made)
        assert differences(typed.dump(refresh(inputs, merged, summed(inputs, made))), typed.dump(merged)) == []
    # every grade withdrawn since the fits: no evaluation, and so no ranking's bootstrap
    fits = rp.merge(given, partials)
    assert fits.ranking is not None
    refreshed = refresh(given, fits, summed(given, bare))
    assert (refreshed.evaluation, refreshed.ranking, refreshed.names, refreshed.pairs) == (None, None, [], [])
    # grades but no run: no evaluation
    inputs = MergeInput(given.campaign, given.topics, [])
    unscored = [dataclasses.replace(p, systems=[], scores=[]) for p in partials]
    merged = rp.merge(inputs, unscored)
    assert merged.evaluation is None and merged.names
    assert differences(typed.dump(refresh(inputs, merged, summed(inputs, unscored))), typed.dump(merged)) == []


def test_a_topic_out_and_in_again_leaves_the_sums_as_from_scratch():
    given, partials = random_campaign_partials(7, above_scale=True)
    _, others = random_campaign_partials(8, above_scale=True)
    pairs = list(zip(given.topics, partials))
    running = summed(given, partials)
    now = list(partials)
    rng = random.Random(9)
    for _ in range(30):  # changes in any order: every topic's old contribution out, its new one in
        k = rng.randrange(len(now))
        new = others[rng.randrange(len(others))] if rng.random() < 0.7 else partials[k]
        running = sums.add(
            sums.add(running, contribution(given.campaign, pairs[k][0], now[k]), -1),
            contribution(given.campaign, pairs[k][0], new),
        )
        now[k] = new
    fresh = summed(given, now)
    # counts and the scores' limbs exactly; the overlaps' sums of floats to rounding
    assert differences(typed.dump(running), typed.dump(fresh), tolerance=1e-12) == []
    assert (running.evaluation, running.pairs, running.moments) == (fresh.evaluation, fresh.pairs, fresh.moments)
    # and the report from the running sums is the merge's, ties between systems and all
    merged = rp.merge(given, now)
    assert differences(typed.dump(refresh(given, merged, running)), typed.dump(merged)) == []


def test_systems_tied_on_sums_of_one_value_in_another_order_tie_after_any_changes():
    """Two systems scoring 0.1, 0.2, 0.3 and 0.3, 0.2, 0.1 under every set (in floats, 0.1 + 0.2 +
    0.3 is not 0.3 + 0.2 + 0.1): the merge ranks them tied, as the sums do after a topic's score
    went out and in again, and the stability between the sets is that of the tie."""
    given, partials = random_campaign_partials(11, topics=3)
    graded = [
        dataclasses.replace(p, documents=["d"], assessors=["ann", "bob"], grades=[1.0, 2.0], sets=[], scores=[])
        for p in partials
    ]
    sets = ["consensus", "single:ann", "single:bob"]
    per_system = {"bm25": (0.1, 0.2, 0.3), "dense": (0.3, 0.2, 0.1), "sparse": (0.9, 0.9, 0.9)}
    made = [
        dataclasses.replace(
            p,
            sets=sets,
            systems=list(SYSTEMS),
            scores=[per_system[s][t] for _ in sets for s in SYSTEMS for _ in rp.MEASURES],
        )
        for t, p in enumerate(graded)
    ]
    merged = rp.merge(given, made)
    means = {row.system: row.scores["consensus"]["MAP"] for row in merged.evaluation.systems}
    assert means["bm25"] == means["dense"]
    assert [s.tau[0][1] for s in merged.evaluation.stability] == [1.0] * len(rp.MEASURES)
    running = summed(given, made)
    other = dataclasses.replace(made[0], scores=[0.7] * len(made[0].scores))
    running = sums.add(
        sums.add(running, contribution(given.campaign, given.topics[0], made[0]), -1),
        contribution(given.campaign, given.topics[0], other),
    )
    running = sums.add(
        sums.add(running, contribution(given.campaign, given.topics[0], other), -1),
        contribution(given.campaign, given.topics[0], made[0]),
    )
    assert differences(typed.dump(refresh(given, merged, running)), typed.dump(merged)) == []


def test_the_costly_figures_are_the_fits_and_the_rest_the_sums():
    """Refreshed from older fits: every point figure is the new merge's; the intervals' bounds,
    the reliabilities and the ranking's bootstrap are the fits'; a pair new since the fits has
    no interval yet."""
    given, before = random_campaign_partials(4, topics=10)
    _, after = random_campaign_partials(5, topics=10)
    before = [without(p, "eve") for p in before]  # eve's pairs are new since the fits
    fits, merged = rp.merge(given, before), rp.merge(given, after)
    refreshed = refresh(given, fits, summed(given, after))
    assert refreshed.reliability == fits.reliability and refreshed.ranking == fits.ranking
    assert differences(typed.dump(refreshed.evaluation), typed.dump(merged.evaluation)) == []
    assert refreshed.alpha.ordinal == pytest.approx(merged.alpha.ordinal, abs=1e-12)
    assert (refreshed.alpha.ordinal_ci.low, refreshed.alpha.ordinal_ci.high) == (
        fits.alpha.ordinal_ci.low,
        fits.alpha.ordinal_ci.high,
    )
    assert refreshed.alpha.ordinal_ci.value == refreshed.alpha.ordinal
    assert refreshed.alpha.ordinal_ci.units == merged.alpha.ordinal_ci.units == merged.alpha.items
    old = {p.assessors: p for p in fits.pairs}
    assert [p.assessors for p in refreshed.pairs] == [p.assessors for p in merged.pairs]
    for mine, theirs in zip(refreshed.pairs, merged.pairs):
        assert (mine.n, mine.intersection, mine.union) == (theirs.n, theirs.intersection, theirs.union)
        assert mine.kappa == pytest.approx(theirs.kappa, abs=1e-12, nan_ok=True)
        if mine.assessors in old:
            was = old[mine.assessors].kappa_ci
            assert (mine.kappa_ci.low, mine.kappa_ci.high, mine.kappa_ci.method) == (was.low, was.high, was.method)
        else:
            assert mine.kappa_ci.method == "none"
    assert any(p.assessors not in old for p in refreshed.pairs)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(2))
def test_real_partials_and_a_resubmission_refresh_to_the_merge(people, make_user, seed):
    """The partials ``topic_partial`` computes (ireval's scores) of a random campaign; then a
    resubmission's topic out and in again."""
    campaign = random_campaign(people, make_user, seed)
    given = report_input(campaign)
    made = [rp.topic_partial(given, t) for t in given.topics]
    merged = rp.merge(merge_input(given), made)
    running = sums.total(RelevanceSums(), (contribution(campaign, t, p) for t, p in zip(given.topics, made)))
    assert differences(typed.dump(refresh(merge_input(given), merged, running)), typed.dump(merged)) == []
    judgment = Judgment.objects.filter(topic__campaign=campaign).select_related("topic", "assessor").first()
    topic = judgment.topic
    reopen_judgment(topic=topic, assessor=judgment.assessor, version=judgment.version)
    regraded = {d: 3 - g for d, g in judgment.payload["grades"].items()}
    save_judgment(
        topic=topic,
        assessor=judgment.assessor,
        payload={"grades": regraded},
        status="submitted",
        version=judgment.version + 1,
    )
    after = report_input(campaign)
    k = [t.pk for t in after.topics].index(topic.pk)
    fresh = rp.topic_partial(after, after.topics[k])
    running = sums.add(
        sums.add(running, contribution(campaign, after.topics[k], made[k]), -1),
        contribution(campaign, after.topics[k], fresh),
    )
    made[k] = fresh
    merged = rp.merge(merge_input(after), made)
    assert differences(typed.dump(refresh(merge_input(after), merged, running)), typed.dump(merged)) == []
