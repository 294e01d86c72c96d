"""Conditional requests for the live report (docs/pages.md, Pages): the organiser's page polls the report
fragment every few seconds, and API clients poll ``/api/campaigns/<id>/agreement/``. Both carry an
ETag naming the stored campaign report's version (its row and ``computed_at``) and the campaign's
params (which the fragment's stop signals and phase actions read); a request whose
``If-None-Match`` names the current version gets 304 with no body, after one query (the campaign,
the user's role in it and the report's version, joined), so polling an unchanged report costs
neither the report's decoding nor its rendering.

The ETag is read before the report, so a report recomputed between the two is served under the
older tag and the next poll fetches it again: a tag never claims a newer report than its body.

:func:`campaign_report` reads the stored report for these pages: decoded straight from its stored
bytes into the kind's type (scoring.fields.unpack_stored: msgspec, half the time of decoding to dicts and
converting), and kept
per process under its ETag for the next requests (a few of the latest, :data:`CACHED`), so the
polls and page loads of every organiser share one decoding per report version.
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from django.db.models import BinaryField, Count, ExpressionWrapper, F, Max, OuterRef, Subquery, Sum
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified

from annotate.models import Campaign, Curation, Judgment, Membership, Run, Topic
from concord.typed import Outdated
from kinds.registry import get_kind
from kinds.spec import Headline
from scoring import fields, history
from scoring import selectors as scoring_selectors
from scoring.history import History
from scoring.models import Report, ScoringState
from stats.intervals import FigureCI
from stats.plain import Reading

#: The roles that may read a campaign's report (annotate.selectors: need="organise").
READERS = frozenset({"admin", "organiser"})


def etag(report_id: int | None, computed_at: datetime | None, params: dict | None, chunks: int | None = 0) -> str:
    """A strong ETag: ``"r<report id>-<computed_at in µs>-<crc32 of the params>"`` (``r0-0`` before
    the first report), and ``-b<chunks left>`` while a split first build runs: each chunk that
    ends changes it, so the fragment's "Building: n of N" follows the build.

    >>> from datetime import UTC
    >>> etag(7, datetime(2025, 1, 2, tzinfo=UTC), {})
    '"r7-1735776000000000-a3a6bf43"'
    >>> etag(7, datetime(2025, 1, 2, tzinfo=UTC), {}, 3)
    '"r7-1735776000000000-a3a6bf43-b3"'
    """
    stamp = round(computed_at.timestamp() * 1_000_000) if computed_at is not None else 0
    crc = zlib.crc32(json.dumps(params or {}, sort_keys=True, separators=(",", ":")).encode())
    building = f"-b{chunks}" if chunks else ""
    return f'"r{report_id or 0}-{stamp}-{crc:08x}{building}"'


def current_etag(user, campaign_id: int, name: str = "agreement") -> str | None:
    """The ETag of the campaign report as stored now, in one query, for a user who may read it;
    None for anyone else (and for a campaign that does not exist), who then takes the view's own
    path to its 403 or 404."""
    if not user.is_authenticated:
        return None
    reports = Report.objects.filter(campaign_id=OuterRef("pk"), name=name).order_by()
    building = ScoringState.objects.filter(campaign_id=OuterRef("pk")).order_by()
    campaigns = Campaign.objects.filter(pk=campaign_id).annotate(
        report_id=Subquery(reports.values("id")[:1]),
        report_at=Subquery(reports.values("computed_at")[:1]),
        build_chunks=Subquery(building.values("build_chunks")[:1]),
    )
    if not user.is_staff:
        roles = Membership.objects.filter(campaign_id=OuterRef("pk"), user_id=user.pk).order_by()
        campaigns = campaigns.annotate(member_role=Subquery(roles.values("role")[:1]))
    fields = ["params", "report_id", "report_at", "build_chunks", *([] if user.is_staff else ["member_role"])]
    row = next(iter(campaigns.order_by().values(*fields)[:1]), None)
    if row is None or (not user.is_staff and row["member_role"] not in READERS):
        return None
    return etag(row["report_id"], row["report_at"], row["params"], row["build_chunks"])


def matches(request: HttpRequest, tag: str | None) -> bool:
    """Whether the request's ``If-None-Match`` names ``tag`` (or is ``*``)."""
    if tag is None:
        return False
    given = request.headers.get("If-None-Match", "")
    names = {part.strip().removeprefix("W/") for part in given.split(",")}
    return tag in names or "*" in names


