"""One message's post: claimed while it renders, the claim and the render's read in one
round, and a render that fails gives the claim back (nothing was sent)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.messages.lifecycle import Lifecycle, Sending
from bot.store import Store
from bot.store.messages import MessageKey, SendRound
from bot.store.schema import MessageKind, MessageState
from tests.store.helpers import NOW, interaction

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
