"""Records the store tests keep: an interaction as Novo sends it, and a Slack decision."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from bot.domain import SlackActor, SlackDecision
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from tests.novo.conftest import approval_wire
from tests.support import wait_until

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


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
