"""How Slack's answers to an agent's questions come back, and the one import point for it all.

The encoding (block ids, option values, action ids, widgets) lives in
:mod:`bot.slack.render.question_encoding`, the input blocks and modal pages in
:mod:`bot.slack.render.question_layout`; this module only reads what comes back.

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

from dataclasses import dataclass
from typing import Any

from bot.novo.models import InputResponse, Interaction, Question, QuestionRequest
from bot.slack.render.question_encoding import (
    OTHER_VALUE,
    VALUE_SEPARATOR,
    answer_block_id,
    decode_option_value,
    extra_text_block_id,
    is_quick_question,
)
from bot.slack.render.question_layout import (
    page_questions,
)

ERROR_REQUIRED_TEXT = "Please write an answer."
ERROR_REQUIRED_CHOICE = "Please choose an answer."
ERROR_OTHER_EMPTY = "You chose “Other” — please say what."
ERROR_OTHER_CONFLICT = "Choose “Other…” to send this text, or clear this box."
ERROR_STALE_OPTION = "That choice is no longer offered — close this form and open it again."


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
