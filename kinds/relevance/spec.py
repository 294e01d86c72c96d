"""The relevance kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate.imports import interchange as ix
from kinds.relevance import (
    adjudication,
    analyses,
    demo,
    exports,
    importers,
    interchange,
    partials,
    report,
    sums,
    tables,
)
from kinds.relevance.data import RelevanceKind, judge_context
from kinds.relevance.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums, Upload, UploadFile

SPEC = KindSpec(
    data=RelevanceKind(),
    judge=JudgePage(template="relevance/judge.html", script="relevance/judge.js", context=judge_context),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.RelevanceTopicReport,
        campaign_type=report.RelevanceCampaignReport,
        disagreement=report.topic_disagreement,
        partial_disagreement=partials.partial_disagreement,
        headline=report.headline,
        template="relevance/report.html",
        topic_template="relevance/topic_report.html",
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.RelevancePartial,
        sums=RunningSums(type=sums.RelevanceSums, contribution=sums.contribution, refresh=sums.refresh),
    ),
    exports=Exports(
        formats={**exports.EXPORTS, **interchange.EXPORTS},
        help=exports.EXPORT_HELP + ix.EXPORT_HELP,
        truths=exports.truths,
        write=ix.dispatch(interchange.EXPORTS, interchange.export, exports.export),
        describe=ix.describe(interchange.EXPORTS, exports.describe_export),
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="stability",
            run=analyses.stability_analysis,
            params=analyses.STABILITY_PARAMS,
            template="relevance/results/stability.html",
            ready=analyses.stability_ready,
        ),
    ),
    demo=demo.build,
    adjudication=Adjudication(
        template="relevance/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    judgment_files={".labelstudio.json": interchange.read_labelstudio, ".zip": interchange.read_doccano},
    tables=tables.TABLES,
    uploads=(
        Upload(
            name="trec-runs",
            label="TREC run files",
            help="Runs in TREC's six columns (qid Q0 docid rank score tag; the tag names the system) and a JSON file "
            '{"topics": {qid: {"title", "description"?, "narrative"?}}, "documents": {docid: text}}: each topic\'s '
            "pool is the union of every run's top depth documents; the runs are stored to be scored "
            "(manage.py import_trec_runs).",
            files=(
                UploadFile("runs", "TREC run file"),
                UploadFile("topics_file", "Topics and document texts (JSON)"),
            ),
            run=importers.upload_trec_runs,
            options=importers.UPLOAD_OPTIONS,
        ),
    ),
)
