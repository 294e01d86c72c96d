"""A rating table as its package ships it, into a new labels campaign, in the browser only: a
new organiser creates the campaign through the new-campaign form, uploads irrCAC's
``raw_5observers`` as ``DataFrame.to_csv()`` writes it (the index under ``Units``, grades
written ``1.0``, 17 cells empty), reads on the preview the scale the wizard found (numbers 0 to
3), corrects it to what the grades are (ordinal: 0 < 1 < 2 < 3), imports, and reads the
report's figures from the page: each equal, to the digits shown, to the reference package's on
the same table (irrCAC's CAC for Fleiss' kappa, Gwet's AC1 and AC2 with the weights the page
names; krippendorff's alpha at the level it names). axe finds nothing serious on the preview.

The intraclass correlations are figures of numbers, so an ordinal scale has none: a second
campaign keeps the numeric scale found, and the page's six ICC forms are compared with
pingouin's intraclass_corr. They need the items every rater rated (Shrout & Fleiss's complete
table), which in this table is item 14 alone: every form is undefined, on the page as in pingouin.

A third campaign takes a table whose every item every rater scored, pingouin's own ``icc.csv``
(long: 8 wines x 4 judges, scores 0-9) as the package ships it: the six forms on the page equal
pingouin's to the digits shown, with their F tests.

The report is built by the task the import queues (the tests' task backend runs it in the live
server when the import commits); the report section polls for it, so the test waits for its
"from N submitted judgments" line rather than for a time."""

from __future__ import annotations

import math
import re
import warnings

import krippendorff
import pandas as pd
import pytest
from irrCAC.datasets import raw_5observers
from irrCAC.raw import CAC
from playwright.sync_api import expect

from annotate.models import Campaign, Judgment
from tests.annotate.test_import_rating_tables import ICC_CSV
from tests.e2e.axe import AXE
from tests.e2e.test_import_wizard_browser import choose, serious_violations
from tests.stats.test_ratingtables import pingouin_icc  # noqa: F401 (a fixture: pingouin's ICC, loaded bare)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: The grades of irrCAC's table.
GRADES = [0, 1, 2, 3]
#: The weights the page names, as irrCAC names them.
IRRCAC_WEIGHTS = {"identity": "identity", "linear": "linear", "quadratic": "quadratic"}


def irrcac(frame: pd.DataFrame, method: str, weights: str = "identity") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # irrCAC's pandas calls warn of deprecations
        return getattr(CAC(frame, weights=weights, categories=GRADES), method)()["est"]["coefficient_value"]


def shown(page, selector: str) -> str:
    return page.locator(selector).inner_text().strip()


def figure(page, value: str):
    """The report's figure box holding the value ``value`` (its label, value and notes)."""
    return page.locator(".figure", has=page.locator(value))


def figure_label(page, value: str) -> str:
    return figure(page, value).locator(".label").inner_text().strip()


def assert_shown(text: str, reference: float) -> None:
    """``text``, a figure as the page shows it, is ``reference`` to the digits it shows."""
    digits = len(text.partition(".")[2])
    assert re.fullmatch(r"-?\d+\.\d+", text), text
    assert abs(float(text) - reference) <= 0.5 * 10**-digits + 1e-12, (text, reference)


def new_labels_campaign(page, live_server, name: str) -> Campaign:
    """Through the home page's "New campaign" and the kind's form, then its Uploads page."""
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="New campaign").click()
    page.get_by_role("link", name="Labels").click()
    page.get_by_label("Name").fill(name)
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url(f"{live_server.url}/campaigns/*/")
    campaign = Campaign.objects.get(name=name)
    assert campaign.kind == "labels"
    page.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Uploads").click()
    return campaign


def open_report(page, campaign: Campaign, judgments: int) -> None:
    """The campaign's report section, once the report of the import's ``judgments`` is on it."""
    page.get_by_role("navigation", name="Campaign sections").get_by_role("link", name="Report").click()
    expect(page.locator("#report-meta")).to_contain_text(f"from {judgments} submitted judgments", timeout=30_000)


