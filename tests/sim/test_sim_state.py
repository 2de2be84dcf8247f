"""SimState on a fake clock: the semantics without HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from bot.novo.errors import ResolveRuleError
from bot.novo.models import ResolveInteractionBody
from novo_dev.sim import InteractionSpec, ListFilter, SimError, SimState

Advance = Callable[[float], None]


def spec(**fields: Any) -> InteractionSpec:
    return InteractionSpec.model_validate({"kind": "approval_request", **fields})


def body(**fields: Any) -> ResolveInteractionBody:
    return ResolveInteractionBody.model_validate(fields)


def approve(interaction_id: str, option: str = "approve") -> ResolveInteractionBody:
    return body(inputResponses=[{"requestId": interaction_id, "optionId": option}])


def test_create_fills_ids_and_the_park_window(state: SimState) -> None:
    item = state.create(spec())
    assert item.id.startswith("int_")
    assert item.run_id.startswith("run_") and item.root_run_id == item.run_id
    assert item.thread_id.startswith("thr_") and item.agent_id.startswith("agt_")
    assert item.hook_id is not None and item.hook_id.startswith("hook_")
    assert item.expires_at == item.created_at + timedelta(seconds=900)
    assert (item.status, item.decision, item.resolution) == ("pending", None, None)


def test_same_instant_lists_in_creation_order(state: SimState) -> None:
    created = [state.create(spec()).id for _ in range(30)]
    assert [i["id"] for i in state.list_page(limit=100).data] == created


def test_cursor_is_a_position_not_an_offset(state: SimState, advance: Advance) -> None:
    ids = []
    for _ in range(5):
        ids.append(state.create(spec(runId="run_a")).id)
        advance(1)
    pending = ListFilter(status="pending")
    first = state.list_page(pending, limit=2)
    assert [i["id"] for i in first.data] == ids[:2] and first.next_cursor
    state.resolve(ids[0], approve(ids[0]))
    state.resolve(ids[2], approve(ids[2]))
    second = state.list_page(pending, limit=2, cursor=first.next_cursor)
    assert [i["id"] for i in second.data] == ids[3:5]
    assert (second.has_more, second.next_cursor) == (False, None)


def test_expiry_is_lazy_and_takes_the_run_with_it(state: SimState, advance: Advance) -> None:
    short = state.create(spec(runId="run_a", expiresInSeconds=10))
    sibling = state.create(spec(runId="run_a"))
    other = state.create(spec(runId="run_b", expiresInSeconds=20))
    advance(15)
    expired_at = short.expires_at
    for item_id in (short.id, sibling.id):
        item = state.get(item_id)
        assert item.status == "cancelled" and item.decision == "cancel"
        assert item.reason is None  # the doc: only the resolution says why
        assert item.resolution == {"reason": "interaction_timeout"}
        assert item.expires_at is None
        assert item.resolved_at == expired_at == item.updated_at
    assert state.get(other.id).is_pending
    assert state.next_deadline() == other.expires_at


def test_expired_question_has_no_decision(
    state: SimState, advance: Advance, migration_request: dict[str, Any]
) -> None:
    item = state.create(
        InteractionSpec.model_validate(
            {"kind": "question", "request": migration_request, "expiresInSeconds": 1}
        )
    )
    advance(1)
    got = state.get(item.id)
    assert (got.status, got.decision, got.ending_reason) == (
        "cancelled",
        None,
        "interaction_timeout",
    )


def test_expired_answer_conflicts_but_cancel_is_idempotent(
    state: SimState, advance: Advance
) -> None:
    item = state.create(spec(expiresInSeconds=1))
    advance(2)
    with pytest.raises(SimError) as conflict:
        state.resolve(item.id, approve(item.id))
    assert (conflict.value.status, conflict.value.type) == (409, "idempotency_key_conflict")
    again = state.resolve(item.id, body(cancel=True, reason="late"))
    assert (again.status, again.ending_reason) == ("cancelled", "interaction_timeout")


def test_extend_moves_the_deadline(state: SimState, advance: Advance) -> None:
    item = state.create(spec(expiresInSeconds=10))
    moved = state.extend(item.id, 30)
    assert moved.expires_at == item.created_at + timedelta(seconds=40)
    advance(20)
    assert state.get(item.id).is_pending
    advance(21)
    assert state.get(item.id).status == "cancelled"
    with pytest.raises(SimError) as not_pending:
        state.extend(item.id, 5)
    assert not_pending.value.status == 409


def test_resolve_records_the_body_and_the_decision(state: SimState, advance: Advance) -> None:
    item = state.create(spec())
    advance(3)
    done = state.resolve(item.id, body(**approve(item.id, "deny").to_wire(), reason="too risky"))
    assert (done.status, done.decision, done.reason) == ("resolved", "deny", "too risky")
    assert done.resolution == {
        "inputResponses": [{"requestId": item.id, "optionId": "deny"}],
        "reason": "too risky",
    }
    assert done.resolved_at == done.updated_at == item.created_at + timedelta(seconds=3)
    assert done.expires_at is None


def test_rules_come_before_conflict(state: SimState) -> None:
    item = state.create(spec())
    state.resolve(item.id, approve(item.id))
    with pytest.raises(ResolveRuleError) as invalid:
        state.resolve(item.id, approve(item.id, "maybe"))
    assert invalid.value.type == "invalid_body"


def test_terminated_run_resolves_even_a_cancel(state: SimState) -> None:
    worker = state.create(spec(runId="run_w", rootRunId="run_root", workerRef="wkr_1"))
    assert state.terminate("run_root") == 1
    assert state.get(worker.id).is_pending
    done = state.resolve(worker.id, body(cancel=True))
    assert (done.status, done.decision) == ("resolved", "cancel")
    assert state.resolve(worker.id, body(cancel=True)).status == "resolved"


def test_batch_applies_each_item_alone(state: SimState) -> None:
    first = state.create(spec(runId="run_r"))
    second = state.create(spec(runId="run_r"))
    results = state.resolve_batch(
        "run_r",
        [
            {"id": first.id, "inputResponses": [{"requestId": first.id, "optionId": "approve"}]},
            {"id": second.id, "inputResponses": [{"requestId": "x", "optionId": "approve"}]},
            {"id": first.id, "cancel": True},
        ],
    )
    assert [r.status for r in results] == ["resolved", "invalid_body", "conflict"]
    assert state.get(first.id).decision == "allow"
    assert state.get(second.id).is_pending


def test_reset_forgets_everything(state: SimState) -> None:
    item = state.create(spec(runId="run_t"))
    state.terminate("run_t")
    state.reset()
    assert state.interactions() == []
    again = state.create(spec(runId="run_t"))
    assert state.resolve(again.id, body(cancel=True)).status == "cancelled"
    with pytest.raises(SimError):
        state.get(item.id)


@pytest.mark.parametrize(
    "fields",
    [
        {"kind": "nope"},
        {"kind": "question"},
        {"kind": "approval_request", "request": {"title": "x", "questions": [{"id": "q"}]}},
        {"kind": "question", "request": {"title": "no questions"}},
        {"kind": "question", "request": {"questions": [{"id": "q"}, {"id": "q"}]}},
        {"kind": "question", "hookId": "hook_1", "request": {"questions": [{"id": "q"}]}},
        {"kind": "approval_request", "expiresInSeconds": -1},
        {"kind": "approval_request", "stepNumber": "3"},
        {"kind": "approval_request", "toolName": ""},
        {"kind": "approval_request", "colour": "blue"},
    ],
)
def test_spec_refuses_what_no_run_would_send(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        InteractionSpec.model_validate(fields)
