"""A lane's send: claimed just before it goes, its ts recorded after, many lanes' at once."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.store import Store
from bot.store.messages import MessageKey, SentMessage
from bot.store.schema import MessageKind
from tests.support import statements_run

from .helpers import NOW, decision, grant, interaction

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


async def test_a_round_records_only_what_is_still_posting_whatever_its_kind(
    store: Store, peer: Store
) -> None:
    """A round records its sends in one batch. One a look after a crash recorded first
    keeps that ts, one sent twice is recorded once, a DM copy beside the primaries is
    recorded as a copy, and only what this round recorded is audited."""
    for n in range(3):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
    copy = MessageKey("int_0", MessageKind.COPY, "U1")
    assert await store.track_message(copy, NOW)
    claims = [_key("int_0"), _key("int_1"), _key("int_2"), copy]
    assert (await store.record_sends(claims, [], NOW)).claimed == set(claims)
    # the other replica's look found int_1 in Slack first
    assert await peer.record_posted(SentMessage(_key("int_1"), "50.000001", "", "C1", None), NOW)
    sent = [
        SentMessage(_key("int_0"), "100.000001", "h0", "C1", {}),
        SentMessage(_key("int_1"), "100.000002", "h1", "C1", {}),
        SentMessage(_key("int_2"), "100.000003", "h2", "C1", {}),
        SentMessage(_key("int_2"), "100.000004", "h2", "C1", {}),
        SentMessage(copy, "100.000005", "h0", "D1", {"copy_for": "U1"}),
    ]
    done = await store.record_sends([], sent, LATER)
    assert done.recorded == {_key("int_0"), _key("int_2"), copy}
    shown = {
        (m.purpose, m.interaction_id): (m.ts, m.rendered_hash, m.shown_in)
        for n in range(3)
        for m in await store.messages(f"int_{n}")
    }
    assert shown == {
        (MessageKind.PRIMARY, "int_0"): ("100.000001", "h0", "C1"),
        (MessageKind.COPY, "int_0"): ("100.000005", "h0", "D1"),
        (MessageKind.PRIMARY, "int_1"): ("50.000001", "", "C1"),
        (MessageKind.PRIMARY, "int_2"): ("100.000003", "h2", "C1"),
    }
    events = [e for e in await store.audit_entries() if e.event == "posted"]
    assert sorted((e.interaction_id, e.detail["ts"]) for e in events) == [
        ("int_0", "100.000001"),
        ("int_0", "100.000005"),
        ("int_2", "100.000003"),
    ]


async def test_two_replicas_recording_one_message_at_once_record_it_once(
    store: Store, peer: Store
) -> None:
    """Each replica's round reads what is still `posting` and records it: the read must
    hold until the write, or both would say they recorded it (and audit it twice)."""
    for n in range(2):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
    await store.record_sends([_key("int_0"), _key("int_1")], [], NOW)
    rounds = [
        [SentMessage(_key(f"int_{n}"), f"{100 + r}.00000{n}", "h", "C1", {}) for n in range(2)]
        for r in range(2)
    ]
    outcomes = await asyncio.gather(
        store.record_sends([], rounds[0], LATER), peer.record_sends([], rounds[1], LATER)
    )
    recorded = [key for done in outcomes for key in done.recorded]
    assert sorted(k.interaction_id for k in recorded) == ["int_0", "int_1"]
    events = [e for e in await store.audit_entries() if e.event == "posted"]
    assert len(events) == 2


async def test_a_round_reads_only_the_facts_there_are_and_each_lands_on_its_own(
    store: Store,
) -> None:
    """One look says which interactions have an open decision, a step taken or an
    allowance; only those are read, and each fact is given to its own interaction."""
    for n in range(4):
        await store.claim_for_posting(interaction(f"int_{n}"), "C1", NOW)
    await store.enqueue_decision("int_1", *decision("U1", "int_1"), LATER)
    assert await store.claim_step("int_2", "remind 50%", "sent", NOW)
    await store.grant_allowance(grant("int_3", tool_name="deploy_api"))
    ids = [f"int_{n}" for n in range(4)]
    with statements_run() as nothing_there:
        none = (await store.record_sends([], [], LATER, read=["int_0"])).facts
    assert none is not None
    assert (none.decisions, none.steps["int_0"], none.allowances["int_0"]) == ({}, [], [])
    assert len([s for s in nothing_there if s.is_read]) == 2  # the look, and the messages
    facts = (await store.record_sends([], [], LATER, read=ids)).facts
    assert facts is not None
    assert list(facts.decisions) == ["int_1"]
    assert {i: [s.step for s in taken] for i, taken in facts.steps.items()} == {
        "int_0": [],
        "int_1": [],
        "int_2": ["remind 50%"],
        "int_3": [],
    }
    assert {i: [a.tool_name for a in given] for i, given in facts.allowances.items()} == {
        "int_0": [],
        "int_1": [],
        "int_2": [],
        "int_3": ["deploy_api"],
    }
    assert all(len(facts.messages[i]) == 1 for i in ids)
