"""REST API for campaigns, members, topics, runs and judgments.

Thin views: check permission (annotate.selectors), call one service,
serialise. Errors come out through annotate.api.errors.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from django.db import transaction
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotate import adaptive, flags, quality, selectors
from annotate.api import serializers as s
from annotate.api.bodies import (
    SMALL_BODY_BYTES,
    BodyLimit,
    StrictJSONParser,
    StrictMultiPartParser,
    payload_limit,
    up_to_the_upload_limit,
)
from annotate.imports import read, write
from annotate.imports.write import import_runs, import_topics
from annotate.models import Campaign, Curation, Membership
from annotate.services import accounts
from annotate.services.campaigns import create_campaign
from annotate.services.curations import save_curation
from annotate.services.flags import create_flag, resolve_flag, skip_topic, unskip_topic
from annotate.services.judgments import reopen_judgment, save_judgment, withdraw_judgment
from annotate.services.members import add_member, set_model_judge
from concord import budget, tokens
from concord.errors import InvalidInput
from kinds.base import require_object
from kinds.registry import get_kind

ERRORS = {
    400: OpenApiResponse(description="Bad input: `field` names what is wrong."),
    401: OpenApiResponse(description="Not signed in."),
    403: OpenApiResponse(description="Signed in, but the role does not allow this."),
    404: OpenApiResponse(description="No such object, or not visible to you."),
}
CONFLICT = OpenApiResponse(description="Stale version: `current_version` says what to reload.")


def form_fields(request: Request, *, allowed: set[str]) -> None:
    """A multipart upload: refuse form fields the endpoint does not take (a misspelt option is not ignored)."""
    unknown = sorted(set(request.data.keys()) - allowed)
    if unknown:
        raise InvalidInput(unknown[0], f"unknown field (allowed: {', '.join(sorted(allowed))})")


def flag(value: Any, field: str) -> bool:
    """A true/false form field; absent means false."""
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise InvalidInput(field, "expected true or false")


def body(request: Request, *, allowed: set[str], required: set[str] = frozenset()) -> dict[str, Any]:
    """The JSON body, refusing fields a client may not send (no mass assignment)."""
    if not isinstance(request.data, dict) or hasattr(request.data, "getlist"):
        raise InvalidInput("body", "expected a JSON object (Content-Type: application/json)")
    return require_object(request.data, "body", allowed=allowed, required=required)


def kind_payload_limit(view: APIView, what: str) -> BodyLimit:
    """A body carrying one payload of the campaign's kind (bodies.payload_limit).
    The view notes the campaign's kind (``view.kind``) once it has read the
    campaign, before it reads the body; should anything read the body first,
    one query finds the kind. No such campaign: the small limit (the view
    answers 404)."""
    kind = getattr(view, "kind", None)
    if kind is None:
        kind = Campaign.objects.filter(pk=view.kwargs.get("campaign_id")).values_list("kind", flat=True).first()
    if kind is None:
        return BodyLimit(SMALL_BODY_BYTES)
    spec = get_kind(kind)
    return payload_limit(spec, what.format(kind=spec.data.name))


def topic_rows(request: Request, campaign, role: str, topics) -> list[dict[str, Any]]:
    """Topics as the user may see them: assessors get their kind's assessor view."""
    topics = list(topics)
    shown = selectors.topic_data_for(request.user, campaign, role, topics)
    return s.TopicSerializer(topics, many=True, context={"shown": shown}).data


