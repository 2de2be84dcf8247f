"""Alembic's entry point: migrate on the connection `bot.store.migrate` hands over.

There is no alembic.ini and no URL here: the store opens the engine (with
its pragmas, schema pin and file lock) and lends a connection already in a
transaction.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

connection = context.config.attributes["connection"]
assert isinstance(connection, Connection)
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
