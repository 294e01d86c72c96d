"""Rating tables through the import wizard (annotate/imports/ratings.py): every common shape a
published rating table comes in, each uploaded, previewed with the scale it shows, the scale
corrected, confirmed, and its figures read back from the campaign's report against the
reference packages: irrCAC's ``raw_5observers`` as its ``to_csv()`` writes it (wide, grades
0-3, empty cells), the same with pandas' unnamed index, as Excel's CSV and as .xlsx; pingouin's
``icc.csv`` (long, ``Wine,Judge,Scores``); Fleiss' (1971) table of counts; Label Studio's and
doccano's exports of a text classification; wide tables of pairs and of graded relevance.
Bad files are refused naming the column and row, and nothing is written."""

from __future__ import annotations

import codecs
import importlib.util
import io
import json
import warnings
import zipfile
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from irrCAC.datasets import raw_5observers
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss_kappa

from annotate.imports import check, samples
from annotate.imports.write import write_checked
from annotate.models import Assignment, Campaign, Judgment, Membership, Topic
from annotate.services.campaigns import create_campaign
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.selectors import campaign_report
from tests.annotate.test_detect import xlsx
from tests.stats.test_ratingtables import (
    FLEISS_1971,
    from_counts,
    pingouin_icc,  # noqa: F401 (a fixture: pingouin's ICC, loaded bare)
)

pytestmark = pytest.mark.django_db
User = get_user_model()

RAW_5OBSERVERS = raw_5observers().to_csv().encode()
ORDINAL_0_3 = {
    "scale.level": "ordinal",
    "scale.categories": "0\n1\n2\n3",
    "scale.minimum": "0",
    "scale.maximum": "3",
    "scale.step": "1",
    "scale.cant_tell": "",
}
DIAGNOSES = ["depression", "personality disorder", "schizophrenia", "neurosis", "other"]


def url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/uploads/import/"


def stored(campaign) -> tuple:
    campaign = Campaign.objects.get(pk=campaign.pk)
    return (
        Topic.objects.filter(campaign=campaign).count(),
        Judgment.objects.filter(topic__campaign=campaign).count(),
        Assignment.objects.filter(topic__campaign=campaign).count(),
        User.objects.count(),
        campaign.params,
    )


@pytest.fixture
def organiser(client, people):
    client.force_login(people["organiser"])
    return client


def new(people, kind="labels", **params):
    return create_campaign(creator=people["organiser"], kind=kind, name="Ratings", overlap=1, params=params)


def preview(client, campaign, name: str, raw: bytes, **fields):
    return client.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile(name, raw), **fields})


def report(campaign):
    scoring_services.recompute_reports(campaign.pk, everything=True)
    return campaign_report(campaign).data


def irrcac(frame: pd.DataFrame, method: str, weights: str = "identity") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(CAC(frame, weights=weights, categories=[0, 1, 2, 3]), method)()["est"]["coefficient_value"]


def layout(page) -> dict:
    table = page.context["table"]
    return {
        "shape": table.shape,
        **{c.role: next((text for _, text, selected in c.options if selected), "") for c in table.columns},
        "picked": [text for _, text, checked in table.picked if checked],
    }


# -- irrCAC's raw_5observers -------------------------------------------------------------


