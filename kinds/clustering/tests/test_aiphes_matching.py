"""AIPHES --documents: nuggets are tokenised unlike their source sentences (``they 're``,
``is n't``, ``''``); matched on a normal form, all 88 nuggets of topic 1002 find their
document (47 did before), and the import says how many did not."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.services.campaigns import create_campaign
from kinds.clustering.importers import match_key, read_aiphes_topic

DATA = Path(__file__).resolve().parents[3] / "data" / "aiphes-hiersum"
NUGGETS = DATA / "Trees" / "Input" / "Topic_1002_cellphone_for_12_years_old_kid.txt"
SOURCES = DATA / "SourceDocuments" / "HierarchicalSum_1002.xml"
TREES = sorted((DATA / "Trees" / "FinishedTrees").glob("Annotator*/Topic_1002_*.xml"))


def test_every_nugget_of_topic_1002_is_placed_in_a_source_document():
    data = read_aiphes_topic(NUGGETS.read_bytes(), topic="1002", documents=SOURCES.read_bytes())["data"]
    placed = [s for s in data["sentences"] if s["document"] != "unknown"]
    assert (len(data["sentences"]), len(placed)) == (88, 88)
    assert len(data["documents"]) == 26
    nugget = next(s for s in data["sentences"] if s["text"].startswith("For parents, it 's a balancing act"))
    assert nugget["document"] != "unknown"


@pytest.mark.parametrize(
    ("nugget", "source"),
    [
        ("when they 're fifth grade", "when they're fifth grade"),
        ("was n't arrested", "wasn't arrested"),
        ("to  gross her out '' was", 'to "gross her out" was'),
        ("In December, Telef nica, which", "In December, Telef\u00f3nica, which"),
        ("I 'll send them", "I\u2019ll send them"),
    ],
)
def test_the_match_key_ignores_tokenisation_quotes_case_and_lost_letters(nugget, source):
    assert match_key(nugget) == match_key(source)
    assert match_key(nugget) != ""


def test_a_nugget_found_nowhere_goes_to_unknown():
    data = read_aiphes_topic(
        "0\tNot in any document at all.\n1\tBrandon Gonzales, 12, has been using a cellphone since he was 10.\n",
        topic="1002",
        documents=SOURCES.read_bytes(),
    )["data"]
    assert [s["document"] == "unknown" for s in data["sentences"]] == [True, False]


@pytest.mark.django_db
def test_the_command_reports_how_many_nuggets_were_not_placed(people):
    campaign = create_campaign(creator=people["organiser"], kind="clustering", name="AIPHES")
    out = io.StringIO()
    call_command(
        "import_aiphes", str(campaign.pk), str(NUGGETS), "--trees", *map(str, TREES),
        "--topic", "1002", "--documents", str(SOURCES), stdout=out,
    )  # fmt: skip
    assert out.getvalue().strip().endswith("88 of 88 nuggets placed in their source documents, 0 not placed.")
    assert len(TREES) == 3