@pytest.fixture
def table_file(tmp_path):
    """irrCAC's table written as a user of the package writes it: ``to_csv()``, index included."""
    path = tmp_path / "raw_5observers.csv"
    raw_5observers().to_csv(path)
    return path


def test_raw_5observers_corrected_to_ordinal_and_its_figures(new_page, live_server, login, make_user, table_file):
    make_user("nadia", organiser=True)  # a new organiser: no campaign yet
    page = new_page()
    page.context.add_init_script(path=str(AXE))
    login(page, "nadia")
    campaign = new_labels_campaign(page, live_server, "Five observers")

    choose(page, table_file)
    expect(page.locator("#import-reads-as")).to_have_text(
        "a rating table (wide: a row per item, a column per assessor)"
    )
    expect(page.locator("#import-scale-found")).to_have_text("Read on: interval: numbers from 0 to 3 in steps of 1")
    expect(page.locator("#import-values")).to_have_text(
        "Labels found, with how often: 1.0 (17) · 2.0 (15) · 0.0 (20) · 3.0 (6)"
    )
    expect(page.locator("#import-raters")).to_contain_text("Observer1, Observer2, Observer3, Observer4, Observer5")
    expect(page.get_by_label("Observer5 is a model judge")).not_to_be_checked()
    assert serious_violations(page) == [], "the preview of a rating table"

    # The grades are ordered categories, not numbers: corrected on the preview, read again.
    page.get_by_label("Scale", exact=True).select_option("ordinal")
    page.get_by_label("Categories, lowest first").fill("0\n1\n2\n3")
    page.get_by_role("button", name="Preview again").click()
    expect(page.locator("#import-scale-found")).to_have_text("Read on: ordinal: 0 < 1 < 2 < 3")
    expect(page.locator("#import-notices")).to_contain_text("the campaign's scale will be: ordinal: 0 < 1 < 2 < 3")
    assert not Judgment.objects.filter(topic__campaign=campaign).exists()  # the previews wrote nothing
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_have_text(
        "Imported 1 topic, 5 judgments, 5 new imported assessors from raw_5observers.csv; "
        "the campaign's scale: ordinal: 0 < 1 < 2 < 3."
    )

    open_report(page, campaign, 5)
    frame = raw_5observers()
    level = re.fullmatch(r"Krippendorff's alpha \((\w+)\)", figure_label(page, "#krippendorff-alpha"))
    assert level is not None and level[1] == "ordinal"
    alpha = krippendorff.alpha(reliability_data=frame.T.to_numpy(float), level_of_measurement=level[1])
    assert_shown(shown(page, "#krippendorff-alpha"), alpha)
    # Fleiss (1971) takes the items with as many raters each: those the page says.
    fleiss = figure(page, "#fleiss-kappa").locator(".muted").first.inner_text()
    items, raters = map(int, re.fullmatch(r"(\d+) items with (\d+) assessors each", fleiss).groups())
    same = frame[frame.notna().sum(axis=1) == raters]
    assert len(same) == items
    assert_shown(shown(page, "#fleiss-kappa"), irrcac(same, "fleiss"))
    assert_shown(shown(page, "#gwet-ac1"), irrcac(frame, "gwet"))
    named = re.fullmatch(r"Gwet's AC2 \((\w+) weights\)", figure_label(page, "#gwet-ac2"))
    assert named is not None and named[1] == "quadratic"
    assert_shown(shown(page, "#gwet-ac2"), irrcac(frame, "gwet", IRRCAC_WEIGHTS[named[1]]))
    # An ordinal scale's labels are not numbers: no intraclass correlation is shown.
    expect(page.locator("#icc-table")).to_have_count(0)


