"""TopicPartial.judgments: how many counting judgments each partial was computed from, so that
a campaign report's ``judgments_seen`` is the sum of what its partials hold, read with them.
A partial whose topic is not marked stale holds the topic's counting judgments as they are;
a marked one is computed again by the worker, and so is any left unknown (null)."""

from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

#: Judgment.COUNTING when this migration was written: the statuses whose submitted payload counts.
COUNTING = ("submitted", "reopened")


def count_held_judgments(apps, schema_editor):
    TopicPartial = apps.get_model("scoring", "TopicPartial")
    StaleTopic = apps.get_model("scoring", "StaleTopic")
    Judgment = apps.get_model("annotate", "Judgment")
    counted = (
        Judgment.objects.filter(topic_id=OuterRef("topic_id"), status__in=COUNTING)
        .order_by()
        .values("topic_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    current = TopicPartial.objects.exclude(topic_id__in=StaleTopic.objects.values("topic_id"))
    current.update(judgments=Coalesce(Subquery(counted[:1]), 0))


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0013_invitation_help_text"),
        ("scoring", "0020_topic_reports_read_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="topicpartial",
            name="judgments",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(count_held_judgments, migrations.RunPython.noop),
    ]
