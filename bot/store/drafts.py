"""Answers typed into a form that is still open, keyed by the Slack view.

Kept so a form rebuilt (an option list reloaded, a step back) does not lose
what the person typed. Drafts are short-lived and bounded: `prune_drafts`
drops the stale ones and, beyond a count, the oldest.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import StoreBase
from bot.store.records import dump_record
from bot.store.rows import answers
from bot.store.schema import drafts


class DraftQueries(StoreBase):
    async def save_draft(
        self, view_id: str, interaction_id: str, answers: list[dict[str, Any]], now: datetime
    ) -> None:
        insert = self._insert(drafts).values(
            view_id=view_id,
            interaction_id=interaction_id,
            answers=dump_record(answers),
            created_at=now,
            updated_at=now,
        )
        await self._write(
            insert.on_conflict_do_update(
                index_elements=[drafts.c.view_id],
                set_={
                    "interaction_id": insert.excluded.interaction_id,
                    "answers": insert.excluded.answers,
                    "updated_at": insert.excluded.updated_at,
                },
            )
        )

    async def load_draft(self, view_id: str) -> list[dict[str, Any]] | None:
        row = await self._first(select(drafts.c.answers).where(drafts.c.view_id == view_id))
        return answers(row["answers"]) if row is not None else None

    async def drop_draft(self, view_id: str) -> None:
        await self._write(delete(drafts).where(drafts.c.view_id == view_id))

    async def drop_drafts_for(self, interaction_id: str) -> int:
        return await self._write(delete(drafts).where(drafts.c.interaction_id == interaction_id))

    async def prune_drafts(self, older_than: datetime, keep_at_most: int) -> int:
        """Drop drafts untouched since `older_than`, then the oldest beyond `keep_at_most`."""
        newest = (
            select(drafts.c.view_id)
            .order_by(drafts.c.updated_at.desc(), drafts.c.view_id.desc())
            .limit(max(keep_at_most, 0))
        )

        async def prune(connection: AsyncConnection) -> int:
            stale = await connection.execute(delete(drafts).where(drafts.c.updated_at < older_than))
            surplus = await connection.execute(
                delete(drafts).where(drafts.c.view_id.not_in(newest.scalar_subquery()))
            )
            return int(stale.rowcount) + int(surplus.rowcount)

        return await self._transaction(prune)
