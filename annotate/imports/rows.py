"""Many rows inserted inside a short transaction (the imports' writes).

SQLite has one writer at a time: while an import's transaction is open, every
other save of every campaign waits. Django's ``bulk_create`` builds each row
in Python inside that transaction (a model instance, each field's value
prepared, the statement assembled): for 120,000 judgments, most of the
import's time. Here a row's values are prepared for the database (JSON
encoded, dates adapted) before the transaction, the values every row shares
once, and the transaction runs one ``executemany`` per table.

A table's columns come from its model (every concrete field but an automatic
primary key), so a field added later is written with its default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.db import connections, router
from django.db.models import Model


@dataclass(frozen=True)
class Table:
    """How rows of ``model`` are inserted: the columns given per row
    (``varying``, in order) and the prepared values of all the others."""

    model: type[Model]
    varying: tuple[str, ...]
    fixed: Mapping[str, Any]

    @property
    def alias(self) -> str:
        return router.db_for_write(self.model)

    @cached_property
    def columns(self) -> list:
        return [f for f in self.model._meta.concrete_fields if not _auto(f)]

    def fields(self) -> list:
        return self.columns

    def sql(self) -> str:
        quote = connections[self.alias].ops.quote_name
        columns = [quote(f.column) for f in self.fields()]
        return (
            f"INSERT INTO {quote(self.model._meta.db_table)} ({', '.join(columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))})"
        )

    def prepare(self, attname: str, value: Any) -> Any:
        """``value`` of the column ``attname`` as the database takes it (outside the transaction)."""
        return self.model._meta.get_field(attname).get_db_prep_save(value, connections[self.alias])

    def insert(self, rows: Iterable[Sequence[Any]], *, batch: int = 5000, done=None) -> int:
        """Insert ``rows`` (prepared values of the ``varying`` columns, in order),
        ``batch`` at a time (``done(n)`` after each); inside the caller's transaction."""
        order = [self.varying.index(f.attname) if f.attname in self.varying else None for f in self.fields()]
        fixed = [None if i is not None else self.fixed[f.attname] for f, i in zip(self.fields(), order)]
        sql, written, chunk = self.sql(), 0, []
        with connections[self.alias].cursor() as cursor:
            for row in rows:
                chunk.append(tuple(row[i] if i is not None else value for i, value in zip(order, fixed)))
                if len(chunk) == batch:
                    written += _flush(cursor, sql, chunk, done)
            written += _flush(cursor, sql, chunk, done)
        return written


def _auto(field) -> bool:
    return field.primary_key and field.get_internal_type() in {"AutoField", "BigAutoField", "SmallAutoField"}


def _flush(cursor, sql: str, chunk: list, done) -> int:
    if not chunk:
        return 0
    cursor.executemany(sql, chunk)
    written = len(chunk)
    chunk.clear()
    if done:
        done(written)
    return written


def table(model: type[Model], varying: Sequence[str], **values: Any) -> Table:
    """A :class:`Table` of ``model`` whose rows give ``varying`` (attnames) and share
    ``values``; any other column gets its field's default (``auto_now`` fields: now)."""
    template = model(**values)
    alias = router.db_for_write(model)
    fixed = {}
    for field in model._meta.concrete_fields:
        if _auto(field) or field.attname in varying:
            continue
        fixed[field.attname] = field.get_db_prep_save(field.pre_save(template, add=True), connections[alias])
    return Table(model, tuple(varying), fixed)
