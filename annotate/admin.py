from django.contrib import admin

from annotate.models import Assignment, Campaign, Judgment, JudgmentRevision, Membership, Run, Topic


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "overlap", "created_at"]
    list_filter = ["kind"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["external_id", "title", "campaign", "position"]
    list_filter = ["campaign"]
    search_fields = ["external_id", "title"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "created_at"]
    list_filter = ["topic__campaign"]
    list_select_related = ["topic", "assessor"]


class RevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    can_delete = False
    readonly_fields = ["version", "author", "status", "source", "payload", "created_at"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["topic", "assessor", "status", "version", "updated_at"]
    list_filter = ["status", "topic__campaign"]
    list_select_related = ["topic", "assessor"]
    # Judgments change only through the versioned service, never here.
    readonly_fields = ["topic", "assessor", "payload", "status", "version", "submitted_at"]
    inlines = [RevisionInline]


@admin.register(JudgmentRevision)
class JudgmentRevisionAdmin(admin.ModelAdmin):
    list_display = ["judgment", "version", "author", "status", "source", "created_at"]
    readonly_fields = ["judgment", "version", "author", "payload", "status", "source", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "campaign", "role"]
    list_filter = ["role", "campaign"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "created_at"]
    list_filter = ["campaign"]
