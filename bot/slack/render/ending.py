"""How an expired interaction's message words its ending, from what the bridge recorded.

"⌛ Expired 14:05 after 15 min. Asked: @alice, @sre in #approvals. Reminded
14:00; escalated to #managers 14:01." — when it lapsed, how long it waited,
who could have decided (unless anyone could) and where it was asked, and
every nudge sent, so a reader sees nobody was left unasked. A
context without those facts (no channel known) keeps the short wording.
"""

from __future__ import annotations

from datetime import datetime

from bot.novo.models import Interaction
from bot.slack.render.common import date_token
from bot.slack.render.context import MessageContext, Nudge
from bot.slack.render.targets import slack_target

TIME_FORMAT = "{time}"


def waited(seconds: float) -> str:
    """A wait in the words people use: "40 s", "15 min", "2 h 5 min"."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"


def expired_at(interaction: Interaction) -> datetime:
    """When it lapsed: its deadline, else when Novo finalized it."""
    return interaction.expires_at or interaction.resolved_at or interaction.updated_at


def _nudge_clause(nudges: tuple[Nudge, ...]) -> str:
    reminded = [date_token(n.at, TIME_FORMAT) for n in nudges if n.kind == "remind"]
    parts = []
    if reminded:
        parts.append("Reminded " + ", ".join(reminded))
    for nudge in nudges:
        if nudge.kind == "escalate":
            targets = ", ".join(slack_target(t) for t in nudge.to) or "nobody"
            parts.append(f"escalated to {targets} {date_token(nudge.at, TIME_FORMAT)}")
    if not parts:
        return " Nobody was reminded."
    return " " + "; ".join(parts) + "."


def expiry_line(interaction: Interaction, ctx: MessageContext, icon: str) -> str | None:
    """The full ending line, or None when the context does not know where it was asked."""
    if ctx.asked_in is None:
        return None
    at = expired_at(interaction)
    whom = ctx.asked_whom
    in_channel = not ctx.asked_in.startswith(("U", "W", "D"))  # a DM names its person already
    asked = f"{whom} in {ctx.asked_where}" if whom and in_channel else ctx.asked_where
    line = (
        f"{icon} Expired {date_token(at, TIME_FORMAT)}"
        f" after {waited((at - interaction.created_at).total_seconds())}."
        f" Asked: {asked}."
    )
    return line + _nudge_clause(ctx.nudges)
