"""The modal that asks an agent's questions, page by page, and serves its searchable menus.

The inputs themselves (which element, which block ids and option values) come
from :mod:`bot.slack.question_answers`, so that the parser reads back exactly
what was rendered; this module adds what surrounds them: the request's title
and details, the page line, a note about a refused answer, and the view.

A request too large for one view is split into pages (see
``question_layout.page_layout``). Every page but the last submits with "Next":
the caller answers that submission with ``response_action: update`` and the
next page, keeping the answers it has parsed so far. The modal asks for
``view_closed`` (``notify_on_close``) so the caller can drop those answers
when the person gives up half way.

Building a page of the largest forms (dozens of questions of a hundred options
each) takes tens of milliseconds, and a Slack trigger_id lives 3 s: when many
people open the same form at once, building it for each of them would let the
triggers expire in the queue. So pages are kept in a small LRU keyed by the
interaction's id and a digest of its request (serialised by pydantic's Rust
core, ~2 ms for the largest), and only the first opener of a page pays for it.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from pydantic_core import PydanticSerializationError

from bot.novo.models import Interaction, Question, QuestionRequest
from bot.slack.ids import ActionId, CallbackId
from bot.slack.limits import MODAL_BUTTON, MODAL_TITLE, STATIC_SELECT_OPTIONS
from bot.slack.render.common import (
    ELLIPSIS,
    clean_rendered,
    defuse_mrkdwn,
    escape_inline,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
)
from bot.slack.render.markdown import fit_markdown, markdown_plain
from bot.slack.render.question_encoding import question_index_of
from bot.slack.render.question_layout import (
    option_object,
    other_option,
    page_layout,
    question_blocks,
)

MODAL_TITLE_TEXT = "Answer the agent"
SUBMIT_TEXT = "Send answer"
NEXT_TEXT = "Next"
CLOSE_TEXT = "Cancel"
NOTHING_TO_ANSWER = "There is nothing to fill in here: use the buttons in the message."

TITLE_CHARS = 300
DETAILS_CHARS = 2_900
NOTE_CHARS = 500
"""Caps on the page's own text; with the page line they keep a page's own blocks
well inside question_layout.PAGE_RESERVED_BYTES, whatever characters they hold."""
CACHED_PAGES = 64
"""Pages kept built: one busy form's pages and the first pages of a few dozen others.
The largest page is a few MB of Python objects, so this bounds the cache to ~100 MB."""

_PageKey = tuple[str, int, int]
_pages: OrderedDict[_PageKey, dict[str, Any]] = OrderedDict()
_last_digest: dict[str, tuple[QuestionRequest, int]] = {}
"""The last request hashed, held so its identity cannot be reused: people opening a form
together share one read of it, and so one digest."""


def fit_escaped(text: str, limit: int, escape: Callable[[str], str] = escape_mrkdwn) -> str:
    """``escape(text)`` in at most ``limit`` chars, cut on the raw text.

    Cutting after escaping could split ``&amp;`` and show a stray ``&am``;
    cutting before could let escaping grow it past the limit. The longest raw
    prefix whose escaped form fits is found by bisection (escaping only grows).
    """
    escaped = escape(text)
    if len(escaped) <= limit:
        return escaped
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if len(escape(text[:middle])) + len(ELLIPSIS) <= limit:
            low = middle
        else:
            high = middle - 1
    return escape(text[:low]) + ELLIPSIS


@dataclass(frozen=True)
class ModalRef:
    """What a question modal's private_metadata carries: which interaction, which page."""

    interaction_id: str
    page: int

    def encode(self) -> str:
        return json.dumps({"id": self.interaction_id, "page": self.page}, separators=(",", ":"))

    @classmethod
    def decode(cls, raw: str) -> ModalRef | None:
        """None for anything that is not metadata this module wrote."""
        try:
            data = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        interaction_id, page = data.get("id"), data.get("page")
        if not isinstance(interaction_id, str) or type(page) is not int or page < 0:
            return None
        return cls(interaction_id, page)


def question_modal_page_count(request: QuestionRequest) -> int:
    return len(page_layout(request))


def _header_blocks(
    request: QuestionRequest, page: int, page_count: int, errors_note: str | None
) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    plain = " ".join(markdown_plain(request.title).split())
    title = fit_escaped(plain, TITLE_CHARS, escape_inline) if plain else ""
    if page == 0:
        if title:
            blocks.append({"type": "section", "text": mrkdwn(f"*{title}*", TITLE_CHARS + 2)})
        if request.details:
            details = fit_markdown(request.details, DETAILS_CHARS)
            blocks.append({"type": "section", "text": mrkdwn(details, DETAILS_CHARS)})
    if page_count > 1:
        line = f"Page {page + 1} of {page_count}" + (f" · {title}" if title and page else "")
        blocks.append({"type": "context", "elements": [mrkdwn(line, TITLE_CHARS + 40)]})
    if errors_note:
        note = fit_escaped(errors_note, NOTE_CHARS, defuse_mrkdwn)
        blocks.append({"type": "section", "text": mrkdwn(f"⚠️ {note}", NOTE_CHARS + 3)})
    return blocks


