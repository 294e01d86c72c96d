"""Paper-exact conventions: WCA's weights (Kim, Zhai & Han 4.2), RBA's ties
(4.3) and the factoid annotation kappa's unit (van Halteren & Teufel 3.1)."""

from __future__ import annotations

import pytest

from kinds.factoids.stats import annotation_items, annotation_kappa

pytestmark = pytest.mark.filterwarnings("error")

SUMMARIES = [
    {"id": "a", "model": True, "sentences": ["a1", "a2"]},
    {"id": "b", "model": True, "sentences": ["b1"]},
    {"id": "c", "model": False, "sentences": ["c1", "c2", "c3"]},
]


def test_annotation_kappa_defaults_to_factoid_summary_combinations():
    one = {"factoids": ["F1", "F2"], "marks": {"a1": ["F1"], "b1": ["F2"], "c3": ["F1"]}}
    two = {"factoids": ["F1", "F2"], "marks": {"a2": ["F1"], "b1": ["F2"], "c1": ["F2"]}}
    items = annotation_items([one, two], SUMMARIES)
    # N = 2 factoids x 3 summaries (the paper's N: factoids x summaries, section 3.1)
    assert items.unit.tolist() == ["a", "b", "c", "a", "b", "c"]
    assert items.labels.astype(int).tolist() == [[1, 1], [0, 0], [1, 0], [0, 0], [1, 1], [0, 1]]
    # P(A) = 4/6; p = 6/12, P(E) = 1/2; kappa = (2/3 - 1/2) / (1/2) = 1/3.
    default = annotation_kappa([one, two], SUMMARIES)
    assert (default.n_items, default.observed, default.expected) == (6, pytest.approx(2 / 3), 0.5)
    assert default.kappa == pytest.approx(1 / 3)
    assert default == annotation_kappa([one, two], SUMMARIES, unit="summary")
    # The sentence option: 2 x 6 sentences; F1 in a1 vs a2 now disagrees twice.
    by_sentence = annotation_kappa([one, two], SUMMARIES, unit="sentence")
    assert by_sentence.n_items == 12
    # agree on 8 of 12 (b1-F2 both present, 7 both absent); p = 6/24, P(E) = 10/16.
    assert by_sentence.observed == pytest.approx(8 / 12)
    assert by_sentence.kappa == pytest.approx((8 / 12 - 10 / 16) / (1 - 10 / 16))
