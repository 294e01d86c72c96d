from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0018_reports_packed"),
    ]

    operations = [
        migrations.AddField(
            model_name="scoringstate",
            name="build",
            field=models.PositiveBigIntegerField(db_default=0),
        ),
        migrations.AddField(
            model_name="scoringstate",
            name="build_chunks",
            field=models.PositiveIntegerField(db_default=0),
        ),
    ]
