"""Every action_id, callback_id and block_id the bridge puts in Slack, in one place.

Listeners match on these and renderers emit them; neither spells a string of
its own, so renaming one can never orphan a button.
"""

from enum import StrEnum


class ActionId(StrEnum):
    # approval message
    APPROVE = "novo_approve"
    DENY = "novo_deny"
    APPROVAL_OVERFLOW = "novo_approval_overflow"  # overflow: "approve with note"
    VIEW_INPUT = "novo_view_input"
    REVOKE_ALLOWANCE = "novo_revoke_allowance"  # value: the allowance id (message or Home)
    # step group message (value: the group id)
    APPROVE_ALL = "novo_approve_all"
    DENY_ALL = "novo_deny_all"
    # input viewer modal
    INPUT_PAGE_PREV = "novo_input_prev"
    INPUT_PAGE_NEXT = "novo_input_next"
    # question message
    ANSWER = "novo_answer"
    QUESTION_ACTION = "novo_q_action"  # value: "<interaction id>|<action index>"
    QUICK_OPTION = "novo_q_quick"  # value: "<interaction id>|<option index>"
    QUESTION_DISMISS = "novo_q_dismiss"  # button, behind a confirmation; value: interaction id
    QUESTION_OVERFLOW = "novo_q_overflow"  # overflow: "dismiss" (messages posted before the button)
    QUESTION_REMIND = "novo_q_remind"  # overflow: the "Remind me" choices
    SEND_REPLY = "novo_q_send_reply"  # a thread reply's offer; value: see `thread_replies`
    # question modal
    QUESTION_NEXT_PAGE = "novo_q_next"
    # inputs inside modals (action ids of input elements)
    REASON_INPUT = "novo_reason"
    ANSWER_INPUT = "novo_answer_input"
    OTHER_TEXT_INPUT = "novo_other_text"


GROUP_ACTIONS_BLOCK_ID = "novo_group_actions"
GROUP_METADATA_EVENT_TYPE = "novo_step_group"
"""A step group's message metadata event type; its payload carries the group id."""
ESCALATION_METADATA_EVENT_TYPE = "novo_escalation"
"""An escalation message's metadata: it names its interaction, so one left in doubt by a
crash is found in its channel like any other message."""


class CallbackId(StrEnum):
    DENY_MODAL = "novo_deny_modal"
    APPROVE_NOTE_MODAL = "novo_approve_note_modal"
    INPUT_VIEWER = "novo_input_viewer"
    QUESTION_MODAL = "novo_question_modal"
    NOTICE_MODAL = "novo_notice_modal"
    DENY_ALL_MODAL = "novo_deny_all_modal"  # private_metadata: the group id


class OverflowValue(StrEnum):
    APPROVE_WITH_NOTE = "approve_note"
    WITHDRAW_APPROVAL = "withdraw_approval"  # a vote towards a quorum, taken back
    # standing approvals (render.allowance): approve, and allow the tool for a while
    ALLOW_FOR_RUN = "allow_run"
    ALLOW_FOR_HOUR = "allow_tool"
    DISMISS = "dismiss"
    # "Remind me" (see slack.snooze_choices): in an approval's overflow, and in a
    # question's only one (Dismiss is a button: its confirmation would cover them)
    REMIND_15_MIN = "remind_15m"
    REMIND_1_HOUR = "remind_1h"
    REMIND_BEFORE_EXPIRY = "remind_before_expiry"


METADATA_EVENT_TYPE = "novo_interaction"
"""Slack message metadata event type; its payload carries the interaction id."""

REASON_BLOCK_ID = "novo_reason_block"

APPROVAL_ACTIONS_BLOCK_PREFIX = "novo_approval_actions"
"""The approval message's actions block_id is `<prefix>:<interaction id>`.

The overflow menu's option value is a fixed OverflowValue, so a listener
handling it finds the interaction in the block_id (see
`render.approval.interaction_id_from_block_id`).
"""

QUESTION_ACTIONS_BLOCK_PREFIX = "novo_q_actions"
"""The question message's actions block_id is `<prefix>:<interaction id>`, so the Dismiss
overflow's listener finds the interaction as the approval's does (see
`render.question.interaction_id_from_block_id`)."""


BLOCK_ID_SEPARATOR = ":"


def actions_block_id(prefix: str, interaction_id: str) -> str:
    """An actions block_id that carries its interaction, for listeners of overflow menus.

    An overflow option's value is a fixed choice, so the interaction it acts
    on travels in the block_id instead.
    """
    return f"{prefix}{BLOCK_ID_SEPARATOR}{interaction_id}"


def interaction_in_block_id(prefix: str, block_id: str) -> str | None:
    """The interaction id of an `actions_block_id(prefix, …)`, None for any other block."""
    found_prefix, separator, interaction_id = block_id.partition(BLOCK_ID_SEPARATOR)
    if found_prefix != prefix or not separator or not interaction_id:
        return None
    return interaction_id
