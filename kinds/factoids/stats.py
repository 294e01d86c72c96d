"""Factoid analysis: annotation and definition agreement, relations between
inventories, inventory growth, weighted factoid scores and their stability.

Source: van Halteren and Teufel (2004), "Evaluating information content by
factoid analysis: human annotation and stability", Proceedings of EMNLP
2004, pp. 419-426 (ACL Anthology W04-3254): agreement of
factoid annotation (section 3.1) and of factoid definition (section 3.2),
growth of the factoid inventory (section 4, Figure 4), weighted factoid
scores, their stability and the unigram comparison (section 5, Figures 5-7).

Inputs
------
``summaries``
    A sequence of mappings ``{"id": str, "model": bool, "sentences": [...]}``,
    one per summary of the topic; ``"model"`` (default False) is True for the
    model summaries written by people and False for machine summaries (runs);
    each sentence is an id (str) or a mapping with an ``"id"``. Summary ids
    and sentence ids are unique within the topic.
``annotation``
    One annotator's work, the factoids judgment payload:
    ``{"factoids": [ids or {"id": ...}], "marks": {sentence id: [factoid ids]}}``.
    The inventory is ``"factoids"``, in its order; a mark must name a factoid
    of the annotator's own inventory. Marks on sentences that are not among
    the ``summaries`` given are ignored, so an analysis can be restricted to
    some summaries (the judgment's own validation rejects unknown sentences).

A factoid is *in* a summary when any sentence of the summary is marked with
it. :func:`factoid_table` turns an annotation into the arrays the numeric
functions take: ``by_sentence`` (sentences x factoids), ``by_summary``
(summaries x factoids), the ``model`` mask and ``summary_of_sentence``.

Random draws
------------
Every random analysis takes an integer ``seed``; the draws for size ``N``
come from ``numpy.random.default_rng([seed, N])`` and fill row after row, so
the first ``k`` draws (or pairs) at a size are the same whatever the total
number asked for, and the result at one size does not depend on which other
sizes are computed. The docstrings give the exact calls, so a plain loop can
reproduce every draw.

Conventions where the paper states none
---------------------------------------
* Annotation kappa counts factoid-summary combinations by default, as the
  paper does (section 3.1); ``unit="sentence"`` counts factoid-sentence
  combinations instead.
* Kappa items are always rated by every annotator (only factoids every
  annotator defined, or relations between two inventories), so the
  Siegel-Castellan kappa is Fleiss' kappa. No items: kappa, P(A), P(E) NaN;
  every label the same: kappa NaN.
* Re-merging (section 4) compares factoids' occurrence patterns over
  *sentences*, the level at which they are marked.
* Spearman's rho of a ranking with all scores equal, or of fewer than two
  summaries, is NaN; stability means leave such pairs out and count them.
* An F-measure of two empty sets is NaN; of sets sharing nothing, 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from stats import rank
from stats.agreement import fleiss_kappa

__all__ = [
    "DISCREPANCY_MESSAGES",
    "TOKEN_PATTERN",
    "AnnotationItems",
    "DefinitionItems",
    "Discrepancy",
    "FactoidKappa",
    "FactoidRelation",
    "FactoidTable",
    "InventoryGrowth",
    "TopicAnnotations",
    "UnigramComparison",
    "WfsDistribution",
    "WfsStability",
    "annotation_items",
    "annotation_kappa",
    "definition_items",
    "definition_kappa",
    "discrepancies",
    "factoid_table",
    "inventory_growth",
    "labels_kappa",
    "remerged_count",
    "suggest_relations",
    "tokenize",
    "unigram_comparison",
    "weighted_factoid_scores",
    "wfs_distribution",
    "wfs_stability",
]

Unit = Literal["sentence", "summary"]
DiscrepancyKind = Literal["only_you", "only_other"]

#: What each kind of :class:`Discrepancy` tells the annotator (section 3.1, Phase 2).
DISCREPANCY_MESSAGES: dict[str, str] = {
    "only_you": "you marked it, the other did not",
    "only_other": "the other marked it, you did not",
}

#: Unigram tokens: maximal runs of letters and digits (Unicode), with internal
#: apostrophes kept ("don't", "Kuwait's"); matched on the lowercased text.
TOKEN_PATTERN = r"[^\W_]+(?:['\u2019][^\W_]+)*"
_TOKEN = re.compile(TOKEN_PATTERN)

# Most cells of the blocks of pairs of annotators whose relations are suggested together
# (pairs x factoids x the larger of factoids and sentences).
_SUGGEST_CELLS = 1 << 22
# Upper bound on draws x factoids x words held at once when counting the
# re-merged factoids, so memory stays bounded for large inventories.
_BLOCK_WORDS = 1 << 22


# --------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FactoidTable:
    """One annotation as arrays over a topic's sentences and summaries.

    Attributes
    ----------
    factoids : tuple of str
        The inventory, in the annotation's order (the columns).
    summaries : tuple of str
        Summary ids, in the order given.
    model : ndarray of bool, shape (n_summaries,)
        True for model (human) summaries.
    sentences : tuple of str
        Sentence ids: the sentences of the first summary, then the second's...
    summary_of_sentence : ndarray of intp, shape (n_sentences,)
        The summary (row of ``by_summary``) each sentence belongs to.
    by_sentence : ndarray of bool, shape (n_sentences, n_factoids)
        The marks: sentence ``i`` contains factoid ``j``.
    """

    factoids: tuple[str, ...]
    summaries: tuple[str, ...]
    model: npt.NDArray[np.bool_]
    sentences: tuple[str, ...]
    summary_of_sentence: npt.NDArray[np.intp]
    by_sentence: npt.NDArray[np.bool_]

    @property
    def by_summary(self) -> npt.NDArray[np.bool_]:
        """(n_summaries, n_factoids) bool: the factoid is in some sentence of the summary."""
        return _by_summary(self.by_sentence, self.summary_of_sentence, len(self.summaries))

    @property
    def first_position(self) -> npt.NDArray[np.intp]:
        """(n_summaries, n_factoids): 1-based position in the summary of the
        first sentence containing the factoid, 0 where it is absent."""
        return _first_position(self.by_sentence, self.summary_of_sentence, len(self.summaries))


@dataclass(frozen=True)
class FactoidKappa:
    """Kappa over two-category items (section 3.1, Figure 1).

    Attributes
    ----------
    kappa : float
        ``(P(A) - P(E)) / (1 - P(E))``; NaN when no items or when every
        label is the same (P(E) = 1).
    observed : float
        P(A): the mean over items of agreeing rater pairs over all rater pairs.
    expected : float
        P(E): ``p**2 + (1 - p)**2`` with ``p`` the share of "present" labels
        among all labels (the paper's "probability of error", i.e. chance
        agreement).
    n_items : int
        Number of items.
    """

    kappa: float
    observed: float
    expected: float
    n_items: int


@dataclass(frozen=True)
class AnnotationItems:
    """The items of the factoid annotation kappa, factoid-major.

    Attributes
    ----------
    factoid : ndarray of str, shape (n_items,)
        The item's factoid (its shared id or key).
    unit : ndarray of str, shape (n_items,)
        The item's sentence id (``unit="sentence"``) or summary id.
    labels : ndarray of bool, shape (n_items, n_annotators)
        True where the annotator marked the factoid in the unit.
    """

    factoid: npt.NDArray[np.str_]
    unit: npt.NDArray[np.str_]
    labels: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class DefinitionItems:
    """The items of the factoid definition kappa (section 3.2, Figure 2).

    Item ``i`` pairs factoid ``first[i]`` of annotator 1 with factoid
    ``second[i]`` of annotator 2 in ``unit[i]``.

    Attributes
    ----------
    first, second : ndarray of str, shape (n_items,)
        The two annotators' factoids of the item.
    unit : ndarray of str, shape (n_items,)
        The summary id (``unit="summary"``) or sentence id.
    labels : ndarray of bool, shape (n_items, 2)
        ``first[i]`` in the unit by annotator 1, ``second[i]`` in it by annotator 2.
    """

    first: npt.NDArray[np.str_]
    second: npt.NDArray[np.str_]
    unit: npt.NDArray[np.str_]
    labels: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class FactoidRelation:
    """An identity or subsumption between two annotators' factoids (section 3.2).

    ``first`` holds annotator 1's factoids, ``second`` annotator 2's. One
    side has a single factoid. Both singletons: identity (A = C). Otherwise
    the single factoid subsumes the set on the other side (P30 subsumes
    F9.21 and F9.22): either annotator may be the subsuming one.

    Parameters
    ----------
    first, second : str or sequence of str
        A single id may be given as a string.

    Examples
    --------
    >>> FactoidRelation("P30", ["F9.21", "F9.22"]).kind
    'subsumption'
    >>> FactoidRelation("P30", ["F9.21", "F9.22"]).pairs
    (('P30', 'F9.21'), ('P30', 'F9.22'))
    """

    first: tuple[str, ...]
    second: tuple[str, ...]

    @classmethod
    def _known(cls, first: tuple[str, ...], second: tuple[str, ...]) -> FactoidRelation:
        """A relation between factoids of parsed inventories (distinct string ids, one side
        single), made without checking them again."""
        relation = object.__new__(cls)
        object.__setattr__(relation, "first", first)
        object.__setattr__(relation, "second", second)
        return relation

    def __post_init__(self) -> None:
        first = _id_tuple(self.first, "first")
        second = _id_tuple(self.second, "second")
        if len(first) > 1 and len(second) > 1:
            raise ValueError(f"a relation needs a single factoid on one side, got first={first} and second={second}")
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)

    @property
    def kind(self) -> Literal["identity", "subsumption"]:
        """ "identity" when both sides hold one factoid, else "subsumption"."""
        return "identity" if len(self.first) == len(self.second) == 1 else "subsumption"

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """(annotator 1's factoid, annotator 2's factoid) of each item group:
        the subsuming factoid with each member of the set (A^b, b in B)."""
        return tuple((a, b) for a in self.first for b in self.second)


@dataclass(frozen=True)
class Discrepancy:
    """One line of an annotator's Phase 2 list (section 3.1).

    Attributes
    ----------
    sentence : str
        The sentence id.
    factoid : str
        The annotator's own factoid id.
    kind : {"only_you", "only_other"}
        Who marked it; :data:`DISCREPANCY_MESSAGES` words it for the annotator.
    """

    sentence: str
    factoid: str
    kind: DiscrepancyKind

    @property
    def message(self) -> str:
        """The kind in words: "you marked it, the other did not" or the reverse."""
        return DISCREPANCY_MESSAGES[self.kind]


@dataclass(frozen=True)
class InventoryGrowth:
    """Size of the re-merged inventory against the number of summaries (Figure 4).

    Attributes
    ----------
    sizes : ndarray of int, shape (n_summaries,)
        ``N = 1 .. n_summaries``.
    mean, sd : ndarray of float, shape (n_summaries,)
        Mean and sample standard deviation (ddof=1; NaN for one draw) over the
        draws of the number of factoids left after re-merging.
    mean_per_sentence, sd_per_sentence : ndarray of float, shape (n_summaries,)
        The same for the number of re-merged factoids a sentence carries,
        averaged over the marked sentences of the drawn summaries; draws
        whose summaries have no marked sentence are left out (NaN if all are).
    draws : int
        Draws per size.
    """

    sizes: npt.NDArray[np.intp]
    mean: npt.NDArray[np.float64]
    sd: npt.NDArray[np.float64]
    mean_per_sentence: npt.NDArray[np.float64]
    sd_per_sentence: npt.NDArray[np.float64]
    draws: int


@dataclass(frozen=True)
class WfsStability:
    """Rank correlation of WFS rankings from two samples of N model summaries (Figure 5).

    Attributes
    ----------
    sizes : ndarray of int
        The sample sizes N, as given.
    mean_rho, sd_rho : ndarray of float
        Mean and sample standard deviation (ddof=1) of Spearman's rho over the
        pairs with a defined rho.
    undefined : ndarray of int
        Pairs per size whose rho is undefined (a ranking with all scores
        equal, or fewer than two summaries); they are left out of the mean.
    first_above : dict of float to int or None
        For each threshold, the first N whose mean rho exceeds it (the paper:
        0.8 at N=11, 0.9 at N=19), None if none does.
    pairs : int
        Pairs of samples per size.
    """

    sizes: npt.NDArray[np.intp]
    mean_rho: npt.NDArray[np.float64]
    sd_rho: npt.NDArray[np.float64]
    undefined: npt.NDArray[np.intp]
    first_above: dict[float, int | None]
    pairs: int


@dataclass(frozen=True)
class WfsDistribution:
    """Every summary's WFS over bootstrap samples of N model summaries (Figures 6, 7).

    Attributes
    ----------
    n : int
        Model summaries per sample.
    scores : ndarray of float, shape (draws, n_summaries)
        The scores under each sample.
    """

    n: int
    scores: npt.NDArray[np.float64]

    @property
    def five_numbers(self) -> npt.NDArray[np.float64]:
        """(5, n_summaries): minimum, lower quartile, median, upper quartile,
        maximum of each summary's scores (linear interpolation), for box plots."""
        return np.percentile(self.scores, [0, 25, 50, 75, 100], axis=0)


