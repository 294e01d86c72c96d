"""Tests for stats.ireval: ir-measures' own figures, a hand-computed example, trec_eval's
conventions, and the strict TREC run and qrels formats."""

from __future__ import annotations

import doctest
import math

import ir_measures
import numpy as np
import pytest

import stats.ireval
from stats.ireval import evaluate, format_qrels, parse_qrels, parse_run, qrels_from_grades

pytestmark = pytest.mark.filterwarnings("error")


def synthetic(seed: int, *, sets: int = 3, systems: int = 4, topics: int = 6, pool: int = 30):
    """Qrels sets (with a topic some sets lack, one with no relevant document) and runs
    (with unjudged documents, a missing topic, a topic outside the qrels, tied scores)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, (topics, pool))
    qrels_sets = {}
    for k in range(sets):
        grades = np.clip(truth + rng.integers(-1, 2, truth.shape), 0, 3)
        qrels = {
            f"t{t}": {f"d{d}": int(grades[t, d]) for d in range(pool) if rng.random() < 0.9}
            for t in range(topics)
            if not (k == 1 and t == 0)
        }
        qrels["t5"] = {f"d{d}": 0 for d in range(5)}  # no relevant document
        qrels_sets[f"set{k}"] = qrels
    runs = {}
    for s in range(systems):
        run = {}
        for t in range(topics):
            if s == 0 and t == 2:
                continue  # topic not answered
            docs = rng.permutation([f"d{d}" for d in range(pool)] + [f"x{d}" for d in range(5)])[:20]
            scores = np.round(truth[t, [int(d[1:]) if d[0] == "d" else 0 for d in docs]] + rng.random(20), 1)
            run[f"t{t}"] = list(zip(docs.tolist(), scores.tolist()))
        run["elsewhere"] = [("d1", 1.0)]  # topic in no qrels set
        runs[f"sys{s}"] = run
    return qrels_sets, runs


def library_measures(threshold: int):
    return [
        ir_measures.nDCG @ 10,
        ir_measures.P(rel=threshold) @ 10,
        ir_measures.AP(rel=threshold),
        ir_measures.Bpref(rel=threshold),
    ]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("threshold", [1, 2])
def test_means_equal_ir_measures_calc_aggregate_per_qrels_set_and_run(seed, threshold):
    qrels_sets, runs = synthetic(seed)
    result = evaluate(qrels_sets, runs, relevance_threshold=threshold)
    assert result.measures == ("nDCG@10", "P@10", "AP", "Bpref")
    measures = library_measures(threshold)
    for q, (set_name, qrels) in enumerate(qrels_sets.items()):
        for s, (system, run) in enumerate(runs.items()):
            as_dict = {qid: dict(ranking) for qid, ranking in run.items()}
            expected = ir_measures.calc_aggregate(measures, qrels, as_dict)
            for m, measure in enumerate(measures):
                assert abs(result.means[q, s, m] - expected[measure]) <= 1e-12, (set_name, system, measure)
                assert result.score(set_name, system, result.measures[m]) == result.means[q, s, m]


@pytest.mark.parametrize("seed", [0, 3])
def test_per_topic_values_equal_ir_measures_and_nan_outside_the_set(seed):
    qrels_sets, runs = synthetic(seed)
    result = evaluate(qrels_sets, runs)
    measures = library_measures(1)
    for q, qrels in enumerate(qrels_sets.values()):
        for s, run in enumerate(runs.values()):
            expected = {
                (metric.query_id, metric.measure): metric.value
                for metric in ir_measures.iter_calc(measures, qrels, {k: dict(v) for k, v in run.items()})
            }
            for t, topic in enumerate(result.topics):
                for m, measure in enumerate(measures):
                    if topic in qrels:
                        assert abs(result.per_topic[q, s, t, m] - expected[topic, measure]) <= 1e-12
                    else:
                        assert np.isnan(result.per_topic[q, s, t, m])
    # The means are the per-topic means over each set's own topics.
    np.testing.assert_allclose(result.means, np.nanmean(result.per_topic, axis=2), atol=1e-12)
    assert result.scores("AP").shape == (3, 4)


def test_hand_computed_example():
    # One topic; qrels d1:3, d2:0, d3:1, d4:0, d5:2 (d6 unjudged). The run ranks
    # d6, d1, d2, d4, d3 (scores 10..6).
    # Threshold 1: relevant {d1, d3, d5}, R = 3; judged non-relevant {d2, d4}, N = 2.
    #   P@10  = 2 relevant retrieved / 10 = 0.2
    #   AP    = (1/2 [d1 at 2] + 2/5 [d3 at 5]) / 3 = 0.3
    #   bpref = (1/R) sum over relevant retrieved of (1 - judged non-relevant above / min(R, N))
    #         = ((1 - 0/2) [d1; d6 is unjudged, not counted] + (1 - 2/2) [d3 below d2, d4]) / 3 = 1/3
    #   nDCG@10: gains are the grades, discount log2(rank + 1):
    #         DCG  = 3/log2(3) + 1/log2(6); ideal 3, 2, 1: IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4)
    # Threshold 2: relevant {d1, d5}, R = 2; judged non-relevant {d2, d3, d4}, N = 3.
    #   P@10 = 1/10; AP = (1/2) / 2 = 0.25; bpref = (1 - 0/2) / 2 = 0.5; nDCG unchanged.
    qrels = {"judge": {"q1": {"d1": 3, "d2": 0, "d3": 1, "d4": 0, "d5": 2}}}
    runs = {"run": {"q1": [("d6", 10.0), ("d1", 9.0), ("d2", 8.0), ("d4", 7.0), ("d3", 6.0)]}}
    ndcg = (3 / math.log2(3) + 1 / math.log2(6)) / (3 + 2 / math.log2(3) + 1 / 2)
    one = evaluate(qrels, runs)
    np.testing.assert_allclose(one.means[0, 0], [ndcg, 0.2, 0.3, 1 / 3], rtol=0, atol=1e-12)
    two = evaluate(qrels, runs, relevance_threshold=2)
    np.testing.assert_allclose(two.means[0, 0], [ndcg, 0.1, 0.25, 0.5], rtol=0, atol=1e-12)


def test_trec_eval_conventions_missing_topics_no_relevant_topics_and_ties():
    qrels = {"s": {"q1": {"a": 1, "b": 0}, "q2": {"a": 1}, "q3": {"a": 0}}}
    # q2 not answered: 0, and counted; q3 has no relevant document: 0, and counted;
    # "q9" is in no qrels: ignored. So P@1 over (q1, q2, q3) = (1 + 0 + 0) / 3.
    result = evaluate(qrels, {"r": {"q1": [("a", 2.0), ("b", 1.0)], "q3": [("a", 1.0)], "q9": [("a", 1.0)]}}, cutoff=1)
    assert result.measures == ("nDCG@1", "P@1", "AP", "Bpref")
    assert result.topics == ("q1", "q2", "q3")
    assert result.means[0, 0, 1] == pytest.approx(1 / 3, abs=1e-15)
    assert result.per_topic[0, 0, :, 1].tolist() == [1.0, 0.0, 0.0]
    # Equal scores: trec_eval ranks the larger document id first, whatever the given order or rank.
    tied = [("a", 1.0), ("b", 1.0)]
    assert evaluate({"s": {"q": {"a": 1, "b": 0}}}, {"r": {"q": tied}}, cutoff=1).means[0, 0, 1] == 0.0
    assert evaluate({"s": {"q": {"b": 1, "a": 0}}}, {"r": {"q": tied}}, cutoff=1).means[0, 0, 1] == 1.0


def test_run_text_gives_the_same_figures_as_the_mapping():
    qrels_sets, runs = synthetic(4, systems=2)
    lines = [
        f"{qid} Q0 {docid} {rank} {score} {system}"
        for system, run in runs.items()
        for qid, ranking in run.items()
        for rank, (docid, score) in enumerate(ranking, start=1)
    ]
    from_text = evaluate(qrels_sets, "\n".join(lines) + "\n")
    from_mapping = evaluate(qrels_sets, runs)
    assert from_text.systems == from_mapping.systems == ("sys0", "sys1")
    np.testing.assert_array_equal(from_text.means, from_mapping.means)


# --- the TREC formats --------------------------------------------------------


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "q1 Q0 d1 1 2.0 run\nq1 Q0 d2 2 1.0\n",
            r"^line 2: expected 6 columns \(qid Q0 docid rank score tag\), got 5$",
        ),
        ("q1 Q0 d1 1 2.0 run extra\n", r"^line 1: expected 6 columns .*, got 7$"),
        ("q1 Q0 d1 1 2.0 run\n\nq1 Q0 d2 two 1.0 run\n", r"^line 3: rank must be a whole number >= 0, got 'two'$"),
        ("q1 Q0 d1 1.5 2.0 run\n", r"^line 1: rank must be a whole number >= 0, got '1.5'$"),
        ("q1 Q0 d1 1 high run\n", r"^line 1: score must be a finite number, got 'high'$"),
        ("q1 Q0 d1 1 nan run\n", r"^line 1: score must be a finite number, got 'nan'$"),
        (
            "q1 Q0 d1 1 2 r\nq2 Q0 d1 1 2 r\nq1 Q0 d1 3 1 r\n",
            r"^line 3: document 'd1' appears twice in topic 'q1' of run 'r' \(first on line 1\)$",
        ),
    ],
)
def test_run_parser_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_run(text)


def test_run_parser_reads_several_runs_and_allows_a_document_in_two_runs():
    text = "q1 Q0 d1 1 2.5 a\nq1 Q0 d1 1 -1e3 b\n  \nq2 0 d7 0 3 a\n"
    assert parse_run(text) == {"a": {"q1": [("d1", 2.5)], "q2": [("d7", 3.0)]}, "b": {"q1": [("d1", -1000.0)]}}


def test_qrels_round_trip_and_errors_name_the_line():
    qrels = {"401": {"FBIS3-1": 3, "FBIS3-2": 0}, "402": {"LA-9": 1}}
    text = format_qrels(qrels)
    assert text == "401 0 FBIS3-1 3\n401 0 FBIS3-2 0\n402 0 LA-9 1\n"
    assert parse_qrels(text) == qrels
    assert list(ir_measures.read_trec_qrels(text)) == [
        ir_measures.Qrel("401", "FBIS3-1", 3, "0"),
        ir_measures.Qrel("401", "FBIS3-2", 0, "0"),
        ir_measures.Qrel("402", "LA-9", 1, "0"),
    ]
    with pytest.raises(ValueError, match=r"^line 2: expected 4 columns \(qid 0 docid grade\), got 3$"):
        parse_qrels("q 0 d 1\nq 0 d\n")
    with pytest.raises(ValueError, match=r"^line 1: grade must be a whole number >= 0, got '-1'$"):
        parse_qrels("q 0 d -1\n")
    with pytest.raises(ValueError, match=r"^line 3: document 'd' judged twice in topic 'q' \(first on line 1\)$"):
        parse_qrels("q 0 d 1\nq 0 e 1\nq 0 d 2\n")
    with pytest.raises(ValueError, match=r"qrels\['q'\]: document id 'two words'"):
        format_qrels({"q": {"two words": 1}})
    with pytest.raises(ValueError, match=r"qrels\['q'\]\['d'\]: grade must be a whole number >= 0, got 1.5"):
        format_qrels({"q": {"d": 1.5}})


def test_qrels_from_grades_skips_unjudged_and_feeds_evaluate():
    nan = float("nan")
    grades = np.array([[2, 0, nan, 1], [1, nan, 3, 0]])
    sets = qrels_from_grades(grades, ["q1", "q1", "q2", "q2"], ["a", "b", "a", "c"], ["alice", "bob"])
    assert sets == {"alice": {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}, "bob": {"q1": {"a": 1}, "q2": {"a": 3, "c": 0}}}
    result = evaluate(sets, {"r": {"q1": [("a", 1.0)], "q2": [("a", 1.0)]}})
    assert result.topics == ("q1", "q2") and result.scores("P@10").tolist() == [[0.05], [0.1]]
    with pytest.raises(ValueError, match=r"each \(topic_ids, document_ids\) pair must occur once"):
        qrels_from_grades([[1, 2]], ["q", "q"], ["a", "a"], ["x"])
    with pytest.raises(ValueError, match="names must be 1 strings, got 2 items"):
        qrels_from_grades([[1, 2]], ["q", "q"], ["a", "b"], ["x", "y"])
    with pytest.raises(ValueError, match="grades must be whole numbers >= 0"):
        qrels_from_grades([[1.5]], ["q"], ["a"], ["x"])


@pytest.mark.parametrize(
    "qrels_sets, runs, kwargs, message",
    [
        ({}, {"r": {}}, {}, "qrels_sets must be a non-empty mapping"),
        ({"s": {"q": {}}}, {"r": {}}, {}, r"qrels_sets\['s'\]\['q'\] must be a non-empty mapping"),
        ({"s": {"q": {"d": True}}}, {"r": {}}, {}, r"qrels_sets\['s'\]\['q'\]\['d'\]: grade must be a whole number"),
        ({"s": {"q": {"d": -1}}}, {"r": {}}, {}, r"qrels_sets\['s'\]\['q'\]\['d'\]: grade must be a whole number"),
        ({"s": {"q": {"d": 1}}}, {}, {}, "runs must be a non-empty mapping"),
        (
            {"s": {"q": {"d": 1}}},
            {"r": {"q": [("d", 1.0), ("d", 2.0)]}},
            {},
            r"runs\['r'\]\['q'\]: document 'd' appears twice",
        ),
        ({"s": {"q": {"d": 1}}}, {"r": {"q": [("d", float("inf"))]}}, {}, r"runs\['r'\]\['q'\]: scores must be finite"),
        ({"s": {"q": {"d": 1}}}, {"r": {"q": [("d", "1.0")]}}, {}, r"runs\['r'\]\['q'\]: scores must be finite"),
        (
            {"s": {"q": {"d": 1}}},
            {"r": {"q": [("d",)]}},
            {},
            r"runs\['r'\]\['q'\] must be a sequence of \(docid, score\)",
        ),
        ({"s": {"q": {"d": 1}}}, {"r": {"q": [(3, 1.0)]}}, {}, r"runs\['r'\]\['q'\]: document id 3"),
        ({"s": {"q": {"d": 1}}}, "q Q0 d 1 x r\n", {}, "line 1: score must be a finite number"),
        (
            {"s": {"q": {"d": 1}}},
            {"r": {}},
            {"relevance_threshold": 0},
            "relevance_threshold must be a positive integer",
        ),
        ({"s": {"q": {"d": 1}}}, {"r": {}}, {"cutoff": 2.5}, "cutoff must be a positive integer"),
    ],
)
def test_evaluate_rejects_bad_input_naming_where(qrels_sets, runs, kwargs, message):
    with pytest.raises(ValueError, match=message):
        evaluate(qrels_sets, runs, **kwargs)


def test_unknown_labels_are_refused_by_name():
    result = evaluate({"s": {"q": {"d": 1}}}, {"r": {"q": [("d", 1.0)]}})
    with pytest.raises(ValueError, match=r"measure must be one of \['nDCG@10', 'P@10', 'AP', 'Bpref'\], got 'MAP'"):
        result.scores("MAP")
    with pytest.raises(ValueError, match="system must be one of"):
        result.score("s", "nope", "AP")


def test_module_docstring_examples():
    outcome = doctest.testmod(stats.ireval, verbose=False)
    assert outcome.failed == 0 and outcome.attempted >= 8


@pytest.mark.parametrize("number", ["\u0661", "\u00b3", "\uff13", "1_0", "nan", "inf"])
def test_numbers_are_ascii_digits_only(number):
    """Python's int(), float() and isdigit() take other scripts' digits, superscripts,
    underscores and nan; a TREC file's numbers are plain ASCII."""
    with pytest.raises(ValueError, match="line 1"):
        parse_qrels(f"q1 0 d1 {number}\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_run(f"q1 Q0 d1 {number} 1.5 sysA\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_run(f"q1 Q0 d1 1 {number} sysA\n")
