"""Demo clustering campaign: news reports of the same events, sentence by sentence.

Each sentence carries a hidden topic (or none: irrelevant). Three simulated
judges cluster them in characteristic ways (Geiss, section 4.2): one
generalises (merges related topics), one splits finely, one leaves many
sentences out.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from kinds.clustering.data import GUIDELINES

# (document, hidden topic or None, text)
VOLCANO = [
    ("reuters", "eruption", "Mount Kelud erupted late on Thursday, sending ash 17 kilometres into the sky."),
    (
        "reuters",
        "evacuation",
        "About 100,000 people were ordered to leave villages within ten kilometres of the crater.",
    ),
    ("reuters", "deaths", "Two people were killed when the roof of their house collapsed under the weight of ash."),
    ("reuters", "airports", "Seven airports on Java were closed as the ash cloud drifted west."),
    ("reuters", None, "The volcano last erupted in 2007."),
    ("reuters", "aid", "The government sent soldiers and trucks of water to the shelters."),
    ("ap", "eruption", "The eruption of Kelud blasted rocks and ash high above East Java."),
    ("ap", "deaths", "Officials said at least three people died, most of them crushed by collapsing roofs."),
    ("ap", "airports", "Flights to Yogyakarta, Solo and Surabaya were cancelled."),
    ("ap", "evacuation", "Villagers fled on motorbikes as stones rained down."),
    ("ap", None, "Indonesia sits on the Pacific Ring of Fire."),
    ("ap", "ash", "Ash fell as far away as Bandung, more than 500 kilometres to the west."),
    ("bbc", "ash", "Towns across central Java woke up covered in grey ash."),
    ("bbc", "airports", "Airlines including Qantas cancelled flights to Bali as a precaution."),
    ("bbc", "eruption", "The blast was heard 200 kilometres away."),
    ("bbc", "aid", "Aid agencies handed out masks to protect people from the ash."),
    ("bbc", None, "Kelud is one of about 130 active volcanoes in Indonesia."),
    ("bbc", "evacuation", "Shelters in schools and mosques filled with families from the slopes."),
    ("jakarta-post", "deaths", "The death toll rose to four on Saturday."),
    ("jakarta-post", "aid", "The health ministry sent doctors to treat breathing problems."),
    ("jakarta-post", "ash", "Schools were closed while the streets were cleared of ash."),
    ("jakarta-post", None, "A local legend says the mountain is guarded by a spurned suitor."),
    ("jakarta-post", "evacuation", "Some villagers returned to feed their livestock despite the warnings."),
]
DOCUMENTS = {"reuters": "Reuters", "ap": "Associated Press", "bbc": "BBC", "jakarta-post": "The Jakarta Post"}
RELATED = {"airports": "ash", "deaths": "eruption", "aid": "evacuation"}  # what the generaliser merges


def topic_data(sentences: list[tuple[str, str | None, str]]) -> dict:
    positions: dict[str, int] = {}
    rows = []
    for index, (document, _, text) in enumerate(sentences):
        positions[document] = positions.get(document, 0) + 1
        rows.append({"id": f"s{index + 1}", "document": document, "position": positions[document], "text": text})
    return {"documents": [{"id": d, "title": t} for d, t in DOCUMENTS.items()], "sentences": rows}


def hidden_topics(sentences) -> dict[str, str | None]:
    return {f"s{i + 1}": topic for i, (_, topic, _) in enumerate(sentences)}


def generaliser(topics: dict[str, str | None], rng: random.Random) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for sentence, topic in topics.items():
        if topic is not None:
            groups.setdefault(RELATED.get(topic, topic), []).append(sentence)
    return list(groups.values())


def splitter(topics: dict[str, str | None], rng: random.Random) -> list[list[str]]:
    groups: dict[tuple[str, int], list[str]] = {}
    for sentence, topic in topics.items():
        if topic is not None:
            groups.setdefault((topic, rng.random() < 0.5), []).append(sentence)
    return [g for g in groups.values() if len(g) >= 2]


def picky(topics: dict[str, str | None], rng: random.Random) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for sentence, topic in topics.items():
        if topic is not None and rng.random() < 0.6:
            groups.setdefault(topic, []).append(sentence)
    return [g for g in groups.values() if len(g) >= 2]


JUDGES = {"sim-ann": generaliser, "sim-ben": splitter, "sim-cara": picky}


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2009)
    campaign = create_campaign(
        creator=organiser,
        kind="clustering",
        name="Volcano sentences (demo)",
        guidelines=GUIDELINES,
        overlap=3,
        params={"demo": True, "rules": "warn"},
    )
    by_name = {u.username: u for u in simulated}
    for name in JUDGES:
        add_member(campaign=campaign, username=name, role=Membership.Role.ASSESSOR)
    (topic,) = import_topics(
        campaign=campaign,
        topics=[{"external_id": "volcano", "title": "Mount Kelud erupts", "data": topic_data(VOLCANO)}],
    )
    topics = hidden_topics(VOLCANO)
    for name, judge in JUDGES.items():
        clusters = judge(topics, rng)
        save_judgment(
            topic=topic,
            assessor=by_name[name],
            payload={"clusters": clusters, "descriptions": [""] * len(clusters)},
            status="submitted",
            version=0,
            source="import",
        )
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    (theirs,) = import_topics(
        campaign=campaign,
        topics=[{"external_id": "volcano-2", "title": "Mount Kelud erupts (your turn)", "data": topic_data(VOLCANO)}],
    )
    # Simulated assessors judge the people's topics too, so a person's submission moves
    # the agreement figures at once (there is someone to agree with).
    others = random.Random(2010)
    for assignment in theirs.assignments.select_related("assessor"):
        judge = JUDGES.get(assignment.assessor.username)
        if judge is not None:
            clusters = judge(topics, others)
            save_judgment(
                topic=theirs,
                assessor=assignment.assessor,
                payload={"clusters": clusters, "descriptions": [""] * len(clusters)},
                status="submitted",
                version=0,
                source="import",
            )
    import_runs(
        campaign=campaign,
        runs=[
            {
                "name": "by-document",
                "data": {
                    "clusterings": {
                        "volcano": [[s["id"] for s in topic.data["sentences"] if s["document"] == d] for d in DOCUMENTS]
                    }
                },
            }
        ],
    )
    return campaign
