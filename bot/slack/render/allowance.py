"""The words and blocks of standing approvals ("allowances"): the overflow's two offers,
the lines a granting message shows, the thread report of each poll's uses, what the
person is told, and the App Home lists.

Pure: times come in as arguments. A tool name is the agent's text, so it is shown as
inline code (nothing in it can format or mention). Times in messages are `<!date^…>`
tokens (each reader's own zone); the reason Novo gets says UTC (`services.reasons`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.domain import Allowance, AllowanceScope, AllowanceUse
from bot.slack.ids import ActionId, OverflowValue
from bot.slack.limits import BUTTON_TEXT, OPTION_TEXT, SECTION_TEXT
from bot.slack.render.common import (
    date_token,
    escape_mrkdwn,
    inline_code,
    mrkdwn,
    plain_text,
    truncate,
)

OPEN_ICON = "🔓 "
ENDED_ICON = "🔒 "
USED_ICON = "✅ "
REVOKE_LABEL = "Revoke"
TOOL_CHARS = 40
TOOL_LABEL_CHARS = 20
"""A tool's name in an overflow choice's label (plain text, at most 75 characters)."""
RUN_LABEL = "Approve, and allow {tool} for this run"
TOOL_LABEL = "Approve, and allow {tool} for {duration}"
STANDING_LABELS_TEXT = len(RUN_LABEL.format(tool="x" * TOOL_LABEL_CHARS)) + len(
    TOOL_LABEL.format(tool="x" * TOOL_LABEL_CHARS, duration="24 hours")
)
"""The most text the two choices add to an approval message (for its budget)."""
ALLOWANCE_LINES_SHOWN = 3
"""Allowance lines on one granting message (each a section with its Revoke button)."""
LINE_CHARS = SECTION_TEXT // 10
REPORT_TEXT = 3_000
HOME_SHOWN = 5
"""Allowances listed in each App Home section (the tab holds at most 100 blocks)."""
RULE_CHARS = 60
OFFER_SCOPES: dict[str, AllowanceScope] = {
    OverflowValue.ALLOW_FOR_RUN.value: "run",
    OverflowValue.ALLOW_FOR_HOUR.value: "tool",
}
"""The overflow choices that grant an allowance, and the scope each asks for."""
TOOL_SCOPE_SECONDS = 3600.0
"""How long a `tool` allowance lasts, unless the rule's `max` is shorter."""

NOT_OFFERED_TEXT = "Standing approvals aren't allowed for this one (any more): nothing was sent."
NOTHING_TO_REVOKE_TEXT = "That allowance has already ended."
NOT_YOURS_TEXT = (
    "Only the person who granted it, or someone who may decide under its rule, can revoke it."
)
NOT_GRANTED_TEXT = "The standing approval you asked for was not granted."
REVOKED_TEXT = "Revoked: the next matching approval is posted as usual."

YOUR_HEADER = "Your allowances"
TEAM_HEADER = "Allowances in your team's rules"
NONE_YOURS = "You have no standing approvals in force."
NONE_TEAM = "No standing approvals are in force in the rules you decide."


@dataclass(frozen=True)
class StandingOffer:
    """What an approval's rule lets a decider allow: the scopes, and the longest time."""

    scopes: tuple[AllowanceScope, ...]
    max_seconds: float

    def seconds_for(self, scope: AllowanceScope) -> float:
        if scope == "tool":
            return min(TOOL_SCOPE_SECONDS, self.max_seconds)
        return self.max_seconds


def _tool(name: str) -> str:
    return inline_code(name, TOOL_CHARS)


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes >= 60 and minutes % 60 == 0:
        hours = minutes // 60
        return "1 hour" if hours == 1 else f"{hours} hours"
    if minutes >= 1:
        return f"{minutes} min"
    return f"{int(seconds)} s"


def offer_options(tool_name: str | None, offer: StandingOffer | None) -> list[dict[str, Any]]:
    """The overflow's *Approve, and allow …* choices the rule offers (none without a tool)."""
    if offer is None or not tool_name:
        return []
    tool = truncate(tool_name, TOOL_LABEL_CHARS)
    options = []
    if "run" in offer.scopes:
        options.append((RUN_LABEL.format(tool=tool), OverflowValue.ALLOW_FOR_RUN))
    if "tool" in offer.scopes:
        duration = _duration(offer.seconds_for("tool"))
        options.append(
            (TOOL_LABEL.format(tool=tool, duration=duration), OverflowValue.ALLOW_FOR_HOUR)
        )
    return [
        {"text": plain_text(label, OPTION_TEXT, emoji=False), "value": value.value}
        for label, value in options
    ]


