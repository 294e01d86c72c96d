"""Guidelines written in Markdown, shown as sanitised HTML.

markdown-it-py parses CommonMark with raw HTML switched off, and nh3 (the
Ammonia sanitiser) keeps only harmless tags, attributes and URL schemes, so
an organiser's guidelines cannot carry a script, a style, an event handler
or a javascript: link into an assessor's page (strict CSP or not). Core
module (no project imports).

>>> str(render("**Vital**: a fact the answer *must* have.\\n\\n- one\\n- two"))
'<p><strong>Vital</strong>: a fact the answer <em>must</em> have.</p>\\n<ul>\\n<li>one</li>\\n<li>two</li>\\n</ul>\\n'
>>> str(render('<script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>'))
'<p>&lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt;</p>\\n'
>>> str(render("[TREC](https://trec.nist.gov)"))
'<p><a href="https://trec.nist.gov" rel="noopener noreferrer nofollow">TREC</a></p>\\n'
"""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

__all__ = ["render"]

_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")
_TAGS = {
    "p", "br", "hr", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}


def render(text: str) -> SafeString:
    """``text`` (Markdown) as HTML that is safe to put in a page."""
    html = _PARSER.render(text or "")
    return mark_safe(  # noqa: S308 - nh3 has just sanitised it
        nh3.clean(
            html,
            tags=_TAGS,
            attributes=_ATTRIBUTES,
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer nofollow",
        )
    )