def test_irrcac_raw_5observers_as_to_csv_writes_it_fixed_to_ordinal_0_3(organiser, people):
    """The issue's file: a row per unit under ``Units``, a column per observer, grades 0-3 written
    ``1.0``, 17 cells empty; the scale found (numbers 0 to 3) corrected to ordinal before anything
    is written; the figures equal irrCAC's and krippendorff's."""
    campaign = new(people)
    before = stored(campaign)
    page = preview(organiser, campaign, "raw_5observers.csv", RAW_5OBSERVERS)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page) == {
        "shape": "wide",
        "topic": "(none)",
        "item": "1: Units",
        "text": "(none)",
        "control": "(none)",
        "attention": "(none)",
        "picked": [f"{k}: Observer{k - 1}" for k in range(2, 7)],
    }
    table = page.context["table"]
    assert table.scale_text == "interval: numbers from 0 to 3 in steps of 1"
    assert dict(table.values) == {"0.0": 20, "1.0": 17, "2.0": 15, "3.0": 6}
    assert table.raters == tuple(f"Observer{k}" for k in range(1, 6))
    assert dict(page.context["preview"].counts) == {
        "items": 15,
        "new topics": 1,
        "raters": 5,
        "new imported assessors": 5,
        "ratings": 58,
        "cells without a rating": 17,
        "judgments": 5,
    }
    assert page.context["preview"].rows[2] == ("line 2, column Observer3", "Observer3", "batch-1", "1", "2")
    assert stored(campaign) == before  # the preview wrote nothing

    fixed = organiser.post(url(campaign), {"step": "again", **ORDINAL_0_3})
    assert fixed.status_code == 200, fixed.context.get("error")
    assert fixed.context["table"].scale_text == "ordinal: 0 < 1 < 2 < 3"
    assert fixed.context["preview"].rows[2][-1] == "2"
    assert stored(campaign) == before

    done = organiser.post(url(campaign), {"step": "confirm", **ORDINAL_0_3})
    assert done.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.params["level"], campaign.params["categories"]) == ("ordinal", ["0", "1", "2", "3"])
    observer4 = Judgment.objects.get(topic__campaign=campaign, assessor__username="Observer4")
    assert observer4.payload == {
        "labels": {"2": "1", "3": "3", "8": "0", "10": "1", "11": "0", "12": "0", "13": "2", "14": "2"}
    }
    assert Assignment.objects.get(topic__campaign=campaign, assessor__username="Observer4").items == [
        "2", "3", "8", "10", "11", "12", "13", "14"
    ]  # fmt: skip
    assert Assignment.objects.get(topic__campaign=campaign, assessor__username="Observer3").items is None
    assert set(
        Membership.objects.filter(campaign=campaign, imported=True).values_list("user__username", flat=True)
    ) == {f"Observer{k}" for k in range(1, 6)}

    data = report(campaign)
    frame = raw_5observers()
    four = frame[frame.notna().sum(axis=1) == 4]
    # Fleiss (1971) takes items with as many raters each: the 11 rated by four, as the report says.
    assert (data.fleiss.items, data.fleiss.raters) == (11, 4)
    assert data.fleiss.kappa == pytest.approx(irrcac(four, "fleiss"), abs=5e-6)
    assert data.ac1.value == pytest.approx(irrcac(frame, "gwet"), abs=5e-6)
    assert data.ac2.value == pytest.approx(irrcac(frame, "gwet", "quadratic"), abs=5e-6)
    assert data.brennan_prediger.value == pytest.approx(irrcac(frame, "bp", "quadratic"), abs=5e-6)
    assert data.conger.value == pytest.approx(irrcac(frame, "conger", "quadratic"), abs=5e-6)
    alpha = krippendorff.alpha(reliability_data=frame.T.to_numpy(float), level_of_measurement="ordinal")
    assert data.alpha.value == pytest.approx(alpha, abs=1e-9)


def test_pandas_unnamed_index_is_the_item_column_and_items_come_in_batches(organiser, people):
    """``DataFrame.to_csv()`` of a frame without an index name writes an empty first header cell."""
    campaign = new(people, batch=4)
    raw = raw_5observers().rename_axis(None).to_csv().encode()
    assert raw.startswith(b",Observer1,")
    page = preview(organiser, campaign, "ratings.csv", raw)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page)["item"] == "1: column 1 (no name)"
    assert dict(page.context["preview"].counts)["new topics"] == 4
    assert organiser.post(url(campaign), {"step": "confirm", **ORDINAL_0_3}).status_code == 302
    topics = {t.external_id: [i["id"] for i in t.data["items"]] for t in Topic.objects.filter(campaign=campaign)}
    assert topics == {
        "batch-1": ["1", "2", "3", "4"],
        "batch-2": ["5", "6", "7", "8"],
        "batch-3": ["9", "10", "11", "12"],
        "batch-4": ["13", "14", "15"],
    }
    # Observer1 rated nothing in batch-1's item 4: assigned the three they rated.
    assert Assignment.objects.get(topic__external_id="batch-1", assessor__username="Observer1").items == ["1", "2", "3"]
    assert report(campaign).alpha.value == pytest.approx(
        krippendorff.alpha(reliability_data=raw_5observers().T.to_numpy(float), level_of_measurement="ordinal"),
        abs=1e-9,
    )


