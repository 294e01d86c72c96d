"""The nuggets kind's running sums (kinds/nuggets/sums.py): the report from the summed counts
equals the merge's (kinds/nuggets/partials.py) on random campaigns: questions with no nugget,
nuggets some assessors left unlabelled, original labels on every nugget or missing on some,
runs that responded to some questions only (with empty responses and questions no run
answered), assessors who labelled every nugget and others."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from annotate.models import Campaign, Run, Topic
from concord import typed
from kinds.nuggets import partials as np_
from kinds.nuggets import report as r
from kinds.nuggets.partials import NuggetsPartial
from kinds.nuggets.sums import NuggetsSums, contribution, refresh
from scoring import sums
from scoring.partials import MergeInput, differences

ASSESSORS = ("ann", "bea", "cal", "dan", "eve")
RUNS = ("r1", "r2", "r3", "r4")


def random_campaign(seed: int, topics: int = 14, unlabelled: float = 0.0, complete: int = 2):
    """``topics`` questions' partials: ``complete`` of the assessors label every nugget of
    every question, the others some; each question's nuggets lack an original label with
    probability ``unlabelled``; runs r1 and r2 are the campaign's, r3 and r4 appear only in
    questions' data (as responses in the topic data do)."""
    rng = np.random.default_rng(seed)
    diligent = set(rng.choice(ASSESSORS, size=complete, replace=False).tolist())
    made, rows = [], []
    for t in range(topics):
        k = int(rng.choice([0, 1, 2, 3, 5]))
        ids = [f"n{j}" for j in range(k)]
        originals = [str(rng.choice(["vital", "okay"])) for _ in ids]
        if k and rng.random() < unlabelled:
            originals[int(rng.integers(k))] = None
        who, labels = [], []
        for name in ASSESSORS:
            if not k or (name not in diligent and rng.random() < 0.4):
                continue
            row = [float(rng.integers(2)) for _ in ids]
            if name not in diligent:
                row = [math.nan if rng.random() < 0.3 else v for v in row]
                if all(math.isnan(v) for v in row):
                    row[0] = 1.0  # an assessor with labels here has one at least, as topic_partial gives
            who.append(name)
            labels += row
        responded = sorted(r for r in RUNS if rng.random() < 0.6)
        lengths = [float(rng.choice([0, 40, 150, 420])) for _ in responded]
        matches = [bool(rng.random() < 0.4) for _ in responded for _ in ids]
        made.append(
            NuggetsPartial(
                external_id=f"q{t:02d}",
                title=f"Question {t}",
                target=f"target {t}",
                nugget_ids=ids,
                texts=[f"nugget {t}.{j}" for j in range(k)],
                originals=originals,
                assessors=who,
                labels=labels,
                runs=responded,
                lengths=lengths,
                matches=matches,
            )
        )
        rows.append(Topic(pk=1000 - t, external_id=f"q{t:02d}", position=t))
    runs = [Run(name=name, data={}) for name in RUNS[:2]]
    given = MergeInput(Campaign(kind="nuggets", params={"resamples": 50}), rows, runs)
    return given, made


def summed(given: MergeInput, partials) -> NuggetsSums:
    return sums.total(NuggetsSums(), (contribution(given.campaign, t, p) for t, p in zip(given.topics, partials)))


@pytest.mark.parametrize("unlabelled", [0.0, 0.3])
@pytest.mark.parametrize("seed", range(6))
def test_the_report_from_the_sums_is_the_merges(seed, unlabelled):
    given, partials = random_campaign(seed, unlabelled=unlabelled, complete=seed % 3)
    merged = np_.merge(given, partials)
    assert differences(typed.dump(refresh(given, merged, summed(given, partials))), typed.dump(merged)) == []


def test_the_random_campaigns_reach_what_the_sums_follow():
    """The cases above are not all trivial: original labels present and not, complete
    assessors and runs' scores under their labels, unanswered and empty questions, Fleiss'
    kappa and label pairs with the original labels."""
    seen = set()
    for seed in range(6):
        for unlabelled in (0.0, 0.3):
            given, partials = random_campaign(seed, unlabelled=unlabelled, complete=seed % 3)
            report = np_.merge(given, partials)
            seen.add(("original", report.has_original))
            seen.add(("some unanswered", report.scored_questions < report.questions))
            seen.add(("empty question", any(not p.nugget_ids for p in partials)))
            seen.add(("assessor model", any(set(run.scores) - {"pyramid", "original"} for run in report.runs)))
            seen.add(("fleiss", math.isfinite(report.label_agreement.fleiss.value)))
            seen.add(("original pair", any("original" in p.labellings for p in report.label_agreement.pairs)))
    assert {
        ("original", True),
        ("original", False),
        ("some unanswered", True),
        ("empty question", True),
        ("assessor model", True),
        ("fleiss", True),
        ("original pair", True),
    } <= seen


