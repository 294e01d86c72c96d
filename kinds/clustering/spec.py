"""The clustering kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.clustering import adjudication, analyses, charts, demo, exports, importers, partials, report, sums
from kinds.clustering.data import ClusteringKind
from kinds.clustering.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums, Upload, UploadFile

SPEC = KindSpec(
    data=ClusteringKind(),
    judge=JudgePage(template="clustering/judge.html", script="clustering/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.ClusteringTopicReport,
        campaign_type=report.ClusteringCampaignReport,
        disagreement=report.topic_disagreement,
        headline=report.headline,
        template="clustering/report.html",
        topic_template="clustering/topic_report.html",
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.ClusteringPartial,
        sums=RunningSums(
            type=sums.ClusteringSums,
            contribution=sums.contribution,
            refresh=sums.refresh,
            listed=sums.listed,
            listed_limit=sums.listed_limit,
        ),
    ),
    exports=Exports(
        formats=exports.EXPORTS,
        help=exports.EXPORT_HELP,
        truths=exports.truths,
        write=exports.export,
        describe=exports.describe_export,
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="split-merge",
            run=analyses.split_merge_analysis,
            params=analyses.ANALYSIS_PARAMS["split-merge"],
            template="clustering/results/split-merge.html",
            charts=charts.split_merge,
            ready=analyses.split_merge_ready,
        ),
    ),
    demo=demo.build,
    runs_csv=importers.read_runs_csv,
    uploads=(
        Upload(
            name="aiphes",
            label="AIPHES trees",
            help="An AIPHES topic: its nuggets (Trees/Input/Topic_<id>_*.txt) become the sentences, placed in their "
            "source documents when given; each annotator's tree (named by _Anno<N> in its file name), cut at the "
            "depth, becomes that annotator's clustering (manage.py import_aiphes).",
            files=(
                UploadFile("nuggets", "Nuggets (Topic_<id>_*.txt)"),
                UploadFile("trees", "Trees, one per annotator (XML)", multiple=True),
                UploadFile("documents", "Source documents (XML)", required=False),
            ),
            run=importers.upload_aiphes,
            options=importers.AIPHES_OPTIONS,
        ),
    ),
    adjudication=Adjudication(
        template="clustering/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
)
