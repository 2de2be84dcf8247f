"""One message's post: claimed while it renders, the claim and the render's read in one
round, and a render that fails gives the claim back (nothing was sent)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.messages.batches import SendBatches
from bot.messages.lifecycle import Lifecycle, Sending
from bot.store import Store
from bot.store.messages import MessageKey, SendRound
from bot.store.schema import MessageKind, MessageState
from tests.store.helpers import NOW, interaction
from tests.support import bounded, wait_until

KEY = MessageKey("int_1", MessageKind.PRIMARY, "C1")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "store.db")
    await opened.claim_for_posting(interaction("int_1"), "C1", NOW)
    try:
        yield opened
    finally:
        await opened.close()


async def test_the_claim_and_the_renders_read_share_one_round(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    lifecycle = Lifecycle(store, lambda: NOW)
    rounds: list[int] = []
    real = store.record_sends

    async def counted(*args: Any, **kwargs: Any) -> SendRound:
        rounds.append(1)
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, "record_sends", counted)

    async def send() -> tuple[str, str]:
        return "C1", "100.000001"

    async def prepare() -> tuple[Sending, str]:
        facts = await lifecycle.sends.message_facts(["int_1"])
        assert [m.state for m in facts.messages["int_1"]] == [MessageState.POSTING]
        return send, "hash"

    assert await lifecycle.post(KEY, MessageState.QUEUED, prepare, {}) == ("C1", "100.000001")
    assert len(rounds) == 2  # claim with read, then the record
    posted = await store.get("int_1")
    assert posted is not None and (posted.state, posted.ts) == ("posted", "100.000001")


async def test_a_render_that_fails_gives_its_claim_back(store: Store) -> None:
    lifecycle = Lifecycle(store, lambda: NOW)

    async def prepare() -> tuple[Sending, str]:
        await lifecycle.sends.message_facts(["int_1"])
        raise ValueError("cannot render")

    with pytest.raises(ValueError, match="cannot render"):
        await lifecycle.post(KEY, MessageState.QUEUED, prepare, {})
    [waiting] = await store.unposted()
    assert waiting.state == MessageState.QUEUED  # posted later without a look: nothing went


class _Held:
    """A monotonic clock the test moves and a sleep the test ends: whether a round
    lingered, and what joined it meanwhile, without a timing verdict."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []
        self.release = asyncio.Event()

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        await self.release.wait()
        self.release.clear()


async def test_a_round_lingers_for_company_only_while_sends_keep_coming(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in (2, 3):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
    held = _Held()
    batches = SendBatches(
        store, lambda: NOW, linger=0.004, monotonic=held.monotonic, sleep=held.sleep
    )
    rounds: list[list[MessageKey]] = []
    real = store.record_sends

    async def counted(claims: Any, *args: Any, **kwargs: Any) -> SendRound:
        rounds.append(list(claims))
        return await real(claims, *args, **kwargs)

    monkeypatch.setattr(store, "record_sends", counted)
    # after a quiet spell: written at once
    assert await bounded(batches.claim(KEY))
    assert (held.slept, rounds) == ([], [[KEY]])
    # a moment later, sends keep coming: the round waits, and the next send joins it
    held.now += 0.01
    second = MessageKey("int_2", MessageKind.PRIMARY, "C1")
    third = MessageKey("int_3", MessageKind.PRIMARY, "C1")
    first_claim = asyncio.ensure_future(batches.claim(second))
    await wait_until(lambda: held.slept or None, message="the round lingering")
    second_claim = asyncio.ensure_future(batches.claim(third))
    held.release.set()
    assert list(await bounded(asyncio.gather(first_claim, second_claim))) == [True, True]
    assert (held.slept, rounds[1:]) == ([0.004], [[second, third]])
    # a quiet spell again: at once
    held.now += 1.0
    await store.claim_for_posting(interaction("int_4"), "C1", NOW)
    assert await bounded(batches.claim(MessageKey("int_4", MessageKind.PRIMARY, "C1")))
    assert held.slept == [0.004]


async def test_a_round_cancelled_while_it_lingers_tells_its_senders(store: Store) -> None:
    """Shutdown cancels the writer mid-linger: its senders hear so rather than wait for a
    round that never comes (what they sent is the store's look's after a restart)."""
    held = _Held()
    batches = SendBatches(store, lambda: NOW, monotonic=held.monotonic, sleep=held.sleep)
    assert await bounded(batches.claim(KEY))
    lingering = asyncio.ensure_future(batches.claim(MessageKey("int_9", MessageKind.PRIMARY, "C1")))
    await wait_until(lambda: held.slept or None, message="the round lingering")
    writer = batches._writer
    assert writer is not None
    writer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await bounded(lingering)
