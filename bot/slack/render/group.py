"""A step group's message: one entry in the channel for every tool call one step paused on.

An agent step that pauses on several tool calls would otherwise fill the
channel with a card each. The group message says what the step waits on,
item by item with where each stands, and offers Approve all / Deny all for
the items still waiting whose own card is posted (nobody approves a call they
could not have looked at); the cards themselves are replies in its thread.
The buttons carry the group and a version naming exactly the items offered,
which the bridge keeps before it sends that version: a click acts on those
items and no others, however many arrived since. Like every message it is
re-rendered whole from state.
"""

from __future__ import annotations

import hashlib
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


POSTING_NOTE = (
    "⏳ The cards are still being posted in the thread; Approve all and Deny all come once"
    " each is there to look at."
)
REF_SEPARATOR = "|"
"""Between the group id and the version in a button's value (run ids hold no `|`)."""


@dataclass(frozen=True)
class GroupItem:
    interaction: Interaction
    ctx: MessageContext
    posted: bool = True
    """Whether its own card is in the thread yet."""


@dataclass(frozen=True)
class GroupFacts:
    group_id: str
    step_number: int
    outcome: str | None = None
    """What the last Approve all / Deny all came to, in words (escaped mrkdwn)."""


def waiting(items: Sequence[GroupItem]) -> list[GroupItem]:
    return [i for i in items if accepts_decisions(i.interaction, i.ctx)]


def offered(items: Sequence[GroupItem]) -> list[GroupItem]:
    """What Approve all / Deny all act on: the waiting items, once each has its own card
    to look at. While any card is still to come, nothing is offered: the message then
    changes twice for a burst of siblings, not once per card posted."""
    open_items = waiting(items)
    return [] if any(not i.posted for i in open_items) else open_items


def group_version(item_ids: Sequence[str]) -> str:
    """A short name for one set of offered items (the same set, the same name)."""
    digest = hashlib.sha256("\n".join(sorted(item_ids)).encode()).hexdigest()
    return digest[:16]


def group_ref(group_id: str, item_ids: Sequence[str]) -> str:
    """A button's value: the group and the version of what it offers."""
    return f"{group_id}{REF_SEPARATOR}{group_version(item_ids)}"


def parse_group_ref(value: str) -> tuple[str, str | None]:
    """(group id, version); no version in a value from before versions existed."""
    group_id, sep, version = value.rpartition(REF_SEPARATOR)
    return (group_id, version) if sep and group_id else (value, None)


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
    offer = offered(items)
    if offer:
        n = len(offer)
        ref = group_ref(facts.group_id, [i.interaction.id for i in offer])
        blocks.append(
            {
                "type": "actions",
                "block_id": GROUP_ACTIONS_BLOCK_ID,
                "elements": [
                    _button(f"Approve all ({n})", ActionId.APPROVE_ALL, ref, "primary"),
                    _button(f"Deny all ({n})", ActionId.DENY_ALL, ref, "danger"),
                ],
            }
        )
    notes = [facts.outcome] if facts.outcome else []
    if open_items and not offer:
        notes.append(POSTING_NOTE)
    else:
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
