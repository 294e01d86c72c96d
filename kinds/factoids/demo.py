"""Demo factoid campaign: twenty people and six systems summarise one news story.

A hidden set of atomic facts with a popularity each; a summary sentence
states one to three of them. Two simulated annotators build their own
inventories: one defines the atomic facts (ids F1...), the other writes some
pairs of facts as one factoid (ids P1...), so relations include identities
and subsumptions (section 3.2); both miss a few marks. The organiser's
consensus is the atomic inventory, which the weighted factoid scores,
inventory growth and stability analyses use.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_topics
from annotate.models import Assignment, Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

GUIDELINES = """Build your own factoid inventory for this text and mark, for every summary sentence, the factoids it contains.

A factoid is an atomic piece of information: when a new summary includes only part of one of your factoids, split it into finer ones. Give each factoid a short id and text.

Phase 1 is independent. In Phase 2 you see a list of your discrepancies with the other annotator (never their reasons) and may correct slips."""

FACTS = [
    ("The city opened a new tram line", 0.95),
    ("The line is 14 km long", 0.6),
    ("It has 22 stops", 0.45),
    ("It links the station to the university", 0.8),
    ("It cost 310 million euros", 0.7),
    ("It was two years late", 0.55),
    ("The mayor opened it", 0.5),
    ("Rides are free in the first week", 0.4),
    ("Trams run every six minutes", 0.35),
    ("It expects 40,000 riders a day", 0.5),
    ("Shops complained about the works", 0.3),
    ("The trams were built locally", 0.2),
    ("A second line is planned", 0.45),
    ("Bus routes will change", 0.25),
    ("The trams are powered by renewables", 0.3),
    ("Opposition called it too expensive", 0.35),
    ("The first tram was full", 0.2),
    ("Parking near stops is limited", 0.15),
]
#: The coarse annotator writes these pairs of facts as one factoid.
COARSE = [(1, 2), (4, 5), (7, 8)]
MODELS, MACHINES = 20, 6


def summaries(rng: random.Random) -> tuple[list[dict], dict[str, list[int]]]:
    """Summaries and, for every sentence, the facts it states."""
    result, facts_of = [], {}
    for index in range(MODELS + MACHINES):
        model = index < MODELS
        chosen = [f for f, (_, p) in enumerate(FACTS) if rng.random() < (p if model else p * 0.8)] or [0]
        rng.shuffle(chosen)
        sentences, prefix = [], f"{'m' if model else 's'}{index + 1:02d}"
        while chosen:
            size = rng.randint(1, 3)
            take, chosen = chosen[:size], chosen[size:]
            sentence_id = f"{prefix}.{len(sentences) + 1}"
            facts_of[sentence_id] = take
            text = "; ".join(FACTS[f][0].lower() if i else FACTS[f][0] for i, f in enumerate(take)) + "."
            sentences.append({"id": sentence_id, "text": text})
        source = {"author": f"person-{index + 1:02d}"} if model else {"run": f"system-{index - MODELS + 1}"}
        result.append({"id": prefix, **source, "sentences": sentences})
    return result, facts_of


def annotation(facts_of: dict[str, list[int]], rng: random.Random, *, coarse: bool, miss: float) -> dict:
    merged = {b: a for a, b in COARSE} if coarse else {}
    names = {}
    for fact in range(len(FACTS)):
        owner = merged.get(fact, fact)
        names[fact] = f"P{owner + 1}" if coarse else f"F{fact + 1}"
    inventory = {}
    for fact, name in names.items():
        text = FACTS[fact][0]
        if coarse and fact in dict(COARSE):
            text = f"{text}; {FACTS[dict(COARSE)[fact]][0].lower()}"
        inventory.setdefault(name, text)
    marks = {}
    for sentence, facts in facts_of.items():
        found = sorted({names[f] for f in facts if rng.random() > miss}, key=lambda n: int(n[1:]))
        if found:
            marks[sentence] = found
    used = {n for found in marks.values() for n in found}
    factoids = [{"id": n, "text": t} for n, t in inventory.items() if n in used]
    return {"factoids": factoids, "marks": marks}


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2004)
    campaign = create_campaign(
        creator=organiser,
        kind="factoids",
        name="Factoids of a news story (demo)",
        guidelines=GUIDELINES,
        overlap=2,
        params={"demo": True},
    )
    annotators = simulated[:2]
    for user in annotators:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    data, facts_of = summaries(rng)
    (topic,) = import_topics(
        campaign=campaign,
        topics=[{"external_id": "tram", "title": "The new tram line", "data": {"summaries": data}}],
    )
    for user, coarse in zip(annotators, (False, True)):
        save_judgment(
            topic=topic,
            assessor=user,
            payload=annotation(facts_of, rng, coarse=coarse, miss=0.05),
            status="submitted",
            version=0,
            source="import",
        )
    consensus = annotation(facts_of, random.Random(1), coarse=False, miss=0.0)
    save_curation(topic=topic, name="consensus", data=consensus, version=0, user=organiser)
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    (theirs,) = import_topics(
        campaign=campaign,
        topics=[{"external_id": "tram-2", "title": "The new tram line (your turn)", "data": {"summaries": data[:6]}}],
    )
    # A third simulated annotator on the people's topic (its overlap of two goes to alice
    # and bob), so that their submissions move the agreement figures at once.
    if len(simulated) < 3:
        return campaign
    third = simulated[2]
    add_member(campaign=campaign, username=third.username, role=Membership.Role.ASSESSOR)
    Assignment.objects.get_or_create(topic=theirs, assessor=third)
    shown = {s["id"] for summary in data[:6] for s in summary["sentences"]}
    save_judgment(
        topic=theirs,
        assessor=third,
        payload=annotation(
            {s: f for s, f in facts_of.items() if s in shown}, random.Random(2005), coarse=False, miss=0.1
        ),
        status="submitted",
        version=0,
        source="import",
    )
    return campaign
