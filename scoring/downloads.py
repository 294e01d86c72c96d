"""Build an export as an HTTP download (shared by the API and the page), and the export
page's catalogue: every file on offer, grouped by what it is (gold standards, scores,
judgments), each named by scoring.filenames.download_name."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.http import HttpResponse

from annotate.models import Campaign
from concord.errors import InvalidInput
from concord.jsonsafe import encodable
from kinds.registry import get_kind
from kinds.spec import EXPORT_GROUPS, ExportFile, Exports
from scoring.filenames import attach, download_name
from scoring.selectors import submitted_judgments


def file_name(campaign: Campaign, exports: Exports, described: ExportFile, *, format: str, truth: str) -> str:
    """The download's name: campaign, what it is, the truth set where it changes the file, the format."""
    return download_name(
        campaign,
        described.what,
        truth=truth if described.by_truth else "",
        extension=exports.formats[format].extension,
    )


def export_file(campaign: Campaign, *, format: str, truth: str) -> HttpResponse:
    exports = get_kind(campaign.kind).exports
    if format not in exports.formats:
        raise InvalidInput("format", f"unknown format {format!r} (known: {', '.join(exports.formats)})")
    chosen = exports.formats[format]
    topics = list(campaign.topics.order_by("position", "id"))
    content = exports.write(campaign, topics, submitted_judgments(campaign), format=format, truth=truth)
    described = exports.describe(format, truth)
    if described is None:  # the writer refuses every pair describe refuses (tests/kinds/test_contract.py)
        raise InvalidInput("format", f"{truth} does not come as {format}")
    # encodable: a lone surrogate stored before it could be refused becomes U+FFFD, not a 500.
    response = HttpResponse(
        encodable(content) if isinstance(content, str) else content,
        content_type=f"{chosen.content_type}; charset=utf-8",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return attach(response, file_name(campaign, exports, described, format=format, truth=truth))


@dataclass(frozen=True)
class Download:
    """One file of the export page whose name does not depend on a truth set chosen."""

    format: str
    truth: str
    name: str


@dataclass(frozen=True)
class FormatChoice:
    """A format of a group's form and, for example, the name its file gets with the group's first truth set."""

    format: str
    example: str


@dataclass
class ExportGroup:
    """One section of the export page: a form (a truth set and a format) for the files that
    depend on the truth set, and links to those that do not."""

    key: str
    title: str
    truths: list[str] = field(default_factory=list)
    formats: list[FormatChoice] = field(default_factory=list)
    files: list[Download] = field(default_factory=list)


def export_groups(campaign: Campaign) -> tuple[list[ExportGroup], str]:
    """Every download of ``campaign`` on offer, by group (EXPORT_GROUPS' order, empty ones left
    out), and the kind's help."""
    exports = get_kind(campaign.kind).exports
    assessors = sorted({row.assessor for row in submitted_judgments(campaign)})
    groups = {key: ExportGroup(key, title) for key, title in EXPORT_GROUPS.items()}
    seen: set[str] = set()
    for truth in [*exports.truths(assessors), *exports.tables]:
        for format in exports.formats:
            described = exports.describe(format, truth)
            if described is None:
                continue
            group = groups[described.group]
            if described.by_truth:
                if truth not in group.truths:
                    group.truths.append(truth)
                if format not in [f.format for f in group.formats]:
                    example = file_name(campaign, exports, described, format=format, truth=group.truths[0])
                    group.formats.append(FormatChoice(format, example))
                continue
            name = file_name(campaign, exports, described, format=format, truth=truth)
            if name not in seen:
                seen.add(name)
                group.files.append(Download(format, truth, name))
    return [g for g in groups.values() if g.truths or g.files], exports.help
