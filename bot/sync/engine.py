"""Poll, diff, post, update: the loop that keeps Slack in step with Novo.

Each poll lists every pending interaction (all pages), posts the new ones
exactly once (intent recorded before posting, ts after; message metadata
carries the interaction id so a crash between the two is reconciled by
looking the message up instead of posting again), and re-reads those that
left the pending set so their messages say how they ended.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.novo.client import NovoClient
from bot.novo.errors import InteractionNotFoundError, NovoError
from bot.novo.models import Interaction
from bot.store import Store, TrackedInteraction
from bot.sync.publisher import MessagePublisher
from bot.sync.routing import ChannelRouter

log = logging.getLogger(__name__)

LIST_PAGE_SIZE = 100


@dataclass
class PollReport:
    pending: int = 0
    posted: list[str] = field(default_factory=list)
    finalized: list[str] = field(default_factory=list)
    updated: int = 0
    errors: list[str] = field(default_factory=list)


class SyncEngine:
    def __init__(
        self,
        novo: NovoClient,
        store: Store,
        publisher: MessagePublisher,
        router: ChannelRouter,
        clock: Clock,
    ) -> None:
        self._novo = novo
        self._store = store
        self._publisher = publisher
        self._router = router
        self._clock = clock
        # ids whose post failed with a definite Slack error: safe to post again
        # without first searching history for a message that may exist.
        self._known_unposted: set[str] = set()

    async def poll_once(self) -> PollReport:
        """One full pass. Raises NovoError when the pending list cannot be read."""
        report = PollReport()
        pending = [
            i async for i in self._novo.list_interactions(status="pending", limit=LIST_PAGE_SIZE)
        ]
        report.pending = len(pending)
        pending_ids = {i.id for i in pending}
        await self._post_unposted(report)
        tracked_ids = await self._store.tracked_ids()
        open_now = {t.id: t for t in await self._store.open_interactions()}
        for interaction in pending:
            if interaction.id not in tracked_ids:
                await self._post_new(interaction, report)
                continue
            known = open_now.get(interaction.id)
            if known is not None and known.snapshot.to_wire() != interaction.to_wire():
                # e.g. expiresAt moved later: the message must say so
                await self._store.update_snapshot(interaction, self._clock())
                if await self._refresh(interaction.id, report):
                    report.updated += 1
        for tracked in open_now.values():
            if tracked.id not in pending_ids:
                await self._finalize(tracked, report)
        for tracked in await self._store.out_of_step():
            if await self._refresh(tracked.id, report):
                report.updated += 1
        return report

    async def refresh_open(self) -> int:
        """Re-render every open message (countdowns); only changed ones are sent."""
        report = PollReport()
        for tracked in await self._store.open_interactions():
            if await self._refresh(tracked.id, report):
                report.updated += 1
        return report.updated

    async def _post_new(self, interaction: Interaction, report: PollReport) -> None:
        channel = self._router.channel_for(interaction)
        if not await self._store.claim_for_posting(interaction, channel, self._clock()):
            return
        self._known_unposted.add(interaction.id)
        tracked = await self._store.get(interaction.id)
        if tracked is not None:
            await self._post(tracked, report)

    async def _post_unposted(self, report: PollReport) -> None:
        for tracked in await self._store.unposted():
            if tracked.id not in self._known_unposted:
                try:
                    ts = await self._publisher.find_posted(tracked)
                except SlackApiError as exc:
                    report.errors.append(f"{tracked.id}: {exc.response.get('error')}")
                    continue
                if ts is not None:
                    await self._store.mark_posted(tracked.id, ts, "", self._clock())
                    log.info("reconciled %s with its existing message %s", tracked.id, ts)
                    await self._refresh(tracked.id, report)
                    continue
                self._known_unposted.add(tracked.id)
            await self._post(tracked, report)

    async def _post(self, tracked: TrackedInteraction, report: PollReport) -> None:
        try:
            await self._publisher.post(tracked)
        except SlackApiError as exc:
            # Slack answered: the message definitely does not exist.
            error = str(exc.response.get("error"))
            log.warning("posting %s failed (%s); will retry next poll", tracked.id, error)
            report.errors.append(f"{tracked.id}: {error}")
            return
        except (aiohttp.ClientError, TimeoutError) as exc:
            # No answer: it may have been posted, so look before posting again.
            self._known_unposted.discard(tracked.id)
            log.warning("posting %s got no answer (%r); will reconcile", tracked.id, exc)
            report.errors.append(f"{tracked.id}: {exc!r}")
            return
        self._known_unposted.discard(tracked.id)
        report.posted.append(tracked.id)

    async def _finalize(self, tracked: TrackedInteraction, report: PollReport) -> None:
        try:
            current = await self._novo.get(tracked.id)
        except InteractionNotFoundError:
            await self._store.mark_gone(tracked.id, self._clock())
            current = None
        except NovoError as exc:
            report.errors.append(f"{tracked.id}: {exc}")
            log.warning("could not re-read %s: %s", tracked.id, exc)
            return
        if current is not None:
            await self._store.update_snapshot(current, self._clock())
        report.finalized.append(tracked.id)
        await self._refresh(tracked.id, report)

    async def _refresh(self, interaction_id: str, report: PollReport) -> bool:
        try:
            return await self._publisher.refresh(interaction_id)
        except SlackApiError as exc:
            error = str(exc.response.get("error"))
            log.warning("updating message for %s failed: %s", interaction_id, error)
            report.errors.append(f"{interaction_id}: {error}")
            return False
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.warning("updating message for %s got no answer: %r", interaction_id, exc)
            report.errors.append(f"{interaction_id}: {exc!r}")
            return False
