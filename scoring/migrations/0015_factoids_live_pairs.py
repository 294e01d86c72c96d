"""Incremental factoid reports: the campaign report carries the first
``LIVE_PAIRS`` annotator pairs and counts them all (``pair_count``), merged from per-topic
partials that keep their rows packed. The stored reports and partials change shape, so
every topic is marked stale and the worker recomputes them."""

from django.db import migrations

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0014_rebuild_lease")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
