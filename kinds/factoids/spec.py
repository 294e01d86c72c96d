"""The factoids kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.factoids import adjudication, analyses, charts, demo, exports, pages, partials, report, services, sums
from kinds.factoids.data import FactoidsKind
from kinds.factoids.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports, RunningSums

SPEC = KindSpec(
    data=FactoidsKind(),
    judge=JudgePage(template="factoids/judge.html", script="factoids/judge.js", context=pages.judge_context),
    reports=Reports(
        topic=report.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.FactoidsTopicReport,
        campaign_type=report.FactoidsCampaignReport,
        disagreement=report.topic_disagreement,
        template="factoids/report.html",
        topic_template="factoids/topic_report.html",
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.FactoidsPartial,
        sums=RunningSums(
            type=sums.FactoidsSums,
            contribution=sums.contribution,
            refresh=sums.refresh,
            listed=sums.listed,
            listed_limit=sums.listed_limit,
            fits=False,
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
            name="growth",
            run=analyses.growth_analysis,
            params=analyses.ANALYSIS_PARAMS["growth"],
            template="factoids/results/growth.html",
            charts=charts.growth,
            ready=analyses.consensus_ready,
        ),
        Analysis(
            name="wfs-stability",
            run=analyses.stability_analysis,
            params=analyses.ANALYSIS_PARAMS["wfs-stability"],
            template="factoids/results/wfs-stability.html",
            charts=charts.stability,
            ready=analyses.consensus_ready,
        ),
    ),
    demo=demo.build,
    curations={"relations": services.clean_relations},
    urls="kinds.factoids.urls",
    # No automatic consensus: the adjudicator accepts one annotator's inventory or
    # builds the consensus inventory on the topic's consensus page.
    adjudication=Adjudication(template="factoids/adjudicate.html", compare=adjudication.compare),
)
