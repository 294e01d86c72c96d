"""Reports are stored as zlib-compressed MessagePack
(scoring.fields.PackedJSONField) instead of JSON text: a topic report of the
issue's workload took 7.7 KB, it now takes 454 bytes. Every stored report is
converted as it is, a few hundred rows at a time; the reverse converts back to
JSON text. What is read back is unchanged (same keys in the same order, every
float bit for bit), so nothing is marked stale."""

from django.db import migrations

import scoring.fields

#: Rows converted per query: a campaign report can be a few MB.
BATCH = 200


def _copy(apps, source: str, target: str) -> None:
    Report = apps.get_model("scoring", "Report")
    rows = []
    for report in Report.objects.only("pk", source).order_by("pk").iterator(chunk_size=BATCH):
        setattr(report, target, getattr(report, source))
        rows.append(report)
        if len(rows) == BATCH:
            Report.objects.bulk_update(rows, [target])
            rows = []
    if rows:
        Report.objects.bulk_update(rows, [target])


def pack(apps, schema_editor) -> None:
    _copy(apps, "data", "packed")


def unpack(apps, schema_editor) -> None:
    _copy(apps, "packed", "data")


class Migration(migrations.Migration):
    dependencies = [("scoring", "0017_analyses_take_turns")]

    operations = [
        migrations.AlterField(model_name="report", name="data", field=scoring.fields.OrderedJSONField(null=True)),
        migrations.AddField(model_name="report", name="packed", field=scoring.fields.PackedJSONField(null=True)),
        migrations.RunPython(pack, unpack),
        migrations.RemoveField(model_name="report", name="data"),
        migrations.RenameField(model_name="report", old_name="packed", new_name="data"),
        migrations.AlterField(model_name="report", name="data", field=scoring.fields.PackedJSONField()),
    ]