@dataclass(frozen=True)
class UnigramComparison:
    """Unigram F-measure against factoid F-measure per summary (end of section 5).

    Attributes
    ----------
    consensus_unigrams : tuple of str
        Unigrams in at least ``min_summaries`` summaries, sorted.
    consensus_factoids : ndarray of intp
        Columns of the factoids in at least ``min_factoid_summaries`` summaries.
    unigram_f, factoid_f : ndarray of float, shape (n_summaries,)
        Each summary's F-measure of its unigram (factoid) set against the
        consensus set.
    rho : float
        Spearman's rho between the two; NaN if undefined.
    """

    consensus_unigrams: tuple[str, ...]
    consensus_factoids: npt.NDArray[np.intp]
    unigram_f: npt.NDArray[np.float64]
    factoid_f: npt.NDArray[np.float64]
    rho: float


@dataclass(frozen=True)
class _Topic:
    summary_ids: tuple[str, ...]
    model: npt.NDArray[np.bool_]
    sentence_ids: tuple[str, ...]
    summary_of_sentence: npt.NDArray[np.intp]
    sentence_index: dict[str, int]

    def unit_ids(self, unit: Unit) -> tuple[str, ...]:
        return self.sentence_ids if unit == "sentence" else self.summary_ids

    def in_units(self, by_sentence: npt.NDArray[np.bool_], unit: Unit) -> npt.NDArray[np.bool_]:
        if unit == "sentence":
            return by_sentence
        return _by_summary(by_sentence, self.summary_of_sentence, len(self.summary_ids))


@dataclass(frozen=True)
class _Annotation:
    inventory: tuple[str, ...]
    by_sentence: npt.NDArray[np.bool_]
    columns: dict[str, int]

    def column(self, factoid: Any) -> int | None:
        return self.columns.get(factoid) if isinstance(factoid, str) else None


# --------------------------------------------------------------------------
# Parsing and validation of the Python structures
# --------------------------------------------------------------------------


def _sequence(value: Any, name: str) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ValueError(f"{name} must be a sequence, got {type(value).__name__}")
    return list(value)


def _string_id(value: Any, name: str) -> str:
    if isinstance(value, Mapping):
        value = value.get("id")
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string id (or a mapping with one), got {value!r}")
    return value


def _id_tuple(value: Any, name: str) -> tuple[str, ...]:
    listed = [value] if isinstance(value, str) else _sequence(value, name)
    if not listed:
        raise ValueError(f"{name} must name at least one factoid")
    ids = tuple(_string_id(factoid, f"{name}[{position}]") for position, factoid in enumerate(listed))
    if len(set(ids)) != len(ids):
        raise ValueError(f"{name} must not repeat a factoid, got {ids}")
    return ids


def _topic(summaries: Any) -> _Topic:
    rows = _sequence(summaries, "summaries")
    summary_ids: list[str] = []
    model: list[bool] = []
    sentence_ids: list[str] = []
    owners: list[int] = []
    for position, summary in enumerate(rows):
        name = f"summaries[{position}]"
        if not isinstance(summary, Mapping):
            raise ValueError(f"{name} must be a mapping with 'id' and 'sentences', got {type(summary).__name__}")
        summary_ids.append(_string_id(summary.get("id"), f"{name}['id']"))
        is_model = summary.get("model", False)
        if not isinstance(is_model, (bool, np.bool_)):
            raise ValueError(f"{name}['model'] must be True or False, got {is_model!r}")
        model.append(bool(is_model))
        sentences = _sequence(summary.get("sentences"), f"{name}['sentences']")
        sentence_ids.extend(_string_id(s, f"{name}['sentences'][{i}]") for i, s in enumerate(sentences))
        owners.extend([position] * len(sentences))
    _check_unique(summary_ids, "summaries", "summary ids")
    _check_unique(sentence_ids, "summaries", "sentence ids")
    return _Topic(
        tuple(summary_ids),
        np.array(model, dtype=bool),
        tuple(sentence_ids),
        np.array(owners, dtype=np.intp),
        {sentence: row for row, sentence in enumerate(sentence_ids)},
    )


def _check_unique(ids: Sequence[str], name: str, what: str) -> None:
    seen: set[str] = set()
    repeated = [i for i in ids if i in seen or seen.add(i)]  # type: ignore[func-returns-value]
    if repeated:
        raise ValueError(f"{name} must have unique {what}, {repeated[0]!r} occurs more than once")


def _annotation(annotation: Any, name: str, topic: _Topic) -> _Annotation:
    if not isinstance(annotation, Mapping) or "factoids" not in annotation:
        raise ValueError(f"{name} must be a mapping with 'factoids' and 'marks'")
    inventory = tuple(
        _string_id(f, f"{name}['factoids'][{i}]")
        for i, f in enumerate(_sequence(annotation["factoids"], f"{name}['factoids']"))
    )
    _check_unique(inventory, f"{name}['factoids']", "factoid ids")
    marks = annotation.get("marks", {})
    if not isinstance(marks, Mapping):
        raise ValueError(f"{name}['marks'] must map sentence ids to lists of factoid ids")
    column = {factoid: j for j, factoid in enumerate(inventory)}
    rows: list[int] = []
    cols: list[int] = []
    for sentence, marked in marks.items():
        where = f"{name}['marks'][{sentence!r}]"
        if not isinstance(sentence, str):
            raise ValueError(f"{name}['marks'] keys must be sentence ids (strings), got {sentence!r}")
        row = topic.sentence_index.get(sentence)
        for factoid in _sequence(marked, where):
            j = column.get(factoid) if isinstance(factoid, str) else None
            if j is None:
                raise ValueError(f"{where} names {factoid!r}, which is not a factoid of {name}['factoids']")
            if row is not None:
                rows.append(row)
                cols.append(j)
    by_sentence = np.zeros((len(topic.sentence_ids), len(inventory)), dtype=bool)
    by_sentence[rows, cols] = True
    return _Annotation(inventory, by_sentence, column)


def _unit(unit: Any) -> Unit:
    if unit not in ("sentence", "summary"):
        raise ValueError(f"unit must be 'sentence' or 'summary', got {unit!r}")
    return unit


def _bool_matrix(value: Any, name: str) -> npt.NDArray[np.bool_]:
    array = np.asarray(value)
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {array.shape}")
    return _as_bool(array, name)


def _as_bool(array: np.ndarray, name: str) -> npt.NDArray[np.bool_]:
    if array.dtype == bool:
        return array
    if array.size and not (array.dtype.kind in "biuf" and np.all((array == 0) | (array == 1))):
        raise ValueError(f"{name} must hold booleans (or 0 and 1 only)")
    return array.astype(bool)


def _bool_vector(value: Any, name: str, length: int) -> npt.NDArray[np.bool_]:
    array = np.asarray(value)
    if array.shape != (length,):
        raise ValueError(f"{name} must have shape ({length},), got {array.shape}")
    return _as_bool(array, name)


