"""How an agent's questions become Slack form inputs, and how Slack's answers come back.

This is the one place that knows the encoding, so the modal, the message
buttons, the listeners and the parser can never disagree about it. The input
blocks of each question and the split of questions into modal pages live here
too: the parser must know what page n holds, and it learns it from the same
function that lays the page out.

* block ids carry the question's position: ``q3`` is ``request.questions[3]``,
  ``q3_other`` its "Other — please specify" box, ``q3_note`` the note box of a
  multiline question that also has options;
* option values carry the option's position (``o12`` is ``options[12]``) or
  ``other``; never the label (cut for display) nor the raw id (up to any
  length, any characters), so mapping back is an index into the request the
  caller re-reads, and display truncation cannot change an answer;
* several buttons of one kind in one actions block get ``base:index`` action
  ids (Slack wants them unique per block); listeners match them with
  :func:`action_id_pattern`.

Rules the parser applies before anything is sent to Novo (documented here
because the person filling the form sees their effect):

* whitespace-only text counts as no text;
* "Other" chosen without text is an error on the Other box;
* text in the Other box without "Other" chosen counts as choosing "Other",
  unless a single-choice question already has another option picked: that is
  ambiguous, so it is an error on the Other box asking to pick one;
* a required question left empty is an error on its block; an optional one is
  left out of the answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.novo.models import InputResponse, Interaction, Question, QuestionOption, QuestionRequest
from bot.slack.ids import ActionId
from bot.slack.limits import (
    CHOICE_OPTIONS,
    INPUT_HINT,
    INPUT_LABEL,
    INPUT_PLACEHOLDER,
    MODAL_BLOCKS,
    OPTION_DESCRIPTION,
    OPTION_TEXT,
    PLAIN_TEXT_INPUT_MAX,
    STATIC_SELECT_OPTIONS,
    VIEW_BYTES,
)
from bot.slack.render.common import plain_text

OTHER_VALUE = "other"
OTHER_LABEL = "Other…"
QUICK_OPTIONS_MAX = 5
VALUE_SEPARATOR = "|"
_OPTION_VALUE = re.compile(r"o(\d+)")
_ANSWER_BLOCK = re.compile(r"q(\d+)")

ERROR_REQUIRED_TEXT = "Please write an answer."
ERROR_REQUIRED_CHOICE = "Please choose an answer."
ERROR_OTHER_EMPTY = "You chose “Other” — please say what."
ERROR_OTHER_CONFLICT = "Choose “Other…” to send this text, or clear this box."
ERROR_STALE_OPTION = "That choice is no longer offered — close this form and open it again."


class Widget(StrEnum):
    """The Slack element a question is asked with; values are Slack's element types."""

    TEXT = "plain_text_input"
    RADIO = "radio_buttons"
    STATIC_SELECT = "static_select"
    EXTERNAL_SELECT = "external_select"
    CHECKBOXES = "checkboxes"
    MULTI_STATIC_SELECT = "multi_static_select"
    MULTI_EXTERNAL_SELECT = "multi_external_select"


def choice_count(question: Question) -> int:
    """Options as the person sees them: the agent's plus "Other…"."""
    return len(question.options or []) + (1 if question.allow_other else 0)


def widget_for(question: Question) -> Widget:
    """Buttons while they fit, a menu up to Slack's 100, then a menu that searches."""
    if not question.options:
        return Widget.TEXT
    count = choice_count(question)
    if question.multiple:
        if count <= CHOICE_OPTIONS:
            return Widget.CHECKBOXES
        if count <= STATIC_SELECT_OPTIONS:
            return Widget.MULTI_STATIC_SELECT
        return Widget.MULTI_EXTERNAL_SELECT
    if count <= CHOICE_OPTIONS:
        return Widget.RADIO
    if count <= STATIC_SELECT_OPTIONS:
        return Widget.STATIC_SELECT
    return Widget.EXTERNAL_SELECT


def answer_block_id(index: int) -> str:
    return f"q{index}"


def question_index_of(block_id: str) -> int | None:
    """The question position an answer block id names, None for any other block."""
    match = _ANSWER_BLOCK.fullmatch(block_id)
    return int(match.group(1)) if match else None


