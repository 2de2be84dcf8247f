"""Which database failures are the database out of reach (its outage's to say, once) and
which are news of their own (a statement refused): `bot.store.errors.unreachable`."""

from __future__ import annotations

import sqlite3

import asyncpg  # type: ignore[import-untyped]
from sqlalchemy import exc as sa

from bot.store.errors import unreachable


def _wrapped(error: Exception, kind: type[sa.DBAPIError] = sa.DBAPIError) -> sa.DBAPIError:
    return kind("SELECT 1", {}, error)


def test_a_connection_lost_or_refused_is_out_of_reach() -> None:
    # asyncpg's "connection was closed in the middle of operation" arrives as a plain DBAPIError
    closed = asyncpg.exceptions.ConnectionDoesNotExistError("closed in the middle")
    assert unreachable(_wrapped(closed))
    going_away = asyncpg.exceptions.AdminShutdownError("terminating connection")
    assert unreachable(_wrapped(going_away))
    assert unreachable(_wrapped(ConnectionRefusedError(111, "refused")))
    assert unreachable(_wrapped(sqlite3.OperationalError("disk I/O error"), sa.OperationalError))
    assert unreachable(ConnectionRefusedError(111, "Connect call failed"))
    assert unreachable(sa.TimeoutError("QueuePool limit reached"))


def test_a_statement_refused_is_no_outage() -> None:
    duplicate = asyncpg.exceptions.UniqueViolationError("duplicate key")
    assert not unreachable(_wrapped(duplicate, sa.IntegrityError))
    assert not unreachable(_wrapped(asyncpg.exceptions.UndefinedTableError("no table")))
    assert not unreachable(ValueError("a bug"))
