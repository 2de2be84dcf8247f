"""What `/novo` answers, as ephemeral messages: the help, a pending list, stats.

Only the person who typed the command sees these, so they speak to "you".
They are pure functions of what the command service found (no clock, no
Slack): the pending list gets each interaction and the link to its message,
the stats the figures of `services.reports`. Agent text (titles, names, tool
names, ids) and what the person typed are escaped as everywhere else, and
every answer passes through `clean_rendered` once, on its way out.

A pending list is short on purpose (`LIST_LIMIT` cards): it is read in a
glance, soonest to expire first, and what is left is counted with the way to
narrow it. The card of any one is `/novo show <id>`, which is why each line
shows its id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, cast

from bot.novo.models import Interaction
from bot.slack.command_text import COMMAND, WINDOWS
from bot.slack.limits import HEADER_TEXT, SECTION_TEXT
from bot.slack.render.approval import approval_title
from bot.slack.render.common import (
    clean_rendered,
    escape_inline,
    escape_mrkdwn,
    inline_code,
    mrkdwn,
    plain_text,
    truncate,
)
from bot.slack.render.context import MessageContext
from bot.slack.render.ending import waited
from bot.slack.render.preview import humanize_tool
from bot.slack.render.question import question_title
from bot.slack.render.record import asker
from bot.slack.render.status import ICON_PENDING, deadline_text

LIST_LIMIT = 10
"""Cards a pending list shows; the rest are counted. Each costs a link, and a list
longer than this is scrolled past, not read."""
STATS_RULES = 40
"""Rules the stats show one by one; a policy with more is counted past them."""
TITLE_CHARS = 120
TYPED_CHARS = 100
"""What the person typed, shown back: cut, it still says what was not understood."""

OUTCOME_LABELS = {
    "approved": "Approved",
    "denied": "Denied",
    "answered": "Answered",
    "dismissed": "Dismissed",
    "cancelled": "Cancelled",
    "expired": "Expired",
    "gone": "Gone from Novo",
}
ALL_RULES = "All rules"
NO_WAITS = "nobody decided one"
SLOW_TEXT = (
    "Slack was slow to confirm what you may decide, so this list may be missing some."
    " Try again in a moment."
)
NOT_SHOWN_TEXT = "Only the people who may decide it can open it here."
ABOUT_TIMES = (
    "Time to decision runs from when the agent asked to when it was decided."
    " Rules are named as the policy in force names them."
)


class CommandMessage(TypedDict):
    """What a response_url takes for an ephemeral answer."""

    text: str
    blocks: list[dict[str, Any]]


@dataclass(frozen=True)
class PendingLine:
    """One interaction of a pending list and the link to its message (None: no link for you)."""

    interaction: Interaction
    link: str | None


class RuleFigures(Protocol):
    """The figures of one rule (`services.reports.RuleStats` has them)."""

    @property
    def rule(self) -> str: ...
    @property
    def outcomes(self) -> Mapping[str, int]: ...
    @property
    def ended(self) -> int: ...
    @property
    def p50(self) -> float | None: ...
    @property
    def p90(self) -> float | None: ...
    @property
    def expiry_rate(self) -> float: ...


def _message(text: str, blocks: list[dict[str, Any]]) -> CommandMessage:
    return cast(CommandMessage, clean_rendered({"text": text, "blocks": blocks}))


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": mrkdwn(text, SECTION_TEXT)}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [mrkdwn(text, SECTION_TEXT)]}


def _typed(text: str) -> str:
    return inline_code(truncate(" ".join(text.split()), TYPED_CHARS))


# ---------------------------------------------------------------------- help


def help_message(not_understood: str | None = None) -> CommandMessage:
    """Every subcommand in a line; with what was not understood, said first."""
    windows = "|".join(WINDOWS)
    lines = [
        f"`{COMMAND} pending [text]` — what you can decide now, soonest to expire first;"
        " `text` keeps those whose agent or tool name contains it",
        f"`{COMMAND} show &lt;id&gt;` — one request's card, buttons included",
        f"`{COMMAND} stats [{windows}]` — how decisions went, by policy rule (the last 24 hours"
        " unless you say)",
        f"`{COMMAND} help` — this list",
    ]
    blocks = []
    text = f"What {COMMAND} can do"
    if not_understood is not None:
        blocks.append(_section(f"I don't know {_typed(not_understood)}. Here is what I do know:"))
        text = f"I don't know that. {text}"
    blocks.append(_section("\n".join(f"• {line}" for line in lines)))
    blocks.append(_context("Only you see these answers."))
    return _message(text, blocks)


# ---------------------------------------------------------------------- pending


def _title(interaction: Interaction) -> str:
    if interaction.kind == "approval_request":
        return approval_title(interaction, TITLE_CHARS)
    if interaction.kind == "question" and interaction.request is not None:
        return question_title(interaction.request, TITLE_CHARS)
    return humanize_tool(interaction.tool_name) or "Request"


def _pending_block(line: PendingLine, ctx: MessageContext) -> dict[str, Any]:
    interaction = line.interaction
    title = escape_inline(_title(interaction))
    if line.link is not None:
        title = f"<{escape_mrkdwn(line.link)}|{title}>"
    status = (
        f"{ICON_PENDING} Asked by {asker(interaction, ctx)} · {deadline_text(interaction, ctx.now)}"
    )
    ids = [f"Id {inline_code(interaction.id)}"]
    if interaction.kind == "approval_request":
        ids.insert(0, f"Tool {inline_code(interaction.tool_name)}")
    return _section(f"*{title}*\n{status}\n{' · '.join(ids)}")


def _words(words: Sequence[str]) -> str:
    return " ".join(inline_code(w) for w in words)


def pending_message(
    lines: Sequence[PendingLine],
    total: int,
    words: Sequence[str],
    ctx: MessageContext,
    *,
    complete: bool = True,
) -> CommandMessage:
    """The first `lines` of the `total` the caller may decide (matching `words`), in order.

    `ctx` gives `now` (the countdowns) and the configured agent names;
    `complete` False says Slack was too slow to confirm them all.
    """
    if total == 0:
        if not complete:
            text = SLOW_TEXT
        elif words:
            text = f"Nothing you can decide matches {_words(words)}."
        else:
            text = "Nothing is waiting for you to decide."
        return _message(text, [_section(text)])
    noun = "request" if total == 1 else "requests"
    intro = f"*{total} {noun} you can decide*"
    if words:
        intro += f", matching {_words(words)}"
    intro += ", soonest to expire first" if total > 1 else ""
    blocks = [_section(intro), {"type": "divider"}]
    blocks.extend(_pending_block(line, ctx) for line in lines[:LIST_LIMIT])
    more = total - min(len(lines), LIST_LIMIT)
    if more > 0:
        blocks.append(
            _context(
                f"…and {more} more, later to expire. Narrow the list:"
                f" `{COMMAND} pending &lt;agent or tool&gt;`."
            )
        )
    if not complete:
        blocks.append(_context(SLOW_TEXT))
    blocks.append(_context(f"Open any one here with `{COMMAND} show &lt;id&gt;`."))
    return _message(f"{total} {noun} you can decide", blocks)


# ---------------------------------------------------------------------- show


def show_which_message() -> CommandMessage:
    text = f"Which one? Give its id: `{COMMAND} show int_…` (`{COMMAND} pending` lists them)."
    return _message(text, [_section(text)])


def not_found_message(interaction_id: str) -> CommandMessage:
    text = (
        f"No request {inline_code(interaction_id)} is known here: check the id"
        f" (`{COMMAND} pending` lists what you can decide)."
    )
    return _message(text, [_section(text)])


def not_shown_message(interaction_id: str) -> CommandMessage:
    text = f"{inline_code(interaction_id)} isn't shown to you. {NOT_SHOWN_TEXT}"
    return _message(text, [_section(text)])


# ---------------------------------------------------------------------- stats


def _outcomes_line(figures: RuleFigures) -> str:
    known = [k for k in OUTCOME_LABELS if figures.outcomes.get(k)]
    others = sorted(k for k in figures.outcomes if k not in OUTCOME_LABELS and figures.outcomes[k])
    parts = [f"{OUTCOME_LABELS[k]} {figures.outcomes[k]}" for k in known]
    parts += [f"{escape_mrkdwn(k)} {figures.outcomes[k]}" for k in others]
    return " · ".join(parts)


def _times_line(figures: RuleFigures) -> str:
    if figures.p50 is None or figures.p90 is None:
        times = f"Time to decision: {NO_WAITS}"
    else:
        times = f"Time to decision: p50 {waited(figures.p50)} · p90 {waited(figures.p90)}"
    return f"{times} · Expiry rate {figures.expiry_rate:.0%}"


def _rule_block(figures: RuleFigures, name: str) -> dict[str, Any]:
    lines = [f"*{name}* — {figures.ended} ended", _outcomes_line(figures), _times_line(figures)]
    return _section("\n".join(lines))


def stats_message(
    by_rule: Sequence[RuleFigures], overall: RuleFigures | None, window: str
) -> CommandMessage:
    """Per rule: outcomes, p50/p90 time to decision, expiry rate; first all rules together
    when there are several. `window` is the period in words ("24 hours")."""
    title = f"Decisions in the last {window}"
    header = {"type": "header", "text": plain_text(title, HEADER_TEXT)}
    if not by_rule:
        text = f"Nothing ended in the last {window}."
        return _message(text, [header, _section(text)])
    blocks: list[dict[str, Any]] = [header]
    total = sum(f.ended for f in by_rule)
    if overall is not None and len(by_rule) > 1:
        blocks.append(_rule_block(overall, ALL_RULES))
        blocks.append({"type": "divider"})
    blocks.extend(_rule_block(f, escape_inline(f.rule)) for f in by_rule[:STATS_RULES])
    hidden = by_rule[STATS_RULES:]
    if hidden:
        count = sum(f.ended for f in hidden)
        blocks.append(_context(f"…and {len(hidden)} more rules ({count} ended)."))
    blocks.append(_context(ABOUT_TIMES))
    return _message(f"{title}: {total} ended", blocks)
