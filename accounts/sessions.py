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
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Final

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.utils import timezone

from accounts.models import UserSession
from web.kept import Kept

#: Sessions' data decoded, by its text (and the keys it was signed with): a few hundred bytes each.
DECODED: Final[Kept[dict[str, Any]]] = Kept(4096)
#: What a decoded session may hold and be handed out as a shallow copy: values nothing can change in place.
PLAIN: Final = (str, int, float, bool, type(None))


@cache
def _query(alias: str) -> str:
    """The session, its note and its user, in one query on database ``alias``: the user's columns (NULL
    when the session has no note), then the session's data; the session by its key, unexpired. Made once
    for each database."""
    qn = connections[alias].ops.quote_name
    user, session, noted = get_user_model()._meta, Session._meta, UserSession._meta
    columns = ", ".join(f"u.{qn(field.column)}" for field in user.concrete_fields)
    session_key, noted_key = qn(session.pk.column), qn(noted.pk.column)
    return (
        f"SELECT {columns}, s.{qn(session.get_field('session_data').column)} "  # noqa: S608
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
        connection = connections[alias]
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(_query(alias), [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        *values, data = row
        self.noted_user = _user_from(alias, values)
        return Session(session_key=self.session_key, session_data=data)

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


def _user_from(alias: str, values: list[Any]) -> AbstractBaseUser | None:
    """The user of a row's user columns (None when the session has no note), as a queryset makes it: each
    value through its field's converters on that database (a boolean from SQLite's integer, a time zone on
    a datetime), then ``from_db``."""
    pk_index, names, converters = _columns(alias)
    if values[pk_index] is None:
        return None
    connection = connections[alias]
    for index, convert, expression in converters:
        values[index] = convert(values[index], expression, connection)
    return get_user_model().from_db(alias, names, values)


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
