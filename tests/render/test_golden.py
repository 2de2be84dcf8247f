"""Golden files: the exact Block Kit of a typical approval in each state.

The targeted tests check properties; these catch every other change in what
people see. A difference fails with the golden file's name.

To refresh after an intended change: delete the affected files under
`tests/render/golden/` and run `pytest tests/render/test_golden.py`. Each
missing file is written from the current output and its test fails once,
asking for a review; read the new JSON (and `git diff`) by eye, then rerun.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.render.approval import render_approval_message
from bot.slack.render.input_viewer import render_input_viewer
from bot.slack.render.modals import ReasonIntent, render_notice_modal, render_reason_modal
from bot.slack.render.validate import assert_valid_message, assert_valid_view

from .conftest import approval_fields, state_cases

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


def check_golden(name: str, produced: Any) -> None:
    path = GOLDEN / f"{name}.json"
    text = json.dumps(produced, indent=2, ensure_ascii=False) + "\n"
    if not path.exists():
        path.write_text(text, encoding="utf-8")
        pytest.fail(f"wrote {path.name}: review it, then run the tests again")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(text), path.name


def test_every_state_has_a_golden() -> None:
    assert set(STATES) == set(state_cases())


@pytest.mark.parametrize("state", STATES)
def test_approval_message(state: str) -> None:
    interaction, ctx = state_cases()[state]
    message = render_approval_message(interaction, ctx)
    assert_valid_message(message)
    check_golden(f"approval_{state}", message)


def test_reason_modals() -> None:
    interaction = Interaction.model_validate(approval_fields())
    intents: list[ReasonIntent] = ["deny", "approve_note"]
    for intent in intents:
        view = render_reason_modal(interaction, intent)
        assert_valid_view(view)
        check_golden(f"modal_{intent}", view)


def test_notice_modal() -> None:
    view = render_notice_modal("Submitting…", "Sending your decision to Novo…")
    assert_valid_view(view)
    check_golden("modal_notice", view)


def test_input_viewer_middle_page() -> None:
    rows = [{"host": f"web-{n:03d}", "drain": n % 3 == 0} for n in range(1_200)]
    interaction = Interaction.model_validate(approval_fields(input={"hosts": rows}))
    view = render_input_viewer(interaction, 1)
    assert_valid_view(view)
    check_golden("input_viewer_page_index_1", view)
