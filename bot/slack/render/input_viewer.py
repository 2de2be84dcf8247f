"""The "View full input" modal: the whole tool input, however large, across pages.

The approval message can only show the top of a large input; this modal is
where a reviewer reads all of it before deciding. The pretty JSON is cut
into consecutive pieces, each shown as one code-block section, so the pieces
put end to end are exactly the JSON: nothing is dropped at a cut. Pieces
end at line breaks when a line fits, and inside a line only when it is
longer than a section. Pages hold as many pieces as fit Slack's view size.

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
from bot.slack.render.common import clean_rendered, mrkdwn, plain_text, pretty_json
from bot.slack.render.status import fenced_code, inline_code

TITLE = "Tool input"
CLOSE_LABEL = "Close"
PREV_LABEL = "◀ Previous"
NEXT_LABEL = "Next ▶"

SECTIONS_PER_PAGE = 10
"""About 30,000 characters a page: long enough to read on, short enough to open fast."""
PAGE_SECTION_BYTES = VIEW_BYTES - 20_000
"""The sections' share of a view's bytes; the rest is ample for title, context and buttons.

Measured as `json.dumps` sends them (ASCII-escaped), the worst case for
emoji and control characters.
"""

_CONTEXT_BLOCK_ID = "novo_input_context"
_SECTION_BLOCK_ID = "novo_input_{index}"
_PAGES_BLOCK_ID = "novo_input_pages"
_NO_LIMIT = sys.maxsize
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
"""Lines with their break; only "\n" counts (str.splitlines would also cut at U+2028)."""


def input_viewer_page_count(interaction: Interaction) -> int:
    """How many pages `render_input_viewer` has for this interaction (at least 1)."""
    return len(_pages(interaction))


def render_input_viewer(interaction: Interaction, page: int) -> dict[str, Any]:
    """The modal showing page index `page` (0-based, clamped to the pages that exist).

    A page index arriving from a click is trusted only as far as clamping:
    a stale or forged one still opens a real page.
    """
    pages = _pages(interaction)
    count = len(pages)
    page = min(max(page, 0), count - 1)
    context = f"{inline_code(interaction.tool_name)} · page {page + 1} of {count}"
    blocks: list[dict[str, Any]] = [
        {
            "type": "context",
            "block_id": _CONTEXT_BLOCK_ID,
            "elements": [mrkdwn(context, SECTION_TEXT)],
        },
        *(_section(index, piece) for index, piece in enumerate(pages[page])),
    ]
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
    """Pieces grouped into pages by count and by encoded size."""
    pages: list[list[str]] = [[]]
    size = 0
    for piece in input_pieces(interaction.input):
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
