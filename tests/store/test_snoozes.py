"""Snoozes ("Remind me"): kept, claimed by one worker, sent at most once, on both engines."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store

from .helpers import NOW, interaction

LEASE = NOW + timedelta(minutes=1)


async def _tracked(store: Store, *ids: str) -> None:
    for interaction_id in ids:
        await store.claim_for_posting(interaction(interaction_id), "C1", NOW)


async def test_a_snooze_is_kept_until_due(store: Store) -> None:
    await _tracked(store, "int_1")
    added = await store.add_snooze("int_1", "U1", NOW + timedelta(minutes=15), NOW)
    assert added is not None
    snooze, replaced = added
    assert replaced is None
    assert (snooze.interaction_id, snooze.user_id, snooze.state) == ("int_1", "U1", "waiting")
    assert snooze.due_at == NOW + timedelta(minutes=15) and snooze.created_at == NOW
    assert await store.claim_due_snoozes(NOW + timedelta(minutes=14), LEASE) == []
    assert await store.snoozes_for("int_1") == [snooze]


async def test_a_snooze_on_an_untracked_interaction_is_refused(store: Store) -> None:
    assert await store.add_snooze("nope", "U1", NOW, NOW) is None
    assert await store.snoozes_for("nope") == []


async def test_a_new_choice_replaces_the_persons_waiting_snooze(store: Store) -> None:
    await _tracked(store, "int_1")
    first = await store.add_snooze("int_1", "U1", NOW + timedelta(minutes=15), NOW)
    other = await store.add_snooze("int_1", "U2", NOW + timedelta(minutes=15), NOW)
    second = await store.add_snooze("int_1", "U1", NOW + timedelta(hours=1), NOW)
    assert first is not None and other is not None and second is not None
    assert second[1] is not None and second[1].id == first[0].id  # what it replaced
    states = {(s.user_id, s.due_at - NOW, s.state) for s in await store.snoozes_for("int_1")}
    assert states == {
        ("U1", timedelta(minutes=15), "dropped"),
        ("U2", timedelta(minutes=15), "waiting"),
        ("U1", timedelta(hours=1), "waiting"),
    }


async def test_two_quick_choices_leave_one_waiting_snooze(store: Store, peer: Store) -> None:
    await _tracked(store, "int_1")
    await asyncio.gather(
        *(
            s.add_snooze("int_1", "U1", NOW + timedelta(minutes=n), NOW)
            for n, s in enumerate((store, peer, store, peer), start=1)
        )
    )
    waiting = [s for s in await store.snoozes_for("int_1") if s.state == "waiting"]
    assert len(waiting) == 1


async def test_due_snoozes_are_claimed_with_a_lease(store: Store) -> None:
    await _tracked(store, "int_1", "int_2")
    late = await store.add_snooze("int_1", "U1", NOW, NOW - timedelta(minutes=5))
    early = await store.add_snooze("int_2", "U1", NOW - timedelta(minutes=1), NOW)
    assert late is not None and early is not None
    claimed = await store.claim_due_snoozes(NOW, LEASE)
    assert [s.id for s in claimed] == sorted([late[0].id, early[0].id])
    assert all(s.due_at == LEASE and s.state == "waiting" for s in claimed)
    assert await store.claim_due_snoozes(NOW, LEASE) == []  # the lease holds
    again = await store.claim_due_snoozes(LEASE, LEASE + timedelta(minutes=1))
    assert len(again) == 2  # a claimer that vanished lets them fall due again


async def test_concurrent_claimers_get_disjoint_sets(store: Store, peer: Store) -> None:
    ids = []
    for n in range(12):
        await _tracked(store, f"int_{n}")
        added = await store.add_snooze(f"int_{n}", "U1", NOW, NOW)
        assert added is not None
        ids.append(added[0].id)
    batches = await asyncio.gather(
        *(s.claim_due_snoozes(NOW, LEASE, limit=5) for s in (store, peer, store, peer))
    )
    claimed = [s.id for batch in batches for s in batch]
    assert sorted(claimed) == ids  # each exactly once


async def test_a_snooze_is_sent_once_and_then_never_dropped_by_its_interaction(
    store: Store, peer: Store
) -> None:
    await _tracked(store, "int_1")
    added = await store.add_snooze("int_1", "U1", NOW, NOW)
    assert added is not None
    snooze_id = added[0].id
    takes = await asyncio.gather(*(s.take_snooze(snooze_id, NOW) for s in (store, peer)))
    assert sorted(takes) == [False, True]
    assert await store.drop_snoozes_for("int_1", NOW) == 0  # only waiting ones go
    (sent,) = await store.snoozes_for("int_1")
    assert sent.state == "sent" and sent.done_at == NOW
    assert await store.claim_due_snoozes(LEASE, LEASE) == []


async def test_an_ended_interaction_drops_its_waiting_snoozes(store: Store) -> None:
    await _tracked(store, "int_1", "int_2")
    for user in ("U1", "U2"):
        await store.add_snooze("int_1", user, NOW + timedelta(minutes=15), NOW)
    await store.add_snooze("int_2", "U1", NOW + timedelta(minutes=15), NOW)
    later = NOW + timedelta(minutes=2)
    assert await store.drop_snoozes_for("int_1", later) == 2
    assert {(s.state, s.done_at) for s in await store.snoozes_for("int_1")} == {("dropped", later)}
    claimed = await store.claim_due_snoozes(NOW + timedelta(minutes=15), LEASE)
    assert [s.interaction_id for s in claimed] == ["int_2"]
    (one,) = claimed
    assert await store.drop_snooze(one.id, later)
    assert not await store.drop_snooze(one.id, later)
    assert not await store.take_snooze(one.id, later)
