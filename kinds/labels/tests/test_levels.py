"""Krippendorff's alpha at every level the scale permits (kinds/labels/analyses.py
``levels_analysis``): each level's alpha equals the ``krippendorff`` package's on the same
table to 1e-9 (a complete table and tables with missing labels), the scale's own level equals
the report's figure and interval exactly, and a level the scale does not permit is neither
offered in the form nor accepted in a request (refused naming ``params.levels[k]``, no job)."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from irrCAC import datasets

from annotate.models import Campaign
from concord import typed
from concord.errors import InvalidInput
from kinds.labels.analyses import levels_analysis, permitted_levels
from kinds.labels.data import Scale
from kinds.labels.tests.test_report import FIVE, LEVELS, SHROUT_FLEISS, five_observers, labels_campaign, report_of
from scoring import services as scoring_services
from scoring.models import Job
from scoring.selectors import report_input

pytestmark = pytest.mark.django_db


def reference(table, scale: Scale, level: str) -> float:
    """krippendorff.alpha at ``level`` of items x raters ``table`` (the scale's values; None or NaN none)."""
    data = np.full(np.shape(table), np.nan)
    for (i, k), value in np.ndenumerate(np.asarray(table, dtype=object)):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        data[i, k] = float(value) if scale.numeric else scale.code(value)
    return float(krippendorff.alpha(reliability_data=data.T, level_of_measurement=level))


def run(campaign, levels=None) -> dict:
    params = {} if levels is None else {"levels": levels}
    return levels_analysis(report_input(campaign), params, lambda share, message: None)


def four_raters(categories: bool):
    table = datasets.raw_4raters().to_numpy(dtype=np.float64)
    if categories:
        return np.array([[None if math.isnan(v) else str(int(v)) for v in row] for row in table], dtype=object)
    return table


CASES = {
    # Shrout & Fleiss (1979): complete, 6 items x 4 judges, 1-10 (every level)
    "complete 1-10": (SHROUT_FLEISS, {"level": "interval", "minimum": 1, "maximum": 10}, None),
    # Krippendorff (2011): 12 units x 4 coders, 1-5, labels missing (every level), in three topics
    "missing 1-5": (four_raters(False), {"level": "ratio", "minimum": 1, "maximum": 5, "cant_tell": True}, [5, 4, 3]),
    # the same as ordered categories (nominal, ordinal)
    "missing ordinal": (four_raters(True), {"level": "ordinal", "categories": FIVE, "cant_tell": True}, None),
    # Gwet's raw_5observers, 0-3 with missing labels: an interval scale from 0 (no ratio)
    "missing 0-3": (five_observers("interval"), LEVELS["interval"], [4, 6, 5]),
    "missing nominal": (five_observers("nominal"), LEVELS["nominal"], None),
}
PERMITTED = {
    "complete 1-10": ["nominal", "ordinal", "interval", "ratio"],
    "missing 1-5": ["nominal", "ordinal", "interval", "ratio"],
    "missing ordinal": ["nominal", "ordinal"],
    "missing 0-3": ["nominal", "ordinal", "interval"],
    "missing nominal": ["nominal"],
}


@pytest.mark.parametrize("case", list(CASES))
def test_alpha_at_every_permitted_level_is_krippendorffs(make_user, case):
    table, params, sizes = CASES[case]
    campaign = labels_campaign(make_user, case.replace(" ", "-"), table, params, sizes)
    scale = Scale.of(campaign.params)
    result = run(campaign)
    assert [row["level"] for row in result["levels"]] == PERMITTED[case] == permitted_levels(scale)
    for row in result["levels"]:
        assert row["alpha"]["value"] == pytest.approx(reference(table, scale, row["level"]), abs=1e-9), row["level"]
    # the scale's own level is the report's figure, interval and all
    (own,) = [row for row in result["levels"] if row["report"]]
    assert own["level"] == scale.level == result["scale_level"]
    assert own["alpha"] == typed.dump(report_of(campaign).alpha)
    assert result["items"] == report_of(campaign).items_paired


def test_krippendorffs_published_values_at_every_level(make_user):
    """Krippendorff (2011), the 4 coders x 12 units example: .743, .815, .849, .797."""
    table, params, sizes = CASES["missing 1-5"]
    result = run(labels_campaign(make_user, "published", table, params, sizes))
    found = {row["level"]: round(row["alpha"]["value"], 3) for row in result["levels"]}
    assert found == {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    assert all(row["alpha"]["method"] == "too few" for row in result["levels"])  # 11 items: under the minimum


def test_some_levels_on_request(make_user):
    table, params, sizes = CASES["complete 1-10"]
    campaign = labels_campaign(make_user, "some", table, params, sizes)
    result = run(campaign, ["ratio", "nominal"])
    assert [row["level"] for row in result["levels"]] == ["nominal", "ratio"]  # in the levels' order
    assert [row["report"] for row in result["levels"]] == [False, False]


@pytest.mark.parametrize(
    ("case", "levels", "field", "refused"),
    [
        ("missing nominal", ["ordinal"], "params.levels[0]", "ordinal"),
        ("missing ordinal", ["nominal", "interval"], "params.levels[1]", "interval"),
        ("missing 0-3", ["ratio"], "params.levels[0]", "ratio"),
        ("missing 0-3", ["binary"], "params.levels[0]", "binary"),
    ],
)
def test_a_level_the_scale_does_not_permit_is_refused_naming_the_field(make_user, case, levels, field, refused):
    table, params, sizes = CASES[case]
    campaign = labels_campaign(make_user, "refused", table, params, sizes)
    with pytest.raises(InvalidInput) as error:
        scoring_services.start_analysis(campaign=campaign, analysis="levels", params={"levels": levels}, user=None)
    assert error.value.field == field and repr(refused) in error.value.message
    assert ", ".join(PERMITTED[case]) in error.value.message  # what it may ask for instead
    assert not Job.objects.filter(campaign=campaign).exists()
    with pytest.raises(InvalidInput) as error:  # the run refuses it as well, were it asked otherwise
        run(campaign, levels)
    assert error.value.field == field


def test_the_form_offers_the_permitted_levels_and_the_job_page_shows_the_table(
    make_user, client, django_capture_on_commit_callbacks
):
    table, params, sizes = CASES["missing 0-3"]
    campaign = labels_campaign(make_user, "page", table, params, sizes)
    organiser = Campaign.objects.get(pk=campaign.pk).created_by
    client.force_login(organiser)
    page = client.get(f"/campaigns/{campaign.pk}/?section=analyses").content.decode()
    start = page.index('value="levels"')
    form = page[start : page.index("</form>", start)]
    offered = [level for level in ("nominal", "ordinal", "interval", "ratio") if f'value="{level}"' in form]
    assert offered == ["nominal", "ordinal", "interval"]
    # a level not offered, posted anyway: refused naming the field, no job
    response = client.post(
        f"/campaigns/{campaign.pk}/analyses/",
        {"analysis": "levels", "params.levels": ["nominal", "ratio"], "params.levels.shown": "1"},
    )
    assert response.status_code == 400 and "params.levels[1]" in response.content.decode()
    assert not Job.objects.filter(campaign=campaign).exists()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/campaigns/{campaign.pk}/analyses/",
            {"analysis": "levels", "params.levels": ["nominal", "interval"], "params.levels.shown": "1"},
        )
    job = Job.objects.get(campaign=campaign)
    assert response.status_code == 302 and job.status == "done", job.message
    shown = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="alpha-levels-table"' in shown and "the report's level" in shown
    interval = next(row for row in job.result["levels"] if row["level"] == "interval")
    assert f"{interval['alpha']['value']:.3f}" in shown
