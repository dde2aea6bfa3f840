"""Querysets compiled to SQL once and run again with other values: for the few reads of a page asked on
every load (the live dashboard), where Django building the SQL of a query costs more than the database
answering it.

``Prepared(build)`` takes a function of keyword arguments that returns a queryset. The first run on a
database builds it with stand-in values (:data:`STAND_INS`, numbers no row holds), compiles it, and keeps
the SQL and where each stand-in went among its parameters; every run then sends that SQL with the values
it is given, and makes the rows into model instances as the queryset itself would (its ``select_related``
objects, its annotations and its prefetches too). The arguments are whole numbers (ids), whatever shape
the query has is the same for every value: a function whose queryset would change its shape with a value
(``None``, an empty list) must be two prepared queries, one for each shape."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final, Generic, TypeAlias, TypeVar

from django.db import DatabaseError, connections, models, router
from django.db.models import QuerySet, prefetch_related_objects, signals
from django.db.models.query import get_related_populators
from django.db.transaction import TransactionManagementError

M = TypeVar("M", bound=models.Model)

#: A column a prepared query's rows are read by: a field (of its model or of one it selects with it), or the
#: name of one of its annotations.
Column: TypeAlias = "models.Field[Any, Any] | str"

#: The stand-in for each argument while the SQL is made, in the order of the arguments' names: no id is
#: ever negative, so no constant of a query is one of them.
STAND_INS: Final = tuple(-7_340_033 - i for i in range(8))


class Compiled:
    """One queryset's SQL on one database, and what makes its rows into instances."""

    def __init__(self, queryset: QuerySet[Any], stand_ins: dict[str, int], db: str) -> None:
        compiler = queryset.query.get_compiler(using=db)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        self.slots: dict[str, list[int]] = {name: [] for name in stand_ins}
        for position, param in enumerate(self.params):
            for name, stand_in in stand_ins.items():
                if type(param) is int and param == stand_in:
                    self.slots[name].append(position)
        missing = [name for name, where in self.slots.items() if not where]
        if missing:
            raise ValueError(f"The query does not use {', '.join(missing)}: it cannot be prepared by them.")
        self.compiler = compiler
        self.db = db
        self.col_count = compiler.col_count
        self.trim = compiler.has_extra_select
        klass_info = compiler.klass_info
        select = compiler.select
        self.model = klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [column[0].target.attname for column in select[self.start : self.end]]
        self.populators = get_related_populators(klass_info, select, db)
        self.annotations = list(compiler.annotation_col_map.items())
        self.prefetch = tuple(queryset._prefetch_related_lookups)
        self._places: dict[tuple[int, ...], list[tuple[int, Any]]] = {}
        selected = [column for column, *_ in select[: self.col_count]]
        self._converters = compiler.get_converters(selected)
        # What the compiler's results_iter would work out again on every run: done once here.
        self._composite = compiler.has_composite_fields(selected)
        self._converting = list(self._converters.items())

    def run(self, values: dict[str, int]) -> list[Any]:
        return self.make(self.fetch(values))

    def fetch(self, values: dict[str, int]) -> list[tuple[Any, ...]]:
        """The rows as the database sends them, none made into an instance."""
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, self.params_for(values))
            return self.trimmed(cursor.fetchall())

    def params_for(self, values: dict[str, int]) -> list[Any]:
        """The query's parameters with ``values`` in the places of their stand-ins."""
        params = list(self.params)
        for name, where in self.slots.items():
            value = int(values[name])
            for position in where:
                params[position] = value
        return params

    def trimmed(self, fetched: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The rows without the columns the compiler added past the query's own (its extra select)."""
        return [row[: self.col_count] for row in fetched] if self.trim else fetched

    def make(self, fetched: list[tuple[Any, ...]]) -> list[Any]:
        """The instances of rows :meth:`fetch` read, as the queryset makes them."""
        instances = []
        for row in self.converted(fetched):
            obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, position in self.annotations:
                setattr(obj, name, row[position])
            instances.append(obj)
        if self.prefetch and instances:
            prefetch_related_objects(instances, *self.prefetch)
        return instances

    def converted(self, fetched: list[tuple[Any, ...]]) -> list[Any]:
        """The rows with each value through its converters, as the compiler's ``results_iter`` gives them,
        from the converters worked out once for the query."""
        if self._composite:
            return list(self.compiler.results_iter([fetched]))
        if not self._converting:
            return fetched
        connection = connections[self.db]
        rows = []
        for read in fetched:
            row = list(read)
            for position, (converters, expression) in self._converting:
                value = row[position]
                for convert in converters:
                    value = convert(value, expression, connection)
                row[position] = value
            rows.append(row)
        return rows

    def places(self, fields: tuple[Column, ...]) -> list[tuple[int, Any]]:
        """Where the first column of each of ``fields`` (a field of the model or of one it selects with it, or
        the name of an annotation) is in a row, with what its value goes through (``None``: nothing); worked
        out once for each tuple of fields."""
        key = tuple(field if isinstance(field, str) else id(field) for field in fields)
        found = self._places.get(key)
        if found is None:
            found = []
            for field in fields:
                if isinstance(field, str):
                    at = [self.compiler.annotation_col_map[field]] if field in self.compiler.annotation_col_map else []
                    what = f"the annotation {field}"
                else:
                    select = self.compiler.select
                    at = [n for n, (column, *_) in enumerate(select) if getattr(column, "target", None) is field]
                    what = f"{field.model.__name__}.{field.name}"
                if not at:
                    raise ValueError(f"The query does not read {what}.")
                found.append((at[0], self._converters.get(at[0])))
            self._places[key] = found
        return found

    def columns(self, rows: list[tuple[Any, ...]], fields: tuple[Column, ...]) -> list[tuple[Any, ...]]:
        """The values of ``fields`` in each of ``rows`` (as :meth:`fetch` read them), as instances would hold them."""
        places = self.places(fields)
        connection = connections[self.db]
        read = []
        for row in rows:
            values = []
            for position, converters in places:
                value = row[position]
                if converters is not None:
                    for convert in converters[0]:
                        value = convert(value, converters[1], connection)
                values.append(value)
            read.append(tuple(values))
        return read


class Prepared(Generic[M]):
    """``build(**ids)``, a queryset of ``model``, compiled once per database and run with the ids it is given.
    What ``build`` reads besides its arguments must not change from one run to the next (no clock)."""

    def __init__(self, model: type[M], build: Callable[..., QuerySet[M]]) -> None:
        self.model = model
        self.build = build
        self._compiled: dict[tuple[str, str, tuple[str, ...]], Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, **ids: int) -> list[M]:
        return self.compiled(ids).run(ids)

    def compiled(self, ids: dict[str, int]) -> Compiled:
        """The query compiled for the database it is read from, and these arguments' names."""
        db = router.db_for_read(self.model)
        names = tuple(sorted(ids))
        key = (db, connections[db].vendor, names)
        compiled = self._compiled.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(key)
                if compiled is None:
                    stand_ins = dict(zip(names, STAND_INS, strict=False))
                    compiled = Compiled(self.build(**stand_ins), stand_ins, db)
                    self._compiled[key] = compiled
        return compiled

    def fetch(self, **ids: int) -> Fetched[M]:
        """The rows, each made into its instance only when asked for (:class:`Fetched`): a page that needs
        only a few values of most rows (a key of what it kept) spares making them."""
        compiled = self.compiled(ids)
        if compiled.prefetch:
            raise ValueError("A query with prefetches makes all its instances at once: call it instead.")
        return Fetched(compiled, compiled.fetch(ids))


def fetch_together(*asked: tuple[Prepared[Any], dict[str, int]]) -> list[Fetched[Any]]:
    """Each prepared query's rows, as :meth:`Prepared.fetch` reads them, with ``asked``'s ids: on PostgreSQL all
    sent at once and their rows read in one trip (psycopg's pipeline mode), where each query alone would wait
    for its answer before the next is sent; elsewhere (SQLite has no server to wait on), one after another."""
    compiled = [(prepared.compiled(ids), ids) for prepared, ids in asked]
    databases = {made.db for made, _ in compiled}
    if any(made.prefetch for made, _ in compiled):
        raise ValueError("A query with prefetches makes all its instances at once: call it instead.")
    connection = connections[compiled[0][0].db] if compiled else None
    if connection is None or len(compiled) < 2 or len(databases) > 1 or connection.vendor != "postgresql":
        return [Fetched(made, made.fetch(ids)) for made, ids in compiled]
    connection.ensure_connection()
    cursors = []
    try:
        with connection.wrap_database_errors, connection.connection.pipeline():
            for made, ids in compiled:
                cursor = connection.cursor()
                cursors.append(cursor)
                cursor.execute(made.sql, made.params_for(ids))
            read = [made.trimmed(cursor.fetchall()) for (made, _), cursor in zip(compiled, cursors, strict=True)]
    finally:
        for cursor in cursors:
            cursor.close()
    return [Fetched(made, rows) for (made, _), rows in zip(compiled, read, strict=True)]


class Fetched(Generic[M]):
    """A prepared query's rows as the database sent them: the values of a few columns of each, and each
    row's instance made the first time it is asked for (and kept)."""

    def __init__(self, compiled: Compiled, rows: list[tuple[Any, ...]]) -> None:
        self.compiled = compiled
        self.rows = rows
        self._made: dict[int, M] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def columns(self, *fields: Column) -> list[tuple[Any, ...]]:
        """Each row's values of ``fields`` (fields, or names of annotations), as its instance would hold them."""
        return self.compiled.columns(self.rows, fields)

    def instance(self, index: int) -> M:
        made = self._made.get(index)
        if made is None:
            made = self._made[index] = self.compiled.make([self.rows[index]])[0]
        return made


# --- Writes ---------------------------------------------------------------------------------------------


#: Each model's UPDATE of a list of fields, and INSERT of a new row, by database: its SQL and its fields.
_writes: dict[tuple[str, type[models.Model], tuple[str, ...] | None], tuple[str, list[models.Field[Any, Any]]]] = {}


def _written_directly(model: type[models.Model], fields: list[models.Field[Any, Any]]) -> bool:
    """Whether a write of ``fields`` may skip the ORM: nothing listens for the model's saves, its ``save`` is
    Django's (or only refuses updates, :class:`~campaigns.models.AppendOnlyModel`), and every field takes a
    plain placeholder."""
    listened = signals.pre_save.has_listeners(model) or signals.post_save.has_listeners(model)
    return not listened and not any(hasattr(field, "get_placeholder") for field in fields)


def _update_of(obj: models.Model, fields: list[str]) -> tuple[str, list[Any]] | None:
    """The UPDATE of ``fields`` of ``obj`` as :func:`save_fields` sends it, with its values worked out now, or
    None when it must take the ORM's way (a new row, a listened model, a field with a placeholder of its own)."""
    model = type(obj)
    meta = model._meta
    db = router.db_for_write(model, instance=obj)
    connection = connections[db]
    key = (db, model, tuple(fields))
    made = _writes.get(key)
    if made is None:
        targets = [meta.get_field(name) for name in fields]
        quote = connection.ops.quote_name
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in targets)
        # Names from the model's own meta, quoted; the values are parameters.
        where = quote(meta.pk.column)
        made = _writes[key] = (f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {where} = %s", targets)  # noqa: S608
    sql, targets = made
    if obj._state.adding or obj.pk is None or not _written_directly(model, targets):
        return None
    values = [field.get_db_prep_save(field.pre_save(obj, False), connection=connection) for field in targets]
    return sql, [*values, meta.pk.get_db_prep_value(obj.pk, connection)]


def _insert_of(obj: models.Model) -> tuple[str, list[Any]] | None:
    """The INSERT of the new row ``obj`` as :func:`insert` sends it (returning its primary key), with its values
    worked out now, or None when it must take the ORM's way (under :func:`_update_of`'s conditions)."""
    model = type(obj)
    meta = model._meta
    db = router.db_for_write(model, instance=obj)
    connection = connections[db]
    key = (db, model, None)
    made = _writes.get(key)
    if made is None and connection.features.can_return_columns_from_insert:
        targets = [field for field in meta.concrete_fields if not field.primary_key]
        quote = connection.ops.quote_name
        columns = ", ".join(quote(field.column) for field in targets)
        returning, _ = connection.ops.return_insert_columns([meta.pk])
        places = ", ".join(["%s"] * len(targets))
        sql = f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({places}) {returning}"  # noqa: S608
        made = _writes[key] = (sql, targets)
    if made is None or not obj._state.adding or obj.pk is not None or not _written_directly(model, made[1]):
        return None
    sql, targets = made
    return sql, [field.get_db_prep_save(field.pre_save(obj, True), connection=connection) for field in targets]


def inserted(obj: models.Model, pk: Any) -> None:
    """``obj`` made the row the database wrote with primary key ``pk``, as Django's save leaves it."""
    setattr(obj, type(obj)._meta.pk.attname, pk)
    obj._state.adding = False
    obj._state.db = router.db_for_write(type(obj), instance=obj)


def save_fields(obj: models.Model, fields: list[str]) -> None:
    """``obj.save(update_fields=fields)`` for a row that exists, the UPDATE Django would send written once for
    the model and the fields: building it through the ORM cost a sheet's every write more than the database
    took to run it. Each value goes through its field as Django's save sends it (``pre_save``, then
    ``get_db_prep_save``: an ``auto_now`` field is now). The model's own ``save`` is not called: only for a
    model whose ``save`` adds nothing to an update (the caller knows), and whose saves nothing listens for
    (otherwise, or for a new row, it is ``save`` itself)."""
    update = _update_of(obj, fields)
    if update is None:
        obj.save(update_fields=fields)
        return
    db = router.db_for_write(type(obj), instance=obj)
    with connections[db].cursor() as cursor:
        cursor.execute(*update)
        if cursor.rowcount == 0:
            raise DatabaseError("Save with update_fields did not affect any rows.")
    obj._state.db = db


def insert(obj: models.Model) -> None:
    """``obj.save()`` of a new row (its primary key made by the database and set on it), the INSERT Django
    would send written once for the model, its values through their fields as Django's save sends them; under
    the same conditions as :func:`save_fields`."""
    made = _insert_of(obj)
    if made is None:
        obj.save(force_insert=True)
        return
    with connections[router.db_for_write(type(obj), instance=obj)].cursor() as cursor:
        cursor.execute(*made)
        inserted(obj, cursor.fetchone()[0])


def write_together(saved: models.Model, fields: list[str], new: models.Model, *also: tuple[str, list[Any]]) -> None:
    """:func:`save_fields` of ``saved``, each UPDATE of ``also`` (its SQL and parameters: no row it changes
    need exist, and none may be ``saved``'s, which one statement may not change twice) and :func:`insert` of
    ``new``, in one statement where the database runs an UPDATE in a WITH query (PostgreSQL): one trip to the
    database instead of one a write, each write as it would be alone. It fails as :func:`save_fields` fails
    when ``saved`` has no row, once the others are written: so only in a transaction, which the failure rolls
    back. Elsewhere, or when either row must take the ORM's way, they are sent one after the other, in that
    order. All three on one database."""
    db = router.db_for_write(type(saved), instance=saved)
    connection = connections[db]
    if connection.get_autocommit():
        raise TransactionManagementError("Rows are written together only in a transaction.")
    update = _update_of(saved, fields) if connection.vendor == "postgresql" else None
    made = _insert_of(new) if update is not None else None
    if update is None or made is None:
        save_fields(saved, fields)
        with connection.cursor() as cursor:
            for sql, params in also:
                cursor.execute(sql, params)
        insert(new)
        return
    queries = [f"saved AS ({update[0]} RETURNING 1)"]
    queries += [f"also_{n} AS ({sql} RETURNING 1)" for n, (sql, _) in enumerate(also)]
    insert_sql, insert_params = made
    # The INSERT returns its key, and how many rows the UPDATE of ``saved`` changed. Every statement is one made
    # here from models' meta, or the caller's own SQL; the values are parameters.
    sql = f"WITH {', '.join(queries)} {insert_sql}, (SELECT count(*) FROM saved)"  # noqa: S608
    with connection.cursor() as cursor:
        also_params = [param for _, params in also for param in params]
        cursor.execute(sql, [*update[1], *also_params, *insert_params])
        pk, changed = cursor.fetchone()
    if changed == 0:
        raise DatabaseError("Save with update_fields did not affect any rows.")
    saved._state.db = db
    inserted(new, pk)