@pytest.mark.parametrize("variant", ["excel-csv", "xlsx"])
def test_the_same_table_as_excel_saves_it(organiser, people, variant):
    """Excel's CSV (semicolons, a byte-order mark, CRLF, commas in the decimals' stead do not
    occur: the grades are whole) and an .xlsx workbook read as the CSV does."""
    frame = raw_5observers()
    campaign = new(people)
    if variant == "xlsx":
        rows = [["Units", *frame.columns]] + [
            [unit, *(None if np.isnan(v) else int(v) for v in row)] for unit, row in zip(frame.index, frame.to_numpy())
        ]
        raw, name = xlsx(rows), "raw_5observers.xlsx"
    else:
        raw, name = codecs.BOM_UTF8 + frame.to_csv(sep=";", lineterminator="\r\n").encode(), "raw_5observers.csv"
    page = preview(organiser, campaign, name, raw)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page)["picked"] == [f"{k}: Observer{k - 1}" for k in range(2, 7)]
    where = "row 2, column Observer3" if variant == "xlsx" else "line 2, column Observer3"
    assert page.context["preview"].rows[2][0] == where
    assert organiser.post(url(campaign), {"step": "confirm", **ORDINAL_0_3}).status_code == 302
    data = report(campaign)
    assert data.ac2.value == pytest.approx(irrcac(frame, "gwet", "quadratic"), abs=5e-6)
    assert Judgment.objects.filter(topic__campaign=campaign).count() == 5


# -- pingouin's icc.csv: long ---------------------------------------------------------------


#: pingouin's own ``datasets/icc.csv`` (8 wines x 4 judges, ``Wine,Judge,Scores``), as it ships
#: (found before the ``pingouin_icc`` fixture stands a bare package in for pingouin's).
ICC_CSV = Path(importlib.util.find_spec("pingouin").submodule_search_locations[0]) / "datasets" / "icc.csv"


def pingouin_icc_csv() -> bytes:
    return ICC_CSV.read_bytes()


def test_pingouin_icc_csv_long_its_columns_mapped_and_its_iccs(organiser, people, pingouin_icc):  # noqa: F811
    raw = pingouin_icc_csv()
    assert raw.startswith(b"Wine,Judge,Scores")
    campaign = new(people)
    page = preview(organiser, campaign, "icc.csv", raw)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page) == {
        "shape": "long",
        "topic": "(none)",
        "item": "1: Wine",
        "text": "(none)",
        "rater": "2: Judge",
        "label": "3: Scores",
        "control": "(none)",
        "attention": "(none)",
        "picked": [],
    }
    assert page.context["table"].scale_text == "interval: numbers from 0 to 9 in steps of 1"
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    data = report(campaign)
    frame = pd.read_csv(io.BytesIO(raw)).pivot(index="Wine", columns="Judge", values="Scores")
    expected = pingouin_icc(frame.to_numpy(float))
    assert (data.intraclass.items, data.intraclass.raters) == (8, 4)
    assert [f.ci.value for f in data.intraclass.forms] == pytest.approx(list(expected["ICC"]), abs=1e-9)


def test_long_columns_under_other_names_are_mapped_on_the_page(organiser, people):
    """Columns the guess cannot name are chosen on the page: a long table of ``who,what,grade``."""
    campaign = new(people)
    raw = b"who,what,grade\nann,s1,pos\ncy,s1,neg\nann,s2,neg\ncy,s2,neg\n"
    page = preview(organiser, campaign, "ratings.csv", raw)
    assert page.context["table"].shape == "wide"  # no rater nor label column by name
    mapped = {"shape": "long", "col.item": "2", "col.rater": "1", "col.label": "3"}
    again = organiser.post(url(campaign), {"step": "again", **mapped})
    assert again.status_code == 200, again.context.get("error")
    assert again.context["table"].scale_text == "nominal: pos, neg (in no order)"
    assert organiser.post(url(campaign), {"step": "confirm", **mapped}).status_code == 302
    assert Judgment.objects.get(topic__campaign=campaign, assessor__username="ann").payload == {
        "labels": {"s1": "pos", "s2": "neg"}
    }


# -- Fleiss (1971): counts per category ----------------------------------------------------


def fleiss_counts_csv() -> bytes:
    rows = ["patient," + ",".join(DIAGNOSES)] + [
        f"{k},{','.join(map(str, row))}" for k, row in enumerate(FLEISS_1971, 1)
    ]
    return ("\n".join(rows) + "\n").encode()


