"""Demo pair-adjudication campaign: person-name search pools.

Each query is a name; its candidates are variants of it (spellings,
transliterations, dropped or reordered segments, titles) and other people's
names. Simulated adjudicators accept a candidate when its similarity to the
query, plus their own noise, clears their own threshold, which gives the
realistic, imperfect agreement of section 3.1 (kappa roughly 0.5 to 0.8).
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_topics
from annotate.models import Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.pairs.pools import build_pools

GUIDELINES = """Judge whether each candidate record could name the same person as the query.

Use the "loose" criterion of the evaluation:

- **Match** when there is a plausible relationship between the names, even beyond superficial spelling differences: alternate spellings and transliterations (Mohamed / Muhammad), added or dropped segments (Bin Ahmed), titles (Haji), reordered segments.
- **No match** when the names only share a common element, or when nothing plausibly relates them.

Keys:

- **j** / **k** move between candidates;
- **y** / **n** judge (match / no match);
- **Enter** submits once every candidate is judged."""

GIVEN = [
    "Mohamed",
    "Ahmed",
    "Yusuf",
    "Olga",
    "Dmitri",
    "Chen",
    "Jun",
    "Maria",
    "Jose",
    "Nguyen",
    "Anh",
    "Priya",
    "Rahul",
    "Hiroshi",
    "Yuki",
    "Fatima",
    "Omar",
    "Pierre",
    "Hans",
    "Min-jun",
    "Seo-yeon",
    "Ali",
    "Reza",
]
FAMILY = [
    "Hammadi",
    "Al Masri",
    "Ivanova",
    "Petrov",
    "Wang",
    "Li",
    "Garcia",
    "Fernandez",
    "Tran",
    "Le",
    "Sharma",
    "Patel",
    "Tanaka",
    "Sato",
    "Haddad",
    "Dubois",
    "Muller",
    "Kim",
    "Park",
    "Hosseini",
    "Karimi",
    "O'Brien",
]
SPELLINGS = [
    ("mohamed", "muhammad"),
    ("ou", "u"),
    ("ph", "f"),
    ("ee", "i"),
    ("y", "i"),
    ("ck", "k"),
    ("sh", "ch"),
    ("ov", "off"),
    ("ei", "ai"),
    ("j", "dj"),
    ("v", "w"),
    ("ll", "l"),
]
TITLES = ["Haji", "Dr", "Sheikh", "Mme", "Herr"]

SIMULATED_THRESHOLDS = {"sim-ann": 0.58, "sim-ben": 0.66, "sim-cara": 0.62, "sim-dev": 0.55}
NOISE = 0.07


def variant(name: str, rng: random.Random) -> str:
    """A name the query could plausibly be, or another person's name."""
    given, family = name.split(" ", 1)
    roll = rng.random()
    if roll < 0.35:
        lowered = name.lower()
        options = [pair for pair in SPELLINGS if pair[0] in lowered or pair[1] in lowered]
        if options:
            a, b = rng.choice(options)
            lowered = lowered.replace(a, b, 1) if a in lowered else lowered.replace(b, a, 1)
        else:
            i = rng.randrange(1, len(lowered))
            lowered = lowered[:i] + lowered[i - 1] + lowered[i:]
        return lowered.title()
    if roll < 0.5:
        return f"{family.upper()} {given}"
    if roll < 0.6:
        return f"{rng.choice(TITLES)} {name}"
    if roll < 0.7:
        return f"{given} {rng.choice(FAMILY)} {family}"
    if roll < 0.85:
        return f"{rng.choice(GIVEN)} {family}" if rng.random() < 0.5 else f"{given} {rng.choice(FAMILY)}"
    return f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}"


def similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def topics(count: int, rng: random.Random, start: int = 1) -> list[dict]:
    result = []
    for number in range(start, start + count):
        query = f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}"
        # Exact string matches are left out of the pool (section 2.2).
        seen = {query.lower()}
        candidates = []
        while len(candidates) < rng.randint(6, 12):
            text = " ".join(variant(query, rng).split())
            if text.lower() not in seen:
                seen.add(text.lower())
                candidates.append({"id": f"c{len(candidates) + 1}", "text": text})
        result.append(
            {
                "external_id": f"q{number:03d}",
                "title": f"Query {number}: {query}",
                "data": {"query": query, "candidates": candidates},
            }
        )
    return result


