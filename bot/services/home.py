"""The App Home tab: published when someone opens it, kept true while they use it.

A Home tab shows what was last published to it, so every change to what it
would show must be published again. Only for people who opened it in the
last `HOME_WINDOW`, though: a tab nobody looks at is brought up to date the
next time it is opened (an open always publishes).

`refresh_recent` re-renders each recent viewer's tab and publishes those
whose render differs from what was last published to them (the hash the
store keeps, whichever replica published it). views.publish is Tier 4
(100+ a minute for the app in a workspace), so a refresh publishes at most
`publishes_per_tick`; whoever has waited longest since a publish goes first,
and the rest follow at the next tick. It runs on the poller lease holder
only, so replicas never spend the allowance twice on the same change; an
open is served by whichever replica Slack sent it to.

What every tab shares (the open interactions, each one's buttons as its
message renders them, the queue) is worked out once per refresh. A
message's render is kept while the message's own hash (the publisher's
`rendered_hash`) stays the same: that is a cache of renders, not state.

The buttons are the message's own (see `render.home`): a click in the tab
reaches the same listeners and service calls as one in the channel.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.domain import SlackActor
from bot.services.deciders import DeciderGate
from bot.slack.gateway import SlackGateway, is_user_id
from bot.slack.links import MessageLinks
from bot.slack.render.home import (
    DECIDED_SHOWN,
    WAITING_SHOWN,
    DecidedItem,
    HomeFacts,
    QueueEntry,
    WaitingItem,
    expiry_order,
    message_actions,
    render_home,
    view_fingerprint,
)
from bot.slack.render.message import render_message
from bot.slack.render.status import accepts_decisions
from bot.store import Store, TrackedInteraction
from bot.store.locks import KeyedLocks
from bot.store.schema import COPY
from bot.sync.publisher import MessagePublisher

log = logging.getLogger(__name__)

HOME_WINDOW = timedelta(hours=24)
"""Tabs opened within this long are kept true; older ones wait for their next open."""
PUBLISHES_PER_TICK = 3
"""At a tick every 2 s, 90 publishes a minute at most: under views.publish's Tier 4
(100+/min), with room left for the publishes that opens make."""
# Answers that say "not now": the same view is tried again at the next refresh. Any other
# refusal would come back for the same view, so it is recorded as published and waits
# for a change (or the next open).
_TRANSIENT = frozenset(
    {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}
)


@dataclass(frozen=True)
class _Card:
    """An open interaction as every tab shows it, from its message's render."""

    rendered_hash: str | None
    actions: tuple[dict[str, Any], ...]
    decidable: bool  # nobody decided it and no decision is on its way
    voters: frozenset[str]  # standing approvals towards a quorum


@dataclass(frozen=True)
class _Board:
    """What every tab of one refresh shares."""

    open: list[TrackedInteraction]
    cards: dict[str, _Card]
    queue: list[QueueEntry]


