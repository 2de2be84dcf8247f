"""The Slack message for an agent's question, in every state it goes through.

Layout, top to bottom: header (the request's title), who asks, the details,
each question in brief, where it stands (deadline or outcome), the answers
once given, and, while an answer is possible, the buttons. The layout is kept
after the fact so the channel stays a readable record of what was answered.

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
* An overflow holding **Dismiss**, behind a confirmation on the overflow
  element (an overflow's options cannot carry their own).

Slack wants action ids unique within a block, so buttons of one kind are
``<ActionId>:<index>`` (``novo_q_quick:0``, ``novo_q_action:2``). Listeners
match a kind with ``question_form.action_id_pattern(ActionId.…)``, i.e.
``^novo_q_quick(?::\\d+)?$``, and read everything else from the value.

Everything the agent wrote is escaped. The message keeps under Slack's
~12,000-character total by fixed budgets (`TEXT_BUDGET`), so nothing has to
be measured after rendering.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import ValidationError

from bot.novo.models import InputResponse, Interaction, Question, QuestionRequest
from bot.slack.ids import (
    QUESTION_ACTIONS_BLOCK_PREFIX,
    ActionId,
    OverflowValue,
    actions_block_id,
    interaction_in_block_id,
)
from bot.slack.limits import (
    BUTTON_TEXT,
    CONFIRM_BUTTON,
    CONFIRM_TEXT,
    CONFIRM_TITLE,
    HEADER_TEXT,
    OPTION_TEXT,
    SECTION_TEXT,
)
from bot.slack.question_form import (
    QUICK_OPTIONS_MAX,
    action_choice_value,
    indexed_action_id,
    is_quick_question,
    quick_option_value,
    summarize_answers,
)
from bot.slack.render.common import (
    clean_rendered,
    date_token,
    escape_inline,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
    truncate,
)
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.question_modal import fit_escaped
from bot.slack.render.status import (
    CONTEXT_TEXT,
    ICON_CANCELLED,
    ICON_EXPIRED,
    STATUS_BLOCK_ID,
    STATUS_TEXT,
    accepts_decisions,
    context_block,
    display_state,
    message_metadata,
    status_block,
    status_summary,
)

HEADER_ICON = "❓ "
UNTITLED = "The agent has a question"
ANSWER_LABEL = "Answer…"
DISMISS_LABEL = "Dismiss"
EXPIRED_TEXT = "Expired — nobody answered in time"
DISMISSED_ELSEWHERE_TEXT = "Dismissed outside Slack"
CHOSE_TEXT = "Chose “{label}”"
UNREADABLE_ANSWERS = "_The recorded answers could not be read._"

DETAILS_TEXT = 1_200
QUESTIONS_TEXT = 2_500
ANSWERS_TEXT = 2_500
PROMPT_CHARS = 150
OPTION_LABEL_CHARS = 40
SHOWN_OPTIONS = 5
ANSWER_CHARS = 500
MAX_ACTION_BUTTONS = 10
CONFIRM_LABEL_CHARS = 100
MORE_TEXT = 100
FALLBACK_TITLE_CHARS = 150
CONFIRM_DIALOG_TEXT = 250
"""All the text of one of our confirm dialogs: fixed words and a label cut to 100."""
BUTTON_BUDGET = (QUICK_OPTIONS_MAX + 1 + MAX_ACTION_BUTTONS + 1) * BUTTON_TEXT + (
    MAX_ACTION_BUTTONS + 1
) * CONFIRM_DIALOG_TEXT
"""Every button's label and every confirm dialog at its largest."""

TEXT_BUDGET = (
    HEADER_TEXT
    + CONTEXT_TEXT
    + DETAILS_TEXT
    + QUESTIONS_TEXT
    + MORE_TEXT
    + STATUS_TEXT
    + max(ANSWERS_TEXT + MORE_TEXT, BUTTON_BUDGET + MORE_TEXT)
)
"""The most text one question message holds (answers and buttons never show together);
the tests keep it under MESSAGE_TOTAL_TEXT."""

_HEADER_BLOCK_ID = "novo_q_header"
_DETAILS_BLOCK_ID = "novo_q_details"
_QUESTIONS_BLOCK_ID = "novo_q_questions:{index}"
_ANSWERS_BLOCK_ID = "novo_q_answers:{index}"
_MORE_ACTIONS_BLOCK_ID = "novo_q_more_actions"


