"""Messages are records of their own: each claimed, posted and re-rendered once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from bot.store.messages import MessageKey, SentMessage
from bot.store.schema import MessageKind

from .helpers import NOW, interaction

LATER = NOW + timedelta(minutes=1)


def _key(purpose: MessageKind = MessageKind.PRIMARY, channel: str = "C1") -> MessageKey:
    return MessageKey("int_1", purpose, channel)


def _sent(key: MessageKey, ts: str, rendered_hash: str = "h") -> SentMessage:
    return SentMessage(key, ts, rendered_hash, key.channel, audit_detail=None)


async def _claimed(store: Store, key: MessageKey) -> None:
    done = await store.record_sends([key], [], NOW)
    assert done.claimed == {key}


async def test_the_primary_message_is_a_message(store: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    [primary] = await store.messages("int_1")
    assert (primary.purpose, primary.channel, primary.state, primary.version) == (
        "channel",
        "C1",
        "queued",  # its lane claims it just before sending
        0,
    )
    assert primary.claimed_at == NOW
    assert not await store.record_posted(_sent(_key(), "1.1"), LATER)  # never claimed
    await _claimed(store, _key())
    await store.record_posted(_sent(_key(), "1.1"), LATER)
    posted = await store.get_message("int_1", MessageKind.PRIMARY, "C1")
    assert posted is not None and (posted.ts, posted.version, posted.updated_at) == (
        "1.1",
        1,
        LATER,
    )


async def test_other_messages_are_claimed_once_each(store: Store, peer: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    claims = await asyncio.gather(
        *(s.track_message(_key(MessageKind.ESCALATION, "C9"), LATER) for s in (store, peer, store))
    )
    assert claims.count(True) == 1
    assert await store.track_message(_key(MessageKind.ESCALATION, "C8"), LATER)
    assert not await store.track_message(_key(MessageKind.PRIMARY, "C2"), LATER)  # one primary
    assert [(m.purpose, m.channel) for m in await store.messages("int_1")] == [
        ("channel", "C1"),
        (MessageKind.ESCALATION, "C8"),
        (MessageKind.ESCALATION, "C9"),
    ]
    unposted = await store.unposted_messages()
    assert [(m.purpose, m.channel) for m in unposted] == [
        ("channel", "C1"),
        (MessageKind.ESCALATION, "C8"),
        (MessageKind.ESCALATION, "C9"),
    ]
    escalation = _key(MessageKind.ESCALATION, "C9")
    await _claimed(store, escalation)
    assert await store.record_posted(_sent(escalation, "2.2", "r"), LATER)
    assert not await store.record_posted(_sent(escalation, "2.3", "r"), LATER)
    posted = await store.get_message("int_1", MessageKind.ESCALATION, "C9")
    assert posted is not None and (posted.state, posted.ts, posted.synced) == (
        "posted",
        "2.2",
        True,
    )


async def test_a_message_about_nothing_tracked_is_refused(store: Store) -> None:
    assert not await store.track_message(MessageKey("nope", MessageKind.ESCALATION, "C1"), NOW)
    assert await store.unposted_messages() == []


async def test_compare_and_set_on_the_message_version(store: Store, peer: Store) -> None:
    await store.claim_for_posting(interaction(), "C1", NOW)
    await _claimed(store, _key())
    await store.record_posted(_sent(_key(), "1.1", "h0"), NOW)
    seen = await store.get_message("int_1", MessageKind.PRIMARY, "C1")
    assert seen is not None
    writes = await asyncio.gather(
        store.record_shown(_key(), "a", LATER, expected_version=seen.version),
        peer.record_shown(_key(), "b", LATER, expected_version=seen.version),
    )
    assert sorted(writes) == [False, True]
    after = await store.get_message("int_1", MessageKind.PRIMARY, "C1")
    assert after is not None and after.version == seen.version + 1
    assert after.rendered_hash == ("a" if writes[0] else "b")
    assert await store.record_shown(_key(), "c", LATER)
