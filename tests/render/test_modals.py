"""Reason / note modal and notice modal."""

from __future__ import annotations

import pytest

from bot.novo.models import Interaction
from bot.novo.rules import MAX_REASON_CHARS
from bot.slack.ids import REASON_BLOCK_ID, ActionId, CallbackId
from bot.slack.render.modals import (
    REASON_INPUT_MAX,
    REASON_PREFIX_BUDGET,
    ReasonIntent,
    render_notice_modal,
    render_reason_modal,
)
from novo_dev.localslack.validation import assert_valid_view

from .conftest import MakeApproval
from .helpers import assert_inert


@pytest.mark.parametrize(
    ("intent", "callback_id", "title", "submit"),
    [
        ("deny", CallbackId.DENY_MODAL, "Deny tool call", "Deny"),
        ("approve_note", CallbackId.APPROVE_NOTE_MODAL, "Approve with note", "Approve"),
    ],
)
def test_reason_modal(
    intent: ReasonIntent, callback_id: str, title: str, submit: str, approval: Interaction
) -> None:
    view = render_reason_modal(approval, intent)
    assert_valid_view(view)
    assert view["callback_id"] == callback_id
    assert view["private_metadata"] == approval.id
    assert view["title"]["text"] == title
    assert view["submit"]["text"] == submit
    inputs = [b for b in view["blocks"] if b["type"] == "input"]
    assert len(inputs) == 1
    reason = inputs[0]
    assert reason["block_id"] == REASON_BLOCK_ID and reason["optional"] is True
    element = reason["element"]
    assert element["action_id"] == ActionId.REASON_INPUT
    assert element["multiline"] is True
    assert element["max_length"] == REASON_INPUT_MAX
    summary = view["blocks"][0]["elements"][0]["text"]
    assert "`deploy_service`" in summary and "`agt_deployer`" in summary


def test_prefix_budget_holds_a_long_attribution() -> None:
    prefix = f"Denied in Slack by {'N' * 80} (U0123456789AB): "
    assert len(prefix) <= REASON_PREFIX_BUDGET
    assert REASON_INPUT_MAX + REASON_PREFIX_BUDGET == MAX_REASON_CHARS


def test_reason_modal_escapes_agent_text(make_approval: MakeApproval) -> None:
    interaction = make_approval(tool_name="<!channel> " + "t" * 3_000, agent_id="<@U999>")
    view = render_reason_modal(interaction, "deny")
    assert_valid_view(view)
    assert_inert(view["blocks"][0]["elements"][0]["text"])


def test_notice_modal_is_read_only_and_escaped() -> None:
    view = render_notice_modal("A title far longer than Slack allows", "Failed: <!here> & more")
    assert_valid_view(view)
    assert view["callback_id"] == CallbackId.NOTICE_MODAL
    assert "submit" not in view
    assert view["close"]["text"] == "Close"
    assert len(view["title"]["text"]) <= 24
    text = view["blocks"][0]["text"]["text"]
    assert text == "Failed: &lt;!here&gt; &amp; more"


def test_notice_modal_cuts_long_text() -> None:
    view = render_notice_modal("Error", "x" * 10_000)
    assert_valid_view(view)