def render_question_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    """The whole message for ``interaction`` as it stands, re-rendered from scratch each time."""
    request = interaction.request or QuestionRequest()
    blocks: list[dict[str, Any]] = [_header_block(request), context_block(interaction)]
    if request.details:
        details = fit_escaped(request.details, DETAILS_TEXT)
        blocks.append(
            {
                "type": "section",
                "block_id": _DETAILS_BLOCK_ID,
                "text": mrkdwn(details, SECTION_TEXT),
            }
        )
    lines = [_question_line(q, i) for i, q in enumerate(request.questions)]
    blocks.extend(_sections(lines, QUESTIONS_TEXT, _QUESTIONS_BLOCK_ID, "question"))
    blocks.append(_status_block(interaction, ctx))
    blocks.extend(_answer_blocks(interaction, ctx))
    if accepts_decisions(interaction, ctx):
        blocks.append(_actions_block(interaction, request))
        hidden = len(request.actions) - MAX_ACTION_BUTTONS
        if hidden > 0:
            blocks.append(_more_actions_block(hidden))
    message: RenderedMessage = {
        "text": _fallback_text(interaction, ctx, request),
        "blocks": blocks,
        "metadata": message_metadata(interaction),
    }
    return cast(RenderedMessage, clean_rendered(message))


def question_actions_block_id(interaction_id: str) -> str:
    return actions_block_id(QUESTION_ACTIONS_BLOCK_PREFIX, interaction_id)


def interaction_id_from_block_id(block_id: str) -> str | None:
    return interaction_in_block_id(QUESTION_ACTIONS_BLOCK_PREFIX, block_id)


def _one_line(text: str) -> str:
    """Agent text inside a bullet: a newline would end the bullet and the bold around it."""
    return " ".join(text.split())


def _header_block(request: QuestionRequest) -> dict[str, Any]:
    """Plain text: nothing in it is interpreted by Slack, so it needs no escaping, only a cut."""
    title = _one_line(request.title) or UNTITLED
    return {
        "type": "header",
        "block_id": _HEADER_BLOCK_ID,
        "text": plain_text(HEADER_ICON + title, HEADER_TEXT),
    }


def _question_kind(question: Question) -> str:
    if not question.options:
        kind = "free text"
    else:
        kind = "choose several" if question.multiple else "choose one"
        if question.allow_other:
            kind += " or write your own"
    return kind + (", optional" if question.optional else "")


def _question_line(question: Question, index: int) -> str:
    """ "• *Prompt* — _choose one_: A, B, +3 more", every agent string escaped and cut."""
    prompt = _one_line(question.prompt) or f"Question {index + 1}"
    line = f"• *{fit_escaped(prompt, PROMPT_CHARS, escape_inline)}* — _{_question_kind(question)}_"
    options = question.options or []
    if not options:
        return line
    labels = [
        fit_escaped(_one_line(o.label or o.id), OPTION_LABEL_CHARS, escape_inline)
        for o in options[:SHOWN_OPTIONS]
    ]
    if len(options) > SHOWN_OPTIONS:
        labels.append(f"+{len(options) - SHOWN_OPTIONS} more")
    return f"{line}: {', '.join(labels)}"


def _sections(lines: list[str], budget: int, block_id: str, noun: str) -> list[dict[str, Any]]:
    """Lines packed into sections within ``budget`` chars; a last line counts what did not fit."""
    texts: list[str] = []
    used = shown = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        if texts and len(texts[-1]) + 1 + len(line) <= SECTION_TEXT:
            texts[-1] += "\n" + line
        else:
            texts.append(line)
        used += len(line) + 1
        shown += 1
    hidden = len(lines) - shown
    if hidden:
        texts.append(f"_…and {hidden} more {noun}{'' if hidden == 1 else 's'}_")
    return [
        {
            "type": "section",
            "block_id": block_id.format(index=index),
            "text": mrkdwn(text, SECTION_TEXT),
        }
        for index, text in enumerate(texts)
    ]


def _finalized_at_token(interaction: Interaction) -> str:
    return date_token(interaction.resolved_at or interaction.updated_at)


