"""The digest: one compact message summing up what happened since the previous one.

A manager reads it once a morning, so it says, in this order: how many were
decided and how (per rule, with the median and p90 time to a decision), each
one that expired unanswered with who had been asked (so nobody has to dig
for whom to talk to), what is still waiting now (oldest first, the ones
lapsing within the hour marked), and the agents and tools that waited longest.

It is one message whatever the volume: every list shows its first few and
"…and 37 more", and each part has a share of the text budget
(`limits.MESSAGE_TEXT_BUDGET`), so a busy day can never make Slack refuse it.
Agent-supplied text (titles, agent names, tool names) is escaped and cut;
links are Slack permalinks the bridge asked for. Pure: every fact, the time
included, comes in through `DigestFacts`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from bot.novo.models import Interaction, QuestionRequest
from bot.slack.limits import HEADER_TEXT, SECTION_TEXT
from bot.slack.render.approval import approval_title
from bot.slack.render.common import (
    clean_rendered,
    cut_words,
    date_token,
    escape_inline,
    inline_code,
    mrkdwn,
    plain_text,
)
from bot.slack.render.context import Nudge, RenderedMessage
from bot.slack.render.ending import TIME_FORMAT, waited
from bot.slack.render.question import question_title
from bot.slack.render.targets import slack_target

ICON = "📋"
TITLE = f"{ICON} Novo digest"
ICON_SOON = "⏳"
SOON = timedelta(hours=1)
"""A pending interaction expiring within this is marked: it needs someone today, now."""

ALL_RULES = "every rule (the digest names none)"
SHOWN_ITEMS = 10
"""Interactions listed per part; the service links at most this many per part."""
SHOWN_RULES = 15
SHOWN_WAITERS = 5
SHOWN_PEOPLE = 5
"""Deciders or escalation targets named per interaction before "and N more"."""
TITLE_CHARS = 80
NAME_CHARS = 60

CONTEXT_BUDGET = 400
DECIDED_BUDGET = 2_000
EXPIRED_BUDGET = 2_800
PENDING_BUDGET = 2_800
WAITERS_BUDGET = 1_200
ADVICE_BUDGET = 600
"""Shares of the message's text; with the header they stay under MESSAGE_TEXT_BUDGET."""

DECIDED_OUTCOMES = ("approved", "denied", "answered", "dismissed")
OUTCOME_ORDER = (*DECIDED_OUTCOMES, "expired", "cancelled", "gone")

METADATA_EVENT_TYPE = "novo_digest"
HEADER_BLOCK_ID = "novo_digest_header"
CONTEXT_BLOCK_ID = "novo_digest_since"
DECIDED_BLOCK_ID = "novo_digest_decided"
EXPIRED_BLOCK_ID = "novo_digest_expired"
PENDING_BLOCK_ID = "novo_digest_pending"
WAITERS_BLOCK_ID = "novo_digest_waiters"
TRAIL_BLOCK_ID = "novo_digest_trail"

_LINK_SAFE = re.compile(r"https?://[^\s<>|]+")


@dataclass(frozen=True)
class Asked:
    """Who an interaction was put to: where it was posted, who might decide, who was nudged."""

    where: str | None
    anyone: bool = True
    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    nudges: tuple[Nudge, ...] = ()


@dataclass(frozen=True)
class DigestItem:
    """One interaction the digest names; `link` is its message's permalink, if asked for."""

    interaction: Interaction
    asked: Asked | None = None
    link: str | None = None


@dataclass(frozen=True)
class RuleFigures:
    """How one rule's interactions ended: a count per outcome, and the time to a decision."""

    rule: str
    outcomes: Mapping[str, int]
    p50: float | None = None
    p90: float | None = None


@dataclass(frozen=True)
class Waiter:
    """An agent's tool by how long its interactions waited on people (seconds)."""

    agent_id: str
    tool_name: str
    longest: float
    asked: int
    still_waiting: int = 0


@dataclass(frozen=True)
class DigestFacts:
    """What a digest shows. `expired` and `pending` are oldest first, every one of
    them (the renderer shows the first few and counts the rest). `digest` (the
    entry's key) and `scheduled_for` name the message in its metadata."""

    digest: str
    scheduled_for: datetime
    now: datetime
    since: datetime
    figures: Sequence[RuleFigures] = ()
    expired: Sequence[DigestItem] = ()
    pending: Sequence[DigestItem] = ()
    waiters: Sequence[Waiter] = ()
    rules: tuple[str, ...] | None = None
    agent_names: Mapping[str, str] = field(default_factory=dict)
    advice: str | None = None
    """The top proposal of `novo-slack policy advise` for the rules it covers."""
    trail_head: tuple[int, str] | None = None
    """The audit chain's newest event (id, hash): posted here, it pins the trail."""


def _inline(text: str, limit: int) -> str:
    """Agent text shown inside our mrkdwn: one line, escaped, at most `limit` characters
    once escaped (an `&` takes five), cut at a word break where there is one."""
    words = " ".join(text.split())
    room = limit
    while True:
        shown = escape_inline(cut_words(words, room))
        if len(shown) <= limit or room <= 1:
            return shown
        room = max(1, room - (len(shown) - limit))


