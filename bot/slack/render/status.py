"""The part of an interaction's message that says where it stands, for every kind.

Approvals and questions share one lifecycle (pending, decided, expired,
cancelled, gone), so the words for it and who decided and when are written
once here and both renderers place them. Who asks and which run it is live in
:mod:`record`.

Public API:

* :func:`display_state` — which of the lifecycle states a message shows;
  :func:`accepts_decisions` — whether it may offer decision buttons.
* :func:`status_block` — the one section stating that state (deadline while
  pending; verb, who and when, note or reason afterwards).
* :func:`status_summary` — the same in a short plain sentence, for the
  notification `text`.
* :func:`is_ended` — whether a message shrinks to header, outcome and Details.
* :func:`message_metadata` — the Slack message metadata that finds the
  message again after a crash.
* :func:`outcome_words`, :func:`deadline_text` — the
  pieces of the status line, for a renderer that words a state its own way.
* :func:`fenced_code`, :func:`actor_mention`, :func:`actor_name`,
  :func:`quote` — formatting helpers the renderers share (and
  :func:`common.inline_code`, re-exported here for them).

The block id used here (``novo_status``) is reserved, as are those of
:mod:`record`: the renderers must not reuse them.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal

from bot.novo.models import Interaction
from bot.slack.ids import METADATA_EVENT_TYPE
from bot.slack.limits import SECTION_TEXT
from bot.slack.render.common import ZERO_WIDTH_SPACE as ZERO_WIDTH_SPACE
from bot.slack.render.common import (
    code_block,
    cut_words,
    date_token,
    escape_mrkdwn,
    mrkdwn,
    relative_deadline,
    truncate,
)
from bot.slack.render.common import inline_code as inline_code
from bot.slack.render.context import MessageContext, SlackActor, SlackDecision
from bot.slack.render.ending import expiry_line
from bot.slack.render.record import asker

DisplayState = Literal["pending", "queued", "decided", "elsewhere", "expired", "cancelled", "gone"]
"""What a message shows: `decided` was decided in Slack, `elsewhere` through the API."""

STATUS_BLOCK_ID = "novo_status"

STATUS_TEXT = SECTION_TEXT
"""The status section, note or reason included (a reason is at most 2,000 chars)."""
NAME_DISPLAY_CHARS = 80
VERB_DISPLAY_CHARS = 200
"""A verb may quote an agent's label ("Chose “…”"): kept short so the note has room."""

ICON_PENDING = "⏱️"
ICON_QUEUED = "⏳"
ICON_DONE = "✅"
ICON_DENIED = "❌"
ICON_EXPIRED = "⌛"
ICON_CANCELLED = "🚫"
ICON_GONE = "⚠️"

EXPIRED_TEXT = "Expired — nobody decided in time"
GONE_TEXT = "This request no longer exists in Novo"
QUEUED_TEXT = "recorded — Novo is unreachable, delivering…"
NO_DEADLINE_TEXT = "No deadline"

ASKED_BY = "Asked by"

_BACKTICK_PAIR = re.compile(r"`(?=`)")
_SLACK_USER_ID = re.compile(r"[UW][A-Z0-9]{2,30}")
_VERB_ICONS = {"Denied": ICON_DENIED, "Dismissed": ICON_CANCELLED, "Cancelled": ICON_CANCELLED}


def display_state(interaction: Interaction, ctx: MessageContext) -> DisplayState:
    """Which state to show; Novo's final record wins over anything the bridge holds.

    A finalized record beats a queued decision (the queue will meet a 409),
    and a timeout beats a Slack decision (it never took effect). A Slack
    decision on a record still read as pending was acknowledged by Novo, so
    it is shown as taken: offering buttons again would invite a conflict.
    """
    if ctx.gone:
        return "gone"
    if interaction.timed_out:
        return "expired"
    if ctx.decided_in_slack is not None:
        return "decided"
    if interaction.status == "resolved":
        return "elsewhere"
    if interaction.status == "cancelled":
        return "cancelled"
    if not interaction.is_pending:
        return "elsewhere"  # a status this bridge does not know: it no longer waits
    if ctx.queued is not None:
        return "queued"
    return "pending"


def accepts_decisions(interaction: Interaction, ctx: MessageContext) -> bool:
    """Decision buttons only while nobody has decided and nothing is on its way."""
    return display_state(interaction, ctx) == "pending"


def outcome_words(interaction: Interaction) -> tuple[str, str]:
    """(icon, verb) for a finalized record, from Novo's own fields rather than any label."""
    if interaction.status == "cancelled":
        return ICON_CANCELLED, "Cancelled"
    if interaction.kind == "approval_request":
        if interaction.decision == "allow":
            return ICON_DONE, "Approved"
        if interaction.decision == "deny":
            return ICON_DENIED, "Denied"
        if interaction.decision == "cancel":
            return ICON_CANCELLED, "Cancelled"
        return ICON_DONE, "Resolved"
    if interaction.kind == "question":
        return ICON_DONE, "Answered"
    return ICON_DONE, "Resolved"  # a kind this bridge does not know


def _decision_icon(interaction: Interaction, decision: SlackDecision) -> str:
    if interaction.status != "pending":
        return outcome_words(interaction)[0]
    return _VERB_ICONS.get(decision.verb.split(" ", 1)[0], ICON_DONE)


