"""Demo labels campaign: the sentiment of short product reviews, on a five-point ordinal scale.

Each review is written from a hidden sentiment (a phrase of that strength about
one of several products); simulated assessors label it with their own bias and
noise around the truth (one careful, one harsh, one lenient, one careless who
now and then can't tell), which gives the realistic, imperfect agreement of a
rating study. As ``manage.py seed`` builds it (four simulated assessors), before
the people label anything: Krippendorff's alpha on the ordinal scale 0.72 (95%
interval 0.61 to 0.79, over the 56 of 60 reviews labelled twice or more) and
Gwet's AC2 0.76, while Fleiss' kappa, which counts the harsh and the lenient
assessor's labels a step apart as plain disagreement, is 0.20
(kinds/labels/tests/test_partials.py checks these).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_topics
from annotate.models import Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member

SCALE = ["very negative", "negative", "neutral", "positive", "very positive"]
GUIDELINES = """Label the sentiment of each review towards the product, from very negative to very positive.

- **Very negative** / **very positive**: strong words, the reviewer would (not) buy again.
- **Negative** / **positive**: a clear leaning with some reservation.
- **Neutral**: no leaning, or good and bad in equal measure.
- **Can't tell**: the review says nothing about the product.

Keys: **1**-**5** choose a label and move on, **0** is "can't tell", **j** / **k** move between reviews,
**Enter** submits once every review is labelled."""

PRODUCTS = [
    "kettle",
    "headphones",
    "backpack",
    "desk lamp",
    "running shoes",
    "coffee grinder",
    "umbrella",
    "phone case",
]
PHRASES = [
    ["broke within a week, a waste of money", "awful, returned it the next day", "the worst I have owned"],
    ["does the job but feels cheap", "disappointing for the price", "not what the photos promised"],
    ["it is fine, nothing special", "works as described, no more", "some good points, some bad ones"],
    ["solid and well made", "happy with it so far", "good value, would recommend"],
    ["excellent, I bought a second one", "the best I have ever had", "flawless, worth every penny"],
]
#: (bias on the scale, noise, share of "can't tell") of each simulated assessor, in order.
STYLES = [(0.0, 0.35, 0.0), (-0.6, 0.5, 0.0), (0.5, 0.5, 0.0), (0.0, 1.1, 0.08)]
PER_TOPIC = 10


def reviews(n: int, rng: random.Random, start: int = 1) -> list[tuple[dict, int]]:
    """``n`` reviews (an item each) with the sentiment they were written from."""
    found = []
    for k in range(start, start + n):
        truth = rng.randrange(len(SCALE))
        product = rng.choice(PRODUCTS)
        text = f"The {product}: {rng.choice(PHRASES[truth])}."
        found.append(({"id": f"r{k:03d}", "text": text}, truth))
    return found


def topics(items: list[tuple[dict, int]], first: int) -> list[dict]:
    return [
        {
            "external_id": f"batch-{first + b:02d}",
            "title": f"Reviews, batch {first + b}",
            "data": {"items": [item for item, _ in items[k : k + PER_TOPIC]]},
        }
        for b, k in enumerate(range(0, len(items), PER_TOPIC))
    ]


def simulated_label(truth: int, style: tuple[float, float, float], rng: random.Random) -> str | None:
    bias, noise, unsure = style
    if rng.random() < unsure:
        return None
    value = round(truth + bias + rng.gauss(0, noise))
    return SCALE[min(len(SCALE) - 1, max(0, value))]


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2014)
    campaign = create_campaign(
        creator=organiser,
        kind="labels",
        name="Review sentiment (demo)",
        guidelines=GUIDELINES,
        overlap=len(simulated),
        params={"demo": True, "level": "ordinal", "categories": SCALE, "cant_tell": True, "batch": PER_TOPIC},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    judged = reviews(40, rng)
    truth = {item["id"]: value for item, value in judged}
    styles = {user.username: STYLES[k % len(STYLES)] for k, user in enumerate(simulated)}
    _judge(import_topics(campaign=campaign, topics=topics(judged, 1)), truth, styles, rng)
    # The people join last, so the least-loaded rule gives them the new topics (simulated
    # assessors label them too, so that a person's labels move the figures at once).
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    theirs = reviews(20, rng, start=41)
    truth.update({item["id"]: value for item, value in theirs})
    _judge(import_topics(campaign=campaign, topics=topics(theirs, 5)), truth, styles, rng)
    return campaign


def _judge(made, truth: dict[str, int], styles: dict, rng: random.Random) -> None:
    for topic in made:
        for assignment in topic.assignments.select_related("assessor"):
            style = styles.get(assignment.assessor.username)
            if style is None:
                continue  # a person's assignment: theirs to label
            labels = {item["id"]: simulated_label(truth[item["id"]], style, rng) for item in topic.data["items"]}
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"labels": labels},
                status="submitted",
                version=0,
                source="import",
            )
