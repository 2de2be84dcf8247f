"""Scheduled digests: each (digest, scheduled time) is claimed here before it is sent.

The primary key makes the claim the one place that decides, across restarts
and replicas, that a scheduled time is sent once: whoever inserts the row
sends it, everyone else finds it taken. A time found too late to be worth
sending is claimed as `skipped`, so it is never considered again either.

A claim is `sending` until the message is in Slack, then `sent`. One cut off
for certain before it was posted is released (deleted) so it can be taken
again; one cut off while the post was on the wire stays `sending`: it may
have reached Slack, and a digest twice is worse than once late.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from sqlalchemy import RowMapping, delete, select, update

from bot.store.base import StoreBase
from bot.store.schema import digests

DigestState = Literal["sending", "sent", "skipped"]


@dataclass(frozen=True)
class DigestRun:
    """One scheduled time of one digest, as claimed."""

    digest: str
    scheduled_for: datetime
    state: DigestState
    claimed_at: datetime
    sent_at: datetime | None


def _run(row: RowMapping) -> DigestRun:
    return DigestRun(
        digest=row["digest"],
        scheduled_for=row["scheduled_for"],
        state=cast(DigestState, row["state"]),
        claimed_at=row["claimed_at"],
        sent_at=row["sent_at"],
    )


class DigestQueries(StoreBase):
    async def claim_digest(
        self,
        digest: str,
        scheduled_for: datetime,
        state: Literal["sending", "skipped"],
        now: datetime,
    ) -> bool:
        """Take this scheduled time; False when it was taken before (here or elsewhere)."""
        claim = (
            self._insert(digests)
            .values(digest=digest, scheduled_for=scheduled_for, state=state, claimed_at=now)
            .on_conflict_do_nothing()
            .returning(digests.c.digest)
        )
        return await self._first(claim) is not None

    async def mark_digest_sent(self, digest: str, scheduled_for: datetime, now: datetime) -> bool:
        """The claimed digest is in Slack; False if it was not this one's to send."""
        changed = await self._write(
            update(digests)
            .where(
                digests.c.digest == digest,
                digests.c.scheduled_for == scheduled_for,
                digests.c.state == "sending",
            )
            .values(state="sent", sent_at=now)
        )
        return changed == 1

    async def skip_digest(self, digest: str, scheduled_for: datetime) -> None:
        """A claimed digest Slack refused: not sent, and not to be tried again."""
        await self._write(
            update(digests)
            .where(
                digests.c.digest == digest,
                digests.c.scheduled_for == scheduled_for,
                digests.c.state == "sending",
            )
            .values(state="skipped")
        )

    async def release_digest(self, digest: str, scheduled_for: datetime) -> None:
        """Give back a claim whose message certainly never left: it may be taken again."""
        await self._write(
            delete(digests).where(
                digests.c.digest == digest,
                digests.c.scheduled_for == scheduled_for,
                digests.c.state == "sending",
            )
        )

    async def digest_run(self, digest: str, scheduled_for: datetime) -> DigestRun | None:
        row = await self._first(
            select(digests).where(
                digests.c.digest == digest, digests.c.scheduled_for == scheduled_for
            )
        )
        return _run(row) if row is not None else None

    async def previous_digest(self, digest: str, before: datetime) -> DigestRun | None:
        """The latest time of this digest sent before `before`: where the next one picks up."""
        row = await self._first(
            select(digests)
            .where(
                digests.c.digest == digest,
                digests.c.state == "sent",
                digests.c.scheduled_for < before,
            )
            .order_by(digests.c.scheduled_for.desc())
            .limit(1)
        )
        return _run(row) if row is not None else None
