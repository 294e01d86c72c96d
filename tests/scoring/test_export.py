"""Gold-standard exports: truth sets, vote counts, qrels, CSV safety, admins only."""

from __future__ import annotations

import csv
import io

import pytest

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring.csvfiles import neutralise, write_csv

pytestmark = pytest.mark.django_db


@pytest.fixture
def adjudicated(people):
    """One query, four candidates, three adjudicators; votes chosen to hit every rule.

    alice and bob submit; carol keeps a partial draft, which no export counts.
    """
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="E", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    (topic,) = import_topics(
        campaign=campaign,
        topics=[
            {
                "external_id": "=q1",
                "data": {"query": "Q", "candidates": [{"id": f"c{i}", "text": f"C{i}"} for i in range(1, 5)]},
            }
        ],
    )
    votes = {
        "alice": {"c1": True, "c2": True, "c3": True, "c4": False},
        "bob": {"c1": True, "c2": True, "c3": False, "c4": False},
        "carol": {"c1": True, "c2": False, "c4": False},
    }
    for name, matches in votes.items():
        status = "draft" if name == "carol" else "submitted"
        save_judgment(topic=topic, assessor=people[name], payload={"matches": matches}, status=status, version=0)
    # carol's partial draft does not count until she submits.
    return campaign


def rows(api, people, campaign, truth, fmt="csv"):
    response = api(people["admin"]).get(f"/api/campaigns/{campaign.pk}/export/", {"format": fmt, "truth": truth})
    assert response.status_code == 200, response.content
    return response


def test_consensus_union_intersection_single(api, people, adjudicated):
    def labels(truth):
        body = rows(api, people, adjudicated, truth).content.decode()
        return {r["candidate"]: (r["label"], r["matches"], r["judged"]) for r in csv.DictReader(io.StringIO(body))}

    # Only alice and bob submitted: c1 2/2, c2 2/2, c3 1/2 (tie), c4 0/2.
    assert labels("consensus") == {
        "c1": ("1", "2", "2"),
        "c2": ("1", "2", "2"),
        "c3": ("1", "1", "2"),
        "c4": ("0", "0", "2"),
    }
    assert {k: v[0] for k, v in labels("union").items()} == {"c1": "1", "c2": "1", "c3": "1", "c4": "0"}
    assert {k: v[0] for k, v in labels("intersection").items()} == {"c1": "1", "c2": "1", "c3": "0", "c4": "0"}
    assert {k: v[0] for k, v in labels("single:bob").items()} == {"c1": "1", "c2": "1", "c3": "0", "c4": "0"}


def test_majority_with_a_third_adjudicator(api, people, adjudicated):
    from annotate.models import Judgment

    carol = Judgment.objects.get(assessor__username="carol")
    save_judgment(
        topic=carol.topic,
        assessor=people["carol"],
        payload={"matches": {"c1": True, "c2": False, "c3": False, "c4": False}},
        status="submitted",
        version=1,
    )
    body = rows(api, people, adjudicated, "consensus").content.decode()
    got = {r["candidate"]: (r["label"], r["matches"], r["judged"]) for r in csv.DictReader(io.StringIO(body))}
    assert got == {"c1": ("1", "3", "3"), "c2": ("1", "2", "3"), "c3": ("0", "1", "3"), "c4": ("0", "0", "3")}


def test_qrels_format(api, people, adjudicated):
    response = rows(api, people, adjudicated, "intersection", fmt="qrels")
    assert response.content.decode().splitlines() == ["=q1 0 c1 1", "=q1 0 c2 1", "=q1 0 c3 0", "=q1 0 c4 0"]
    assert (
        response["Content-Disposition"] == f'attachment; filename="campaign-{adjudicated.pk}-qrels-intersection.qrels"'
    )


def test_csv_cells_that_start_a_formula_are_neutralised(api, people, adjudicated):
    body = rows(api, people, adjudicated, "consensus").content.decode()
    assert body.splitlines()[1].startswith("'=q1,c1,consensus,1,2,2")
    assert [neutralise(x) for x in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "ok", 5, -3)] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "'\tx",
        "ok",
        5,
        -3,
    ]
    assert write_csv(["h"], [["=cmd"]]) == "h\n'=cmd\n"


def test_unknown_truth_or_format_is_a_400(api, people, adjudicated):
    client = api(people["admin"])
    bad_truth = client.get(f"/api/campaigns/{adjudicated.pk}/export/", {"format": "csv", "truth": "single:nobody"})
    assert bad_truth.status_code == 400 and bad_truth.json()["field"] == "truth"
    bad_format = client.get(f"/api/campaigns/{adjudicated.pk}/export/", {"format": "xlsx", "truth": "consensus"})
    assert bad_format.status_code == 400 and bad_format.json()["field"] == "format"


def test_export_page_is_for_admins(client, people, adjudicated):
    client.force_login(people["organiser"])
    assert client.get(f"/campaigns/{adjudicated.pk}/export/").status_code == 403
    client.force_login(people["admin"])
    page = client.get(f"/campaigns/{adjudicated.pk}/export/")
    assert page.status_code == 200
    assert b"single:alice" in page.content and b"single:bob" in page.content
    download = client.get(f"/campaigns/{adjudicated.pk}/export/download/", {"format": "qrels", "truth": "union"})
    assert download.content.decode().splitlines()[2] == "=q1 0 c3 1"