class CampaignList(APIView):
    #: A campaign's guidelines are up to 100,000 characters.
    body_limit = BodyLimit(2**20, "a campaign")

    @extend_schema(responses={200: s.CampaignSerializer(many=True), **ERRORS})
    def get(self, request: Request) -> Response:
        campaigns = selectors.visible_campaigns(request.user)
        roles = dict(Membership.objects.filter(user=request.user).values_list("campaign_id", "role"))
        if request.user.is_staff:
            roles = {c.pk: "admin" for c in campaigns}
        return Response(s.CampaignSerializer(campaigns, many=True, context={"roles": roles}).data)

    @extend_schema(request=s.CampaignCreateSerializer, responses={201: s.CampaignSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        if not selectors.can_create_campaigns(request.user):
            raise PermissionDenied("Only organisers and admins create campaigns.")
        data = body(request, allowed={"kind", "name", "guidelines", "overlap", "params"}, required={"kind", "name"})
        campaign = create_campaign(creator=request.user, **data)
        role = "admin" if request.user.is_staff else "organiser"
        return Response(
            s.CampaignSerializer(campaign, context={"roles": {campaign.pk: role}}).data, status=status.HTTP_201_CREATED
        )


class CampaignDetail(APIView):
    @extend_schema(responses={200: s.CampaignSerializer, **ERRORS})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need="member")
        return Response(s.CampaignSerializer(campaign, context={"roles": {campaign.pk: role}}).data)


class MemberList(APIView):
    @extend_schema(responses={200: s.MemberSerializer(many=True), **ERRORS})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        found = list(campaign.memberships.select_related("user"))
        states = accounts.states([m.user for m in found], request.user)
        return Response(s.MemberSerializer(found, many=True, context={"states": states}).data)

    @extend_schema(
        request=s.MemberCreateSerializer,
        description="Add a member, or change a member's role; `model_judge` marks them a model judge or a person "
        "(absent: unchanged). `account` says whether the name was nobody's (new: an account without a password) or "
        "is an existing account, whose owner signs in with their own password.",
        responses={201: s.MemberSerializer, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        data = body(request, allowed={"username", "role", "model_judge"}, required={"username", "role"})
        with transaction.atomic():  # a refused model_judge adds nobody
            membership = add_member(campaign=campaign, username=data["username"], role=data["role"])
            if "model_judge" in data:
                membership = set_model_judge(
                    campaign=campaign, username=membership.user.get_username(), model_judge=data["model_judge"]
                )
        states = accounts.states([membership.user], request.user)
        return Response(s.MemberSerializer(membership, context={"states": states}).data, status=status.HTTP_201_CREATED)


class TopicList(APIView):
    parser_classes = [StrictJSONParser, StrictMultiPartParser]
    body_limit = up_to_the_upload_limit

    @extend_schema(
        description="Organisers and admins: every topic with its full data. Assessors: their own topics, each "
        "`data` being the kind's assessor view of their part (fields that would unblind them left out).",
        responses={200: s.TopicSerializer(many=True), **ERRORS},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id)
        return Response(topic_rows(request, campaign, role, selectors.topics_visible(request.user, campaign, role)))

    @extend_schema(
        description='A JSON list of topics, `{"topics": [...]}`, or a multipart `file` holding either.',
        request={"application/json": s.TopicInputSerializer(many=True), "multipart/form-data": s.UploadSerializer},
        responses={201: s.TopicSerializer(many=True), **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
        if "file" in request.FILES:
            form_fields(request, allowed={"file"})
            topics = read.read_topics(request.FILES["file"].read())
        elif isinstance(request.data, dict):
            topics = require_object(request.data, "body", allowed={"topics"}, required={"topics"})["topics"]
        else:
            topics = request.data
        created = import_topics(campaign=campaign, topics=topics)
        return Response(topic_rows(request, campaign, role, created), status=status.HTTP_201_CREATED)


class RunList(APIView):
    parser_classes = [StrictJSONParser, StrictMultiPartParser]
    body_limit = up_to_the_upload_limit

    @extend_schema(responses={200: s.RunSerializer(many=True), **ERRORS})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        return Response(s.RunSerializer(campaign.runs.all(), many=True).data)

    @extend_schema(
        description='A JSON list of runs `[{"name": ..., "data": {...}}]`, or a multipart `file` (JSON, or CSV '
        "`topic,run,order` for orderings).",
        request={"application/json": s.RunInputSerializer(many=True), "multipart/form-data": s.UploadSerializer},
        responses={201: s.RunSerializer(many=True), **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        upload = request.FILES.get("file")
        if upload:
            form_fields(request, allowed={"file"})
        data = (
            read.read_runs(upload.read(), kind=get_kind(campaign.kind), filename=upload.name or "")
            if upload
            else request.data
        )
        runs = import_runs(campaign=campaign, runs=data)
        return Response(s.RunSerializer(runs, many=True).data, status=status.HTTP_201_CREATED)


class OwnJudgment(APIView):
    def body_limit(self) -> BodyLimit:
        return kind_payload_limit(self, "a {kind} judgment's body")

    @extend_schema(responses={200: s.JudgmentSerializer, **ERRORS})
    def get(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        judgment = selectors.own_judgment(topic, request.user)
        if judgment is None:
            return Response(
                {
                    "topic": topic.external_id,
                    "assessor": request.user.get_username(),
                    "payload": get_kind(campaign.kind).data.initial_payload(
                        topic.data, seed=f"{request.user.pk}:{topic.pk}"
                    ),
                    "status": "new",
                    "version": 0,
                    "submitted_version": None,
                    "submitted_payload": None,
                    "draft_differs": False,
                    "updated_at": None,
                    "submitted_at": None,
                    "active_ms": 0,
                }
            )
        return Response(s.judgment_body(judgment))

    @extend_schema(
        request=s.JudgmentWriteSerializer,
        description="Save a draft or submit. On a reopened judgment a draft is saved on top while the submitted "
        "version keeps counting; a withdrawn one becomes a draft again. A draft on a submitted judgment is "
        "refused (400, `field`: status): reopen it first (docs/api.md, 'Judgment states').",
        responses={
            200: s.JudgmentSerializer,
            409: CONFLICT,
            **ERRORS,
        },
    )
    def put(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        self.kind = campaign.kind  # the body's limit (body_limit), without a query
        data = body(
            request, allowed={"payload", "status", "version", "active_ms"}, required={"payload", "status", "version"}
        )
        result = save_judgment(
            topic=topic,
            assessor=request.user,
            payload=data["payload"],
            status=data["status"],
            version=data["version"],
            source=_source(request),
            active_ms=data.get("active_ms", 0),
            client=_client(request),
        )
        return Response({**s.judgment_body(result.judgment), "replayed": result.replayed})


class JudgmentReopen(APIView):
    @extend_schema(
        request=s.JudgmentReopenSerializer,
        description="Reopen your submitted judgment to edit it: it becomes `reopened`, its payload a draft on top "
        "(saved with PUT status=draft) while the submitted version keeps counting in the reports until you submit "
        "again. Only a submitted judgment can be reopened (otherwise 400, `field`: status).",
        responses={200: s.JudgmentSerializer, 409: CONFLICT, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        data = body(request, allowed={"version"}, required={"version"})
        result = reopen_judgment(topic=topic, assessor=request.user, version=data["version"], source=_source(request))
        return Response({**s.judgment_body(result.judgment), "replayed": result.replayed})


class JudgmentWithdraw(APIView):
    @extend_schema(
        request=s.JudgmentWithdrawSerializer,
        description="Withdraw your submitted or reopened judgment: it no longer counts in the reports; the "
        "optional `reason` (up to 2000 characters) is kept in its revision. Saving it again makes it a draft. "
        "Anything else is refused (400, `field`: status).",
        responses={200: s.JudgmentSerializer, 409: CONFLICT, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        data = body(request, allowed={"version", "reason"}, required={"version"})
        result = withdraw_judgment(
            topic=topic,
            assessor=request.user,
            version=data["version"],
            reason=data.get("reason", ""),
            source=_source(request),
        )
        return Response({**s.judgment_body(result.judgment), "replayed": result.replayed})


def _source(request: Request) -> str:
    return "web" if request.auth is None else "api"


#: The judging page's id for itself (static/annotate/judge.js: one per page load), so
#: that two tabs of one browser session are two clients.
_PAGE = re.compile(r"[A-Za-z0-9-]{1,64}")


def _client(request: Request) -> str:
    """Where a save comes from, so that drafts in a row from it share a revision
    (annotate.services.judgments.save_judgment): the API token's id, or a digest of the browser
    session's key (never the key itself), each with the page's ``X-Concord-Page``
    when it sends one; blank when neither token nor session is known."""
    page = request.headers.get("X-Concord-Page", "")
    page = page if _PAGE.fullmatch(page) else ""
    if request.auth is not None:
        return f"token:{tokens.token_id(request.auth)}:{hashlib.sha256(page.encode()).hexdigest()[:8]}"
    key = request.session.session_key if hasattr(request, "session") else None
    return f"session:{hashlib.sha256(f'{key}|{page}'.encode()).hexdigest()[:24]}" if key else ""


class JudgmentList(APIView):
    @extend_schema(responses={200: s.JudgmentSerializer(many=True), **ERRORS})
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id)
        return Response(s.JudgmentSerializer(selectors.judgments_visible(request.user, campaign, role), many=True).data)


class JudgmentImport(APIView):
    parser_classes = [StrictMultiPartParser]
    body_limit = up_to_the_upload_limit

    @extend_schema(
        request={"multipart/form-data": s.JudgmentUploadSerializer},
        description="Import existing judgments: a crowd CSV, SQuALITY .jsonl, Label Studio JSON, doccano's zip or "
        "JSON judgments (docs/formats.md, 'Import formats'; 'format' names the reader when the file's name does not).",
        responses={201: OpenApiResponse(description="What was imported."), **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        upload = request.FILES.get("file")
        if upload is None:
            raise InvalidInput("file", "attach the crowd file as multipart field 'file'")
        form_fields(request, allowed={"file", "format", "positive", "rank", "map_members"})
        with budget.scope():  # the import's CPU, cells and memory (concord/budget.py)
            summary = write.import_judgment_file(
                campaign,
                upload.read(),
                filename=upload.name or "",
                format=request.data.get("format") or None,
                positive=request.data.get("positive") or None,
                rank=request.data.get("rank") or "overall",
                map_members=flag(request.data.get("map_members"), "map_members"),
            )
        return Response(summary.__dict__, status=status.HTTP_201_CREATED)


class Pools(APIView):
    body_limit = up_to_the_upload_limit

    @extend_schema(
        request=s.PoolsSerializer,
        description="Build adjudication pools from systems' results (docs/formats.md, 'Pools').",
        responses={201: s.TopicSerializer(many=True), **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need="organise")
        data = body(request, allowed={"queries", "runs", "depth"}, required={"queries", "runs"})
        kind = get_kind(campaign.kind)
        if kind.pools is None:
            raise InvalidInput("campaign", f"{kind.label} campaigns build no pools")
        topics = kind.pools(campaign=campaign, queries=data["queries"], runs=data["runs"], depth=data.get("depth"))
        return Response(topic_rows(request, campaign, role, topics), status=status.HTTP_201_CREATED)


def _curation_need(name: str) -> str:
    """The topic's gold (``consensus``) is adjudicators' work too; a kind's other curations are the organisers'."""
    return "adjudicate" if name == "consensus" else "organise"


class TopicCuration(APIView):
    def body_limit(self) -> BodyLimit:
        """A gold is a judgment of the kind; a kind's own curation (factoid relations,
        over every pair of the topic's assessors) has the upload limit."""
        if self.kwargs.get("name") == "consensus":
            return kind_payload_limit(self, "a {kind} gold's body")
        return up_to_the_upload_limit()

    @extend_schema(
        description="A topic's curation: `consensus` (its adjudicated gold; organisers and adjudicators) or one of "
        "the kind's own (organisers).",
        responses={200: s.CurationSerializer, **ERRORS},
    )
    def get(self, request: Request, campaign_id: int, topic_id: str, name: str) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need=_curation_need(name))
        topic = selectors.topic_for(request.user, campaign, role, topic_id)

        curation = Curation.objects.filter(topic=topic, name=name).first()
        if curation is None:
            return Response({"name": name, "data": None, "version": 0, "updated_at": None})
        return Response(s.CurationSerializer(curation).data)

    @extend_schema(
        request=s.CurationWriteSerializer,
        responses={200: s.CurationSerializer, 409: OpenApiResponse(description="Stale version."), **ERRORS},
    )
    def put(self, request: Request, campaign_id: int, topic_id: str, name: str) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id, need=_curation_need(name))
        topic = selectors.topic_for(request.user, campaign, role, topic_id)
        self.kind = campaign.kind  # the body's limit (body_limit), without a query
        # The judging page's saver sends {payload, status, version}; scripts may send {data, version}.
        data = body(request, allowed={"data", "payload", "status", "version"}, required={"version"})
        content = data.get("data", data.get("payload"))
        curation = save_curation(topic=topic, name=name, data=content, version=data["version"], user=request.user)
        return Response({**s.CurationSerializer(curation).data, "status": data.get("status", "draft")})


# -- skipping and flags (annotate/flags.py) ---------------------------------------------


def _skip_state(assignment) -> dict[str, Any]:
    return {
        "topic": assignment.topic.external_id,
        "skipped": assignment.skipped_at is not None,
        "reason": assignment.skip_reason,
        "skipped_at": assignment.skipped_at,
    }


class TopicSkip(APIView):
    @extend_schema(
        request=s.SkipSerializer,
        description="Skip one of your topics (optional `reason`, up to 2000 characters, for the organisers): it "
        "leaves your 'next topic' order. Its judgment, if any, stays (a submitted one still counts). Skipping "
        "again replaces the reason.",
        responses={200: s.SkipStateSerializer, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        data = body(request, allowed={"reason"})
        return Response(_skip_state(skip_topic(topic=topic, assessor=request.user, reason=data.get("reason"))))

    @extend_schema(
        description="Unskip: the topic is back in your queue.", responses={200: s.SkipStateSerializer, **ERRORS}
    )
    def delete(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        return Response(_skip_state(unskip_topic(topic=topic, assessor=request.user)))


class NextTopic(APIView):
    @extend_schema(
        request=None,
        description="Your next topic: your first pending one (drafts first) or, in an adaptive campaign "
        "(params.design=adaptive), work handed out now where a further opinion is worth most (docs/adaptive.md, Adaptive "
        "design). Repeating the request returns the same pending topic. `topic` null: nothing for you now. "
        "Assessors only; a paused assessor gets 403 (`field`: paused) saying why.",
        responses={200: s.NextTopicSerializer, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign, role = selectors.campaign_for(request.user, campaign_id)
        if role != Membership.Role.ASSESSOR:
            raise PermissionDenied("Only the campaign's assessors get topics to judge.")
        if request.data:  # no body, or an empty object
            body(request, allowed=set())
        quality.require_not_paused(campaign.pk, request.user.pk)
        work = adaptive.next_work(campaign, request.user)
        topic = work.topic.external_id if work.topic else None
        url = reverse("judge", args=[campaign.pk, topic]) if topic else None
        return Response({"topic": topic, "items": work.items, "allocated": work.allocated, "url": url})


#: What every flag-creating request may be refused with.
LIMITED = OpenApiResponse(
    description="A limit is reached (open flags per topic, flags per hour, unfinished jobs): `detail` says which; "
    "`Retry-After` (seconds) when waiting helps."
)


class TopicFlags(APIView):
    @extend_schema(
        description="The flags of a topic, newest first, a page at a time (`?page=`): assessors their own (with "
        "the organisers' answers), organisers all.",
        parameters=[s.PAGE_PARAMETER],
        responses={200: s.FlagPageSerializer, **ERRORS},
    )
    def get(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        number = flags.page_number(request.query_params.get("page"))
        return Response(s.flag_page(flags.page_of(flags.topic_flags(topic, request.user, role), number)))

    @extend_schema(
        request=s.FlagCreateSerializer,
        description="Flag one of your topics, or one `item` of it (an id of your part of the topic, as the kind "
        "lists its items; kinds without items take the whole topic only), with a `comment` for the organisers. "
        "At most CONCORD_FLAGS_OPEN_PER_TOPIC open flags per topic and CONCORD_FLAGS_PER_HOUR new ones per hour "
        "in a campaign (429).",
        responses={201: s.FlagSerializer, 429: LIMITED, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int, topic_id: str) -> Response:
        campaign, role, topic = selectors.judging_target(request.user, campaign_id, topic_id)
        data = body(request, allowed={"comment", "item"}, required={"comment"})
        flag = create_flag(topic=topic, author=request.user, comment=data["comment"], item=data.get("item", ""))
        return Response(s.FlagSerializer(flag).data, status=status.HTTP_201_CREATED)


class CampaignFlags(APIView):
    @extend_schema(
        description="The campaign's flags and comments inbox, newest first, a page at a time (`?page=`); "
        "`?state=open` or `resolved`.",
        parameters=[s.FLAG_STATE_PARAMETER, s.PAGE_PARAMETER],
        responses={200: s.FlagPageSerializer, **ERRORS},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        found = flags.campaign_flags(campaign, state=request.query_params.get("state", ""))
        return Response(s.flag_page(flags.page_of(found, flags.page_number(request.query_params.get("page")))))


class FlagResolve(APIView):
    @extend_schema(
        request=s.FlagResolveSerializer,
        description="Resolve a flag, with an optional `answer` its author sees on the topic's page. Repeating it "
        "with the same answer changes nothing; a resolved flag is otherwise refused (400, `field`: flag).",
        responses={200: s.FlagSerializer, **ERRORS},
    )
    def post(self, request: Request, campaign_id: int, flag_id: int) -> Response:
        campaign, _ = selectors.campaign_for(request.user, campaign_id, need="organise")
        flag = flags.flag_for(campaign, flag_id)
        data = body(request, allowed={"answer"})
        flag = resolve_flag(flag=flag, organiser=request.user, answer=data.get("answer", ""))
        return Response(s.FlagSerializer(flag).data)
