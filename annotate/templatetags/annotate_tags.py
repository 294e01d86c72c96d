"""Template helpers of the generic pages."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from concord import markdown

register = template.Library()


@register.filter
def guidelines(text: str) -> SafeString:
    """A campaign's guidelines (Markdown), sanitised (concord/markdown.py)."""
    return markdown.render(text)
