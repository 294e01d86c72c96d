"""Where the nuggets' and factoids' stability curves cross a chosen tau / rho."""

from __future__ import annotations

import pytest

from annotate.services.curations import save_curation
from kinds.factoids.tests.test_report import annotated  # noqa: F401 (fixture)
from tests.analyses import crossing_by_hand, run_analysis


@pytest.mark.django_db
def test_factoids_stability_job_reports_the_crossing(annotated, people, client, django_capture_on_commit_callbacks):  # noqa: F811
    campaign, topic = annotated
    save_curation(
        topic=topic,
        name="consensus",
        version=0,
        user=people["organiser"],
        data={
            "factoids": [{"id": "C1", "text": "x"}, {"id": "C2", "text": "y"}],
            "marks": {"a1": ["C1"], "c1": ["C2"], "e1": ["C1", "C2"]},
        },
    )
    params = {"max_n": 8, "pairs": 30, "n": 3}
    default = run_analysis(campaign, "wfs-stability", params, django_capture_on_commit_callbacks)
    curve = default.result["stability"]
    # N = 3: 0.79375, N = 4: 0.90888 -> 3 + (0.9 - 0.79375) / (0.90888 - 0.79375) = 3.92289 model summaries
    assert default.result["crossing"] == {"level": 0.9, "at": pytest.approx(3.9228851, abs=1e-6), "within": 8}
    assert default.result["crossing"] == {"level": 0.9, **crossing_by_hand(curve["sizes"], curve["mean_rho"], 0.9)}
    defined = [v for v in curve["mean_rho"] if v is not None]
    level = (min(defined) + max(defined)) / 2
    job = run_analysis(campaign, "wfs-stability", {**params, "rho": level}, django_capture_on_commit_callbacks)
    crossed = job.result["crossing"]
    assert crossed == {"level": level, **crossing_by_hand(curve["sizes"], curve["mean_rho"], level)}
    assert crossed["at"] is not None and 1 <= crossed["at"] <= 8
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="rho-crossing"' in page and "reference summaries" in page
