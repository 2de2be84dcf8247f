"""Bring a database to the newest schema with Alembic, on a connection the caller owns.

Alembic is synchronous, so these run inside `AsyncConnection.run_sync`, in
the caller's transaction: a schema change and the record of it land together
or not at all. On PostgreSQL a transaction-scoped advisory lock makes
replicas that start together take turns.

A SQLite file written before Alembic carries its own `schema_version` table
(version 1 = revision 0001's schema). It is adopted in place: stamped 0001,
its old bookkeeping dropped, then upgraded like any other.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, inspect, text

SCRIPTS = Path(__file__).with_name("migrations")
LEGACY_VERSION = 1
LEGACY_REVISION = "0001"
MIGRATION_LOCK_KEY = 7_461_032_158_204_913_557
"""Advisory lock key the PostgreSQL replicas take while migrating."""


class SchemaError(Exception):
    """The database holds a schema this code does not know how to bring forward."""


def upgrade_to_head(connection: Connection) -> str:
    return upgrade_to(connection, "head")


def upgrade_to(connection: Connection, revision: str) -> str:
    """Adopt a pre-Alembic file if need be, then upgrade; returns the revision reached."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    _adopt_legacy(connection)
    command.upgrade(config(connection), revision)
    return current_revision(connection)


def current_revision(connection: Connection) -> str:
    """The revision the database is at; "" when no revision was ever applied."""
    return MigrationContext.configure(connection).get_current_revision() or ""


def head_revision() -> str:
    head = ScriptDirectory(str(SCRIPTS)).get_current_head()
    assert head is not None
    return head


def is_known_revision(revision: str) -> bool:
    """Whether this version's migrations know `revision` (one a newer version wrote: not)."""
    try:
        return ScriptDirectory(str(SCRIPTS)).get_revision(revision) is not None
    except CommandError:  # Alembic's word for a revision it can't locate
        return False


def config(connection: Connection) -> Config:
    """Alembic's configuration for migrating on `connection` (a test may downgrade)."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["connection"] = connection
    return config


def _adopt_legacy(connection: Connection) -> None:
    tables = set(inspect(connection).get_table_names())
    if "schema_version" not in tables or "alembic_version" in tables:
        return
    version = connection.execute(text("SELECT MAX(version) FROM schema_version")).scalar()
    if version != LEGACY_VERSION:
        raise SchemaError(f"unknown schema version {version!r} (expected {LEGACY_VERSION})")
    command.stamp(config(connection), LEGACY_REVISION)
    connection.execute(text("DROP TABLE schema_version"))
