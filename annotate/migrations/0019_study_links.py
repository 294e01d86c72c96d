"""Study links for crowdsourcing platforms (``StudyLink``) and the workers who came through
them (``StudyWorker``): two new tables, no change to existing ones."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0018_controls_and_pauses"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="StudyLink",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("token", models.CharField(max_length=64, unique=True)),
                (
                    "platform",
                    models.CharField(
                        choices=[("prolific", "Prolific"), ("mturk", "Amazon Mechanical Turk")], max_length=16
                    ),
                ),
                ("completion_code", models.CharField(max_length=64)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("withdrawn_at", models.DateTimeField(blank=True, null=True)),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="study_links", to="annotate.campaign"
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["campaign", "-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="StudyWorker",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "platform",
                    models.CharField(
                        choices=[("prolific", "Prolific"), ("mturk", "Amazon Mechanical Turk")], max_length=16
                    ),
                ),
                ("worker_id", models.CharField(max_length=64)),
                ("study_id", models.CharField(blank=True, default="", max_length=64)),
                ("session_id", models.CharField(blank=True, default="", max_length=64)),
                ("assignment_id", models.CharField(blank=True, default="", max_length=255)),
                ("hit_id", models.CharField(blank=True, default="", max_length=255)),
                ("submit_to", models.CharField(blank=True, default="", max_length=64)),
                ("first_visit", models.DateTimeField()),
                ("last_visit", models.DateTimeField()),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="annotate.campaign"
                    ),
                ),
                (
                    "link",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="workers", to="annotate.studylink"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="study_workers",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["campaign", "first_visit", "id"],
            },
        ),
        migrations.AddConstraint(
            model_name="studylink",
            constraint=models.UniqueConstraint(
                condition=models.Q(("withdrawn_at__isnull", True)), fields=("campaign",), name="one_open_study_link"
            ),
        ),
        migrations.AddIndex(
            model_name="studyworker",
            index=models.Index(fields=["link", "first_visit"], name="study_worker_link_first"),
        ),
        migrations.AddConstraint(
            model_name="studyworker",
            constraint=models.UniqueConstraint(
                fields=("campaign", "platform", "worker_id"), name="one_account_per_platform_id"
            ),
        ),
        migrations.AddConstraint(
            model_name="studyworker",
            constraint=models.UniqueConstraint(fields=("campaign", "user"), name="one_study_worker_per_member"),
        ),
    ]
