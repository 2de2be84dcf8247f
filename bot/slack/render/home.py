"""The App Home tab: what waits on this person, the team's queue, what they decided lately.

Three sections, top to bottom:

* **Waiting on you** — interactions the policy lets this person decide,
  soonest expiry first, each with a link to its message and *the message's
  own actions block*: same block id, action ids and values, so the listeners
  that serve the message serve the tab, with the same checks and outcome.
  The block is taken from the message as rendered (:func:`message_actions`),
  never built twice.
* **Your team's queue** — open interactions counted per destination and
  rule, the next to expire named.
* **Recently decided by you** — newest first, each with its message's link.

Each section is capped and says how many more there are, so the tab stays
within Slack's 100 blocks however much is open. Nothing here reads the clock
or Slack: the caller hands in `now` and the links. Nothing shown changes with
time except the coarse countdown words, so the tab's hash (the
:func:`view_fingerprint`) only changes when something in it does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.domain import Allowance, SlackDecision
from bot.novo.models import Interaction
from bot.slack.limits import HEADER_TEXT, SECTION_TEXT
from bot.slack.render.allowance import (
    NONE_TEAM,
    NONE_YOURS,
    TEAM_HEADER,
    YOUR_HEADER,
    home_allowance_blocks,
)
from bot.slack.render.approval import HEADER_ICON as APPROVAL_ICON
from bot.slack.render.approval import approval_actions_block_id, approval_title
from bot.slack.render.common import (
    clean_rendered,
    date_token,
    escape_inline,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
    relative_deadline,
    truncate,
)
from bot.slack.render.context import RenderedMessage
from bot.slack.render.question import HEADER_ICON as QUESTION_ICON
from bot.slack.render.question import question_title
from bot.slack.render.question_buttons import question_actions_block_id
from bot.slack.render.status import ICON_DONE, deadline_text, outcome_words

WAITING_SHOWN = 15
"""Cards shown under "Waiting on you" (three blocks each: text, buttons, divider)."""
QUEUE_SHOWN = 20
DECIDED_SHOWN = 10
TITLE_CHARS = 100
RULE_CHARS = 60
VERB_CHARS = 100
WHERE_CHARS = 80
NOTE_TEXT = 300

WAITING_HEADER = "Waiting on you"
QUEUE_HEADER = "Your team's queue"
DECIDED_HEADER = "Recently decided by you"
NOTHING_WAITING = "Nothing is waiting on you right now."
NOTHING_QUEUED = "Nothing is waiting on anyone."
NOTHING_DECIDED = "You haven't decided anything in Slack yet."
OPEN_TO_DECIDE = "Open the message to decide."
OTHER_ICON = "📨 "

_BLOCK = "novo_home_"


@dataclass(frozen=True)
class WaitingItem:
    """Something this person may decide now. `where` is its destination as the policy
    named it (a channel, or a user for a DM); `actions` the message's own actions
    block(s), empty when the message offers no buttons (a kind the bridge can't show)."""

    interaction: Interaction
    where: str
    actions: tuple[dict[str, Any], ...] = ()
    link: str | None = None


@dataclass(frozen=True)
class QueueEntry:
    """Open interactions of one rule in one destination; `next_up` expires first."""

    where: str
    rule: str
    count: int
    next_up: Interaction


@dataclass(frozen=True)
class DecidedItem:
    interaction: Interaction
    decision: SlackDecision
    where: str
    link: str | None = None


@dataclass(frozen=True)
class HomeFacts:
    now: datetime
    waiting: Sequence[WaitingItem] = ()
    queue: Sequence[QueueEntry] = ()
    decided: Sequence[DecidedItem] = ()
    allowances: Sequence[Allowance] = ()
    """This person's standing approvals in force."""
    team_allowances: Sequence[Allowance] = ()
    """Others' standing approvals in force under rules this person may decide."""


def message_actions(interaction_id: str, message: RenderedMessage) -> tuple[dict[str, Any], ...]:
    """The interaction's actions block from its rendered message (none once it ended)."""
    wanted = {approval_actions_block_id(interaction_id), question_actions_block_id(interaction_id)}
    return tuple(
        block
        for block in message["blocks"]
        if block.get("type") == "actions" and block.get("block_id") in wanted
    )


def expiry_order(interaction: Interaction) -> tuple[bool, datetime, datetime, str]:
    """Soonest expiry first; those without a deadline last, oldest first."""
    expires = interaction.expires_at
    return (
        expires is None,
        expires or interaction.created_at,
        interaction.created_at,
        interaction.id,
    )


def home_title(interaction: Interaction, limit: int = TITLE_CHARS) -> str:
    """What is asked, in plain words, as its message's header says it."""
    if interaction.kind == "approval_request":
        return approval_title(interaction, limit)
    if interaction.kind == "question" and interaction.request is not None:
        return question_title(interaction.request, limit)
    return truncate(f"A {' '.join(interaction.kind.split()) or 'new'} interaction", limit)


def render_home(facts: HomeFacts) -> dict[str, Any]:
    """The whole Home view, re-rendered from the facts each time."""
    blocks = [
        *_waiting_blocks(facts),
        _divider("queue"),
        *_queue_blocks(facts),
        _divider("decided"),
        *_decided_blocks(facts),
    ]
    if facts.allowances or facts.team_allowances:
        blocks += [
            _divider("allowances"),
            *home_allowance_blocks(
                "allowances", YOUR_HEADER, NONE_YOURS, facts.allowances, facts.now
            ),
            *home_allowance_blocks(
                "team_allowances", TEAM_HEADER, NONE_TEAM, facts.team_allowances, facts.now
            ),
        ]
    return dict(clean_rendered({"type": "home", "blocks": blocks}))


def view_fingerprint(view: dict[str, Any]) -> str:
    """A stable hash of what a view shows: an unchanged tab is never published again."""
    canonical = json.dumps(view, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------- sections


def _waiting_blocks(facts: HomeFacts) -> list[dict[str, Any]]:
    waiting = sorted(facts.waiting, key=lambda w: expiry_order(w.interaction))
    count = f" · {len(waiting)}" if waiting else ""
    blocks = [_header("waiting", WAITING_HEADER + count)]
    if not waiting:
        return [*blocks, _note("waiting_none", NOTHING_WAITING)]
    for index, item in enumerate(waiting[:WAITING_SHOWN]):
        if index:
            blocks.append(_divider(f"card{index}"))
        blocks.append(_card(item, facts.now))
        blocks.extend(item.actions)
    hidden = len(waiting) - WAITING_SHOWN
    if hidden > 0:
        blocks.append(_note("waiting_more", f"…and {hidden} more waiting on you."))
    return blocks


def _card(item: WaitingItem, now: datetime) -> dict[str, Any]:
    interaction = item.interaction
    lines = [
        f"{_icon(interaction)}*{_linked(home_title(interaction), item.link)}*",
        f"{_where(item.where)} · {deadline_text(interaction, now)}",
    ]
    if not item.actions:
        lines.append(f"_{OPEN_TO_DECIDE}_")
    return {
        "type": "section",
        "block_id": f"{_BLOCK}card:{interaction.id}",
        "text": mrkdwn("\n".join(lines), SECTION_TEXT),
    }


def _queue_blocks(facts: HomeFacts) -> list[dict[str, Any]]:
    entries = sorted(facts.queue, key=lambda e: (expiry_order(e.next_up), e.where, e.rule))
    total = sum(e.count for e in entries)
    blocks = [_header("queue", QUEUE_HEADER + (f" · {total}" if total else ""))]
    if not entries:
        return [*blocks, _note("queue_none", NOTHING_QUEUED)]
    lines = [_queue_line(e, facts.now) for e in entries[:QUEUE_SHOWN]]
    hidden = len(entries) - QUEUE_SHOWN
    if hidden > 0:
        lines.append(f"_…and {hidden} more {'queue' if hidden == 1 else 'queues'}._")
    return [*blocks, *_packed(lines, "queue")]


def _queue_line(entry: QueueEntry, now: datetime) -> str:
    rule = escape_inline(truncate(" ".join(entry.rule.split()), RULE_CHARS))
    nxt = entry.next_up
    when = (
        f"expires {date_token(nxt.expires_at)} ({relative_deadline(nxt.expires_at, now)})"
        if nxt.expires_at is not None
        else "no deadline"
    )
    title = escape_inline(home_title(nxt))
    return (
        f"• {_where(entry.where)} · rule _{rule}_ — *{entry.count}* waiting · next: {title}, {when}"
    )


def _decided_blocks(facts: HomeFacts) -> list[dict[str, Any]]:
    blocks = [_header("decided", DECIDED_HEADER)]
    if not facts.decided:
        return [*blocks, _note("decided_none", NOTHING_DECIDED)]
    lines = [_decided_line(item) for item in facts.decided[:DECIDED_SHOWN]]
    return [*blocks, *_packed(lines, "decided")]


def _decided_line(item: DecidedItem) -> str:
    interaction = item.interaction
    icon = outcome_words(interaction)[0] if interaction.status != "pending" else ICON_DONE
    verb = escape_mrkdwn(truncate(item.decision.verb, VERB_CHARS))
    title = _linked(home_title(interaction), item.link)
    return f"{icon} {verb} *{title}* · {date_token(item.decision.at)} · {_where(item.where)}"


# ---------------------------------------------------------------------- pieces


def _icon(interaction: Interaction) -> str:
    if interaction.kind == "approval_request":
        return APPROVAL_ICON
    if interaction.kind == "question":
        return QUESTION_ICON
    return OTHER_ICON


def _linked(title: str, link: str | None) -> str:
    shown = escape_inline(title)
    return f"<{escape_mrkdwn(link)}|{shown}>" if link else shown


def _where(destination: str) -> str:
    """A channel as Slack names it for the reader; a user's DM as theirs."""
    if destination.startswith(("U", "W")) and destination.isalnum():  # a route's `dm:` user
        return f"DM to <@{destination}>"
    if destination[:1] in ("C", "G") and destination.isalnum():
        return f"<#{destination}>"
    return escape_inline(truncate(destination, WHERE_CHARS))


def _packed(lines: list[str], name: str) -> list[dict[str, Any]]:
    """Lines in as few sections as fit (each line is far shorter than a section)."""
    texts: list[str] = []
    for line in lines:
        if texts and len(texts[-1]) + 1 + len(line) <= SECTION_TEXT:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
    return [
        {
            "type": "section",
            "block_id": f"{_BLOCK}{name}:{index}",
            "text": mrkdwn(text, SECTION_TEXT),
        }
        for index, text in enumerate(texts)
    ]


def _header(name: str, text: str) -> dict[str, Any]:
    return {"type": "header", "block_id": f"{_BLOCK}{name}", "text": plain_text(text, HEADER_TEXT)}


def _note(name: str, text: str) -> dict[str, Any]:
    return {"type": "context", "block_id": f"{_BLOCK}{name}", "elements": [mrkdwn(text, NOTE_TEXT)]}


def _divider(name: str) -> dict[str, Any]:
    return {"type": "divider", "block_id": f"{_BLOCK}divider_{name}"}