def test_fleiss_1971_counts_keep_what_counts_give_and_nothing_else(organiser, people):
    campaign = new(people, batch=30)
    page = preview(organiser, campaign, "fleiss1971.csv", fleiss_counts_csv())
    assert page.status_code == 200, page.context.get("error")
    assert layout(page)["shape"] == "counts"
    assert page.context["table"].anonymous
    assert page.context["table"].scale_text == f"nominal: {', '.join(DIAGNOSES)} (in no order)"
    assert any("who gave which label is not in the file" in w for w in page.context["preview"].warnings)
    assert dict(page.context["preview"].counts) == {
        "items": 30,
        "new topics": 1,
        "raters": 6,
        "new imported assessors": 6,
        "ratings": 180,
        "cells without a rating": 0,
        "judgments": 6,
    }
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.params["anonymous_raters"] is True
    slots = sorted(Membership.objects.filter(campaign=campaign, imported=True).values_list("user__username", flat=True))
    assert slots == [f"c{campaign.pk}-anonymous-{k:02d}" for k in range(1, 7)]

    data = report(campaign)
    assert round(data.fleiss.kappa, 3) == 0.430
    assert data.fleiss.kappa == pytest.approx(statsmodels_fleiss_kappa(np.array(FLEISS_1971)), abs=1e-12)
    assert [round(c.kappa.value, 3) for c in data.categories] == [0.245, 0.245, 0.520, 0.471, 0.566]
    ratings = pd.DataFrame(from_counts(FLEISS_1971))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = CAC(ratings, categories=[0, 1, 2, 3, 4])
        assert data.ac1.value == pytest.approx(reference.gwet()["est"]["coefficient_value"], abs=5e-6)
        assert data.percent.value == pytest.approx(reference.gwet()["est"]["pa"], abs=5e-6)
        assert data.brennan_prediger.value == pytest.approx(reference.bp()["est"]["coefficient_value"], abs=5e-6)
    alpha = krippendorff.alpha(reliability_data=ratings.T.to_numpy(float), level_of_measurement="nominal")
    assert data.alpha.value == pytest.approx(alpha, abs=1e-9)

    page = organiser.get(f"/campaigns/{campaign.pk}/report/").content.decode()
    assert 'id="anonymous-raters"' in page and "Assessors unknown." in page
    for left_out in (
        'id="pairs-table"',
        "<td>Conger",
        'id="reliability-table"',
        'id="assessors-table"',
        'id="icc-table"',
    ):
        assert left_out not in page, left_out
    assert 'id="fleiss-kappa">0.430<' in page


def test_a_count_table_goes_only_into_a_campaign_without_named_judgments(organiser, people):
    campaign = new(people)
    organiser.post(url(campaign), {"step": "preview", "file": SimpleUploadedFile("w.csv", b"item,r1,r2\ni1,yes,no\n")})
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    before = stored(campaign)
    page = preview(organiser, campaign, "counts.csv", b"item,yes,no\ni2,2,0\ni3,1,1\n", shape="counts")
    assert page.status_code == 400
    assert page.context["error"].field == "shape"
    assert "its raters are not known" in page.context["error"].message
    assert stored(campaign) == before


# -- Label Studio and doccano ---------------------------------------------------------------


