"""Reports became typed (each kind's dataclass tree, concord/typed.py): the
stored ones of an older shape are not shown (scoring.selectors reads them as
missing), and every topic is marked stale here so that the worker's recovery
(scoring.services.recover_jobs, at its start) recomputes every campaign's
reports in the new shape. Nothing is lost: reports are computed from the
judgments, which this does not touch."""

from django.db import migrations
from django.utils import timezone


def mark_every_topic_stale(apps, schema_editor):
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


class Migration(migrations.Migration):
    dependencies = [("scoring", "0004_job_attempts_cancelled"), ("annotate", "0001_initial")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
