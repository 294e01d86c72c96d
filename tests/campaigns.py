"""Campaigns the tests build again and again: a pairs campaign's topics, an imported crowd."""

from __future__ import annotations

from annotate.imports.write import import_judgments, import_topics
from annotate.services.campaigns import create_campaign


def pairs_topics(n: int = 3, candidates: int = 4) -> list[dict]:
    return [
        {
            "external_id": f"q{t}",
            "title": f"Query {t}",
            "data": {
                "query": f"Name {t}",
                "candidates": [{"id": f"c{c}", "text": f"Candidate {t}.{c}"} for c in range(1, candidates + 1)],
            },
        }
        for t in range(1, n + 1)
    ]


def imported_crowd(organiser, name: str = "Crowd"):
    """A pairs campaign (overlap 2) of two one-candidate topics judged by an imported
    crowd: ten workers on the first topic, nine on the second (w0..w9)."""
    crowd = create_campaign(creator=organiser, kind="pairs", name=name, overlap=2)
    import_topics(campaign=crowd, topics=pairs_topics(2, candidates=1))
    entries = [
        {"assessor": f"w{w}", "topic": topic.external_id, "payload": {"matches": {"c1": w % 2 == 0}}}
        for topic in crowd.topics.all()
        for w in range(10 if topic.position == 0 else 9)
    ]
    import_judgments(campaign=crowd, entries=entries)
    return crowd
