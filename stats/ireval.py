"""TREC-style system evaluation: many runs under many qrels sets, by ir-measures.

A thin adapter between Concord's graded judgments and an IR evaluation
library; no Django. :func:`evaluate` scores every run under every qrels set
(each assessor's judgments, the consensus, ...) with nDCG@10, P@10, AP (its
mean is MAP) and bpref, and returns the means over topics and the per-topic
values as arrays (qrels set, system[, topic], measure), ready for
:func:`kinds.relevance.stats.ranking_stability`. Also the strict
readers and writers of the two TREC text formats: runs (six columns, ``qid
Q0 docid rank score tag``) and graded qrels (``qid 0 docid grade``).

Why ir-measures over pytrec_eval: the figures must be the ones papers
report, and those come from trec_eval. pytrec_eval runs trec_eval's own C
code in-process; ir-measures (MacAvaney, Macdonald & Ounis, ECIR 2022)
drives it with a typed vocabulary of measures (``nDCG@10``,
``P(rel=2)@10``), one evaluator per qrels set reused across runs, and the
bookkeeping trec_eval leaves to its command line (one relevance level per
invocation, topics without a result). ranx is the alternative: fast, but a
reimplementation (on numba) whose agreement with trec_eval rests on its own
tests. The provider is pinned to pytrec_eval explicitly, so a newly installed
ir-measures provider cannot change the figures.

Conventions (trec_eval's, as computed by pytrec_eval through ir-measures):

* Relevant means ``grade >= relevance_threshold`` (trec_eval's ``-l``,
  default 1) for P@10, AP and bpref; nDCG uses the grades themselves as
  gains (trec_eval's ``ndcg_cut``, log2 discount), whatever the threshold.
* A retrieved document missing from the qrels is non-relevant (for bpref it
  is unjudged: bpref counts only judged non-relevant documents).
* Documents are ranked by score, descending; ties are broken by document id
  (trec_eval sorts descending on both); the rank column of a run file is
  ignored, as trec_eval ignores it.
* Means are over every topic of the qrels set: a topic the run did not
  answer scores 0 (trec_eval ``-c``); a topic whose judged documents are all
  below the threshold scores 0 for P@10, AP and bpref and counts in the mean
  (trec_eval evaluates it like any other); a run's topics missing from the
  qrels set are ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import ir_measures
import numpy as np
from numpy.typing import ArrayLike

from concord.digits import whole_number

__all__ = [
    "Evaluation",
    "evaluate",
    "format_qrels",
    "parse_qrels",
    "parse_run",
    "qrels_from_grades",
]

Qrels = dict[str, dict[str, int]]
Run = dict[str, list[tuple[str, float]]]

_RUN_COLUMNS = "qid Q0 docid rank score tag"
_WHITESPACE = re.compile(r"\s")
# Exact types, so that bool (an int subclass) and strings of digits are refused.
_INTEGER_TYPES = {int, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64}
_NUMBER_TYPES = _INTEGER_TYPES | {float, np.float16, np.float32, np.float64}
_QRELS_COLUMNS = "qid 0 docid grade"


@dataclass(frozen=True)
class Evaluation:
    """Every system's figures under every qrels set.

    Attributes
    ----------
    qrels_sets, systems, topics, measures : tuple of str
        The labels of the axes. ``topics`` are those of all the qrels sets,
        in the order first seen; ``measures`` are ``nDCG@10``, ``P@10``,
        ``AP``, ``Bpref`` (with the chosen cutoff).
    means : ndarray, shape (Q, S, M)
        Mean over the qrels set's topics (AP's mean is MAP), as
        ``ir_measures.calc_aggregate`` gives it.
    per_topic : ndarray, shape (Q, S, T, M)
        The value of each topic; NaN where the topic is not in that qrels set.
    relevance_threshold : int
        Relevant means ``grade >= relevance_threshold``.
    """

    qrels_sets: tuple[str, ...]
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    means: np.ndarray
    per_topic: np.ndarray
    relevance_threshold: int

    def scores(self, measure: str) -> np.ndarray:
        """(qrels sets, systems) means of one measure, e.g. ``"AP"`` for MAP."""
        return self.means[:, :, self._measure(measure)]

    def score(self, qrels_set: str, system: str, measure: str) -> float:
        """One mean, by names."""
        return float(
            self.means[
                _position(self.qrels_sets, qrels_set, "qrels_set"),
                _position(self.systems, system, "system"),
                self._measure(measure),
            ]
        )

    def _measure(self, measure: str) -> int:
        return _position(self.measures, measure, "measure")


def evaluate(
    qrels_sets: Mapping[str, Mapping[str, Mapping[str, int]]],
    runs: Mapping[str, Mapping[str, Any]] | str,
    *,
    relevance_threshold: int = 1,
    cutoff: int = 10,
) -> Evaluation:
    """Score every run under every qrels set with nDCG@k, P@k, AP and bpref.

    One ir-measures evaluator (over pytrec_eval) per qrels set, reused for
    every run; conventions in the module docstring.

    Parameters
    ----------
    qrels_sets : mapping
        ``{set name: {qid: {docid: grade}}}``, grades non-negative integers;
        every topic has at least one judged document.
    runs : mapping or str
        ``{system: {qid: [(docid, score), ...]}}`` (or ``{qid: {docid:
        score}}`` per system), scores finite numbers, no document twice in a
        topic; or the text of a TREC run file (:func:`parse_run`), one system
        per tag.
    relevance_threshold : int, default 1
        Relevant means ``grade >= relevance_threshold`` (trec_eval ``-l``).
    cutoff : int, default 10
        The depth of nDCG and P.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        Naming the set, system, topic or document at fault.

    Examples
    --------
    One topic with relevant d1 (grade 2) and d3 (grade 1); the run ranks d1,
    d2, d3: P@10 = 2/10; AP = (1/1 + 2/3)/2 = 5/6.

    >>> e = evaluate({"alice": {"q1": {"d1": 2, "d2": 0, "d3": 1}}},
    ...              {"bm25": {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0)]}})
    >>> e.measures
    ('nDCG@10', 'P@10', 'AP', 'Bpref')
    >>> round(e.score("alice", "bm25", "P@10"), 6), round(e.score("alice", "bm25", "AP"), 6)
    (0.2, 0.833333)
    """
    threshold = _positive_int(relevance_threshold, "relevance_threshold")
    depth = _positive_int(cutoff, "cutoff")
    sets = _check_qrels_sets(qrels_sets)
    systems = _check_runs(parse_run(runs) if isinstance(runs, str) else runs)
    library_measures = (
        ir_measures.nDCG @ depth,
        ir_measures.P(rel=threshold) @ depth,
        ir_measures.AP(rel=threshold),
        ir_measures.Bpref(rel=threshold),
    )
    names = (f"nDCG@{depth}", f"P@{depth}", "AP", "Bpref")
    topics = tuple(dict.fromkeys(qid for qrels in sets.values() for qid in qrels))
    topic_position = {qid: t for t, qid in enumerate(topics)}
    # Metrics come back carrying the measure objects passed in; looking them up
    # by identity skips ir-measures' repr-based hash (equality is the fallback).
    measure_by_id = {id(measure): m for m, measure in enumerate(library_measures)}
    per_topic = np.full((len(sets), len(systems), len(topics), len(names)), np.nan)
    for q, qrels in enumerate(sets.values()):
        evaluator = ir_measures.pytrec_eval.evaluator(library_measures, qrels)
        for s, run in enumerate(systems.values()):
            cells = [
                (
                    topic_position[metric.query_id],
                    _measure_index(metric.measure, measure_by_id, library_measures),
                    metric.value,
                )
                for metric in evaluator.iter_calc(run)
            ]
            topic_cells, measure_cells, values = zip(*cells)
            per_topic[q, s, list(topic_cells), list(measure_cells)] = values
    # The mean over each set's own topics (ir-measures' aggregate): NaN marks the others.
    in_set = ~np.isnan(per_topic)
    means = np.where(in_set, per_topic, 0.0).sum(axis=2) / in_set.sum(axis=2)
    return Evaluation(tuple(sets), tuple(systems), topics, names, means, per_topic, threshold)


# --------------------------------------------------------------------------
# TREC text formats
# --------------------------------------------------------------------------


def parse_run(text: str) -> dict[str, Run]:
    """Read TREC run text, six columns ``qid Q0 docid rank score tag`` a line.

    Strict: every non-blank line has six whitespace-separated columns, an
    integer rank >= 0 and a finite score, and no document appears twice in
    one topic of one run. The second column is not read (trec_eval ignores
    it; it is ``Q0`` by custom); the rank is checked but not used, since
    trec_eval ranks by score.

    Parameters
    ----------
    text : str
        One or more runs; the tag (sixth column) names the system.

    Returns
    -------
    dict
        ``{tag: {qid: [(docid, score), ...]}}`` in the order of the lines.

    Raises
    ------
    ValueError
        Naming the line (1-based) and what is wrong with it.

    Examples
    --------
    >>> parse_run("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.5 bm25\\n")
    {'bm25': {'q1': [('d1', 2.5), ('d2', 1.5)]}}
    >>> parse_run("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d1 2 1.5 bm25\\n")
    Traceback (most recent call last):
    ...
    ValueError: line 2: document 'd1' appears twice in topic 'q1' of run 'bm25' (first on line 1)
    """
    if not isinstance(text, str):
        raise ValueError(f"run text must be a string, got {type(text).__name__}")
    return parse_run_lines(enumerate(text.splitlines(), start=1))


def parse_run_lines(lines: Iterable[tuple[int, str]]) -> dict[str, Run]:
    """:func:`parse_run` over ``(line number, text)`` pairs, read one at a time
    (a file decoded as it is read: concord.reading.numbered)."""
    runs: dict[str, Run] = {}
    first_line: dict[tuple[str, str, str], int] = {}
    for number, line in lines:
        columns = line.split()
        if not columns:
            continue
        if len(columns) != 6:
            raise ValueError(f"line {number}: expected 6 columns ({_RUN_COLUMNS}), got {len(columns)}")
        qid, _, docid, rank, score, tag = columns
        if whole_number(rank) is None:
            raise ValueError(f"line {number}: rank must be a whole number >= 0, got {rank!r}")
        value = _finite(score)
        if value is None:
            raise ValueError(f"line {number}: score must be a finite number, got {score!r}")
        key = (tag, qid, docid)
        if key in first_line:
            raise ValueError(
                f"line {number}: document {docid!r} appears twice in topic {qid!r} of run {tag!r} "
                f"(first on line {first_line[key]})"
            )
        first_line[key] = number
        runs.setdefault(tag, {}).setdefault(qid, []).append((docid, value))
    return runs


def parse_qrels(text: str) -> Qrels:
    """Read graded TREC qrels, four columns ``qid 0 docid grade`` a line.

    Strict: four whitespace-separated columns, a whole-number grade >= 0,
    no (qid, docid) twice. The second column (trec_eval's iteration) is not
    read.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict
        ``{qid: {docid: grade}}`` in the order of the lines.

    Raises
    ------
    ValueError
        Naming the line (1-based) and what is wrong with it.

    Examples
    --------
    >>> parse_qrels("q1 0 d1 2\\nq1 0 d2 0\\nq2 0 d1 1\\n")
    {'q1': {'d1': 2, 'd2': 0}, 'q2': {'d1': 1}}
    >>> parse_qrels("q1 0 d1 high\\n")
    Traceback (most recent call last):
    ...
    ValueError: line 1: grade must be a whole number >= 0, got 'high'
    """
    if not isinstance(text, str):
        raise ValueError(f"qrels text must be a string, got {type(text).__name__}")
    qrels: Qrels = {}
    first_line: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        columns = line.split()
        if not columns:
            continue
        if len(columns) != 4:
            raise ValueError(f"line {number}: expected 4 columns ({_QRELS_COLUMNS}), got {len(columns)}")
        qid, _, docid, grade = columns
        if whole_number(grade) is None:
            raise ValueError(f"line {number}: grade must be a whole number >= 0, got {grade!r}")
        if (qid, docid) in first_line:
            raise ValueError(
                f"line {number}: document {docid!r} judged twice in topic {qid!r} (first on line {first_line[qid, docid]})"
            )
        first_line[qid, docid] = number
        qrels.setdefault(qid, {})[docid] = whole_number(grade)
    return qrels


def format_qrels(qrels: Mapping[str, Mapping[str, int]]) -> str:
    """Write graded TREC qrels, ``qid 0 docid grade`` a line, in the mapping's order.

    Parameters
    ----------
    qrels : mapping
        ``{qid: {docid: grade}}``; ids non-empty without whitespace, grades
        whole numbers >= 0.

    Returns
    -------
    str
        Readable back by :func:`parse_qrels` and by trec_eval.

    Raises
    ------
    ValueError
        Naming the topic or document at fault.

    Examples
    --------
    >>> print(format_qrels({"q1": {"d1": 2, "d2": 0}}), end="")
    q1 0 d1 2
    q1 0 d2 0
    """
    checked = _check_qrels(qrels, "qrels", allow_empty_topics=True)
    return "".join(f"{qid} 0 {docid} {grade}\n" for qid, docs in checked.items() for docid, grade in docs.items())


def qrels_from_grades(
    grades: ArrayLike,
    topic_ids: Sequence[str],
    document_ids: Sequence[str],
    names: Sequence[str],
) -> dict[str, Qrels]:
    """Qrels sets from the flat (sets x documents) grades of :mod:`kinds.relevance.stats`.

    Parameters
    ----------
    grades : array_like, shape (K, N)
        Row ``k`` is qrels set ``names[k]`` (an assessor's grades, or
        :func:`~kinds.relevance.stats.consensus_grades`); NaN where not
        judged (left out of the qrels).
    topic_ids, document_ids : sequence of str, length N
        The topic and document of each position; no pair twice.
    names : sequence of str, length K

    Returns
    -------
    dict
        ``{name: {qid: {docid: grade}}}``; a topic with no judged document
        in a set is absent from that set.

    Raises
    ------
    ValueError
        If shapes disagree, a grade is not a whole number >= 0 (or NaN), an
        id is not a string, a (topic, document) pair repeats or a name
        repeats.

    Examples
    --------
    >>> nan = float("nan")
    >>> qrels_from_grades([[2, 0, nan], [1, nan, 3]], ["q1", "q1", "q2"], ["d1", "d2", "d1"], ["alice", "bob"])
    {'alice': {'q1': {'d1': 2, 'd2': 0}}, 'bob': {'q1': {'d1': 1}, 'q2': {'d1': 3}}}
    """
    try:
        table = np.asarray(grades, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("grades must hold numbers, NaN where not judged") from None
    if table.ndim != 2:
        raise ValueError(f"grades must be 2-D with shape (n_sets, n_documents), got shape {table.shape}")
    n_sets, n_documents = table.shape
    for label, values, length in (
        ("topic_ids", topic_ids, n_documents),
        ("document_ids", document_ids, n_documents),
        ("names", names, n_sets),
    ):
        if len(values) != length or not all(isinstance(value, str) for value in values):
            raise ValueError(f"{label} must be {length} strings, got {len(values)} items")
    if len(set(names)) != n_sets:
        raise ValueError("names must not repeat")
    if len(set(zip(topic_ids, document_ids))) != n_documents:
        raise ValueError("each (topic_ids, document_ids) pair must occur once")
    judged = ~np.isnan(table)
    values = table[judged]
    if np.any(np.isinf(values)) or np.any(values < 0) or np.any(values != np.floor(values)):
        raise ValueError("grades must be whole numbers >= 0 (NaN where not judged)")
    result: dict[str, Qrels] = {}
    for name, row, row_judged in zip(names, table, judged):
        qrels: Qrels = {}
        for n in np.flatnonzero(row_judged).tolist():
            qrels.setdefault(topic_ids[n], {})[document_ids[n]] = int(row[n])
        result[name] = qrels
    return result


# --------------------------------------------------------------------------
# Validation at the boundary
# --------------------------------------------------------------------------


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# A decimal number as trec_eval writes one, in ASCII: float() would also take
# other scripts' digits ("١"), underscores ("1_0") and "nan"/"inf".
_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _finite(text: str) -> float | None:
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and value != "" and _WHITESPACE.search(value) is None


def _bad_ids(ids: list[Any]) -> Any:
    """The first id that is not a non-empty string without whitespace, or None.

    One regular-expression pass over the joined ids in the common case (all
    good); the culprit is looked for only when something is wrong.
    """
    if set(map(type, ids)) <= {str} and _WHITESPACE.search("\x00".join(ids)) is None and "" not in ids:
        return None
    return next(value for value in ids if not _is_id(value))


def _check_qrels(qrels: Any, where: str, *, allow_empty_topics: bool = False) -> Qrels:
    if not isinstance(qrels, Mapping):
        raise ValueError(f"{where} must be a mapping {{qid: {{docid: grade}}}}, got {type(qrels).__name__}")
    checked: Qrels = {}
    for qid, docs in qrels.items():
        if not _is_id(qid):
            raise ValueError(f"{where}: topic id {qid!r} must be a non-empty string without whitespace")
        if not isinstance(docs, Mapping) or (not docs and not allow_empty_topics):
            raise ValueError(f"{where}[{qid!r}] must be a non-empty mapping {{docid: grade}}")
        documents, grades = list(docs.keys()), list(docs.values())
        bad_id = _bad_ids(documents)
        if bad_id is not None:
            raise ValueError(f"{where}[{qid!r}]: document id {bad_id!r} must be a non-empty string without whitespace")
        if not (set(map(type, grades)) <= _INTEGER_TYPES and min(grades, default=0) >= 0):
            docid, grade = next((d, g) for d, g in zip(documents, grades) if type(g) not in _INTEGER_TYPES or g < 0)
            raise ValueError(f"{where}[{qid!r}][{docid!r}]: grade must be a whole number >= 0, got {grade!r}")
        checked[qid] = dict(zip(documents, map(int, grades)))
    return checked


def _check_qrels_sets(qrels_sets: Any) -> dict[str, Qrels]:
    if not isinstance(qrels_sets, Mapping) or not qrels_sets:
        raise ValueError("qrels_sets must be a non-empty mapping {set name: {qid: {docid: grade}}}")
    checked = {}
    for name, qrels in qrels_sets.items():
        if not isinstance(name, str):
            raise ValueError(f"qrels_sets: set name {name!r} must be a string")
        checked[name] = _check_qrels(qrels, f"qrels_sets[{name!r}]")
        if not checked[name]:
            raise ValueError(f"qrels_sets[{name!r}] has no topic")
    return checked


def _check_runs(runs: Any) -> dict[str, dict[str, dict[str, float]]]:
    """Runs as pytrec_eval takes them: {system: {qid: {docid: score}}}."""
    if not isinstance(runs, Mapping) or not runs:
        raise ValueError("runs must be a non-empty mapping {system: {qid: [(docid, score), ...]}} or TREC run text")
    checked = {}
    for system, run in runs.items():
        if not isinstance(system, str):
            raise ValueError(f"runs: system name {system!r} must be a string")
        if not isinstance(run, Mapping):
            raise ValueError(f"runs[{system!r}] must be a mapping {{qid: [(docid, score), ...]}}")
        checked[system] = {qid: _check_ranking(ranking, f"runs[{system!r}][{qid!r}]") for qid, ranking in run.items()}
    return checked


def _check_ranking(ranking: Any, where: str) -> dict[str, float]:
    if isinstance(ranking, Mapping):
        documents, scores = list(ranking.keys()), list(ranking.values())
    elif isinstance(ranking, (list, tuple)):
        if not (set(map(type, ranking)) <= {tuple, list} and set(map(len, ranking)) <= {2}):
            raise ValueError(f"{where} must be a sequence of (docid, score) pairs")
        documents, scores = [pair[0] for pair in ranking], [pair[1] for pair in ranking]
    else:
        raise ValueError(f"{where} must be a sequence of (docid, score) pairs or a mapping {{docid: score}}")
    if not (set(map(type, documents)) <= {str} and "" not in documents):
        bad_id = next(docid for docid in documents if not isinstance(docid, str) or not docid)
        raise ValueError(f"{where}: document id {bad_id!r} must be a non-empty string")
    if not (set(map(type, scores)) <= _NUMBER_TYPES and all(map(math.isfinite, scores))):
        raise ValueError(f"{where}: scores must be finite numbers")
    as_dict = dict(zip(documents, map(float, scores)))
    if len(as_dict) != len(documents):
        seen: set[str] = set()
        twice = next(docid for docid in documents if docid in seen or seen.add(docid))
        raise ValueError(f"{where}: document {twice!r} appears twice")
    return as_dict


def _measure_index(measure: Any, by_id: dict[int, int], measures: tuple[Any, ...]) -> int:
    position = by_id.get(id(measure))
    return measures.index(measure) if position is None else position


def _position(labels: tuple[str, ...], label: str, name: str) -> int:
    try:
        return labels.index(label)
    except ValueError:
        raise ValueError(f"{name} must be one of {list(labels)}, got {label!r}") from None
