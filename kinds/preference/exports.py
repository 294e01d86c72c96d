"""Preference downloads: the leaderboard (CSV, JSON, LaTeX) and every vote (CSV, JSON).

``leaderboard``: the people's leaderboard of the stored campaign report, the one its page
shows; while none is stored (a download right after the first submission, before the
rebuild it queued has run), the same report computed from the judgments by the builder the
rebuild runs (kinds.preference.partials.campaign_report): each system's rank and joint rank interval, score,
95% intervals (bootstrap over votes, over raters, over prompts; sandwich) and votes; the
JSON carries the whole report (win matrix, predicted probabilities, settled pairs, position
bias, agreement, model judges). ``votes``: one row per verdict, with the systems named and
the sides shown, as a battles file is imported (kinds/preference/interchange.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from annotate.models import Campaign, Topic
from concord import typed
from concord.errors import InvalidInput
from kinds.preference import partials
from kinds.preference.report import PreferenceBoard, PreferenceCampaignReport
from kinds.spec import Export, ExportFile
from scoring.csvfiles import write_csv
from scoring.selectors import JudgmentRow, campaign_report, report_input

EXPORTS = {
    "csv": Export("text/csv", "csv"),
    "json": Export("application/json", "json"),
    "latex": Export("application/x-latex", "tex"),
}
EXPORT_HELP = (
    "leaderboard: the people's leaderboard as the report shows it (rank, joint rank interval, score on the Elo "
    "scale, its 95% intervals by votes, raters, prompts and the sandwich estimator, votes), as CSV, a LaTeX "
    "booktabs table, or JSON with the whole report. votes: every verdict (prompt, the systems on the left and "
    "on the right, the choice, the rater), as CSV or JSON."
)
TRUTHS = ("leaderboard", "votes")


def truths(assessors: Sequence[str]) -> list[str]:
    return list(TRUTHS)


def describe_export(format: str, truth: str) -> ExportFile | None:
    if truth == "leaderboard" and format in EXPORTS:
        return ExportFile("leaderboard", "scores", by_truth=False)
    if truth == "votes" and format in ("csv", "json"):
        return ExportFile("votes", "judgments", by_truth=False)
    return None


def export(
    campaign: Campaign, topics: Sequence[Topic], judgments: Sequence[JudgmentRow], *, format: str, truth: str
) -> str:
    if truth not in TRUTHS:
        raise InvalidInput("truth", f"unknown table {truth!r} (known: {', '.join(TRUTHS)})")
    if format not in EXPORTS or (truth == "votes" and format == "latex"):
        offered = ", ".join(EXPORTS) if truth == "leaderboard" else "csv, json"
        raise InvalidInput("format", f"expected one of {offered} for {truth}")
    if truth == "votes":
        return votes_file(topics, judgments, format)
    report = leaderboard_report(campaign)
    if format == "json":
        return json.dumps(typed.dump(report), ensure_ascii=False, indent=1)
    if format == "latex":
        return latex_table(report.people)
    return write_csv(
        [
            "rank",
            "rank_low",
            "rank_high",
            "system",
            "score",
            "votes_low",
            "votes_high",
            "raters_low",
            "raters_high",
            "prompts_low",
            "prompts_high",
            "sandwich_low",
            "sandwich_high",
            "votes",
            "wins",
            "losses",
            "ties",
        ],
        (
            [
                row.rank,
                row.rank_low,
                row.rank_high,
                row.system,
                row.score,
                *_bounds(row.by_votes),
                *_bounds(row.by_raters),
                *_bounds(row.by_prompts),
                *_bounds(row.sandwich),
                row.votes,
                row.wins,
                row.losses,
                row.ties,
            ]
            for row in report.people.rows
        ),
    )


def leaderboard_report(campaign: Campaign) -> PreferenceCampaignReport:
    """The stored campaign report, or while none is stored (the first rebuild has not run yet,
    or the stored one is of an older shape) the report the rebuild will store, computed now
    and read back as stored (an undefined figure None, as the stored report has it, not NaN)."""
    stored = campaign_report(campaign)
    if stored is not None:
        return stored.data
    built = partials.campaign_report(report_input(campaign))
    return typed.load(PreferenceCampaignReport, typed.dump(built))


def _bounds(ci: Any) -> list[float | None]:
    return [ci.low, ci.high]


def votes_file(topics: Sequence[Topic], judgments: Sequence[JudgmentRow], format: str) -> str:
    by_id = {topic.pk: topic for topic in topics}
    rows = []
    for judgment in judgments:
        topic = by_id.get(judgment.topic_id)
        if topic is None:
            continue
        systems = [output["system"] for output in topic.data["outputs"]]
        for verdict in judgment.payload.get("verdicts", []):
            rows.append(
                {
                    "prompt_id": topic.external_id,
                    "system_a": systems[verdict["left"] - 1],
                    "system_b": systems[verdict["right"] - 1],
                    "winner": {"left": "a", "right": "b"}.get(verdict["choice"], verdict["choice"]),
                    "rater": judgment.assessor,
                    "reason": verdict.get("reason", ""),
                }
            )
    if format == "json":
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    header = ["prompt_id", "system_a", "system_b", "winner", "rater", "reason"]
    return write_csv(header, ([row[key] for key in header] for row in rows))


# -- LaTeX ---------------------------------------------------------------------------------

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    r"""``text`` with LaTeX's special characters escaped, control characters dropped.

    >>> print(latex_escape("a_b & 50% {x} ~\\"))
    a\_b \& 50\% \{x\} \textasciitilde{}\textbackslash{}
    """
    return "".join(_SPECIALS.get(c, c) for c in text if c >= " " or c == "\t")


def _number(value: float | None, places: int = 0) -> str:
    return "--" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.{places}f}"


def latex_table(board: PreferenceBoard) -> str:
    """The leaderboard as a booktabs table (needs ``\\usepackage{booktabs}``)."""
    lines = [
        "% " + latex_escape(f"{board.model}; anchor: {board.anchor or 'the mean'} at {board.base:g}"),
        r"\begin{tabular}{rlrrrr}",
        r"\toprule",
        r"Rank & System & Score & 95\% interval (votes) & 95\% interval (prompts) & Votes \\",
        r"\midrule",
    ]
    for row in board.rows:
        rank = f"{row.rank}" if row.rank_low == row.rank_high else f"{row.rank} ({row.rank_low}--{row.rank_high})"
        lines.append(
            f"{rank} & {latex_escape(row.system)} & {_number(row.score)} & "
            f"[{_number(row.by_votes.low)}, {_number(row.by_votes.high)}] & "
            f"[{_number(row.by_prompts.low)}, {_number(row.by_prompts.high)}] & {row.votes} \\\\"
        )
    lines += [r"\bottomrule", r"\end{tabular}", ""]
    return "\n".join(lines)
