"""Files of the clustering kind: AIPHES hierarchical-summarisation trees and system clusterings as CSV."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from typing import Any

from annotate.imports.read import check_columns, csv_rows
from concord import reading
from concord.digits import whole_number
from concord.errors import InvalidInput
from concord.params import Int, ParamsSchema, Str


def read_aiphes_topic(
    nuggets: bytes | str, *, topic: str, title: str = "", documents: bytes | str | None = None
) -> dict[str, Any]:
    """An AIPHES hierarchical-summarisation topic as a clustering topic.

    ``nuggets`` is ``Trees/Input/Topic_<id>_*.txt`` (nugget id TAB text TAB
    context...). With ``documents`` (``SourceDocuments/HierarchicalSum_<id>.xml``)
    each nugget is placed in the first source document whose text contains
    it (compared on :func:`match_key`: case, white space, punctuation, quotes
    and tokenisation do not count); otherwise, and for nuggets found nowhere, in
    a document ``unknown``.
    """
    sources = _aiphes_documents(documents) if documents is not None else {}
    sentences = []
    for line, text in reading.numbered(nuggets):
        if not text.strip():
            continue
        fields = text.split("\t")
        if len(fields) < 2 or whole_number(fields[0].strip()) is None:
            raise InvalidInput(f"line {line}", "expected: nugget id (digits 0-9) TAB nugget text")
        nugget, content = fields[0].strip(), fields[1].strip()
        wanted = match_key(content)
        home = next((doc for doc, body in sources.items() if wanted and wanted in body), "unknown")
        sentences.append(
            {"id": nugget, "document": home, "position": whole_number(nugget), "text": content or f"Nugget {nugget}"}
        )
    used = list(dict.fromkeys(s["document"] for s in sentences))
    return {
        "external_id": topic,
        "title": title or f"Topic {topic}",
        "data": {"documents": [{"id": doc} for doc in used], "sentences": sentences},
    }


def _aiphes_documents(raw: bytes | str) -> dict[str, str]:
    """Each ``<document>``'s ``<content>`` texts, keyed as :func:`match_key` compares them."""
    documents: dict[str, str] = {}
    name, contents, inside = None, [], 0
    for event in reading.xml_events(raw, "documents"):
        if event.kind == "start" and event.tag == "document" and name is None:
            name = (event.attributes.get("clueWebID") or f"doc{len(documents) + 1}").replace("/", "-")
            contents = []
        elif event.kind == "start" and event.tag == "content" and name is not None:
            inside += 1
            contents.append([])
        elif event.kind == "text" and inside:
            contents[-1].append(event.text)
        elif event.kind == "end" and event.tag == "content" and inside:
            inside -= 1
        elif event.kind == "end" and event.tag == "document" and name is not None:
            documents[name] = match_key(" ".join("".join(parts) for parts in contents))
            name = None
    return documents


def match_key(text: str) -> str:
    """The form nuggets and source sentences are matched on: lower case, ASCII
    letters and digits only. The nuggets are tokenised (``they 're``, ``is n't``,
    quotes as ``''``) and lost their non-ASCII letters (``Telef nica``), the
    sources are not; dropping white space, punctuation and every non-ASCII
    character makes both sides the same.

    >>> match_key("they 're ``fine'' -- is n't it?") == match_key('They\u2019re "fine" \u2013 isn\u2019t it')
    True
    >>> match_key("Telef nica") == match_key("Telef\u00f3nica")
    True
    """
    return "".join(ch for ch in text.lower() if ch.isascii() and ch.isalnum())