def _whole(value: Any, name: str, *, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _summary_index(
    value: Any, name: str, n_sentences: int, n_summaries: int | None
) -> tuple[npt.NDArray[np.intp], int]:
    index = np.asarray(value)
    if index.shape != (n_sentences,):
        raise ValueError(f"{name} must have shape ({n_sentences},), one summary per sentence, got {index.shape}")
    if index.size and (index.dtype.kind not in "iu" or index.min() < 0):
        raise ValueError(f"{name} must hold non-negative integers (summary numbers)")
    found = int(index.max()) + 1 if index.size else 0
    if n_summaries is None:
        n_summaries = found
    elif _whole(n_summaries, "n_summaries", minimum=1) < found:
        raise ValueError(f"n_summaries is {n_summaries} but {name} names summary {found - 1}")
    if n_summaries < 1:
        raise ValueError(f"{name} must name at least one summary (or give n_summaries)")
    return index.astype(np.intp), n_summaries


def _presence_and_models(presence: Any, model_mask: Any) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    table = _bool_matrix(presence, "presence_summaries")
    models = _bool_vector(model_mask, "model_mask", table.shape[0])
    if not models.any():
        raise ValueError("model_mask must select at least one model summary")
    return table, models


def _model_votes(
    table: npt.NDArray[np.bool_], models: npt.NDArray[np.bool_], first_position: Any
) -> npt.NDArray[np.float64]:
    """(n_models, n_factoids): what each model summary adds to a factoid's weight."""
    votes = table[models].astype(np.float64)
    if first_position is None:
        return votes
    position = np.asarray(first_position)
    if position.shape != table.shape or position.dtype.kind not in "iu":
        raise ValueError(
            f"first_position must be integers of shape {table.shape}, got {position.dtype} {position.shape}"
        )
    if np.any(position[table] < 1):
        raise ValueError("first_position must be >= 1 wherever the factoid is present")
    return np.divide(votes, position[models], out=np.zeros_like(votes), where=table[models])


def _row_numbers(value: Any, name: str, n_rows: int) -> npt.NDArray[np.intp]:
    """A 1-D array of row numbers in [0, n_rows); an empty list is fine."""
    array = np.asarray(value)
    if array.size == 0 and array.ndim == 1:
        return array.astype(np.intp)
    if array.ndim != 1 or array.dtype.kind not in "iu" or array.min() < 0 or array.max() >= n_rows:
        raise ValueError(f"{name} must be a 1-D array of row numbers in [0, {n_rows}), got {value!r}")
    return array.astype(np.intp)


def _check_seed(seed: Any) -> int:
    return _whole(seed, "seed", minimum=0)


# --------------------------------------------------------------------------
# Annotation as arrays
# --------------------------------------------------------------------------


def factoid_table(annotation: Mapping[str, Any], summaries: Sequence[Mapping[str, Any]]) -> FactoidTable:
    """Turn one annotation (for instance the consensus) into arrays.

    Parameters
    ----------
    annotation : mapping
        ``{"factoids": [...], "marks": {sentence id: [factoid ids]}}`` (see
        the module docstring).
    summaries : sequence of mappings
        ``{"id", "model", "sentences"}`` for every summary of the topic.

    Returns
    -------
    FactoidTable

    Raises
    ------
    ValueError
        If an id is missing or repeated, or a mark names a factoid that is
        not in the inventory.

    Examples
    --------
    >>> summaries = [{"id": "m1", "model": True, "sentences": ["m1.1", "m1.2"]},
    ...              {"id": "r1", "model": False, "sentences": ["r1.1"]}]
    >>> table = factoid_table({"factoids": ["F1", "F2"],
    ...                        "marks": {"m1.1": ["F1"], "m1.2": ["F1", "F2"], "r1.1": ["F2"]}}, summaries)
    >>> table.by_summary.astype(int)
    array([[1, 1],
           [0, 1]])
    >>> table.first_position
    array([[1, 2],
           [0, 1]])
    """
    topic = _topic(summaries)
    parsed = _annotation(annotation, "annotation", topic)
    return FactoidTable(
        parsed.inventory,
        topic.summary_ids,
        topic.model,
        topic.sentence_ids,
        topic.summary_of_sentence,
        parsed.by_sentence,
    )


def _by_summary(
    by_sentence: npt.NDArray[np.bool_], owner: npt.NDArray[np.intp], n_summaries: int
) -> npt.NDArray[np.bool_]:
    counts = np.zeros((n_summaries, by_sentence.shape[1]), dtype=np.intp)
    np.add.at(counts, owner, by_sentence)
    return counts > 0


def _first_position(
    by_sentence: npt.NDArray[np.bool_], owner: npt.NDArray[np.intp], n_summaries: int
) -> npt.NDArray[np.intp]:
    starts = np.searchsorted(owner, np.arange(n_summaries))  # sentences are grouped by summary
    position = np.arange(len(owner)) - starts[owner] + 1
    beyond = len(owner) + 1
    first = np.full((n_summaries, by_sentence.shape[1]), beyond, dtype=np.intp)
    np.minimum.at(first, owner, np.where(by_sentence, position[:, np.newaxis], beyond))
    first[first == beyond] = 0
    return first


# --------------------------------------------------------------------------
# Kappa (section 3.1, Figure 1)
# --------------------------------------------------------------------------


def _kappa_of_labels(labels: npt.NDArray[np.bool_]) -> FactoidKappa:
    """Siegel and Castellan's kappa of two-category items, every item rated by every rater."""
    n_items, n_raters = labels.shape
    if n_items == 0:
        return FactoidKappa(float("nan"), float("nan"), float("nan"), 0)
    return _kappa_of_two(labels) if n_raters == 2 else _kappa_of_many(labels)


def _kappa_of_many(labels: npt.NDArray[np.bool_]) -> FactoidKappa:
    """:func:`_kappa_of_labels` of at least one item, any number of raters."""
    n_items, n_raters = labels.shape
    present = labels.sum(axis=1)
    absent = n_raters - present
    counts = np.column_stack([absent, present])
    rater_pairs = n_raters * (n_raters - 1)
    observed = float(np.mean((present * (present - 1) + absent * (absent - 1)) / rater_pairs))
    share = present.sum() / (n_items * n_raters)
    expected = float(share**2 + (1 - share) ** 2)
    # fleiss_kappa is the same formula when every item has every rater; using
    # it keeps one definition (and its NaN conventions) across Concord.
    return FactoidKappa(fleiss_kappa(counts), observed, expected, int(n_items))


def _kappa_of_two(labels: npt.NDArray[np.bool_]) -> FactoidKappa:
    """:func:`_kappa_of_labels` of two raters from their four counts (a topic's 45 pairs
    of annotators each call it twice): the same operations on the same values as the
    general path and :func:`fleiss_kappa`, so bit for bit the same figures
    (kinds/factoids/tests/test_stats.py), without a dozen array operations per call."""
    n_items = labels.shape[0]
    both = int(np.count_nonzero(labels[:, 0] & labels[:, 1]))
    marked = int(np.count_nonzero(labels))
    neither = n_items - marked + both
    # Per item, (present (present - 1) + absent (absent - 1)) / 2 is 1 when both raters agree, else 0.
    observed = (both + neither) / n_items
    share = marked / (n_items * 2)
    expected = share**2 + (1 - share) ** 2
    if marked == 0 or marked == 2 * n_items:  # every rating in one category: fleiss_kappa's 0/0
        return FactoidKappa(float("nan"), observed, float(expected), n_items)
    absent_share, present_share = (2 * n_items - marked) / (n_items * 2), marked / (n_items * 2)
    chance = absent_share * absent_share + present_share * present_share
    return FactoidKappa((observed - chance) / (1 - chance), observed, float(expected), n_items)


def _shared_columns(
    parsed: list[_Annotation], factoid_keys: Sequence[Mapping[str, str]] | None
) -> tuple[list[str], list[npt.NDArray[np.intp]]]:
    """The factoids every annotator defined, and each annotator's column of each."""
    if factoid_keys is None:
        keyed = [{f: f for f in a.inventory} for a in parsed]
    else:
        maps = _sequence(factoid_keys, "factoid_keys")
        if len(maps) != len(parsed):
            raise ValueError(f"factoid_keys must hold one mapping per annotation ({len(parsed)}), got {len(maps)}")
        keyed = [_key_mapping(m, a, position) for position, (m, a) in enumerate(zip(maps, parsed))]
    common = set.intersection(*(set(k.values()) for k in keyed))
    first_map = keyed[0]
    keys = [first_map[f] for f in parsed[0].inventory if f in first_map and first_map[f] in common]
    columns = []
    for mapping, annotation in zip(keyed, parsed):
        column_of_key = {key: annotation.columns[own] for own, key in mapping.items()}
        columns.append(np.array([column_of_key[k] for k in keys], dtype=np.intp))
    return keys, columns


def _key_mapping(mapping: Any, annotation: _Annotation, position: int) -> dict[str, str]:
    name = f"factoid_keys[{position}]"
    if not isinstance(mapping, Mapping):
        raise ValueError(f"{name} must map the annotator's factoid ids to shared keys")
    known = set(annotation.inventory)
    for own, key in mapping.items():
        if own not in known:
            raise ValueError(f"{name} names {own!r}, which is not a factoid of annotations[{position}]")
        if not isinstance(key, str):
            raise ValueError(f"{name}[{own!r}] must be a string key, got {key!r}")
    _check_unique(list(mapping.values()), name, "keys (one factoid per key)")
    return dict(mapping)


def annotation_items(
    annotations: Sequence[Mapping[str, Any]],
    summaries: Sequence[Mapping[str, Any]],
    *,
    unit: Unit = "summary",
    factoid_keys: Sequence[Mapping[str, str]] | None = None,
) -> AnnotationItems:
    """The items of the factoid annotation kappa (section 3.1).

    An item is one factoid in one unit: a whole summary (default,
    ``unit="summary"``: the paper's "factoid-summary combinations", 153
    factoids x 20 summaries in Phase 1; a factoid is in a summary when any
    of its sentences is marked with it) or a summary sentence
    (``unit="sentence"``, finer: it also counts where in the summary a
    factoid was marked). Its labels say, per annotator, whether the factoid
    is marked in that unit.

    Included: every factoid defined by *every* annotator, crossed with every
    sentence (or summary) of ``summaries``. Without ``factoid_keys`` a
    factoid is identified by its id, so annotators who worked from a common
    list share it; with ``factoid_keys`` each annotator's ids are mapped to
    shared keys and only keys every annotator maps to are kept (own factoids
    left out of the mapping are not counted). A factoid in the inventory that
    is never marked still gives items (all "absent"). Items are ordered by
    factoid (in the first annotator's inventory order), then by unit in
    ``summaries`` order.

    Parameters
    ----------
    annotations : sequence of mappings, length >= 2
        One annotation per annotator (see the module docstring).
    summaries : sequence of mappings
        The summaries whose sentences are annotated.
    unit : {"summary", "sentence"}, default "summary"
        What a factoid is judged in: the paper's summaries, or sentences.
    factoid_keys : sequence of mappings, optional
        One per annotation: own factoid id -> shared key (at most one own
        factoid per key).

    Returns
    -------
    AnnotationItems

    Raises
    ------
    ValueError
        If fewer than two annotations, an annotation or summary is malformed,
        or ``unit`` or ``factoid_keys`` is invalid.

    Examples
    --------
    >>> summaries = [{"id": "s", "sentences": ["s1", "s2"]}]
    >>> one = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F2"]}}
    >>> two = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1", "F2"]}}
    >>> items = annotation_items([one, two], summaries, unit="sentence")
    >>> items.factoid.tolist(), items.unit.tolist()
    (['F1', 'F1', 'F2', 'F2'], ['s1', 's2', 's1', 's2'])
    >>> items.labels.astype(int).tolist()
    [[1, 1], [0, 0], [0, 1], [1, 0]]
    >>> annotation_items([one, two], summaries).labels.astype(int).tolist()  # by summary
    [[1, 1], [1, 1]]
    """
    unit = _unit(unit)
    listed = _sequence(annotations, "annotations")
    if len(listed) < 2:
        raise ValueError(f"annotations must hold at least two annotators, got {len(listed)}")
    topic = _topic(summaries)
    parsed = [_annotation(a, f"annotations[{i}]", topic) for i, a in enumerate(listed)]
    keys, columns = _shared_columns(parsed, factoid_keys)
    units = topic.unit_ids(unit)
    labels = _annotation_labels([topic.in_units(a.by_sentence, unit) for a in parsed], columns)
    return AnnotationItems(_strings(np.repeat(keys, len(units))), _strings(np.tile(units, len(keys))), labels)


def _annotation_labels(
    in_units: Sequence[npt.NDArray[np.bool_]], columns: Sequence[npt.NDArray[np.intp]]
) -> npt.NDArray[np.bool_]:
    """:func:`annotation_items`' labels from each annotator's units x factoids marks and shared columns."""
    # (n_units, n_keys, n_annotators) -> factoid-major items
    stacked = np.stack([marks[:, c] for marks, c in zip(in_units, columns)], axis=-1)
    return stacked.transpose(1, 0, 2).reshape(-1, len(in_units))


def _strings(values: Any) -> npt.NDArray[np.str_]:
    array = np.asarray(values, dtype=str)
    return array.reshape(-1)


def annotation_kappa(
    annotations: Sequence[Mapping[str, Any]],
    summaries: Sequence[Mapping[str, Any]],
    *,
    unit: Unit = "summary",
    factoid_keys: Sequence[Mapping[str, str]] | None = None,
) -> FactoidKappa:
    r"""Kappa of factoid annotation (section 3.1, Figure 1).

    Over the items of :func:`annotation_items` (two categories, present and
    absent; :math:`N` items, :math:`k` annotators, :math:`n_{i}` of whom mark
    item :math:`i` present), following Siegel and Castellan (1988) as the
    paper does:

    .. math::
        P(A) = \frac1N \sum_i \frac{\binom{n_i}{2} + \binom{k - n_i}{2}}{\binom{k}{2}},\quad
        P(E) = p^2 + (1 - p)^2,\quad p = \frac{\sum_i n_i}{N k},\quad
        \kappa = \frac{P(A) - P(E)}{1 - P(E)}

    Every item has every annotator, so this is Fleiss' kappa
    (:func:`stats.agreement.fleiss_kappa`). Compute it per phase
    by passing each phase's annotations.

    Parameters
    ----------
    annotations, summaries, unit, factoid_keys
        As for :func:`annotation_items`.

    Returns
    -------
    FactoidKappa
        Kappa, P(A), P(E) and the number of items; all NaN (0 items) when no
        factoid is shared, kappa NaN when every label is the same.

    Examples
    --------
    >>> summaries = [{"id": "s", "sentences": ["s1", "s2"]}]
    >>> one = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F2"]}}
    >>> two = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1", "F2"]}}
    >>> annotation_kappa([one, two], summaries, unit="sentence")
    FactoidKappa(kappa=0.0, observed=0.5, expected=0.5, n_items=4)
    >>> annotation_kappa([one, two], summaries)  # the paper's unit: both factoids in the summary
    FactoidKappa(kappa=nan, observed=1.0, expected=1.0, n_items=2)
    """
    items = annotation_items(annotations, summaries, unit=unit, factoid_keys=factoid_keys)
    return _kappa_of_labels(items.labels)


# --------------------------------------------------------------------------
# Definition agreement (section 3.2)
# --------------------------------------------------------------------------


def _relations(relations: Any, first: _Annotation, second: _Annotation) -> list[FactoidRelation]:
    parsed = []
    for position, relation in enumerate(_sequence(relations, "relations")):
        name = f"relations[{position}]"
        if isinstance(relation, FactoidRelation):
            pass
        elif isinstance(relation, Mapping):
            relation = _make_relation(relation.get("first"), relation.get("second"), name)
        elif isinstance(relation, Sequence) and not isinstance(relation, str) and len(relation) == 2:
            relation = _make_relation(relation[0], relation[1], name)
        else:
            raise ValueError(
                f"{name} must be a FactoidRelation, a (first, second) pair or a mapping with 'first' and 'second'"
            )
        for side, annotation, number in ((relation.first, first, 1), (relation.second, second, 2)):
            unknown = [f for f in side if annotation.column(f) is None]
            if unknown:
                raise ValueError(f"{name} names {unknown[0]!r}, which is not a factoid of annotation_{number}")
        parsed.append(relation)
    return parsed


def _make_relation(first: Any, second: Any, name: str) -> FactoidRelation:
    try:
        return FactoidRelation(first, second)
    except ValueError as error:
        raise ValueError(f"{name}: {error}") from None


def definition_items(
    relations: Sequence[FactoidRelation | Mapping[str, Any] | tuple[Any, Any]],
    annotation_1: Mapping[str, Any],
    annotation_2: Mapping[str, Any],
    summaries: Sequence[Mapping[str, Any]],
    *,
    unit: Unit = "summary",
) -> DefinitionItems:
    """The items of the factoid definition kappa (section 3.2, Figure 2).

    For each identity between factoids A and C, items A-C-s for every summary
    s; for each factoid A subsumed by a set B of factoids, items A^b-s for
    every b in B and every summary s. Item A^b-s is labelled by annotator 1's
    factoid of the pair being in s and annotator 2's factoid being in s
    (whichever of them is the subsuming one). Items follow the relations, the
    members of B in the order given, then the summaries.

    The paper's example: summaries a-e; annotator 1 assigns P30 to a, c and
    e; annotator 2 split P30 into F9.21 (assigned to a) and F9.22 (c, e).
    The relation P30 subsumes {F9.21, F9.22} creates 10 items: P30^F9.21 in
    a..e labelled (1,1) (0,0) (1,0) (0,0) (1,0), and P30^F9.22 labelled
    (1,0) (0,0) (1,1) (0,0) (1,1).

    Parameters
    ----------
    relations : sequence
        :class:`FactoidRelation` objects, ``(first, second)`` pairs or
        mappings ``{"first": ..., "second": ...}``: annotator 1's factoids
        first, annotator 2's second; a side may be a single id.
    annotation_1, annotation_2 : mapping
        The two annotations (see the module docstring).
    summaries : sequence of mappings
    unit : {"summary", "sentence"}, default "summary"
        The paper crosses relations with summaries; "sentence" crosses them
        with summary sentences instead.

    Returns
    -------
    DefinitionItems

    Raises
    ------
    ValueError
        If a relation is malformed or names a factoid outside its
        annotator's inventory, or an annotation or summary is malformed.

    Examples
    --------
    >>> summaries = [{"id": s, "sentences": [s + "1"]} for s in "abcde"]
    >>> one = {"factoids": ["P30"], "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"]}}
    >>> two = {"factoids": ["F9.21", "F9.22"], "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"]}}
    >>> items = definition_items([("P30", ["F9.21", "F9.22"])], one, two, summaries)
    >>> items.labels.astype(int).tolist()
    [[1, 1], [0, 0], [1, 0], [0, 0], [1, 0], [1, 0], [0, 0], [1, 1], [0, 0], [1, 1]]
    """
    unit = _unit(unit)
    topic = _topic(summaries)
    first = _annotation(annotation_1, "annotation_1", topic)
    second = _annotation(annotation_2, "annotation_2", topic)
    pairs = [pair for relation in _relations(relations, first, second) for pair in relation.pairs]
    units = topic.unit_ids(unit)
    labels = _definition_labels(
        first, second, topic.in_units(first.by_sentence, unit), topic.in_units(second.by_sentence, unit), pairs
    )
    return DefinitionItems(
        _strings(np.repeat([a for a, _ in pairs], len(units))),
        _strings(np.repeat([b for _, b in pairs], len(units))),
        _strings(np.tile(units, len(pairs))),
        labels,
    )


def _definition_labels(
    first: _Annotation,
    second: _Annotation,
    first_units: npt.NDArray[np.bool_],
    second_units: npt.NDArray[np.bool_],
    pairs: Sequence[tuple[str, str]],
) -> npt.NDArray[np.bool_]:
    """:func:`definition_items`' labels from both annotators' units x factoids marks."""
    first_columns = np.array([first.column(a) for a, _ in pairs], dtype=np.intp)
    second_columns = np.array([second.column(b) for _, b in pairs], dtype=np.intp)
    stacked = np.stack([first_units[:, first_columns], second_units[:, second_columns]], axis=-1)
    return stacked.transpose(1, 0, 2).reshape(len(pairs) * first_units.shape[0], 2)


def definition_kappa(
    relations: Sequence[FactoidRelation | Mapping[str, Any] | tuple[Any, Any]],
    annotation_1: Mapping[str, Any],
    annotation_2: Mapping[str, Any],
    summaries: Sequence[Mapping[str, Any]],
    *,
    unit: Unit = "summary",
) -> FactoidKappa:
    """Kappa of factoid definition (section 3.2, Figure 3).

    The kappa of :func:`annotation_kappa` (two annotators, two categories)
    over the items of :func:`definition_items`. Compute it per phase by
    passing each phase's annotations and relations.

    Parameters
    ----------
    relations, annotation_1, annotation_2, summaries, unit
        As for :func:`definition_items`.

    Returns
    -------
    FactoidKappa
        All NaN (0 items) without relations.

    Examples
    --------
    The paper's example (see :func:`definition_items`): P(A) = 7/10,
    p = 9/20, P(E) = 0.45**2 + 0.55**2 = 0.505, kappa = 0.195/0.495 = 13/33.

    >>> summaries = [{"id": s, "sentences": [s + "1"]} for s in "abcde"]
    >>> one = {"factoids": ["P30"], "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"]}}
    >>> two = {"factoids": ["F9.21", "F9.22"], "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"]}}
    >>> result = definition_kappa([("P30", ["F9.21", "F9.22"])], one, two, summaries)
    >>> round(result.kappa, 6), result.observed, round(result.expected, 6), result.n_items
    (0.393939, 0.7, 0.505, 10)
    """
    items = definition_items(relations, annotation_1, annotation_2, summaries, unit=unit)
    return _kappa_of_labels(items.labels)


# --------------------------------------------------------------------------
# Suggesting relations (section 3.2)
# --------------------------------------------------------------------------


def _fraction(numerator: np.ndarray, denominator: np.ndarray) -> npt.NDArray[np.float64]:
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)


