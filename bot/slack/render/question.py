"""The Slack message for an agent's question, in every state it goes through.

Layout while an answer is possible, top to bottom: header (the request's
title), who asks and by when, the details, each question in brief, the
buttons, and a short details line (run, step). Once the interaction has
ended the message shrinks to header, outcome (who, when, the answers or the
action chosen) and a *Details* button: option lists and details go.

The buttons while pending are built by :mod:`question_buttons`.

Everything the agent wrote is escaped and its Markdown translated (see
:mod:`markdown`); prompts and labels, shown inside bold or as plain text,
lose their markup instead. The message keeps under Slack's
~12,000-character total by fixed budgets (`TEXT_BUDGET`), so nothing has to
be measured after rendering.
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import ValidationError

from bot.novo.models import InputResponse, Interaction, Question, QuestionRequest
from bot.slack.ids import QUESTION_ACTIONS_BLOCK_PREFIX, interaction_in_block_id
from bot.slack.limits import BUTTON_TEXT, HEADER_TEXT, SECTION_TEXT
from bot.slack.question_answers import summarize_answers
from bot.slack.render.common import (
    clean_rendered,
    cut_words,
    date_token,
    escape_inline,
    escape_mrkdwn,
    mrkdwn,
    plain_text,
)
from bot.slack.render.context import MessageContext, RenderedMessage
from bot.slack.render.ending import expiry_line
from bot.slack.render.markdown import fit_markdown
from bot.slack.render.question_buttons import (
    BUTTON_BUDGET,
    CONFIRM_LABEL_CHARS,
    MORE_TEXT,
    one_line,
    question_actions_block,
)
from bot.slack.render.question_buttons import MAX_ACTION_BUTTONS as MAX_ACTION_BUTTONS
from bot.slack.render.question_modal import fit_escaped
from bot.slack.render.record import CONTEXT_TEXT, asker_plain, context_block, details_block
from bot.slack.render.remind_menu import remind_overflow
from bot.slack.render.status import (
    ICON_CANCELLED,
    ICON_EXPIRED,
    STATUS_BLOCK_ID,
    STATUS_TEXT,
    accepts_decisions,
    display_state,
    is_ended,
    message_metadata,
    status_block,
    status_summary,
)
from bot.slack.render.thread_reply import HINT_TEXT, hint_block
from bot.slack.thread_answers import accepts_replies

HEADER_ICON = "❓ "
UNTITLED = "The agent has a question"
EXPIRED_TEXT = "Expired — nobody answered in time"
DISMISSED_ELSEWHERE_TEXT = "Dismissed outside Slack"
CHOSE_TEXT = "Chose “{label}”"
UNREADABLE_ANSWERS = "_The recorded answers could not be read._"

DETAILS_TEXT = 800
QUESTIONS_TEXT = 1_500
ANSWERS_TEXT = 1_800
PROMPT_CHARS = 150
OPTION_LABEL_CHARS = 40
SHOWN_OPTIONS = 5
ANSWER_CHARS = 500
FALLBACK_TITLE_CHARS = 150

TEXT_BUDGET = (
    HEADER_TEXT
    + CONTEXT_TEXT
    + DETAILS_TEXT
    + QUESTIONS_TEXT
    + MORE_TEXT
    + STATUS_TEXT
    + max(ANSWERS_TEXT + MORE_TEXT + BUTTON_TEXT, BUTTON_BUDGET + MORE_TEXT + HINT_TEXT)
)
"""The most text one question message holds (answers and buttons never show together);
the tests keep it under MESSAGE_TEXT_BUDGET."""

_HEADER_BLOCK_ID = "novo_q_header"
_DETAILS_BLOCK_ID = "novo_q_details"
_QUESTIONS_BLOCK_ID = "novo_q_questions:{index}"
_ANSWERS_BLOCK_ID = "novo_q_answers:{index}"


def render_question_message(interaction: Interaction, ctx: MessageContext) -> RenderedMessage:
    """The whole message for ``interaction`` as it stands, re-rendered from scratch each time."""
    request = interaction.request or QuestionRequest()
    blocks: list[dict[str, Any]] = [_header_block(request), _status_block(interaction, ctx)]
    if is_ended(interaction, ctx):
        blocks.extend(_answer_blocks(interaction, ctx))
        blocks.append(details_block(interaction.id))
    else:
        blocks.extend(_body_blocks(interaction, ctx, request))
    message: RenderedMessage = {
        "text": _fallback_text(interaction, ctx, request),
        "blocks": blocks,
        "metadata": message_metadata(interaction),
    }
    return cast(RenderedMessage, clean_rendered(message))


def _body_blocks(
    interaction: Interaction, ctx: MessageContext, request: QuestionRequest
) -> list[dict[str, Any]]:
    """What answering needs: the details, each question in brief, the buttons, the details line."""
    blocks: list[dict[str, Any]] = []
    if request.details:
        details = fit_markdown(request.details, DETAILS_TEXT)
        blocks.append(
            {
                "type": "section",
                "block_id": _DETAILS_BLOCK_ID,
                "text": mrkdwn(details, SECTION_TEXT),
            }
        )
    lines = [_question_line(q, i) for i, q in enumerate(request.questions)]
    blocks.extend(_sections(lines, QUESTIONS_TEXT, _QUESTIONS_BLOCK_ID, "question"))
    if accepts_decisions(interaction, ctx):
        remind = remind_overflow(interaction, ctx)
        blocks.extend(question_actions_block(interaction, request, remind))
        if accepts_replies(request):
            blocks.append(hint_block())
    blocks.append(context_block(interaction, ctx))
    return blocks


def interaction_id_from_block_id(block_id: str) -> str | None:
    return interaction_in_block_id(QUESTION_ACTIONS_BLOCK_PREFIX, block_id)


def question_title(request: QuestionRequest, limit: int = HEADER_TEXT) -> str:
    """The request's title as one plain line, cut at a word break; a stock line when empty."""
    return cut_words(one_line(request.title), limit) or UNTITLED


