"""Sentence clustering: group the sentences of a document set by topic,
leaving irrelevant sentences out, and rank the clusters by importance.

Geiss, "Creating a Gold Standard for Sentence Clustering in Multi-Document
Summarization" (sentence-clustering-gold-standard_geiss.txt), section 4.1:
the nine rules and the recommended procedure; rules 3 and 4 (at least two
sentences, from at least two documents) are checked here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from concord.params import Choice, ParamsSchema
from kinds.base import (
    InvalidInput,
    Kind,
    Limits,
    clean_per_topic,
    demo_param,
    design_param,
    interval_params,
    listing,
    require_list,
    require_object,
    require_text,
    type_name,
    unique_ids,
)

#: Campaign ``params["rules"]``: "warn" (default) lets a judgment that breaks
#: rules 3 and 4 be submitted with a warning; "block" refuses it.
RULE_MODES = ("warn", "block")

GUIDELINES = """Cluster the sentences of the documents so that each cluster could be summed up in one sentence.

1. Each cluster should contain only one topic.
2. In an ideal cluster the sentences are very similar.
3. The information in one cluster should come from as many different documents as possible. The more different sources the better. Clusters of sentences from only one document are not allowed.
4. There must be at least two sentences in a cluster, and more than two if possible.
5. Differences in numbers in the same cluster are allowed (e.g. vagueness in numbers (300,000 - 350,000), update (two killed - four dead)).
6. Break off very similar sentences from one cluster into their own subcluster, if you feel the cluster is not homogeneous.
7. Do not use too much inference.
8. Partial overlap: if a sentence has parts that fit in two clusters, put the sentence in the more important cluster.
9. Generalisation is allowed, as long as the sentences are about the same person, fact or event.

Procedure: read all documents. Start clustering from the first sentence in the list; put every sentence that you think will attract other sentences into an initial cluster, and put aside sentences that will find no similar ones. You can rearrange your clusters at any point. When finished, check that all important information is covered, look again at the sentences in no cluster, make sure every cluster has a one-line description and sentences from more than one document, and rank the clusters by importance (most important first).

