"""Demo nugget campaign: answer keys for "Who/what is X?" questions.

A hidden importance per nugget; the original labels and four simulated
assessors are noisy copies of it (Lin & Demner-Fushman, section 5: each
assessor labels every nugget from the nugget list and the target only).
Eight system runs with answers of different quality and length; their
nugget matches come with the runs, as NIST's do. Two more systems
("reader-a", careful, and "reader-b", sloppy) answer in text shown to the
assessors, who mark which nuggets each answer contains (nugget matching,
``params["tasks"]`` with "matches"); their matches come from those judgments.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_runs, import_topics
from annotate.models import Assignment, Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

GUIDELINES = """For each question, label every nugget vital or okay from the nugget list and the target alone ("snap judgments").

- **Vital**: a fact that must be in a good answer to "What is the target?".
- **Okay**: worthwhile, but not essential.

Then, for each system answer, mark the nuggets it contains (it must state the fact, in any words).

Keys:

- **v** vital, **o** okay (both move on);
- **j** / **k** move;
- **Enter** submits once every nugget is labelled and every answer matched."""

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
#: The systems whose answers the assessors match: how likely each states a nugget.
READERS = {"reader-a": 0.75, "reader-b": 0.35}


def with_responses(question: dict, rng: random.Random) -> tuple[dict, dict[str, list[str]]]:
    """The question with the readers' answers (text built from the nuggets each
    states), and which nuggets each answer really contains."""
    nuggets = question["data"]["nuggets"]
    responses, truth = [], {}
    for number, (run, recall) in enumerate(READERS.items(), 1):
        found = [n for n in nuggets if rng.random() < recall] or [nuggets[0]]
        text = f"{question['data']['target']}: " + "; ".join(n["text"].lower() for n in found) + "."
        responses.append({"id": f"r{number}", "run": run, "text": text})
        truth[f"r{number}"] = [n["id"] for n in found]
    return {**question, "data": {**question["data"], "responses": responses}}, truth


def matched(truth: dict[str, list[str]], nuggets: list[str], rng: random.Random) -> dict[str, list[str]]:
    """An assessor's matches: the true ones, a few missed, a few seen that are not there."""
    return {
        response: [
            n for n in nuggets if (n in found and rng.random() > 0.1) or (n not in found and rng.random() < 0.05)
        ]
        for response, found in truth.items()
    }


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
    campaign = create_campaign(
        creator=organiser,
        kind="nuggets",
        name="Nugget pyramids (demo)",
        guidelines=GUIDELINES,
        overlap=len(SIMULATED),
        params={"demo": True, "tasks": ["labels", "matches"]},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    questions, importance = topics(rng)
    answers = random.Random(1958)  # the readers' answers and the assessors' matching of them
    questions, truths = zip(*(with_responses(q, answers) for q in questions))
    truth_of = {q["external_id"]: t for q, t in zip(questions, truths)}
    created = import_topics(campaign=campaign, topics=list(questions))
    for topic in created:
        nuggets = [n["id"] for n in topic.data["nuggets"]]
        for assignment in topic.assignments.select_related("assessor"):
            threshold = rng.uniform(0.45, 0.7)
            labels = {
                f"n{i + 1}": "vital" if score + rng.gauss(0, 0.2) > threshold else "okay"
                for i, score in enumerate(importance[topic.external_id])
            }
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"labels": labels, "matches": matched(truth_of[topic.external_id], nuggets, answers)},
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
    import_runs(campaign=campaign, runs=runs)
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    extra, extra_importance = topics(random.Random(7))
    extra_answers = random.Random(1959)
    theirs = [with_responses(t, extra_answers) for t in extra[:2]]
    created = import_topics(
        campaign=campaign,
        topics=[{**t, "external_id": f"x{t['external_id']}", "title": t["title"] + " (your turn)"} for t, _ in theirs],
    )
    # Every simulated assessor judges the people's questions too (beyond the overlap, so
    # that each still labels every nugget: the stability tables need complete labellings),
    # and a person's submission moves the agreement figures at once.
    for topic, (question, truth) in zip(created, theirs):
        nuggets = [n["id"] for n in topic.data["nuggets"]]
        for user in simulated:
            Assignment.objects.get_or_create(topic=topic, assessor=user)
            labels = {
                f"n{i + 1}": "vital" if score + extra_answers.gauss(0, 0.2) > 0.55 else "okay"
                for i, score in enumerate(extra_importance[question["external_id"]])
            }
            save_judgment(
                topic=topic,
                assessor=user,
                payload={"labels": labels, "matches": matched(truth, nuggets, extra_answers)},
                status="submitted",
                version=0,
                source="import",
            )
    return campaign
