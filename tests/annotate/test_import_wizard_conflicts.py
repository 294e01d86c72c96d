"""The import wizard's preview tells what Import will do (annotate/imports/wizard.py ``outcome``,
``confirmable``; annotate/imports/problems.py): every row the import would refuse (a judgment the
campaign already has, an unknown topic, a repeated row, a label off the scale, a judgment the kind
refuses) is listed at the preview, which writes nothing; the organiser skips those rows, replaces
the judgments already there (a new submitted version each, through the judgment services, the
earlier kept in its history) or cancels; the confirmation reads the file again and imports what
the preview said or nothing. Finding the judgments already there is a query per batch of rows.
A value meaning a match that turns a column of more than two labels into match / no match is
said and must be confirmed."""

from __future__ import annotations

import math

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.imports import check, wizard, write
from annotate.models import Assignment, Judgment, JudgmentRevision, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import reopen_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


@pytest.fixture
def empty(people):
    return create_campaign(creator=people["organiser"], kind="pairs", name="Crowd", overlap=1)


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/import/"


def preview(client, campaign, raw: str, name: str = "crowd.csv", **fields):
    return client.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile(name, raw.encode()), **fields})


def crowd(workers, items: int, label=lambda w, i: (w + i) % 2) -> str:
    return "worker,item,label\n" + "".join(f"w{w},item{i:02d},{label(w, i)}\n" for w in workers for i in range(items))


def imported(client, campaign, raw: str, name: str = "crowd.csv", **fields) -> str:
    page = preview(client, campaign, raw, name, **fields)
    assert page.status_code == 200, page.context.get("error")
    done = client.post(url(campaign), {"step": "confirm", **fields})
    assert done.status_code == 302, done.context["error"]
    return [m.message for m in get_messages(done.wsgi_request)][-1]


def stored(campaign) -> dict[tuple[str, str], tuple[int, str, dict]]:
    """(worker, topic) -> (version, status, payload) of every judgment of the campaign."""
    return {
        (j.assessor.username, j.topic.external_id): (j.version, j.status, j.payload)
        for j in Judgment.objects.filter(topic__campaign=campaign).select_related("assessor", "topic")
    }


def history(campaign, worker: str, topic: str) -> list[tuple[int, str, str, dict]]:
    revisions = JudgmentRevision.objects.filter(
        judgment__topic__campaign=campaign, judgment__assessor__username=worker, judgment__topic__external_id=topic
    ).order_by("version")
    return [(r.version, r.status, r.source, r.payload) for r in revisions]


# -- judgments the campaign already has ----------------------------------------------------------


def test_a_second_import_lists_the_judgments_already_there_at_the_preview_and_skips_them(organiser, empty):
    imported(organiser, empty, crowd([1], 30, label=lambda w, i: 1))
    before = stored(empty)
    page = preview(organiser, empty, crowd([1, 2, 3], 30))
    assert page.status_code == 200, page.context.get("error")
    shown = page.context["preview"]
    assert dict(shown.counts)["judgments"] == 60 and dict(shown.counts)["judgments already there"] == 30
    (there,) = shown.problems
    assert (there.kind, there.rows, there.examples[0]) == (
        "existing",
        30,
        ("w1's judgment of topic item00", "submitted, version 1"),
    )
    assert dict(shown.resolutions)["skip"] == "90 judgments of the file: 60 new, 30 already there — skipped."
    assert stored(empty) == before  # the preview wrote nothing

    # Import without a choice: refused, the preview and the form shown again, the file still staged.
    refused = organiser.post(url(empty), {"step": "confirm", "expected": shown.signature})
    assert refused.status_code == 400 and refused.context["error"].field == "resolve"
    assert refused.context["preview"].problems and b'name="resolve" value="skip"' in refused.content
    assert stored(empty) == before

    done = organiser.post(url(empty), {"step": "confirm", "resolve": "skip", "expected": shown.signature})
    assert done.status_code == 302, done.context["error"]
    message = [m.message for m in get_messages(done.wsgi_request)][-1]
    assert (
        message
        == "Imported 0 topics, 60 judgments, 2 new imported assessors, skipped 30 judgments already there from crowd.csv."
    )
    after = stored(empty)
    assert {k: v for k, v in after.items() if k[0] == "w1"} == before  # as they were: version 1, all matches
    assert after[("w2", "item00")] == (1, "submitted", {"matches": {"item": False}})
    assert after[("w3", "item00")] == (1, "submitted", {"matches": {"item": True}})
    assert len(after) == 90


