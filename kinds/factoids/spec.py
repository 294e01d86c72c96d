"""The factoids kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.factoids import adjudication, charts, demo, report, services
from kinds.factoids.data import FactoidsKind
from kinds.factoids.examples import EXAMPLES
from kinds.spec import Adjudication, Analysis, Exports, JudgePage, KindSpec, Reports

SPEC = KindSpec(
    data=FactoidsKind(),
    judge=JudgePage(template="factoids/judge.html", script="factoids/judge.js", context=report.judge_context),
    reports=Reports(
        topic=report.topic_report,
        campaign=report.campaign_report,
        topic_type=report.FactoidsTopicReport,
        campaign_type=report.FactoidsCampaignReport,
        disagreement=report.topic_disagreement,
        template="factoids/report.html",
        topic_template="factoids/topic_report.html",
        partial=report.topic_partial,
        merge=report.merge,
        partial_type=report.FactoidsPartial,
    ),
    exports=Exports(
        formats=report.EXPORTS,
        help=report.EXPORT_HELP,
        truths=report.truths,
        write=report.export,
        describe=report.describe_export,
    ),
    examples=EXAMPLES,
    analyses=(
        Analysis(
            name="growth",
            run=report.growth_analysis,
            params=report.ANALYSIS_PARAMS["growth"],
            template="factoids/results/growth.html",
            charts=charts.growth,
            ready=report.consensus_ready,
        ),
        Analysis(
            name="wfs-stability",
            run=report.stability_analysis,
            params=report.ANALYSIS_PARAMS["wfs-stability"],
            template="factoids/results/wfs-stability.html",
            charts=charts.stability,
            ready=report.consensus_ready,
        ),
    ),
    demo=demo.build,
    curations={"relations": services.clean_relations},
    urls="kinds.factoids.urls",
    # No automatic consensus: the adjudicator accepts one annotator's inventory or
    # builds the consensus inventory on the topic's consensus page.
    adjudication=Adjudication(template="factoids/adjudicate.html", compare=adjudication.compare),
)
