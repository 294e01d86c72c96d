"""Files say what they are: every download's name carries the campaign,
what the file is, the truth set it was built from (where that changes it) and the format,
so two different files never share a name (docs/formats.md, "Export formats")."""

from __future__ import annotations

import copy
import io
import re
import zipfile

import pytest
from django.test import Client

from annotate.imports.write import import_runs, import_topics
from annotate.models import Topic
from annotate.services.campaigns import create_campaign
from annotate.services.judgments import save_judgment
from annotate.services.members import add_member
from concord.errors import InvalidInput
from kinds.registry import KINDS
from scoring import services as scoring_services
from scoring.downloads import export_file, file_name

pytestmark = pytest.mark.django_db


def _campaign(people, name: str):
    """A campaign of the kind's examples: one topic, alice's and bob's submissions, its run."""
    spec = KINDS[name]
    campaign = create_campaign(
        creator=people["organiser"], kind=name, name=name, overlap=2, params=dict(spec.examples.params)
    )
    for assessor in ("alice", "bob"):
        add_member(campaign=campaign, username=assessor, role="assessor")
    import_topics(campaign=campaign, topics=[{"external_id": "t1", "data": copy.deepcopy(spec.examples.topic)}])
    topic = Topic.objects.get(campaign=campaign)
    for assessor, payload in zip(("alice", "bob"), spec.examples.payloads, strict=True):
        save_judgment(
            topic=topic, assessor=people[assessor], payload=copy.deepcopy(payload), status="submitted", version=0
        )
    if spec.examples.run is not None:
        import_runs(campaign=campaign, runs=[{"name": "sys", "data": copy.deepcopy(spec.examples.run)}])
    return campaign


def _content(response) -> bytes:
    """The file's content; a zip's members (its entries carry the time it was written)."""
    if not response.content.startswith(b"PK"):
        return response.content
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return repr(sorted((n, archive.read(n)) for n in archive.namelist())).encode()


def _sent_name(response) -> str:
    return re.fullmatch(r'attachment; filename="(.+)"', response["Content-Disposition"])[1]


@pytest.mark.parametrize("name", sorted(KINDS))
def test_every_kind_format_and_truth_set_downloads_under_its_own_name(people, name):
    """Over the registry: every format x truth set (and table) the kind offers. A pair the kind
    describes is written under the name its description gives; a pair it does not describe is
    refused; two pairs share a name only when they are the same file (a truth set that does not
    change it, such as Label Studio's every judgment)."""
    exports = KINDS[name].exports
    campaign = _campaign(people, name)
    files: dict[str, set[bytes]] = {}
    for truth in [*exports.truths(["alice", "bob"]), *exports.tables]:
        for format in exports.formats:
            described = exports.describe(format, truth)
            try:
                response = export_file(campaign, format=format, truth=truth)
            except InvalidInput as refused:
                # Refused: a pair the kind does not describe, or a table that needs an analysis first.
                assert described is None or (refused.field == "truth" and "evaluation" in refused.message), (
                    format,
                    truth,
                    refused,
                )
                continue
            assert described is not None, f"{name}: {format} x {truth} downloads but is not described"
            sent = _sent_name(response)
            assert sent == file_name(campaign, exports, described, format=format, truth=truth)
            assert sent.startswith(f"campaign-{campaign.pk}-") and sent.endswith(
                "." + exports.formats[format].extension
            )
            if described.by_truth:
                assert truth.replace(":", "_") in sent
            files.setdefault(sent, set()).add(_content(response))
    assert files, f"{name} downloads nothing"
    shared = {sent: len(contents) for sent, contents in files.items() if len(contents) > 1}
    assert shared == {}, f"different files under one name: {shared}"


def test_relevance_gold_labels_and_system_scores_no_longer_share_a_name(people):
    campaign = _campaign(people, "relevance")
    labels = export_file(campaign, format="labels", truth="adjudicated")
    scores = export_file(campaign, format="csv", truth="adjudicated")
    assert _sent_name(labels) == f"campaign-{campaign.pk}-relevance-gold-adjudicated.csv"
    assert _sent_name(scores) == f"campaign-{campaign.pk}-system-scores-adjudicated.csv"
    assert labels.content.startswith(b"topic,document,truth,grade") and b"nDCG@10" in scores.content
    single = export_file(campaign, format="qrels", truth="single:alice")
    assert _sent_name(single) == f"campaign-{campaign.pk}-qrels-single_alice.qrels"


