"""The help served inside Concord: docs/help/*.md (guides) and docs/*.md (reference).

The pages are the repository's own Markdown files, found once at start: the
page names are the files' names, so a URL only ever picks one of them out of
a dictionary (never a path built from the URL). Each page is rendered with
the same Markdown stack as the guidelines (markdown-it-py, raw HTML off, nh3),
its headings given GitHub's anchors (``## Judge by keyboard`` ->
``#judge-by-keyboard``) so that a link works the same on GitHub and in the
app. Relative links between the documents become their /help/ addresses;
images are served from docs/help/img/ and docs/screenshots/ only, again by
name from a list made at start. A link to anything else in the repository
(source files, data) has no address in the app and is shown as plain text.

>>> slug("Judge by keyboard")
'judge-by-keyboard'
>>> slug("Intervals and when to stop (τ, κ)")
'intervals-and-when-to-stop-τ-κ'
>>> slug("`manage.py seed_demo`: the demo")
'managepy-seed_demo-the-demo'
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import nh3
from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

__all__ = ["GUIDES", "IMAGES", "REFERENCES", "HelpPage", "Heading", "page", "slug", "target"]

DOCS_DIR = Path(settings.BASE_DIR) / "docs"
HELP_DIR = DOCS_DIR / "help"
_IMAGE_DIRS = {"img": HELP_DIR / "img", "screenshots": DOCS_DIR / "screenshots"}
_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
_RESERVED = set(_IMAGE_DIRS)


def _markdown_files(folder: Path) -> dict[str, Path]:
    return {p.stem: p for p in sorted(folder.glob("*.md")) if _NAME.fullmatch(p.stem)}


#: Guides (docs/help/*.md) and reference documents (docs/*.md), by page name.
GUIDES = _markdown_files(HELP_DIR)
REFERENCES = {name: path for name, path in _markdown_files(DOCS_DIR).items() if name not in GUIDES}
#: Images by their address under /help/: ``img/<file>`` or ``screenshots/<file>``.
IMAGES = {
    f"{folder}/{p.name}": p
    for folder, directory in _IMAGE_DIRS.items()
    for p in sorted(directory.glob("*.png"))
    if _NAME.fullmatch(p.stem)
}
_SOURCES = {**REFERENCES, **GUIDES}
_BY_PATH = {path.resolve(): name for name, path in _SOURCES.items()}
_IMAGES_BY_PATH = {path.resolve(): address for address, path in IMAGES.items()}
if _RESERVED & _SOURCES.keys():
    raise RuntimeError(f"docs: a page may not be named {sorted(_RESERVED & _SOURCES.keys())}")

_PARSER = MarkdownIt("commonmark", {"html": False}).enable("table")
_TAGS = {
    "p", "br", "hr", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "a", "img",
    "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
_HEADING_ATTRS = {f"h{n}": {"id"} for n in range(1, 7)}
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
    **_HEADING_ATTRS,
}


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    anchor: str


@dataclass(frozen=True)
class HelpPage:
    name: str
    title: str
    html: SafeString
    headings: tuple[Heading, ...]
    guide: bool

    @property
    def url(self) -> str:
        return f"/help/{self.name}/"

    def heading(self, anchor: str) -> Heading | None:
        return next((h for h in self.headings if h.anchor == anchor), None)


def slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _plain(inline) -> str:
    return "".join(child.content for child in inline.children or () if child.type in {"text", "code_inline"})


def _address(href: str, source: Path) -> str | None:
    """Where a link of ``source`` points in the app; None for what the app does not serve."""
    if href.startswith("#") or re.match(r"(https?|mailto):", href):
        return href
    path, _, fragment = href.partition("#")
    if not path or "://" in path or path.startswith("/"):
        return None
    resolved = (source.parent / PurePosixPath(path)).resolve()
    if resolved in _BY_PATH:
        return f"/help/{_BY_PATH[resolved]}/" + (f"#{fragment}" if fragment else "")
    if resolved in _IMAGES_BY_PATH:
        return f"/help/{_IMAGES_BY_PATH[resolved]}"
    return None


def _headings(tokens) -> tuple[Heading, ...]:
    found, seen = [], {}
    for token, inline in zip(tokens, tokens[1:]):
        if token.type != "heading_open":
            continue
        text = _plain(inline)
        anchor = slug(text)
        if anchor in seen:
            seen[anchor] += 1
            anchor = f"{anchor}-{seen[anchor]}"
        else:
            seen[anchor] = 0
        token.attrSet("id", anchor)
        found.append(Heading(int(token.tag[1]), text, anchor))
    return tuple(found)


def _rewrite_links(tokens, source: Path) -> None:
    for token in tokens:
        for child in token.children or ():
            attr = {"link_open": "href", "image": "src"}.get(child.type)
            if attr is None:
                continue
            address = _address(str(child.attrGet(attr) or ""), source)
            if address is None:
                del child.attrs[attr]
            else:
                child.attrSet(attr, address)


def _render(name: str, source: Path) -> HelpPage:
    tokens = _PARSER.parse(source.read_text(encoding="utf-8"))
    headings = _headings(tokens)
    _rewrite_links(tokens, source)
    html = nh3.clean(
        _PARSER.renderer.render(tokens, _PARSER.options, {}),
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    title = next((h.text for h in headings if h.level == 1), name)
    return HelpPage(name, title, mark_safe(html), headings, name in GUIDES)  # noqa: S308 - nh3 has just sanitised it


@functools.cache
def page(name: str) -> HelpPage | None:
    """The page called ``name`` (rendered once), None when there is none."""
    source = _SOURCES.get(name)
    return None if source is None else _render(name, source)


def target(name: str, anchor: str = "") -> tuple[str, str]:
    """The address and the words of a link to ``anchor`` on page ``name``.

    Raises LookupError naming what is missing, so that a template's "?" link
    to a page or a section that does not exist is found by the tests.
    """
    found = page(name)
    if found is None:
        raise LookupError(f"help: no page {name!r} (docs/help/{name}.md or docs/{name}.md)")
    if not anchor:
        return found.url, found.title
    heading = found.heading(anchor)
    if heading is None:
        raise LookupError(f"help: page {name!r} has no heading with the anchor #{anchor}")
    return f"{found.url}#{anchor}", heading.text
