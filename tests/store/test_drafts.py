"""Form drafts: saved per view, dropped with their form, and bounded in number."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from bot.store import Store

from .helpers import NOW


async def test_a_draft_is_saved_replaced_and_dropped(store: Store) -> None:
    answers: list[dict[str, Any]] = [
        {"questionId": "q1", "optionIds": ["a"]},
        {"questionId": "q2", "text": "x\u202ey"},
    ]
    assert await store.load_draft("V1") is None
    await store.save_draft("V1", "int_1", answers, NOW)
    assert await store.load_draft("V1") == answers
    await store.save_draft("V1", "int_1", answers[:1], NOW + timedelta(seconds=1))
    assert await store.load_draft("V1") == answers[:1]
    await store.drop_draft("V1")
    assert await store.load_draft("V1") is None


async def test_drafts_go_with_their_interaction(store: Store) -> None:
    for view, owner in (("V1", "int_1"), ("V2", "int_1"), ("V3", "int_2")):
        await store.save_draft(view, owner, [], NOW)
    assert await store.drop_drafts_for("int_1") == 2
    assert await store.load_draft("V1") is None
    assert await store.load_draft("V3") == []


async def test_pruning_drops_stale_then_oldest_beyond_the_bound(store: Store) -> None:
    for n in range(6):
        await store.save_draft(f"V{n}", "int_1", [{"n": n}], NOW + timedelta(minutes=n))
    assert await store.prune_drafts(NOW + timedelta(minutes=1), keep_at_most=10) == 1
    assert await store.load_draft("V0") is None
    assert await store.prune_drafts(NOW, keep_at_most=2) == 3
    kept = [v for v in ("V1", "V2", "V3", "V4", "V5") if await store.load_draft(v) is not None]
    assert kept == ["V4", "V5"]
    assert await store.prune_drafts(NOW, keep_at_most=0) == 2
