"""A step group's message: one entry in the channel for every tool call one step paused on.

An agent step that pauses on several tool calls would otherwise fill the
channel with a card each. The group message says what the step waits on,
item by item with where each stands, and offers Approve all / Deny all for
the items still waiting; the cards themselves are replies in its thread.
Like every message it is re-rendered whole from state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from bot.novo.models import Interaction
from bot.slack.ids import GROUP_ACTIONS_BLOCK_ID, GROUP_METADATA_EVENT_TYPE, ActionId
from bot.slack.limits import BUTTON_TEXT, SECTION_TEXT
from bot.slack.render.approval import approval_title
from bot.slack.render.common import clean_rendered, escape_mrkdwn, mrkdwn, plain_text
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.record import asker, asker_plain
from bot.slack.render.status import accepts_decisions, status_summary

ITEM_LINES = 20
"""Items listed in the message; the rest are counted (all are in the thread)."""


@dataclass(frozen=True)
class GroupItem:
    interaction: Interaction
    ctx: MessageContext


@dataclass(frozen=True)
class GroupFacts:
    group_id: str
    step_number: int
    outcome: str | None = None
    """What the last Approve all / Deny all came to, in words (escaped mrkdwn)."""


def waiting(items: Sequence[GroupItem]) -> list[GroupItem]:
    return [i for i in items if accepts_decisions(i.interaction, i.ctx)]


def render_group(facts: GroupFacts, items: Sequence[GroupItem]) -> RenderedMessage:
    first = items[0]
    count = len(items)
    calls = "tool call" if count == 1 else "tool calls"
    lead = (
        f"{asker(first.interaction, first.ctx)} paused step {facts.step_number} on {count} {calls}"
    )
    lines = [
        f"• *{escape_mrkdwn(approval_title(i.interaction, 80))}* — "
        f"{status_summary(i.interaction, i.ctx)}"
        for i in items[:ITEM_LINES]
    ]
    if count > ITEM_LINES:
        lines.append(f"…and {count - ITEM_LINES} more in the thread")
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": mrkdwn(lead, SECTION_TEXT)},
        {"type": "section", "text": mrkdwn("\n".join(lines), SECTION_TEXT)},
    ]
    open_items = waiting(items)
    if open_items:
        n = len(open_items)
        blocks.append(
            {
                "type": "actions",
                "block_id": GROUP_ACTIONS_BLOCK_ID,
                "elements": [
                    _button(f"Approve all ({n})", ActionId.APPROVE_ALL, facts.group_id, "primary"),
                    _button(f"Deny all ({n})", ActionId.DENY_ALL, facts.group_id, "danger"),
                ],
            }
        )
    notes = [facts.outcome] if facts.outcome else []
    notes.append("Each tool call is in the thread, with its own buttons.")
    blocks.append({"type": "context", "elements": [mrkdwn(" · ".join(notes), SECTION_TEXT)]})
    state = f"{len(open_items)} waiting" if open_items else "none waiting"
    message: RenderedMessage = {
        "text": f"{asker_plain(first.interaction, first.ctx)} paused step"
        f" {facts.step_number} on {count} {calls} · {state}",
        "blocks": blocks,
        "metadata": {
            "event_type": GROUP_METADATA_EVENT_TYPE,
            "event_payload": {"group_id": facts.group_id, "items": count},
        },
    }
    return cast(RenderedMessage, clean_rendered(message))


def _button(label: str, action_id: ActionId, value: str, style: str) -> dict[str, Any]:
    return {
        "type": "button",
        "action_id": action_id.value,
        "text": plain_text(label, BUTTON_TEXT),
        "value": value,
        "style": style,
    }
