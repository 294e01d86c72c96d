"""Two indexes no query needs, dropped (benchmarks.storage: 16 and
12 bytes per judgment on SQLite). ``Judgment.topic`` is led by the unique (topic,
assessor) and the (topic, status) index, ``JudgmentRevision.judgment`` by the unique
(judgment, version): each column's own index only repeated them. Only the indexes
are dropped (and made again by the reverse); on SQLite, altering the field itself
would copy both tables."""

import django.db.models.deletion
from django.db import migrations, models

#: (model, column) whose single-column index goes.
INDEXED = [("Judgment", "topic_id"), ("JudgmentRevision", "judgment_id")]


def _own_indexes(schema_editor, model, column: str) -> list[str]:
    return schema_editor._constraint_names(model, [column], index=True, unique=False, primary_key=False)


def drop(apps, schema_editor) -> None:
    for name, column in INDEXED:
        model = apps.get_model("annotate", name)
        for index in _own_indexes(schema_editor, model, column):
            schema_editor.execute(schema_editor._delete_index_sql(model, index))


def make(apps, schema_editor) -> None:
    for name, column in INDEXED:
        model = apps.get_model("annotate", name)
        if not _own_indexes(schema_editor, model, column):
            field = model._meta.get_field(column.removesuffix("_id"))
            schema_editor.execute(schema_editor._create_index_sql(model, fields=[field]))


class Migration(migrations.Migration):
    dependencies = [("annotate", "0011_import_fence")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(drop, make)],
            state_operations=[
                migrations.AlterField(
                    model_name="judgment",
                    name="topic",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="judgments",
                        to="annotate.topic",
                    ),
                ),
                migrations.AlterField(
                    model_name="judgmentrevision",
                    name="judgment",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="revisions",
                        to="annotate.judgment",
                    ),
                ),
            ],
        )
    ]
