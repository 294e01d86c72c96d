"""Truth sets from models of the assessors, adjudicated gold with its
provenance, and accuracy against a reference: shared by the label kinds
(pairs, graded relevance, nugget labels).

The label kinds arrange their judgments as an ``items x assessors`` matrix of
class indices (``NaN``: not labelled); the models of
:mod:`stats.truthinference` (Dawid & Skene 1979, MACE: Hovy et al.
2013, Wawa) give each item a posterior over the classes, and the model truth
set is its argmax. The reports' types declared here (per-assessor
reliability, the accuracy table) are stored as JSON like every report type
(concord/typed.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from concord.errors import InvalidInput
from concord.typed import Figure
from stats.ratings import SparseRatings

#: The model truth sets, in the order exports list them.
MODELS = ("dawid-skene", "mace", "wawa")
#: The adjudicated truth set: ``adjudicated`` (fallback ``consensus``) or ``adjudicated:<truth>``.
ADJUDICATED = "adjudicated"
#: Random tie-breaking draws the accuracy table averages over (seed 0).
TIE_DRAWS = 100


@dataclass(frozen=True)
class ModelTruth:
    """A model's truth set: per item the label (argmax of the posterior; NaN
    where nobody labelled the item), the posterior of that label, and the fit."""

    labels: np.ndarray
    posterior: np.ndarray
    fit: Any  # stats.truthinference.TruthInference, or None without labels


def model_truth(
    matrix: np.ndarray | SparseRatings, method: str, n_classes: int, *, known: Mapping[int, int] | None = None
) -> ModelTruth:
    """Fit ``method`` (one of :data:`MODELS`) to ``matrix`` (items x assessors,
    class indices 0..n_classes-1, NaN not labelled; or the labels held sparse:
    the models read them in long form either way).

    ``known``: item -> its known class (control items). Dawid-Skene and MACE hold
    those items' truth fixed while they fit the assessors
    (stats.truthinference, ``known=``: Ipeirotis, Provost & Wang 2010, "Quality
    management on Amazon Mechanical Turk", HCOMP, the "Get Another Label" tool),
    so the known answers shape every assessor's estimate and through it every
    other item's truth; a known item's label is its known class, labelled or
    not. Wawa weighs assessors by their agreement with the majority and takes
    no known truth."""
    from stats import truthinference as ti

    if isinstance(matrix, SparseRatings):
        n_items, n_workers = matrix.n_items, matrix.n_raters
        labelled = matrix.per_item > 0
        if not labelled.any():
            return ModelTruth(np.full(n_items, np.nan), np.full(n_items, np.nan), None)
        items, workers, labels = ti.from_long(matrix.items, matrix.raters, matrix.values)
    else:
        n_items, n_workers = matrix.shape
        labelled = ~np.isnan(matrix).all(axis=1) if n_workers else np.zeros(n_items, bool)
        if not labelled.any():
            return ModelTruth(np.full(n_items, np.nan), np.full(n_items, np.nan), None)
        items, workers, labels = ti.from_matrix(matrix)
    fit_of: dict[str, Callable[..., Any]] = {"dawid-skene": ti.dawid_skene, "mace": ti.mace, "wawa": ti.wawa}
    pinned = {} if method == "wawa" or not known else {"known": dict(known)}
    fit = fit_of[method](items, workers, labels, n_items=n_items, n_workers=n_workers, n_classes=n_classes, **pinned)
    posteriors = np.asarray(fit.posteriors, float)
    chosen = np.asarray(fit.labels)  # the argmax (ties: the lowest class), -1 where unlabelled
    if pinned:
        labelled[list(pinned["known"])] = True
    labelled &= chosen >= 0
    picked = np.where(labelled, chosen, 0)
    return ModelTruth(
        np.where(labelled, picked.astype(float), np.nan),
        np.where(labelled, posteriors[np.arange(n_items), picked], np.nan),
        fit,
    )


# -- the adjudicated truth set ------------------------------------------------------------


@dataclass(frozen=True)
class Adjudicated:
    """One item's adjudicated label and who set it when."""

    label: float
    by: str
    at: datetime | None


@dataclass(frozen=True)
class Provenance:
    """A truth set with where each item's label comes from: ``source`` is
    ``adjudicated``, ``model`` or ``vote`` ("" where the label is unknown),
    ``posterior`` the model's posterior of the label (NaN where none)."""

    labels: np.ndarray
    source: list[str]
    posterior: np.ndarray
    by: list[str]
    at: list[str]


def split_truth(truth: str) -> tuple[bool, str]:
    """(adjudicated?, the truth set behind it): ``adjudicated`` -> (True, consensus),
    ``adjudicated:mace`` -> (True, mace), ``mace`` -> (False, mace)."""
    if truth == ADJUDICATED:
        return True, "consensus"
    if truth.startswith(ADJUDICATED + ":"):
        return True, truth.removeprefix(ADJUDICATED + ":")
    return False, truth


def check_fallback(truth: str, fallback: str, known: Sequence[str], accepts: Callable[[str], bool]) -> None:
    """``adjudicated:<fallback>`` needs a fallback the kind knows (not adjudicated itself)."""
    if fallback.startswith(ADJUDICATED) or not accepts(fallback):
        raise InvalidInput(
            "truth",
            f"unknown truth set {truth!r}: adjudicated:<fallback> takes one of {', '.join(known)}",
        )


def with_provenance(
    labels: np.ndarray,
    *,
    model: bool,
    posterior: np.ndarray | None = None,
    adjudicated: Sequence[Adjudicated | None] | None = None,
) -> Provenance:
    """``labels`` of a vote or model truth set, overridden by the adjudicated
    label of every item that has one."""
    n = len(labels)
    labels = np.array(labels, float)
    post = np.full(n, np.nan) if posterior is None or not model else np.array(posterior, float)
    source = ["" if np.isnan(x) else ("model" if model else "vote") for x in labels]
    by, at = [""] * n, [""] * n
    for i, gold in enumerate(adjudicated or ()):
        if gold is None:
            continue
        labels[i], source[i], post[i] = gold.label, "adjudicated", np.nan
        by[i], at[i] = gold.by, gold.at.isoformat() if gold.at else ""
    return Provenance(labels, source, post, by, at)


def adjudications(campaign: Any) -> dict[int, tuple[dict[str, Any], str, datetime | None]]:
    """topic id -> (data, adjudicator's username, when) of every ``consensus``
    curation of ``campaign`` (the adjudicated gold)."""
    from annotate.models import Curation

    rows = Curation.objects.filter(topic__campaign=campaign, name="consensus").values_list(
        "topic_id", "data", "updated_by__username", "updated_at"
    )
    return {topic: (data or {}, by or "", at) for topic, data, by, at in rows}


def curated_items(
    items: Sequence[tuple[Any, str]],
    curated: Mapping[Any, tuple[Mapping[str, Any], str, datetime | None]],
    value: Callable[[Mapping[str, Any], str], float | None],
) -> list[Adjudicated | None]:
    """Per item ``(topic key, item id)``: the adjudicated label, read from its
    topic's curation by ``value(data, item id)`` (None: the curation has no label
    for it), or None."""
    found: list[Adjudicated | None] = []
    for topic, item in items:
        entry = curated.get(topic)
        label = value(entry[0], item) if entry else None
        found.append(None if label is None else Adjudicated(float(label), entry[1], entry[2]))
    return found


# -- per-assessor reliability (the Dawid-Skene confusion matrices) -------------------------------


@dataclass(frozen=True)
class BinaryReliability:
    """One assessor's Dawid-Skene (1979) estimate: sensitivity P(says yes | true
    yes), specificity P(says no | true no), over the ``n_labels`` items the
    assessor labelled (None: undefined, e.g. no labels)."""

    assessor: str
    n_labels: int
    sensitivity: Figure
    specificity: Figure


@dataclass(frozen=True)
class GradedReliability:
    """One assessor's Dawid-Skene (1979) estimate: ``per_grade[k]`` is P(says k |
    true grade k) (the confusion matrix's diagonal), ``accuracy`` the expected
    share of the assessor's ``n_labels`` labels that equal the true grade (the
    mean posterior of the label given)."""

    assessor: str
    n_labels: int
    accuracy: Figure
    per_grade: list[Figure]


def _labels_per_assessor(matrix: np.ndarray | SparseRatings) -> np.ndarray:
    return matrix.per_rater if isinstance(matrix, SparseRatings) else (~np.isnan(matrix)).sum(axis=0)


def binary_reliability(
    matrix: np.ndarray | SparseRatings, assessors: Sequence[str], fit: ModelTruth
) -> list[BinaryReliability]:
    """Sensitivity and specificity of every assessor (class 1 is yes)."""
    counts = _labels_per_assessor(matrix)
    if fit.fit is None:
        return [BinaryReliability(a, int(n), float("nan"), float("nan")) for a, n in zip(assessors, counts)]
    confusion = np.asarray(fit.fit.confusion, float)  # workers x true x given
    return [
        BinaryReliability(
            assessor=name,
            n_labels=int(counts[w]),
            sensitivity=float(confusion[w, 1, 1]) if counts[w] else float("nan"),
            specificity=float(confusion[w, 0, 0]) if counts[w] else float("nan"),
        )
        for w, name in enumerate(assessors)
    ]


def graded_reliability(matrix: np.ndarray, assessors: Sequence[str], fit: ModelTruth) -> list[GradedReliability]:
    """The confusion matrix diagonal and the expected accuracy of every assessor."""
    counts = _labels_per_assessor(matrix)
    if fit.fit is None:
        return [GradedReliability(a, int(n), float("nan"), []) for a, n in zip(assessors, counts)]
    confusion = np.asarray(fit.fit.confusion, float)
    posteriors = np.asarray(fit.fit.posteriors, float)
    rows = []
    for w, name in enumerate(assessors):
        given = ~np.isnan(matrix[:, w])
        accuracy = (
            float(posteriors[np.flatnonzero(given), matrix[given, w].astype(int)].mean()) if given.any() else np.nan
        )
        diagonal = [float(confusion[w, k, k]) if counts[w] else float("nan") for k in range(confusion.shape[1])]
        rows.append(GradedReliability(name, int(counts[w]), accuracy, diagonal))
    return rows


# -- accuracy against a reference ---------------------------------------------------------------


@dataclass(frozen=True)
class ReferenceRow:
    """Accuracy and Cohen's kappa of one assessor or truth set against the
    reference, over the ``n`` items both have a label for."""

    name: str
    n: int
    accuracy: Figure
    kappa: Figure


@dataclass(frozen=True)
class ReferenceAccuracy:
    """Each truth set's and each assessor's accuracy and kappa against a
    reference labelling (a run whose data says ``"reference": true``, e.g. the
    ``gold`` column of a CrowdTruth file). ``ties``: items whose majority vote
    is a tie; the tie-broken-at-random row averages ``draws`` draws (seed 0)."""

    reference: str
    items: int
    ties: int
    draws: int
    truth_sets: list[ReferenceRow]
    assessors: list[ReferenceRow]


def accuracy_kappa(predicted: np.ndarray, reference: np.ndarray) -> tuple[int, float, float]:
    """(n, accuracy, Cohen's kappa) of binary ``predicted`` against ``reference``
    over the items both label (NaN: no label). ``predicted`` may be draws x items:
    the figures are then the means over the draws.

    >>> n, accuracy, kappa = accuracy_kappa(np.array([1, 0, 1, np.nan]), np.array([1, 0, 0, 1]))
    >>> n, round(accuracy, 4), round(kappa, 4)
    (3, 0.6667, 0.4)
    """
    predicted = np.atleast_2d(predicted)
    both = ~np.isnan(predicted) & ~np.isnan(reference)
    n = int(both[0].sum())
    if n == 0:
        return 0, float("nan"), float("nan")
    p, r = predicted[:, both[0]], reference[both[0]]
    observed = (p == r).mean(axis=1)
    p_yes, r_yes = p.mean(axis=1), r.mean()
    expected = p_yes * r_yes + (1 - p_yes) * (1 - r_yes)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)
    return n, float(observed.mean()), float(np.mean(kappa))


