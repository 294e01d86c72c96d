"""Factoid analysis: what the kind's pages read from the database (KindSpec ``JudgePage.context``).

van Halteren & Teufel (factoid-analysis_van-halteren-teufel.txt), section 3.1:
in Phase 2 each annotator sees where their marks differ from the others'
(the discrepancies), never the others' factoids or reasons. Unlike the
reports, which are pure functions of a ``scoring.selectors.ReportInput``,
this reads the topic's judgments and its relations curation when the page
is rendered.
"""

from __future__ import annotations

from typing import Any

from annotate.models import Campaign, Judgment, Topic
from annotate.selectors import curation
from kinds.factoids import stats as m
from kinds.factoids.report import relations_of, summaries_of


def judge_context(campaign: Campaign, topic: Topic, user) -> dict[str, Any]:
    """What the annotation page adds: in Phase 2, the annotator's discrepancies
    with the other annotators (never their factoids or reasons, section 3.1);
    none on the consensus editor (``user`` None: the consensus is nobody's own)."""
    phase = campaign.params.get("phase", 1)
    if phase != 2 or user is None:
        return {"phase": phase, "discrepancies": None}
    mine = topic.judgments.filter(assessor=user).first()
    if mine is None:
        return {"phase": 2, "discrepancies": []}
    me = user.get_username()
    listing = []
    # The others' versions that count (a reopened judgment's submitted one, not the draft on top).
    others = topic.judgments.filter(status__in=Judgment.COUNTING).exclude(assessor=user).select_related("assessor")
    for other in others:
        names = sorted([me, other.assessor.username])
        theirs = other.submitted_payload
        one, two = (mine.payload, theirs) if names[0] == me else (theirs, mine.payload)
        confirmed = curation(topic, "relations")
        relations, _ = relations_of(topic, names[0], names[1], one, two, confirmed.data if confirmed else None)
        mine_side, theirs_side = ("first", "second") if names[0] == me else ("second", "first")
        counterparts = {
            r[mine_side][0]: r[theirs_side][0] for r in relations if len(r["first"]) == len(r["second"]) == 1
        }
        for item in m.discrepancies(mine.payload, theirs, summaries_of(topic), counterparts=counterparts):
            listing.append(
                {
                    "sentence": item.sentence,
                    "factoid": item.factoid,
                    "kind": "you-only" if item.kind == "only_you" else "other-only",
                    "message": item.message,
                }
            )
    return {"phase": 2, "discrepancies": listing}
