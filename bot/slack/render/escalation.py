"""The escalation message: what is waiting, for whom, since when, and how it ended.

Sent to the people above when an interaction is still undecided late in its
window, and kept true afterwards (re-rendered from state like every message):
once the interaction ends it says how, relative to the escalation ("Approved
by @ada 2 min after escalation", "Expired"), so nobody acts on a stale alarm.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from bot.novo.models import Interaction, QuestionRequest
from bot.slack.ids import ESCALATION_METADATA_EVENT_TYPE
from bot.slack.limits import HEADER_TEXT, SECTION_TEXT
from bot.slack.render.approval import approval_title
from bot.slack.render.common import clean_rendered, date_token, escape_mrkdwn, mrkdwn, plain_text
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.ending import TIME_FORMAT, waited
from bot.slack.render.question import question_title
from bot.slack.render.record import asker, context_block
from bot.slack.render.status import (
    ICON_CANCELLED,
    ICON_DONE,
    ICON_EXPIRED,
    ICON_GONE,
    actor_mention,
    display_state,
    outcome_words,
)
from bot.slack.render.targets import slack_target

ICON_ESCALATED = "🔺"
ESCALATION_BLOCK_ID = "novo_escalation"


@dataclass(frozen=True)
class EscalationFacts:
    """What the store recorded about an escalation, besides the message context."""

    escalated_at: datetime
    link: str | None
    groups: tuple[str, ...] = ()


def _title(interaction: Interaction) -> str:
    if interaction.kind == "question":
        return question_title(interaction.request or QuestionRequest())
    return approval_title(interaction)


def _after(at: datetime, facts: EscalationFacts) -> str:
    return f"{waited((at - facts.escalated_at).total_seconds())} after escalation"


def _outcome(interaction: Interaction, ctx: MessageContext, facts: EscalationFacts) -> str | None:
    """The ending in one line, or None while it still waits."""
    state = display_state(interaction, ctx)
    ended_at = interaction.resolved_at or interaction.updated_at
    if state in ("pending", "queued"):
        return None
    if state == "expired":
        return f"{ICON_EXPIRED} Expired"
    if state == "gone":
        return f"{ICON_GONE} No longer exists in Novo"
    if state == "decided":
        assert ctx.decided_in_slack is not None
        decision = ctx.decided_in_slack
        icon = outcome_words(interaction)[0] if not interaction.is_pending else ICON_DONE
        verb = escape_mrkdwn(decision.verb)
        return f"{icon} {verb} by {actor_mention(decision.actor)} {_after(decision.at, facts)}"
    if state == "cancelled":
        return f"{ICON_CANCELLED} Cancelled {_after(ended_at, facts)}"
    icon, verb = outcome_words(interaction)
    return f"{icon} {verb} outside Slack {_after(ended_at, facts)}"


def _facts_text(interaction: Interaction, ctx: MessageContext, facts: EscalationFacts) -> str:
    reminded = [date_token(n.at, TIME_FORMAT) for n in ctx.nudges if n.kind == "remind"]
    lines = [
        f"*For:* {asker(interaction, ctx)} · waiting since {date_token(interaction.created_at)}",
    ]
    if interaction.expires_at is not None:
        lines.append(f"*Expires:* {date_token(interaction.expires_at)}")
    asked = ctx.asked_where or "its channel"
    lines.append(f"*Asked:* {asked} · *Reminded:* {', '.join(reminded) or 'not yet'}")
    if facts.link:
        lines.append(f"<{facts.link}|Open the request>")
    return "\n".join(lines)


def render_escalation(
    interaction: Interaction, ctx: MessageContext, facts: EscalationFacts
) -> RenderedMessage:
    """The whole escalation message for `interaction` as it stands."""
    title = _title(interaction)
    outcome = _outcome(interaction, ctx, facts)
    mentions = " ".join(slack_target(g) for g in facts.groups)
    if outcome is None:
        headline = f"{ICON_ESCALATED} Still waiting for a decision"
        headline += f" {mentions}" if mentions else ""
    else:
        headline = f"{outcome} · {ICON_ESCALATED} escalated {date_token(facts.escalated_at)}"
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": plain_text(title, HEADER_TEXT)},
        {
            "type": "section",
            "block_id": ESCALATION_BLOCK_ID,
            "text": mrkdwn(headline, SECTION_TEXT),
        },
        {"type": "section", "text": mrkdwn(_facts_text(interaction, ctx, facts), SECTION_TEXT)},
        context_block(interaction, ctx),
    ]
    words = "waiting for a decision" if outcome is None else "escalation closed"
    message: RenderedMessage = {
        "text": f"{ICON_ESCALATED} {escape_mrkdwn(title)}: {words}",
        "blocks": blocks,
        "metadata": {
            "event_type": ESCALATION_METADATA_EVENT_TYPE,
            "event_payload": {"interaction_id": interaction.id},
        },
    }
    return cast(RenderedMessage, clean_rendered(message))
