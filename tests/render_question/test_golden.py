"""Golden files: the exact Block Kit of a question's message in each state and shape.

Every question shape gets its message and its form (modal page 1), since the
shape decides which element asks it; the ended states show what a decided
message shrinks to. To refresh after an intended change run
``pytest --update-golden`` and review ``git diff``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.novo.models import TIMEOUT_REASON
from bot.slack.render.context import MessageContext, SlackActor, SlackDecision
from bot.slack.render.question import render_question_message
from bot.slack.render.question_modal import render_question_modal
from novo_dev.localslack.validation import assert_valid_message, assert_valid_view
from tests.render.golden_files import check_golden, stored_names

from .conftest import NOW, make_interaction, options, question

GOLDEN = Path(__file__).parent / "golden"
ANN = SlackActor("U0ANN", "Ann Example")
NAMED = {"agt_1": "Migration Planner"}

SHAPES: dict[str, dict[str, Any]] = {
    "quick_options": question(
        "q_go",
        prompt="Go ahead?",
        options=[{"id": "y", "label": "Yes"}, {"id": "n", "label": "No"}],
    ),
    "single_radio": question(
        "q_region",
        prompt="Which **region**?",
        options=[*options(6), {"id": "eu", "label": "EU", "description": "GDPR _default_"}],
    ),
    "static_select": question("q_country", prompt="Country", options=options(40)),
    "external_select": question("q_customer", prompt="Customer", options=options(150)),
    "multi": question("q_env", prompt="Environments", multiple=True, options=options(4)),
    "free_text": question("q_ticket", prompt="Change ticket"),
    "free_text_multiline": question("q_notes", prompt="Notes for the agent", multiline=True),
    "other": question("q_window", prompt="Maintenance window", allowOther=True, options=options(3)),
    "optional": question("q_cc", prompt="Anyone to copy?", optional=True),
}
REQUEST: dict[str, Any] = {
    "title": "Which environments should the **migration** run in?",
    "details": "Plan: [the runbook](https://wiki.example/runbook). **Prod** needs a ticket.",
    "questions": [
        question(
            "q_env",
            prompt="Environments",
            multiple=True,
            options=[{"id": "staging", "label": "Staging"}, {"id": "prod", "label": "Production"}],
        ),
        question(
            "q_notes", prompt="Anything the agent should know?", multiline=True, optional=True
        ),
    ],
    "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
}
ANSWERS = {
    "inputResponses": [
        {"requestId": "q_env", "optionIds": ["prod"]},
        {"requestId": "q_notes", "text": "Ticket CHG-42 is approved."},
    ]
}


def decision(verb: str, note: str | None = None) -> SlackDecision:
    return SlackDecision(actor=ANN, at=NOW, verb=verb, note=note)


def state_cases() -> dict[str, tuple[Any, MessageContext]]:
    ctx = MessageContext(now=NOW, agent_names=NAMED)

    def ended(status: str, resolution: dict[str, Any], **fields: Any) -> Any:
        return make_interaction(REQUEST, status=status, resolution=resolution, **fields)

    return {
        "pending": (make_interaction(REQUEST), ctx),
        "queued": (
            make_interaction(REQUEST),
            MessageContext(now=NOW, queued=decision("Answered"), agent_names=NAMED),
        ),
        "answered_in_slack": (
            ended("resolved", ANSWERS),
            MessageContext(now=NOW, decided_in_slack=decision("Answered")),
        ),
        "answered_elsewhere": (ended("resolved", ANSWERS), ctx),
        "chose_action": (
            ended("resolved", {"inputResponses": [{"requestId": "a_skip"}]}),
            MessageContext(now=NOW, decided_in_slack=decision("Chose “Skip the migration”")),
        ),
        "dismissed_in_slack": (
            ended("cancelled", {"cancel": True}),
            MessageContext(now=NOW, decided_in_slack=decision("Dismissed", "Not needed today")),
        ),
        "dismissed_elsewhere": (
            ended("cancelled", {"cancel": True}, reason="the run was cancelled"),
            ctx,
        ),
        "expired": (ended("cancelled", {"reason": TIMEOUT_REASON}), ctx),
        "gone": (make_interaction(REQUEST), MessageContext(now=NOW, gone=True)),
    }


def shape_interaction(shape: str) -> Any:
    return make_interaction({"title": f"Shape: {shape}", "questions": [SHAPES[shape]]})


def test_no_golden_file_is_left_over() -> None:
    expected = {f"question_{state}" for state in state_cases()}
    expected |= {f"question_shape_{shape}" for shape in SHAPES}
    expected |= {f"question_form_{shape}" for shape in SHAPES}
    assert stored_names(GOLDEN) <= expected


@pytest.mark.parametrize("state", list(state_cases()))
def test_question_message(state: str, update_golden: bool) -> None:
    interaction, ctx = state_cases()[state]
    message = render_question_message(interaction, ctx)
    assert_valid_message(message)
    check_golden(GOLDEN, f"question_{state}", message, update=update_golden)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_question_shape(shape: str, update_golden: bool) -> None:
    interaction = shape_interaction(shape)
    message = render_question_message(interaction, MessageContext(now=NOW, agent_names=NAMED))
    assert_valid_message(message)
    check_golden(GOLDEN, f"question_shape_{shape}", message, update=update_golden)
    view = render_question_modal(interaction, 0)
    assert_valid_view(view)
    check_golden(GOLDEN, f"question_form_{shape}", view, update=update_golden)
