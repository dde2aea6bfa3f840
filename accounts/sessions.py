"""The session engine (``SESSION_ENGINE``): Django's database sessions, shared by every server process, with
the session's user read in the same query as the session.

A signed-in request reads its session and then its user, two queries before any page does anything. The
user a session was logged in to is noted beside it (:class:`accounts.models.UserSession`), so the
session's row, that note and the user's row are read in one query here, and the user kept on the store
(:attr:`SessionStore.noted_user`) for :class:`accounts.middleware.AuthenticationMiddleware`, which takes
it only where Django's own checks would take the user it reads: the session names that user, by a
backend that reads users as Django's ``ModelBackend`` does, who may log in, with the hash of their
password the session holds. Anything else (a session with no note, one whose hash no longer matches) goes
the whole way through Django's ``get_user``, with its query.

The session's data, as the row holds it, is decoded once per process for each text (:data:`DECODED`):
checking its signature and reading it cost every signed-in request some ninety Python calls for the same
few keys, and the text only changes when the session does.

What that query read is kept in the process's memory (:data:`READS`) for ``SESSION_READ_FOR`` seconds from
the moment it was read, and taken from there instead of the database: a signed-in page then pays no query
before its own. Whatever changes what the query reads marks the session as changed (:func:`forget`) when it
is made and again when it is committed: the session saved or deleted (a log-out, a new key, the sessions a
new password ends), its note written or dropped, its user saved or deleted (a new password, an account
closed, a new name). A marked session is read from the database until the mark expires, and a read taken
before the change can neither be kept over the mark (:meth:`ProcessReads.add`) nor outlive it (a kept read
is good for ``SESSION_READ_FOR`` seconds from its own reading, and the mark lasts as long from the commit).
So nothing is taken from memory that the database no longer says, but for a change made with no signal sent
(a bulk ``UPDATE`` of users, a change made by hand or by another process, such as ``manage.py
changepassword``), which is seen within ``SESSION_READ_FOR`` seconds.

Only one process may keep reads (config/settings.py: ``SESSION_READ_FOR`` is 10 without ``REDIS_URL``, where
one process serves, and 0 with it): a change made through another process would not mark this one's. With
Redis every request reads the database, as a trip to Redis for a kept read cost more than the query (a
sheet 1.00 ms in process reading the database, 1.21 ms reading Django's Redis cache).
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from functools import cache
from typing import Any, Final

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connections, router, transaction
from django.utils import timezone

from accounts.models import UserSession
from web.kept import Kept

#: Sessions' data decoded, by its text (and the keys it was signed with): a few hundred bytes each.
DECODED: Final[Kept[dict[str, Any]]] = Kept(4096)
#: What a decoded session may hold and be handed out as a shallow copy: values nothing can change in place.
PLAIN: Final = (str, int, float, bool, type(None))
#: What :data:`READS` holds for a session marked as changed (:func:`forget`).
CHANGED: Final = "changed"


class ProcessReads:
    """Values kept in this process's memory as Django's cache keeps them (``get``, ``add`` only where none
    lives, ``set_many``, each with a timeout), without the pickling that ``LocMemCache`` does to act as a
    shared cache would. At most ``limit`` entries, the least recently used dropped first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: OrderedDict[str, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] <= time.monotonic():
                return default
            self._entries.move_to_end(key)
            return entry[1]

    def add(self, key: str, value: Any, timeout: float) -> bool:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[0] > time.monotonic():
                return False
            self._put(key, value, timeout)
            return True

    def set_many(self, data: dict[str, Any], timeout: float) -> list[str]:
        with self._lock:
            for key, value in data.items():
                self._put(key, value, timeout)
        return []

    def _put(self, key: str, value: Any, timeout: float) -> None:
        self._entries[key] = (time.monotonic() + timeout, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.limit:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: The sessions' reads this process keeps, and the marks of those changed, by :func:`cache_key`.
READS: Final = ProcessReads(4096)


def read_for() -> float:
    """Seconds a read is kept (``SESSION_READ_FOR``; 0: none is)."""
    return float(getattr(settings, "SESSION_READ_FOR", 0))


def cache_key(session_key: str) -> str:
    return f"accounts.session:{session_key}"


def forget(*session_keys: str) -> None:
    """Marks the sessions as changed (see the module): now, and again once the transaction under way, if
    any, commits, so that a read taken before the commit is not kept past it."""
    seconds = read_for()
    if not session_keys or seconds <= 0:
        return

    def mark() -> None:
        READS.set_many({cache_key(key): CHANGED for key in session_keys}, timeout=seconds)

    mark()
    transaction.on_commit(mark)


def kept_read(session_key: str) -> tuple[list[Any] | None, Any, str] | None:
    """The session's read as :data:`READS` keeps it (its user's values, its expiry, its data), if it was read
    from the database less than ``SESSION_READ_FOR`` seconds ago and not marked as changed since; else None."""
    seconds = read_for()
    kept = READS.get(cache_key(session_key)) if seconds > 0 else None
    if not isinstance(kept, tuple) or time.time() - kept[0] >= seconds:
        return None
    _, values, expires, data = kept
    return values, expires, data


def keep_read(session_key: str, read_at: float, values: list[Any] | None, expires: Any, data: str) -> None:
    """Keeps a read taken at ``read_at`` (``time.time()`` before the query), unless the session is marked
    as changed or another read is kept already (:meth:`ProcessReads.add`)."""
    seconds = read_for()
    if seconds > 0:
        READS.add(cache_key(session_key), (read_at, values, expires, data), timeout=seconds)


@cache
def _query(alias: str) -> str:
    """The session, its note and its user, in one query on database ``alias``: the user's columns (NULL
    when the session has no note), then the session's expiry and its data; the session by its key, unexpired.
    Made once for each database."""
    qn = connections[alias].ops.quote_name
    user, session, noted = get_user_model()._meta, Session._meta, UserSession._meta
    columns = ", ".join(f"u.{qn(field.column)}" for field in user.concrete_fields)
    session_key, noted_key = qn(session.pk.column), qn(noted.pk.column)
    return (
        f"SELECT {columns}, s.{qn(session.get_field('expire_date').column)}, "  # noqa: S608
        f"s.{qn(session.get_field('session_data').column)} "
        f"FROM {qn(session.db_table)} s "
        f"LEFT JOIN {qn(noted.db_table)} n ON n.{noted_key} = s.{session_key} "
        f"LEFT JOIN {qn(user.db_table)} u ON u.{qn(user.pk.column)} = n.{qn(noted.get_field('user').column)} "
        f"WHERE s.{session_key} = %s AND s.{qn(session.get_field('expire_date').column)} > %s"
    )


class SessionStore(db.SessionStore):
    """Django's database session store, which reads the session's user with it (see the module)."""

    #: The user the session was noted as logged in to, read with it; None before it is read, or without a note.
    noted_user: AbstractBaseUser | None = None

    def _get_session_from_db(self) -> Any:
        alias = router.db_for_read(Session)
        now = timezone.now()
        kept = kept_read(self.session_key) if self.session_key else None
        if kept is not None and kept[1] > now:
            values, _, data = kept
        else:
            read_at = time.time()
            connection = connections[alias]
            with connection.cursor() as cursor:
                cursor.execute(_query(alias), [self.session_key, connection.ops.adapt_datetimefield_value(now)])
                row = cursor.fetchone()
            if row is None:
                self._session_key = None
                return None
            *columns, expires, data = row
            values, expires = _user_values(alias, columns), _expiry(alias, expires)
            keep_read(self.session_key, read_at, values, expires, data)
        self.noted_user = None if values is None else _user_from(alias, values)
        return Session(session_key=self.session_key, session_data=data)

    def save(self, must_create: bool = False) -> None:
        super().save(must_create=must_create)
        forget(self.session_key)

    def delete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        super().delete(session_key)
        if key:
            forget(key)

    async def asave(self, must_create: bool = False) -> None:
        await super().asave(must_create=must_create)
        await sync_to_async(forget)(self.session_key)

    async def adelete(self, session_key: str | None = None) -> None:
        key = session_key or self.session_key
        await super().adelete(session_key)
        if key:
            await sync_to_async(forget)(key)

    def decode(self, session_data: str) -> dict[str, Any]:
        """Django's decoding of the session's data, kept by its text (see the module): what is handed out is
        a copy, so a change made to the session never reaches the kept one. Data that does not decode
        (Django's empty session, its warning logged each time) and data holding anything but plain values
        are not kept."""
        key = (session_data, settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS))
        decoded = DECODED.get(key, lambda: super(SessionStore, self).decode(session_data))
        if decoded and all(type(value) in PLAIN for value in decoded.values()):
            return dict(decoded)
        DECODED.forget(key)
        return copy.deepcopy(decoded)