def fenced_code(text: str, limit: int) -> str:
    """`common.code_block`, safe against runs of four or more backticks.

    `code_block` breaks each "```" it finds, but in "````" the break leaves a
    fresh "```" behind it that would close the block early. Putting a
    zero-width space between every two adjacent backticks first leaves no
    run at all.
    """
    return code_block(_BACKTICK_PAIR.sub("`" + ZERO_WIDTH_SPACE, text), limit)


def actor_mention(actor: SlackActor) -> str:
    """`<@U…>` for a real Slack user id we recorded; anything else is shown as escaped text."""
    if _SLACK_USER_ID.fullmatch(actor.user_id):
        return f"<@{actor.user_id}>"
    return escape_mrkdwn(cut_words(actor.display_name or actor.user_id, NAME_DISPLAY_CHARS))


def actor_name(actor: SlackActor) -> str:
    """The person's name for plain notification text (which shows mentions raw)."""
    return escape_mrkdwn(cut_words(actor.display_name or actor.user_id, NAME_DISPLAY_CHARS))


def quote(text: str) -> str:
    """A person's own words as a mrkdwn quote; escaped, so it can mention or link nothing."""
    return "\n".join(f">{escape_mrkdwn(line)}" for line in text.splitlines() or [""])


def deadline_text(interaction: Interaction, now: datetime) -> str:
    """'Decide by <date> · expires in 4 min': absolute in the reader's zone, relative to `now`."""
    if interaction.expires_at is None:
        return NO_DEADLINE_TEXT
    expires = interaction.expires_at
    return f"Decide by {date_token(expires)} · {relative_deadline(expires, now)}"


def _finalized_at(interaction: Interaction) -> datetime:
    return interaction.resolved_at or interaction.updated_at


def _status_text(interaction: Interaction, ctx: MessageContext) -> str:
    state = display_state(interaction, ctx)
    if state == "gone":
        return f"{ICON_GONE} {GONE_TEXT}"
    if state == "expired":
        full = expiry_line(interaction, ctx, ICON_EXPIRED)
        return full or f"{ICON_EXPIRED} {EXPIRED_TEXT} · {date_token(_finalized_at(interaction))}"
    if state == "decided":
        assert ctx.decided_in_slack is not None
        return _decision_text(interaction, ctx.decided_in_slack)
    if state == "queued":
        assert ctx.queued is not None
        queued = ctx.queued
        line = f"{ICON_QUEUED} {_verb(queued)} by {actor_mention(queued.actor)} {QUEUED_TEXT}"
        return _with_tail(line, quote(queued.note) if queued.note else None)
    if state in ("elsewhere", "cancelled"):
        icon, verb = outcome_words(interaction)
        where = " outside Slack" if state == "elsewhere" else ""
        line = f"{icon} {verb}{where} · {date_token(_finalized_at(interaction))}"
        reason = interaction.ending_reason
        shown = f"Reason: {escape_mrkdwn(reason)}" if reason else None
        return _with_tail(line, shown)
    who = asker(interaction, ctx)
    return f"{ICON_PENDING} {ASKED_BY} {who} · {deadline_text(interaction, ctx.now)}"


def _decision_text(interaction: Interaction, decision: SlackDecision) -> str:
    icon = _decision_icon(interaction, decision)
    who = actor_mention(decision.actor)
    line = f"{icon} {_verb(decision)} by {who} · {date_token(decision.at)}"
    return _with_tail(line, quote(decision.note) if decision.note else None)


def _verb(decision: SlackDecision) -> str:
    return escape_mrkdwn(truncate(decision.verb, VERB_DISPLAY_CHARS))


def _with_tail(line: str, tail: str | None) -> str:
    """Only the tail (note, reason) is ever cut, so a date token or mention stays whole."""
    if not tail:
        return line
    return f"{line}\n{truncate(tail, STATUS_TEXT - len(line) - 1)}"


def status_block(interaction: Interaction, ctx: MessageContext) -> dict[str, Any]:
    """The section stating where the interaction stands; always exactly one block."""
    return {
        "type": "section",
        "block_id": STATUS_BLOCK_ID,
        "text": mrkdwn(_status_text(interaction, ctx), STATUS_TEXT),
    }


def status_summary(interaction: Interaction, ctx: MessageContext) -> str:
    """A short sentence for the notification `text`: no tokens, no mentions, escaped."""
    state = display_state(interaction, ctx)
    if state == "pending":
        if interaction.expires_at is None:
            return NO_DEADLINE_TEXT.lower()
        return relative_deadline(interaction.expires_at, ctx.now)
    if state in ("decided", "queued"):
        decision = ctx.decided_in_slack if state == "decided" else ctx.queued
        assert decision is not None
        text = f"{_verb(decision)} by {actor_name(decision.actor)}"
        return text + (" — delivering to Novo" if state == "queued" else "")
    if state == "elsewhere":
        return f"{outcome_words(interaction)[1]} outside Slack"
    if state == "expired":
        return EXPIRED_TEXT
    if state == "gone":
        return GONE_TEXT
    return outcome_words(interaction)[1]


def is_ended(interaction: Interaction, ctx: MessageContext) -> bool:
    """Ended messages shrink to header, outcome and Details; queued ones still wait on Novo."""
    return display_state(interaction, ctx) not in ("pending", "queued")


def message_metadata(interaction: Interaction) -> dict[str, Any]:
    """Slack message metadata: readable by the whole workspace, so ids and states only."""
    return {
        "event_type": METADATA_EVENT_TYPE,
        "event_payload": {
            "interaction_id": interaction.id,
            "kind": interaction.kind,
            "status": interaction.status,
        },
    }
