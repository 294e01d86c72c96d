"""Model judges declared in the import wizard (annotate/imports/wizard.py ``model_judges``,
annotate/imports/write.py): a box per rater of the file on the preview, carried through the
confirmation with the staged file, every name checked to be a rater of the file (else 400 naming
the field, the preview shown again and nothing written), and the raters ticked marked model
judges in the import's last transaction, all or nothing. A wide table imported with one column
ticked: the people's figures leave it out and the labels report tests it against them."""

from __future__ import annotations

import html

import krippendorff
import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from annotate.imports import fence, wizard
from annotate.imports.write import write_checked
from annotate.models import Assignment, Campaign, Judgment, Membership, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.labels.tests.test_judges import reference_alt_test
from scoring import services as scoring_services
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db
User = get_user_model()

CATEGORIES = ["red", "green", "blue"]
PEOPLE = ["ann", "ben", "cat", "dan"]
JUDGE = "gpt-judge"
ITEMS = 40  # every person is tested by the alternative annotator test (30 items at least)


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/import/"


def new(people, kind="labels", **params):
    return create_campaign(creator=people["organiser"], kind=kind, name="Judged", overlap=1, params=params)


def stored(campaign) -> tuple:
    campaign = Campaign.objects.get(pk=campaign.pk)
    return (
        Topic.objects.filter(campaign=campaign).count(),
        Judgment.objects.filter(topic__campaign=campaign).count(),
        Assignment.objects.filter(topic__campaign=campaign).count(),
        Membership.objects.filter(campaign=campaign).count(),
        Membership.objects.filter(campaign=campaign, model_judge=True).count(),
        User.objects.count(),
        campaign.params,
    )


def flagged(campaign) -> set[str]:
    return set(Membership.objects.filter(campaign=campaign, model_judge=True).values_list("user__username", flat=True))


def wide_table(seed: int = 5) -> tuple[bytes, np.ndarray, np.ndarray]:
    """A row per item, a column per assessor: four people right 70% of the time, the judge 90%.
    Returns the CSV and the codes (items x people, and the judge's per item)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(CATEGORIES), ITEMS)

    def rater(accuracy: float) -> np.ndarray:
        return np.where(rng.random(ITEMS) < accuracy, truth, rng.integers(0, len(CATEGORIES), ITEMS))

    people = np.column_stack([rater(0.7) for _ in PEOPLE])
    judge = rater(0.9)
    lines = [",".join(["item", *PEOPLE[:2], JUDGE, *PEOPLE[2:]])]
    for i in range(ITEMS):
        codes = [*people[i, :2], judge[i], *people[i, 2:]]
        lines.append(",".join([f"i{i + 1}", *(CATEGORIES[c] for c in codes)]))
    return ("\n".join(lines) + "\n").encode(), people, judge


def preview(client, campaign, name: str, raw: bytes, **fields):
    return client.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile(name, raw), **fields})


def test_a_wide_table_with_its_judge_column_ticked(organiser, people):
    """The column ticked is imported as a model judge: flagged with its judgments, left out of
    the people's figures (alpha over the four people), tested against them in the report."""
    campaign = new(people, categories=CATEGORIES)
    raw, humans, judge = wide_table()
    page = preview(organiser, campaign, "ratings.csv", raw)
    assert page.status_code == 200, page.context.get("error")
    assert page.context["table"].raters == ("ann", "ben", JUDGE, "cat", "dan")
    shown = page.content.decode()
    for name in ("ann", JUDGE, "dan"):
        assert f'<input type="checkbox" name="model_judge" value="{name}"' in shown
    assert f"{JUDGE} is a model judge</label>" in shown and 'name="model_judge.more"' not in shown

    # Ticked, the box stays ticked when the preview is read again; nothing is written until Import.
    before = stored(campaign)
    again = organiser.post(url(campaign), {"step": "again", "model_judge": JUDGE})
    assert again.status_code == 200, again.context.get("error")
    assert f'value="{JUDGE}" aria-describedby="import-model-judges-help" checked>' in again.content.decode()
    assert 'value="ann" aria-describedby="import-model-judges-help">' in again.content.decode()
    assert stored(campaign) == before

    done = organiser.post(url(campaign), {"step": "confirm", "model_judge": JUDGE}, follow=True)
    assert done.redirect_chain[-1][1] == 302
    assert "marked model judge: gpt-judge" in done.content.decode()
    assert flagged(campaign) == {JUDGE}
    assert Membership.objects.get(campaign=campaign, user__username=JUDGE).imported is True
    assert Judgment.objects.filter(topic__campaign=campaign, assessor__username=JUDGE).count() == 2  # two batches

    scoring_services.recompute_reports(campaign.pk, everything=True)
    data = campaign_report(campaign).data
    assert data.names == PEOPLE  # the people's figures leave the judge out
    alpha = krippendorff.alpha(reliability_data=humans.T.astype(float), level_of_measurement="nominal")
    assert data.alpha.value == pytest.approx(alpha, abs=1e-9)
    [found] = data.model_judges
    assert (found.judge, found.labelled, found.people_count) == (JUDGE, ITEMS, len(PEOPLE))
    people_found, omega, rho = reference_alt_test(humans.astype(float), judge.astype(float), epsilon=0.2)
    test = found.alt_test
    assert [p.person for p in test.persons] == PEOPLE and test.tested == len(PEOPLE)
    assert [p.wins for p in test.persons] == [p["wins"] for p in people_found]
    assert test.winning_rate == pytest.approx(omega, abs=1e-12)
    assert test.average_advantage.value == pytest.approx(rho, abs=1e-12)
    assert test.state == ("passes" if omega >= 0.5 else "fails") == "passes"
    report = organiser.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'id="model-judges"' in report and "Passes the alternative annotator test" in report


