"""Incremental clustering reports: the campaign report carries the first
``LIVE_PAIRS`` pairs of judges and counts them all (``pair_count``), merged from
per-topic partials. The stored clustering reports change shape, so every topic is
marked stale and the worker recomputes them (and stores their partials)."""

from django.db import migrations

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0012_rebuild_finished_at")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
