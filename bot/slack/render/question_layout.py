"""The input blocks that ask each question, and the split of questions into modal pages.

Both live together because the split is measured on the blocks themselves,
and the parser must know what page n holds: it learns it from the same
function that lays the page out (:func:`page_layout`), so the modal and the
parser can never disagree.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from bot.novo.models import Question, QuestionRequest
from bot.slack.ids import ActionId
from bot.slack.limits import (
    INPUT_HINT,
    INPUT_LABEL,
    INPUT_PLACEHOLDER,
    MODAL_BLOCKS,
    OPTION_DESCRIPTION,
    OPTION_TEXT,
    PLAIN_TEXT_INPUT_MAX,
    VIEW_BYTES,
)
from bot.slack.render.common import plain_text
from bot.slack.render.markdown import markdown_plain
from bot.slack.render.question_encoding import (
    OTHER_LABEL,
    OTHER_VALUE,
    Widget,
    answer_block_id,
    choice_count,
    extra_text_block_id,
    option_value,
    widget_for,
)

PAGE_RESERVED_BLOCKS = 4
"""Blocks a modal page keeps for itself (title, details, page line, error note)."""
PAGE_RESERVED_BYTES = 60_000
"""JSON bytes kept for the page's own blocks and the view's envelope (see question_modal)."""

OTHER_TEXT_LABEL = "Other — please specify"
NOTE_LABEL = "Anything to add?"
OTHER_PLACEHOLDER = "Your own answer"
NOTE_PLACEHOLDER = "A note for the agent"


@functools.lru_cache(maxsize=4_096)
def plain_words(text: str) -> str:
    """Agent Markdown as the plain words a label shows: plain_text would print its asterisks.

    Cached because every page of a form lays out all its questions again
    (:func:`page_layout`), thousands of labels each time.
    """
    return " ".join(markdown_plain(text).split())


def _option(text: str, value: str, description: str | None = None) -> dict[str, Any]:
    option: dict[str, Any] = {"text": plain_text(plain_words(text), OPTION_TEXT), "value": value}
    described = plain_words(description) if description else ""
    if described:
        option["description"] = plain_text(described, OPTION_DESCRIPTION)
    return option


def option_object(
    question: Question, index: int, *, with_description: bool = False
) -> dict[str, Any]:
    """The Slack option for ``question.options[index]``: label shown, position as value."""
    option = (question.options or [])[index]
    description = option.description if with_description else None
    return _option(option.label or option.id, option_value(index), description)


def other_option() -> dict[str, Any]:
    return _option(OTHER_LABEL, OTHER_VALUE)


def choice_options(question: Question, *, with_description: bool = False) -> list[dict[str, Any]]:
    """Every choice of a question, "Other…" last."""
    options = [
        option_object(question, i, with_description=with_description)
        for i in range(len(question.options or []))
    ]
    return [*options, other_option()] if question.allow_other else options


def _text_element(action_id: ActionId, multiline: bool, placeholder: str) -> dict[str, Any]:
    return {
        "type": Widget.TEXT.value,
        "action_id": action_id.value,
        "multiline": multiline,
        "max_length": PLAIN_TEXT_INPUT_MAX,
        "placeholder": plain_text(placeholder, INPUT_PLACEHOLDER),
    }


def _answer_element(question: Question, widget: Widget) -> dict[str, Any]:
    if widget is Widget.TEXT:
        return _text_element(ActionId.ANSWER_INPUT, question.multiline, "Type your answer")
    element: dict[str, Any] = {"type": widget.value, "action_id": ActionId.ANSWER_INPUT.value}
    if widget in (Widget.RADIO, Widget.CHECKBOXES):
        element["options"] = choice_options(question, with_description=True)
        return element
    placeholder = "Choose one or more" if question.multiple else "Choose one"
    element["placeholder"] = plain_text(placeholder, INPUT_PLACEHOLDER)
    if widget in (Widget.EXTERNAL_SELECT, Widget.MULTI_EXTERNAL_SELECT):
        element["min_query_length"] = 0
    else:
        element["options"] = choice_options(question)
    return element


def _hint(question: Question, widget: Widget) -> str | None:
    if widget in (Widget.EXTERNAL_SELECT, Widget.MULTI_EXTERNAL_SELECT):
        return f"Type to search {choice_count(question)} options."
    if question.multiple and widget is not Widget.TEXT:
        return "Choose all that apply."
    return None


def question_blocks(question: Question, index: int) -> list[dict[str, Any]]:
    """The input block(s) asking one question: its answer, then any text box beside it."""
    widget = widget_for(question)
    block: dict[str, Any] = {
        "type": "input",
        "block_id": answer_block_id(index),
        "label": plain_text(plain_words(question.prompt) or f"Question {index + 1}", INPUT_LABEL),
        "element": _answer_element(question, widget),
        "optional": question.optional,
    }
    hint = _hint(question, widget)
    if hint:
        block["hint"] = plain_text(hint, INPUT_HINT)
    blocks = [block]
    extra = extra_text_block_id(question, index)
    if extra is not None:
        label = OTHER_TEXT_LABEL if question.allow_other else NOTE_LABEL
        placeholder = OTHER_PLACEHOLDER if question.allow_other else NOTE_PLACEHOLDER
        element = _text_element(ActionId.OTHER_TEXT_INPUT, question.multiline, placeholder)
        blocks.append(
            {
                "type": "input",
                "block_id": extra,
                "label": plain_text(label, INPUT_LABEL),
                "element": element,
                "optional": True,
            }
        )
    return blocks


def json_size(value: Any) -> int:
    """Bytes of ``value`` as JSON with non-ASCII escaped: never less than its UTF-8 size."""
    return len(json.dumps(value))


def page_layout(request: QuestionRequest) -> list[list[int]]:
    """Question positions per modal page: in order, each page within Slack's view limits.

    A pure function of the request, so the modal that renders page n and the
    parser that reads page n's answers always agree on what page n holds.
    """
    block_budget = MODAL_BLOCKS - PAGE_RESERVED_BLOCKS
    byte_budget = VIEW_BYTES - PAGE_RESERVED_BYTES
    pages: list[list[int]] = [[]]
    blocks_used = bytes_used = 0
    for index, question in enumerate(request.questions):
        blocks = question_blocks(question, index)
        size = json_size(blocks)
        if pages[-1] and (
            blocks_used + len(blocks) > block_budget or bytes_used + size > byte_budget
        ):
            pages.append([])
            blocks_used = bytes_used = 0
        pages[-1].append(index)
        blocks_used += len(blocks)
        bytes_used += size
    return pages


def page_questions(request: QuestionRequest, page: int) -> list[int]:
    """The positions of the questions on one page; ValueError for a page that does not exist."""
    pages = page_layout(request)
    if not 0 <= page < len(pages):
        raise ValueError(f"question form page {page} does not exist (it has {len(pages)})")
    return pages[page]
