"""The pairs kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from annotate.imports import interchange as ix
from kinds.pairs import (
    adjudication,
    analyses,
    charts,
    demo,
    exports,
    interchange,
    partials,
    pools,
    report,
    sums,
    tables,
)
from kinds.pairs.data import PairsKind
from kinds.pairs.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums

SPEC = KindSpec(
    data=PairsKind(),
    judge=JudgePage(template="pairs/judge.html", script="pairs/judge.js"),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.PairsTopicReport,
        campaign_type=report.PairsCampaignReport,
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.PairsPartial,
        disagreement=report.topic_disagreement,
        partial_disagreement=partials.partial_disagreement,
        headline=report.headline,
        sums=RunningSums(type=sums.PairsSums, contribution=sums.contribution, refresh=sums.refresh),
        template="pairs/report.html",
        topic_template="pairs/topic_report.html",
    ),
    exports=Exports(
        formats={**exports.EXPORTS, **interchange.EXPORTS},
        help=exports.EXPORT_HELP + ix.EXPORT_HELP,
        truths=exports.truths,
        write=ix.dispatch(interchange.EXPORTS, interchange.export, exports.export),
        describe=ix.describe(interchange.EXPORTS, exports.describe_export),
        tables=exports.TABLES,
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="evaluation",
            run=analyses.evaluation_analysis,
            params=analyses.ANALYSIS_PARAMS["evaluation"],
            template="pairs/results/evaluation.html",
            charts=charts.evaluation,
            chunks=analyses.CHUNKS["evaluation"],
            ready=analyses.evaluation_ready,
        ),
    ),
    demo=demo.build,
    adjudication=Adjudication(
        template="pairs/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    judgment_files={".labelstudio.json": interchange.read_labelstudio, ".zip": interchange.read_doccano},
    tables=tables.TABLES,
    pools=pools.build_pools,
)
