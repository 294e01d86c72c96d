"""Custom agreement weights through the new-campaign form: the weights' select offers
"custom", which takes the matrix typed in its text area (a row a line); the campaign stores
the matrix, the form shows it back, and a bad matrix is refused naming its cell, nothing created."""

from __future__ import annotations

import pytest

from annotate.models import Campaign
from kinds.labels.tests.test_report import CUSTOM_WEIGHTS, LEVELS, five_observers, labels_campaign
from tests.annotate.test_campaign_form_every_kind import FormValues

pytestmark = pytest.mark.django_db

ROWS = "1 0.8 0\n0.8 1 0.5\n0 0.5 1\n"


def sent(client, **changes) -> dict:
    form = FormValues()
    form.feed(client.get("/campaigns/new/?kind=labels").content.decode())
    return {
        **form.values,
        "kind": "labels",
        "overlap": "2",
        "params.level": "ordinal",
        "params.categories": "low\nmid\nhigh",
        **changes,
    }


def test_the_form_stores_a_custom_matrix_and_shows_it_back(client, people):
    client.force_login(people["organiser"])
    page = client.get("/campaigns/new/?kind=labels").content.decode()
    assert '<option value="custom">custom</option>' in page and 'name="params.weights.rows"' in page
    response = client.post(
        "/campaigns/new/", sent(client, name="Own weights", **{"params.weights": "custom", "params.weights.rows": ROWS})
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    stored = Campaign.objects.get(name="Own weights").params
    assert stored["weights"] == [[1.0, 0.8, 0.0], [0.8, 1.0, 0.5], [0.0, 0.5, 1.0]]
    assert stored["categories"] == ["low", "mid", "high"]
    # commas and blank lines read as well; a named weighting stays a name
    response = client.post(
        "/campaigns/new/",
        sent(
            client,
            name="Commas",
            **{"params.weights": "custom", "params.weights.rows": "1, 0.8, 0\n\n0.8,1,0.5\n0;0.5;1"},
        ),
    )
    assert response.status_code == 302
    assert Campaign.objects.get(name="Commas").params["weights"] == stored["weights"]
    response = client.post("/campaigns/new/", sent(client, name="Named", **{"params.weights": "linear"}))
    assert response.status_code == 302 and Campaign.objects.get(name="Named").params["weights"] == "linear"


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ("1 0.8 0\n0.7 1 0.5\n0 0.5 1", "params.weights[1][0]", "symmetric"),
        ("1 0.8 0\n0.8 0.9 0.5\n0 0.5 1", "params.weights[1][1]", "diagonal"),
        ("1 0.8\n0.8 1", "params.weights", "expected 3 rows of 3 numbers"),
        ("1 0.8 0\n0.8 1\n0 0.5 1", "params.weights[1]", "row of 3 numbers"),
        ("1 1.8 0\n1.8 1 0.5\n0 0.5 1", "params.weights[0][1]", "from 0 to 1"),
        ("1 x 0\n0.8 1 0.5\n0 0.5 1", "params.weights[0][1]", "expected a number"),
        ("", "params.weights", "rows"),
    ],
)
def test_a_bad_matrix_is_refused_naming_its_cell_and_nothing_is_created(client, people, rows, field, message):
    client.force_login(people["organiser"])
    values = sent(client, name="Refused", **{"params.weights": "custom", "params.weights.rows": rows})
    response = client.post("/campaigns/new/", values)
    assert response.status_code == 400
    error = response.context["error"]
    assert error.field == field and message in error.message
    assert f"{field}: " in response.content.decode().replace("&#x27;", "'")
    assert not Campaign.objects.filter(name="Refused").exists()
    if error.field.startswith("params.weights") and "expected a number" not in message and rows:
        # the rows typed are shown back, to be corrected
        assert rows.splitlines()[0] in response.content.decode()


def test_the_report_names_the_custom_weights_and_shows_the_matrix(client, make_user):
    params = {**LEVELS["ordinal"], "weights": CUSTOM_WEIGHTS}
    campaign = labels_campaign(make_user, "shown", five_observers("ordinal"), params)
    client.force_login(campaign.created_by)
    page = client.get(f"/campaigns/{campaign.pk}/?section=report").content.decode()
    assert "Gwet's AC2 (custom weights)" in page and 'id="custom-weights-table"' in page
    table = page[
        page.index('id="custom-weights-table"') : page.index("</table>", page.index('id="custom-weights-table"'))
    ]
    assert table.count("<tr>") == 5 and "<td>0.900</td>" in table and "<td>0.600</td>" in table
