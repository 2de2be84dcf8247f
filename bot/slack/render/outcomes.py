"""The words for what became of a click: every outcome and refusal, worded in one place.

Services report facts (`bot.outcomes`); this turns them into the mrkdwn a
person reads, in an ephemeral note, a notice modal or a step group's summary,
so one fact always reads the same. Mentions we build (`<@U…>`) stay live;
every piece someone else wrote (Novo's error message, an agent's label, a
reason) is escaped here, once.
"""

from __future__ import annotations

from typing import Any

from bot.domain import SlackDecision
from bot.novo.models import Interaction
from bot.outcomes import (
    BadAnswer,
    DecisionOutcome,
    Delivered,
    Ended,
    Fact,
    Granted,
    GroupOutcome,
    InFlight,
    ItemFate,
    NotGranted,
    Notice,
    Refusal,
    RefusalKind,
    Tally,
)
from bot.redaction import redact_text
from bot.slack.render.allowance import (
    NOT_GRANTED_TEXT,
    NOT_OFFERED_TEXT,
    NOT_YOURS_TEXT,
    NOTHING_TO_REVOKE_TEXT,
    REVOKED_TEXT,
    granted_text,
)
from bot.slack.render.common import escape_mrkdwn, truncate
from bot.slack.render.modals import render_notice_modal
from bot.slack.render.quorum import people_text
from bot.slack.render.status import actor_mention

DETAIL_CHARS = 500
"""Room for quoted text in an ephemeral line; a server's message can be any length."""
REASON_PREVIEW = 300
VERB_PREVIEW = 200

NOT_WAITING_TEXT = "Novo is no longer waiting for an answer."
NOT_WAITING_TITLE = "Nothing to answer"
TOO_LARGE_TITLE = "Too large for Slack"
VIEWER_TITLE = "Tool input"
ANSWER_TITLE = "Answer the agent"
SUBMITTING_TEXT = "⏳ Sending your answer to the agent…"
ANSWER_SENT_TEXT = "✅ Your answer was sent to the agent."

NOTICES: dict[Notice, str] = {
    Notice.QUEUED: "Couldn't reach Novo right now. Your decision is saved and will be delivered"
    " as soon as Novo answers.",
    Notice.GONE: "This request no longer exists in Novo.",
    Notice.UNKNOWN: "novo-slack does not know this request.",
    Notice.NOT_SAVED: "This couldn't be saved, so nothing was sent. Try again in a moment.",
    Notice.SLACK_SLOW: "Slack was slow to say who can decide; nothing was sent — try again.",
    Notice.DECIDED_FIRST: "Someone decided this one differently first.",
    Notice.OTHER_ON_ITS_WAY: "Someone else's decision on it is being delivered.",
    Notice.ONE_ON_ITS_WAY: "A decision on it is being delivered.",
    Notice.CHOICE_GONE: "That choice is no longer offered.",
    Notice.SEALED: "The approval was already sent with your vote.",
    Notice.NO_VOTE: "You have no approval here to withdraw.",
    Notice.ENDED_NO_VOTE: "This one is no longer waiting: nothing to withdraw.",
    Notice.WITHDRAWN: "Your approval is withdrawn.",
    Notice.FORM_DAMAGED: "This form is damaged.",
    Notice.FORM_TOO_LARGE: "This form is too large for Slack to show. Please answer it in Novo.",
    Notice.GROUP_UNKNOWN: "This group is no longer known to the bridge.",
    Notice.GROUP_CHANGED: "This group's message changed since you looked at it; nothing was"
    " sent. Look again at what it lists now.",
    Notice.GROUP_NONE_MINE: "None of the tool calls still waiting here are yours to decide.",
    Notice.GROUP_NONE_WAITING: "Nothing in this group is waiting any more.",
    Notice.STANDING_NOT_OFFERED: NOT_OFFERED_TEXT,
    Notice.ALLOWANCE_ENDED: NOTHING_TO_REVOKE_TEXT,
    Notice.ALLOWANCE_NOT_YOURS: NOT_YOURS_TEXT,
    Notice.ALLOWANCE_REVOKED: REVOKED_TEXT,
}

REFUSALS: dict[RefusalKind, str] = {
    RefusalKind.GUEST: "Guests can't decide this one: the policy keeps it to full members of"
    " the workspace.",
    RefusalKind.EXTERNAL: "People from other workspaces can't decide this one.",
    RefusalKind.UNCHECKED: "Slack couldn't confirm who you are just now, so nothing was sent."
    " Try again in a moment.",
}


NOBODY_IN_SLACK = (
    "Nobody can decide this one in Slack: the policy could not tell which of its rules"
    " applies, and they name no one in common. Decide it in Novo."
)
"""A route whose condition could not be evaluated and whose outcomes share no decider."""


def refusal_text(refusal: Refusal) -> str:
    if refusal.why is RefusalKind.NOT_A_DECIDER:
        if not refusal.users and not refusal.groups:
            return NOBODY_IN_SLACK
        return f"Only {people_text(refusal.users, refusal.groups)} can decide this."
    return REFUSALS[refusal.why]


