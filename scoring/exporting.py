"""Build an export as an HTTP download (shared by the API and the page)."""

from __future__ import annotations

from django.http import HttpResponse

from annotate.kinds import InvalidInput
from annotate.models import Campaign
from concord.jsonsafe import encodable
from scoring.reports import report_module
from scoring.selectors import submitted_judgments


def export_file(campaign: Campaign, *, format: str, truth: str) -> HttpResponse:
    module = report_module(campaign.kind)
    if format not in module.EXPORTS:
        raise InvalidInput("format", f"unknown format {format!r} (known: {', '.join(module.EXPORTS)})")
    content_type, extension = module.EXPORTS[format]
    topics = list(campaign.topics.order_by("position", "id"))
    content = module.export(campaign, topics, submitted_judgments(campaign), format=format, truth=truth)
    safe_truth = "".join(ch if ch.isalnum() else "-" for ch in truth)
    # encodable: a lone surrogate stored before it could be refused becomes U+FFFD, not a 500.
    response = HttpResponse(encodable(content) if isinstance(content, str) else content,
                            content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="campaign-{campaign.pk}-{safe_truth}.{extension}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


def export_choices(campaign: Campaign) -> tuple[list[str], list[str], str]:
    """The formats and gold standards an export of ``campaign`` can take, and what they mean."""
    module = report_module(campaign.kind)
    assessors = sorted({row.assessor for row in submitted_judgments(campaign)})
    return list(module.EXPORTS), module.truths(assessors), module.EXPORT_HELP