def _title(interaction: Interaction) -> str:
    if interaction.kind == "question":
        title = question_title(interaction.request or QuestionRequest())
    else:
        title = approval_title(interaction)
    return f"*{_inline(title, TITLE_CHARS)}*"


def _agent(agent_id: str, facts: DigestFacts) -> str:
    """The agent by the name people know it by, else its id as code."""
    name = facts.agent_names.get(agent_id)
    if name and name.strip():
        return _inline(name, NAME_CHARS)
    return inline_code(agent_id, NAME_CHARS)


def _link(item: DigestItem) -> str:
    if item.link is None or _LINK_SAFE.fullmatch(item.link) is None:
        return ""
    return f" · <{item.link}|Open>"


def _some(names: Sequence[str], last: str = " or ") -> str:
    """The first few names, "a, b or c", "a, b, c, d, e or 3 more"."""
    shown = list(names[:SHOWN_PEOPLE])
    if len(names) > SHOWN_PEOPLE:
        shown.append(f"{len(names) - SHOWN_PEOPLE} more")
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + last + shown[-1]


def _asked_text(asked: Asked) -> str:
    """ "asked in #approvals (@ada or members of @sre); reminded 14:00; escalated to
    @boss 14:01": where it was posted, who might decide, and every nudge sent."""
    text = f"asked in {slack_target(asked.where)}" if asked.where else "asked"
    if not asked.anyone:
        people = [f"<@{user}>" for user in asked.users]
        people += [f"members of <!subteam^{group}>" for group in asked.groups]
        text += f" ({_some(people)})" if people else ""
    reminded = [date_token(n.at, TIME_FORMAT) for n in asked.nudges if n.kind == "remind"]
    if reminded:
        text += "; reminded " + _some(reminded, last=", ")
    for nudge in asked.nudges:
        if nudge.kind == "escalate":
            targets = _some([slack_target(t) for t in nudge.to]) or "nobody"
            text += f"; escalated to {targets} {date_token(nudge.at, TIME_FORMAT)}"
    if not asked.nudges:
        text += "; nobody was reminded"
    return text


def _expired_line(item: DigestItem, facts: DigestFacts) -> str:
    interaction = item.interaction
    at = interaction.expires_at or interaction.resolved_at or interaction.updated_at
    after = waited((at - interaction.created_at).total_seconds())
    line = f"• {_title(interaction)} from {_agent(interaction.agent_id, facts)}"
    line += f" — expired {date_token(at)} after {after}"
    if item.asked is not None:
        line += f"; {_asked_text(item.asked)}"
    return line + _link(item)


def _pending_line(item: DigestItem, facts: DigestFacts) -> str:
    interaction = item.interaction
    line = f"• {_title(interaction)} from {_agent(interaction.agent_id, facts)}"
    line += f" — waiting {waited((facts.now - interaction.created_at).total_seconds())}"
    expires = interaction.expires_at
    if expires is None:
        line += ", no deadline"
    elif expires - facts.now <= SOON:
        left = waited(max(0.0, (expires - facts.now).total_seconds()))
        line += f", {ICON_SOON} *expires {date_token(expires, TIME_FORMAT)} (in {left})*"
    else:
        line += f", expires {date_token(expires)}"
    return line + _link(item)


def _bounded(head: str, lines: Sequence[str], total: int, budget: int) -> str:
    """`head` and as many of `lines` as fit in `budget`, then "…and N more" for the rest
    of `total` (which may count items no line was made for)."""
    text = head
    shown = 0
    for line in lines:
        more = total - shown - 1
        reserve = len(f"\n…and {more} more") if more else 0
        if len(text) + 1 + len(line) + reserve > budget:
            break
        text += "\n" + line
        shown += 1
    if total > shown:
        text += f"\n…and {total - shown} more"
    return text


def _count(outcomes: Mapping[str, int], names: Sequence[str]) -> str:
    return ", ".join(f"{outcomes[name]} {name}" for name in names if outcomes.get(name))


def _rule_line(figures: RuleFigures) -> str:
    known = [o for o in OUTCOME_ORDER if figures.outcomes.get(o)]
    others = sorted(o for o in figures.outcomes if o not in OUTCOME_ORDER and figures.outcomes[o])
    line = f"• {inline_code(figures.rule, NAME_CHARS)}: {_count(figures.outcomes, known + others)}"
    if figures.p50 is not None and figures.p90 is not None:
        line += f" · time to decision: median {waited(figures.p50)}, p90 {waited(figures.p90)}"
    return line


