"""Every resolve rule and error of the API doc, through the client, against the simulator."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from bot.novo import errors
from bot.novo.client import NovoClient
from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from novo_dev.sim.control import SimControl

from .conftest import SIM_KEY

ENV_REQUEST: dict[str, Any] = {
    "title": "Which environments should the migration run in?",
    "questions": [
        {
            "id": "q_env",
            "prompt": "Environments",
            "multiple": True,
            "options": [{"id": "staging"}, {"id": "prod"}],
        },
        {
            "id": "q_window",
            "prompt": "Window",
            "allowOther": True,
            "options": [{"id": "tonight"}, {"id": "weekend"}],
        },
        {"id": "q_notes", "prompt": "Notes", "multiline": True, "optional": True},
    ],
    "actions": [{"id": "a_skip", "label": "Skip the migration", "style": "danger"}],
}


def choose(interaction_id: str, option: str, reason: str | None = None) -> ResolveInteractionBody:
    return ResolveInteractionBody(
        input_responses=[InputResponse(request_id=interaction_id, option_id=option)],
        reason=reason,
    )


def answers(*entries: InputResponse, reason: str | None = None) -> ResolveInteractionBody:
    return ResolveInteractionBody(input_responses=list(entries), reason=reason)


async def resolve_calls(control: SimControl) -> list[dict[str, Any]]:
    return [r for r in await control.log() if r["method"] == "POST"]


async def test_approve_then_same_again_is_idempotent_then_deny_conflicts(
    novo: NovoClient, control: SimControl
) -> None:
    created = await control.approval()
    interaction_id = created["id"]
    resolved = await novo.resolve(interaction_id, choose(interaction_id, "approve", "on-call ok"))
    assert (resolved.status, resolved.decision, resolved.reason) == (
        "resolved",
        "allow",
        "on-call ok",
    )
    assert resolved.expires_at is None and resolved.resolved_at is not None
    assert resolved.resolution is not None
    assert resolved.resolution["inputResponses"] == [
        {"requestId": interaction_id, "optionId": "approve"}
    ]

    again = await novo.resolve(interaction_id, choose(interaction_id, "approve", "a new reason"))
    assert again.reason == "on-call ok"  # the stored record, reason unchanged
    assert again.resolved_at == resolved.resolved_at

    with pytest.raises(errors.ConflictError) as caught:
        await novo.resolve(interaction_id, choose(interaction_id, "deny"))
    assert (caught.value.status, caught.value.type) == (409, "idempotency_key_conflict")
    assert (await novo.get(interaction_id)).decision == "allow"


async def test_deny_records_the_reason_verbatim(novo: NovoClient, control: SimControl) -> None:
    created = await control.approval()
    reason = "  not on a Friday — *ever*  "
    denied = await novo.resolve(created["id"], choose(created["id"], "deny", reason))
    assert (denied.status, denied.decision, denied.reason) == ("resolved", "deny", reason)


async def test_cancel_abandons_and_compares_as_cancel(
    novo: NovoClient, control: SimControl
) -> None:
    created = await control.approval()
    cancel = ResolveInteractionBody(cancel=True, reason="withdrawn")
    cancelled = await novo.resolve(created["id"], cancel)
    assert (cancelled.status, cancelled.decision) == ("cancelled", "cancel")
    assert (await novo.resolve(created["id"], cancel)).status == "cancelled"
    with pytest.raises(errors.ConflictError):
        await novo.resolve(created["id"], choose(created["id"], "approve"))


async def test_question_answered_by_inner_ids(novo: NovoClient, control: SimControl) -> None:
    created = await control.question(ENV_REQUEST)
    interaction = Interaction.model_validate(created)
    body = answers(
        InputResponse(request_id="q_env", option_ids=["staging", "prod"]),
        InputResponse(request_id="q_window", text="Sunday 3am"),
        InputResponse(request_id="q_notes", text="line one\nline two"),
    )
    resolved = await novo.resolve(interaction.id, body, interaction=interaction)
    assert resolved.status == "resolved"
    assert resolved.decision is None
    recorded = resolved.resolution_body()
    assert recorded is not None and recorded.input_responses == body.input_responses
    # answers compare as a set: the same answers in another order are the same outcome
    same = answers(*reversed(body.input_responses or []))
    assert (await novo.resolve(interaction.id, same)).resolved_at == resolved.resolved_at
    with pytest.raises(errors.ConflictError):
        await novo.resolve(
            interaction.id,
            answers(
                InputResponse(request_id="q_env", option_ids=["staging"]),
                InputResponse(request_id="q_window", option_id="tonight"),
            ),
        )


async def test_question_action_needs_no_answers(novo: NovoClient, control: SimControl) -> None:
    created = await control.question(ENV_REQUEST)
    resolved = await novo.resolve(created["id"], answers(InputResponse(request_id="a_skip")))
    assert resolved.status == "resolved"


async def test_top_level_id_on_a_question_is_unknown_question_id(
    novo: NovoClient, control: SimControl
) -> None:
    created = await control.question(ENV_REQUEST)
    body = answers(InputResponse(request_id=created["id"], text="Customer confirmed"))
    with pytest.raises(errors.UnknownQuestionIdError) as caught:
        await novo.resolve(created["id"], body)
    assert (caught.value.status, caught.value.type) == (400, "unknown_question_id")
    assert len(await resolve_calls(control)) == 1  # a 400 is not retried


@pytest.mark.parametrize(
    "body",
    [
        answers(InputResponse(request_id="q_window", option_ids=["tonight", "weekend"])),
        answers(
            InputResponse(request_id="q_env", option_ids=["staging"]),
            InputResponse(request_id="q_window", option_id="never"),
        ),
        answers(InputResponse(request_id="q_env", option_ids=["staging"])),  # q_window missing
        answers(
            InputResponse(request_id="q_env", option_ids=["prod"]),
            InputResponse(request_id="q_window", option_id="tonight"),
            InputResponse(request_id="a_skip"),
        ),
    ],
    ids=["multi-on-single", "unknown-option", "required-missing", "action-with-answers"],
)
async def test_question_rule_breaks_are_invalid_body_from_the_server(
    novo: NovoClient, control: SimControl, body: ResolveInteractionBody
) -> None:
    created = await control.question(ENV_REQUEST)
    with pytest.raises(errors.InvalidBodyError) as caught:
        await novo.resolve(created["id"], body)
    assert caught.value.type == "invalid_body"
    # given the interaction, the client refuses the same body itself and sends nothing
    await control.clear_log()
    with pytest.raises(errors.ResolveRuleError) as refused:
        await novo.resolve(created["id"], body, interaction=Interaction.model_validate(created))
    assert refused.value.type == "invalid_body"
    assert await resolve_calls(control) == []


async def test_approval_rule_breaks_are_invalid_body(novo: NovoClient, control: SimControl) -> None:
    created = await control.approval()
    with pytest.raises(errors.InvalidBodyError):
        await novo.resolve(created["id"], choose(created["id"], "maybe"))
    with pytest.raises(errors.InvalidBodyError):
        await novo.resolve(created["id"], choose("int_someone_else", "approve"))
    assert (await novo.get(created["id"])).status == "pending"


async def test_client_side_refusal_sends_nothing(novo: NovoClient, control: SimControl) -> None:
    created = await control.approval()
    await control.clear_log()
    bad = ResolveInteractionBody(
        input_responses=[InputResponse(request_id=created["id"], option_id="approve")],
        cancel=True,
    )
    with pytest.raises(errors.ResolveRuleError):
        await novo.resolve(created["id"], bad)
    with pytest.raises(errors.ResolveRuleError):
        await novo.resolve(
            created["id"],
            choose(created["id"], "yes"),
            interaction=Interaction.model_validate(created),
        )
    assert await control.log() == []


async def test_unknown_id_is_not_found(novo: NovoClient, control: SimControl) -> None:
    with pytest.raises(errors.InteractionNotFoundError) as caught:
        await novo.get("int_does_not_exist")
    assert (caught.value.status, caught.value.type) == (404, "interaction_not_found")
    with pytest.raises(errors.InteractionNotFoundError):
        await novo.resolve("int_nope/../x", ResolveInteractionBody(cancel=True))
    assert len(await control.log()) == 2  # no retries


async def test_wrong_key_is_unauthorized_and_not_retried(
    sim: Any, control: SimControl, caplog: pytest.LogCaptureFixture
) -> None:
    created = await control.approval()
    await control.clear_log()
    caplog.set_level("DEBUG")
    async with NovoClient(sim.url, "wrong-" + SIM_KEY) as intruder:
        with pytest.raises(errors.UnauthorizedError) as caught:
            await intruder.get(created["id"])
    assert (caught.value.status, caught.value.type) == (401, "unauthorized")
    assert len(await control.log()) == 1
    assert SIM_KEY not in caplog.text and SIM_KEY not in str(caught.value)


async def test_missing_key_is_unauthorized(sim: Any) -> None:
    async with httpx.AsyncClient(base_url=sim.url) as http:
        response = await http.get("/v1/interactions")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "unauthorized"


async def test_terminated_run_is_still_resolvable(novo: NovoClient, control: SimControl) -> None:
    created = await control.approval()
    await control.terminate(created["runId"])
    resolved = await novo.resolve(created["id"], choose(created["id"], "approve"))
    assert (resolved.status, resolved.decision) == ("resolved", "allow")


async def test_get_reads_back_what_was_created(novo: NovoClient, control: SimControl) -> None:
    created = await control.approval(input={"path": "/etc/passwd"}, preview={"summary": "rm"})
    got = await novo.get(created["id"])
    assert got.to_wire() == created
    assert got.expires_at is not None and got.is_pending