def _status_block(interaction: Interaction, ctx: MessageContext) -> dict[str, Any]:
    """status.py's section, in a question's own words where an approval's would be wrong."""
    state = display_state(interaction, ctx)
    if state == "expired":
        text = f"{ICON_EXPIRED} {EXPIRED_TEXT} · {_finalized_at_token(interaction)}"
    elif state == "cancelled":
        text = f"{ICON_CANCELLED} {DISMISSED_ELSEWHERE_TEXT} · {_finalized_at_token(interaction)}"
        reason = interaction.reason or (interaction.resolution or {}).get("reason")
        if isinstance(reason, str) and reason:
            text += "\nReason: " + fit_escaped(reason, STATUS_TEXT - len(text) - 9)
    else:
        return status_block(interaction, ctx)
    return {"type": "section", "block_id": STATUS_BLOCK_ID, "text": mrkdwn(text, STATUS_TEXT)}


def _recorded_responses(interaction: Interaction) -> list[InputResponse] | None:
    """The answers Novo recorded; None when its record cannot be read as answers."""
    try:
        body = interaction.resolution_body()
    except ValidationError:
        return None
    return list(body.input_responses or []) if body is not None else []


def _chosen_action(interaction: Interaction, responses: list[InputResponse]) -> str | None:
    """The label (or id) of the action chosen, None when the questions were answered."""
    request = interaction.request or QuestionRequest()
    for response in responses:
        action = request.action(response.request_id)
        if action is not None:
            return action.label or action.id
    return None


def _answer_blocks(interaction: Interaction, ctx: MessageContext) -> list[dict[str, Any]]:
    """What was answered, by label: only once Novo has recorded it."""
    state = display_state(interaction, ctx)
    if state not in ("decided", "elsewhere") or interaction.status != "resolved":
        return []
    responses = _recorded_responses(interaction)
    if responses is None:
        return _sections([UNREADABLE_ANSWERS], ANSWERS_TEXT, _ANSWERS_BLOCK_ID, "answer")
    action = _chosen_action(interaction, responses)
    if action is not None:
        said = ctx.decided_in_slack is not None and ctx.decided_in_slack.verb.startswith("Chose")
        if state == "decided" and said:
            return []
        label = fit_escaped(_one_line(action), CONFIRM_LABEL_CHARS)
        return _sections([CHOSE_TEXT.format(label=label)], ANSWERS_TEXT, _ANSWERS_BLOCK_ID, "")
    lines = [
        f"*{fit_escaped(_one_line(prompt), PROMPT_CHARS, escape_inline)}*: "
        + fit_escaped(_one_line(answer), ANSWER_CHARS)
        for prompt, answer in summarize_answers(interaction, responses)
    ]
    return _sections(lines, ANSWERS_TEXT, _ANSWERS_BLOCK_ID, "answer")


def _button(label: str, action_id: str, value: str, style: str | None = None) -> dict[str, Any]:
    button: dict[str, Any] = {
        "type": "button",
        "action_id": action_id,
        "text": plain_text(_one_line(label), BUTTON_TEXT),
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


def _actions_block(interaction: Interaction, request: QuestionRequest) -> dict[str, Any]:
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
            shown = truncate(_one_line(label), CONFIRM_LABEL_CHARS)
            text = f"The agent will be told you chose “{shown}” instead of answering."
            button["confirm"] = _confirm("Choose this?", text, "Yes, choose it", "Go back")
        else:
            style = "primary" if action.style == "primary" else None
            button = _button(label, action_id, value, style)
        elements.append(button)
    elements.append(
        {
            "type": "overflow",
            "action_id": ActionId.QUESTION_OVERFLOW.value,
            "options": [
                {
                    "text": plain_text(DISMISS_LABEL, OPTION_TEXT),
                    "value": OverflowValue.DISMISS.value,
                }
            ],
            "confirm": _confirm(
                "Dismiss this question?",
                "The agent gets no answer and carries on without one.",
                "Dismiss",
                "Keep it",
            ),
        }
    )
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


def _fallback_text(interaction: Interaction, ctx: MessageContext, request: QuestionRequest) -> str:
    """The notification line: plain words, escaped, no tokens that render only in blocks."""
    title = escape_mrkdwn(truncate(_one_line(request.title) or UNTITLED, FALLBACK_TITLE_CHARS))
    agent = escape_mrkdwn(truncate(interaction.agent_id, FALLBACK_TITLE_CHARS))
    state = display_state(interaction, ctx)
    if state == "expired":
        summary = EXPIRED_TEXT
    elif state == "cancelled":
        summary = DISMISSED_ELSEWHERE_TEXT
    else:
        summary = status_summary(interaction, ctx)
    return f"Question from {agent}: {title} — {summary}"
