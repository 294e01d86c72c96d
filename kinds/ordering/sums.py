"""The ordering campaign report's running sums (scoring/sums.py).

Kim, Zhai & Han's campaign figures are means over topics: ED per method over the topics
with two or more orderings (section 5.2: a topic's ED does not depend on the others),
each run's score per method over the topics it ordered that have an ordering (4.1-4.4),
the mean pairwise Kendall tau over the topics with two or more orderings (4.1). A
topic's contribution holds its share of each sum, with counts of the scores that are
not finite (a mean over them is not finite either, as numpy's). :func:`refresh`
divides; the mean tau's interval bounds come from ``fits`` (the last full merge). The
report's per-topic list (each topic's consensus, orderings and mean tau) is in neither the
sums nor the report: it is read from the topics' partials (``Reports.topic_rows``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from annotate.models import Campaign, Topic
from kinds.ordering.partials import OrderingPartial, _ranked
from kinds.ordering.report import METHODS, OrderingCampaignReport
from scoring.partials import MergeInput
from scoring.sums import finite_split, mean_of


@dataclass(frozen=True)
class OrderingSums:
    """Sums over the campaign's topics (every field adds)."""

    topics: int = 0
    #: topics with an ordering, and with two or more
    judged: int = 0
    usable: int = 0
    #: per method (METHODS order): the sum of the usable topics' finite EDs, then per method
    #: the counts of their NaN, +inf and -inf EDs
    ed: list[float] = field(default_factory=list)
    ed_odd: list[int] = field(default_factory=list)
    #: the usable topics' mean taus: [how many, their sum]
    tau: list[float] = field(default_factory=list)
    #: run -> [topics, then per method the finite scores' sum, then per method the NaN, +inf, -inf counts]
    runs: dict[str, list[float]] = field(default_factory=dict)


def contribution(campaign: Campaign | None, topic: Topic, partial: OrderingPartial) -> OrderingSums:
    """One topic's share of the sums.

    >>> t = Topic(pk=7, external_id="q7")
    >>> p = OrderingPartial(2, ["b", "a"], 0.5, [0.25] * len(METHODS), ["r1"], [[1.0] * len(METHODS)])
    >>> sums = contribution(None, t, p)
    >>> sums.judged, sums.usable, sums.tau, sums.runs["r1"][:2]
    (1, 1, [1.0, 0.5], [1, 1.0])
    """
    usable = partial.orderings >= 2
    ed, ed_odd = finite_split(partial.ed) if usable else ([0.0] * len(METHODS), [0] * (3 * len(METHODS)))
    runs = {}
    for name, scores in zip(partial.run_names, partial.run_scores):
        finite, odd = finite_split(scores)
        runs[name] = [1, *finite, *odd]
    finite_tau = usable and math.isfinite(partial.mean_tau)
    return OrderingSums(
        topics=1,
        judged=int(partial.orderings > 0),
        usable=int(usable),
        ed=ed,
        ed_odd=ed_odd,
        tau=[1.0, partial.mean_tau] if finite_tau else [0.0, 0.0],
        runs=runs,
    )


def refresh(given: MergeInput, fits: OrderingCampaignReport, sums: OrderingSums) -> OrderingCampaignReport:
    """The campaign report of ``sums``; the mean tau's interval bounds from ``fits``."""
    k = len(METHODS)
    ed_odd = sums.ed_odd or [0] * (3 * k)
    ed = {
        label: mean_of(sums.ed[c] if sums.ed else 0.0, sums.usable, *ed_odd[3 * c : 3 * c + 3])
        for c, label in enumerate(METHODS)
    }
    names, topics, means = [], [], []
    for run in given.runs:
        row = sums.runs.get(run.name)
        n = int(row[0]) if row else 0
        names.append(run)
        topics.append(n)
        means.append(
            {
                label: mean_of(row[1 + c], n, *(int(x) for x in row[1 + k + 3 * c : 1 + k + 3 * c + 3]))
                if row
                else float("nan")
                for c, label in enumerate(METHODS)
            }
        )
    count, total = (int(sums.tau[0]), sums.tau[1]) if sums.tau else (0, 0.0)
    tau = total / count if count else float("nan")
    return dataclasses.replace(
        fits,
        topics=sums.topics,
        topics_with_two_or_more=sums.usable,
        ed=ed,
        runs=_ranked(names, topics, means),
        topics_ordered=sums.judged,
        mean_tau=dataclasses.replace(fits.mean_tau, value=tau, units=count),
    )