def test_replace_makes_each_judgment_already_there_a_new_version_keeping_the_old(organiser, empty):
    imported(organiser, empty, crowd([1], 3, label=lambda w, i: 1))
    page = preview(organiser, empty, crowd([1, 2], 3, label=lambda w, i: 0))
    shown = page.context["preview"]
    assert dict(shown.resolutions)["replace"].startswith("6 judgments of the file: 3 new, 3 already there — replaced.")
    done = organiser.post(url(empty), {"step": "confirm", "resolve": "replace", "expected": shown.signature})
    assert done.status_code == 302, done.context["error"]
    assert (
        "replaced 3 judgments (the earlier versions kept in their history)"
        in [m.message for m in get_messages(done.wsgi_request)][-1]
    )
    assert stored(empty)[("w1", "item01")] == (3, "submitted", {"matches": {"item": False}})
    assert history(empty, "w1", "item01") == [
        (1, "submitted", "import", {"matches": {"item": True}}),  # the first import's, kept
        (2, "reopened", "import", {"matches": {"item": True}}),
        (3, "submitted", "import", {"matches": {"item": False}}),
    ]
    assert stored(empty)[("w2", "item01")] == (1, "submitted", {"matches": {"item": False}})


def test_cancel_writes_nothing_and_removes_the_staged_file(organiser, empty):
    imported(organiser, empty, crowd([1], 3))
    before = stored(empty)
    preview(organiser, empty, crowd([1, 2], 3))
    done = organiser.post(url(empty), {"step": "cancel"})
    assert done.status_code == 302
    assert [m.message for m in get_messages(done.wsgi_request)][-1].startswith("Nothing imported")
    assert stored(empty) == before
    again = organiser.post(url(empty), {"step": "confirm", "resolve": "skip"})
    assert again.status_code == 400 and "no file waiting for confirmation" in again.context["error"].message


def test_work_in_progress_is_only_skipped_and_the_page_says_why(organiser, empty, people):
    """alice, an assessor mapped onto the file's worker, is writing a draft of q1 and has reopened
    her judgment of q2: replacing either would take her work, so only skipping is offered."""
    add_member(campaign=empty, username="alice", role="assessor")
    imported(organiser, empty, crowd([1], 3).replace("w1,", "alice,"), map_members="true")
    draft = Judgment.objects.get(assessor=people["alice"], topic__external_id="item00")
    Judgment.objects.filter(pk=draft.pk).update(status=Judgment.Status.DRAFT, submitted_version=None)
    reopen_judgment(topic=Topic.objects.get(campaign=empty, external_id="item01"), assessor=people["alice"], version=1)
    before = stored(empty)
    page = preview(organiser, empty, crowd([1], 2, label=lambda w, i: 0).replace("w1,", "alice,"), map_members="true")
    shown = page.context["preview"]
    assert [why for _, why in shown.problems[0].examples] == [
        "draft, version 1; only skipped: a draft its assessor is writing: replacing it would take their work in progress",
        "reopened, version 2; only skipped: reopened by its assessor, who is changing it: replacing it would take "
        "their work",
    ]
    assert [value for value, _ in shown.resolutions] == ["skip"]
    assert shown.no_replace == "none of the judgments already there may be replaced: each says why"
    assert b'id="import-no-replace"' in page.content
    refused = organiser.post(url(empty), {"step": "confirm", "resolve": "replace", "map_members": "true"})
    assert refused.status_code == 400 and refused.context["error"].field == "resolve"
    assert stored(empty) == before
    done = organiser.post(url(empty), {"step": "confirm", "resolve": "skip", "map_members": "true"})
    assert done.status_code == 400 and done.context["error"].message.startswith("nothing to import")
    assert stored(empty) == before


