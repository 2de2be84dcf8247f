"""A lane's send: claimed just before it goes, its ts recorded after, many lanes' at once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from bot.store.messages import MessageKey, SentMessage
from bot.store.schema import MessageKind

from .helpers import NOW, interaction

LATER = NOW + timedelta(seconds=5)


def _key(interaction_id: str, channel: str = "C1") -> MessageKey:
    return MessageKey(interaction_id, MessageKind.PRIMARY, channel)


async def test_a_tracked_message_waits_queued_until_one_lane_claims_it(
    store: Store, peer: Store
) -> None:
    await store.claim_for_posting(interaction("int_1"), "C1", NOW)
    assert [t.state for t in await store.unposted()] == ["queued"]
    outcomes = await asyncio.gather(
        *(s.record_sends([_key("int_1")], [], LATER) for s in (store, peer, store))
    )
    assert [done.claimed for done in outcomes].count({_key("int_1")}) == 1  # one sender only
    [claimed] = await store.unposted()
    assert (claimed.state, claimed.claimed_at, claimed.after_ts) == ("posting", LATER, None)


async def test_claims_and_recorded_ts_of_many_lanes_go_in_one_batch(store: Store) -> None:
    for n, channel in enumerate(["C1", "C1", "C2"]):
        await store.claim_for_posting(interaction(f"int_{n}"), channel, NOW)
    never_claimed = SentMessage(_key("int_1"), "99.000001", "h1", "C1")
    done = await store.record_sends([_key("int_0"), _key("int_2", "C2")], [never_claimed], NOW)
    assert (done.claimed, done.recorded) == ({_key("int_0"), _key("int_2", "C2")}, set())
    sent = [
        SentMessage(_key("int_0"), "100.000001", "h0", "C1"),
        SentMessage(_key("int_2", "C2"), "100.000002", "h2", "C2"),
    ]
    done = await store.record_sends([_key("int_1")], sent, LATER)
    assert done.claimed == {_key("int_1")}
    assert done.recorded == {_key("int_0"), _key("int_2", "C2")}
    # where a look for int_1 would start: after the newest message of ours in C1
    [in_doubt] = await store.unposted()
    assert (in_doubt.id, in_doubt.state, in_doubt.after_ts) == ("int_1", "posting", "100.000001")
    posted = await store.get("int_0")
    assert posted is not None and (posted.state, posted.ts) == ("posted", "100.000001")
    events = [e for e in await store.audit_entries() if e.event == "posted"]
    assert sorted(e.interaction_id or "" for e in events) == ["int_0", "int_2"]


async def test_a_post_slack_refused_waits_queued_again(store: Store) -> None:
    await store.claim_for_posting(interaction("int_1"), "C1", NOW)
    await store.record_sends([_key("int_1")], [], NOW)
    assert await store.unclaim(_key("int_1"), LATER)
    assert [t.state for t in await store.unposted()] == ["queued"]
    assert not await store.unclaim(_key("int_1"), LATER)  # only a claim goes back


async def test_a_round_reads_the_facts_its_renders_asked_for(store: Store) -> None:
    """The facts a render asked for come with the round's claims, seeing them."""
    await store.claim_for_posting(interaction("int_1"), "C1", NOW)
    done = await store.record_sends([_key("int_1")], [], LATER, read=["int_1"])
    assert done.facts is not None
    [primary] = done.facts.messages["int_1"]
    assert (primary.state, done.facts.decisions, done.facts.steps["int_1"]) == ("posting", {}, [])
    assert (await store.record_sends([], [], LATER)).facts is None
