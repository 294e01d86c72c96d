"""Output shapes, and input shapes for the schema. Input is validated by the
services; serializers declare exactly the fields a client may send, so
nothing else (an assessor, a campaign, a version) can be assigned."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

from annotate.models import Campaign, Flag, Judgment, Membership, Run, Topic
from annotate.services import accounts
from kinds.base import CONTROL_PARAMS
from kinds.registry import KINDS


class CampaignSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = ["id", "kind", "name", "guidelines", "overlap", "params", "created_at", "role"]
        read_only_fields = fields

    def get_role(self, campaign: Campaign) -> str | None:
        return self.context.get("roles", {}).get(campaign.pk)

    def to_representation(self, campaign: Campaign) -> dict:
        """An assessor's (or adjudicator's) campaign leaves out the rules of control items: knowing
        the quiz's length and the rate would tell them which of their topics are controls
        (annotate/controls.py; docs/security.md)."""
        shown = super().to_representation(campaign)
        if self.get_role(campaign) not in ("organiser", "admin") and isinstance(shown.get("params"), dict):
            shown["params"] = {name: value for name, value in shown["params"].items() if name not in CONTROL_PARAMS}
        return shown


def campaign_params_schema() -> dict:
    """The OpenAPI schema of campaign params: one alternative per kind (its
    ``params_schema``, the declarations that check them)."""
    return {
        "anyOf": [{"title": kind.name, **kind.params.json_schema()} for kind in KINDS.values()],
        "description": "The kind's campaign params (titles: kind); defaults filled, unknown ones refused.",
    }


@extend_schema_field(campaign_params_schema())
class CampaignParamsField(serializers.DictField):
    pass


class CampaignCreateSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField(max_length=200)
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")
    overlap = serializers.IntegerField(required=False, default=2, min_value=1, max_value=100)
    params = CampaignParamsField(required=False, default=dict)


class MemberSerializer(serializers.ModelSerializer):
    """A member; ``context={"states": annotate.services.accounts.states(...)}`` says what
    the caller may know of each account."""

    username = serializers.CharField(source="user.username")
    imported = serializers.BooleanField(
        read_only=True, help_text="An imported assessor: an account an import created; it never logs in."
    )
    account = serializers.SerializerMethodField(
        help_text="imported: an imported assessor; new: an account adding it created, without a password yet "
        "(the members page makes it a set-password link); existing: they sign in with their own password "
        "(nothing more is told of an account)."
    )

    model_judge = serializers.BooleanField(
        read_only=True,
        help_text="A model judge (an LLM used as a rater): its judgments are kept out of the people's figures, gold "
        "standards, stop signal, adaptive allocation and progress counts unless the campaign's model_judges_count "
        "counts them.",
    )

    class Meta:
        model = Membership
        fields = ["username", "role", "imported", "model_judge", "account"]

    @extend_schema_field(serializers.ChoiceField(choices=["imported", "new", "existing"]))
    def get_account(self, membership: Membership) -> str:
        return accounts.member_state(membership, self.context["states"][membership.user_id])


class MemberCreateSerializer(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    model_judge = serializers.BooleanField(
        required=False, help_text="Mark the member a model judge (true) or a person (false); absent: unchanged."
    )


class TopicSerializer(serializers.ModelSerializer):
    """A topic; its ``data`` is what the reader may see, never the stored data as
    such: pass ``context={"shown": selectors.topic_data_for(...)}`` (blind assessment)."""

    class Meta:
        model = Topic
        fields = ["external_id", "title", "data", "position"]
        read_only_fields = fields

    def to_representation(self, topic: Topic) -> dict:
        row = super().to_representation(topic)
        row["data"] = self.context["shown"][topic.pk]
        return row


class RunSerializer(serializers.ModelSerializer):
    class Meta:
        model = Run
        fields = ["name", "data", "created_at"]
        read_only_fields = fields


class JudgmentSerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.external_id")
    assessor = serializers.CharField(source="assessor.username")
    payload = serializers.JSONField(help_text="The judgment as last saved: on a reopened one, the draft on top.")
    # "new": nothing saved yet (GET of a judgment never written, version 0).
    status = serializers.ChoiceField(
        choices=["new", *Judgment.Status.values],
        help_text="new, draft, submitted, reopened (a draft on top of a submitted version that still counts) "
        "or withdrawn (no longer counts). docs/api.md, 'Judgment states'.",
    )
    submitted_version = serializers.IntegerField(
        allow_null=True, help_text="The version that counts in the reports; null when none does."
    )
    submitted_payload = serializers.JSONField(
        allow_null=True, help_text="The payload that counts in the reports; null when none does."
    )
    draft_differs = serializers.SerializerMethodField(
        help_text="True when a reopened judgment's draft differs from the version that counts."
    )
    updated_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True, help_text="When the counting version was submitted.")
    active_ms = serializers.IntegerField(
        help_text="Active time spent on the topic in milliseconds (counted by the judging page only while it is "
        "visible and the assessor did something in the last 60 s; the sum of the saves' `active_ms`)."
    )

    class Meta:
        model = Judgment
        fields = [
            "topic",
            "assessor",
            "payload",
            "status",
            "version",
            "submitted_version",
            "submitted_payload",
            "draft_differs",
            "updated_at",
            "submitted_at",
            "active_ms",
        ]
        read_only_fields = fields

    def get_draft_differs(self, judgment: Judgment) -> bool:
        return judgment.status == Judgment.Status.REOPENED and judgment.payload != judgment.submitted_payload


_DATETIME = serializers.DateTimeField()


def judgment_body(judgment: Judgment) -> dict:
    """``JudgmentSerializer(judgment).data`` without building a serializer (the
    judgment endpoints answer every save with it; a test keeps the two equal).
    ``judgment.topic`` and ``judgment.assessor`` should be loaded already."""
    when = _DATETIME.to_representation
    return {
        "topic": judgment.topic.external_id,
        "assessor": judgment.assessor.username,
        "payload": judgment.payload,
        "status": str(judgment.status),
        "version": judgment.version,
        "submitted_version": judgment.submitted_version,
        "submitted_payload": judgment.submitted_payload,
        "draft_differs": judgment.status == Judgment.Status.REOPENED and judgment.payload != judgment.submitted_payload,
        "updated_at": when(judgment.updated_at) if judgment.updated_at else None,
        "submitted_at": when(judgment.submitted_at) if judgment.submitted_at else None,
        "active_ms": judgment.active_ms,
    }


class JudgmentWriteSerializer(serializers.Serializer):
    payload = serializers.JSONField()
    status = serializers.ChoiceField(
        choices=[Judgment.Status.DRAFT, Judgment.Status.SUBMITTED],
        help_text="draft: save (on a reopened judgment, a draft on top of the submitted version); "
        "submitted: submit a complete judgment.",
    )
    version = serializers.IntegerField(min_value=0, help_text="The version you read; 0 for a new judgment.")
    active_ms = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=600000,
        help_text="Active time spent on the topic since the last save, in ms (0 to 10 minutes per request); "
        "added to the judgment's `active_ms` (not on a replayed save).",
    )


class JudgmentReopenSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=0, help_text="The version you read.")


class JudgmentWithdrawSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=0, help_text="The version you read.")
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Why (optional): kept in the revision."
    )


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField()


class JudgmentUploadSerializer(UploadSerializer):
    """A judgments file and its options; any other form field is refused."""

    format = serializers.CharField(
        required=False,
        help_text="Read the file as this suffix says, whatever its name: .json (judgments), .csv (crowd CSV) or one "
        "of the kind's (.labelstudio.json, .zip for doccano, .jsonl for SQuALITY). Default: by the file's name.",
    )
    positive = serializers.CharField(required=False, help_text="Crowd CSV: the label value that means a match.")
    rank = serializers.CharField(required=False, help_text="SQuALITY: overall, correctness or selection.")
    map_members = serializers.BooleanField(
        required=False,
        help_text="true: a worker named like an assessor of this campaign is that assessor. Otherwise a worker "
        "name that is an existing account (other than a worker an earlier import of this campaign created) is refused.",
    )


class TopicInputSerializer(serializers.Serializer):
    external_id = serializers.CharField(
        help_text="Unique within the campaign; 1 to 200 characters, no white space or '/', not '.' or '..'."
    )
    title = serializers.CharField(required=False, allow_blank=True)
    data = serializers.JSONField(help_text="The items to judge, shaped by the campaign's kind (docs/formats.md).")
    controls = serializers.DictField(
        required=False,
        help_text="Known answers, item id -> answer: a control topic (docs/formats.md, Control items). Stored apart "
        "from the data; no endpoint returns them.",
    )
    attention_checks = serializers.DictField(
        required=False, help_text="Items whose own text says what to answer, item id -> answer (as controls)."
    )


class RunInputSerializer(serializers.Serializer):
    name = serializers.CharField()
    data = serializers.JSONField()


class PoolsSerializer(serializers.Serializer):
    queries = serializers.DictField(child=serializers.CharField(), help_text="query id -> query text")
    runs = RunInputSerializer(many=True)
    depth = serializers.IntegerField(required=False, min_value=1, help_text="each system's top results pooled")


class CurationSerializer(serializers.Serializer):
    name = serializers.CharField()
    data = serializers.JSONField(allow_null=True)
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField(allow_null=True)


class CurationWriteSerializer(serializers.Serializer):
    data = serializers.JSONField(help_text="relations: {pairs: {...}}; consensus: {factoids, marks}")
    version = serializers.IntegerField(min_value=0)


class SkipSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Why (optional), for the organisers."
    )


class SkipStateSerializer(serializers.Serializer):
    topic = serializers.CharField()
    skipped = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True)
    skipped_at = serializers.DateTimeField(allow_null=True)


class NextTopicSerializer(serializers.Serializer):
    topic = serializers.CharField(allow_null=True, help_text="The topic's external id; null: nothing for you now.")
    items = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The items of it you judge; null: all of them."
    )
    allocated = serializers.BooleanField(help_text="True: handed out by this request (adaptive design).")
    url = serializers.CharField(allow_null=True, help_text="The judging page of the topic.")


class FlagSerializer(serializers.ModelSerializer):
    id = serializers.IntegerField()
    topic = serializers.CharField(source="topic.external_id")
    author = serializers.CharField(source="author.username")
    item = serializers.CharField(allow_blank=True, help_text="The flagged item's id; blank: the whole topic.")
    state = serializers.SerializerMethodField(help_text="open or resolved")
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True, default=None)

    class Meta:
        model = Flag
        fields = [
            "id",
            "topic",
            "author",
            "item",
            "comment",
            "state",
            "created_at",
            "resolved_at",
            "resolved_by",
            "answer",
        ]
        read_only_fields = fields

    def get_state(self, flag: Flag) -> str:
        return "open" if flag.is_open else "resolved"


class FlagPageSerializer(serializers.Serializer):
    """One page of flags (annotate.flags.PAGE_SIZE a page, newest first)."""

    count = serializers.IntegerField(help_text="Flags in the whole list.")
    page = serializers.IntegerField(help_text="This page's number, from 1.")
    pages = serializers.IntegerField()
    previous = serializers.IntegerField(allow_null=True, help_text="The previous page's number; null on the first.")
    next = serializers.IntegerField(allow_null=True, help_text="The next page's number; null on the last.")
    results = FlagSerializer(many=True)


def flag_page(page) -> dict:
    """A :class:`annotate.flags.Page` of flags as the API answers it."""
    return {
        "count": page.count,
        "page": page.number,
        "pages": page.pages,
        "previous": page.previous,
        "next": page.next,
        "results": FlagSerializer(page.items, many=True).data,
    }


class FlagCreateSerializer(serializers.Serializer):
    comment = serializers.CharField(max_length=2000, help_text="For the organisers (1 to 2000 characters).")
    item = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="One item of the topic, as the kind lists them (e.g. a candidate or document id); "
        "left out or blank: the whole topic.",
    )


class FlagResolveSerializer(serializers.Serializer):
    answer = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, help_text="Shown to the flag's author on the topic's page."
    )


FLAG_STATE_PARAMETER = OpenApiParameter(
    "state", str, enum=["open", "resolved"], required=False, description="open or resolved; left out: all"
)
PAGE_PARAMETER = OpenApiParameter("page", int, required=False, description="The page's number, from 1 (default 1).")
