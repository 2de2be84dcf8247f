"""The one lifecycle of every message the bridge posts, whatever its kind.

Tracked `queued` (nothing sent); claimed just before its send (`posting`, with every
other lane's claims of the moment in one transaction: `bot.messages.batches`); sent;
its ts recorded (`posted`). A refusal that says nothing was posted unclaims it (back to
`queued`, no look owed); any other failure leaves it in doubt, to be looked for in its
destination before it is posted again (`bot.messages.doubt`), and adopted if found.
Each later change of what it shows is recorded once Slack shows it.

The kind (primary, copy, escalation, step group) picks only what is rendered and
where it goes; these steps are the same for all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.errors import SlackApiError

from bot.clock import Clock
from bot.messages.batches import SendBatches
from bot.messages.doubt import nothing_posted
from bot.metrics import MESSAGES_POSTED
from bot.store import Store
from bot.store.messages import POSTED_EVENT, MessageKey, SentMessage
from bot.store.schema import MessageState

log = logging.getLogger(__name__)

Sending = Callable[[], Awaitable[tuple[str, str]]]
"""A send of a rendered message: where Slack put it and its ts."""

Preparing = Callable[[], Awaitable[tuple[Sending, str]]]
"""A message's render: its send, and the hash of what it shows."""


class Lifecycle:
    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock
        self.sends = SendBatches(store, clock)

    async def post(
        self,
        key: MessageKey,
        state: MessageState,
        prepare: Preparing,
        audit_detail: dict[str, Any] | None,
        *,
        audit_event: str = POSTED_EVENT,
    ) -> tuple[str, str] | None:
        """Claim (a `queued` message), send and record one message; None when it was not
        this call's to send (claimed or posted meanwhile). A `posting` one (looked for
        and not found) is sent as it is. Raises SlackApiError when Slack refuses it.

        `prepare` renders it (the send and the hash of what it shows). A `queued`
        message is claimed while it renders, so the claim and the render's read of its
        facts share one round of the store's writes (`SendBatches`), not one each; a
        render that fails gives the claim back, since nothing was sent.

        `audit_detail`: what its audit entry (`audit_event`, written with its ts) adds
        (None: no entry; a step group's message is audited by what it is about)."""
        if state == MessageState.POSTED:
            return None
        if state == MessageState.QUEUED:
            prepared = await self._claimed_while(key, prepare)
            if prepared is None:
                return None
            send, rendered_hash = prepared
        else:
            send, rendered_hash = await prepare()
        try:
            shown_in, ts = await send()
        except SlackApiError as exc:
            if nothing_posted(exc):
                await self._store.unclaim(key, self._clock())
            raise
        await self.sends.record(
            SentMessage(key, ts, rendered_hash, shown_in, audit_detail, audit_event)
        )
        MESSAGES_POSTED.inc()
        return shown_in, ts

    async def _claimed_while(
        self, key: MessageKey, prepare: Preparing
    ) -> tuple[Sending, str] | None:
        """`prepare()` with the message claimed meanwhile; None when the claim was not
        ours (someone else has it, and what was rendered is dropped)."""
        claim = asyncio.ensure_future(self.sends.claim(key))
        try:
            prepared = await prepare()
        except BaseException:
            await self._give_back(key, claim)
            raise
        return prepared if await claim else None

    async def _give_back(self, key: MessageKey, claim: asyncio.Future[bool]) -> None:
        """Unclaim a message whose render failed (nothing was sent). The render's failure
        is what the caller hears: one of the claim's own, or of the unclaim, only leaves
        the claim in doubt, to be looked for like any other."""
        with contextlib.suppress(Exception):
            if await asyncio.shield(claim):
                await self._store.unclaim(key, self._clock())

    async def reconcile(
        self,
        key: MessageKey,
        found: tuple[str, str] | None,
        *,
        audit_detail: dict[str, Any] | None = None,
        audit_event: str = POSTED_EVENT,
    ) -> bool:
        """The one step after a look for a message in doubt, whatever its kind: one found
        (where, ts) is adopted and True returned; one not found (False) is the caller's
        to post as it is, its claim standing, without a second look. `audit_detail`: the
        entry its adoption writes, as its post would have (None: none).

        Only the look is the kind's own (a channel's history, a DM's, a thread's, by the
        metadata its kind carries); what a look's answer means is decided here."""
        if found is None:
            return False
        where, ts = found
        await self.adopt(key, where, ts, audit_detail=audit_detail, audit_event=audit_event)
        log.info(
            "reconciled the %s message of %s in %s with its message %s",
            key.purpose.value,
            key.interaction_id,
            where,
            ts,
        )
        return True

    async def adopt(
        self,
        key: MessageKey,
        where: str,
        ts: str,
        *,
        audit_detail: dict[str, Any] | None = None,
        audit_event: str = POSTED_EVENT,
    ) -> bool:
        """Record a message in doubt that a look found in Slack; what it shows is unknown
        (no hash), so the next refresh brings it in step."""
        sent = SentMessage(key, ts, "", where, audit_detail, audit_event)
        return await self._store.record_posted(sent, self._clock())

    async def shown(
        self, key: MessageKey, rendered_hash: str, *, expected_version: int | None = None
    ) -> bool:
        """Slack shows `rendered_hash` now."""
        return await self._store.record_shown(
            key, rendered_hash, self._clock(), expected_version=expected_version
        )
