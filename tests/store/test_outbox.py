"""The decision outbox: one open decision per interaction, each delivery attempt taken once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.services.decisions import DELIVERY_LEASE_SECONDS, REDELIVERY_MAX_SECONDS
from bot.store import Store
from bot.store.outbox import PLAN_HORIZON

from .helpers import NOW, decision, interaction

LEASE = NOW + timedelta(minutes=3)


async def test_one_open_decision_per_interaction(store: Store, peer: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    first, second = await asyncio.gather(
        store.enqueue_decision("int_1", *decision("U1"), LEASE),
        peer.enqueue_decision("int_1", *decision("U2"), LEASE),
    )
    assert (first is None) != (second is None)
    winner = first or second
    assert winner is not None and winner.state == "queued" and winner.next_attempt_at == LEASE
    assert await store.open_decision("int_1") == winner
    assert await store.finish_decision(winner.id, "rejected", NOW, "400")
    assert not await peer.finish_decision(winner.id, "conflict", NOW)
    third = await store.enqueue_decision("int_1", *decision("U2"), LEASE)
    assert third is not None and third.id > winner.id  # a refused answer may be corrected
    assert await store.queued_count() == 1


async def test_no_decision_is_queued_once_one_was_delivered(store: Store) -> None:
    """A decision checked while another was being delivered must not be sent again."""
    await store.claim_for_posting(interaction(), "C1", NOW)
    first = await store.enqueue_decision("int_1", *decision("U1"), LEASE)
    assert first is not None
    assert await store.finish_decision(first.id, "delivered", NOW)  # Novo's re-read was lost
    assert await store.enqueue_decision("int_1", *decision("U2"), LEASE) is None
    assert await store.enqueue_decisions([("int_1", *decision("U2"))], LEASE) == [None]
    assert await store.queued_count() == 0


async def test_no_decision_is_queued_on_an_interaction_no_longer_waiting(store: Store) -> None:
    for id_ in ("int_1", "int_2", "int_3"):
        await store.claim_for_posting(interaction(id_), "C1", NOW)
    await store.update_snapshot(interaction("int_1", status="resolved"), NOW)
    await store.update_snapshot(interaction("int_2", status="cancelled"), NOW)
    await store.mark_gone("int_3", NOW)
    for id_ in ("int_1", "int_2", "int_3"):
        assert await store.enqueue_decision(id_, *decision("U1", id_), LEASE) is None
    assert await store.queued_count() == 0


async def test_a_decision_raced_by_the_delivery_of_another_is_never_queued(
    store: Store, peer: Store
) -> None:
    """While one replica closes a delivered decision another queues one: never both."""
    for round_ in range(12):
        id_ = f"int_{round_}"
        await store.claim_for_posting(interaction(id_), "C1", NOW)
        first = await store.enqueue_decision(id_, *decision("U1", id_), LEASE)
        assert first is not None
        _, late = await asyncio.gather(
            store.finish_decision(first.id, "delivered", NOW),
            peer.enqueue_decision(id_, *decision("U2", id_), LEASE),
        )
        assert late is None, f"round {round_}: a second decision was queued"


async def test_many_decisions_in_one_go_skip_those_already_open(store: Store) -> None:
    for id_ in ("int_1", "int_2", "int_3"):
        await store.claim_for_posting(interaction(id_), "C1", NOW)
    assert await store.enqueue_decision("int_2", *decision("U9", "int_2"), LEASE) is not None
    items = [(i, *decision("U1", i)) for i in ("int_1", "int_2", "int_3")]
    kept = await store.enqueue_decisions(items, LEASE)
    assert [q.interaction_id if q else None for q in kept] == ["int_1", None, "int_3"]
    assert await store.queued_count() == 3
    assert await store.enqueue_decisions([], LEASE) == []


async def test_a_decision_for_an_untracked_interaction_is_refused(store: Store) -> None:
    assert await store.enqueue_decision("nope", *decision("U1", "nope"), LEASE) is None


async def test_due_decisions_are_claimed_by_one_worker(store: Store, peer: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    queued = await store.enqueue_decision("int_1", *decision("U1"), NOW)
    assert queued is not None
    assert [d.id for d in await store.due_decisions(NOW)] == [queued.id]
    claims = await asyncio.gather(
        *(s.claim_due(queued.id, NOW, LEASE) for s in (store, peer, store, peer))
    )
    assert claims.count(True) == 1
    assert await store.due_decisions(NOW) == []
    assert [d.id for d in await store.due_decisions(LEASE)] == [queued.id]


async def test_batch_claims_never_overlap(store: Store, peer: Store) -> None:
    ids = []
    for n in range(12):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
        queued = await store.enqueue_decision(f"int_{n}", *decision("U1", f"int_{n}"), NOW)
        assert queued is not None
        ids.append(queued.id)
    batches = await asyncio.gather(
        *(s.claim_due_decisions(NOW, LEASE, limit=5) for s in (store, peer, store, peer))
    )
    claimed = [d.id for batch in batches for d in batch]
    assert sorted(claimed) == ids  # each exactly once
    assert all(d.next_attempt_at == LEASE for batch in batches for d in batch)


async def test_expired_leases_are_released_live_ones_kept(store: Store) -> None:
    for n, lease in enumerate((NOW - timedelta(seconds=1), NOW + timedelta(minutes=5))):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
        await store.enqueue_decision(f"int_{n}", *decision("U1", f"int_{n}"), lease)
    assert await store.release_expired_leases(NOW) == 1
    live = await store.open_decision("int_1")
    assert live is not None and live.next_attempt_at == NOW + timedelta(minutes=5)
    assert [d.interaction_id for d in await store.due_decisions(NOW)] == ["int_0"]


async def test_retry_later_counts_the_attempt(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    queued = await store.enqueue_decision("int_1", *decision("U1"), NOW)
    assert queued is not None
    await store.retry_decision_later(queued.id, LEASE, "Novo down", NOW)
    await store.set_response_view(queued.id, "V1")
    again = await store.open_decision("int_1")
    assert again is not None
    assert (again.attempts, again.last_error, again.next_attempt_at, again.response_view_id) == (
        1,
        "Novo down",
        LEASE,
        "V1",
    )
    assert again.decision.at == NOW and again.body == queued.body


async def test_release_leases_at_start_up(store: Store) -> None:
    """SQLite: its one process owns every lease, so all come due; PostgreSQL: only expired."""
    await store.claim_for_posting(interaction(), "C1", NOW)
    await store.enqueue_decision("int_1", *decision("U1"), LEASE)
    released = await store.release_leases(NOW)
    assert released == (1 if store.engine_name == "sqlite" else 0)


async def test_a_plan_beyond_any_backoff_is_due_at_once_after_the_clock_steps_back(
    store: Store, peer: Store
) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    queued = await store.enqueue_decision("int_1", *decision("U1"), NOW + timedelta(seconds=4))
    assert queued is not None
    assert await store.due_decisions(NOW) == []  # a retry four seconds ahead: not yet
    # the wall clock stepped back one hour: the plan now lies an hour ahead, which no
    # backoff ever plans, so it is due now and re-planned from this clock
    stepped = NOW - timedelta(hours=1)
    assert [d.id for d in await store.due_decisions(stepped)] == [queued.id]
    claimed = await peer.claim_due_decisions(stepped, stepped + timedelta(seconds=8))
    assert [(d.id, d.next_attempt_at) for d in claimed] == [
        (queued.id, stepped + timedelta(seconds=8))
    ]
    assert await store.claim_due_decisions(stepped, stepped + timedelta(seconds=8)) == []


def test_no_plan_reaches_the_horizon() -> None:
    assert PLAN_HORIZON.total_seconds() / 2 > REDELIVERY_MAX_SECONDS + DELIVERY_LEASE_SECONDS


async def test_open_decisions_of_many_in_one_read(store: Store) -> None:
    for id_ in ("int_1", "int_2", "int_3"):
        await store.claim_for_posting(interaction(id_), "C1", NOW)
    first = await store.enqueue_decision("int_1", *decision("U1", "int_1"), LEASE)
    closed = await store.enqueue_decision("int_3", *decision("U1", "int_3"), LEASE)
    assert first is not None and closed is not None
    await store.finish_decision(closed.id, "delivered", NOW)
    found = await store.open_decisions(["int_1", "int_2", "int_3"])
    assert {k: v.id for k, v in found.items()} == {"int_1": first.id}
    assert await store.open_decisions([]) == {}