def nominal_figures_are_the_references(data, ratings: dict[str, dict[str, str]]) -> None:
    """The report of a nominal campaign whose ``ratings`` are {rater: {item: label}}: its
    figures equal irrCAC's, krippendorff's and scikit-learn's on the same items x raters table
    (labels coded by their place on the campaign's scale, an unrated cell empty)."""
    codes = {label: code for code, label in enumerate(data.scale.labels)}
    frame = pd.DataFrame(
        {rater: {item: codes[label] for item, label in given.items()} for rater, given in ratings.items()}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # irrCAC's pandas calls warn of deprecations
        reference = CAC(frame, categories=list(codes.values()))
        gwet, bp, conger = reference.gwet()["est"], reference.bp()["est"], reference.conger()["est"]
    assert data.percent.value == pytest.approx(gwet["pa"], abs=5e-6)
    assert data.ac1.value == pytest.approx(gwet["coefficient_value"], abs=5e-6)
    assert data.brennan_prediger.value == pytest.approx(bp["coefficient_value"], abs=5e-6)
    assert data.conger.value == pytest.approx(conger["coefficient_value"], abs=5e-6)
    alpha = krippendorff.alpha(reliability_data=frame.T.to_numpy(float), level_of_measurement="nominal")
    assert data.alpha.value == pytest.approx(alpha, abs=1e-9)
    [pair] = data.pairs
    shared = frame[list(pair.assessors)].dropna()
    assert pair.n == len(shared)
    expected = cohen_kappa_score(*shared.to_numpy().T, labels=list(codes.values()))
    assert pair.kappa.value == pytest.approx(expected, abs=1e-9)


def label_studio_export() -> bytes:
    """Label Studio's JSON export of a text classification (its own task ids, ``data.text``,
    ``choices`` results from ``sentiment``; a numeric ``completed_by``; one cancelled annotation)."""
    texts = ["Great value.", "Never again.", "It was fine.", "Loved the staff."]
    given = {1: ["Positive", "Negative", "Neutral", "Positive"], 2: ["Positive", "Negative", "Positive", None]}
    tasks = []
    for number, text in enumerate(texts):
        annotations = [
            {
                "id": 10 * number + user,
                "completed_by": user,
                "was_cancelled": labels[number] is None,
                "result": []
                if labels[number] is None
                else [
                    {
                        "value": {"choices": [labels[number]]},
                        "id": "x1",
                        "from_name": "sentiment",
                        "to_name": "text",
                        "type": "choices",
                        "origin": "manual",
                    }
                ],
            }
            for user, labels in given.items()
        ]
        tasks.append({"id": 101 + number, "data": {"text": text}, "annotations": annotations, "predictions": []})
    return json.dumps(tasks).encode()


def test_a_label_studio_text_classification_export(organiser, people):
    campaign = new(people)
    page = preview(organiser, campaign, "project-3-at-2025-05-01-10-00-1a2b3c4d.json", label_studio_export())
    assert page.status_code == 200, page.context.get("error")
    assert page.context["preview"].reads_as == "ratings (Label Studio JSON (tasks with annotations))"
    assert page.context["table"].scale_text == "nominal: Positive, Negative, Neutral (in no order)"
    assert page.context["preview"].rows[0] == (
        "file[0].annotations[0].result[0].value.choices",
        "labelstudio-1",
        "batch-1",
        "101",
        "Positive",
    )
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    topic = Topic.objects.get(campaign=campaign)
    assert topic.data["items"][0] == {"id": "101", "text": "Great value."}
    assert Judgment.objects.get(assessor__username="labelstudio-2").payload == {
        "labels": {"101": "Positive", "102": "Negative", "103": "Positive"}
    }
    ratings = {
        "labelstudio-1": {"101": "Positive", "102": "Negative", "103": "Neutral", "104": "Positive"},
        "labelstudio-2": {"101": "Positive", "102": "Negative", "103": "Positive"},
    }
    data = report(campaign)
    assert (data.items_judged, data.items_paired) == (4, 3)
    assert data.percent.value == pytest.approx(2 / 3)  # two of the three items both rated
    nominal_figures_are_the_references(data, ratings)


def test_a_doccano_text_classification_zip(organiser, people):
    buffer = io.BytesIO()
    lines = {
        "ann": [(1, "Great value.", ["positive"]), (2, "Never again.", ["negative"]), (3, "Fine.", [])],
        "cy": [(1, "Great value.", ["positive"]), (2, "Never again.", ["positive"]), (3, "Fine.", ["neutral"])],
    }
    with zipfile.ZipFile(buffer, "w") as archive:
        for user, rows in lines.items():
            archive.writestr(
                f"{user}.jsonl",
                "".join(
                    json.dumps({"id": i, "text": t, "label": given, "Comments": []}) + "\n" for i, t, given in rows
                ),
            )
    campaign = new(people)
    page = preview(organiser, campaign, "project_1_dataset.zip", buffer.getvalue())
    assert page.status_code == 200, page.context.get("error")
    assert dict(page.context["preview"].counts)["cells without a rating"] == 1
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    assert Judgment.objects.get(assessor__username="ann").payload == {"labels": {"1": "positive", "2": "negative"}}
    assert Assignment.objects.get(assessor__username="ann").items == ["1", "2"]
    data = report(campaign)
    assert data.scale.labels == ["positive", "negative", "neutral"]
    assert (data.items_judged, data.items_paired) == (3, 2)
    assert data.percent.value == pytest.approx(1 / 2)  # item 1 agreed, item 2 not
    nominal_figures_are_the_references(
        data, {"ann": {"1": "positive", "2": "negative"}, "cy": {"1": "positive", "2": "positive", "3": "neutral"}}
    )


# -- pairs and graded relevance: wide ---------------------------------------------------------


def test_a_wide_table_of_match_labels_into_pairs(organiser, people):
    campaign = new(people, kind="pairs")
    raw = (
        b"query,candidate,text,adj-1,adj-2,adj-3\n"
        b"Mohamed Hammadi,c1,Muhammad Hamadi,yes,yes,\n"
        b"Mohamed Hammadi,c2,Haji Hammadi,no,yes,no\n"
    )
    page = preview(organiser, campaign, "matches.csv", raw)
    assert page.status_code == 400  # a query is a text, not an id: map it as the query's text
    assert page.context["error"].field == "line 2, column query"
    mapped = {"col.topic": "#", "col.query": "1"}
    page = organiser.post(url(campaign), {"step": "again", **mapped, "col.topic": "", "col.query": "1"})
    assert page.context["error"].field == "col.topic"  # a pairs table needs its topic id column
    raw = b"topic," + raw.replace(b"\nM", b"\nq1,M")
    page = preview(organiser, campaign, "matches.csv", raw)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page) == {
        "shape": "wide",
        "topic": "1: topic",
        "candidate": "3: candidate",
        "query": "2: query",
        "text": "4: text",
        "control": "(none)",
        "attention": "(none)",
        "picked": ["5: adj-1", "6: adj-2", "7: adj-3"],
    }
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    topic = Topic.objects.get(campaign=campaign)
    assert topic.data == {
        "query": "Mohamed Hammadi",
        "candidates": [{"id": "c1", "text": "Muhammad Hamadi"}, {"id": "c2", "text": "Haji Hammadi"}],
    }
    assert Judgment.objects.get(assessor__username="adj-3").payload == {"matches": {"c2": False}}
    assert Assignment.objects.get(assessor__username="adj-3").items == ["c2"]