def simulated_payload(topic_data: dict, assessor: str, rng: random.Random) -> dict:
    threshold = SIMULATED_THRESHOLDS[assessor]
    query = topic_data["query"]
    return {
        "matches": {
            c["id"]: similarity(query, c["text"]) + rng.gauss(0, NOISE) > threshold for c in topic_data["candidates"]
        }
    }


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> list[Campaign]:
    rng = random.Random(20081)
    campaign = create_campaign(
        creator=organiser,
        kind="pairs",
        name="Person-name search (demo)",
        guidelines=GUIDELINES,
        overlap=3,
        params={"demo": True},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    judged = import_topics(campaign=campaign, topics=topics(24, rng))
    for topic in judged:
        for assignment in topic.assignments.select_related("assessor"):
            name = assignment.assessor.username
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload=simulated_payload(topic.data, name, rng),
                status="submitted",
                version=0,
                source="import",
            )
    # The people join last, so the least-loaded rule gives them the new topics
    # and their own judgments move the live report.
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    theirs = import_topics(campaign=campaign, topics=topics(6, rng, start=25))
    # Simulated assessors judge the people's topics too, so a person's submission moves
    # the agreement figures at once (there is someone to agree with).
    others, names = random.Random(20082), {u.username for u in simulated}
    for topic in theirs:
        for assignment in topic.assignments.select_related("assessor"):
            if assignment.assessor.username in names:
                save_judgment(
                    topic=topic,
                    assessor=assignment.assessor,
                    payload=simulated_payload(topic.data, assignment.assessor.username, others),
                    status="submitted",
                    version=0,
                    source="import",
                )
    return [campaign, build_systems(organiser, simulated)]


# -- the system-evaluation demo: 13 systems, pooled results, 4 adjudicators --------------------

N_SYSTEMS = 13


def system_runs(queries: dict[str, str], rng: random.Random) -> list[dict]:
    """Thirteen name matchers of varying recall and precision: each scores a
    query's candidate records by similarity plus its own noise and returns
    those above its own threshold, best first."""
    universe = {q: _candidates(text, rng) for q, text in queries.items()}
    runs = []
    for s in range(N_SYSTEMS):
        threshold, noise = rng.uniform(0.45, 0.8), rng.uniform(0.03, 0.15)
        results = {}
        for query, text in queries.items():
            scored = [(similarity(text, c["text"]) + rng.gauss(0, noise), c) for c in universe[query]]
            results[query] = [
                {**c, "score": round(score, 4)} for score, c in sorted(scored, key=lambda x: -x[0]) if score > threshold
            ]
        runs.append({"name": f"system-{s + 1:02d}", "data": {"results": results}})
    return runs


def _candidates(query: str, rng: random.Random) -> list[dict]:
    seen, found = {query.lower()}, []
    while len(found) < 16:
        text = " ".join(variant(query, rng).split())
        if text.lower() not in seen:
            seen.add(text.lower())
            found.append({"id": f"r{len(found) + 1}", "text": text})
    # The query itself is among the records, as in a real database: pooling drops it.
    return [*found, {"id": "r0", "text": query}]


def build_systems(organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser]) -> Campaign:
    rng = random.Random(2008)
    campaign = create_campaign(
        creator=organiser,
        kind="pairs",
        name="Name-search systems (demo)",
        guidelines=GUIDELINES,
        overlap=len(simulated),
        params={"demo": True},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    queries = {f"n{i:03d}": f"{rng.choice(GIVEN)} {rng.choice(FAMILY)}" for i in range(1, 41)}
    topics = build_pools(campaign=campaign, queries=queries, runs=system_runs(queries, rng))
    for topic in topics:
        for assignment in topic.assignments.select_related("assessor"):
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload=simulated_payload(topic.data, assignment.assessor.username, rng),
                status="submitted",
                version=0,
                source="import",
            )
    return campaign
