"""Membership.created_account and an index for the flag limits (item 4).

Existing data: set-password links keep working for the accounts they were
for until now. Every membership of an account that cannot log in yet (no
usable password, never logged in, active, not staff, no imported crowd
worker) is marked as having created it, as adding a member was the only way
such an account came to be.
"""

from django.conf import settings
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import migrations, models


def mark_created_accounts(apps, schema_editor):
    Membership = apps.get_model("annotate", "Membership")
    imported = Membership.objects.filter(imported=True).values("user_id")
    Membership.objects.filter(
        user__password__startswith=UNUSABLE_PASSWORD_PREFIX,
        user__last_login__isnull=True,
        user__is_active=True,
        user__is_staff=False,
        user__is_superuser=False,
    ).exclude(user_id__in=imported).update(created_account=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0008_judgment_topic_status_index"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="created_account",
            field=models.BooleanField(
                default=False,
                help_text="Adding this member created the account: its organisers may make it a set-password link "
                "until it can log in.",
            ),
        ),
        migrations.AddIndex(
            model_name="flag",
            index=models.Index(fields=["author", "created_at"], name="flag_author_created"),
        ),
        migrations.RunPython(mark_created_accounts, migrations.RunPython.noop),
    ]