class HomeService:
    def __init__(
        self,
        store: Store,
        slack: SlackGateway,
        publisher: MessagePublisher,
        gate: DeciderGate,
        links: MessageLinks,
        clock: Clock,
        *,
        publishes_per_tick: int = PUBLISHES_PER_TICK,
    ) -> None:
        self._store = store
        self._slack = slack
        self._publisher = publisher
        self._gate = gate
        self._links = links
        self._clock = clock
        self._per_tick = publishes_per_tick
        self._cards: dict[str, _Card] = {}
        self._publishing = KeyedLocks()  # one publish per person at a time in this process

    async def opened(self, user_id: str) -> None:
        """They opened the tab: remember it, and publish what it should show now."""
        await self._store.record_home_opened(user_id, self._clock())
        board = await self._board()
        decided = await self._store.decided_by(user_id, DECIDED_SHOWN)
        await self._publish(user_id, board, decided, known=None)

    async def refresh_recent(self) -> int:
        """Publish every recent viewer's tab that changed, a few per call; how many went."""
        viewers = await self._store.home_viewers(self._clock() - HOME_WINDOW)
        if not viewers:
            return 0
        board = await self._board()
        decided = await self._store.decided_by_each([v.user_id for v in viewers], DECIDED_SHOWN)
        sent = 0
        for viewer in viewers:  # the longest since a publish first
            if sent >= self._per_tick:
                break
            user = viewer.user_id
            if await self._publish(user, board, decided[user], known=viewer.published_hash):
                sent += 1
        return sent

    # ------------------------------------------------------------------ rendering

    async def _board(self) -> _Board:
        open_ = await self._store.open_interactions()
        cards: dict[str, _Card] = {}
        for tracked in open_:
            card = self._cards.get(tracked.id)
            if (
                card is None
                or card.rendered_hash is None
                or card.rendered_hash != tracked.rendered_hash
            ):
                card = await self._card(tracked)
            cards[tracked.id] = card
        self._cards = cards  # what ended is forgotten
        return _Board(open_, cards, self._queue(open_))

    async def _card(self, tracked: TrackedInteraction) -> _Card:
        ctx = await self._publisher.context(tracked)
        message = render_message(tracked.snapshot, ctx)
        voters = frozenset(a.user_id for a in ctx.quorum.approvers) if ctx.quorum else frozenset()
        return _Card(
            rendered_hash=tracked.rendered_hash,
            actions=message_actions(tracked.id, message),
            decidable=accepts_decisions(tracked.snapshot, ctx),
            voters=voters,
        )

    def _queue(self, open_: list[TrackedInteraction]) -> list[QueueEntry]:
        """Open interactions per (destination, rule), the soonest to expire named."""
        grouped: dict[tuple[str, str], list[TrackedInteraction]] = {}
        for tracked in open_:
            rule = self._gate.route(tracked.snapshot).rule
            grouped.setdefault((tracked.channel, rule), []).append(tracked)
        return [
            QueueEntry(
                where=where,
                rule=rule,
                count=len(members),
                next_up=min((m.snapshot for m in members), key=expiry_order),
            )
            for (where, rule), members in grouped.items()
        ]

    async def _facts(
        self, user_id: str, board: _Board, decided: list[TrackedInteraction]
    ) -> HomeFacts:
        actor = SlackActor(user_id, user_id)
        mine: list[TrackedInteraction] = []
        for tracked in board.open:
            card = board.cards[tracked.id]
            if not card.decidable or user_id in card.voters:
                continue
            if await self._gate.may_decide(tracked.snapshot, actor):  # quietly: it's a list
                mine.append(tracked)
        mine.sort(key=lambda t: expiry_order(t.snapshot))
        waiting = [
            WaitingItem(
                interaction=t.snapshot,
                where=t.channel,
                actions=board.cards[t.id].actions,
                # only the cards shown get a link
                link=await self._link(t, user_id) if index < WAITING_SHOWN else None,
            )
            for index, t in enumerate(mine)
        ]
        done = [
            DecidedItem(t.snapshot, t.decided_in_slack, t.channel, await self._link(t, user_id))
            for t in decided
            if t.decided_in_slack is not None
        ]
        return HomeFacts(now=self._clock(), waiting=waiting, queue=board.queue, decided=done)

    async def _link(self, tracked: TrackedInteraction, user_id: str) -> str | None:
        """Where this person can read the message: their own copy when it went to several
        DMs, the primary otherwise; a card of a step group is a reply in its thread."""
        channel, ts = tracked.shown_in, tracked.ts
        if is_user_id(tracked.channel) and tracked.channel != user_id:
            copy = await self._store.get_message(tracked.id, COPY, user_id)
            if copy is not None and copy.state == "posted" and copy.ts is not None:
                channel, ts = copy.shown_in, copy.ts
        if ts is None:
            return None
        thread = None
        if tracked.group_id is not None:
            group = await self._store.group(tracked.group_id)
            thread = group.ts if group is not None else None
        return await self._links.link(channel, ts, thread)

    # ------------------------------------------------------------------ publishing

    async def _publish(
        self,
        user_id: str,
        board: _Board,
        decided: list[TrackedInteraction],
        *,
        known: str | None,
    ) -> bool:
        """Render their tab and publish it unless it shows what `known` (a hash) says it
        already does; True when a publish was made or tried."""
        async with self._publishing.hold(user_id):
            view = render_home(await self._facts(user_id, board, decided))
            digest = view_fingerprint(view)
            if known is not None and digest == known:
                return False
            try:
                await self._slack.publish_view(user_id, view)
            except SlackApiError as exc:
                error = str(exc.response.get("error"))
                log.warning("publishing the Home tab of %s failed: %s", user_id, error)
                if error in _TRANSIENT:
                    return True
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("publishing the Home tab of %s got no answer: %r", user_id, exc)
                return True
            await self._store.record_home_published(user_id, digest, self._clock())
            return True
