"""The quality page's table: each assessor's figures on the controls (annotate/quality.py) beside
what the stored campaign report holds of them (their agreement with the others, the truth
model's estimate of their accuracy), and its CSV.

The report is read as stored (scoring.selectors.campaign_report), never rebuilt here; a kind's
report is read by the fields it has, so a kind whose report holds no per-assessor figure shows
none: its pairs of assessors who share items (entries with ``assessors``, ``n``, ``observed``,
``kappa``) and ``reliability`` (per assessor: ``accuracy``, or ``sensitivity`` and
``specificity``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from annotate.models import Campaign
from annotate.quality import AssessorQuality, campaign_quality
from scoring import selectors as scoring_selectors


@dataclass(frozen=True)
class Agreement:
    """An assessor's agreement with the others, over the pairs of the report that include them."""

    #: Observed agreement (share of shared items labelled alike), weighted by the items shared.
    observed: float | None
    #: Cohen's kappa, the mean over their pairs.
    kappa: float | None
    pairs: int
    shared: int


@dataclass(frozen=True)
class QualityRow:
    quality: AssessorQuality
    agreement: Agreement | None
    #: The truth model's estimate (Dawid-Skene): the expected share right, or (sensitivity,
    #: specificity) on a two-label task; None: the report has none for them.
    model_accuracy: float | None
    model_rates: tuple[float | None, float | None] | None


def _value(figure: Any) -> float | None:
    """A report figure's value: a plain number or a figure with an interval (``.value``)."""
    value = getattr(figure, "value", figure)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def agreement_by_assessor(pairs: Iterable[Any]) -> dict[str, Agreement]:
    """Each assessor's :class:`Agreement` over ``pairs`` (the report's pairs of assessors).

    >>> from types import SimpleNamespace as P
    >>> found = agreement_by_assessor([P(assessors=("a", "b"), n=10, observed=0.8, kappa=0.6),
    ...                                P(assessors=("a", "c"), n=30, observed=0.4, kappa=None)])
    >>> found["a"]
    Agreement(observed=0.5, kappa=0.6, pairs=2, shared=40)
    """
    sums: dict[str, list[float]] = {}
    for pair in pairs:
        names = getattr(pair, "assessors", None)
        n = getattr(pair, "n", None)
        if not names or not isinstance(n, int) or n <= 0:
            continue
        observed, kappa = _value(getattr(pair, "observed", None)), _value(getattr(pair, "kappa", None))
        for name in names:
            s = sums.setdefault(name, [0.0, 0.0, 0.0, 0.0, 0.0])  # observed*n, n of it, kappa sum, kappas, pairs
            if observed is not None:
                s[0] += observed * n
                s[1] += n
            if kappa is not None:
                s[2] += kappa
                s[3] += 1
            s[4] += 1
    return {
        name: Agreement(
            observed=s[0] / s[1] if s[1] else None,
            kappa=s[2] / s[3] if s[3] else None,
            pairs=int(s[4]),
            shared=int(s[1]),
        )
        for name, s in sums.items()
    }


def _assessor_pairs(report: Any) -> list[Any]:
    """The report's list of pairs of assessors: the first of its list fields whose entries name
    two assessors (``assessors``) and how many items they share (``n``); none: []."""
    if not dataclasses.is_dataclass(report):
        return []
    for entry in dataclasses.fields(report):
        value = getattr(report, entry.name)
        if not isinstance(value, list) or not value:
            continue
        first = value[0]
        names = getattr(first, "assessors", None)
        if isinstance(names, (tuple, list)) and len(names) == 2 and isinstance(getattr(first, "n", None), int):
            return value
    return []


def quality_table(campaign: Campaign) -> list[QualityRow]:
    """Every assessor's line of the quality page (annotate.quality.campaign_quality), with what
    the stored report says of them."""
    stored = scoring_selectors.campaign_report(campaign)
    data = stored.data if stored is not None else None
    agreement = agreement_by_assessor(_assessor_pairs(data))
    model: dict[str, Any] = {getattr(r, "assessor", None): r for r in getattr(data, "reliability", None) or []}
    rows = []
    for line in campaign_quality(campaign):
        estimate = model.get(line.username)
        accuracy = _value(getattr(estimate, "accuracy", None)) if estimate is not None else None
        rates = None
        if estimate is not None and hasattr(estimate, "sensitivity"):
            rates = (_value(estimate.sensitivity), _value(getattr(estimate, "specificity", None)))
        rows.append(QualityRow(line, agreement.get(line.username), accuracy, rates))
    return rows


#: The CSV's columns, in order.
CSV_HEADER = (
    "assessor",
    "status",
    "paused_at",
    "pause_reason",
    "submitted",
    "control_topics",
    "controls_answered",
    "credit",
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "interval",
    "level",
    "attention_checks",
    "attention_failed",
    "too_fast",
    "cant_tell",
    "cant_tell_share",
    "seconds_per_item",
    "agreement_observed",
    "agreement_kappa",
    "agreement_pairs",
    "model_accuracy",
    "model_sensitivity",
    "model_specificity",
)


def csv_rows(rows: Iterable[QualityRow]) -> Iterable[list[Any]]:
    """The table's rows as the CSV's cells (scoring.csvfiles.write_csv neutralises each)."""
    for row in rows:
        q, f, a = row.quality, row.quality.figures, row.agreement
        yield [
            q.username,
            "paused" if q.paused_at else "working",
            q.paused_at.isoformat() if q.paused_at else "",
            q.pause_reason,
            q.submitted,
            f.control_topics,
            f.answered,
            round(f.credit, 6),
            "" if f.accuracy is None else round(f.accuracy, 6),
            round(f.low, 6),
            round(f.high, 6),
            f.method,
            f.level,
            f.attention_checks,
            f.attention_failed,
            f.too_fast,
            f.cant_tell,
            "" if f.cant_tell_share is None else round(f.cant_tell_share, 6),
            "" if f.seconds_per_item is None else round(f.seconds_per_item, 3),
            "" if a is None or a.observed is None else round(a.observed, 6),
            "" if a is None or a.kappa is None else round(a.kappa, 6),
            "" if a is None else a.pairs,
            "" if row.model_accuracy is None else round(row.model_accuracy, 6),
            "" if row.model_rates is None or row.model_rates[0] is None else round(row.model_rates[0], 6),
            "" if row.model_rates is None or row.model_rates[1] is None else round(row.model_rates[1], 6),
        ]
