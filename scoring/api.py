"""REST API for agreement reports, analyses (jobs) and gold-standard exports."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import selectors
from annotate.api.views import ERRORS, LIMITED, body
from concord import typed
from concord.digits import whole_number
from concord.errors import InvalidInput
from kinds.registry import KINDS
from scoring import live, services
from scoring import selectors as scoring_selectors
from scoring.downloads import export_file
from scoring.models import Job


def report_types() -> list[type]:
    """Every kind's campaign report type, in registry order."""
    return [spec.reports.campaign_type for spec in KINDS.values()]


def add_report_components(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: the components (dataclasses) the
    kinds' report types are made of, as :func:`concord.typed.openapi_components` writes them."""
    _, components = typed.openapi_components(report_types())
    result.setdefault("components", {}).setdefault("schemas", {}).update(components)
    return result


@extend_schema_field(
    {
        "oneOf": typed.openapi_components(report_types())[0],
        "nullable": True,
        "description": "The campaign's kind's report (its 'kind' field says which); null before the first one is "
        "computed.",
    }
)
class ReportDataField(serializers.JSONField):
    pass


class ReportSerializer(serializers.Serializer):
    kind = serializers.CharField()
    computed_at = serializers.DateTimeField(allow_null=True)
    judgments_seen = serializers.IntegerField()
    data = ReportDataField(allow_null=True)


class JobSerializer(serializers.ModelSerializer):
    campaign = serializers.IntegerField(source="campaign_id")
    result = serializers.JSONField(allow_null=True)

    class Meta:
        model = Job
        fields = [
            "id",
            "campaign",
            "analysis",
            "params",
            "status",
            "progress",
            "message",
            "result",
            "created_at",
            "started_at",
            "finished_at",
            "attempts",
            "applied_at",
            "params_before",
            "params_after",
            "reverted_at",
        ]
        read_only_fields = fields


def analysis_params_schema() -> dict:
    """The OpenAPI schema of an analysis's params: one alternative per kind and
    analysis, from the same declarations that check them (ANALYSIS_PARAMS)."""

    variants = {}
    for kind in KINDS:
        for name, schema in services.analysis_schemas(kind).items():
            title = name if name in services.COMMON_ANALYSES else f"{kind}: {name}"
            variants[title] = {"title": title, **schema.json_schema()}
    return {
        "anyOf": list(variants.values()),
        "description": "The analysis's params (titles: kind: analysis); defaults filled, unknown ones refused, "
        "upper bounds keep one job within about 2 GB and 10 minutes on a 2-core worker.",
    }


@extend_schema_field(analysis_params_schema())
class AnalysisParamsField(serializers.DictField):
    pass


class AnalysisRequestSerializer(serializers.Serializer):
    analysis = serializers.CharField()
    params = AnalysisParamsField(required=False)


class Agreement(APIView):
    @extend_schema(
        responses={
            200: ReportSerializer,
            304: OpenApiResponse(description="Not modified: the If-None-Match header names the current ETag."),
            **ERRORS,
        }
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        def answer(campaign, tag: str | None) -> dict:
            report = live.campaign_report(campaign, tag)
            if report is None:
                return {"kind": campaign.kind, "computed_at": None, "judgments_seen": 0, "data": None}
            return ReportSerializer(
                {
                    "kind": campaign.kind,
                    "computed_at": report.computed_at,
                    "judgments_seen": report.judgments_seen,
                    "data": typed.dump(report.data),
                }
            ).data

        return _report_read(request, campaign_id, answer)


def _report_read(request: Request, campaign_id: int, answer) -> Response:
    """A read of the campaign's stored report, ``answer(campaign, tag)``, under its ETag: with
    If-None-Match naming it, a 304 after one query (scoring/live.py); the organiser's role checked."""
    tag = live.current_etag(request.user, campaign_id)
    if live.matches(request, tag):
        return live.not_modified(tag)
    campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
    return live.tagged(Response(answer(campaign, tag)), tag)


class TopicRowsSerializer(serializers.Serializer):
    kind = serializers.CharField()
    computed_at = serializers.DateTimeField(allow_null=True)
    current = serializers.BooleanField()
    total = serializers.IntegerField()
    offset = serializers.IntegerField()
    rows = serializers.ListField(child=serializers.DictField())


def _row_bound(request: Request, name: str, default: int, most: int | None = None) -> int:
    """The query parameter ``name``, a whole number (at most ``most``), or ``default``; else a 400."""
    given = request.query_params.get(name)
    if given is None:
        return default
    value = whole_number(given)
    if value is None or (most is not None and value > most):
        bound = f" from 0 to {most}" if most is not None else ""
        raise InvalidInput(name, f"expected a whole number{bound}, not {given[:40]!r}")
    return value


class AgreementTopics(APIView):
    @extend_schema(
        description="A page of the campaign report's per-topic list, for a kind whose report keeps it apart "
        "(ordering: each topic's orderings, mean tau and consensus; nuggets: each question's pyramid): "
        "`rows` from `offset`, at most `limit` (default 100, at most 2,000), in topic order, of `total`. "
        "Each row is made from its topic's stored partial; `computed_at` is the time of the agreement report "
        "they belong to (read in the same statement as the rows), and `current` says whether that is the report "
        "this request read, none of the rows stored after it: combine them with `/agreement/` only when its "
        "`computed_at` is the same. 400 for a kind without such a list.",
        parameters=[
            OpenApiParameter("offset", int, description="the first row (0: the first)"),
            OpenApiParameter("limit", int, description="how many rows (default 100, at most 2,000)"),
        ],
        responses={200: TopicRowsSerializer, **ERRORS},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        offset = _row_bound(request, "offset", 0)
        limit = _row_bound(request, "limit", 100, scoring_selectors.TOPIC_ROWS_LIMIT)
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        if KINDS[campaign.kind].reports.topic_rows is None:
            raise InvalidInput("campaign", f"a {campaign.kind} report has no per-topic list: see /agreement/")
        tag = live.current_etag(request.user, campaign_id)
        report = live.campaign_report(campaign, tag)
        page = scoring_selectors.topic_rows(campaign, report, offset=offset, limit=limit)
        return Response(
            TopicRowsSerializer(
                {
                    "kind": campaign.kind,
                    "computed_at": page.report_at,
                    "current": page.belongs_to(report),
                    "total": page.total,
                    "offset": page.offset,
                    "rows": typed.dump(page.rows),
                }
            ).data
        )


class HeadlineFigureSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    units = serializers.IntegerField()
    unit = serializers.CharField()
    method = serializers.CharField()
    level = serializers.FloatField()


class HeadlineSerializer(serializers.Serializer):
    label = serializers.CharField()
    figure = HeadlineFigureSerializer()


class HeadlineReportSerializer(serializers.Serializer):
    kind = serializers.CharField()
    computed_at = serializers.DateTimeField(allow_null=True)
    judgments_seen = serializers.IntegerField()
    headline = HeadlineSerializer(allow_null=True)


class AgreementHeadline(APIView):
    @extend_schema(
        description="The campaign report's time, the judgments it counts and its headline figure (the one the "
        "campaign's summary shows, with its 95% interval; null for a kind without one, factoids): what a client "
        "polls to learn whether and how far the report moved, a few hundred bytes whatever the campaign's size "
        "(the whole report of a crowd of 2,000 workers carries their kappa matrix: tens of megabytes as JSON). "
        "The same ETag as the agreement report: If-None-Match answers 304 after one query.",
        responses={
            200: HeadlineReportSerializer,
            304: OpenApiResponse(description="Not modified: the If-None-Match header names the current ETag."),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        def answer(campaign, tag: str | None) -> dict:
            found = live.campaign_headline(campaign, tag)
            return HeadlineReportSerializer(
                {
                    "kind": campaign.kind,
                    "computed_at": found.computed_at if found else None,
                    "judgments_seen": found.judgments_seen if found else 0,
                    "headline": None if found is None or found.data is None else typed.dump(found.data),
                }
            ).data

        return _report_read(request, campaign_id, answer)


class Analyses(APIView):
    @extend_schema(
        request=AnalysisRequestSerializer,
        description="Start an analysis: a job, queued when its campaign's turn comes (campaigns take turns in "
        "the analyses queue). At most CONCORD_JOBS_PER_CAMPAIGN unfinished jobs per campaign and "
        "CONCORD_JOBS_PER_USER per user (429).",
        responses={202: JobSerializer, 429: LIMITED, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        data = body(request, allowed={"analysis", "params"}, required={"analysis"})
        job = services.start_analysis(
            campaign=campaign, analysis=data["analysis"], params=data.get("params"), user=request.user
        )
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


def organised_job(request: Request, job_id: int) -> Job:
    """A job of a campaign the user organises (404 otherwise, like the campaign itself)."""
    job = get_object_or_404(Job, pk=job_id)
    selectors.campaign_for(request.user, job.campaign_id, need="organise")
    return job


class JobDetail(APIView):
    @extend_schema(responses={200: JobSerializer, **ERRORS})
    def get(self, request: Request, job_id: int) -> Response:
        job = organised_job(request, job_id)
        return Response(JobSerializer(job).data)


class JobCancel(APIView):
    @extend_schema(
        request=None,
        description="Cancel a queued or running job (organisers of its campaign, admins): a queued job never "
        "starts, a running one stops at its next progress report; neither is ever queued again. A job that is "
        "no longer queued or running answers 400.",
        responses={200: JobSerializer, **ERRORS},
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = organised_job(request, job_id)
        return Response(JobSerializer(services.cancel_job(job=job, user=request.user)).data)


class JobApply(APIView):
    @extend_schema(
        request=None,
        description="Apply a finished analysis's result to its campaign (analyses that propose campaign params, "
        "e.g. the ordering kind's frespa-tune): the params before and after are kept on the job "
        "(params_before, params_after). A job already applied, or one with nothing to apply, answers 400.",
        responses={200: JobSerializer, **ERRORS},
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = organised_job(request, job_id)
        return Response(JobSerializer(services.apply_job(job=job, user=request.user)).data)


class JobRevert(APIView):
    @extend_schema(
        request=None,
        description="Revert an applied job: the params it changed get their values from before. Refused with "
        "400 naming the field when one of them has changed since it was applied.",
        responses={200: JobSerializer, **ERRORS},
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = organised_job(request, job_id)
        return Response(JobSerializer(services.revert_job(job=job, user=request.user)).data)


class Export(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "format",
                str,
                description=(
                    "One of the campaign kind's export formats (docs/formats.md, 'Export formats'): e.g. csv, qrels, json, "
                    "labelstudio, doccano. A format the kind does not offer is a 400 naming format."
                ),
            ),
            OpenApiParameter(
                "truth",
                str,
                description=(
                    "The gold standard: one of the kind's truth sets, e.g. consensus, union, intersection, "
                    "single:<username>, random:<k>, dawid-skene, mace, wawa, adjudicated or "
                    "adjudicated:<fallback> (label kinds). Unknown values are a 400 naming truth."
                ),
            ),
        ],
        responses={200: OpenApiResponse(description="The gold standard file."), **ERRORS},
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="admin")
        return export_file(
            campaign,
            format=request.query_params.get("format", "csv"),
            truth=request.query_params.get("truth", "consensus"),
        )
