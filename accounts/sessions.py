"""The session engine (``SESSION_ENGINE``, when the sessions live in the database alone): Django's, with
the session's user read in the same query as the session.

A signed-in request reads its session and then its user, two queries before any page does anything. The
user a session was logged in to is noted beside it (:class:`accounts.models.UserSession`), so the
session's row, that note and the user's row are read in one query here, and the user kept on the store
(:attr:`SessionStore.noted_user`) for :class:`accounts.middleware.AuthenticationMiddleware`, which takes
it only where Django's own checks would take the user it reads: the session names that user, by a
backend that reads users as Django's ``ModelBackend`` does, who may log in, with the hash of their
password the session holds. Anything else (a session with no note, one whose hash no longer matches) goes
the whole way through Django's ``get_user``, with its query.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connections, router
from django.utils import timezone

from accounts.models import UserSession

#: The session's data among the user's columns in the one query.
DATA_COLUMN = "session_data_read_with_user"


@cache
def _query(alias: str) -> str:
    """The session, its note and its user, in one query on database ``alias``: the user's columns (NULL
    when the session has no note) and the session's data; the session by its key, unexpired. Made once
    for each database."""
    qn = connections[alias].ops.quote_name
    user, session, noted = get_user_model()._meta, Session._meta, UserSession._meta
    columns = ", ".join(f"u.{qn(field.column)}" for field in user.concrete_fields)
    session_key, noted_key = qn(session.pk.column), qn(noted.pk.column)
    return (
        f"SELECT {columns}, s.{qn(session.get_field('session_data').column)} AS {qn(DATA_COLUMN)} "  # noqa: S608
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
        now = connections[alias].ops.adapt_datetimefield_value(timezone.now())
        rows = list(get_user_model()._default_manager.db_manager(alias).raw(_query(alias), [self.session_key, now]))
        if not rows:
            self._session_key = None
            return None
        row = rows[0]
        data = getattr(row, DATA_COLUMN)
        delattr(row, DATA_COLUMN)
        self.noted_user = row if row.pk is not None else None
        return Session(session_key=self.session_key, session_data=data)
