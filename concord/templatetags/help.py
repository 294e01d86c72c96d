"""``{% help_link 'page' 'anchor' %}``: the small "?" link to a section of the help.

The target is checked when the template is compiled (concord.help.target):
with ``CONCORD_HELP_STRICT`` (the tests, and DEBUG) a page or anchor that does
not exist is a TemplateSyntaxError naming it, so a renamed heading breaks a
test rather than a link; in production such a link falls back to the help
index and is logged, never a 500.
"""

from __future__ import annotations

import logging

from django import template
from django.conf import settings
from django.utils.html import format_html

from concord import help as docs

register = template.Library()
logger = logging.getLogger(__name__)


class HelpLink(template.Node):
    def __init__(self, href: str, words: str) -> None:
        self.href, self.words = href, words

    def render(self, context) -> str:
        return format_html('<a href="{}" class="help-link" aria-label="Help: {}">?</a>', self.href, self.words)


@register.tag("help_link")
def help_link(parser, token) -> HelpLink:
    """``{% help_link 'assessor' 'judge-by-keyboard' %}``: literal strings only, checked at compile time."""
    bits = token.split_contents()[1:]
    if not 1 <= len(bits) <= 2 or any(b[:1] not in "'\"" or b[-1:] != b[:1] or len(b) < 2 for b in bits):
        raise template.TemplateSyntaxError("help_link takes a page and an optional anchor, as quoted strings")
    name, anchor = (b[1:-1] for b in (*bits, "''")[:2])
    return HelpLink(*link_target(name, anchor))


def link_target(name: str, anchor: str = "") -> tuple[str, str]:
    """The address and words of a "?" link to ``anchor`` on help page ``name``
    (concord.help.target): a missing one is a TemplateSyntaxError under
    ``CONCORD_HELP_STRICT``, else the help index, logged. For a link whose section is
    known only when the page renders (a kind's headline figure: scoring_tags ``plain``)."""
    try:
        return docs.target(name, anchor)
    except LookupError as exc:
        if getattr(settings, "CONCORD_HELP_STRICT", settings.DEBUG):
            raise template.TemplateSyntaxError(str(exc)) from exc
        logger.warning("%s", exc)
        return "/help/", "Concord's help"
