"""Posting what the sync engine tracked: each interaction's primary message and its copies,
once each, and after a crash the reconcile of every claim left in doubt.

The engine tracks new interactions (`queued`) and hands them here (`queue_fresh`); each
poll hands over what is tracked and not posted (`queue_unposted`). A `queued` message is
claimed and posted by its lane (nothing was sent for it). The `posting` claims of each
channel, left by a crash or a lost answer, are looked for together first: one walk of the
channel's history (and of each step group's thread), from the oldest of them. Each found
is adopted through the lifecycle's one reconcile step (`Lifecycle.reconcile`, as copies
and step groups are); each not found is posted without another look.

Failures back off by key through the engine's guard (`Guarded`), so a primary whose post
keeps failing never holds back its copies, nor a channel's look anything else.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

from bot.messages.copies import CopyPoster, Guarded
from bot.messages.lanes import SendKind
from bot.messages.publisher import MessagePublisher
from bot.store import Store, TrackedInteraction
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind, MessageState

FirstPost = Callable[[TrackedInteraction], Awaitable[None]]
"""What the engine does once as an interaction is first posted (its route's notes)."""


def escalating(interaction_id: str) -> str:
    """The lane key of an escalation's post (`bot.services.reminders` queues it so too)."""
    return f"{interaction_id} {MessageKind.ESCALATION}"


def reconciling(channel: str) -> str:
    """The back-off key of the look for a channel's claims in doubt."""
    return f"{channel} (reconcile)"


def posting(interaction_id: str) -> str:
    """The back-off key of its primary's post: a post that keeps failing (the first person
    of a `dm:` list can't be reached) must not hold back showing its copies the ending."""
    return f"{interaction_id} (post)"


class Posting:
    def __init__(
        self,
        store: Store,
        publisher: MessagePublisher,
        guarded: Guarded,
        held: Callable[[str], bool],
        first_post: FirstPost,
    ) -> None:
        self._store = store
        self._publisher = publisher
        self._guarded = guarded
        self._held = held
        self._first_post = first_post
        self._copies = CopyPoster(store, publisher, guarded)
        # claims left `posting` that a look through their channel did not find, so they
        # are posted without another: kept until posted (a post that gets no answer
        # leaves it in doubt again)
        self._looked_for: set[str] = set()

    def queue_fresh(self, tracked: TrackedInteraction, copies: list[str]) -> None:
        """Queue the post of one tracked just now (`queued`): no message can exist yet, so
        its lane claims and posts it without looking first (and so do its copies' lanes,
        after it)."""
        self._publisher.post_soon(
            tracked,
            partial(self._guarded, posting(tracked.id), None, self._post_fresh, tracked, copies),
        )

    async def queue_unposted(self) -> None:
        """Queue what is tracked but not posted: a `queued` one is posted when its lane
        gets to it (nothing was sent for it), and the `posting` ones of each channel,
        claimed when a crash or a lost answer came, are looked for together first."""
        in_doubt: dict[str, list[str]] = {}
        # what the lanes already hold is queued once: a burst is not built again each poll
        for tracked in await self._store.unposted(leaving=self._publisher.lanes.queued()):
            if tracked.state == MessageState.QUEUED or tracked.id in self._looked_for:
                self._queue_unposted(tracked)
            elif not self._held(posting(tracked.id)):  # its failed post backs off first
                in_doubt.setdefault(tracked.channel, []).append(tracked.id)
        for channel, ids in in_doubt.items():
            self._publisher.reconcile_soon(
                channel,
                partial(self._guarded, reconciling(channel), None, self._reconcile, channel, ids),
            )
        await self._copies.queue_unposted()
        await self._queue_escalations_in_doubt()

    async def _queue_escalations_in_doubt(self) -> None:
        """Escalations tracked and never recorded (a crash, a lost answer): one never
        claimed is posted, one claimed looked for in its channel first
        (`MessagePublisher.post_escalation`, which also drops those of what has ended).
        Those its lane holds are left to it."""
        held = self._publisher.lanes.queued()
        for claimed in await self._store.unposted_messages(MessageKind.ESCALATION):
            lane_key = escalating(claimed.interaction_id)
            if (claimed.channel, lane_key) in held:
                continue
            tracked = await self._store.get(claimed.interaction_id)
            if tracked is None:
                continue
            self._publisher.lanes.submit(
                claimed.channel,
                SendKind.POST,
                lane_key,
                partial(
                    self._guarded,
                    f"{lane_key} to {claimed.channel}",
                    None,
                    self._publisher.post_escalation,
                    tracked,
                    claimed.channel,
                ),
            )

    async def _post_fresh(self, tracked: TrackedInteraction, copies: list[str]) -> None:
        await self._first_post(tracked)
        if not copies:  # most routes: one channel, and nothing more to read
            await self._publisher.post(tracked)
            return
        await self._then_copies(self._publisher.post(tracked), tracked)

    async def _then_copies(self, primary: Awaitable[object], tracked: TrackedInteraction) -> None:
        """Try the primary's post, then queue its copies, even when it failed: the others
        are still asked when the first person can't be reached."""
        try:
            await primary
        except Exception:
            await self._copies.queue_claimed(tracked)
            raise
        await self._copies.queue_claimed(tracked)

    def _queue_unposted(self, tracked: TrackedInteraction) -> None:
        self._publisher.post_soon(
            tracked,
            partial(self._guarded, posting(tracked.id), None, self._post_unposted, tracked),
        )

    async def _post_unposted(self, queued: TrackedInteraction) -> None:
        """Post one tracked interaction: `queued`, or `posting` and looked for in vain.

        Read afresh first: what the lane was handed may have been posted since.
        """
        tracked = await self._store.get(queued.id)
        if tracked is None or tracked.state == MessageState.POSTED:
            self._looked_for.discard(queued.id)
            return
        if tracked.state == MessageState.POSTING and tracked.id not in self._looked_for:
            return  # in doubt again (its post got no answer): the next poll looks for it
        self._looked_for.discard(tracked.id)
        await self._then_copies(self._publisher.post(tracked), tracked)

    async def _reconcile(self, channel: str, ids: list[str]) -> None:
        """Claims of one channel left `posting`: found in Slack with one look for all of
        them (a walk of the channel's history, and of each step group's thread, from
        the oldest), each then adopted, or posted in its turn.

        Read afresh first: a post that was under way when this was queued has
        usually recorded its ts by now, and history walks are rate-limited.
        """
        current = await self._store.get_many(ids)
        doubtful = [t for t in current.values() if t.state == MessageState.POSTING]
        if not doubtful:
            return
        found = await self._publisher.find_many_posted(channel, doubtful)
        for tracked in doubtful:
            key = MessageKey(tracked.id, MessageKind.PRIMARY, tracked.channel)
            if not await self._publisher.lifecycle.reconcile(key, found.get(tracked.id)):
                self._looked_for.add(tracked.id)
                self._queue_unposted(tracked)
                continue
            self._publisher.refresh_soon(tracked.id, tracked.channel)
            await self._copies.queue_claimed(tracked)
