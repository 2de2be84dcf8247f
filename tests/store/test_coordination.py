"""Replicas share work: a lease has one holder, one interaction's messages one writer."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from tests.support import bounded, wait_until

from .conftest import Database, advisory_waiters
from .helpers import NOW
from .processes import start


async def test_a_lease_is_taken_renewed_and_taken_over_after_expiry(
    store: Store, peer: Store
) -> None:
    assert await store.try_acquire_lease("poller", "a", 30, NOW)
    assert not await peer.try_acquire_lease("poller", "b", 30, NOW + timedelta(seconds=10))
    assert await store.try_acquire_lease("poller", "a", 30, NOW + timedelta(seconds=20))  # renew
    assert not await peer.try_acquire_lease("poller", "b", 30, NOW + timedelta(seconds=40))
    assert await peer.lease_holder("poller", NOW + timedelta(seconds=49)) == "a"
    expired = NOW + timedelta(seconds=50)
    assert await peer.lease_holder("poller", expired) is None
    assert await peer.try_acquire_lease("poller", "b", 30, expired)
    assert not await store.try_acquire_lease("poller", "a", 30, expired)
    assert await store.lease_holder("poller", expired) == "b"


async def test_never_two_holders(store: Store, peer: Store) -> None:
    for step in range(5):
        now = NOW + timedelta(minutes=step)  # every round starts with the lease expired
        wins = await asyncio.gather(
            *(
                s.try_acquire_lease("poller", f"r{n}", 30, now)
                for n, s in enumerate((store, peer, store, peer))
            )
        )
        assert wins.count(True) == 1
        assert await store.lease_holder("poller", now) == f"r{wins.index(True)}"


async def test_a_released_lease_is_free_at_once(store: Store, peer: Store) -> None:
    assert await store.try_acquire_lease("poller", "a", 30, NOW)
    assert not await peer.release_lease("poller", "b")
    assert await store.release_lease("poller", "a")
    assert await peer.try_acquire_lease("poller", "b", 30, NOW)
    assert await store.try_acquire_lease("other", "a", 30, NOW)  # leases are by name


async def test_the_message_guard_lets_one_writer_in_at_a_time(store: Store, peer: Store) -> None:
    inside: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    entered = asyncio.Event()

    async def write(s: Store, who: str) -> None:
        async with s.message_guard("int_1"):
            inside.append(who)
            overlaps.append(tuple(inside))
            entered.set()
            # yield to the other writer several times while holding the guard
            for _ in range(20):
                await asyncio.sleep(0)
            await s.lease_holder("anything", NOW)  # a round trip while holding it
            inside.remove(who)

    first = asyncio.create_task(write(store, "first"))
    await bounded(entered.wait(), 10)
    await bounded(asyncio.gather(first, write(peer, "second")), 10)
    assert overlaps == [("first",), ("second",)]


async def test_the_guard_is_per_interaction(store: Store, peer: Store) -> None:
    async with store.message_guard("int_1"):
        await bounded(_enter_and_leave(peer, "int_2"), 5)


async def test_the_guard_is_free_again_after_an_error(store: Store, peer: Store) -> None:
    try:
        async with store.message_guard("int_1"):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    await bounded(_enter_and_leave(peer, "int_1"), 5)


async def _enter_and_leave(store: Store, interaction_id: str) -> None:
    async with store.message_guard(interaction_id):
        pass


async def test_a_killed_replica_lets_go_of_the_guard(postgres: Database) -> None:
    holder = await start("guard", str(postgres.target), str(postgres.schema), "int_1")
    assert await holder.line() == f"held {holder.pid}"
    store = await postgres.open()
    try:
        entering = asyncio.ensure_future(_enter_and_leave(store, "int_1"))
        await wait_until(advisory_waiters, message="a replica waiting on the guard")
        assert not entering.done()  # the other replica holds it
        await holder.kill()
        await bounded(entering, 15)
    finally:
        await store.close()
