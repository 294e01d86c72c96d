"""A judgment keeps its counting payload apart only while a draft sits on top (reopened):
a submitted judgment's own payload is the one that counts (``Judgment.submitted_payload``).
A revision's author has no index (``JudgmentRevision.author``)."""

from django.conf import settings
from django.db import migrations, models


def hold_only_reopened(apps, schema_editor):
    Judgment = apps.get_model("annotate", "Judgment")
    Judgment.objects.exclude(status="reopened").update(held_payload=None)


def copy_submitted(apps, schema_editor):
    Judgment = apps.get_model("annotate", "Judgment")
    Judgment.objects.filter(status="submitted").update(held_payload=models.F("payload"))


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0014_membership_model_judge"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name="judgment", old_name="submitted_payload", new_name="held_payload"),
        migrations.RunPython(hold_only_reopened, copy_submitted, elidable=True),
        migrations.AlterField(
            model_name="judgmentrevision",
            name="author",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
