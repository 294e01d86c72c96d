"""The ordering and nuggets campaign reports keep their per-topic lists apart (each topic's
consensus, each question's pyramid: made from the topics' partials when read), so their
stored reports, running sums and fits change shape; the partials do not. One topic of each
such campaign is marked stale: the worker's rebuild then finds the stored sums and fits of
the older shape and merges every stored partial again (a full merge, not a first build),
storing all three in the new one."""

from django.db import migrations
from django.utils import timezone

KINDS = ("ordering", "nuggets")


def mark_one_topic_stale(apps, schema_editor):
    Report = apps.get_model("scoring", "Report")
    StaleTopic = apps.get_model("scoring", "StaleTopic")
    Topic = apps.get_model("annotate", "Topic")
    campaigns = set(
        Report.objects.filter(name="agreement", campaign__kind__in=KINDS).values_list("campaign_id", flat=True)
    )
    now = timezone.now()
    first = {}
    for topic_id, campaign_id in (
        Topic.objects.filter(campaign_id__in=campaigns)
        .order_by("campaign_id", "position", "id")
        .values_list("id", "campaign_id")
    ):
        first.setdefault(campaign_id, topic_id)
    StaleTopic.objects.bulk_create(
        [
            StaleTopic(campaign_id=campaign_id, topic_id=topic_id, revision=0, marked_at=now)
            for campaign_id, topic_id in first.items()
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("scoring", "0024_fits_seconds")]

    operations = [migrations.RunPython(mark_one_topic_stale, migrations.RunPython.noop)]
