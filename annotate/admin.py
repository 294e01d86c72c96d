"""The admin: for looking and small fixes, never for losing history.

Judgments, topics' data and runs enter only through annotate's services and imports (the
kind's validation, versions, revisions, assignment), so the admin shows them
read-only. Nothing that has revision history under it (judgments, topics
that were judged or curated, campaigns with judgments) is deleted here: the
delete page refuses and says why; a campaign is deleted with
``manage.py export_campaign ID FILE --delete``, which writes its backup first.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest
from django.shortcuts import redirect
from django.urls import reverse

from annotate.models import Assignment, Campaign, Curation, Flag, Judgment, JudgmentRevision, Membership, Run, Topic
from annotate.services.campaigns import clean_campaign_params
from concord.errors import InvalidInput
from kinds.registry import get_kind


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


class KeepsHistory:
    """Refuses to delete an object while ``refusal(obj)`` gives a reason.

    Both the delete page and the "delete selected" action call
    get_deleted_objects(); a reason listed as "protected" makes Django show
    it and delete nothing, on GET and POST alike.
    """

    def refusal(self, obj: Model) -> str | None:
        raise NotImplementedError

    def get_deleted_objects(self, objs, request: HttpRequest):
        deleted, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        reasons = [reason for obj in objs if (reason := self.refusal(obj))]
        if reasons:
            # Shown instead of "no permission to delete judgment revisions":
            # the reason says what to do; deletion is refused either way.
            return deleted, model_count, set(), [*protected, *reasons]
        return deleted, model_count, perms_needed, protected


def _organisers_left(campaign_id: int | None, *, without: set[int], demoted: set[int]) -> bool:
    """Whether a campaign that has organisers keeps one after deleting the
    memberships ``without`` and demoting ``demoted`` (the rule of
    annotate.services.members.add_member, here for the admin's own forms)."""
    organisers = set(
        Membership.objects.filter(campaign_id=campaign_id, role=Membership.Role.ORGANISER).values_list("pk", flat=True)
    )
    return not organisers or bool(organisers - without - demoted)


class MembershipFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        deleted, demoted, promoted = set(), set(), False
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or not form.cleaned_data:
                continue
            pk = form.instance.pk
            role = form.cleaned_data.get("role")
            if form.cleaned_data.get("DELETE") and pk:
                deleted.add(pk)
            elif role == Membership.Role.ORGANISER:
                promoted = promoted or not pk or form.instance.role != Membership.Role.ORGANISER
            elif pk and role is not None:
                demoted.add(pk)
        if not promoted and not _organisers_left(self.instance.pk, without=deleted, demoted=demoted):
            raise forms.ValidationError(
                "A campaign cannot be left without an organiser: make someone else organiser first."
            )


class MembershipInline(admin.TabularInline):
    model = Membership
    formset = MembershipFormSet
    extra = 0
    autocomplete_fields = ["user"]


class MembershipForm(forms.ModelForm):
    def clean(self) -> dict:
        cleaned = super().clean()
        demoting = self.instance.pk and cleaned.get("role") not in (None, Membership.Role.ORGANISER)
        moving = self.instance.pk and cleaned.get("campaign") not in (None, self.instance.campaign)
        if (demoting or moving) and not _organisers_left(
            self.instance.campaign_id, without=set(), demoted={self.instance.pk}
        ):
            raise forms.ValidationError("This is the campaign's last organiser: make someone else organiser first.")
        return cleaned


class CampaignForm(forms.ModelForm):
    def clean_kind(self) -> str:
        try:
            return get_kind(self.cleaned_data["kind"]).name
        except InvalidInput as error:
            raise forms.ValidationError(error.message) from None

    def clean(self) -> dict:
        """Params through the kind's params_schema, as every other way in (annotate.services.campaigns)."""

        cleaned = super().clean()
        kind = cleaned.get("kind") or (self.instance.kind if self.instance.pk else None)
        if kind and "params" in cleaned:
            current = self.instance.params if self.instance.pk else None
            try:
                cleaned["params"] = clean_campaign_params(kind, cleaned["params"], current=current)
            except InvalidInput as error:
                self.add_error("params", f"{error.field}: {error.message}")
        return cleaned


@admin.register(Campaign)
class CampaignAdmin(KeepsHistory, admin.ModelAdmin):
    form = CampaignForm
    list_display = ["name", "kind", "overlap", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name"]
    inlines = [MembershipInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Campaign | None = None):
        # Its topics and judgments were checked against this kind.
        return ["kind"] if obj is not None else []

    def refusal(self, obj: Campaign) -> str | None:
        judgments = Judgment.objects.filter(topic__campaign=obj).count()
        curations = Curation.objects.filter(topic__campaign=obj).count()
        if not judgments and not curations:
            return None
        held = _count(judgments, "judgment") + (f" and {_count(curations, 'curation')}" if curations else "")
        return (
            f"{obj}: {held} with their revision history. Export a backup first: "
            f"manage.py export_campaign {obj.pk} FILE.json --delete writes the backup, then deletes the campaign."
        )


@admin.register(Topic)
class TopicAdmin(KeepsHistory, admin.ModelAdmin):
    list_display = ["external_id", "title", "campaign", "position"]
    list_filter = ["campaign"]
    search_fields = ["external_id", "title"]
    # Topics are imported through the app (the kind validates them, all or
    # nothing, and they are assigned); here only the title and position change.
    readonly_fields = ["campaign", "external_id", "data"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def refusal(self, obj: Topic) -> str | None:
        judgments, curations = obj.judgments.count(), obj.curations.count()
        if not judgments and not curations:
            return None
        held = _count(judgments, "judgment") + (f" and {_count(curations, 'curation')}" if curations else "")
        return (
            f"Topic {obj.external_id}: {held} with their revision history; the admin does not delete it "
            f"(a backup and deletion of the whole campaign: manage.py export_campaign {obj.campaign_id} FILE.json --delete)."
        )


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "created_at", "skipped_at"]
    list_filter = ["topic__campaign"]
    list_select_related = ["topic", "assessor"]


class RevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    can_delete = False
    readonly_fields = [
        "version",
        "author",
        "status",
        "source",
        "reason",
        "payload",
        "created_at",
        "updated_at",
        "saves",
    ]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Judgment)
class JudgmentAdmin(KeepsHistory, admin.ModelAdmin):
    list_display = ["topic", "assessor", "status", "version", "updated_at"]
    list_filter = ["status", "topic__campaign"]
    list_select_related = ["topic", "assessor"]
    readonly_fields = [
        "topic",
        "assessor",
        "payload",
        "status",
        "version",
        "submitted_version",
        "submitted_payload",
        "submitted_at",
        "active_ms",
    ]
    inlines = [RevisionInline]

    # Read-only rather than a form that validates: a judgment is written only
    # by annotate.services.judgments.save_judgment (the kind's payload check, the
    # assignment, versions and 409s, a revision per save, stale reports
    # marked). An admin form would have to repeat all of it and would be one
    # more door to keep in step; an empty "Add judgment" form saved a row
    # without topic or assessor (500).
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Judgment | None = None) -> bool:
        return False

    def refusal(self, obj: Judgment) -> str | None:
        revisions = obj.revisions.count()
        if not revisions:
            return None
        return f"{obj}: {_count(revisions, 'revision')} of history; judgments are not deleted in the admin."


