"""What `novo-slack db upgrade` and `db current` do, callable without a running bridge.

`upgrade` opens the store as the bridge does (so on SQLite it is refused
while a bridge owns the file); `current` only looks, so it also works beside
a running bridge. Both raise `StoreOpenError` with a one-line message.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.migrate import current_revision, upgrade_to_head
from bot.store.opening import open_engine


async def upgrade(target: Path | str, *, schema: str | None = None) -> str:
    """Bring the database to the newest revision; returns that revision."""
    return await _run(target, schema, exclusive=True, migrating=True)


async def current(target: Path | str, *, schema: str | None = None) -> str:
    """The revision the database is at; "" for a database never migrated."""
    return await _run(target, schema, exclusive=False, migrating=False)


async def _run(target: Path | str, schema: str | None, *, exclusive: bool, migrating: bool) -> str:
    revision = ""

    async def look(connection: AsyncConnection) -> None:
        nonlocal revision
        step = upgrade_to_head if migrating else current_revision
        revision = await connection.run_sync(step)

    opened = await open_engine(target, look, schema=schema, exclusive=exclusive)
    await opened.close()
    return revision
