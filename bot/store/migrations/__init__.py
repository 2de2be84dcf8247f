"""Alembic revisions of the store's schema, applied in order by `bot.store.migrate`."""
