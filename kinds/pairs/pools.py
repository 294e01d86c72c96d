"""Adjudication pools from systems' results (Arehart, Wolf & Miller 2008, section 2.2):
the pairs kind's ``KindSpec.pools``, behind ``POST .../pools/`` and ``manage.py build_pools``."""

from __future__ import annotations

from typing import Any

from annotate.imports.check import check_runs, check_topics
from annotate.imports.write import write_checked
from annotate.models import Campaign, Topic
from concord.errors import InvalidInput
from kinds.base import require_id, require_list, require_object, require_text
from kinds.pairs.data import PairsKind


def _normalised(name: str) -> str:
    return " ".join(name.casefold().split())


def build_pools(*, campaign: Campaign, queries: Any, runs: Any, depth: int | None = None) -> list[Topic]:
    """Adjudication pools from systems' results (Arehart et al., section 2.2), all or nothing.

    ``queries`` maps each query id to its text; ``runs`` are pairs runs
    (``{"name", "data": {"results": {query: [{"id", "text", "score"?}]}}}``,
    best first). Each query's pool is the union of the systems' results,
    each system's cut to its first ``depth`` when given; exact string matches
    of the query (ignoring case and spacing) are left out; every candidate
    keeps the systems that returned it (``runs``). The runs are stored too,
    to be scored against the adjudicated pools, without the queries whose
    pool came out empty (they have no topic, so nothing of theirs is scored).
    """
    if not isinstance(queries, dict) or not queries:
        raise InvalidInput("queries", "expected an object of query id -> query text")
    for query, text in queries.items():
        require_id(query, f"queries.{query}")
        require_text(text, f"queries.{query}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise InvalidInput("depth", "expected a whole number >= 1, or nothing for whole result lists")
    require_list(runs, "runs", min_length=1)
    kind = PairsKind()
    pools: dict[str, dict[str, dict[str, Any]]] = {query: {} for query in queries}
    # The topics-to-be, so each run's results are checked against the queries.
    planned = {query: {"query": text, "candidates": []} for query, text in queries.items()}
    for index, run in enumerate(runs):
        require_object(run, f"runs[{index}]", allowed={"name", "data"}, required={"name", "data"})
        name = require_id(run["name"], f"runs[{index}].name")
        data = kind.clean_run_data(run["data"], planned, field=f"runs[{index}].data")
        for query, results in data.get("results", {}).items():
            if query not in queries:
                raise InvalidInput(f"runs[{index}].data.results.{query}", "not one of the queries")
            for result in results[:depth]:
                if _normalised(result["text"]) == _normalised(queries[query]):
                    continue
                entry = pools[query].setdefault(result["id"], {"id": result["id"], "text": result["text"], "runs": []})
                if name not in entry["runs"]:
                    entry["runs"].append(name)
    topics = [
        {"external_id": query, "title": text, "data": {"query": text, "candidates": list(pools[query].values())}}
        for query, text in queries.items()
        if pools[query]
    ]
    checked = check_topics(campaign, topics)
    pooled = {topic["external_id"] for topic in topics}
    stored = [
        {**run, "data": {**run["data"], "results": {q: r for q, r in run["data"]["results"].items() if q in pooled}}}
        if "results" in run["data"]
        else run
        for run in runs
    ]
    # Checked first, then written in one short transaction.
    return write_checked(checked, runs=check_runs(campaign, stored, topics=checked)).topics
