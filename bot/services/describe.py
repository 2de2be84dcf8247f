"""One sentence saying where an interaction stands, for the people told by ephemeral messages."""

from __future__ import annotations

from bot.novo.models import TIMEOUT_REASON, Interaction
from bot.slack.render.common import escape_mrkdwn, truncate
from bot.slack.render.context import SlackDecision

REASON_PREVIEW = 300


def describe_final_state(interaction: Interaction, decided_in_slack: SlackDecision | None) -> str:
    """E.g. 'It was already denied by <@U1>.' — escaped, because reasons are free text."""
    if interaction.is_pending:
        return "It is still waiting for a decision."
    if decided_in_slack is not None:
        verb, user_id = decided_in_slack.verb.lower(), decided_in_slack.actor.user_id
        return f"It was already {verb} by <@{user_id}>."
    reason = interaction.reason or ""
    if interaction.status == "cancelled":
        if reason == TIMEOUT_REASON:
            return "It expired: nobody decided in time."
        return "It was cancelled" + _reason_suffix(reason)
    if interaction.decision == "allow":
        what = "approved"
    elif interaction.decision == "deny":
        what = "denied"
    else:
        what = "answered"
    return f"It was already {what} outside Slack" + _reason_suffix(reason)


def _reason_suffix(reason: str) -> str:
    if not reason:
        return "."
    return f" ({escape_mrkdwn(truncate(reason, REASON_PREVIEW))})."
