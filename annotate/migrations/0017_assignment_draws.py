"""The probability each item of an assignment was drawn with (``Assignment.draws``), for the
inverse-probability weights of a kind that draws items as assessors ask for work."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("annotate", "0016_judgmentrevision_kept_payload")]

    operations = [
        migrations.AddField(model_name="assignment", name="draws", field=models.JSONField(blank=True, null=True)),
    ]