def fact_text(fact: Fact) -> str:
    """One fact as the person reads it (mrkdwn)."""
    match fact:
        case Notice():
            return NOTICES[fact]
        case Refusal():
            return refusal_text(fact)
        case Delivered(verb=verb):
            return f"{verb}."
        case Ended(final=final, decided_in_slack=decided, lost_race=lost):
            text = describe_final_state(final, decided)
            return f"Not applied. {text}" if lost else text
        case InFlight(by=by):
            who = f"<@{by}>" if by else "someone else"
            return f"{who} already decided this one; their decision is being delivered."
        case BadAnswer(message=message, by_novo=by_novo):
            lead = "Novo refused that answer" if by_novo else "That answer can't be sent"
            shown, _ = redact_text(message)  # Novo's message may quote the answer
            return f"{lead}: {escape_mrkdwn(truncate(shown, DETAIL_CHARS))}"
        case Tally(standing=standing, quorum=quorum, counted=counted):
            return _tally_text(standing, quorum, counted)
        case Granted(allowance=allowance):
            return granted_text(allowance)
        case NotGranted(why=why):
            return f"{fact_text(why)} {NOT_GRANTED_TEXT}"
    raise AssertionError(f"no words for {fact!r}")


def outcome_text(outcome: DecisionOutcome) -> str:
    return fact_text(outcome.fact)


def _tally_text(standing: int, quorum: int, counted: bool) -> str:
    tally = f"{standing} of {quorum}"
    if not counted:
        return f"You already approved this one ({tally} approvals)."
    still = quorum - standing
    deciders = "decider approves" if still == 1 else "deciders approve"
    return f"Your approval is counted: {tally}. It goes to the agent when {still} more {deciders}."


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
    reason = interaction.ending_reason or ""
    if interaction.status == "cancelled":
        if interaction.timed_out:
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


def not_waiting_text(fact: Fact) -> str:
    """Why there is nothing to answer any more, for a notice in place of a form."""
    if isinstance(fact, Ended):
        return f"{NOT_WAITING_TEXT} {fact_text(fact)}"
    return fact_text(fact)


def not_waiting_modal(fact: Fact, title: str = NOT_WAITING_TITLE) -> dict[str, Any]:
    return render_notice_modal(title, not_waiting_text(fact))


def too_large_modal() -> dict[str, Any]:
    return render_notice_modal(TOO_LARGE_TITLE, NOTICES[Notice.FORM_TOO_LARGE])


def viewer_unknown_modal() -> dict[str, Any]:
    return render_notice_modal(VIEWER_TITLE, NOTICES[Notice.UNKNOWN])


def answer_notice_modal(fact: Fact | str) -> dict[str, Any]:
    """The answer form's notice: how a submission went, or why it can't be taken."""
    return render_notice_modal(ANSWER_TITLE, fact if isinstance(fact, str) else fact_text(fact))


def submitting_modal() -> dict[str, Any]:
    return answer_notice_modal(SUBMITTING_TEXT)


def answer_sent_modal() -> dict[str, Any]:
    return answer_notice_modal(ANSWER_SENT_TEXT)


FATES: dict[ItemFate, str] = {
    ItemFate.APPROVED: "approved",
    ItemFate.DENIED: "denied",
    ItemFate.EXPIRED: "had already expired",
    ItemFate.CANCELLED: "was already cancelled",
    ItemFate.APPROVED_IN_SLACK: "was already approved in Slack",
    ItemFate.DENIED_IN_SLACK: "was already denied in Slack",
    ItemFate.DECIDED_IN_SLACK: "was already decided in Slack",
    ItemFate.APPROVED_ELSEWHERE: "was already approved elsewhere",
    ItemFate.DENIED_ELSEWHERE: "was already denied elsewhere",
    ItemFate.DECIDED_ELSEWHERE: "was already decided elsewhere",
    ItemFate.NOT_YOURS: "not yours to decide",
    ItemFate.TAKEN: "was being decided by someone else",
    ItemFate.COUNTED: "counted towards a quorum",
    ItemFate.HAD_YOUR_VOTE: "already had your vote",
    ItemFate.QUEUED: "will be sent when Novo answers",
    ItemFate.GONE: "no longer exists in Novo",
    ItemFate.UNCHECKED: "not sent: " + REFUSALS[RefusalKind.UNCHECKED],
    ItemFate.FAILED: "could not be sent",
}
DECIDED_FIRST = (ItemFate.APPROVED, ItemFate.DENIED)


def group_summary(outcome: GroupOutcome) -> str:
    """'Approve all by <@U1>: 3 approved, 1 was already denied elsewhere.' — the line
    the group's message shows; the decided counts first, the rest as first met."""
    what = "Approve all" if outcome.approve else "Deny all"
    fates = outcome.fates
    parts = [f"{fates[f]} {FATES[f]}" for f in DECIDED_FIRST if fates[f]]
    parts += [
        f"{n} {escape_mrkdwn(FATES[f])}" for f, n in fates.items() if f not in DECIDED_FIRST and n
    ]
    if not parts:
        parts = ["nothing was waiting"]
    return f"{what} by <@{outcome.actor_id}>: {', '.join(parts)}."


def arrived_later_text(count: int) -> str:
    calls = "call arrived" if count == 1 else "calls arrived"
    return f"{count} {calls} after you looked: review them first."


def group_reply_text(result: GroupOutcome | DecisionOutcome) -> str:
    """What the clicker of Approve all / Deny all is told: the summary, and what to
    review; or why nothing was tried."""
    if isinstance(result, DecisionOutcome):
        return outcome_text(result)
    summary = group_summary(result)
    if result.arrived_later:
        summary = f"{summary} {arrived_later_text(result.arrived_later)}"
    return summary
