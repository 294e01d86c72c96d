"""Graded relevance: grade every pooled document of a query on the campaign's scale.

The TREC setting (Voorhees 2000): a topic is a query (title, description,
narrative) and a pool of documents, usually the union of the top of several
systems' ranked runs; each assessor grades every document of the pool, by
default on TREC's 0-3 scale (non-relevant, related, relevant, highly
relevant).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from concord.params import Int, ListOf, ParamsSchema, Str
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    control_params,
    demo_param,
    design_param,
    interval_params,
    listing,
    require_at_most,
    require_id,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)

#: TREC's graded scale; a grade is the position of its label.
DEFAULT_SCALE = ["non-relevant", "related", "relevant", "highly relevant"]
DEFAULT_THRESHOLD = 1
#: Number keys 0-9 set the grades on the judging page.
MAX_GRADES = 10
#: Entries of one topic's ranking in a run (TREC runs go 1,000 deep).
MAX_RANKING = 100_000


class RelevanceParams(ParamsSchema):
    """The campaign params, plus the one check across them: the threshold is a grade of the scale."""

    def clean(
        self, value: Any, field: str = "params", *, current: Mapping[str, Any] | None = None, internal: bool = False
    ) -> dict[str, Any]:
        cleaned = super().clean(value, field, current=current, internal=internal)
        top = len(cleaned["scale"]) - 1
        if cleaned["threshold"] > top:
            raise InvalidInput(
                f"{field}.threshold", f"expected a grade of the scale, from 1 to {top}, got {cleaned['threshold']}"
            )
        return cleaned


def scale_of(params: Mapping[str, Any] | None) -> list[str]:
    """The grade labels of a campaign (grade = position)."""
    return list((params or {}).get("scale") or DEFAULT_SCALE)


def threshold_of(params: Mapping[str, Any] | None) -> int:
    return int((params or {}).get("threshold") or DEFAULT_THRESHOLD)


class RelevanceKind(Kind):
    name = "relevance"
    label = "Graded relevance"
    description = "Grade each pooled document of a query on a relevance scale (TREC-style)."
    #: Which systems retrieved a document: knowing it would bias the grade.
    hidden_fields = ("documents[].runs",)
    #: Ten thousand pooled documents per query (the top 100 of 100 runs, all different).
    limits = Limits(
        {"data.documents": 10_000, "data.documents[].runs": 1000, "payload.grades": 10_000},
        payload_bytes=2 * 2**20,
    )
    params_schema = RelevanceParams(
        ListOf(
            "scale",
            Str("label", max_length=60),
            DEFAULT_SCALE,
            min_items=2,
            max_items=MAX_GRADES,
            unique=True,
            label="Grades",
            help="The grade labels, lowest first: a document's grade is the position of its label (0, 1, ...). "
            "Default: TREC's 0-3.",
        ),
        Int(
            "threshold",
            DEFAULT_THRESHOLD,
            min=1,
            max=MAX_GRADES - 1,
            label="Relevant from grade",
            help="The lowest grade counted relevant (overlap of relevant sets, P@10, MAP, bpref; "
            "trec_eval's -l); nDCG uses the grades themselves.",
        ),
        design_param("Graded relevance", splittable=True),
        *interval_params(ranking=True),
        *control_params(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(
            data, field, allowed={"title", "description", "narrative", "documents"}, required={"title", "documents"}
        )
        cleaned: dict[str, Any] = {"title": require_text(data["title"], f"{field}.title")}
        for key in ("description", "narrative"):
            if key in data:
                cleaned[key] = require_text(data[key], f"{field}.{key}")
        documents = require_list(
            data["documents"], f"{field}.documents", min_length=1, max_length=self.limits["data.documents"]
        )
        rows = []
        for index, document in enumerate(documents):
            path = f"{field}.documents[{index}]"
            require_object(document, path, allowed={"id", "text", "runs"}, required={"id", "text"})
            entry: dict[str, Any] = {"id": document["id"], "text": require_text(document["text"], f"{path}.text")}
            if "runs" in document:
                runs = require_list(document["runs"], f"{path}.runs", max_length=self.limits["data.documents[].runs"])
                entry["runs"] = [require_id(run, f"{path}.runs[{i}]") for i, run in enumerate(runs)]
            rows.append(entry)
        unique_ids(rows, f"{field}.documents")
        cleaned["documents"] = rows
        return cleaned

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"grades"}, required={"grades"})
        grades = payload["grades"]
        if not isinstance(grades, dict):
            raise InvalidInput("payload.grades", f"expected an object of document id -> grade, got {type_name(grades)}")
        require_at_most(grades, "payload.grades", self.limits["payload.grades"])
        every = [d["id"] for d in topic_data["documents"]]
        scope = (params or {}).get("scope")
        assigned = set(scope) if scope is not None else set()
        known = every if scope is None else [d for d in every if d in assigned]
        known_set = set(known)
        scale = scale_of(params)
        for document, grade in grades.items():
            if document not in known_set:
                problem = (
                    "not assigned to you" if scope is not None and document in set(every) else "unknown document id"
                )
                raise InvalidInput(f"payload.grades.{document}", problem)
            if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade < len(scale):
                shown = (
                    grade
                    if isinstance(grade, (int, float)) and not isinstance(grade, bool) and math.isfinite(grade)
                    else type_name(grade)
                )
                raise InvalidInput(
                    f"payload.grades.{document}",
                    f"expected a grade, a whole number from 0 to {len(scale) - 1} "
                    f"({', '.join(f'{g} {label}' for g, label in enumerate(scale))}), got {shown}",
                )
        if complete:
            missing = [d for d in known if d not in grades]
            if missing:
                raise InvalidInput("payload.grades", f"{len(missing)} document(s) not graded: {listing(missing)}")
        # Topic order, so stored payloads are canonical.
        return {"grades": {d: grades[d] for d in known if d in grades}}

    def scoped(self, topic_data: Mapping[str, Any], items: list[str] | None) -> Mapping[str, Any]:
        if items is None:
            return topic_data
        wanted = set(items)
        return {**topic_data, "documents": [d for d in topic_data["documents"] if d["id"] in wanted]}

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The documents of the assessor view, flaggable one by one."""
        return [(d["id"], d["text"][:80]) for d in view["documents"]]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The query and the assessor's documents, without the runs that retrieved them."""
        scoped = self.scoped(topic_data, items)
        view = {key: scoped[key] for key in ("title", "description", "narrative") if key in scoped}
        view["documents"] = [{"id": d["id"], "text": d["text"]} for d in scoped["documents"]]
        return view

    def items(self, topic_data: Mapping[str, Any]) -> list[str]:
        return [d["id"] for d in topic_data["documents"]]

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A system's ranked run, ``{"ranking": {topic id: [[document id, score], ...]}}``.

        Documents outside the topic's pool are kept (trec_eval counts them
        non-relevant, bpref unjudged); the order given is kept, but the
        evaluation ranks by score as trec_eval does."""
        require_object(data, field, allowed={"ranking"}, required={"ranking"})
        ranking = data["ranking"]
        if not isinstance(ranking, dict) or not ranking:
            raise InvalidInput(
                f"{field}.ranking",
                "expected an object of topic id -> [[document id, score], ...], with at least one topic",
            )
        cleaned = {}
        for topic, rows in ranking.items():
            path = f"{field}.ranking.{topic}"
            if topic not in topics:
                raise InvalidInput(path, "unknown topic")
            require_list(rows, path, min_length=1)
            if len(rows) > MAX_RANKING:
                raise InvalidInput(path, f"more than {MAX_RANKING} documents")
            seen: set[str] = set()
            entries = []
            for index, row in enumerate(rows):
                if not isinstance(row, list) or len(row) != 2:
                    raise InvalidInput(f"{path}[{index}]", "expected [document id, score]")
                document = require_id(row[0], f"{path}[{index}][0]")
                score = row[1]
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise InvalidInput(
                        f"{path}[{index}][1]", f"expected a score (a finite number), got {type_name(score)}"
                    )
                if document in seen:
                    raise InvalidInput(f"{path}[{index}][0]", f"document {document!r} appears twice in this topic")
                seen.add(document)
                entries.append([document, score])
            cleaned[topic] = entries
        return {"ranking": cleaned}

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return len(payload.get("grades", {})), len(topic_data["documents"])

    # -- control items (annotate/controls.py) -------------------------------------------

    def control_labels(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Each document's grade."""
        return dict(payload.get("grades", {}))

    def clean_control_answer(
        self, value: Any, topic_data: Mapping[str, Any], item: str, params: Mapping[str, Any], *, field: str
    ) -> Any:
        """A grade of the campaign's scale: its number (0 the lowest; ``"2"`` as a file's cell
        writes it) or its label (``"relevant"``), stored as the number."""
        if item not in {document["id"] for document in topic_data["documents"]}:
            raise InvalidInput(field, f"no document {item!r} in the topic")
        scale = scale_of(params)
        if isinstance(value, str) and value.strip() in scale:
            return scale.index(value.strip())
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(scale):
            return value
        grades = ", ".join(f"{grade} {label}" for grade, label in enumerate(scale))
        raise InvalidInput(field, f"{value!r} is not a grade of the scale ({grades})")

    def control_credit(self, known: Any, given: Any, params: Mapping[str, Any]) -> float:
        """A near miss earns part credit: one minus the distance between the grades over the
        scale's width (stats.quality.credits, linear), as the grades are ordered."""
        top = len(scale_of(params)) - 1
        if not all(isinstance(g, int) and not isinstance(g, bool) for g in (known, given)):
            return 0.0
        return max(0.0, 1.0 - abs(given - known) / top)

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"grades": {}}


def judge_context(campaign: Any, topic: Any, user: Any) -> dict[str, Any]:
    """The judging page's grade buttons and keys: the campaign's scale."""
    return {"scale": scale_of(campaign.params)}