def _user_values(alias: str, columns: list[Any]) -> list[Any] | None:
    """The values of a row's user columns as a queryset gives them to its model (None when the session has
    no note): each through its field's converters on database ``alias`` (a boolean from SQLite's integer, a
    time zone on a datetime)."""
    pk_index, _, converters = _columns(alias)
    if columns[pk_index] is None:
        return None
    connection = connections[alias]
    for index, convert, expression in converters:
        columns[index] = convert(columns[index], expression, connection)
    return columns


def _user_from(alias: str, values: list[Any]) -> AbstractBaseUser:
    """The user of :func:`_user_values`, as a queryset makes it (``from_db``), an instance of its own."""
    return get_user_model().from_db(alias, _columns(alias)[1], list(values))


@cache
def _columns(alias: str) -> tuple[int, list[str], list[tuple[int, Any, Any]]]:
    """The user's columns as :func:`_query` reads them on database ``alias``: where the primary key is,
    each column's attribute name, and what each value goes through (the backend's converters, then the
    field's own ``from_db_value``), by the column's place in the row. Made once for each database."""
    model, connection = get_user_model(), connections[alias]
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        expression = field.get_col(model._meta.db_table)
        for convert in connection.ops.get_db_converters(expression) + expression.get_db_converters(connection):
            converters.append((index, convert, expression))
    names = [field.attname for field in fields]
    return names.index(model._meta.pk.attname), names, converters


def _expiry(alias: str, value: Any) -> Any:
    """A session's expiry as the query read it on database ``alias``, made an aware datetime as a queryset
    makes it (SQLite gives text)."""
    field = Session._meta.get_field("expire_date")
    expression = field.get_col(Session._meta.db_table)
    connection = connections[alias]
    for convert in connection.ops.get_db_converters(expression) + expression.get_db_converters(connection):
        value = convert(value, expression, connection)
    return value
