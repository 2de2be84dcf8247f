"""App Home tabs: who opened theirs when, and what it last showed them.

A Home tab is published per person and stays as published until the app
publishes again, so the bridge keeps it true only for people who look at it:
those who opened it recently. Both facts live here, not in a replica's
memory, so whichever replica refreshes the tabs knows who to refresh and can
tell, by the hash of what was last published (by any replica), whether a
fresh render changes anything. A publish is recorded after Slack took it: a
publish that failed leaves the old hash, so the next refresh tries again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import RowMapping, func, select, update

from bot.store.base import ID_CHUNK, StoreBase
from bot.store.interactions import TRACKED
from bot.store.rows import TrackedInteraction, tracked
from bot.store.schema import home_views, interactions


@dataclass(frozen=True)
class HomeViewer:
    """Someone who opened the Home tab; `published_hash` is None until a publish succeeded."""

    user_id: str
    opened_at: datetime
    published_hash: str | None
    published_at: datetime | None


def _viewer(row: RowMapping) -> HomeViewer:
    return HomeViewer(
        user_id=row["user_id"],
        opened_at=row["opened_at"],
        published_hash=row["published_hash"],
        published_at=row["published_at"],
    )


class HomeQueries(StoreBase):
    async def record_home_opened(self, user_id: str, now: datetime) -> None:
        """They opened it now; what it last showed them is kept."""
        statement = self._insert(home_views).values(user_id=user_id, opened_at=now)
        await self._write(
            statement.on_conflict_do_update(
                index_elements=[home_views.c.user_id], set_={"opened_at": now}
            )
        )
        self._falls_due("homes", now)

    async def home_viewers(self, since: datetime) -> list[HomeViewer]:
        """Who opened it at or after `since`, the longest since a publish first (never
        published before anyone), so a refresh that can publish only a few is fair."""
        query = (
            select(home_views)
            .where(home_views.c.opened_at >= since)
            .order_by(
                home_views.c.published_at.is_not(None),
                home_views.c.published_at,
                home_views.c.user_id,
            )
        )
        return [_viewer(r) for r in await self._all(query)]

    async def home_viewer(self, user_id: str) -> HomeViewer | None:
        row = await self._first(select(home_views).where(home_views.c.user_id == user_id))
        return _viewer(row) if row is not None else None

    async def record_home_published(self, user_id: str, published_hash: str, now: datetime) -> bool:
        """Slack took a view with this hash for them; False if they never opened it."""
        return (
            await self._write(
                update(home_views)
                .where(home_views.c.user_id == user_id)
                .values(published_hash=published_hash, published_at=now)
            )
            == 1
        )

    async def decided_by_each(
        self, user_ids: Collection[str], limit: int
    ) -> dict[str, list[TrackedInteraction]]:
        """What each of these people decided in Slack, newest first, at most `limit` each:
        one query per refresh of every tab, not one per person."""
        found: dict[str, list[TrackedInteraction]] = {user: [] for user in user_ids}
        wanted = list(found)
        for start in range(0, len(wanted), ID_CHUNK):
            rank = (
                func.row_number()
                .over(
                    partition_by=interactions.c.decided_by_id,
                    order_by=(interactions.c.decided_at.desc(), interactions.c.id),
                )
                .label("decided_rank")
            )
            ranked = (
                TRACKED.add_columns(rank)
                .where(interactions.c.decided_by_id.in_(wanted[start : start + ID_CHUNK]))
                .subquery()
            )
            query = (
                select(ranked)
                .where(ranked.c.decided_rank <= limit)
                .order_by(ranked.c.decided_by_id, ranked.c.decided_rank)
            )
            for row in await self._all(query):
                found[row["decided_by_id"]].append(tracked(row, self._show))
        return found