def _figures(dumped):
    """A dumped report without what comes from the fits: intervals' bounds and methods,
    the chance test, the reliabilities, the ranking's stability and Tables 3 and 4."""
    if isinstance(dumped, dict):
        if {"value", "low", "high", "method"} <= dumped.keys():
            return {"value": dumped["value"], "units": dumped["units"]}
        return {
            key: _figures(value)
            for key, value in dumped.items()
            if key not in ("reliability", "ranking", "stability", "fleiss_chance_test")
        }
    if isinstance(dumped, list):
        return [_figures(value) for value in dumped]
    return dumped


@pytest.mark.parametrize("seed", range(3))
def test_every_figure_from_counts_is_current_whatever_the_fits(seed):
    """The fits of another campaign (other assessors' pairs, other figures) lend only their
    bounds: every value, count and list is the sums'."""
    given, partials = random_campaign(seed, unlabelled=0.0 if seed % 2 else 0.3)
    other, others = random_campaign(seed + 50, topics=5, unlabelled=0.3 if seed % 2 else 0.0, complete=0)
    fits = np_.merge(other, others)
    merged = np_.merge(given, partials)
    refreshed = refresh(given, fits, summed(given, partials))
    assert differences(_figures(typed.dump(refreshed)), _figures(typed.dump(merged))) == []
    assert refreshed.reliability == fits.reliability and refreshed.stability == fits.stability


def test_a_question_out_and_in_again_leaves_the_sums_as_from_scratch():
    given, partials = random_campaign(7, unlabelled=0.2)
    pairs = list(zip(given.topics, partials))
    campaign = given.campaign
    total = summed(given, partials)
    _, others = random_campaign(8, unlabelled=0.2)
    changed = [(pairs[3][0], dataclasses.replace(others[3], external_id=partials[3].external_id))]
    updated = sums.add(sums.add(total, contribution(campaign, *pairs[3]), -1), contribution(campaign, *changed[0]))
    after = [*partials[:3], changed[0][1], *partials[4:]]
    fresh = summed(given, after)
    assert differences(typed.dump(updated), typed.dump(fresh), tolerance=1e-12) == []
    # and the report of the updated sums is the merge of the changed partials
    merged = np_.merge(given, after)
    assert differences(typed.dump(refresh(given, merged, updated)), typed.dump(merged)) == []
    # every question out: the sums of no question
    emptied = sums.total(updated, (contribution(campaign, t, p) for t, p in zip(given.topics, after)), sign=-1)
    assert typed.dump(emptied) == typed.dump(NuggetsSums())


@pytest.mark.parametrize("unlabelled", [0.0, 0.3])
def test_each_questions_pyramid_from_its_partial_is_the_merges(unlabelled):
    """A question's row of the per-question list (``topic_row``, from its partial and the report)
    has the votes and weights the merge's arrays give it: the original labels' votes counted
    when every nugget of the campaign has one, and only then."""
    given, partials = random_campaign(3, unlabelled=unlabelled)
    merged = np_.merge(given, partials)
    report = refresh(given, merged, summed(given, partials))
    a = np_.merged_arrays(given, partials)
    expected = r.pyramid_rows(
        a,
        [len(p.nugget_ids) for p in partials],
        a.nugget_ids,
        [text for p in partials for text in p.texts],
        [label for p in partials for label in p.originals],
    )
    rows = [np_.topic_row(t, p, report) for t, p in zip(given.topics, partials)]
    assert report.has_original == (unlabelled == 0.0)
    assert differences(typed.dump([row.nuggets for row in rows]), typed.dump(expected), tolerance=1e-12) == []
    assert [row.topic for row in rows] == [t.external_id for t in given.topics]


def odd_partial(partials, odd):
    return next(p for p in partials if p.external_id == odd.external_id)


def test_an_original_label_written_around_the_checks_is_listed_as_given():
    """Topic data whose original label is neither vital nor okay (written past the checks): the
    pyramid lists it as the merge does, rather than failing the rebuild."""
    given, partials = random_campaign(4, unlabelled=0.0)
    odd = next(p for p in partials if p.nugget_ids)
    partials = [dataclasses.replace(odd, originals=["maybe", *odd.originals[1:]]) if p is odd else p for p in partials]
    merged = np_.merge(given, partials)
    refreshed = refresh(given, merged, summed(given, partials))
    [topic] = [t for t in given.topics if t.external_id == odd.external_id]
    assert np_.topic_row(topic, odd_partial(partials, odd), refreshed).nuggets[0].original == "maybe"
    assert differences(typed.dump(refreshed), typed.dump(merged)) == []