def test_a_pairs_crowd_table_stays_a_crowd_table(organiser, people):
    campaign = new(people, kind="pairs")
    page = preview(organiser, campaign, "crowd.csv", b"worker,item,answer\nw1,i1,yes\n")
    assert page.status_code == 400 and page.context["mapping"]  # the crowd table's mapping, as before
    assert [value for value, _ in page.context["shapes"]] == ["crowd", "wide"]


@pytest.mark.parametrize("shape", ["wide", "long"])
def test_graded_relevance_tables(organiser, people, shape):
    campaign = new(people, kind="relevance")
    if shape == "wide":
        raw = b"topic,title,document,text,a1,a2\n401,foreign minorities,d1,Text one,3,2\n401,foreign minorities,d2,Text two,0,\n"
    else:
        raw = b"assessor,topic,document,grade\na1,401,d1,highly relevant\na2,401,d1,2\na1,401,d2,0\n"
    page = preview(organiser, campaign, "qrels.csv", raw)
    assert page.status_code == 200, page.context.get("error")
    assert page.context["table"].shape == shape
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    assert Judgment.objects.get(assessor__username="a1").payload == {"grades": {"d1": 3, "d2": 0}}
    assert Judgment.objects.get(assessor__username="a2").payload == {"grades": {"d1": 2}}


# -- refused, naming the column and row; nothing written ---------------------------------------


@pytest.mark.parametrize(
    ("raw", "fields", "field", "message"),
    [
        (b"item,r1,r2\ni 1,yes,no\n", {}, "line 2, column item", "white space"),
        (b"item,,r2\ni1,yes,no\n", {}, "column 2", "needs the rater's name"),
        (b"item,r1,r1\ni1,yes,no\n", {}, "column 3", "rater 'r1' is also column 2"),
        (b"item,yes,no\ni1,2,0\ni2,1,two\n", {"shape": "counts"}, "line 3, column no", "expected a count (a whole number), got 'two'"),
        (b"item,r1,r2\ni1,1,2\n", {"col.item": "9"}, "col.item", "expected a column of the file, 1 to 3"),
        (b"item,r1,r2\ni1,1,2\n", {"col.picked.shown": "1"}, "col.picked", "choose the assessors' columns"),
        (b"item,r1,r2\ni1,1,2\n", {"scale.level": "interval", "scale.minimum": "5", "scale.maximum": "1"}, "scale.maximum", "more than the minimum"),
        (b"item,r1,r2\ni1,1,2\n", {"scale.level": "interval", "scale.minimum": "one"}, "scale.minimum", "expected a finite number"),
        (b"item,r1,r2\ni1,,\n", {}, "file", "no ratings"),
        (b"item,r1,r2\ni1,1,2\n", {"shape": "square"}, "shape", "unknown shape 'square'"),
    ],
)  # fmt: skip
def test_a_bad_table_is_refused_naming_where_and_nothing_is_written(organiser, people, raw, fields, field, message):
    campaign = new(people)
    before = stored(campaign)
    page = preview(organiser, campaign, "bad.csv", raw, **fields)
    assert page.status_code == 400
    error = page.context["error"]
    assert (error.field, message in error.message) == (field, True), (error.field, error.message)
    assert stored(campaign) == before
    if "table" in page.context:  # the layout and the scale to correct are shown with the error
        assert b'id="import-confirm"' in page.content


