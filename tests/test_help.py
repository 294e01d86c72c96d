"""/help/ (concord/help.py): the guides and reference documents, their links and anchors,
and the "?" links of the templates ({% help_link %}), which must all reach a heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.template import TemplateSyntaxError, engines

from concord import help as docs

ROOT = Path(__file__).resolve().parents[1]
ALL_PAGES = [*docs.GUIDES, *docs.REFERENCES]
HELP_LINK = re.compile(r"{%\s*help_link\s+'([^']*)'(?:\s+'([^']*)')?\s*%}")


def template_files() -> list[Path]:
    folders = [ROOT / "templates", *ROOT.glob("*/templates"), *ROOT.glob("kinds/*/templates")]
    return sorted(p for folder in folders for p in folder.rglob("*.html"))


def test_the_guides_and_references_are_found():
    assert {"organiser", "assessor", "adjudicator", "admin", "glossary"} <= docs.GUIDES.keys()
    assert {"formats", "api", "methods", "operations", "security", "benchmarks", "architecture"} <= set(docs.REFERENCES)


@pytest.mark.parametrize("name", ALL_PAGES)
def test_every_link_and_image_of_a_page_reaches_something(name):
    """A link between the documents reaches a page and, with an anchor, one of its headings;
    an image is one the app serves. A link that loses its address must not point into docs/."""
    page = docs.page(name)
    for href in re.findall(r'href="([^"]*)"', page.html):
        if href.startswith("/help/"):
            target, _, anchor = href.removeprefix("/help/").partition("#")
            target = target.rstrip("/")
            if "." in target:  # an image or screenshot linked as a file
                assert target in docs.IMAGES, href
                continue
            assert docs.page(target) is not None, href
            assert not anchor or docs.page(target).heading(anchor), f"{name}: {href} has no such heading"
        elif href.startswith("#"):
            assert page.heading(href[1:]), f"{name}: {href} has no such heading"
        else:
            assert href.startswith(("http://", "https://", "mailto:")), href
    for src in re.findall(r"<img[^>]*>", page.html):
        assert re.search(r'src="/help/(img|screenshots)/[a-z0-9-]+\.png"', src), f"{name}: {src}"
    source = (docs.GUIDES | docs.REFERENCES)[name].read_text()
    for path in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", source):
        resolved = ((docs.GUIDES | docs.REFERENCES)[name].parent / path).resolve()
        assert resolved.parent != docs.DOCS_DIR.resolve() or resolved.stem in docs.REFERENCES, (name, path)


def test_headings_get_githubs_anchors_and_a_table_of_contents(client):
    answer = client.get("/help/assessor/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert '<h2 id="judge-by-keyboard">Judge by keyboard</h2>' in html
    assert '<a href="#lost-connection-or-signed-out">Lost connection or signed out</a>' in html
    assert 'src="/help/img/judge.png"' in html
    assert 'href="/help/api/#judgment-states"' in html


def test_the_index_lists_every_page_to_anyone(client):
    """Open to anyone (concord/help_views.py says why): the login page's visitors need it most."""
    html = client.get("/help/").content.decode()
    for name in ALL_PAGES:
        assert f'href="/help/{name}/"' in html, name


@pytest.mark.parametrize(
    "url",
    ["/help/nothing/", "/help/..%2Fsettings/", "/help/img/nothing.png", "/help/img/..%2F..%2Fmanage.py",
     "/help/screenshots/..%2F..%2FREADME.md", "/help/img/judge.md"],
)  # fmt: skip
def test_only_the_listed_pages_and_images_are_served(client, url):
    assert client.get(url).status_code == 404


def test_an_image_is_served_as_a_png(client):
    address = next(iter(docs.IMAGES))
    answer = client.get(f"/help/{address}")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/png"
    assert b"".join(answer.streaming_content).startswith(b"\x89PNG")


def test_the_page_is_read_only(client):
    assert client.post("/help/assessor/").status_code == 405


def test_help_link_renders_an_accessible_question_mark():
    html = engines["django"].from_string("{% load help %}{% help_link 'assessor' 'judge-by-keyboard' %}").render({})
    assert (
        html
        == '<a href="/help/assessor/#judge-by-keyboard" class="help-link" aria-label="Help: Judge by keyboard">?</a>'
    )


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("{% help_link 'nowhere' %}", "no page 'nowhere'"),
        ("{% help_link 'assessor' 'no-such-heading' %}", "no heading with the anchor #no-such-heading"),
        ("{% help_link page %}", "as quoted strings"),
    ],
)
def test_help_link_to_nowhere_fails_the_template(tag, message):
    with pytest.raises(TemplateSyntaxError, match=message):
        engines["django"].from_string("{% load help %}" + tag)


def test_outside_strict_mode_a_broken_link_falls_back_to_the_index(settings):
    settings.CONCORD_HELP_STRICT = False
    html = engines["django"].from_string("{% load help %}{% help_link 'assessor' 'gone' %}").render({})
    assert 'href="/help/"' in html


def test_every_help_link_in_the_templates_reaches_a_heading():
    """Each template that uses {% help_link %} compiles (the tag checks its target then),
    and the links are there where the guides say (the judging page's keys, ...)."""
    used = {}
    for path in template_files():
        text = path.read_text()
        for page, anchor in HELP_LINK.findall(text):
            used[(page, anchor)] = path.name
            docs.target(page, anchor)
        if "help_link" in text:
            engines["django"].engine.from_string(text)
    assert {
        ("assessor", "judge-by-keyboard"),
        ("adjudicator", "settle-a-disputed-topic"),
        ("admin", "export-the-gold-standard"),
        ("organiser", "add-assessors"),
        ("adjudicator", "edit-a-gold-standard"),
        ("adjudicator", "find-the-disputed-topics"),
        ("methods", "intervals-and-when-to-stop"),
        ("formats", "import-formats"),
    } <= used.keys()


def test_every_relative_link_of_the_readme_reaches_a_file_and_heading():
    """The README is the front door: each of its links to docs/ and data/ leads somewhere."""
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    assert len(links) >= 10
    for link in links:
        if link.startswith(("http://", "https://")):
            continue
        path, _, anchor = link.partition("#")
        assert (ROOT / path).exists(), link
        if anchor:
            name = Path(path).stem
            assert docs.page(name) is not None and docs.page(name).heading(anchor), link
