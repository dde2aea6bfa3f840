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
from typing import Any, Final, Generic, TypeVar

from django.db import connections, models, router
from django.db.models import QuerySet, prefetch_related_objects
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=models.Model)

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

    def run(self, values: dict[str, int]) -> list[Any]:
        params = list(self.params)
        for name, where in self.slots.items():
            value = int(values[name])
            for position in where:
                params[position] = value
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            fetched = cursor.fetchall()
        if self.trim:
            fetched = [row[: self.col_count] for row in fetched]
        instances = []
        for row in self.compiler.results_iter([fetched]):
            obj = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
            for populator in self.populators:
                populator.populate(row, obj)
            for name, position in self.annotations:
                setattr(obj, name, row[position])
            instances.append(obj)
        if self.prefetch and instances:
            prefetch_related_objects(instances, *self.prefetch)
        return instances


class Prepared(Generic[M]):
    """``build(**ids)``, a queryset of ``model``, compiled once per database and run with the ids it is given.
    What ``build`` reads besides its arguments must not change from one run to the next (no clock)."""

    def __init__(self, model: type[M], build: Callable[..., QuerySet[M]]) -> None:
        self.model = model
        self.build = build
        self._compiled: dict[tuple[str, str, tuple[str, ...]], Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, **ids: int) -> list[M]:
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
        return compiled.run(ids)