def _best_along(primary: np.ndarray, secondary: np.ndarray, axis: int) -> npt.NDArray[np.intp]:
    """Index maximising ``primary``, ties to the larger ``secondary``, then to the lower index."""
    top = primary == primary.max(axis=axis, keepdims=True)
    return np.argmax(np.where(top, secondary, -np.inf), axis=axis)


def _subsumption_candidates(
    container: np.ndarray, parts: np.ndarray, shared: np.ndarray, min_inside: float, min_cover: float
) -> list[tuple[int, tuple[int, ...], int]]:
    """Factoids of ``container`` (sentences x factoids) split into parts of ``parts``.

    ``shared[a, b]`` is the number of sentences of container factoid ``a``
    also marked with part ``b``. Returns (container factoid, its parts,
    covered sentences) for every container that qualifies.
    """
    if shared.size == 0:
        return []
    sizes = container.sum(axis=0)
    part_sizes = parts.sum(axis=0)
    inside = _fraction(shared, part_sizes[np.newaxis, :])
    closeness = _fraction(shared, sizes[:, np.newaxis] + part_sizes[np.newaxis, :] - shared)
    home = _best_along(inside, closeness, axis=0)  # each part's best container
    member = np.zeros(shared.shape, dtype=bool)
    member[home, np.arange(shared.shape[1])] = True
    member &= inside >= min_inside
    covered = (container & ((parts.astype(np.intp) @ member.T.astype(np.intp)) > 0)).sum(axis=0)
    alone = np.where(member, _fraction(shared, sizes[:, np.newaxis]), 0.0).max(axis=1, initial=0.0)
    qualifies = (member.sum(axis=1) >= 2) & (_fraction(covered, sizes) >= min_cover) & (alone < min_cover)
    return [
        (int(a), tuple(int(b) for b in np.flatnonzero(member[a])), int(covered[a])) for a in np.flatnonzero(qualifies)
    ]


def suggest_relations(
    annotation_1: Mapping[str, Any],
    annotation_2: Mapping[str, Any],
    summaries: Sequence[Mapping[str, Any]],
    *,
    min_identity: float = 0.6,
    min_inside: float = 0.8,
    min_cover: float = 0.8,
) -> tuple[FactoidRelation, ...]:
    r"""Suggest identity and subsumption relations between two inventories (section 3.2).

    The paper lets "a program which maximises shared factoids between two
    summary sentences" suggest the relations, which an organiser then
    confirms or edits; it gives no rule. Concord's rule works on the set
    :math:`S_A` of sentences (of ``summaries``) marked with each factoid
    :math:`A`:

    1. Subsumption. A part :math:`b` of one annotator lies *inside* a factoid
       :math:`A` of the other when :math:`|S_A \cap S_b| / |S_b| \ge`
       ``min_inside``; each part counts only for the factoid it lies most
       inside (ties: the larger Jaccard overlap, then inventory order).
       :math:`A` subsumes its parts :math:`B` when there are at least two,
       together they cover :math:`|S_A \cap \bigcup_b S_b| / |S_A| \ge`
       ``min_cover``, and no single part covers that much alone (then it is
       an identity candidate instead). Both directions are tried; where
       suggestions share a factoid, the one covering more sentences wins.
    2. Identity, among the factoids left: :math:`A` and :math:`C` are each
       other's best match by Jaccard overlap
       :math:`|S_A \cap S_C| / |S_A \cup S_C|` (ties: more shared
       sentences, then inventory order) and it is at least ``min_identity``.

    Factoids never marked, and factoids that match nothing closely enough,
    get no relation.

    Parameters
    ----------
    annotation_1, annotation_2 : mapping
        The two annotations (see the module docstring).
    summaries : sequence of mappings
        The sentences considered are those of these summaries.
    min_identity : float, default 0.6
        Least Jaccard overlap of an identity.
    min_inside : float, default 0.8
        Least share of a part's sentences inside the subsuming factoid.
    min_cover : float, default 0.8
        Least share of the subsuming factoid's sentences its parts cover.

    Returns
    -------
    tuple of FactoidRelation
        Ordered by the first annotator's earliest factoid in each relation,
        then the second's; factoids within a side in inventory order.

    Raises
    ------
    ValueError
        If a threshold is outside (0, 1], or an annotation or summary is
        malformed.

    Examples
    --------
    >>> summaries = [{"id": s, "sentences": [s + "1"]} for s in "abcde"]
    >>> one = {"factoids": ["P30", "P31"], "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"],
    ...                                              "b1": ["P31"], "d1": ["P31"]}}
    >>> two = {"factoids": ["F9.21", "F9.22", "F4"],
    ...        "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"], "b1": ["F4"], "d1": ["F4"]}}
    >>> for relation in suggest_relations(one, two, summaries):
    ...     print(relation.kind, relation.first, relation.second)
    subsumption ('P30',) ('F9.21', 'F9.22')
    identity ('P31',) ('F4',)
    """
    _check_thresholds(min_identity, min_inside, min_cover)
    topic = _topic(summaries)
    first = _annotation(annotation_1, "annotation_1", topic)
    second = _annotation(annotation_2, "annotation_2", topic)
    return _suggest(first, second, min_identity, min_inside, min_cover)


