"""Golden files: the exact Block Kit of a typical approval in each state, and its modals.

The targeted tests check properties; these catch every other change in what
people see. A difference fails with the golden file's name. To refresh after
an intended change run ``pytest --update-golden`` and review ``git diff``
(see ``golden_files``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.context import MessageContext
from bot.slack.render.input_viewer import render_input_viewer
from bot.slack.render.modals import ReasonIntent, render_notice_modal, render_reason_modal
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view

from .conftest import NOW, approval_fields, state_cases
from .golden_files import check_golden, stored_names

GOLDEN = Path(__file__).parent / "golden"
STATES = [
    "pending",
    "pending_worker",
    "approved_in_slack",
    "denied_in_slack",
    "approved_elsewhere",
    "denied_elsewhere",
    "expired",
    "cancelled",
    "queued",
    "gone",
]
RICH_PREVIEW = {
    "title": "Deploy **api-gateway** 2.4.1 to prod?",
    "summary": "Rolling deploy of `9f3c2ab` to **api-gateway**; see [the plan](https://wiki.example/p).",
    "estimatedRows": 184_223,
    "recipients": [f"oncall{n}@example.com" for n in range(12)],
    "dryRun": False,
    "startsAt": "2025-03-14T10:00:00Z",
}
RICH = {
    "pending_named_linked": MessageContext(
        now=NOW,
        agent_names={"agt_deployer": "Release Bot"},
        run_link_template="https://novo.example.com/runs/{runId}",
    ),
}
OTHERS = [
    "approval_pending_rich_preview",
    "modal_deny",
    "modal_approve_note",
    "modal_notice",
    "details_pending_page_index_0",
    "details_ended_rich_preview",
    "input_viewer_page_index_1",
]


def test_every_state_has_a_golden() -> None:
    assert set(STATES) == set(state_cases())


def test_no_golden_file_is_left_over() -> None:
    expected = {f"approval_{state}" for state in STATES} | set(OTHERS)
    assert stored_names(GOLDEN) <= expected


@pytest.mark.parametrize("state", STATES)
def test_approval_message(state: str, update_golden: bool) -> None:
    interaction, ctx = state_cases()[state]
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    check_golden(GOLDEN, f"approval_{state}", message, update=update_golden)


def rich_approval(**overrides: Any) -> Interaction:
    fields = approval_fields(preview=RICH_PREVIEW)
    fields["input"] = {
        "service": "api-gateway",
        "version": "2.4.1",
        "environment": "production",
        "notify": RICH_PREVIEW["recipients"],
        "strategy": {"kind": "rolling", "maxUnavailable": 1},
        "dryRun": False,
        "ticket": "CHG-1182",
    }
    fields.update(overrides)
    return Interaction.model_validate(fields)


def test_approval_with_a_rich_preview(update_golden: bool) -> None:
    message = render_approval_message(rich_approval(), RICH["pending_named_linked"])
    assert_valid_message(message)
    check_golden(GOLDEN, "approval_pending_rich_preview", message, update=update_golden)


def test_reason_modals(update_golden: bool) -> None:
    interaction = Interaction.model_validate(approval_fields())
    intents: list[ReasonIntent] = ["deny", "approve_note"]
    for intent in intents:
        view = render_reason_modal(interaction, intent)
        assert_valid_view(view)
        check_golden(GOLDEN, f"modal_{intent}", view, update=update_golden)


def test_notice_modal(update_golden: bool) -> None:
    view = render_notice_modal("Submitting…", "Sending your decision to Novo…")
    assert_valid_view(view)
    check_golden(GOLDEN, "modal_notice", view, update=update_golden)


def test_details_modal(update_golden: bool) -> None:
    pending = Interaction.model_validate(approval_fields())
    view = render_input_viewer(pending, 0)
    assert_valid_view(view)
    check_golden(GOLDEN, "details_pending_page_index_0", view, update=update_golden)
    ended = rich_approval(status="resolved", decision="allow", expires_at=None)
    view = render_input_viewer(ended, 0, ctx=RICH["pending_named_linked"])
    assert_valid_view(view)
    check_golden(GOLDEN, "details_ended_rich_preview", view, update=update_golden)


def test_input_viewer_middle_page(update_golden: bool) -> None:
    rows = [{"host": f"web-{n:03d}", "drain": n % 3 == 0} for n in range(1_200)]
    interaction = Interaction.model_validate(approval_fields(input={"hosts": rows}))
    view = render_input_viewer(interaction, 1)
    assert_valid_view(view)
    check_golden(GOLDEN, "input_viewer_page_index_1", view, update=update_golden)