def majority_variants(votes: np.ndarray, *, draws: int = TIE_DRAWS, seed: int = 0) -> dict[str, np.ndarray]:
    """Majority vote of a binary vote matrix (items x assessors) three ways:
    ties counted as a match (Concord's ``consensus``), ties broken at random
    (``draws`` x items, seeded), ties left out (NaN)."""
    judged = ~np.isnan(votes)
    yes = np.where(judged, votes, 0).sum(axis=1)
    n = judged.sum(axis=1)
    known = n > 0
    tie = known & (2 * yes == n)
    as_yes = np.where(known, (2 * yes >= n).astype(float), np.nan)
    left_out = np.where(tie, np.nan, as_yes)
    coins = np.random.default_rng(seed).integers(0, 2, size=(draws, len(votes))).astype(float)
    at_random = np.where(tie[np.newaxis, :], coins, left_out[np.newaxis, :])
    return {"ties as match": as_yes, "ties broken at random": at_random, "ties left out": left_out}


def reference_accuracy(
    name: str,
    reference: np.ndarray,
    votes: np.ndarray | SparseRatings,
    assessors: Sequence[str],
    models: Mapping[str, np.ndarray],
    *,
    majority_label: str = "majority vote",
) -> ReferenceAccuracy:
    """The accuracy table of binary ``votes`` (items x assessors, or held sparse) and the
    ``models``' truth sets (name -> labels) against ``reference`` (NaN: none)."""
    if isinstance(votes, SparseRatings):
        # each assessor against the reference on their own items: the items they left NaN
        # drop out of accuracy_kappa either way; the majority reads each item's votes packed
        columns = [votes.rater(k) for k in range(len(assessors))]
        assessor_rows = [ReferenceRow(a, *accuracy_kappa(v, reference[i])) for a, (i, v) in zip(assessors, columns)]
        votes = votes.packed()
    else:
        assessor_rows = [ReferenceRow(a, *accuracy_kappa(votes[:, k], reference)) for k, a in enumerate(assessors)]
    variants = majority_variants(votes)
    judged = ~np.isnan(votes)
    yes = np.where(judged, votes, 0).sum(axis=1)
    has_reference = ~np.isnan(reference)
    ties = int((has_reference & (judged.sum(axis=1) > 0) & (2 * yes == judged.sum(axis=1))).sum())
    rows = [
        ReferenceRow(f"{majority_label}, {variant}", *accuracy_kappa(labels, reference))
        for variant, labels in variants.items()
    ]
    rows += [ReferenceRow(model, *accuracy_kappa(labels, reference)) for model, labels in models.items()]
    return ReferenceAccuracy(
        reference=name,
        items=int(has_reference.sum()),
        ties=ties,
        draws=TIE_DRAWS,
        truth_sets=rows,
        assessors=assessor_rows,
    )