def not_modified(tag: str) -> HttpResponse:
    return tagged(HttpResponseNotModified(), tag)


def tagged(response: HttpResponse, tag: str | None) -> HttpResponse:
    """The response with its ETag, revalidated on every use (never served from a cache unasked)."""
    if tag is not None:
        response["ETag"] = tag
        response["Cache-Control"] = "private, no-cache"
    return response


#: How many decoded campaign reports a process keeps (the latest used; an RTE-sized one is a few MB,
#: a crowd of 2,000 workers' with its kappa matrix over 100 MB), and of one campaign.
CACHED = 4
PER_CAMPAIGN = 2
_cache: OrderedDict[tuple[int, str], scoring_selectors.StoredReport | None] = OrderedDict()
_lock = threading.Lock()


def campaign_report(campaign: Campaign, tag: str | None) -> scoring_selectors.StoredReport | None:
    """The stored campaign report (as ``scoring.selectors.campaign_report`` reads it), decoded once
    per ``tag`` (the ETag read before it) and process."""
    return _kept(_cache, campaign.pk, tag, lambda: _load(campaign))


def _kept(cache: OrderedDict, owner: int, tag: str | None, load):
    """``load()``, kept in ``cache`` under its ``owner`` (a campaign's or a topic's id) and ``tag``
    (the latest :data:`CACHED`); without a tag, read afresh and not kept."""
    key = (owner, tag or "")
    if tag is not None:
        with _lock:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
    found = load()
    if tag is not None:
        with _lock:
            cache[key] = found
            # A campaign's older versions are asked for no more once its ETag moved on: the
            # latest PER_CAMPAIGN of each (a staff member's and an organiser's tags differ).
            older = [k for k in cache if k[0] == owner and k != key][: -PER_CAMPAIGN + 1 or None]
            for stale in older:
                del cache[stale]
            while len(cache) > CACHED:
                cache.popitem(last=False)
    return found


def _load(campaign: Campaign) -> scoring_selectors.StoredReport | None:
    row = (
        Report.objects.filter(campaign=campaign, name="agreement")
        # The stored bytes, not the field's decoding to dicts: decoded once, into the kind's type.
        .annotate(raw=ExpressionWrapper(F("data"), output_field=BinaryField()))
        .values("raw", "computed_at", "judgments_seen", "fits_at", "fits_judgments")
        .first()
    )
    if row is None:
        return None
    try:
        data = fields.unpack_stored(row["raw"], type=get_kind(campaign.kind).reports.campaign_type)
    except Outdated:
        return scoring_selectors.campaign_report(campaign)  # an older shape: logged, None until recomputed
    return scoring_selectors.StoredReport(
        data, row["computed_at"], row["judgments_seen"], row["fits_at"], row["fits_judgments"]
    )


@dataclass(frozen=True)
class _StoredHeadline:
    """A kind's :class:`~kinds.spec.Headline` as ``scoring.jobs`` stores it (its figure a FigureCI).
    Every field is required: a headline stored without its reading is of an older shape
    (``Outdated``), read from the whole report instead until the next rebuild stores it anew."""

    label: str
    figure: FigureCI
    reading: Reading


_headlines: OrderedDict[tuple[int, str], scoring_selectors.StoredReport | None] = OrderedDict()


def campaign_headline(campaign: Campaign, tag: str | None) -> scoring_selectors.StoredReport | None:
    """The campaign report's time, judgments seen and, as ``data``, its kind's headline
    (:class:`~kinds.spec.Headline`; None for a kind without one), or None before the first report:
    what the summary shows, read from the small ``headline`` report each rebuild stores beside the
    campaign report (``scoring.jobs``) instead of decoding the report (at 100,000 crowd items
    x 2,000 workers: 3 MB and 0.57 s to decode, against a row of a few hundred bytes). Kept per process under ``tag``, as
    :func:`campaign_report`. A report stored before the headline was is read whole, once."""
    return _kept(_headlines, campaign.pk, tag, lambda: _load_headline(campaign, tag))