(Geiss, section 4.1.)"""


class ClusteringKind(Kind):
    name = "clustering"
    label = "Sentence clustering"
    description = "Group the sentences of a document set into clusters; leave irrelevant ones out."
    hidden_fields = ()
    #: Ten thousand sentences of a thousand documents (Geiss's sets: 150 to 200 sentences of 5 to 15
    #: documents); a cluster holds one sentence at least, so there are no more clusters than sentences.
    limits = Limits(
        {
            "data.documents": 1000,
            "data.sentences": 10_000,
            "payload.clusters": 10_000,
            "payload.clusters[]": 10_000,
            "payload.descriptions": 10_000,
        },
        payload_bytes=4 * 2**20,
    )
    #: Campaign params: ``rules`` (see RULE_MODES).
    params_schema = ParamsSchema(
        Choice(
            "rules",
            "warn",
            RULE_MODES,
            label="Submissions that break the clustering rules",
            help=(
                "warn: a submission breaking Geiss's rules 3 and 4 is flagged and let through; block: it is refused."
            ),
        ),
        design_param("Sentence clustering", splittable=False),
        *interval_params(),
        demo_param(),
    )

    def clean_topic_data(self, data: Any, *, field: str = "data") -> dict[str, Any]:
        require_object(data, field, allowed={"documents", "sentences"}, required={"documents", "sentences"})
        documents = require_list(
            data["documents"], f"{field}.documents", min_length=1, max_length=self.limits["data.documents"]
        )
        cleaned_documents = []
        for index, document in enumerate(documents):
            path = f"{field}.documents[{index}]"
            require_object(document, path, allowed={"id", "title"}, required={"id"})
            entry = {"id": document["id"]}
            if "title" in document:
                entry["title"] = require_text(document["title"], f"{path}.title", allow_empty=True, max_length=500)
            cleaned_documents.append(entry)
        document_ids = set(unique_ids(cleaned_documents, f"{field}.documents"))
        sentences = require_list(
            data["sentences"], f"{field}.sentences", min_length=2, max_length=self.limits["data.sentences"]
        )
        cleaned = []
        for index, sentence in enumerate(sentences):
            path = f"{field}.sentences[{index}]"
            require_object(
                sentence,
                path,
                allowed={"id", "document", "position", "text"},
                required={"id", "document", "position", "text"},
            )
            if not isinstance(sentence["document"], str) or sentence["document"] not in document_ids:
                raise InvalidInput(f"{path}.document", f"unknown document {sentence['document']!r}")
            position = sentence["position"]
            if isinstance(position, bool) or not isinstance(position, int) or position < 0:
                raise InvalidInput(f"{path}.position", "expected a whole number >= 0")
            cleaned.append(
                {
                    "id": sentence["id"],
                    "document": sentence["document"],
                    "position": position,
                    "text": require_text(sentence["text"], f"{path}.text"),
                }
            )
        unique_ids(cleaned, f"{field}.sentences")
        rank = {d["id"]: index for index, d in enumerate(cleaned_documents)}
        cleaned.sort(key=lambda s: (rank[s["document"]], s["position"]))
        return {"documents": cleaned_documents, "sentences": cleaned}

    def clean_payload(
        self, payload: Any, topic_data: Mapping[str, Any], *, complete: bool, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        require_object(payload, "payload", allowed={"clusters", "descriptions"}, required={"clusters"})
        clusters = require_list(payload["clusters"], "payload.clusters", max_length=self.limits["payload.clusters"])
        known = {s["id"] for s in topic_data["sentences"]}
        seen: Counter[str] = Counter()
        cleaned = []
        for index, cluster in enumerate(clusters):
            path = f"payload.clusters[{index}]"
            require_list(cluster, path, min_length=1, max_length=self.limits["payload.clusters[]"])
            for position, sentence in enumerate(cluster):
                if not isinstance(sentence, str):
                    raise InvalidInput(f"{path}[{position}]", f"expected a sentence id, got {type_name(sentence)}")
            unknown = [s for s in cluster if s not in known]
            if unknown:
                raise InvalidInput(path, f"unknown sentence id(s): {listing(unknown)}")
            seen.update(cluster)
            cleaned.append(list(cluster))
        repeated = [s for s, count in seen.items() if count > 1]
        if repeated:
            raise InvalidInput(
                "payload.clusters", f"sentence(s) in more than one cluster (or twice in one): {listing(repeated)}"
            )
        descriptions = payload.get("descriptions", [""] * len(cleaned))
        require_list(descriptions, "payload.descriptions", max_length=self.limits["payload.descriptions"])
        if len(descriptions) != len(cleaned):
            raise InvalidInput(
                "payload.descriptions",
                f"expected one description per cluster ({len(cleaned)}), got {len(descriptions)}",
            )
        descriptions = [
            require_text(d, f"payload.descriptions[{i}]", allow_empty=True, max_length=500)
            for i, d in enumerate(descriptions)
        ]
        if complete:
            if not cleaned:
                raise InvalidInput("payload.clusters", "a submission needs at least one cluster")
            if (params or {}).get("rules", "warn") == "block":
                problems = rule_violations(cleaned, topic_data)
                if problems:
                    first = problems[0]
                    raise InvalidInput(f"payload.clusters[{first['cluster']}]", first["message"])
        return {"clusters": cleaned, "descriptions": descriptions}

    def flag_targets(self, view: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The sentences of the assessor view, flaggable one by one."""
        return [(s["id"], s["text"]) for s in view["sentences"]]

    def assessor_view(self, topic_data: Mapping[str, Any], items: list[str] | None = None) -> dict[str, Any]:
        """The documents and their sentences: nothing of a clustering topic is hidden."""
        scoped = self.scoped(topic_data, items)
        return {
            "documents": [{key: d[key] for key in ("id", "title") if key in d} for d in scoped["documents"]],
            "sentences": [{key: s[key] for key in ("id", "document", "position", "text")} for s in scoped["sentences"]],
        }

    def progress(self, payload: Mapping[str, Any], topic_data: Mapping[str, Any]) -> tuple[int, int]:
        return sum(len(c) for c in payload.get("clusters", [])), len(topic_data["sentences"])

    def empty_payload(self, topic_data: Mapping[str, Any]) -> dict[str, Any]:
        return {"clusters": [], "descriptions": []}

    def clean_run_data(self, data: Any, topics: Mapping[str, Mapping[str, Any]], *, field: str) -> dict[str, Any]:
        """A system clustering: ``{"clusterings": {topic: [[sentence ids], ...]}}``."""

        def clean(clusters: Any, topic: Mapping[str, Any], path: str) -> list[list[str]]:
            try:
                return self.clean_payload({"clusters": clusters}, topic, complete=False)["clusters"]
            except InvalidInput as error:
                raise InvalidInput(f"{path}{error.field.removeprefix('payload.clusters')}", error.message) from None

        return clean_per_topic(data, topics, field=field, key="clusterings", clean=clean)


def rule_violations(clusters: list[list[str]], topic_data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Clusters that break rule 4 (two or more sentences) or rule 3 (two or more documents)."""
    document = {s["id"]: s["document"] for s in topic_data["sentences"]}
    problems = []
    for index, cluster in enumerate(clusters):
        if len(cluster) < 2:
            problems.append(
                {
                    "cluster": index,
                    "rule": 4,
                    "message": f"cluster {index + 1} has one sentence; a cluster needs at least two (rule 4)",
                }
            )
        elif len({document[s] for s in cluster}) < 2:
            problems.append(
                {
                    "cluster": index,
                    "rule": 3,
                    "message": f"cluster {index + 1} has sentences from one document only; it needs two or more documents (rule 3)",
                }
            )
    return problems
