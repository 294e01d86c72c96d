"""The import wizard keeps what the organiser chose or typed through a refusal
(annotate/imports/views.py ``_kept_fields``, templates/annotate/import_preview.html): after a
refused preview or import the page shows the form again with the columns mapped, the value
meaning a match, the scale, the model-judge ticks and every other value as they were left, read
here from the page's own form as a browser would send it, and the file stays staged, so that
Preview again (or Import) needs no new upload."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports import wizard
from annotate.models import Judgment
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/import/"


class FormValues(HTMLParser):
    """What the form ``#import-confirm`` sends (as a browser would, with none of its buttons):
    name -> values, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.select: str | None = None
        self.values: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == "import-confirm"
        if not self.inside:
            return
        name = attrs.get("name")
        if tag == "input" and name and name != "csrfmiddlewaretoken":
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in attrs:
                return
            self.values.setdefault(name, []).append(attrs.get("value", ""))
        elif tag == "textarea" and name:
            self.values.setdefault(name, []).append("")
            self.select = f"textarea:{name}"
        elif tag == "select":
            self.select = name
        elif tag == "option" and self.select and "selected" in attrs:
            self.values.setdefault(self.select, []).append(attrs.get("value", ""))

    def handle_data(self, data):
        if self.select and self.select.startswith("textarea:"):
            self.values[self.select.removeprefix("textarea:")][-1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        if tag in ("select", "textarea"):
            self.select = None


def form(page) -> dict[str, list[str]]:
    parser = FormValues()
    parser.feed(page.content.decode())
    return parser.values


def sent(values: dict[str, list[str]], **more: str) -> dict[str, list[str]]:
    """The form's values, and ``more`` (a box ticked, the button pressed), as the test client posts them."""
    return {**values, **{name: [value] for name, value in more.items()}}


def test_the_columns_mapped_and_the_match_value_survive_an_error(organiser, people):
    """Mapped, then refused (alice is an account, not mapped onto the campaign's assessors): the
    page keeps the mapping and the value typed, the file staged; ticking the box reads it."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    add_member(campaign=campaign, username="alice", role="assessor")
    raw = b"who,what,answer\nalice,i1,agree\nw2,i1,disagree\n"
    page = organiser.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile("crowd.csv", raw)})
    assert page.status_code == 400 and page.context["mapping"]  # the columns to map

    typed = {"map.worker": "who", "map.item": "what", "map.label": "answer", "positive": "agree"}
    page = organiser.post(url(campaign), {"step": "again", **typed})
    assert page.status_code == 400
    assert (page.context["error"].field, "is an existing account" in page.context["error"].message) == (
        "line 2",
        True,
    )
    values = form(page)
    assert {name: values.get(name) for name in typed} == {name: [value] for name, value in typed.items()}
    assert "map_members" not in values  # the box, unticked, is on the page to tick
    assert b'id="import-map-members"' in page.content

    # The form as the page has it, the box ticked: Preview again, with no new upload.
    again = organiser.post(url(campaign), sent(values, map_members="true", step="again"))
    assert again.status_code == 200, again.context.get("error")
    assert dict(again.context["preview"].counts)["judgments"] == 2
    assert {name: form(again).get(name) for name in typed} == {name: [value] for name, value in typed.items()}
    done = organiser.post(url(campaign), sent(form(again), step="confirm"))
    assert done.status_code == 302, done.context["error"]
    assert Judgment.objects.get(assessor__username="alice").payload == {"matches": {"item": True}}


def test_a_refused_import_keeps_every_value_and_the_file(organiser, people, monkeypatch):
    """Import refused as it writes (a judgment saved meanwhile, say): the page shows the form as it
    was sent, the file still staged, and the next Import goes through."""
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)
    raw = b"who,what,answer\nw1,i1,agree\nw2,i1,disagree\nw1,i2,disagree\n"
    organiser.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile("crowd.csv", raw)})
    typed = {"map.worker": "who", "map.item": "what", "map.label": "answer", "positive": "agree"}
    page = organiser.post(url(campaign), {"step": "again", **typed, "model_judge": "w2"})
    assert page.status_code == 200, page.context.get("error")
    values = form(page)
    assert values["model_judge"] == ["w2"]

    def refused(prepared):
        raise InvalidInput("file", "the campaign changed while the file was being checked")

    real = wizard.write
    monkeypatch.setattr(wizard, "write", refused)
    page = organiser.post(url(campaign), sent(values, step="confirm"))
    assert page.status_code == 400 and "changed while" in page.context["error"].message
    kept = form(page)
    assert {name: kept.get(name) for name in [*typed, "model_judge"]} == {
        **{name: [value] for name, value in typed.items()},
        "model_judge": ["w2"],
    }
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()

    monkeypatch.setattr(wizard, "write", real)
    done = organiser.post(url(campaign), sent(kept, step="confirm"))
    assert done.status_code == 302, done.context["error"]
    assert Judgment.objects.filter(topic__campaign=campaign).count() == 3
    assert Judgment.objects.get(assessor__username="w1", topic__external_id="i1").payload == {"matches": {"item": True}}


def test_a_rating_tables_scale_and_model_judges_survive_a_layout_error(organiser, people):
    """A column chosen that the file lacks: the layout is shown to correct, with the scale typed
    and the model judge ticked (its box is not on the page before the raters are read: kept
    hidden), and the corrected form imports them."""
    campaign = create_campaign(creator=people["organiser"], kind="labels", name="Scores", overlap=1)
    raw = b"item,r1,r2\ni1,1,2\ni2,3,0\n"
    organiser.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile("scores.csv", raw)})
    scale = {
        "scale.level": "ordinal",
        "scale.categories": "0\n1\n2\n3",
        "scale.minimum": "",
        "scale.maximum": "",
        "scale.step": "",
        "scale.cant_tell": "",
    }
    page = organiser.post(url(campaign), {"step": "again", "col.item": "9", "model_judge": "r2", **scale})
    assert page.status_code == 400 and page.context["error"].field == "col.item"
    values = form(page)
    assert values["model_judge"] == ["r2"]
    assert values["scale.level"] == ["ordinal"] and values["scale.categories"][0].split() == ["0", "1", "2", "3"]

    values["col.item"] = ["1"]
    page = organiser.post(url(campaign), sent(values, step="again"))
    assert page.status_code == 200, page.context.get("error")
    assert page.context["table"].scale_text == "ordinal: 0 < 1 < 2 < 3"
    assert form(page)["model_judge"] == ["r2"]
    done = organiser.post(url(campaign), sent(form(page), step="confirm"))
    assert done.status_code == 302, done.context["error"]
    assert campaign.memberships.get(user__username="r2").model_judge
