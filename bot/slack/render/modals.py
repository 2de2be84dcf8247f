"""Small modals around a decision: the optional reason or note, and one-line notices.

The reason a person types is sent to Novo with a prefix saying who gave it
("Denied in Slack by U123 (Ada): …"), since the API does not attribute
reasons. The input's `max_length` leaves that prefix room, so the whole
reason always fits the API's limit and the person's words are never cut.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from bot.novo.models import Interaction
from bot.novo.rules import MAX_REASON_CHARS
from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId
from bot.slack.limits import INPUT_LABEL, INPUT_PLACEHOLDER, MODAL_BUTTON, MODAL_TITLE, SECTION_TEXT
from bot.slack.render.common import clean_rendered, defuse_mrkdwn, mrkdwn, plain_text
from bot.slack.render.status import inline_code

ReasonIntent = Literal["deny", "approve_note"]

REASON_PREFIX_BUDGET = 200
"""Room kept for "Denied in Slack by <user id> (<name>): " in front of the typed reason.

Whoever builds the prefix must keep it within this budget (cut the name);
then prefix + typed text <= rules.MAX_REASON_CHARS always holds.
"""
REASON_INPUT_MAX = MAX_REASON_CHARS - REASON_PREFIX_BUDGET

CLOSE_LABEL = "Close"
CANCEL_LABEL = "Cancel"
_SUMMARY_BLOCK_ID = "novo_reason_summary"
_NOTICE_BLOCK_ID = "novo_notice"


_INTENTS: dict[ReasonIntent, dict[str, str]] = {
    "deny": {
        "callback_id": CallbackId.DENY_MODAL.value,
        "title": "Deny tool call",
        "submit": "Deny",
        "label": "Reason",  # optional: Slack adds "(optional)" itself
        "placeholder": "Why not? The agent sees this.",
        "effect": "The tool will not run; the agent is told it was denied, with your reason.",
    },
    "approve_note": {
        "callback_id": CallbackId.APPROVE_NOTE_MODAL.value,
        "title": "Approve with note",
        "submit": "Approve",
        "label": "Note",  # optional: Slack adds "(optional)" itself
        "placeholder": "Anything the agent or reviewers should know",
        "effect": "The tool will run; your note is recorded with the approval.",
    },
}


def render_reason_modal(interaction: Interaction, intent: ReasonIntent) -> dict[str, Any]:
    """The modal opened by Deny or "Approve with note…".

    `private_metadata` is the interaction id alone: the submit listener
    re-reads the interaction, so nothing shown here can be stale or forged.
    """
    words = _INTENTS[intent]
    summary = (
        f"Tool {inline_code(interaction.tool_name)} · Agent {inline_code(interaction.agent_id)}"
        f"\n{words['effect']}"
    )
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": words["callback_id"],
        "private_metadata": interaction.id,
        "title": plain_text(words["title"], MODAL_TITLE),
        "submit": plain_text(words["submit"], MODAL_BUTTON),
        "close": plain_text(CANCEL_LABEL, MODAL_BUTTON),
        "blocks": [
            {
                "type": "context",
                "block_id": _SUMMARY_BLOCK_ID,
                "elements": [mrkdwn(summary, SECTION_TEXT)],
            },
            {
                "type": "input",
                "block_id": REASON_BLOCK_ID,
                "optional": True,
                "label": plain_text(words["label"], INPUT_LABEL),
                "element": {
                    "type": "plain_text_input",
                    "action_id": ActionId.REASON_INPUT.value,
                    "multiline": True,
                    "max_length": REASON_INPUT_MAX,
                    "placeholder": plain_text(words["placeholder"], INPUT_PLACEHOLDER),
                },
            },
        ],
    }
    return cast(dict[str, Any], clean_rendered(view))


def render_notice_modal(title: str, text: str) -> dict[str, Any]:
    """A read-only modal ("Submitting…", "no longer waiting", an error) showing mrkdwn `text`.

    `text` is mrkdwn its builder wrote: mentions it placed (`<@U123>`) work,
    and the pieces it quotes (a reason, a label, Novo's error message) were
    escaped once by that builder. `defuse_mrkdwn` keeps both as they are and
    escapes anything still raw, so a piece nobody escaped cannot ping or link
    either, and nothing is escaped twice.
    """
    view = {
        "type": "modal",
        "callback_id": CallbackId.NOTICE_MODAL.value,
        "title": plain_text(title, MODAL_TITLE),
        "close": plain_text(CLOSE_LABEL, MODAL_BUTTON),
        "blocks": [
            {
                "type": "section",
                "block_id": _NOTICE_BLOCK_ID,
                "text": mrkdwn(defuse_mrkdwn(text), SECTION_TEXT),
            }
        ],
    }
    return cast(dict[str, Any], clean_rendered(view))


def render_deny_all_modal(group_ref: str, count: int) -> dict[str, Any]:
    """The modal opened by Deny all: one reason for every item denied.

    `private_metadata` is the button's value (the group and the version of the
    message clicked), so the submission denies what that message offered, of
    what the person submitting may decide.
    """
    calls = "tool call" if count == 1 else "tool calls"
    view: dict[str, Any] = {
        "type": "modal",
        "callback_id": CallbackId.DENY_ALL_MODAL.value,
        "private_metadata": group_ref,
        "title": plain_text("Deny all", MODAL_TITLE),
        "submit": plain_text(f"Deny {count}", MODAL_BUTTON),
        "close": plain_text(CANCEL_LABEL, MODAL_BUTTON),
        "blocks": [
            {
                "type": "context",
                "block_id": _SUMMARY_BLOCK_ID,
                "elements": [
                    mrkdwn(
                        f"Denies the {count} {calls} still waiting that you may decide;"
                        " the agent sees your reason on each.",
                        SECTION_TEXT,
                    )
                ],
            },
            {
                "type": "input",
                "block_id": REASON_BLOCK_ID,
                "optional": True,
                "label": plain_text("Why deny them?", INPUT_LABEL),
                "element": {
                    "type": "plain_text_input",
                    "action_id": ActionId.REASON_INPUT.value,
                    "multiline": True,
                    "max_length": REASON_INPUT_MAX,
                },
            },
        ],
    }
    return cast(dict[str, Any], clean_rendered(view))