def test_a_name_that_is_not_a_rater_of_the_file_is_refused(organiser, people):
    """400 naming the field, the preview shown again with the box as sent, nothing written; the
    file stays staged, so the organiser corrects the names and imports."""
    campaign = new(people, categories=CATEGORIES)
    add_member(campaign=campaign, username="alice", role="assessor")  # a member, not a rater of the file
    raw, _, _ = wide_table()
    assert preview(organiser, campaign, "ratings.csv", raw).status_code == 200
    before = stored(campaign)
    for fields, field, name in (
        ({"model_judge": "nobody"}, "model_judge", "nobody"),
        ({"model_judge": [JUDGE, "alice"]}, "model_judge", "alice"),
        ({"model_judge.more": f"{JUDGE}, organiser"}, "model_judge.more", "organiser"),
        ({"model_judge": "Gpt-Judge"}, "model_judge", "Gpt-Judge"),  # names are compared as they are
    ):
        for step in ("again", "confirm"):
            refused = organiser.post(url(campaign), {"step": step, **fields})
            assert refused.status_code == 400, (step, fields)
            text = html.unescape(refused.content.decode())
            assert f"Nothing imported: {field}: {name!r} is not a rater of this file (its raters: ann, ben, " in text
            assert refused.context["preview"] is not None  # the preview again, to correct
            assert stored(campaign) == before
    done = organiser.post(url(campaign), {"step": "confirm", "model_judge.more": f" {JUDGE},{JUDGE} "})
    assert done.status_code == 302
    assert flagged(campaign) == {JUDGE}


def test_a_name_refused_at_the_first_preview_keeps_the_file(organiser, people):
    campaign = new(people, categories=CATEGORIES)
    raw, _, _ = wide_table()
    before = stored(campaign)
    refused = preview(organiser, campaign, "ratings.csv", raw, model_judge="nobody")
    assert refused.status_code == 400 and refused.context["error"].field == "model_judge"
    assert stored(campaign) == before
    assert organiser.post(url(campaign), {"step": "confirm", "model_judge": "ann"}).status_code == 302
    assert flagged(campaign) == {"ann"}


@pytest.mark.parametrize(
    "fields",
    [
        {"model_judge": ""},
        {"model_judge": " "},
        {"model_judge": "ann\x00"},
        {"model_judge": "x" * 100_000},
        {"model_judge": "ann\nben"},
        {"model_judge": ["ann"] * 2 + ["nobody"]},
        {"model_judge.more": "ann;ben"},
        {"model_judge.more": "é" * 50_000},
        {"model_judge.more": "\x00"},
        {"model_judges": "ann"},  # a misspelt field
        {"model_judge.shown": "1"},
    ],
)
def test_bad_names_are_a_400_and_write_nothing(organiser, people, fields):
    campaign = new(people, categories=CATEGORIES)
    raw, _, _ = wide_table()
    assert preview(organiser, campaign, "ratings.csv", raw).status_code == 200
    before = stored(campaign)
    refused = organiser.post(url(campaign), {"step": "confirm", **fields})
    assert refused.status_code == 400
    if "\x00" not in "".join(str(v) for v in fields.values()):  # refused before the view (concord/security.py)
        assert refused.context["error"].field in ("model_judge", "model_judge.more", *fields)
    assert stored(campaign) == before