def _check_thresholds(min_identity: Any, min_inside: Any, min_cover: Any) -> None:
    for value, name in ((min_identity, "min_identity"), (min_inside, "min_inside"), (min_cover, "min_cover")):
        if not isinstance(value, (int, float, np.floating)) or not 0 < value <= 1:
            raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")


def _suggest(
    first: _Annotation, second: _Annotation, min_identity: float, min_inside: float, min_cover: float
) -> tuple[FactoidRelation, ...]:
    """:func:`suggest_relations` of two parsed annotations."""
    marks_1, marks_2 = first.by_sentence, second.by_sentence
    shared = marks_1.T.astype(np.intp) @ marks_2.astype(np.intp)

    # (covered sentences, direction, subsuming factoid, parts); direction 0: annotator 1 subsumes
    directions = ((marks_1, marks_2, shared), (marks_2, marks_1, shared.T))
    candidates = [
        (covered, direction, whole, parts)
        for direction, (wholes, parts_of, overlap) in enumerate(directions)
        for whole, parts, covered in _subsumption_candidates(wholes, parts_of, overlap, min_inside, min_cover)
    ]
    used_1 = np.zeros(len(first.inventory), dtype=bool)
    used_2 = np.zeros(len(second.inventory), dtype=bool)
    found: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for _, direction, whole, parts in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
        whole_used, part_used = (used_1, used_2) if direction == 0 else (used_2, used_1)
        if whole_used[whole] or part_used[list(parts)].any():
            continue
        whole_used[whole] = True
        part_used[list(parts)] = True
        found.append(((whole,), parts) if direction == 0 else (parts, (whole,)))

    found.extend(_identities(marks_1, marks_2, shared, used_1, used_2, min_identity))
    found.sort(key=lambda pair: (min(pair[0]), min(pair[1])))
    return tuple(
        FactoidRelation(tuple(first.inventory[i] for i in a), tuple(second.inventory[j] for j in b)) for a, b in found
    )


