"""Files of the ordering kind: system orderings as CSV and the SQuALITY human evaluation."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

from annotate.imports.read import CrowdFile, CrowdLabel, check_columns, csv_rows, parse_json
from concord import reading
from concord.errors import InvalidInput


def read_runs_csv(lines: Iterable[str]) -> list[dict[str, Any]]:
    """CSV ``topic,run,order`` (the item ids separated by spaces) -> runs of orderings."""
    reader = csv.DictReader(lines)
    if not {"topic", "run", "order"} <= set(reader.fieldnames or []):
        raise InvalidInput("file", "expected the CSV header topic,run,order")
    check_columns(reader, ("topic", "run", "order"))
    runs: dict[str, dict[str, list[str]]] = {}
    for line, row in csv_rows(reader):
        run, topic = (row["run"] or "").strip(), (row["topic"] or "").strip()
        if not run or not topic:
            raise InvalidInput(f"line {line}", "topic and run must not be empty")
        if topic in runs.setdefault(run, {}):
            raise InvalidInput(f"line {line}", f"run {run!r} orders topic {topic!r} twice")
        runs[run][topic] = (row["order"] or "").split()
    return [{"name": name, "data": {"orderings": orderings}} for name, orderings in runs.items()]


SQUALITY_RANKS = ("overall", "correctness", "selection")


def read_squality(raw: bytes | str, *, rank: str = "overall", params: Any = None) -> CrowdFile:
    """SQuALITY human evaluation (``all-responses.jsonl``): for each question,
    each reviewer's rank of the answers becomes an ordering (best first).

    A topic per question (``<passage-id>-q<n>``) with the answers as items
    (ids: the system names); reviewers become assessors ``reviewer-<id>``.
    """
    if rank not in SQUALITY_RANKS:
        raise InvalidInput("rank", f"expected one of {', '.join(SQUALITY_RANKS)}")
    result = CrowdFile()
    for line, text in reading.numbered(raw):
        if not text.strip():
            continue
        passage = parse_json(text, f"line {line}")
        try:
            questions = passage["questions"]
            passage_id = str(passage["passage-id"])
        except (KeyError, TypeError) as error:
            raise InvalidInput(f"line {line}", f"not a SQuALITY passage ({error})") from None
        if not isinstance(questions, dict):
            raise InvalidInput(f"line {line}", "questions: expected an object of question -> answers")
        for number, answers in questions.items():
            if not isinstance(answers, dict) or not all(
                isinstance(a, dict) and isinstance(a.get("response"), str) and isinstance(a.get("reviews"), list)
                for a in answers.values()
            ):
                raise InvalidInput(f"line {line}", f"question {number}: expected answers with a response and reviews")
            topic = f"{passage_id}-q{number}"
            result.topics.append(
                {
                    "external_id": topic,
                    "title": f"Passage {passage_id}, question {number}",
                    "data": {"items": [{"id": system, "text": a["response"]} for system, a in answers.items()]},
                }
            )
            for system, answer in answers.items():
                for review in answer["reviews"]:
                    if not isinstance(review, dict) or "worker_id" not in review or f"{rank}-rank" not in review:
                        raise InvalidInput(
                            f"line {line}", f"question {number}: a review without worker_id or {rank}-rank"
                        )
                    worker = f"reviewer-{review['worker_id']}"
                    result.labels.append(CrowdLabel(worker, topic, system, review[f"{rank}-rank"], line))
    if not result.labels:
        raise InvalidInput("file", "no rows: no passage with reviews")
    return result
