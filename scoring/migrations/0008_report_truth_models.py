"""Campaign reports of the label kinds carry each assessor's Dawid-Skene
reliability (and, for pairs, the accuracy table against a reference): the
stored reports change shape, so every topic is marked stale and the worker
recomputes them (until then the page says the report is being recomputed)."""

from django.db import migrations

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0007_report_disagreement")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