def test_the_confirmation_imports_what_the_preview_said_or_nothing(organiser, empty, people):
    """A judgment saved between the preview and Import changes what Import would do: nothing is
    imported, and the page shows the new preview to check."""
    imported(organiser, empty, crowd([1], 2))
    page = preview(organiser, empty, crowd([1], 3).replace("item00", "item07").replace("item01", "item08"))
    shown = page.context["preview"]
    assert not shown.problems and dict(shown.counts)["judgments"] == 3
    write.import_judgment_file(empty, b"worker,item,label\nw1,item07,1\n", filename="x.csv")  # meanwhile
    before = stored(empty)
    refused = organiser.post(url(empty), {"step": "confirm", "expected": shown.signature})
    assert refused.status_code == 400 and refused.context["error"].field == "expected"
    now = refused.context["preview"]
    assert dict(now.counts)["judgments already there"] == 1 and now.signature != shown.signature
    assert stored(empty) == before
    done = organiser.post(url(empty), {"step": "confirm", "resolve": "skip", "expected": now.signature})
    assert done.status_code == 302, done.context["error"]
    assert len(stored(empty)) == len(before) + 2


def test_every_row_the_import_would_refuse_is_listed_and_skip_imports_the_rest(organiser, empty):
    topics = '[{"external_id": "q1", "data": {"query": "Q", "candidates": [{"id": "c1", "text": "A"}, {"id": "c2", "text": "B"}]}}]'
    imported(organiser, empty, topics, name="topics.json")
    raw = (
        "worker,topic,candidate,label\n"
        "w1,q1,c1,yes\nw1,q1,c2,no\n"
        "w2,q9,c1,yes\n"  # a topic the campaign does not have
        "w3,q1,c1,yes\nw3,q1,c1,no\nw3,q1,c2,yes\n"  # c1 twice: the second left out
        "w4,q1,c1,perhaps\nw4,q1,c2,no\n"  # not a match label: w4's judgment lacks c1, so the kind refuses it
        "w5,q1,c1,yes\nw5,q1,c7,no\n"  # a candidate q1 lacks: the kind refuses w5's judgment
    )
    page = preview(organiser, empty, raw)
    assert page.status_code == 200, page.context.get("error")
    shown = page.context["preview"]
    assert [(p.kind, p.rows, p.examples) for p in shown.problems] == [
        ("topic", 1, [("line 4: topic", "unknown topic 'q9'")]),
        ("duplicate", 1, [("line 6", "'w3' labelled 'c1' twice")]),
        ("label", 1, [("line 8: label", "'perhaps' is not a match label; say which value means a match")]),
        (
            "judgment",
            3,
            [
                ("worker 'w4', topic 'q1': payload.matches", "1 candidate(s) not judged: c1"),
                ("worker 'w5', topic 'q1': payload.matches.c7", "unknown candidate id"),
            ],
        ),
    ]
    assert dict(shown.counts)["judgments"] == 2 and dict(shown.counts)["rows left out"] == 6
    assert shown.resolutions == (("skip", "2 judgments of the file written; the 6 rows listed left out."),)
    assert not Judgment.objects.filter(topic__campaign=empty).exists()
    done = organiser.post(url(empty), {"step": "confirm", "resolve": "skip", "expected": shown.signature})
    assert done.status_code == 302, done.context["error"]
    assert {k: v[2] for k, v in stored(empty).items()} == {
        ("w1", "q1"): {"matches": {"c1": True, "c2": False}},
        ("w3", "q1"): {"matches": {"c1": True, "c2": True}},  # its first c1 kept
    }


