"""Charts under the strict CSP: Chart.js draws the heatmap, line charts and their legends with
no console error; the Data table holds the chart's values; PNG, CSV and a paper table's CSV and
LaTeX download."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotate.imports.write import import_topics
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from scoring import services as scoring_services
from scoring.charts import specs_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def ordered(people, django_capture_on_commit_callbacks):
    campaign = create_campaign(creator=people["organiser"], kind="ordering", name="O", overlap=3)
    for name in ("alice", "bob", "carol"):
        add_member(campaign=campaign, username=name, role="assessor")
    import_topics(
        campaign=campaign, topics=[{"external_id": "t", "data": {"items": [{"id": i, "text": i} for i in "abcdef"]}}]
    )
    topic = campaign.topics.get()
    with django_capture_on_commit_callbacks(execute=True):
        for name, order in (("alice", "abcdef"), ("bob", "bacdef"), ("carol", "abcdfe")):
            save_judgment(
                topic=topic, assessor=people[name], payload={"order": list(order)}, status="submitted", version=0
            )
        scoring_services.recompute_reports(campaign.pk, everything=True)
        job = scoring_services.start_analysis(
            campaign=campaign, analysis="noise", params={"ratios": [0, 0.5, 1], "seeds": 2}, user=None
        )
    return campaign, job


def watch(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def download(page, locator) -> str:
    with page.expect_download() as info:
        locator.click()
    return Path(info.value.path()).read_bytes().decode("utf-8")


def test_heatmap_and_line_chart_draw_under_the_csp_with_tables_and_downloads(new_page, live_server, login, ordered):
    campaign, job = ordered
    page = new_page()
    errors = watch(page)
    login(page, "organiser")

    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/topics/t/report/")
    figure = page.locator('figure[data-chart="heatmap"]')
    expect(figure).to_have_attribute("data-drawn", "1")
    drawn = page.evaluate(
        """() => { const c = Chart.getChart(document.querySelector('figure[data-chart=heatmap] canvas'));
                   return {type: c.config.type, cells: c.data.datasets[0].data.length,
                           title: c.options.plugins.title.text, x: c.options.scales.x.labels}; }"""
    )
    spec = specs_in(page.content())[0]
    assert drawn == {"type": "matrix", "cells": 9, "title": spec["title"], "x": spec["names"]}
    assert spec["names"] == ["alice", "bob", "carol"]
    figure.locator("summary").click()
    first_row = figure.locator("details tbody tr").first.locator("th, td").all_inner_texts()
    assert first_row == ["alice", *(f"{v:.3f}" for v in spec["values"][0])]
    rows = list(csv.reader(io.StringIO(download(page, figure.locator('[data-download="csv"]')))))
    assert rows[0] == spec["table"]["header"] and rows[1][0] == "alice"
    assert [float(v) for v in rows[1][1:]] == pytest.approx(spec["values"][0])
    with page.expect_download() as info:
        figure.locator('[data-download="png"]').click()
    assert Path(info.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The page's prefix (scoring/filenames.py) names the campaign and the topic; the title's "τ" is spelled out.
    assert spec["title"].startswith("Kendall τ between")
    assert (
        info.value.suggested_filename
        == f"campaign-{campaign.pk}-topic-t-report-kendall-tau-between-the-assessors-orderings.png"
    )

    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    line = page.locator('figure[data-chart="line"]')
    expect(line).to_have_attribute("data-drawn", "1")
    datasets = page.evaluate(
        """() => Chart.getChart(document.querySelector('figure[data-chart=line] canvas')).data.datasets
                 .map(d => [d.label, d.borderColor, d.pointStyle])"""
    )
    # Seven measures of Table 1, WCA-tau and WCA-Sp under both weightings (clamped, paper): nine lines.
    assert len(datasets) == 9 and len({(c, p) for _, c, p in datasets}) == 9
    # Table 1 of the paper: CSV and LaTeX beside it.
    table = page.locator('table[data-export="noise-table-1"]')
    buttons = page.locator(".table-downloads").first
    with page.expect_download() as info:
        buttons.get_by_role("button", name="CSV").click()
    assert info.value.suggested_filename == f"campaign-{campaign.pk}-job-{job.pk}-noise-noise-table-1.csv"
    text = Path(info.value.path()).read_bytes().decode("utf-8")
    header = next(csv.reader(io.StringIO(text)))
    assert header == table.locator("thead th").all_inner_texts()
    assert "Max-Min" in text
    latex = download(page, buttons.get_by_role("button", name="LaTeX"))
    assert latex.startswith("\\begin{tabular}{l" + "r" * 9 + "}") and "\\% Degradation" in latex
    assert latex.rstrip().endswith("\\end{tabular}")
    assert errors == []


def test_csv_and_latex_helpers_escape_formulas_and_specials(new_page, live_server, login, ordered):
    campaign, job = ordered
    page = new_page()
    errors = watch(page)
    login(page, "organiser")
    page.goto(f"{live_server.url}/jobs/{job.pk}/")
    expect(page.locator('figure[data-chart="line"]')).to_have_attribute("data-drawn", "1")
    csv_text, latex = page.evaluate(
        """() => [Concord.tables.toCSV(["a", "=b"], [["@x", -0.5, "+1", "q\\"uote, x", null]]),
                  Concord.tables.toLaTeX(["a_b", "50%"], [["x & y", "$#{}~^\\\\"]])]"""
    )
    assert csv_text == 'a,\'=b\n\'@x,-0.5,\'+1,"q""uote, x",\n'
    assert "a\\_b & 50\\% \\\\" in latex
    assert "x \\& y & \\$\\#\\{\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{} \\\\" in latex
    # pdflatex refuses raw "τ" and "·" (the ranking tables' headers): commands instead, nothing outside ASCII.
    unicode = page.evaluate(
        """() => Concord.tables.toLaTeX(["Kendall τ", "a · b"], [["Gödel – café", "≥ 0.9", "ω"], ["κ ± 0.1", "“x”", "ç"]])"""
    )
    assert unicode.isascii(), unicode
    assert page.evaluate("() => Concord.tables.slug('Mean Kendall τ · Gödel (κ)')") == "mean-kendall-tau-godel-kappa"
    assert "Kendall $\\tau$ & a $\\cdot$ b \\\\" in unicode
    assert "G\\\"{o}del -- caf\\'{e} & $\\geq$ 0.9 & (U+03C9) \\\\" in unicode
    assert "$\\kappa$ $\\pm$ 0.1 & ``x'' & \\c{c} \\\\" in unicode
    assert errors == []


def test_the_factoid_box_plot_draws_labelled_boxes_and_pairs_truth_sets_by_name(new_page, live_server, login, people):
    from scoring.models import Job

    factoids = create_campaign(creator=people["organiser"], kind="factoids", name="F", overlap=1)
    box = Job.objects.create(
        campaign=factoids,
        analysis="wfs-stability",
        status="done",
        progress=1.0,
        result={
            "topic": "t",
            "stability": {"sizes": [1, 2, 3], "mean_rho": [0.2, 0.5, 0.7], "pairs": 10, "first_above": {}},
            "summaries": [{"id": "S1", "model": False}, {"id": "M1", "model": True}, {"id": "M2", "model": True}],
            "distribution": {"n": 2, "scores": [[1, 10, 12], [3, 20, 14], [5, 30, 16]]},
            "unigrams": {"min_summaries": 1, "consensus_unigrams": [], "rho": 0.5},
        },
    )
    page = new_page()
    errors = watch(page)
    login(page, "organiser")
    page.goto(f"{live_server.url}/jobs/{box.pk}/")
    figure = page.locator('figure[data-chart="box"]')
    expect(figure).to_have_attribute("data-drawn", "1")
    drawn = page.evaluate(
        """() => { const c = Chart.getChart(document.querySelector('figure[data-chart=box] canvas'));
                   return {type: c.config.type, labels: c.data.labels, groups: c.data.datasets.map(d => d.label),
                           x: c.options.scales.x.title.text}; }"""
    )
    assert drawn == {
        "type": "boxplot",
        "labels": ["M1", "M2", "S1"],
        "groups": ["reference summary", "machine summary"],
        "x": "summary",
    }
    expect(page.locator('figure[data-chart="line"]')).to_have_attribute("data-drawn", "1")
    assert errors == []
