"""Events API deliveries already taken, by Slack's `event_id`.

Slack retries an event it counts as undelivered (no 200 within 3 s, with an
`X-Slack-Retry-Num` header) and may deliver the same one twice; with several
replicas behind one URL the repeat can reach another process. A thread reply
decides, so the first delivery to claim its `event_id` here is the one acted
on, whichever replica it reached. Receipts are only needed while Slack might
still retry (its last retry comes within minutes), so old ones are pruned.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete

from bot.store.base import StoreBase
from bot.store.schema import event_receipts


class ReceiptQueries(StoreBase):
    async def first_receipt(self, event_id: str, now: datetime) -> bool:
        """Claim `event_id`; False when a delivery of the same event was taken before."""
        claim = (
            self._insert(event_receipts)
            .values(event_id=event_id, received_at=now)
            .on_conflict_do_nothing()
            .returning(event_receipts.c.event_id)
        )
        return await self._first(claim) is not None

    async def prune_receipts(self, older_than: datetime) -> int:
        return await self._write(
            delete(event_receipts).where(event_receipts.c.received_at < older_than)
        )