def test_a_campaign_with_judgments_keeps_its_scale(organiser, people):
    campaign = new(people, level="ordinal", categories=["0", "1", "2", "3"])
    preview(organiser, campaign, "first.csv", b"item,r1,r2\ni1,1,2\n")
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
    before = stored(campaign)
    page = preview(organiser, campaign, "more.csv", b"item,r3,r4\ni2,1,4\n")
    assert page.status_code == 200
    (off,) = page.context["preview"].problems  # listed at the preview, to skip (r4's judgment), or cancel
    assert (off.kind, off.rows, off.examples) == (
        "label",
        1,
        [
            (
                "line 2, column r4",
                "'4' is not a category of the scale (ordinal: 0 < 1 < 2 < 3): add it to the categories below",
            )
        ],
    )
    assert [f.name for f in page.context["table"].scale_fields] == ["scale.cant_tell"]  # nothing else to change
    page = preview(organiser, campaign, "more.csv", b"item,r3,r4\ni2,1,3\n", **{"scale.level": "interval"})
    assert page.context["error"].field == "scale.level"
    assert stored(campaign) == before
    page = preview(organiser, campaign, "more.csv", b"item,r3,r4\ni2,1,3\n")
    assert page.context["table"].fixed and page.context["table"].scale_text == "ordinal: 0 < 1 < 2 < 3"
    assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302


def test_a_judgment_saved_between_preview_and_confirm_keeps_the_scale(organiser, people):
    """The scale the preview proposes is set only while the campaign has no judgments: one
    submitted meanwhile refuses the confirmation, which writes nothing."""
    campaign = new(people)
    topics = json.dumps([{"external_id": "t1", "data": {"items": [{"id": "i1", "text": "one"}]}}]).encode()
    preview(organiser, campaign, "topics.json", topics)
    organiser.post(url(campaign), {"step": "confirm"})
    page = preview(organiser, campaign, "scores.csv", b"item,r2,r3\ni1,1,2\n")
    assert page.context["table"].scale_text == "interval: numbers from 1 to 2 in steps of 1"
    add_member(campaign=campaign, username="alice", role="assessor")
    topic = Topic.objects.get(campaign=campaign)
    Judgment.objects.create(
        topic=topic, assessor=people["alice"], payload={"labels": {"i1": "yes"}}, status=Judgment.Status.SUBMITTED
    )
    before = stored(campaign)
    form = {"scale.level": "interval", "scale.minimum": "1", "scale.maximum": "2", "scale.step": "1"}
    page = organiser.post(url(campaign), {"step": "confirm", **form})
    assert page.status_code == 400 and page.context["error"].field == "scale.level"
    assert stored(campaign) == before


def test_the_params_change_is_refused_in_the_write_if_judgments_came_meanwhile(people):
    """The last transaction's check (write.py, ``_change_params``): judgments beside the import's refuse it whole."""
    campaign = new(people)
    topics = check.check_topics(campaign, [{"external_id": "t", "data": {"items": [{"id": "i", "text": "i"}]}}])
    after = {**campaign.params, "level": "ordinal", "categories": ["1", "2"]}
    payload = check.judgment_table().prepare("payload", {"labels": {"i": "1"}})
    judgments = check.CheckedJudgments(campaign, check.WorkerAccounts(new=["r9"], existing={}), [("t", "r9", payload)])
    stale = check.ParamsChange(before={**campaign.params, "batch": 3}, after=after)
    before = stored(campaign)
    with pytest.raises(InvalidInput, match="params changed while"):
        write_checked(topics, judgments=judgments, params=stale)
    assert stored(campaign) == before
    write_checked(topics, judgments=judgments, params=check.ParamsChange(before=dict(campaign.params), after=after))
    assert Campaign.objects.get(pk=campaign.pk).params == after


def test_a_huge_count_is_refused_by_the_cells_budget_before_its_ratings_are_made(organiser, people, settings):
    settings.CONCORD_IMPORT_MAX_CELLS = 10_000
    campaign = new(people)
    before = stored(campaign)
    page = preview(organiser, campaign, "counts.csv", b"item,yes,no\ni1,2,0\ni2,1000000000,1\n", shape="counts")
    assert page.status_code == 400
    assert "more than 10,000 cells to read" in page.context["error"].message
    assert stored(campaign) == before


