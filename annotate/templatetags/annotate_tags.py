"""Template helpers of the generic pages."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from annotate.navigation import SECTIONS
from concord import markdown
from kinds.registry import get_kind

register = template.Library()


@register.filter
def guidelines(text: str) -> SafeString:
    """A campaign's guidelines (Markdown), sanitised (concord/markdown.py)."""
    return markdown.render(text)


@register.filter
def duration_ms(ms: int | None) -> str:
    """Milliseconds as people read a duration: "45 s", "4 min 05 s", "2 h 03 min".

    >>> duration_ms(45_400), duration_ms(245_000), duration_ms(7_380_000), duration_ms(0)
    ('45 s', '4 min 05 s', '2 h 03 min', '0 s')
    """
    if ms is None:
        return ""
    seconds = round(ms / 1000)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@register.filter
def id_texts(items, more=None) -> dict[str, str]:
    """``[{"id": "c1", "text": "Jon Smith"}, ...]`` (and ``more`` such rows) as
    ``{"c1": "Jon Smith"}``, texts cut to 80 characters: the labels a kind's judging
    page gives the conflict box (``json_script:"item-labels"``, read by
    static/annotate/judge.js) so that ``matches.c1`` reads with its text.

    >>> id_texts({"rows": [{"id": "r1", "text": "born 1950"}]}, "rows,absent")
    {'r1': 'born 1950'}
    >>> id_texts([{"id": "c1", "text": "Jon Smith"}, {"id": "c2"}], [{"id": "r1", "text": "x" * 90}])
    {'c1': 'Jon Smith', 'r1': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'}
    """
    if isinstance(items, dict) and isinstance(more, str):
        # ``view|id_texts:"key,other"``: rows under those keys of a view, absent keys skipped
        # (a filter's argument that does not resolve is an error in Django templates, not "").
        rows = [row for key in more.split(",") for row in items.get(key.strip()) or []]
        return id_texts(rows)
    labels: dict[str, str] = {}
    for row in [*(items or []), *(more or [])]:
        if isinstance(row, dict) and isinstance(row.get("id"), str) and isinstance(row.get("text"), str):
            text = " ".join(row["text"].split())
            labels[row["id"]] = text if len(text) <= 80 else text[:79] + "…"
    return labels


@register.simple_tag
def campaign_sections() -> dict[str, str]:
    """The campaign page's sections (``?section=`` name -> label), for the section bar on every organiser page."""
    return SECTIONS


@register.filter
def takes_controls(campaign) -> bool:
    """Whether the campaign's kind takes control items (the section bar's Controls link)."""
    return get_kind(campaign.kind).data.takes_controls
