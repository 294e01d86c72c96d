"""Paper-exact conventions: the ordering reports say which WCA weights
they use (``wca_weights``) and score RBA with ties averaged over their orders; the
factoids reports say the annotation kappa's unit (``annotation_unit``, now the
paper's factoid-summary combinations by default). The stored reports change shape
and value, so every topic is marked stale and the worker recomputes them."""

from django.db import migrations

from scoring.migrations._stale import mark_every_topic_stale


class Migration(migrations.Migration):
    dependencies = [("scoring", "0009_report_intervals")]

    operations = [migrations.RunPython(mark_every_topic_stale, migrations.RunPython.noop)]
