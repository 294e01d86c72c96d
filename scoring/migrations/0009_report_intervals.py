"""Every agreement figure of every kind's reports carries its 95% interval and
the number of units behind it, Gwet's AC1/AC2 join kappa, and the ordering and
factoids reports say which of the paper's conventions they use: the
stored reports change shape, so every topic is marked stale and the worker
recomputes them (until then the page says the report is being recomputed)."""

from django.db import migrations

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0008_report_truth_models")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
