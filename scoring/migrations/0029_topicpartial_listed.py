from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0028_campaign_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="topicpartial",
            name="listed",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
