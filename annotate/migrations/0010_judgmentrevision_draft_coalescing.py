"""Draft revisions coalesce (annotate.services.judgments.save_judgment): a revision records
its last save (``updated_at``), how many saves it holds and where a draft came
from. Every existing revision holds one save, last made when it was made."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import F


def one_save_each(apps, schema_editor):
    apps.get_model("annotate", "JudgmentRevision").objects.update(updated_at=F("created_at"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0009_membership_created_account_flag_limits"),
    ]

    operations = [
        migrations.AddField(
            model_name="judgmentrevision",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, default=django.utils.timezone.now),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="judgmentrevision",
            name="saves",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddField(
            model_name="judgmentrevision",
            name="client",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
        migrations.RunPython(one_save_each, migrations.RunPython.noop),
    ]
