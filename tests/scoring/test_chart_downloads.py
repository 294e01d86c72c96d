"""A large campaign's report stays small: the RTE import (164 workers) renders a report fragment
under 200 KB with a heatmap of 30 assessors, and the whole 164 x 164 matrix is a CSV download."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from annotate.services.campaigns import create_campaign
from scoring.charts import specs_in
from scoring.selectors import campaign_report

pytestmark = pytest.mark.django_db

RTE = Path(__file__).resolve().parents[2] / "data" / "snow2008" / "rte.csv"


@pytest.fixture
def rte(people, django_capture_on_commit_callbacks):
    campaign = create_campaign(creator=people["organiser"], kind="pairs", name="RTE", overlap=10)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_judgments", campaign.pk, str(RTE), stdout=io.StringIO())
    return campaign


def test_the_rte_report_fragment_stays_small_and_the_full_matrix_downloads_from_report_fields_only(client, people, rte):
    client.force_login(people["organiser"])
    fragment = client.get(f"/campaigns/{rte.pk}/report/").content.decode()
    assert len(fragment.encode()) < 200_000, len(fragment.encode())
    assert fragment.count('<td class="kappa">') == 100 and "Showing the 100 of" in fragment
    (heatmap,) = [s for s in specs_in(fragment) if s["type"] == "heatmap"]
    assert len(heatmap["names"]) == 30 and "the other 134 are in the full matrix" in heatmap["caption"]

    report = campaign_report(rte).data
    response = client.get(heatmap["full_csv"])
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["", *report.names] and len(rows) == 165 and all(len(r) == 165 for r in rows)
    i, j = 3, 7
    expected = report.kappa_matrix[i][j]
    assert rows[i + 1][j + 1] == ("" if expected is None else repr(expected))
    # Names that look like formulas are neutralised in the header too (scoring/csvfiles.py).
    assert all(not cell.startswith(("=", "+", "-", "@")) for cell in rows[0])

    # The download reads report fields only, of a matrix, in one's own campaign (the same
    # import: building it costs a minute on a busy machine).
    base = f"/campaigns/{rte.pk}/report/matrix.csv"
    assert client.get(base, {"names": "names", "values": "__class__"}).status_code == 404
    assert client.get(base, {"names": "names", "values": "fleiss"}).status_code == 404  # not a matrix
    assert client.get(base, {"names": "names", "values": "nothing"}).status_code == 404
    client.force_login(people["alice"])
    assert client.get(base, {"names": "names", "values": "kappa_matrix"}).status_code == 404  # not her campaign
