"""Reminder and escalation steps: each is claimed here before it is sent.

A step is named per interaction ("remind 50%", "escalate"); the primary key
makes the claim the one place that decides, across restarts and replicas,
that it happens once. A step that is due too late to be useful is claimed
as `skipped`, so it is never considered again either.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Literal

from sqlalchemy import select, update

from bot.store.base import StoreBase
from bot.store.rows import TakenStep, taken_step
from bot.store.schema import steps

StepOutcome = Literal["sent", "skipped"]


class StepQueries(StoreBase):
    async def claim_step(
        self, interaction_id: str, step: str, outcome: StepOutcome, now: datetime
    ) -> bool:
        """Take the step; False when it was taken before (here or by another replica)."""
        claim = (
            self._insert(steps)
            .values(interaction_id=interaction_id, step=step, outcome=outcome, taken_at=now)
            .on_conflict_do_nothing()
            .returning(steps.c.step)
        )
        return await self._first(claim) is not None

    async def set_step_link(self, interaction_id: str, step: str, link: str) -> None:
        """Remember the link a step's message points to, for later renders of it."""
        await self._write(
            update(steps)
            .where(steps.c.interaction_id == interaction_id, steps.c.step == step)
            .values(link=link)
        )

    async def skip_step(self, interaction_id: str, step: str) -> None:
        """A claimed step that found the interaction ended before it went out."""
        await self._write(
            update(steps)
            .where(steps.c.interaction_id == interaction_id, steps.c.step == step)
            .values(outcome="skipped")
        )

    async def steps_taken(self, interaction_ids: Iterable[str]) -> dict[str, list[TakenStep]]:
        """The steps taken for each of these interactions, oldest first."""
        ids = list(interaction_ids)
        taken: dict[str, list[TakenStep]] = {i: [] for i in ids}
        if not ids:
            return taken
        rows = await self._all(
            select(steps)
            .where(steps.c.interaction_id.in_(ids))
            .order_by(steps.c.taken_at, steps.c.step)
        )
        for row in rows:
            taken[row["interaction_id"]].append(taken_step(row))
        return taken
