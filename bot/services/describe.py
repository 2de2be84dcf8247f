"""One sentence saying where an interaction stands, for the people told by ephemeral messages."""

from __future__ import annotations

from bot.novo.models import TIMEOUT_REASON, Interaction
from bot.slack.render.common import escape_mrkdwn, truncate
from bot.slack.render.context import SlackDecision
from bot.slack.render.status import actor_mention
from bot.store import TrackedInteraction

REASON_PREVIEW = 300
VERB_PREVIEW = 200
GONE_TEXT = "This request no longer exists in Novo."
UNKNOWN_TEXT = "novo-slack does not know this request."
NOT_WAITING_TEXT = "Novo is no longer waiting for an answer."


def why_not_waiting(tracked: TrackedInteraction | None) -> str | None:
    """None while the interaction still waits; else why not, for a notice instead of a form."""
    if tracked is None:
        return UNKNOWN_TEXT
    if tracked.gone:
        return GONE_TEXT
    if tracked.snapshot.is_pending:
        return None
    return f"{NOT_WAITING_TEXT} {describe_final_state(tracked.snapshot, tracked.decided_in_slack)}"


def describe_final_state(interaction: Interaction, decided_in_slack: SlackDecision | None) -> str:
    """E.g. 'It was already denied by <@U1>.' — mrkdwn, every quoted piece escaped once.

    A verb may quote an agent's label ('Chose “…”'), so it is escaped like a
    reason; only its first letter is lowered, so the label reads as written.
    """
    if interaction.is_pending:
        return "It is still waiting for a decision."
    if decided_in_slack is not None:
        verb = truncate(decided_in_slack.verb, VERB_PREVIEW)
        verb = escape_mrkdwn(verb[:1].lower() + verb[1:])
        who = actor_mention(decided_in_slack.actor)
        if decided_in_slack.verb.startswith("Chose"):
            return f"{who} already {verb}."
        return f"It was already {verb} by {who}."
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