@admin.register(Flag)
class FlagAdmin(admin.ModelAdmin):
    """Assessors' flags (annotate/flags.py): read here; organisers resolve them on the campaign page."""

    list_display = ["topic", "item", "author", "created_at", "resolved_at"]
    list_filter = ["topic__campaign", ("resolved_at", admin.EmptyFieldListFilter)]
    list_select_related = ["topic", "author"]
    readonly_fields = ["topic", "author", "item", "comment", "created_at", "resolved_at", "resolved_by", "answer"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Flag | None = None) -> bool:
        return False


@admin.register(JudgmentRevision)
class JudgmentRevisionAdmin(admin.ModelAdmin):
    list_display = ["judgment", "version", "author", "status", "source", "created_at", "updated_at", "saves"]
    readonly_fields = [
        "judgment",
        "version",
        "author",
        "payload",
        "status",
        "source",
        "reason",
        "created_at",
        "updated_at",
        "saves",
    ]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    form = MembershipForm
    list_display = ["user", "campaign", "role"]
    list_filter = ["role", "campaign"]

    # Refused in the views, not by has_delete_permission: deleting a whole
    # campaign (which takes its memberships along) must stay possible.
    def delete_view(self, request, object_id, extra_context=None):
        membership = self.get_object(request, object_id)
        if membership is not None and not _organisers_left(
            membership.campaign_id, without={membership.pk}, demoted=set()
        ):
            self.message_user(
                request, "This is the campaign's last organiser: make someone else organiser first.", "error"
            )
            return redirect(reverse("admin:annotate_membership_change", args=[membership.pk]))
        return super().delete_view(request, object_id, extra_context)

    def delete_queryset(self, request, queryset) -> None:
        for campaign_id in set(queryset.values_list("campaign_id", flat=True)):
            gone = set(queryset.filter(campaign_id=campaign_id).values_list("pk", flat=True))
            if not _organisers_left(campaign_id, without=gone, demoted=set()):
                self.message_user(request, "Nothing deleted: a campaign would be left without an organiser.", "error")
                return
        super().delete_queryset(request, queryset)


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "created_at"]
    list_filter = ["campaign"]
    # Runs are imported through the app, which checks them against the topics.
    readonly_fields = ["campaign", "name", "data"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
