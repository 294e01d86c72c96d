"""Where the nuggets' and factoids' stability curves cross a chosen tau / rho."""

from __future__ import annotations

import pytest

from concord.errors import InvalidInput
from kinds.nuggets import demo as nuggets_demo
from kinds.nuggets.analyses import tau_crossing
from scoring import services as scoring_services
from tests.analyses import crossing_by_hand, run_analysis


def test_nuggets_curve_crossing_from_figure_2():
    figure = {"figures_2_3": {"sizes": [1, 2, 3], "mean_tau": [0.6, 0.8, None]}}
    assert tau_crossing(figure, 0.7) == {"level": 0.7, "at": pytest.approx(1.5, abs=1e-12), "within": 2}
    assert tau_crossing(figure, 0.9) == {"level": 0.9, "at": None, "within": 2}


@pytest.mark.django_db
def test_nuggets_stability_job_reports_the_crossing(people, make_user, client, django_capture_on_commit_callbacks):
    campaign = nuggets_demo.build(people["organiser"], [make_user(n) for n in nuggets_demo.SIMULATED], [])
    default = run_analysis(campaign, "stability", {}, django_capture_on_commit_callbacks)
    curve = default.result["figures_2_3"]
    assert curve["sizes"] == [1, 2, 3, 4, 5]
    assert curve["mean_tau"][:2] == pytest.approx([0.886222222, 0.908444444], abs=1e-9)
    # 1 + (0.9 - 0.886222) / (0.908444 - 0.886222) = 1 + 0.013778 / 0.022222 = 1.62 assessors
    assert default.result["crossing"] == {"level": 0.9, "at": pytest.approx(1.62, abs=1e-9), "within": 5}
    assert default.result["crossing"] == {"level": 0.9, **crossing_by_hand(curve["sizes"], curve["mean_tau"], 0.9)}
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{default.pk}/").content.decode()
    assert 'id="tau-crossing"' in page and "at <strong>1.62</strong> assessors" in page
    # 0.95 is above the whole curve (0.92 at five assessors)
    above = run_analysis(campaign, "stability", {"tau": 0.95}, django_capture_on_commit_callbacks)
    assert above.result["crossing"] == {"level": 0.95, "at": None, "within": 5}
    assert "not reached within 5</strong> assessors" in client.get(f"/jobs/{above.pk}/").content.decode()
    with pytest.raises(InvalidInput) as error:
        scoring_services.start_analysis(campaign=campaign, analysis="stability", params={"tau": 1.5}, user=None)
    assert error.value.field == "params.tau"