def _identities(
    marks_1: np.ndarray,
    marks_2: np.ndarray,
    shared: np.ndarray,
    used_1: np.ndarray,
    used_2: np.ndarray,
    min_identity: float,
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    if shared.size == 0:
        return []
    union = marks_1.sum(axis=0)[:, np.newaxis] + marks_2.sum(axis=0)[np.newaxis, :] - shared
    jaccard = _fraction(shared, union)
    jaccard[used_1, :] = -1.0
    jaccard[:, used_2] = -1.0
    best_2 = _best_along(jaccard, shared, axis=1)
    best_1 = _best_along(jaccard, shared, axis=0)
    rows = np.arange(shared.shape[0])
    mutual = (best_1[best_2] == rows) & (jaccard[rows, best_2] >= min_identity)
    return [((int(a),), (int(best_2[a]),)) for a in np.flatnonzero(mutual)]


def _blocks(widths: Sequence[int], n_sentences: int) -> list[tuple[int, int]]:
    """Consecutive blocks ``(start, stop)`` of pairs whose arrays (pairs x the block's widest
    inventory x the larger of it and the sentences) stay within ``_SUGGEST_CELLS``, one pair
    at least."""
    blocks, start, width = [], 0, 1
    for i, own in enumerate(widths):
        wider = max(width, own)
        if i > start and (i + 1 - start) * wider * max(wider, n_sentences) > _SUGGEST_CELLS:
            blocks.append((start, i))
            start, wider = i, own
        width = wider
    if widths:
        blocks.append((start, len(widths)))
    return blocks


def _suggest_each(
    annotations: Sequence[tuple[_Annotation, _Annotation]], min_identity: float, min_inside: float, min_cover: float
) -> list[tuple[FactoidRelation, ...]]:
    """:func:`_suggest` of every ``(first, second)``, the steps of all the pairs at once.

    Each pair's marks are laid in a sentences x factoids block as wide as the widest
    inventory; the factoids beyond an annotator's own are never marked. Every threshold is
    above 0, so such a factoid is never inside another, never a part and never an identity,
    and at a tie (``_best_along``) it comes after every real one: the same relations."""
    width = max(max(len(one.inventory), len(two.inventory), 1) for one, two in annotations)
    n_sentences = annotations[0][0].by_sentence.shape[0]
    marks = np.zeros((2, len(annotations), n_sentences, width))
    for p, pair in enumerate(annotations):
        for side, annotation in enumerate(pair):
            marks[side, p, :, : len(annotation.inventory)] = annotation.by_sentence
    # Overlaps as floats (exact counts: at most the number of sentences) on BLAS.
    shared = np.matmul(np.swapaxes(marks[0], 1, 2), marks[1])
    sizes = marks.sum(axis=2)  # (2, pairs, width)
    found: list[list[tuple[int, int, int, tuple[int, ...]]]] = [[] for _ in annotations]
    # (covered sentences, direction, subsuming factoid, parts); direction 0: annotator 1 subsumes
    for direction, overlap in enumerate((shared, np.swapaxes(shared, 1, 2))):
        wholes, parts = marks[direction], marks[1 - direction]
        member, covered, qualifies = _subsumption_candidates_each(
            wholes, parts, sizes[direction], sizes[1 - direction], overlap, min_inside, min_cover
        )
        for p, whole in zip(*np.nonzero(qualifies)):
            parts_of = tuple(int(b) for b in np.flatnonzero(member[p, whole]))
            found[p].append((int(covered[p, whole]), direction, int(whole), parts_of))
    used = np.zeros((2, len(annotations), width), dtype=bool)
    for side in (0, 1):
        for p, (one, two) in enumerate(annotations):
            used[side, p, len((one, two)[side].inventory) :] = True  # beyond the inventory: never matched
    chosen: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = [[] for _ in annotations]
    for p, candidates in enumerate(found):
        for _, direction, whole, parts_of in sorted(candidates, key=lambda c: (-c[0], c[1], c[2])):
            whole_used, part_used = used[direction, p], used[1 - direction, p]
            if whole_used[whole] or part_used[list(parts_of)].any():
                continue
            whole_used[whole] = True
            part_used[list(parts_of)] = True
            chosen[p].append(((whole,), parts_of) if direction == 0 else (parts_of, (whole,)))
    for p, a, b in _identities_each(sizes, shared, used, min_identity):
        chosen[p].append(((a,), (b,)))
    relations = []
    for (one, two), pairs in zip(annotations, chosen):
        pairs.sort(key=lambda pair: (min(pair[0]), min(pair[1])))
        relations.append(
            tuple(
                FactoidRelation._known(tuple(one.inventory[i] for i in a), tuple(two.inventory[j] for j in b))
                for a, b in pairs
            )
        )
    return relations


def _subsumption_candidates_each(
    wholes: np.ndarray,
    parts: np.ndarray,
    whole_sizes: np.ndarray,
    part_sizes: np.ndarray,
    shared: np.ndarray,
    min_inside: float,
    min_cover: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_subsumption_candidates` of every pair (the leading axis): each container's
    parts (``member``, pairs x containers x parts), covered sentences and whether it qualifies."""
    inside = _fraction(shared, part_sizes[:, np.newaxis, :])
    closeness = _fraction(shared, whole_sizes[:, :, np.newaxis] + part_sizes[:, np.newaxis, :] - shared)
    home = _best_along(inside, closeness, axis=1)  # each part's best container
    n_pairs, _, n_parts = shared.shape
    member = np.zeros(shared.shape, dtype=bool)
    member[np.arange(n_pairs)[:, np.newaxis], home, np.arange(n_parts)[np.newaxis, :]] = True
    member &= inside >= min_inside
    covered = ((wholes > 0) & (np.matmul(parts, np.swapaxes(member, 1, 2).astype(np.float64)) > 0)).sum(axis=1)
    alone = np.where(member, _fraction(shared, whole_sizes[:, :, np.newaxis]), 0.0).max(axis=2, initial=0.0)
    qualifies = (member.sum(axis=2) >= 2) & (_fraction(covered, whole_sizes) >= min_cover) & (alone < min_cover)
    return member, covered, qualifies


def _identities_each(
    sizes: np.ndarray, shared: np.ndarray, used: np.ndarray, min_identity: float
) -> list[tuple[int, int, int]]:
    """:func:`_identities` of every pair: (pair, annotator 1's factoid, annotator 2's)."""
    union = sizes[0][:, :, np.newaxis] + sizes[1][:, np.newaxis, :] - shared
    jaccard = _fraction(shared, union)
    jaccard[used[0][:, :, np.newaxis] | used[1][:, np.newaxis, :]] = -1.0
    best_2 = _best_along(jaccard, shared, axis=2)  # (pairs, annotator 1's factoids)
    best_1 = _best_along(jaccard, shared, axis=1)  # (pairs, annotator 2's factoids)
    rows = np.arange(shared.shape[1])[np.newaxis, :]
    mutual = (np.take_along_axis(best_1, best_2, axis=1) == rows) & (
        np.take_along_axis(jaccard, best_2[:, :, np.newaxis], axis=2)[:, :, 0] >= min_identity
    )
    return [(int(p), int(a), int(best_2[p, a])) for p, a in zip(*np.nonzero(mutual))]


# --------------------------------------------------------------------------
# Every pair of a topic's annotators, parsed once
# --------------------------------------------------------------------------


def labels_kappa(labels: npt.ArrayLike) -> FactoidKappa:
    """The kappa of :func:`annotation_kappa` and :func:`definition_kappa` of items' labels
    (items x annotators, True: marked), e.g. those :class:`TopicAnnotations` builds.

    >>> round(labels_kappa([[True, True], [False, False], [True, False], [False, False]]).kappa, 6)
    0.466667
    """
    table = np.asarray(labels, dtype=bool)
    if table.ndim != 2:
        raise ValueError(f"labels must be items x annotators, got shape {table.shape}")
    return _kappa_of_labels(table)


class TopicAnnotations:
    """One topic's summaries and its annotators' annotations, each parsed once, for the
    figures of every pair of annotators: :meth:`suggest_relations`, :meth:`definition_labels`
    and :meth:`annotation_labels` give what :func:`suggest_relations` and the ``labels`` of
    :func:`definition_items` and :func:`annotation_items` give for the same annotations,
    without parsing the topic and both annotations again for every pair (45 pairs of 10
    annotators: 90 parses of the topic and of each annotation, once per function).

    >>> summaries = [{"id": s, "sentences": [s + "1"]} for s in "abcde"]
    >>> one = {"factoids": ["P30"], "marks": {"a1": ["P30"], "c1": ["P30"], "e1": ["P30"]}}
    >>> two = {"factoids": ["F9.21", "F9.22"], "marks": {"a1": ["F9.21"], "c1": ["F9.22"], "e1": ["F9.22"]}}
    >>> topic = TopicAnnotations({"one": one, "two": two}, summaries)
    >>> labels = topic.definition_labels([("P30", ["F9.21", "F9.22"])], "one", "two")
    >>> round(labels_kappa(labels).kappa, 6)
    0.393939
    """

    def __init__(self, annotations: Mapping[str, Mapping[str, Any]], summaries: Sequence[Mapping[str, Any]]):
        self._topic = _topic(summaries)
        self._parsed = {
            name: _annotation(annotation, f"annotations[{name!r}]", self._topic)
            for name, annotation in annotations.items()
        }
        self._units: dict[tuple[str, str], npt.NDArray[np.bool_]] = {}

    def _in_units(self, name: str, unit: Unit) -> npt.NDArray[np.bool_]:
        if (name, unit) not in self._units:
            self._units[name, unit] = self._topic.in_units(self._parsed[name].by_sentence, unit)
        return self._units[name, unit]

    def suggest_relations(
        self,
        first: str,
        second: str,
        *,
        min_identity: float = 0.6,
        min_inside: float = 0.8,
        min_cover: float = 0.8,
    ) -> tuple[FactoidRelation, ...]:
        """:func:`suggest_relations` of annotators ``first`` and ``second``."""
        _check_thresholds(min_identity, min_inside, min_cover)
        return _suggest(self._parsed[first], self._parsed[second], min_identity, min_inside, min_cover)

    def suggest_relations_each(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        min_identity: float = 0.6,
        min_inside: float = 0.8,
        min_cover: float = 0.8,
    ) -> list[tuple[FactoidRelation, ...]]:
        """:meth:`suggest_relations` of every ``(first, second)`` of ``pairs``: the same
        relations, with the overlaps, subsumption candidates and identities of all the pairs
        computed together (``_suggest_each``; a topic's 45 pairs of annotators are 45 small
        matrices each: what costs is the calls). The pairs are taken a block at a time so
        that their pair x factoid x factoid arrays stay within ``_SUGGEST_CELLS``."""
        _check_thresholds(min_identity, min_inside, min_cover)
        thresholds = (min_identity, min_inside, min_cover)
        annotations = [(self._parsed[first], self._parsed[second]) for first, second in pairs]
        widths = [max(len(one.inventory), len(two.inventory), 1) for one, two in annotations]
        return [
            relations
            for start, stop in _blocks(widths, len(self._topic.sentence_ids))
            for relations in _suggest_each(annotations[start:stop], *thresholds)
        ]

    def definition_labels(
        self, relations: Sequence[Any], first: str, second: str, *, unit: Unit = "summary"
    ) -> npt.NDArray[np.bool_]:
        """The ``labels`` of :func:`definition_items` of ``relations`` between ``first`` and ``second``."""
        unit = _unit(unit)
        one, two = self._parsed[first], self._parsed[second]
        pairs = [pair for relation in _relations(relations, one, two) for pair in relation.pairs]
        return _definition_labels(one, two, self._in_units(first, unit), self._in_units(second, unit), pairs)

    def identity_labels(
        self, identities: Sequence[Any], first: str, second: str, *, unit: Unit = "summary"
    ) -> npt.NDArray[np.bool_]:
        """The ``labels`` of :func:`annotation_items` of ``first`` and ``second`` with the two
        factoids of each identity keyed alike (``factoid_keys``: ``{a: a}`` and ``{b: a}``):
        the identities' factoids in the first annotator's inventory order. ``identities``:
        relations of one factoid each side, no factoid in two of them (``FactoidRelation``,
        mappings or pairs, as :func:`definition_items` takes them).

        >>> summaries = [{"id": s, "sentences": [s + "1"]} for s in "ab"]
        >>> one = {"factoids": ["F1", "F2"], "marks": {"a1": ["F1", "F2"], "b1": ["F2"]}}
        >>> two = {"factoids": ["G1", "G2"], "marks": {"a1": ["G2"], "b1": ["G1"]}}
        >>> topic = TopicAnnotations({"one": one, "two": two}, summaries)
        >>> labels = topic.identity_labels([("F2", "G1"), ("F1", "G2")], "one", "two")
        >>> labels.astype(int).tolist()
        [[1, 1], [0, 0], [1, 0], [1, 1]]
        >>> keys = ({"F1": "F1", "F2": "F2"}, {"G2": "F1", "G1": "F2"})
        >>> np.array_equal(labels, topic.annotation_labels(["one", "two"], factoid_keys=keys))
        True
        """
        unit = _unit(unit)
        one, two = self._parsed[first], self._parsed[second]
        relations = _relations(identities, one, two)
        if any(len(r.first) != 1 or len(r.second) != 1 for r in relations):
            raise ValueError("identities must relate one factoid to one factoid")
        if len({r.first for r in relations}) < len(relations) or len({r.second for r in relations}) < len(relations):
            raise ValueError("identities must name each factoid once")
        ordered = sorted(relations, key=lambda r: one.columns[r.first[0]])
        columns = [
            np.array([one.columns[r.first[0]] for r in ordered], dtype=np.intp),
            np.array([two.columns[r.second[0]] for r in ordered], dtype=np.intp),
        ]
        return _annotation_labels([self._in_units(first, unit), self._in_units(second, unit)], columns)

    def annotation_labels(
        self,
        names: Sequence[str],
        *,
        unit: Unit = "summary",
        factoid_keys: Sequence[Mapping[str, str]] | None = None,
    ) -> npt.NDArray[np.bool_]:
        """The ``labels`` of :func:`annotation_items` of the annotators ``names``."""
        unit = _unit(unit)
        if len(names) < 2:
            raise ValueError(f"annotations must hold at least two annotators, got {len(names)}")
        parsed = [self._parsed[name] for name in names]
        _, columns = _shared_columns(parsed, factoid_keys)
        return _annotation_labels([self._in_units(name, unit) for name in names], columns)


# --------------------------------------------------------------------------
# Phase 2 discrepancy list (section 3.1)
# --------------------------------------------------------------------------


def discrepancies(
    annotation: Mapping[str, Any],
    other: Mapping[str, Any],
    summaries: Sequence[Mapping[str, Any]],
    *,
    counterparts: Mapping[str, str] | None = None,
) -> tuple[Discrepancy, ...]:
    """The automatically generated Phase 2 list of one annotator (section 3.1).

    For every sentence of ``summaries`` and every factoid X of ``annotation``
    that has a counterpart X' in ``other``: "only_you" when the annotator
    marked X on the sentence and the other did not mark X'; "only_other"
    when the other marked X' and the annotator did not mark X. Nothing else
    is told (no reasons, no other factoids), as in the paper's Phase 2.

    Parameters
    ----------
    annotation : mapping
        The annotator who reads the list.
    other : mapping
        The other annotator.
    summaries : sequence of mappings
    counterparts : mapping of str to str, optional
        Own factoid id -> the other's factoid id (the confirmed identities;
        one-to-one). Default: the ids in both inventories (a common list).
        Factoids without a counterpart are not compared.

    Returns
    -------
    tuple of Discrepancy
        In sentence order (``summaries`` order), then own inventory order.

    Raises
    ------
    ValueError
        If ``counterparts`` names unknown factoids or maps two factoids to
        one, or an annotation or summary is malformed.

    Examples
    --------
    >>> summaries = [{"id": "s", "sentences": ["s1", "s2"]}]
    >>> mine = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1"], "s2": ["F1"]}}
    >>> theirs = {"factoids": ["F1", "F2"], "marks": {"s1": ["F1", "F2"]}}
    >>> for d in discrepancies(mine, theirs, summaries):
    ...     print(d.sentence, d.factoid, d.message)
    s1 F2 the other marked it, you did not
    s2 F1 you marked it, the other did not
    """
    topic = _topic(summaries)
    own = _annotation(annotation, "annotation", topic)
    theirs = _annotation(other, "other", topic)
    if counterparts is None:
        in_other = set(theirs.inventory)
        pairs = [(f, f) for f in own.inventory if f in in_other]
    else:
        pairs = _counterpart_pairs(counterparts, own, theirs)
    own_columns = np.array([own.column(a) for a, _ in pairs], dtype=np.intp)
    other_columns = np.array([theirs.column(b) for _, b in pairs], dtype=np.intp)
    mine = own.by_sentence[:, own_columns]
    others = theirs.by_sentence[:, other_columns]
    rows, columns = np.nonzero(mine != others)  # row-major: sentence order, then factoid order
    only_you = mine[rows, columns]
    return tuple(
        Discrepancy(topic.sentence_ids[r], pairs[c][0], "only_you" if you else "only_other")
        for r, c, you in zip(rows.tolist(), columns.tolist(), only_you.tolist())
    )


def _counterpart_pairs(counterparts: Any, own: _Annotation, theirs: _Annotation) -> list[tuple[str, str]]:
    if not isinstance(counterparts, Mapping):
        raise ValueError("counterparts must map own factoid ids to the other's factoid ids")
    for mine, its in counterparts.items():
        if own.column(mine) is None:
            raise ValueError(f"counterparts names {mine!r}, which is not a factoid of annotation")
        if not isinstance(its, str) or theirs.column(its) is None:
            raise ValueError(f"counterparts[{mine!r}] is {its!r}, which is not a factoid of other")
    _check_unique(list(counterparts.values()), "counterparts", "targets (one-to-one)")
    return sorted(counterparts.items(), key=lambda pair: own.column(pair[0]))  # type: ignore[arg-type, return-value]


# --------------------------------------------------------------------------
# Inventory growth (section 4, Figure 4)
# --------------------------------------------------------------------------


def _growth_inputs(
    presence_by_sentence: Any, summary_of_sentence: Any, n_summaries: int | None
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp], int]:
    presence = _bool_matrix(presence_by_sentence, "presence_by_sentence")
    owner, n_summaries = _summary_index(summary_of_sentence, "summary_of_sentence", presence.shape[0], n_summaries)
    return presence, owner, n_summaries


def remerged_count(
    presence_by_sentence: npt.ArrayLike,
    summary_of_sentence: npt.ArrayLike,
    summaries: npt.ArrayLike,
) -> int:
    """Number of factoids left after re-merging within some summaries (section 4).

    The paper simulates the inventory an annotator would have built from
    fewer summaries "by automatically re-merging those factoids which never
    occur apart within the given set of summaries". Concord judges "apart"
    at the sentence level, where factoids are marked: two factoids merge
    when they are marked on exactly the same sentences of the given
    summaries. The count is the number of distinct non-empty occurrence
    patterns; factoids absent from all the given summaries do not count.
    (At the sentence level one summary gives about one factoid per sentence,
    the paper's starting point: "after the very first summary, each factoid
    is a full sentence".)

    Parameters
    ----------
    presence_by_sentence : array_like of bool, shape (n_sentences, n_factoids)
    summary_of_sentence : array_like of int, shape (n_sentences,)
        The summary number of each sentence.
    summaries : array_like of int
        The summary numbers to keep (repeats are ignored).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If the shapes disagree or the summary numbers are not valid.

    Examples
    --------
    Sentences 0-1 belong to summary 0, sentences 2-3 to summary 1. Within
    summary 0 alone, factoids 0 and 1 (both on sentence 0) merge, 2 is on
    sentence 1 and 3 is absent: 2 factoids. With both summaries, 0 and 1
    occur apart (sentence 2) and every pattern differs: 4 factoids.

    >>> presence = [[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1], [0, 0, 0, 1]]
    >>> remerged_count(presence, [0, 0, 1, 1], [0]), remerged_count(presence, [0, 0, 1, 1], [0, 1])
    (2, 4)
    """
    presence, owner, n_summaries = _growth_inputs(presence_by_sentence, summary_of_sentence, None)
    chosen = _row_numbers(summaries, "summaries", n_summaries)
    drawn = np.zeros((1, n_summaries), dtype=bool)
    drawn[0, chosen] = True
    return int(_remerged(presence, drawn[:, owner]).counts[0])


def _pack_bits(bits: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint64]:
    """(rows, n) bool -> (rows, ceil(n / 64)) uint64 bit sets (at least one word)."""
    n_words = max(1, -(-bits.shape[1] // 64))
    packed = np.zeros((bits.shape[0], n_words * 8), dtype=np.uint8)
    packed[:, : -(-bits.shape[1] // 8)] = np.packbits(bits, axis=1, bitorder="little")
    return packed.view(np.uint64)


class _Remerged(NamedTuple):
    counts: npt.NDArray[np.intp]  # (draws,) re-merged factoids
    per_sentence: npt.NDArray[np.float64]  # (draws,) mean re-merged factoids per marked sentence; NaN if none


def _remerged(presence: npt.NDArray[np.bool_], sentence_masks: npt.NDArray[np.bool_]) -> _Remerged:
    """Re-merge the factoids within each row of ``sentence_masks`` (draws x sentences).

    Each factoid's sentence column is packed into 64-bit words and masked by
    the drawn sentences; one lexicographic sort over (draw, pattern) groups
    the factoids of every draw. A group is on as many sentences as its
    pattern has, so the sentence-group incidences of a draw are the drawn
    occurrences of one member (the first) of each group.
    """
    n_draws = sentence_masks.shape[0]
    presence = presence[:, presence.any(axis=0)]  # never-marked factoids never count
    counts = np.zeros(n_draws, dtype=np.intp)
    per_sentence = np.full(n_draws, np.nan)
    n_factoids = presence.shape[1]
    if n_factoids == 0:
        return _Remerged(counts, per_sentence)
    factoid_words = _pack_bits(presence.T)
    mask_words = _pack_bits(sentence_masks)
    marked_sentences = sentence_masks.astype(np.intp) @ presence.any(axis=1).astype(np.intp)
    block = max(1, _BLOCK_WORDS // (n_factoids * factoid_words.shape[1]))
    for start in range(0, n_draws, block):  # blocks of draws bound the memory; each block is one batch
        rows = slice(start, start + block)
        patterns = factoid_words[np.newaxis, :, :] & mask_words[rows, np.newaxis, :]
        first_of_group, counts[rows] = _pattern_groups(patterns)
        occurrences = sentence_masks[rows].astype(np.float64) @ presence  # drawn sentences per factoid
        incidences = np.einsum("ij,ij->i", occurrences, first_of_group)
        np.divide(incidences, marked_sentences[rows], out=per_sentence[rows], where=marked_sentences[rows] > 0)
    return _Remerged(counts, per_sentence)


def _pattern_groups(patterns: npt.NDArray[np.uint64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """Group equal rows (axis 1) within each draw (axis 0) of word tuples (axis 2).

    Returns (draws, factoids) 1.0 where the factoid is the first of its group
    (0.0 elsewhere), and per draw the number of groups with a non-zero pattern.
    """
    n_draws, n_factoids, n_words = patterns.shape
    flat = patterns.reshape(n_draws * n_factoids, n_words)
    draw = np.repeat(np.arange(n_draws), n_factoids)
    order = np.lexsort([flat[:, w] for w in range(n_words)] + [draw])  # draw is the primary key
    rows, draws = flat[order], draw[order]
    starts = np.ones(len(rows), dtype=bool)
    starts[1:] = (draws[1:] != draws[:-1]) | np.any(rows[1:] != rows[:-1], axis=1)
    first_of_group = np.zeros(n_draws * n_factoids)
    first_of_group[order[starts]] = 1.0
    counts = np.bincount(draws[starts & rows.any(axis=1)], minlength=n_draws)
    return first_of_group.reshape(n_draws, n_factoids), counts


def _draw_subsets(seed: int, size: int, draws: int, n_summaries: int) -> npt.NDArray[np.bool_]:
    """(draws, n_summaries) bool: each row marks ``size`` different summaries."""
    keys = np.random.default_rng([seed, size]).random((draws, n_summaries))
    chosen = np.argsort(keys, axis=1)[:, :size]
    drawn = np.zeros((draws, n_summaries), dtype=bool)
    np.put_along_axis(drawn, chosen, True, axis=1)
    return drawn


def inventory_growth(
    presence_by_sentence: npt.ArrayLike,
    summary_of_sentence: npt.ArrayLike,
    *,
    n_summaries: int | None = None,
    draws: int = 100,
    seed: int = 0,
) -> InventoryGrowth:
    """Growth of the factoid inventory with the number of summaries (section 4, Figure 4).

    For N = 1 .. n_summaries, over ``draws`` random draws of N different
    summaries, the mean of two figures after re-merging the factoids that
    are never marked apart on the sentences of the drawn summaries (see
    :func:`remerged_count`):

    * ``mean``: the number of re-merged factoids (the inventory size);
    * ``mean_per_sentence``: the number of re-merged factoids a sentence
      carries, averaged over the sentences of the drawn summaries that carry
      any. This is the paper's "number of factoids per sentence", which
      starts at 1.0 ("after the very first summary, each factoid is a full
      sentence") and grows to about 4.5 (Kuwait) and 4.1 (Fortuyn) as
      factoids are split.

    Pass the model summaries' sentences to reproduce Figure 4.

    Draws: for size N, ``keys = numpy.random.default_rng([seed, N]).random((draws,
    n_summaries))`` and draw ``d`` takes the N summaries with the smallest
    ``keys[d]`` (``numpy.argsort(keys[d])[:N]``).

    All draws of one size are done at once: each factoid's sentence column
    is packed into 64-bit words and masked by the drawn sentences, and one
    lexicographic sort over (draw, pattern) groups the factoids of every draw.

    Parameters
    ----------
    presence_by_sentence : array_like of bool, shape (n_sentences, n_factoids)
    summary_of_sentence : array_like of int, shape (n_sentences,)
        The summary number (0 .. n_summaries - 1) of each sentence.
    n_summaries : int, optional
        Number of summaries; default the largest summary number + 1 (give it
        when the last summaries have no sentences).
    draws : int, default 100
        Draws per size (the paper: 100).
    seed : int, default 0

    Returns
    -------
    InventoryGrowth
        Without factoids, every count is 0 and the per-sentence figures NaN.

    Raises
    ------
    ValueError
        If the shapes disagree, there is no summary, or ``draws`` or ``seed``
        is invalid.

    Examples
    --------
    >>> presence = [[1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1], [0, 0, 0, 1]]
    >>> growth = inventory_growth(presence, [0, 0, 1, 1], draws=10)
    >>> growth.sizes.tolist(), growth.mean.tolist()
    ([1, 2], [2.0, 4.0])

    With both summaries every factoid stands alone; sentences 0 and 2 carry
    two factoids each, sentences 1 and 3 one each: 6 / 4.

    >>> float(growth.mean_per_sentence[1])
    1.5
    """
    presence, owner, n_summaries = _growth_inputs(presence_by_sentence, summary_of_sentence, n_summaries)
    draws = _whole(draws, "draws", minimum=1)
    seed = _check_seed(seed)
    sizes = np.arange(1, n_summaries + 1)
    counts = np.zeros((n_summaries, draws))
    per_sentence = np.full((n_summaries, draws), np.nan)
    for row, size in enumerate(sizes):  # one batched computation per size
        sentence_masks = _draw_subsets(seed, int(size), draws, n_summaries)[:, owner]
        counts[row], per_sentence[row] = _remerged(presence, sentence_masks)
    return InventoryGrowth(sizes, counts.mean(axis=1), _sd(counts), _nanmean(per_sentence), _sd(per_sentence), draws)


def _nanmean(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    defined = ~np.isnan(values)
    total = np.where(defined, values, 0.0).sum(axis=1)
    return np.divide(total, defined.sum(axis=1), out=np.full(len(values), np.nan), where=defined.any(axis=1))


def _sd(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Row-wise sample standard deviation over the defined values; NaN below two."""
    defined = ~np.isnan(values)
    n = defined.sum(axis=1)
    centred = np.where(defined, values - _nanmean(values)[:, np.newaxis], 0.0)
    squares = np.einsum("ij,ij->i", centred, centred)
    return np.sqrt(np.divide(squares, n - 1, out=np.full(len(values), np.nan), where=n > 1))


# --------------------------------------------------------------------------
# Weighted factoid scores and stability (section 5, Figures 5-7)
# --------------------------------------------------------------------------


def weighted_factoid_scores(
    presence_summaries: npt.ArrayLike,
    model_mask: npt.ArrayLike,
    *,
    sample: npt.ArrayLike | None = None,
    first_position: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float64]:
    r"""Weighted factoid score of every summary (section 5).

    .. math:: \mathrm{WFS}(s) = \sum_{f \in s} w_f,\quad w_f = \sum_{m \in M} [f \in m]

    where :math:`M` is the model summaries (all of them, or ``sample`` with
    its repeats: a model summary drawn twice counts twice). The paper's
    scores use these pure frequency weights. A model summary scored against
    a sample containing it counts its own factoids, as in the paper's
    rankings of model and machine summaries together.

    Position adjustment (Concord's option; the paper mentions one without
    defining it, finds it changes rankings only slightly and reports pure
    frequency): with ``first_position``, a model summary adds
    :math:`1 / r` instead of 1 to a factoid's weight, :math:`r` being the
    1-based position in that summary of its first sentence containing the
    factoid, so factoids mentioned early weigh more.

    Parameters
    ----------
    presence_summaries : array_like of bool, shape (n_summaries, n_factoids)
        Factoid in summary (:attr:`FactoidTable.by_summary`).
    model_mask : array_like of bool, shape (n_summaries,)
        True for model summaries; at least one.
    sample : array_like of int, optional
        Rows of ``presence_summaries`` (model summaries only, repeats
        allowed) whose factoids give the weights; default every model
        summary once.
    first_position : array_like of int, shape (n_summaries, n_factoids), optional
        :attr:`FactoidTable.first_position`; turns the position adjustment on.

    Returns
    -------
    ndarray of float, shape (n_summaries,)

    Raises
    ------
    ValueError
        If the shapes disagree, there is no model summary, ``sample`` holds a
        row that is not a model summary, or ``first_position`` is invalid.

    Examples
    --------
    Two model summaries and one machine summary, factoids F0..F2: the
    weights are (2, 1, 0); the machine summary holds F1 and F2.

    >>> presence = [[1, 1, 0], [1, 0, 0], [0, 1, 1]]
    >>> weighted_factoid_scores(presence, [True, True, False]).tolist()
    [3.0, 2.0, 1.0]
    >>> weighted_factoid_scores(presence, [True, True, False], sample=[0, 0]).tolist()
    [4.0, 2.0, 2.0]
    """
    table, models = _presence_and_models(presence_summaries, model_mask)
    votes = _model_votes(table, models, first_position)
    if sample is None:
        weights = votes.sum(axis=0)
    else:
        weights = (_sample_counts(_sample_rows(sample, models), int(models.sum())) @ votes)[0]
    return table.astype(np.float64) @ weights


def _sample_rows(sample: Any, models: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
    """Summary rows -> positions among the model summaries (one sample row)."""
    rows = _row_numbers(sample, "sample", len(models))
    if not models[rows].all():
        raise ValueError("sample must name model summaries only (model_mask True)")
    return (np.cumsum(models) - 1)[rows][np.newaxis, :]


def _sample_counts(picks: npt.NDArray[np.intp], n_models: int) -> npt.NDArray[np.float64]:
    """(samples, n_models): how often each sample drew each model summary."""
    n_samples = picks.shape[0]
    cells = picks + (np.arange(n_samples) * n_models)[:, np.newaxis]
    return np.bincount(cells.ravel(), minlength=n_samples * n_models).reshape(n_samples, n_models).astype(np.float64)


# Spearman's rho of each row of x with the same row of y (ties get their
# average rank, as in scipy.stats.spearmanr); NaN where a row is constant.
_row_spearman = rank.spearman_rho_paired


def _sizes(sizes: Any) -> npt.NDArray[np.intp]:
    values = np.asarray(list(sizes) if not isinstance(sizes, np.ndarray) else sizes)
    if values.ndim != 1 or values.size == 0 or values.dtype.kind not in "iu" or values.min() < 1:
        raise ValueError("sizes must be a non-empty sequence of positive integers")
    if np.any(np.diff(values) <= 0):
        raise ValueError("sizes must be strictly increasing")
    return values.astype(np.intp)


def wfs_stability(
    presence_summaries: npt.ArrayLike,
    model_mask: npt.ArrayLike,
    *,
    sizes: Iterable[int] = range(1, 51),
    pairs: int = 200,
    seed: int = 0,
    thresholds: Sequence[float] = (0.8, 0.9),
    first_position: npt.ArrayLike | None = None,
) -> WfsStability:
    """Stability of the WFS ranking with the number of model summaries (section 5, Figure 5).

    For each N, ``pairs`` times: draw two samples of N model summaries with
    replacement (the paper's bootstrap, so N may exceed the number of model
    summaries), score every summary (model and machine) with
    :func:`weighted_factoid_scores` under each sample, and take Spearman's
    rho between the two score lists (ties get average ranks, as in
    ``scipy.stats.spearmanr``). The paper reports the mean passing 0.8 at
    N=11, 0.9 at N=19 and 0.98 at N=50 for the Kuwait text (20 model and 16
    machine summaries).

    Draws: for size N, ``numpy.random.default_rng([seed, N]).integers(0,
    n_models, size=(pairs, 2, N))`` gives the positions, among the model
    summaries in row order, of both samples of every pair.

    All pairs of one size are computed at once: a (2 pairs x models) count
    matrix times the models x factoids presence gives the weights, times
    factoids x summaries gives the scores.

    Parameters
    ----------
    presence_summaries : array_like of bool, shape (n_summaries, n_factoids)
    model_mask : array_like of bool, shape (n_summaries,)
    sizes : iterable of int, default 1..50
        Strictly increasing sample sizes.
    pairs : int, default 200
    seed : int, default 0
    thresholds : sequence of float, default (0.8, 0.9)
        Report the first N whose mean rho exceeds each.
    first_position : array_like of int, optional
        Turns on the position adjustment (see :func:`weighted_factoid_scores`).

    Returns
    -------
    WfsStability
        A pair whose rankings have all scores equal (for instance no
        factoids), or fewer than two summaries, has no rho: it is counted in
        ``undefined`` and left out of the mean (NaN if every pair is).

    Raises
    ------
    ValueError
        If the inputs are malformed or there is no model summary.

    Examples
    --------
    >>> presence = [[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 0, 1]]
    >>> result = wfs_stability(presence, [True, True, False, False], sizes=[1, 20], pairs=50)
    >>> result.mean_rho.round(2).tolist(), result.undefined.tolist()
    ([0.68, 1.0], [0, 0])
    """
    table, models = _presence_and_models(presence_summaries, model_mask)
    sizes_ = _sizes(sizes)
    pairs = _whole(pairs, "pairs", minimum=1)
    seed = _check_seed(seed)
    limits = [float(t) for t in thresholds]
    votes = _model_votes(table, models, first_position)
    n_models = votes.shape[0]
    scoring_matrix = table.T.astype(np.float64)
    rho = np.empty((len(sizes_), pairs))
    for row, size in enumerate(sizes_):  # one batched computation per size
        picks = np.random.default_rng([seed, int(size)]).integers(0, n_models, size=(pairs, 2, int(size)))
        scores = _sample_counts(picks.reshape(2 * pairs, int(size)), n_models) @ votes @ scoring_matrix
        rho[row] = _row_spearman(scores[0::2], scores[1::2])
    mean = _nanmean(rho)
    first_above = {t: _first_size_above(sizes_, mean, t) for t in limits}
    return WfsStability(sizes_, mean, _sd(rho), np.isnan(rho).sum(axis=1), first_above, pairs)


def _first_size_above(sizes: npt.NDArray[np.intp], mean: npt.NDArray[np.float64], threshold: float) -> int | None:
    above = np.flatnonzero(mean > threshold)  # NaN compares False
    return int(sizes[above[0]]) if above.size else None


def wfs_distribution(
    presence_summaries: npt.ArrayLike,
    model_mask: npt.ArrayLike,
    *,
    n: int,
    draws: int = 200,
    seed: int = 0,
    first_position: npt.ArrayLike | None = None,
) -> WfsDistribution:
    """Every summary's WFS over bootstrap samples of ``n`` model summaries (Figures 6, 7).

    The paper's box plots show the scores over 200 drawings at N=50
    (Figure 6) and N=10 (Figure 7).

    Draws: ``numpy.random.default_rng([seed, n]).integers(0, n_models,
    size=(draws, n))``, positions among the model summaries in row order.

    Parameters
    ----------
    presence_summaries : array_like of bool, shape (n_summaries, n_factoids)
    model_mask : array_like of bool, shape (n_summaries,)
    n : int
        Model summaries per sample (with replacement).
    draws : int, default 200
    seed : int, default 0
    first_position : array_like of int, optional
        Turns on the position adjustment (see :func:`weighted_factoid_scores`).

    Returns
    -------
    WfsDistribution

    Raises
    ------
    ValueError
        If the inputs are malformed or there is no model summary.

    Examples
    --------
    >>> presence = [[1, 1, 0], [1, 0, 0], [0, 1, 1]]
    >>> result = wfs_distribution(presence, [True, True, False], n=2, draws=4)
    >>> result.scores.shape, bool((result.scores[:, 1] == 2).all())
    ((4, 3), True)
    """
    table, models = _presence_and_models(presence_summaries, model_mask)
    n = _whole(n, "n", minimum=1)
    draws = _whole(draws, "draws", minimum=1)
    seed = _check_seed(seed)
    votes = _model_votes(table, models, first_position)
    picks = np.random.default_rng([seed, n]).integers(0, votes.shape[0], size=(draws, n))
    return WfsDistribution(n, _sample_counts(picks, votes.shape[0]) @ votes @ table.T.astype(np.float64))


# --------------------------------------------------------------------------
# Unigram comparison (end of section 5)
# --------------------------------------------------------------------------


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens: runs of letters and digits, internal apostrophes kept.

    The tokeniser of :func:`unigram_comparison` (:data:`TOKEN_PATTERN` on
    ``text.lower()``); punctuation and underscores separate tokens.

    Examples
    --------
    >>> tokenize("Iraq's troops invaded Kuwait on 2 August 1990; U.N. condemned it.")
    ["iraq's", 'troops', 'invaded', 'kuwait', 'on', '2', 'august', '1990', 'u', 'n', 'condemned', 'it']
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def _set_f(overlap: np.ndarray, own: np.ndarray, consensus: int) -> npt.NDArray[np.float64]:
    """F1 of a set against the consensus set: 2|U & C| / (|U| + |C|)."""
    total = own + consensus
    return np.divide(2.0 * overlap, total, out=np.full(len(own), np.nan), where=total > 0)


def unigram_comparison(
    summary_texts: Sequence[str],
    presence_summaries: npt.ArrayLike,
    *,
    min_summaries: int,
    min_factoid_summaries: int | None = None,
) -> UnigramComparison:
    r"""Unigram F-measure against factoid F-measure (end of section 5).

    The consensus unigram list holds the unigrams (word types from
    :func:`tokenize`) that occur in at least ``min_summaries`` summaries
    (the paper: 103 unigrams in at least 11 of the 50 Fortuyn summaries).
    The consensus factoids, Concord's reading of the paper's "consensus
    summary" of top-scoring factoids, are the factoids in at least
    ``min_factoid_summaries`` summaries (default ``min_summaries``). Each
    summary's F-measure of its set :math:`U` (of unigram types, or of
    factoids) against the consensus set :math:`C` is

    .. math:: F = \frac{2PR}{P + R} = \frac{2 |U \cap C|}{|U| + |C|}

    (0 when they share nothing, NaN when both are empty). ``rho`` is
    Spearman's rho between the two F lists (the paper: 0.45). The consensus
    includes the summary being scored, as in the paper.

    Parameters
    ----------
    summary_texts : sequence of str, length n_summaries
    presence_summaries : array_like of bool, shape (n_summaries, n_factoids)
    min_summaries : int
    min_factoid_summaries : int, optional

    Returns
    -------
    UnigramComparison

    Raises
    ------
    ValueError
        If a text is not a string, the lengths disagree or a threshold is
        not a positive integer.

    Examples
    --------
    >>> texts = ["Iraq invaded Kuwait.", "Iraq invaded Kuwait in August.", "Troops moved."]
    >>> result = unigram_comparison(texts, [[1, 0], [1, 1], [0, 1]], min_summaries=2)
    >>> result.consensus_unigrams, result.consensus_factoids.tolist()
    (('invaded', 'iraq', 'kuwait'), [0, 1])
    >>> result.unigram_f.round(3).tolist(), result.factoid_f.round(3).tolist(), result.rho
    ([1.0, 0.75, 0.0], [0.667, 1.0, 0.667], 0.0)
    """
    texts = _sequence(summary_texts, "summary_texts")
    table = _bool_matrix(presence_summaries, "presence_summaries")
    if len(texts) != table.shape[0]:
        raise ValueError(f"summary_texts has {len(texts)} texts but presence_summaries has {table.shape[0]} rows")
    min_summaries = _whole(min_summaries, "min_summaries", minimum=1)
    min_factoids = (
        min_summaries
        if min_factoid_summaries is None
        else _whole(min_factoid_summaries, "min_factoid_summaries", minimum=1)
    )
    token_lists = [tokenize(t) if isinstance(t, str) else _not_text(i, t) for i, t in enumerate(texts)]

    vocabulary, term = np.unique(np.array([w for words in token_lists for w in words], dtype=str), return_inverse=True)
    document = np.repeat(np.arange(len(texts)), [len(words) for words in token_lists])
    cells = np.unique(document * len(vocabulary) + term)  # distinct (summary, unigram) pairs
    cell_document, cell_term = np.divmod(cells, max(len(vocabulary), 1))
    consensus = np.bincount(cell_term, minlength=len(vocabulary)) >= min_summaries
    unigram_f = _set_f(
        np.bincount(cell_document, weights=consensus[cell_term], minlength=len(texts)),
        np.bincount(cell_document, minlength=len(texts)),
        int(consensus.sum()),
    )
    consensus_factoids = table.sum(axis=0) >= min_factoids
    factoid_f = _set_f(
        table.astype(np.intp) @ consensus_factoids.astype(np.intp), table.sum(axis=1), int(consensus_factoids.sum())
    )
    both = np.vstack([unigram_f, factoid_f])
    rho = float("nan") if np.isnan(both).any() else float(_row_spearman(both[:1], both[1:])[0])
    return UnigramComparison(
        tuple(vocabulary[consensus].tolist()), np.flatnonzero(consensus_factoids), unigram_f, factoid_f, rho
    )


def _not_text(position: int, value: Any) -> list[str]:
    raise ValueError(f"summary_texts[{position}] must be a string, got {type(value).__name__}")