def read_aiphes_tree(raw: bytes | str, *, depth: int = 1) -> list[list[str]]:
    """One annotator's tree as clusters: every bubble at ``depth`` (top-level
    bubbles are depth 1) with all nuggets below it forms a cluster; nuggets in
    shallower bubbles form a cluster per bubble; nuggets outside any bubble
    are left out (irrelevant). Read as it is parsed, nested at most
    ``concord.reading.MAX_XML_DEPTH`` elements deep."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InvalidInput("depth", "expected a whole number >= 1")
    clusters: dict[int, list[str]] = {}
    bubbles = 0
    # Per open element: (its bubble level, the cluster its nuggets join, whether its
    # children count); only bubbles (and the root) have children that count.
    open_elements: list[tuple[int, int | None, bool]] = []
    for event in reading.xml_events(raw):
        if event.kind == "end":
            open_elements.pop()
            continue
        if event.kind != "start":
            continue
        if not open_elements:
            open_elements.append((0, None, True))  # the root
            continue
        level, owner, counts = open_elements[-1]
        if counts and event.tag == "Nugget" and owner is not None:
            clusters.setdefault(owner, []).append(event.attributes.get("id"))
        if counts and event.tag == "Bubble":
            bubbles += 1
            open_elements.append((level + 1, owner if level + 1 > depth else bubbles, True))
        else:
            open_elements.append((level, owner, False))
    return [members for members in clusters.values() if members]


def read_runs_csv(lines: Iterable[str]) -> list[dict[str, Any]]:
    """CSV ``topic,run,sentence,cluster`` -> runs of clusterings (cluster labels are any strings)."""
    reader = csv.DictReader(lines)
    columns = ("topic", "run", "sentence", "cluster")
    check_columns(reader, columns, required=columns)
    runs: dict[str, dict[str, dict[str, list[str]]]] = {}
    for line, row in csv_rows(reader):
        run, topic, sentence, cluster = ((row.get(k) or "").strip() for k in ("run", "topic", "sentence", "cluster"))
        if not run or not topic or not sentence:
            raise InvalidInput(f"line {line}", "topic, run and sentence must not be empty")
        if cluster:
            runs.setdefault(run, {}).setdefault(topic, {}).setdefault(cluster, []).append(sentence)
    return [
        {"name": name, "data": {"clusterings": {t: list(clusters.values()) for t, clusters in topics.items()}}}
        for name, topics in runs.items()
    ]


def placement(data: Mapping[str, Any], *, documents: bool) -> str:
    """What the import says of where the nuggets went: with source documents,
    how many were placed in one and how many were not (document ``unknown``)."""
    if not documents:
        return ""
    sentences = data["data"]["sentences"]
    missing = sum(1 for s in sentences if s["document"] == "unknown")
    return f" {len(sentences) - missing} of {len(sentences)} nuggets placed in their source documents, {missing} not placed."


def annotator_name(filename: str) -> str:
    """An AIPHES tree's annotator from its file name (``..._Anno2.txt.xml`` -> ``annotator2``;
    otherwise the name before its first dot), as the page receives files without their folder.

    >>> annotator_name("Topic_1002_cellphone_Anno2.txt.xml"), annotator_name("Ann B.xml")
    ('annotator2', 'ann-b')
    """
    found = re.search(r"_Anno(\d+)\b", filename)
    if found:
        return f"annotator{found.group(1)}"
    return filename.rsplit("/", 1)[-1].split(".", 1)[0].lower().replace(" ", "-") or "annotator"


def import_aiphes(
    *,
    campaign: Any,
    nuggets: bytes | str,
    trees: list[tuple[str, bytes | str]],
    topic: str,
    title: str = "",
    documents: bytes | str | None = None,
    depth: int = 1,
) -> tuple[dict[str, Any], Any]:
    """An AIPHES topic and each annotator's tree cut at ``depth`` as that
    annotator's clustering, all or nothing (``manage.py import_aiphes`` and the
    uploads page). ``trees`` are (annotator, tree XML). Returns (the topic's
    data, annotate.imports.check.ImportSummary)."""
    from annotate.imports.check import check_judgments, check_topics
    from annotate.imports.write import write_checked

    if not trees:
        raise InvalidInput("trees", "give one tree per annotator")
    data = read_aiphes_topic(nuggets, topic=topic, title=title, documents=documents)
    entries = []
    for annotator, raw in trees:
        try:
            clusters = read_aiphes_tree(raw, depth=depth)
        except InvalidInput as error:
            field = "depth" if error.field == "depth" else f"trees: {annotator}"
            raise InvalidInput(field, error.message) from None
        entries.append({"assessor": annotator, "topic": topic, "payload": {"clusters": clusters}})
    # Checked first, then written in one short transaction.
    topics = check_topics(campaign, [data])
    judgments = check_judgments(campaign=campaign, entries=entries, topics=topics)
    return data, write_checked(topics, judgments=judgments).summary


#: The uploads page's options for AIPHES trees (the command's ``--topic``, ``--title``, ``--depth``).
AIPHES_OPTIONS = ParamsSchema(
    Str("topic", None, help="The topic's id (e.g. 1002)."),
    Str("title", None, max_length=500, help="Its title; empty: 'Topic <id>'."),
    Int("depth", 1, min=1, max=50, help="Cut each tree at this depth (top-level bubbles: 1)."),
)


def upload_aiphes(campaign: Any, files: Mapping[str, list[tuple[str, bytes]]], options: Mapping) -> str:
    """The uploads page's AIPHES trees (``KindSpec.uploads``)."""
    if not options.get("topic"):
        raise InvalidInput("options.topic", "required: the topic's id")
    documents = files.get("documents") or []
    data, summary = import_aiphes(
        campaign=campaign,
        nuggets=files["nuggets"][0][1],
        trees=[(annotator_name(name), raw) for name, raw in files["trees"]],
        topic=options["topic"],
        title=options.get("title") or "",
        documents=documents[0][1] if documents else None,
        depth=options["depth"],
    )
    return (
        f"Imported topic {options['topic']} with {len(data['data']['sentences'])} sentences and "
        f"{summary.judgments} annotators' clusterings (depth {options['depth']})."
        + placement(data, documents=bool(documents))
    )
