"""The ordering kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate.imports import interchange as ix
from kinds.ordering import adjudication, analyses, charts, demo, exports, importers, interchange, partials, report, sums
from kinds.ordering.data import OrderingKind
from kinds.ordering.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums, TopicRows

SPEC = KindSpec(
    data=OrderingKind(),
    judge=JudgePage(template="ordering/judge.html", script="ordering/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.OrderingTopicReport,
        campaign_type=report.OrderingCampaignReport,
        disagreement=report.topic_disagreement,
        headline=report.headline,
        template="ordering/report.html",
        topic_template="ordering/topic_report.html",
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.OrderingPartial,
        sums=RunningSums(type=sums.OrderingSums, contribution=sums.contribution, refresh=sums.refresh),
        topic_rows=TopicRows(type=report.OrderingTopicRow, row=partials.topic_row, least=1),
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
            name="noise",
            run=analyses.noise_analysis,
            params=analyses.ANALYSIS_PARAMS["noise"],
            template="ordering/results/noise.html",
            charts=charts.noise,
            ready=analyses.orderings_ready,
        ),
        Analysis(
            name="frespa-sweep",
            run=analyses.sweep_analysis,
            params=analyses.ANALYSIS_PARAMS["frespa-sweep"],
            template="ordering/results/frespa-sweep.html",
            charts=charts.sweep,
            ready=analyses.orderings_ready,
        ),
        Analysis(
            name="frespa-tune",
            run=analyses.tune_analysis,
            apply=analyses.tuned_params,
            params=analyses.ANALYSIS_PARAMS["frespa-tune"],
            template="ordering/results/frespa-tune.html",
            ready=analyses.orderings_ready,
        ),
    ),
    demo=demo.build,
    runs_csv=importers.read_runs_csv,
    judgment_files={".jsonl": importers.read_squality, ".labelstudio.json": interchange.read_labelstudio},
    adjudication=Adjudication(
        template="ordering/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
)
