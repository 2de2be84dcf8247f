"""Renders of many lanes read their facts together, and each still sees what it asked after."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Collection
from datetime import timedelta
from pathlib import Path

import pytest

from bot.messages.reads import FactReads
from bot.store import Store
from bot.store.facts import MessageFacts
from tests.store.helpers import NOW, decision, interaction
from tests.support import bounded, statements_run, wait_until

LEASE = NOW + timedelta(minutes=1)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "store.db")
    for n in range(10):
        await opened.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
    try:
        yield opened
    finally:
        await opened.close()


class HeldSource:
    """The real store, its read held at a gate (and failing once, when asked)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.gate = asyncio.Event()
        self.reads: list[list[str]] = []
        self.fail_next = False

    async def message_facts(self, interaction_ids: Collection[str]) -> MessageFacts:
        self.reads.append(list(interaction_ids))
        await self.gate.wait()
        if self.fail_next:
            self.fail_next = False
            raise ConnectionError("the database went away")
        return await self.store.message_facts(interaction_ids)


async def test_ten_renders_at_once_read_once_and_each_gets_its_own(store: Store) -> None:
    await store.enqueue_decision("int_3", *decision("U1", "int_3"), LEASE)
    shared = FactReads(store)
    with statements_run(store._engine.sync_engine) as statements:
        got = await bounded(asyncio.gather(*(shared.facts([f"int_{n}"]) for n in range(10))), 10)
    reads = [s for s in statements if s.is_read and "FROM messages" in s.sql]
    assert len(reads) == 1  # one read for the ten (each alone would be ten)
    for n, facts in enumerate(got):
        assert [m.channel for m in facts.messages[f"int_{n}"]] == ["C1"]
        assert (f"int_{n}" in facts.decisions) == (n == 3)


async def test_a_render_asking_during_a_read_gets_the_next_one_with_what_was_committed(
    store: Store,
) -> None:
    held = HeldSource(store)
    shared = FactReads(held)
    first = asyncio.ensure_future(shared.facts(["int_1"]))
    await wait_until(lambda: held.reads or None, message="the first read under way")
    # committed after the first read began, then asked for: it must be seen
    await store.enqueue_decision("int_2", *decision("U1", "int_2"), LEASE)
    second = asyncio.ensure_future(shared.facts(["int_2"]))
    held.gate.set()
    first_facts, second_facts = await bounded(asyncio.gather(first, second), 10)
    assert held.reads == [["int_1"], ["int_2"]]
    assert "int_2" not in first_facts.decisions
    assert second_facts.decisions["int_2"].decision.actor.user_id == "U1"


async def test_a_failed_read_fails_each_waiter_and_the_next_render_reads_again(
    store: Store,
) -> None:
    held = HeldSource(store)
    held.fail_next = True
    shared = FactReads(held)
    waiting = [asyncio.ensure_future(shared.facts([f"int_{n}"])) for n in range(3)]
    await wait_until(lambda: held.reads or None, message="the read under way")
    held.gate.set()
    outcomes = await bounded(asyncio.gather(*waiting, return_exceptions=True), 10)
    assert all(isinstance(o, ConnectionError) for o in outcomes)
    facts = await bounded(shared.facts(["int_0"]), 10)
    assert [m.channel for m in facts.messages["int_0"]] == ["C1"]


async def test_a_render_cancelled_while_waiting_leaves_the_read_to_the_others(
    store: Store,
) -> None:
    held = HeldSource(store)
    shared = FactReads(held)
    cancelled = asyncio.ensure_future(shared.facts(["int_0"]))
    kept = asyncio.ensure_future(shared.facts(["int_1"]))
    await wait_until(lambda: held.reads or None, message="the read under way")
    cancelled.cancel()
    held.gate.set()
    facts = await bounded(kept, 10)
    assert [m.channel for m in facts.messages["int_1"]] == ["C1"]
    assert cancelled.cancelled()


async def test_asking_for_nothing_reads_nothing(store: Store) -> None:
    held = HeldSource(store)
    facts = await bounded(FactReads(held).facts([]), 10)
    assert (facts.decisions, facts.messages, held.reads) == ({}, {}, [])