def _scope_words(allowance: Allowance) -> str:
    return "for this run" if allowance.scope == "run" else "for any run of this agent"


def allowance_line(allowance: Allowance, now: datetime) -> str:
    """`🔓 @alice allowed deploy_status for this run, until 15:00`, or how it ended."""
    who = f"<@{allowance.granted_by.user_id}>"
    tool = _tool(allowance.tool_name)
    until = date_token(allowance.until, "{time}")
    if allowance.in_force(now):
        return f"{OPEN_ICON}{who} allowed {tool} {_scope_words(allowance)}, until {until}"
    ended = allowance.ended
    if ended == "revoked":
        why = f"revoked by <@{allowance.ended_by}>" if allowance.ended_by else "revoked"
    elif ended == "policy":
        why = "ended: the policy no longer allows it"
    elif ended == "refused":
        why = "was not granted: Novo did not take the approval"
    else:
        why = f"expired at {until}"
    return f"{ENDED_ICON}{who}'s allowance of {tool} {_scope_words(allowance)} {why}"


def revoke_button(allowance: Allowance) -> dict[str, Any]:
    return {
        "type": "button",
        "action_id": ActionId.REVOKE_ALLOWANCE.value,
        "text": plain_text(REVOKE_LABEL, BUTTON_TEXT),
        "value": str(allowance.id),
    }


def allowance_blocks(allowances: Sequence[Allowance], now: datetime) -> list[dict[str, Any]]:
    """One section per allowance granted on the message (newest shown), Revoke beside
    each in force."""
    blocks = []
    for allowance in list(allowances)[-ALLOWANCE_LINES_SHOWN:]:
        block: dict[str, Any] = {
            "type": "section",
            "block_id": f"novo_allowance:{allowance.id}",
            "text": mrkdwn(allowance_line(allowance, now), LINE_CHARS),
        }
        if allowance.in_force(now):
            block["accessory"] = revoke_button(allowance)
        blocks.append(block)
    return blocks


def report_text(uses: Sequence[AllowanceUse], granter: str) -> str:
    """One poll's uses of an allowance, as one thread reply in the granting message."""
    lines = [
        f"{USED_ICON}{_tool(u.tool_name)} ({inline_code(u.run_id)}, step {u.step_number})"
        f" approved under <@{granter}>'s allowance"
        for u in uses
    ]
    return truncate("\n".join(lines), REPORT_TEXT)


def granted_text(allowance: Allowance) -> str:
    """What the granter is told once the approval went and the allowance holds."""
    until = date_token(allowance.until, "{time}")
    return (
        f"Approved. {_tool(allowance.tool_name)} is allowed {_scope_words(allowance)}"
        f" until {until}: matching approvals are approved for you and reported in this"
        " thread. Revoke it from the message or your App Home."
    )


def home_allowance_blocks(
    name: str, header: str, empty: str, allowances: Sequence[Allowance], now: datetime
) -> list[dict[str, Any]]:
    """A Home section listing allowances in force, each with Revoke."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "block_id": f"novo_home_{name}", "text": plain_text(header, 150)}
    ]
    shown = [a for a in allowances if a.in_force(now)]
    if not shown:
        blocks.append(
            {
                "type": "context",
                "block_id": f"novo_home_{name}_none",
                "elements": [mrkdwn(empty, SECTION_TEXT)],
            }
        )
        return blocks
    for allowance in shown[:HOME_SHOWN]:
        rule = escape_mrkdwn(truncate(allowance.rule, RULE_CHARS))
        blocks.append(
            {
                "type": "section",
                "block_id": f"novo_home_{name}:{allowance.id}",
                "text": mrkdwn(f"{allowance_line(allowance, now)} · rule {rule}", LINE_CHARS),
                "accessory": revoke_button(allowance),
            }
        )
    if len(shown) > HOME_SHOWN:
        more = f"…and {len(shown) - HOME_SHOWN} more"
        blocks.append(
            {
                "type": "context",
                "block_id": f"novo_home_{name}_more",
                "elements": [mrkdwn(more, SECTION_TEXT)],
            }
        )
    return blocks