def extra_text_block_id(question: Question, index: int) -> str | None:
    """The block of the text box that rides beside a question's options, if it has one.

    allowOther gets "Other — please specify"; a multiline question with options
    accepts text too (see models.Question.accepts_text), so it gets a note box.
    """
    if not question.options:
        return None
    if question.allow_other:
        return f"q{index}_other"
    if question.multiline:
        return f"q{index}_note"
    return None


def option_value(index: int) -> str:
    return f"o{index}"


def decode_option_value(question: Question, value: str) -> QuestionOption | None:
    """The option an ``o<n>`` value names in this question, None when there is none."""
    match = _OPTION_VALUE.fullmatch(value)
    options = question.options or []
    if match is None or int(match.group(1)) >= len(options):
        return None
    return options[int(match.group(1))]


def indexed_action_id(base: ActionId, index: int) -> str:
    """A unique action id for the index-th button of a kind within one actions block."""
    return f"{base}:{index}"


def action_id_pattern(base: ActionId) -> re.Pattern[str]:
    """Matches ``base`` and every ``base:<n>``; what listeners register for a button kind."""
    return re.compile(rf"^{re.escape(base)}(?::\d+)?$")


def quick_option_value(interaction_id: str, option_index: int) -> str:
    return f"{interaction_id}{VALUE_SEPARATOR}{option_value(option_index)}"


def action_choice_value(interaction_id: str, action_index: int) -> str:
    return f"{interaction_id}{VALUE_SEPARATOR}{action_index}"


def interaction_id_of_value(value: str) -> str:
    """The interaction a quick-option or action button belongs to (ids may hold '|')."""
    return value.rpartition(VALUE_SEPARATOR)[0]


def is_quick_question(request: QuestionRequest | None) -> bool:
    """One short single-choice question with nothing to type: answerable from the message."""
    if request is None or len(request.questions) != 1:
        return False
    question = request.questions[0]
    options = question.options or []
    return (
        0 < len(options) <= QUICK_OPTIONS_MAX
        and not question.multiple
        and not question.allow_other
        and not question.multiline
    )


PAGE_RESERVED_BLOCKS = 4
"""Blocks a modal page keeps for itself (title, details, page line, error note)."""
PAGE_RESERVED_BYTES = 60_000
"""JSON bytes kept for the page's own blocks and the view's envelope (see question_modal)."""

OTHER_TEXT_LABEL = "Other — please specify"
NOTE_LABEL = "Anything to add?"
OTHER_PLACEHOLDER = "Your own answer"
NOTE_PLACEHOLDER = "A note for the agent"


def _option(text: str, value: str, description: str | None = None) -> dict[str, Any]:
    option: dict[str, Any] = {"text": plain_text(text, OPTION_TEXT), "value": value}
    if description:
        option["description"] = plain_text(description, OPTION_DESCRIPTION)
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
        "label": plain_text(question.prompt or f"Question {index + 1}", INPUT_LABEL),
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


@dataclass(frozen=True)
class ParsedSubmission:
    input_responses: list[InputResponse]


def parse_submission(
    interaction: Interaction,
    page: int,
    state_values: dict[str, dict[str, dict[str, Any]]],
) -> ParsedSubmission | dict[str, str]:
    """The answers on one modal page, or ``{input block_id: error}`` for response_action errors.

    Only the page's own questions are read and checked; the caller keeps the
    answers of earlier pages and joins them before resolving.
    """
    request = interaction.request or QuestionRequest()
    responses: list[InputResponse] = []
    errors: dict[str, str] = {}
    for index in page_questions(request, page):
        result = _parse_question(request.questions[index], index, state_values)
        if isinstance(result, dict):
            errors.update(result)
        elif result is not None:
            responses.append(result)
    return errors or ParsedSubmission(responses)


def _state(state_values: dict[str, dict[str, dict[str, Any]]], block_id: str) -> dict[str, Any]:
    """The one element state of a block (Slack nests it under the action id)."""
    block = state_values.get(block_id) or {}
    return next(iter(block.values()), None) or {}


def _text(state_values: dict[str, dict[str, dict[str, Any]]], block_id: str | None) -> str | None:
    if block_id is None:
        return None
    value = _state(state_values, block_id).get("value")
    return value.strip() or None if isinstance(value, str) else None


