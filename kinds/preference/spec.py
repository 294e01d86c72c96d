"""The preference kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.preference import adjudication, analyses, demo, exports, partials, report
from kinds.preference.data import PreferenceKind, judge_context
from kinds.preference.examples import EXAMPLES
from kinds.spec import Adjudication, Exports, JudgePage, KindSpec, Reports

SPEC = KindSpec(
    data=PreferenceKind(),
    judge=JudgePage(template="preference/judge.html", script="preference/judge.js", context=judge_context),
    reports=Reports(
        topic=partials.topic_report,
        campaign=partials.campaign_report,
        topic_type=report.PreferenceTopicReport,
        campaign_type=report.PreferenceCampaignReport,
        partial=partials.topic_partial,
        merge=partials.merge,
        partial_type=partials.PreferencePartial,
        disagreement=report.topic_disagreement,
        partial_disagreement=partials.partial_disagreement,
        headline=report.headline,
        template="preference/report.html",
        topic_template="preference/topic_report.html",
        model_judges=True,
    ),
    exports=Exports(
        formats=exports.EXPORTS,
        help=exports.EXPORT_HELP,
        truths=exports.truths,
        write=exports.export,
        describe=exports.describe_export,
    ),
    examples=EXAMPLES,
    analyses=analyses.ANALYSES,
    demo=demo.build,
    adjudication=Adjudication(
        template="preference/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
)
