"""Shared by the migrations that change the shape of stored reports."""

from django.utils import timezone


def mark_every_topic_stale(apps, schema_editor):
    """Every topic of a campaign with reports is recomputed by the worker's recovery."""
    Report = apps.get_model("scoring", "Report")
    StaleTopic = apps.get_model("scoring", "StaleTopic")
    Topic = apps.get_model("annotate", "Topic")
    campaigns = set(Report.objects.values_list("campaign_id", flat=True))
    now = timezone.now()
    StaleTopic.objects.bulk_create(
        [
            StaleTopic(campaign_id=campaign_id, topic_id=topic_id, revision=0, marked_at=now)
            for topic_id, campaign_id in Topic.objects.filter(campaign_id__in=campaigns).values_list(
                "id", "campaign_id"
            )
        ],
        ignore_conflicts=True,
    )
