"""What every download is called: one naming function for the exports, the report's
CSVs and the charts' and tables' downloads (docs/formats.md, "Export formats").

A name says the campaign, what the file is, the truth set it was built from and the
format, so that two different files never share a name and one never overwrites the
other in a downloads folder: ``campaign-9-relevance-gold-adjudicated.csv``,
``campaign-9-system-scores-adjudicated.csv``, ``campaign-9-topic-t1-report-kappa_matrix-matrix.csv``,
``campaign-9-job-14-evaluation-arehart-table-2.csv``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.http import content_disposition_header

#: Kept as they are in a part of a name (with letters and digits); anything else becomes "_".
SAFE = frozenset("._@+-")


def part(text: Any) -> str:
    """One part of a file name: letters, digits and ``. _ @ + -`` kept (a username's own
    characters), anything else (``:`` of ``single:alice``, ``/``, spaces) an underscore.

    >>> part("adjudicated:dawid-skene"), part("single:ann.lee"), part("a b/c")
    ('adjudicated_dawid-skene', 'single_ann.lee', 'a_b_c')
    """
    return "".join(ch if ch.isalnum() or ch in SAFE else "_" for ch in str(text)).strip(".")


def download_name(
    campaign: Any,
    what: str = "",
    *,
    truth: str = "",
    extension: str = "",
    topic: str = "",
    job: Any = None,
) -> str:
    """``campaign-<id>[-topic-<topic>][-job-<id>-<analysis>][-<what>][-<truth>][.<extension>]``.

    ``what`` says what the file is (``relevance-gold``, ``qrels``, ``system-scores``,
    ``judgments``, ``report-pairs``); ``truth`` the truth set it was built from (left
    out when the file is the same for every truth set); ``extension`` the format's
    (``csv``, ``labelstudio.json``). Without ``what`` and ``extension`` it is the prefix
    the pages give their charts' and tables' downloads (``data-download-prefix``,
    static/annotate/charts.js), so those carry the campaign (and job or topic) too.

    >>> class C: pk = 9
    >>> download_name(C, "relevance-gold", truth="adjudicated", extension="csv")
    'campaign-9-relevance-gold-adjudicated.csv'
    >>> class J: pk, analysis = 14, "evaluation"
    >>> download_name(C, job=J)
    'campaign-9-job-14-evaluation'
    """
    parts = [f"campaign-{campaign.pk}"]
    if topic:
        parts.append(f"topic-{part(topic)}")
    if job is not None:
        parts.append(f"job-{job.pk}-{part(job.analysis)}")
    parts += [part(p) for p in (what, truth) if p]
    name = "-".join(parts)
    return f"{name}.{extension}" if extension else name


def attach(response: HttpResponse, name: str) -> HttpResponse:
    """Make ``response`` a download called ``name`` (RFC 6266; a name outside ASCII as ``filename*``)."""
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response
