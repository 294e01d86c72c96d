"""Topic reports are no longer stored: they are computed when a topic's page is read
(scoring.selectors.topic_report). Each topic's disagreement moves to its partial's row;
a topic with a stored report but no partial (none since every kind merges partials) is
marked stale so that the worker computes its partial and disagreement."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone


def keep_disagreements(apps, schema_editor):
    Report = apps.get_model("scoring", "Report")
    TopicPartial = apps.get_model("scoring", "TopicPartial")
    StaleTopic = apps.get_model("scoring", "StaleTopic")
    stored = Report.objects.filter(topic_id=OuterRef("topic_id"), name="agreement")
    TopicPartial.objects.update(
        disagreement=Subquery(stored.values("disagreement")[:1]),
        disagreement_reason=Coalesce(Subquery(stored.values("disagreement_reason")[:1]), Value("")),
    )
    orphans = Report.objects.filter(topic__isnull=False).exclude(topic_id__in=TopicPartial.objects.values("topic_id"))
    now = timezone.now()
    StaleTopic.objects.bulk_create(
        [
            StaleTopic(campaign_id=campaign_id, topic_id=topic_id, revision=0, marked_at=now)
            for campaign_id, topic_id in orphans.values_list("campaign_id", "topic_id")
        ],
        ignore_conflicts=True,
    )
    Report.objects.filter(topic__isnull=False).delete()


def mark_every_topic_stale(apps, schema_editor):
    """Backwards: the topic reports are stored again by the worker's recovery."""
    from scoring.migrations._stale import mark_every_topic_stale as mark

    mark(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0019_first_build_chunks"),
    ]

    operations = [
        migrations.AddField(
            model_name="topicpartial",
            name="disagreement",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="topicpartial",
            name="disagreement_reason",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.RunPython(keep_disagreements, mark_every_topic_stale),
        migrations.RemoveConstraint(model_name="report", name="one_topic_report"),
        migrations.RemoveConstraint(model_name="report", name="one_campaign_report"),
        migrations.RemoveField(model_name="report", name="topic"),
        migrations.RemoveField(model_name="report", name="disagreement"),
        migrations.RemoveField(model_name="report", name="disagreement_reason"),
        migrations.AlterField(
            model_name="report",
            name="campaign",
            field=models.ForeignKey(
                db_index=False,
                on_delete=models.deletion.CASCADE,
                related_name="reports",
                to="annotate.campaign",
            ),
        ),
        migrations.AddConstraint(
            model_name="report",
            constraint=models.UniqueConstraint(fields=("campaign", "name"), name="one_campaign_report"),
        ),
    ]
