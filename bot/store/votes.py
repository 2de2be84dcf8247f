"""Approvals counted towards a rule's quorum, one per person per interaction.

Votes live here, not in a process, so they survive restarts and any replica
counts the same ones. A vote and the count it makes are read in one
transaction: the approval that completes the quorum knows it did. Two that
complete it at once both go on to the decision outbox, whose one-open-
decision rule lets exactly one resolve through.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.base import StoreBase
from bot.store.rows import Vote, vote
from bot.store.schema import votes

_ACTIVE = votes.c.withdrawn_at.is_(None)


class VoteQueries(StoreBase):
    async def cast_vote(
        self, interaction_id: str, user_id: str, user_name: str, now: datetime
    ) -> tuple[bool, list[Vote]]:
        """(whether this vote is new, every standing vote after it, oldest first).

        A vote withdrawn earlier may be cast again; a standing one is not counted twice.
        """
        insert = self._insert(votes).values(
            interaction_id=interaction_id,
            user_id=user_id,
            user_name=user_name,
            voted_at=now,
            withdrawn_at=None,
        )
        cast = insert.on_conflict_do_update(
            index_elements=[votes.c.interaction_id, votes.c.user_id],
            set_={"user_name": user_name, "voted_at": now, "withdrawn_at": None},
            where=votes.c.withdrawn_at.is_not(None),
        ).returning(votes.c.user_id)

        async def work(connection: AsyncConnection) -> tuple[bool, list[Vote]]:
            counted = (await connection.execute(cast)).first() is not None
            rows = (await connection.execute(_standing(interaction_id))).mappings().all()
            return counted, [vote(r) for r in rows]

        return await self._transaction(work)

    async def withdraw_vote(self, interaction_id: str, user_id: str, now: datetime) -> bool:
        """False when they had no standing vote to withdraw."""
        return (
            await self._write(
                update(votes)
                .where(
                    and_(votes.c.interaction_id == interaction_id, votes.c.user_id == user_id),
                    _ACTIVE,
                )
                .values(withdrawn_at=now)
            )
            == 1
        )

    async def votes(self, interaction_id: str) -> list[Vote]:
        """The standing votes, oldest first."""
        return [vote(r) for r in await self._all(_standing(interaction_id))]


def _standing(interaction_id: str) -> Select[Any]:
    return (
        select(votes)
        .where(votes.c.interaction_id == interaction_id, _ACTIVE)
        .order_by(votes.c.voted_at, votes.c.user_id)
    )
