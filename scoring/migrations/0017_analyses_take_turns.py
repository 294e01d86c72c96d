"""Job.waits_turn, JobChunk.waits_turn: analyses take turns across campaigns
(scoring/dispatch.py). Existing jobs and chunks are already in the task queue: False."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0016_report_disagreement_reason"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="waits_turn",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="jobchunk",
            name="waits_turn",
            field=models.BooleanField(default=False),
        ),
    ]
