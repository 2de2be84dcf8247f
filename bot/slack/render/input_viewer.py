"""The Details modal: the whole record, and the whole input however large, across pages.

It opens from *View full input* on a pending approval and from *Details* on
an ended message (both ``ActionId.VIEW_INPUT``). Page 1 starts with the
record (what was asked, every id, the preview or the question's details);
then comes the tool input of an approval, or the request of a question, as
pretty JSON cut into consecutive pieces, each shown as one code-block
section, so the pieces put end to end are exactly the JSON: nothing is
dropped at a cut. Pieces end at line breaks when a line fits, and inside a
line only when it is longer than a section. Pages hold as many pieces as fit
Slack's view size.

Pages are indexed from 0 (as the question modal's pages are) everywhere in
code, button values and private_metadata; the reader sees "page 1 of n".
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, cast

from bot.novo.models import Interaction
from bot.slack.ids import ActionId, CallbackId
from bot.slack.limits import BUTTON_TEXT, MODAL_BUTTON, MODAL_TITLE, SECTION_TEXT, VIEW_BYTES
from bot.slack.render.approval import approval_title
from bot.slack.render.common import (
    clean_rendered,
    date_token,
    escape_inline,
    mrkdwn,
    plain_text,
    pretty_json,
)
from bot.slack.render.context import MessageContext
from bot.slack.render.markdown import fit_markdown
from bot.slack.render.preview import preview_label, preview_value, title_key
from bot.slack.render.question import question_title
from bot.slack.render.record import record_lines
from bot.slack.render.status import fenced_code, inline_code

TITLE = "Details"
CLOSE_LABEL = "Close"
PREV_LABEL = "◀ Previous"
NEXT_LABEL = "Next ▶"

RECORD_TITLE_CHARS = 150
RECORD_PREVIEW_TEXT = 1_200
RECORD_DETAILS_TEXT = 1_000
RECORD_LABEL_CHARS = 60
RECORD_FIELD_MIN = 40
INPUT_HEADING = "*Tool input*"
REQUEST_HEADING = "*Request*"
"""With the ids (about 700 chars at most) these keep the record section within SECTION_TEXT."""

REVEALED_NOTE = "🔓 full values, shown to you alone"
SECTIONS_PER_PAGE = 10
"""About 30,000 characters a page: long enough to read on, short enough to open fast."""
PAGE_SECTION_BYTES = VIEW_BYTES - 60_000
"""The sections' share of a view's bytes; the rest is ample for title, context and buttons.

