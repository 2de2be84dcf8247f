"""Quorum votes: one standing vote per person, counted in the same breath, on both engines."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store

from .helpers import NOW


async def test_a_vote_counts_once_and_the_count_comes_with_it(store: Store) -> None:
    counted, standing = await store.cast_vote("int_1", "U0ALICE", "Alice", NOW)
    assert counted and [v.user_id for v in standing] == ["U0ALICE"]
    again, standing = await store.cast_vote("int_1", "U0ALICE", "Alice", NOW)
    assert not again and len(standing) == 1
    later = NOW + timedelta(seconds=1)
    counted, standing = await store.cast_vote("int_1", "U0BOB", "Bob", later)
    assert counted and [(v.user_id, v.user_name) for v in standing] == [
        ("U0ALICE", "Alice"),
        ("U0BOB", "Bob"),
    ]
    assert await store.votes("int_2") == []


async def test_a_withdrawn_vote_stops_counting_and_may_be_cast_again(store: Store) -> None:
    await store.cast_vote("int_1", "U0ALICE", "Alice", NOW)
    assert await store.withdraw_vote("int_1", "U0ALICE", NOW)
    assert not await store.withdraw_vote("int_1", "U0ALICE", NOW)
    assert not await store.withdraw_vote("int_1", "U0NOBODY", NOW)
    assert await store.votes("int_1") == []
    counted, standing = await store.cast_vote("int_1", "U0ALICE", "Alice L.", NOW)
    assert counted and [v.user_name for v in standing] == ["Alice L."]


async def test_replicas_voting_at_once_count_each_person_once(store: Store, peer: Store) -> None:
    results = await asyncio.gather(
        *(
            s.cast_vote("int_1", user, user, NOW)
            for s in (store, peer)
            for user in ("U0A", "U0B", "U0A", "U0B")
        )
    )
    assert sum(counted for counted, _ in results) == 2
    assert sorted(v.user_id for v in await peer.votes("int_1")) == ["U0A", "U0B"]
