"""A crowd's pairs: the campaign report lists the pairs of assessors with the most shared
items (kinds/pairs/partials.py ``LIVE_PAIRS``) and counts every pair, and its kappa matrix
holds every pair's kappa from one product of the votes, equal to the figures pair by pair."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs import partials as pairs_partials
from kinds.pairs import report as pairs_report
from scoring import services as scoring_services
from scoring.selectors import campaign_report
from stats.agreement import pairwise_agreement
from stats.intervals import IntervalSettings
from stats.ratings import SparseRatings
from tests.campaigns import pairs_topics


def crowd(items: int, workers: int, per_item: int, seed: int = 3) -> np.ndarray:
    """items x workers votes (NaN: not judged), each item judged by ``per_item`` workers."""
    rng = np.random.default_rng(seed)
    matrix = np.full((items, workers), np.nan)
    truth = rng.random(items) < 0.4
    for item in range(items):
        who = rng.choice(workers, per_item, replace=False)
        matrix[item, who] = np.where(rng.random(per_item) < 0.8, truth[item], ~truth[item])
    return matrix


def same(x: float | None, y: float | None) -> bool:
    return (x is None and y is None) or (
        x is not None and y is not None and (x == y or math.isnan(x) and math.isnan(y))
    )


def test_every_pair_s_kappa_equals_the_pair_by_pair_figure_bit_for_bit():
    matrix = crowd(60, 12, 4)
    names = [f"w{k}" for k in range(12)]
    fields = pairs_report.agreement_of(SparseRatings.from_dense(matrix), names, IntervalSettings())
    judged = ~np.isnan(matrix)
    expected_pairs = []
    for i, j in combinations(range(12), 2):
        shared = judged[:, i] & judged[:, j]
        expected = pairwise_agreement(matrix[shared, i] == 1, matrix[shared, j] == 1).kappa if shared.any() else None
        assert same(fields["kappa_matrix"][i][j], expected) and same(fields["kappa_matrix"][j][i], expected)
        if shared.any():
            expected_pairs.append((names[i], names[j]))
    assert [tuple(p.assessors) for p in fields["pairs"]] == expected_pairs  # every pair sharing an item, in order
    assert all(fields["kappa_matrix"][k][k] == 1.0 for k in range(12))
    assert "pair_count" not in fields  # a topic's report lists all its pairs


def test_the_listed_pairs_are_those_with_the_most_shared_items():
    matrix = crowd(80, 14, 4, seed=5)
    names = [f"w{k:02d}" for k in range(14)]
    everything = pairs_report.agreement_of(SparseRatings.from_dense(matrix), names, IntervalSettings())
    kept = pairs_report.agreement_of(SparseRatings.from_dense(matrix), names, IntervalSettings(), keep=7)
    assert kept["pair_count"] == len(everything["pairs"]) > 7
    assert all(
        same(x, y) for row, other in zip(kept["kappa_matrix"], everything["kappa_matrix"]) for x, y in zip(row, other)
    )
    # the 7 with the most shared items (ties: the earlier pair), in pair order
    order = sorted(range(len(everything["pairs"])), key=lambda p: -everything["pairs"][p].n)[:7]
    assert [p.assessors for p in kept["pairs"]] == [everything["pairs"][p].assessors for p in sorted(order)]
    smallest_kept = min(p.n for p in kept["pairs"])
    listed = {p.assessors for p in kept["pairs"]}
    assert all(p.n <= smallest_kept for p in everything["pairs"] if p.assessors not in listed)
    for pair in kept["pairs"]:
        (full,) = [p for p in everything["pairs"] if p.assessors == pair.assessors]
        assert (pair.a, pair.b, pair.c, pair.d, pair.n, pair.kappa) == (
            full.a,
            full.b,
            full.c,
            full.d,
            full.n,
            full.kappa,
        )


@pytest.mark.django_db
def test_the_report_page_says_how_many_pairs_it_lists_and_where_the_others_are(client, people, monkeypatch):
    monkeypatch.setattr(pairs_partials, "LIVE_PAIRS", 2)
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=4)
    names = ("alice", "bob", "carol", "dave")
    for name in names:
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(campaign=campaign, topics=pairs_topics(3, 4))
    rng = np.random.default_rng(2)
    for topic in campaign.topics.order_by("position"):
        for assignment in topic.assignments.select_related("assessor"):
            if assignment.assessor.username == "dave" and topic.external_id != "q1":
                continue  # dave judged one topic: his pairs share the fewest items
            matches = {f"c{c + 1}": bool(rng.random() < 0.5) for c in range(4)}
            save_judgment(
                topic=topic, assessor=assignment.assessor, payload={"matches": matches}, status="submitted", version=0
            )
    scoring_services.recompute_reports(campaign.pk, everything=True)
    data = campaign_report(campaign).data
    assert data.pair_count == 6 and len(data.pairs) == 2
    assert all("dave" not in p.assessors for p in data.pairs) and all(p.n == 12 for p in data.pairs)
    client.force_login(people["organiser"])
    page = client.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert page.count('<td class="kappa">') == 2
    note = page.split('id="pairs-shown"')[1].split("</p>")[0]
    assert "Showing the 2 of 6 pairs" in note
    assert "the live report lists the 2 with the most shared items" in note
    assert "every pair's kappa is in the heatmap's full matrix" in note
    assert "with the intervals of the 2 pairs listed" in page
    # every pair's kappa in the matrix CSV, the listed pairs with their intervals
    rows = (
        client.get(
            f"/campaigns/{campaign.pk}/report/matrix.csv",
            {"names": "names", "values": "kappa_matrix", "layout": "long"},
        )
        .content.decode()
        .splitlines()[1:]
    )
    assert len(rows) == 6 and sum(1 for row in rows if row.endswith(",,,,")) == 4
