"""Quorum votes on both engines: one standing vote per person, and the vote that meets
the quorum queues the decision and seals its approvals in the same transaction."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.domain import Approval, SlackActor
from bot.store import Store
from bot.store.errors import TooLate
from bot.store.votes import VoteRequest

from .helpers import NOW, decision, interaction

LEASE = NOW + timedelta(seconds=8)


def request(
    user: str, quorum: int = 3, note: str | None = None, drop: dict[str, str] | None = None
) -> VoteRequest:
    body, made = decision(user)
    return VoteRequest(
        "int_1", Approval(SlackActor(user, user), note), quorum, body, made, drop or {}
    )


async def tracked(store: Store) -> None:
    assert await store.claim_for_posting(interaction("int_1"), "C1", NOW)


async def test_a_vote_counts_once_and_the_count_comes_with_it(store: Store) -> None:
    await tracked(store)
    first = await store.cast_vote(request("U0ALICE"), NOW, LEASE)
    assert first.counted and [v.user_id for v in first.standing] == ["U0ALICE"]
    again = await store.cast_vote(request("U0ALICE"), NOW, LEASE)
    assert not again.counted and len(again.standing) == 1
    later = NOW + timedelta(seconds=1)
    second = await store.cast_vote(request("U0BOB"), later, LEASE)
    assert second.counted and second.queued is None
    assert [(v.user_id, v.user_name) for v in second.standing] == [
        ("U0ALICE", "U0ALICE"),
        ("U0BOB", "U0BOB"),
    ]
    assert await store.votes("int_2") == []


async def test_a_withdrawn_vote_stops_counting_and_may_be_cast_again(store: Store) -> None:
    await tracked(store)
    await store.cast_vote(request("U0ALICE"), NOW, LEASE)
    assert await store.withdraw_vote("int_1", "U0ALICE", NOW) == "withdrawn"
    assert await store.withdraw_vote("int_1", "U0ALICE", NOW) == "none"
    assert await store.withdraw_vote("int_1", "U0NOBODY", NOW) == "none"
    assert await store.votes("int_1") == []
    again = await store.cast_vote(request("U0ALICE", note="now yes"), NOW, LEASE)
    assert again.counted and [v.note for v in again.standing] == ["now yes"]


async def test_the_vote_meeting_the_quorum_queues_the_decision_sealed_with_every_note(
    store: Store,
) -> None:
    await tracked(store)
    await store.cast_vote(request("U0ADA", quorum=2, note="after 18:00"), NOW, LEASE)
    met = await store.cast_vote(request("U0GRACE", quorum=2, note="ok"), NOW, LEASE)
    assert met.queued is not None
    assert [(a.actor.user_id, a.note) for a in met.queued.approvers] == [
        ("U0ADA", "after 18:00"),
        ("U0GRACE", "ok"),
    ]
    reread = await store.open_decision("int_1")
    assert reread is not None and reread.approvers == met.queued.approvers
    assert await store.withdraw_vote("int_1", "U0ADA", NOW) == "sealed"
    assert [v.user_id for v in await store.votes("int_1")] == ["U0ADA", "U0GRACE"]
    late = await store.cast_vote(request("U0HOPPER", quorum=2), NOW, LEASE)
    assert late.closed and late.queued is None


async def test_a_dropped_vote_stops_counting_and_says_why(store: Store) -> None:
    await tracked(store)
    await store.cast_vote(request("U0ADA", quorum=2), NOW, LEASE)
    cast = await store.cast_vote(
        request("U0GRACE", quorum=2, drop={"U0ADA": "not a decider since the policy changed"}),
        NOW,
        LEASE,
    )
    assert cast.queued is None and [v.user_id for v in cast.standing] == ["U0GRACE"]
    dropped = await store.dropped_votes("int_1")
    assert [(v.user_id, v.dropped_why) for v in dropped] == [
        ("U0ADA", "not a decider since the policy changed")
    ]


async def test_a_vote_that_would_commit_after_its_deadline_is_rolled_back(store: Store) -> None:
    await tracked(store)
    passed = asyncio.get_running_loop().time() - 1
    with pytest.raises(TooLate):
        await store.cast_vote(request("U0ADA", quorum=1), NOW, LEASE, commit_by=passed)
    assert await store.votes("int_1") == []
    assert await store.open_decision("int_1") is None


async def test_replicas_voting_at_once_count_each_person_once(store: Store, peer: Store) -> None:
    await tracked(store)
    results = await asyncio.gather(
        *(
            s.cast_vote(request(user, quorum=5), NOW, LEASE)
            for s in (store, peer)
            for user in ("U0A", "U0B", "U0A", "U0B")
        )
    )
    assert sum(r.counted for r in results) == 2
    assert sorted(v.user_id for v in await peer.votes("int_1")) == ["U0A", "U0B"]


async def test_a_withdrawal_racing_the_vote_that_meets_the_quorum_never_both_win(
    store: Store, peer: Store
) -> None:
    """Either the withdrawal lands first (no quorum, nothing queued) or the quorum does
    (the withdrawal is refused as sealed); never a decision naming a withdrawn vote."""
    for round_ in range(8):
        interaction_id = f"int_r{round_}"
        assert await store.claim_for_posting(interaction(interaction_id), "C1", NOW)
        body, made = decision("U0GRACE", interaction_id)
        first = VoteRequest(interaction_id, Approval(SlackActor("U0ADA", "Ada")), 2, body, made)
        await store.cast_vote(first, NOW, LEASE)
        completing = VoteRequest(
            interaction_id, Approval(SlackActor("U0GRACE", "Grace")), 2, body, made
        )
        withdrawn, ballot = await asyncio.gather(
            peer.withdraw_vote(interaction_id, "U0ADA", NOW),
            store.cast_vote(completing, NOW, LEASE),
        )
        if withdrawn == "withdrawn":
            assert ballot.queued is None
            assert await store.open_decision(interaction_id) is None
        else:
            assert withdrawn == "sealed"
            assert ballot.queued is not None
            assert [a.actor.user_id for a in ballot.queued.approvers] == ["U0ADA", "U0GRACE"]
