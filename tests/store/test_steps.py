"""Reminder and escalation steps: each taken once, whoever asks, on both engines."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from bot.store.messages import MessageKey
from bot.store.schema import MessageKind

from .helpers import NOW, interaction, record_message


async def test_a_step_is_taken_once(store: Store) -> None:
    assert await store.claim_step("int_1", "remind 50%", "sent", NOW)
    assert not await store.claim_step("int_1", "remind 50%", "skipped", NOW)
    assert await store.claim_step("int_2", "remind 50%", "skipped", NOW)
    taken = await store.steps_taken(["int_1", "int_2", "int_3"])
    assert [(s.step, s.outcome, s.sent) for s in taken["int_1"]] == [("remind 50%", "sent", True)]
    assert [s.sent for s in taken["int_2"]] == [False]
    assert taken["int_3"] == []


async def test_steps_come_oldest_first_with_their_link(store: Store) -> None:
    await store.claim_step("int_1", "escalate", "sent", NOW + timedelta(minutes=2))
    await store.claim_step("int_1", "remind 5m", "sent", NOW)
    await store.set_step_link("int_1", "escalate", "https://x.slack.com/archives/C1/p1")
    taken = (await store.steps_taken(["int_1"]))["int_1"]
    assert [s.step for s in taken] == ["remind 5m", "escalate"]
    assert taken[0].taken_at == NOW
    assert taken[1].link == "https://x.slack.com/archives/C1/p1"
    assert await store.steps_taken([]) == {}


async def test_two_replicas_racing_for_a_step_take_it_once(store: Store, peer: Store) -> None:
    results = await asyncio.gather(
        *(s.claim_step("int_1", "escalate", "sent", NOW) for s in (store, peer, store, peer))
    )
    assert sorted(results) == [False, False, False, True]


async def test_a_message_posted_to_a_user_remembers_its_dm(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    for target in ("U0BOSS", "C0MANAGERS"):
        assert await store.track_message(MessageKey("int_1", MessageKind.ESCALATION, target), NOW)
    await record_message(
        store, "int_1", MessageKind.ESCALATION, "U0BOSS", "1.1", "h", NOW, slack_channel="D0BOSS"
    )
    await record_message(
        store,
        "int_1",
        MessageKind.ESCALATION,
        "C0MANAGERS",
        "1.2",
        "h",
        NOW,
        slack_channel="C0MANAGERS",
    )
    shown = {
        m.channel: m.shown_in
        for m in await store.messages("int_1")
        if m.purpose == MessageKind.ESCALATION
    }
    assert shown == {"U0BOSS": "D0BOSS", "C0MANAGERS": "C0MANAGERS"}
