"""Topic reports keep their disagreement (KindSpec Reports.disagreement) in a
column, for the assignments page to filter and sort by; every topic is marked
stale so the worker fills it in for the reports already stored."""

from django.db import migrations, models

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0006_job_applied")]

    operations = [
        migrations.AddField(model_name="report", name="disagreement", field=models.FloatField(blank=True, null=True)),
        migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop),
    ]
