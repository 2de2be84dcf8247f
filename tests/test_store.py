"""The store's state changes are atomic: a second claim, decision or finish never wins."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.novo.models import InputResponse, Interaction, ResolveInteractionBody
from bot.slack.render.context import SlackActor, SlackDecision
from bot.store import Store
from bot.store.migrations import MIGRATIONS

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _interaction(status: str = "pending") -> Interaction:
    return Interaction.model_validate(
        {
            "id": "int_1",
            "runId": "run_1",
            "rootRunId": "run_1",
            "threadId": "thr_1",
            "agentId": "agt_1",
            "kind": "approval_request",
            "status": status,
            "stepNumber": 1,
            "toolName": "deploy",
            "toolCallId": "call_1",
            "createdAt": "2026-11-30T08:00:00Z",
            "updatedAt": "2026-11-30T08:00:00Z",
        }
    )


def _decision(user: str) -> tuple[ResolveInteractionBody, SlackDecision]:
    body = ResolveInteractionBody(
        input_responses=[InputResponse(request_id="int_1", option_id="approve")]
    )
    return body, SlackDecision(SlackActor(user, user), NOW, "Approved")


async def test_migrations_apply_once_and_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = await Store.open(path)
    assert await store.claim_for_posting(_interaction(), "C1", NOW)
    await store.close()
    reopened = await Store.open(path)
    assert (await reopened.get("int_1")) is not None
    rows = await reopened._rows("SELECT version FROM schema_version")
    assert [r[0] for r in rows] == list(range(1, len(MIGRATIONS) + 1))
    await reopened.close()


async def test_an_interaction_is_claimed_and_posted_once(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "s.db")
    claims = await asyncio.gather(
        *(store.claim_for_posting(_interaction(), "C1", NOW) for _ in range(5))
    )
    assert claims.count(True) == 1
    assert await store.mark_posted("int_1", "1.0001", "h", NOW)
    assert not await store.mark_posted("int_1", "1.0002", "h", NOW)
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.ts == "1.0001"
    await store.close()


async def test_one_open_decision_per_interaction(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "s.db")
    await store.claim_for_posting(_interaction(), "C1", NOW)
    lease = NOW + timedelta(minutes=3)
    first = await store.enqueue_decision("int_1", *_decision("U1"), lease)
    second = await store.enqueue_decision("int_1", *_decision("U2"), lease)
    assert first is not None and second is None
    assert await store.finish_decision(first.id, "delivered", NOW)
    assert not await store.finish_decision(first.id, "conflict", NOW)
    third = await store.enqueue_decision("int_1", *_decision("U2"), lease)
    assert third is not None  # a closed decision no longer blocks a new one
    await store.close()


async def test_due_decisions_are_claimed_by_one_worker(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "s.db")
    await store.claim_for_posting(_interaction(), "C1", NOW)
    queued = await store.enqueue_decision("int_1", *_decision("U1"), NOW)
    assert queued is not None
    assert [d.id for d in await store.due_decisions(NOW)] == [queued.id]
    later = NOW + timedelta(minutes=3)
    assert await store.claim_due(queued.id, NOW, later)
    assert not await store.claim_due(queued.id, NOW, later)
    assert await store.due_decisions(NOW) == []
    assert await store.release_leases(NOW) == 1
    assert [d.id for d in await store.due_decisions(NOW)] == [queued.id]
    await store.close()


async def test_a_finished_record_never_goes_back_to_pending(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "s.db")
    await store.claim_for_posting(_interaction(), "C1", NOW)
    await store.mark_posted("int_1", "1.0001", "h", NOW)
    await store.update_snapshot(_interaction("resolved"), NOW)
    await store.update_snapshot(_interaction("pending"), NOW)  # a stale list page
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.snapshot.status == "resolved"
    assert [t.id for t in await store.out_of_step()] == ["int_1"]
    await store.set_rendered_hash("int_1", "h2")
    assert await store.out_of_step() == []
    await store.close()
