"""Demo nugget campaign: answer keys for "Who/what is X?" questions.

A hidden importance per nugget; the original labels and four simulated
assessors are noisy copies of it (Lin & Demner-Fushman, section 5: each
assessor labels every nugget from the nugget list and the target only).
Eight system runs with answers of different quality and length; their
nugget matches come with the runs, as NIST's do.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate import services
from annotate.models import Campaign, Membership

GUIDELINES = """For each question, label every nugget vital or okay from the nugget list and the target alone ("snap judgments").

Vital: a fact that must be in a good answer to "What is the target?". Okay: worthwhile, but not essential.

Keys: v vital, o okay (both move on), j / k move, Enter submits once every nugget is labelled."""

QUESTIONS = {
    "AARP": [
        "Is a lobby for people aged 50 and over",
        "Has about 38 million members",
        "Was founded in 1958",
        "Founded by Ethel Percy Andrus",
        "Publishes a magazine",
        "Offers discounts on travel",
        "Headquarters in Washington",
        "Lobbies on Social Security",
    ],
    "Hubble Space Telescope": [
        "Orbits the Earth",
        "Launched in 1990",
        "Named after Edwin Hubble",
        "Had a flawed mirror",
        "Repaired by shuttle astronauts",
        "Measured the expansion of the universe",
        "Is about 13 metres long",
    ],
    "Kurt Cobain": [
        "Singer of Nirvana",
        "Born in Aberdeen, Washington",
        "Died in 1994",
        "Married Courtney Love",
        "Wrote Smells Like Teen Spirit",
        "Played left-handed guitar",
    ],
    "Great Barrier Reef": [
        "Largest coral reef system",
        "Off the coast of Queensland",
        "Visible from space",
        "Threatened by coral bleaching",
        "A World Heritage Site",
        "Home to thousands of species",
        "About 2,300 km long",
    ],
    "Enigma machine": [
        "A cipher machine",
        "Used by Germany in the Second World War",
        "Broken at Bletchley Park",
        "Alan Turing worked on breaking it",
        "Used rotors",
        "Invented by Arthur Scherbius",
    ],
    "Tour de France": [
        "A cycling race",
        "Held every July",
        "First held in 1903",
        "The leader wears the yellow jersey",
        "Finishes in Paris",
        "About 3,500 km long",
        "Lance Armstrong lost his titles",
    ],
}
SIMULATED = ["sim-ann", "sim-ben", "sim-cara", "sim-dev"]


def topics(rng: random.Random) -> tuple[list[dict], dict[str, list[float]]]:
    result, importance = [], {}
    for number, (target, facts) in enumerate(QUESTIONS.items(), 1):
        scores = sorted((rng.random() for _ in facts), reverse=True)  # earlier facts matter more
        importance[f"q{number}"] = scores
        result.append(
            {
                "external_id": f"q{number}",
                "title": f"What is {target}?",
                "data": {
                    "target": target,
                    "nuggets": [
                        {
                            "id": f"n{i + 1}",
                            "text": fact,
                            "label": "vital" if score + rng.gauss(0, 0.15) > 0.6 else "okay",
                        }
                        for i, (fact, score) in enumerate(zip(facts, scores))
                    ],
                },
            }
        )
    return result, importance


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2006)
    campaign = services.create_campaign(
        creator=organiser,
        kind="nuggets",
        name="Nugget pyramids (demo)",
        guidelines=GUIDELINES,
        overlap=len(SIMULATED),
        params={"demo": True, "tasks": ["labels"]},
    )
    for user in simulated:
        services.add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    questions, importance = topics(rng)
    created = services.import_topics(campaign=campaign, topics=questions)
    for topic in created:
        for assignment in topic.assignments.select_related("assessor"):
            threshold = rng.uniform(0.45, 0.7)
            labels = {
                f"n{i + 1}": "vital" if score + rng.gauss(0, 0.2) > threshold else "okay"
                for i, score in enumerate(importance[topic.external_id])
            }
            services.save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"labels": labels},
                status="submitted",
                version=0,
                source="import",
            )
    runs = []
    for r in range(8):
        recall, verbosity = rng.uniform(0.2, 0.9), rng.uniform(60, 200)
        responses = {}
        for topic in created:
            found = [
                f"n{i + 1}"
                for i, score in enumerate(importance[topic.external_id])
                if rng.random() < recall * (0.5 + score / 2)
            ]
            responses[topic.external_id] = {
                "length": int(verbosity * (len(found) + rng.randint(0, 3))),
                "matches": found,
            }
        runs.append({"name": f"run-{r + 1}", "data": {"responses": responses}})
    services.import_runs(campaign=campaign, runs=runs)
    for user in people:
        services.add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    extra, _ = topics(random.Random(7))
    services.import_topics(
        campaign=campaign,
        topics=[{**t, "external_id": f"x{t['external_id']}", "title": t["title"] + " (your turn)"} for t in extra[:2]],
    )
    return campaign