def test_raw_5observers_on_its_numeric_scale_and_the_intraclass_correlations(
    new_page,
    live_server,
    login,
    make_user,
    table_file,
    pingouin_icc,  # noqa: F811
):
    """The scale found kept (numbers 0 to 3): alpha at the interval level, AC2 on the numbers, and
    the six ICCs over the items every rater rated (item 14 alone): undefined, as pingouin's."""
    make_user("nadia", organiser=True)
    page = new_page()
    login(page, "nadia")
    campaign = new_labels_campaign(page, live_server, "Five observers, numbers")
    choose(page, table_file)
    expect(page.locator("#import-scale-found")).to_have_text("Read on: interval: numbers from 0 to 3 in steps of 1")
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_contain_text("the campaign's scale: interval: numbers from 0 to 3")

    open_report(page, campaign, 5)
    frame = raw_5observers()
    level = re.fullmatch(r"Krippendorff's alpha \((\w+)\)", figure_label(page, "#krippendorff-alpha"))
    assert level is not None and level[1] == "interval"
    alpha = krippendorff.alpha(reliability_data=frame.T.to_numpy(float), level_of_measurement=level[1])
    assert_shown(shown(page, "#krippendorff-alpha"), alpha)
    named = re.fullmatch(r"Gwet's AC2 \((\w+) weights\)", figure_label(page, "#gwet-ac2"))
    assert named is not None
    assert_shown(shown(page, "#gwet-ac2"), irrcac(frame, "gwet", IRRCAC_WEIGHTS[named[1]]))

    expect(page.locator("body")).to_contain_text("Over the 1 item every one of 5 assessors labelled")
    reference = pingouin_icc(frame.to_numpy(float)).set_index("Type")
    rows = page.locator("#icc-table tbody tr")
    expect(rows).to_have_count(6)
    compared = set()
    for k in range(6):
        form, mcgraw_wong, _, icc, f, p = (cell.strip() for cell in rows.nth(k).locator("td").all_inner_texts())
        # pingouin names the one-way forms as Shrout & Fleiss do, the others as McGraw & Wong
        wanted = reference.loc[mcgraw_wong if mcgraw_wong in reference.index else form]
        compared.add(wanted.name)
        assert math.isnan(wanted["ICC"]) and math.isnan(wanted["F"]) and math.isnan(wanted["pval"])
        assert (icc.split()[0], f, p) == ("—", "—", "—"), (form, icc, f, p)
    assert len(compared) == 6  # each of pingouin's forms once


def test_pingouin_icc_csv_and_its_six_intraclass_correlations(
    new_page,
    live_server,
    login,
    make_user,
    pingouin_icc,  # noqa: F811
):
    """A long table (a row per score) of a complete design: every ICC form is defined, and the
    page's value and F of each equal pingouin's on the same table."""
    make_user("nadia", organiser=True)
    page = new_page()
    login(page, "nadia")
    campaign = new_labels_campaign(page, live_server, "Wines")
    choose(page, ICC_CSV)
    expect(page.locator("#import-reads-as")).to_contain_text("long")
    expect(page.locator("#import-scale-found")).to_have_text("Read on: interval: numbers from 0 to 9 in steps of 1")
    page.get_by_role("button", name="Import").click()
    expect(page.locator("#upload-done")).to_contain_text("the campaign's scale: interval: numbers from 0 to 9")

    open_report(page, campaign, 4)
    frame = pd.read_csv(ICC_CSV).pivot(index="Wine", columns="Judge", values="Scores")
    reference = pingouin_icc(frame.to_numpy(float)).set_index("Type")
    expect(page.locator("body")).to_contain_text("Over the 8 items every one of 4 assessors labelled")
    rows = page.locator("#icc-table tbody tr")
    expect(rows).to_have_count(6)
    compared = set()
    for k in range(6):
        form, mcgraw_wong, _, icc, f, _ = (cell.strip() for cell in rows.nth(k).locator("td").all_inner_texts())
        wanted = reference.loc[mcgraw_wong if mcgraw_wong in reference.index else form]
        compared.add(wanted.name)
        assert_shown(icc.split()[0], wanted["ICC"])
        assert_shown(f, wanted["F"])
    assert len(compared) == 6
