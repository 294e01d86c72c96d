"""Demo ordering campaign: put the steps of everyday processes in order.

Three simulated assessors mostly agree with the natural order (a few
neighbouring swaps each); a fourth is careless (much of its order random).
Three system runs of different quality are scored against them.
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

GUIDELINES = """Put the items in the order in which they happen, first at the top.

Drag an item by its handle, or use the keyboard: move the focus with the arrow keys (or j / k), press Space to pick the focused item up, move it with the arrow keys, and press Space again to put it down. Enter submits.

Your starting order is shuffled for you alone: it says nothing about the answer."""

PROCESSES = {
    "Making a cup of tea": [
        "Fill the kettle with fresh water.",
        "Switch the kettle on.",
        "Warm the pot with a little hot water.",
        "Empty the pot.",
        "Put the tea in the pot.",
        "Pour the boiling water over the tea.",
        "Let it brew for four minutes.",
        "Pour the tea into a cup.",
        "Add milk if you like.",
    ],
    "The water cycle": [
        "The sun warms the sea.",
        "Water evaporates into the air.",
        "Warm moist air rises.",
        "The vapour cools as it rises.",
        "It condenses into droplets around dust.",
        "Droplets gather into clouds.",
        "The droplets grow heavy.",
        "Rain falls on the land.",
        "Rivers carry the water back to the sea.",
    ],
    "Publishing a paper": [
        "Run the experiments.",
        "Analyse the results.",
        "Write the first draft.",
        "Ask colleagues for comments.",
        "Revise the draft.",
        "Submit to a conference.",
        "Receive the reviews.",
        "Write the rebuttal.",
        "Receive the decision.",
        "Prepare the camera-ready version.",
        "Present the paper.",
    ],
    "Building a house": [
        "Buy the land.",
        "Have the plans drawn.",
        "Obtain the building permit.",
        "Dig the foundations.",
        "Pour the concrete slab.",
        "Raise the walls.",
        "Put on the roof.",
        "Install plumbing and wiring.",
        "Plaster the walls.",
        "Paint the rooms.",
        "Move in.",
    ],
    "A day of a postal worker": [
        "Arrive at the sorting office.",
        "Sort the letters by street.",
        "Load the van.",
        "Drive to the first street.",
        "Deliver the letters door to door.",
        "Collect letters from the post boxes.",
        "Return to the office.",
        "Hand in the collected letters.",
    ],
    "Life of a star": [
        "A cloud of gas and dust collapses.",
        "A protostar forms.",
        "Hydrogen fusion begins.",
        "The star shines on the main sequence.",
        "The core runs out of hydrogen.",
        "The star swells into a red giant.",
        "It sheds its outer layers.",
        "A planetary nebula glows.",
        "A white dwarf remains.",
        "The white dwarf cools.",
    ],
    "Releasing software": [
        "Freeze the features.",
        "Create the release branch.",
        "Run the full test suite.",
        "Fix the blocking bugs.",
        "Tag the release candidate.",
        "Test the candidate on staging.",
        "Write the release notes.",
        "Tag the final release.",
        "Publish the packages.",
        "Announce the release.",
    ],
    "Planting a tree": [
        "Choose the spot.",
        "Dig a hole twice as wide as the roots.",
        "Loosen the soil at the bottom.",
        "Soak the roots.",
        "Set the tree in the hole.",
        "Fill the hole with soil.",
        "Firm the soil down.",
        "Water generously.",
        "Spread mulch around the trunk.",
    ],
}
CAREFUL = ["sim-ann", "sim-ben", "sim-cara"]


def topics() -> list[dict]:
    return [
        {
            "external_id": f"p{number}",
            "title": title,
            "data": {"items": [{"id": f"s{i + 1}", "text": text} for i, text in enumerate(steps)]},
        }
        for number, (title, steps) in enumerate(PROCESSES.items(), 1)
    ]


def perturbed(order: list[str], swaps: int, rng: random.Random) -> list[str]:
    """``order`` with ``swaps`` random neighbouring swaps."""
    order = list(order)
    for _ in range(swaps):
        i = rng.randrange(len(order) - 1)
        order[i], order[i + 1] = order[i + 1], order[i]
    return order


def careless(order: list[str], rng: random.Random) -> list[str]:
    """Keeps the first few right, then shuffles the rest: a hurried assessor."""
    keep = rng.randint(2, 3)
    rest = order[keep:]
    rng.shuffle(rest)
    return order[:keep] + rest


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2010)
    campaign = create_campaign(
        creator=organiser,
        kind="ordering",
        name="Ordering steps (demo)",
        guidelines=GUIDELINES,
        overlap=4,
        params={"demo": True},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    all_topics = topics()
    judged = import_topics(campaign=campaign, topics=all_topics[:6])
    for topic in judged:
        truth = [item["id"] for item in topic.data["items"]]
        for assignment in topic.assignments.select_related("assessor"):
            name = assignment.assessor.username
            order = perturbed(truth, rng.randint(1, 3), rng) if name in CAREFUL else careless(truth, rng)
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"order": order},
                status="submitted",
                version=0,
                source="import",
            )
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    theirs = import_topics(campaign=campaign, topics=all_topics[6:])
    # Simulated assessors judge the people's topics too, so a person's submission moves
    # the agreement figures at once (there is someone to agree with).
    others = random.Random(2011)
    for topic in theirs:
        truth = [item["id"] for item in topic.data["items"]]
        for assignment in topic.assignments.select_related("assessor"):
            name = assignment.assessor.username
            if name not in {u.username for u in simulated}:
                continue
            order = perturbed(truth, others.randint(1, 3), others) if name in CAREFUL else careless(truth, others)
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"order": order},
                status="submitted",
                version=0,
                source="import",
            )
    truths = {t["external_id"]: [i["id"] for i in t["data"]["items"]] for t in all_topics}
    import_runs(
        campaign=campaign,
        runs=[
            {"name": name, "data": {"orderings": {t: make(order) for t, order in truths.items()}}}
            for name, make in (
                ("close-system", lambda o: perturbed(o, 2, rng)),
                ("rough-system", lambda o: perturbed(o, 12, rng)),
                ("backwards-system", lambda o: perturbed(o[::-1], 3, rng)),
            )
        ],
    )
    return campaign