Measured as `json.dumps` sends them (ASCII-escaped), the worst case for
emoji and control characters.
"""

_CONTEXT_BLOCK_ID = "novo_input_context"
_RECORD_BLOCK_ID = "novo_record"
_SECTION_BLOCK_ID = "novo_input_{index}"
_PAGES_BLOCK_ID = "novo_input_pages"
_NO_LIMIT = sys.maxsize
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
"""Lines with their break; only "\n" counts (str.splitlines would also cut at U+2028)."""


def input_viewer_page_count(interaction: Interaction) -> int:
    """How many pages `render_input_viewer` has for this interaction (at least 1)."""
    return len(_pages(interaction))


def render_input_viewer(
    interaction: Interaction,
    page: int,
    *,
    ctx: MessageContext | None = None,
    revealed: bool = False,
) -> dict[str, Any]:
    """The modal showing page index `page` (0-based, clamped to the pages that exist).

    A page index arriving from a click is trusted only as far as clamping:
    a stale or forged one still opens a real page. `ctx`, when given, names
    the agent and links the run as the message does. `revealed`: the record is
    the raw one, credentials in, shown to a decider alone (`reveal: deciders`).
    """
    pages = _pages(interaction)
    count = len(pages)
    page = min(max(page, 0), count - 1)
    context = f"{inline_code(interaction.tool_name)} · page {page + 1} of {count}"
    if revealed:
        context += f" · {REVEALED_NOTE}"
    blocks: list[dict[str, Any]] = [
        {
            "type": "context",
            "block_id": _CONTEXT_BLOCK_ID,
            "elements": [mrkdwn(context, SECTION_TEXT)],
        }
    ]
    if page == 0:
        blocks.append(_record_section(interaction, ctx))
    blocks.extend(_section(index, piece) for index, piece in enumerate(pages[page]))
    if count > 1:
        blocks.append(_page_buttons(page, count))
    view = {
        "type": "modal",
        "callback_id": CallbackId.INPUT_VIEWER.value,
        "private_metadata": json.dumps({"id": interaction.id, "page": page}),
        "title": plain_text(TITLE, MODAL_TITLE),
        "close": plain_text(CLOSE_LABEL, MODAL_BUTTON),
        "blocks": blocks,
    }
    return cast(dict[str, Any], clean_rendered(view))


def viewed_value(interaction: Interaction) -> Any:
    """What the pages show as JSON: an approval's input, a question's request and answers."""
    if interaction.kind != "question":
        return interaction.input
    request = (
        interaction.request.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        if interaction.request is not None
        else None
    )
    if interaction.resolution is None:
        return request
    return {"request": request, "resolution": interaction.resolution}


def _record_section(interaction: Interaction, ctx: MessageContext | None) -> dict[str, Any]:
    """What was asked, by whom, every id and the summary, before the JSON; within one section."""
    if interaction.kind == "question" and interaction.request is not None:
        title = question_title(interaction.request, RECORD_TITLE_CHARS)
    else:
        title = approval_title(interaction, RECORD_TITLE_CHARS)
    lines = [f"*{escape_inline(title)}*", " · ".join(record_lines(interaction, ctx))]
    lines.append(
        f"Tool {inline_code(interaction.tool_name)} · Interaction {inline_code(interaction.id)}"
        f" · Asked {date_token(interaction.created_at)}"
    )
    lines.extend(_summary_lines(interaction))
    lines.append(REQUEST_HEADING if interaction.kind == "question" else INPUT_HEADING)
    return {
        "type": "section",
        "block_id": _RECORD_BLOCK_ID,
        "text": mrkdwn("\n".join(lines), SECTION_TEXT),
    }


def _summary_lines(interaction: Interaction) -> list[str]:
    """The question's details, or the preview's fields as "*Label*: value" lines, in budget."""
    if interaction.kind == "question":
        details = interaction.request.details if interaction.request is not None else None
        return [fit_markdown(details, RECORD_DETAILS_TEXT)] if details else []
    preview = interaction.preview or {}
    skip = title_key(preview)
    lines: list[str] = []
    room = RECORD_PREVIEW_TEXT
    for key, value in preview.items():
        if key == skip:
            continue
        label = f"*{preview_label(key, RECORD_LABEL_CHARS)}*: "
        if room - len(label) - 1 < RECORD_FIELD_MIN:
            break
        line = label + preview_value(value, room - len(label) - 1)
        lines.append(line)
        room -= len(line) + 1
    return lines


def input_pieces(value: Any) -> list[str]:
    """The pretty JSON of `value` cut into pieces that each fit one section, in order."""
    return list(_pieces(pretty_json(value)))


@functools.lru_cache(maxsize=16)
def _pieces(text: str) -> tuple[str, ...]:
    """Cached because each Prev/Next click renders one page of the same input again."""
    return tuple(_split(text))


def _fits(piece: str) -> bool:
    return len(fenced_code(piece, _NO_LIMIT)) <= SECTION_TEXT


def _split(text: str) -> Iterator[str]:
    """Greedy by whole lines; escaping is per line (no escaped sequence spans a line break)."""
    fence = len(fenced_code("", _NO_LIMIT))
    current: list[str] = []
    size = fence
    for line in _LINES.findall(text):
        cost = len(fenced_code(line, _NO_LIMIT)) - fence
        if current and size + cost <= SECTION_TEXT:
            current.append(line)
            size += cost
            continue
        if current:
            yield "".join(current)
        current, size = [], fence
        if fence + cost <= SECTION_TEXT:
            current, size = [line], fence + cost
            continue
        *whole, rest = _split_line(line)
        yield from whole
        current, size = [rest], len(fenced_code(rest, _NO_LIMIT))
    if current or not text:
        yield "".join(current)


def _split_line(line: str) -> list[str]:
    """Cut one over-long line into the longest prefixes that fit (escaping only grows text)."""
    pieces: list[str] = []
    while len(line) > SECTION_TEXT or not _fits(line):
        low, high = 1, min(len(line), SECTION_TEXT)
        while low < high:
            middle = (low + high + 1) // 2
            if _fits(line[:middle]):
                low = middle
            else:
                high = middle - 1
        pieces.append(line[:low])
        line = line[low:]
    pieces.append(line)
    return pieces


def _pages(interaction: Interaction) -> list[list[str]]:
    """Pieces grouped into pages by count and by encoded size; page 1 also holds the record."""
    pages: list[list[str]] = [[]]
    size = len(json.dumps(_record_section(interaction, None))) * 2
    for piece in input_pieces(viewed_value(interaction)):
        page = pages[-1]
        cost = len(json.dumps(_section(len(page), piece)))
        if page and (len(page) == SECTIONS_PER_PAGE or size + cost > PAGE_SECTION_BYTES):
            pages.append([])
            size = 0
        pages[-1].append(piece)
        size += cost
    return pages


def _section(index: int, piece: str) -> dict[str, Any]:
    return {
        "type": "section",
        "block_id": _SECTION_BLOCK_ID.format(index=index),
        "text": mrkdwn(fenced_code(piece, SECTION_TEXT), SECTION_TEXT),
    }


def _page_buttons(page: int, count: int) -> dict[str, Any]:
    """Prev/Next carry the page index they lead to; the listener re-renders that page."""
    elements: list[dict[str, Any]] = []
    if page > 0:
        elements.append(_page_button(PREV_LABEL, ActionId.INPUT_PAGE_PREV, page - 1))
    if page < count - 1:
        elements.append(_page_button(NEXT_LABEL, ActionId.INPUT_PAGE_NEXT, page + 1))
    return {"type": "actions", "block_id": _PAGES_BLOCK_ID, "elements": elements}


def _page_button(label: str, action_id: ActionId, target: int) -> dict[str, Any]:
    return {
        "type": "button",
        "action_id": action_id.value,
        "text": plain_text(label, BUTTON_TEXT),
        "value": str(target),
    }
