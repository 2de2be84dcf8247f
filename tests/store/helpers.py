"""Records the store tests keep: an interaction as Novo sends it, and a Slack decision."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.domain import SlackActor, SlackDecision
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from bot.store import Store
from bot.store.allowances import Grant
from bot.store.messages import MessageKey, SentMessage
from bot.store.schema import MessageKind
from tests.novo.conftest import approval_wire
from tests.support import wait_until

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
ADA = SlackActor("U0ADA", "Ada Lovelace")


def grant(interaction_id: str = "int_grant", tool_name: str = "deploy_status") -> Grant:
    """Ada's standing approval of agt_1's `tool_name` for run_1, four hours from NOW."""
    until = NOW + timedelta(hours=4)
    return Grant("deploys", "run", "agt_1", tool_name, "run_1", ADA, NOW, until, interaction_id)


def interaction(id_: str = "int_1", status: str = "pending", **extra: Any) -> Interaction:
    """A record as Novo sends it (the project's one builder), with no deadline unless given."""
    fields: dict[str, Any] = {
        "status": status,
        "toolName": "deploy",
        "expiresAt": None,
        "createdAt": "2026-11-30T08:00:00Z",
        "updatedAt": "2026-11-30T08:00:00Z",
        **extra,
    }
    return Interaction.model_validate(approval_wire(id_, **fields))


def decision(
    user: str, interaction_id: str = "int_1", at: datetime = NOW
) -> tuple[ResolveInteractionBody, SlackDecision]:
    body = ResolveInteractionBody(
        input_responses=[InputResponse(request_id=interaction_id, option_id="approve")]
    )
    return body, SlackDecision(SlackActor(user, user), at, "Approved")


def open_threads() -> set[threading.Thread]:
    """Threads that would outlive a failed open (the event loop's own workers aside)."""
    return {t for t in threading.enumerate() if not t.name.startswith("asyncio_")}


async def threads_settle(before: set[threading.Thread], timeout: float = 5) -> None:
    await wait_until(
        lambda: not open_threads() - before, timeout=timeout, message="no threads left running"
    )


async def record_primary(
    store: Store,
    interaction_id: str,
    ts: str,
    rendered_hash: str,
    now: datetime,
    *,
    slack_channel: str | None = None,
) -> bool:
    """Record a tracked interaction's primary message posted, as a lane's send does."""
    tracked = await store.get(interaction_id)
    if tracked is None:
        return False
    return await record_message(
        store,
        interaction_id,
        MessageKind.PRIMARY,
        tracked.channel,
        ts,
        rendered_hash,
        now,
        slack_channel=slack_channel,
    )


async def record_message(
    store: Store,
    interaction_id: str,
    purpose: MessageKind,
    channel: str,
    ts: str,
    rendered_hash: str,
    now: datetime,
    *,
    slack_channel: str | None = None,
) -> bool:
    """Claim and record one message posted (no audit entry), as a lane's send does."""
    key = MessageKey(interaction_id, purpose, channel)
    await store.record_sends([key], [], now)
    sent = SentMessage(key, ts, rendered_hash, slack_channel or channel, audit_detail=None)
    return await store.record_posted(sent, now)


async def shown_primary(store: Store, interaction_id: str, rendered_hash: str) -> None:
    """Record what a tracked interaction's primary message shows now."""
    tracked = await store.get(interaction_id)
    assert tracked is not None
    key = MessageKey(interaction_id, MessageKind.PRIMARY, tracked.channel)
    await store.record_shown(key, rendered_hash, NOW)
