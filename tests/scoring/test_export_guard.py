"""Exports write Concord's numbers as numbers and guard only text; numbers
read from query strings, forms, files and the environment are ASCII digits.

- The spreadsheet-formula guard is type-aware in one place
  (scoring.csvfiles.neutralise): a negative score stays -0.0214, a user's
  "-2+3" becomes '-2+3; the comparisons table writes each 95 % interval as
  two number columns (low, high) instead of the text "-0.0214..0.3214".
- concord.digits.whole_number reads whole numbers: int() and isdigit() take
  "٣" (Arabic-Indic), "३", "３" (fullwidth), "³" (isdigit only), "1_000",
  " 3 ", which no query string, form field or file of Concord means.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from django.utils import timezone

from annotate.imports.write import import_topics
from annotate.models import Curation
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.clustering.importers import read_aiphes_topic
from scoring.csvfiles import neutralise, write_csv
from scoring.models import Job

pytestmark = pytest.mark.django_db

NOT_ASCII_DIGITS = ["٣", "३", "３", "³", "1_000", " 3", "3 ", "+3", "-3", "3.0", "", "0x3", "3\n", "1" * 19]


# -- the guard ---------------------------------------------------------------------


def test_numbers_are_written_as_numbers_text_is_guarded():
    numbers = [-0.0214, 0.3214, -3, 0, np.float64(-0.5), np.int64(-2), np.float32(-1.5), Decimal("-1.25")]
    assert [neutralise(n) for n in numbers] == numbers
    assert write_csv(["x"], [[-0.0214], [np.float64(-0.5)], [np.int64(-2)]]) == "x\n-0.0214\n-0.5\n-2\n"
    text = ["=1+1", "+1", "-1", "-0.0214", "@SUM(A1)", "\tx", "\rx", "-0.0214..0.3214"]
    assert [neutralise(t) for t in text] == ["'" + t for t in text]
    assert [neutralise(t) for t in ("ok", "a-b", "")] == ["ok", "a-b", ""]
    assert neutralise(None) == ""


def evaluation(campaign, low: float) -> Job:
    """A finished evaluation whose Random confidence intervals start below zero."""
    result = {
        "systems": ["=sys1", "sys2"],
        "pairs": [["=sys1", "sys2"]],
        "statements": {"consensus": ["=sys1 > sys2"]},
        "fixed": {"consensus": {"f1": [0.5, 0.25], "p_values": [0.03]}},
        "table2": [
            {"truth": "consensus", "sensitivity": 0.5, "disagreement": None, "reversal": None},
            {"truth": "union", "sensitivity": 0.25, "disagreement": -0.125, "reversal": 0.0},
        ],
        "random": {
            "mean_sensitivity": 0.125,
            "mean_disagreement": -0.0625,
            "n_reversals": 2,
            "n_sets": 24,
            "sensitivity_ci": [low, 0.3214],
            "disagreement_ci": [-0.5, 0.25],
        },
    }
    return Job.objects.create(
        campaign=campaign, analysis="evaluation", status=Job.Status.DONE, result=result, finished_at=timezone.now()
    )


@pytest.fixture
def admin(api, people):
    return api(people["admin"])


def export(client, campaign, truth: str, fmt: str = "csv"):
    return client.get(f"/api/campaigns/{campaign.pk}/export/", {"format": fmt, "truth": truth})


def test_the_comparisons_table_writes_intervals_as_two_number_columns(admin, campaign):
    evaluation(campaign, low=-0.0214)
    response = export(admin, campaign, "comparisons")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == [
        "truth",
        "sensitivity",
        "disagreement",
        "reversal",
        "random_sets",
        "sensitivity_ci95_low",
        "sensitivity_ci95_high",
        "disagreement_ci95_low",
        "disagreement_ci95_high",
    ]
    random = rows[-1]
    assert random["truth"] == "random (mean)"
    assert (random["sensitivity_ci95_low"], random["sensitivity_ci95_high"]) == ("-0.0214", "0.3214")
    assert (random["disagreement_ci95_low"], random["disagreement_ci95_high"]) == ("-0.5", "0.25")
    assert random["disagreement"] == "-0.0625" and rows[1]["disagreement"] == "-0.125"
    assert float(random["sensitivity_ci95_low"]) == -0.0214
    assert not [v for row in rows for v in row.values() if v.startswith("'")]


def test_the_statements_table_guards_run_names_not_numbers(admin, campaign):
    evaluation(campaign, low=-0.0214)
    rows = list(csv.reader(io.StringIO(export(admin, campaign, "statements").content.decode())))
    assert rows[1] == ["consensus", "'=sys1", "sys2", "'=sys1 > sys2", "0.5", "0.25", "0.03"]


# -- ASCII digits --------------------------------------------------------------------


def test_whole_number_takes_ascii_digits_only():
    assert [whole_number(t) for t in ("0", "3", "0042", "1" * 18)] == [0, 3, 42, int("1" * 18)]
    assert [whole_number(t) for t in NOT_ASCII_DIGITS] == [None] * len(NOT_ASCII_DIGITS)
    assert whole_number("-3", signed=True) == -3 and whole_number("-٣", signed=True) is None
    assert whole_number(3) is None and whole_number(None) is None


@pytest.fixture
def judged(campaign, people):
    for topic in campaign.topics.all():
        for name in ("alice", "bob"):
            save_judgment(
                topic=topic,
                assessor=people[name],
                version=0,
                status="submitted",
                payload={"matches": {c["id"]: True for c in topic.data["candidates"]}},
            )
    return campaign


@pytest.mark.parametrize("k", ["٣", "३", "３", "³", "+3", " 3", "3_0", "-1", "1" * 19, ""])
def test_random_truth_sets_need_ascii_digits(admin, people, judged, k):
    response = export(admin, judged, f"random:{k}", "qrels")
    assert response.status_code == 400 and response.json()["field"] == "truth"
    page = Client()
    page.force_login(people["admin"])
    response = page.get(f"/campaigns/{judged.pk}/export/download/", {"format": "qrels", "truth": f"random:{k}"})
    assert response.status_code == 400 and "truth" in response.content.decode()


def test_random_truth_sets_by_number_still_work(admin, judged):
    three = export(admin, judged, "random:3", "qrels")
    assert three.status_code == 200 and len(three.content.decode().splitlines()) == 3 * 4
    assert export(admin, judged, "random:0003", "qrels").content == three.content


def test_a_relations_version_in_other_digits_saves_nothing(people, world_factoids):
    campaign, topic = world_factoids
    client = Client()
    client.force_login(people["organiser"])
    response = client.post(
        f"/campaigns/{campaign.pk}/topics/{topic.external_id}/relations/", {"version": "٠", "alice|bob": "F1 | F1"}
    )
    assert response.status_code == 200 and "version" in response.content.decode()
    assert not Curation.objects.filter(topic=topic, name="relations").exists()
    response = client.post(
        f"/campaigns/{campaign.pk}/topics/{topic.external_id}/relations/", {"version": "0", "alice|bob": "F1 | F1"}
    )
    assert response.status_code == 302 and Curation.objects.filter(topic=topic, name="relations").exists()


@pytest.fixture
def world_factoids(people):
    payload = {"factoids": [{"id": "F1", "text": "Iraq invaded Kuwait"}], "marks": {"m1": ["F1"]}}
    campaign = create_campaign(creator=people["organiser"], kind="factoids", name="K", overlap=2)
    for name in ("alice", "bob"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "k",
                "data": {
                    "summaries": [
                        {"id": "M1", "author": "a", "sentences": [{"id": "m1", "text": "Iraq invaded Kuwait."}]}
                    ]
                },
            }
        ],
    )
    for name in ("alice", "bob"):
        save_judgment(topic=topic, assessor=people[name], payload=payload, status="submitted", version=0)
    return campaign, topic


def test_aiphes_nugget_ids_are_ascii_digits():
    assert read_aiphes_topic("3\tA nugget\n", topic="1")["data"]["sentences"][0]["position"] == 3
    for bad in ("٣", "３", "³", "1_0"):
        with pytest.raises(InvalidInput) as error:
            read_aiphes_topic(f"{bad}\tA nugget\n", topic="1")
        assert error.value.field == "line 1"


def test_settings_numbers_are_ascii_digits(monkeypatch):
    from concord.env import env_int

    monkeypatch.setenv("CONCORD_TEST_NUMBER", "٣")
    with pytest.raises(ImproperlyConfigured):
        env_int("CONCORD_TEST_NUMBER", 1)
    monkeypatch.setenv("CONCORD_TEST_NUMBER", " 30 ")
    assert env_int("CONCORD_TEST_NUMBER", 1) == 30


def test_worker_ids_need_ascii_digits():
    from scoring.services import worker_alive, worker_id

    host, pid, boot = worker_id().split(":", 2)
    assert worker_alive(f"{host}:{pid}:{boot}") is not None  # this machine can tell (False: no db_worker)
    assert worker_alive(f"{host}:{''.join(chr(0x0660 + int(d)) for d in pid)}:{boot}") is None
