"""The labels kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate.imports import interchange as ix
from kinds.labels import adjudication, analyses, demo, exports, interchange, partials, report, sums, tables
from kinds.labels.data import LabelsKind, judge_context
from kinds.labels.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums

SPEC = KindSpec(
    data=LabelsKind(),
    judge=JudgePage(template="labels/judge.html", script="labels/judge.js", context=judge_context),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.LabelsTopicReport,
        campaign_type=report.LabelsCampaignReport,
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.LabelsPartial,
        disagreement=report.topic_disagreement,
        partial_disagreement=partials.partial_disagreement,
        headline=report.headline,
        sums=RunningSums(type=sums.LabelsSums, contribution=sums.contribution, refresh=sums.refresh),
        template="labels/report.html",
        topic_template="labels/topic_report.html",
        model_judges=True,
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
            name="raters",
            run=analyses.raters_analysis,
            params=analyses.RATERS_PARAMS,
            template="labels/results/raters.html",
            ready=analyses.raters_ready,
        ),
        Analysis(
            name="levels",
            run=analyses.levels_analysis,
            params=analyses.LEVELS_PARAMS,
            params_for=analyses.levels_params,
            template="labels/results/levels.html",
            ready=analyses.raters_ready,
        ),
    ),
    demo=demo.build,
    adjudication=Adjudication(
        template="labels/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    judgment_files={".labelstudio.json": interchange.read_labelstudio, ".zip": interchange.read_doccano},
    tables=tables.TABLES,
)