def test_the_api_stays_all_or_nothing_refusing_a_judgment_already_there(api, people, empty):
    write.import_judgment_file(empty, b"worker,item,label\nw1,i1,1\n", filename="c.csv")
    response = api(people["organiser"]).post(
        f"/api/campaigns/{empty.pk}/judgments/import/",
        {"file": SimpleUploadedFile("c.csv", b"worker,item,label\nw2,i1,1\nw1,i1,0\n")},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "'w1' already has a judgment of topic 'i1'; nothing imported"
    assert Judgment.objects.filter(topic__campaign=empty).count() == 1


# -- rating tables ---------------------------------------------------------------------------------


def test_a_rating_table_imported_again_replaces_its_raters_judgments_keeping_their_history(organiser, people):
    campaign = create_campaign(
        creator=people["organiser"],
        kind="labels",
        name="Scores",
        overlap=1,
        params={"level": "ordinal", "categories": ["0", "1", "2", "3"]},
    )
    imported(organiser, campaign, "item,r1,r2\ni1,1,2\ni2,3,\n", name="first.csv")
    page = preview(organiser, campaign, "item,r1,r2,r3\ni1,0,2,3\ni2,2,1,1\n", name="second.csv")
    shown = page.context["preview"]
    (there,) = shown.problems
    assert there.examples == [
        ("r1's judgment of topic batch-1", "submitted, version 1"),
        (
            "r2's judgment of topic batch-1",
            "submitted, version 1; only skipped: its assessor was assigned other items of the topic than those "
            "the file rates",
        ),
    ]
    assert dict(shown.resolutions)["replace"].startswith(
        "3 judgments of the file: 1 new, 2 already there — 1 replaced, 1 skipped (not replaceable: each says why)."
    )
    done = organiser.post(url(campaign), {"step": "confirm", "resolve": "replace", "expected": shown.signature})
    assert done.status_code == 302, done.context["error"]
    assert {k: v[:2] + (v[2]["labels"],) for k, v in stored(campaign).items()} == {
        ("r1", "batch-1"): (3, "submitted", {"i1": "0", "i2": "2"}),
        ("r2", "batch-1"): (1, "submitted", {"i1": "2"}),  # left as it was
        ("r3", "batch-1"): (1, "submitted", {"i1": "3", "i2": "1"}),
    }
    assert [(v, s, p["labels"]) for v, s, _, p in history(campaign, "r1", "batch-1")] == [
        (1, "submitted", {"i1": "1", "i2": "3"}),
        (2, "reopened", {"i1": "1", "i2": "3"}),
        (3, "submitted", {"i1": "0", "i2": "2"}),
    ]
    assert Assignment.objects.get(assessor__username="r2").items == ["i1"]


def test_a_rating_tables_repeated_ratings_and_labels_off_the_scale_are_listed_and_skipped(organiser, people):
    """A's ratings of item 1 after the first (25 of them: the first 20 named, the others counted),
    and a label off the ordinal scale typed on the page: listed, then left out."""
    campaign = create_campaign(creator=people["organiser"], kind="labels", name="Scores", overlap=1)
    raw = "rater,item,label\nA,1,3\nB,1,2\n" + "A,1,1\n" * 25 + "B,2,4\nA,2,0\n"
    scale = {"scale.level": "ordinal", "scale.categories": "0\n1\n2\n3"}
    page = preview(organiser, campaign, raw, name="long.csv", **scale)
    assert page.status_code == 200, page.context.get("error")
    twice, off = page.context["preview"].problems
    assert (twice.kind, twice.rows, len(twice.examples), twice.more) == ("duplicate", 25, 20, 5)
    assert twice.examples[0] == ("line 4, column label", "'A' rated item '1' twice (also line 2, column label)")
    assert (off.kind, off.rows, off.examples) == (
        "label",
        1,
        [
            (
                "line 29, column label",
                "'4' is not a category of the scale (ordinal: 0 < 1 < 2 < 3): add it to the categories below",
            )
        ],
    )
    assert b"and 5 more" in page.content
    done = organiser.post(url(campaign), {"step": "confirm", "resolve": "skip", **scale})
    assert done.status_code == 302, done.context["error"]
    assert {k: v[2]["labels"] for k, v in stored(campaign).items()} == {
        ("A", "batch-1"): {"1": "3", "2": "0"},
        ("B", "batch-1"): {"1": "2"},
    }


# -- bounded work ----------------------------------------------------------------------------------


def test_finding_the_judgments_already_there_is_a_query_per_batch_not_per_row(empty):
    rows = 600
    raw = crowd([1], rows).encode()
    write.import_judgment_file(empty, raw, filename="c.csv")
    with CaptureQueriesContext(connection) as queries:
        prepared = wizard.prepare(empty, raw, "c.csv", wizard.Choices(gather=True))
    assert len(prepared.checked.judgments.existing) == rows
    judgment_table = Judgment._meta.db_table
    reads = [q["sql"] for q in queries.captured_queries if f'FROM "{judgment_table}"' in q["sql"]]
    assert len(reads) == math.ceil(rows / check.EXISTING_PER_QUERY) == 3


def test_more_judgments_to_replace_than_one_import_replaces_are_only_skipped(organiser, empty, monkeypatch):
    monkeypatch.setattr(wizard, "REPLACE_MOST", 2)
    imported(organiser, empty, crowd([1], 3))
    page = preview(organiser, empty, crowd([1], 3))
    shown = page.context["preview"]
    assert [value for value, _ in shown.resolutions] == ["skip"]
    assert shown.no_replace.startswith("3 judgments may be replaced, more than one import replaces (2,")


def test_the_write_refuses_more_replacements_than_its_limit(people, empty, monkeypatch):
    write.import_judgment_file(empty, crowd([1], 3).encode(), filename="c.csv")
    prepared = wizard.prepare(empty, crowd([1], 3).encode(), "c.csv", wizard.Choices(gather=True, resolve="replace"))
    monkeypatch.setattr(write, "REPLACE_MOST", 2)
    before = stored(empty)
    with pytest.raises(InvalidInput, match="more than 2 judgments to replace"):
        wizard.write(prepared)
    assert stored(empty) == before


# -- a value meaning a match that turns a scale into two values --------------------------------------


def test_a_value_meaning_a_match_on_a_0_9_scale_is_said_and_confirmed(organiser, empty):
    raw = "worker,item,label\n" + "".join(f"w{w},i{w}{n},{n}\n" for w in (1, 2) for n in range(10))
    page = preview(organiser, empty, raw, positive="9")
    shown = page.context["preview"]
    assert shown.binary.startswith("10 distinct labels: 9 is read as a match, 0-8 as no match")
    assert b'id="import-binary"' in page.content and b'name="binary"' in page.content
    refused = organiser.post(url(empty), {"step": "confirm", "positive": "9", "expected": shown.signature})
    assert refused.status_code == 400 and refused.context["error"].field == "binary"
    assert b'value="9"' in refused.content  # the value typed is still there
    assert not Judgment.objects.filter(topic__campaign=empty).exists()
    done = organiser.post(url(empty), {"step": "confirm", "positive": "9", "binary": "true"})
    assert done.status_code == 302, done.context["error"]
    assert stored(empty)[("w1", "i19")][2] == {"matches": {"item": True}}
    assert stored(empty)[("w1", "i18")][2] == {"matches": {"item": False}}


@pytest.mark.parametrize(
    ("labels", "positive", "said"),
    [
        (["before", "after"], "before", ""),  # two values: match / no match already
        (["yes", "no", "1", "0"], "", ""),  # match words only
        (["1", "0", "2"], "1", "3 distinct labels: 1 is read as a match, 0, 2 as no match"),
        (["good", "bad", "ugly"], "good", "3 distinct labels: 'good' is read as a match, 'bad', 'ugly' as no match"),
    ],
)
def test_the_binary_warning_is_said_only_where_labels_were_turned(organiser, empty, labels, positive, said):
    raw = "worker,item,label\n" + "".join(f"w{n},i1,{label}\n" for n, label in enumerate(labels))
    page = preview(organiser, empty, raw, **({"positive": positive} if positive else {}))
    assert page.status_code == 200, page.context.get("error")
    assert page.context["preview"].binary.split(" (")[0] == said


def test_a_wide_pairs_table_read_with_a_value_meaning_a_match_is_said_too(organiser, empty):
    raw = "topic,candidate,adj-1,adj-2\n" + "".join(f"q1,c{n},{n},{9 - n}\n" for n in range(10))
    page = preview(organiser, empty, raw, **{"scale.positive": "9"})
    assert page.status_code == 200, page.context.get("error")
    assert page.context["preview"].binary.startswith("10 distinct labels: 9 is read as a match, 0-8 as no match")
