"""The pairs kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate import interchange as ix
from kinds.pairs import adjudication, charts, demo, interchange, pools, report
from kinds.pairs.data import PairsKind
from kinds.pairs.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports

SPEC = KindSpec(
    data=PairsKind(),
    judge=JudgePage(template="pairs/judge.html", script="pairs/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=report.campaign_report,
        topic_type=report.PairsTopicReport,
        campaign_type=report.PairsCampaignReport,
        partial=report.topic_partial,
        merge=report.merge,
        partial_type=report.PairsPartial,
        disagreement=report.topic_disagreement,
        partial_disagreement=report.partial_disagreement,
        headline=report.headline,
        template="pairs/report.html",
        topic_template="pairs/topic_report.html",
    ),
    exports=Exports(
        formats={**report.EXPORTS, **interchange.EXPORTS},
        help=report.EXPORT_HELP + ix.EXPORT_HELP,
        truths=report.truths,
        write=ix.dispatch(interchange.EXPORTS, interchange.export, report.export),
        describe=ix.describe(interchange.EXPORTS, report.describe_export),
        tables=report.TABLES,
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="evaluation",
            run=report.evaluation_analysis,
            params=report.ANALYSIS_PARAMS["evaluation"],
            template="pairs/results/evaluation.html",
            charts=charts.evaluation,
            chunks=report.CHUNKS["evaluation"],
            ready=report.evaluation_ready,
        ),
    ),
    demo=demo.build,
    adjudication=Adjudication(
        template="pairs/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    judgment_files={".labelstudio.json": interchange.read_labelstudio, ".zip": interchange.read_doccano},
    pools=pools.build_pools,
)
