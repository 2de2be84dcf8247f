"""The line an approval with a quorum carries: how many approved, who, who else may.

Nobody is named before the first approval: the first post of a message
notifies whoever it mentions, and a list of deciders pinged at once is what
reminders are for. Edits notify nobody, so later renders name people.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.slack.render.common import escape_mrkdwn, mrkdwn
from bot.slack.render.context import QuorumState

QUORUM_BLOCK_ID = "novo_quorum"
SHOWN_APPROVERS = 10
QUORUM_TEXT = 800
"""Room the line may take: it shares the message's text budget with the record."""
ICON = "🗳️"
DROPPED_WORDS = {
    "not a decider": "not a decider since the policy changed",
    "a guest": "a guest now",
}
"""How the message says why a standing vote no longer counts, by the reason the store
keeps (any other reason, e.g. a stranger's team, reads as it was written)."""


def people_text(users: Sequence[str], groups: Sequence[str]) -> str:
    """`<@U0ALICE>, <@U0BOB> or members of <!subteam^S0SRE>`: Slack shows their names."""
    names = [f"<@{user}>" for user in users]
    if groups:
        names.append("members of " + " or ".join(f"<!subteam^{group}>" for group in groups))
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def dropped_text(quorum: QuorumState) -> str:
    """`<@U0ADA>'s approval no longer counts: not a decider since the policy changed`."""
    return " · ".join(
        f"<@{actor.user_id}>'s approval no longer counts:"
        f" {escape_mrkdwn(DROPPED_WORDS.get(why, why))}"
        for actor, why in quorum.dropped[:SHOWN_APPROVERS]
    )


def quorum_text(quorum: QuorumState, *, open_: bool) -> str:
    dropped = dropped_text(quorum) if open_ else ""
    text = _tally_text(quorum, open_=open_)
    return " · ".join(t for t in (text, dropped) if t)


def _tally_text(quorum: QuorumState, *, open_: bool) -> str:
    count = len(quorum.approvers)
    if count == 0:
        return f"{ICON} Needs {quorum.needed} approvals" if open_ else ""
    approvers = ", ".join(f"<@{a.user_id}> ✓" for a in quorum.approvers[:SHOWN_APPROVERS])
    if count > SHOWN_APPROVERS:
        approvers += f" and {count - SHOWN_APPROVERS} more"
    text = f"{ICON} Approvals: {count} of {quorum.needed} — {approvers}"
    if not open_:
        return text + " (voting closed)"
    if quorum.others:
        text += f" · Can still approve: {quorum.others}"
    return text


def quorum_block(quorum: QuorumState, *, open_: bool) -> dict[str, Any] | None:
    text = quorum_text(quorum, open_=open_)
    if not text:
        return None
    return {
        "type": "context",
        "block_id": QUORUM_BLOCK_ID,
        "elements": [mrkdwn(text, QUORUM_TEXT)],
    }
