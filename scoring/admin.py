from django.contrib import admin

from scoring.models import Job, Report


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    list_display = ["name", "campaign", "computed_at", "judgments_seen"]
    list_filter = ["campaign", "name"]
    readonly_fields = ["campaign", "name", "data", "computed_at", "judgments_seen"]

    def has_add_permission(self, request) -> bool:
        return False  # computed by the recompute task (an empty add form was a 500)


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["analysis", "campaign", "status", "progress", "created_at", "finished_at"]
    list_filter = ["status", "analysis"]
    readonly_fields = [
        "campaign",
        "analysis",
        "params",
        "status",
        "progress",
        "message",
        "result",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def has_add_permission(self, request) -> bool:
        return False  # started through the app, which checks the analysis and its params
