"""Every signed request acts once: a replay or a second delivery is acknowledged and ignored.

A request Slack signed stays valid for five minutes, so the same bytes sent again
(an attacker replaying a captured click, or one delivery reaching two replicas)
would act again: a withdrawn vote restored, a command run twice. Before any
listener runs, the request's timestamp and signature are claimed in the store
(`event_receipts`, shared by every replica and pruned with the event receipts);
a request already claimed gets an empty 200 and a log line. The claim runs
under the request's ack deadline: a store too slow or failing to answer lets the
request through (the decision it carries is written to the same store under the
same deadline, so it fails there and the person is told nothing was sent). Socket Mode
requests carry no signature and are let through (Slack delivers each envelope
to one connection), and so are type-ahead look-ups (`block_suggestion`): they
only read, and the same query typed twice within a second is the same request.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncBoltContext, AsyncBoltRequest
from slack_bolt.response import BoltResponse
from sqlalchemy.exc import SQLAlchemyError

from bot.bridge.listeners import arrived
from bot.clock import Clock
from bot.services.acking import ACK_BUDGET_SECONDS
from bot.store import Store
from bot.store.errors import StoreFileError, TooLate

log = logging.getLogger(__name__)

Next = Callable[[], Awaitable[None]]
Once = Callable[[AsyncBoltRequest, Any, AsyncBoltContext, Next], Awaitable[BoltResponse | None]]
READS = frozenset({"block_suggestion"})
"""Payload types that only read: a second one changes nothing, so none is refused."""
RECEIPT_PREFIX = "request:"
"""Request receipts share the event receipts' table, told apart by this prefix."""


def request_key(timestamp: str, signature: str) -> str:
    """The receipt of one signed request (a digest: the signature itself is not kept)."""
    digest = hashlib.sha256(f"{timestamp}:{signature}".encode()).hexdigest()
    return RECEIPT_PREFIX + digest


def _header(request: AsyncBoltRequest, name: str) -> str | None:
    values = request.headers.get(name)
    return values[0] if values else None


def once_per_request(store: Store, clock: Clock) -> Once:
    """The Bolt middleware that lets each signed request through once."""

    async def act_once(
        req: AsyncBoltRequest, body: Any, context: AsyncBoltContext, next: Next
    ) -> BoltResponse | None:
        timestamp = _header(req, "x-slack-request-timestamp")
        signature = _header(req, "x-slack-signature")
        kind = body.get("type") if isinstance(body, dict) else None
        if timestamp is None or signature is None or req.mode == "socket_mode" or kind in READS:
            await next()
            return None
        try:
            async with asyncio.timeout_at(arrived(context) + ACK_BUDGET_SECONDS):
                first = await store.first_receipt(request_key(timestamp, signature), clock())
        except (TimeoutError, TooLate, StoreFileError, SQLAlchemyError, OSError) as exc:
            log.warning("could not check the request was not seen before: %r", exc)
            first = True
        if not first:
            log.warning("ignored a request already received (a replay or a second delivery)")
            return BoltResponse(status=200, body="")
        await next()
        return None

    return act_once
