"""Scheduled digests: each scheduled time claimed once, whoever asks, on both engines."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store

from .helpers import NOW

KEY = "digest-0123456789abcdef"
NINE = NOW
TEN = NOW + timedelta(hours=1)


async def test_a_scheduled_time_is_claimed_once_then_marked_sent(store: Store) -> None:
    assert await store.claim_digest(KEY, NINE, "sending", NINE + timedelta(seconds=1))
    assert not await store.claim_digest(KEY, NINE, "sending", NINE + timedelta(seconds=3))
    assert not await store.claim_digest(KEY, NINE, "skipped", NINE + timedelta(seconds=5))
    claimed = await store.digest_run(KEY, NINE)
    assert claimed is not None and claimed.state == "sending" and claimed.sent_at is None
    assert claimed.claimed_at == NINE + timedelta(seconds=1)

    assert await store.mark_digest_sent(KEY, NINE, NINE + timedelta(seconds=2))
    assert not await store.mark_digest_sent(KEY, NINE, NINE + timedelta(seconds=4))
    sent = await store.digest_run(KEY, NINE)
    assert sent is not None and sent.state == "sent"
    assert sent.sent_at == NINE + timedelta(seconds=2)
    # another digest's nine o'clock is its own
    assert await store.claim_digest("digest-other", NINE, "sending", NINE)


async def test_a_skipped_time_is_never_sent(store: Store) -> None:
    assert await store.claim_digest(KEY, NINE, "skipped", TEN)
    assert not await store.claim_digest(KEY, NINE, "sending", TEN)
    assert not await store.mark_digest_sent(KEY, NINE, TEN)
    run = await store.digest_run(KEY, NINE)
    assert run is not None and run.state == "skipped"


async def test_a_refused_digest_is_skipped_and_a_released_one_can_be_taken_again(
    store: Store,
) -> None:
    await store.claim_digest(KEY, NINE, "sending", NINE)
    await store.skip_digest(KEY, NINE)
    run = await store.digest_run(KEY, NINE)
    assert run is not None and run.state == "skipped"

    await store.claim_digest(KEY, TEN, "sending", TEN)
    await store.release_digest(KEY, TEN)
    assert await store.digest_run(KEY, TEN) is None
    assert await store.claim_digest(KEY, TEN, "sending", TEN)
    # a sent digest is never released
    await store.mark_digest_sent(KEY, TEN, TEN)
    await store.release_digest(KEY, TEN)
    assert await store.digest_run(KEY, TEN) is not None


async def test_the_previous_digest_is_the_last_one_sent_before(store: Store) -> None:
    assert await store.previous_digest(KEY, TEN) is None
    yesterday = NINE - timedelta(days=1)
    before = NINE - timedelta(days=2)
    await store.claim_digest(KEY, before, "sending", before)
    await store.mark_digest_sent(KEY, before, before + timedelta(seconds=1))
    await store.claim_digest(KEY, yesterday, "sending", yesterday)
    await store.mark_digest_sent(KEY, yesterday, yesterday + timedelta(seconds=1))
    await store.claim_digest(KEY, NINE, "skipped", NINE)  # missed: not where the next picks up
    await store.claim_digest("digest-other", NINE, "sending", NINE)
    await store.mark_digest_sent("digest-other", NINE, NINE)

    previous = await store.previous_digest(KEY, TEN)
    assert previous is not None and previous.scheduled_for == yesterday
    assert previous.sent_at == yesterday + timedelta(seconds=1)
    earlier = await store.previous_digest(KEY, yesterday)
    assert earlier is not None and earlier.scheduled_for == before


async def test_two_replicas_racing_for_one_time_take_it_once(store: Store, peer: Store) -> None:
    results = await asyncio.gather(
        *(s.claim_digest(KEY, NINE, "sending", NINE) for s in (store, peer, store, peer))
    )
    assert sorted(results) == [False, False, False, True]
    results = await asyncio.gather(
        *(s.mark_digest_sent(KEY, NINE, TEN) for s in (store, peer, store, peer))
    )
    assert sorted(results) == [False, False, False, True]
