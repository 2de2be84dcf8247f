"""Copies: the same message in each further DM a route names, each posted exactly once.

A rule with `dm: [U1, U2, U3]` asks all three. The primary message goes to
the first; the others each get a `copy`, tracked in the store in the same
transaction as the primary, so a crash can never forget one. A copy is
queued after its primary's post has been tried and claimed by its lane just
before it is sent (a `queued` copy posts at once; one left `posting` by a
crash or a lost answer is first looked for in that DM's history by its
metadata, and adopted if found), so it is posted once whatever happens in
between.

A copy waits for its primary's post to be *tried*, not to succeed: if the
first person cannot be reached, the others are still asked, and their copies
are kept true all the same. A copy Slack refuses for good (that person cannot
be DMed: deactivated, unknown, a bot) is dropped with one warning instead of
being retried forever; the primary and the other copies go on. Anything else
(a lost answer, a 5xx, a missing scope) is retried, with the copy's own back-off.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial

from slack_sdk.errors import SlackApiError

from bot.messages.doubt import since_claim
from bot.messages.publisher import MessagePublisher
from bot.store import Store, TrackedInteraction, TrackedMessage
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind, MessageState

log = logging.getLogger(__name__)

# Slack's answers (conversations.open, chat.postMessage) meaning this person's DM
# will never take a message: retrying would fail the same way forever.
UNREACHABLE_ERRORS = frozenset(
    {
        "user_not_found",
        "user_not_visible",
        "user_disabled",
        "account_inactive",
        "cannot_dm_bot",
        "channel_not_found",
        "is_archived",
    }
)

Guarded = Callable[..., Awaitable[None]]
"""The engine's `_guarded(key, report, step, *args)`: a failure backs off that key alone."""


class CopyPoster:
    def __init__(
        self,
        store: Store,
        publisher: MessagePublisher,
        guarded: Guarded,
    ) -> None:
        self._store = store
        self._publisher = publisher
        self._guarded = guarded

    async def queue_claimed(self, tracked: TrackedInteraction) -> None:
        """Queue every copy of `tracked` still to post."""
        for claimed in await self._store.messages(tracked.id):
            if claimed.purpose == MessageKind.COPY and claimed.state != MessageState.POSTED:
                self._queue(tracked, claimed)

    async def queue_unposted(self) -> None:
        """Each poll: copies still `posting` whose primary is posted (a crash, a lost
        answer). Those whose primary is not are queued when its post is next tried."""
        for claimed in await self._store.unposted_messages(MessageKind.COPY):
            tracked = await self._store.get(claimed.interaction_id)
            if tracked is not None and tracked.state == MessageState.POSTED:
                self._queue(tracked, claimed)

    def _queue(self, tracked: TrackedInteraction, claimed: TrackedMessage) -> None:
        """A `queued` copy is claimed and posted by its lane (nothing was sent for it); one
        left `posting` may be in the DM already, and is looked for first."""
        step = self._post if claimed.state == MessageState.QUEUED else self._look_then_post
        key = f"{tracked.id} (copy to {claimed.channel})"  # its back-off holds back nothing else
        send = partial(self._dropping_unreachable, step, tracked, claimed)
        self._publisher.post_copy_soon(
            tracked, claimed.channel, partial(self._guarded, key, None, send)
        )

    async def _dropping_unreachable(
        self,
        step: Callable[[TrackedInteraction, TrackedMessage], Awaitable[None]],
        tracked: TrackedInteraction,
        claimed: TrackedMessage,
    ) -> None:
        """Run `step`; a refusal for good, from the look in the DM as from the post
        (both open the DM first), drops the copy instead of retrying it forever."""
        try:
            await step(tracked, claimed)
        except SlackApiError as exc:
            error = exc.response.get("error")
            if error not in UNREACHABLE_ERRORS:
                raise
            key = MessageKey(tracked.id, MessageKind.COPY, claimed.channel)
            if await self._store.drop_claim(key):
                log.warning(
                    "%s can't be sent a DM (%s): the copy of %s is dropped; the others go on",
                    claimed.channel,
                    error,
                    tracked.id,
                )

    async def _look_then_post(self, tracked: TrackedInteraction, queued: TrackedMessage) -> None:
        """A copy claimed earlier: look for it in the DM before posting it.

        Read afresh first: a post under way when this was queued has usually
        recorded its ts by now, and history searches are rate-limited.
        """
        claimed = await self._store.get_message(tracked.id, MessageKind.COPY, queued.channel)
        if claimed is None or claimed.state == MessageState.POSTED:
            return
        since = since_claim(claimed.claimed_at)
        where, ts = await self._publisher.find_posted(tracked.id, claimed.channel, since)
        key = MessageKey(tracked.id, MessageKind.COPY, claimed.channel)
        if not await self._publisher.lifecycle.reconcile(key, (where, ts) if ts else None):
            await self._post(tracked, claimed)
            return
        self._publisher.refresh_soon(tracked.id, tracked.channel)  # it may show an old state

    async def _post(self, tracked: TrackedInteraction, claimed: TrackedMessage) -> None:
        await self._publisher.post_copy(tracked.id, claimed.channel)
