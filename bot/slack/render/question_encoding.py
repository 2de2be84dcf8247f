"""How an agent's questions are encoded in Slack ids and values.

This is the one place that knows the encoding, so the modal, the message
buttons, the listeners and the parser can never disagree about it.

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
"""

from __future__ import annotations

import re
from enum import StrEnum

from bot.novo.models import Question, QuestionOption, QuestionRequest
from bot.slack.ids import ActionId
from bot.slack.limits import CHOICE_OPTIONS, STATIC_SELECT_OPTIONS

OTHER_VALUE = "other"
OTHER_LABEL = "Other…"
QUICK_OPTIONS_MAX = 5
VALUE_SEPARATOR = "|"
_OPTION_VALUE = re.compile(r"o(\d+)")
_ANSWER_BLOCK = re.compile(r"q(\d+)")


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
