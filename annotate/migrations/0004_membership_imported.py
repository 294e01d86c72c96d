"""Membership.imported: the crowd workers an import created.

Existing data: an assessor whose account has no usable password, is not
staff, and whose every judgment revision in the campaign came from an import
is marked as that campaign's imported worker, so importing into the same
campaign again keeps working. Accounts themselves are not changed.
"""

from collections import defaultdict

from django.conf import settings
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import migrations, models


def mark_imported_workers(apps, schema_editor):
    Membership = apps.get_model("annotate", "Membership")
    JudgmentRevision = apps.get_model("annotate", "JudgmentRevision")
    candidates = Membership.objects.filter(
        role="assessor", imported=False, user__is_staff=False, user__password__startswith=UNUSABLE_PASSWORD_PREFIX
    ).values_list("pk", "campaign_id", "user_id")
    sources = defaultdict(set)
    for campaign_id, user_id, source in JudgmentRevision.objects.values_list(
        "judgment__topic__campaign_id", "judgment__assessor_id", "source"
    ).distinct():
        sources[(campaign_id, user_id)].add(source)
    marked = [pk for pk, campaign_id, user_id in candidates if sources.get((campaign_id, user_id)) == {"import"}]
    Membership.objects.filter(pk__in=marked).update(imported=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0003_curation_curationrevision_and_more"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="imported",
            field=models.BooleanField(
                default=False,
                help_text="An imported crowd worker: an account an import of this campaign created; it never logs in.",
            ),
        ),
        migrations.RunPython(mark_imported_workers, migrations.RunPython.noop),
    ]
