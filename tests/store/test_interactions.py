"""Interactions and their primary message: claimed once, posted once, never back to pending."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.domain import SlackActor, SlackDecision
from bot.store import Store
from bot.store.messages import MessageKey
from bot.store.records import stored_expiry
from bot.store.schema import MessageKind
from tests.support import statements_run

from .helpers import NOW, interaction, record_message, record_primary, shown_primary


async def test_two_claimers_one_wins(store: Store, peer: Store) -> None:
    claims = await asyncio.gather(
        *(s.claim_for_posting(interaction(), "C1", NOW) for s in (store, peer, store, peer))
    )
    assert claims.count(True) == 1
    assert await store.tracked_ids() == {"int_1"}


async def test_posted_once_and_the_primary_message_is_shown(store: Store, peer: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    later = NOW + timedelta(seconds=2)
    results = await asyncio.gather(
        record_primary(store, "int_1", "1.0001", "h1", later),
        record_primary(peer, "int_1", "1.0002", "h2", later),
    )
    assert sorted(results) == [False, True]
    tracked = await store.get("int_1")
    assert tracked is not None
    assert (tracked.state, tracked.channel) == ("posted", "C1")
    assert (tracked.ts, tracked.rendered_hash) in {("1.0001", "h1"), ("1.0002", "h2")}
    assert tracked.claimed_at == later  # when its lane claimed it
    assert [t.id for t in await store.open_interactions()] == ["int_1"]


async def test_unposted_says_when_the_post_was_claimed(store: Store) -> None:
    await store.claim_for_posting(interaction("int_b"), "C1", NOW + timedelta(seconds=5))
    await store.claim_for_posting(interaction("int_a"), "C2", NOW)
    unposted = await store.unposted()
    assert [(t.id, t.channel, t.claimed_at) for t in unposted] == [
        ("int_a", "C2", NOW),
        ("int_b", "C1", NOW + timedelta(seconds=5)),
    ]
    assert all(t.state == "queued" and t.ts is None for t in unposted)  # waiting for a lane
    await record_primary(store, "int_a", "1.1", "h", NOW)
    assert [t.id for t in await store.unposted()] == ["int_b"]


async def test_a_finished_record_never_goes_back_to_pending(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    await record_primary(store, "int_1", "1.0001", "h", NOW)
    assert await store.out_of_step() == []
    await store.update_snapshot(interaction(status="resolved"), NOW)
    await store.update_snapshot(interaction(status="pending"), NOW)  # a stale list page
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.snapshot.status == "resolved"
    assert await store.open_interactions() == []
    assert [t.id for t in await store.out_of_step()] == ["int_1"]
    await shown_primary(store, "int_1", "h2")
    assert await store.out_of_step() == []
    await store.update_snapshot(interaction(status="resolved", reason="same status"), NOW)
    assert await store.out_of_step() == []  # same status: the message is still right
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.snapshot.reason == "same status"


async def test_a_gone_interaction_is_out_of_step_until_rendered(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    await record_primary(store, "int_1", "1.0001", "h", NOW)
    await shown_primary(store, "int_1", "h")
    await store.mark_gone("int_1", NOW)
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.gone and not tracked.is_open
    assert [t.id for t in await store.out_of_step()] == ["int_1"]
    await shown_primary(store, "int_1", "h-gone")
    assert await store.out_of_step() == []


async def test_the_first_slack_decision_is_kept(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    ada = SlackDecision(SlackActor("U1", "Ada"), NOW, "Approved", "looks fine")
    grace = SlackDecision(SlackActor("U2", "Grace"), NOW + timedelta(seconds=1), "Denied")
    assert await store.record_slack_decision("int_1", ada)
    assert not await store.record_slack_decision("int_1", grace)
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.decided_in_slack == ada


async def test_unknown_interactions_are_none(store: Store) -> None:
    assert await store.get("nope") is None
    assert not await record_primary(store, "nope", "1.1", "h", NOW)


async def test_the_record_is_kept_as_received_whatever_its_text(store: Store) -> None:
    odd = "nul\x00 bidi\u202e\u2066 zero\u200b emoji🙂 lone\ud800 surrogate \\u0000"
    deep: object = "bottom"
    for _ in range(300):
        deep = {"next": deep}
    record = interaction(input={"deep": deep, "odd": odd, odd: [odd]}, reason=odd)
    await store.claim_for_posting(record, "C1", NOW)
    tracked = await store.get("int_1")
    assert tracked is not None
    assert tracked.snapshot.input == record.input
    assert tracked.snapshot.reason == odd


async def test_a_record_too_deep_to_store_is_kept_in_part(store: Store) -> None:
    deep: object = "bottom"
    for _ in range(5000):
        deep = [deep]
    await store.claim_for_posting(interaction(input=deep), "C1", NOW)
    tracked = await store.get("int_1")
    assert tracked is not None and tracked.snapshot.id == "int_1"
    kept = tracked.snapshot.input
    depth = 0
    while isinstance(kept, list):
        kept, depth = kept[0], depth + 1
    assert isinstance(kept, str) and kept.startswith("(not kept: nested deeper than")
    assert depth > 100


async def test_many_are_claimed_in_one_go_with_their_group_and_read_back_at_once(
    store: Store, peer: Store
) -> None:
    assert await store.claim_for_posting(interaction("int_0"), "C1", NOW)
    group = await store.claim_group("run_1", 3, "C1", "agt", NOW)
    claims = [(interaction(f"int_{n}"), "C1", ["U0COPY"] if n == 2 else []) for n in range(4)]
    claimed = await peer.claim_many_for_posting(
        claims, NOW, groups={f"int_{n}": group for n in range(1, 4)}
    )
    assert claimed == {"int_1", "int_2", "int_3"}  # int_0 was already tracked
    found = await store.get_many(["int_0", "int_1", "int_2", "int_3", "nope"])
    assert sorted(found) == ["int_0", "int_1", "int_2", "int_3"]
    assert [found[f"int_{n}"].group_id for n in range(4)] == [None, group, group, group]
    assert all(t.state == "queued" for t in found.values())
    assert [m.purpose for m in await store.messages("int_2")] == ["channel", "copy"]
    assert [t.id for t in await store.group_members(group)] == ["int_1", "int_2", "int_3"]
    assert await store.claim_many_for_posting([], NOW) == set()
    assert await store.get_many([]) == {}


async def test_which_of_many_step_groups_exist_is_one_answer(store: Store) -> None:
    formed = [await store.claim_group(f"run_{n}", 1, "C1", "agt", NOW) for n in range(3)]
    asked = [*formed, "run_9#1#C1", formed[0]]
    assert await store.groups_among(asked) == set(formed)
    assert await store.groups_among([]) == set()


async def test_the_open_versions_a_poll_reads_are_found_without_a_search_per_interaction(
    tmp_path: Path,
) -> None:
    """Every poll reads the open interactions' versions. As a correlated subquery SQLite
    searched every posted message for each open interaction: 71 ms a poll at 1,000
    waiting, quadratic beyond. The plan the statement gets says whether it still does."""
    path = tmp_path / "plan.db"
    async with await Store.open(path) as store:
        for n in range(3):
            await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
            await record_message(store, f"int_{n}", MessageKind.PRIMARY, "C1", f"1.{n}", "h", NOW)
        with statements_run() as asked:
            assert set(await store.open_versions()) == {"int_0", "int_1", "int_2"}
    ((statement, parameters),) = [(s.sql, s.parameters) for s in asked if s.is_read]
    with contextlib.closing(sqlite3.connect(path)) as raw:
        plan = [row[3] for row in raw.execute("EXPLAIN QUERY PLAN " + statement, parameters)]
    assert not [step for step in plan if "CORRELATED" in step], plan


async def test_the_countdowns_read_each_open_deadline_without_the_records(
    store: Store, monkeypatch: Any
) -> None:
    """After a start the countdowns look at every open message: ten thousand full
    records at once were 60 MB of the process's peak. What they read instead must say
    the same as the records do, chunk after chunk."""
    monkeypatch.setattr("bot.store.interactions.ID_CHUNK", 2)
    due = "2026-11-30T09:00:00.250Z"
    records = [interaction(f"int_{n}", expiresAt=due if n % 2 else None) for n in range(5)]
    for record in records:
        await store.claim_for_posting(record, f"C{record.id[-1]}", NOW)
    for record in records[:4]:  # int_4 waits for its lane: nothing counts down on it yet
        await record_primary(store, record.id, f"1.{record.id[-1]}", "h", NOW)
    await store.update_snapshot(interaction("int_3", status="resolved"), NOW)

    deadlines = await store.open_deadlines()

    opened = await store.open_interactions()
    assert [(d.id, d.channel, d.expires_at) for d in deadlines] == [
        (t.id, t.channel, t.snapshot.expires_at) for t in opened
    ]
    assert [(d.id, d.expires_at) for d in deadlines] == [
        ("int_0", None),
        ("int_1", datetime(2026, 11, 30, 9, 0, 0, 250_000, tzinfo=UTC)),
        ("int_2", None),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"expiresAt": "2026-11-30T09:00:00Z"}', datetime(2026, 11, 30, 9, tzinfo=UTC)),
        ('{"expiresAt": null}', None),
        ('{"expiresAt": "soon"}', None),
        ('{"expiresAt": 17}', datetime(1970, 1, 1, 0, 0, 17, tzinfo=UTC)),
        ("[1, 2]", None),
        ("not json", None),
    ],
)
def test_a_stored_expiry_reads_as_the_model_reads_it(text: str, expected: Any) -> None:
    assert stored_expiry(text) == expected


async def test_a_step_groups_message_is_a_message_of_its_own_kind(
    store: Store, peer: Store
) -> None:
    """Tracked with the group (once, whoever forms it), then claimed and recorded by the
    verbs every message takes; a thread under it is none of an interaction's."""
    group = await store.claim_group("run_1", 3, "C1", "agt", NOW)
    assert await peer.claim_group("run_1", 3, "C1", "agt", NOW) == group
    [tracked] = await store.unposted_messages()
    assert (tracked.interaction_id, tracked.purpose, tracked.state) == (
        group,
        MessageKind.GROUP,
        "queued",
    )
    assert not await store.track_message(MessageKey(group, MessageKind.GROUP, "C1"), NOW)
    await record_message(store, group, MessageKind.GROUP, "C1", "5.5", "h", NOW)
    shown = await store.group(group)
    assert shown is not None and (shown.state, shown.ts, shown.rendered_hash) == (
        "posted",
        "5.5",
        "h",
    )
    assert await store.interaction_at("C1", "5.5") is None
    assert await store.unposted_messages() == []
