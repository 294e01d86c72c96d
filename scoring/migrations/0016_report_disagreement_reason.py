"""A topic's disagreement is the mean vote entropy of its items (or the
kind's pairwise measure) with a short reason the adjudication queue shows, and Fleiss'
kappa carries a test of kappa = 0 (z, p) where it carried an interval from the null
standard error. The stored disagreements and reports change, so every topic is marked
stale and the worker recomputes them."""

from django.db import migrations, models

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0015_factoids_live_pairs")]

    operations = [
        migrations.AddField(
            model_name="report",
            name="disagreement_reason",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop),
    ]
