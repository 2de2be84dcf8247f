"""The words about answering a question by replying in its thread.

The hint in the question's message, and what the person who replied is told
(only they see it, in the thread): what a reply there can answer, with the
*Answer* button for the form, and that the question is no longer waiting.
Agent text (labels) is escaped and cut as everywhere else.
"""

from __future__ import annotations

from typing import Any

from bot.slack.ids import ActionId
from bot.slack.limits import BUTTON_TEXT, SECTION_TEXT
from bot.slack.render.common import clean_rendered, escape_inline, mrkdwn, plain_text
from bot.slack.render.question_buttons import ANSWER_LABEL, one_line
from bot.slack.render.question_modal import fit_escaped
from bot.slack.thread_answers import ReplyTargets

REPLY_HINT = "💬 Or reply in this thread"
HINT_BLOCK_ID = "novo_q_reply_hint"
HINT_TEXT = len(REPLY_HINT)
"""What the hint adds to a question message's text (counted in its budget)."""
THREAD_VIA = "replying in the thread"
"""How the reason Novo receives says the answer was given."""
REACTION = "white_check_mark"
"""The reaction added to a reply once Novo has taken its answer (✅)."""

LABEL_CHARS = 40
SHOWN_LABELS = 10
NOTHING_TEXT = "A reply in this thread can't answer this question."
FORM_TEXT = "Press *Answer* to answer it with the form."


def _labels(names: list[str]) -> str:
    shown = [f"*{fit_escaped(one_line(n), LABEL_CHARS, escape_inline)}*" for n in names]
    if len(shown) > SHOWN_LABELS:
        shown = [*shown[:SHOWN_LABELS], f"{len(shown) - SHOWN_LABELS} more"]
    return ", ".join(shown)


def reply_help_text(targets: ReplyTargets) -> str:
    """What a reply can answer, one line for each way, and where the form is."""
    lines: list[str] = []
    if targets.free_text is not None:
        lines.append("• any text: it is sent as your answer")
    choice = targets.single_choice
    if choice is not None:
        names = [o.label or o.id for o in choice.options or []]
        lines.append(f"• one of {_labels(names)} (its name alone) to choose it")
        if choice.allow_other:
            lines.append("• `other: …` to answer in your own words")
    if targets.actions:
        names = [a.label or a.id for a in targets.actions]
        lines.append(f"• {_labels(names)} alone to choose that instead of answering")
    if not lines:
        return f"{NOTHING_TEXT} {FORM_TEXT}"
    return "A reply in this thread can answer with:\n" + "\n".join(lines) + f"\n{FORM_TEXT}"


def _with_button(
    text: str, action_id: ActionId, label: str, value: str
) -> tuple[str, list[dict[str, Any]]]:
    """(text, blocks) of a word to the person who replied: the text and one button."""
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": mrkdwn(text, SECTION_TEXT)},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": action_id.value,
                    "text": plain_text(label, BUTTON_TEXT),
                    "value": value,
                    "style": "primary",
                }
            ],
        },
    ]
    cleaned: list[dict[str, Any]] = clean_rendered(blocks)
    return text, cleaned


def reply_help(interaction_id: str, targets: ReplyTargets) -> tuple[str, list[dict[str, Any]]]:
    """(text, blocks) of the word to someone whose reply answered nothing: how to, and
    the form's *Answer* button."""
    return _with_button(reply_help_text(targets), ActionId.ANSWER, ANSWER_LABEL, interaction_id)


SEND_LABEL = "Send"
OFFER_CHARS = 300
"""Of an answer or a prompt, shown in the offer (the answer sent is never cut)."""


def send_offer(answer: str, question: str, value: str) -> tuple[str, list[dict[str, Any]]]:
    """(text, blocks) of the offer to send a reply as the answer, with *Send*:
    `Send "EU" as your answer to "Which region?"`. Only the click decides."""
    said = fit_escaped(one_line(answer), OFFER_CHARS, escape_inline)
    asked = fit_escaped(one_line(question), OFFER_CHARS, escape_inline)
    text = f"Send “{said}” as your answer to “{asked}”?"
    return _with_button(text, ActionId.SEND_REPLY, SEND_LABEL, value)


def kept_as_sent_text(answer: str, deleted: bool) -> str:
    """The word to someone who edited or deleted a reply whose answer was already sent:
    the answer stays as it was sent."""
    said = fit_escaped(one_line(answer), OFFER_CHARS, escape_inline)
    done = "deleted your reply" if deleted else "edited your reply"
    return f"You {done}, but your answer stays as it was sent: “{said}”."


def without_reply_hint(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A message's blocks shown away from its thread (a `/novo show` card): no hint."""
    return [b for b in blocks if b.get("block_id") != HINT_BLOCK_ID]


def hint_block() -> dict[str, Any]:
    """The line under a question a reply can answer."""
    return {"type": "context", "block_id": HINT_BLOCK_ID, "elements": [mrkdwn(REPLY_HINT, 200)]}