def render_question_modal(
    interaction: Interaction, page: int = 0, *, errors_note: str | None = None
) -> dict[str, Any]:
    """One page of the form; ``errors_note`` (mrkdwn) tells why a previous answer was refused.

    Raises ValueError for a page the request does not have. The view returned
    shares its blocks with the cache: callers may add keys to the view itself
    but must not change anything inside it.
    """
    digest = _request_digest(interaction.request)
    if errors_note is not None or digest is None:
        return _render_page(interaction, page, errors_note)
    key = (interaction.id, digest, page)
    view = _pages.get(key)
    if view is None:
        view = _render_page(interaction, page, None)
        _pages[key] = view
        if len(_pages) > CACHED_PAGES:
            _pages.popitem(last=False)
    else:
        _pages.move_to_end(key)
    return dict(view)


def _request_digest(request: QuestionRequest | None) -> int | None:
    """What the form is built from, hashed; None when it cannot be serialised (a lone surrogate).

    Python's string hash is 64-bit SipHash keyed per process: an accidental
    collision is out of reach, and so is a crafted one.
    """
    if request is None:
        return 0
    last = _last_digest.get("request")
    if last is not None and last[0] is request:
        return last[1]
    try:
        digest = hash(request.model_dump_json())
    except PydanticSerializationError:
        return None
    _last_digest["request"] = (request, digest)
    return digest


def _render_page(interaction: Interaction, page: int, errors_note: str | None) -> dict[str, Any]:
    request = interaction.request or QuestionRequest()
    layout = page_layout(request)
    if not 0 <= page < len(layout):
        raise ValueError(f"question form page {page} does not exist (it has {len(layout)})")
    indices = layout[page]
    page_count = len(layout)
    blocks = _header_blocks(request, page, page_count, errors_note)
    for index in indices:
        blocks.extend(question_blocks(request.questions[index], index))
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": CallbackId.QUESTION_MODAL.value,
        "title": plain_text(MODAL_TITLE_TEXT, MODAL_TITLE),
        "close": plain_text(CLOSE_TEXT, MODAL_BUTTON),
        "private_metadata": ModalRef(interaction.id, page).encode(),
        "notify_on_close": True,
        "blocks": blocks,
    }
    if indices:
        submit = NEXT_TEXT if page < page_count - 1 else SUBMIT_TEXT
        view["submit"] = plain_text(submit, MODAL_BUTTON)
    else:
        blocks.append(
            {"type": "section", "text": mrkdwn(NOTHING_TO_ANSWER, len(NOTHING_TO_ANSWER))}
        )
    return cast(dict[str, Any], clean_rendered(view))


@dataclass(frozen=True)
class SearchableMenu:
    """One question's searchable menu, ready to be searched keystroke after keystroke:
    each option's full label (not the cut one shown) folded for case-blind matching."""

    question: Question
    folded: tuple[str, ...]

    @property
    def room(self) -> int:
        """How many matches one answer can carry, "Other…" kept a place when allowed."""
        return STATIC_SELECT_OPTIONS - (1 if self.question.allow_other else 0)

    def matches(self, needle: str, start: int, stop: int, limit: int) -> list[int]:
        """The first `limit` positions in [start, stop) whose label contains `needle`
        (already folded)."""
        found: list[int] = []
        for position in range(start, min(stop, len(self.folded))):
            if needle in self.folded[position]:
                found.append(position)
                if len(found) >= limit:
                    break
        return found

    def options(self, positions: list[int]) -> list[dict[str, Any]]:
        """The answer: the options at `positions` (at most `room`), "Other…" last if allowed."""
        found = [option_object(self.question, p) for p in positions[: self.room]]
        if self.question.allow_other:
            found.append(other_option())
        return cast(list[dict[str, Any]], clean_rendered(found))


def searchable_menu(
    interaction: Interaction, action_id: str, block_id: str
) -> SearchableMenu | None:
    """The menu a block_suggestion is about; None for a block that is not one."""
    index = question_index_of(block_id)
    request = interaction.request
    if action_id != ActionId.ANSWER_INPUT or request is None or index is None:
        return None
    if index >= len(request.questions):
        return None
    question = request.questions[index]
    folded = tuple((option.label or option.id).casefold() for option in question.options or [])
    return SearchableMenu(question, folded)


def fold_query(query: str) -> str:
    """What a typed query is matched as: trimmed, case folded."""
    return query.strip().casefold()


def search_external_options(
    interaction: Interaction, action_id: str, block_id: str, query: str
) -> list[dict[str, Any]]:
    """Options for a searchable menu (block_suggestion): labels containing ``query``, any case.

    Matching uses the full label, not the cut one shown. "Other…" is always
    offered last when the question allows it, so a person who cannot find
    their answer can still write it. Unknown blocks get no options.
    """
    menu = searchable_menu(interaction, action_id, block_id)
    if menu is None:
        return []
    return menu.options(menu.matches(fold_query(query), 0, len(menu.folded), menu.room))
