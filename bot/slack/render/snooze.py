"""What "Remind me" says: the word to the person who chose it, and the DM when it falls due.

The DM says what is waiting (the title and who asks, as the message and the
escalation name them), how long is left, where it was asked, and links to
the original message, so the person can act from their DM in one click. It
only goes out while the interaction still waits, so it never words an ending.

Times are `<!date^…>` tokens: each reader sees them in their own time zone.
Agent text is escaped here as in every message; the words to the person
hold none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from bot.novo.models import Interaction, QuestionRequest
from bot.slack.limits import HEADER_TEXT, SECTION_TEXT
from bot.slack.render.approval import approval_title
from bot.slack.render.common import clean_rendered, date_token, escape_mrkdwn, mrkdwn, plain_text
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.ending import TIME_FORMAT, waited
from bot.slack.render.question import question_title
from bot.slack.render.record import asker, context_block
from bot.slack.render.reminder import ICON_REMINDER
from bot.slack.render.snooze_choices import BEFORE_EXPIRY, SnoozeChoice

ICON_REFUSED = "⌛"
SNOOZE_BLOCK_ID = "novo_snooze"
LINK_BLOCK_ID = "novo_snooze_link"
OPEN_LABEL = "Open the request"

NOT_WAITING_TEXT = (
    f"{ICON_REFUSED} No reminder set: this request is no longer waiting for a decision."
)


@dataclass(frozen=True)
class SnoozeFacts:
    """What the DM needs besides the interaction: the original message's permalink."""

    link: str | None


@dataclass(frozen=True)
class SnoozeKept:
    """A "Remind me" choice kept: due then, replacing the person's reminder due `replaced`."""

    choice: SnoozeChoice
    due_at: datetime
    replaced: datetime | None


@dataclass(frozen=True)
class SnoozeTooLate:
    """A choice refused: it would fall due after the expiry (an old menu), or there is
    no deadline to count back from."""

    choice: SnoozeChoice
    now: datetime
    expires_at: datetime | None


@dataclass(frozen=True)
class SnoozeNotWaiting:
    """A choice on an interaction that no longer waits: nothing kept."""


SnoozeAnswer = SnoozeKept | SnoozeTooLate | SnoozeNotWaiting


def snooze_answer_text(answer: SnoozeAnswer) -> str:
    """What the person who chose is told, only them."""
    match answer:
        case SnoozeKept(choice=choice, due_at=due_at, replaced=replaced):
            return snooze_set_text(choice, due_at, replaced)
        case SnoozeTooLate(choice=choice, now=now, expires_at=expires_at):
            return snooze_refused_text(choice, now, expires_at)
    return NOT_WAITING_TEXT


def _time(at: datetime) -> str:
    return date_token(at, TIME_FORMAT)


def snooze_set_text(choice: SnoozeChoice, due_at: datetime, replaced: datetime | None) -> str:
    """ "⏰ I'll remind you at 14:20 (in 15 min) if it is still waiting then." """
    text = f"{ICON_REMINDER} I'll remind you at {_time(due_at)} ({choice.words})"
    text += " if it is still waiting then."
    if replaced is not None:
        text += f" This replaces your reminder at {_time(replaced)}."
    return text


def snooze_refused_text(choice: SnoozeChoice, now: datetime, expires_at: datetime | None) -> str:
    """Why a choice can't be kept now, in one line (see `SnoozeChoice.accepts`)."""
    if expires_at is None:
        return f"{ICON_REFUSED} No reminder set: this request has no deadline to count back from."
    if choice.after is None:
        minutes = int(BEFORE_EXPIRY.total_seconds() // 60)
        return (
            f"{ICON_REFUSED} No reminder set: it expires at {_time(expires_at)},"
            f" less than {minutes} min from now."
        )
    return (
        f"{ICON_REFUSED} No reminder set: it expires at {_time(expires_at)},"
        f" before a reminder {choice.words} would come."
    )


def time_left(expires_at: datetime, now: datetime) -> str:
    """ "5 min", "2 h 45 min", "40 s": to the nearest minute once there is one, so a
    reminder sent a second after its time still says "5 min"."""
    seconds = max(0.0, (expires_at - now).total_seconds())
    return waited(seconds if seconds < 60 else round(seconds / 60) * 60)


def what_is_asked(interaction: Interaction) -> str:
    """The title the interaction's own message shows, as plain text."""
    if interaction.kind == "question":
        return question_title(interaction.request or QuestionRequest())
    return approval_title(interaction)


def _waiting_for(interaction: Interaction) -> str:
    return "an answer" if interaction.kind == "question" else "a decision"


def _facts_text(interaction: Interaction, ctx: MessageContext, now: datetime) -> str:
    lines = [
        f"*Still waiting for {_waiting_for(interaction)}* — you asked to be reminded.",
        f"*From:* {asker(interaction, ctx)} · waiting since {date_token(interaction.created_at)}",
    ]
    expires = interaction.expires_at
    if expires is None:
        lines.append("*Time left:* no deadline")
    else:
        lines.append(f"*Time left:* {time_left(expires, now)} (expires {date_token(expires)})")
    if ctx.asked_where:
        lines.append(f"*Asked:* {ctx.asked_where}")
    return "\n".join(lines)


def _link_block(facts: SnoozeFacts) -> dict[str, Any]:
    return {
        "type": "section",
        "block_id": LINK_BLOCK_ID,
        "text": mrkdwn(f"<{facts.link}|{OPEN_LABEL}>", SECTION_TEXT),
    }


def render_snooze_reminder(
    interaction: Interaction, ctx: MessageContext, facts: SnoozeFacts
) -> RenderedMessage:
    """The DM sent when a snooze falls due on an interaction that still waits."""
    title = what_is_asked(interaction)
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "text": plain_text(f"{ICON_REMINDER} {title}", HEADER_TEXT),
        },
        {
            "type": "section",
            "block_id": SNOOZE_BLOCK_ID,
            "text": mrkdwn(_facts_text(interaction, ctx, ctx.now), SECTION_TEXT),
        },
    ]
    if facts.link:
        blocks.append(_link_block(facts))
    blocks.append(context_block(interaction, ctx))
    expires = interaction.expires_at
    left = f"{time_left(expires, ctx.now)} left" if expires is not None else "no deadline"
    message: RenderedMessage = {
        "text": f"{ICON_REMINDER} Reminder: {escape_mrkdwn(title)} is still waiting ({left})",
        "blocks": blocks,
        "metadata": {},
    }
    return cast(RenderedMessage, clean_rendered(message))
