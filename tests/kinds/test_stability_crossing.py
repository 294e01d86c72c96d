"""Where the nuggets' and factoids' stability curves cross a chosen tau / rho (issue 15, section 2)."""

from __future__ import annotations

import pytest

from annotate import services
from concord.errors import InvalidInput
from kinds.nuggets import demo as nuggets_demo
from kinds.nuggets.report import tau_crossing
from scoring import services as scoring_services
from scoring.metrics.crossing import Crossing, crossing
from scoring.models import Job
from tests.kinds.test_factoids_report import annotated  # noqa: F401 (fixture)

NAN = float("nan")


@pytest.mark.parametrize(
    ("sizes", "values", "level", "expected"),
    [
        # linear between m=2 (0.85) and m=3 (0.95): 2 + 0.05 / 0.10 = 2.5
        ([1, 2, 3, 4], [0.7, 0.85, 0.95, 0.97], 0.9, Crossing(0.9, 2.5, 4)),
        # the paper's factoid example: 0.8 between N=10 (0.78) and N=11 (0.82)
        ([10, 11, 12], [0.78, 0.82, 0.85], 0.8, Crossing(0.8, 10.5, 12)),
        # uneven sizes: 5 + (0.9 - 0.6) * (10 - 5) / (1.0 - 0.6) = 8.75
        ([1, 5, 10], [0.2, 0.6, 1.0], 0.9, Crossing(0.9, 8.75, 10)),
        # exactly on a measured size
        ([1, 2, 3], [0.5, 0.9, 0.95], 0.9, Crossing(0.9, 2.0, 3)),
        # already there at the smallest size
        ([1, 2], [0.95, 0.97], 0.9, Crossing(0.9, 1.0, 2)),
        # never reached: within the largest size
        ([1, 2, 3], [0.5, 0.6, 0.7], 0.9, Crossing(0.9, None, 3)),
        # undefined sizes are left out: 1 (0.8) to 3 (1.0) -> 2.0; the largest defined size is 3
        ([1, 2, 3, 4], [0.8, NAN, 1.0, NAN], 0.9, Crossing(0.9, 2.0, 3)),
        # nothing defined
        ([1, 2], [NAN, NAN], 0.9, Crossing(0.9, None, None)),
        # the first crossing counts, even if the curve dips again after it
        ([1, 2, 3, 4], [0.8, 1.0, 0.7, 0.95], 0.9, Crossing(0.9, 1.5, 4)),
    ],
)
def test_crossing_interpolates_linearly(sizes, values, level, expected):
    result = crossing(sizes, values, level)
    assert result.level == expected.level and result.within == expected.within
    assert (result.at is None) == (expected.at is None)
    if expected.at is not None:
        assert result.at == pytest.approx(expected.at, abs=1e-12)


def test_crossing_words_and_bad_input():
    assert crossing([1, 2, 3, 4], [0.7, 0.85, 0.95, 0.97]).describe() == "reaches 0.9 at 2.5 assessors"
    assert crossing([1, 2, 3], [0.5, 0.6, 0.7]).describe("summaries") == "not reached within 3 summaries"
    with pytest.raises(ValueError, match="same length"):
        crossing([1, 2], [0.5])
    with pytest.raises(ValueError, match="increase"):
        crossing([2, 1], [0.5, 0.6])


def test_nuggets_curve_crossing_from_figure_2():
    figure = {"figures_2_3": {"sizes": [1, 2, 3], "mean_tau": [0.6, 0.8, None]}}
    assert tau_crossing(figure, 0.7) == {"level": 0.7, "at": pytest.approx(1.5, abs=1e-12), "within": 2}
    assert tau_crossing(figure, 0.9) == {"level": 0.9, "at": None, "within": 2}


def _run(campaign, analysis, params, capture):
    with capture(execute=True):
        job = scoring_services.start_analysis(campaign=campaign, analysis=analysis, params=params, user=None)
    job = Job.objects.get(pk=job.pk)
    assert job.status == "done", job.message
    return job


@pytest.mark.django_db
def test_nuggets_stability_job_reports_the_crossing(people, make_user, client, django_capture_on_commit_callbacks):
    campaign = nuggets_demo.build(people["organiser"], [make_user(n) for n in nuggets_demo.SIMULATED], [])
    default = _run(campaign, "stability", {}, django_capture_on_commit_callbacks)
    curve = default.result["figures_2_3"]
    assert curve["sizes"] == [1, 2, 3, 4, 5]
    assert curve["mean_tau"][:2] == pytest.approx([0.886222222, 0.908444444], abs=1e-9)
    # 1 + (0.9 - 0.886222) / (0.908444 - 0.886222) = 1 + 0.013778 / 0.022222 = 1.62 assessors
    assert default.result["crossing"] == {"level": 0.9, "at": pytest.approx(1.62, abs=1e-9), "within": 5}
    assert default.result["crossing"] == {"level": 0.9, **_expected(curve["sizes"], curve["mean_tau"], 0.9)}
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{default.pk}/").content.decode()
    assert 'id="tau-crossing"' in page and "at <strong>1.62</strong> assessors" in page
    # 0.95 is above the whole curve (0.92 at five assessors)
    above = _run(campaign, "stability", {"tau": 0.95}, django_capture_on_commit_callbacks)
    assert above.result["crossing"] == {"level": 0.95, "at": None, "within": 5}
    assert "not reached within 5</strong> assessors" in client.get(f"/jobs/{above.pk}/").content.decode()
    with pytest.raises(InvalidInput) as error:
        scoring_services.start_analysis(campaign=campaign, analysis="stability", params={"tau": 1.5}, user=None)
    assert error.value.field == "params.tau"


def _expected(sizes, values, level):
    """The crossing worked out by hand: the first size at or above the level, linear from the one before."""
    points = [(n, v) for n, v in zip(sizes, values) if v is not None]
    for i, (n, v) in enumerate(points):
        if v >= level:
            if i == 0:
                return {"at": float(n), "within": points[-1][0]}
            n0, v0 = points[i - 1]
            return {"at": n0 + (level - v0) * (n - n0) / (v - v0), "within": points[-1][0]}
    return {"at": None, "within": points[-1][0]}


@pytest.mark.django_db
def test_factoids_stability_job_reports_the_crossing(annotated, people, client, django_capture_on_commit_callbacks):  # noqa: F811
    campaign, topic = annotated
    services.save_curation(
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
    default = _run(campaign, "wfs-stability", params, django_capture_on_commit_callbacks)
    curve = default.result["stability"]
    # N = 3: 0.79375, N = 4: 0.90888 -> 3 + (0.9 - 0.79375) / (0.90888 - 0.79375) = 3.92289 model summaries
    assert default.result["crossing"] == {"level": 0.9, "at": pytest.approx(3.9228851, abs=1e-6), "within": 8}
    assert default.result["crossing"] == {"level": 0.9, **_expected(curve["sizes"], curve["mean_rho"], 0.9)}
    defined = [v for v in curve["mean_rho"] if v is not None]
    level = (min(defined) + max(defined)) / 2
    job = _run(campaign, "wfs-stability", {**params, "rho": level}, django_capture_on_commit_callbacks)
    crossed = job.result["crossing"]
    assert crossed == {"level": level, **_expected(curve["sizes"], curve["mean_rho"], level)}
    assert crossed["at"] is not None and 1 <= crossed["at"] <= 8
    client.force_login(people["organiser"])
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert 'id="rho-crossing"' in page and "reference summaries" in page
