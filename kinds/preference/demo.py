"""Demo preference campaign: five chat systems' answers to twenty prompts, judged side by side.

Each system has a hidden strength (Elo-like); simulated assessors prefer the stronger answer with
the Bradley-Terry probability of the gap, call a tie now and then, and one of them favours the
left side (a position bias the report's side term finds). An imported model judge ("judge-llm",
marked model judge) has judged every pair of the first sixteen prompts twice, once in each order,
as MT-Bench's judge is asked, so its leaderboard stands beside the people's and its
self-consistency shows. alice and bob each have prompts of their own waiting, which two simulated
assessors judge too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser

from annotate.imports.write import import_judgments, import_topics
from annotate.models import Campaign, Membership
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member, set_model_judge
from kinds.base import assessor_seed
from kinds.preference.data import pair_ids, positions, sides

#: Each system's hidden strength on the Elo scale.
SYSTEMS = {"atlas-7b": 1260, "borealis-13b": 1130, "cirrus-70b": 1000, "dune-3b": 850, "ember-1b": 690}
GUIDELINES = """Read the prompt, then the two answers A (left) and B (right). Which answers the prompt better?

- **A is better** (**←**) or **B is better** (**→**): the more correct, helpful and clear answer.
- **Tie** (**↓**): about equally good.
- **Both bad** (**x**): neither is acceptable.

The answers come from different systems, shown in a random order: do not guess which is which.
**j** / **k** move between the pairs of a prompt; **Enter** submits once every pair is judged."""
TASKS = [
    "Explain why the sky is blue",
    "Write a haiku about autumn rain",
    "Summarise the causes of the French Revolution",
    "Give three tips for a job interview",
    "What is a prime number",
    "Translate 'good morning' into Spanish and German",
    "Describe how a bicycle gear works",
    "Suggest a name for a bakery",
    "Why do cats purr",
    "Explain compound interest with an example",
    "Write a limerick about a robot",
    "How does a vaccine train the immune system",
    "Plan a three-day trip to Lisbon",
    "What is the difference between weather and climate",
    "Give a recipe for pancakes",
    "Explain recursion to a child",
    "Why is the ocean salty",
    "Write a polite email declining an invitation",
    "What causes the seasons",
    "List the planets in order from the Sun",
]
STYLE = {
    "atlas-7b": "A clear, correct answer with a short example.",
    "borealis-13b": "A correct answer, a little long-winded.",
    "cirrus-70b": "A mostly correct answer that misses one point.",
    "dune-3b": "A vague answer with a small mistake.",
    "ember-1b": "An off-topic answer.",
}
#: (left bias in logits, tie rate) of each simulated assessor, in order.
ASSESSORS = [(0.0, 0.10), (0.0, 0.15), (0.8, 0.05), (0.0, 0.25)]
#: The model judge's own (left bias, tie rate): it favours the answer shown first.
JUDGE = "judge-llm"
JUDGE_STYLE = (0.6, 0.05)
JUDGED_BY_SIMULATED = 16


def prompts(first: int, last: int) -> list[dict]:
    return [
        {
            "external_id": f"p{k + 1:02d}",
            "title": TASKS[k],
            "data": {
                "prompt": f"{TASKS[k]}.",
                "outputs": [{"system": name, "text": f"{STYLE[name]} ({TASKS[k].lower()})"} for name in SYSTEMS],
            },
        }
        for k in range(first, last)
    ]


def choose(left: str, right: str, style: tuple[float, float], rng: random.Random) -> str:
    """A simulated verdict on ``left`` against ``right``: a tie at the style's rate, else the left
    side with the Bradley-Terry probability of the strengths' gap plus the style's left bias."""
    bias, ties = style
    if rng.random() < ties:
        return "tie"
    gap = (SYSTEMS[left] - SYSTEMS[right]) * math.log(10) / 400 + bias
    return "left" if rng.random() < 1 / (1 + math.exp(-gap)) else "right"


def build(
    organiser: AbstractBaseUser, simulated: Sequence[AbstractBaseUser], people: Sequence[AbstractBaseUser]
) -> Campaign:
    rng = random.Random(1952)
    campaign = create_campaign(
        creator=organiser,
        kind="preference",
        name="Chat answers side by side (demo)",
        guidelines=GUIDELINES,
        overlap=len(simulated),
        params={"demo": True, "tie_model": "half", "anchor": "cirrus-70b", "anchor_rating": 1000.0},
    )
    styles = {user.username: ASSESSORS[k % len(ASSESSORS)] for k, user in enumerate(simulated)}
    for user in simulated:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    first = import_topics(campaign=campaign, topics=prompts(0, JUDGED_BY_SIMULATED))
    _judge(first, styles, rng)
    entries = []
    for topic in first:
        systems = [o["system"] for o in topic.data["outputs"]]
        verdicts = []
        for pair in pair_ids(len(systems)):
            low, high = positions(pair)
            for left, right in ((low, high), (high, low)):
                choice = choose(systems[left - 1], systems[right - 1], JUDGE_STYLE, rng)
                verdicts.append({"pair": pair, "left": left, "right": right, "choice": choice})
        entries.append({"assessor": JUDGE, "topic": topic.external_id, "payload": {"verdicts": verdicts}})
    import_judgments(campaign=campaign, entries=entries)
    set_model_judge(campaign=campaign, username=JUDGE, model_judge=True)
    # The people join last, so the least-loaded rule gives them the new prompts (simulated
    # assessors judge them too, so that a person's verdicts move the leaderboard at once).
    for user in people:
        add_member(campaign=campaign, username=user.username, role=Membership.Role.ASSESSOR)
    _judge(import_topics(campaign=campaign, topics=prompts(JUDGED_BY_SIMULATED, len(TASKS))), styles, rng)
    return campaign


def _judge(made, styles: dict, rng: random.Random) -> None:
    for topic in made:
        systems = [o["system"] for o in topic.data["outputs"]]
        for assignment in topic.assignments.select_related("assessor"):
            style = styles.get(assignment.assessor.username)
            if style is None:
                continue  # a person's assignment: theirs to judge
            seed = assessor_seed(assignment.assessor.pk, topic.external_id)
            verdicts = []
            for pair in assignment.items or pair_ids(len(systems)):
                left, right = sides(seed, pair)  # what the judging page would show this assessor
                verdicts.append({"pair": pair, "choice": choose(systems[left - 1], systems[right - 1], style, rng)})
            save_judgment(
                topic=topic,
                assessor=assignment.assessor,
                payload={"verdicts": verdicts},
                status="submitted",
                version=0,
                source="import",
            )
