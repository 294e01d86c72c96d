"""Analyses that change their campaign are applied by an organiser, with the params
before and after kept on the job (revertible). The topic reports of several kinds
gained the text of their candidates, items, sentences and nuggets beside the ids:
every topic is marked stale so that the worker recomputes them (as 0005 does)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from scoring.migrations import _stale


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0005_reports_typed"),
        ("annotate", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="applied_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="applied_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="params_after",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="params_before",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="reverted_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="reverted_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(_stale.mark_every_topic_stale, migrations.RunPython.noop),
    ]
