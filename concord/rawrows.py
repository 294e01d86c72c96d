"""Model rows read and written with SQL written once per process, for the paths that run
on every request (a judgment's save): the ORM builds and compiles a query's SQL anew on
every call, which costs more CPU than the query takes to run.

The SQL text of a statement depends only on the models' tables and columns and on the
database's vendor, both fixed for the life of a process, so each caller keeps its text in
a ``functools.cache`` keyed by the vendor: nothing in it can go stale, in one process or
across several. Values go in through each field's ``get_db_prep_save`` and come out
through the same converters the ORM applies (:func:`instance`), so what is stored and
what is read are exactly what the ORM would store and read.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Sequence
from typing import Any

from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper


def quoted(model: type[models.Model], name: str, connection: BaseDatabaseWrapper) -> str:
    """``"table"."column"`` of the field ``name`` of ``model``."""
    quote = connection.ops.quote_name
    return f"{quote(model._meta.db_table)}.{quote(model._meta.get_field(name).column)}"


def column(model: type[models.Model], name: str, connection: BaseDatabaseWrapper) -> str:
    """The quoted column of the field ``name`` (an INSERT's or UPDATE's column list)."""
    return connection.ops.quote_name(model._meta.get_field(name).column)


def select_list(model: type[models.Model], connection: BaseDatabaseWrapper) -> str:
    """Every concrete column of ``model``, in the order :func:`instance` reads them."""
    return ", ".join(quoted(model, field.name, connection) for field in model._meta.concrete_fields)


def instance(model: type[models.Model], row: Sequence[Any], connection: BaseDatabaseWrapper) -> models.Model:
    """The model instance of a row of :func:`select_list`'s columns, each value converted
    as the ORM converts it (the backend's converters, then the field's)."""
    values = list(row)
    for i, column, converters in _converters(model, connection):
        if values[i] is not None:
            for converter in converters:
                values[i] = converter(values[i], column, connection)
    return model.from_db(connection.alias, None, values)


#: Per connection (each thread has its own), per model: the columns that have converters.
_CONVERTERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _converters(model: type[models.Model], connection: BaseDatabaseWrapper) -> list[tuple[int, Any, tuple]]:
    """(place, column, converters) of each concrete field of ``model`` whose values the ORM
    converts as it reads them (JSON, datetimes on SQLite...): what the compiler asks the backend
    and the field for on every query, asked once per connection."""
    # The thread's own connection, not django.db.connection's proxy of it.
    known = _CONVERTERS.setdefault(connections[connection.alias], {})
    found = known.get(model)
    if found is None:
        found = known[model] = []
        for i, field in enumerate(model._meta.concrete_fields):
            column = field.get_col(model._meta.db_table)
            converters = tuple(connection.ops.get_db_converters(column) + field.get_db_converters(connection))
            if converters:
                found.append((i, column, converters))
    return found


def prep(model: type[models.Model], name: str, value: Any, connection: BaseDatabaseWrapper) -> Any:
    """``value`` of the field ``name`` as the ORM would send it to the database."""
    return model._meta.get_field(name).get_db_prep_save(value, connection)


def convert(model: type[models.Model], name: str, value: Any, connection: BaseDatabaseWrapper) -> Any:
    """One column's value as the ORM reads it into the field ``name``."""
    field = model._meta.get_field(name)
    column = field.get_col(model._meta.db_table)
    for converter in connection.ops.get_db_converters(column) + field.get_db_converters(connection):
        value = converter(value, column, connection)
    return value


@functools.cache
def _upsert_sql(
    model: type[models.Model], names: tuple[str, ...], unique: str, update: tuple[str, ...], vendor: str
) -> str:
    connection = connections[router.db_for_write(model)]
    columns = [column(model, name, connection) for name in names]
    changed = ", ".join(f"{column(model, n, connection)} = EXCLUDED.{column(model, n, connection)}" for n in update)
    return (
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({', '.join(columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT ({column(model, unique, connection)}) "
        f"DO UPDATE SET {changed}"
    )


def upsert(model: type[models.Model], values: dict[str, Any], *, unique: str, update: tuple[str, ...]) -> None:
    """Insert a row of ``model`` with ``values`` (field name -> value), or, where one with the
    same ``unique`` field is there, set its ``update`` fields: one statement, as
    ``bulk_create(update_conflicts=True)`` writes it, without building the ORM's query."""
    connection = connections[router.db_for_write(model)]
    sql = _upsert_sql(model, tuple(values), unique, update, connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [prep(model, name, value, connection) for name, value in values.items()])
