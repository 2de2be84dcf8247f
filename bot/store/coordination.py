"""What lets several replicas share one PostgreSQL database without stepping on each other.

- A named lease is a row with a holder and an expiry. Taking it is one
  upsert whose condition (free, expired, or already ours) is checked by the
  database, so two replicas can never both hold it.
- `message_guard` serialises everything done to one interaction's messages.
  On PostgreSQL it holds a session-level advisory lock on a connection of its
  own for the block: the server drops it if the holder's connection dies, so
  a killed replica never leaves a message locked. SQLite is owned by one
  process, so an in-process lock is the whole story there.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from sqlalchemy import case, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import StoreBase
from bot.store.schema import leases

GUARD_NAMESPACE = b"novo-slack:message:"


def advisory_key(interaction_id: str) -> int:
    """A stable signed 64-bit key for PostgreSQL's advisory locks."""
    digest = hashlib.blake2b(GUARD_NAMESPACE + interaction_id.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class CoordinationQueries(StoreBase):
    async def try_acquire_lease(
        self, name: str, holder: str, ttl_seconds: float, now: datetime
    ) -> bool:
        """Take or renew the lease `name` for `ttl_seconds`; False while another holds it."""
        insert = self._insert(leases).values(
            name=name,
            holder=holder,
            expires_at=now + timedelta(seconds=ttl_seconds),
            acquired_at=now,
        )
        mine = leases.c.holder == insert.excluded.holder
        take = insert.on_conflict_do_update(
            index_elements=[leases.c.name],
            set_={
                "holder": insert.excluded.holder,
                "expires_at": insert.excluded.expires_at,
                "acquired_at": case(
                    (mine, leases.c.acquired_at), else_=insert.excluded.acquired_at
                ),
            },
            where=or_(mine, leases.c.expires_at <= now),
        ).returning(leases.c.name)
        return await self._first(take) is not None

    async def release_lease(self, name: str, holder: str) -> bool:
        """Let the lease go at once (on shutdown); False when it wasn't ours."""
        return (
            await self._write(
                delete(leases).where(leases.c.name == name, leases.c.holder == holder)
            )
            == 1
        )

    async def probe_write(self, name: str, token: str, now: datetime) -> None:
        """Write a row, read it back and remove it, in one transaction (readiness).

        Raises when the store does not take the write or gives back something else:
        a check that only ran a statement could pass on a store that keeps nothing.
        """

        async def work(connection: AsyncConnection) -> None:
            await connection.execute(delete(leases).where(leases.c.name == name))
            await connection.execute(
                leases.insert().values(name=name, holder=token, expires_at=now, acquired_at=now)
            )
            found = (
                await connection.execute(select(leases.c.holder).where(leases.c.name == name))
            ).scalar_one_or_none()
            await connection.execute(delete(leases).where(leases.c.name == name))
            if found != token:
                raise RuntimeError(f"wrote {token!r}, read back {found!r}")

        await self._transaction(work)

    async def lease_holder(self, name: str, now: datetime) -> str | None:
        row = await self._first(
            select(leases.c.holder).where(leases.c.name == name, leases.c.expires_at > now)
        )
        return str(row["holder"]) if row is not None else None

    @asynccontextmanager
    async def message_guard(self, interaction_id: str) -> AsyncIterator[None]:
        """Hold for the block: nobody else, in this process or another, touches these messages."""
        async with self._local_locks.hold(interaction_id):
            if self.engine_name != "postgresql":
                yield
                return
            async with self._engine.connect() as connection:
                # the guard waits its turn however long the holder's Slack call takes
                await connection.exec_driver_sql("SET statement_timeout = 0")
                await _advisory(connection, "pg_advisory_lock", interaction_id)
                try:
                    yield
                finally:
                    await _advisory(connection, "pg_advisory_unlock", interaction_id)
                    await connection.exec_driver_sql("RESET statement_timeout")
                    await connection.commit()


async def _advisory(connection: AsyncConnection, function: str, interaction_id: str) -> None:
    """Lock or unlock; if that fails half-way, drop the connection so the server frees the lock."""
    try:
        await connection.execute(select(getattr(func, function)(advisory_key(interaction_id))))
        await connection.commit()
    except BaseException:
        await connection.invalidate()
        raise
