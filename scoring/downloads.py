"""Build an export as an HTTP download (shared by the API and the page)."""

from __future__ import annotations

from django.http import HttpResponse

from annotate.models import Campaign
from concord.errors import InvalidInput
from concord.jsonsafe import encodable
from kinds.registry import get_kind
from scoring.selectors import submitted_judgments


def export_file(campaign: Campaign, *, format: str, truth: str) -> HttpResponse:
    exports = get_kind(campaign.kind).exports
    if format not in exports.formats:
        raise InvalidInput("format", f"unknown format {format!r} (known: {', '.join(exports.formats)})")
    chosen = exports.formats[format]
    topics = list(campaign.topics.order_by("position", "id"))
    content = exports.write(campaign, topics, submitted_judgments(campaign), format=format, truth=truth)
    safe_truth = "".join(ch if ch.isalnum() else "-" for ch in truth)
    # encodable: a lone surrogate stored before it could be refused becomes U+FFFD, not a 500.
    response = HttpResponse(
        encodable(content) if isinstance(content, str) else content,
        content_type=f"{chosen.content_type}; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-{safe_truth}.{chosen.extension}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def export_choices(campaign: Campaign) -> tuple[list[str], list[str], str]:
    """The formats and gold standards an export of ``campaign`` can take, and what they mean."""
    exports = get_kind(campaign.kind).exports
    assessors = sorted({row.assessor for row in submitted_judgments(campaign)})
    return list(exports.formats), exports.truths(assessors), exports.help