def _load_headline(campaign: Campaign, tag: str | None) -> scoring_selectors.StoredReport | None:
    headline_of = get_kind(campaign.kind).reports.headline
    rows = {
        row["name"]: row
        for row in Report.objects.filter(campaign=campaign, name__in=["agreement", "headline"])
        .annotate(raw=ExpressionWrapper(F("data"), output_field=BinaryField()))
        .values("name", "computed_at", "judgments_seen", *(["raw"] if headline_of is not None else []))
    }
    report, stored = rows.get("agreement"), rows.get("headline")
    if report is None:
        return None
    if headline_of is None:
        return scoring_selectors.StoredReport(None, report["computed_at"], report["judgments_seen"])
    if stored is not None and stored["computed_at"] == report["computed_at"]:
        try:
            found = fields.unpack_stored(stored["raw"], type=_StoredHeadline)
        except Outdated:
            found = None  # an older shape: from the report, as below
        if found is not None:
            return scoring_selectors.StoredReport(
                Headline(found.label, found.figure, found.reading), report["computed_at"], report["judgments_seen"]
            )
    whole = campaign_report(campaign, tag)
    if whole is None:
        return None
    return scoring_selectors.StoredReport(headline_of(whole.data), whole.computed_at, whole.judgments_seen)


_histories: OrderedDict[tuple[int, str], History | None] = OrderedDict()


def campaign_history(campaign: Campaign, tag: str | None) -> History | None:
    """The series of the campaign's headline (scoring.history: "Agreement over time"), an empty
    one before the first rebuild; None for a kind without a headline. Written in the same
    transaction as the report, so kept per process under ``tag`` as :func:`campaign_headline`."""
    if get_kind(campaign.kind).reports.headline is None:
        return None
    return _kept(_histories, campaign.pk, tag, lambda: history.read(campaign) or History(""))


# -- a topic's report, computed when read (scoring.selectors.topic_report) ---------------------


def topic_etag(topic: Topic) -> str:
    """A strong ETag of everything a topic's report is computed from: its judgments (each save
    counts a judgment's version up and moves its ``updated_at``; an added one has a higher id, a
    deleted one lowers the count), its curations (likewise), the campaign's runs (only ever
    added or removed) and params, and whose topic it is (the times keep two databases' ids apart,
    a restored one's or the tests'), in three small queries. The topic page's polls then answer 304, and a changed tag
    computes the report once per process (:func:`topic_report`).

    The tag is read before the report, as the campaign's: a report computed from a newer state
    than its tag is replaced at the next poll, whose tag has moved on."""
    changes = {"n": Count("pk"), "v": Sum("version"), "last": Max("pk"), "at": Max("updated_at")}
    judged = Judgment.objects.filter(topic=topic).aggregate(**changes)
    curated = Curation.objects.filter(topic=topic).aggregate(**changes)
    runs = Run.objects.filter(campaign_id=topic.campaign_id).aggregate(n=Count("pk"), last=Max("pk"))
    campaign = topic.campaign
    state = json.dumps(
        [campaign.pk, campaign.kind, topic.external_id, judged, curated, runs, campaign.params],
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return f'"t{topic.pk}-{zlib.crc32(state.encode()):08x}-{len(state)}"'


_topic_reports: OrderedDict[tuple[int, str], scoring_selectors.StoredReport | None] = OrderedDict()


def topic_report(topic: Topic, tag: str | None) -> scoring_selectors.StoredReport | None:
    """The topic's report (``scoring.selectors.topic_report``), computed once per ``tag``
    (:func:`topic_etag`, read before it) and process: an open topic page polls it every few
    seconds, and a topic judged by a hundred assessors has 4,950 pairs to compute."""
    return _kept(_topic_reports, topic.pk, tag, lambda: scoring_selectors.topic_report(topic))
