"""What every message about an interaction shows besides its record, read at once.

Each post renders from its interaction's open decision, its messages, the steps taken
and the standing approvals granted on it: `message_facts` reads them for many
interactions in one transaction (`bot.messages.reads` batches the renders that ask).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BindParameter,
    CompoundSelect,
    RowMapping,
    Select,
    bindparam,
    literal,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.domain import Allowance
from bot.store.base import ID_CHUNK, StoreBase
from bot.store.rows import (
    QueuedDecision,
    TakenStep,
    TrackedMessage,
    allowance_of,
    message,
    queued,
    taken_step,
)
from bot.store.schema import allowances, decisions, messages, steps

# Built once: every round of sends reads these four, and building a statement (not running
# it) was a good part of a post's cost. The ids are one expanding parameter.
_IDS: BindParameter[list[str]] = bindparam("ids", expanding=True)
_OPEN_DECISIONS = (
    select(decisions)
    .where(decisions.c.interaction_id.in_(_IDS), decisions.c.state == "queued")
    .order_by(decisions.c.id)
)
_MESSAGES = (
    select(messages)
    .where(messages.c.interaction_id.in_(_IDS))
    .order_by(messages.c.claimed_at, messages.c.purpose, messages.c.channel)
)
_STEPS = (
    select(steps).where(steps.c.interaction_id.in_(_IDS)).order_by(steps.c.taken_at, steps.c.step)
)
_ALLOWANCES = (
    select(allowances).where(allowances.c.interaction_id.in_(_IDS)).order_by(allowances.c.id)
)
_PRESENT = union_all(
    select(literal("decisions").label("fact"), decisions.c.interaction_id).where(
        decisions.c.interaction_id.in_(_IDS), decisions.c.state == "queued"
    ),
    select(literal("steps"), steps.c.interaction_id).where(steps.c.interaction_id.in_(_IDS)),
    select(literal("allowances"), allowances.c.interaction_id).where(
        allowances.c.interaction_id.in_(_IDS)
    ),
)
"""Which of the ids have an open decision, a step taken or an allowance: most renders (a
burst's new cards) have none, and one look costs less than three reads that find nothing."""


@dataclass(frozen=True)
class MessageFacts:
    """What a message shows besides its record: open decisions, messages, steps taken,
    the standing approvals granted on it."""

    decisions: dict[str, QueuedDecision]
    messages: dict[str, list[TrackedMessage]]
    steps: dict[str, list[TakenStep]]
    allowances: dict[str, list[Allowance]]


class FactQueries(StoreBase):
    async def message_facts(self, interaction_ids: Collection[str]) -> MessageFacts:
        """Open decisions, messages, steps taken and allowances granted of these
        interactions, in one transaction (every post renders from them)."""
        return await self._transaction(lambda connection: read_facts(connection, interaction_ids))


async def read_facts(connection: AsyncConnection, interaction_ids: Collection[str]) -> MessageFacts:
    """`message_facts` in the caller's transaction (a lane's round of sends reads them too)."""
    wanted = list(dict.fromkeys(interaction_ids))

    async def rows(
        query: Select[Any] | CompoundSelect[Any], ids: dict[str, list[str]]
    ) -> Sequence[RowMapping]:
        found: Sequence[RowMapping] = (await connection.execute(query, ids)).mappings().all()
        return found

    facts = MessageFacts(
        {}, {i: [] for i in wanted}, {i: [] for i in wanted}, {i: [] for i in wanted}
    )
    for start in range(0, len(wanted), ID_CHUNK):
        ids = {"ids": wanted[start : start + ID_CHUNK]}
        present: dict[str, dict[str, None]] = {}  # fact -> its ids, in order, once each
        for row in await rows(_PRESENT, ids):
            present.setdefault(row["fact"], {})[row["interaction_id"]] = None
        if "decisions" in present:
            for row in await rows(_OPEN_DECISIONS, {"ids": list(present["decisions"])}):
                facts.decisions.setdefault(row["interaction_id"], queued(row))
        for row in await rows(_MESSAGES, ids):
            facts.messages[row["interaction_id"]].append(message(row))
        if "steps" in present:
            for row in await rows(_STEPS, {"ids": list(present["steps"])}):
                facts.steps[row["interaction_id"]].append(taken_step(row))
        if "allowances" in present:
            for row in await rows(_ALLOWANCES, {"ids": list(present["allowances"])}):
                facts.allowances[row["interaction_id"]].append(allowance_of(row))
    return facts
