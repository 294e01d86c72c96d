"""The preference kind's spec: what generic code knows of it (kinds/spec.py)."""

from __future__ import annotations

from kinds.preference import active, adjudication, analyses, demo, exports, importers, partials, report, sums
from kinds.preference.data import PreferenceKind, judge_context
from kinds.preference.examples import EXAMPLES
from kinds.spec import Adjudication, Exports, JudgePage, KindSpec, Reports, RunningSums, Upload, UploadFile

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
        sums=RunningSums(type=sums.PreferenceSums, contribution=sums.contribution, refresh=sums.refresh),
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
    uploads=(
        Upload(
            name="prompts",
            label="Prompts with outputs",
            help="One row per system's output to a prompt, columns prompt_id, prompt, system, output in any order "
            "(CSV with commas, semicolons or tabs, .xlsx, or JSON Lines): each prompt becomes a topic, its outputs "
            "in file order.",
            files=(UploadFile("prompts", "Prompts with outputs (CSV, .xlsx or JSONL)"),),
            run=importers.upload_prompts,
            recognise=importers.recognises_prompts,
        ),
        Upload(
            name="battles",
            label="Existing battles",
            help="One row per vote, columns prompt_id, system_a, system_b, winner (a, b, tie, both_bad; or "
            "model_a, model_b, tie (bothbad) as in Chatbot Arena's and MT-Bench's releases), rater (CSV with "
            "commas, semicolons or tabs, .xlsx, or JSON Lines); system_a was shown on the left. Each rater becomes "
            "an imported assessor.",
            files=(UploadFile("battles", "Battles (CSV, .xlsx or JSONL)"),),
            run=importers.upload_battles,
            options=importers.BATTLE_OPTIONS,
            recognise=importers.recognises_battles,
        ),
    ),
    adjudication=Adjudication(
        template="preference/adjudicate.html", compare=adjudication.compare, consensus=adjudication.consensus
    ),
    allocate=active.allocate,
)
