"""The ordering kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate import interchange as ix
from kinds.ordering import adjudication, charts, demo, importers, interchange, report
from kinds.ordering.data import OrderingKind
from kinds.ordering.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports

SPEC = KindSpec(
    data=OrderingKind(),
    judge=JudgePage(template="ordering/judge.html", script="ordering/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=report.campaign_report,
        topic_type=report.OrderingTopicReport,
        campaign_type=report.OrderingCampaignReport,
        disagreement=report.topic_disagreement,
        headline=report.headline,
        template="ordering/report.html",
        topic_template="ordering/topic_report.html",
        partial=report.topic_partial,
        merge=report.merge,
        partial_type=report.OrderingPartial,
    ),
    exports=Exports(
        formats={**report.EXPORTS, **interchange.EXPORTS},
        help=report.EXPORT_HELP + ix.EXPORT_HELP,
        truths=report.truths,
        write=ix.dispatch(interchange.EXPORTS, interchange.export, report.export),
        describe=ix.describe(interchange.EXPORTS, report.describe_export),
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="noise",
            run=report.noise_analysis,
            params=report.ANALYSIS_PARAMS["noise"],
            template="ordering/results/noise.html",
            charts=charts.noise,
            ready=report.orderings_ready,
        ),
        Analysis(
            name="frespa-sweep",
            run=report.sweep_analysis,
            params=report.ANALYSIS_PARAMS["frespa-sweep"],
            template="ordering/results/frespa-sweep.html",
            charts=charts.sweep,
            ready=report.orderings_ready,
        ),
        Analysis(
            name="frespa-tune",
            run=report.tune_analysis,
            apply=report.tuned_params,
            params=report.ANALYSIS_PARAMS["frespa-tune"],
            template="ordering/results/frespa-tune.html",
            ready=report.orderings_ready,
        ),
    ),
    demo=demo.build,
    runs_csv=importers.read_runs_csv,
    judgment_files={".jsonl": importers.read_squality, ".labelstudio.json": interchange.read_labelstudio},
    adjudication=Adjudication(
        template="ordering/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
)
