"""The buttons of a question's message while it waits for an answer.

Buttons while pending, all in one actions block whose block_id carries the
interaction (`QUESTION_ACTIONS_BLOCK_PREFIX:<interaction id>`):

* **Quick options.** A request with exactly one question that is
  single-choice, has no allowOther, is not multiline and has at most
  ``QUICK_OPTIONS_MAX`` (5) options is answered in one click: each option is
  a button (value ``<interaction id>|o<index>``). Anything else needs the
  form, because a click cannot carry several answers or typed text.
* **Answer…** opens the modal (value: the interaction id); it stays beside
  quick options for people who prefer the form.
* One button per ``request.actions[]`` entry (value
  ``<interaction id>|<action index>``); ``danger`` ones ask for confirmation.
* **Dismiss**, a button behind a confirmation (value: the interaction id).
  Not in an overflow: a confirmation belongs to the whole overflow (its
  options cannot carry their own), so it would also cover the "Remind me"
  choices, and two ⋮ menus side by side look like one drawn twice.
* Last, the one overflow: the "Remind me" choices offered now (see
  :mod:`remind_menu`), when any is.

Slack wants action ids unique within a block, so buttons of one kind are
``<ActionId>:<index>`` (``novo_q_quick:0``, ``novo_q_action:2``). Listeners
match a kind with ``question_encoding.action_id_pattern(ActionId.…)``, i.e.
``^novo_q_quick(?::\\d+)?$``, and read everything else from the value.
"""

from __future__ import annotations

from typing import Any

from bot.novo.models import Interaction, QuestionRequest
from bot.slack.ids import (
    QUESTION_ACTIONS_BLOCK_PREFIX,
    ActionId,
    actions_block_id,
)
from bot.slack.limits import (
    BUTTON_TEXT,
    CONFIRM_BUTTON,
    CONFIRM_TEXT,
    CONFIRM_TITLE,
)
from bot.slack.render.common import mrkdwn, plain_text, truncate
from bot.slack.render.markdown import markdown_plain
from bot.slack.render.question_encoding import (
    QUICK_OPTIONS_MAX,
    action_choice_value,
    indexed_action_id,
    is_quick_question,
    quick_option_value,
)
from bot.slack.render.snooze_choices import REMIND_LABELS_TEXT

ANSWER_LABEL = "Answer…"
DISMISS_LABEL = "Dismiss"
MAX_ACTION_BUTTONS = 10
CONFIRM_LABEL_CHARS = 100
MORE_TEXT = 100
CONFIRM_DIALOG_TEXT = 250
"""All the text of one of our confirm dialogs: fixed words and a label cut to 100."""
BUTTON_BUDGET = (
    (QUICK_OPTIONS_MAX + MAX_ACTION_BUTTONS) * BUTTON_TEXT
    + len(ANSWER_LABEL)
    + len(DISMISS_LABEL)
    + REMIND_LABELS_TEXT
    + (MAX_ACTION_BUTTONS + 1) * CONFIRM_DIALOG_TEXT
)
"""Every button's and option's label and every confirm dialog at its largest (our own
labels at their length)."""

_MORE_ACTIONS_BLOCK_ID = "novo_q_more_actions"


def one_line(text: str) -> str:
    """Agent text inside a bullet, bold or a button, its markup dropped: a newline would end it."""
    return " ".join(markdown_plain(text).split())


def question_actions_block_id(interaction_id: str) -> str:
    return actions_block_id(QUESTION_ACTIONS_BLOCK_PREFIX, interaction_id)


def question_actions_block(
    interaction: Interaction, request: QuestionRequest, remind: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The actions block, and a note counting the agent's actions that did not fit.

    `remind` is the "Remind me" overflow (`remind_menu.remind_overflow`), if any is offered.
    """
    blocks = [_actions_block(interaction, request, remind)]
    hidden = len(request.actions) - MAX_ACTION_BUTTONS
    if hidden > 0:
        blocks.append(_more_actions_block(hidden))
    return blocks


def _button(label: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "action_id": action_id,
        "text": plain_text(one_line(label), BUTTON_TEXT),
        "value": value,
    }
    if style:
        button["style"] = style
    return button


def _confirm(title: str, text: str, confirm: str, deny: str) -> dict[str, Any]:
    return {
        "title": plain_text(title, CONFIRM_TITLE),
        "text": plain_text(text, CONFIRM_TEXT),
        "confirm": plain_text(confirm, CONFIRM_BUTTON),
        "deny": plain_text(deny, CONFIRM_BUTTON),
        "style": "danger",
    }


def _actions_block(
    interaction: Interaction, request: QuestionRequest, remind: dict[str, Any] | None
) -> dict[str, Any]:
    elements: list[dict[str, Any]] = []
    quick = is_quick_question(request)
    if quick:
        for index, option in enumerate(request.questions[0].options or []):
            action_id = indexed_action_id(ActionId.QUICK_OPTION, index)
            value = quick_option_value(interaction.id, index)
            elements.append(_button(option.label or option.id, action_id, value))
    if request.questions:
        style = None if quick else "primary"
        elements.append(_button(ANSWER_LABEL, ActionId.ANSWER.value, interaction.id, style))
    for index, action in enumerate(request.actions[:MAX_ACTION_BUTTONS]):
        action_id = indexed_action_id(ActionId.QUESTION_ACTION, index)
        value = action_choice_value(interaction.id, index)
        label = action.label or action.id
        if action.style == "danger":
            button = _button(label, action_id, value, "danger")
            shown = truncate(one_line(label), CONFIRM_LABEL_CHARS)
            text = f"The agent will be told you chose “{shown}” instead of answering."
            button["confirm"] = _confirm("Choose this?", text, "Yes, choose it", "Go back")
        else:
            style = "primary" if action.style == "primary" else None
            button = _button(label, action_id, value, style)
        elements.append(button)
    dismiss = _button(DISMISS_LABEL, ActionId.QUESTION_DISMISS.value, interaction.id)
    dismiss["confirm"] = _confirm(
        "Dismiss this question?",
        "The agent gets no answer and carries on without one.",
        "Dismiss",
        "Keep it",
    )
    elements.append(dismiss)
    if remind is not None:
        elements.append(remind)
    return {
        "type": "actions",
        "block_id": question_actions_block_id(interaction.id),
        "elements": elements,
    }


def _more_actions_block(hidden: int) -> dict[str, Any]:
    noun = "action is" if hidden == 1 else "actions are"
    text = f"{hidden} more {noun} offered by the agent but can only be chosen outside Slack."
    return {
        "type": "context",
        "block_id": _MORE_ACTIONS_BLOCK_ID,
        "elements": [mrkdwn(text, MORE_TEXT)],
    }