def test_a_table_of_counts_has_no_rater_to_name(organiser, people):
    campaign = new(people)
    counts = b"patient,a,b\n1,2,1\n2,0,3\n3,1,2\n4,3,0\n"
    page = preview(organiser, campaign, "counts.csv", counts)
    assert page.status_code == 200 and page.context["table"].anonymous
    assert 'name="model_judge"' not in page.content.decode()  # no box for an anonymous slot
    slot = page.context["table"].raters[0]
    before = stored(campaign)
    refused = organiser.post(url(campaign), {"step": "confirm", "model_judge": slot})
    assert refused.status_code == 400
    text = html.unescape(refused.content.decode())
    assert "model_judge: a table of counts names no raters (its labels are anonymous rating slots)" in text
    assert stored(campaign) == before


def test_a_pairs_crowd_table_s_workers_have_boxes_too(organiser, people):
    campaign = new(people, kind="pairs")
    crowd = b"worker,item,label\nw1,i1,yes\nw2,i1,no\nllm,i1,yes\nw1,i2,no\nllm,i2,no\n"
    page = preview(organiser, campaign, "crowd.csv", crowd)
    assert page.status_code == 200 and page.context["preview"].raters == ("w1", "w2", "llm")
    assert '<input type="checkbox" name="model_judge" value="llm"' in page.content.decode()
    assert organiser.post(url(campaign), {"step": "confirm", "model_judge": "llm"}).status_code == 302
    assert flagged(campaign) == {"llm"}
    assert Judgment.objects.filter(topic__campaign=campaign, assessor__username="llm").count() == 2


def test_a_mapped_assessor_may_be_marked_too(organiser, people):
    """A rater who is an assessor of the campaign (map_members) is a rater of the file."""
    campaign = new(people, kind="pairs")
    add_member(campaign=campaign, username="bob", role="assessor")
    crowd = b"worker,item,label\nbob,i1,yes\nw2,i1,no\n"
    assert preview(organiser, campaign, "crowd.csv", crowd, map_members="true").status_code == 200
    done = organiser.post(url(campaign), {"step": "confirm", "map_members": "true", "model_judge": "bob"})
    assert done.status_code == 302
    assert flagged(campaign) == {"bob"}


def test_more_raters_than_listed_are_named_in_the_text_field(organiser, people, monkeypatch):
    monkeypatch.setattr(wizard, "SHOWN_RATERS", 3)
    campaign = new(people, categories=CATEGORIES)
    raw, _, _ = wide_table()
    page = preview(organiser, campaign, "ratings.csv", raw)
    shown = page.content.decode()
    assert page.context["table"].more_raters == 2
    assert 'value="cat"' not in shown and 'name="model_judge.more"' in shown and "(the 2 not listed)" in shown
    done = organiser.post(url(campaign), {"step": "confirm", "model_judge": "ann", "model_judge.more": "dan"})
    assert done.status_code == 302
    assert flagged(campaign) == {"ann", "dan"}


def checked_wide(campaign):
    raw, _, _ = wide_table()
    return wizard.prepare(campaign, raw, "ratings.csv", wizard.Choices(model_judges=(JUDGE,)))


def test_the_flag_is_written_with_the_import_or_not_at_all(people):
    """A rater removed between the check and the write (its membership gone): the import is
    refused naming ``model_judge`` and nothing of it stays; a large import behind the fence marks
    its judges in its last transaction, and is undone whole when that fails."""
    campaign = new(people, categories=CATEGORIES)
    prepared = checked_wide(campaign)
    assert prepared.model_judges == (JUDGE,)
    before = stored(campaign)
    checked = prepared.checked
    with pytest.raises(InvalidInput) as refused:
        write_checked(
            checked.topics, judgments=checked.judgments, params=checked.params, model_judges=("ann", "nobody")
        )
    assert refused.value.field == "model_judge"
    assert stored(campaign) == before
    write_checked(
        checked.topics, judgments=checked.judgments, params=checked.params, model_judges=prepared.model_judges
    )
    assert flagged(campaign) == {JUDGE}


def test_a_fenced_import_is_undone_whole_when_its_judges_cannot_be_marked(people, monkeypatch):
    monkeypatch.setattr(fence, "BATCH", 4)
    monkeypatch.setattr(fence, "PAUSE", 0)
    raised = []
    raise_fence = fence._raise_fence
    monkeypatch.setattr(fence, "_raise_fence", lambda *args: raised.append(1) or raise_fence(*args))
    campaign = new(people, categories=CATEGORIES)
    checked = checked_wide(campaign).checked
    before = stored(campaign)
    with pytest.raises(InvalidInput) as refused:
        write_checked(checked.topics, judgments=checked.judgments, params=checked.params, model_judges=("nobody",))
    assert refused.value.field == "model_judge"
    assert stored(campaign) == before
    write_checked(checked.topics, judgments=checked.judgments, params=checked.params, model_judges=(JUDGE, "ann"))
    assert flagged(campaign) == {JUDGE, "ann"}
    assert len(raised) == 2  # both behind the fence, a few rows per transaction
