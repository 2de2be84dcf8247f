"""Who asks, which run it is, and the way to the whole record.

A reader glancing at a message wants the agent by the name people know it by
and, at most, a link to the run; the ids (root run, worker, thread) matter
when something is looked into. So a pending message carries one short
details line (:func:`context_block`), an ended one a *Details* button
(:func:`details_block`) that opens every id (:func:`record_lines`) with the
full input or request.

Names come from the operator's configuration through ``MessageContext``
(``agent_names``, ``run_link_template``); without it the ids are shown.

Block ids used here (``novo_context``, ``novo_details``) are reserved.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote as url_quote

from bot.novo.models import Interaction
from bot.redaction import hidden_count
from bot.slack.ids import ActionId
from bot.slack.limits import BUTTON_TEXT, BUTTON_URL
from bot.slack.render.common import (
    ID_DISPLAY_CHARS,
    ZERO_WIDTH_SPACE,
    cut_words,
    escape_mrkdwn,
    inline_code,
    mrkdwn,
    plain_text,
    truncate,
)
from bot.slack.render.context import MessageContext

CONTEXT_BLOCK_ID = "novo_context"
DETAILS_BLOCK_ID = "novo_details"
DETAILS_LABEL = "Details"
CONTEXT_TEXT = 800
"""The details line, or every id on one line; five capped ids and their labels fit within it."""
AGENT_NAME_CHARS = 80
"""An agent's configured name or id, cut at a word break."""

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
HIDDEN_ICON = "🔒"
_LINK_SAFE_URL = re.compile(r"https?://[^\s<>|]+")


def agent_name(interaction: Interaction, ctx: MessageContext) -> str | None:
    """The agent's configured name, raw, when the context knows one."""
    name = ctx.agent_names.get(interaction.agent_id)
    return name if name and name.strip() else None


def asker(interaction: Interaction, ctx: MessageContext) -> str:
    """Who asks, as mrkdwn: the configured name in bold, else the agent id as code."""
    name = agent_name(interaction, ctx)
    if name is None:
        return inline_code(interaction.agent_id)
    return f"*{escape_inline_name(name)}*"


def asker_plain(interaction: Interaction, ctx: MessageContext) -> str:
    """Who asks, escaped plain words for the notification line."""
    name = agent_name(interaction, ctx) or interaction.agent_id
    return escape_mrkdwn(cut_words(" ".join(name.split()), AGENT_NAME_CHARS))


def escape_inline_name(name: str) -> str:
    """A name inside bold: whole words, and no character of it can end the bold early."""
    shown = escape_mrkdwn(cut_words(" ".join(name.split()), AGENT_NAME_CHARS))
    for char in ("*", "_", "~", "`"):
        shown = shown.replace(char, char + ZERO_WIDTH_SPACE)
    return shown


def link_fields(interaction: Interaction) -> dict[str, str | int | None]:
    """The wire fields a link template may name: the record's ids, never agent data."""
    return {
        "id": interaction.id,
        "runId": interaction.run_id,
        "rootRunId": interaction.root_run_id,
        "workerRef": interaction.worker_ref,
        "threadId": interaction.thread_id,
        "agentId": interaction.agent_id,
        "kind": interaction.kind,
        "stepNumber": interaction.step_number,
        "toolName": interaction.tool_name,
        "toolCallId": interaction.tool_call_id,
        "hookId": interaction.hook_id,
    }


def run_url(interaction: Interaction, template: str | None) -> str | None:
    """The run's page in Novo from a template such as ``https://novo.example.com/runs/{runId}``.

    Placeholders name the interaction's wire fields (:func:`link_fields`); each value is
    percent-encoded whole, so an id can add no path, query or link syntax.
    None when there is no template, it is not http(s), or a placeholder names
    no field.
    """
    if not template:
        return None
    wire = link_fields(interaction)
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        value = wire.get(match.group(1))
        if not isinstance(value, str | int) or isinstance(value, bool) or value == "":
            missing = True
            return ""
        return url_quote(str(value), safe="")

    url = _PLACEHOLDER.sub(fill, template)
    if missing or len(url) > BUTTON_URL or not _LINK_SAFE_URL.fullmatch(url):
        return None
    return url


def _run_text(interaction: Interaction, ctx: MessageContext) -> str:
    url = run_url(interaction, ctx.run_link_template)
    if url is None:
        return f"Run {inline_code(interaction.run_id)}"
    label = escape_mrkdwn(truncate(" ".join(interaction.run_id.split()), ID_DISPLAY_CHARS))
    return f"Run <{escape_mrkdwn(url)}|{label or 'run'}>"


def context_block(interaction: Interaction, ctx: MessageContext) -> dict[str, Any]:
    """The short details line: tool, run (a link into Novo when configured), worker, step.

    The agent is named in the status line and the thread and root run are in
    the Details modal: a reader glancing at the message needs none of them.
    """
    parts = []
    if interaction.kind == "approval_request":
        parts.append(f"Tool {inline_code(interaction.tool_name)}")
    parts.append(_run_text(interaction, ctx))
    if interaction.worker_ref:
        parts.append(f"Worker {inline_code(interaction.worker_ref)}")
    parts.append(f"Step {interaction.step_number}")
    hidden = hidden_text(interaction)
    if hidden:
        parts.append(hidden)
    return {
        "type": "context",
        "block_id": CONTEXT_BLOCK_ID,
        "elements": [mrkdwn(" · ".join(parts), CONTEXT_TEXT)],
    }


def hidden_text(interaction: Interaction) -> str:
    """`🔒 2 values hidden` when the shown record had secrets masked, so a decider knows."""
    count = hidden_count(interaction)
    if count == 0:
        return ""
    return f"{HIDDEN_ICON} {count} value{'s' if count != 1 else ''} hidden"


def record_lines(interaction: Interaction, ctx: MessageContext | None = None) -> list[str]:
    """Every id of the record, one labelled mrkdwn line each: agent, run, root run, worker…"""
    name = agent_name(interaction, ctx) if ctx is not None else None
    agent = inline_code(interaction.agent_id)
    lines = [f"Agent {'*' + escape_inline_name(name) + '* ' + agent if name else agent}"]
    lines.append(_run_text(interaction, ctx) if ctx else f"Run {inline_code(interaction.run_id)}")
    if interaction.root_run_id != interaction.run_id:
        lines.append(f"Root run {inline_code(interaction.root_run_id)}")
    if interaction.worker_ref:
        lines.append(f"Worker {inline_code(interaction.worker_ref)}")
    lines.append(f"Step {interaction.step_number}")
    lines.append(f"Thread {inline_code(interaction.thread_id)}")
    hidden = hidden_text(interaction)
    if hidden:
        lines.append(hidden)
    return lines


def record_block(interaction: Interaction) -> dict[str, Any]:
    """All the ids on one context line, for a message that cannot show anything else."""
    return {
        "type": "context",
        "block_id": CONTEXT_BLOCK_ID,
        "elements": [mrkdwn(" · ".join(record_lines(interaction)), CONTEXT_TEXT)],
    }


def details_block(interaction_id: str) -> dict[str, Any]:
    """The *Details* button an ended message keeps; it opens the full record in a modal.

    It is the input viewer's own action (``ActionId.VIEW_INPUT``, value the
    interaction id), so the listener that already opens the viewer serves it.
    """
    return {
        "type": "actions",
        "block_id": DETAILS_BLOCK_ID,
        "elements": [
            {
                "type": "button",
                "action_id": ActionId.VIEW_INPUT.value,
                "text": plain_text(DETAILS_LABEL, BUTTON_TEXT),
                "value": interaction_id,
            }
        ],
    }
