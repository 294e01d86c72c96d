"""The nuggets kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.nuggets import adjudication, analyses, charts, demo, exports, importers, partials, report, sums
from kinds.nuggets.data import NuggetsKind
from kinds.nuggets.examples import EXAMPLES
from kinds.spec import (
    Adjudication,
    Analysis,
    Exports,
    JudgePage,
    KindSpec,
    Reports,
    RunningSums,
    TopicRows,
    Upload,
    UploadFile,
)

SPEC = KindSpec(
    data=NuggetsKind(),
    judge=JudgePage(template="nuggets/judge.html", script="nuggets/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.NuggetsTopicReport,
        campaign_type=report.NuggetsCampaignReport,
        disagreement=report.topic_disagreement,
        partial_disagreement=partials.partial_disagreement,
        headline=report.headline,
        template="nuggets/report.html",
        topic_template="nuggets/topic_report.html",
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.NuggetsPartial,
        sums=RunningSums(type=sums.NuggetsSums, contribution=sums.contribution, refresh=sums.refresh),
        topic_rows=TopicRows(type=report.NuggetsPyramid, row=partials.topic_row),
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
            name="stability",
            run=analyses.stability_analysis,
            params=analyses.ANALYSIS_PARAMS["stability"],
            template="nuggets/results/stability.html",
            charts=charts.stability,
            ready=analyses.stability_ready,
        ),
    ),
    demo=demo.build,
    adjudication=Adjudication(
        template="nuggets/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    uploads=(
        Upload(
            name="trec-nuggets",
            label="TREC-like nugget files",
            help="Tab-separated, # comments allowed: questions (topic, target) with their answer key (topic, nugget, "
            "vital|okay|-, text), and/or runs' responses (run, topic, passage) with their matches (run, topic, "
            "nugget) (manage.py import_nuggets).",
            files=(
                UploadFile("questions", "Questions", required=False),
                UploadFile("key", "Answer key", "With the questions.", required=False),
                UploadFile("responses", "Runs' responses", required=False),
                UploadFile("matches", "Matches", "With the responses.", required=False),
            ),
            run=importers.upload_nugget_files,
        ),
    ),
)