def _header_block(request: QuestionRequest) -> dict[str, Any]:
    """Plain text: nothing in it is interpreted by Slack, so it needs no escaping, only a cut."""
    title = question_title(request, HEADER_TEXT - len(HEADER_ICON))
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
    prompt = one_line(question.prompt) or f"Question {index + 1}"
    line = f"• *{fit_escaped(prompt, PROMPT_CHARS, escape_inline)}* — _{_question_kind(question)}_"
    options = question.options or []
    if not options:
        return line
    labels = [
        fit_escaped(one_line(o.label or o.id), OPTION_LABEL_CHARS, escape_inline)
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
        full = expiry_line(interaction, ctx, ICON_EXPIRED)
        text = full or f"{ICON_EXPIRED} {EXPIRED_TEXT} · {_finalized_at_token(interaction)}"
    elif state == "cancelled":
        text = f"{ICON_CANCELLED} {DISMISSED_ELSEWHERE_TEXT} · {_finalized_at_token(interaction)}"
        reason = interaction.ending_reason
        if reason:
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
        label = fit_escaped(one_line(action), CONFIRM_LABEL_CHARS)
        return _sections([CHOSE_TEXT.format(label=label)], ANSWERS_TEXT, _ANSWERS_BLOCK_ID, "")
    lines = [
        f"*{fit_escaped(one_line(prompt), PROMPT_CHARS, escape_inline)}*: "
        + fit_escaped(" ".join(answer.split()), ANSWER_CHARS)
        for prompt, answer in summarize_answers(interaction, responses)
    ]
    return _sections(lines, ANSWERS_TEXT, _ANSWERS_BLOCK_ID, "answer")


def _fallback_text(interaction: Interaction, ctx: MessageContext, request: QuestionRequest) -> str:
    """The notification line: what, who, by when, in plain words; no tokens, no mentions."""
    title = escape_mrkdwn(question_title(request, FALLBACK_TITLE_CHARS))
    state = display_state(interaction, ctx)
    if state == "expired":
        summary = EXPIRED_TEXT
    elif state == "cancelled":
        summary = DISMISSED_ELSEWHERE_TEXT
    else:
        summary = status_summary(interaction, ctx)
    if accepts_decisions(interaction, ctx):
        return f"{title} — {asker_plain(interaction, ctx)} asks · {summary}"
    return f"{title} · {summary}"
