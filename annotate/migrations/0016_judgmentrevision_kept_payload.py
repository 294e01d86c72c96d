"""A judgment's newest revision keeps no copy of the judgment's payload
(``JudgmentRevision.kept_payload``): each judgment's payload is stored once."""

from django.db import migrations, models


def drop_newest_copies(apps, schema_editor):
    Judgment = apps.get_model("annotate", "Judgment")
    JudgmentRevision = apps.get_model("annotate", "JudgmentRevision")
    newest = JudgmentRevision.objects.filter(
        version=models.Subquery(Judgment.objects.filter(pk=models.OuterRef("judgment_id")).values("version")[:1])
    )
    # only where the copy is the judgment's (every writer keeps it so): a revision that differs keeps its own
    newest.filter(kept_payload=models.F("judgment__payload")).update(kept_payload=None)


def restore_newest_copies(apps, schema_editor):
    Judgment = apps.get_model("annotate", "Judgment")
    JudgmentRevision = apps.get_model("annotate", "JudgmentRevision")
    JudgmentRevision.objects.filter(kept_payload__isnull=True).update(
        kept_payload=models.Subquery(Judgment.objects.filter(pk=models.OuterRef("judgment_id")).values("payload")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [("annotate", "0015_judgment_held_payload")]

    operations = [
        migrations.RenameField(model_name="judgmentrevision", old_name="payload", new_name="kept_payload"),
        migrations.AlterField(
            model_name="judgmentrevision", name="kept_payload", field=models.JSONField(blank=True, null=True)
        ),
        migrations.RunPython(drop_newest_copies, restore_newest_copies, elidable=True),
    ]