def test_the_export_page_groups_gold_standards_apart_from_scores_and_judgments(people):
    campaign = _campaign(people, "relevance")
    client = Client()
    client.force_login(people["admin"])
    page = client.get(f"/campaigns/{campaign.pk}/export/").content.decode()
    sections = {key: page.split(f'id="export-{key}"')[1].split("</section>")[0] for key in ("gold", "scores")}
    gold, scores = sections["gold"], sections["scores"]
    assert "<h2" in gold and "Gold standards" in gold
    assert f"campaign-{campaign.pk}-relevance-gold-consensus.csv" in gold and "qrels" in gold
    assert "system-scores" not in gold
    assert f"campaign-{campaign.pk}-system-scores-consensus.json" in scores and "relevance-gold" not in scores
    judgments = page.split('id="export-judgments"')[1].split("</section>")[0]
    # One link per file: every assessor's judgments whatever the truth set.
    assert judgments.count(f'download="campaign-{campaign.pk}-judgments.labelstudio.json"') == 1
    assert judgments.count(f'download="campaign-{campaign.pk}-judgments.doccano.zip"') == 1
    link = re.search(r'href="([^"]+)" download="campaign-\d+-judgments.doccano.zip"', judgments)[1]
    response = client.get(link.replace("&amp;", "&"))
    assert response.status_code == 200 and _sent_name(response) == f"campaign-{campaign.pk}-judgments.doccano.zip"


def test_the_pairs_evaluation_tables_come_as_csv_only_named_as_tables(people):
    campaign = _campaign(people, "pairs")
    with pytest.raises(InvalidInput) as refused:
        export_file(campaign, format="qrels", truth="statements")
    assert refused.value.field == "format"
    client = Client()
    client.force_login(people["admin"])
    page = client.get(f"/campaigns/{campaign.pk}/export/").content.decode()
    scores = page.split('id="export-scores"')[1].split("</section>")[0]
    assert f"campaign-{campaign.pk}-evaluation-statements.csv" in scores
    assert f"campaign-{campaign.pk}-evaluation-comparisons.csv" in scores


def test_report_csvs_name_the_campaign_topic_field_and_layout(people):
    campaign = _campaign(people, "pairs")
    scoring_services.recompute_reports(campaign.pk, everything=True)
    client = Client()
    client.force_login(people["organiser"])
    base = f"/campaigns/{campaign.pk}"
    matrix = client.get(f"{base}/report/matrix.csv", {"names": "names", "values": "kappa_matrix"})
    long = client.get(f"{base}/report/matrix.csv", {"names": "names", "values": "kappa_matrix", "layout": "long"})
    assert matrix.status_code == long.status_code == 200
    assert _sent_name(matrix) == f"campaign-{campaign.pk}-report-kappa_matrix-matrix.csv"
    assert _sent_name(long) == f"campaign-{campaign.pk}-report-kappa_matrix-long.csv"
    table = client.get(f"{base}/report/table.csv", {"rows": "pairs"})
    assert _sent_name(table) == f"campaign-{campaign.pk}-report-pairs.csv"
    topic = client.get(f"{base}/topics/t1/report/matrix.csv", {"names": "names", "values": "kappa_matrix"})
    assert _sent_name(topic) == f"campaign-{campaign.pk}-topic-t1-report-kappa_matrix-matrix.csv"


def test_pages_give_their_charts_and_tables_a_prefix_naming_campaign_topic_or_job(people):
    campaign = _campaign(people, "ordering")
    scoring_services.recompute_reports(campaign.pk, everything=True)
    job = scoring_services.start_analysis(
        campaign=campaign, analysis="noise", params={"ratios": [0, 1], "seeds": 1}, user=None
    )
    client = Client()
    client.force_login(people["organiser"])
    pages = {
        f"/campaigns/{campaign.pk}/?section=report": f"campaign-{campaign.pk}-report",
        f"/campaigns/{campaign.pk}/topics/t1/report/": f"campaign-{campaign.pk}-topic-t1-report",
        f"/jobs/{job.pk}/": f"campaign-{campaign.pk}-job-{job.pk}-noise",
    }
    for url, prefix in pages.items():
        assert f'data-download-prefix="{prefix}"' in client.get(url).content.decode(), url


def test_the_naming_function_s_worked_examples_hold():
    import doctest

    from scoring import filenames

    result = doctest.testmod(filenames)
    assert result.attempted and result.failed == 0