def _selected_values(state: dict[str, Any]) -> list[str]:
    picked = state.get("selected_options")
    if picked is None:
        single = state.get("selected_option")
        picked = [single] if single else []
    return [o["value"] for o in picked if isinstance(o, dict) and isinstance(o.get("value"), str)]


def _parse_question(
    question: Question, index: int, state_values: dict[str, dict[str, dict[str, Any]]]
) -> InputResponse | dict[str, str] | None:
    block_id = answer_block_id(index)
    if not question.options:
        text = _text(state_values, block_id)
        if text is None:
            return None if question.optional else {block_id: ERROR_REQUIRED_TEXT}
        return InputResponse(request_id=question.id, text=text)

    chosen: list[str] = []
    other_chosen = False
    for value in _selected_values(_state(state_values, block_id)):
        option = decode_option_value(question, value)
        if value == OTHER_VALUE and question.allow_other:
            other_chosen = True
        elif option is None:
            return {block_id: ERROR_STALE_OPTION}
        elif option.id not in chosen:
            chosen.append(option.id)

    extra_block = extra_text_block_id(question, index)
    text = _text(state_values, extra_block)
    if question.allow_other and extra_block is not None:
        if other_chosen and text is None:
            return {extra_block: ERROR_OTHER_EMPTY}
        if text is not None and not other_chosen and chosen and not question.multiple:
            return {extra_block: ERROR_OTHER_CONFLICT}

    if not chosen and text is None:
        return None if question.optional else {block_id: ERROR_REQUIRED_CHOICE}
    if question.multiple:
        return InputResponse(request_id=question.id, option_ids=chosen or None, text=text)
    return InputResponse(request_id=question.id, option_id=chosen[0] if chosen else None, text=text)


def parse_quick_option(interaction: Interaction, value: str) -> InputResponse | None:
    """The answer an in-message option button stands for; None if it is not this one's."""
    interaction_id, _, encoded = value.rpartition(VALUE_SEPARATOR)
    request = interaction.request
    if interaction_id != interaction.id or request is None or not is_quick_question(request):
        return None
    question = request.questions[0]
    option = decode_option_value(question, encoded)
    return None if option is None else InputResponse(request_id=question.id, option_id=option.id)


def parse_action_choice(interaction: Interaction, value: str) -> InputResponse | None:
    """The action an in-message action button stands for; None if it is not this one's."""
    interaction_id, _, encoded = value.rpartition(VALUE_SEPARATOR)
    request = interaction.request
    if interaction_id != interaction.id or request is None or not encoded.isdigit():
        return None
    index = int(encoded)
    if index >= len(request.actions):
        return None
    return InputResponse(request_id=request.actions[index].id)


def summarize_answers(
    interaction: Interaction, responses: list[InputResponse]
) -> list[tuple[str, str]]:
    """(prompt, answer) pairs in the request's question order, options shown by label.

    The strings are raw agent and person text: whoever displays them escapes.
    Ids the request no longer knows are shown as they are rather than dropped,
    so what was sent stays visible.
    """
    request = interaction.request or QuestionRequest()
    order = {q.id: i for i, q in enumerate(request.questions)}
    pairs: list[tuple[int, str, str]] = []
    for response in responses:
        action = request.action(response.request_id)
        if action is not None:
            pairs.append((-1, "Action", action.label or action.id))
            continue
        question = request.question(response.request_id)
        position = order.get(response.request_id, len(order))
        if question is None:
            pairs.append((position, response.request_id, _describe(None, response)))
        else:
            pairs.append((position, question.prompt or question.id, _describe(question, response)))
    pairs.sort(key=lambda pair: pair[0])
    return [(prompt, answer) for _, prompt, answer in pairs]


def _describe(question: Question | None, response: InputResponse) -> str:
    ids = list(response.option_ids or [])
    if response.option_id is not None:
        ids.insert(0, response.option_id)
    labels = []
    for option_id in ids:
        option = question.option(option_id) if question is not None else None
        labels.append(option.label or option.id if option is not None else option_id)
    text = response.text
    if text and question is not None and question.allow_other:
        labels.append(f"Other: {text}")
    elif text:
        labels.append(f"“{text}”" if labels else text)
    return ", ".join(labels) if labels else "(no answer)"
