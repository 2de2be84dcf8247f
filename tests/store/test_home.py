"""App Home tabs: who opened theirs, and what it last showed them, on both engines."""

from __future__ import annotations

from datetime import timedelta

from bot.store import Store

from .helpers import NOW, decision, interaction

DAY = timedelta(hours=24)


async def test_an_open_is_recorded_and_nothing_is_published_yet(store: Store) -> None:
    await store.record_home_opened("U1", NOW)
    viewer = await store.home_viewer("U1")
    assert viewer is not None
    assert (viewer.user_id, viewer.opened_at) == ("U1", NOW)
    assert viewer.published_hash is None and viewer.published_at is None
    assert await store.home_viewer("U2") is None


async def test_opening_again_moves_the_time_and_keeps_what_was_published(store: Store) -> None:
    await store.record_home_opened("U1", NOW)
    assert await store.record_home_published("U1", "h1", NOW + timedelta(seconds=1))
    await store.record_home_opened("U1", NOW + timedelta(hours=3))
    viewer = await store.home_viewer("U1")
    assert viewer is not None
    assert viewer.opened_at == NOW + timedelta(hours=3)
    assert (viewer.published_hash, viewer.published_at) == ("h1", NOW + timedelta(seconds=1))


async def test_only_recent_viewers_are_listed(store: Store) -> None:
    await store.record_home_opened("U_OLD", NOW - DAY - timedelta(seconds=1))
    await store.record_home_opened("U_EDGE", NOW - DAY)
    await store.record_home_opened("U_NEW", NOW)
    listed = [v.user_id for v in await store.home_viewers(NOW - DAY)]
    assert sorted(listed) == ["U_EDGE", "U_NEW"]


async def test_viewers_come_longest_since_a_publish_first(store: Store) -> None:
    for user in ("U_A", "U_B", "U_C", "U_D"):
        await store.record_home_opened(user, NOW)
    await store.record_home_published("U_A", "a", NOW + timedelta(seconds=30))
    await store.record_home_published("U_B", "b", NOW + timedelta(seconds=10))
    listed = [v.user_id for v in await store.home_viewers(NOW - DAY)]
    # never published first (by id), then the oldest publish
    assert listed == ["U_C", "U_D", "U_B", "U_A"]


async def test_a_publish_is_recorded_for_a_viewer_only(store: Store) -> None:
    assert not await store.record_home_published("U_NEVER", "h", NOW)
    assert await store.home_viewer("U_NEVER") is None
    await store.record_home_opened("U1", NOW)
    assert await store.record_home_published("U1", "h1", NOW)
    assert await store.record_home_published("U1", "h2", NOW + timedelta(seconds=5))
    viewer = await store.home_viewer("U1")
    assert viewer is not None
    assert (viewer.published_hash, viewer.published_at) == ("h2", NOW + timedelta(seconds=5))


async def test_a_peer_sees_what_another_replica_published(store: Store, peer: Store) -> None:
    await store.record_home_opened("U1", NOW)
    await peer.record_home_opened("U1", NOW + timedelta(minutes=1))
    await peer.record_home_published("U1", "from-peer", NOW + timedelta(minutes=1))
    viewer = await store.home_viewer("U1")
    assert viewer is not None
    assert viewer.opened_at == NOW + timedelta(minutes=1)
    assert viewer.published_hash == "from-peer"


async def _decided(store: Store, interaction_id: str, user: str, minutes: int) -> None:
    await store.claim_for_posting(interaction(interaction_id), "C1", NOW)
    _, slack_decision = decision(user, interaction_id, NOW + timedelta(minutes=minutes))
    assert await store.record_slack_decision(interaction_id, slack_decision)


async def test_what_each_viewer_decided_comes_in_one_query(store: Store) -> None:
    await _decided(store, "int_a1", "U1", 1)
    await _decided(store, "int_a2", "U1", 3)
    await _decided(store, "int_a3", "U1", 2)
    await _decided(store, "int_b1", "U2", 5)
    await _decided(store, "int_c1", "U3", 4)
    await store.claim_for_posting(interaction("int_open"), "C1", NOW)
    found = await store.decided_by_each(["U1", "U2", "U_NONE"], limit=2)
    assert {user: [t.id for t in items] for user, items in found.items()} == {
        "U1": ["int_a2", "int_a3"],
        "U2": ["int_b1"],
        "U_NONE": [],
    }
    newest = found["U1"][0].decided_in_slack
    assert newest is not None and newest.at == NOW + timedelta(minutes=3)
    # the same as asking for each person alone
    assert [t.id for t in await store.decided_by("U1", 2)] == ["int_a2", "int_a3"]
