"""Demo graded-relevance campaign: TREC-style pools from five systems' runs, four assessors.

Every document of a topic has a hidden true grade (0-3). Five systems rank
each topic's documents by that grade plus their own noise (the better the
system, the less noise); the pools are the union of their top 6. Simulated
assessors grade what they read with their own habits, as Voorhees (2000)
found assessors differ: a lenient one grades up, a strict one down, a noisy
one at random around the truth, a careful one close to it. Agreement comes
out realistic (quadratic kappa roughly 0.45 to 0.7, Voorhees overlap 0.6 to 0.9) and the system rankings
under the assessors' qrels mostly, not entirely, agree.
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
from kinds.relevance.importers import pools

GUIDELINES = """Grade each document for the query on the left, reading the description and the narrative: they say what counts.

- **3 highly relevant**: the document is about the topic and answers it directly.
- **2 relevant**: it answers part of the topic, or answers it in passing.
- **1 related**: it is on the subject but does not answer the topic.
- **0 non-relevant**: anything else.

Grade the document as you read it, not as you think a system would.

Keys:

- **0**-**3** set the grade and move on;
- **j** / **k** next / previous document;
- **Enter** submits once every document is graded."""

#: (title, description, narrative, {true grade: [sentences]}).
TOPICS = [
    (
        "coral reef bleaching",
        "What causes coral reefs to bleach?",
        "A relevant document names a cause of bleaching; reports that a reef bleached are only related.",
        {
            3: [
                "Marine heatwaves make corals expel the algae in their tissue, which turns them white.",
                "Water a degree above the summer maximum for weeks is the main cause of mass bleaching.",
            ],
            2: [
                "Scientists link bleaching to warming seas and, locally, to pollution.",
                "Runoff and heat stress together weaken reef corals.",
            ],
            1: [
                "The Great Barrier Reef saw mass bleaching in 2016 and 2017.",
                "Divers report white corals off the coast this spring.",
            ],
            0: ["Reef fish prices rose at the Pacific markets.", "A new aquarium opened downtown with tropical fish."],
        },
    ),
    (
        "electric car batteries recycling",
        "How are lithium-ion batteries from electric cars recycled?",
        "Relevant: recycling processes or plants; battery chemistry or car sales alone are not relevant.",
        {
            3: [
                "Shredded cells are leached with acid to recover lithium, cobalt and nickel.",
                "Hydrometallurgical plants now recover most of the metals of spent car batteries.",
            ],
            2: [
                "Carmakers plan to reuse old batteries for grid storage before recycling them.",
                "A recycling plant for car batteries opened in Nevada.",
            ],
            1: ["Electric car batteries lose capacity over ten years.", "Lithium prices doubled last year."],
            0: ["The new sedan has heated seats and a larger boot.", "Traffic on the ring road eased after the works."],
        },
    ),
    (
        "sleep and memory",
        "Does sleep help memory?",
        "Relevant: studies of sleep and remembering or learning; sleep disorders without memory are related.",
        {
            3: [
                "Students who slept after learning word pairs recalled more of them than those kept awake.",
                "Slow-wave sleep replays the day's memories and strengthens them.",
            ],
            2: [
                "Naps improved performance on a motor task in a small study.",
                "Poor sleep is tied to worse recall in older adults.",
            ],
            1: ["Insomnia affects one adult in ten.", "Blue light from screens delays sleep."],
            0: ["The mattress sale ends on Sunday.", "The museum stays open late on Fridays."],
        },
    ),
    (
        "volcanic ash aviation",
        "How does volcanic ash affect aircraft?",
        "Relevant: effects of ash on engines, instruments or flights; eruptions without aviation are related.",
        {
            3: [
                "Ash melts in jet engines and fuses on the turbine blades, which can stop the engine.",
                "In 1982 a Boeing 747 lost all four engines flying through ash over Java.",
            ],
            2: [
                "Airspace over Europe closed for days after the 2010 Icelandic eruption.",
                "Pilots are warned of ash clouds by advisory centres.",
            ],
            1: ["The volcano erupted overnight, sending lava down its flank.", "Ash fell on villages near the crater."],
            0: ["The airline added a daily flight to Lisbon.", "Airport coffee prices are the highest in the country."],
        },
    ),
    (
        "bee population decline",
        "Why are bee populations declining?",
        "Relevant: causes of decline (pesticides, parasites, habitat); bees in general are related.",
        {
            3: [
                "Neonicotinoid pesticides impair foraging and are linked to colony losses.",
                "The varroa mite and the viruses it spreads kill many honeybee colonies.",
            ],
            2: [
                "Loss of wildflower meadows leaves wild bees with less food.",
                "Beekeepers reported heavy winter losses again this year.",
            ],
            1: ["Honeybees communicate through a waggle dance.", "Local honey won the county fair."],
            0: ["The football club signed a new striker.", "The bakery now sells sourdough on Mondays."],
        },
    ),
    (
        "microplastics drinking water",
        "Are there microplastics in drinking water?",
        "Relevant: measurements or health effects of microplastics in drinking water; in the sea only: related.",
        {
            3: [
                "Tests found microplastic particles in most bottled water brands sampled.",
                "Tap water samples from five continents contained plastic fibres.",
            ],
            2: [
                "The WHO says the health risk of microplastics in water is not yet known.",
                "Filters remove most particles larger than a few micrometres.",
            ],
            1: ["Microplastics wash up on beaches worldwide.", "Fish in the North Sea contain plastic."],
            0: ["The city repaved the high street.", "A water polo tournament starts next week."],
        },
    ),
    (
        "remote work productivity",
        "Does working from home change productivity?",
        "Relevant: evidence on productivity of remote work; remote work policies alone are related.",
        {
            3: [
                "A randomised trial at a travel agency found home workers 13% more productive.",
                "Studies of remote programmers show output held steady while meetings grew.",
            ],
            2: [
                "Managers report mixed results from hybrid schedules.",
                "Some firms saw fewer sick days among remote staff.",
            ],
            1: ["The company lets staff work from home two days a week.", "Office rents fell in the city centre."],
            0: ["The garden centre has a spring sale.", "The orchestra announced its new season."],
        },
    ),
    (
        "antibiotic resistance farming",
        "Does antibiotic use in farming cause resistance in humans?",
        "Relevant: links between farm antibiotics and resistant infections in people; resistance in hospitals only: related.",
        {
            3: [
                "Resistant bacteria from pig farms were found in farm workers and their families.",
                "Banning growth-promoting antibiotics in animals cut resistant infections in people.",
            ],
            2: [
                "Most antibiotics sold in some countries go to livestock.",
                "Resistance genes travel from manure into soil and water.",
            ],
            1: ["Hospitals fight resistant infections with stricter hygiene.", "A new antibiotic passed trials."],
            0: ["Milk prices fell for the third month.", "The farm shop opens a cafe."],
        },
    ),
    (
        "urban heat islands",
        "Why are cities warmer than the countryside?",
        "Relevant: causes of urban heat islands; heat waves without cities are related.",
        {
            3: [
                "Asphalt and concrete store the day's heat and release it at night.",
                "Few trees and little evaporation keep city centres warmer than farmland.",
            ],
            2: ["Green roofs lower roof temperatures in summer.", "Air conditioners push heat into city streets."],
            1: ["The heat wave broke records across the region.", "Summers are getting longer."],
            0: ["The city marathon changes its route.", "A bookshop opened near the station."],
        },
    ),
    (
        "language learning age",
        "Do children learn languages more easily than adults?",
        "Relevant: evidence on age and second-language learning; bilingualism in general is related.",
        {
            3: [
                "People who start a second language before ten reach native-like grammar more often.",
                "Adults learn vocabulary faster at first, but early learners overtake them in accent.",
            ],
            2: ["Immersion programmes help learners of all ages.", "A critical period for accent is still debated."],
            1: ["Half the world speaks more than one language.", "The school added Mandarin classes."],
            0: ["The swimming pool reopens after repairs.", "A new bus line serves the airport."],
        },
    ),
]
JUDGED_TOPICS = 8  # the rest are for the people, who join last
DOCUMENTS_PER_TOPIC = 30
DEPTH = 6
#: System -> noise of its scores around the true grade (smaller: better).
SYSTEMS = {"bm25": 1.0, "dense": 0.8, "hybrid": 0.6, "rm3": 1.2, "title-only": 1.8}
#: Simulated assessors: (bias, noise) of the grade they give around the true grade.
ASSESSORS = {"sim-ann": (0.5, 0.4), "sim-ben": (-0.6, 0.4), "sim-cara": (0.0, 1.0), "sim-dev": (0.0, 0.35)}
STRICTNESS = {"sim-ann": "lenient", "sim-ben": "strict", "sim-cara": "noisy", "sim-dev": "careful"}


def documents(number: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """A topic's document collection: (id, text, true grade)."""
    fragments = TOPICS[number][3]
    others = [text for t, (_, _, _, f) in enumerate(TOPICS) if t != number for text in f[0]]
    collection = []
    for index in range(DOCUMENTS_PER_TOPIC):
        grade = rng.choices([3, 2, 1, 0], weights=[1, 2, 3, 8])[0]
        text = rng.choice(fragments[grade]) + " " + rng.choice(others + fragments[0])
        collection.append((f"D{number + 1:02d}{index + 1:02d}", text, grade))
    return collection


