"""Template tags of the dashboard's pages."""

from __future__ import annotations

from django import template

from dashboard import selectors

register = template.Library()


@register.simple_tag
def raters_per_topic(campaign) -> selectors.Raters:
    """``{% raters_per_topic campaign as raters %}``: what is true of who judges each topic
    (an imported crowd campaign's observed raters, not the overlap its own assessors get)."""
    return selectors.raters(campaign)
