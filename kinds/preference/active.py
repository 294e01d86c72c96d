"""The active allocation's reads (``KindSpec.allocate``): what an assessor's next draw needs.

Called by annotate.adaptive.next_work when an assessor of a campaign with ``allocation=active``
asks for work and holds none pending, under the campaign's allocation lock (one draw of the
campaign at a time). One request reads, and nothing more:

- each topic's systems by position: the number of the campaign's topics and their largest id,
  from the index, and, when those name a set of topics this process has not read yet, the
  systems extracted by the database from the topic data (never the prompts' and outputs' texts):
  one row of at most :data:`~kinds.preference.data.MAX_OUTPUTS` short ids per topic, kept for
  the next draws (:func:`topic_systems`);
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
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from itertools import combinations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Max
from django.db.models.fields.json import KT

from annotate.controls import control_topic_ids
from annotate.models import Assignment, Campaign, Judgment, Topic
from kinds.preference.allocation import design_weights, draw, pair_key, pair_weights
from kinds.preference.data import MAX_OUTPUTS, pair_id
from kinds.preference.stats import ELO_PER_LOGIT
from kinds.spec import Drawn
from scoring import selectors as scoring_selectors


def allocate(campaign: Campaign, user: AbstractBaseUser, rng: random.Random) -> Drawn | None:
    """``user``'s next ``pairs_per_assignment`` pairs (kinds/preference/allocation.py,
    :func:`~kinds.preference.allocation.draw`), or None when every prompt left to them is one they
    hold or judged."""
    topics = topic_systems(campaign)
    held = set(Assignment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    held |= set(Judgment.objects.filter(topic__campaign=campaign, assessor=user).values_list("topic_id", flat=True))
    # Control topics are handed out as controls (annotate.adaptive.next_work), never drawn here.
    held |= set(control_topic_ids(campaign).values_list("topic_id", flat=True))
    open_topics = set(topics) - held
    if not open_topics:
        return None
    size = campaign.params.get("pairs_per_assignment") or 1
    drawn = draw(topics, open_topics, system_pair_weights(campaign, topics), size, rng)
    if drawn is None:
        return None
    items = [pair_id(*pair) for pair in drawn.pairs]
    return Drawn(Topic.objects.get(pk=drawn.topic), items, dict(zip(items, drawn.probabilities)))


#: How many campaigns' topic systems a process keeps (the latest drawn from): each as large as
#: one draw's read of them, a few short ids per topic.
CACHED = 4
_systems: OrderedDict[tuple[int, object], tuple[tuple[int, int | None], dict[int, list[str]]]] = OrderedDict()
_lock = threading.Lock()
#: The design allocation's probabilities per campaign, under the stored report and pairs they were
#: computed for: the design is a fit of its own (kinds.preference.stats.adjacent_design: 0.02 s of
#: CPU at 20 systems, 2.6 s at 100), computed once per rebuild and process, not once per draw.
_designs: OrderedDict[tuple[int, object], tuple[tuple, dict[tuple[str, str], float]]] = OrderedDict()


def topic_systems(campaign: Campaign) -> dict[int, list[str]]:
    """Each topic's systems by position (index 0: position 1), as :func:`read_topic_systems`
    reads them, read once per process and set of the campaign's topics.

    A topic's data is never changed once imported (the admin shows it read-only); topics are
    only added (an import) and deleted (an import undone, the admin). A committed id is never
    handed out again (SQLite's AUTOINCREMENT, PostgreSQL's sequences), so the number of the
    campaign's topics and the largest of their ids, which the database counts from its index
    without reading a topic, name the set: an import raises the largest id, a deletion alone
    lowers the number. What is kept is keyed by what was read (its own number and largest id),
    so a read that an import overtook is never taken for the set before it. The campaign is
    known by its id and creation time, since a transaction rolled back (each test's) hands its
    ids out again, to another campaign. The map returned is shared by the draws: read it, never
    change it."""
    found = campaign.topics.aggregate(topics=Count("id"), newest=Max("id"))
    key = (found["topics"], found["newest"])
    owner = (campaign.pk, campaign.created_at)
    with _lock:
        kept = _systems.get(owner)
        if kept is not None and kept[0] == key:
            _systems.move_to_end(owner)
            return kept[1]
    systems = read_topic_systems(campaign)
    with _lock:
        _systems[owner] = ((len(systems), max(systems, default=None)), systems)
        _systems.move_to_end(owner)
        while len(_systems) > CACHED:
            _systems.popitem(last=False)
    return systems


def read_topic_systems(campaign: Campaign) -> dict[int, list[str]]:
    """Each topic's systems by position (index 0: position 1), read by the database from the
    topic data: the outputs' ``system`` fields, without their texts; a system's name one string
    however many topics have it."""
    columns = {f"system_{k}": KT(f"data__outputs__{k}__system") for k in range(MAX_OUTPUTS)}
    # unordered: Topic's default order would join the campaigns and sort every topic for a map
    rows = campaign.topics.order_by().annotate(**columns).values_list("id", *columns)
    names: dict[str, str] = {}
    return {row[0]: [names.setdefault(system, system) for system in row[1:] if system is not None] for row in rows}


def system_pair_weights(campaign: Campaign, topics: Mapping[int, Sequence[str]]) -> dict[tuple[str, str], float]:
    """The probability of every pair of systems some topic compares, from the stored leaderboard
    (the people's, as the campaign report last computed it): ``allocation=active``, Chiang et al.'s
    (:func:`~kinds.preference.allocation.pair_weights`) from its votes and predicted win
    probabilities; ``allocation=design``, the optimal design's
    (:func:`~kinds.preference.allocation.design_weights`) at its scores."""
    universe = sorted({pair_key(a, b) for systems in topics.values() for a, b in combinations(systems, 2)})
    stored = scoring_selectors.campaign_report(campaign)
    board = getattr(stored.data, "people", None) if stored is not None else None
    if campaign.params.get("allocation") == "design":
        key = ((campaign.pk, campaign.created_at), stored.computed_at if stored is not None else None, tuple(universe))
        with _lock:
            kept = _designs.get(key[0])
            if kept is not None and kept[0] == key[1:]:
                return kept[1]
        theta = {}
        for row in board.rows if board is not None else ():
            theta[row.system] = (_number(row.score) - board.base) / ELO_PER_LOGIT
        weights = dict(zip(universe, design_weights(universe, theta).tolist()))
        with _lock:
            _designs[key[0]] = (key[1:], weights)
            _designs.move_to_end(key[0])
            while len(_designs) > CACHED:
                _designs.popitem(last=False)
        return weights
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