# -- the sample files of each shape ------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(name for name, spec in KINDS.items() if spec.tables is not None))
def test_every_rating_table_sample_imports_through_the_wizard(organiser, people, kind):
    spec = KINDS[kind]
    shapes = {"wide.csv", "wide-excel.csv", "wide.xlsx", "long.csv", "counts.csv"}
    files = {s.name.removeprefix(f"{kind}-"): s.content for s in samples.samples(spec)}
    offered = {name for name in files if name in shapes}
    assert offered == {"wide.csv", "wide-excel.csv", "wide.xlsx"} | {
        f"{shape}.csv" for shape in ("long", "counts") if shape in spec.tables.shapes
    }
    page = organiser.get(f"/campaigns/{new(people, kind).pk}/uploads/").content.decode()
    for name in offered:
        assert f"/uploads/samples/{kind}-{name}" in page
    for name in sorted(offered):
        campaign = create_campaign(
            creator=people["organiser"], kind=kind, name=name, overlap=1, params=dict(spec.examples.params)
        )
        preview(organiser, campaign, "topics.json", files["topics.json"])
        assert organiser.post(url(campaign), {"step": "confirm"}).status_code == 302
        # Counts are guessed when every row counts as many raters; the example's do not: chosen.
        shape = {"shape": "counts"} if name == "counts.csv" else {}
        page = preview(organiser, campaign, name, files[name], **shape)
        assert page.status_code == 200, (name, page.context.get("error"))
        assert organiser.post(url(campaign), {"step": "confirm", **shape}).status_code == 302
        assert Judgment.objects.filter(topic__campaign=campaign).count() == 2, name
        User.objects.filter(username__regex=r"^(assessor-|c\d+-anonymous-)").delete()


# -- known answers: a control column ----------------------------------------------------------


CONTROLLED = (
    b"item,text,control,attention,r1,r2\n"
    b"i1,Good.,positive,,positive,neutral\n"
    b"i2,Say negative.,,negative,negative,negative\n"
    b"i3,Fine.,,,neutral,positive\n"
)
CATEGORIES = {"scale.level": "ordinal", "scale.categories": "negative\nneutral\npositive", "scale.cant_tell": ""}


@pytest.mark.parametrize("variant", ["csv", "xlsx"])
def test_a_control_column_gives_the_units_known_answers(organiser, people, variant):
    """A wide table's ``control`` and ``attention`` columns are read as the units' known answers
    (stored apart from the topic's data), not as raters."""
    campaign = new(people)
    raw, name = CONTROLLED, "controlled.csv"
    if variant == "xlsx":
        rows = [line.split(",") for line in CONTROLLED.decode().splitlines()]
        raw, name = xlsx([[cell or None for cell in row] for row in rows]), "controlled.xlsx"
    page = preview(organiser, campaign, name, raw, **CATEGORIES)
    assert page.status_code == 200, page.context.get("error")
    assert layout(page)["control"] == "3: control" and layout(page)["attention"] == "4: attention"
    assert layout(page)["picked"] == ["5: r1", "6: r2"]
    assert dict(page.context["preview"].counts)["known answers (controls)"] == 2
    assert organiser.post(url(campaign), {"step": "confirm", **CATEGORIES}).status_code == 302
    topic = Topic.objects.get(campaign=campaign)
    assert sorted(topic.controls.values_list("item", "answer", "attention")) == [
        ("i1", "positive", False),
        ("i2", "negative", True),
    ]
    assert "control" not in json.dumps(topic.data) and "positive" not in json.dumps(topic.data)
    assert set(
        Membership.objects.filter(campaign=campaign, imported=True).values_list("user__username", flat=True)
    ) == {
        "r1",
        "r2",
    }


def test_a_bad_known_answer_in_a_table_is_refused_naming_its_row_and_column(organiser, people):
    campaign = new(people)
    before = stored(campaign)
    raw = CONTROLLED.replace(b"i1,Good.,positive", b"i1,Good.,great")
    page = preview(organiser, campaign, "controlled.csv", raw, **CATEGORIES)
    assert page.status_code == 400
    error = page.context["error"]
    assert error.field.startswith("line 2, column control") and "great" in error.message
    assert stored(campaign) == before