def _decided_text(facts: DigestFacts) -> str:
    totals: dict[str, int] = {}
    for figures in facts.figures:
        for outcome, count in figures.outcomes.items():
            totals[outcome] = totals.get(outcome, 0) + count
    decided = sum(totals.get(o, 0) for o in DECIDED_OUTCOMES)
    if not facts.figures:
        return "*Decided: 0* — nothing ended since then."
    head = f"*Decided: {decided}*"
    if decided:
        head += f" — {_count(totals, DECIDED_OUTCOMES)}"
    head += "\nBy rule:"
    lines = [_rule_line(f) for f in facts.figures[:SHOWN_RULES]]
    return _bounded(head, lines, len(facts.figures), DECIDED_BUDGET)


ItemLine = Callable[[DigestItem, DigestFacts], str]


def _list_text(
    head: str, items: Sequence[DigestItem], line: ItemLine, facts: DigestFacts, budget: int
) -> str:
    lines = [line(item, facts) for item in items[:SHOWN_ITEMS]]
    return _bounded(head, lines, len(items), budget)


def _waiters_text(facts: DigestFacts) -> str:
    lines = []
    for waiter in facts.waiters[:SHOWN_WAITERS]:
        who = _agent(waiter.agent_id, facts)
        line = f"• {who} · {inline_code(waiter.tool_name, NAME_CHARS)}: {waited(waiter.longest)}"
        line += f" at most ({waiter.asked} asked"
        line += f", {waiter.still_waiting} still waiting)" if waiter.still_waiting else ")"
        lines.append(line)
    return _bounded("*Waited longest*", lines, len(facts.waiters), WAITERS_BUDGET)


def _context_text(facts: DigestFacts) -> str:
    """The period, and which rules the digest is about: those its entry names, or, when it
    names none, every rule (said, so a reader never takes one for the other)."""
    text = f"Since {date_token(facts.since)}"
    if facts.rules is None:
        return text + f" · {ALL_RULES}"
    shown = ", ".join(inline_code(rule, NAME_CHARS) for rule in facts.rules[:SHOWN_RULES])
    more = len(facts.rules) - SHOWN_RULES
    return text + f" · rules {shown}" + (f" and {more} more" if more > 0 else "")


def _section(block_id: str, text: str) -> dict[str, Any]:
    return {"type": "section", "block_id": block_id, "text": mrkdwn(text, SECTION_TEXT)}


def _trail_lines(facts: DigestFacts) -> list[str]:
    """The advice (its tool names are the agent's text: escaped) and the chain's head."""
    lines = []
    if facts.advice:
        advice = _inline(facts.advice, ADVICE_BUDGET)
        lines.append(f"💡 {advice} · `novo-slack policy advise` has the figures")
    if facts.trail_head is not None:
        number, digest = facts.trail_head
        lines.append(f"Audit trail head: event #{number}, `{digest}`")
    return lines


def render_digest(facts: DigestFacts) -> RenderedMessage:
    """The digest message: header, period, decided, expired, pending now, longest waits."""
    decided = sum(f.outcomes.get(o, 0) for f in facts.figures for o in DECIDED_OUTCOMES)
    blocks: list[dict[str, Any]] = [
        {"type": "header", "block_id": HEADER_BLOCK_ID, "text": plain_text(TITLE, HEADER_TEXT)},
        {
            "type": "context",
            "block_id": CONTEXT_BLOCK_ID,
            "elements": [mrkdwn(_context_text(facts), CONTEXT_BUDGET)],
        },
        _section(DECIDED_BLOCK_ID, _decided_text(facts)),
    ]
    if facts.expired:
        head = f"*Expired: {len(facts.expired)}*"
        text = _list_text(head, facts.expired, _expired_line, facts, EXPIRED_BUDGET)
    else:
        text = "*Expired: 0*"
    blocks.append(_section(EXPIRED_BLOCK_ID, text))
    if facts.pending:
        soon = sum(
            1
            for item in facts.pending
            if item.interaction.expires_at is not None
            and item.interaction.expires_at - facts.now <= SOON
        )
        head = f"*Pending now: {len(facts.pending)}*"
        head += f" ({soon} expiring within the hour)" if soon else ""
        head += ", oldest first"
        text = _list_text(head, facts.pending, _pending_line, facts, PENDING_BUDGET)
    else:
        text = "*Pending now: 0* — nothing is waiting."
    blocks.append(_section(PENDING_BLOCK_ID, text))
    if facts.waiters:
        blocks.append(_section(WAITERS_BLOCK_ID, _waiters_text(facts)))
    trail = _trail_lines(facts)
    if trail:
        blocks.append(
            {
                "type": "context",
                "block_id": TRAIL_BLOCK_ID,
                "elements": [mrkdwn("\n".join(trail), ADVICE_BUDGET + 200)],
            }
        )
    summary = (
        f"{TITLE}: {decided} decided, {len(facts.expired)} expired,"
        f" {len(facts.pending)} pending now"
    )
    metadata = {
        "event_type": METADATA_EVENT_TYPE,
        "event_payload": {
            "digest": facts.digest,
            "scheduled_for": facts.scheduled_for.isoformat(),
        },
    }
    message: RenderedMessage = {"text": summary, "blocks": blocks, "metadata": metadata}
    return cast(RenderedMessage, clean_rendered(message))
