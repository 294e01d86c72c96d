"""Tests for kinds.pairs.stats: truth sets from several adjudicators' votes (Arehart, Wolf & Miller, Table 1)."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from kinds.pairs.stats import (
    consensus,
    intersection,
    random_truth_sets,
    single,
    union,
    vote_counts,
)
from stats.systems import precision_recall_f1

RTE = Path(__file__).resolve().parents[3] / "data" / "snow2008" / "rte.csv"

N = None

# Hand-made votes: rows are items, columns adjudicators A-D; None = not adjudicated.
VOTES = [
    [1, 1, 1, 1],  # 0 unanimous match
    [0, 0, 0, 0],  # 1 unanimous no match
    [1, 1, 0, 0],  # 2 tie 2-2
    [1, 1, 1, 0],  # 3 majority match
    [1, 0, 0, 0],  # 4 majority no match
    [1, N, N, N],  # 5 one judge, match
    [0, N, 1, N],  # 6 tie 1-1 among the two who judged
    [1, 0, 0, N],  # 7 minority among three judges
    [N, N, N, N],  # 8 nobody judged
    [1, N, 1, 1],  # 9 every judge who judged said match
]


def test_vote_counts_on_hand_made_votes():
    counts = vote_counts(VOTES)
    assert counts.matches.tolist() == [4, 0, 2, 3, 1, 1, 1, 1, 0, 3]
    assert counts.judged.tolist() == [4, 4, 4, 4, 4, 1, 2, 3, 0, 3]


@pytest.mark.parametrize(
    ("builder", "expected"),
    [
        # Consensus, Table 1: "tie or majority vote" -> match, among those who judged.
        (consensus, [1, 0, 1, 1, 0, 1, 1, 0, np.nan, 1]),
        # Union: "judged true by anyone".
        (union, [1, 0, 1, 1, 1, 1, 1, 1, np.nan, 1]),
        # Intersection: "judged true by everyone" who judged the item.
        (intersection, [1, 0, 0, 0, 0, 1, 0, 0, np.nan, 1]),
    ],
)
def test_truth_sets_on_hand_made_votes(builder, expected):
    np.testing.assert_array_equal(builder(VOTES), np.array(expected, dtype=float))


@pytest.mark.parametrize(
    ("adjudicator", "expected"),
    [
        (0, [1, 0, 1, 1, 1, 1, 0, 1, np.nan, 1]),
        (1, [1, 0, 1, 1, 0, np.nan, np.nan, 0, np.nan, np.nan]),
        (-1, [1, 0, 0, 0, 0, np.nan, np.nan, np.nan, np.nan, 1]),
    ],
)
def test_single_truth_set_keeps_missing_votes_unknown(adjudicator, expected):
    np.testing.assert_array_equal(single(VOTES, adjudicator), np.array(expected, dtype=float))


def test_truth_sets_are_ordered_intersection_consensus_union():
    rng = np.random.default_rng(11)
    votes = np.where(rng.random((300, 5)) < 0.3, np.nan, (rng.random((300, 5)) < 0.4).astype(float))
    low, middle, high = intersection(votes), consensus(votes), union(votes)
    known = ~np.isnan(middle)
    assert np.array_equal(np.isnan(low), ~known) and np.array_equal(np.isnan(high), ~known)
    assert (low[known] <= middle[known]).all() and (middle[known] <= high[known]).all()


def test_one_judge_per_item_makes_every_truth_set_the_same():
    # With a single vote per item, Consensus, Union, Intersection and every
    # Random set are that vote: the "special cases" of section 2.3.
    rng = np.random.default_rng(5)
    labels = (rng.random(50) < 0.5).astype(float)
    votes = np.full((50, 3), np.nan)
    votes[np.arange(50), rng.integers(0, 3, 50)] = labels
    for truth in (consensus(votes), union(votes), intersection(votes)):
        np.testing.assert_array_equal(truth, labels)
    np.testing.assert_array_equal(random_truth_sets(votes, n_sets=20, seed=1), np.tile(labels, (20, 1)))


def test_perfect_agreement_makes_every_truth_set_the_same():
    labels = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    votes = np.tile(labels[:, None], (1, 4))
    for truth in (consensus(votes), union(votes), intersection(votes), single(votes, 2)):
        np.testing.assert_array_equal(truth, labels)


def test_random_truth_sets_are_identical_at_once_and_in_chunks():
    rng = np.random.default_rng(3)
    votes = np.where(rng.random((200, 4)) < 0.2, np.nan, (rng.random((200, 4)) < 0.5).astype(float))
    everything = random_truth_sets(votes, n_sets=1000, seed=2024)
    bounds = [0, 1, 137, 500, 999, 1000]
    # Chunks computed in any order (as by different workers) reassemble exactly.
    chunks = {
        start: random_truth_sets(votes, n_sets=1000, seed=2024, start=start, stop=stop)
        for start, stop in reversed(list(zip(bounds[:-1], bounds[1:])))
    }
    np.testing.assert_array_equal(np.concatenate([chunks[start] for start in bounds[:-1]]), everything)
    assert random_truth_sets(votes, n_sets=1000, seed=2024, start=400, stop=400).shape == (0, 200)


def test_random_truth_sets_follow_seed_sequence_spawning():
    votes = [[1, 0, 0], [0, 1, N], [1, 1, 0]]
    parent = np.random.SeedSequence(99)
    from_int = random_truth_sets(votes, n_sets=10, seed=99)
    from_sequence = random_truth_sets(votes, n_sets=10, seed=parent)
    np.testing.assert_array_equal(from_int, from_sequence)
    # A child sequence seeds its own, different family of sets.
    child = parent.spawn(1)[0]
    assert not np.array_equal(random_truth_sets(votes, n_sets=10, seed=child), from_int)
    assert not np.array_equal(random_truth_sets(votes, n_sets=10, seed=100), from_int)


def test_random_truth_sets_pick_one_of_the_judges_uniformly():
    votes = [
        [1, 0, 0, 0],  # match with probability 1/4
        [1, N, 0, N],  # 1/2 among the two who judged
        [1, 1, 1, 1],
        [N, N, N, N],
    ]
    sets = random_truth_sets(votes, n_sets=4000, seed=8)
    assert np.isnan(sets[:, 3]).all()
    assert (sets[:, 2] == 1).all()
    assert set(np.unique(sets[:, :2])) == {0.0, 1.0}
    # Binomial(4000, p): 5 standard deviations is about 0.034 (p = 1/4) and 0.040 (p = 1/2).
    assert abs(sets[:, 0].mean() - 0.25) < 0.034
    assert abs(sets[:, 1].mean() - 0.5) < 0.040


def test_random_truth_sets_mean_tracks_the_share_of_match_votes():
    # Averaged over many sets, each item is a match with probability matches / judged.
    counts = vote_counts(VOTES)
    sets = random_truth_sets(VOTES, n_sets=3000, seed=21)
    judged = counts.judged > 0
    np.testing.assert_allclose(
        np.nanmean(sets[:, judged], axis=0), counts.matches[judged] / counts.judged[judged], atol=0.04
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: consensus([[1, 2]]), "votes"),
        (lambda: consensus([1, 0, 1]), "votes must be a 2-D"),
        (lambda: consensus(np.zeros((3, 0))), "at least one adjudicator"),
        (lambda: union([["yes", "no"]]), "votes"),
        (lambda: single(VOTES, 4), "adjudicator"),
        (lambda: single(VOTES, 1.0), "adjudicator"),
        (lambda: random_truth_sets(VOTES, n_sets=10, seed=None), "seed"),
        (lambda: random_truth_sets(VOTES, n_sets=10, seed=1, start=5, stop=11), "stop"),
        (lambda: random_truth_sets(VOTES, n_sets=-1, seed=1), "n_sets"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _rte_votes() -> tuple[np.ndarray, np.ndarray]:
    with RTE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    pair_ids = sorted({row["orig_id"] for row in rows}, key=int)
    workers = sorted({row["!amt_worker_ids"] for row in rows})
    pair_index = {pair: i for i, pair in enumerate(pair_ids)}
    worker_index = {worker: j for j, worker in enumerate(workers)}
    votes = np.full((len(pair_ids), len(workers)), np.nan)
    gold = np.zeros(len(pair_ids))
    for row in rows:
        votes[pair_index[row["orig_id"]], worker_index[row["!amt_worker_ids"]]] = int(row["response"])
        gold[pair_index[row["orig_id"]]] = int(row["gold"])
    return votes, gold


def _rte_accuracy_by_hand(tie_is_match: bool) -> tuple[float, int]:
    labels: dict[str, Counter] = defaultdict(Counter)
    gold: dict[str, str] = {}
    with RTE.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            labels[row["orig_id"]][row["response"]] += 1
            gold[row["orig_id"]] = row["gold"]
    correct = ties = 0
    for pair, counter in labels.items():
        if counter["1"] == counter["0"]:
            ties += 1
            majority = "1" if tie_is_match else "0"
        else:
            majority = counter.most_common(1)[0][0]
        correct += majority == gold[pair]
    return correct / len(labels), ties


def test_rte_consensus_against_expert_gold():
    # Snow et al. (2008) RTE: 800 pairs x 10 Mechanical Turk judges, expert gold.
    # Consensus resolves the 65 five-five ties as entailment ("tie or majority
    # vote" -> match, Table 1): 700 of 800 agree with gold. Resolving ties the
    # other way would give 735 / 800 = 0.91875.
    votes, gold = _rte_votes()
    counts = vote_counts(votes)
    assert votes.shape == (800, 164)
    assert (counts.judged == 10).all()
    assert int(np.sum(2 * counts.matches == counts.judged)) == 65

    accuracy = float(np.mean(consensus(votes) == gold))
    by_hand, ties = _rte_accuracy_by_hand(tie_is_match=True)
    assert ties == 65
    assert accuracy == by_hand == 700 / 800
    assert _rte_accuracy_by_hand(tie_is_match=False)[0] == 735 / 800


def test_rte_union_and_intersection_bracket_consensus_recall():
    votes, gold = _rte_votes()
    builders = {"union": union, "consensus": consensus, "intersection": intersection}
    recall = {name: precision_recall_f1(build(votes).astype(bool), gold).recall for name, build in builders.items()}
    # Union flags the most pairs as entailed, intersection the fewest.
    assert recall["union"] >= recall["consensus"] >= recall["intersection"]
    assert recall["union"] == pytest.approx(1.0)
