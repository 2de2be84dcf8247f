"""Fixtures for the render tests: one fixed clock and builders of interactions and contexts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.novo.models import Interaction
from bot.slack.render.context import MessageContext, SlackActor, SlackDecision

NOW = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)
CREATED = NOW - timedelta(minutes=2)
EXPIRES = NOW + timedelta(minutes=14, seconds=30)
DECIDED_AT = NOW + timedelta(minutes=1)
ADA = SlackActor(user_id="U0ADA1", display_name="Ada Lovelace")

MakeApproval = Callable[..., Interaction]
MakeDecision = Callable[..., SlackDecision]


def approval_fields(**overrides: Any) -> dict[str, Any]:
    """A typical pending approval, as Novo would send it (snake_case names)."""
    fields: dict[str, Any] = {
        "id": "int_01HZX3",
        "run_id": "run_7Q2",
        "root_run_id": "run_7Q2",
        "worker_ref": None,
        "thread_id": "thr_55A",
        "agent_id": "agt_deployer",
        "kind": "approval_request",
        "status": "pending",
        "step_number": 4,
        "tool_name": "deploy_service",
        "tool_call_id": "call_9",
        "hook_id": "hook_prod_guard",
        "input": {"service": "billing-api", "environment": "production", "replicas": 6},
        "preview": {"Service": "billing-api", "Environment": "*production*", "Replicas": 6},
        "expires_at": EXPIRES,
        "created_at": CREATED,
        "updated_at": CREATED,
    }
    fields.update(overrides)
    return fields


@pytest.fixture
def make_approval() -> MakeApproval:
    def make(**overrides: Any) -> Interaction:
        return Interaction.model_validate(approval_fields(**overrides))

    return make


@pytest.fixture
def approval(make_approval: MakeApproval) -> Interaction:
    return make_approval()


@pytest.fixture
def make_decision() -> MakeDecision:
    def make(verb: str = "Approved", note: str | None = None, **actor: str) -> SlackDecision:
        who = SlackActor(**actor) if actor else ADA
        return SlackDecision(actor=who, at=DECIDED_AT, verb=verb, note=note)

    return make


@pytest.fixture
def ctx() -> MessageContext:
    return MessageContext(now=NOW)


def finalized_fields(status: str, decision: str | None, reason: str | None) -> dict[str, Any]:
    """What Novo's record looks like once it is no longer pending."""
    if decision in ("allow", "deny"):
        option = "approve" if decision == "allow" else "deny"
        resolution: dict[str, Any] = {
            "inputResponses": [{"requestId": "int_01HZX3", "optionId": option}],
        }
    else:
        resolution = {}
    if reason is not None:
        resolution["reason"] = reason
    return approval_fields(
        status=status,
        decision=decision,
        reason=reason,
        resolution=resolution,
        expires_at=None,
        resolved_at=DECIDED_AT,
        updated_at=DECIDED_AT,
    )


Case = tuple[Interaction, MessageContext]


def state_cases() -> dict[str, Case]:
    """One interaction and context per state the approval message can show."""

    def record(**fields: Any) -> Interaction:
        return Interaction.model_validate(fields)

    def decision(verb: str, note: str | None = None) -> SlackDecision:
        return SlackDecision(actor=ADA, at=DECIDED_AT, verb=verb, note=note)

    pending = record(**approval_fields())
    slack_reason = "Approved in Slack by U0ADA1 (Ada Lovelace): ship it"
    return {
        "pending": (pending, MessageContext(now=NOW)),
        "pending_worker": (
            record(**approval_fields(run_id="run_wk1", worker_ref="wkr_builder")),
            MessageContext(now=NOW),
        ),
        "approved_in_slack": (
            record(**finalized_fields("resolved", "allow", slack_reason)),
            MessageContext(now=NOW, decided_in_slack=decision("Approved", "ship it")),
        ),
        "denied_in_slack": (
            record(**finalized_fields("resolved", "deny", "Denied in Slack by Ada")),
            MessageContext(
                now=NOW, decided_in_slack=decision("Denied", "Not during the freeze.\nRetry Monday")
            ),
        ),
        "approved_elsewhere": (
            record(**finalized_fields("resolved", "allow", "approved by on-call engineer")),
            MessageContext(now=NOW),
        ),
        "denied_elsewhere": (
            record(**finalized_fields("resolved", "deny", None)),
            MessageContext(now=NOW),
        ),
        "expired": (
            record(**finalized_fields("cancelled", "cancel", "interaction_timeout")),
            MessageContext(now=NOW),
        ),
        "cancelled": (
            record(**finalized_fields("cancelled", "cancel", "the run was cancelled")),
            MessageContext(now=NOW),
        ),
        "queued": (pending, MessageContext(now=NOW, queued=decision("Approved"))),
        "gone": (pending, MessageContext(now=NOW, gone=True)),
    }


@pytest.fixture
def cases() -> dict[str, Case]:
    return state_cases()