def rankings(collections: list[list[tuple[str, str, int]]], rng: random.Random) -> dict[str, dict[str, list]]:
    """Every system's run over every topic: documents by true grade plus the system's noise."""
    runs: dict[str, dict[str, list]] = {}
    for system, noise in SYSTEMS.items():
        for number, collection in enumerate(collections):
            scored = [(doc, round(grade + rng.gauss(0, noise), 4)) for doc, _, grade in collection]
            scored.sort(key=lambda pair: (-pair[1], pair[0]))
            runs.setdefault(system, {})[f"r{number + 1}"] = [list(pair) for pair in scored]
    return runs


def topic_rows(numbers: range, collections, pooled) -> list[dict]:
    rows = []
    for number in numbers:
        qid = f"r{number + 1}"
        title, description, narrative, _ = TOPICS[number]
        text = {doc: body for doc, body, _ in collections[number]}
        docs = [{"id": doc, "text": text[doc], "runs": sorted(pooled[qid][doc])} for doc in sorted(pooled[qid])]
        rows.append(
            {
                "external_id": qid,
                "title": title,
                "data": {"title": title, "description": description, "narrative": narrative, "documents": docs},
            }
        )
    return rows


def simulated_payload(topic_data: dict, truth: dict[str, int], assessor: str, rng: random.Random) -> dict:
    bias, noise = ASSESSORS[assessor]
    return {
        "grades": {
            d["id"]: min(3, max(0, round(truth[d["id"]] + bias + rng.gauss(0, noise)))) for d in topic_data["documents"]
        }
    }


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(2000)  # Voorhees (2000)
    collections = [documents(number, rng) for number in range(len(TOPICS))]
    runs = rankings(collections, rng)
    pooled = pools(runs, DEPTH)
    truth = {doc: grade for collection in collections for doc, _, grade in collection}
    campaign = create_campaign(
        creator=organiser,
        kind="relevance",
        name="TREC-style relevance (demo)",
        guidelines=GUIDELINES,
        overlap=len(ASSESSORS),
        params={"demo": True},
    )
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    judged = import_topics(campaign=campaign, topics=topic_rows(range(JUDGED_TOPICS), collections, pooled))
    for topic in judged:
        for assignment in topic.assignments.select_related("assessor"):
            name = assignment.assessor.username
            if name not in ASSESSORS:
                continue
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload=simulated_payload(topic.data, truth, name, rng),
                status="submitted",
                version=0,
                source="import",
            )
    # The people join last, so the least-loaded rule gives them the new topics.
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    theirs = import_topics(campaign=campaign, topics=topic_rows(range(JUDGED_TOPICS, len(TOPICS)), collections, pooled))
    # Simulated assessors judge the people's topics too, so a person's submission moves
    # the agreement figures at once (there is someone to agree with).
    others = random.Random(2001)
    for topic in theirs:
        for assignment in topic.assignments.select_related("assessor"):
            if assignment.assessor.username in ASSESSORS:
                save_judgment(
                    topic=topic,
                    assessor=assignment.assessor,
                    payload=simulated_payload(topic.data, truth, assignment.assessor.username, others),
                    status="submitted",
                    version=0,
                    source="import",
                )
    import_runs(
        campaign=campaign, runs=[{"name": system, "data": {"ranking": ranking}} for system, ranking in runs.items()]
    )
    return campaign
