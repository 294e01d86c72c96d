"""The active allocation's reads (``KindSpec.allocate``): what an assessor's next draw needs.

Called by annotate.adaptive.next_work when an assessor of a campaign with ``allocation=active``
asks for work and holds none pending, under the campaign's allocation lock (one draw of the
campaign at a time). One request reads, and nothing more:

- each topic's systems by position, extracted by the database from the topic data (never the
  prompts' and outputs' texts): one row of at most :data:`~kinds.preference.data.MAX_OUTPUTS`
  short ids per topic;
- the topics the assessor holds an assignment or a judgment of (theirs only);
- the stored campaign report's leaderboard of the people (its votes per pair of systems and
  predicted win probabilities): the counts and fit of the last rebuild, not a recount of the
  judgments. Pairs it does not know yet (a system without votes) count no votes and an even
  match; before the first rebuild every pair is such.

So a draw's work grows with the campaign's topics and their pairs, never with its judgments.
The draw itself is kinds/preference/allocation.py's.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models.fields.json import KT

from annotate.models import Assignment, Campaign, Judgment, Topic
from kinds.preference.allocation import draw, pair_key, pair_weights
from kinds.preference.data import MAX_OUTPUTS, pair_id
from kinds.spec import Drawn
from scoring import selectors as scoring_selectors


def allocate(campaign: Campaign, user: AbstractBaseUser, rng: random.Random) -> Drawn | None:
    """``user``'s next ``pairs_per_assignment`` pairs (kinds/preference/allocation.py,
    :func:`~kinds.preference.allocation.draw`), or None when every prompt left to them is one they
    hold or judged."""
    topics = topic_systems(campaign)
    held = set(Assignment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    held |= set(Judgment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    open_topics = set(topics) - held
    if not open_topics:
        return None
    size = campaign.params.get("pairs_per_assignment") or 1
    drawn = draw(topics, open_topics, system_pair_weights(campaign, topics), size, rng)
    if drawn is None:
        return None
    items = [pair_id(*pair) for pair in drawn.pairs]
    return Drawn(Topic.objects.get(pk=drawn.topic), items, dict(zip(items, drawn.probabilities)))


def topic_systems(campaign: Campaign) -> dict[int, list[str]]:
    """Each topic's systems by position (index 0: position 1), read by the database from the
    topic data: the outputs' ``system`` fields, without their texts."""
    columns = {f"system_{k}": KT(f"data__outputs__{k}__system") for k in range(MAX_OUTPUTS)}
    rows = campaign.topics.annotate(**columns).values_list("id", *columns)
    return {row[0]: [system for system in row[1:] if system is not None] for row in rows}


def system_pair_weights(campaign: Campaign, topics: Mapping[int, Sequence[str]]) -> dict[tuple[str, str], float]:
    """The active probability of every pair of systems some topic compares
    (:func:`~kinds.preference.allocation.pair_weights`), from the stored leaderboard's votes and
    predicted win probabilities (the people's, as the campaign report last computed them)."""
    universe = sorted({pair_key(a, b) for systems in topics.values() for a, b in combinations(systems, 2)})
    stored = scoring_selectors.campaign_report(campaign)
    board = getattr(stored.data, "people", None) if stored is not None else None
    index = {system: k for k, system in enumerate(board.systems)} if board is not None else {}
    votes, expected = [], []
    for a, b in universe:
        i, j = index.get(a), index.get(b)
        if i is None or j is None:
            votes.append(0)
            expected.append(float("nan"))
            continue
        votes.append(board.games[i][j])
        won, lost = _number(board.predicted[i][j]), _number(board.predicted[j][i])
        # a's expected score: its win probability and half the tie's (1 - both: 0 under Bradley-Terry)
        expected.append((1 + won - lost) / 2)
    return dict(zip(universe, pair_weights(votes, expected).tolist()))


def _number(value: float | None) -> float:
    return float("nan") if value is None else float(value)
