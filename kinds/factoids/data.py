"""Factoid analysis: define factoids and mark which summary sentences contain each.

van Halteren & Teufel, "Evaluating information content by factoid analysis:
human annotation and stability" (factoid-analysis_van-halteren-teufel.txt):
each annotator builds their own factoid inventory (own ids, short texts,
split when a summary holds only part of a factoid) and marks the factoids of
every summary sentence (section 3); Phase 1 is independent, in Phase 2 each
annotator sees a list of discrepancies with the others and may correct slips
(section 3.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from concord.params import Choice, Int, ParamsSchema, Str
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    demo_param,
    design_param,
    interval_params,
    listing,
    require_at_most,
    require_id,
    require_ids,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)


def sentence_ids(topic_data: Mapping[str, Any]) -> list[str]:
    return [s["id"] for summary in topic_data["summaries"] for s in summary["sentences"]]


class FactoidsKind(Kind):
    name = "factoids"
    label = "Factoid analysis"
    description = "Define factoids and mark which summary sentences contain each."
    #: Who wrote a summary, or which system: only model / machine is shown.
    hidden_fields = ("summaries[].author", "summaries[].run")
    #: A hundred summaries of up to 200 sentences, and an inventory of 2,000 factoids (van Halteren
    #: & Teufel annotated 50 model and 16 machine summaries of one text; Phase 1 had 153 factoids).
    limits = Limits(
        {
            "data.summaries": 100,
            "data.summaries[].sentences": 200,
            "payload.factoids": 2000,
            "payload.marks": 20_000,
            "payload.marks.*": 2000,
        },
        payload_bytes=4 * 2**20,
    )
    #: Campaign params: ``phase`` and ``phase2_started_at`` are set only by
    #: annotate.services.start_phase_two (Phase 1 is never skipped); ``annotation_unit``
    #: the annotation kappa's unit (report.annotation_unit), summary when absent.
    params_schema = ParamsSchema(
        Int(
            "phase",
            min=1,
            max=2,
            internal=True,
            help="Phase 1 (independent) or 2 (discrepancies shown); the organiser starts Phase 2 on the campaign page.",
        ),
        Str("phase2_started_at", max_length=40, internal=True, help="When Phase 2 started (ISO 8601)."),
        Choice(
            "annotation_unit",
            None,
            ("summary", "sentence"),
            label="Agreement counted per",
            help="The items of the factoid annotation kappa: summary (factoid-summary combinations, as van "
            "Halteren & Teufel 2004 section 3.1 count them; the default when absent) or sentence "
            "(factoid-sentence combinations).",
        ),
        design_param("Factoid analysis", splittable=False),
        *interval_params(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"text", "summaries"}, required={"summaries"})
        summaries = require_list(
            data["summaries"], f"{field}.summaries", min_length=1, max_length=self.limits["data.summaries"]
        )
        cleaned = []
        for index, summary in enumerate(summaries):
            path = f"{field}.summaries[{index}]"
            require_object(summary, path, allowed={"id", "author", "run", "sentences"}, required={"id", "sentences"})
            if ("author" in summary) == ("run" in summary):
                raise InvalidInput(path, "give either author (a model summary by a person) or run (a machine summary)")
            source = "author" if "author" in summary else "run"
            sentences = require_list(
                summary["sentences"],
                f"{path}.sentences",
                min_length=1,
                max_length=self.limits["data.summaries[].sentences"],
            )
            rows = []
            for position, sentence in enumerate(sentences):
                spath = f"{path}.sentences[{position}]"
                require_object(sentence, spath, allowed={"id", "text"}, required={"id", "text"})
                rows.append({"id": sentence["id"], "text": require_text(sentence["text"], f"{spath}.text")})
            cleaned.append(
                {"id": summary["id"], source: require_id(summary[source], f"{path}.{source}"), "sentences": rows}
            )
        unique_ids(cleaned, f"{field}.summaries")
        unique_ids([s for summary in cleaned for s in summary["sentences"]], f"{field}.sentences (all summaries)")
        result: dict[str, Any] = {"summaries": cleaned}
        if "text" in data:
            result["text"] = require_text(data["text"], f"{field}.text", allow_empty=True, max_length=1_000_000)
        return result

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"factoids", "marks"}, required={"factoids", "marks"})
        factoids = require_list(payload["factoids"], "payload.factoids", max_length=self.limits["payload.factoids"])
        cleaned = []
        for index, factoid in enumerate(factoids):
            path = f"payload.factoids[{index}]"
            require_object(factoid, path, allowed={"id", "text"}, required={"id", "text"})
            cleaned.append(
                {"id": factoid["id"], "text": require_text(factoid["text"], f"{path}.text", max_length=1000)}
            )
        own = set(unique_ids(cleaned, "payload.factoids"))
        marks = payload["marks"]
        if not isinstance(marks, dict):
            raise InvalidInput(
                "payload.marks", f"expected an object of sentence id -> [factoid ids], got {type_name(marks)}"
            )
        require_at_most(marks, "payload.marks", self.limits["payload.marks"])
        order = sentence_ids(topic_data)
        known = set(order)
        for sentence, found in marks.items():
            if sentence not in known:
                raise InvalidInput(f"payload.marks.{sentence}", "unknown sentence id")
            require_ids(found, f"payload.marks.{sentence}", max_length=self.limits["payload.marks.*"])
            foreign = [f for f in found if f not in own]
            if foreign:
                raise InvalidInput(
                    f"payload.marks.{sentence}", f"not factoids of your inventory: {listing(map(str, foreign))}"
                )
            if len(set(found)) != len(found):
                raise InvalidInput(f"payload.marks.{sentence}", "a factoid is listed twice")
        if complete and not cleaned:
            raise InvalidInput("payload.factoids", "a submission needs at least one factoid")
        # Each factoid's place in the inventory, looked up once per mark: sorting by
        # list.index instead cost a scan of the inventory per mark (20,000 factoids: 6 s).
        position = {f["id"]: index for index, f in enumerate(cleaned)}
        return {
            "factoids": cleaned,
            "marks": {s: sorted(marks[s], key=position.__getitem__) for s in order if marks.get(s)},
        }

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The summary sentences of the assessor view, flaggable one by one."""
        return [(x["id"], x["text"]) for s in view["summaries"] for x in s["sentences"]]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The summaries' ids and sentences, and whether each is a model
        (``"model": true``, by a person) or a machine summary: never the
        author or the run."""
        scoped = self.scoped(topic_data, items)
        view: dict[str, Any] = {
            "summaries": [
                {
                    "id": s["id"],
                    "model": "author" in s,
                    "sentences": [{"id": x["id"], "text": x["text"]} for x in s["sentences"]],
                }
                for s in scoped["summaries"]
            ]
        }
        if "text" in scoped:
            view["text"] = scoped["text"]
        return view

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return len(payload.get("marks", {})), len(sentence_ids(topic_data))

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"factoids": [], "marks": {}}
